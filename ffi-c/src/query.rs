//! Queries (one description of any shape, every overlapping pair) and the
//! node walk.
//!
//! A query is a value, `qt_query_desc`, answered three ways: into a caller
//! buffer (`qt_query`: the total is reported, min(total, capacity) handles
//! are written), through a callback (`qt_query_each`) that can stop the walk
//! by returning nonzero, and many at once in compressed rows
//! (`qt_query_many`).

use std::ffi::c_void;

use crate::boundary::*;
use crate::shared::{self, *};
use crate::status::*;
use crate::types::*;

/// Finds the elements `query` describes (see `qt_query_desc`: a rectangle,
/// a point, a circle, an element's neighbours, a `double` rectangle), each
/// once, leaving out `query->omit` and those whose category is not in
/// `query->mask`: writes the number found to `*out_total` and the first
/// min(total, capacity) handles to `out_handles`, in no particular order.
/// `out_handles` may be NULL when `capacity` is 0 (to count, or to learn the
/// size a buffer needs).
///
/// Returns `QT_INVALID_PARAMETER` for an unknown `query->kind` or a NaN or
/// negative radius, `QT_INVALID_RECT` for a bad rectangle,
/// `QT_INVALID_POINT` for a NaN or infinite point or centre,
/// `QT_INVALID_HANDLE` for an element or `omit` that is not live,
/// `QT_NULL_ARGUMENT` for a NULL `query`; nothing is written then.
#[no_mangle]
pub unsafe extern "C" fn qt_query(
    tree: *const qt_tree,
    query: *const qt_query_desc,
    out_handles: *mut qt_handle_t,
    capacity: usize,
    out_total: *mut usize,
) -> qt_status {
    guard(|| shared::query(tree, query, out_handles, capacity, out_total))
}

/// Calls `visit(user_data, handle)` with each element `qt_query` finds.
/// Returns `QT_OK` when every element was visited, `QT_STOPPED` when `visit`
/// returned nonzero, and (without calling `visit`) `qt_query`'s refusals or
/// `QT_NULL_ARGUMENT` for a NULL `visit`.
#[no_mangle]
pub unsafe extern "C" fn qt_query_each(
    tree: *const qt_tree,
    query: *const qt_query_desc,
    visit: qt_visit_fn,
    user_data: *mut c_void,
) -> qt_status {
    guard(|| shared::query_each(tree, query, visit, user_data))
}

/// Runs the `count` queries of `queries` (any mix of kinds, each with its own
/// mask and omit) in compressed rows: the hits of `queries[i]` are
/// `out_handles[out_offsets[i] .. out_offsets[i + 1]]`, in no particular
/// order. `out_offsets` holds `count + 1` items and is always filled;
/// `*out_total` is the number of hits (`out_offsets[count]`), and the first
/// min(total, capacity) are written (size the buffer and call again).
/// `out_handles` may be NULL when `capacity` is 0, `queries` when `count` is
/// 0. Big batches run on every core, through rayon's global pool; a batch of
/// element queries alone (no mask, nothing omitted: each agent's in a
/// collision loop) naming a quarter of the elements or more is answered by
/// one pair walk instead.
///
/// Checks every query first: for the first one refused (as `qt_query`
/// refuses it), its index is written to `*out_bad_index` when that is not
/// NULL, and nothing else is written.
#[no_mangle]
pub unsafe extern "C" fn qt_query_many(
    tree: *const qt_tree,
    queries: *const qt_query_desc,
    count: usize,
    out_offsets: *mut usize,
    out_handles: *mut qt_handle_t,
    capacity: usize,
    out_total: *mut usize,
    out_bad_index: *mut usize,
) -> qt_status {
    guard(|| {
        shared::query_many(
            tree,
            queries,
            count,
            out_offsets,
            out_handles,
            capacity,
            out_total,
            out_bad_index,
        )
    })
}

/// Finds every pair of elements whose closed rectangles intersect, each
/// unordered pair once (in the structure's walk order, the same on every call
/// until the tree changes; either element first): writes the number of pairs
/// to `*out_total` and the first min(total, capacity) to `out_pairs`. Walks
/// the leaves (or cells), testing the elements of each against each other:
/// far faster than one query per element. Big structures (a grid from 20,000
/// elements, the other structures from 10,000) are walked on every core,
/// through rayon's global pool, with the same pairs in the same order.
/// `out_pairs` may be NULL when `capacity` is 0.
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
/// each unordered pair once, in `qt_query_pairs`' order, always on the calling
/// thread. Where `qt_query_pairs` walks on every core, the walk runs first
/// and `visit` then reads its list, so stopping early saves none of the walk.
/// Returns `QT_OK`, or `QT_STOPPED` when `visit` returned nonzero.
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
    guard(|| traverse(tree, branch, leaf, user_data))
}
