//! The loose quadtree's nodes, allocated and freed four at a time, and the box
//! arithmetic.

use crate::blocks::{BlockNode, BlockPool};
use crate::rect::EMPTY;
use crate::slots::NONE;
use crate::tree_lines::Cell;
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

/// The parent cell of each block of four siblings, indexed by block number
/// (`(first - 1) / 4`): a node's cell and its parent without storing either
/// in the 24-byte node, so that a move can start from the element's leaf
/// rather than from the root. Rebuilt from the tree when a snapshot is read;
/// entries of freed blocks are stale and never read.
#[derive(Clone, Debug, Default)]
pub(crate) struct Families {
    pub parents: Vec<Cell>,
}

impl Families {
    /// Records that the block starting at `first` holds `parent`'s children.
    pub fn set(&mut self, first: u32, parent: Cell) {
        let block = (first - 1) as usize / 4;
        if block >= self.parents.len() {
            self.parents.resize(block + 1, Cell::ROOT);
        }
        self.parents[block] = parent;
    }

    /// The cell of a node in the tree.
    #[inline]
    pub fn cell(&self, node: u32) -> Cell {
        if node == 0 {
            return Cell::ROOT;
        }
        let parent = &self.parents[(node - 1) as usize / 4];
        parent.child(node - (node - 1) % 4, (node - 1) % 4)
    }

    /// The parent of a node other than the root.
    #[inline]
    pub fn parent(&self, node: u32) -> u32 {
        self.parents[(node - 1) as usize / 4].node
    }

    pub fn bytes(&self) -> usize {
        self.parents.capacity() * core::mem::size_of::<Cell>()
    }
}
