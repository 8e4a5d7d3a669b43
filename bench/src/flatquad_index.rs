//! The flatquad adapters: one 2D structure ([`Quadtree`], [`Grid`], [`LooseGrid`]
//! or [`LooseQuadtree`], as an [`AnyIndex`]) over the world, one element per
//! agent; or, for the 3D scenario, an [`Octree`]. Both drive their structure
//! through the same generic frame functions below.

use std::ops::ControlFlow;

use rayon::prelude::*;

use flatquad::{
    AnyIndex, Bounds, Box3, Grid, Handle, Kind, LooseGrid, LooseQuadtree, Octree, PairTracker,
    Quadtree, Query, Rect, SpatialIndex,
};

use crate::workload::{Aabb, Agents, Scenario};
use crate::{BenchError, Index, Mode};

/// The structure and its parameters for a run: `None` picks the default for the
/// scenario.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlatquadConfig {
    /// Which structure.
    pub structure: Kind,
    /// Grids: the cell side in agent sides; default [`AGENTS_GRID_CELL`] for
    /// the grid, [`AGENTS_LOOSE_CELL`] for the loose grid.
    pub cell: Option<f32>,
    /// Elements a leaf holds before it splits; default
    /// [`AGENTS_MAX_ELEMENTS`].
    pub max_elements: Option<u32>,
    /// Deepest level; default [`default_max_depth`] of the world and agent size.
    pub max_depth: Option<u32>,
    /// The loose quadtree's `max_extent`, in agent sides (`None`: unbounded).
    pub max_extent: Option<f32>,
    /// Threads for the frame's queries and pair walk (`par_overlapping_many`,
    /// `par_pairs`); the caller installs a rayon pool of that many. 1: the
    /// calls on one thread.
    pub threads: usize,
    /// The fat-bounds margin, in agent sides (`None`: none).
    pub margin: Option<f32>,
}

impl Default for FlatquadConfig {
    fn default() -> Self {
        FlatquadConfig {
            structure: Kind::Quadtree,
            cell: None,
            max_elements: None,
            max_depth: None,
            max_extent: None,
            threads: 1,
            margin: None,
        }
    }
}

/// The command-line names of the structures, in table order, with the
/// `max_extent` (in agent sides) each implies.
pub const STRUCTURES: [(&str, Kind, Option<f32>); 5] = [
    ("quadtree", Kind::Quadtree, None),
    ("grid", Kind::Grid, None),
    ("loose-grid", Kind::LooseGrid, None),
    ("loose-quadtree", Kind::LooseQuadtree, None),
    (
        "loose-quadtree-bounded",
        Kind::LooseQuadtree,
        Some(AGENTS_MAX_EXTENT),
    ),
];

/// The structure (and `max_extent`) a command-line name gives.
pub fn parse_structure(name: &str) -> Option<(Kind, Option<f32>)> {
    STRUCTURES
        .iter()
        .find_map(|&(n, kind, extent)| (n == name).then_some((kind, extent)))
}

/// The loose quadtree's bound for the agents workload, in agent sides: above
/// the common agent's side, so that in mixed-100k only the 1% larger ones are
/// kept apart. Not exactly one side: an agent's `f32` width, `(x + 4) - x`,
/// is 4 give or take a rounding, and with a bound of exactly 4 a few hundred
/// uniform-100k agents went over it (per-agent 32 -> 40 ms).
pub const AGENTS_MAX_EXTENT: f32 = 1.5;

impl FlatquadConfig {
    /// The config of `structure` with its defaults.
    pub fn of(structure: Kind) -> Self {
        FlatquadConfig {
            structure,
            ..FlatquadConfig::default()
        }
    }

