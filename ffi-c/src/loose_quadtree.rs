//! The loose quadtree's own calls: its constructor and its parameters.

use flatquad_core::{AnyIndex, LooseQuadtree, SpatialIndex};

use crate::boundary::*;
use crate::shared::{create, tree_params};
use crate::status::*;
use crate::types::*;

/// Makes an empty loose quadtree over `world` and writes it to `*out_tree`;
/// free it with `qt_destroy`. Every element lives in exactly one leaf, the one
/// its centre descends to, and the nodes' boxes grow to hold it.
///
/// The parameters mean what they mean for `qt_create`. Returns
/// `QT_INVALID_WORLD` unless `world` is finite with `x1 < x2` and `y1 < y2`;
/// `QT_INVALID_PARAMETER` if `max_elements` is 0 or `max_depth` is above
/// `QT_MAX_DEPTH_LIMIT`; `QT_NULL_ARGUMENT` if `out_tree` is NULL.
#[no_mangle]
pub unsafe extern "C" fn qt_create_loose_quadtree(
    world: qt_rect,
    max_elements: u32,
    max_depth: u32,
    out_tree: *mut *mut qt_tree,
) -> qt_status {
    guard(|| {
        create(out_tree, || {
            LooseQuadtree::new(world.into(), max_elements, max_depth)
        })
    })
}

/// Makes an empty loose quadtree like `qt_create_loose_quadtree`, for
/// elements mostly no wider and no taller than `max_extent`: the elements
/// over it (a few large ones among many small) are kept apart, in a loose
/// quadtree of their own, so that they do not widen the boxes the small ones
/// share. Any size is accepted either way, and results are as exact.
///
/// Returns `QT_INVALID_PARAMETER` unless `max_extent` is positive and finite;
/// otherwise as `qt_create_loose_quadtree`.
#[no_mangle]
pub unsafe extern "C" fn qt_create_loose_quadtree_max_extent(
    world: qt_rect,
    max_elements: u32,
    max_depth: u32,
    max_extent: f32,
    out_tree: *mut *mut qt_tree,
) -> qt_status {
    guard(|| {
        create(out_tree, || {
            LooseQuadtree::with_max_extent(world.into(), max_elements, max_depth, max_extent)
        })
    })
}

/// Writes a loose quadtree's `max_extent` to `*out_max_extent`: the bound it
/// was made with by `qt_create_loose_quadtree_max_extent`, or 0 if it has
/// none. Returns `QT_WRONG_KIND`, writing nothing, for another structure;
/// `QT_NULL_ARGUMENT` if a pointer is NULL.
#[no_mangle]
pub unsafe extern "C" fn qt_loose_quadtree_max_extent(
    tree: *const qt_tree,
    out_max_extent: *mut f32,
) -> qt_status {
    guard(|| {
        let AnyIndex::LooseQuadtree(tree) = tree_ref(tree)? else {
            return Err(QT_WRONG_KIND);
        };
        Out::new(out_max_extent)?.write(tree.max_extent().unwrap_or(0.0));
        Ok(())
    })
}

/// Writes the parameters a loose quadtree was made with. Each out-pointer may
/// be NULL when that value is not wanted. Returns `QT_WRONG_KIND`, writing
/// nothing, for another structure.
#[no_mangle]
pub unsafe extern "C" fn qt_loose_quadtree_params(
    tree: *const qt_tree,
    out_world: *mut qt_rect,
    out_max_elements: *mut u32,
    out_max_depth: *mut u32,
) -> qt_status {
    guard(|| {
        let AnyIndex::LooseQuadtree(tree) = tree_ref(tree)? else {
            return Err(QT_WRONG_KIND);
        };
        let params = (tree.world(), tree.max_elements(), tree.max_depth());
        tree_params(params, out_world, out_max_elements, out_max_depth)
    })
}
