//! Collision filters: a 32-bit category and a 32-bit mask per element (Box2D's
//! `b2Filter`). Two elements are reported as a pair (`qt_query_pairs`,
//! a `QT_SHAPE_ELEMENT` query) only when each one's category is in the
//! other's mask; a query (`qt_query_desc.mask`) and the searches report an
//! element only when its category is in the query's mask. The rule is the
//! core's; these calls only set and read it.

use flatquad_core::Filter;

use crate::boundary::*;
use crate::shared::*;
use crate::status::*;
use crate::types::*;

/// Every bit: the filter every element starts with (category and mask), and
/// as a query mask, every element whatever its category.
pub const QT_MASK_ALL: u32 = u32::MAX;

const _: () = {
    assert!(QT_MASK_ALL == Filter::ALL);
    assert!(Filter::DEFAULT.category == QT_MASK_ALL && Filter::DEFAULT.mask == QT_MASK_ALL);
};

/// Sets an element's collision filter: from now on `qt_query_pairs` and a
/// `QT_SHAPE_ELEMENT` query report it with another element only when each
/// one's `category` is in the other's `mask` (`a.category & b.mask` and
/// `b.category & a.mask` both nonzero), and a query or search reports it only
/// when `category & mask` of the query is nonzero. Every element starts with
/// `QT_MASK_ALL` for both; removing it (or `qt_clear`) resets its filter.
///
/// Returns `QT_INVALID_HANDLE` if `handle` is not live.
#[no_mangle]
pub unsafe extern "C" fn qt_set_filter(
    tree: *mut qt_tree,
    handle: qt_handle_t,
    category: u32,
    mask: u32,
) -> qt_status {
    guard(|| set_filter(tree, handle, category, mask))
}

/// Writes an element's collision filter to `*out_category` and `*out_mask`
/// (both `QT_MASK_ALL` unless set). Returns `QT_INVALID_HANDLE` if `handle` is
/// not live, `QT_NULL_ARGUMENT` if an out-pointer is NULL.
#[no_mangle]
pub unsafe extern "C" fn qt_get_filter(
    tree: *const qt_tree,
    handle: qt_handle_t,
    out_category: *mut u32,
    out_mask: *mut u32,
) -> qt_status {
    guard(|| get_filter(tree, handle, out_category, out_mask))
}

/// Sets the filter of `handles[i]` to `categories[i]` and `masks[i]` for every
/// `i < count` (a handle given twice keeps its last filter). Checks every
/// handle first: if one is not live, nothing changes and its index is written
/// to `*out_bad_index` (when not NULL). The arrays may be NULL when `count` is 0.
#[no_mangle]
pub unsafe extern "C" fn qt_set_filters(
    tree: *mut qt_tree,
    handles: *const qt_handle_t,
    categories: *const u32,
    masks: *const u32,
    count: usize,
    out_bad_index: *mut usize,
) -> qt_status {
    guard(|| set_filters(tree, handles, categories, masks, count, out_bad_index))
}
