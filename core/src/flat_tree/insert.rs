//! Adding elements: the descent, linking into leaves, and splitting leaves.

use crate::batch_order::{insert_by_key, SORTED_BATCH};
use crate::dimension::Dimension;
use crate::flat_tree::nodes::{LeafSet, Node};
use crate::flat_tree::FlatTree;
use crate::links::Link;
use crate::slots::NONE;
use crate::tree_lines::{mask, place_in_children, place_of, Cell, Stack, NO_PLACE};
use crate::{Bounds, Handle};

impl<D: Dimension> FlatTree<D> {
    /// Adds an element: room checked, `rect` valid.
    pub(crate) fn insert_one(&mut self, rect: D::Bounds, id: u32) -> Handle {
        let slot = self.slots.alloc(rect, id);
        self.link(slot, &rect);
        self.slots.handle(slot)
    }

    /// Adds a checked batch; big batches in Z-order.
    pub(crate) fn insert_batch(
        &mut self,
        rects: &[D::Bounds],
        ids: &[u32],
        handles: &mut Vec<Handle>,
    ) {
        self.slots.reserve(rects.len());
        handles.reserve(rects.len());
        if rects.len() < SORTED_BATCH {
            for (&rect, &id) in rects.iter().zip(ids) {
                let slot = self.slots.alloc(rect, id);
                self.link(slot, &rect);
                handles.push(self.slots.handle(slot));
            }
            return;
        }
        // Insert in the order a depth-first walk meets the elements, so that
        // elements close in space get slots close in memory: walks over the
        // leaves (pairs, queries) then read the slot array nearly in order.
        let keys: Vec<u32> = rects.iter().map(|rect| self.lines.z_order(rect)).collect();
        insert_by_key(
            &keys,
            1 << 32,
            (rects, ids),
            handles,
            |_| {},
            |_, rect, id| {
                let slot = self.slots.alloc(rect, id);
                self.link(slot, &rect);
                self.slots.handle(slot)
            },
        );
    }

    /// The children of branch `cell` that `rect` meets.
    #[inline(always)]
    pub(crate) fn mask_at(&self, cell: &Cell<D>, rect: &D::Bounds) -> u32 {
        mask::<D>(&self.lines.split(cell), rect)
    }

    /// Pushes the children of `cell` (whose first child is `first`) named by `mask`.
    #[inline]
    pub(crate) fn push_children(
        &self,
        stack: &mut Stack<D>,
        cell: &Cell<D>,
        first: u32,
        mask: u32,
    ) {
        let mut mask = mask;
        while mask != 0 {
            let k = mask.trailing_zeros();
            mask &= mask - 1;
            stack.push(cell.child(first, k));
        }
    }

    /// Links the element in `slot` into every leaf `rect` meets, splitting leaves
    /// that grow past `max_elements`, and records the element's place.
    pub(crate) fn link(&mut self, slot: u32, rect: &D::Bounds) {
        self.link_from(Cell::ROOT, slot, rect);
    }

    /// [`link`](FlatTree::link) below `start`, which holds all the leaves `rect` meets.
    pub(crate) fn link_from(&mut self, start: Cell<D>, slot: u32, rect: &D::Bounds) {
        let (cell, node, mask) = self.descend_from(start, rect);
        if mask == 0 {
            // Set before linking: a split of the leaf moves the place down.
            let slot_ref = &mut self.slots.slots[slot as usize];
            slot_ref.place = place_of(&[cell]);
            slot_ref.home = if slot_ref.place == NO_PLACE {
                NONE
            } else {
                cell.node
            };
            self.add_to_leaf(cell, slot);
            return;
        }
        let mut stack = Stack::new();
        self.push_children(&mut stack, &cell, node.first, mask);
        // The rectangle straddles a split: link it in every leaf below. If one of
        // them splits, the place is left void; the next move that stays finds it.
        self.slots.slots[slot as usize].place = NO_PLACE;
        self.slots.slots[slot as usize].home = NONE;
        let mut leaves = LeafSet::default();
        let mut split = false;
        while let Some(cell) = stack.pop() {
            let node = self.nodes.nodes[cell.node as usize];
            if node.is_branch() {
                self.push_children(&mut stack, &cell, node.first, self.mask_at(&cell, rect));
            } else {
                leaves.add(cell);
                split |= self.add_to_leaf(cell, slot);
            }
        }
        if !split {
            let place = leaves.place();
            // Leaves one level below where the walk parted are that node's children.
            let siblings = leaves.cells.iter().all(|leaf| leaf.depth == cell.depth + 1);
            let slot = &mut self.slots.slots[slot as usize];
            slot.place = place;
            slot.home = if place != NO_PLACE && siblings {
                cell.node
            } else {
                NONE
            };
        }
    }

    /// Links the element into a leaf; whether the leaf split.
    pub(crate) fn add_to_leaf(&mut self, cell: Cell<D>, slot: u32) -> bool {
        let node = self.nodes.nodes[cell.node as usize];
        let link = self.links.alloc(slot, node.first);
        let count = node.count + 1;
        self.nodes.nodes[cell.node as usize] = Node { first: link, count };
        // A leaf that would not split (see `split_pays`) is asked again only when
        // its count doubles, so piling n elements on one spot stays O(n log n).
        let over = count as u32 > self.max_elements;
        if over
            && cell.depth < self.max_depth
            && (count as u32 == self.max_elements + 1 || (count as u32).is_power_of_two())
        {
            self.split(cell)
        } else {
            false
        }
    }

