//! The cells laid out contiguously: a copy of every linked element's rectangle
//! and slot in cell order, made by a counting sort in `cleanup`, so that a
//! query, the pair walk and `overlapping_many` read one run per cell instead of
//! chasing a list head, then links, then slots (three dependent cache misses
//! per element).
//!
//! The links stay the truth: every change marks the copy stale (keeping its
//! memory), queries then walk the lists until the next `cleanup` lays the cells
//! out again in O(elements + cells). A game loop moves everything, calls
//! `cleanup` once, then queries: every query of the frame reads runs.

use core::ops::ControlFlow;
use core::sync::atomic::{AtomicUsize, Ordering};

use crate::grid::{Grid, Span};
use crate::index::raw::PREFETCH_AHEAD;
use crate::slots::{prefetch, NONE};
use crate::{Handle, Rect};

/// The contiguous copy of the cells (see the module).
#[derive(Clone, Debug, Default)]
pub(crate) struct Packed {
    /// Whether the copy matches the links; cleared by every change.
    pub fresh: bool,
    /// Cell `c`'s entries are `starts[c]..starts[c + 1]` (one more than the cells).
    pub starts: Vec<u32>,
    /// The entries' rectangles, cell by cell, each cell's in slot order.
    pub rects: Vec<Rect>,
    /// The entries' slots, beside `rects`.
    pub slots: Vec<u32>,
}

/// Queries answered since the last `cleanup`, counted up to the point where
/// laying the cells out pays (see [`Grid::pack_cells_if_queried`]); atomic
/// because queries take `&self` and may run on many threads.
#[derive(Debug, Default)]
pub(crate) struct Demand(AtomicUsize);

impl Demand {
    /// Counts `queries`, until the count reaches `enough` (after which the
    /// counter is only read, so that threads do not fight over it).
    #[inline(always)]
    pub fn count(&self, queries: usize, enough: usize) {
        if self.0.load(Ordering::Relaxed) < enough {
            self.0.fetch_add(queries, Ordering::Relaxed);
        }
    }

    /// The queries counted since the last [`take`](Demand::take), resetting the count.
    pub fn take(&mut self) -> usize {
        core::mem::take(self.0.get_mut())
    }
}

impl Clone for Demand {
    fn clone(&self) -> Demand {
        Demand(AtomicUsize::new(self.0.load(Ordering::Relaxed)))
    }
}

impl Packed {
    /// Marks the copy stale: the next `cleanup` lays the cells out again.
    #[inline]
    pub fn stale(&mut self) {
        self.fresh = false;
    }

    /// Cell `cell`'s run of entries.
    #[inline(always)]
    fn run(&self, cell: usize) -> core::ops::Range<usize> {
        self.starts[cell] as usize..self.starts[cell + 1] as usize
    }

    /// Heap bytes held.
    pub fn bytes(&self) -> usize {
        self.starts.capacity() * 4 + self.rects.capacity() * 16 + self.slots.capacity() * 4
    }
}

impl Grid {
    /// Queries between two `cleanup`s from which laying the cells out pays: an
    /// eighth of the elements plus a 64th of the cells (a counting sort costs
    /// about as much as that many queries on the lists save), and at least 8.
    #[inline(always)]
    pub(crate) fn queries_to_pack(&self) -> usize {
        (self.slots.live / 8 + self.cells.len() / 64).max(8)
    }

    /// Counts the queries of a call towards
    /// [`pack_cells_if_queried`](Grid::pack_cells_if_queried).
    #[inline(always)]
    pub(crate) fn count_queries(&self, queries: usize) {
        self.demand.count(queries, self.queries_to_pack());
    }

    /// `cleanup`: lays the cells out if enough queries came since the last
    /// one, so that a loop that moves, cleans up and queries gets runs, and
    /// one that only walks the pairs (once per frame: the sort would cost
    /// more than it saves) or moves alone pays nothing.
    pub(crate) fn pack_cells_if_queried(&mut self) {
        if self.demand.take() >= self.queries_to_pack() {
            self.pack_cells();
        }
    }

