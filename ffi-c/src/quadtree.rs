//! The quadtree's own calls: its constructor and its parameters.

use flatquad_core::{AnyIndex, Quadtree, SpatialIndex};

use crate::boundary::*;
use crate::shared::{create, tree_params};
use crate::status::*;
use crate::types::*;

/// Makes an empty quadtree over `world` and writes it to `*out_tree`; free it
/// with `qt_destroy`.
///
/// A leaf splits when it holds more than `max_elements` elements and is
/// shallower than `max_depth` (the root is depth 0). The world only sets where
/// the tree divides the plane: elements and queries partly or wholly outside it
/// are stored and found (they live in the border leaves). Pick `max_depth` so
/// that the deepest cells are a little larger than a typical element, and
/// `max_elements` around `QT_DEFAULT_MAX_ELEMENTS`.
///
/// Returns `QT_INVALID_WORLD` unless `world` is finite with `x1 < x2` and
/// `y1 < y2`; `QT_INVALID_PARAMETER` if `max_elements` is 0 or `max_depth` is
/// above `QT_MAX_DEPTH_LIMIT`; `QT_NULL_ARGUMENT` if `out_tree` is NULL.
#[no_mangle]
pub unsafe extern "C" fn qt_create(
    world: qt_rect,
    max_elements: u32,
    max_depth: u32,
    out_tree: *mut *mut qt_tree,
) -> qt_status {
    guard(|| {
        create(out_tree, || {
            Quadtree::new(world.into(), max_elements, max_depth)
        })
    })
}

/// Writes the parameters a quadtree was made with (as `qt_create` took them;
/// `qt_create_default` uses `QT_DEFAULT_MAX_ELEMENTS` and
/// `QT_DEFAULT_MAX_DEPTH`). Each out-pointer may be NULL when that value is not
/// wanted. Returns `QT_WRONG_KIND`, writing nothing, for another structure.
#[no_mangle]
pub unsafe extern "C" fn qt_params(
    tree: *const qt_tree,
    out_world: *mut qt_rect,
    out_max_elements: *mut u32,
    out_max_depth: *mut u32,
) -> qt_status {
    guard(|| {
        let AnyIndex::Quadtree(tree) = tree_ref(tree)? else {
            return Err(QT_WRONG_KIND);
        };
        let params = (tree.world(), tree.max_elements(), tree.max_depth());
        tree_params(params, out_world, out_max_elements, out_max_depth)
    })
}
