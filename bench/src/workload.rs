//! The agents workload of `docs/workload.md`: the RNG, the scenarios and the
//! agents themselves, with every computation in `f32` in the order the spec states.

use crate::Mode;
use rayon::prelude::*;

/// The workload's 32-bit LCG: `state = state * 1664525 + 1013904223` (wrapping),
/// seeded with 12345.
#[derive(Clone, Debug)]
pub struct Lcg {
    state: u32,
}

impl Lcg {
    /// The seed every scenario starts from.
    pub const SEED: u32 = 12345;

    /// A generator in its initial state (`state = 12345`).
    pub fn new() -> Self {
        Lcg { state: Self::SEED }
    }

    /// One draw in `[0, 1)`: advance the state, then `(state >> 8) as f32 / 2^24`.
    #[inline]
    pub fn f(&mut self) -> f32 {
        self.state = self
            .state
            .wrapping_mul(1_664_525)
            .wrapping_add(1_013_904_223);
        (self.state >> 8) as f32 * (1.0 / 16_777_216.0)
    }
}

impl Default for Lcg {
    fn default() -> Self {
        Self::new()
    }
}

/// How a scenario places its agents. All layouts draw from one [`Lcg`] seeded with
/// 12345, in agent order, with `f32` arithmetic in the order written here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// docs/workload.md: agent `i` draws `x = f() * (world - size)`, `y = f() * (world - size)`,
    /// `vx = f() * 2 - 1`, `vy = f() * 2 - 1`; every agent has side `size`.
    Uniform,
    /// Most agents inside a few small discs, a share of them stacked on one point.
    ///
    /// With `R` = [`CLUSTER_RADIUS`] and `K` = [`CLUSTER_DISCS`], first the `K` disc
    /// centres are drawn in order: `cx = R + f() * (world - size - 2R)`, then
    /// `cy = R + f() * (world - size - 2R)` (the subtractions left to right). Then
    /// agent `i = 0..n`, in order, with `m = i % 100`:
    /// - `m == 0` (1% of the agents): the *stack*. `x = cx_0`, `y = cy_0`,
    ///   `vx = vy = 0`; draws nothing. The stack never moves: it is a pile of
    ///   identical rectangles that no subdivision can separate.
    /// - `1 <= m < 90` (89%): a disc agent of disc `k = i % K`. Draw `dx = f() * 2 - 1`,
    ///   `dy = f() * 2 - 1`, and draw both again while `dx * dx + dy * dy > 1`
    ///   (rejection sampling, no trigonometry, so every language gets the same bits).
    ///   Then `x = cx_k + dx * R`, `y = cy_k + dy * R`, `vx = f() * 2 - 1`,
    ///   `vy = f() * 2 - 1`.
    /// - `m >= 90` (10%): drawn as in [`Layout::Uniform`].
    ///
    /// Every agent has side `size`.
    Clustered,
    /// 1% of the agents 32-64x larger than the rest.
    ///
    /// Agent `i = 0..n`, in order: if `i % 100 == 0` it first draws its side
    /// `s = size * (32 + f() * 32)` (so `s` is in `[32 size, 64 size)`), otherwise
    /// `s = size` and it draws nothing extra; then it draws `x = f() * (world - s)`,
    /// `y = f() * (world - s)`, `vx = f() * 2 - 1`, `vy = f() * 2 - 1`. Its rectangle
    /// is `(x, y, x + s, y + s)` and it bounces off `world - s`.
    Mixed,
    /// docs/workload.md's uniform layout in 3D, for the octree: agent `i = 0..n`, in
    /// order, draws `x = f() * (world - size)`, `y = f() * (world - size)`,
    /// `z = f() * (world - size)`, then `vx = f() * 2 - 1`, `vy = f() * 2 - 1`,
    /// `vz = f() * 2 - 1`. Its box is `(x, y, z, x + size, y + size, z + size)`,
    /// closed, in the world `(0, 0, 0)..(world, world, world)`; each frame `z`
    /// moves and bounces as `x` and `y` do.
    Uniform3d,
}

