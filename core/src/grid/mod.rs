//! The uniform grid: its state and construction here, one file per operation
//! beside it.

mod insert;
mod packed;
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
mod unlisted;
mod validate;

use core::ops::ControlFlow;

use crate::axis::Axis;
use crate::big::BigList;
use crate::index::raw::impl_structure;
use crate::index::{check_world, NodeInfo, SpatialIndex, Stats};
use crate::links::LinkPool;
use crate::slots::{slot_record, SlotPool, NONE};
use crate::{Error, Rect};
use packed::{Demand, Packed};

/// Where an element's rectangle and id live, with the cells its rectangle
/// meets, so that a move that stays in them is four pairs of comparisons and
/// an element's neighbours are found without computing its cells. 32 bytes,
/// aligned, so a slot never straddles two cache lines.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(32))]
pub struct Slot {
    pub(crate) rect: Rect,
    pub(crate) id: u32,
    /// The [`Span`] of `rect` (while live), packed.
    pub(crate) cells: [u16; 4],
}

slot_record!(
    Slot,
    Slot {
        rect: Rect::new(0.0, 0.0, 0.0, 0.0),
        id: 0,
        cells: [0; 4],
    }
);

/// The cells a closed rectangle meets: columns `x1..=x2`, rows `y1..=y2`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    pub x1: u32,
    pub y1: u32,
    pub x2: u32,
    pub y2: u32,
}

impl Span {
    /// The cells `rect` meets over the column and row borders `ax`, `ay`.
    #[inline(always)]
    pub(crate) fn of((ax, ay): (&Axis, &Axis), rect: &Rect) -> Span {
        let (x1, x2) = ax.span(rect.x1, rect.x2);
        let (y1, y2) = ay.span(rect.y1, rect.y2);
        Span { x1, y1, x2, y2 }
    }

    /// Number of cells.
    #[inline]
    pub fn cells(&self) -> u64 {
        (self.x2 - self.x1 + 1) as u64 * (self.y2 - self.y1 + 1) as u64
    }

    /// The span as a slot keeps it (every cell index is below 2^16).
    #[inline]
    pub fn pack(&self) -> [u16; 4] {
        [self.x1, self.y1, self.x2, self.y2].map(|c| c as u16)
    }

    /// A span from [`pack`](Span::pack).
    #[inline]
    pub fn unpack([x1, y1, x2, y2]: [u16; 4]) -> Span {
        Span {
            x1: x1.into(),
            y1: y1.into(),
            x2: x2.into(),
            y2: y2.into(),
        }
    }

    /// Whether cell `(cx, cy)` is one of the span's.
    #[inline]
    pub fn contains(&self, cx: u32, cy: u32) -> bool {
        (self.x1 <= cx) & (cx <= self.x2) & (self.y1 <= cy) & (cy <= self.y2)
    }
}

