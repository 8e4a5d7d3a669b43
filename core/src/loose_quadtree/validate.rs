//! A full structural check of the tree, for tests and for debugging a binding.

use crate::loose_grid::{centre, holds, is_empty_box};
use crate::loose_quadtree::nodes::Node;
use crate::loose_quadtree::LooseQuadtree;
use crate::quadtree::lines::{Cell, Stack};
use crate::slots::NONE;

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

        for (index, seen) in slot_seen.iter().enumerate() {
            if !seen && self.slots.is_live(index as u32) {
                return Err(format!("live slot {index} is in no leaf"));
            }
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
}
