//! Adding elements: linking into every cell of the rectangle, or into the big
//! list; big batches in cell order.

use crate::batch_order::{insert_by_key, SORTED_BATCH};
use crate::grid::{Grid, Span};
use crate::slots::prefetch;
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
        let slot = self.slots.alloc(rect, id);
        self.slots.slots[slot as usize].cells = span.pack();
        self.link(slot, span);
        self.slots.handle(slot)
    }

    /// Adds a checked batch; big batches in cell order.
    pub(crate) fn insert_batch(&mut self, rects: &[Rect], ids: &[u32], handles: &mut Vec<Handle>) {
        self.relist();
        self.slots.reserve(rects.len());
        handles.reserve(rects.len());
        if rects.len() < SORTED_BATCH {
            for (&rect, &id) in rects.iter().zip(ids) {
                handles.push(self.insert_one(rect, id));
            }
            return;
        }
        // Insert in the order the pair walk meets the elements (row by row, by
        // the cell of their top-left corner), so that elements close in space
        // get slots close in memory: walks over the cells then read the slot
        // array nearly in order. Big elements, in no cell, come last.
        let spans: Vec<Span> = rects.iter().map(|rect| self.span(rect)).collect();
        let cells = self.cells.len();
        let keys: Vec<u32> = spans
            .iter()
            .map(|span| {
                if self.is_big(span) {
                    cells as u32
                } else {
                    self.cell_index(span.x1, span.y1) as u32
                }
            })
            .collect();
        insert_by_key(
            &keys,
            cells as u64 + 1,
            (rects, ids),
            handles,
            |at| prefetch(&spans[at]),
            |at, rect, id| self.insert_in(rect, id, spans[at]),
        );
        // A bulk build (`from_many`, a static world) is laid out at once.
        self.pack_cells();
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
