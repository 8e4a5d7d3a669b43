//! Moving elements: a move whose centre stays in its loose cell writes the
//! rectangle and grows the cell's box if needed; otherwise the slot is relinked
//! into the cell owning the new centre. The old cell's box shrinks at the next
//! cleanup. Moves between small and big switch the element's list.

use crate::index::raw::PREFETCH_AHEAD;
use crate::loose_grid::{centre, LooseGrid};
use crate::slots::prefetch;
use crate::{Handle, Rect};

impl LooseGrid {
    pub(crate) fn move_element(&mut self, slot: u32, rect: Rect) {
        let old = self.slots.slots[slot as usize].rect;
        match (self.is_big(&old), self.is_big(&rect)) {
            (false, false) => {
                // The old centre's cell, then whether it still owns the new
                // centre: two comparisons in the common case.
                let (old_x, old_y) = (centre(old.x1, old.x2), centre(old.y1, old.y2));
                let (new_x, new_y) = (centre(rect.x1, rect.x2), centre(rect.y1, rect.y2));
                let (cx, cy) = (self.loose_x.cell(old_x), self.loose_y.cell(old_y));
                let nx = if self.loose_x.owns(cx, new_x) {
                    cx
                } else {
                    self.loose_x.cell(new_x)
                };
                let ny = if self.loose_y.owns(cy, new_y) {
                    cy
                } else {
                    self.loose_y.cell(new_y)
                };
                let (from, to) = (cy * self.columns + cx, ny * self.columns + nx);
                self.slots.slots[slot as usize].rect = rect;
                if from != to {
                    self.unlink(from, slot);
                    #[cfg(test)]
                    crate::index::finish_moves::panic_if_told(&rect);
                    self.push_in_order(to, slot);
                }
                self.grow(to, &rect);
            }
            (true, true) => self.slots.slots[slot as usize].rect = rect,
            (true, false) => {
                self.big.remove(slot);
                self.slots.slots[slot as usize].rect = rect;
                let cell = self.home(&rect);
                self.push_in_order(cell, slot);
                self.grow(cell, &rect);
            }
            (false, true) => {
                self.unlink(self.home(&old), slot);
                self.slots.slots[slot as usize].rect = rect;
                self.big.add(slot);
            }
        }
    }
}

impl LooseGrid {
    /// Two stages ahead of a batch of moves: the slot of a handle far ahead,
    /// and the loose cell a nearer rectangle moves into, whose box the move
    /// reads (both are random accesses when handles come in an order unrelated
    /// to space).
    #[inline]
    pub(crate) fn prefetch_move(&self, handles: &[Handle], rects: &[Rect], index: usize) {
        if let Some(&ahead) = handles.get(index + PREFETCH_AHEAD) {
            self.slots.prefetch(ahead);
        }
        if let Some(rect) = rects.get(index + PREFETCH_AHEAD / 2) {
            if let Some(cell) = self.cells.get(self.home(rect) as usize) {
                prefetch(cell);
            }
        }
    }
}
