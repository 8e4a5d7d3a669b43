//! Queries: by rectangle and by point, descending into every child whose box
//! meets the query.

use core::ops::ControlFlow;

use arrayvec::ArrayVec;

use crate::loose_quadtree::LooseQuadtree;
use crate::quadtree::lines::STACK_CAPACITY;
use crate::rect::meets;
use crate::slots::NONE;
use crate::{Handle, Rect};

/// The explicit stack of a walk over node indices.
pub(crate) type NodeStack = ArrayVec<u32, STACK_CAPACITY>;

impl LooseQuadtree {
    /// Elements meeting the checked `rect`, each once, but slot `omit`.
    pub(crate) fn query_rect<F>(&self, rect: Rect, omit: u32, mut visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        self.query_in_tree(&rect, omit, &mut visit)?;
        self.query_over_bound(&rect, omit, &mut visit)
    }

    /// Elements of the tree meeting `rect` (those over the bound left out).
    pub(crate) fn query_in_tree<F>(&self, rect: &Rect, omit: u32, mut visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        self.leaves_meeting(rect, |leaf| {
            let mut at = self.nodes.nodes[leaf as usize].first;
            while at != NONE {
                let slot = &self.slots.slots[at as usize];
                if at != omit && meets(&slot.rect, rect) {
                    visit(self.slots.handle(at))?;
                }
                at = slot.next;
            }
            ControlFlow::Continue(())
        })
    }

    /// Elements holding the finite point `(x, y)`, but slot `omit`.
    pub(crate) fn query_at<F>(&self, [x, y]: [f32; 2], omit: u32, visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        self.query_rect(Rect::point(x, y), omit, visit)
    }

    /// Calls `leaf` with every leaf whose box meets `rect` (closed), in
    /// depth-first order, children in quadrant order.
    #[inline]
    pub(crate) fn leaves_meeting<L>(&self, rect: &Rect, mut leaf: L) -> ControlFlow<()>
    where
        L: FnMut(u32) -> ControlFlow<()>,
    {
        let nodes = &self.nodes.nodes;
        if !meets(&nodes[0].rect, rect) {
            return ControlFlow::Continue(());
        }
        let mut stack = NodeStack::new();
        stack.push(0);
        while let Some(index) = stack.pop() {
            let node = &nodes[index as usize];
            if !node.is_branch() {
                leaf(index)?;
                continue;
            }
            for child in (node.first..node.first + 4).rev() {
                if meets(&nodes[child as usize].rect, rect) {
                    stack.push(child);
                }
            }
        }
        ControlFlow::Continue(())
    }
}