    /// The structure's command-line name.
    pub fn name(&self) -> &'static str {
        let bounded = self.max_extent.is_some() && self.structure == Kind::LooseQuadtree;
        STRUCTURES
            .iter()
            .find_map(|&(n, k, extent)| {
                (k == self.structure && extent.is_some() == bounded).then_some(n)
            })
            .expect("every kind has a name")
    }

    /// The grid cell side this config gives, in world units, for agents of side `size`.
    pub fn cell_side(&self, size: f32) -> f32 {
        let default = match self.structure {
            Kind::LooseGrid => AGENTS_LOOSE_CELL,
            _ => AGENTS_GRID_CELL,
        };
        self.cell.unwrap_or(default) * size
    }

    /// One line saying the structure and its parameters for `scenario`.
    pub fn describe(&self, world: f32, size: f32) -> String {
        let threads = match self.threads {
            1 => String::new(),
            n => format!("; moves, queries and pairs on {n} threads"),
        };
        let shape = match self.structure {
            Kind::Quadtree | Kind::LooseQuadtree => format!(
                "{}: max_elements {}, max_depth {}{}",
                self.name(),
                self.max_elements(),
                self.max_depth(world, size),
                self.max_extent
                    .map(|k| format!(", max_extent {} ({k} agent sides)", k * size))
                    .unwrap_or_default()
            ),
            _ => format!(
                "{}: cells of side {} ({} agent sides)",
                self.name(),
                self.cell_side(size),
                self.cell_side(size) / size
            ),
        };
        let margin = self
            .margin
            .map(|k| format!("; margin {} ({k} agent sides)", k * size))
            .unwrap_or_default();
        shape + &margin + &threads
    }

    /// The structure this config gives over a square world of side `world`.
    pub fn make(&self, world: f32, size: f32) -> Result<AnyIndex, flatquad::Error> {
        let rect = Rect::new(0.0, 0.0, world, world);
        let index: AnyIndex = match self.structure {
            Kind::Quadtree => {
                Quadtree::new(rect, self.max_elements(), self.max_depth(world, size))?.into()
            }
            Kind::Grid => {
                let side = self.cell_side(size);
                Grid::with_cell_size(rect, side, side)?.into()
            }
            Kind::LooseGrid => LooseGrid::with_cell_size(rect, self.cell_side(size))?.into(),
            Kind::LooseQuadtree => {
                let (max_elements, max_depth) = (self.max_elements(), self.max_depth(world, size));
                match self.max_extent {
                    Some(k) => {
                        LooseQuadtree::with_max_extent(rect, max_elements, max_depth, k * size)?
                    }
                    None => LooseQuadtree::new(rect, max_elements, max_depth)?,
                }
                .into()
            }
            // 3D: the octree's own adapter (`OctreeIndex`) runs it.
            Kind::Octree => AnyIndex::for_world(Kind::Octree, rect)?,
        };
        index.with_margin(self.margin.unwrap_or(0.0) * size)
    }

    /// The max elements this config gives.
    pub fn max_elements(&self) -> u32 {
        self.max_elements.unwrap_or(AGENTS_MAX_ELEMENTS)
    }

    /// The max depth this config gives for a world of side `world` and agents of
    /// side `size`: [`default_max_depth`] for the quadtree,
    /// [`loose_max_depth`] for the loose quadtree.
    pub fn max_depth(&self, world: f32, size: f32) -> u32 {
        self.max_depth.unwrap_or_else(|| match self.structure {
            Kind::LooseQuadtree => loose_max_depth(world, size),
            _ => default_max_depth(world, size),
        })
    }

    /// Checks that flatquad accepts these parameters for `scenario`'s world, so that
    /// a command line can reject bad values before running anything.
    pub fn validate(&self, scenario: &Scenario) -> Result<(), BenchError> {
        self.make(scenario.world, scenario.size)?;
        Ok(())
    }
}

/// Leaf capacity for the agents workload, chosen by measurement (see
/// `docs/design.md`): with cells of about four agent sides, 16 per leaf gave the
/// fastest all-pairs frame on uniform-100k.
pub const AGENTS_MAX_ELEMENTS: u32 = 16;

/// Agents per `overlapping_many` call in the per-agent mode: below the size at
/// which the core answers a batch with one pair walk (docs/workload.md: every
/// binding's script asks in these batches too, and `PAR_AGENT_BATCH`'s).
pub const PER_AGENT_BATCH: usize = 128;

