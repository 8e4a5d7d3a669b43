//! Removing elements: unlinking from their leaves, one by one or in a sweep.

use crate::dimension::Dimension;
use crate::flat_tree::nodes::home_leaves;
use crate::flat_tree::{FlatTree, Slot};
use crate::links::Link;
use crate::slots::{MARK, NONE};
use crate::tree_lines::{Cell, Stack};
use crate::Handle;

impl<D: Dimension> FlatTree<D> {
    pub(crate) fn remove_slot(&mut self, slot: u32) {
        let rect = self.slots.slots[slot as usize].rect;
        self.unlink(slot, &rect);
        self.slots.free(slot);
    }

    /// Removes marked, live, distinct elements: a big batch in one sweep over
    /// every leaf, which drops the marked elements' links, instead of searching
    /// each leaf's list once per element (quadratic for many elements stacked
    /// in one leaf).
    pub(crate) fn remove_batch(&mut self, handles: &[Handle]) {
        if handles.len() >= 64 && handles.len() * 8 >= self.slots.live {
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

    /// Unlinks every element whose slot is marked from every leaf.
    pub(crate) fn unlink_marked(&mut self) {
        for leaf in 0..self.nodes.nodes.len() {
            if self.nodes.nodes[leaf].count <= 0 {
                continue; // a branch, a free node or an empty leaf
            }
            let mut previous = NONE;
            let mut link = self.nodes.nodes[leaf].first;
            while link != NONE {
                let Link { next, element } = self.links.links[link as usize];
                if self.slots.stamps[element as usize] & MARK != 0 {
                    if previous == NONE {
                        self.nodes.nodes[leaf].first = next;
                    } else {
                        self.links.links[previous as usize].next = next;
                    }
                    self.nodes.nodes[leaf].count -= 1;
                    self.links.free_counted(link);
                } else {
                    previous = link;
                }
                link = next;
            }
        }
    }

    /// Unlinks the element in `slot` from every leaf `rect` (its current
    /// rectangle) meets.
    pub(crate) fn unlink(&mut self, slot: u32, rect: &D::Bounds) {
        self.unlink_from(Cell::ROOT, slot, rect);
    }

    /// [`unlink`](FlatTree::unlink) below `start`, which holds all its leaves.
    pub(crate) fn unlink_from(&mut self, start: Cell<D>, slot: u32, rect: &D::Bounds) {
        let Slot { place, home, .. } = self.slots.slots[slot as usize];
        if home != NONE {
            // The element's leaves are known: no descent.
            for leaf in home_leaves::<D>(place, home, &self.nodes.nodes) {
                self.unlink_from_leaf(leaf, slot);
            }
            return;
        }
        let (cell, node, mask) = self.descend_from(start, rect);
        if mask == 0 {
            self.unlink_from_leaf(cell.node, slot);
            return;
        }
        let mut stack = Stack::<D>::new();
        self.push_children(&mut stack, &cell, node.first, mask);
        while let Some(cell) = stack.pop() {
            let node = self.nodes.nodes[cell.node as usize];
            if node.is_branch() {
                self.push_children(&mut stack, &cell, node.first, self.mask_at(&cell, rect));
            } else {
                self.unlink_from_leaf(cell.node, slot);
            }
        }
    }

    pub(crate) fn unlink_from_leaf(&mut self, leaf: u32, slot: u32) {
        let mut previous = NONE;
        let mut link = self.nodes.nodes[leaf as usize].first;
        while link != NONE {
            let Link { next, element } = self.links.links[link as usize];
            if element == slot {
                if previous == NONE {
                    self.nodes.nodes[leaf as usize].first = next;
                } else {
                    self.links.links[previous as usize].next = next;
                }
                self.nodes.nodes[leaf as usize].count -= 1;
                self.links.free_counted(link);
                return;
            }
            previous = link;
            link = next;
        }
        debug_assert!(false, "element {slot} missing from leaf {leaf}");
    }
}
