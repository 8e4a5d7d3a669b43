//! Moving elements: a move that stays in the same cells only writes the
//! rectangle; otherwise the element leaves the cells it no longer meets and
//! joins the new ones, or moves between the cells and the big list.

use crate::grid::Grid;
use crate::Rect;

impl Grid {
    pub(crate) fn relocate(&mut self, slot: u32, rect: Rect) {
        let old = self.slots.slots[slot as usize].rect;
        let to = self.span(&rect);
        self.slots.slots[slot as usize].rect = rect;
        // The common case: the old rectangle's corners lie in the new one's
        // border cells, so both meet the same cells (four comparisons of pairs
        // of borders, instead of computing the old rectangle's cells).
        let (ax, ay) = (&self.axis_x, &self.axis_y);
        if ax.owns(to.x1, old.x1)
            & ax.owns(to.x2, old.x2)
            & ay.owns(to.y1, old.y1)
            & ay.owns(to.y2, old.y2)
        {
            return;
        }
        let from = self.span(&old);
        match (from.is_big(), to.is_big()) {
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
