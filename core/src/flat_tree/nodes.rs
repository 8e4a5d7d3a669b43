//! The flat tree's nodes, allocated and freed four (eight in 3D) at a time.

use arrayvec::ArrayVec;

use crate::blocks::{BlockNode, BlockPool};
use crate::dimension::Dimension;
use crate::slots::NONE;
use crate::tree_lines::{place_of, unpack_place, Cell, Place, NO_PLACE};

/// A tree node in 8 bytes. A leaf holds the head of its element links and
/// their count; a branch holds the index of the first of its four (eight)
/// contiguous children and `count == BRANCH`.
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

/// Nodes, allocated and freed a block of siblings at a time; node 0 is the
/// root and never freed.
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

/// The leaves a descent reached, kept while they may still form a place (of
/// at most 2 × 2 × 2 leaves).
pub(crate) struct LeafSet<D: Dimension> {
    pub cells: ArrayVec<Cell<D>, 8>,
    overflow: bool,
}

impl<D: Dimension> Default for LeafSet<D> {
    fn default() -> Self {
        LeafSet {
            cells: ArrayVec::new(),
            overflow: false,
        }
    }
}

impl<D: Dimension> LeafSet<D> {
    pub fn add(&mut self, cell: Cell<D>) {
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

/// The child index (bit `a`: the high side of axis `a`) of a cell with
/// coordinates `at` within its block of siblings.
#[inline]
pub(crate) fn sibling_index(at: &[u32]) -> u32 {
    at.iter()
        .enumerate()
        .fold(0, |k, (axis, &v)| k | (v & 1) << axis)
}

/// The leaves an element with a known `home` lies in: `home` itself for a
/// one-leaf place, else the children of `home` its place names.
pub(crate) fn home_leaves<D: Dimension>(place: Place, home: u32, nodes: &[Node]) -> HomeLeaves {
    let block = unpack_place::<D>(place);
    if block.is_one_leaf() {
        return HomeLeaves {
            first: home,
            mask: 1,
        };
    }
    // Every cell of the block, as the children of `home` they are.
    let mut mask = 0;
    for k in 0..D::CHILDREN {
        let mut at = block.at;
        let mut inside = true;
        for axis in 0..D::AXES {
            let offset = k >> axis & 1;
            inside &= offset < block.width.as_ref()[axis];
            at.as_mut()[axis] += offset;
        }
        if inside {
            mask |= 1 << sibling_index(at.as_ref());
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