    /// Lays the cells out contiguously, unless they are already: a counting
    /// sort of every small element's cells, over the slots in order (so each
    /// cell's run is in slot order). Reuses the copy's memory, so once warm it
    /// allocates nothing.
    pub(crate) fn pack_cells(&mut self) {
        if self.packed.fresh {
            return;
        }
        let cells = self.cells.len();
        let columns = self.columns() as usize;
        let mut packed = core::mem::take(&mut self.packed);
        let starts = &mut packed.starts;
        starts.clear();
        starts.resize(cells + 1, 0);
        // Count each cell's entries in `starts[cell]`.
        let mut total = 0usize;
        for_each_small(self, |_, span| {
            for_each_cell(span, columns, |cell| starts[cell] += 1);
            total += span.cells() as usize;
        });
        // Running sums: `starts[c]` is the end of cell `c`'s run.
        let mut sum = 0u32;
        for start in starts.iter_mut().take(cells) {
            sum += *start;
            *start = sum;
        }
        starts[cells] = sum;
        // Every entry is written below: only the length matters.
        packed.rects.resize(total, Rect::new(0.0, 0.0, 0.0, 0.0));
        packed.slots.resize(total, NONE);
        // Fill each run from its end, the slots in reverse: each run then
        // holds its slots in ascending order, and `starts[c]` ends at its start.
        let slot_records = &self.slots.slots;
        for slot in (0..slot_records.len() as u32).rev() {
            if !self.slots.is_live(slot) {
                continue;
            }
            let record = &slot_records[slot as usize];
            let span = Span::unpack(record.cells);
            if self.is_big(&span) {
                continue;
            }
            for_each_cell(span, columns, |cell| {
                let start = &mut packed.starts[cell];
                *start -= 1;
                packed.rects[*start as usize] = record.rect;
                packed.slots[*start as usize] = slot;
            });
        }
        packed.fresh = true;
        self.packed = packed;
    }

