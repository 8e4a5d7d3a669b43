//! Adding elements: linking into every cell of the rectangle, or into the big
//! list; big batches laid out as runs at once.

use crate::batch_order::SORTED_BATCH;
use crate::grid::{Grid, Span};
use crate::{Handle, Rect};

impl Grid {
    /// Adds an element: room checked, `rect` valid.
    pub(crate) fn insert_one(&mut self, rect: Rect, id: u32) -> Handle {
        self.relist();
        self.insert_in(rect, id, self.span(&rect))
    }

    /// Adds an element whose rectangle meets the cells of `span`.
    #[inline]
    fn insert_in(&mut self, rect: Rect, id: u32, span: Span) -> Handle {
        self.packed.stale();
        let slot = self.record(rect, id, span);
        self.link(slot, span);
        self.slots.handle(slot)
    }

    /// A new slot holding `rect`, `id` and its cells `span` (linked nowhere).
    #[inline]
    fn record(&mut self, rect: Rect, id: u32, span: Span) -> u32 {
        let slot = self.slots.alloc(rect, id);
        self.slots.slots[slot as usize].cells = span.pack();
        slot
    }

    /// Adds a checked batch, in the batch's order. A big batch writes the slot
    /// records and the big list alone and lays the runs out at once, leaving
    /// the lists to be rebuilt when a change needs them, as a big batch of
    /// moves does ([`unlist`](Grid::unlist)).
    ///
    /// The slots follow the batch, not space. Queries and pair walks read the
    /// runs, which the sort lays out in cell order whatever the slots' order;
    /// what reads the slots themselves are moves and queries by handle, which
    /// come in the caller's order (an agent loop's), and read memory in order
    /// when the slots are in it. Slots in cell order read faster only until
    /// the elements move: `docs/design.md` has the measurements.
    pub(crate) fn insert_batch(&mut self, rects: &[Rect], ids: &[u32], handles: &mut Vec<Handle>) {
        self.slots.reserve(rects.len());
        handles.reserve(rects.len());
        if rects.len() < SORTED_BATCH {
            self.relist();
            for (&rect, &id) in rects.iter().zip(ids) {
                handles.push(self.insert_in(rect, id, self.span(&rect)));
            }
            return;
        }
        self.packed.stale();
        for (&rect, &id) in rects.iter().zip(ids) {
            let span = self.span(&rect);
            let slot = self.record(rect, id, span);
            if self.is_big(&span) {
                self.big.add(slot);
            }
            handles.push(self.slots.handle(slot));
        }
        // A bulk build (`from_many`, a static world) is laid out at once.
        self.unlist(1, None);
    }

    /// Links the element in `slot` into the cells of `span`, or into the big
    /// list if the span is big.
    #[inline]
    pub(crate) fn link(&mut self, slot: u32, span: Span) {
        if self.is_big(&span) {
            self.big.add(slot);
        } else {
            self.link_cells(slot, span, None);
        }
    }

    /// Links the element in `slot` into the cells of the small `span`, but those
    /// of `skip` (cells it is linked in already).
    #[inline]
    pub(crate) fn link_cells(&mut self, slot: u32, span: Span, skip: Option<Span>) {
        for cy in span.y1..=span.y2 {
            for cx in span.x1..=span.x2 {
                if skip.is_some_and(|skip| skip.contains(cx, cy)) {
                    continue;
                }
                let cell = self.cell_index(cx, cy);
                self.cells[cell] = self.links.alloc(slot, self.cells[cell]);
            }
        }
    }
}
