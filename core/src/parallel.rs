//! The all-pairs walk and batch queries on every thread of rayon's pool
//! (cargo feature `rayon`).

use core::ops::ControlFlow;

use rayon::prelude::*;

use crate::cell::Cell;
use crate::{Error, Handle, Quadtree, Rect};

/// Subtrees handed out per thread, so that uneven ones even out.
const TASKS_PER_THREAD: usize = 4;

/// Below this many elements the pair walk takes about a millisecond and two
/// threads gained nothing on uniform-100k (x1.0); at 1,000,000 they gave x1.8.
const PAR_PAIRS_MIN_ELEMENTS: usize = 250_000;

/// Below this many rectangles a batch query stays on the calling thread.
const PAR_QUERY_MIN_RECTS: usize = 1_000;

impl Quadtree {
    /// [`pairs`](Quadtree::pairs) on all of rayon's threads: the same pairs, each
    /// once, in an unspecified order. Each pair belongs to one leaf, so disjoint
    /// subtrees are walked independently; their results are then concatenated
    /// (this allocates one `Vec` per subtree). Trees under 250,000 elements are
    /// walked on the calling thread, where more threads did not pay.
    pub fn par_pairs(&self, pairs: &mut Vec<(Handle, Handle)>) {
        if self.len() < PAR_PAIRS_MIN_ELEMENTS || rayon::current_num_threads() == 1 {
            return self.pairs(pairs);
        }
        let parts: Vec<Vec<(Handle, Handle)>> = self
            .subtrees(rayon::current_num_threads() * TASKS_PER_THREAD)
            .par_iter()
            .map(|&top| {
                let mut part = Vec::new();
                let _ = self.pairs_below(top, |a, b| {
                    part.push((a, b));
                    ControlFlow::Continue(())
                });
                part
            })
            .collect();
        pairs.clear();
        pairs.reserve(parts.iter().map(Vec::len).sum());
        for part in parts {
            pairs.extend(part);
        }
    }

    /// [`query_many`](Quadtree::query_many) on all of rayon's threads, with the
    /// same result (batches under 1,000 rectangles stay on the calling thread).
    ///
    /// # Errors
    /// As [`query_many`](Quadtree::query_many).
    pub fn par_query_many(
        &self,
        rects: &[Rect],
        omit: Option<&[Handle]>,
        offsets: &mut Vec<usize>,
        hits: &mut Vec<Handle>,
    ) -> Result<(), Error> {
        if rects.len() < PAR_QUERY_MIN_RECTS || rayon::current_num_threads() == 1 {
            return self.query_many(rects, omit, offsets, hits);
        }
        self.check_query_many(rects, omit)?;
        let chunk = rects
            .len()
            .div_ceil(rayon::current_num_threads() * TASKS_PER_THREAD)
            .max(1);
        let parts: Vec<(Vec<usize>, Vec<Handle>)> = rects
            .par_chunks(chunk)
            .enumerate()
            .map(|(c, rects)| {
                let omit = omit.map(|omit| &omit[c * chunk..c * chunk + rects.len()]);
                let (mut counts, mut found) = (Vec::with_capacity(rects.len()), Vec::new());
                self.query_each(rects, omit, &mut counts, &mut found);
                (counts, found)
            })
            .collect();
        offsets.clear();
        offsets.reserve(rects.len() + 1);
        offsets.push(0);
        hits.clear();
        for (counts, found) in parts {
            for count in counts {
                offsets.push(offsets[offsets.len() - 1] + count);
            }
            hits.extend(found);
        }
        Ok(())
    }

    /// Cells of disjoint subtrees covering every leaf, at least `wanted` of them
    /// when the tree is big enough: the root split breadth-first.
    fn subtrees(&self, wanted: usize) -> Vec<Cell> {
        let mut cells = vec![Cell::ROOT];
        loop {
            let mut next = Vec::with_capacity(cells.len() * 4);
            let mut split_any = false;
            for cell in &cells {
                let node = self.nodes.nodes[cell.node as usize];
                if node.is_branch() {
                    next.extend((0..4).map(|k| cell.child(node.first, k)));
                    split_any = true;
                } else {
                    next.push(*cell);
                }
            }
            if !split_any {
                return cells;
            }
            cells = next;
            if cells.len() >= wanted {
                return cells;
            }
        }
    }
}