/// A uniform grid over `f32` rectangles, for broad-phase collision detection
/// and region queries over many moving elements of similar size.
///
/// The world is divided into `columns × rows` cells, each cell one 32-bit list
/// head: an element is linked (by 8-byte links from one pool) into every cell
/// its closed rectangle meets, and stored once (rectangle and id) in a slot.
/// The border cells also own everything beyond the world, so elements and
/// queries outside it are fine. Every pool recycles its holes through a free
/// list, so once warm the grid allocates nothing, whatever is inserted, moved
/// or removed.
///
/// **Big elements.** An element whose rectangle meets more than
/// [`Grid::MAX_CELLS_PER_ELEMENT`] cells (32 × 32), or more than a quarter of
/// all the cells, is not linked into the cells but kept in a list of big
/// elements (the "dragons" of `docs/design.md`), which every query and the
/// pair walk test directly. So an element never costs more than 1,024 links (8 KiB), a
/// world-sized one costs one entry, and memory stays O(elements + cells). The
/// rule depends on the rectangle and the grid's dimensions alone. Every query
/// tests every big element, so the list should stay short: the limit is high
/// because elements 8 to 16 cells across, linked, cost each query far less
/// than in the list (on the benchmark's mixed-100k, 1,000 agents of 8 to 16
/// cells: 4 × 4 cells as the limit made a per-agent frame about 15 times
/// slower, 16 × 16 about twice, than 32 × 32).
///
/// **Choosing the cell size.** Cells about 2 to 4 times the typical element's
/// side work best: most elements then lie in one cell, a few in two or four,
/// and a cell holds a handful. Much smaller cells link each element many
/// times (and send the largest ones to the big list); much larger ones make
/// each cell's list long. [`Grid::for_world`] picks 256 × 256 cells, which
/// suits elements of about 1/1000 of the world's side.
///
/// Results are exact: a query returns precisely the elements whose closed
/// rectangle intersects the closed query rectangle, each once — a hit is
/// reported only in the cell that owns the top-left corner of the element's and
/// the query's intersection, which both of them meet. Queries take `&self`,
/// keep no scratch state in the grid (only a count of themselves), and may
/// run from many threads at once.
///
/// **Contiguous cells.** Besides the lists, [`cleanup`](SpatialIndex::cleanup)
/// lays the cells out as runs, by a counting sort: each element at most a cell
/// wide and high once, in the run of the cell holding its min corner, its box
/// and handle side by side (a query scans one run per row, from a cell before
/// its own to its last); wider ones in every cell they meet. Until the next
/// change, queries and the pair walk read those runs instead of following
/// links, two to three times as fast per query. It does so when at least an eighth as many queries as elements
/// (plus a 64th of the cells) came since the last `cleanup` (a loop that moves, cleans up and queries
/// gets runs from its second frame on), and a bulk
/// [`insert_many`](SpatialIndex::insert_many) or
/// [`from_bytes`](SpatialIndex::from_bytes) lays them out at once. In such a
/// loop, an `update_many` moving at least a quarter of the elements does not
/// keep the lists at all: it writes the moved rectangles and lays the runs out
/// at once, and the lists are rebuilt (one counting sort) by the next insert,
/// removal, single move or small batch.
///
/// ```
/// use flatquad::{Grid, Query, Rect, SpatialIndex};
///
/// // 10 × 10 cells of side 10.
/// let mut grid = Grid::new(Rect::new(0.0, 0.0, 100.0, 100.0), 10, 10)?;
/// let a = grid.insert(Rect::new(10.0, 10.0, 20.0, 20.0), 1)?;
/// let b = grid.insert(Rect::new(20.0, 15.0, 30.0, 25.0), 2)?; // touches `a`
/// let world = grid.insert(Rect::new(-5.0, -5.0, 105.0, 105.0), 3)?; // big: no links
/// let mut hits = Vec::new();
/// grid.query(&Query::rect(Rect::new(0.0, 0.0, 12.0, 12.0)), &mut hits)?;
/// hits.sort();
/// assert_eq!(hits, [a, world]);
/// grid.update(b, Rect::new(50.0, 50.0, 60.0, 60.0))?;
/// let mut pairs = Vec::new();
/// grid.pairs(&mut pairs);
/// assert_eq!(pairs.len(), 2); // each of `a` and `b` with `world`
/// grid.remove(a)?;
/// assert!(grid.remove(a).is_err()); // a stale handle is refused
/// # Ok::<(), flatquad::Error>(())
/// ```
#[derive(Clone)]
pub struct Grid {
    world: Rect,
    pub(crate) axis_x: Axis,
    pub(crate) axis_y: Axis,
    /// Row-major: cell `(cx, cy)` is `cy * columns + cx`; each the first link
    /// of the cell's list, or [`NONE`].
    pub(crate) cells: Vec<u32>,
    pub(crate) links: LinkPool,
    pub(crate) big: BigList,
    pub(crate) slots: SlotPool<Slot>,
    /// The cells laid out contiguously by `cleanup`, read while fresh.
    pub(crate) packed: Packed,
    /// Queries since the last `cleanup`: whether the next one lays the cells out.
    pub(crate) demand: Demand,
    /// Whether a big batch of moves left `cells` and `links` behind: the runs
    /// (then fresh) are the truth until [`relist`](Grid::relist).
    pub(crate) lists_stale: bool,
}

