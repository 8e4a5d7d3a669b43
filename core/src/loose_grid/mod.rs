//! The loose/tight double grid: its state and construction here, one file per
//! operation beside it.
//!
//! Every small element lives in exactly one *loose* cell, the one owning its
//! centre, chained through its slot's `next`. A loose cell keeps a box bounding
//! its elements; the box grows as elements enter or move outward and is shrunk
//! to fit in `cleanup`. A coarser *tight* grid lists, in each of its cells, the
//! loose cells whose box overlaps it, so a query walks the tight cells under it
//! and tests the boxes listed there. Large elements go to a [`BigList`].

mod cleanup;
mod insert;
mod pairs;
#[cfg(feature = "rayon")]
mod parallel;
mod queries;
mod relocate;
mod remove;
mod snapshot;
#[cfg(test)]
mod tests;
mod traverse;
mod validate;

use core::ops::ControlFlow;

use crate::axis::Axis;
use crate::big::BigList;
use crate::index::raw::{impl_structure, Pieces};
use crate::index::{check_world, NodeInfo, SpatialIndex, Stats};
use crate::links::LinkPool;
use crate::slots::{slot_record, SlotPool, NONE};
use crate::{Error, Rect};

/// Where an element's rectangle and id live, with the next element of its loose
/// cell. 28 bytes: the budget is 32 bytes per element in all.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct Slot {
    pub(crate) rect: Rect,
    pub(crate) id: u32,
    /// The next element of the same loose cell, or [`NONE`]; void for big
    /// elements and free slots.
    pub(crate) next: u32,
}

slot_record!(
    Slot,
    Slot {
        rect: Rect::new(0.0, 0.0, 0.0, 0.0),
        id: 0,
        next: NONE,
    }
);

/// A loose cell: the box bounding its elements and the first of them. 20 bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub(crate) struct LooseCell {
    /// Holds every element of the cell; [`EMPTY`] when listed nowhere.
    pub rect: Rect,
    /// The first element's slot, or [`NONE`].
    pub head: u32,
}

pub(crate) use crate::rect::{centre, holds, is_empty_box, union, EMPTY};

impl LooseCell {
    pub const VOID: LooseCell = LooseCell {
        rect: EMPTY,
        head: NONE,
    };
}

/// A range of tight cells, first and last column and row (inclusive).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    pub x1: u32,
    pub y1: u32,
    pub x2: u32,
    pub y2: u32,
}

impl Span {
    #[inline]
    pub fn contains(&self, x: u32, y: u32) -> bool {
        (self.x1 <= x) & (x <= self.x2) & (self.y1 <= y) & (y <= self.y2)
    }

    /// Tight cells in the span.
    pub fn area(&self) -> u64 {
        (self.x2 - self.x1 + 1) as u64 * (self.y2 - self.y1 + 1) as u64
    }
}

