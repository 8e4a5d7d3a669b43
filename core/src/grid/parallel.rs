//! The all-pairs walk on every thread of rayon's pool (cargo feature `rayon`).

use core::ops::ControlFlow;

use rayon::prelude::*;

use crate::grid::Grid;
use crate::index::parallel::TASKS_PER_THREAD;
use crate::index::SpatialIndex;
use crate::Handle;

/// Below this many elements the pair walk stays on the calling thread.
const PAR_PAIRS_MIN_ELEMENTS: usize = 20_000;

impl Grid {
    /// The pairs on all of rayon's threads, in the order of the walk on one
    /// thread: a pair of elements in cells belongs to the one cell owning the
    /// corner of its intersection, so bands of rows are walked independently
    /// (from the runs while they are fresh, else the lists) and their pairs
    /// concatenated in row order; the big elements' pairs follow, found on
    /// the calling thread.
    pub(crate) fn pairs_parallel(&self, pairs: &mut Vec<(Handle, Handle)>) {
        if self.len() < PAR_PAIRS_MIN_ELEMENTS || rayon::current_num_threads() == 1 {
            return crate::index::pairs_into(self, pairs);
        }
        let rows = self.rows();
        let bands = (rayon::current_num_threads() * TASKS_PER_THREAD) as u32;
        let band = rows.div_ceil(bands).max(1);
        let parts: Vec<Vec<(Handle, Handle)>> = (0..rows.div_ceil(band))
            .into_par_iter()
            .map(|b| {
                let mut part = Vec::new();
                let range = b * band..((b + 1) * band).min(rows);
                let _ = self.cell_pairs(range, &mut |a, b| {
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
        let _ = self.big_pairs(&mut |a, b| {
            pairs.push((a, b));
            ControlFlow::Continue(())
        });
    }
}
