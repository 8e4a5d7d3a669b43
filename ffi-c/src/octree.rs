//! The octree's constructor and parameter getter: its other calls are the
//! `qt_tree` calls over `qt_octree` and `qt_box`, generated from them
//! (`octree_calls`), so the checks, statuses and buffer conventions are the
//! same ones.

use flatquad_core::{AnyIndex3, Octree, SpatialIndex};

use crate::boundary::*;
use crate::shared::*;
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
        // Irrefutable while the octree is the one 3D structure; a second one
        // makes this fail to compile, to answer QT_WRONG_KIND as qt_params does.
        let AnyIndex3::Octree(tree) = tree_ref(tree)?;
        let params = (tree.world(), tree.max_elements(), tree.max_depth());
        tree_params(params, out_world, out_max_elements, out_max_depth)
    })
}
