//! The pair walk: the pairs within each leaf, then the pairs across each two
//! leaves whose boxes meet, each two leaves taken once (from the one with the
//! smaller node index).

use core::ops::ControlFlow;

use crate::loose_quadtree::LooseQuadtree;
use crate::rect::meets;
use crate::slots::NONE;
use crate::Handle;

impl LooseQuadtree {
    /// Every intersecting pair, each once.
    pub(crate) fn all_pairs<F>(&self, mut visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        let everything = self.nodes.nodes[0].rect;
        self.leaves_meeting(&everything, |leaf| {
            let node = self.nodes.nodes[leaf as usize];
            if node.count == 0 {
                return ControlFlow::Continue(());
            }
            self.pairs_within(node.first, &mut visit)?;
            // Two elements of different leaves that meet lie in boxes that
            // meet, so a descent with this leaf's box reaches the other leaf.
            self.leaves_meeting(&node.rect, |other| {
                if other <= leaf {
                    return ControlFlow::Continue(());
                }
                self.pairs_across(leaf, other, &mut visit)
            })
        })
    }

    /// The pairs among one leaf's list.
    fn pairs_within<F>(&self, first: u32, visit: &mut F) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        let slots = &self.slots.slots;
        let mut a = first;
        while a != NONE {
            let slot_a = &slots[a as usize];
            let mut b = slot_a.next;
            while b != NONE {
                let slot_b = &slots[b as usize];
                if meets(&slot_a.rect, &slot_b.rect) {
                    visit(self.slots.handle(a), self.slots.handle(b))?;
                }
                b = slot_b.next;
            }
            a = slot_a.next;
        }
        ControlFlow::Continue(())
    }

    /// The pairs of an element of leaf `one` and one of leaf `other`: only
    /// the elements of `other` meeting `one`'s box are tested against `one`'s.
    fn pairs_across<F>(&self, one: u32, other: u32, visit: &mut F) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        let slots = &self.slots.slots;
        let (one, other) = (
            self.nodes.nodes[one as usize],
            self.nodes.nodes[other as usize],
        );
        let mut b = other.first;
        while b != NONE {
            let slot_b = &slots[b as usize];
            if meets(&slot_b.rect, &one.rect) {
                let mut a = one.first;
                while a != NONE {
                    let slot_a = &slots[a as usize];
                    if meets(&slot_a.rect, &slot_b.rect) {
                        visit(self.slots.handle(a), self.slots.handle(b))?;
                    }
                    a = slot_a.next;
                }
            }
            b = slot_b.next;
        }
        ControlFlow::Continue(())
    }
}