/// Number of discs in [`Layout::Clustered`].
pub const CLUSTER_DISCS: usize = 8;
/// Radius of each disc of [`Layout::Clustered`], in world units.
pub const CLUSTER_RADIUS: f32 = 128.0;

/// One benchmark scenario: a layout, a population and a world.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scenario {
    /// The name used on the command line and in reports, e.g. `uniform-100k`.
    pub name: &'static str,
    /// How the agents are placed (and whether in 2D or 3D).
    pub layout: Layout,
    /// Number of agents.
    pub n: usize,
    /// Side of the square world `(0, 0)..(world, world)`.
    pub world: f32,
    /// Side of a (small) agent.
    pub size: f32,
    /// Number of measured frames `F` (after the two warm-up frames).
    pub frames: usize,
    /// Frames played before the warm-up with the index following the agents
    /// (update only, no collide, not measured): 0 for docs/workload.md's
    /// scenarios. A long-running game's index has long lost the memory order
    /// of its first build; these frames put it in that state.
    pub aging: usize,
    /// The checksum of docs/workload.md (ordered pairs per measured frame), where it
    /// states one; `None` for scenarios whose checksum the [`crate::oracle`] computes.
    pub checksum: Option<u64>,
    /// `Some` for a *static* scenario: the agents never move, and the index built
    /// over their initial rectangles answers these queries instead of playing frames
    /// (see [`Queries`]). `None` for the moving scenarios of docs/workload.md.
    pub queries: Option<QuerySpec>,
}

/// The queries of a static scenario: `count` rectangle queries of side `side`, then
/// `count` point queries (see [`Queries::draw`] for how they are drawn).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuerySpec {
    /// Number of rectangle queries, and of point queries.
    pub count: usize,
    /// Side of every (square) rectangle query.
    pub side: f32,
}

impl Scenario {
    /// 2, or 3 for a scenario of cubes in a cube ([`Layout::Uniform3d`]).
    pub fn dimensions(&self) -> usize {
        if self.layout == Layout::Uniform3d {
            3
        } else {
            2
        }
    }

    /// Whether the scenario is static (queries on a built index, no frames).
    pub fn is_static(&self) -> bool {
        self.queries.is_some()
    }

    /// The modes a run of this scenario can take: the two collide modes of a moving
    /// scenario, or the two query modes of a static one.
    pub fn modes(&self) -> &'static [Mode] {
        if self.is_static() {
            &Mode::QUERIES
        } else {
            &Mode::FRAMES
        }
    }
}

/// Number of warm-up frames before the measured ones.
pub const WARMUP_FRAMES: usize = 2;

