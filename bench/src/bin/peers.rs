//! flatquad beside every peer on the agents workload, one table.
//!
//! ```text
//! cargo run --release -p flatquad-bench --features peers --bin peers -- \
//!     [SCENARIO... | all] [--runs R] [--only NAMES] [--threads N] [--markdown PATH] \
//!     [--max-elements N] [--max-depth N]
//! ```
//!
//! Every implementation runs every mode of the scenario it supports R times,
//! interleaved (run 1 of all of them, then run 2, ...), and the table shows the run
//! with the median frame time (for the static scenario's query modes, the median
//! query time), the bytes per agent the index holds where it tells, and the
//! process's peak RSS at the end. With `--threads N` (N > 1), the implementations
//! that can use threads also run on N threads of a rayon pool, as rows named
//! `... (N threads)`. Every run's count is checked against the
//! scenario's checksum (docs/workload.md's, or the oracle's). Exits with 1 when a checksum
//! does not match or an index fails, 2 on a usage error.

use std::fmt::Write as _;
use std::process::ExitCode;

use flatquad_bench::flatquad_index::{FlatquadConfig, FlatquadIndex, OctreeIndex, STRUCTURES};
use flatquad_bench::workload::{scenario_names, SCENARIOS};
use flatquad_bench::{
    machine, oracle, peers, run, scenario, targets, threaded_name, GridIndex, Index, Report,
};
use flatquad_bench::{BenchError, Scenario};

struct Args {
    scenarios: Vec<&'static Scenario>,
    runs: usize,
    markdown: Option<String>,
    config: FlatquadConfig,
    /// `--only`: the implementations to run, by name (all when empty).
    only: Vec<String>,
    /// `--threads`: also the threaded rows, on a pool of this many (when > 1).
    threads: usize,
}

fn usage() -> String {
    format!(
        "usage: peers [SCENARIO... | all] [--runs R] [--only NAMES] [--threads N] [--markdown PATH]\n\
         \x20            [--max-elements N] [--max-depth N]\n\
         \n\
         Runs flatquad, the grid baseline and every peer on the agents workload. The\n\
         grid baseline counts its hits ('grid'), or hands their ids out where flatquad\n\
         hands out handles ('grid (ids)': per agent; all pairs and static queries on threads).\n\
         SCENARIO: any of {} (default uniform-100k), or all.\n\
         The static scenario runs the rect-queries and point-queries modes, the others\n\
         all-pairs, per-agent and events.\n\
         --runs          runs of each implementation and mode; the median is shown (default 3)\n\
         --only          run only these implementations: names as in the table, comma-separated\n\
         \x20               (e.g. --only 'flatquad grid,grid')\n\
         --threads       N > 1: also rows of the implementations that can use threads, on N\n\
         \x20               threads of a rayon pool, named '... (N threads)': flatquad's structures\n\
         \x20               (par_overlapping_many, par_pairs), the rebuilt grid (queries and pair\n\
         \x20               walk; its rebuild on one thread), broccoli (broccoli-rayon) (default 1)\n\
         --markdown      also write the table as Markdown to PATH\n\
         --max-elements  flatquad: elements per leaf before a split (default 16)\n\
         --max-depth     flatquad: deepest level (default: smallest cell >= 4 agent sides;\n\
         \x20               the loose quadtree: >= 1 agent side)",
        scenario_names()
    )
}

