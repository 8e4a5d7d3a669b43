//! Bulk queries and joins: many query rectangles against one index, one
//! index against another, and two arrays of boxes against each other, with
//! results as two parallel columns (the shape shapely's `STRtree.query` and
//! GeoPandas' `sjoin` work in). Every binding calls these; none rewrites them.
//!
//! The rows of the query side are `usize` positions, so a batch of more than
//! 2^32 boxes is answered without squeezing its row numbers. With the cargo
//! feature `rayon` the queries run on rayon's threads.
//!
//! All of them are exact for `f32` input, like every query. For `f64` input,
//! round each box with [`Rect::from_f64`] (or [`Rect::round_f64s`]): rounding to
//! nearest is monotone, so every pair whose closed boxes meet in `f64` is found
//! (a pair the rounding made touch may be added).

use super::raw::Slots;
pub use super::str_order::str_ranks;
use super::{QueryColumns, SpatialIndex};
use crate::batch_order::order_by_key;
use crate::slots::prefetch;
use crate::{AnyIndex, Error, Grid, Handle, Kind, LooseGrid, Rect};

/// Batches from this size are queried in spatial order ([`rows_of`]).
const SPATIAL_ORDER_FROM: usize = 4096;

/// How many rows ahead [`rows_of`]'s out-of-order passes load.
const GATHER_AHEAD: usize = 16;

/// One query per rectangle of `rects`, in compressed rows (`offsets`, `hits`)
/// in the order of `rects`: the core's batch query, on every thread when the
/// feature `rayon` is on. A big batch is queried in Z-order of the
/// rectangles' centres and its rows put back in order: consecutive queries
/// then touch neighbouring cells and elements, which stay in cache. Not over
/// an index smaller than its structure's
/// [`spatial_order_from`](super::raw::Structure::spatial_order_from), which
/// the caches hold anyway.
fn rows_of<T: SpatialIndex<Bounds = Rect> + Sync>(
    index: &T,
    rects: &[Rect],
    offsets: &mut Vec<usize>,
    hits: &mut Vec<Handle>,
) -> Result<(), Error> {
    // (Positions in the order are u32: a batch past 2^32 goes as it comes.)
    if rects.len() < SPATIAL_ORDER_FROM
        || rects.len() > u32::MAX as usize
        || index.len() < index.spatial_order_from()
    {
        return QueryColumns::rects(rects, None)?.answer(index, offsets, hits);
    }
    for (i, &rect) in rects.iter().enumerate() {
        super::check_rect(rect).map_err(|e| e.in_batch(i))?;
    }
    let order = z_order(rects, index.world());
    // Both passes below read (or write) the rows out of order: each would miss
    // the cache at every row unless it loads a few rows ahead.
    let ahead = |p: usize| order.get(p + GATHER_AHEAD).map(|&row| row as usize);
    // The rectangles in that order (16 bytes each), answered a block of
    // queries at a time.
    let permuted: Vec<Rect> = order
        .iter()
        .enumerate()
        .map(|(p, &i)| {
            if let Some(row) = ahead(p) {
                prefetch(&rects[row]);
            }
            rects[i as usize]
        })
        .collect();
    let (mut sorted_offsets, mut sorted_hits) = (Vec::new(), Vec::new());
    QueryColumns::rects(&permuted, None)?.answer(index, &mut sorted_offsets, &mut sorted_hits)?;
    // Put the rows back: row `order[p]` is the permuted row `p`.
    offsets.clear();
    offsets.resize(rects.len() + 1, 0);
    for (p, &row) in order.iter().enumerate() {
        if let Some(row) = ahead(p) {
            prefetch(&offsets[row + 1]);
        }
        offsets[row as usize + 1] = sorted_offsets[p + 1] - sorted_offsets[p];
    }
    for i in 1..offsets.len() {
        offsets[i] += offsets[i - 1];
    }
    hits.clear();
    hits.resize(sorted_hits.len(), Handle::from_raw(0));
    for (p, &row) in order.iter().enumerate() {
        if let Some(row) = ahead(p) {
            prefetch(&offsets[row]);
        }
        let (from, to) = (sorted_offsets[p], offsets[row as usize]);
        let len = sorted_offsets[p + 1] - from;
        hits[to..to + len].copy_from_slice(&sorted_hits[from..from + len]);
    }
    Ok(())
}