/// Every scenario, docs/workload.md's first.
pub const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "uniform-100k",
        layout: Layout::Uniform,
        n: 100_000,
        world: 4096.0,
        size: 4.0,
        frames: 10,
        aging: 0,
        checksum: Some(38442),
        queries: None,
    },
    Scenario {
        name: "uniform-1m",
        layout: Layout::Uniform,
        n: 1_000_000,
        world: 12288.0,
        size: 4.0,
        frames: 3,
        aging: 0,
        checksum: Some(422_580),
        queries: None,
    },
    Scenario {
        name: "uniform-20k",
        layout: Layout::Uniform,
        n: 20_000,
        world: 2048.0,
        size: 4.0,
        frames: 10,
        aging: 0,
        checksum: Some(6257),
        queries: None,
    },
    Scenario {
        name: "clustered-100k",
        layout: Layout::Clustered,
        n: 100_000,
        world: 4096.0,
        size: 4.0,
        frames: 10,
        aging: 0,
        checksum: None,
        queries: None,
    },
    Scenario {
        name: "mixed-100k",
        layout: Layout::Mixed,
        n: 100_000,
        world: 4096.0,
        size: 4.0,
        frames: 10,
        aging: 0,
        checksum: None,
        queries: None,
    },
    // uniform-100k and uniform-1m after 600 and 120 frames (10 and 2 seconds
    // of a game at 60 frames a second) of updates: the index's memory no
    // longer follows its first build's order. The oracle computes the checksums.
    Scenario {
        name: "uniform-100k-aged",
        layout: Layout::Uniform,
        n: 100_000,
        world: 4096.0,
        size: 4.0,
        frames: 10,
        aging: 600,
        checksum: None,
        queries: None,
    },
    Scenario {
        name: "uniform-1m-aged",
        layout: Layout::Uniform,
        n: 1_000_000,
        world: 12288.0,
        size: 4.0,
        frames: 3,
        aging: 120,
        checksum: None,
        queries: None,
    },
    // The agents of uniform-100k, never moved, hit by 1,000,000 rectangle queries of
    // side 4 and 1,000,000 point queries (see `Queries::draw`); the oracle counts
    // the hits.
    Scenario {
        name: "static-1m-queries",
        layout: Layout::Uniform,
        n: 100_000,
        world: 4096.0,
        size: 4.0,
        frames: 0,
        aging: 0,
        checksum: None,
        queries: Some(QuerySpec {
            count: 1_000_000,
            side: 4.0,
        }),
    },
    // uniform-100k in 3D: 100,000 cubes of side 4 in 1024³ (the octree's
    // scenario; the oracle computes the checksum).
    Scenario {
        name: "uniform3d-100k",
        layout: Layout::Uniform3d,
        n: 100_000,
        world: 1024.0,
        size: 4.0,
        frames: 10,
        aging: 0,
        checksum: None,
        queries: None,
    },
];

/// The scenario called `name`, if any.
pub fn scenario(name: &str) -> Option<&'static Scenario> {
    SCENARIOS.iter().find(|s| s.name == name)
}

