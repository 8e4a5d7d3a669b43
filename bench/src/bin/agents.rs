//! The project demo: flatquad on the agents workload of `docs/workload.md`.
//!
//! ```text
//! cargo run --release -p flatquad-bench --bin agents -- [SCENARIO] \
//!     [--index quadtree|grid|loose-grid|loose-quadtree[-bounded]|all] [--mode MODE|all] \
//!     [--max-elements N] [--max-depth N] [--cell K] [--margin K] [--threads N] \
//!     [--png PATH [--png-size PX]] [--gif PATH [--gif-size PX] [--frames N] [--gif-every K]] \
//!     [--region X,Y,SIDE]
//! ```
//!
//! `--png` draws the tree after the run: its leaves (filled by how full they are,
//! outlined by depth) and the agents (pink where they overlap another); `--gif`
//! plays the scenario again and draws a frame every K frames. Exits with 1 when a
//! checksum does not match, 2 on a usage, index or file error.

use std::process::ExitCode;

use flatquad::{PairTracker, SpatialIndex, Stats};
use flatquad_bench::flatquad_index::{
    parse_structure, FlatquadConfig, FlatquadIndex, OctreeIndex, STRUCTURES,
};
use flatquad_bench::picture::{draw_tree, Events, GifWriter, View};
use flatquad_bench::workload::{scenario_names, WARMUP_FRAMES};
use flatquad_bench::{oracle, run, scenario, Agents, Index, Mode, Report, Scenario};

/// A square region of the world, `None` for the default.
type Region = Option<(f32, f32, f32)>;

struct Args {
    scenario: &'static Scenario,
    modes: Vec<Mode>,
    /// One config per structure to run, in order (a 3D scenario runs the
    /// octree with the first config's max elements and depth).
    configs: Vec<FlatquadConfig>,
    png: Option<String>,
    png_size: u32,
    gif: Option<String>,
    gif_size: u32,
    gif_frames: u32,
    gif_every: u32,
    region: Region,
}

fn usage() -> String {
    format!(
        "usage: agents [SCENARIO] [--index STRUCTURE|all] [--mode MODE|all]\n\
         \x20             [--max-elements N] [--max-depth N] [--cell K] [--margin K] [--threads N]\n\
         \x20             [--png PATH] [--png-size PX] [--gif PATH] [--gif-size PX] [--frames N]\n\
         \x20             [--gif-every K] [--region X,Y,SIDE]\n\
         \n\
         Runs flatquad on the agents workload and checks the checksum.\n\
         SCENARIO: one of {} (default uniform-100k).\n\
         --index         quadtree, grid, loose-grid, loose-quadtree, loose-quadtree-bounded\n\
         \x20               (max_extent = 1.5 agent sides), or all of them in turn (default quadtree);\n\
         \x20               octree (the only structure of the 3D scenario uniform3d-100k)\n\
         --mode          all-pairs, per-agent or events (moving scenarios: events are the\n\
         \x20               pairs that began plus those that ended each frame), rect-queries or\n\
         \x20               point-queries (static-1m-queries); default (or `all`) every mode of the\n\
         \x20               scenario\n\
         --max-elements  elements per leaf before a split (default 16)\n\
         --max-depth     deepest tree level (default: smallest cell >= 4 agent sides;\n\
         \x20               the loose quadtree: >= 1 agent side)\n\
         --cell K        grids: cell side in agent sides (default 6 for the grid, 10 for the loose grid)\n\
         --margin K      fat bounds of K agent sides (set_margin; default none): answers\n\
         \x20               stay exact, a move inside the fat box costs no relink\n\
         --threads N     the frame's moves, queries and pair walk on N threads (par_update_many,\n\
         \x20               par_overlapping_many, par_pairs; default 1)\n\
         --png PATH      after the run, draw the tree's leaves and the agents as a PNG\n\
         --png-size PX   side of the PNG in pixels (default 1024)\n\
         --gif PATH      play the scenario again and draw an animated GIF\n\
         --gif-size PX   side of the GIF in pixels (default 512)\n\
         --frames N      GIF frames (default 50)\n\
         --gif-every K   workload frames between GIF frames (default 5)\n\
         --region X,Y,SIDE  the square of the world drawn (default: the whole world up\n\
         \x20               to 2048 units, else the top-left 1024 x 1024)",
        scenario_names()
    )
}