impl Grid {
    /// Columns (and rows) [`Grid::for_world`] makes.
    pub const DEFAULT_CELLS_PER_SIDE: u32 = 256;
    /// The most columns, or rows, a grid has: 2^16.
    pub const MAX_CELLS_PER_AXIS: u32 = 1 << 16;
    /// The most cells a grid has in all: 2^26 (256 MiB of list heads).
    pub const MAX_CELLS: u32 = 1 << 26;
    /// An element whose rectangle meets more cells than this (32 × 32), or more
    /// than a quarter of the grid's cells, goes to the list of big elements
    /// instead of being linked into cells (see [`Grid`]).
    pub const MAX_CELLS_PER_ELEMENT: u32 = 1024;

    /// An empty grid of 256 × 256 cells over `world`: cells of 1/256 of its
    /// sides, which suit elements of about 1/1000 of them (a cell about four
    /// element sides, the best the agents benchmark measured).
    ///
    /// ```
    /// use flatquad::{Grid, Rect};
    /// let grid = Grid::for_world(Rect::new(0.0, 0.0, 4096.0, 4096.0))?;
    /// assert_eq!((grid.columns(), grid.rows(), grid.cell_width()), (256, 256, 16.0));
    /// # Ok::<(), flatquad::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidWorld`] as for [`new`](Grid::new).
    pub fn for_world(world: Rect) -> Result<Grid, Error> {
        Grid::new(
            world,
            Self::DEFAULT_CELLS_PER_SIDE,
            Self::DEFAULT_CELLS_PER_SIDE,
        )
    }

    /// An empty grid dividing `world` into `columns × rows` equal cells.
    ///
    /// The world only sets where the cell borders lie: elements and queries
    /// outside it are fine, the border cells own everything beyond it. Pick the
    /// cell size about 2 to 4 times the typical element's side (see [`Grid`]).
    ///
    /// # Errors
    /// [`Error::InvalidWorld`] unless `world` is finite with a positive, finite
    /// width and height; [`Error::InvalidParameter`] if `columns` or `rows` is 0
    /// or above [`Grid::MAX_CELLS_PER_AXIS`] (2^16), or if there would be more
    /// than [`Grid::MAX_CELLS`] (2^26) cells in all.
    pub fn new(world: Rect, columns: u32, rows: u32) -> Result<Grid, Error> {
        check_world(world)?;
        check_dimensions(columns, rows)?;
        Ok(Grid {
            world,
            axis_x: Axis::new(world.x1, world.width(), columns),
            axis_y: Axis::new(world.y1, world.height(), rows),
            cells: vec![NONE; columns as usize * rows as usize],
            links: LinkPool::new(),
            big: BigList::default(),
            slots: SlotPool::new(),
            packed: Packed::default(),
            demand: Demand::default(),
            lists_stale: false,
        })
    }

    /// An empty grid over `world` with cells of about `cell_width × cell_height`:
    /// `ceil(width / cell_width)` columns (at least 1) and as many rows for the
    /// height; the cells are then stretched a little to fill the world exactly.
    ///
    /// ```
    /// use flatquad::{Grid, Rect};
    /// let grid = Grid::with_cell_size(Rect::new(0.0, 0.0, 100.0, 50.0), 16.0, 16.0)?;
    /// assert_eq!((grid.columns(), grid.rows()), (7, 4));
    /// assert_eq!(grid.cell_height(), 12.5);
    /// # Ok::<(), flatquad::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidWorld`] as for [`new`](Grid::new);
    /// [`Error::InvalidParameter`] if a cell size is not positive and finite
    /// (`found` is then the value truncated to an integer: 0 for NaN, zero or a
    /// negative, `u64::MAX` for +∞), or so small that the grid would be too
    /// big (`found` is then the columns, rows or cells it would take).
    pub fn with_cell_size(world: Rect, cell_width: f32, cell_height: f32) -> Result<Grid, Error> {
        check_world(world)?;
        let columns = cells_along(world.width(), cell_width, "cell_width", "columns")?;
        let rows = cells_along(world.height(), cell_height, "cell_height", "rows")?;
        Grid::new(world, columns, rows)
    }

