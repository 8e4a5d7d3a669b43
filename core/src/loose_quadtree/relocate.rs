//! Moving elements: one descent by the new centre, growing the boxes on its
//! path; if it ends in the element's leaf, the rectangle is written, else the
//! slot is relinked into the leaf it reached. The old path's boxes shrink at
//! the next cleanup.

use crate::loose_quadtree::LooseQuadtree;
use crate::Rect;

impl LooseQuadtree {
    pub(crate) fn relocate(&mut self, slot: u32, rect: Rect) {
        let cell = self.descend_growing(&rect);
        let s = &mut self.slots.slots[slot as usize];
        s.rect = rect;
        let old = s.leaf;
        if old != cell.node {
            self.unlink(old, slot);
            self.add_to_leaf(cell, slot);
        }
    }
}