/// The positions of (valid) `rects` sorted by the Z-order (Morton) code of
/// their centres on a 2^16 × 2^16 lattice over `world` (clamped at its edges).
fn z_order(rects: &[Rect], world: Rect) -> Vec<u32> {
    let spread = |v: u32| {
        let mut v = u64::from(v & 0xffff);
        v = (v | (v << 8)) & 0x00ff_00ff;
        v = (v | (v << 4)) & 0x0f0f_0f0f;
        v = (v | (v << 2)) & 0x3333_3333;
        (v | (v << 1)) & 0x5555_5555
    };
    let lattice = |c: f32, lo: f32, width: f32| {
        let t = ((f64::from(c) - f64::from(lo)) / f64::from(width)).clamp(0.0, 1.0);
        (t * 65535.0) as u32
    };
    let codes: Vec<u32> = rects
        .iter()
        .map(|r| {
            let cx = r.x1 * 0.5 + r.x2 * 0.5;
            let cy = r.y1 * 0.5 + r.y2 * 0.5;
            (spread(lattice(cx, world.x1, world.width()))
                | spread(lattice(cy, world.y1, world.height())) << 1) as u32
        })
        .collect();
    // Every 32-bit code is possible: the sort of (code, position) words.
    order_by_key(&codes, 1 << 32)
}

/// Compressed rows (`offsets`) as one row number per hit.
fn expand(offsets: &[usize], rows: &mut Vec<usize>) {
    rows.clear();
    rows.reserve(offsets.last().copied().unwrap_or(0));
    for (row, span) in offsets.windows(2).enumerate() {
        rows.extend(core::iter::repeat_n(row, span[1] - span[0]));
    }
}

/// Sorts each row's values (the rows themselves are already in order).
fn sort_rows<V: Ord>(offsets: &[usize], values: &mut [V]) {
    for span in offsets.windows(2) {
        values[span[0]..span[1]].sort_unstable();
    }
}

/// Every pair `(i, h)` such that the element `h` of `index` meets `rects[i]`,
/// as two columns: `rows[k]` is the position `i` in `rects`, `hits[k]` the
/// element's handle. Rows come in increasing order; with `sorted`, the hits of
/// each row are in increasing order of handle too (otherwise in no order).
/// Both vectors are cleared first.
///
/// ```
/// use flatquad::{join, Grid, Rect, SpatialIndex};
/// let mut grid = Grid::for_world(Rect::new(0.0, 0.0, 10.0, 10.0))?;
/// let a = grid.insert(Rect::new(1.0, 1.0, 2.0, 2.0), 0)?;
/// let queries = [Rect::new(5.0, 5.0, 6.0, 6.0), Rect::new(0.0, 0.0, 1.0, 1.0)];
/// let (mut rows, mut hits) = (Vec::new(), Vec::new());
/// join::query_bulk(&grid, &queries, true, &mut rows, &mut hits)?;
/// assert_eq!((rows, hits), (vec![1], vec![a])); // touching counts
/// # Ok::<(), flatquad::Error>(())
/// ```
///
/// # Errors
/// The first bad rectangle, inside [`Error::InBatch`]; both vectors are left
/// empty then.
pub fn query_bulk<T: SpatialIndex<Bounds = Rect> + Sync>(
    index: &T,
    rects: &[Rect],
    sorted: bool,
    rows: &mut Vec<usize>,
    hits: &mut Vec<Handle>,
) -> Result<(), Error> {
    let mut offsets = Vec::new();
    rows.clear();
    hits.clear();
    rows_of(index, rects, &mut offsets, hits)?;
    if sorted {
        sort_rows(&offsets, hits);
    }
    expand(&offsets, rows);
    Ok(())
}

