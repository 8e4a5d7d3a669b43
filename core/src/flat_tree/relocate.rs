//! Moving elements: a move that stays in the same leaves only writes the
//! box; otherwise the element is unlinked and linked below where the old
//! and new boxs' descents part.

use crate::dimension::Dimension;
use crate::flat_tree::nodes::LeafSet;
use crate::flat_tree::FlatTree;
use crate::index::finish_moves::refile_around_slots;
use crate::slots::NONE;
use crate::tree_lines::{mask, Cell, Place, Stack, NO_PLACE};

impl<D: Dimension> FlatTree<D> {
    #[inline(always)]
    pub(crate) fn move_element(&mut self, slot: u32, rect: D::Bounds) {
        let record = &mut self.slots.slots[slot as usize];
        // The common case, without a descent: still inside the same leaves.
        if record.place != NO_PLACE && self.lines.still_in(record.place, &rect) {
            record.rect = rect;
            return;
        }
        self.refile(slot, rect);
    }

    /// Links every live element anew into a tree of one empty leaf, after a
    /// panic left the tree unknown (`index::finish_moves`).
    pub(crate) fn refile_all(&mut self) {
        refile_around_slots(self, Self::reset, |tree, slot, rect| tree.link(slot, &rect));
    }

    /// [`move_element`](Self::move_element)'s moves that may change leaves.
    /// Kept out of line: its descent stacks make a frame of kilobytes that
    /// the common move, which only writes the box, should not set up.
    #[inline(never)]
    fn refile(&mut self, slot: u32, rect: D::Bounds) {
        let current = self.slots.slots[slot as usize];
        debug_assert!(current.place == NO_PLACE || !self.lines.still_in(current.place, &rect));
        // An element with a place has left it (`move_element` checked); one
        // without may still lie in the same leaves.
        if current.place == NO_PLACE {
            if let Some((place, home)) = self.same_leaves(&current.rect, &rect) {
                let slot = &mut self.slots.slots[slot as usize];
                slot.rect = rect;
                slot.place = place;
                slot.home = home;
                return;
            }
        }
        // Down together while both boxs pick the same one child; the old
        // links and the new ones are all below where the two walks part.
        let mut cell = Cell::<D>::ROOT;
        loop {
            let node = self.nodes.nodes[cell.node as usize];
            if !node.is_branch() {
                break;
            }
            let split = self.lines.split(&cell);
            let mask = mask::<D>(&split, &current.rect);
            if mask != self::mask::<D>(&split, &rect) || !mask.is_power_of_two() {
                break;
            }
            cell = cell.child(node.first, mask.trailing_zeros());
        }
        self.unlink_from(cell, slot, &current.rect);
        #[cfg(test)]
        crate::index::finish_moves::panic_if_told(&rect);
        self.slots.slots[slot as usize].rect = rect;
        self.link_from(cell, slot, &rect);
    }

    /// If two boxs lie in exactly the same leaves — they pick the same
    /// children at every branch on the way down — the place of those leaves.
    pub(crate) fn same_leaves(&self, a: &D::Bounds, b: &D::Bounds) -> Option<(Place, u32)> {
        let mut leaves = LeafSet::<D>::default();
        let mut stack = Stack::<D>::new();
        stack.push(Cell::ROOT);
        while let Some(cell) = stack.pop() {
            let node = self.nodes.nodes[cell.node as usize];
            if node.is_branch() {
                let split = self.lines.split(&cell);
                let mask = mask::<D>(&split, a);
                if mask != self::mask::<D>(&split, b) {
                    return None;
                }
                self.push_children(&mut stack, &cell, node.first, mask);
            } else {
                leaves.add(cell);
            }
        }
        let place = leaves.place();
        let home = match leaves.cells.as_slice() {
            [leaf] if place != NO_PLACE => leaf.node,
            _ => NONE,
        };
        Some((place, home))
    }
}