fn parse_u32(flag: &str, value: Option<String>) -> Result<u32, String> {
    let value = value.ok_or_else(|| format!("{flag} needs a value"))?;
    value
        .parse()
        .map_err(|_| format!("{flag}: not a non-negative integer: {value:?}"))
}

fn parse_f32(flag: &str, value: Option<String>) -> Result<f32, String> {
    let value = value.ok_or_else(|| format!("{flag} needs a value"))?;
    value
        .parse()
        .map_err(|_| format!("{flag}: not a number: {value:?}"))
}

fn parse_pixels(flag: &str, value: Option<String>) -> Result<u32, String> {
    let px = parse_u32(flag, value)?;
    if (1..=16384).contains(&px) {
        Ok(px)
    } else {
        Err(format!("{flag}: {px} is not in 1..=16384"))
    }
}

fn parse_region(value: Option<String>) -> Result<Region, String> {
    let value = value.ok_or("--region needs X,Y,SIDE")?;
    let bad = || format!("--region: want X,Y,SIDE (finite, SIDE > 0), not {value:?}");
    let numbers: Vec<f32> = value
        .split(',')
        .map(|v| v.trim().parse::<f32>())
        .collect::<Result<_, _>>()
        .map_err(|_| bad())?;
    match numbers[..] {
        [x, y, side] if x.is_finite() && y.is_finite() && side.is_finite() && side > 0.0 => {
            Ok(Some((x, y, side)))
        }
        _ => Err(bad()),
    }
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Option<Args>, String> {
    let mut scenario_name: Option<String> = None;
    let mut mode: Option<Mode> = None;
    let mut config = FlatquadConfig::default();
    let mut all_structures = false;
    let mut octree = false;
    let mut named_2d = false;
    let (mut png, mut png_size) = (None, 1024);
    let (mut gif, mut gif_size, mut gif_frames, mut gif_every) = (None, 512, 50, 5);
    let mut region = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-h" | "--help" => return Ok(None),
            "--mode" => {
                let value = args.next().ok_or("--mode needs a value")?;
                mode = match value.as_str() {
                    "both" | "all" => None,
                    other => Some(
                        Mode::parse(other)
                            .ok_or_else(|| format!("--mode: unknown mode {other:?}"))?,
                    ),
                };
            }
            "--index" => {
                let value = args.next().ok_or("--index needs a structure")?;
                if value == "all" {
                    all_structures = true;
                } else if value == "octree" {
                    octree = true;
                } else {
                    named_2d = true;
                    (config.structure, config.max_extent) = parse_structure(&value).ok_or_else(|| {
                        format!("--index: unknown structure {value:?} (quadtree, grid, loose-grid, loose-quadtree, loose-quadtree-bounded, all, octree)")
                    })?;
                }
            }
            "--cell" => config.cell = Some(parse_f32(&arg, args.next())?),
            "--margin" => config.margin = Some(parse_f32(&arg, args.next())?),
            "--threads" => {
                config.threads = parse_u32(&arg, args.next())? as usize;
                if config.threads == 0 {
                    return Err("--threads: at least 1".to_string());
                }
            }
            "--max-elements" => config.max_elements = Some(parse_u32(&arg, args.next())?),
            "--max-depth" => config.max_depth = Some(parse_u32(&arg, args.next())?),
            "--png" => png = Some(args.next().ok_or("--png needs a path")?),
            "--png-size" => png_size = parse_pixels(&arg, args.next())?,
            "--gif" => gif = Some(args.next().ok_or("--gif needs a path")?),
            "--gif-size" => gif_size = parse_pixels(&arg, args.next())?,
            "--frames" => gif_frames = parse_u32(&arg, args.next())?.max(1),
            "--gif-every" => gif_every = parse_u32(&arg, args.next())?,
            "--region" => region = parse_region(args.next())?,
            flag if flag.starts_with('-') => return Err(format!("unknown option {flag:?}")),
            name => {
                if scenario_name.replace(name.to_string()).is_some() {
                    return Err("more than one scenario given".to_string());
                }
            }
        }
    }
    let name = scenario_name.unwrap_or_else(|| "uniform-100k".to_string());
    let scenario = scenario(&name).ok_or_else(|| format!("unknown scenario {name:?}"))?;
    let modes = match mode {
        None => scenario.modes().to_vec(),
        Some(m) if scenario.modes().contains(&m) => vec![m],
        Some(m) => return Err(format!("{name} has no {m} mode")),
    };
    if gif.is_some() && scenario.is_static() {
        return Err(format!("--gif: nothing moves in {name}"));
    }
    let three_d = scenario.dimensions() == 3;
    if (octree && !three_d) || (three_d && named_2d) {
        return Err(format!(
            "{name} is {}D: the octree runs the 3D scenario, the other structures the 2D ones",
            scenario.dimensions()
        ));
    }
    if scenario.dimensions() == 3 && (png.is_some() || gif.is_some()) {
        return Err("--png and --gif draw 2D scenarios".to_string());
    }
    let configs = if all_structures && scenario.dimensions() == 2 {
        STRUCTURES
            .iter()
            .map(|&(_, structure, max_extent)| FlatquadConfig {
                structure,
                max_extent,
                ..config
            })
            .collect()
    } else {
        vec![config]
    };
    if configs.len() > 1 && (png.is_some() || gif.is_some()) {
        return Err("--png and --gif draw one structure: pick it with --index".to_string());
    }
    Ok(Some(Args {
        scenario,
        modes,
        configs,
        png,
        png_size,
        gif,
        gif_size,
        gif_frames,
        gif_every,
        region,
    }))
}

