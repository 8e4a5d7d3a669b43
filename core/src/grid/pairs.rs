//! Every overlapping pair: cell by cell, each pair in the one cell that owns
//! the top-left corner of its intersection; then the big elements.

use core::ops::ControlFlow;

use crate::grid::Grid;
use crate::links::list_pairs;
use crate::slots::{prefetch, NONE};
use crate::Handle;

/// How many cells ahead of the pair walk [`Grid::prefetch_cells_ahead`] starts.
const WALK_AHEAD: usize = 24;

impl Grid {
    /// Walks the cells row by row and tests the elements of each cell against
    /// each other (no query per element, no hash set): a pair is reported only
    /// in the cell that owns the top-left corner of the two rectangles'
    /// intersection. Then each big element is tested against the cells its
    /// rectangle meets, and against the other big ones. Asks for the runs
    /// ([`note_pair_walk`](Grid::note_pair_walk)).
    pub(crate) fn all_pairs<F>(&self, mut visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        self.note_pair_walk();
        self.cell_pairs(0..self.rows(), &mut visit)?;
        self.big_pairs(&mut visit)
    }

    /// The pairs of elements linked in cells reported in rows `rows`.
    pub(crate) fn cell_pairs<F>(
        &self,
        rows: core::ops::Range<u32>,
        visit: &mut F,
    ) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        if self.packed.fresh {
            return self.run_pairs(rows, visit);
        }
        let links = &self.links.links;
        let columns = self.columns();
        let end = self.cell_index(0, rows.end);
        for cy in rows {
            let row = self.cell_index(0, cy);
            for cx in 0..columns {
                let cell = row + cx as usize;
                self.prefetch_cells_ahead(cell, end);
                let head = self.cells[cell];
                // Both elements of a pair meet the cell, so the corner of their
                // intersection lies at or before the cell's far borders: the
                // cell owns it when it lies past the near ones.
                if head != NONE && links[head as usize].next != NONE {
                    list_pairs(
                        links,
                        &self.slots,
                        head,
                        |a, b| {
                            self.axis_x.owns(cx, a.x1.max(b.x1))
                                & self.axis_y.owns(cy, a.y1.max(b.y1))
                        },
                        visit,
                    )?;
                }
            }
        }
        ControlFlow::Continue(())
    }

    /// Stages ahead of the pair walk at `cell` (cells before `end` only), each
    /// reading what the one before fetched: the first link of a cell far
    /// ahead, then a nearer cell's first element and second link, then a
    /// still nearer cell's second element and third link. The walk reads the
    /// cells in order but their links and slots anywhere, so without this
    /// nearly every list step is a cache miss.
    #[inline(always)]
    fn prefetch_cells_ahead(&self, cell: usize, end: usize) {
        let (links, slots) = (&self.links.links, &self.slots.slots);
        let head = |at: usize| self.cells[at.min(end - 1)];
        let far = head(cell + WALK_AHEAD);
        if let Some(link) = links.get(far as usize) {
            prefetch(link);
        }
        let near = head(cell + WALK_AHEAD * 2 / 3);
        if let Some(link) = links.get(near as usize) {
            if let Some(slot) = slots.get(link.element as usize) {
                prefetch(slot);
            }
            if let Some(next) = links.get(link.next as usize) {
                prefetch(next);
            }
        }
        let nearest = head(cell + WALK_AHEAD / 3);
        if let Some(link) = links.get(nearest as usize) {
            if let Some(second) = links.get(link.next as usize) {
                if let Some(slot) = slots.get(second.element as usize) {
                    prefetch(slot);
                }
                if let Some(next) = links.get(second.next as usize) {
                    prefetch(next);
                }
            }
        }
    }

    /// Each big element against the elements in cells (a query of its
    /// rectangle over the cells, or a scan of the slots when they are fewer
    /// than the cells the rectangle meets), then the big elements against each other.
    pub(crate) fn big_pairs<F>(&self, visit: &mut F) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        for &big in &self.big.slots {
            let rect = self.slots.slots[big as usize].rect;
            let handle = self.slots.handle(big);
            let span = self.span_at(big);
            let mut with_big = |other| visit(handle, other);
            if span.cells() > self.slots.slots.len() as u64 {
                // Fewer slots than cells: scanning them is cheaper.
                self.scan_slots(&rect, big, true, &mut with_big)?;
            } else if self.packed.fresh {
                self.query_runs(&rect, span, NONE, &mut with_big)?;
            } else {
                self.query_cells(&rect, span, NONE, &mut with_big)?;
            }
        }
        self.big.pairs(
            |slot| self.slots.slots[slot as usize].rect,
            |slot| self.slots.handle(slot),
            visit,
        )
    }
}
