//! The octree's calls: the `qt_tree` calls over `qt_octree` and `qt_box`. Each
//! runs the body `shared` runs for `qt_tree`, so the checks, statuses and
//! buffer conventions are the same ones.

use std::ffi::c_void;

use flatquad_core::{Octree, SpatialIndex};

use crate::boundary::*;
use crate::shared::{self, *};
use crate::status::*;
use crate::types::*;

/// The `max_depth` `qt_octree_create` is usually given: 64 x 64 x 64 cells
/// at the deepest level (an octree's nodes multiply by eight a level).
pub const QT_OCTREE_DEFAULT_MAX_DEPTH: u32 = 6;

const _: () = assert!(QT_OCTREE_DEFAULT_MAX_DEPTH == Octree::DEFAULT_MAX_DEPTH);

/// Makes an empty octree over `world` and writes it to `*out_tree`; free it
/// with `qt_octree_destroy`. The parameters mean what they mean for
/// `qt_create` (`QT_DEFAULT_MAX_ELEMENTS` and `QT_OCTREE_DEFAULT_MAX_DEPTH`
/// suit elements of about 1/100 of the world's side).
///
/// Returns `QT_INVALID_WORLD` unless `world` is finite with `x1 < x2`,
/// `y1 < y2` and `z1 < z2`; `QT_INVALID_PARAMETER` if `max_elements` is 0 or
/// `max_depth` is above `QT_MAX_DEPTH_LIMIT`; `QT_NULL_ARGUMENT` if `out_tree`
/// is NULL.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_create(
    world: qt_box,
    max_elements: u32,
    max_depth: u32,
    out_tree: *mut *mut qt_octree,
) -> qt_status {
    guard(|| {
        create(out_tree, || {
            Octree::new(world.into(), max_elements, max_depth)
        })
    })
}

/// Frees an octree. `qt_octree_destroy(NULL)` does nothing.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_destroy(tree: *mut qt_octree) {
    guard(|| destroy(tree))
}

/// Makes an independent copy of an octree (same elements, same handles), as
/// `qt_clone`.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_clone(
    tree: *const qt_octree,
    out_tree: *mut *mut qt_octree,
) -> qt_status {
    guard(|| clone(tree, out_tree))
}

/// Writes the parameters the octree was made with; each out-pointer may be
/// NULL when that value is not wanted.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_params(
    tree: *const qt_octree,
    out_world: *mut qt_box,
    out_max_elements: *mut u32,
    out_max_depth: *mut u32,
) -> qt_status {
    guard(|| {
        let tree = tree_ref(tree)?;
        let params = (tree.world(), tree.max_elements(), tree.max_depth());
        tree_params(params, out_world, out_max_elements, out_max_depth)
    })
}

/// Adds an element with the box `b` and your `id`, as `qt_insert`.
/// Returns `QT_INVALID_RECT` for a NaN or infinite coordinate or an inverted box.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_insert(
    tree: *mut qt_octree,
    b: qt_box,
    id: u32,
    out_handle: *mut qt_handle_t,
) -> qt_status {
    guard(|| insert(tree, b, id, out_handle))
}

/// Adds `count` elements, `boxes[i]` with id `ids[i]`, as `qt_insert_many`
/// (all or nothing, `out_bad_index` on failure).
#[no_mangle]
pub unsafe extern "C" fn qt_octree_insert_many(
    tree: *mut qt_octree,
    boxes: *const qt_box,
    ids: *const u32,
    count: usize,
    out_handles: *mut qt_handle_t,
    out_bad_index: *mut usize,
) -> qt_status {
    guard(|| insert_many(tree, boxes, ids, count, out_handles, out_bad_index))
}

/// Removes an element, as `qt_remove`.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_remove(tree: *mut qt_octree, handle: qt_handle_t) -> qt_status {
    guard(|| remove(tree, handle))
}

/// Removes the `count` elements of `handles`, as `qt_remove_many`.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_remove_many(
    tree: *mut qt_octree,
    handles: *const qt_handle_t,
    count: usize,
    out_bad_index: *mut usize,
) -> qt_status {
    guard(|| remove_many(tree, handles, count, out_bad_index))
}

/// Gives an element a new box, as `qt_move`.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_move(
    tree: *mut qt_octree,
    handle: qt_handle_t,
    b: qt_box,
) -> qt_status {
    guard(|| move_to(tree, handle, b))
}

/// Moves `handles[i]` to `boxes[i]` for every `i < count`, as `qt_move_many`.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_move_many(
    tree: *mut qt_octree,
    handles: *const qt_handle_t,
    boxes: *const qt_box,
    count: usize,
    out_bad_index: *mut usize,
) -> qt_status {
    guard(|| move_many(tree, handles, boxes, count, out_bad_index))
}

/// Sets the octree's fat-bounds margin, as `qt_set_margin`.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_set_margin(tree: *mut qt_octree, margin: f32) -> qt_status {
    guard(|| set_margin(tree, margin))
}

