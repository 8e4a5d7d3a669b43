//! Removing elements: unlinking from their leaf (whose boxes shrink at the next
//! cleanup), one by one or in a sweep.

use crate::loose_quadtree::bounded::OVER_BOUND;
use crate::loose_quadtree::LooseQuadtree;
use crate::slots::{MARK, NONE};
use crate::Handle;

impl LooseQuadtree {
    pub(crate) fn remove_slot(&mut self, slot: u32) {
        let leaf = self.slots.slots[slot as usize].leaf;
        if leaf == OVER_BOUND {
            self.remove_over_bound(slot);
        } else {
            self.unlink(leaf, slot);
        }
        self.slots.free(slot);
    }

    /// Removes marked, live, distinct elements: a big batch in one sweep over
    /// every leaf's list instead of searching a list once per element
    /// (quadratic for many elements stacked in one leaf).
    pub(crate) fn remove_batch(&mut self, handles: &[Handle]) {
        if handles.len() >= 64 && handles.len() * 8 >= self.slots.live {
            self.unlink_marked();
            for &handle in handles {
                let slot = handle.slot();
                if self.slots.slots[slot as usize].leaf == OVER_BOUND {
                    self.remove_over_bound(slot);
                }
                self.slots.free(slot);
            }
        } else {
            for &handle in handles {
                self.remove_slot(handle.slot());
            }
        }
    }

    /// Unlinks every element whose slot is marked from its leaf.
    fn unlink_marked(&mut self) {
        let (slots, stamps) = (&mut self.slots.slots, &self.slots.stamps);
        for node in &mut self.nodes.nodes {
            if node.count <= 0 {
                continue; // a branch, a free node or an empty leaf
            }
            let mut previous = NONE;
            let mut at = node.first;
            while at != NONE {
                let next = slots[at as usize].next;
                if stamps[at as usize] & MARK != 0 {
                    node.count -= 1;
                    if previous == NONE {
                        node.first = next;
                    } else {
                        slots[previous as usize].next = next;
                    }
                } else {
                    previous = at;
                }
                at = next;
            }
        }
    }

    /// Takes a slot out of a leaf's list.
    pub(crate) fn unlink(&mut self, leaf: u32, slot: u32) {
        let slots = &mut self.slots.slots;
        let next = slots[slot as usize].next;
        let node = &mut self.nodes.nodes[leaf as usize];
        node.count -= 1;
        if node.first == slot {
            node.first = next;
            return;
        }
        let mut at = node.first;
        while at != NONE {
            let after = slots[at as usize].next;
            if after == slot {
                slots[at as usize].next = next;
                return;
            }
            at = after;
        }
        debug_assert!(false, "slot {slot} missing from leaf {leaf}");
    }
}