    /// Walks down from the root while `rect` picks one child at each branch.
    /// Returns the cell where it stops, its node, and the children `rect` meets
    /// there: 0 if the cell is a leaf, several bits if it is a branch.
    #[inline]
    pub(crate) fn descend(&self, rect: &D::Bounds) -> (Cell<D>, Node, u32) {
        self.descend_from(Cell::ROOT, rect)
    }

    /// [`descend`](FlatTree::descend) from `cell` instead of the root.
    #[inline(always)]
    pub(crate) fn descend_from(&self, mut cell: Cell<D>, rect: &D::Bounds) -> (Cell<D>, Node, u32) {
        loop {
            let node = self.nodes.nodes[cell.node as usize];
            if !node.is_branch() {
                return (cell, node, 0);
            }
            let mask = self.mask_at(&cell, rect);
            if !mask.is_power_of_two() {
                return (cell, node, mask);
            }
            cell = cell.child(node.first, mask.trailing_zeros());
        }
    }

    /// Whether splitting the leaf would separate its elements. Only elements that
    /// fit in a child cell count: a bigger one lies in most children anyway, and
    /// separating big ones along their edges would take 2^depth leaves (two long
    /// edges a hair apart). And the small ones must not all share a point, for
    /// the leaf owning that point would hold them all at any depth (a stack of
    /// elements at one spot).
    pub(crate) fn split_pays(&self, cell: &Cell<D>, leaf: Node) -> bool {
        let child = self.lines.cell_size(cell.depth + 1);
        let mut small = 0;
        // The intersection of the small elements, axis by axis.
        let (mut common_lo, mut common_hi) = ([f32::MIN; 3], [f32::MAX; 3]);
        let mut link = leaf.first;
        while link != NONE {
            let Link { next, element } = self.links.links[link as usize];
            let r = &self.slots.slots[element as usize].rect;
            if (0..D::AXES).all(|axis| r.hi(axis) - r.lo(axis) <= child.as_ref()[axis]) {
                small += 1;
                for axis in 0..D::AXES {
                    common_lo[axis] = common_lo[axis].max(r.lo(axis));
                    common_hi[axis] = common_hi[axis].min(r.hi(axis));
                }
            }
            link = next;
        }
        small > self.max_elements && (0..D::AXES).any(|axis| common_lo[axis] > common_hi[axis])
    }

    /// Turns an over-full leaf into a branch with four (eight) leaves and deals its
    /// elements out to them, then splits those that are still over-full.
    /// Returns whether the leaf split.
    pub(crate) fn split(&mut self, cell: Cell<D>) -> bool {
        let mut split = false;
        let mut pending = Stack::new();
        pending.push(cell);
        while let Some(cell) = pending.pop() {
            let leaf = self.nodes.nodes[cell.node as usize];
            if !self.split_pays(&cell, leaf) {
                continue;
            }
            split = true;
            let first = self.nodes.alloc_block_of(D::CHILDREN);
            self.nodes.nodes[cell.node as usize] = Node {
                first,
                count: Node::BRANCH,
            };
            let alone_here = place_of(&[cell]);
            let split_at = self.lines.split(&cell);
            let mut link = leaf.first;
            while link != NONE {
                let Link { next, element } = self.links.links[link as usize];
                let slot = &mut self.slots.slots[element as usize];
                let mut mask = mask::<D>(&split_at, &slot.rect);
                // An element that lay in this leaf alone now lies in the new
                // leaves its mask names; any other place involved this leaf as a
                // leaf and is void now.
                (slot.place, slot.home) = if slot.place == alone_here && alone_here != NO_PLACE {
                    let home = if mask.is_power_of_two() {
                        first + mask.trailing_zeros()
                    } else {
                        cell.node
                    };
                    match place_in_children(&cell, mask) {
                        NO_PLACE => (NO_PLACE, NONE),
                        place => (place, home),
                    }
                } else {
                    (NO_PLACE, NONE)
                };
                // The element's link in this leaf moves to its first child; the
                // other children it meets get new links.
                let mut reuse = Some(link);
                while mask != 0 {
                    let child = (first + mask.trailing_zeros()) as usize;
                    mask &= mask - 1;
                    let head = self.nodes.nodes[child].first;
                    let moved = match reuse.take() {
                        Some(link) => {
                            self.links.links[link as usize].next = head;
                            link
                        }
                        None => self.links.alloc(element, head),
                    };
                    self.nodes.nodes[child].first = moved;
                    self.nodes.nodes[child].count += 1;
                }
                link = next;
            }
            if cell.depth + 1 < self.max_depth {
                for k in 0..D::CHILDREN {
                    if self.nodes.nodes[(first + k) as usize].count as u32 > self.max_elements {
                        pending.push(cell.child(first, k));
                    }
                }
            }
        }
        split
    }
}
