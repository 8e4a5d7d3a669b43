//! Nearest neighbours and ray casts on the static 100k index, beside rstar and
//! parry2d; in 3D on the static octree of uniform3d-100k, beside rstar and
//! parry3d.
//!
//! ```text
//! cargo run --release -p flatquad-bench --features peers --bin searches -- \
//!     [--runs R] [--queries N] [--markdown PATH]
//! ```
//!
//! The index holds the 100,000 agents of uniform-100k at their initial
//! positions (those of `static-1m-queries`); the query points are that
//! scenario's 1,000,000 point queries. Modes:
//! - `nearest k=1` and `nearest k=10`: the k elements nearest each point
//!   (distance to the closed rectangle, 0 inside);
//! - `ray first hit`: from each point, in a direction drawn from a second LCG,
//!   the first element a segment of length 64 (16 agent sides) meets;
//! - `3D nearest k=1` and `3D ray first hit`: the same over uniform3d-100k's
//!   100,000 cubes at their initial positions, from points drawn uniformly in
//!   its world by a third LCG, rays again 64 units long (fewer hit: the cubes
//!   are sparser).
//!
//! Checksums are independent of how ties are broken: the sum of the distances of
//! every neighbour reported (the multiset of the k smallest distances is unique)
//! and the number of rays that hit with the sum of their hit distances. Every
//! implementation must agree with the mode's first flatquad structure to 1e-9
//! relatively.
//! Implementations run interleaved, `--runs` times each; the median is shown.
//! With `--markdown PATH` the table replaces the section of the same title in
//! PATH (or is appended), below the marker `peers` keeps.

use std::fmt::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use flatquad::{AnyIndex, Bounds, Box3, Filter, Neighbor, Octree, Ray, Rect, SpatialIndex};
use flatquad_bench::flatquad_index::{
    default_max_depth, FlatquadConfig, AGENTS_MAX_ELEMENTS, STRUCTURES,
};
use flatquad_bench::targets::lead_phrase;
use flatquad_bench::workload::{static_workload, Agents};
use flatquad_bench::{machine, scenario};

/// The rays' length, in world units (16 agent sides).
const RAY_LENGTH: f64 = 64.0;
const TITLE: &str = "## Nearest neighbours and ray casts (issue 12)";

#[derive(Clone, Copy, PartialEq, Debug)]
enum Mode {
    Nearest(usize),
    Ray,
    /// Over the 3D cubes: the nearest one.
    Nearest3d,
    /// Over the 3D cubes.
    Ray3d,
}

impl Mode {
    fn name(self) -> String {
        match self {
            Mode::Nearest(k) => format!("nearest k={k}"),
            Mode::Ray => "ray first hit".to_string(),
            Mode::Nearest3d => "3D nearest k=1".to_string(),
            Mode::Ray3d => "3D ray first hit".to_string(),
        }
    }

    fn is_3d(self) -> bool {
        matches!(self, Mode::Nearest3d | Mode::Ray3d)
    }
}

const MODES: [Mode; 5] = [
    Mode::Nearest(1),
    Mode::Nearest(10),
    Mode::Ray,
    Mode::Nearest3d,
    Mode::Ray3d,
];

/// What a batch of queries found, tie-independent.
#[derive(Clone, Copy, Debug, Default)]
struct Checksum {
    count: u64,
    distance_sum: f64,
}

impl Checksum {
    fn add(&mut self, distance: f64) {
        self.count += 1;
        self.distance_sum += distance;
    }

    fn agrees(&self, other: &Checksum) -> bool {
        self.count == other.count
            && (self.distance_sum - other.distance_sum).abs()
                <= 1e-9 * self.distance_sum.abs().max(1.0)
    }
}

struct Inputs {
    rects: Vec<Rect>,
    points: Vec<[f32; 2]>,
    /// Unit directions, one per point.
    directions: Vec<[f32; 2]>,
    three: Inputs3d,
}

/// The 3D modes' cubes, points and unit directions.
struct Inputs3d {
    world: f32,
    side: f32,
    boxes: Vec<Box3>,
    points: Vec<[f32; 3]>,
    directions: Vec<[f32; 3]>,
}

