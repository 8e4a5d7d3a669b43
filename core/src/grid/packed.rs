//! The cells laid out contiguously, made by a counting sort in `cleanup`, so
//! that a query, the pair walk and `overlapping_many` read runs of boxes
//! instead of chasing a list head, then links, then slots (three dependent
//! cache misses per element).
//!
//! Two kinds of runs:
//! - **Small elements** (at most one cell wide and high, nearly all of them):
//!   one entry each, in the run of the cell holding its **min corner**, as
//!   `[x1, y1, -x2, -y2]` (so the closed overlap test against a query's
//!   `[x2, y2, -x1, -y1]` is four `<=`) with its slot beside. The cells of a row
//!   are adjacent, so a query reads one contiguous range per row, from the
//!   column of `x1 - reach` to that of `x2`, `reach` being the widest small
//!   element (an element filed by its min corner starts at most that far before
//!   the query). Each element is met once: no corner rule.
//! - **Medium elements** (wider or higher than a cell, not big): a copy in every
//!   cell they meet, reported by the corner rule, as the lists are; empty (and
//!   never read) when there are none.
//!
//! The links stay the truth: every change marks the copy stale (keeping its
//! memory), queries then walk the lists until the next `cleanup` lays the cells
//! out again in O(elements + cells). A game loop moves everything, calls
//! `cleanup` once, then queries: every query of the frame reads runs.

use core::ops::ControlFlow;
use core::sync::atomic::{AtomicUsize, Ordering};

use crate::axis::Axis;
use crate::batch_order::running_sums;
use crate::grid::relocate::{move_record, Move};
use crate::grid::{cell_at, is_big_among, Grid, Slot, Span};
use crate::huge_pages;
use crate::index::raw::PREFETCH_AHEAD;
use crate::slots::{live_handle, prefetch, prefetch_address, prefetch_lines, NONE};
use crate::{Handle, Rect};

/// Boxes a short run is tested as at once (the boxes past the run masked out);
/// `boxes` holds that many more at its end.
const WINDOW: usize = 4;

/// Slots ahead of the sort's fill that fetch their cell's start.
const FILL_AHEAD: usize = 16;

/// Lines of each row run that a query fetches ahead: about a row's run at
/// the agents' cells of 6 element sides (3 to 5 measured alike at uniform-1m,
/// 2 lost most of the gain).
const PREFETCH_LINES: usize = 4;

/// A small element in its run: its box as `[x1, y1, -x2, -y2]` and its
/// handle, so that a hit reads nothing else (24 bytes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Entry {
    pub b: [f32; 4],
    pub handle: Handle,
}

/// An entry that meets nothing (the padding after the runs).
const NOTHING: Entry = Entry {
    b: [f32::INFINITY; 4],
    handle: Handle::from_raw(0),
};

/// The contiguous copy of the cells (see the module).
#[derive(Clone, Debug, Default)]
pub(crate) struct Packed {
    /// Whether the copy matches the links; cleared by every change.
    pub fresh: bool,
    /// Small elements: cell `c`'s are `starts[c]..starts[c + 1]` (one more than the cells).
    pub starts: Vec<u32>,
    /// A parallel sort's counts, then cursors, of the parts after the first
    /// (whose are `starts`): kept so that a warm frame allocates nothing.
    pub part_starts: Vec<Vec<u32>>,
    /// The small elements, cell by cell, each cell's in slot order; then
    /// [`WINDOW`] entries that meet nothing.
    pub entries: Vec<Entry>,
    /// How far before a query a small element may start and still meet it, in
    /// x and y: at least the largest width (height) of a small element.
    pub reach: [f32; 2],
    /// The most a small element may measure across, in x and y (a cell).
    pub small: [f32; 2],
    /// Medium elements, in copies (empty when there are none): cell `c`'s are
    /// `mid_starts[c]..mid_starts[c + 1]`.
    pub mid_starts: Vec<u32>,
    /// The medium copies' rectangles, cell by cell, each cell's in slot order.
    pub mid_rects: Vec<Rect>,
    /// The medium copies' slots, beside `mid_rects`.
    pub mid_slots: Vec<u32>,
    /// The medium elements' slots, in order: the sort's scratch, kept.
    pub mid_list: Vec<u32>,
    /// Whether there are medium elements (else `mid_*` are not read).
    pub has_mid: bool,
    /// The last sort's shape. While the copy is fresh (nothing changed since)
    /// its cursors (in `starts` and `part_starts`) give back its counts, which
    /// a batch of moves can keep up to date for the next sort
    /// ([`Grid::keep_counts`]).
    pub last_sort: SortShape,
    /// Sorts that skipped their count (the tests see that they happen).
    #[cfg(test)]
    pub kept_sorts: usize,
    /// What a batch's moves did to the counts on one thread: kept, so that a
    /// warm frame allocates nothing.
    pub count_changes: CountChanges,
}