/// Every pair of an element of `left` and an element of `right` whose closed
/// rectangles meet, each pair once, as two columns of handles: `lefts[k]` of
/// `left`, `rights[k]` of `right`. With `sorted`, in increasing order of
/// `(left handle, right handle)`; otherwise in no particular order. Both vectors are cleared
/// first. The two may be different structures (a grid against a quadtree).
///
/// ```
/// use flatquad::{join, Grid, Quadtree, Rect, SpatialIndex};
/// let world = Rect::new(0.0, 0.0, 10.0, 10.0);
/// let (mut roads, mut parcels) = (Grid::for_world(world)?, Quadtree::for_world(world)?);
/// let road = roads.insert(Rect::new(0.0, 4.0, 10.0, 5.0), 0)?;
/// let parcel = parcels.insert(Rect::new(3.0, 3.0, 4.0, 4.0), 0)?;
/// parcels.insert(Rect::new(7.0, 7.0, 8.0, 8.0), 1)?;
/// let (mut lefts, mut rights) = (Vec::new(), Vec::new());
/// join::join(&roads, &parcels, true, &mut lefts, &mut rights);
/// assert_eq!((lefts, rights), (vec![road], vec![parcel]));
/// # Ok::<(), flatquad::Error>(())
/// ```
pub fn join<A: SpatialIndex<Bounds = Rect>, B: SpatialIndex<Bounds = Rect> + Sync>(
    left: &A,
    right: &B,
    sorted: bool,
    lefts: &mut Vec<Handle>,
    rights: &mut Vec<Handle>,
) {
    // Each element of `left` queries `right` once, so each pair comes once.
    let (handles, rects): (Vec<Handle>, Vec<Rect>) = left.iter().map(|(h, r, _)| (h, r)).unzip();
    let mut offsets = Vec::new();
    // The rectangles come from a structure, so they are valid: no error.
    if rows_of(right, &rects, &mut offsets, rights).is_err() {
        unreachable!("stored rectangles are valid");
    }
    lefts.clear();
    lefts.reserve(rights.len());
    for (row, span) in offsets.windows(2).enumerate() {
        lefts.extend(core::iter::repeat_n(handles[row], span[1] - span[0]));
    }
    if sorted {
        let mut pairs: Vec<(Handle, Handle)> =
            lefts.iter().copied().zip(rights.iter().copied()).collect();
        pairs.sort_unstable();
        (*lefts, *rights) = pairs.into_iter().unzip();
    }
}

/// An index built once from an array of boxes, answering in positions of that
/// array: the "tree" of shapely's `STRtree` or of a GeoPandas join. Box `j` is
/// stored with id `j` (so it holds fewer than 2^32 - 1 boxes); the positions of
/// the query side are `usize`, never squeezed.
///
/// ```
/// use flatquad::{join::Boxes, Kind, Rect};
/// let right = [Rect::new(5.0, 5.0, 9.0, 9.0), Rect::new(1.0, 1.0, 3.0, 3.0)];
/// let left = [Rect::new(0.0, 0.0, 2.0, 2.0), Rect::new(9.0, 9.0, 9.5, 9.5)];
/// let boxes = Boxes::new(&right, Kind::Grid)?;
/// let (mut lefts, mut rights) = (Vec::new(), Vec::new());
/// boxes.query_bulk(&left, true, &mut lefts, &mut rights)?;
/// assert_eq!((lefts, rights), (vec![0, 1], vec![1, 0]));
/// # Ok::<(), flatquad::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Boxes {
    index: AnyIndex,
}

impl Boxes {
    /// `rects` in a structure of `kind` built over their extent (for a grid,
    /// cells of about twice the mean box side, at most about two per box).
    ///
    /// # Errors
    /// The first bad rectangle inside [`Error::InBatch`];
    /// [`Error::CapacityExceeded`] for 2^32 - 1 boxes or more.
    pub fn new(rects: &[Rect], kind: Kind) -> Result<Boxes, Error> {
        if rects.len() >= u32::MAX as usize {
            return Err(Error::CapacityExceeded);
        }
        for (index, &rect) in rects.iter().enumerate() {
            super::check_rect(rect).map_err(|e| e.in_batch(index))?;
        }
        let ids: Vec<u32> = (0..rects.len() as u32).collect();
        let mut index = structure_for(rects, kind)?;
        let mut handles = Vec::new();
        index.insert_many(rects, &ids, &mut handles)?;
        Ok(Boxes { index })
    }

    /// The boxes of a structure you built (say from
    /// [`Boxes::index`]'s snapshot): each element's position is its id.
    pub fn from_index(index: AnyIndex) -> Boxes {
        Boxes { index }
    }

    /// The structure holding the boxes (box `j` has id `j`).
    pub fn index(&self) -> &AnyIndex {
        &self.index
    }

    /// Number of boxes.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether there are no boxes.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Every pair `(i, j)` such that `rects[i]` meets box `j` (closed boxes),
    /// as two columns of positions: `rows[k] = i`, `positions[k] = j`. `i`
    /// increases; with `sorted`, the `j` of each `i` increase too (otherwise
    /// they come in no particular order). Both vectors are cleared first.
    ///
    /// # Errors
    /// The first bad rectangle of `rects`, inside [`Error::InBatch`]; both
    /// vectors are left empty then.
    pub fn query_bulk(
        &self,
        rects: &[Rect],
        sorted: bool,
        rows: &mut Vec<usize>,
        positions: &mut Vec<usize>,
    ) -> Result<(), Error> {
        self.query_bulk_owned(rects, None, sorted, rows, positions)
    }