/// An xorshift generator of floats in `[0, 1)`, seeded `state`.
fn unit_floats(mut state: u32) -> impl FnMut() -> f32 {
    move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        (state >> 8) as f32 / 16_777_216.0
    }
}

fn inputs(queries: usize) -> Inputs {
    let s = scenario("static-1m-queries").expect("the static scenario");
    let (agents, q) = static_workload(s).expect("static");
    let rects = rects_of(&agents);
    let points: Vec<[f32; 2]> = q.points.iter().take(queries).copied().collect();
    // A second generator, so the directions do not disturb the workload's draws.
    let mut unit = unit_floats(2_463_534_242);
    let directions = (0..points.len())
        .map(|_| {
            let angle = unit() * std::f32::consts::TAU;
            [angle.cos(), angle.sin()]
        })
        .collect();
    Inputs {
        rects,
        points,
        directions,
        three: inputs_3d(queries),
    }
}

fn inputs_3d(queries: usize) -> Inputs3d {
    let s = scenario("uniform3d-100k").expect("the 3D scenario");
    let agents = Agents::new(s);
    let boxes = (0..agents.len())
        .map(|i| {
            let (lo, hi) = agents.corners::<3>(i);
            Box3::new(lo[0], lo[1], lo[2], hi[0], hi[1], hi[2])
        })
        .collect();
    let mut unit = unit_floats(3_141_592_653);
    let points: Vec<[f32; 3]> = (0..queries.min(1_000_000))
        .map(|_| [unit(), unit(), unit()].map(|v| v * s.world))
        .collect();
    // Uniform on the sphere: z uniform in [-1, 1], the angle about z uniform.
    let directions = points
        .iter()
        .map(|_| {
            let z = unit() * 2.0 - 1.0;
            let angle = unit() * std::f32::consts::TAU;
            let r = (1.0 - z * z).max(0.0).sqrt();
            [r * angle.cos(), r * angle.sin(), z]
        })
        .collect();
    Inputs3d {
        world: s.world,
        side: s.size,
        boxes,
        points,
        directions,
    }
}

fn rects_of(agents: &Agents) -> Vec<Rect> {
    agents
        .rects()
        .map(|r| Rect::new(r.x1, r.y1, r.x2, r.y2))
        .collect()
}

/// One implementation: builds once, then answers a mode's whole batch.
trait Searcher {
    fn name(&self) -> String;
    fn supports(&self, mode: Mode) -> bool;
    fn run(&mut self, mode: Mode, inputs: &Inputs) -> Checksum;
}

struct Ours {
    name: &'static str,
    index: AnyIndex,
    out: Vec<Neighbor>,
}

impl Ours {
    fn new(name: &'static str, config: FlatquadConfig, inputs: &Inputs) -> Ours {
        let mut index = config.make(4096.0, 4.0).expect("index");
        let ids: Vec<u32> = (0..inputs.rects.len() as u32).collect();
        let mut handles = Vec::new();
        index
            .insert_many(&inputs.rects, &ids, &mut handles)
            .expect("insert");
        index.cleanup();
        Ours {
            name,
            index,
            out: Vec::new(),
        }
    }
}

impl Searcher for Ours {
    fn name(&self) -> String {
        format!("flatquad {}", self.name)
    }
    fn supports(&self, mode: Mode) -> bool {
        !mode.is_3d()
    }
    fn run(&mut self, mode: Mode, inputs: &Inputs) -> Checksum {
        match mode {
            Mode::Nearest(k) => nearest_sum(&self.index, &inputs.points, k, &mut self.out),
            Mode::Ray => ray_sum(&self.index, &inputs.points, &inputs.directions),
            Mode::Nearest3d | Mode::Ray3d => unreachable!("the 2D structures run 2D modes"),
        }
    }
}

