//! The grids write-up's "uniform upper-bound size" (`docs/design.md`), as far
//! as it paid: with a `max_extent`, the elements over it (the few large ones) live apart, in a
//! plain loose quadtree of their own, so that they do not widen the boxes of
//! the nodes the many small ones share. Each such element's slot names its
//! slot in that tree, whose ids are this tree's slots.
//!
//! Its other half — boxes fixed at each cell grown by the bound, so
//! that moves never grow them and `cleanup` refits nothing — was measured and
//! left out: moves got cheaper (uniform-100k update 4.9 → 3.4 ms) but the
//! fixed boxes are much looser than refitted ones (a leaf's few agents cover
//! far less than its cell plus the bound), and the pair walk paid more than
//! that (collide 3.6 → 6.4 ms).

use core::ops::ControlFlow;

use crate::loose_quadtree::LooseQuadtree;
use crate::slots::NONE;
use crate::{Error, Handle, Rect};

/// The `leaf` of an element kept in the tree of elements over the bound
/// (its `next` is then its slot in that tree).
pub(crate) const OVER_BOUND: u32 = NONE - 1;

/// [`Error::InvalidParameter`] unless `max_extent` is positive and finite.
pub(crate) fn check_max_extent(max_extent: f32) -> Result<(), Error> {
    if max_extent.is_finite() && max_extent > 0.0 {
        Ok(())
    } else {
        Err(Error::InvalidParameter {
            name: "max_extent",
            expected: "positive and finite",
            found: max_extent.into(),
        })
    }
}

impl LooseQuadtree {
    /// Whether `rect` is over the bound (never without a `max_extent`).
    #[inline]
    pub(crate) fn is_over_bound(&self, rect: &Rect) -> bool {
        self.max_extent
            .is_some_and(|m| (rect.width() > m) | (rect.height() > m))
    }

    /// Adds an element over the bound to the inner tree.
    pub(crate) fn insert_over_bound(&mut self, slot: u32, rect: Rect) {
        let over = self.over_bound.as_mut().expect("a max_extent");
        let inner = over.insert_one(rect, slot).slot();
        let s = &mut self.slots.slots[slot as usize];
        s.leaf = OVER_BOUND;
        s.next = inner;
    }

    /// Takes an element over the bound out of the inner tree.
    pub(crate) fn remove_over_bound(&mut self, slot: u32) {
        let inner = self.slots.slots[slot as usize].next;
        let over = self.over_bound.as_mut().expect("a max_extent");
        over.remove_slot(inner);
    }

    /// A move of an element that is or becomes over the bound.
    pub(crate) fn relocate_over_bound(&mut self, slot: u32, rect: Rect) {
        let s = self.slots.slots[slot as usize];
        let now_over = self.is_over_bound(&rect);
        if s.leaf == OVER_BOUND {
            if now_over {
                self.slots.slots[slot as usize].rect = rect;
                let over = self.over_bound.as_mut().expect("a max_extent");
                over.move_element(s.next, rect);
                return;
            }
            self.remove_over_bound(slot);
            self.slots.slots[slot as usize].rect = rect;
            self.insert_in_tree(slot, rect);
        } else {
            self.unlink(s.leaf, slot);
            self.slots.slots[slot as usize].rect = rect;
            self.insert_over_bound(slot, rect);
        }
    }

    /// Elements over the bound meeting `rect`, but slot `omit`.
    pub(crate) fn query_over_bound<F>(
        &self,
        rect: &Rect,
        omit: u32,
        visit: &mut F,
    ) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        let Some(over) = &self.over_bound else {
            return ControlFlow::Continue(());
        };
        over.query_in_tree(rect, NONE, |inner| {
            let slot = over.slots.slots[inner.slot() as usize].id;
            if slot == omit {
                return ControlFlow::Continue(());
            }
            visit(self.slots.handle(slot))
        })
    }

    /// The pairs with an element over the bound: among them (the inner
    /// tree's own pair walk), then each against the tree by a query.
    pub(crate) fn pairs_over_bound<F>(&self, visit: &mut F) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        let Some(over) = &self.over_bound else {
            return ControlFlow::Continue(());
        };
        let outer = |inner: Handle| {
            self.slots
                .handle(over.slots.slots[inner.slot() as usize].id)
        };
        over.pairs_in_tree(|a, b| visit(outer(a), outer(b)))?;
        for (inner, slot) in over.slots.slots.iter().enumerate() {
            if !over.slots.is_live(inner as u32) {
                continue;
            }
            let big = self.slots.handle(slot.id);
            self.query_in_tree(&slot.rect, NONE, |small| visit(big, small))?;
        }
        ControlFlow::Continue(())
    }
}
