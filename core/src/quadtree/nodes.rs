//! The quadtree's nodes, allocated and freed four at a time.

use arrayvec::ArrayVec;

use crate::blocks::{BlockNode, BlockPool};
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
pub(crate) type NodePool = BlockPool<Node>;

impl BlockNode for Node {
    const EMPTY_LEAF: Node = Node::EMPTY_LEAF;
    const FREED: Node = Node {
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