/// Agents per `par_overlapping_many` call in the per-agent mode on many
/// threads: the call cuts its batch into four chunks a thread, each answered
/// query by query (2,048 handles on two threads, below the pair walk's share,
/// a quarter of the elements, on every moving scenario); smaller batches
/// spend their time starting tasks (4,096 per call: 1 ms more a frame at 100k).
pub const PAR_AGENT_BATCH: usize = 16_384;

/// Queries per `par_query_many` call in the static scenario on many threads:
/// a few calls for the million queries (against one call per 16,384, 2-thread
/// `peers` rect queries 36.8 -> 33.5 ms), each building 10 MB of queries.
pub const STATIC_QUERY_BATCH: usize = 262_144;

/// Grid cell side for the agents workload, in agent sides. Measured with the
/// prefetching pair walk and moves (frame ms, all-pairs / per-agent, one
/// session): uniform-1m all-pairs 73 / 61 / 60-68 with cells of 4 / 6 / 8;
/// uniform-100k 6.0 / 4.3 / 3.9 and 6.9 / 5.3 / 4.9-5.5; mixed-100k 11.4 /
/// 8.6 / 7.9 and 15.3 / 13.2 / 12.5; clustered-100k the other way, 33.7 /
/// 41.3 / 51.1 and 58.4 / 61.8 / 67.6. Six is the compromise.
pub const AGENTS_GRID_CELL: f32 = 6.0;

/// Loose grid cell side for the agents workload, in agent sides: about the
/// smallest that keeps the loose grid within 32 bytes per agent.
pub const AGENTS_LOOSE_CELL: f32 = 11.0;

/// The deepest level whose cells are still at least four times the agent side:
/// the largest `d` with `world / 2^d >= 4 * size` (0 if even the root is smaller),
/// at most [`Quadtree::MAX_DEPTH_LIMIT`].
pub fn default_max_depth(world: f32, size: f32) -> u32 {
    let mut depth = 0;
    let mut cell = world;
    while depth < Quadtree::MAX_DEPTH_LIMIT && cell * 0.5 >= 4.0 * size {
        cell *= 0.5;
        depth += 1;
    }
    depth
}

/// The loose quadtree's deepest level: the largest `d` with
/// `world / 2^d >= size` (cells down to one agent side), at most
/// [`Quadtree::MAX_DEPTH_LIMIT`]. An element lies in the one leaf holding its
/// centre, so a cell smaller than four agent sides costs no extra links (its
/// box only grows by half an agent); it only lets crowds split further. Leaves
/// split only past [`AGENTS_MAX_ELEMENTS`], so sparse scenes never get that
/// deep. clustered-100k (frame ms, all pairs / per agent, one session): depth 8
/// (cells of 4 sides) 42.8 / 153, 9: 29.7 / 121, 10: 27.7 / 113, 11: 28.2 / 111;
/// uniform-100k and mixed-100k unchanged.
pub fn loose_max_depth(world: f32, size: f32) -> u32 {
    let mut depth = 0;
    let mut cell = world;
    while depth < Quadtree::MAX_DEPTH_LIMIT && cell * 0.5 >= size {
        cell *= 0.5;
        depth += 1;
    }
    depth
}

#[inline]
fn to_rect(r: Aabb) -> Rect {
    Rect::new(r.x1, r.y1, r.x2, r.y2)
}

/// flatquad under the agents workload: [`SpatialIndex::update_many`] for every
/// agent then [`SpatialIndex::cleanup`] each frame; per-agent
/// [`SpatialIndex::overlapping_many`], or one [`SpatialIndex::pairs_with`].
/// Static scenarios: one [`SpatialIndex::visit`] of a rectangle or
/// of a point per query; on many threads, [`SpatialIndex::par_query_many`].
pub struct FlatquadIndex {
    size: f32,
    config: FlatquadConfig,
    name: &'static str,
    frames: Frames<AnyIndex>,
}

