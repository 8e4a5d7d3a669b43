//! The uniform grid's own calls: its constructors and its parameters.

use flatquad_core::{AnyIndex, Grid, SpatialIndex};

use crate::boundary::*;
use crate::shared::create;
use crate::status::*;
use crate::types::*;

/// Makes an empty uniform grid dividing `world` into `columns x rows` equal
/// cells and writes it to `*out_tree`; free it with `qt_destroy`.
///
/// Each cell lists the elements that meet it. The world only sets where the
/// cell borders lie: elements and queries outside it are fine, the border cells
/// own everything beyond it. Cells of about 2 to 4 times a typical element's
/// side work best (`qt_create_grid_cell_size` takes that size directly).
///
/// Returns `QT_INVALID_WORLD` unless `world` is finite with `x1 < x2` and
/// `y1 < y2`; `QT_INVALID_PARAMETER` if `columns` or `rows` is 0 or the grid
/// would have more cells than the core allows; `QT_NULL_ARGUMENT` if
/// `out_tree` is NULL.
#[no_mangle]
pub unsafe extern "C" fn qt_create_grid(
    world: qt_rect,
    columns: u32,
    rows: u32,
    out_tree: *mut *mut qt_tree,
) -> qt_status {
    guard(|| create(out_tree, || Grid::new(world.into(), columns, rows)))
}

/// Makes an empty uniform grid over `world` with cells of about
/// `cell_width x cell_height`: as many columns as it takes to cover the width
/// (rounded up, at least 1) and as many rows for the height, the cells then
/// stretched a little to fill the world exactly (`qt_grid_params` gives the
/// result). See `qt_create_grid`.
///
/// Returns `QT_INVALID_PARAMETER` if a cell size is not positive and finite,
/// or so small that the grid would have too many cells; otherwise as
/// `qt_create_grid`.
#[no_mangle]
pub unsafe extern "C" fn qt_create_grid_cell_size(
    world: qt_rect,
    cell_width: f32,
    cell_height: f32,
    out_tree: *mut *mut qt_tree,
) -> qt_status {
    guard(|| {
        create(out_tree, || {
            Grid::with_cell_size(world.into(), cell_width, cell_height)
        })
    })
}

/// Writes a uniform grid's parameters: its world, its columns and rows, and the
/// size of a cell. Each out-pointer may be NULL when that value is not wanted.
/// Returns `QT_WRONG_KIND`, writing nothing, for another structure.
#[no_mangle]
pub unsafe extern "C" fn qt_grid_params(
    tree: *const qt_tree,
    out_world: *mut qt_rect,
    out_columns: *mut u32,
    out_rows: *mut u32,
    out_cell_width: *mut f32,
    out_cell_height: *mut f32,
) -> qt_status {
    guard(|| {
        let AnyIndex::Grid(grid) = tree_ref(tree)? else {
            return Err(QT_WRONG_KIND);
        };
        write_wanted([(out_world, grid.world().into())]);
        write_wanted([(out_columns, grid.columns()), (out_rows, grid.rows())]);
        write_wanted([
            (out_cell_width, grid.cell_width()),
            (out_cell_height, grid.cell_height()),
        ]);
        Ok(())
    })
}
