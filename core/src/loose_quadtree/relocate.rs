//! Moving elements from where they are: up from the element's leaf to the
//! first node that owns the new centre (usually the leaf itself), growing the
//! boxes above it that do not hold the new rectangle, then down from there by
//! the centre. If that ends in the element's leaf, only the rectangle is
//! written; else the slot is relinked into the leaf it reached. The old
//! path's boxes shrink at the next cleanup.

use crate::index::raw::PREFETCH_AHEAD;
use crate::loose_quadtree::bounded::OVER_BOUND;
use crate::loose_quadtree::LooseQuadtree;
use crate::rect::{centre, holds, union};
use crate::slots::prefetch;
use crate::{Handle, Rect};

impl LooseQuadtree {
    pub(crate) fn move_element(&mut self, slot: u32, rect: Rect) {
        let old = self.slots.slots[slot as usize].leaf;
        if old == OVER_BOUND || self.is_over_bound(&rect) {
            return self.relocate_over_bound(slot, rect);
        }
        let (x, y) = (centre(rect.x1, rect.x2), centre(rect.y1, rect.y2));
        let mut cell = self.families.cell(old);
        while cell.node != 0 && !self.lines.region(&cell).owns(&[x, y]) {
            cell = cell.parent(self.families.parent(cell.node));
        }
        if cell.node != 0 {
            self.grow_ancestors(cell.node, &rect);
        }
        let leaf = self.descend_growing(cell, &rect);
        #[cfg(test)]
        crate::index::finish_moves::panic_if_told(&rect);
        self.slots.slots[slot as usize].rect = rect;
        if old != leaf.node {
            self.unlink(old, slot);
            self.add_to_leaf(leaf, slot);
        }
    }

    /// Grows the boxes above `node` to hold `rect`, up to the first that
    /// already does (the boxes above it hold it too).
    fn grow_ancestors(&mut self, mut node: u32, rect: &Rect) {
        while node != 0 {
            node = self.families.parent(node);
            let parent = &mut self.nodes.nodes[node as usize];
            if holds(&parent.rect, rect) {
                return;
            }
            parent.rect = union(&parent.rect, rect);
        }
    }

    /// Before a move in a batch: the slot of the handle 32 ahead, then the
    /// leaf (and its family entry) of the handle 16 ahead, whose slot is in
    /// the cache by then. Moves come in the caller's order, slots lie in
    /// Z-order: without this each move waits for three misses in a row.
    pub(crate) fn prefetch_move(&self, handles: &[Handle], _rects: &[Rect], index: usize) {
        if let Some(&ahead) = handles.get(index + PREFETCH_AHEAD) {
            self.slots.prefetch(ahead);
        }
        let Some(&near) = handles.get(index + PREFETCH_AHEAD / 2) else {
            return;
        };
        if let Some(slot) = self.slots.slots.get(near.slot() as usize) {
            if let Some(leaf) = self.nodes.nodes.get(slot.leaf as usize) {
                prefetch(leaf);
            }
            if let Some(family) = self
                .families
                .parents
                .get((slot.leaf as usize).wrapping_sub(1) / 4)
            {
                prefetch(family);
            }
        }
    }
}