/// Names of every scenario, comma-separated, for usage messages.
pub fn scenario_names() -> String {
    SCENARIOS
        .iter()
        .map(|s| s.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A closed axis-aligned rectangle `[x1, x2] x [y1, y2]`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Aabb {
    /// Left edge.
    pub x1: f32,
    /// Bottom edge.
    pub y1: f32,
    /// Right edge.
    pub x2: f32,
    /// Top edge.
    pub y2: f32,
}

impl Aabb {
    /// The point `(x, y)` as a rectangle of no area (what a point query asks).
    #[inline]
    pub fn point(x: f32, y: f32) -> Aabb {
        Aabb {
            x1: x,
            y1: y,
            x2: x,
            y2: y,
        }
    }

    /// The exact closed overlap test of the workload: touching rectangles overlap.
    #[inline]
    pub fn overlaps(&self, other: &Aabb) -> bool {
        self.x1 <= other.x2 && other.x1 <= self.x2 && self.y1 <= other.y2 && other.y1 <= self.y2
    }
}

/// The agents, stored as a structure of arrays.
#[derive(Clone, Debug)]
pub struct Agents {
    /// Left edges.
    pub x: Vec<f32>,
    /// Bottom edges.
    pub y: Vec<f32>,
    /// Velocities along x.
    pub vx: Vec<f32>,
    /// Velocities along y.
    pub vy: Vec<f32>,
    /// Low z faces (3D scenarios only; empty in 2D).
    pub z: Vec<f32>,
    /// Velocities along z (3D scenarios only; empty in 2D).
    pub vz: Vec<f32>,
    /// Sides (all equal to the scenario's `size` except in [`Layout::Mixed`]).
    pub side: Vec<f32>,
    /// Side of the square world.
    pub world: f32,
}

impl Agents {
    /// The initial agents of `scenario`, drawn from a fresh [`Lcg`].
    pub fn new(scenario: &Scenario) -> Self {
        Self::draw(scenario, &mut Lcg::new())
    }

    /// The initial agents of `scenario`, drawn from `rng` (which [`Agents::new`]
    /// makes fresh); `rng` is left where the agents' draws end, so that a static
    /// scenario's [`Queries`] can go on from there.
    pub fn draw(scenario: &Scenario, rng: &mut Lcg) -> Self {
        let n = scenario.n;
        let mut agents = Agents {
            x: Vec::with_capacity(n),
            y: Vec::with_capacity(n),
            vx: Vec::with_capacity(n),
            vy: Vec::with_capacity(n),
            z: Vec::new(),
            vz: Vec::new(),
            side: Vec::with_capacity(n),
            world: scenario.world,
        };
        match scenario.layout {
            Layout::Uniform => {
                for _ in 0..n {
                    agents.push_uniform(rng, scenario.size);
                }
            }
            Layout::Clustered => agents.fill_clustered(rng, scenario),
            Layout::Uniform3d => {
                for _ in 0..n {
                    let side = scenario.size;
                    let x = rng.f() * (agents.world - side);
                    let y = rng.f() * (agents.world - side);
                    let z = rng.f() * (agents.world - side);
                    let vx = rng.f() * 2.0 - 1.0;
                    let vy = rng.f() * 2.0 - 1.0;
                    let vz = rng.f() * 2.0 - 1.0;
                    agents.push(x, y, vx, vy, side);
                    agents.z.push(z);
                    agents.vz.push(vz);
                }
            }
            Layout::Mixed => {
                for i in 0..n {
                    let side = if i % 100 == 0 {
                        scenario.size * (32.0 + rng.f() * 32.0)
                    } else {
                        scenario.size
                    };
                    agents.push_uniform(rng, side);
                }
            }
        }
        agents
    }

    /// Draws `x, y, vx, vy` as the uniform layout does and appends the agent.
    fn push_uniform(&mut self, rng: &mut Lcg, side: f32) {
        let x = rng.f() * (self.world - side);
        let y = rng.f() * (self.world - side);
        let vx = rng.f() * 2.0 - 1.0;
        let vy = rng.f() * 2.0 - 1.0;
        self.push(x, y, vx, vy, side);
    }

    fn push(&mut self, x: f32, y: f32, vx: f32, vy: f32, side: f32) {
        self.x.push(x);
        self.y.push(y);
        self.vx.push(vx);
        self.vy.push(vy);
        self.side.push(side);
    }

    fn fill_clustered(&mut self, rng: &mut Lcg, scenario: &Scenario) {
        let r = CLUSTER_RADIUS;
        let span = scenario.world - scenario.size - 2.0 * r;
        let mut centres = [(0.0f32, 0.0f32); CLUSTER_DISCS];
        for c in &mut centres {
            let cx = r + rng.f() * span;
            let cy = r + rng.f() * span;
            *c = (cx, cy);
        }
        for i in 0..scenario.n {
            let m = i % 100;
            if m == 0 {
                let (cx, cy) = centres[0];
                self.push(cx, cy, 0.0, 0.0, scenario.size);
            } else if m < 90 {
                let (cx, cy) = centres[i % CLUSTER_DISCS];
                let (dx, dy) = loop {
                    let dx = rng.f() * 2.0 - 1.0;
                    let dy = rng.f() * 2.0 - 1.0;
                    if dx * dx + dy * dy <= 1.0 {
                        break (dx, dy);
                    }
                };
                let vx = rng.f() * 2.0 - 1.0;
                let vy = rng.f() * 2.0 - 1.0;
                self.push(cx + dx * r, cy + dy * r, vx, vy, scenario.size);
            } else {
                self.push_uniform(rng, scenario.size);
            }
        }
    }

    /// Number of agents.
    pub fn len(&self) -> usize {
        self.x.len()
    }

    /// True when there are no agents.
    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }

    /// Agent `i`'s rectangle `(x, y, x + side, y + side)`.
    #[inline]
    pub fn rect(&self, i: usize) -> Aabb {
        let (x, y, s) = (self.x[i], self.y[i], self.side[i]);
        Aabb {
            x1: x,
            y1: y,
            x2: x + s,
            y2: y + s,
        }
    }

    /// 3 when the agents are cubes ([`Layout::Uniform3d`]), else 2.
    pub fn dimensions(&self) -> usize {
        if self.z.is_empty() {
            2
        } else {
            3
        }
    }

    /// Agent `i`'s low and high corners on the first `D` axes (x, y, then z).
    #[inline]
    pub fn corners<const D: usize>(&self, i: usize) -> ([f32; D], [f32; D]) {
        let s = self.side[i];
        let lo = core::array::from_fn(|axis| [&self.x, &self.y, &self.z][axis][i]);
        (lo, lo.map(|v| v + s))
    }

    /// Every agent's rectangle, in agent order.
    pub fn rects(&self) -> impl ExactSizeIterator<Item = Aabb> + '_ {
        (0..self.len()).map(|i| self.rect(i))
    }

    /// The movement half of a frame's update step: every agent, in order, moves by
    /// its velocity and bounces off the world's edges (the index is told afterwards,
    /// by [`crate::Index::update`]).
    pub fn step(&mut self) {
        let n = self.len();
        let depth = self.z.len();
        move_plane(
            self.world,
            &mut self.x[..n],
            &mut self.y[..n],
            &mut self.vx[..n],
            &mut self.vy[..n],
            &self.side[..n],
        );
        move_depth(self.world, &mut self.z, &mut self.vz, &self.side[..depth]);
    }

    /// [`Agents::step`] for a row on `threads` threads: above one, in slices of
    /// agents on the threads of the rayon pool the caller installs (the runners
    /// install one of as many); on one, `step` itself, with no rayon call. Each
    /// agent moves by itself, so the bits are `step`'s: a row on threads runs the
    /// workload's share of the frame on them too, as a game using both cores
    /// would (and as the flatquad adapter's boxes are built).
    pub fn step_on(&mut self, threads: usize) {
        if threads <= 1 {
            return self.step();
        }
        let (n, depth, world) = (self.len(), self.z.len(), self.world);
        self.x[..n]
            .par_chunks_mut(STEP_SLICE)
            .zip(self.y[..n].par_chunks_mut(STEP_SLICE))
            .zip(self.vx[..n].par_chunks_mut(STEP_SLICE))
            .zip(self.vy[..n].par_chunks_mut(STEP_SLICE))
            .zip(self.side[..n].par_chunks(STEP_SLICE))
            .for_each(|((((xs, ys), vxs), vys), sides)| move_plane(world, xs, ys, vxs, vys, sides));
        self.z
            .par_chunks_mut(STEP_SLICE)
            .zip(self.vz.par_chunks_mut(STEP_SLICE))
            .zip(self.side[..depth].par_chunks(STEP_SLICE))
            .for_each(|((zs, vzs), sides)| move_depth(world, zs, vzs, sides));
    }
}

