//! Making (for every kind), changing and freeing trees. The constructors of
//! each structure are in its own file, on [`create`]; the bodies are
//! `shared`'s, which the octree's calls use too.

use flatquad_core::{AnyIndex, Kind};

use crate::boundary::*;
use crate::shared::*;
use crate::status::*;
use crate::types::*;

/// Makes an empty structure of the kind `kind` over `world` with that
/// structure's defaults, and writes it to `*out_tree`; free it with
/// `qt_destroy`. The defaults suit elements of about 1/1000 of the world's side
/// (a quadtree gets `QT_DEFAULT_MAX_ELEMENTS` and `QT_DEFAULT_MAX_DEPTH`; the
/// parameter getters say what each structure got).
///
/// Returns `QT_INVALID_PARAMETER` for a `kind` that is no `QT_KIND_*` value,
/// `QT_INVALID_WORLD` as `qt_create`, `QT_NULL_ARGUMENT` if `out_tree` is NULL.
#[no_mangle]
pub unsafe extern "C" fn qt_create_default(
    kind: qt_kind,
    world: qt_rect,
    out_tree: *mut *mut qt_tree,
) -> qt_status {
    guard(|| {
        let kind = Kind::from_u32(kind).ok_or(QT_INVALID_PARAMETER)?;
        create(out_tree, || AnyIndex::for_world(kind, world.into()))
    })
}

/// Frees a tree and everything in it. `qt_destroy(NULL)` does nothing. The
/// tree must not be used afterwards, nor destroyed twice.
#[no_mangle]
pub unsafe extern "C" fn qt_destroy(tree: *mut qt_tree) {
    guard(|| destroy(tree))
}

/// Makes an independent copy of a tree (of the same kind), with the same
/// elements under the same handles, and writes it to `*out_tree`; free it with
/// `qt_destroy`.
#[no_mangle]
pub unsafe extern "C" fn qt_clone(tree: *const qt_tree, out_tree: *mut *mut qt_tree) -> qt_status {
    guard(|| clone(tree, out_tree))
}

/// Adds an element with the rectangle `rect` and your `id` (any value; ids
/// need not be unique), and writes its new handle to `*out_handle`.
///
/// Returns `QT_INVALID_RECT` for a NaN or infinite coordinate or an inverted
/// rectangle, `QT_CAPACITY_EXCEEDED` when the tree is full.
#[no_mangle]
pub unsafe extern "C" fn qt_insert(
    tree: *mut qt_tree,
    rect: qt_rect,
    id: u32,
    out_handle: *mut qt_handle_t,
) -> qt_status {
    guard(|| insert(tree, rect, id, out_handle))
}

/// Adds `count` elements: `rects[i]` with id `ids[i]`, writing their handles to
/// `out_handles[0..count]` in order. Checks every item first: if one is
/// refused, nothing is inserted and, when `out_bad_index` is not NULL, the
/// index of the first refused item is written there (the only out-parameter
/// written on failure). The arrays may be NULL when `count` is 0.
#[no_mangle]
pub unsafe extern "C" fn qt_insert_many(
    tree: *mut qt_tree,
    rects: *const qt_rect,
    ids: *const u32,
    count: usize,
    out_handles: *mut qt_handle_t,
    out_bad_index: *mut usize,
) -> qt_status {
    guard(|| insert_many(tree, rects, ids, count, out_handles, out_bad_index))
}

/// Removes an element; its handle goes stale. Only unlinks: `qt_cleanup`
/// tidies up after it (a quadtree merges the leaves this empties).
///
/// Returns `QT_INVALID_HANDLE` for a handle that is not live (never issued,
/// already removed, or cleared).
#[no_mangle]
pub unsafe extern "C" fn qt_remove(tree: *mut qt_tree, handle: qt_handle_t) -> qt_status {
    guard(|| remove(tree, handle))
}

/// Removes the `count` elements of `handles`. Checks them all first: if one is
/// not live (`QT_INVALID_HANDLE`) or appears twice (`QT_DUPLICATE_HANDLE`),
/// nothing is removed and the index of the first bad one is written to
/// `*out_bad_index` (when not NULL). `handles` may be NULL when `count` is 0.
#[no_mangle]
pub unsafe extern "C" fn qt_remove_many(
    tree: *mut qt_tree,
    handles: *const qt_handle_t,
    count: usize,
    out_bad_index: *mut usize,
) -> qt_status {
    guard(|| remove_many(tree, handles, count, out_bad_index))
}

/// Gives an element a new rectangle (the "move" of a collision loop). When the
/// new rectangle lies in exactly the leaves (or cells) the old one did, only
/// the rectangle is written; otherwise the element is relinked.
///
/// Returns `QT_INVALID_RECT` or `QT_INVALID_HANDLE`.
#[no_mangle]
pub unsafe extern "C" fn qt_move(
    tree: *mut qt_tree,
    handle: qt_handle_t,
    rect: qt_rect,
) -> qt_status {
    guard(|| move_to(tree, handle, rect))
}

