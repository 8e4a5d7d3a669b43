//! Collision filters: a 32-bit category and a 32-bit mask per element (Box2D's
//! `b2Filter`). Two elements are reported as a pair (`qt_query_pairs`,
//! `qt_overlapping`) only when each one's category is in the other's mask; the
//! `_masked` queries report an element only when its category is in the
//! query's mask. The rule is the core's; these calls only set and read it.
//!
//! The masked queries are new `_masked` calls rather than a mask added to
//! `qt_query` and friends, so that the existing calls keep their signatures
//! (the ABI stays compatible) and read as before; the searches (circle,
//! nearest, ray) are new and take the mask as a plain parameter.

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

/// Sets an element's collision filter: from now on `qt_query_pairs` and
/// `qt_overlapping` report it with another element only when each one's
/// `category` is in the other's `mask` (`a.category & b.mask` and
/// `b.category & a.mask` both nonzero), and a `_masked` query reports it only
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

/// `qt_query` reporting only the elements whose category is in `mask`
/// (`category & mask` nonzero; `QT_MASK_ALL` reports every element, 0 none).
#[no_mangle]
pub unsafe extern "C" fn qt_query_masked(
    tree: *const qt_tree,
    rect: qt_rect,
    omit: qt_handle_t,
    mask: u32,
    out_handles: *mut qt_handle_t,
    capacity: usize,
    out_total: *mut usize,
) -> qt_status {
    guard(|| {
        query_masked(
            tree,
            rect.into(),
            omit,
            mask,
            out_handles,
            capacity,
            out_total,
        )
    })
}

/// `qt_query_each` visiting only the elements whose category is in `mask`.
#[no_mangle]
pub unsafe extern "C" fn qt_query_masked_each(
    tree: *const qt_tree,
    rect: qt_rect,
    omit: qt_handle_t,
    mask: u32,
    visit: qt_visit_fn,
    user_data: *mut std::ffi::c_void,
) -> qt_status {
    guard(|| query_masked_each(tree, rect.into(), omit, mask, visit, user_data))
}

/// `qt_query_point` reporting only the elements whose category is in `mask`.
#[no_mangle]
pub unsafe extern "C" fn qt_query_point_masked(
    tree: *const qt_tree,
    x: f32,
    y: f32,
    omit: qt_handle_t,
    mask: u32,
    out_handles: *mut qt_handle_t,
    capacity: usize,
    out_total: *mut usize,
) -> qt_status {
    guard(|| query_point_masked(tree, [x, y], omit, mask, out_handles, capacity, out_total))
}

/// `qt_query_point_each` visiting only the elements whose category is in `mask`.
#[no_mangle]
pub unsafe extern "C" fn qt_query_point_masked_each(
    tree: *const qt_tree,
    x: f32,
    y: f32,
    omit: qt_handle_t,
    mask: u32,
    visit: qt_visit_fn,
    user_data: *mut std::ffi::c_void,
) -> qt_status {
    guard(|| query_point_masked_each(tree, [x, y], omit, mask, visit, user_data))
}

/// Sets an octree element's collision filter, as `qt_set_filter`.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_set_filter(
    tree: *mut qt_octree,
    handle: qt_handle_t,
    category: u32,
    mask: u32,
) -> qt_status {
    guard(|| set_filter(tree, handle, category, mask))
}

/// Writes an octree element's collision filter, as `qt_get_filter`.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_get_filter(
    tree: *const qt_octree,
    handle: qt_handle_t,
    out_category: *mut u32,
    out_mask: *mut u32,
) -> qt_status {
    guard(|| get_filter(tree, handle, out_category, out_mask))
}

/// Sets the filters of `count` octree elements, as `qt_set_filters`.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_set_filters(
    tree: *mut qt_octree,
    handles: *const qt_handle_t,
    categories: *const u32,
    masks: *const u32,
    count: usize,
    out_bad_index: *mut usize,
) -> qt_status {
    guard(|| set_filters(tree, handles, categories, masks, count, out_bad_index))
}

/// `qt_octree_query` reporting only the elements whose category is in `mask`.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_query_masked(
    tree: *const qt_octree,
    b: qt_box,
    omit: qt_handle_t,
    mask: u32,
    out_handles: *mut qt_handle_t,
    capacity: usize,
    out_total: *mut usize,
) -> qt_status {
    guard(|| query_masked(tree, b.into(), omit, mask, out_handles, capacity, out_total))
}

/// `qt_octree_query_each` visiting only the elements whose category is in `mask`.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_query_masked_each(
    tree: *const qt_octree,
    b: qt_box,
    omit: qt_handle_t,
    mask: u32,
    visit: qt_visit_fn,
    user_data: *mut std::ffi::c_void,
) -> qt_status {
    guard(|| query_masked_each(tree, b.into(), omit, mask, visit, user_data))
}

/// `qt_octree_query_point` reporting only the elements whose category is in `mask`.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_query_point_masked(
    tree: *const qt_octree,
    x: f32,
    y: f32,
    z: f32,
    omit: qt_handle_t,
    mask: u32,
    out_handles: *mut qt_handle_t,
    capacity: usize,
    out_total: *mut usize,
) -> qt_status {
    guard(|| {
        query_point_masked(
            tree,
            [x, y, z],
            omit,
            mask,
            out_handles,
            capacity,
            out_total,
        )
    })
}

/// `qt_octree_query_point_each` visiting only the elements whose category is
/// in `mask`.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_query_point_masked_each(
    tree: *const qt_octree,
    x: f32,
    y: f32,
    z: f32,
    omit: qt_handle_t,
    mask: u32,
    visit: qt_visit_fn,
    user_data: *mut std::ffi::c_void,
) -> qt_status {
    guard(|| query_point_masked_each(tree, [x, y, z], omit, mask, visit, user_data))
}