    /// [`query_cells`](Grid::query_cells) on the contiguous copy (fresh): the
    /// same hits, by the same corner rule, each cell's in slot order.
    #[inline]
    pub(crate) fn query_runs<F>(
        &self,
        rect: &Rect,
        span: Span,
        omit: u32,
        visit: &mut F,
    ) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        let packed = &self.packed;
        let columns = self.columns() as usize;
        for cy in span.y1..=span.y2 {
            let first_row = cy == span.y1;
            let row = cy as usize * columns;
            for cx in span.x1..=span.x2 {
                let first_column = cx == span.x1;
                for entry in packed.run(row + cx as usize) {
                    let r = &packed.rects[entry];
                    let slot = packed.slots[entry];
                    // Most candidates miss: the corner rule only for hits.
                    if r.intersects(rect)
                        && (slot != omit)
                            & (first_column || self.axis_x.owns(cx, r.x1))
                            & (first_row || self.axis_y.owns(cy, r.y1))
                        && visit(self.slots.handle(slot)).is_break()
                    {
                        return ControlFlow::Break(());
                    }
                }
            }
        }
        ControlFlow::Continue(())
    }

    /// [`prefetch_neighbours`](Grid::prefetch_neighbours) on the runs: the
    /// start of a nearer handle's first cell (its slot has arrived), then
    /// the first entries of a still nearer one's.
    #[inline]
    pub(crate) fn prefetch_runs(&self, handles: &[Handle], index: usize) {
        let first_cell = |at: usize| {
            let slot = self.slots.slots.get(handles.get(at)?.slot() as usize)?;
            let [x1, y1, ..] = slot.cells;
            Some(self.cell_index(x1.into(), y1.into()))
        };
        if let Some(cell) = first_cell(index + PREFETCH_AHEAD / 2) {
            if let Some(start) = self.packed.starts.get(cell) {
                prefetch(start);
            }
        }
        if let Some(cell) = first_cell(index + PREFETCH_AHEAD / 4) {
            if let Some(&start) = self.packed.starts.get(cell) {
                if let Some(rect) = self.packed.rects.get(start as usize) {
                    prefetch(rect);
                }
                if let Some(slot) = self.packed.slots.get(start as usize) {
                    prefetch(slot);
                }
            }
        }
    }

    /// The elements of the point's cell run holding the point, but slot `omit`.
    #[inline]
    pub(crate) fn point_run<F>(
        &self,
        cell: usize,
        [x, y]: [f32; 2],
        omit: u32,
        visit: &mut F,
    ) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        let packed = &self.packed;
        for entry in packed.run(cell) {
            let slot = packed.slots[entry];
            if (slot != omit) & packed.rects[entry].contains_point(x, y)
                && visit(self.slots.handle(slot)).is_break()
            {
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    }

    /// The pairs in the cells of rows `rows`, read from the runs: each cell's
    /// entries against each other, a pair reported in the cell owning the
    /// top-left corner of its intersection, in cell order, then slot order.
    pub(crate) fn run_pairs<F>(&self, rows: core::ops::Range<u32>, visit: &mut F) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        let packed = &self.packed;
        let columns = self.columns();
        for cy in rows {
            let row = self.cell_index(0, cy);
            for cx in 0..columns {
                let run = packed.run(row + cx as usize);
                let (rects, slots) = (&packed.rects[run.clone()], &packed.slots[run]);
                for (i, a) in rects.iter().enumerate() {
                    for (j, b) in rects.iter().enumerate().skip(i + 1) {
                        if a.intersects(b)
                            && self.axis_x.owns(cx, a.x1.max(b.x1))
                                & self.axis_y.owns(cy, a.y1.max(b.y1))
                        {
                            let (ha, hb) =
                                (self.slots.handle(slots[i]), self.slots.handle(slots[j]));
                            visit(ha, hb)?;
                        }
                    }
                }
            }
        }
        ControlFlow::Continue(())
    }

    /// Whether the contiguous copy matches the links, cell by cell (for `validate`).
    pub(crate) fn check_packed(&self) -> Result<(), String> {
        if !self.packed.fresh {
            return Ok(());
        }
        let packed = &self.packed;
        if packed.starts.len() != self.cells.len() + 1 {
            return Err("packed cells: wrong number of runs".into());
        }
        let mut linked = Vec::new();
        for (cell, &head) in self.cells.iter().enumerate() {
            linked.clear();
            let mut link = head;
            while link != NONE {
                let l = self.links.links[link as usize];
                linked.push(l.element);
                link = l.next;
            }
            linked.sort_unstable();
            let run = packed.run(cell);
            if packed.slots[run.clone()] != linked[..] {
                return Err(format!("packed cell {cell}: slots differ from the links"));
            }
            for entry in run {
                let slot = packed.slots[entry];
                if packed.rects[entry] != self.slots.slots[slot as usize].rect {
                    return Err(format!(
                        "packed cell {cell}: slot {slot}'s rectangle is stale"
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Calls `f` with the index of every cell of `span` (grid of `columns`); most
/// elements lie in one cell, which skips the loops.
#[inline(always)]
fn for_each_cell(span: Span, columns: usize, mut f: impl FnMut(usize)) {
    let first = span.y1 as usize * columns + span.x1 as usize;
    if (span.x1 == span.x2) & (span.y1 == span.y2) {
        return f(first);
    }
    for cy in span.y1..=span.y2 {
        let row = cy as usize * columns;
        for cx in span.x1..=span.x2 {
            f(row + cx as usize);
        }
    }
}

/// Calls `f` with every live element in cells (not big), in slot order, and its span.
fn for_each_small(grid: &Grid, mut f: impl FnMut(u32, Span)) {
    for (slot, record) in grid.slots.slots.iter().enumerate() {
        if grid.slots.is_live(slot as u32) {
            let span = Span::unpack(record.cells);
            if !grid.is_big(&span) {
                f(slot as u32, span);
            }
        }
    }
}