impl FlatquadIndex {
    /// An adapter for agents of (typical) side `size`; the tree is made at
    /// [`Index::build`], where bad parameters are reported. On more than one
    /// thread its name says how many: `flatquad grid (2 threads)`.
    pub fn new(size: f32, config: FlatquadConfig) -> Self {
        let base = match config.structure {
            Kind::Quadtree => "flatquad",
            Kind::Grid => "flatquad grid",
            Kind::LooseGrid => "flatquad loose-grid",
            Kind::LooseQuadtree if config.max_extent.is_some() => "flatquad loose-quadtree-bounded",
            Kind::LooseQuadtree => "flatquad loose-quadtree",
            Kind::Octree => "flatquad octree",
        };
        let name = match config.threads {
            0 | 1 => base,
            n => crate::threaded_name(base, n),
        };
        let mut frames = Frames::new();
        frames.threads = config.threads.max(1);
        FlatquadIndex {
            size,
            config,
            name,
            frames,
        }
    }

    /// The structure of the last build, if any.
    pub fn tree(&self) -> Option<&AnyIndex> {
        self.frames.tree.as_ref()
    }

    /// The contact events of the last frame of an events run (began, ended);
    /// empty after the other modes.
    pub fn last_events(&self) -> (&[[Handle; 2]], &[[Handle; 2]]) {
        (self.frames.tracker.began(), self.frames.tracker.ended())
    }
}

/// The error of using the adapter before [`Index::build`].
fn not_built() -> BenchError {
    BenchError::new("flatquad: the index was not built")
}

/// Every agent's box, in agent order, into `boxes` (cleared first): the
/// rectangles of 2D agents, the cubes of 3D ones.
fn agent_boxes<B: Bounds>(agents: &Agents, boxes: &mut Vec<B>, threads: usize) {
    let each = |i: usize| {
        if B::AXES == 2 {
            let r = agents.rect(i);
            B::from_corners([r.x1, r.y1, 0.0], [r.x2, r.y2, 0.0])
        } else {
            let (lo, hi) = agents.corners::<3>(i);
            B::from_corners(lo, hi)
        }
    };
    boxes.clear();
    // With threads, the user's share of the frame on every thread too.
    if threads > 1 {
        boxes.par_extend((0..agents.len()).into_par_iter().map(each));
    } else {
        boxes.extend((0..agents.len()).map(each));
    }
}

/// The frame of the agents workload on any flatquad structure, written once
/// for the 2D adapter and the octree's: the structure, the agents' handles,
/// and the buffers every frame reuses.
struct Frames<T: SpatialIndex> {
    tree: Option<T>,
    handles: Vec<Handle>,
    /// The agents' boxes of this frame.
    boxes: Vec<T::Bounds>,
    /// The per-agent results.
    offsets: Vec<usize>,
    hits: Vec<Handle>,
    /// Threads of rayon's pool the frame's queries and pair walk use (the
    /// caller installs the pool); 1 keeps everything on the calling thread.
    threads: usize,
    /// The pairs of a walk on many threads.
    pairs: Vec<(Handle, Handle)>,
    /// The contact events of the events mode.
    tracker: PairTracker<T::Bounds>,
}

impl<T: SpatialIndex + Sync> Frames<T> {
    fn new() -> Self {
        Frames {
            tree: None,
            handles: Vec::new(),
            boxes: Vec::new(),
            offsets: Vec::new(),
            hits: Vec::new(),
            threads: 1,
            pairs: Vec::new(),
            tracker: PairTracker::new(),
        }
    }

    /// The hits of one query per item: on one thread a `visit` each, as a
    /// loop of single queries is written; on many, `par_query_many` over
    /// batches of [`STATIC_QUERY_BATCH`], the public batch call a program
    /// wanting every core uses.
    fn static_queries<Q>(
        &mut self,
        items: &[Q],
        query: impl Fn(&Q) -> Query<T::Bounds>,
    ) -> Result<u64, BenchError> {
        let tree = self.tree.as_ref().ok_or_else(not_built)?;
        let mut total = 0u64;
        if self.threads > 1 {
            let mut queries = Vec::with_capacity(STATIC_QUERY_BATCH);
            for chunk in items.chunks(STATIC_QUERY_BATCH) {
                queries.clear();
                queries.extend(chunk.iter().map(&query));
                tree.par_query_many(&queries, &mut self.offsets, &mut self.hits)?;
                total += self.hits.len() as u64;
            }
            return Ok(total);
        }
        for item in items {
            let _ = tree.visit(&query(item), |_| {
                total += 1;
                ControlFlow::Continue(())
            })?;
        }
        Ok(total)
    }

