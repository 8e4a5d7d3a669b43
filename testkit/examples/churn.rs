//! The churn check: `--ops` mixed operations (insert, remove, move, query, a
//! cleanup every 1024) on each structure around a steady population, with
//! `stats().bytes` and the process's RSS sampled; after warm-up (the first
//! fifth) neither may grow more than 5% (plus a small slack). Exits non-zero
//! otherwise.
//!
//! cargo run --release -p flatquad-testkit --example churn -- --ops 10000000

use flatquad::{Box3, Grid, LooseGrid, LooseQuadtree, Octree, Quadtree, Rect, SpatialIndex};
use flatquad_testkit::{churn, flat_after_warm_up, Lcg};

/// The fewest operations a run takes per element of the population: at
/// 10,000 elements the link pools last grew after 60,000 operations, and runs
/// of 200,000 failed for it (their warm-up ended at 40,000), 1,000,000 passed.
const MIN_OPS_PER_ELEMENT: u64 = 50;

/// Resident set size in bytes, from /proc/self/status.
fn rss() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<usize>().ok())
        .map_or(0, |kb| kb * 1024)
}

fn run<T: SpatialIndex>(name: &str, mut index: T, ops: u64, population: usize) -> bool {
    let (mut bytes, mut rsss) = (Vec::new(), Vec::new());
    let started = std::time::Instant::now();
    churn(&mut index, &mut Lcg(11), ops, population, 20, |done, t| {
        bytes.push((done, t.stats().bytes));
        rsss.push((done, rss()));
    });
    index.validate().unwrap();
    let warm = bytes.len() / 5;
    let mib = |v: usize| v as f64 / (1024.0 * 1024.0);
    println!(
        "{name:<22} {ops} ops, {population} live, {:.1} s: bytes {:.2} MiB at warm-up end, max after {:.2}, final {:.2}; RSS {:.1} MiB, max after {:.1}, final {:.1}",
        started.elapsed().as_secs_f64(),
        mib(bytes[warm].1),
        mib(bytes[warm..].iter().map(|s| s.1).max().unwrap()),
        mib(bytes.last().unwrap().1),
        mib(rsss[warm].1),
        mib(rsss[warm..].iter().map(|s| s.1).max().unwrap()),
        mib(rsss.last().unwrap().1),
    );
    // Slack: 64 KiB of bytes; 1 MiB of RSS (allocator and page granularity).
    let checks = [
        ("bytes", flat_after_warm_up(&bytes, 64 << 10)),
        ("RSS", flat_after_warm_up(&rsss, 1 << 20)),
    ];
    let mut ok = true;
    for (what, result) in checks {
        if let Err(e) = result {
            println!("  {what} grew: {e}");
            ok = false;
        }
    }
    ok
}

fn main() {
    let mut ops = 10_000_000u64;
    let mut population = 10_000usize;
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let value = pair.get(1).map(|v| v.replace('_', "")).unwrap_or_default();
        match pair[0].as_str() {
            "--ops" => ops = value.parse().expect("--ops needs a number"),
            "--population" => population = value.parse().expect("--population needs a number"),
            other => panic!("unknown option {other} (--ops --population)"),
        }
    }
    // The pools settle at their high-water mark after a few times the
    // population in operations; a warm-up (the first fifth) shorter than
    // that would report their last growth as a leak.
    let shortest = MIN_OPS_PER_ELEMENT * population as u64;
    if ops < shortest {
        eprintln!(
            "churn: --ops {ops} is too short for --population {population}: the warm-up \
             (the first fifth) must cover the pools' growth; use at least {shortest}"
        );
        std::process::exit(2);
    }
    let world = Rect::new(0.0, 0.0, 1024.0, 1024.0);
    let cube = Box3::new(0.0, 0.0, 0.0, 1024.0, 1024.0, 1024.0);
    let results = [
        run(
            "Quadtree",
            Quadtree::for_world(world).unwrap(),
            ops,
            population,
        ),
        run("Grid", Grid::new(world, 128, 128).unwrap(), ops, population),
        run(
            "LooseGrid",
            LooseGrid::for_world(world).unwrap(),
            ops,
            population,
        ),
        run(
            "LooseQuadtree",
            LooseQuadtree::for_world(world).unwrap(),
            ops,
            population,
        ),
        run(
            "LooseQuadtree(max 64)",
            LooseQuadtree::with_max_extent(world, 8, 8, 64.0).unwrap(),
            ops,
            population,
        ),
        run("Octree", Octree::for_world(cube).unwrap(), ops, population),
    ];
    if results.contains(&false) {
        println!("churn: memory grew");
        std::process::exit(1);
    }
    println!("churn: bytes and RSS flat after warm-up on every structure");
}
