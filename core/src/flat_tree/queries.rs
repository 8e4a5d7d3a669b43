//! Queries: by rectangle, by point, and an element's neighbours.

use core::ops::ControlFlow;

use crate::dimension::Dimension;
use crate::flat_tree::nodes::{home_leaves, sibling_index, Node};
use crate::flat_tree::{FlatTree, Slot};
use crate::index::raw::{Pieces, SearchItem, Slots, PREFETCH_AHEAD};
use crate::links::Link;
use crate::slots::{prefetch, NONE};
use crate::tree_lines::{point_child, unpack_place, Cell, Stack};
use crate::{Bounds, Handle};

impl<D: Dimension> FlatTree<D> {
    /// The arrays a walk reads, taken once before its loops. Inlined into a
    /// caller that holds the tree behind a reference to a type with atomics
    /// (an `AnyIndex`: the grid's query count), the compiler cannot assume the
    /// tree unchanged across the caller's `visit`, and re-read the arrays'
    /// addresses from it at every link; as locals the leaf loop is the one
    /// before the query value again (static 1M point queries 2–3% faster).
    #[inline(always)]
    fn walked(&self) -> (&[Node], &[Link], &[Slot<D>]) {
        (&self.nodes.nodes, &self.links.links, &self.slots.slots)
    }

    /// Elements meeting the checked `rect`, each once, but slot `omit`: straight
    /// down while the query picks one child, then depth-first.
    pub(crate) fn query_rect<F>(&self, rect: D::Bounds, omit: u32, mut visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        // Straight down while the query picks one child, then depth-first.
        let (nodes, links, slots) = self.walked();
        let mut stack = Stack::<D>::new();
        let (top, node, mask) = self.descend(&rect);
        if mask == 0 {
            stack.push(top);
        } else {
            self.push_children(&mut stack, &top, node.first, mask);
        }
        while let Some(cell) = stack.pop() {
            let node = nodes[cell.node as usize];
            if node.is_branch() {
                self.push_children(&mut stack, &cell, node.first, self.mask_at(&cell, &rect));
                continue;
            }
            let region = self.lines.region(&cell);
            let mut link = node.first;
            while link != NONE {
                let Link { next, element } = links[link as usize];
                let slot = &slots[element as usize];
                if element != omit
                    && slot.rect.meets(&rect)
                    && region.owns_intersection(&slot.rect, &rect)
                    && visit(self.slots.handle(element)).is_break()
                {
                    return ControlFlow::Break(());
                }
                link = next;
            }
        }
        ControlFlow::Continue(())
    }

    /// The other elements meeting a live slot's rectangle, from its own leaves
    /// when it has a home.
    pub(crate) fn neighbours<F>(&self, element: u32, mut visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        let Slot {
            rect, place, home, ..
        } = self.slots.slots[element as usize];
        if home == NONE {
            return self.query_rect(rect, element, visit);
        }
        // The element's leaves are exactly the leaves a query with its box
        // visits; the place gives their cells, for the corner rule.
        let (nodes, links, slots) = self.walked();
        let block = unpack_place::<D>(place);
        for leaf in home_leaves::<D>(place, home, nodes) {
            let region = if block.is_one_leaf() {
                None // one leaf holds the whole box, so every corner
            } else {
                let k = leaf - nodes[home as usize].first;
                let mut at = block.at;
                for (axis, v) in at.as_mut().iter_mut().enumerate() {
                    *v = (*v & !1) + (k >> axis & 1);
                }
                debug_assert_eq!(sibling_index(at.as_ref()), k);
                let cell = Cell {
                    node: leaf,
                    depth: block.depth,
                    at,
                };
                Some(self.lines.region(&cell))
            };
            let mut link = nodes[leaf as usize].first;
            while link != NONE {
                let Link {
                    next,
                    element: other,
                } = links[link as usize];
                let slot = &slots[other as usize];
                if other != element
                    && slot.rect.meets(&rect)
                    && region.is_none_or(|r| r.owns_intersection(&slot.rect, &rect))
                    && visit(self.slots.handle(other)).is_break()
                {
                    return ControlFlow::Break(());
                }
                link = next;
            }
        }
        ControlFlow::Continue(())
    }