/// The checksum of flatquad's `k` nearest to each point.
fn nearest_sum<T: SpatialIndex>(
    index: &T,
    points: &[<T::Bounds as Bounds>::Point],
    k: usize,
    out: &mut Vec<Neighbor>,
) -> Checksum {
    let mut sum = Checksum::default();
    for &p in points {
        index
            .nearest(p, k, None, Filter::ALL, out)
            .expect("nearest");
        for n in out.iter() {
            sum.add(n.distance);
        }
    }
    sum
}

/// The checksum of flatquad's first hits of rays of [`RAY_LENGTH`].
fn ray_sum<T: SpatialIndex>(
    index: &T,
    origins: &[<T::Bounds as Bounds>::Point],
    directions: &[<T::Bounds as Bounds>::Point],
) -> Checksum {
    let mut sum = Checksum::default();
    for (&origin, &direction) in origins.iter().zip(directions) {
        let ray = Ray {
            origin,
            direction,
            max_length: RAY_LENGTH,
        };
        if let Some(hit) = index.ray_cast(&ray, Filter::ALL).expect("ray") {
            sum.add(hit.distance);
        }
    }
    sum
}

/// The octree of the 3D cubes, built as the agents bench builds it.
struct Ours3d {
    tree: Octree,
    out: Vec<Neighbor>,
}

impl Ours3d {
    fn new(inputs: &Inputs3d) -> Ours3d {
        let w = inputs.world;
        let world = Box3::new(0.0, 0.0, 0.0, w, w, w);
        let mut tree = Octree::new(
            world,
            AGENTS_MAX_ELEMENTS,
            default_max_depth(w, inputs.side),
        )
        .expect("octree");
        let ids: Vec<u32> = (0..inputs.boxes.len() as u32).collect();
        tree.insert_many(&inputs.boxes, &ids, &mut Vec::new())
            .expect("insert");
        tree.cleanup();
        Ours3d {
            tree,
            out: Vec::new(),
        }
    }
}

impl Searcher for Ours3d {
    fn name(&self) -> String {
        "flatquad octree".to_string()
    }
    fn supports(&self, mode: Mode) -> bool {
        mode.is_3d()
    }
    fn run(&mut self, mode: Mode, inputs: &Inputs) -> Checksum {
        let three = &inputs.three;
        match mode {
            Mode::Nearest3d => nearest_sum(&self.tree, &three.points, 1, &mut self.out),
            Mode::Ray3d => ray_sum(&self.tree, &three.points, &three.directions),
            Mode::Nearest(_) | Mode::Ray => unreachable!("the octree runs 3D modes"),
        }
    }
}

/// rstar's R*-tree of the rectangles (`N` = 2) or cubes (3), bulk-loaded with
/// their corners in `f64` (so its distances are ours): `nearest_neighbor_iter`
/// for k nearest in 2D, the nearest one in 3D. rstar has no ray cast.
struct Rstar<const N: usize> {
    tree: rstar::RTree<rstar::primitives::Rectangle<[f64; N]>>,
}

impl<const N: usize> Rstar<N>
where
    [f64; N]: rstar::Point,
{
    fn new<B: Bounds>(boxes: &[B]) -> Rstar<N> {
        let corner = |b: &B, side: fn(&B, usize) -> f32| {
            std::array::from_fn(|axis| f64::from(side(b, axis)))
        };
        let rects = boxes
            .iter()
            .map(|b| rstar::primitives::Rectangle::from_corners(corner(b, B::lo), corner(b, B::hi)))
            .collect();
        Rstar {
            tree: rstar::RTree::bulk_load(rects),
        }
    }
}

impl Searcher for Rstar<2> {
    fn name(&self) -> String {
        "rstar".to_string()
    }
    fn supports(&self, mode: Mode) -> bool {
        matches!(mode, Mode::Nearest(_))
    }
    fn run(&mut self, mode: Mode, inputs: &Inputs) -> Checksum {
        use rstar::PointDistance;
        let Mode::Nearest(k) = mode else {
            unreachable!("rstar runs 2D nearest only")
        };
        let mut sum = Checksum::default();
        for p in &inputs.points {
            let p = [p[0] as f64, p[1] as f64];
            for r in self.tree.nearest_neighbor_iter(p).take(k) {
                sum.add(r.distance_2(&p).sqrt());
            }
        }
        sum
    }
}

