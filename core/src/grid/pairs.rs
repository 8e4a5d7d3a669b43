//! Every overlapping pair: cell by cell, each pair in the one cell that owns
//! the top-left corner of its intersection; then the big elements.

use core::ops::ControlFlow;

use crate::grid::Grid;
use crate::links::list_pairs;
use crate::slots::NONE;
use crate::Handle;

impl Grid {
    /// The pairs among the elements in cells, then those with a big element.
    pub(crate) fn all_pairs<F>(&self, mut visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
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
        let links = &self.links.links;
        let columns = self.columns();
        for cy in rows {
            let row = self.cell_index(0, cy);
            for cx in 0..columns {
                let head = self.cells[row + cx as usize];
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