    /// Elements holding the finite point, but slot `omit`.
    pub(crate) fn query_at<F>(
        &self,
        point: <D::Bounds as Bounds>::Point,
        omit: u32,
        mut visit: F,
    ) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        // A point belongs to exactly one leaf, and so does every element holding it.
        let (nodes, links, slots) = self.walked();
        let mut cell = Cell::<D>::ROOT;
        let mut node = nodes[0];
        while node.is_branch() {
            let split = self.lines.split(&cell);
            cell = cell.child(node.first, point_child::<D>(&split, point.as_ref()));
            node = nodes[cell.node as usize];
        }
        let mut link = node.first;
        while link != NONE {
            let Link { next, element } = links[link as usize];
            if element != omit
                && slots[element as usize].rect.contains_point(point)
                && visit(self.slots.handle(element)).is_break()
            {
                return ControlFlow::Break(());
            }
            link = next;
        }
        ControlFlow::Continue(())
    }

    /// Two stages ahead of `overlapping_many`: the slot of a handle far ahead,
    /// then, once that slot has arrived, the home leaf of a nearer one.
    #[inline]
    pub(crate) fn prefetch_neighbours(&self, handles: &[Handle], index: usize) {
        if let Some(&ahead) = handles.get(index + PREFETCH_AHEAD) {
            self.slots.prefetch(ahead);
        }
        if let Some(&near) = handles.get(index + PREFETCH_AHEAD / 2) {
            if let Some(slot) = self.slots.slots.get(near.slot() as usize) {
                if let Some(node) = self.nodes.nodes.get(slot.home as usize) {
                    prefetch(node);
                    if !node.is_branch() {
                        if let Some(link) = self.links.links.get(node.first as usize) {
                            prefetch(link);
                        }
                    }
                }
            }
        }
    }

    /// The search's node for `cell`: its region as a closed box (±∞ on the
    /// world's outer sides), which holds every point the node's elements
    /// have in it. The id packs the cell: node (32 bits), depth (5), then 30
    /// bits per coordinate.
    fn search_item(&self, cell: &Cell<D>) -> SearchItem<D::Bounds> {
        let region = self.lines.region(cell);
        let (mut lo, mut hi) = ([0.0; 3], [0.0; 3]);
        lo[..D::AXES].copy_from_slice(region.lo.as_ref());
        hi[..D::AXES].copy_from_slice(region.hi.as_ref());
        let mut id = u128::from(cell.node) | u128::from(cell.depth) << 32;
        for (axis, &v) in cell.at.as_ref().iter().enumerate() {
            id |= u128::from(v) << (37 + 30 * axis);
        }
        SearchItem::Node(id, D::Bounds::from_corners(lo, hi))
    }

    /// A ray's or a box cast's first hit by rectangle queries over pieces
    /// of its path as long as the mean spacing of the elements, within a
    /// budget ([`Pieces::tree`]). Against the descent (300,000 casts from
    /// random points, lengths 8 to 1,000, each round's time before over its
    /// time after): the quadtree of uniform-100k's or clustered-100k's
    /// 100,000 boxes, box casts 2.0–6.7× faster, rays 1.0–5.3×; the octree of
    /// uniform3d-100k's, box casts 3.3–8×, rays 1.7–4.2× (in dense clusters
    /// 1.4–3.6× and 0.94–2.9×). Away from the elements, over an empty half of
    /// the world: the quadtree faster up to a length of 100 and up to 1.8×
    /// slower at 1,000 (33–120 ns); the octree faster at 8, its box casts at
    /// 100 too, its rays 44–74 ns slower at 100 and both 166–264 ns slower at
    /// 1,000.
    pub(crate) fn ray_pieces(&self) -> Option<Pieces> {
        Pieces::tree(self.world, self.live())
    }

    /// Nearest searches for up to [`SQUARES_UP_TO`](Self::SQUARES_UP_TO)
    /// elements try squares first: a square's query descends to the few
    /// leaves about the point without ordering node keys.
    pub(crate) fn nearest_squares(&self, k: usize) -> bool {
        k <= Self::SQUARES_UP_TO
    }

    /// The most neighbours a search looks for by squares. Measured against
    /// the descent (100,000 points, uniform and at the agents, in
    /// uniform-, clustered- and mixed-100k): the quadtree 1.1–2.6× faster at
    /// k = 1, 1.0–1.3× at k = 10, level at k = 16, 0.8× at k = 32;
    /// uniform3d-100k's octree 1.5–3.5× at k = 1, 1.1–1.2× at k = 6, 0.8–0.9×
    /// at k = 10 (a cube holds 6/π times its ball, a square 4/π times its
    /// disc, so the cube meets more elements that are not among the `k`).
    const SQUARES_UP_TO: usize = if D::AXES == 2 { 10 } else { 6 };

    /// The search's roots: the root node.
    pub(crate) fn search_top(&self, push: &mut impl FnMut(SearchItem<D::Bounds>)) {
        push(self.search_item(&Cell::ROOT))
    }

    /// A node's children that are not empty leaves, or a leaf's elements.
    pub(crate) fn search_below(&self, id: u128, push: &mut impl FnMut(SearchItem<D::Bounds>)) {
        let mut at = D::Coords::default();
        for (axis, v) in at.as_mut().iter_mut().enumerate() {
            *v = (id >> (37 + 30 * axis)) as u32 & ((1 << 30) - 1);
        }
        let cell = Cell::<D> {
            node: id as u32,
            depth: (id >> 32) as u32 & 31,
            at,
        };
        let node = self.nodes.nodes[cell.node as usize];
        if node.is_branch() {
            for k in 0..D::CHILDREN {
                let child = cell.child(node.first, k);
                let n = self.nodes.nodes[child.node as usize];
                if n.is_branch() || n.first != NONE {
                    push(self.search_item(&child));
                }
            }
            return;
        }
        let mut link = node.first;
        while link != NONE {
            let Link { next, element } = self.links.links[link as usize];
            push(SearchItem::Element(element));
            link = next;
        }
    }
}
