//! parry's `Bvh` (parry2d, and parry3d for the 3D scenario): the incremental
//! binary BVH rapier's broad phase is built on. One adapter, written once and
//! instantiated for each crate by [`parry_index!`].

/// `parry_index!(module, crate, Type, "name", dimensions)`: the adapter over
/// one parry crate.
macro_rules! parry_index {
    ($module:ident, $krate:ident, $index:ident, $name:literal, $dims:literal) => {
        mod $module {
            use $krate::bounding_volume::Aabb as ParryAabb;
            use $krate::math::Vector;
            use $krate::partitioning::{Bvh, BvhBuildStrategy, BvhWorkspace};

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
            #[derive(Default)]
            pub struct $index {
                bvh: Bvh,
                workspace: BvhWorkspace,
            }

            impl $index {
                /// An empty adapter.
                pub fn new() -> Self {
                    Self::default()
                }
            }

            fn aabb(agents: &Agents, id: usize) -> ParryAabb {
                let (lo, hi) = agents.corners::<$dims>(id);
                ParryAabb::new(Vector::from_slice(&lo), Vector::from_slice(&hi))
            }

            impl Index for $index {
                fn name(&self) -> &'static str {
                    $name
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
                    for id in 0..agents.len() {
                        self.bvh
                            .insert_or_update_partially(aabb(agents, id), id as u32, 0.0);
                    }
                    self.bvh.refit(&mut self.workspace);
                    self.bvh.optimize_incremental(&mut self.workspace);
                    Ok(())
                }

                fn per_agent(&mut self, agents: &Agents) -> Result<u64, BenchError> {
                    let mut hits = 0u64;
                    for id in 0..agents.len() {
                        let query = aabb(agents, id);
                        hits += self
                            .bvh
                            .intersect_aabb(&query)
                            .filter(|&leaf| leaf as usize != id)
                            .count() as u64;
                    }
                    Ok(hits)
                }

                fn all_pairs(&mut self, _agents: &Agents) -> Result<u64, BenchError> {
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
                    let mut hits = 0u64;
                    for q in queries {
                        let (lo, hi) = ([q.x1, q.y1], [q.x2, q.y2]);
                        let query =
                            ParryAabb::new(Vector::from_slice(&lo), Vector::from_slice(&hi));
                        hits += self.bvh.intersect_aabb(&query).count() as u64;
                    }
                    Ok(hits)
                }

                fn point_queries(&mut self, points: &[[f32; 2]]) -> Result<u64, BenchError> {
                    if $dims != 2 {
                        return Err(unsupported(self.name(), Mode::PointQueries));
                    }
                    let mut hits = 0u64;
                    for point in points {
                        let p = Vector::from_slice(point);
                        hits += self.bvh.intersect_aabb(&ParryAabb::new(p, p)).count() as u64;
                    }
                    Ok(hits)
                }

                fn bytes(&self) -> Option<usize> {
                    Some(self.bvh.total_memory_size())
                }
            }
        }
        pub use $module::$index;
    };
}

parry_index!(two, parry2d, ParryIndex, "parry2d-bvh", 2);
parry_index!(three, parry3d, Parry3dIndex, "parry3d-bvh", 3);
