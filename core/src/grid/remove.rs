//! Removing elements: unlinking from their cells, one by one or in a sweep.

use crate::grid::{Grid, Span};
use crate::links::Link;
use crate::slots::{MARK, NONE};
use crate::Handle;

impl Grid {
    pub(crate) fn remove_slot(&mut self, slot: u32) {
        self.relist();
        self.packed.stale();
        self.unlink(slot, self.span_at(slot));
        self.slots.free(slot);
    }

    /// Removes marked, live, distinct elements. A large batch (64 elements or
    /// more, at least an eighth of the elements and a 64th of the number of
    /// cells) is removed in one sweep over every cell, which drops the marked
    /// elements' links, instead of searching each cell's list once per element
    /// (quadratic for many elements stacked in one cell).
    pub(crate) fn remove_batch(&mut self, handles: &[Handle]) {
        self.relist();
        self.packed.stale();
        if handles.len() >= 64
            && handles.len() * 8 >= self.slots.live
            && handles.len() * 64 >= self.cells.len()
        {
            self.unlink_marked();
            for &handle in handles {
                self.slots.free(handle.slot());
            }
        } else {
            for &handle in handles {
                self.remove_slot(handle.slot());
            }
        }
    }

    /// Unlinks every element whose slot is marked from every cell and from the
    /// big list.
    fn unlink_marked(&mut self) {
        let (links, stamps) = (&mut self.links, &self.slots.stamps);
        for head in self.cells.iter_mut() {
            let mut previous = NONE;
            let mut link = *head;
            while link != NONE {
                let Link { next, element } = links.links[link as usize];
                if stamps[element as usize] & MARK != 0 {
                    if previous == NONE {
                        *head = next;
                    } else {
                        links.links[previous as usize].next = next;
                    }
                    links.free(link);
                } else {
                    previous = link;
                }
                link = next;
            }
        }
        self.big
            .slots
            .retain(|&slot| stamps[slot as usize] & MARK == 0);
    }

    /// Unlinks the element in `slot`, of span `span`, from its cells or the big list.
    #[inline]
    pub(crate) fn unlink(&mut self, slot: u32, span: Span) {
        if self.is_big(&span) {
            self.big.remove(slot);
        } else {
            self.unlink_cells(slot, span, None);
        }
    }

    /// Unlinks the element in `slot` from the cells of the small `span`, but
    /// those of `keep`.
    #[inline]
    pub(crate) fn unlink_cells(&mut self, slot: u32, span: Span, keep: Option<Span>) {
        for cy in span.y1..=span.y2 {
            for cx in span.x1..=span.x2 {
                if keep.is_some_and(|keep| keep.contains(cx, cy)) {
                    continue;
                }
                let cell = self.cell_index(cx, cy);
                self.unlink_from_cell(cell, slot);
            }
        }
    }

    /// Takes the element's link out of one cell's list.
    fn unlink_from_cell(&mut self, cell: usize, slot: u32) {
        let mut previous = NONE;
        let mut link = self.cells[cell];
        while link != NONE {
            let Link { next, element } = self.links.links[link as usize];
            if element == slot {
                if previous == NONE {
                    self.cells[cell] = next;
                } else {
                    self.links.links[previous as usize].next = next;
                }
                self.links.free(link);
                return;
            }
            previous = link;
            link = next;
        }
        debug_assert!(false, "element {slot} missing from cell {cell}");
    }
}