    /// Number of columns.
    pub fn columns(&self) -> u32 {
        self.axis_x.cells()
    }

    /// Number of rows.
    pub fn rows(&self) -> u32 {
        self.axis_y.cells()
    }

    /// The width of a cell (the world's width over the columns).
    pub fn cell_width(&self) -> f32 {
        self.axis_x.cell_size()
    }

    /// The height of a cell (the world's height over the rows).
    pub fn cell_height(&self) -> f32 {
        self.axis_y.cell_size()
    }

    /// The cells a rectangle meets.
    #[inline]
    pub(crate) fn span(&self, rect: &Rect) -> Span {
        Span::of((&self.axis_x, &self.axis_y), rect)
    }

    /// Whether an element meeting the cells of `span` goes to the big list
    /// instead of the cells: when they are more than
    /// [`MAX_CELLS_PER_ELEMENT`](Grid::MAX_CELLS_PER_ELEMENT) or more than a
    /// quarter of the grid.
    #[inline]
    pub(crate) fn is_big(&self, span: &Span) -> bool {
        is_big_among(self.cells.len(), span)
    }

    /// The cells of a live slot's element.
    #[inline]
    pub(crate) fn span_at(&self, slot: u32) -> Span {
        Span::unpack(self.slots.slots[slot as usize].cells)
    }

    /// The index of cell `(cx, cy)` in `cells`.
    #[inline]
    pub(crate) fn cell_index(&self, cx: u32, cy: u32) -> usize {
        cell_at(self.columns() as usize, cx, cy)
    }
}

/// The index of cell `(cx, cy)` in a grid of `columns` columns, row-major:
/// [`Grid::cell_index`] for the walks that read the grid as slices.
#[inline(always)]
pub(crate) fn cell_at(columns: usize, cx: u32, cy: u32) -> usize {
    cy as usize * columns + cx as usize
}

/// [`Grid::is_big`] in a grid of `cells` cells.
#[inline]
pub(crate) fn is_big_among(cells: usize, span: &Span) -> bool {
    let quarter = (cells as u64 / 4).max(1);
    span.cells() > quarter.min(Grid::MAX_CELLS_PER_ELEMENT as u64)
}

/// [`Error::InvalidParameter`] unless a grid of `columns × rows` can be made.
pub(crate) fn check_dimensions(columns: u32, rows: u32) -> Result<(), Error> {
    for (name, value) in [("columns", columns), ("rows", rows)] {
        if value == 0 || value > Grid::MAX_CELLS_PER_AXIS {
            return Err(Error::InvalidParameter {
                name,
                expected: "from 1 to 65536 (2^16)",
                found: value.into(),
            });
        }
    }
    let cells = columns as u64 * rows as u64;
    if cells > Grid::MAX_CELLS as u64 {
        return Err(Error::InvalidParameter {
            name: "columns × rows",
            expected: "at most 67108864 (2^26) cells in all",
            found: cells as f64,
        });
    }
    Ok(())
}

/// The cells of side about `cell` that cover `length` (positive and finite).
fn cells_along(
    length: f32,
    cell: f32,
    name: &'static str,
    count_name: &'static str,
) -> Result<u32, Error> {
    if !(cell.is_finite() && cell > 0.0) {
        return Err(Error::InvalidParameter {
            name,
            expected: "a positive, finite size",
            found: cell.into(),
        });
    }
    let count = (length as f64 / cell as f64).ceil().max(1.0);
    if count > Grid::MAX_CELLS_PER_AXIS as f64 {
        return Err(Error::InvalidParameter {
            name: count_name,
            expected: "at most 65536 (2^16): the cell size is too small for the world",
            found: count,
        });
    }
    Ok(count as u32)
}