/// The region drawn: the one asked for, or the whole world up to 2048 units on a
/// side, or else its top-left 1024 × 1024 units.
fn view(s: &Scenario, region: Region, pixels: u32) -> View {
    let (x, y, side) = region.unwrap_or(if s.world <= 2048.0 {
        (0.0, 0.0, s.world)
    } else {
        (0.0, 0.0, 1024.0)
    });
    View { x, y, side, pixels }
}

/// "N frames of updates, then " for an aged scenario, else nothing.
fn aged(s: &Scenario) -> String {
    match s.aging {
        0 => String::new(),
        n => format!("{n} frames of updates, then "),
    }
}

fn print_header(s: &Scenario) {
    if s.is_static() {
        println!(
            "{:<13} {:>9} {:>9} {:>9} {:>10} {:>10} {:>8} {:>12}",
            "mode", "build ms", "query ms", "ns/query", "hits", "expected", "check", "bytes/agent"
        );
    } else {
        println!(
            "{:<10} {:>10} {:>11} {:>9} {:>12} {:>9} {:>8} {:>12}",
            "mode",
            "update ms",
            "collide ms",
            "frame ms",
            "pairs/frame",
            "expected",
            "check",
            "bytes/agent"
        );
    }
}

fn print_row(s: &Scenario, report: &Report) {
    let check = if report.ok() { "OK" } else { "MISMATCH" };
    let per_agent = report
        .bytes_per_agent()
        .map_or_else(|| "-".to_string(), |b| format!("{b:.1}"));
    if let Some(q) = s.queries {
        println!(
            "{:<13} {:>9.3} {:>9.3} {:>9.1} {:>10} {:>10} {:>8} {:>12}",
            report.mode.name(),
            report.update_ms,
            report.collide_ms,
            report.collide_ms * 1e6 / q.count as f64,
            report.pairs_per_frame,
            report.expected,
            check,
            per_agent
        );
    } else {
        println!(
            "{:<10} {:>10.3} {:>11.3} {:>9.3} {:>12} {:>9} {:>8} {:>12}",
            report.mode.name(),
            report.update_ms,
            report.collide_ms,
            report.frame_ms,
            report.pairs_per_frame,
            report.expected,
            check,
            per_agent
        );
    }
}

