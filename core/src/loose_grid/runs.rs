//! The loose cells laid out contiguously: each small element's box (as
//! `[x1, y1, -x2, -y2]`) and handle, loose cell by loose cell, written by the
//! walk of every cell's list that `cleanup` makes anyway to shrink the boxes.
//! Queries then read a run of boxes per loose cell instead of following the
//! cell's list from slot to slot (`next`, a dependent load each).
//!
//! The lists stay the truth: every change marks the copy stale, and it is laid
//! out again only when enough queries came since the last `cleanup` (as the
//! grid's runs, [`Demand`](crate::grid::packed::Demand)).

use core::ops::ControlFlow;

use arrayvec::ArrayVec;

use crate::grid::packed::{scan_entries, Entry, NOTHING, WINDOW};
use crate::links::Link;
use crate::loose_grid::LooseGrid;
use crate::slots::{prefetch_lines, NONE};
use crate::{Handle, Rect};

/// Loose cells a query collects before scanning their runs.
const FOUND: usize = 16;

/// The contiguous copy of the loose cells (see the module).
#[derive(Clone, Debug, Default)]
pub(crate) struct Runs {
    /// Whether the copy matches the lists; cleared by every change.
    pub fresh: bool,
    /// Loose cell `c`'s elements are `starts[c]..starts[c + 1]` (one more than the cells).
    pub starts: Vec<u32>,
    /// The small elements, cell by cell, each cell's in its list's (slot)
    /// order; then [`WINDOW`] entries that meet nothing.
    pub entries: Vec<Entry>,
}

impl Runs {
    /// Marks the copy stale.
    #[inline]
    pub fn stale(&mut self) {
        self.fresh = false;
    }

    /// Loose cell `cell`'s run.
    #[inline(always)]
    fn run(&self, cell: u32) -> (usize, usize) {
        (
            self.starts[cell as usize] as usize,
            self.starts[cell as usize + 1] as usize,
        )
    }

    /// Heap bytes held.
    pub fn bytes(&self) -> usize {
        self.starts.capacity() * 4 + self.entries.capacity() * core::mem::size_of::<Entry>()
    }
}

/// Writes the runs as the cells are walked in order (see
/// [`LooseGrid::shrink_boxes`]): `begin` each cell, `push` each element.
pub(crate) struct RunWriter<'a> {
    runs: &'a mut Runs,
}

impl<'a> RunWriter<'a> {
    /// A writer of `cells` runs holding `small` elements in all: the arrays
    /// are sized once (no doubling, whose slack would double the copy's bytes).
    pub fn new(runs: &'a mut Runs, cells: usize, small: usize) -> RunWriter<'a> {
        runs.starts.clear();
        runs.starts.reserve_exact(cells + 1);
        runs.entries.clear();
        runs.entries.reserve_exact(small + WINDOW);
        RunWriter { runs }
    }

    #[inline(always)]
    pub fn begin_cell(&mut self) {
        self.runs.starts.push(self.runs.entries.len() as u32);
    }

    #[inline(always)]
    pub fn push(&mut self, r: &Rect, handle: Handle) {
        self.runs.entries.push(Entry {
            b: [r.x1, r.y1, -r.x2, -r.y2],
            handle,
        });
    }

    /// Ends the last cell and pads the runs.
    pub fn finish(self) {
        let runs = self.runs;
        runs.starts.push(runs.entries.len() as u32);
        runs.entries.extend([NOTHING; WINDOW]);
        runs.fresh = true;
    }
}

impl LooseGrid {
    /// Queries between two `cleanup`s from which laying the cells out pays:
    /// an eighth of the elements (as the grid's), and at least 8.
    #[inline(always)]
    pub(crate) fn queries_to_lay_out(&self) -> usize {
        (self.slots.live / 8).max(8)
    }

    /// Counts the queries of a call towards the next `cleanup`'s runs.
    #[inline(always)]
    pub(crate) fn note_queries(&self, queries: usize) {
        self.demand.count(queries, self.queries_to_lay_out());
    }

    /// Whether `cleanup` lays the runs out (and forgets the queries counted).
    pub(crate) fn take_demand(&mut self) -> bool {
        self.demand.take() >= self.queries_to_lay_out()
    }