impl core::fmt::Debug for Grid {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Grid")
            .field("world", &self.world)
            .field("len", &self.len())
            .field("columns", &self.columns())
            .field("rows", &self.rows())
            .field("big", &self.big.len())
            .finish_non_exhaustive()
    }
}

impl_structure!(
    Grid;
    relocate_many => relocate_batch,
    overlapping_checked => neighbours,
    prefetch_overlapping => prefetch_neighbours,
    par_pairs_checked => pairs_parallel,
    par_relocate_many => relocate_parallel,
    ray_pieces => ray_pieces,
    nearest_squares => nearest_squares,
    count_queries => note_queries,
    spatial_order_from => spatial_order_from,
);

impl SpatialIndex for Grid {
    fn world(&self) -> Rect {
        self.world
    }
    /// Lays the cells out contiguously (a counting sort, O(elements + cells),
    /// no allocation once warm) if at least an eighth as many queries as
    /// elements (or a pair walk) came since the last `cleanup`: the queries
    /// and pair walks until the next change then read one run per cell
    /// instead of following links. A loop that moves, cleans up and queries
    /// or walks the pairs every frame gets runs from its second frame on.
    /// Nothing else to do: an element's links are updated as it moves.
    fn cleanup(&mut self) {
        self.pack_cells_if_queried();
    }
    /// Removes every element (all handles go stale); keeps the memory of the
    /// cells, links and slots for reuse.
    fn clear(&mut self) {
        self.cells.fill(NONE);
        self.links.reset();
        self.big.clear();
        self.slots.free_all();
        self.packed.stale();
        self.lists_stale = false;
    }
    /// Every cell, row by row, as a leaf of depth 0 (its index `cy * columns +
    /// cx`); `branch` is never called. A cell's count is the elements linked in
    /// it: the big elements are in no cell and not shown.
    ///
    /// ```
    /// use core::ops::ControlFlow;
    /// use flatquad::{Grid, Rect, SpatialIndex};
    /// // 4 × 4 cells of side 2.
    /// let mut grid = Grid::new(Rect::new(0.0, 0.0, 8.0, 8.0), 4, 4)?;
    /// grid.insert(Rect::point(1.0, 1.0), 0)?;
    /// grid.insert(Rect::new(3.0, 3.0, 5.0, 5.0), 1)?; // in cells 5, 6, 9 and 10
    /// let mut cells = Vec::new();
    /// grid.traverse(|_| ControlFlow::Continue(()), |cell| {
    ///     cells.push((cell.index, cell.rect, cell.count));
    ///     ControlFlow::Continue(())
    /// });
    /// assert_eq!(cells.len(), 16);
    /// assert_eq!(cells[0], (0, Rect::new(0.0, 0.0, 2.0, 2.0), 1));
    /// assert_eq!(cells[5], (5, Rect::new(2.0, 2.0, 4.0, 4.0), 1));
    /// assert_eq!(cells[15], (15, Rect::new(6.0, 6.0, 8.0, 8.0), 0));
    /// # Ok::<(), flatquad::Error>(())
    /// ```
    fn traverse<B, L>(&self, _branch: B, leaf: L) -> ControlFlow<()>
    where
        B: FnMut(&NodeInfo) -> ControlFlow<()>,
        L: FnMut(&NodeInfo) -> ControlFlow<()>,
    {
        self.walk_cells(leaf)
    }
    /// Cells as nodes and leaves (every one, empty or not); `element_links` does
    /// not count the big elements, which are in no cell.
    fn stats(&self) -> Stats {
        self.count_cells()
    }
    /// Each live element is linked once in exactly the cells its rectangle
    /// meets, or, if big, is in the big list once and in no cell; every link is
    /// in exactly one cell or on the free list; no dead slot is linked.
    fn validate(&self) -> Result<(), String> {
        self.check_invariants()
    }
    fn to_bytes(&self) -> Vec<u8> {
        self.write_snapshot()
    }
    fn from_bytes(bytes: &[u8]) -> Result<Grid, Error> {
        Grid::read_snapshot(bytes)
    }
}
