//! The loose grid's own calls: its constructors and its parameters.

use flatquad_core::{AnyIndex, LooseGrid, SpatialIndex};

use crate::boundary::*;
use crate::shared::create;
use crate::status::*;
use crate::types::*;

/// Makes an empty loose/tight double grid over `world` and writes it to
/// `*out_tree`; free it with `qt_destroy`.
///
/// `columns x rows` loose cells each hold the elements whose centre they own,
/// and keep a box bounding them that grows as elements move out and shrinks to
/// fit at `qt_cleanup`; a coarser grid of `tight_columns x tight_rows` tight
/// cells lists the loose cells whose box meets it, for queries. Elements much
/// larger than a loose cell are kept in a list of their own. Loose cells of
/// about 8 element sides and tight cells of 2 x 2 loose ones are a good start
/// (`qt_create_loose_grid_cell_size` makes those from one size).
///
/// Returns `QT_INVALID_WORLD` unless `world` is finite with `x1 < x2` and
/// `y1 < y2`; `QT_INVALID_PARAMETER` if a count is 0, if the tight grid has
/// more columns or rows than the loose one, or if there would be more cells
/// than the core allows; `QT_NULL_ARGUMENT` if `out_tree` is NULL.
#[no_mangle]
pub unsafe extern "C" fn qt_create_loose_grid(
    world: qt_rect,
    columns: u32,
    rows: u32,
    tight_columns: u32,
    tight_rows: u32,
    out_tree: *mut *mut qt_tree,
) -> qt_status {
    guard(|| {
        create(out_tree, || {
            LooseGrid::new(world.into(), columns, rows, tight_columns, tight_rows)
        })
    })
}

/// Makes an empty loose grid over `world` with loose cells of side at most
/// `cell_size` (the world's width and height each divided into a whole number
/// of cells, rounded up) and tight cells of about 2 x 2 loose ones
/// (`qt_loose_grid_params` gives the result). See `qt_create_loose_grid`.
///
/// Returns `QT_INVALID_PARAMETER` if `cell_size` is not positive and finite,
/// or so small that the grid would have too many cells; otherwise as
/// `qt_create_loose_grid`.
#[no_mangle]
pub unsafe extern "C" fn qt_create_loose_grid_cell_size(
    world: qt_rect,
    cell_size: f32,
    out_tree: *mut *mut qt_tree,
) -> qt_status {
    guard(|| {
        create(out_tree, || {
            LooseGrid::with_cell_size(world.into(), cell_size)
        })
    })
}

/// Writes a loose grid's parameters (as `qt_create_loose_grid` takes them).
/// Each out-pointer may be NULL when that value is not wanted. Returns
/// `QT_WRONG_KIND`, writing nothing, for another structure.
#[no_mangle]
pub unsafe extern "C" fn qt_loose_grid_params(
    tree: *const qt_tree,
    out_world: *mut qt_rect,
    out_columns: *mut u32,
    out_rows: *mut u32,
    out_tight_columns: *mut u32,
    out_tight_rows: *mut u32,
) -> qt_status {
    guard(|| {
        let AnyIndex::LooseGrid(grid) = tree_ref(tree)? else {
            return Err(QT_WRONG_KIND);
        };
        write_wanted([(out_world, grid.world().into())]);
        write_wanted([
            (out_columns, grid.columns()),
            (out_rows, grid.rows()),
            (out_tight_columns, grid.tight_columns()),
            (out_tight_rows, grid.tight_rows()),
        ]);
        Ok(())
    })
}