/// The loose/tight double grid: a uniform grid whose cells are *loose* — each
/// holds the elements whose centre it owns, and a box that bounds them — over a
/// coarser *tight* grid that lists, in each tight cell, the loose cells whose
/// box overlaps it. For many moving elements of similar size, in little memory
/// that never grows with movement: each element in exactly one cell.
///
/// - Each small element is in exactly **one** loose cell, so a move that stays
///   in its cell writes the rectangle and at most grows the cell's box; a move
///   to another cell relinks one slot. Elements are chained through their slots:
///   no link per element.
/// - Boxes grow at once and shrink in [`cleanup`](SpatialIndex::cleanup), which
///   also takes a loose cell off the tight cells its box no longer covers. The
///   tight lists are the only structure updated per frame besides the slots.
/// - An element wider or taller than eight loose cells is *big*: it is kept in
///   one list of its own, so an element as large as the world costs one entry,
///   and is tested on its own in queries and pairs. The rule depends only on
///   the rectangle, so moves switch elements between the grid and the list.
/// - Queries walk the tight cells under the query and test the listed boxes; a
///   loose cell listed in several of those tight cells is taken only in the one
///   owning the top-left corner of its box's intersection with the query, so
///   every element is found once, with no hash set and no scratch state.
///
/// Results are exact for any `f32` input: elements and queries outside the
/// world belong to the border cells, which reach to infinity.
///
/// Memory: 28 bytes per element, 20 per loose cell, 4 per tight cell and 8 per
/// listing of a loose cell in a tight cell. Pick loose cells of about 10
/// element sides (see [`with_cell_size`](LooseGrid::with_cell_size)); with the
/// defaults the whole structure takes under 32 bytes per element when elements
/// are about 1/1000 of the world's side and fill it as the agents workload
/// does. Crowds much denser than the cells were chosen for make every query
/// and pair walk test many elements per cell: choose cells for the densest
/// regions that matter.
///
/// ```
/// use flatquad::{LooseGrid, Query, Rect, SpatialIndex};
///
/// let world = Rect::new(0.0, 0.0, 1024.0, 1024.0);
/// let mut grid = LooseGrid::with_cell_size(world, 32.0)?;
/// assert_eq!((grid.columns(), grid.rows()), (32, 32));
/// let a = grid.insert(Rect::new(10.0, 10.0, 14.0, 14.0), 1)?;
/// let b = grid.insert(Rect::new(14.0, 12.0, 18.0, 16.0), 2)?; // touches `a`
/// let sky = grid.insert(Rect::new(-1e6, -1e6, 1e6, 1e6), 3)?; // a big one
/// let mut hits = Vec::new();
/// grid.query(&Query::rect(Rect::new(0.0, 0.0, 11.0, 11.0)), &mut hits)?;
/// hits.sort();
/// assert_eq!(hits, {
///     let mut expected = vec![a, sky];
///     expected.sort();
///     expected
/// });
/// grid.update(b, Rect::new(500.0, 500.0, 504.0, 504.0))?; // to another cell
/// grid.cleanup(); // shrinks the boxes
/// let mut pairs = Vec::new();
/// grid.pairs(&mut pairs);
/// assert_eq!(pairs.len(), 2); // `sky` with `a` and with `b`
/// grid.validate().unwrap();
/// # Ok::<(), flatquad::Error>(())
/// ```
#[derive(Clone)]
pub struct LooseGrid {
    world: Rect,
    pub(crate) loose_x: Axis,
    pub(crate) loose_y: Axis,
    pub(crate) tight_x: Axis,
    pub(crate) tight_y: Axis,
    pub(crate) columns: u32,
    pub(crate) tight_columns: u32,
    /// Elements wider than this, or taller than `big_height`, are big
    /// ([`BIG_CELLS`](LooseGrid::BIG_CELLS) cells).
    big_width: f32,
    big_height: f32,
    /// Loose cells, row by row.
    pub(crate) cells: Vec<LooseCell>,
    /// Each tight cell's first link (row by row), or [`NONE`].
    pub(crate) tight: Vec<u32>,
    /// Listings of loose cells in tight cells: `element` is the loose cell.
    pub(crate) links: LinkPool,
    pub(crate) big: BigList,
    pub(crate) slots: SlotPool<Slot>,
}

impl LooseGrid {
    /// The most cells along one axis, of either grid.
    pub const MAX_AXIS_CELLS: u32 = 1 << 16;
    /// The most loose cells in all.
    pub const MAX_CELLS: u64 = 1 << 26;
    /// Loose cells per tight cell along each axis that
    /// [`with_cell_size`](LooseGrid::with_cell_size) and
    /// [`for_world`](LooseGrid::for_world) use.
    pub const TIGHT_RATIO: u32 = 2;
    /// Elements wider or taller than this many loose cells are *big*: kept in a
    /// list of their own rather than in a loose cell (see
    /// [`is_big`](LooseGrid::is_big)).
    pub const BIG_CELLS: u32 = 8;
    /// Loose cells along the world's longer side that
    /// [`for_world`](LooseGrid::for_world) uses.
    pub const DEFAULT_CELLS_PER_SIDE: u32 = 100;