/// Draws `index`'s tree into a PNG at `path`.
fn write_png(index: &FlatquadIndex, args: &Args, path: &str) -> Result<(), String> {
    let tree = index.tree().ok_or("--png: no tree to draw")?;
    let view = view(args.scenario, args.region, args.png_size);
    let (began, ended) = index.last_events();
    let (canvas, drawn) = draw_tree(tree, &view, Events { began, ended });
    canvas
        .save_png(path)
        .map_err(|e| format!("--png: cannot write {path}: {e}"))?;
    let bytes = std::fs::metadata(path).map_or(0, |m| m.len());
    println!(
        "picture: {path}, {px}x{px} px of the world square ({}, {}) side {}: {} leaves \
         (depths {}..={}), {} agents ({} overlapping another; {} began and {} only ended a \
         contact in the last frame), {bytes} bytes",
        view.x,
        view.y,
        view.side,
        drawn.leaves,
        drawn.depths.0,
        drawn.depths.1,
        drawn.elements,
        drawn.colliding,
        drawn.began,
        drawn.ended,
        px = view.pixels,
    );
    Ok(())
}

/// Plays the scenario again (build, then frames) and draws every `gif_every`-th
/// frame into an animated GIF at `path`, the first frame being the initial agents.
fn write_gif(args: &Args, path: &str) -> Result<(), String> {
    let s = args.scenario;
    let view = view(s, args.region, args.gif_size);
    let fail = |e: &dyn std::fmt::Display| format!("--gif: {path}: {e}");
    let mut agents = Agents::new(s);
    let mut index = FlatquadIndex::new(s.size, args.configs[0]);
    index.build(&agents).map_err(|e| fail(&e))?;
    let mut gif = GifWriter::create(path, view.pixels, view.pixels).map_err(|e| fail(&e))?;
    // Each picture marks the contact events of the workload frame before it
    // (the first, of the initial agents, none).
    let mut tracker = PairTracker::new();
    for frame in 0..args.gif_frames {
        for _ in 0..if frame > 0 { args.gif_every } else { 0 } {
            agents.step();
            index.update(&agents).map_err(|e| fail(&e))?;
            tracker.update(index.tree().ok_or("--gif: no tree to draw")?);
        }
        let tree = index.tree().ok_or("--gif: no tree to draw")?;
        let events = if frame == 0 {
            tracker.update(tree);
            Events::default()
        } else {
            Events {
                began: tracker.began(),
                ended: tracker.ended(),
            }
        };
        let (canvas, _) = draw_tree(tree, &view, events);
        gif.add(&canvas, 8).map_err(|e| fail(&e))?;
    }
    gif.finish().map_err(|e| fail(&e))?;
    let bytes = std::fs::metadata(path).map_or(0, |m| m.len());
    println!(
        "animation: {path}, {} frames of {px}x{px} px, one every {} workload frames, {bytes} bytes",
        args.gif_frames,
        args.gif_every,
        px = view.pixels
    );
    Ok(())
}

/// The line under a run saying how big the structure ended.
fn print_stats(s: &Scenario, structure: &str, st: &Stats) {
    let when = if s.is_static() {
        "built"
    } else {
        "after the last frame"
    };
    println!(
        "{:<10} {structure} {when}: {} nodes or cells, {} leaves, {} element links, depth {} reached, {} bytes",
        "", st.nodes, st.leaves, st.element_links, st.max_depth_reached, st.bytes
    );
}

/// The octree's adapter for the 3D scenario `s` under `config`.
fn octree_index(s: &Scenario, config: &FlatquadConfig) -> OctreeIndex {
    OctreeIndex::new(s.size, config.max_elements(), config.max_depth)
        .with_margin(config.margin.unwrap_or(0.0))
        .with_threads(config.threads)
}

