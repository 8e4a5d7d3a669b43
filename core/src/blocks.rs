//! The node pool of the trees: nodes in one `Vec`, allocated and freed a block
//! of siblings at a time (four; eight in the octree), a free list of blocks threaded through their first
//! nodes. Node 0 is the root and is never freed. Shared by the quadtree and
//! the loose quadtree, whose nodes differ (8 bytes, 24 with a box).

use crate::slots::NONE;

/// A tree node the pool can hold: an empty leaf, a freed node, and the field
/// that links a freed block to the next.
pub(crate) trait BlockNode: Copy {
    /// A leaf holding nothing (a new block's four nodes).
    const EMPTY_LEAF: Self;
    /// A node of a freed block (marked for validation and debugging).
    const FREED: Self;
    /// The next free block, read from a freed block's first node.
    fn next_free(&self) -> u32;
    /// Sets [`next_free`](BlockNode::next_free).
    fn set_next_free(&mut self, next: u32);
}

/// Nodes, allocated and freed four at a time.
#[derive(Clone, Debug)]
pub(crate) struct BlockPool<N> {
    pub nodes: Vec<N>,
    /// First node of the first free block; the block's first node links the next.
    pub free_block: u32,
}

impl<N: BlockNode> BlockPool<N> {
    pub fn new() -> BlockPool<N> {
        BlockPool {
            nodes: vec![N::EMPTY_LEAF],
            free_block: NONE,
        }
    }

    /// Four empty leaves; returns the index of the first.
    pub fn alloc_block(&mut self) -> u32 {
        self.alloc_block_of(4)
    }

    /// `size` empty leaves (every block of a pool has the same size); returns
    /// the index of the first.
    #[inline]
    pub fn alloc_block_of(&mut self, size: u32) -> u32 {
        let size = size as usize;
        if self.free_block != NONE {
            let first = self.free_block;
            self.free_block = self.nodes[first as usize].next_free();
            self.nodes[first as usize..first as usize + size].fill(N::EMPTY_LEAF);
            first
        } else {
            let first = self.nodes.len();
            assert!(
                first + size < NONE as usize,
                "flatquad: more than 2^32 - 1 nodes"
            );
            self.nodes.resize(first + size, N::EMPTY_LEAF);
            first as u32
        }
    }

    pub fn free_block(&mut self, first: u32) {
        self.free_block_of(first, 4)
    }

    /// Frees the block of `size` nodes starting at `first`.
    pub fn free_block_of(&mut self, first: u32, size: u32) {
        let block = &mut self.nodes[first as usize..(first + size) as usize];
        block.fill(N::FREED);
        block[0].set_next_free(self.free_block);
        self.free_block = first;
    }

    pub fn reset(&mut self) {
        self.nodes.truncate(1);
        self.nodes[0] = N::EMPTY_LEAF;
        self.free_block = NONE;
    }
}
