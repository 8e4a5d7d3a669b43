//! The cleanup that shrinks the loose cells' boxes to fit, and clearing.

use crate::loose_grid::{is_empty_box, union, LooseCell, LooseGrid, Span, EMPTY};
use crate::slots::NONE;
use crate::Rect;

impl LooseGrid {
    /// Shrinks every loose cell's box to fit its elements ([`EMPTY`] for a cell
    /// without any) and takes the cell off the tight cells it no longer covers.
    pub(crate) fn shrink_boxes(&mut self) {
        for cell in 0..self.cells.len() {
            // The next cell's first slots load while this one is walked.
            if let Some(next) = self.cells.get(cell + 1) {
                self.prefetch_list(next.head);
            }
            let LooseCell { rect: old, head } = self.cells[cell];
            let mut fit = EMPTY;
            let mut at = head;
            while at != NONE {
                let slot = &self.slots.slots[at as usize];
                fit = union(&fit, &slot.rect);
                at = slot.next;
            }
            if fit != old {
                self.cells[cell].rect = fit;
                self.unlist(cell as u32, &old, &fit);
            }
        }
    }

    /// Takes a loose cell off the tight cells box `old` covers and the smaller
    /// box `fit` ([`EMPTY`] or not) does not.
    fn unlist(&mut self, cell: u32, old: &Rect, fit: &Rect) {
        let empty = is_empty_box(fit);
        if !empty && self.same_span(old, fit) {
            return;
        }
        let span = self.span(old);
        let keep = if empty {
            None
        } else {
            Some(self.span_beside(fit, old, &span))
        };
        let Span { x1, y1, x2, y2 } = span;
        for ty in y1..=y2 {
            for tx in x1..=x2 {
                if !keep.is_some_and(|kept| kept.contains(tx, ty)) {
                    self.remove_listing(ty * self.tight_columns + tx, cell);
                }
            }
        }
    }

    /// Takes loose cell `cell` out of tight cell `tight`'s list.
    fn remove_listing(&mut self, tight: u32, cell: u32) {
        let links = &mut self.links;
        let mut previous = NONE;
        let mut link = self.tight[tight as usize];
        while link != NONE {
            let crate::links::Link { next, element } = links.links[link as usize];
            if element == cell {
                if previous == NONE {
                    self.tight[tight as usize] = next;
                } else {
                    links.links[previous as usize].next = next;
                }
                links.free(link);
                return;
            }
            previous = link;
            link = next;
        }
        debug_assert!(false, "loose cell {cell} missing from tight cell {tight}");
    }

    /// Removes every element (all handles go stale) and empties every cell;
    /// keeps the memory for reuse.
    pub(crate) fn reset(&mut self) {
        self.slots.free_all();
        self.cells.fill(LooseCell::VOID);
        self.tight.fill(NONE);
        self.links.reset();
        self.big.clear();
    }
}