/// Writes the octree's fat-bounds margin, as `qt_get_margin`.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_get_margin(
    tree: *const qt_octree,
    out_margin: *mut f32,
) -> qt_status {
    guard(|| margin(tree, out_margin))
}

/// Merges, one level per call, every branch whose eight children are empty
/// leaves, as `qt_cleanup`.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_cleanup(tree: *mut qt_octree) -> qt_status {
    guard(|| cleanup(tree))
}

/// Removes every element and every node but the root, as `qt_clear`.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_clear(tree: *mut qt_octree) -> qt_status {
    guard(|| clear(tree))
}

/// Writes the octree's snapshot, as `qt_to_bytes`.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_to_bytes(
    tree: *const qt_octree,
    out_bytes: *mut u8,
    capacity: usize,
    out_total: *mut usize,
) -> qt_status {
    guard(|| to_bytes(tree, out_bytes, capacity, out_total))
}

/// Makes an octree from `qt_octree_to_bytes`'s snapshot, as `qt_from_bytes`
/// (`QT_INVALID_BYTES` for damaged bytes or a 2D structure's snapshot).
#[no_mangle]
pub unsafe extern "C" fn qt_octree_from_bytes(
    bytes: *const u8,
    len: usize,
    out_tree: *mut *mut qt_octree,
) -> qt_status {
    guard(|| from_bytes(bytes, len, out_tree))
}

/// Number of elements; 0 for NULL or a poisoned octree.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_len(tree: *const qt_octree) -> usize {
    guard(|| len(tree))
}

/// Whether `handle` names an element of the octree now.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_contains(tree: *const qt_octree, handle: qt_handle_t) -> bool {
    guard(|| contains(tree, handle))
}

/// Writes the id the element was inserted with, as `qt_element_id`.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_element_id(
    tree: *const qt_octree,
    handle: qt_handle_t,
    out_id: *mut u32,
) -> qt_status {
    guard(|| element_id(tree, handle, out_id))
}

/// Writes the element's current box, as `qt_element_rect`.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_element_box(
    tree: *const qt_octree,
    handle: qt_handle_t,
    out_box: *mut qt_box,
) -> qt_status {
    guard(|| element_box(tree, handle, out_box))
}

/// Lists the handle of every element, as `qt_elements`.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_elements(
    tree: *const qt_octree,
    out_handles: *mut qt_handle_t,
    capacity: usize,
    out_total: *mut usize,
) -> qt_status {
    guard(|| elements(tree, out_handles, capacity, out_total))
}

/// Writes the octree's sizes, as `qt_stats`.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_stats(
    tree: *const qt_octree,
    out_stats: *mut qt_tree_stats,
) -> qt_status {
    guard(|| stats(tree, out_stats))
}

/// Checks every invariant, as `qt_validate`.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_validate(tree: *const qt_octree) -> qt_status {
    guard(|| validate(tree))
}

/// Finds the elements `query` describes (see `qt_query3_desc`: a box, a
/// point, a sphere, an element's neighbours) into a caller buffer, as
/// `qt_query`.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_query(
    tree: *const qt_octree,
    query: *const qt_query3_desc,
    out_handles: *mut qt_handle_t,
    capacity: usize,
    out_total: *mut usize,
) -> qt_status {
    guard(|| shared::query(tree, query, out_handles, capacity, out_total))
}

/// Calls `visit(user_data, handle)` with each element `qt_octree_query`
/// finds, as `qt_query_each`.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_query_each(
    tree: *const qt_octree,
    query: *const qt_query3_desc,
    visit: qt_visit_fn,
    user_data: *mut c_void,
) -> qt_status {
    guard(|| shared::query_each(tree, query, visit, user_data))
}

/// Runs the `count` queries of `queries` in compressed rows, as
/// `qt_query_many`.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_query_many(
    tree: *const qt_octree,
    queries: *const qt_query3_desc,
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

/// Finds every pair of elements whose closed boxes meet, each unordered pair
/// once, as `qt_query_pairs`.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_query_pairs(
    tree: *const qt_octree,
    out_pairs: *mut qt_pair,
    capacity: usize,
    out_total: *mut usize,
) -> qt_status {
    guard(|| pairs(tree, out_pairs, capacity, out_total))
}

/// Calls `visit` with every pair of meeting elements, as `qt_query_pairs_each`.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_query_pairs_each(
    tree: *const qt_octree,
    visit: qt_pair_fn,
    user_data: *mut c_void,
) -> qt_status {
    guard(|| pairs_each(tree, visit, user_data))
}

/// Visits every node depth-first, parents before children, as `qt_traverse`:
/// calls `branch` for each branch and `leaf` for each leaf (either may be
/// NULL), each with the node's index, depth, box and element count. Returns
/// `QT_OK`, or `QT_STOPPED` when a callback returned nonzero.
#[no_mangle]
pub unsafe extern "C" fn qt_octree_traverse(
    tree: *const qt_octree,
    branch: qt_node3_fn,
    leaf: qt_node3_fn,
    user_data: *mut c_void,
) -> qt_status {
    guard(|| traverse(tree, branch, leaf, user_data))
}
