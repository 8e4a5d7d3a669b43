//! broccoli: a KD tree / sweep-and-prune hybrid built from scratch over a slice.

use broccoli::aabb::pin::AabbPin;
use broccoli::axgeom::Rect;
use broccoli::{Tree, TreeData};
use broccoli_rayon::prelude::{RayonBuildPar, RayonQueryPar};
use rayon::prelude::*;

use crate::workload::{Aabb, Agents};
use crate::{BenchError, Index, Mode};

/// broccoli under the agents workload, all-pairs only (it has no persistent tree to
/// query per agent). The tree borrows the slice it sorts, so it cannot live in the
/// adapter between calls: update writes every element's new rectangle (elements stay
/// in the order the last build left them, each carrying its agent id) and rebuilds
/// the tree, keeping only its [`TreeData`]; collide re-attaches that data to the
/// slice with [`Tree::from_tree_data`] (cheap: no sorting) and calls
/// `find_colliding_pairs`. broccoli's test is closed (`!(a.end < b.start || ...)`, and
/// its sweep keeps `end >= start`), as the workload wants: no post-filter.
///
/// Static scenarios: `find_all_intersect_rect` per query (the tree re-attached
/// once per batch). Its test is open (`get_intersect_rect` wants a positive overlap
/// on both axes, so a point query never hits), though its descent is closed: each
/// query is widened on every side by `max(1, |v| * 1e-6)` (more than an ulp, so a
/// closed hit of the query overlaps the widened one openly, agents having positive
/// sides), and the candidates get the exact closed test.
///
/// With [`BroccoliIndex::with_threads`], update builds with `broccoli-rayon`'s
/// `par_new` and all-pairs counts with its `par_find_colliding_pairs_acc_closure`,
/// in the rayon pool the caller installs.
pub struct BroccoliIndex {
    name: &'static str,
    threads: usize,
    elements: Vec<(Rect<f32>, u32)>,
    data: Option<TreeData<f32>>,
}

impl Default for BroccoliIndex {
    fn default() -> Self {
        BroccoliIndex {
            name: "broccoli",
            threads: 1,
            elements: Vec::new(),
            data: None,
        }
    }
}

impl BroccoliIndex {
    /// An empty adapter.
    pub fn new() -> Self {
        Self::default()
    }

    /// The same adapter building and walking the pairs on the threads of the
    /// rayon pool the caller installs (`threads` > 1), reported as `name`.
    pub fn with_threads(mut self, threads: usize, name: &'static str) -> Self {
        self.threads = threads.max(1);
        self.name = name;
        self
    }

    fn rebuild(&mut self) {
        self.data = Some(if self.threads > 1 {
            Tree::par_new(&mut self.elements).get_tree_data()
        } else {
            Tree::new(&mut self.elements).get_tree_data()
        });
    }

    /// The total hits of `queries` (a point being a zero-size rectangle).
    fn count_hits(&mut self, queries: impl IntoIterator<Item = Aabb>) -> Result<u64, BenchError> {
        let data = self
            .data
            .as_ref()
            .ok_or_else(|| BenchError::new("broccoli: the index was not built"))?;
        let mut tree = Tree::from_tree_data(&mut self.elements, data);
        let mut hits = 0u64;
        for q in queries {
            let widen = |v: f32| 1f32.max(v.abs() * 1e-6);
            let mut wide = broccoli::rect(
                q.x1 - widen(q.x1),
                q.x2 + widen(q.x2),
                q.y1 - widen(q.y1),
                q.y2 + widen(q.y2),
            );
            tree.find_all_intersect_rect(AabbPin::new(&mut wide), |_, a| {
                let r = &a.0;
                if r.x.start <= q.x2 && q.x1 <= r.x.end && r.y.start <= q.y2 && q.y1 <= r.y.end {
                    hits += 1;
                }
            });
        }
        Ok(hits)
    }
}

fn rect(agents: &Agents, id: usize) -> Rect<f32> {
    let r = agents.rect(id);
    // axgeom's argument order: x start, x end, y start, y end.
    broccoli::rect(r.x1, r.x2, r.y1, r.y2)
}

impl Index for BroccoliIndex {
    fn name(&self) -> &'static str {
        self.name
    }

    fn threads(&self) -> usize {
        self.threads
    }

    fn supports(&self, mode: Mode) -> bool {
        !matches!(mode, Mode::PerAgent | Mode::Events)
    }

    fn build(&mut self, agents: &Agents) -> Result<(), BenchError> {
        self.elements = (0..agents.len())
            .map(|id| (rect(agents, id), id as u32))
            .collect();
        self.rebuild();
        Ok(())
    }

    fn update(&mut self, agents: &Agents) -> Result<(), BenchError> {
        let each = |(r, id): &mut (Rect<f32>, u32)| *r = rect(agents, *id as usize);
        // With threads, the boxes too are written on every thread.
        if self.threads > 1 {
            self.elements.par_iter_mut().for_each(each);
        } else {
            self.elements.iter_mut().for_each(each);
        }
        self.rebuild();
        Ok(())
    }

    fn all_pairs(&mut self, _agents: &Agents) -> Result<u64, BenchError> {
        let data = self
            .data
            .as_ref()
            .ok_or_else(|| BenchError::new("broccoli: the index was not built"))?;
        let mut tree = Tree::from_tree_data(&mut self.elements, data);
        if self.threads > 1 {
            return Ok(tree.par_find_colliding_pairs_acc_closure(
                0u64,
                |_| 0,
                |a, b| *a += b,
                |a, _, _| *a += 1,
            ));
        }
        let mut pairs = 0u64;
        tree.find_colliding_pairs(|_, _| pairs += 1);
        Ok(pairs)
    }

    fn rect_queries(&mut self, queries: &[Aabb]) -> Result<u64, BenchError> {
        self.count_hits(queries.iter().copied())
    }

    fn point_queries(&mut self, points: &[[f32; 2]]) -> Result<u64, BenchError> {
        self.count_hits(points.iter().map(|&[x, y]| Aabb::point(x, y)))
    }

    fn bytes(&self) -> Option<usize> {
        Some(self.elements.capacity() * std::mem::size_of::<(Rect<f32>, u32)>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{Layout, Scenario};
    use crate::{oracle, run};

    #[test]
    fn threads_match_the_oracle() {
        let s = Scenario {
            name: "small",
            layout: Layout::Mixed,
            n: 3000,
            world: 512.0,
            size: 4.0,
            frames: 3,
            aging: 0,
            checksum: None,
            queries: None,
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let expected = oracle::checksum(&s);
        let mut index = BroccoliIndex::new().with_threads(2, "broccoli (2 threads)");
        let report = pool
            .install(|| run(&s, &mut index, Mode::AllPairs, expected))
            .unwrap();
        assert!(report.ok(), "{report:?}");
    }
}