    /// An empty grid over `world` with loose cells of side `world side / 100`
    /// along its longer side (square cells, as many along the shorter one as
    /// fit) and tight cells of 2 × 2 loose ones. Suits elements of about 1/1000
    /// of the world's side: loose cells of about 10 element sides, which hold
    /// about ten elements each when the elements fill the world as densely as
    /// the agents workload's do (100,000 squares of side 4 in a 4096 world),
    /// within 32 bytes per element in all.
    ///
    /// # Errors
    /// [`Error::InvalidWorld`] unless `world` is finite with a positive, finite
    /// width and height.
    pub fn for_world(world: Rect) -> Result<LooseGrid, Error> {
        check_world(world)?;
        // Computed in f64 from the ratio of the sides, so that the longer side
        // gets exactly the default count whatever rounding the division does.
        let (width, height) = (world.width() as f64, world.height() as f64);
        let n = Self::DEFAULT_CELLS_PER_SIDE as f64;
        let along = |side: f64| (n * side / width.max(height)).ceil().clamp(1.0, n) as u32;
        let (columns, rows) = (along(width), along(height));
        LooseGrid::new(
            world,
            columns,
            rows,
            columns.div_ceil(Self::TIGHT_RATIO),
            rows.div_ceil(Self::TIGHT_RATIO),
        )
    }

    /// An empty grid over `world` with loose cells of side at most `cell_size`
    /// (the world's width and height divided into whole numbers of cells,
    /// rounded up) and tight cells of [`TIGHT_RATIO`](LooseGrid::TIGHT_RATIO)
    /// loose cells a side.
    ///
    /// Choosing `cell_size`: about 10 times the side of a typical element (a
    /// handful to ten elements per cell where they are densest) keeps the
    /// structure under 32 bytes per element on the agents workload; smaller
    /// cells test fewer elements per query but cost 20 bytes each and more
    /// tight listings, larger ones test more elements per query and per pair.
    /// Elements wider or taller than [`BIG_CELLS`](LooseGrid::BIG_CELLS)
    /// cells are kept apart as big ones (tested against every query), so
    /// cells should not be much smaller than the common elements.
    ///
    /// # Errors
    /// [`Error::InvalidWorld`] as for [`new`](LooseGrid::new);
    /// [`Error::InvalidParameter`] if `cell_size` is not positive and finite, or
    /// so small that the grid would exceed [`MAX_AXIS_CELLS`](LooseGrid::MAX_AXIS_CELLS)
    /// along an axis or [`MAX_CELLS`](LooseGrid::MAX_CELLS) in all.
    pub fn with_cell_size(world: Rect, cell_size: f32) -> Result<LooseGrid, Error> {
        check_world(world)?;
        let cells_along = |length: f32| -> u64 {
            let cells = (length as f64 / cell_size as f64).ceil();
            if cells.is_nan() || cells < 1.0 {
                1
            } else if cells > u32::MAX as f64 {
                u32::MAX as u64
            } else {
                cells as u64
            }
        };
        if !(cell_size.is_finite() && cell_size > 0.0) {
            return Err(Error::InvalidParameter {
                name: "cell_size",
                expected: "positive and finite",
                found: cell_size.into(),
            });
        }
        let (columns, rows) = (cells_along(world.width()), cells_along(world.height()));
        let limit = Self::MAX_AXIS_CELLS as u64;
        if columns > limit || rows > limit || columns * rows > Self::MAX_CELLS {
            return Err(Error::InvalidParameter {
                name: "cell_size",
                expected: "large enough for at most 2^16 cells along an axis and 2^26 in all",
                found: cell_size.into(),
            });
        }
        let (columns, rows) = (columns as u32, rows as u32);
        LooseGrid::new(
            world,
            columns,
            rows,
            columns.div_ceil(Self::TIGHT_RATIO),
            rows.div_ceil(Self::TIGHT_RATIO),
        )
    }

