//! Making (for every kind), changing and freeing trees. The constructors of
//! each structure are in its own file, on [`create`].

use flatquad_core::{AnyIndex, Error, Handle, Kind, Rect, SpatialIndex};

use crate::boundary::*;
use crate::status::*;
use crate::types::*;

/// The body of every constructor: checks `out_tree`, makes the structure, and
/// hands it to the caller.
///
/// # Safety
/// `out_tree` is NULL or valid for writing a pointer.
pub(crate) unsafe fn create<T: Into<AnyIndex>>(
    out_tree: *mut *mut qt_tree,
    make: impl FnOnce() -> Result<T, Error>,
) -> Status {
    let out_tree = Out::new(out_tree)?;
    out_tree.write(qt_tree::into_raw(make()?));
    Ok(())
}

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
    guard(|| {
        if let Ok(tree) = non_null(tree) {
            drop(Box::from_raw(tree.as_ptr()));
        }
    })
}

/// Makes an independent copy of a tree (of the same kind), with the same
/// elements under the same handles, and writes it to `*out_tree`; free it with
/// `qt_destroy`.
#[no_mangle]
pub unsafe extern "C" fn qt_clone(tree: *const qt_tree, out_tree: *mut *mut qt_tree) -> qt_status {
    guard(|| {
        let tree = tree_ref(tree)?;
        create(out_tree, || Ok(tree.clone()))
    })
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
    guard(|| {
        let mut tree = tree_mut(tree)?;
        let out_handle = Out::new(out_handle)?;
        let handle = tree.tree.insert(rect.into(), id)?;
        out_handle.write(handle.to_raw());
        Ok(())
    })
}

/// Writes the index of the refused item of a batch call, if the caller asked.
pub(crate) unsafe fn batch_error(error: Error, out_bad_index: *mut usize) -> qt_status {
    if let (Some(index), Some(out)) = (error.batch_index(), Out::optional(out_bad_index)) {
        out.write(index);
    }
    error.into()
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
    guard(|| {
        let mut tree = tree_mut(tree)?;
        let rects = slice_in(rects.cast::<Rect>(), count)?;
        let ids = slice_in(ids, count)?;
        let out_handles = slice_out(out_handles, count)?;
        let qt_tree { tree, scratch, .. } = &mut *tree;
        scratch.clear();
        if let Err(error) = tree.insert_many(rects, ids, scratch) {
            return Err(batch_error(error, out_bad_index));
        }
        for (out, handle) in out_handles.iter_mut().zip(scratch.iter()) {
            out.write(handle.to_raw());
        }
        scratch.clear();
        Ok(())
    })
}

/// Removes an element; its handle goes stale. Only unlinks: `qt_cleanup`
/// tidies up after it (a quadtree merges the leaves this empties).
///
/// Returns `QT_INVALID_HANDLE` for a handle that is not live (never issued,
/// already removed, or cleared).
#[no_mangle]
pub unsafe extern "C" fn qt_remove(tree: *mut qt_tree, handle: qt_handle_t) -> qt_status {
    guard(|| {
        let mut tree = tree_mut(tree)?;
        tree.tree.remove(Handle::from_raw(handle))?;
        Ok(())
    })
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
    guard(|| {
        let mut tree = tree_mut(tree)?;
        let handles = Handle::cast_slice(slice_in(handles, count)?);
        tree.tree
            .remove_many(handles)
            .map_err(|error| batch_error(error, out_bad_index))
    })
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
    guard(|| {
        let mut tree = tree_mut(tree)?;
        tree.tree.update(Handle::from_raw(handle), rect.into())?;
        Ok(())
    })
}

/// Moves `handles[i]` to `rects[i]` for every `i < count`, in order (a handle
/// given twice ends at its last rectangle). Checks every item first: if one is
/// refused, nothing moves and its index is written to `*out_bad_index` (when
/// not NULL). The arrays may be NULL when `count` is 0.
#[no_mangle]
pub unsafe extern "C" fn qt_move_many(
    tree: *mut qt_tree,
    handles: *const qt_handle_t,
    rects: *const qt_rect,
    count: usize,
    out_bad_index: *mut usize,
) -> qt_status {
    guard(|| {
        let mut tree = tree_mut(tree)?;
        let handles = Handle::cast_slice(slice_in(handles, count)?);
        let rects = slice_in(rects.cast::<Rect>(), count)?;
        tree.tree
            .update_many(handles, rects)
            .map_err(|error| batch_error(error, out_bad_index))
    })
}

/// The structure's lazy tidying, once a frame after the moves: a quadtree
/// merges, one level per call, every branch whose four children are empty
/// leaves; a loose grid shrinks its cells' boxes to fit their elements; a grid
/// has nothing to do.
#[no_mangle]
pub unsafe extern "C" fn qt_cleanup(tree: *mut qt_tree) -> qt_status {
    guard(|| {
        tree_mut(tree)?.tree.cleanup();
        Ok(())
    })
}

/// Removes every element (all handles go stale) and, from a quadtree, every
/// node but the root, keeping the memory for reuse.
#[no_mangle]
pub unsafe extern "C" fn qt_clear(tree: *mut qt_tree) -> qt_status {
    guard(|| {
        tree_mut(tree)?.tree.clear();
        Ok(())
    })
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
    guard(|| {
        let tree = tree_ref(tree)?;
        let out = slice_out(out_bytes, capacity)?;
        let out_total = Out::new(out_total)?;
        let bytes = tree.to_bytes();
        for (slot, &byte) in out.iter_mut().zip(&bytes) {
            slot.write(byte);
        }
        out_total.write(bytes.len());
        Ok(())
    })
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
    guard(|| {
        let bytes = slice_in(bytes, len)?;
        create(out_tree, || AnyIndex::from_bytes(bytes))
    })
}
