//! The loose quadtree's nodes, allocated and freed four at a time, and the box
//! arithmetic.

use crate::loose_grid::EMPTY;
use crate::slots::NONE;
use crate::Rect;

/// A node in 24 bytes: the box holding everything below it; for a leaf the
/// first element's slot and the element count, for a branch the first of its
/// four contiguous children and `count == BRANCH`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub(crate) struct Node {
    pub rect: Rect,
    pub first: u32,
    pub count: i32,
}

impl Node {
    pub const BRANCH: i32 = -1;
    /// Marks the nodes of a freed block (only for validation and debugging).
    pub const FREE: i32 = -2;
    pub const EMPTY_LEAF: Node = Node {
        rect: EMPTY,
        first: NONE,
        count: 0,
    };

    #[inline]
    pub fn is_branch(&self) -> bool {
        self.count == Node::BRANCH
    }
}

/// Nodes, allocated and freed four at a time; node 0 is the root and never freed.
#[derive(Clone, Debug)]
pub(crate) struct NodePool {
    pub nodes: Vec<Node>,
    /// First node of the first free block; the block's first node links the next.
    pub free_block: u32,
}

impl NodePool {
    pub fn new() -> NodePool {
        NodePool {
            nodes: vec![Node::EMPTY_LEAF],
            free_block: NONE,
        }
    }

    /// Four empty leaves with empty boxes; returns the index of the first.
    pub fn alloc_block(&mut self) -> u32 {
        if self.free_block != NONE {
            let first = self.free_block;
            self.free_block = self.nodes[first as usize].first;
            self.nodes[first as usize..first as usize + 4].fill(Node::EMPTY_LEAF);
            first
        } else {
            let first = self.nodes.len();
            assert!(
                first + 4 < NONE as usize,
                "flatquad: more than 2^32 - 1 nodes"
            );
            self.nodes.extend_from_slice(&[Node::EMPTY_LEAF; 4]);
            first as u32
        }
    }

    pub fn free_block(&mut self, first: u32) {
        let block = &mut self.nodes[first as usize..first as usize + 4];
        block.fill(Node {
            rect: EMPTY,
            first: NONE,
            count: Node::FREE,
        });
        block[0].first = self.free_block;
        self.free_block = first;
    }

    pub fn reset(&mut self) {
        self.nodes.truncate(1);
        self.nodes[0] = Node::EMPTY_LEAF;
        self.free_block = NONE;
    }
}
