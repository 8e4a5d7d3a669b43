//! Looking at a tree: its size, its elements, its parameters and its health.

use crate::boundary::*;
use crate::shared::*;
use crate::status::*;
use crate::types::*;

/// Number of elements in the tree; 0 for NULL or a poisoned tree.
#[no_mangle]
pub unsafe extern "C" fn qt_len(tree: *const qt_tree) -> usize {
    guard(|| len(tree))
}

/// Which structure the tree is: `QT_KIND_QUADTREE`, `QT_KIND_GRID`,
/// `QT_KIND_LOOSE_GRID` or `QT_KIND_LOOSE_QUADTREE`; 0 for NULL or a poisoned
/// tree.
#[no_mangle]
pub unsafe extern "C" fn qt_kind_of(tree: *const qt_tree) -> qt_kind {
    guard(|| tree_ref(tree).map_or(0, |tree| tree.kind() as qt_kind))
}

/// Whether `handle` names an element of the tree now; false for NULL or a
/// poisoned tree.
#[no_mangle]
pub unsafe extern "C" fn qt_contains(tree: *const qt_tree, handle: qt_handle_t) -> bool {
    guard(|| contains(tree, handle))
}

/// Writes the id the element was inserted with to `*out_id`.
/// Returns `QT_INVALID_HANDLE` if `handle` is not live.
#[no_mangle]
pub unsafe extern "C" fn qt_element_id(
    tree: *const qt_tree,
    handle: qt_handle_t,
    out_id: *mut u32,
) -> qt_status {
    guard(|| element_id(tree, handle, out_id))
}

/// Writes the element's current rectangle to `*out_rect`.
/// Returns `QT_INVALID_HANDLE` if `handle` is not live.
#[no_mangle]
pub unsafe extern "C" fn qt_element_rect(
    tree: *const qt_tree,
    handle: qt_handle_t,
    out_rect: *mut qt_rect,
) -> qt_status {
    guard(|| element_box(tree, handle, out_rect))
}

/// Lists the handle of every element: `*out_total` is the number of elements,
/// and the first min(total, capacity) handles are written to `out_handles`.
/// `out_handles` may be NULL when `capacity` is 0 (to learn the total).
#[no_mangle]
pub unsafe extern "C" fn qt_elements(
    tree: *const qt_tree,
    out_handles: *mut qt_handle_t,
    capacity: usize,
    out_total: *mut usize,
) -> qt_status {
    guard(|| elements(tree, out_handles, capacity, out_total))
}

/// Writes the tree's sizes to `*out_stats`: elements, nodes (or cells),
/// leaves, links, the deepest level reached, and the bytes it holds. Walks
/// every node or cell: meant for tuning and debugging, not for every frame.
#[no_mangle]
pub unsafe extern "C" fn qt_stats(
    tree: *const qt_tree,
    out_stats: *mut qt_tree_stats,
) -> qt_status {
    guard(|| stats(tree, out_stats))
}

/// Checks every invariant of the tree: `QT_OK`, or `QT_INTERNAL_ERROR` if one is
/// broken (a flatquad bug: please report it). Costs O(size) time and
/// allocates: for tests and for debugging.
#[no_mangle]
pub unsafe extern "C" fn qt_validate(tree: *const qt_tree) -> qt_status {
    guard(|| validate(tree))
}