    fn build(&mut self, mut tree: T, agents: &Agents) -> Result<(), BenchError> {
        // One batch: the structure lays the agents out in memory in the order
        // its walks meet them.
        agent_boxes(agents, &mut self.boxes, self.threads);
        let ids: Vec<u32> = (0..agents.len() as u32).collect();
        self.handles.clear();
        tree.insert_many(&self.boxes, &ids, &mut self.handles)?;
        tree.cleanup();
        self.tree = Some(tree);
        self.tracker.reset();
        Ok(())
    }

    fn update(&mut self, agents: &Agents) -> Result<(), BenchError> {
        let tree = self.tree.as_mut().ok_or_else(not_built)?;
        // One batch, as the bindings do: the tree can fetch slots ahead.
        agent_boxes(agents, &mut self.boxes, self.threads);
        if self.threads > 1 {
            tree.par_update_many(&self.handles, &self.boxes)?;
        } else {
            tree.update_many(&self.handles, &self.boxes)?;
        }
        tree.cleanup();
        Ok(())
    }

    fn per_agent(&mut self) -> Result<u64, BenchError> {
        let tree = self.tree.as_ref().ok_or_else(not_built)?;
        // One query per agent, as the mode says: each agent's own box (the
        // index has it since the update), omitting itself, from the agent's own
        // leaves or cells. Small batches, so that each is answered query by query
        // with slots fetched ahead: `overlapping_many` answers a batch of most
        // elements with one pair walk instead, which is the all-pairs mode's work.
        let mut total = 0;
        if self.threads > 1 {
            // Batches big enough to split over the threads, still far below
            // the pair walk's share of the elements.
            for chunk in self.handles.chunks(PAR_AGENT_BATCH) {
                tree.par_overlapping_many(chunk, &mut self.offsets, &mut self.hits)?;
                total += self.hits.len() as u64;
            }
            return Ok(total);
        }
        for chunk in self.handles.chunks(PER_AGENT_BATCH) {
            tree.overlapping_many(chunk, &mut self.offsets, &mut self.hits)?;
            total += self.hits.len() as u64;
        }
        Ok(total)
    }

    fn all_pairs(&mut self) -> Result<u64, BenchError> {
        let tree = self.tree.as_ref().ok_or_else(not_built)?;
        if self.threads > 1 {
            tree.par_pairs(&mut self.pairs);
            return Ok(self.pairs.len() as u64);
        }
        let mut pairs = 0u64;
        let _ = tree.pairs_with(|_, _| {
            pairs += 1;
            ControlFlow::Continue(())
        });
        Ok(pairs)
    }

    fn events(&mut self) -> Result<u64, BenchError> {
        let tree = self.tree.as_ref().ok_or_else(not_built)?;
        let (began, ended) = if self.threads > 1 {
            self.tracker.par_update(tree)
        } else {
            self.tracker.update(tree)
        };
        Ok((began.len() + ended.len()) as u64)
    }

    fn bytes(&self) -> Option<usize> {
        self.tree.as_ref().map(|t| t.stats().bytes)
    }
}

/// The [`Index`] methods an adapter with a `frames: Frames<_>` field
/// delegates to it: `threads`, `update`, `per_agent`, `all_pairs`, `events` and
/// `bytes`.
macro_rules! frame_methods {
    () => {
        fn threads(&self) -> usize {
            self.frames.threads
        }

        fn update(&mut self, agents: &Agents) -> Result<(), BenchError> {
            self.frames.update(agents)
        }

        fn per_agent(&mut self, _agents: &Agents) -> Result<u64, BenchError> {
            self.frames.per_agent()
        }

        fn all_pairs(&mut self, _agents: &Agents) -> Result<u64, BenchError> {
            self.frames.all_pairs()
        }

        fn events(&mut self, _agents: &Agents) -> Result<u64, BenchError> {
            self.frames.events()
        }

        fn bytes(&self) -> Option<usize> {
            self.frames.bytes()
        }
    };
}

