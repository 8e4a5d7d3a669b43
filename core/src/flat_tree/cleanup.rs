//! The lazy cleanup, and clearing.

use crate::dimension::Dimension;
use crate::flat_tree::nodes::Node;
use crate::flat_tree::FlatTree;

impl<D: Dimension> FlatTree<D> {
    /// Merges, bottom-up, every branch whose children are all empty leaves into
    /// one empty leaf. Lazy, as in the flat-quadtree write-up (`docs/design.md`):
    /// one level per call, so call it once a frame; an element that leaves a cell is often replaced in the same
    /// frame, and nodes are not churned for nothing. The root always stays.
    pub(crate) fn merge_empty(&mut self) {
        let nodes = &mut self.nodes;
        if !nodes.nodes[0].is_branch() {
            return;
        }
        let mut branches =
            arrayvec::ArrayVec::<u32, { crate::tree_lines::TREE_STACK_CAPACITY }>::new();
        branches.push(0);
        while let Some(branch) = branches.pop() {
            let first = nodes.nodes[branch as usize].first;
            let mut empty_leaves = 0;
            for child in first..first + D::CHILDREN {
                let node = nodes.nodes[child as usize];
                if node.count == 0 {
                    empty_leaves += 1;
                } else if node.is_branch() {
                    branches.push(child);
                }
            }
            if empty_leaves == D::CHILDREN {
                nodes.free_block_of(first, D::CHILDREN);
                nodes.nodes[branch as usize] = Node::EMPTY_LEAF;
            }
        }
    }

    /// Removes every element (all handles go stale) and every node but the root;
    /// keeps the memory for reuse.
    pub(crate) fn reset(&mut self) {
        self.nodes.reset();
        self.links.reset();
        self.slots.free_all();
    }
}
