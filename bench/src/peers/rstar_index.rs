//! rstar: an R*-tree, bulk-loaded every frame (its fastest way to follow moving
//! objects; per-object removal and re-insertion is far slower).

use rstar::{Point, RTree, RTreeObject, AABB};

use crate::workload::{Aabb, Agents};
use crate::{unsupported, BenchError, Index, Mode};

/// One agent in the tree.
#[derive(Clone, Copy, Debug)]
struct Item<const D: usize> {
    envelope: AABB<[f32; D]>,
    id: u32,
}

impl<const D: usize> RTreeObject for Item<D>
where
    [f32; D]: Point<Scalar = f32>,
{
    type Envelope = AABB<[f32; D]>;

    fn envelope(&self) -> Self::Envelope {
        self.envelope
    }
}

fn item<const D: usize>(agents: &Agents, id: usize) -> Item<D>
where
    [f32; D]: Point<Scalar = f32>,
{
    let (lo, hi) = agents.corners::<D>(id);
    Item {
        envelope: AABB::from_corners(lo, hi),
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
/// `D` is 2, or 3 for the cubes of the 3D scenario (`Rstar3dIndex`).
pub struct RstarIndex<const D: usize = 2>
where
    [f32; D]: Point<Scalar = f32>,
{
    tree: RTree<Item<D>>,
}

/// rstar in 3D, over the cubes of `uniform3d-100k`.
pub type Rstar3dIndex = RstarIndex<3>;

impl<const D: usize> RstarIndex<D>
where
    [f32; D]: Point<Scalar = f32>,
{
    /// An empty adapter.
    pub fn new() -> Self {
        RstarIndex { tree: RTree::new() }
    }
}

impl<const D: usize> Default for RstarIndex<D>
where
    [f32; D]: Point<Scalar = f32>,
{
    fn default() -> Self {
        Self::new()
    }
}

impl<const D: usize> Index for RstarIndex<D>
where
    [f32; D]: Point<Scalar = f32>,
{
    fn name(&self) -> &'static str {
        if D == 3 {
            "rstar 3d"
        } else {
            "rstar"
        }
    }

    fn supports(&self, mode: Mode) -> bool {
        mode != Mode::Events && (D == 2 || !mode.is_query())
    }

    fn dimensions(&self) -> usize {
        D
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
        if D != 2 {
            return Err(unsupported(self.name(), Mode::RectQueries));
        }
        let mut hits = 0u64;
        for q in queries {
            let corner = |x: f32, y: f32| core::array::from_fn(|axis| [x, y][axis]);
            let envelope = AABB::from_corners(corner(q.x1, q.y1), corner(q.x2, q.y2));
            hits += self.tree.locate_in_envelope_intersecting(envelope).count() as u64;
        }
        Ok(hits)
    }

    fn point_queries(&mut self, points: &[[f32; 2]]) -> Result<u64, BenchError> {
        if D != 2 {
            return Err(unsupported(self.name(), Mode::PointQueries));
        }
        let mut hits = 0u64;
        for &[x, y] in points {
            let envelope = AABB::from_point(core::array::from_fn(|axis| [x, y][axis]));
            hits += self.tree.locate_in_envelope_intersecting(envelope).count() as u64;
        }
        Ok(hits)
    }
}
