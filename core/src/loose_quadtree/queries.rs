//! Queries: by rectangle and by point, descending into every child whose box
//! meets the query.

use core::ops::ControlFlow;

use arrayvec::ArrayVec;

use crate::index::raw::SearchItem;
use crate::loose_quadtree::LooseQuadtree;
use crate::rect::meets;
use crate::slots::{prefetch, NONE};
use crate::tree_lines::STACK_CAPACITY;
use crate::{Handle, Rect};

/// Leaves a query gathers before reading their lists.
const LEAF_BATCH: usize = 16;

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
    /// The leaves met are taken [`LEAF_BATCH`] at a time: the first slot of
    /// each is fetched before any list is read, so those loads overlap
    /// instead of each waiting for the list before it.
    pub(crate) fn query_in_tree<F>(&self, rect: &Rect, omit: u32, mut visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        // Slices, not `&Vec`s: their addresses stay in registers across
        // `visit` (see `leaves_meeting`).
        let (slots, nodes) = (self.slots.slots.as_slice(), self.nodes.nodes.as_slice());
        let mut firsts = ArrayVec::<u32, LEAF_BATCH>::new();
        let mut scan = |firsts: &mut ArrayVec<u32, LEAF_BATCH>| {
            for &first in firsts.iter() {
                prefetch(&slots[first as usize]);
            }
            for &first in firsts.iter() {
                let mut at = first;
                while at != NONE {
                    let slot = &slots[at as usize];
                    if at != omit && meets(&slot.rect, rect) {
                        visit(self.slots.handle(at))?;
                    }
                    at = slot.next;
                }
            }
            firsts.clear();
            ControlFlow::Continue(())
        };
        self.leaves_meeting(rect, |leaf| {
            let first = nodes[leaf as usize].first;
            if first != NONE {
                firsts.push(first);
                if firsts.is_full() {
                    scan(&mut firsts)?;
                }
            }
            ControlFlow::Continue(())
        })?;
        scan(&mut firsts)
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
        // A slice, taken once: through a `&Vec`, inlined behind an `AnyIndex`
        // (not `Freeze`: the grid's query count is an atomic), the walk re-read
        // the array's address and length from the tree at every node, since
        // `leaf` might have changed it (static 1M queries 11% slower than
        // before the query value).
        let nodes = self.nodes.nodes.as_slice();
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

    /// The search's roots: the tree's root and, with a `max_extent`, the
    /// root of the tree of elements over it (tagged [`OVER`]). Node boxes
    /// hold their elements whole.
    pub(crate) fn search_top(&self, push: &mut impl FnMut(SearchItem<Rect>)) {
        push(SearchItem::Node(0, self.nodes.nodes[0].rect));
        if let Some(over) = &self.over_bound {
            push(SearchItem::Node(OVER, over.nodes.nodes[0].rect));
        }
    }

    /// A node's children, or a leaf's elements (for the tree over the bound,
    /// the slots its ids name).
    pub(crate) fn search_below(&self, id: u128, push: &mut impl FnMut(SearchItem<Rect>)) {
        let over = id & OVER != 0;
        let tree = match (&self.over_bound, over) {
            (Some(inner), true) => inner,
            _ => self,
        };
        let node = &tree.nodes.nodes[id as u32 as usize];
        if node.is_branch() {
            for child in node.first..node.first + 4 {
                let tag = id & OVER;
                push(SearchItem::Node(
                    tag | u128::from(child),
                    tree.nodes.nodes[child as usize].rect,
                ));
            }
            return;
        }
        let mut at = node.first;
        while at != NONE {
            let slot = &tree.slots.slots[at as usize];
            push(SearchItem::Element(if over { slot.id } else { at }));
            at = slot.next;
        }
    }
}

/// The tag of a node of the tree over the bound.
const OVER: u128 = 1 << 64;
