//! A full structural check of the tree, for tests and for debugging a binding.

use crate::loose_quadtree::bounded::OVER_BOUND;
use crate::loose_quadtree::nodes::Node;
use crate::loose_quadtree::LooseQuadtree;
use crate::rect::{centre, holds, is_empty_box};
use crate::slots::NONE;
use crate::tree_lines::{Cell, Stack};

impl LooseQuadtree {
    /// Checks every invariant of the tree and says which one fails first;
    /// never panics, whatever the state (a snapshot is checked with it).
    ///
    /// Each live element is in exactly one leaf, the one its centre descends
    /// to, and that leaf is the one its slot names; every box is empty or a
    /// valid rectangle holding its elements' rectangles and its children's
    /// boxes; leaf counts match their lists; depths stay within `max_depth`;
    /// every node and slot is in use or on its free list, exactly once.
    pub(crate) fn check_invariants(&self) -> Result<(), String> {
        self.slots.validate()?;
        let nodes = &self.nodes.nodes;
        let slots = &self.slots.slots;
        if nodes.is_empty() {
            return Err("no root node".into());
        }
        let mut node_seen = vec![false; nodes.len()];
        let mut slot_seen = vec![false; slots.len()];

        let mut stack = Stack::new();
        stack.push(Cell::ROOT);
        while let Some(cell) = stack.pop() {
            let index = cell.node as usize;
            if index >= nodes.len() || node_seen[index] {
                return Err(format!("node {index} out of range or reached twice"));
            }
            node_seen[index] = true;
            if cell.depth > self.max_depth() {
                return Err(format!(
                    "node {index} at depth {} past max_depth",
                    cell.depth
                ));
            }
            let node = nodes[index];
            if !is_empty_box(&node.rect) && !node.rect.is_valid() {
                return Err(format!("node {index} has a bad box {:?}", node.rect));
            }
            if node.is_branch() {
                let first = node.first as usize;
                if first == 0 || (first - 1) % 4 != 0 || first + 4 > nodes.len() {
                    return Err(format!("branch {index} has a bad child block {first}"));
                }
                if cell.depth == self.max_depth() {
                    return Err(format!("branch {index} at max_depth"));
                }
                for (k, child) in nodes[first..first + 4].iter().enumerate() {
                    if !holds(&node.rect, &child.rect) {
                        return Err(format!(
                            "branch {index}'s box {:?} does not hold child {k}'s {:?}",
                            node.rect, child.rect
                        ));
                    }
                }
                for k in (0..4).rev() {
                    stack.push(cell.child(node.first, k));
                }
                continue;
            }
            if node.count < 0 {
                return Err(format!("node {index} reachable but marked {}", node.count));
            }
            let region = self.lines.region(&cell);
            let mut length = 0;
            let mut at = node.first;
            while at != NONE {
                let element = at as usize;
                if element >= slots.len() || slot_seen[element] {
                    return Err(format!(
                        "leaf {index}: slot {element} out of range or listed twice"
                    ));
                }
                slot_seen[element] = true;
                if !self.slots.is_live(at) {
                    return Err(format!("leaf {index} lists dead slot {element}"));
                }
                let slot = &slots[element];
                if self.is_over_bound(&slot.rect) {
                    return Err(format!(
                        "slot {element} is over the bound but in leaf {index}"
                    ));
                }
                if slot.leaf != cell.node {
                    return Err(format!(
                        "slot {element} in leaf {index} names leaf {}",
                        slot.leaf
                    ));
                }
                if !holds(&node.rect, &slot.rect) {
                    return Err(format!(
                        "leaf {index}'s box {:?} does not hold slot {element}'s {:?}",
                        node.rect, slot.rect
                    ));
                }
                let (x, y) = (
                    centre(slot.rect.x1, slot.rect.x2),
                    centre(slot.rect.y1, slot.rect.y2),
                );
                if !region.owns(&[x, y]) {
                    return Err(format!(
                        "slot {element} {} is in leaf {index}, which does not own its centre",
                        slot.rect
                    ));
                }
                length += 1;
                at = slot.next;
            }
            if length != node.count {
                return Err(format!(
                    "leaf {index} counts {} but lists {length}",
                    node.count
                ));
            }
        }

        let mut over_bound = 0;
        for (index, seen) in slot_seen.iter().enumerate() {
            if !seen && self.slots.is_live(index as u32) {
                self.check_over_bound(index as u32)?;
                over_bound += 1;
            }
        }
        if over_bound != self.over_bound_len() {
            return Err(format!(
                "{over_bound} slots over the bound, {} in their tree",
                self.over_bound_len()
            ));
        }
        if let Some(over) = &self.over_bound {
            over.check_invariants()
                .map_err(|reason| format!("the tree over the bound: {reason}"))?;
        }
        let mut block = self.nodes.free_block;
        while block != NONE {
            let first = block as usize;
            if first == 0 || (first - 1) % 4 != 0 || first + 4 > nodes.len() {
                return Err(format!("free node block {first} misplaced"));
            }
            for at in first..first + 4 {
                if node_seen[at] || nodes[at].count != Node::FREE {
                    return Err(format!("free node {at} in use or not marked free"));
                }
                node_seen[at] = true;
            }
            block = nodes[first].first;
        }
        if let Some(lost) = node_seen.iter().position(|seen| !seen) {
            return Err(format!("node {lost} neither in the tree nor free"));
        }
        Ok(())
    }

    /// A live slot in no leaf must be over the bound and in the inner tree,
    /// under its own slot number and with its rectangle.
    fn check_over_bound(&self, slot: u32) -> Result<(), String> {
        let s = &self.slots.slots[slot as usize];
        let (Some(over), OVER_BOUND) = (&self.over_bound, s.leaf) else {
            return Err(format!("live slot {slot} is in no leaf"));
        };
        if !self.is_over_bound(&s.rect) {
            return Err(format!("slot {slot} {} is kept over the bound", s.rect));
        }
        let inner = s.next;
        let held = (inner as usize) < over.slots.slots.len()
            && over.slots.is_live(inner)
            && over.slots.slots[inner as usize].id == slot
            && over.slots.slots[inner as usize].rect == s.rect;
        if !held {
            return Err(format!(
                "slot {slot} over the bound names inner slot {inner}"
            ));
        }
        Ok(())
    }

    /// Checks that every branch's children know their parent's cell (run on
    /// a tree [`check_invariants`](LooseQuadtree::check_invariants) passed).
    pub(crate) fn check_families(&self) -> Result<(), String> {
        let mut result = Ok(());
        self.for_each_branch(|cell, first| {
            let known = self.families.parents.get((first - 1) as usize / 4);
            let right = known.is_some_and(|p| p.same(&cell));
            if !right && result.is_ok() {
                result = Err(format!("branch {}'s children name {known:?}", cell.node));
            }
        });
        result
    }

    /// Records every branch's cell as its children's parent (after a snapshot
    /// is read and checked).
    pub(crate) fn rebuild_families(&mut self) {
        let mut families = core::mem::take(&mut self.families);
        families.parents.clear();
        self.for_each_branch(|cell, first| families.set(first, cell));
        self.families = families;
    }

    /// Calls `visit` with each branch's cell and first child, parents first.
    fn for_each_branch(&self, mut visit: impl FnMut(Cell, u32)) {
        let mut stack = Stack::new();
        stack.push(Cell::ROOT);
        while let Some(cell) = stack.pop() {
            let node = self.nodes.nodes[cell.node as usize];
            if node.is_branch() {
                visit(cell, node.first);
                for k in 0..4 {
                    stack.push(cell.child(node.first, k));
                }
            }
        }
    }
}
