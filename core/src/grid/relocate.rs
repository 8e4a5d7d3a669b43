//! Moving elements: a move that stays in the same cells only writes the
//! rectangle; otherwise the element leaves the cells it no longer meets and
//! joins the new ones, or moves between the cells and the big list.

use crate::grid::Grid;
use crate::Rect;

impl Grid {
    pub(crate) fn relocate(&mut self, slot: u32, rect: Rect) {
        let from = self.span_at(slot);
        // The common case: the new rectangle's edges lie in the same border
        // cells, so it meets the same cells (four pairs of comparisons).
        let (ax, ay) = (&self.axis_x, &self.axis_y);
        if ax.owns(from.x1, rect.x1)
            & ax.owns(from.x2, rect.x2)
            & ay.owns(from.y1, rect.y1)
            & ay.owns(from.y2, rect.y2)
        {
            self.slots.slots[slot as usize].rect = rect;
            return;
        }
        let to = self.span(&rect);
        let record = &mut self.slots.slots[slot as usize];
        record.rect = rect;
        record.cells = to.pack();
        match (self.is_big(&from), self.is_big(&to)) {
            (true, true) => {}
            (true, false) => {
                self.big.remove(slot);
                self.link_cells(slot, to, None);
            }
            (false, true) => {
                self.unlink_cells(slot, from, None);
                self.big.add(slot);
            }
            (false, false) => {
                self.unlink_cells(slot, from, Some(to));
                self.link_cells(slot, to, Some(from));
            }
        }
    }
}