    /// [`query_bulk`](Boxes::query_bulk) keeping only the pairs that belong to
    /// the half-open extent `owner` by the corner rule ([`owns`]), when given:
    /// one piece of a join cut into pieces.
    ///
    /// # Errors
    /// As [`query_bulk`](Boxes::query_bulk); `owner` may have infinite ends
    /// (it must not be NaN: [`Error::InvalidRect`] then).
    pub fn query_bulk_owned(
        &self,
        rects: &[Rect],
        owner: Option<Rect>,
        sorted: bool,
        rows: &mut Vec<usize>,
        positions: &mut Vec<usize>,
    ) -> Result<(), Error> {
        if let Some(owner) = owner {
            let r = owner;
            if r.x1.is_nan() || r.y1.is_nan() || r.x2.is_nan() || r.y2.is_nan() {
                return Err(Error::InvalidRect(owner));
            }
        }
        let (mut offsets, mut hits) = (Vec::new(), Vec::new());
        rows.clear();
        positions.clear();
        rows_of(&self.index, rects, &mut offsets, &mut hits)?;
        if let Some(owner) = owner {
            // Drop the pairs another piece owns, row by row, in place.
            let mut kept = 0;
            let mut start = 0;
            for row in 0..rects.len() {
                let end = offsets[row + 1];
                for k in start..end {
                    let hit = hits[k];
                    if owns(&owner, &rects[row], &self.index.rect_at(hit.slot())) {
                        hits[kept] = hit;
                        kept += 1;
                    }
                }
                start = end;
                offsets[row + 1] = kept;
            }
            hits.truncate(kept);
        }
        positions.reserve(hits.len());
        positions.extend(hits.iter().map(|&h| self.index.id_at(h.slot()) as usize));
        if sorted {
            sort_rows(&offsets, positions);
        }
        expand(&offsets, rows);
        Ok(())
    }
}

/// Whether the pair of rectangles `a`, `b` belongs to the half-open extent
/// `[x1, x2) × [y1, y2)` of `owner` (infinite ends allowed) by the corner rule:
/// the top-left corner of their intersection, `(max(a.x1, b.x1), max(a.y1,
/// b.y1))`, lies in it. When space is cut into half-open pieces (the cells of
/// a distributed join, each joining every box that meets it), every meeting
/// pair is found in each piece both boxes meet but belongs to exactly one: the
/// rule structures use inside themselves to report a pair met in several
/// cells once.
///
/// ```
/// use flatquad::{join, Rect};
/// let (a, b) = (Rect::new(0.0, 0.0, 2.0, 2.0), Rect::new(1.0, -1.0, 3.0, 1.0));
/// assert!(join::owns(&Rect::new(1.0, 0.0, 5.0, 5.0), &a, &b)); // corner (1, 0)
/// assert!(!join::owns(&Rect::new(f32::NEG_INFINITY, 0.0, 1.0, 5.0), &a, &b));
/// ```
#[inline]
pub fn owns(owner: &Rect, a: &Rect, b: &Rect) -> bool {
    let (x, y) = (a.x1.max(b.x1), a.y1.max(b.y1));
    (owner.x1 <= x) & (x < owner.x2) & (owner.y1 <= y) & (y < owner.y2)
}