/// Agents a task of [`Agents::step_on`] moves: 64 KiB of each array, so that a
/// 100,000-agent step splits into a few tasks a thread.
const STEP_SLICE: usize = 1 << 14;

/// The step's rule on x and y, for one slice of agents.
fn move_plane(
    world: f32,
    xs: &mut [f32],
    ys: &mut [f32],
    vxs: &mut [f32],
    vys: &mut [f32],
    sides: &[f32],
) {
    let agents = xs.iter_mut().zip(ys).zip(vxs).zip(vys).zip(sides);
    for ((((x, y), vx), vy), side) in agents {
        let limit = world - side;
        let (mut nx, mut ny) = (*x + *vx, *y + *vy);
        if nx < 0.0 {
            nx = 0.0;
            *vx = -*vx;
        }
        if nx > limit {
            nx = limit;
            *vx = -*vx;
        }
        if ny < 0.0 {
            ny = 0.0;
            *vy = -*vy;
        }
        if ny > limit {
            ny = limit;
            *vy = -*vy;
        }
        *x = nx;
        *y = ny;
    }
}

/// The same rule on z, for 3D agents (each agent's axes are independent, so a
/// second pass gives the bits of one).
fn move_depth(world: f32, zs: &mut [f32], vzs: &mut [f32], sides: &[f32]) {
    for ((z, vz), side) in zs.iter_mut().zip(vzs.iter_mut()).zip(sides) {
        let limit = world - side;
        *z += *vz;
        if *z < 0.0 {
            *z = 0.0;
            *vz = -*vz;
        }
        if *z > limit {
            *z = limit;
            *vz = -*vz;
        }
    }
}

