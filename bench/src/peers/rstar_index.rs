//! rstar: an R*-tree, bulk-loaded every frame (its fastest way to follow moving
//! objects; per-object removal and re-insertion is far slower).

use rstar::{RTree, RTreeObject, AABB};

use crate::workload::{Aabb, Agents};
use crate::{BenchError, Index, Mode};

/// One agent in the tree.
#[derive(Clone, Copy, Debug)]
struct Item {
    envelope: AABB<[f32; 2]>,
    id: u32,
}

impl RTreeObject for Item {
    type Envelope = AABB<[f32; 2]>;

    fn envelope(&self) -> Self::Envelope {
        self.envelope
    }
}

fn item(agents: &Agents, id: usize) -> Item {
    let r = agents.rect(id);
    Item {
        envelope: AABB::from_corners([r.x1, r.y1], [r.x2, r.y2]),
        id: id as u32,
    }
}

/// rstar under the agents workload: update is `RTree::bulk_load` of every agent;
/// per-agent is `locate_in_envelope_intersecting`, dropping the agent itself;
/// all-pairs is the tree joined with itself by
/// `intersection_candidates_with_other_tree`, which yields every pair in both orders
/// and every item with itself, so only pairs with `a.id < b.id` are counted. rstar's
/// `AABB::intersects` is closed (`lower <= other.upper && upper >= other.lower`): no
/// post-filter needed. Static scenarios: `locate_in_envelope_intersecting` per query,
/// a point being the envelope `AABB::from_point` (`locate_all_at_point` would need
/// the items to implement `PointDistance`, which comes to the same test).
#[derive(Default)]
pub struct RstarIndex {
    tree: RTree<Item>,
}

impl RstarIndex {
    /// An empty adapter.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Index for RstarIndex {
    fn name(&self) -> &'static str {
        "rstar"
    }

    fn supports(&self, _mode: Mode) -> bool {
        true
    }

    fn build(&mut self, agents: &Agents) -> Result<(), BenchError> {
        self.update(agents)
    }

    fn update(&mut self, agents: &Agents) -> Result<(), BenchError> {
        let items = (0..agents.len()).map(|id| item(agents, id)).collect();
        self.tree = RTree::bulk_load(items);
        Ok(())
    }

    fn per_agent(&mut self, agents: &Agents) -> Result<u64, BenchError> {
        let mut hits = 0u64;
        for id in 0..agents.len() {
            let q = item(agents, id);
            hits += self
                .tree
                .locate_in_envelope_intersecting(q.envelope)
                .filter(|other| other.id != q.id)
                .count() as u64;
        }
        Ok(hits)
    }

    fn all_pairs(&mut self, _agents: &Agents) -> Result<u64, BenchError> {
        let pairs = self
            .tree
            .intersection_candidates_with_other_tree(&self.tree)
            .filter(|(a, b)| a.id < b.id)
            .count();
        Ok(pairs as u64)
    }

    fn rect_queries(&mut self, queries: &[Aabb]) -> Result<u64, BenchError> {
        let mut hits = 0u64;
        for q in queries {
            let envelope = AABB::from_corners([q.x1, q.y1], [q.x2, q.y2]);
            hits += self.tree.locate_in_envelope_intersecting(envelope).count() as u64;
        }
        Ok(hits)
    }

    fn point_queries(&mut self, points: &[[f32; 2]]) -> Result<u64, BenchError> {
        let mut hits = 0u64;
        for &p in points {
            let envelope = AABB::from_point(p);
            hits += self.tree.locate_in_envelope_intersecting(envelope).count() as u64;
        }
        Ok(hits)
    }
}
