//! parry's `Bvh` (parry2d, and parry3d for the 3D scenario): the incremental
//! binary BVH rapier's broad phase is built on. One adapter, written once and
//! instantiated for each crate by [`parry_index!`].

/// `parry_index!(module, crate, Type, "name", dimensions)`: the adapter over
/// one parry crate.
macro_rules! parry_index {
    ($module:ident, $krate:ident, $index:ident, $name:literal, $dims:literal) => {
        mod $module {
            use rayon::prelude::*;
            use $krate::bounding_volume::Aabb as ParryAabb;
            use $krate::math::{Real, Vector};
            use $krate::partitioning::{Bvh, BvhBuildStrategy, BvhLeafUpdateStatus, BvhWorkspace};

            use crate::workload::{Aabb, Agents};
            use crate::{unsupported, BenchError, Index, Mode};

            /// parry's `Bvh` under the agents workload, used as rapier uses it: every frame
            /// `insert_or_update_partially` for each agent (leaf index = agent id), then `refit`
            /// and `optimize_incremental`. All-pairs is `traverse_bvtt_single_tree` (the tree
            /// against itself, each pair once; `leaf_pairs(&bvh, &bvh)` would yield every pair in
            /// both orders and every leaf with itself); per-agent is `intersect_aabb`, dropping the
            /// agent's own leaf. The change-detection margin is 0, so leaves hold the exact
            /// rectangles and parry's node test (`mins <= other.maxs && maxs >= other.mins`) is
            /// the closed test: no post-filter needed. Static scenarios: `intersect_aabb` per
            /// query on the tree `Bvh::from_leaves` built, a point being a zero-size box.
            ///
            /// With [`with_threads`]($index::with_threads), parry's own parallel calls (its
            /// `parallel` feature) in the rayon pool the caller installs:
            /// `insert_or_update_batch_partially_parallel`, `refit_parallel` (the same tree as
            /// `refit`), `traverse_bvtt_single_tree_parallel` (the serial walk's pairs, in its
            /// order, gathered into a `Vec`, as our `par_pairs` does, where the one-thread walk
            /// only counts them), and per agent (and per static query) one `intersect_aabb`
            /// each over rayon's `par_iter`. `optimize_incremental` has no parallel version
            /// and stays serial.
            pub struct $index {
                name: &'static str,
                threads: usize,
                bvh: Bvh,
                workspace: BvhWorkspace,
                /// The parallel update's batch and statuses, kept between frames.
                updates: Vec<(ParryAabb, u32, Real)>,
                statuses: Vec<BvhLeafUpdateStatus>,
            }

            impl Default for $index {
                fn default() -> Self {
                    $index {
                        name: $name,
                        threads: 1,
                        bvh: Bvh::default(),
                        workspace: BvhWorkspace::default(),
                        updates: Vec::new(),
                        statuses: Vec::new(),
                    }
                }
            }

            impl $index {
                /// An empty adapter.
                pub fn new() -> Self {
                    Self::default()
                }

                /// The adapter on `threads` threads (parry's parallel calls when above 1),
                /// named `name` in the table.
                pub fn with_threads(mut self, threads: usize, name: &'static str) -> Self {
                    self.threads = threads.max(1);
                    self.name = name;
                    self
                }

                /// The sum of `hits(i)` for `i` in `0..n`, over rayon's `par_iter` on threads.
                fn sum_hits(&self, n: usize, hits: impl Fn(usize) -> u64 + Sync + Send) -> u64 {
                    if self.threads > 1 {
                        (0..n).into_par_iter().map(hits).sum()
                    } else {
                        (0..n).map(hits).sum()
                    }
                }

                /// The total hits of one `intersect_aabb` a query.
                fn count_hits<Q: Sync>(
                    &self,
                    queries: &[Q],
                    to_aabb: impl Fn(&Q) -> ParryAabb + Sync + Send,
                ) -> u64 {
                    self.sum_hits(queries.len(), |i| {
                        self.bvh.intersect_aabb(&to_aabb(&queries[i])).count() as u64
                    })
                }
            }

            fn aabb(agents: &Agents, id: usize) -> ParryAabb {
                let (lo, hi) = agents.corners::<$dims>(id);
                ParryAabb::new(Vector::from_slice(&lo), Vector::from_slice(&hi))
            }

            impl Index for $index {
                fn name(&self) -> &'static str {
                    self.name
                }

                fn threads(&self) -> usize {
                    self.threads
                }

                fn supports(&self, mode: Mode) -> bool {
                    mode != Mode::Events && ($dims == 2 || !mode.is_query())
                }

                fn dimensions(&self) -> usize {
                    $dims
                }

                fn build(&mut self, agents: &Agents) -> Result<(), BenchError> {
                    let leaves: Vec<ParryAabb> =
                        (0..agents.len()).map(|id| aabb(agents, id)).collect();
                    self.bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, &leaves);
                    self.workspace = BvhWorkspace::default();
                    Ok(())
                }

                fn update(&mut self, agents: &Agents) -> Result<(), BenchError> {
                    if self.threads > 1 {
                        self.updates.clear();
                        self.updates.par_extend(
                            (0..agents.len())
                                .into_par_iter()
                                .map(|id| (aabb(agents, id), id as u32, 0.0)),
                        );
                        self.bvh.insert_or_update_batch_partially_parallel(
                            &self.updates,
                            &mut self.statuses,
                        );
                        self.bvh.refit_parallel(&mut self.workspace);
                    } else {
                        for id in 0..agents.len() {
                            self.bvh
                                .insert_or_update_partially(aabb(agents, id), id as u32, 0.0);
                        }
                        self.bvh.refit(&mut self.workspace);
                    }
                    self.bvh.optimize_incremental(&mut self.workspace);
                    Ok(())
                }

                fn per_agent(&mut self, agents: &Agents) -> Result<u64, BenchError> {
                    Ok(self.sum_hits(agents.len(), |id| {
                        self.bvh
                            .intersect_aabb(&aabb(agents, id))
                            .filter(|&leaf| leaf as usize != id)
                            .count() as u64
                    }))
                }

                fn all_pairs(&mut self, _agents: &Agents) -> Result<u64, BenchError> {
                    if self.threads > 1 {
                        return Ok(
                            self.bvh.traverse_bvtt_single_tree_parallel::<false>().len() as u64
                        );
                    }
                    let mut pairs = 0u64;
                    self.bvh
                        .traverse_bvtt_single_tree::<false>(&mut self.workspace, &mut |_, _| {
                            pairs += 1
                        });
                    Ok(pairs)
                }

                fn rect_queries(&mut self, queries: &[Aabb]) -> Result<u64, BenchError> {
                    if $dims != 2 {
                        return Err(unsupported(self.name(), Mode::RectQueries));
                    }
                    Ok(self.count_hits(queries, |q| {
                        let (lo, hi) = ([q.x1, q.y1], [q.x2, q.y2]);
                        ParryAabb::new(Vector::from_slice(&lo), Vector::from_slice(&hi))
                    }))
                }

                fn point_queries(&mut self, points: &[[f32; 2]]) -> Result<u64, BenchError> {
                    if $dims != 2 {
                        return Err(unsupported(self.name(), Mode::PointQueries));
                    }
                    Ok(self.count_hits(points, |point| {
                        let p = Vector::from_slice(point);
                        ParryAabb::new(p, p)
                    }))
                }

                fn bytes(&self) -> Option<usize> {
                    // With the threaded update's kept batch, as other adapters count theirs.
                    let kept = self.updates.capacity()
                        * core::mem::size_of::<(ParryAabb, u32, Real)>()
                        + self.statuses.capacity() * core::mem::size_of::<BvhLeafUpdateStatus>();
                    Some(self.bvh.total_memory_size() + kept)
                }
            }
        }
        pub use $module::$index;
    };
}

parry_index!(two, parry2d, ParryIndex, "parry2d-bvh", 2);
parry_index!(three, parry3d, Parry3dIndex, "parry3d-bvh", 3);