/// The queries of a static scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Queries {
    /// The rectangle queries, closed like the agents' rectangles.
    pub rects: Vec<Aabb>,
    /// The point queries `[x, y]`.
    pub points: Vec<[f32; 2]>,
}

impl Queries {
    /// Draws the queries of a static scenario, with `spec.count = Q` and
    /// `spec.side = s`, from `rng` going on where the agents' draws ended (the same
    /// generator: see [`static_workload`]). All arithmetic in `f32`, in this order:
    ///
    /// 1. rectangle query `j = 0..Q`, in order: `qx = f() * (world - s)`, then
    ///    `qy = f() * (world - s)`; the query is the closed rectangle
    ///    `(qx, qy, qx + s, qy + s)`;
    /// 2. then point query `j = 0..Q`, in order: `px = f() * world`, then
    ///    `py = f() * world`; the query is the point `(px, py)`, which hits every agent
    ///    whose closed rectangle holds it.
    ///
    /// The checksum of each kind is the total number of hits over its `Q` queries.
    pub fn draw(spec: &QuerySpec, world: f32, rng: &mut Lcg) -> Self {
        let mut rects = Vec::with_capacity(spec.count);
        for _ in 0..spec.count {
            let x = rng.f() * (world - spec.side);
            let y = rng.f() * (world - spec.side);
            rects.push(Aabb {
                x1: x,
                y1: y,
                x2: x + spec.side,
                y2: y + spec.side,
            });
        }
        let mut points = Vec::with_capacity(spec.count);
        for _ in 0..spec.count {
            let x = rng.f() * world;
            let y = rng.f() * world;
            points.push([x, y]);
        }
        Queries { rects, points }
    }
}