fn parse_number<T: std::str::FromStr>(flag: &str, value: Option<String>) -> Result<T, String> {
    let value = value.ok_or_else(|| format!("{flag} needs a value"))?;
    value
        .parse()
        .map_err(|_| format!("{flag}: not a non-negative integer: {value:?}"))
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Option<Args>, String> {
    let mut scenarios = Vec::new();
    let mut runs = 3;
    let mut markdown = None;
    let mut config = FlatquadConfig::default();
    let mut only = Vec::new();
    let mut threads = 1;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-h" | "--help" => return Ok(None),
            "--runs" => runs = parse_number(&arg, args.next())?,
            "--markdown" => markdown = Some(args.next().ok_or("--markdown needs a path")?),
            "--threads" => threads = parse_number(&arg, args.next())?,
            "--only" => {
                let names = args.next().ok_or("--only needs names")?;
                only.extend(names.split(',').map(|n| n.trim().to_string()));
            }
            "--max-elements" => config.max_elements = Some(parse_number(&arg, args.next())?),
            "--max-depth" => config.max_depth = Some(parse_number(&arg, args.next())?),
            flag if flag.starts_with('-') => return Err(format!("unknown option {flag:?}")),
            "all" => scenarios.extend(SCENARIOS.iter()),
            name => {
                scenarios.push(scenario(name).ok_or_else(|| format!("unknown scenario {name:?}"))?)
            }
        }
    }
    if threads == 0 {
        return Err("--threads must be at least 1".to_string());
    }
    if runs == 0 {
        return Err("--runs must be at least 1".to_string());
    }
    if scenarios.is_empty() {
        scenarios.extend(scenario("uniform-100k"));
    }
    Ok(Some(Args {
        scenarios,
        runs,
        markdown,
        config,
        only,
        threads,
    }))
}

/// One table row: the median run of one implementation in one mode.
struct Row {
    report: Report,
    ratio: Option<f64>,
    /// Whether every run (not only the median one) reproduced the checksum.
    all_ok: bool,
}

/// Every implementation for one scenario, flatquad's structures first.
fn implementations(s: &Scenario, config: FlatquadConfig, threads: usize) -> Vec<Box<dyn Index>> {
    let name = |base: &str| threaded_name(base, threads);
    let octree = || OctreeIndex::new(s.size, config.max_elements(), config.max_depth);
    if s.dimensions() == 3 {
        let mut all: Vec<Box<dyn Index>> = vec![Box::new(octree())];
        all.extend(peers::all_3d());
        if threads > 1 {
            all.push(Box::new(octree().with_threads(threads)));
            all.push(Box::new(
                peers::Parry3dIndex::new().with_threads(threads, name("parry3d-bvh")),
            ));
        }
        return all;
    }
    let mut all: Vec<Box<dyn Index>> = STRUCTURES
        .iter()
        .map(|&(_, structure, max_extent)| {
            Box::new(FlatquadIndex::new(
                s.size,
                FlatquadConfig {
                    structure,
                    max_extent,
                    ..config
                },
            )) as Box<dyn Index>
        })
        .collect();
    all.push(Box::new(GridIndex::new(s.size, GridIndex::DEFAULT_FACTOR)));
    all.push(Box::new(
        GridIndex::new(s.size, GridIndex::DEFAULT_FACTOR).listing_ids(),
    ));
    all.extend(peers::all(s.size));
    if threads > 1 {
        for (_, structure, max_extent) in STRUCTURES {
            all.push(Box::new(FlatquadIndex::new(
                s.size,
                FlatquadConfig {
                    structure,
                    max_extent,
                    threads,
                    ..config
                },
            )));
        }
        all.push(Box::new(
            GridIndex::new(s.size, GridIndex::DEFAULT_FACTOR).with_threads(threads, name("grid")),
        ));
        all.push(Box::new(
            GridIndex::new(s.size, GridIndex::DEFAULT_FACTOR)
                .listing_ids()
                .with_threads(threads, name("grid (ids)")),
        ));
        all.push(Box::new(
            peers::BroccoliIndex::new().with_threads(threads, name("broccoli")),
        ));
        all.push(Box::new(
            peers::ParryIndex::new().with_threads(threads, name("parry2d-bvh")),
        ));
    }
    all
}

/// Whether a row runs on several threads (its name ends `threads)`).
fn threaded(name: &str) -> bool {
    name.ends_with(" threads)")
}