    /// An empty grid over `world` of `columns × rows` loose cells and
    /// `tight_columns × tight_rows` tight cells, each grid dividing the world
    /// evenly. The tight grid must not be finer than the loose one.
    ///
    /// The world only sets where the grids divide the plane: elements and
    /// queries outside it are fine, they belong to the border cells. Loose cells
    /// of about 10 element sides and tight cells of 2 × 2 loose ones are the
    /// defaults (see [`with_cell_size`](LooseGrid::with_cell_size)): a coarser
    /// tight grid lists fewer cells twice and speeds the pair walk a little,
    /// but makes each query test more boxes.
    ///
    /// # Errors
    /// [`Error::InvalidWorld`] unless `world` is finite with a positive, finite
    /// width and height; [`Error::InvalidParameter`] if a count is 0 or above
    /// [`MAX_AXIS_CELLS`](LooseGrid::MAX_AXIS_CELLS), if `columns × rows`
    /// exceeds [`MAX_CELLS`](LooseGrid::MAX_CELLS), or if the tight grid has more
    /// columns or rows than the loose one.
    pub fn new(
        world: Rect,
        columns: u32,
        rows: u32,
        tight_columns: u32,
        tight_rows: u32,
    ) -> Result<LooseGrid, Error> {
        check_world(world)?;
        for (name, count) in [("columns", columns), ("rows", rows)] {
            if count == 0 || count > Self::MAX_AXIS_CELLS {
                return Err(Error::InvalidParameter {
                    name,
                    expected: "between 1 and 2^16",
                    found: count.into(),
                });
            }
        }
        for (name, count, loose) in [
            ("tight_columns", tight_columns, columns),
            ("tight_rows", tight_rows, rows),
        ] {
            if count == 0 || count > loose {
                return Err(Error::InvalidParameter {
                    name,
                    expected: "between 1 and the loose cells along the same axis",
                    found: count.into(),
                });
            }
        }
        let total = columns as u64 * rows as u64;
        if total > Self::MAX_CELLS {
            return Err(Error::InvalidParameter {
                name: "columns * rows",
                expected: "at most 2^26",
                found: total as f64,
            });
        }
        let tight_total = tight_columns as usize * tight_rows as usize;
        let (width, height) = (world.width(), world.height());
        Ok(LooseGrid {
            world,
            loose_x: Axis::new(world.x1, width, columns),
            loose_y: Axis::new(world.y1, height, rows),
            tight_x: Axis::new(world.x1, width, tight_columns),
            tight_y: Axis::new(world.y1, height, tight_rows),
            columns,
            tight_columns,
            big_width: (Self::BIG_CELLS as f64 * width as f64 / columns as f64) as f32,
            big_height: (Self::BIG_CELLS as f64 * height as f64 / rows as f64) as f32,
            cells: vec![LooseCell::VOID; total as usize],
            tight: vec![NONE; tight_total],
            links: LinkPool::new(),
            big: BigList::default(),
            slots: SlotPool::new(),
        })
    }

    /// Loose cells along x.
    pub fn columns(&self) -> u32 {
        self.columns
    }

    /// Loose cells along y.
    pub fn rows(&self) -> u32 {
        self.loose_y.cells()
    }

    /// Tight cells along x.
    pub fn tight_columns(&self) -> u32 {
        self.tight_columns
    }

    /// Tight cells along y.
    pub fn tight_rows(&self) -> u32 {
        self.tight_y.cells()
    }

    /// A ray's or a box cast's first hit by rectangle queries over pieces a
    /// loose cell long, as the grid does.
    pub(crate) fn ray_pieces(&self) -> Option<Pieces> {
        let (w, h) = self.cell_size();
        Some(Pieces::cells(f64::from(w.min(h))))
    }

    /// Nearest searches try squares first, for any `k`, as the grid's do
    /// (uniform-100k, k = 1: 1.5× faster than the descent, k = 32 level;
    /// clustered-100k's crowds 1.5× faster).
    pub(crate) fn nearest_squares(&self, _k: usize) -> bool {
        true
    }

    /// The width and height of a loose cell.
    pub fn cell_size(&self) -> (f32, f32) {
        (self.loose_x.cell_size(), self.loose_y.cell_size())
    }