/// A static scenario's agents and queries: the agents exactly as [`Agents::new`]
/// draws them (the initial positions, never moved: no [`Agents::step`]), then the
/// [`Queries`] from the same generator. `None` for a moving scenario.
pub fn static_workload(scenario: &Scenario) -> Option<(Agents, Queries)> {
    let spec = scenario.queries.as_ref()?;
    let mut rng = Lcg::new();
    let agents = Agents::draw(scenario, &mut rng);
    let queries = Queries::draw(spec, scenario.world, &mut rng);
    Some((agents, queries))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lcg_first_draws() {
        let mut rng = Lcg::new();
        // state1 = 12345 * 1664525 + 1013904223 mod 2^32 = 87628868
        let expect = (87_628_868u32 >> 8) as f32 / 16_777_216.0;
        assert_eq!(rng.f(), expect);
    }

    #[test]
    fn layouts_stay_in_the_world() {
        for s in SCENARIOS.iter().filter(|s| s.n <= 100_000) {
            let mut agents = Agents::new(s);
            assert_eq!(agents.len(), s.n);
            for _ in 0..3 {
                agents.step();
            }
            for r in agents.rects() {
                assert!(r.x1 >= 0.0 && r.y1 >= 0.0, "{}: {r:?}", s.name);
                assert!(r.x2 <= s.world && r.y2 <= s.world, "{}: {r:?}", s.name);
            }
            assert_eq!(agents.dimensions(), s.dimensions());
            for (z, side) in agents.z.iter().zip(&agents.side) {
                assert!(*z >= 0.0 && z + side <= s.world, "{}: z {z}", s.name);
            }
        }
    }

    #[test]
    fn a_step_on_threads_moves_every_agent_as_one_thread_does() {
        for s in SCENARIOS.iter().filter(|s| s.n <= 100_000) {
            for threads in [2, 8] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .expect("pool");
                let (mut one, mut many) = (Agents::new(s), Agents::new(s));
                // Enough frames for agents near the edges to bounce.
                for _ in 0..40 {
                    one.step();
                    pool.install(|| many.step_on(threads));
                }
                let bits = |a: &Agents| {
                    [&a.x, &a.y, &a.vx, &a.vy, &a.z, &a.vz]
                        .map(|v| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>())
                };
                assert!(bits(&one) == bits(&many), "{} on {threads} threads", s.name);
                assert!(
                    bits(&one) != bits(&Agents::new(s)),
                    "{}: nothing moved",
                    s.name
                );
            }
        }
    }

    #[test]
    fn mixed_has_one_percent_large() {
        let s = scenario("mixed-100k").expect("scenario");
        let agents = Agents::new(s);
        let large = agents.side.iter().filter(|&&w| w > s.size).count();
        assert_eq!(large, s.n / 100);
        assert!(agents
            .side
            .iter()
            .all(|&w| w == s.size || (32.0 * s.size..64.0 * s.size).contains(&w)));
    }

    #[test]
    fn clustered_stack_is_one_point() {
        let s = scenario("clustered-100k").expect("scenario");
        let agents = Agents::new(s);
        let (x0, y0) = (agents.x[0], agents.y[0]);
        for i in (0..s.n).step_by(100) {
            assert_eq!((agents.x[i], agents.y[i]), (x0, y0));
        }
    }

    #[test]
    fn static_workload_goes_on_from_the_agents() {
        let s = scenario("static-1m-queries").expect("scenario");
        let spec = s.queries.expect("static");
        let (agents, queries) = static_workload(s).expect("static");
        // The agents of uniform-100k, at their initial positions.
        let uniform = Agents::new(scenario("uniform-100k").expect("scenario"));
        assert_eq!((&agents.x, &agents.y), (&uniform.x, &uniform.y));
        // The first query's draws follow the agents' 4n draws.
        let mut rng = Lcg::new();
        for _ in 0..4 * s.n {
            rng.f();
        }
        let x = rng.f() * (s.world - spec.side);
        let y = rng.f() * (s.world - spec.side);
        assert_eq!(queries.rects[0].x1, x);
        assert_eq!(queries.rects[0].y2, y + spec.side);
        assert_eq!(
            (queries.rects.len(), queries.points.len()),
            (spec.count, spec.count)
        );
        for q in &queries.rects {
            assert!(q.x1 >= 0.0 && q.y1 >= 0.0 && q.x2 <= s.world && q.y2 <= s.world);
        }
        for &[x, y] in &queries.points {
            assert!((0.0..s.world).contains(&x) && (0.0..s.world).contains(&y));
        }
        assert_eq!(s.modes(), Mode::QUERIES);
        assert!(static_workload(scenario("uniform-20k").expect("scenario")).is_none());
    }

    #[test]
    fn closed_overlap() {
        let a = Aabb {
            x1: 0.0,
            y1: 0.0,
            x2: 4.0,
            y2: 4.0,
        };
        let touching = Aabb {
            x1: 4.0,
            y1: 4.0,
            x2: 8.0,
            y2: 8.0,
        };
        let apart = Aabb {
            x1: 4.5,
            ..touching
        };
        assert!(a.overlaps(&touching) && touching.overlaps(&a));
        assert!(!a.overlaps(&apart) && !apart.overlaps(&a));
    }
}