impl Searcher for Rstar<3> {
    fn name(&self) -> String {
        "rstar".to_string()
    }
    fn supports(&self, mode: Mode) -> bool {
        mode == Mode::Nearest3d
    }
    fn run(&mut self, _: Mode, inputs: &Inputs) -> Checksum {
        use rstar::PointDistance;
        let mut sum = Checksum::default();
        for p in &inputs.three.points {
            let p = p.map(f64::from);
            if let Some(cube) = self.tree.nearest_neighbor(p) {
                sum.add(cube.distance_2(&p).sqrt());
            }
        }
        sum
    }
}

/// A searcher over parry's `Bvh` from its binned build, in 2D or 3D (the two
/// crates' types differ, the code does not): `cast_ray` with each leaf's AABB
/// ray cast for the first hit, and `project_point` for the nearest one (k = 1
/// only). `$label` is its name in the table; `nearest` and `ray` are the modes
/// it runs (`supports` is their union) and `others` the rest, unreachable since
/// `measure` runs only supported modes; `$set` picks the dimension's boxes,
/// points and directions from the inputs; `$axis` lists the axes, for parry's
/// vectors.
macro_rules! parry_searcher {
    (
        $searcher:ident, $krate:ident, $label:literal,
        nearest: $nearest:pat, ray: $ray:pat, others: $others:pat,
        |$inputs:ident| $set:expr, [$($axis:literal),+]
    ) => {
        struct $searcher {
            bvh: $krate::partitioning::Bvh,
            leaves: Vec<$krate::bounding_volume::Aabb>,
        }

        impl $searcher {
            fn new($inputs: &Inputs) -> $searcher {
                use $krate::math::Vector;
                let (boxes, _, _) = $set;
                let leaves: Vec<_> = boxes
                    .iter()
                    .map(|b| {
                        $krate::bounding_volume::Aabb::new(
                            Vector::new($(b.lo($axis)),+),
                            Vector::new($(b.hi($axis)),+),
                        )
                    })
                    .collect();
                let bvh = $krate::partitioning::Bvh::from_leaves(
                    $krate::partitioning::BvhBuildStrategy::Binned,
                    &leaves,
                );
                $searcher { bvh, leaves }
            }
        }

        impl Searcher for $searcher {
            fn name(&self) -> String {
                $label.to_string()
            }
            fn supports(&self, mode: Mode) -> bool {
                matches!(mode, $nearest | $ray)
            }
            fn run(&mut self, mode: Mode, $inputs: &Inputs) -> Checksum {
                use $krate::math::Vector;
                use $krate::query::{PointQuery, Ray as ParryRay, RayCast};
                let (boxes, points, directions) = $set;
                let mut sum = Checksum::default();
                let leaves = &self.leaves;
                match mode {
                    $nearest => {
                        for p in points {
                            let point = Vector::new($(p[$axis]),+);
                            let best = self.bvh.project_point(point, f32::MAX, |leaf, _| {
                                Some(leaves[leaf as usize].project_local_point(point, true))
                            });
                            if let Some((leaf, _)) = best {
                                // The distance in f64 from the f32 box, as ours computes it.
                                sum.add(boxes[leaf as usize].distance_to_point(*p));
                            }
                        }
                    }
                    $ray => {
                        for (p, d) in points.iter().zip(directions) {
                            let ray = ParryRay::new(
                                Vector::new($(p[$axis]),+),
                                Vector::new($(d[$axis]),+),
                            );
                            let hit = self.bvh.cast_ray(&ray, RAY_LENGTH as f32, |leaf, best| {
                                leaves[leaf as usize].cast_local_ray(&ray, best, true)
                            });
                            if let Some((leaf, _)) = hit {
                                sum.add(ray_entry(&boxes[leaf as usize], *p, *d));
                            }
                        }
                    }
                    $others => unreachable!(concat!($label, " runs only the modes its supports() accepts")),
                }
                sum
            }
        }
    };
}