/// Runs every implementation of `s` in every mode of the scenario it supports `runs`
/// times; returns the median rows, mode by mode in [`Scenario::modes`] order,
/// flatquad first within a mode.
fn measure(s: &Scenario, args: &Args) -> Result<Vec<Row>, BenchError> {
    eprintln!("{}: computing the checksums...", s.name);
    let expected = oracle::expected_checksums(s);
    let mut indexes = implementations(s, args.config, args.threads);
    if !args.only.is_empty() {
        indexes.retain(|index| args.only.iter().any(|n| n == index.name()));
        if indexes.is_empty() {
            return Err(BenchError::new(format!(
                "--only {}: no such implementation",
                args.only.join(",")
            )));
        }
    }
    // reports[i][m] holds index i's runs in mode expected[m].0.
    let mut reports: Vec<Vec<Vec<Report>>> = indexes
        .iter()
        .map(|_| vec![Vec::new(); expected.len()])
        .collect();
    for r in 0..args.runs {
        for (index, slots) in indexes.iter_mut().zip(reports.iter_mut()) {
            for (&(mode, sum), slot) in expected.iter().zip(slots.iter_mut()) {
                if !index.supports(mode) {
                    continue;
                }
                eprintln!(
                    "{}: run {}/{}: {} {mode}",
                    s.name,
                    r + 1,
                    args.runs,
                    index.name()
                );
                let report = run(s, index.as_mut(), mode, sum)
                    .map_err(|e| BenchError::new(format!("{} {}: {e}", s.name, index.name())))?;
                if !report.ok() {
                    eprintln!(
                        "{}: {} {mode}: checksum MISMATCH: {} instead of {}",
                        s.name,
                        index.name(),
                        report.pairs_per_frame,
                        report.expected
                    );
                }
                slot.push(report);
            }
        }
    }
    let mut rows = Vec::new();
    for m in 0..expected.len() {
        let first = rows.len();
        for slots in &mut reports {
            let runs = &mut slots[m];
            if runs.is_empty() {
                continue;
            }
            // Every run must match, not only the median one.
            let all_ok = runs.iter().all(Report::ok);
            runs.sort_by(|a, b| a.frame_ms.total_cmp(&b.frame_ms));
            let report = runs.swap_remove(runs.len() / 2);
            rows.push(Row {
                report,
                ratio: None,
                all_ok,
            });
        }
        // Ratios against the fastest of flatquad's structures in this mode, on
        // as many threads.
        let best = |threads: bool| {
            rows[first..]
                .iter()
                .filter(|row| {
                    row.report.index.starts_with("flatquad")
                        && threaded(row.report.index) == threads
                })
                .map(|row| row.report.frame_ms)
                .min_by(f64::total_cmp)
        };
        let (single, multi) = (best(false), best(true));
        for row in &mut rows[first..] {
            let b = if threaded(row.report.index) {
                multi
            } else {
                single
            };
            row.ratio = b.map(|b| row.report.frame_ms / b);
        }
    }
    Ok(rows)
}

fn check(row: &Row) -> &'static str {
    if row.all_ok {
        "OK"
    } else {
        "MISMATCH"
    }
}

