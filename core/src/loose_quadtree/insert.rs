//! Adding elements: the descent by centre that grows the boxes on its way, and
//! splitting leaves.

use crate::batch_order::{insert_by_key, SORTED_BATCH};
use crate::dimension::Dim2;
use crate::index::finish_moves::refile_around_slots;
use crate::loose_quadtree::nodes::Node;
use crate::loose_quadtree::LooseQuadtree;
use crate::rect::{centre, holds, union};
use crate::slots::NONE;
use crate::tree_lines::{point_child, Cell, Stack};
use crate::{Handle, Rect};

impl LooseQuadtree {
    /// Adds an element: room checked, `rect` valid.
    pub(crate) fn insert_one(&mut self, rect: Rect, id: u32) -> Handle {
        let slot = self.slots.alloc(rect, id);
        self.file(slot, rect);
        self.slots.handle(slot)
    }

    /// Files a slot holding `rect`: in the tree, or the one over the bound.
    fn file(&mut self, slot: u32, rect: Rect) {
        if self.is_over_bound(&rect) {
            self.insert_over_bound(slot, rect);
        } else {
            self.insert_in_tree(slot, rect);
        }
    }

    /// Files every live element anew into a tree of one empty leaf (and an
    /// empty tree over the bound), after a panic left them unknown
    /// (`index::finish_moves`).
    pub(crate) fn refile_all(&mut self) {
        refile_around_slots(self, Self::reset, Self::file);
    }

    /// Links a slot holding `rect` into the leaf its centre descends to.
    pub(crate) fn insert_in_tree(&mut self, slot: u32, rect: Rect) {
        let leaf = self.descend_growing(Cell::ROOT, &rect);
        self.add_to_leaf(leaf, slot);
    }

    /// Adds a checked batch; big batches in Z-order, so that elements close
    /// in space get slots close in memory and walks over a leaf's list read
    /// the slot array nearly in order.
    pub(crate) fn insert_batch(&mut self, rects: &[Rect], ids: &[u32], handles: &mut Vec<Handle>) {
        self.slots.reserve(rects.len());
        handles.reserve(rects.len());
        if rects.len() < SORTED_BATCH {
            for (&rect, &id) in rects.iter().zip(ids) {
                handles.push(self.insert_one(rect, id));
            }
            return;
        }
        let keys: Vec<u32> = rects.iter().map(|rect| self.lines.z_order(rect)).collect();
        insert_by_key(
            &keys,
            1 << 32,
            (rects, ids),
            handles,
            |_| {},
            |_, rect, id| self.insert_one(rect, id),
        );
    }

    /// The leaf the centre of `rect` descends to from `cell` (which owns that
    /// centre), growing every box on the way (the leaf's included) to hold
    /// `rect`. The boxes above `cell` are the caller's business.
    pub(crate) fn descend_growing(&mut self, mut cell: Cell, rect: &Rect) -> Cell {
        let (x, y) = (centre(rect.x1, rect.x2), centre(rect.y1, rect.y2));
        loop {
            let node = &mut self.nodes.nodes[cell.node as usize];
            if !holds(&node.rect, rect) {
                node.rect = union(&node.rect, rect);
            }
            if !node.is_branch() {
                return cell;
            }
            let first = node.first;
            let split = self.lines.split(&cell);
            cell = cell.child(first, point_child::<Dim2>(&split, &[x, y]));
        }
    }

    /// Pushes a slot onto a leaf's list (whose box already holds it), splitting
    /// the leaf if it grows past `max_elements`.
    pub(crate) fn add_to_leaf(&mut self, cell: Cell, slot: u32) {
        let node = &mut self.nodes.nodes[cell.node as usize];
        let s = &mut self.slots.slots[slot as usize];
        s.next = node.first;
        s.leaf = cell.node;
        node.first = slot;
        node.count += 1;
        let count = node.count as u32;
        // A leaf that would not split (see `split_pays`) is asked again only
        // when its count doubles, so piling n elements on one spot stays
        // O(n log n).
        if count > self.max_elements
            && cell.depth < self.max_depth
            && (count == self.max_elements + 1 || count.is_power_of_two())
        {
            self.split(cell);
        }
    }

    /// Whether splitting the leaf would separate its elements: not when all
    /// their centres coincide, for they would all descend to one child at any
    /// depth (a chain of branches for nothing).
    pub(crate) fn split_pays(&self, leaf: &Node) -> bool {
        let slots = &self.slots.slots;
        let mut at = leaf.first;
        let Some(first) = slots.get(at as usize) else {
            return false;
        };
        let (x, y) = (
            centre(first.rect.x1, first.rect.x2),
            centre(first.rect.y1, first.rect.y2),
        );
        while at != NONE {
            let s = &slots[at as usize];
            if centre(s.rect.x1, s.rect.x2) != x || centre(s.rect.y1, s.rect.y2) != y {
                return true;
            }
            at = s.next;
        }
        false
    }

    /// Turns an over-full leaf into a branch with four leaves and deals its
    /// elements out to them by their centres (each child's box fits its
    /// elements), then splits those still over-full.
    pub(crate) fn split(&mut self, cell: Cell) {
        let mut pending = Stack::new();
        pending.push(cell);
        while let Some(cell) = pending.pop() {
            let leaf = self.nodes.nodes[cell.node as usize];
            if !self.split_pays(&leaf) {
                continue;
            }
            let first = self.nodes.alloc_block();
            self.families.set(first, cell);
            let parent = &mut self.nodes.nodes[cell.node as usize];
            parent.first = first;
            parent.count = Node::BRANCH;
            let split = self.lines.split(&cell);
            let mut at = leaf.first;
            while at != NONE {
                let slot = &mut self.slots.slots[at as usize];
                let next = slot.next;
                let (x, y) = (
                    centre(slot.rect.x1, slot.rect.x2),
                    centre(slot.rect.y1, slot.rect.y2),
                );
                let child_index = first + point_child::<Dim2>(&split, &[x, y]);
                let child = &mut self.nodes.nodes[child_index as usize];
                child.rect = union(&child.rect, &slot.rect);
                slot.next = child.first;
                slot.leaf = child_index;
                child.first = at;
                child.count += 1;
                at = next;
            }
            if cell.depth + 1 < self.max_depth {
                for k in 0..4 {
                    if self.nodes.nodes[(first + k) as usize].count as u32 > self.max_elements {
                        pending.push(cell.child(first, k));
                    }
                }
            }
        }
    }
}
