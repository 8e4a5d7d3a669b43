//! The lazy cleanup (merging empty siblings, refitting boxes), and clearing.

use arrayvec::ArrayVec;

use crate::loose_quadtree::nodes::Node;
use crate::loose_quadtree::LooseQuadtree;
use crate::rect::{union, EMPTY};
use crate::slots::{prefetch, NONE};
use crate::tree_lines::STACK_CAPACITY;

/// A post-order walk holds, per level, the parent (to finish) and at most
/// three unvisited siblings, plus four children at the bottom.
const REFIT_CAPACITY: usize = 4 * (crate::tree_lines::MAX_DEPTH_LIMIT as usize + 2);

impl LooseQuadtree {
    /// Merges every branch whose four children are empty leaves into one empty
    /// leaf. Parents are looked at before their children, so one level goes
    /// per call. The root always stays.
    pub(crate) fn merge_empty(&mut self) {
        let nodes = &mut self.nodes;
        if !nodes.nodes[0].is_branch() {
            return;
        }
        let mut branches = ArrayVec::<u32, STACK_CAPACITY>::new();
        branches.push(0);
        while let Some(branch) = branches.pop() {
            let first = nodes.nodes[branch as usize].first;
            let mut empty_leaves = 0;
            for child in first..first + 4 {
                let node = nodes.nodes[child as usize];
                if node.count == 0 {
                    empty_leaves += 1;
                } else if node.is_branch() {
                    branches.push(child);
                }
            }
            if empty_leaves == 4 {
                nodes.free_block(first);
                nodes.nodes[branch as usize] = Node::EMPTY_LEAF;
            }
        }
    }

    /// Shrinks every box to the union of its elements' rectangles (a leaf) or
    /// of its children's boxes (a branch), bottom-up.
    pub(crate) fn refit(&mut self) {
        // (node, children done): a branch is pushed back once its children are.
        let mut stack = ArrayVec::<(u32, bool), REFIT_CAPACITY>::new();
        stack.push((0, false));
        while let Some((index, done)) = stack.pop() {
            let node = self.nodes.nodes[index as usize];
            if node.is_branch() {
                let first = node.first as usize;
                if done {
                    let children = &self.nodes.nodes[first..first + 4];
                    let fit = children.iter().fold(EMPTY, |b, c| union(&b, &c.rect));
                    self.nodes.nodes[index as usize].rect = fit;
                } else {
                    stack.push((index, true));
                    for k in (0..4).rev() {
                        // Start loading each child leaf's first slot now, so
                        // the four lists' first misses overlap.
                        let child = &self.nodes.nodes[first + k as usize];
                        if let Some(slot) = self.slots.slots.get(child.first as usize) {
                            if !child.is_branch() {
                                prefetch(slot);
                            }
                        }
                        stack.push((node.first + k, false));
                    }
                }
                continue;
            }
            let mut fit = EMPTY;
            let mut at = node.first;
            while at != NONE {
                let slot = &self.slots.slots[at as usize];
                fit = union(&fit, &slot.rect);
                at = slot.next;
            }
            self.nodes.nodes[index as usize].rect = fit;
        }
    }

    /// Removes every element (all handles go stale) and every node but the
    /// root; keeps the memory for reuse.
    pub(crate) fn reset(&mut self) {
        self.nodes.reset();
        self.families.parents.clear();
        self.slots.free_all();
        if let Some(over) = &mut self.over_bound {
            over.reset();
        }
    }
}