fn bytes_per_agent(r: &Report) -> String {
    r.bytes_per_agent()
        .map_or_else(|| "-".to_string(), |b| format!("{b:.1}"))
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

/// The peak-RSS sentence of the report.
fn peak_rss() -> String {
    match machine::peak_rss_bytes() {
        Some(b) => format!(
            "Peak RSS of the whole process (VmHWM, every scenario and implementation above, \
             the oracles and the workload included): {}.",
            mib(b)
        ),
        None => "Peak RSS: unknown (no /proc/self/status).".to_string(),
    }
}

fn ratio(row: &Row) -> String {
    row.ratio
        .map_or_else(|| "-".to_string(), |x| format!("{x:.2}"))
}

fn print_table(rows: &[Row]) {
    // The impl column as wide as its longest name.
    let w = rows
        .iter()
        .map(|row| row.report.index.len())
        .max()
        .unwrap_or(0)
        .max(13);
    println!(
        "{:<18} {:<w$} {:<13} {:>10} {:>11} {:>9} {:>6} {:>12} {:>9} {:>12}",
        "scenario",
        "impl",
        "mode",
        "update ms",
        "collide ms",
        "frame ms",
        "ratio",
        "pairs/frame",
        "checksum",
        "bytes/agent"
    );
    for row in rows {
        let [scenario, index, mode, update, collide, frame, ratio, pairs, check, bytes] =
            cells(row);
        println!(
            "{scenario:<18} {index:<w$} {mode:<13} {update:>10} {collide:>11} {frame:>9} {ratio:>6} {pairs:>12} {check:>9} {bytes:>12}"
        );
    }
}

/// One row's cells, as both the printed and the Markdown table show them.
fn cells(row: &Row) -> [String; 10] {
    let r = &row.report;
    [
        r.scenario.to_string(),
        r.index.to_string(),
        r.mode.name().to_string(),
        format!("{:.3}", r.update_ms),
        format!("{:.3}", r.collide_ms),
        format!("{:.3}", r.frame_ms),
        ratio(row),
        r.pairs_per_frame.to_string(),
        check(row).to_string(),
        bytes_per_agent(r).to_string(),
    ]
}

/// The line after which a Markdown report holds sections written by other
/// benches (the joins'), which rewriting the table keeps.
const KEPT_BELOW: &str =
    "<!-- Sections below are written by other benches; `make bench` keeps them. -->";

/// The kept sections of the report at `path` (from [`KEPT_BELOW`] on), or the
/// marker alone when there are none yet.
fn kept_sections(path: &str) -> String {
    let old = std::fs::read_to_string(path).unwrap_or_default();
    match old.find(KEPT_BELOW) {
        Some(at) => format!("\n{}", &old[at..]),
        None => format!("\n{KEPT_BELOW}\n"),
    }
}

fn markdown(rows: &[Row], args: &Args) -> String {
    let mut md = String::new();
    let depths: Vec<String> = args
        .scenarios
        .iter()
        .map(|s| format!("{} {}", s.name, args.config.max_depth(s.world, s.size)))
        .collect();
    let loose = FlatquadConfig {
        structure: flatquad::Kind::LooseQuadtree,
        ..args.config
    };
    let loose_depths: Vec<String> = args
        .scenarios
        .iter()
        .map(|s| format!("{} {}", s.name, loose.max_depth(s.world, s.size)))
        .collect();
    let _ = writeln!(md, "# flatquad and its peers on the agents workload\n");
    let _ = writeln!(
        md,
        "Machine: {} CPUs, {}. Date: {}. Made by `make bench` \
         (`peers all --markdown docs/benchmarks.md`, release build).\n",
        machine::nproc(),
        machine::cpu_model(),
        machine::utc_date()
    );
    let _ = writeln!(
        md,
        "Median of {} runs (by frame time), single-threaded except the rows named \
         `(N threads)`. Ratio: frame ms over \
         the fastest flatquad structure's frame ms in the same scenario and mode, on as \
         many threads (above 1 is slower). Checksum: OK when every run reproduced the scenario's count \
         (the [workload's](workload.md), or the exact sort-and-sweep oracle's). flatquad (the quadtree): \
         max_elements {}, max_depth by scenario: {}; flatquad grid: cells of {} agent \
         sides; flatquad loose-grid: cells of {} agent sides; flatquad loose-quadtree: \
         max_depth by scenario: {}. `grid` is the grid rebuilt every frame \
         (`bench/src/grid.rs`), counting its hits without naming them; `grid (ids)` the same \
         grid handing each hit's id out wherever flatquad's rows hand out handles (per agent, \
         and all pairs and static queries on threads), counting where flatquad's adapter \
         counts through a visitor.\n",
        args.runs,
        args.config.max_elements(),
        depths.join(", "),
        FlatquadConfig::of(flatquad::Kind::Grid).cell_side(1.0),
        FlatquadConfig::of(flatquad::Kind::LooseGrid).cell_side(1.0),
        loose_depths.join(", "),
    );
    if args.scenarios.iter().any(|s| s.is_static()) {
        let _ = writeln!(
            md,
            "`static-1m-queries`: the 100,000 agents of uniform-100k at their initial \
             positions, never moved, hit by 1,000,000 rectangle queries of side 4 \
             (`rect-queries`) and 1,000,000 point queries (`point-queries`), drawn from the \
             same LCG after the agents (`bench/src/workload.rs`, `Queries::draw`). There \
             update ms is the one build of the index, collide ms and frame ms the whole \
             batch of queries, pairs/frame the total hits.\n"
        );
    }
    if args.scenarios.iter().any(|s| s.dimensions() == 3) {
        let _ = writeln!(
            md,
            "`uniform3d-100k`: 100,000 cubes of side 4 moving in a 1024³ world ([the workload's](workload.md) \
             LCG and bouncing rule with z, `bench/src/workload.rs`, `Layout::Uniform3d`), \
             on the octree (max_elements as above, max_depth {}) beside parry3d's `Bvh` and \
             rstar with 3D envelopes.\n",
            args.config.max_depth(1024.0, 4.0)
        );
    }
    let _ = writeln!(
        md,
        "Bytes/agent: the bytes the index says it holds after the run (capacities \
         included) over the number of agents: flatquad's `stats().bytes`, the grid's \
         arrays, parry2d's and parry3d's `total_memory_size`, broccoli's element slice \
         only (its tree data left out), Box2D's `b2DynamicTree_GetByteCount` plus the \
         adapter's boxes and pair set; `-` where the library does not tell (rstar, \
         flat_spatial).\n"
    );
    let _ = writeln!(
        md,
        "| scenario | implementation | mode | update ms | collide ms | frame ms | ratio | pairs/frame | checksum | bytes/agent |"
    );
    let _ = writeln!(md, "|---|---|---|--:|--:|--:|--:|--:|---|--:|");
    for row in rows {
        let _ = writeln!(md, "| {} |", cells(row).join(" | "));
    }
    let _ = writeln!(md, "\n{}", peak_rss());
    let reports: Vec<&Report> = rows.iter().map(|row| &row.report).collect();
    md += &targets::markdown(&targets::issue_20_targets(&reports, args.threads));
    md
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(Some(args)) => args,
        Ok(None) => {
            println!("{}", usage());
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("peers: {message}\n\n{}", usage());
            return ExitCode::from(2);
        }
    };
    for s in &args.scenarios {
        if let Err(e) = args.config.validate(s) {
            eprintln!("peers: {}: {e}\n\n{}", s.name, usage());
            return ExitCode::from(2);
        }
    }
    // The threaded rows run in a pool of exactly the threads asked for.
    let pool = match rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads)
        .build()
    {
        Ok(pool) => pool,
        Err(e) => {
            eprintln!("peers: cannot start {} threads: {e}", args.threads);
            return ExitCode::FAILURE;
        }
    };
    let mut rows = Vec::new();
    for s in &args.scenarios {
        match pool.install(|| measure(s, &args)) {
            Ok(r) => rows.extend(r),
            Err(e) => {
                eprintln!("peers: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    println!(
        "{} CPUs, {}; median of {} runs",
        machine::nproc(),
        machine::cpu_model(),
        args.runs
    );
    print_table(&rows);
    println!("{}", peak_rss());
    let reports: Vec<&Report> = rows.iter().map(|row| &row.report).collect();
    for t in targets::issue_20_targets(&reports, args.threads) {
        let mark = if t.met { "met   " } else { "MISSED" };
        println!("{mark} {}: {}", t.what, t.measured);
    }
    if let Some(path) = &args.markdown {
        let kept = kept_sections(path);
        if let Err(e) = std::fs::write(path, markdown(&rows, &args) + &kept) {
            eprintln!("peers: cannot write {path}: {e}");
            return ExitCode::FAILURE;
        }
    }
    if rows.iter().all(|row| row.all_ok) {
        ExitCode::SUCCESS
    } else {
        eprintln!("peers: checksum MISMATCH");
        ExitCode::FAILURE
    }
}