/// Moves `handles[i]` to `rects[i]` for every `i < count`, in order (a handle
/// given twice ends at its last rectangle). Checks every item first: if one is
/// refused, nothing moves and its index is written to `*out_bad_index` (when
/// not NULL). The arrays may be NULL when `count` is 0. Batches of 1,000 moves
/// or more run on rayon's global pool (from a thread outside it, the caller
/// waiting; see `qt_join_thread_pool`): their checks on every core, and a
/// grid's moves too from 400,000. Set `RAYON_NUM_THREADS=1` to keep them on
/// the calling thread. `QT_PANIC`: a bug in flatquad panicked halfway through
/// the moves (on any thread); they were finished, every element is at its new
/// rectangle, and the tree goes on (not poisoned).
#[no_mangle]
pub unsafe extern "C" fn qt_move_many(
    tree: *mut qt_tree,
    handles: *const qt_handle_t,
    rects: *const qt_rect,
    count: usize,
    out_bad_index: *mut usize,
) -> qt_status {
    guard(|| move_many(tree, handles, rects, count, out_bad_index))
}

/// **Testing only**: [`qt_move_many`] whose moves panic after the first `at`
/// of the `count` are made, on a worker thread of the batch calls' pool if
/// `on_worker`, as a bug in flatquad would. The moves are then finished, as
/// after any panic in a move: `QT_PANIC`, every element at its new
/// rectangle, and the tree is not poisoned.
#[no_mangle]
pub unsafe extern "C" fn qt_test_panic_in_moves(
    tree: *mut qt_tree,
    handles: *const qt_handle_t,
    rects: *const qt_rect,
    count: usize,
    at: usize,
    on_worker: bool,
) -> qt_status {
    guard(|| move_many_panicking(tree, handles, rects, count, at, on_worker))
}

/// The structure's lazy tidying, once a frame after the moves: a quadtree
/// merges, one level per call, every branch whose four children are empty
/// leaves, and lays its leaves' lists out contiguously again once moves have
/// scattered them; a loose grid shrinks its cells' boxes to fit their elements; a grid
/// has nothing to do.
#[no_mangle]
pub unsafe extern "C" fn qt_cleanup(tree: *mut qt_tree) -> qt_status {
    guard(|| cleanup(tree))
}

/// Sets the fat-bounds margin, in world units (0, the default, for none):
/// each element is filed by its box grown by `margin` on every side, so a
/// `qt_move` that stays inside that fat box costs no relink. Every query,
/// pair, search and event still answers on the elements' own boxes: the
/// margin changes speed, never a result. Setting it refiles every element.
///
/// Returns `QT_INVALID_PARAMETER` for a NaN, negative or infinite margin
/// (nothing changes).
#[no_mangle]
pub unsafe extern "C" fn qt_set_margin(tree: *mut qt_tree, margin: f32) -> qt_status {
    guard(|| set_margin(tree, margin))
}

/// Writes the fat-bounds margin (`qt_set_margin`; 0 for none) to `*out_margin`.
#[no_mangle]
pub unsafe extern "C" fn qt_get_margin(tree: *const qt_tree, out_margin: *mut f32) -> qt_status {
    guard(|| margin(tree, out_margin))
}

/// Removes every element (all handles go stale) and, from a quadtree, every
/// node but the root, keeping the memory for reuse.
#[no_mangle]
pub unsafe extern "C" fn qt_clear(tree: *mut qt_tree) -> qt_status {
    guard(|| clear(tree))
}

/// Writes the tree's exact state (little-endian, versioned, tagged with the
/// kind; handles included)
/// to `out_bytes`, for saving or sending it: `*out_total` is the snapshot's
/// size, and the first min(total, capacity) bytes are written. A buffer
/// shorter than the total gives a truncated snapshot, which `qt_from_bytes`
/// refuses: size the buffer from `*out_total` and call again. `out_bytes` may
/// be NULL when `capacity` is 0.
#[no_mangle]
pub unsafe extern "C" fn qt_to_bytes(
    tree: *const qt_tree,
    out_bytes: *mut u8,
    capacity: usize,
    out_total: *mut usize,
) -> qt_status {
    guard(|| to_bytes(tree, out_bytes, capacity, out_total))
}

/// Makes a tree from `qt_to_bytes`'s snapshot of any kind of structure and
/// writes it to `*out_tree`: an equal tree of the same kind, the same handles
/// valid and the same ones stale. Every invariant is checked, so damaged or
/// hostile bytes give `QT_INVALID_BYTES`, never a broken tree. `bytes` may be
/// NULL when `len` is 0.
#[no_mangle]
pub unsafe extern "C" fn qt_from_bytes(
    bytes: *const u8,
    len: usize,
    out_tree: *mut *mut qt_tree,
) -> qt_status {
    guard(|| from_bytes::<qt_tree>(bytes, len, out_tree))
}
