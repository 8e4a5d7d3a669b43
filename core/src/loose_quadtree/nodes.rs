//! The loose quadtree's nodes, allocated and freed four at a time, and the box
//! arithmetic.

use crate::blocks::{BlockNode, BlockPool};
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
pub(crate) type NodePool = BlockPool<Node>;

impl BlockNode for Node {
    const EMPTY_LEAF: Node = Node::EMPTY_LEAF;
    const FREED: Node = Node {
        rect: EMPTY,
        first: NONE,
        count: Node::FREE,
    };
    #[inline]
    fn next_free(&self) -> u32 {
        self.first
    }
    #[inline]
    fn set_next_free(&mut self, next: u32) {
        self.first = next;
    }
}