parry_searcher!(
    Parry, parry2d, "parry2d",
    nearest: Mode::Nearest(1), ray: Mode::Ray, others: Mode::Nearest(_) | Mode::Nearest3d | Mode::Ray3d,
    |inputs| (&inputs.rects, &inputs.points, &inputs.directions), [0, 1]
);
parry_searcher!(
    Parry3d, parry3d, "parry3d",
    nearest: Mode::Nearest3d, ray: Mode::Ray3d, others: Mode::Nearest(_) | Mode::Ray,
    |inputs| (&inputs.three.boxes, &inputs.three.points, &inputs.three.directions), [0, 1, 2]
);

/// The f64 entry distance of a ray of [`RAY_LENGTH`] into a box (through
/// flatquad's own rule), for checksums of peers that answer in f32.
fn ray_entry<B: Bounds>(b: &B, origin: B::Point, direction: B::Point) -> f64 {
    let ray = Ray {
        origin,
        direction,
        max_length: RAY_LENGTH,
    };
    ray.entry_into(b).unwrap_or(f64::NAN)
}

struct Row {
    mode: Mode,
    name: String,
    ms: f64,
    checksum: Checksum,
    ok: bool,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn measure(runs: usize, queries: usize) -> Vec<Row> {
    let inputs = inputs(queries);
    let mut searchers: Vec<Box<dyn Searcher>> = Vec::new();
    for (name, kind, extent) in STRUCTURES {
        if extent.is_some() {
            continue;
        }
        searchers.push(Box::new(Ours::new(name, FlatquadConfig::of(kind), &inputs)));
    }
    searchers.push(Box::new(Rstar::<2>::new(&inputs.rects)));
    searchers.push(Box::new(Parry::new(&inputs)));
    searchers.push(Box::new(Ours3d::new(&inputs.three)));
    searchers.push(Box::new(Rstar::<3>::new(&inputs.three.boxes)));
    searchers.push(Box::new(Parry3d::new(&inputs)));
    let mut rows = Vec::new();
    for mode in MODES {
        let active: Vec<usize> = (0..searchers.len())
            .filter(|&i| searchers[i].supports(mode))
            .collect();
        let mut times = vec![Vec::new(); searchers.len()];
        let mut sums = vec![Checksum::default(); searchers.len()];
        for _ in 0..runs {
            for &i in &active {
                let start = Instant::now();
                sums[i] = searchers[i].run(mode, &inputs);
                times[i].push(start.elapsed().as_secs_f64() * 1e3);
            }
        }
        let reference = sums[active[0]];
        for &i in &active {
            rows.push(Row {
                mode,
                name: searchers[i].name(),
                ms: median(std::mem::take(&mut times[i])),
                checksum: sums[i],
                ok: sums[i].agrees(&reference),
            });
        }
    }
    rows
}

fn table(rows: &[Row], runs: usize, queries: usize) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "{TITLE}\n");
    let _ = writeln!(
        md,
        "Machine: {} CPUs, {}. Date: {}. Made by `make bench` (`searches --markdown \
         docs/benchmarks.md`, release build). Median of {runs} runs, single-threaded. \
         {queries} queries against the 100,000 agents of `static-1m-queries` (its point \
         queries as the query points); rays from the same points in directions from a \
         second generator, 64 units long (16 agent sides). The 3D modes: {queries} points \
         drawn uniformly in the world of `uniform3d-100k` against its 100,000 cubes at \
         their initial positions, on the octree (16 elements a leaf, the agents bench's \
         depth), rays 64 units long in directions uniform on the sphere. Ratio: ms over \
         the fastest flatquad structure's ms in the same mode. Checksum: hits and the sum \
         of their distances, equal to the mode's first flatquad row (tie-independent).\n",
        machine::nproc(),
        machine::cpu_model(),
        machine::utc_date(),
    );
    let _ = writeln!(
        md,
        "| mode | implementation | ms | ratio | µs/query | hits | distance sum | checksum |"
    );
    let _ = writeln!(md, "|---|---|--:|--:|--:|--:|--:|---|");
    for mode in MODES {
        let of_mode: Vec<&Row> = rows.iter().filter(|r| r.mode == mode).collect();
        let best = of_mode
            .iter()
            .filter(|r| r.name.starts_with("flatquad"))
            .map(|r| r.ms)
            .fold(f64::INFINITY, f64::min);
        for r in of_mode {
            let _ = writeln!(
                md,
                "| {} | {} | {:.1} | {:.2} | {:.3} | {} | {:.3} | {} |",
                mode.name(),
                r.name,
                r.ms,
                r.ms / best,
                r.ms * 1e3 / queries as f64,
                r.checksum.count,
                r.checksum.distance_sum,
                if r.ok { "OK" } else { "MISMATCH" }
            );
        }
    }
    md + &ray_target(rows)
}