/// How a sort cut the slots, and what it filed.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct SortShape {
    /// Its parts ([`Grid::sort_parts`]).
    pub parts: usize,
    /// The slots it cut into them.
    pub slots: usize,
    /// The small elements it filed.
    pub small: usize,
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

    /// The queries counted since the last [`take`](Demand::take) (up to enough).
    pub fn counted(&self) -> usize {
        self.0.load(Ordering::Relaxed)
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

/// The largest `f32` below the finite `x` (-∞ below `f32::MIN`).
#[inline(always)]
fn next_down(x: f32) -> f32 {
    if x == 0.0 {
        return -f32::from_bits(1);
    }
    let bits = x.to_bits();
    f32::from_bits(if x > 0.0 { bits - 1 } else { bits + 1 })
}

/// The smallest `f32` above the finite, non-negative `x`.
#[inline(always)]
fn next_up(x: f32) -> f32 {
    f32::from_bits(x.max(0.0).to_bits() + 1)
}

/// `v - reach` rounded down (never above the exact difference), kept finite.
#[inline(always)]
fn minus(v: f32, reach: f32) -> f32 {
    next_down(v - reach).max(f32::MIN)
}

impl Packed {
    /// Marks the copy stale: the next `cleanup` lays the cells out again.
    #[inline]
    pub fn stale(&mut self) {
        self.fresh = false;
    }

    /// Medium cell `cell`'s run of copies.
    #[inline(always)]
    fn mid_run(&self, cell: usize) -> core::ops::Range<usize> {
        self.mid_starts[cell] as usize..self.mid_starts[cell + 1] as usize
    }

    /// Whether an element of `rect` goes to the small runs.
    #[inline(always)]
    fn is_small(&self, rect: &Rect) -> bool {
        is_small(&self.small, rect)
    }

    /// Heap bytes held.
    pub fn bytes(&self) -> usize {
        self.starts.capacity() * 4
            + self.part_starts.iter().map(Vec::capacity).sum::<usize>() * 4
            + self.entries.capacity() * core::mem::size_of::<Entry>()
            + self.mid_starts.capacity() * 4
            + self.mid_rects.capacity() * 16
            + self.mid_slots.capacity() * 4
            + self.mid_list.capacity() * 4
            + self.count_changes.moved.capacity() * 8
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
    pub(crate) fn note_queries(&self, queries: usize) {
        self.demand.count(queries, self.queries_to_pack());
    }

    /// Counts a pair walk as enough queries to lay the cells out. The list
    /// walk reads each element's slot record through its link, in an order
    /// that drifts from memory order as elements move: after 120 frames of
    /// uniform-1m it took 108 ms against 21 for the runs, which the sort lays
    /// out in cell order each time. So a loop that moves and walks the pairs
    /// gets runs from its second frame, as one that queries does.
    #[inline]
    pub(crate) fn note_pair_walk(&self) {
        self.note_queries(self.queries_to_pack());
    }

    /// `cleanup`: lays the cells out if enough queries (or a pair walk) came
    /// since the last one, so that a loop that moves, cleans up and queries
    /// or walks the pairs gets runs, and one that moves alone pays nothing.
    pub(crate) fn pack_cells_if_queried(&mut self) {
        if self.demand.take() >= self.queries_to_pack() {
            self.pack_cells();
        }
    }

    /// Lays the cells out contiguously, unless they are already: a counting
    /// sort over the slots in order (so each cell's run is in slot order), of
    /// each small element by the cell of its min corner and each medium one
    /// into every cell it meets. Reuses the copy's memory, so once warm it
    /// allocates nothing.
    pub(crate) fn pack_cells(&mut self) {
        self.pack_cells_in(1, None);
    }

    /// The slots of each part but the last when `slots` are cut into `parts`
    /// (a sort's parts, and the ranges of a batch's moves that keep its counts).
    pub(crate) fn part_len(slots: usize, parts: usize) -> usize {
        slots.div_ceil(parts).max(1)
    }

    /// The parts a sort on `threads` threads cuts the slots into: each part
    /// after the first counts in an array of the cells, so at most as many
    /// such arrays as there are elements a cell, so that their memory (and
    /// `part_cursors`' serial pass) stays within the elements'.
    pub(crate) fn sort_parts(&self, threads: usize) -> usize {
        if cfg!(feature = "rayon") {
            threads.clamp(1, 1 + self.slots.slots.len() / self.cells.len().max(1))
        } else {
            1
        }
    }

    /// [`pack_cells`](Grid::pack_cells) with the small elements sorted in
    /// [`sort_parts`](Grid::sort_parts)`(threads)` ranges of slots, on rayon's
    /// threads (one with the feature off). Each part counts its range's
    /// elements per cell in its own array; the counts then give each part its
    /// section of every cell's run, after the sections of the parts below it,
    /// so the runs come out exactly as from one part: in slot order.
    ///
    /// With `kept` (from [`keep_counts`](Grid::keep_counts)) the arrays
    /// already hold those counts, kept up to date by the batch of moves since
    /// the last sort, and the count is skipped.
    pub(crate) fn pack_cells_in(&mut self, threads: usize, kept: Option<KeptCounts>) {
        if self.packed.fresh {
            return;
        }
        let cells = self.cells.len();
        let parts = self.sort_parts(threads);
        let records = &self.slots.slots;
        let per_part = Grid::part_len(records.len(), parts);
        let range = |part: usize| {
            (part * per_part).min(records.len())..((part + 1) * per_part).min(records.len())
        };
        let mut packed = core::mem::take(&mut self.packed);
        packed.small = [self.cell_width(), self.cell_height()];
        let filer = self.filer();
        let small = match kept {
            Some(KeptCounts { small }) => {
                #[cfg(test)]
                {
                    check_kept_counts(&filer, &packed, parts, range, small);
                    packed.kept_sorts += 1;
                }
                small
            }
            None => {
                packed.starts.clear();
                huge_pages::resize(&mut packed.starts, cells + 1, 0);
                // Grown, never shrunk: a sort on fewer parts between two on
                // many (a `cleanup`, a small batch) keeps the arrays for the next.
                if packed.part_starts.len() < parts - 1 {
                    packed.part_starts.resize_with(parts - 1, Vec::new);
                }
                let (starts, part_starts) =
                    (&mut packed.starts, &mut packed.part_starts[..parts - 1]);
                for counts in part_starts.iter_mut() {
                    counts.clear();
                    huge_pages::resize(counts, cells + 1, 0);
                }
                // Count each part's small elements per cell.
                each_part(
                    starts,
                    part_starts,
                    |part, counts| count_small(&filer, range(part), counts),
                    |a, b| a + b,
                )
            }
        };
        let (starts, part_starts) = (&mut packed.starts, &mut packed.part_starts[..parts - 1]);
        part_cursors(starts, part_starts);
        // Every entry is written below: only the length matters.
        huge_pages::resize(&mut packed.entries, small + WINDOW, NOTHING);
        packed.entries[small..].fill(NOTHING);
        // Fill each part's sections from their ends, its slots in reverse: each
        // section then holds its slots in ascending order, and the first
        // part's cursors (`starts`) end at the runs' starts. The entries land
        // at random, beyond the caches at a million elements: the cursor of a
        // later slot's cell is fetched ahead, then the entry a nearer one will
        // take (dead, medium and big slots fetch for nothing). The reach and
        // the medium copies are tallied here, where every box is read anyway
        // (the count is skipped when the counts were kept).
        let entries = Scatter::new(&mut packed.entries);
        let first_cell = |slot| filer.first_cell(slot);
        let tally = each_part(
            starts,
            part_starts,
            |part, cursors| {
                let mut tally = Tally::default();
                for at in range(part).rev() {
                    if let Some(cell) = at.checked_sub(FILL_AHEAD).and_then(first_cell) {
                        if let Some(cursor) = cursors.get(cell) {
                            prefetch(cursor);
                        }
                    }
                    if let Some(cell) = at.checked_sub(FILL_AHEAD / 2).and_then(first_cell) {
                        if let Some(&cursor) = cursors.get(cell) {
                            entries.prefetch((cursor as usize).wrapping_sub(1));
                        }
                    }
                    match filer.filing(at) {
                        Filing::Small {
                            cell,
                            rect: r,
                            handle,
                        } => {
                            let cursor = &mut cursors[cell];
                            *cursor -= 1;
                            // SAFETY: `part_cursors` gave this part the entries
                            // `cursor - n..cursor` of this cell's run, `n` being
                            // the part's count of the cell: counted above by the
                            // same `filing`, or kept since the last sort
                            // (`keep_counts`), which holds as long as every
                            // change to the slots but a kept batch's moves marks
                            // the copy stale, those moves are of live slots in
                            // the same ranges as the sort's (`part_len`), and
                            // they note each change of filing by the same rule
                            // (`FilingRule::filed`): no other part or cell
                            // writes them. (The unit tests check kept counts
                            // against a fresh count before every such fill.)
                            unsafe {
                                entries.write(
                                    *cursor as usize,
                                    Entry {
                                        b: [r.x1, r.y1, -r.x2, -r.y2],
                                        handle,
                                    },
                                );
                            }
                            tally.reach[0] = tally.reach[0].max(r.x2 - r.x1);
                            tally.reach[1] = tally.reach[1].max(r.y2 - r.y1);
                        }
                        Filing::Mid(copies) => tally.mid += copies,
                        Filing::None => {}
                    }
                }
                tally
            },
            Tally::join,
        );
        packed.reach = [next_up(tally.reach[0]), next_up(tally.reach[1])];
        packed.last_sort = SortShape {
            parts,
            slots: records.len(),
            small,
        };
        packed.has_mid = tally.mid > 0;
        if packed.has_mid {
            pack_mid(&filer, &mut packed);
        }
        packed.fresh = true;
        self.packed = packed;
    }

    /// For a big batch of moves about to run in `sort_parts(threads)` ranges
    /// of slots (`threads` of them: the moves' ranges must be the sort's):
    /// marks the runs stale, and if the last sort cut the slots so and nothing
    /// changed since, turns its cursors back into its counts per part and cell
    /// and returns them as kept. The moves then keep those counts
    /// ([`FilingRule::move_record`]) and the next sort skips its count (at
    /// uniform-1m, 7–11 of its 29–33 ms on one thread).
    pub(crate) fn keep_counts(&mut self, threads: usize) -> Option<KeptCounts> {
        let parts = self.sort_parts(threads);
        let (fresh, last) = (self.packed.fresh, self.packed.last_sort);
        self.packed.stale();
        if !(fresh
            && parts == threads
            && last.parts == parts
            && last.slots == self.slots.slots.len())
        {
            return None;
        }
        let (first, rest) = (
            &mut self.packed.starts,
            &mut self.packed.part_starts[..parts - 1],
        );
        // Part `p`'s section of cell `c` runs from its cursor to the next
        // part's, the last part's to the next cell's run (read before the loop
        // overwrites it: cells in order). From the last part down, as
        // `part_cursors` goes, each cursor is read before it is overwritten.
        // Two parts (two threads) have a loop of their own: at uniform-1m
        // 0.18 ms against the general loop's 0.37–0.46.
        let cells = first.len() - 1;
        if let [second] = rest {
            let second = &mut second[..=cells];
            for cell in 0..cells {
                let (start, middle, end) = (first[cell], second[cell], first[cell + 1]);
                first[cell] = middle - start;
                second[cell] = end - middle;
            }
        } else {
            for cell in 0..cells {
                let mut end = first[cell + 1];
                for cursors in rest.iter_mut().rev() {
                    let start = cursors[cell];
                    cursors[cell] = end - start;
                    end = start;
                }
                first[cell] = end - first[cell];
            }
        }
        first[cells] = 0;
        for counts in rest.iter_mut() {
            counts[cells] = 0;
        }
        Some(KeptCounts { small: last.small })
    }

    /// Where the sort files an element, for the sort and for a batch's moves
    /// that keep its counts.
    pub(crate) fn filing_rule(&self) -> FilingRule {
        FilingRule {
            small: [self.cell_width(), self.cell_height()],
            columns: self.columns() as usize,
            cells: self.cells.len(),
        }
    }

    /// What the sort reads of the grid.
    fn filer(&self) -> Filer<'_> {
        Filer {
            stamps: &self.slots.stamps,
            records: &self.slots.slots,
            rule: self.filing_rule(),
        }
    }

    /// The small elements filed in cells `x0..=x1` of rows `y0..=y1` that meet
    /// `qv` (`[x2, y2, -x1, -y1]` of a closed query), but slot `omit`.
    #[inline(always)]
    fn scan_small<F>(
        &self,
        [x0, x1, y0, y1]: [u32; 4],
        qv: &[f32; 4],
        omit: u32,
        visit: &mut F,
    ) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        let packed = &self.packed;
        let columns = self.columns() as usize;
        for cy in y0..=y1 {
            let row = cy as usize * columns;
            let start = packed.starts[row + x0 as usize] as usize;
            let end = packed.starts[row + x1 as usize + 1] as usize;
            self.scan_boxes(start, end, qv, omit, visit)?;
        }
        ControlFlow::Continue(())
    }

    /// The small entries `start..end` that meet `qv`, but slot `omit`: windows of
    /// [`WINDOW`] boxes tested without a branch, then a walk of the hits' bits.
    #[inline(always)]
    fn scan_boxes<F>(
        &self,
        mut start: usize,
        end: usize,
        qv: &[f32; 4],
        omit: u32,
        visit: &mut F,
    ) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        let packed = &self.packed;
        while start < end {
            let window = &packed.entries[start..start + WINDOW];
            let mut mask = 0u32;
            for (k, Entry { b, .. }) in window.iter().enumerate() {
                let hit = (b[0] <= qv[0]) & (b[1] <= qv[1]) & (b[2] <= qv[2]) & (b[3] <= qv[3]);
                mask |= (hit as u32) << k;
            }
            let len = (end - start).min(WINDOW);
            mask &= (1u32 << len) - 1;
            while mask != 0 {
                let handle = window[mask.trailing_zeros() as usize].handle;
                mask &= mask - 1;
                if handle.slot() != omit {
                    visit(handle)?;
                }
            }
            start += WINDOW;
        }
        ControlFlow::Continue(())
    }

    /// The cells a query of `rect` (whose cells are `span`) scans among the
    /// small elements: columns `x0..=x1`, rows `y0..=y1`, from the min corner
    /// less the reach (a cell or two before the span's first).
    #[inline(always)]
    fn small_cells(&self, rect: &Rect, span: Span) -> [u32; 4] {
        let [rx, ry] = self.packed.reach;
        [
            cell_below(&self.axis_x, span.x1, minus(rect.x1, rx)),
            span.x2,
            cell_below(&self.axis_y, span.y1, minus(rect.y1, ry)),
            span.y2,
        ]
    }

    /// [`query_cells`](Grid::query_cells) on the contiguous copy (fresh): the
    /// same hits, small elements by row runs, medium ones by the corner rule.
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
        let qv = [rect.x2, rect.y2, -rect.x1, -rect.y1];
        self.scan_small(self.small_cells(rect, span), &qv, omit, visit)?;
        if self.packed.has_mid {
            self.query_mid(rect, span, omit, visit)?;
        }
        ControlFlow::Continue(())
    }

    /// The medium elements meeting `rect` (cells `span`), by the corner rule.
    #[cold]
    fn query_mid<F>(&self, rect: &Rect, span: Span, omit: u32, visit: &mut F) -> ControlFlow<()>
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
                for entry in packed.mid_run(row + cx as usize) {
                    let r = &packed.mid_rects[entry];
                    let slot = packed.mid_slots[entry];
                    if r.intersects(rect)
                        && (slot != omit)
                            & (first_column || self.axis_x.owns(cx, r.x1))
                            & (first_row || self.axis_y.owns(cy, r.y1))
                    {
                        visit(self.slots.handle(slot))?;
                    }
                }
            }
        }
        ControlFlow::Continue(())
    }

    /// [`prefetch_neighbours`](Grid::prefetch_neighbours) on the runs: the
    /// starts of the first two rows a nearer handle's query scans (its slot
    /// has arrived), then the first [`PREFETCH_LINES`] lines of each of a
    /// still nearer one's (its starts have arrived). Beyond the caches a row
    /// run of cells several elements wide spans 3 to 5 lines, and the lines
    /// not fetched early were waited on one after another.
    ///
    /// The first column and row are found by one step down without a branch,
    /// not by the query's exact `small_cells`: a prefetch need not be exact,
    /// and the exact walk's mispredictions cost more than the fetches save
    /// where the runs fit in the caches.
    #[inline]
    pub(crate) fn prefetch_runs(&self, handles: &[Handle], index: usize) {
        let packed = &self.packed;
        let rows = |at: usize| {
            let record = self.slots.slots.get(handles.get(at)?.slot() as usize)?;
            let (span, r) = (Span::unpack(record.cells), &record.rect);
            let [rx, ry] = packed.reach;
            let x = span.x1 - ((span.x1 > 0) & (r.x1 - rx <= self.axis_x.border(span.x1))) as u32;
            let y = span.y1 - ((span.y1 > 0) & (r.y1 - ry <= self.axis_y.border(span.y1))) as u32;
            let next = (y + 1).min(span.y2);
            Some([y, next].map(|row| self.cell_index(x, row)))
        };
        if let Some(cells) = rows(index + PREFETCH_AHEAD * 3 / 4) {
            for cell in cells {
                if let Some(start) = packed.starts.get(cell) {
                    prefetch(start);
                }
            }
        }
        if let Some(cells) = rows(index + PREFETCH_AHEAD / 2) {
            for cell in cells {
                if let Some(&start) = packed.starts.get(cell) {
                    if let Some(entry) = packed.entries.get(start as usize) {
                        prefetch_lines(entry, PREFETCH_LINES);
                    }
                }
            }
        }
    }

    /// The elements in runs holding the point, of cell `(cx, cy)`, but slot `omit`.
    #[inline]
    pub(crate) fn point_run<F>(
        &self,
        [cx, cy]: [u32; 2],
        [x, y]: [f32; 2],
        omit: u32,
        visit: &mut F,
    ) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        let point = Rect::point(x, y);
        let qv = [x, y, -x, -y];
        let span = Span {
            x1: cx,
            y1: cy,
            x2: cx,
            y2: cy,
        };
        self.scan_small(self.small_cells(&point, span), &qv, omit, visit)?;
        let packed = &self.packed;
        if packed.has_mid {
            for entry in packed.mid_run(self.cell_index(cx, cy)) {
                let slot = packed.mid_slots[entry];
                if (slot != omit) & packed.mid_rects[entry].contains_point(x, y) {
                    visit(self.slots.handle(slot))?;
                }
            }
        }
        ControlFlow::Continue(())
    }

    /// The slots of the elements in the runs that meet cell `(cx, cy)` (its
    /// closed box, to infinity for a border cell, which owns everything
    /// beyond the world): the small ones filed in it or within the reach
    /// before it, and its medium copies. A search takes each element from
    /// every cell it is listed in, and maybe a few more, never fewer.
    pub(crate) fn cell_runs(&self, [cx, cy]: [u32; 2], mut visit: impl FnMut(u32)) {
        let (ax, ay) = (&self.axis_x, &self.axis_y);
        let finite = |v: f32| v.clamp(f32::MIN, f32::MAX);
        let cell = Rect::new(
            finite(ax.border(cx)),
            finite(ay.border(cy)),
            finite(ax.border(cx + 1)),
            finite(ay.border(cy + 1)),
        );
        let span = Span {
            x1: cx,
            y1: cy,
            x2: cx,
            y2: cy,
        };
        let qv = [cell.x2, cell.y2, -cell.x1, -cell.y1];
        let _ = self.scan_small(
            self.small_cells(&cell, span),
            &qv,
            NONE,
            &mut |h: Handle| {
                visit(h.slot());
                ControlFlow::Continue(())
            },
        );
        let packed = &self.packed;
        if packed.has_mid {
            for entry in packed.mid_run(self.cell_index(cx, cy)) {
                visit(packed.mid_slots[entry]);
            }
        }
    }

    /// The pairs owned by rows `rows`, read from the runs. Small with small:
    /// each small element of the rows against the boxes after it in its row up
    /// to the last column it reaches, and the later rows it reaches (each pair
    /// once, from the element first in run order). Medium with medium: in each
    /// cell of the rows, by the corner rule. Medium with small: each medium
    /// element whose first cell is in the rows queries the small runs.
    pub(crate) fn run_pairs<F>(&self, rows: core::ops::Range<u32>, visit: &mut F) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        let packed = &self.packed;
        let columns = self.columns();
        for cy in rows {
            let row = self.cell_index(0, cy);
            for cx in 0..columns {
                let cell = row + cx as usize;
                for p in packed.starts[cell] as usize..packed.starts[cell + 1] as usize {
                    let Entry { b, handle: ha } = packed.entries[p];
                    let rect = Rect::new(b[0], b[1], -b[2], -b[3]);
                    let qv = [rect.x2, rect.y2, -rect.x1, -rect.y1];
                    let x1 = cell_above(&self.axis_x, cx, rect.x2);
                    let y1 = cell_above(&self.axis_y, cy, rect.y2);
                    let mut with_a = |other| visit(ha, other);
                    // This row: the boxes after this one, up to column x1.
                    let end = packed.starts[row + x1 as usize + 1] as usize;
                    self.scan_boxes(p + 1, end, &qv, NONE, &mut with_a)?;
                    if y1 > cy {
                        let x0 = cell_below(&self.axis_x, cx, minus(rect.x1, packed.reach[0]));
                        self.scan_small([x0, x1, cy + 1, y1], &qv, NONE, &mut with_a)?;
                    }
                }
            }
            if packed.has_mid {
                self.mid_pairs(cy, visit)?;
            }
        }
        ControlFlow::Continue(())
    }

    /// The pairs with a medium element owned by row `cy` (see [`run_pairs`](Grid::run_pairs)).
    #[cold]
    fn mid_pairs<F>(&self, cy: u32, visit: &mut F) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        let packed = &self.packed;
        let row = self.cell_index(0, cy);
        for cx in 0..self.columns() {
            let run = packed.mid_run(row + cx as usize);
            let (rects, slots) = (&packed.mid_rects[run.clone()], &packed.mid_slots[run]);
            for (i, a) in rects.iter().enumerate() {
                let ha = self.slots.handle(slots[i]);
                for (j, b) in rects.iter().enumerate().skip(i + 1) {
                    if a.intersects(b)
                        && self.axis_x.owns(cx, a.x1.max(b.x1))
                            & self.axis_y.owns(cy, a.y1.max(b.y1))
                    {
                        visit(ha, self.slots.handle(slots[j]))?;
                    }
                }
                // Its first cell: it queries the small elements.
                let span = self.span_at(slots[i]);
                if (span.x1 == cx) & (span.y1 == cy) {
                    let qv = [a.x2, a.y2, -a.x1, -a.y1];
                    let cells = self.small_cells(a, span);
                    self.scan_small(cells, &qv, NONE, &mut |other| visit(ha, other))?;
                }
            }
        }
        ControlFlow::Continue(())
    }

    /// Whether the contiguous copy matches the links, cell by cell (for `validate`):
    /// each small element once, in the cell of its min corner, within the reach;
    /// each medium one in every cell it is linked in; none else.
    pub(crate) fn check_packed(&self) -> Result<(), String> {
        if !self.packed.fresh {
            return Ok(());
        }
        let packed = &self.packed;
        if packed.starts.len() != self.cells.len() + 1
            || packed.has_mid && packed.mid_starts.len() != self.cells.len() + 1
        {
            return Err("packed cells: wrong number of runs".into());
        }
        let small = packed.starts[self.cells.len()] as usize;
        if packed.entries.len() != small + WINDOW
            || packed.entries[small..].iter().any(|e| *e != NOTHING)
        {
            return Err("packed cells: the boxes' padding is wrong".into());
        }
        let columns = self.columns() as usize;
        let (mut small, mut mid) = (Vec::new(), Vec::new());
        for (cell, &head) in self.cells.iter().enumerate() {
            small.clear();
            mid.clear();
            let mut link = head;
            while link != NONE {
                let l = self.links.links[link as usize];
                let record = &self.slots.slots[l.element as usize];
                let span = Span::unpack(record.cells);
                if !packed.is_small(&record.rect) {
                    mid.push(l.element);
                } else if cell_at(columns, span.x1, span.y1) == cell {
                    small.push(l.element);
                }
                link = l.next;
            }
            small.sort_unstable();
            mid.sort_unstable();
            let run = packed.starts[cell] as usize..packed.starts[cell + 1] as usize;
            let entries = &packed.entries[run];
            if !entries
                .iter()
                .map(|e| e.handle.slot())
                .eq(small.iter().copied())
            {
                return Err(format!(
                    "packed cell {cell}: small slots differ from the links"
                ));
            }
            for entry in entries {
                let slot = entry.handle.slot();
                if entry.handle != self.slots.handle(slot) {
                    return Err(format!("packed cell {cell}: slot {slot}'s handle is stale"));
                }
                let r = self.slots.slots[slot as usize].rect;
                if entry.b != [r.x1, r.y1, -r.x2, -r.y2] {
                    return Err(format!("packed cell {cell}: a small box is stale"));
                }
                if !(r.x2 - r.x1 <= packed.reach[0] && r.y2 - r.y1 <= packed.reach[1]) {
                    return Err(format!(
                        "packed cell {cell}: a small box is beyond the reach"
                    ));
                }
            }
            if !packed.has_mid {
                if !mid.is_empty() {
                    return Err("packed cells: medium elements but no medium runs".into());
                }
                continue;
            }
            let run = packed.mid_run(cell);
            if packed.mid_slots[run.clone()] != mid[..] {
                return Err(format!(
                    "packed cell {cell}: medium slots differ from the links"
                ));
            }
            for entry in run {
                let slot = packed.mid_slots[entry];
                if packed.mid_rects[entry] != self.slots.slots[slot as usize].rect {
                    return Err(format!(
                        "packed cell {cell}: slot {slot}'s rectangle is stale"
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The cell of `v` on `axis`, at or before cell `c` (`v` at most the end of `c`).
#[inline(always)]
fn cell_below(axis: &Axis, mut c: u32, v: f32) -> u32 {
    while c > 0 && v <= axis.border(c) {
        c -= 1;
    }
    c
}

/// The cell of `v` on `axis`, at or after cell `c` (`v` past the start of `c`).
#[inline(always)]
fn cell_above(axis: &Axis, mut c: u32, v: f32) -> u32 {
    while c + 1 < axis.cells() && v > axis.border(c + 1) {
        c += 1;
    }
    c
}

/// Whether an element of `rect` is small for cells of `small`: at most a cell
/// wide and high (the one test for the runs, also while `packed` is borrowed).
#[inline(always)]
fn is_small(small: &[f32; 2], rect: &Rect) -> bool {
    (rect.x2 - rect.x1 <= small[0]) & (rect.y2 - rect.y1 <= small[1])
}

/// A counting sort of elements into every cell they meet, its first half:
/// counts in `starts` (zeroed: one a cell, maybe one more) each cell's copies
/// of the elements `spans` gives (slot, cells), and turns the counts into each
/// run's end; returns the copies in all. [`fill_cells`] with the same `spans`
/// then places them. The lists' rebuild and the medium runs both sort so.
pub(crate) fn count_into_cells(
    spans: impl Iterator<Item = (u32, Span)>,
    columns: usize,
    starts: &mut [u32],
) -> u32 {
    let mut total = 0u64;
    for (_, span) in spans {
        for_each_cell(span, columns, |cell| starts[cell] += 1);
        total += span.cells();
    }
    assert!(
        total < NONE as u64,
        "flatquad: more than 2^32 - 1 copies in the cells"
    );
    running_sums(starts);
    total as u32
}

/// The second half of [`count_into_cells`]' sort: `put(position, slot)` for
/// each copy, each run filled from its end with `spans` (in slot order) in
/// reverse, so each run is in slot order and `starts` ends at the runs' starts.
pub(crate) fn fill_cells(
    spans: impl DoubleEndedIterator<Item = (u32, Span)>,
    columns: usize,
    starts: &mut [u32],
    mut put: impl FnMut(usize, u32),
) {
    for (slot, span) in spans.rev() {
        for_each_cell(span, columns, |cell| {
            starts[cell] -= 1;
            put(starts[cell] as usize, slot);
        });
    }
}

/// Calls `f` with the index of every cell of `span` (grid of `columns`).
#[inline(always)]
pub(crate) fn for_each_cell(span: Span, columns: usize, mut f: impl FnMut(usize)) {
    for cy in span.y1..=span.y2 {
        let row = cy as usize * columns;
        for cx in span.x1..=span.x2 {
            f(row + cx as usize);
        }
    }
}

/// What the sort reads of the grid, as slices: the sort writes the entries
/// through a pointer, after which the compiler would read again any field it
/// reached through the grid.
struct Filer<'a> {
    stamps: &'a [u32],
    records: &'a [Slot],
    rule: FilingRule,
}

impl Filer<'_> {
    /// The cell of slot `slot`'s min corner, if the slot is in range (live
    /// or not).
    #[inline(always)]
    fn first_cell(&self, slot: usize) -> Option<usize> {
        let [x1, y1, ..] = self.records.get(slot)?.cells;
        Some(cell_at(self.rule.columns, x1.into(), y1.into()))
    }

    /// Where slot `slot`'s element goes in the runs.
    #[inline(always)]
    fn filing(&self, slot: usize) -> Filing {
        let (Some(&stamp), Some(record)) = (self.stamps.get(slot), self.records.get(slot)) else {
            return Filing::None;
        };
        let Some(handle) = live_handle(slot as u32, stamp) else {
            return Filing::None;
        };
        let span = Span::unpack(record.cells);
        match self.rule.filed(&span, &record.rect) {
            Filed::Small(cell) => Filing::Small {
                cell,
                rect: record.rect,
                handle,
            },
            Filed::Mid => Filing::Mid(span.cells() as usize),
            Filed::Big => Filing::None,
        }
    }
}

/// Where the sort files an element, by its cells and box: the one rule of the
/// count, the fill, and the moves that keep the counts ([`Grid::keep_counts`]).
#[derive(Clone, Copy)]
pub(crate) struct FilingRule {
    /// [`Packed::small`].
    small: [f32; 2],
    columns: usize,
    cells: usize,
}

/// Where an element goes in the runs.
#[derive(Clone, Copy, PartialEq)]
enum Filed {
    /// Once, in the small run of this cell (its min corner's).
    Small(usize),
    /// In the medium runs of every cell it meets.
    Mid,
    /// Nowhere: the big list holds it.
    Big,
}

impl FilingRule {
    /// Where an element of cells `span` and box `rect` goes.
    #[inline(always)]
    fn filed(&self, span: &Span, rect: &Rect) -> Filed {
        if is_big_among(self.cells, span) {
            Filed::Big
        } else if is_small(&self.small, rect) {
            Filed::Small(cell_at(self.columns, span.x1, span.y1))
        } else {
            Filed::Mid
        }
    }

    /// [`move_record`], noting in `changes` what the move does to the sort's
    /// counts: a small element that changes cells moves its count; one that
    /// joins or leaves the small runs (grown past a cell, or made big or not
    /// by its cells) breaks them, and the sort counts afresh. Medium and big
    /// elements are not counted, so their moves between the two are nothing.
    #[inline(always)]
    pub fn move_record(
        &self,
        axes: (&Axis, &Axis),
        record: &mut Slot,
        slot: u32,
        rect: Rect,
        changes: &mut CountChanges,
    ) -> Option<Move> {
        let before = record.rect;
        let moved = move_record(axes, record, slot, rect);
        match moved {
            // The same cells, so filed as before unless its box changed size
            // class (a big element's too, needlessly: the common move stays
            // clear of the rule's other steps).
            None => {
                changes.broken |= is_small(&self.small, &before) != is_small(&self.small, &rect)
            }
            Some(Move { from, to, .. }) => {
                match (self.filed(&from, &before), self.filed(&to, &rect)) {
                    (Filed::Small(from), Filed::Small(to)) if from != to => {
                        changes.moved.push([from as u32, to as u32]);
                    }
                    (Filed::Small(_), Filed::Small(_)) => {}
                    (Filed::Small(_), _) | (_, Filed::Small(_)) => changes.broken = true,
                    _ => {}
                }
            }
        }
        moved
    }
}

/// The last sort's counts, kept ([`Grid::keep_counts`]): only it makes them,
/// and [`pack_cells_in`](Grid::pack_cells_in) trusts them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct KeptCounts {
    /// The small elements the last sort filed (as many now: none joined or
    /// left the small runs, or the counts are broken).
    small: usize,
}

/// Counts the small elements of slots `slots` in `counts` (per cell); returns
/// how many there are: a sort's count of one part.
fn count_small(filer: &Filer<'_>, slots: core::ops::Range<usize>, counts: &mut [u32]) -> usize {
    let mut small = 0;
    for slot in slots {
        if let Filing::Small { cell, .. } = filer.filing(slot) {
            counts[cell] += 1;
            small += 1;
        }
    }
    small
}

/// The unit tests' check of kept counts: each part's equal to a fresh count.
#[cfg(test)]
fn check_kept_counts(
    filer: &Filer<'_>,
    packed: &Packed,
    parts: usize,
    range: impl Fn(usize) -> core::ops::Range<usize>,
    small: usize,
) {
    let mut total = 0;
    for part in 0..parts {
        let mut counts = vec![0u32; packed.starts.len()];
        total += count_small(filer, range(part), &mut counts);
        let kept = match part {
            0 => &packed.starts,
            _ => &packed.part_starts[part - 1],
        };
        assert_eq!(&counts, kept, "kept counts of part {part} of {parts}");
    }
    assert_eq!(total, small, "kept small elements");
}

/// What a range's moves did to the sort's counts ([`FilingRule::move_record`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct CountChanges {
    /// Small elements that changed cells: from, to.
    moved: Vec<[u32; 2]>,
    /// Whether a move changed what an element is to the sort.
    pub broken: bool,
}

impl CountChanges {
    /// None yet, the memory kept.
    pub fn clear(&mut self) {
        self.moved.clear();
        self.broken = false;
    }

    /// Moves the counts of the small elements that changed cells in `counts`
    /// (their range's, per cell). Apart from the moves: the counts are read
    /// at random, each a cache miss at a million elements, which in a tight
    /// loop overlap one another (in the moves' loop, on two threads, they
    /// took uniform-1m's moves from 8 to 15 ms).
    pub fn apply(&self, counts: &mut [u32]) {
        for &[from, to] in &self.moved {
            counts[from as usize] -= 1;
            counts[to as usize] += 1;
        }
    }
}

/// Lays the medium elements' copies out: the counting sort into cells, of
/// the medium slots gathered in one pass (`Packed::mid_list`).
fn pack_mid(filer: &Filer<'_>, packed: &mut Packed) {
    let list = &mut packed.mid_list;
    list.clear();
    list.extend(
        (0..filer.records.len() as u32)
            .filter(|&slot| matches!(filer.filing(slot as usize), Filing::Mid(_))),
    );
    let spans = list
        .iter()
        .map(|&slot| (slot, Span::unpack(filer.records[slot as usize].cells)));
    let starts = &mut packed.mid_starts;
    starts.clear();
    starts.resize(filer.rule.cells + 1, 0);
    let copies = count_into_cells(spans.clone(), filer.rule.columns, starts) as usize;
    let (rects, slots) = (&mut packed.mid_rects, &mut packed.mid_slots);
    rects.resize(copies, Rect::new(0.0, 0.0, 0.0, 0.0));
    slots.resize(copies, NONE);
    fill_cells(spans, filer.rule.columns, starts, |at, slot| {
        rects[at] = filer.records[slot as usize].rect;
        slots[at] = slot;
    });
}

/// Where a slot's element goes in the runs.
enum Filing {
    /// Nowhere: a free slot, or a big element.
    None,
    /// Once, in the small run of its min corner's cell.
    Small {
        cell: usize,
        rect: Rect,
        handle: Handle,
    },
    /// In this many medium runs, one a cell it meets.
    Mid(usize),
}

/// What a sort's fill learns of a range of slots beside the runs.
#[derive(Clone, Copy, Default)]
struct Tally {
    /// Medium copies.
    mid: usize,
    /// The widest and highest small element.
    reach: [f32; 2],
}

impl Tally {
    fn join(self, other: Tally) -> Tally {
        Tally {
            mid: self.mid + other.mid,
            reach: [
                self.reach[0].max(other.reach[0]),
                self.reach[1].max(other.reach[1]),
            ],
        }
    }
}

/// Runs `work(part, array)` on the part arrays `first, rest...` (on rayon's
/// threads when there is more than one and the feature is on), joining what
/// the parts return.
fn each_part<R: Send + Default>(
    first: &mut Vec<u32>,
    rest: &mut [Vec<u32>],
    work: impl Fn(usize, &mut [u32]) -> R + Sync + Send,
    join: impl Fn(R, R) -> R + Sync + Send,
) -> R {
    #[cfg(feature = "rayon")]
    if !rest.is_empty() {
        use rayon::prelude::*;
        return rayon::iter::once(first)
            .chain(rest.par_iter_mut())
            .enumerate()
            .map(|(part, array)| work(part, array))
            .reduce(R::default, join);
    }
    core::iter::once(first)
        .chain(rest.iter_mut())
        .enumerate()
        .map(|(part, array)| work(part, array))
        .fold(R::default(), join)
}

/// Turns each part's counts per cell (`first`, then `rest`) into its cursor:
/// the end of its section of the cell's run, the parts' sections in order
/// and the runs in cell order. With one part, these are the running sums.
fn part_cursors(first: &mut [u32], rest: &mut [Vec<u32>]) {
    if rest.is_empty() {
        return running_sums(first);
    }
    let mut end = 0u32;
    for (cell, first) in first.iter_mut().enumerate() {
        end += *first + rest.iter().map(|counts| counts[cell]).sum::<u32>();
        let mut cursor = end;
        for counts in rest.iter_mut().rev() {
            let count = counts[cell];
            counts[cell] = cursor;
            cursor -= count;
        }
        *first = cursor;
    }
}

/// A slice that many threads write at once, each at entries no other writes.
struct Scatter<'a, T> {
    start: *mut T,
    len: usize,
    _slice: core::marker::PhantomData<&'a mut [T]>,
}

// SAFETY: the writers keep to disjoint entries (`write`'s contract), as
// `&mut` sub-slices sent to threads would.
unsafe impl<T: Send> Sync for Scatter<'_, T> {}

impl<'a, T: Copy> Scatter<'a, T> {
    fn new(slice: &'a mut [T]) -> Self {
        Scatter {
            start: slice.as_mut_ptr(),
            len: slice.len(),
            _slice: core::marker::PhantomData,
        }
    }

    /// Writes `value` at `index` (panics past the end).
    ///
    /// # Safety
    /// No other thread reads or writes `index` while the scatter lives.
    #[inline(always)]
    unsafe fn write(&self, index: usize, value: T) {
        assert!(index < self.len, "scatter write out of bounds");
        // SAFETY: in bounds (above), and the caller's alone.
        unsafe { self.start.add(index).write(value) }
    }

    /// Fetches the line of entry `index` ahead (any index: a hint only).
    #[inline(always)]
    fn prefetch(&self, index: usize) {
        prefetch_address(self.start.wrapping_add(index), 1);
    }
}
