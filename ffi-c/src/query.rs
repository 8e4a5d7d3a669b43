//! Queries (by rectangle, by point, every overlapping pair) and the node walk.
//!
//! Each query comes in two forms: into a caller buffer (`qt_query`: the total
//! is reported, min(total, capacity) handles are written), and through a
//! callback (`qt_query_each`) that can stop the walk by returning nonzero.

use std::ffi::c_void;

use flatquad_core::NodeInfo;

use crate::boundary::*;
use crate::shared::*;
use crate::status::*;
use crate::types::*;

/// Finds the elements whose closed rectangle intersects the closed rectangle
/// `rect`, each once, leaving out `omit` (`QT_NO_HANDLE` for none): writes the
/// number found to `*out_total` and the first min(total, capacity) handles to
/// `out_handles`, in no particular order. `out_handles` may be NULL when
/// `capacity` is 0 (to count, or to learn the size a buffer needs).
///
/// Returns `QT_INVALID_RECT` for a bad `rect`, `QT_INVALID_HANDLE` for an
/// `omit` that is not live; nothing is written then.
#[no_mangle]
pub unsafe extern "C" fn qt_query(
    tree: *const qt_tree,
    rect: qt_rect,
    omit: qt_handle_t,
    out_handles: *mut qt_handle_t,
    capacity: usize,
    out_total: *mut usize,
) -> qt_status {
    guard(|| query(tree, rect.into(), omit, out_handles, capacity, out_total))
}

/// Calls `visit(user_data, handle)` with each element whose closed rectangle
/// intersects `rect`, leaving out `omit`. Returns `QT_OK` when every element
/// was visited, `QT_STOPPED` when `visit` returned nonzero, and (without
/// calling `visit`) `QT_INVALID_RECT`, `QT_INVALID_HANDLE` or
/// `QT_NULL_ARGUMENT` for a NULL `visit`.
#[no_mangle]
pub unsafe extern "C" fn qt_query_each(
    tree: *const qt_tree,
    rect: qt_rect,
    omit: qt_handle_t,
    visit: qt_visit_fn,
    user_data: *mut c_void,
) -> qt_status {
    guard(|| query_each(tree, rect.into(), omit, visit, user_data))
}

/// Finds the other elements whose closed rectangle intersects this element's:
/// the same as `qt_query` with the element's rectangle, omitting the element,
/// but starting from where the element is stored (a quadtree's element knows
/// its leaves). The results as for `qt_query`.
///
/// Returns `QT_INVALID_HANDLE` if `handle` is not live; nothing is written then.
#[no_mangle]
pub unsafe extern "C" fn qt_overlapping(
    tree: *const qt_tree,
    handle: qt_handle_t,
    out_handles: *mut qt_handle_t,
    capacity: usize,
    out_total: *mut usize,
) -> qt_status {
    guard(|| overlapping(tree, handle, out_handles, capacity, out_total))
}

/// Calls `visit(user_data, other)` with each other element whose closed
/// rectangle intersects this element's (see `qt_overlapping`). Returns `QT_OK`
/// when every element was visited, `QT_STOPPED` when `visit` returned nonzero,
/// and (without calling `visit`) `QT_INVALID_HANDLE` or `QT_NULL_ARGUMENT` for a
/// NULL `visit`.
#[no_mangle]
pub unsafe extern "C" fn qt_overlapping_each(
    tree: *const qt_tree,
    handle: qt_handle_t,
    visit: qt_visit_fn,
    user_data: *mut c_void,
) -> qt_status {
    guard(|| overlapping_each(tree, handle, visit, user_data))
}

/// Finds the elements whose closed rectangle holds the point `(x, y)`, leaving
/// out `omit`; the results as for `qt_query`. Faster than `qt_query` with a
/// zero-size rectangle: a point lies in exactly one leaf or cell.
///
/// Returns `QT_INVALID_POINT` for a NaN or infinite coordinate,
/// `QT_INVALID_HANDLE` for an `omit` that is not live.
#[no_mangle]
pub unsafe extern "C" fn qt_query_point(
    tree: *const qt_tree,
    x: f32,
    y: f32,
    omit: qt_handle_t,
    out_handles: *mut qt_handle_t,
    capacity: usize,
    out_total: *mut usize,
) -> qt_status {
    guard(|| query_point(tree, [x, y], omit, out_handles, capacity, out_total))
}

/// Calls `visit(user_data, handle)` with each element whose closed rectangle
/// holds `(x, y)`, leaving out `omit`; returns as `qt_query_each`.
#[no_mangle]
pub unsafe extern "C" fn qt_query_point_each(
    tree: *const qt_tree,
    x: f32,
    y: f32,
    omit: qt_handle_t,
    visit: qt_visit_fn,
    user_data: *mut c_void,
) -> qt_status {
    guard(|| query_point_each(tree, [x, y], omit, visit, user_data))
}

/// Finds every pair of elements whose closed rectangles intersect, each
/// unordered pair once (in no particular order, either element first): writes
/// the number of pairs to `*out_total` and the first min(total, capacity) to
/// `out_pairs`. Walks the leaves (or cells), testing the elements of each
/// against each other: far faster than one query per element. `out_pairs` may
/// be NULL when `capacity` is 0.
#[no_mangle]
pub unsafe extern "C" fn qt_query_pairs(
    tree: *const qt_tree,
    out_pairs: *mut qt_pair,
    capacity: usize,
    out_total: *mut usize,
) -> qt_status {
    guard(|| pairs(tree, out_pairs, capacity, out_total))
}

/// Calls `visit(user_data, a, b)` with every pair of intersecting elements,
/// each unordered pair once. Returns `QT_OK`, or `QT_STOPPED` when `visit`
/// returned nonzero.
#[no_mangle]
pub unsafe extern "C" fn qt_query_pairs_each(
    tree: *const qt_tree,
    visit: qt_pair_fn,
    user_data: *mut c_void,
) -> qt_status {
    guard(|| pairs_each(tree, visit, user_data))
}

/// Visits every node depth-first, parents before children, children in the
/// order top-left, top-right, bottom-left, bottom-right (y grows downwards):
/// calls `branch` for each branch and `leaf` for each leaf, either of which may
/// be NULL to skip those nodes. A grid has no branches: its cells come as
/// leaves of depth 0, so drawing code written for a quadtree draws a grid too.
/// For drawing and for debugging. Returns `QT_OK`, or `QT_STOPPED` when a
/// callback returned nonzero.
#[no_mangle]
pub unsafe extern "C" fn qt_traverse(
    tree: *const qt_tree,
    branch: qt_node_fn,
    leaf: qt_node_fn,
    user_data: *mut c_void,
) -> qt_status {
    guard(|| {
        traverse(tree, branch, leaf, |f, info: &NodeInfo| {
            let r = info.rect;
            f(
                user_data, info.index, info.depth, r.x1, r.y1, r.x2, r.y2, info.count,
            )
        })
    })
}
