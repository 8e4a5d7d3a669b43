//! parry2d's `Bvh`: the incremental binary BVH rapier's broad phase is built on.

use parry2d::bounding_volume::Aabb as ParryAabb;
use parry2d::math::Vector;
use parry2d::partitioning::{Bvh, BvhBuildStrategy, BvhWorkspace};

use crate::workload::{Aabb, Agents};
use crate::{BenchError, Index, Mode};

/// parry2d's `Bvh` under the agents workload, used as rapier uses it: every frame
/// `insert_or_update_partially` for each agent (leaf index = agent id), then `refit`
/// and `optimize_incremental`. All-pairs is `traverse_bvtt_single_tree` (the tree
/// against itself, each pair once; `leaf_pairs(&bvh, &bvh)` would yield every pair in
/// both orders and every leaf with itself); per-agent is `intersect_aabb`, dropping the
/// agent's own leaf. The change-detection margin is 0, so leaves hold the exact
/// rectangles and parry's node test (`mins <= other.maxs && maxs >= other.mins`) is
/// the closed test: no post-filter needed. Static scenarios: `intersect_aabb` per
/// query on the tree `Bvh::from_leaves` built, a point being a zero-size box.
#[derive(Default)]
pub struct ParryIndex {
    bvh: Bvh,
    workspace: BvhWorkspace,
}

impl ParryIndex {
    /// An empty adapter.
    pub fn new() -> Self {
        Self::default()
    }
}

fn aabb(agents: &Agents, id: usize) -> ParryAabb {
    let r = agents.rect(id);
    ParryAabb::new(Vector::new(r.x1, r.y1), Vector::new(r.x2, r.y2))
}

impl Index for ParryIndex {
    fn name(&self) -> &'static str {
        "parry2d-bvh"
    }

    fn supports(&self, _mode: Mode) -> bool {
        true
    }

    fn build(&mut self, agents: &Agents) -> Result<(), BenchError> {
        let leaves: Vec<ParryAabb> = (0..agents.len()).map(|id| aabb(agents, id)).collect();
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
            .traverse_bvtt_single_tree::<false>(&mut self.workspace, &mut |_, _| pairs += 1);
        Ok(pairs)
    }

    fn rect_queries(&mut self, queries: &[Aabb]) -> Result<u64, BenchError> {
        let mut hits = 0u64;
        for q in queries {
            let query = ParryAabb::new(Vector::new(q.x1, q.y1), Vector::new(q.x2, q.y2));
            hits += self.bvh.intersect_aabb(&query).count() as u64;
        }
        Ok(hits)
    }

    fn point_queries(&mut self, points: &[[f32; 2]]) -> Result<u64, BenchError> {
        let mut hits = 0u64;
        for &[x, y] in points {
            let p = Vector::new(x, y);
            hits += self.bvh.intersect_aabb(&ParryAabb::new(p, p)).count() as u64;
        }
        Ok(hits)
    }

    fn bytes(&self) -> Option<usize> {
        Some(self.bvh.total_memory_size())
    }
}