/// An empty structure of `kind` over the extent of (valid) `rects`, widened to a
/// world any structure accepts.
fn structure_for(rects: &[Rect], kind: Kind) -> Result<AnyIndex, Error> {
    let (mut x1, mut y1, mut x2, mut y2) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    let (mut widths, mut heights) = (0.0f64, 0.0f64);
    for r in rects {
        x1 = x1.min(f64::from(r.x1));
        y1 = y1.min(f64::from(r.y1));
        x2 = x2.max(f64::from(r.x2));
        y2 = y2.max(f64::from(r.y2));
        // In f64: an f32 width of boxes spread across f32's range is infinite.
        widths += f64::from(r.x2) - f64::from(r.x1);
        heights += f64::from(r.y2) - f64::from(r.y1);
    }
    if rects.is_empty() {
        (x1, y1, x2, y2) = (0.0, 0.0, 1.0, 1.0);
    }
    // A world of positive size around the boxes (a single point, a segment).
    let pad = |lo: f64, hi: f64| {
        let width = hi - lo;
        if width > 0.0 {
            width
        } else {
            lo.abs().max(1.0)
        }
    };
    // No wider than half of what f32 holds, so that the world's own width is
    // finite (boxes beyond it are fine: the border cells and leaves own them).
    let finite = |extent: f64| extent.min(f64::from(f32::MAX) / 2.0);
    let (w, h) = (finite(pad(x1, x2)), finite(pad(y1, y2)));
    let world = Rect::from_f64(x1, y1, x1 + w, y1 + h);
    let n = rects.len().max(1) as f64;
    // The side of a cell: `mean` (a multiple of the mean box side), but at
    // least `fewest` and `most` (the sides that keep the cell count within
    // about two a box and within the structure's limit), and a finite f32.
    let cell_side = |mean: f64, fewest: f64, most: f64| {
        mean.max(fewest).max(most).min(f64::from(f32::MAX)) as f32
    };
    if kind == Kind::LooseGrid {
        // Square loose cells of about three mean box sides (2 to 4 measured
        // alike; the default 100 a side held 100 boxes a cell at 1M, twice
        // as slow), no more cells than about two per box or than it allows.
        let mean = (widths.max(heights) / n) * 3.0;
        let fewest = (w * h / (2.0 * n)).sqrt();
        let most = w.max(h) / f64::from(LooseGrid::MAX_AXIS_CELLS / 16);
        return Ok(LooseGrid::with_cell_size(world, cell_side(mean, fewest, most))?.into());
    }
    if kind != Kind::Grid {
        return AnyIndex::for_world(kind, world);
    }
    // Cells of about twice the mean box side, but no more cells than about
    // two per box (and no more than the grid allows).
    let side = |sum: f64, extent: f64| {
        let mean = sum / n;
        let fewest = extent / (2.0 * n).sqrt();
        let most = extent / f64::from(Grid::MAX_CELLS_PER_AXIS / 16);
        cell_side(2.0 * mean, fewest, most)
    };
    let grid = Grid::with_cell_size(world, side(widths, w), side(heights, h))?;
    Ok(grid.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::raw::Structure;
    use crate::{Quadtree, Query};

    /// The ordered path (every structure takes it in the unit tests, the grid
    /// included) gives each row the hits of its own query, in the caller's
    /// order, over more queries than one block of `QueryColumns`; a bad
    /// rectangle past the first block is reported at its place.
    #[test]
    fn ordered_rows_are_the_callers() {
        let world = Rect::new(0.0, 0.0, 500.0, 500.0);
        let mut rng = crate::test_lcg::Lcg32::new(7);
        let mut next = move || rng.unit();
        let mut grid = Grid::with_cell_size(world, 8.0, 8.0).unwrap();
        let mut tree = Quadtree::new(world, 8, 6).unwrap();
        for i in 0..3000 {
            let (x, y) = (next() * 520.0 - 10.0, next() * 520.0 - 10.0);
            let r = Rect::new(x, y, x + next() * 6.0, y + next() * 6.0);
            grid.insert(r, i).unwrap();
            tree.insert(r, i).unwrap();
        }
        let queries: Vec<Rect> = (0..70_000)
            .map(|_| {
                let (x, y) = (next() * 520.0 - 10.0, next() * 520.0 - 10.0);
                Rect::new(x, y, x + next() * 3.0, y + next() * 3.0)
            })
            .collect();
        let indexes: [AnyIndex; 2] = [grid.into(), tree.into()];
        for index in &indexes {
            assert_eq!(index.spatial_order_from(), 0);
            let (mut offsets, mut hits, mut one) = (Vec::new(), Vec::new(), Vec::new());
            rows_of(index, &queries, &mut offsets, &mut hits).unwrap();
            assert_eq!(offsets.len(), queries.len() + 1);
            for (i, q) in queries.iter().enumerate() {
                index.query(&Query::rect(*q), &mut one).unwrap();
                let mut row = hits[offsets[i]..offsets[i + 1]].to_vec();
                row.sort_unstable();
                one.sort_unstable();
                assert_eq!(row, one, "{:?}, query {i}", index.kind());
            }
            assert!(hits.len() > 10_000, "too few hits to test");
            let mut bad = queries.clone();
            bad[68_000] = Rect::new(1.0, 0.0, 0.0, 1.0);
            let e = rows_of(index, &bad, &mut offsets, &mut hits).unwrap_err();
            assert!(matches!(e, Error::InBatch { index: 68_000, .. }), "{e:?}");
        }
    }
}