/// Issue 20's ray target, marked from this run: the fastest flatquad
/// structure's first hits ahead of parry2d's.
fn ray_target(rows: &[Row]) -> String {
    let rays = || rows.iter().filter(|r| r.mode == Mode::Ray);
    let ours = rays()
        .filter(|r| r.name.starts_with("flatquad"))
        .min_by(|a, b| a.ms.total_cmp(&b.ms));
    let parry = rays().find(|r| r.name == "parry2d");
    let (Some(ours), Some(parry)) = (ours, parry) else {
        return String::new();
    };
    // A row whose checksum disagrees did other work: not counted.
    let met = ours.ok && parry.ok && ours.ms < parry.ms;
    format!(
        "\nTarget of issue 20, ray casts' first hit ahead of parry2d: {} in this run \
         ({} {:.1} ms against parry2d's {:.1}, {}{}).\n",
        if met { "met" } else { "**missed**" },
        ours.name,
        ours.ms,
        parry.ms,
        lead_phrase(parry.ms / ours.ms),
        if ours.ok && parry.ok {
            ""
        } else {
            "; checksum MISMATCH"
        }
    )
}

/// `path` with the section titled [`TITLE`] replaced by `section` (appended if
/// absent); sections are separated by lines starting with `## `.
fn replace_section(path: &str, section: &str) -> std::io::Result<()> {
    let old = std::fs::read_to_string(path).unwrap_or_default();
    let new = match old.find(TITLE) {
        Some(start) => {
            let rest = &old[start + TITLE.len()..];
            let end = rest
                .find("\n## ")
                .map_or(old.len(), |at| start + TITLE.len() + at + 1);
            format!("{}{}\n{}", &old[..start], section, &old[end..])
        }
        None => format!(
            "{}\n{}",
            old.trim_end_matches('\n').to_string() + "\n",
            section
        ),
    };
    std::fs::write(path, new)
}

fn main() -> ExitCode {
    let mut runs = 3;
    let mut queries = 1_000_000;
    let mut markdown = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next();
        match (arg.as_str(), value) {
            ("--runs", Some(v)) if v.parse::<usize>().is_ok_and(|r| r > 0) => {
                runs = v.parse().unwrap_or(3)
            }
            ("--queries", Some(v)) if v.parse::<usize>().is_ok_and(|q| q > 0) => {
                queries = v.parse().unwrap_or(1_000_000)
            }
            ("--markdown", Some(v)) => markdown = Some(v),
            _ => {
                eprintln!(
                    "usage: searches [--runs R] [--queries N (at most 1000000)] [--markdown PATH]"
                );
                return ExitCode::from(2);
            }
        }
    }
    let rows = measure(runs, queries);
    let md = table(&rows, runs, queries.min(1_000_000));
    print!("{md}");
    if let Some(path) = markdown {
        if let Err(e) = replace_section(&path, &md) {
            eprintln!("searches: cannot write {path}: {e}");
            return ExitCode::FAILURE;
        }
    }
    if rows.iter().all(|r| r.ok) {
        ExitCode::SUCCESS
    } else {
        eprintln!("searches: checksum MISMATCH");
        ExitCode::FAILURE
    }
}