impl Index for FlatquadIndex {
    fn name(&self) -> &'static str {
        self.name
    }

    fn supports(&self, _mode: Mode) -> bool {
        true
    }

    fn build(&mut self, agents: &Agents) -> Result<(), BenchError> {
        let tree = self.config.make(agents.world, self.size)?;
        self.frames.build(tree, agents)
    }

    frame_methods!();

    fn rect_queries(&mut self, queries: &[Aabb]) -> Result<u64, BenchError> {
        self.frames
            .static_queries(queries, |&q| Query::rect(to_rect(q)))
    }

    fn point_queries(&mut self, points: &[[f32; 2]]) -> Result<u64, BenchError> {
        self.frames.static_queries(points, |&p| Query::point(p))
    }
}

/// The octree under the 3D agents workload ([`crate::workload::Layout::Uniform3d`]):
/// the same frame as [`FlatquadIndex`]'s.
pub struct OctreeIndex {
    name: &'static str,
    size: f32,
    max_elements: u32,
    max_depth: Option<u32>,
    /// The fat-bounds margin, in agent sides (0: none).
    margin: f32,
    frames: Frames<Octree>,
}

impl OctreeIndex {
    /// An adapter for cubes of side `size`; `max_depth` `None` picks
    /// [`default_max_depth`].
    pub fn new(size: f32, max_elements: u32, max_depth: Option<u32>) -> Self {
        OctreeIndex {
            name: "flatquad octree",
            size,
            max_elements,
            max_depth,
            margin: 0.0,
            frames: Frames::new(),
        }
    }

    /// Fat bounds of `k` agent sides (`set_margin`), as
    /// [`FlatquadConfig::margin`] gives the 2D structures.
    pub fn with_margin(mut self, k: f32) -> Self {
        self.margin = k;
        self
    }

    /// The octree's depth for a world of side `world`.
    pub fn max_depth(&self, world: f32) -> u32 {
        self.max_depth
            .unwrap_or_else(|| default_max_depth(world, self.size))
    }

    /// The frame's queries and pair walk on `threads` threads of the rayon
    /// pool the caller installs (see [`FlatquadConfig::threads`]); above one
    /// thread its name says how many, as [`FlatquadIndex`]'s does.
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.frames.threads = threads.max(1);
        if threads > 1 {
            self.name = crate::threaded_name(self.name, threads);
        }
        self
    }

    /// An empty octree of this adapter's parameters over a cube of side
    /// `world`: its parameters checked.
    pub fn empty_tree(&self, world: f32) -> Result<Octree, BenchError> {
        let cube = Box3::new(0.0, 0.0, 0.0, world, world, world);
        let tree = Octree::new(cube, self.max_elements, self.max_depth(world))?;
        Ok(tree.with_margin(self.margin * self.size)?)
    }

    /// The octree of the last build, if any.
    pub fn tree(&self) -> Option<&Octree> {
        self.frames.tree.as_ref()
    }
}

impl Index for OctreeIndex {
    fn name(&self) -> &'static str {
        self.name
    }

    fn supports(&self, mode: Mode) -> bool {
        !mode.is_query()
    }

    fn dimensions(&self) -> usize {
        3
    }

    fn build(&mut self, agents: &Agents) -> Result<(), BenchError> {
        let tree = self.empty_tree(agents.world)?;
        self.frames.build(tree, agents)
    }

    frame_methods!();
}

#[cfg(test)]
mod tests {
    use super::{default_max_depth, loose_max_depth};

    #[test]
    fn default_depths() {
        assert_eq!(default_max_depth(4096.0, 4.0), 8); // cells of 16
        assert_eq!(default_max_depth(12288.0, 4.0), 9); // cells of 24
        assert_eq!(default_max_depth(2048.0, 4.0), 7); // cells of 16
        assert_eq!(default_max_depth(4.0, 4.0), 0);
        assert_eq!(default_max_depth(16.0, 4.0), 0);
        assert_eq!(default_max_depth(32.0, 4.0), 1);
        assert_eq!(loose_max_depth(4096.0, 4.0), 10); // cells of 4
        assert_eq!(loose_max_depth(4.0, 4.0), 0);
        assert_eq!(loose_max_depth(8.0, 4.0), 1);
    }
}
