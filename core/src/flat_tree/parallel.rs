//! The all-pairs walk on every thread of rayon's pool (cargo feature `rayon`).

use crate::dimension::Dimension;
use crate::flat_tree::FlatTree;
use crate::index::collect_pairs;
use crate::index::parallel::{pairs_by_parts, walk_parts, TASKS_PER_THREAD};
use crate::tree_lines::Cell;
use crate::Handle;

impl<D: Dimension> FlatTree<D> {
    /// From this many elements [`pairs_parallel`](FlatTree::pairs_parallel)
    /// takes the threads. On 2 threads, against the walk on one in the same
    /// process (2026-11-28, since the lists are packed): uniform-100k
    /// 2.54 → 1.44 ms, uniform3d-100k 2.8–3.7 → 1.8–2.2, uniform-20k
    /// 0.30 → 0.22; level at 5,000 elements, a gain at 10,000.
    pub(crate) const PAR_PAIRS_FROM: usize = 10_000;

    /// The pairs on all of rayon's threads, each once, in the order of the
    /// one-thread walk on any number of threads. Each pair belongs to one leaf,
    /// so disjoint subtrees are walked independently; their results are then
    /// concatenated in the order that walk visits them (this allocates one
    /// `Vec` per subtree).
    pub(crate) fn pairs_parallel(&self, pairs: &mut Vec<(Handle, Handle)>) {
        let wanted = rayon::current_num_threads() * TASKS_PER_THREAD * SUBTREES_PER_TASK;
        pairs_by_parts(self.subtrees(wanted), pairs, |top, found| {
            let _ = self.pairs_below(top, collect_pairs(found));
        });
    }

    /// Cells of disjoint subtrees covering every leaf, at least `wanted` of them
    /// when the tree is big enough: the root split breadth-first, each cell's
    /// children put in its place last child first, the order in which the
    /// walk's stack takes them (so the subtrees are in the walk's order).
    fn subtrees(&self, wanted: usize) -> Vec<Cell<D>> {
        walk_parts(Cell::ROOT, wanted, |cell, children| {
            let node = self.nodes.nodes[cell.node as usize];
            if node.is_branch() {
                children.extend((0..D::CHILDREN).map(|k| cell.child(node.first, k)));
            }
            node.is_branch()
        })
    }
}

/// Subtrees are uneven (a crowd fills one, the sea around it others), so each
/// task of the pool gets several: on 2 threads against one, mixed-100k's
/// quadtree 1.58× / 1.64× faster with one a task, 1.77× / 1.80× with four.
const SUBTREES_PER_TASK: usize = 4;
