//! The lazy cleanup, and clearing.

use arrayvec::ArrayVec;

use crate::dimension::Dimension;
use crate::flat_tree::nodes::Node;
use crate::flat_tree::FlatTree;
use crate::tree_lines::TREE_STACK_CAPACITY;

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
        let mut branches = ArrayVec::<u32, TREE_STACK_CAPACITY>::new();
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

    /// Lays the links out again, each leaf's list contiguous and in its
    /// order, the leaves depth first (the first child first), so that a pair
    /// walk, a query or an unlink reads a leaf's links from one or two cache
    /// lines instead of chasing them through the pool.
    pub(crate) fn pack_links(&mut self) {
        let nodes = &mut self.nodes.nodes;
        self.links.pack(|packer| {
            let mut stack = ArrayVec::<u32, TREE_STACK_CAPACITY>::new();
            stack.push(0);
            while let Some(at) = stack.pop() {
                let node = nodes[at as usize];
                if node.is_branch() {
                    stack.extend((node.first..node.first + D::CHILDREN).rev());
                } else {
                    nodes[at as usize].first = packer.list(node.first);
                }
            }
        });
    }

    /// Removes every element (all handles go stale) and every node but the root;
    /// keeps the memory for reuse.
    pub(crate) fn reset(&mut self) {
        self.nodes.reset();
        self.links.reset();
        self.slots.free_all();
    }
}
