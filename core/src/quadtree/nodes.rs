//! The quadtree's nodes, allocated and freed four at a time.

use arrayvec::ArrayVec;

use crate::quadtree::lines::{place_of, unpack_place, Cell, Place, NO_PLACE};
use crate::slots::NONE;

/// A quadtree node in 8 bytes. A leaf holds the head of its element links and
/// their count; a branch holds the index of the first of its four contiguous
/// children and `count == BRANCH`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub(crate) struct Node {
    pub first: u32,
    pub count: i32,
}

impl Node {
    pub const BRANCH: i32 = -1;
    /// Marks the nodes of a freed block (only for validation and debugging).
    pub const FREE: i32 = -2;
    pub const EMPTY_LEAF: Node = Node {
        first: NONE,
        count: 0,
    };

    #[inline]
    pub fn is_branch(self) -> bool {
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

    /// Four empty leaves; returns the index of the first.
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

/// The leaves a descent reached, kept while they may still form a place.
#[derive(Default)]
pub(crate) struct LeafSet {
    pub cells: ArrayVec<Cell, 4>,
    overflow: bool,
}

impl LeafSet {
    pub fn add(&mut self, cell: Cell) {
        self.overflow |= self.cells.try_push(cell).is_err();
    }

    pub fn place(&self) -> Place {
        if self.overflow {
            NO_PLACE
        } else {
            place_of(&self.cells)
        }
    }
}

/// The leaves an element with a known `home` lies in: `home` itself for a
/// one-leaf place, else the children of `home` its place names.
pub(crate) fn home_leaves(place: Place, home: u32, nodes: &[Node]) -> HomeLeaves {
    let (_, x0, y0, wx, wy) = unpack_place(place);
    if wx == 1 && wy == 1 {
        return HomeLeaves {
            first: home,
            mask: 1,
        };
    }
    let mut mask = 0;
    for x in x0..x0 + wx {
        for y in y0..y0 + wy {
            mask |= 1 << ((x & 1) + 2 * (y & 1));
        }
    }
    HomeLeaves {
        first: nodes[home as usize].first,
        mask,
    }
}

/// Iterator of [`home_leaves`]: node indices `first + k` for the bits `k` of `mask`.
pub(crate) struct HomeLeaves {
    first: u32,
    mask: u32,
}

impl Iterator for HomeLeaves {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        if self.mask == 0 {
            return None;
        }
        let k = self.mask.trailing_zeros();
        self.mask &= self.mask - 1;
        Some(self.first + k)
    }
}