/// The 3D scenario on the octree, both modes (or the one asked for).
fn run_octree(s: &Scenario, args: &Args, expected: &[(Mode, u64)]) -> ExitCode {
    let config = args.configs[0];
    let make = || octree_index(s, &config);
    let margin = config
        .margin
        .map(|k| format!("; margin {} ({k} agent sides)", k * s.size))
        .unwrap_or_default();
    println!();
    println!(
        "flatquad octree: max_elements {}, max_depth {}{margin}",
        config.max_elements(),
        make().max_depth(s.world)
    );
    print_header(s);
    let mut mismatch = false;
    for &mode in &args.modes {
        let sum = expected
            .iter()
            .find_map(|&(m, sum)| (m == mode).then_some(sum))
            .expect("a checksum for every mode of the scenario");
        let mut index = make();
        match run(s, &mut index, mode, sum) {
            Ok(report) => {
                mismatch |= !report.ok();
                print_row(s, &report);
            }
            Err(e) => {
                eprintln!("agents: octree {mode}: {e}");
                return ExitCode::from(2);
            }
        }
        if let Some(tree) = index.tree() {
            print_stats(s, "octree", &tree.stats());
        }
    }
    if mismatch {
        eprintln!("agents: checksum MISMATCH");
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn main() -> ExitCode {
    let threads = match parse_args(std::env::args().skip(1)) {
        Ok(Some(args)) => args.configs[0].threads,
        _ => 1,
    };
    // Every frame runs inside a pool of exactly the threads asked for.
    match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool.install(run_agents),
        Err(e) => {
            eprintln!("agents: cannot start {threads} threads: {e}");
            ExitCode::from(2)
        }
    }
}

fn run_agents() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(Some(args)) => args,
        Ok(None) => {
            println!("{}", usage());
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("agents: {message}\n\n{}", usage());
            return ExitCode::from(2);
        }
    };
    let s = args.scenario;
    // Parameters checked before the oracle runs.
    for config in &args.configs {
        let checked = match s.dimensions() {
            2 => config.validate(s),
            _ => octree_index(s, config).empty_tree(s.world).map(drop),
        };
        if let Err(e) = checked {
            eprintln!("agents: {e}\n\n{}", usage());
            return ExitCode::from(2);
        }
    }
    match s.queries {
        Some(q) => println!(
            "{}: {} agents of side {} in a {}x{} world, static; {} rectangle queries of side {} \
             and {} point queries",
            s.name, s.n, s.size, s.world, s.world, q.count, q.side, q.count
        ),
        None if s.dimensions() == 3 => println!(
            "{}: {} cubes of side {} in a {}x{}x{} world, {}{} warm-up + {} measured frames",
            s.name,
            s.n,
            s.size,
            s.world,
            s.world,
            s.world,
            aged(s),
            WARMUP_FRAMES,
            s.frames
        ),
        None => println!(
            "{}: {} agents of side {} in a {}x{} world, {}{} warm-up + {} measured frames",
            s.name,
            s.n,
            s.size,
            s.world,
            s.world,
            aged(s),
            WARMUP_FRAMES,
            s.frames
        ),
    }
    if s.checksum.is_none() {
        println!("checksum: computing with the exact oracle...");
    }
    let expected = oracle::expected_checksums(s);

    if s.dimensions() == 3 {
        return run_octree(s, &args, &expected);
    }
    let mut mismatch = false;
    let mut last = None;
    for config in &args.configs {
        println!();
        println!("flatquad {}", config.describe(s.world, s.size));
        print_header(s);
        for &mode in &args.modes {
            let sum = expected
                .iter()
                .find_map(|&(m, sum)| (m == mode).then_some(sum))
                .expect("a checksum for every mode of the scenario");
            let mut index = FlatquadIndex::new(s.size, *config);
            let report = match run(s, &mut index, mode, sum) {
                Ok(report) => report,
                Err(e) => {
                    eprintln!("agents: {} {mode}: {e}", config.name());
                    return ExitCode::from(2);
                }
            };
            mismatch |= !report.ok();
            print_row(s, &report);
            if let Some(tree) = index.tree() {
                print_stats(s, config.name(), &tree.stats());
            }
            last = Some(index);
        }
    }
    let mut drawing = Ok(());
    if let (Some(path), Some(index)) = (&args.png, &last) {
        drawing = write_png(index, &args, path);
    }
    if let (Ok(()), Some(path)) = (&drawing, &args.gif) {
        drawing = write_gif(&args, path);
    }
    if let Err(message) = drawing {
        eprintln!("agents: {message}");
        return ExitCode::from(2);
    }
    if mismatch {
        eprintln!("agents: checksum MISMATCH");
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