    /// [`query_cells`](LooseGrid::query_cells) on the runs (fresh): the same
    /// loose cells, by the same corner rule, their runs scanned.
    #[inline]
    pub(crate) fn query_runs<F>(&self, query: &Rect, omit: u32, visit: &mut F) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        let span = self.span(query);
        let qv = [query.x2, query.y2, -query.x1, -query.y1];
        let runs = &self.runs;
        // The runs of the loose cells found are scanned after the tight
        // cells, their first lines asked for meanwhile.
        let mut found = ArrayVec::<u32, FOUND>::new();
        for ty in span.y1..=span.y2 {
            let row = ty * self.tight_columns;
            for tx in span.x1..=span.x2 {
                let mut link = self.tight[(row + tx) as usize];
                while link != NONE {
                    let Link { next, element } = self.links.links[link as usize];
                    link = next;
                    let b = &self.cells[element as usize].rect;
                    // The corner rule of `query_cells`.
                    if !b.intersects(query)
                        || (tx != span.x1 && !self.tight_x.owns(tx, b.x1.max(query.x1)))
                        || (ty != span.y1 && !self.tight_y.owns(ty, b.y1.max(query.y1)))
                    {
                        continue;
                    }
                    let (start, end) = runs.run(element);
                    if start == end {
                        continue;
                    }
                    prefetch_lines(&runs.entries[start], 2);
                    if found.is_full() {
                        self.scan_runs(&found, &qv, omit, visit)?;
                        found.clear();
                    }
                    found.push(element);
                }
            }
        }
        self.scan_runs(&found, &qv, omit, visit)
    }

    #[inline]
    fn scan_runs<F>(
        &self,
        cells: &[u32],
        qv: &[f32; 4],
        omit: u32,
        visit: &mut F,
    ) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        for &cell in cells {
            let (start, end) = self.runs.run(cell);
            scan_entries(&self.runs.entries, start, end, qv, omit, visit)?;
        }
        ControlFlow::Continue(())
    }

    /// [`query_at`](LooseGrid::query_at)'s small elements on the runs (fresh).
    #[inline]
    pub(crate) fn query_at_runs<F>(
        &self,
        [x, y]: [f32; 2],
        omit: u32,
        visit: &mut F,
    ) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        let (tx, ty) = (self.tight_x.cell(x), self.tight_y.cell(y));
        let qv = [x, y, -x, -y];
        let mut link = self.tight[(ty * self.tight_columns + tx) as usize];
        while link != NONE {
            let Link { next, element } = self.links.links[link as usize];
            link = next;
            if self.cells[element as usize].rect.contains_point(x, y) {
                let (start, end) = self.runs.run(element);
                scan_entries(&self.runs.entries, start, end, &qv, omit, visit)?;
            }
        }
        ControlFlow::Continue(())
    }

    /// The runs' invariants, when fresh: each live small element once, in
    /// its home cell's run, with its box and current handle.
    pub(crate) fn check_runs(&self) -> Result<(), String> {
        let runs = &self.runs;
        if !runs.fresh {
            return Ok(());
        }
        if runs.starts.len() != self.cells.len() + 1 {
            return Err(format!(
                "runs: {} starts for {} loose cells",
                runs.starts.len(),
                self.cells.len()
            ));
        }
        let mut seen = 0usize;
        for cell in 0..self.cells.len() as u32 {
            let (start, end) = runs.run(cell);
            if start > end || end + WINDOW > runs.entries.len() {
                return Err(format!(
                    "runs: cell {cell}'s run {start}..{end} out of order"
                ));
            }
            for entry in &runs.entries[start..end] {
                let slot = entry.handle.slot();
                let record = self
                    .slots
                    .slots
                    .get(slot as usize)
                    .filter(|_| self.slots.handle(slot) == entry.handle && self.slots.is_live(slot))
                    .ok_or_else(|| {
                        format!("runs: cell {cell} holds a stale handle {:?}", entry.handle)
                    })?;
                let r = &record.rect;
                if self.is_big(r) || self.home(r) != cell || entry.b != [r.x1, r.y1, -r.x2, -r.y2] {
                    return Err(format!(
                        "runs: slot {slot} in cell {cell}'s run does not match its record"
                    ));
                }
                seen += 1;
            }
        }
        let small = self.slots.live - self.big.len();
        if seen != small {
            return Err(format!("runs: {seen} entries for {small} small elements"));
        }
        Ok(())
    }
}