    /// Whether a rectangle is *big*: wider or taller than
    /// [`BIG_CELLS`](LooseGrid::BIG_CELLS) loose cells (decided from the
    /// rectangle alone). Big elements are kept in a list of their own instead
    /// of a loose cell, and tested against every query.
    ///
    /// Why 8: a small element stretches its cell's box by at most half its
    /// size, and a query pays for a stretched box only when it meets it (a
    /// handful of element tests), while it pays for every big element. With 1%
    /// of the agents 32-64 times larger than the rest (3-6 cells), keeping them
    /// in the grid made the per-agent queries 6 times faster than listing them
    /// apart; an element as large as the world still costs one entry.
    pub fn is_big(&self, rect: &Rect) -> bool {
        (rect.width() > self.big_width) | (rect.height() > self.big_height)
    }

    /// Elements kept in the big list.
    pub fn big_len(&self) -> usize {
        self.big.len()
    }

    /// The loose cell owning the centre of a (small) element's rectangle.
    #[inline]
    pub(crate) fn home(&self, rect: &Rect) -> u32 {
        let x = self.loose_x.cell(centre(rect.x1, rect.x2));
        let y = self.loose_y.cell(centre(rect.y1, rect.y2));
        y * self.columns + x
    }

    /// The tight cells a finite rectangle covers.
    #[inline]
    pub(crate) fn span(&self, r: &Rect) -> Span {
        let (x1, x2) = self.tight_x.span_both(r.x1, r.x2);
        let (y1, y2) = self.tight_y.span_both(r.y1, r.y2);
        Span { x1, y1, x2, y2 }
    }
}

impl core::fmt::Debug for LooseGrid {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("LooseGrid")
            .field("world", &self.world)
            .field("len", &self.len())
            .field("columns", &self.columns())
            .field("rows", &self.rows())
            .field("tight_columns", &self.tight_columns())
            .field("tight_rows", &self.tight_rows())
            .field("big", &self.big.len())
            .finish_non_exhaustive()
    }
}

impl_structure!(
    LooseGrid;
    prefetch_relocate => prefetch_move,
    par_pairs_checked => pairs_parallel,
    ray_pieces => ray_pieces,
    nearest_squares => nearest_squares,
);

impl SpatialIndex for LooseGrid {
    fn world(&self) -> Rect {
        self.world
    }
    /// Shrinks every loose cell's box to fit its elements (an empty cell's box
    /// to nothing), and takes each cell off the tight cells it no longer covers.
    /// Call it once a frame, after the moves.
    fn cleanup(&mut self) {
        self.shrink_boxes()
    }
    /// Removes every element (all handles go stale) and empties every cell;
    /// keeps the memory for reuse.
    fn clear(&mut self) {
        self.reset()
    }
    /// Shows each loose cell, row by row, as a leaf of depth 0 (no branches;
    /// the tight grid is not shown): `rect` is the cell's box when it holds
    /// elements (which may reach beyond the cell, and is not shrunk to fit
    /// until the next cleanup), else the cell's extent within the world;
    /// `count` is the elements it holds. Big elements are in no cell.
    fn traverse<B, L>(&self, branch: B, leaf: L) -> ControlFlow<()>
    where
        B: FnMut(&NodeInfo) -> ControlFlow<()>,
        L: FnMut(&NodeInfo) -> ControlFlow<()>,
    {
        self.walk_cells(branch, leaf)
    }
    /// `nodes` and `leaves` are the loose cells, `element_links` the elements
    /// in cells plus the listings of loose cells in tight cells.
    fn stats(&self) -> Stats {
        self.count_cells()
    }
    /// Each live small element is in exactly the loose cell owning its centre,
    /// once, each cell's list in slot order; each box holds its cell's elements; each loose cell is listed in
    /// exactly the tight cells its box covers, once each; big elements are
    /// exactly those in the big list; links and slots are in use or free,
    /// exactly once.
    fn validate(&self) -> Result<(), String> {
        self.check_invariants()
    }
    fn to_bytes(&self) -> Vec<u8> {
        self.write_snapshot()
    }
    fn from_bytes(bytes: &[u8]) -> Result<LooseGrid, Error> {
        LooseGrid::read_snapshot(bytes)
    }
}
