//! The project demo: flatquad on the agents workload of `shared/bench/AGENTS.md`.
//!
//! ```text
//! cargo run --release -p flatquad-bench --bin agents -- [SCENARIO] \
//!     [--mode all-pairs|per-agent|both] [--max-elements N] [--max-depth N]
//! ```
//!
//! Exits with 1 when a checksum does not match, 2 on a usage or index error.

use std::process::ExitCode;

use flatquad_bench::flatquad_index::{FlatquadConfig, FlatquadIndex};
use flatquad_bench::workload::{scenario_names, WARMUP_FRAMES};
use flatquad_bench::{oracle, run, scenario, Mode, Scenario};

struct Args {
    scenario: &'static Scenario,
    modes: Vec<Mode>,
    config: FlatquadConfig,
}

fn usage() -> String {
    format!(
        "usage: agents [SCENARIO] [--mode all-pairs|per-agent|both] [--max-elements N] [--max-depth N]\n\
         \n\
         Runs flatquad on the agents workload and checks the checksum.\n\
         SCENARIO: one of {} (default uniform-100k).\n\
         --mode          collide mode (default both)\n\
         --max-elements  elements per leaf before a split (default 16)\n\
         --max-depth     deepest tree level (default: smallest cell >= 4 agent sides)",
        scenario_names()
    )
}

fn parse_u32(flag: &str, value: Option<String>) -> Result<u32, String> {
    let value = value.ok_or_else(|| format!("{flag} needs a value"))?;
    value
        .parse()
        .map_err(|_| format!("{flag}: not a non-negative integer: {value:?}"))
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Option<Args>, String> {
    let mut scenario_name: Option<String> = None;
    let mut modes = Mode::ALL.to_vec();
    let mut config = FlatquadConfig::default();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-h" | "--help" => return Ok(None),
            "--mode" => {
                let value = args.next().ok_or("--mode needs a value")?;
                modes = match value.as_str() {
                    "both" => Mode::ALL.to_vec(),
                    other => vec![Mode::parse(other)
                        .ok_or_else(|| format!("--mode: unknown mode {other:?}"))?],
                };
            }
            "--max-elements" => config.max_elements = Some(parse_u32(&arg, args.next())?),
            "--max-depth" => config.max_depth = Some(parse_u32(&arg, args.next())?),
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
    Ok(Some(Args {
        scenario,
        modes,
        config,
    }))
}

fn main() -> ExitCode {
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
    if let Err(e) = args.config.validate(s) {
        eprintln!("agents: {e}\n\n{}", usage());
        return ExitCode::from(2);
    }
    println!(
        "{}: {} agents of side {} in a {}x{} world, {} warm-up + {} measured frames",
        s.name, s.n, s.size, s.world, s.world, WARMUP_FRAMES, s.frames
    );
    println!(
        "flatquad: max_elements {}, max_depth {}",
        args.config.max_elements(),
        args.config.max_depth(s.world, s.size)
    );
    let expected = match s.checksum {
        Some(c) => c,
        None => {
            println!("checksum: computing with the sort-and-sweep oracle...");
            oracle::checksum(s)
        }
    };

    println!();
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
    let mut mismatch = false;
    for &mode in &args.modes {
        let mut index = FlatquadIndex::new(s.size, args.config);
        let report = match run(s, &mut index, mode, expected) {
            Ok(report) => report,
            Err(e) => {
                eprintln!("agents: {mode}: {e}");
                return ExitCode::from(2);
            }
        };
        mismatch |= !report.ok();
        let per_agent = report.bytes.map_or_else(
            || "-".to_string(),
            |b| format!("{:.1}", b as f64 / s.n as f64),
        );
        println!(
            "{:<10} {:>10.3} {:>11.3} {:>9.3} {:>12} {:>9} {:>8} {:>12}",
            mode.name(),
            report.update_ms,
            report.collide_ms,
            report.frame_ms,
            report.pairs_per_frame,
            report.expected,
            if report.ok() { "OK" } else { "MISMATCH" },
            per_agent
        );
        if let Some(tree) = index.tree() {
            let st = tree.stats();
            println!(
                "{:<10} tree after the last frame: {} nodes, {} leaves, {} element links, depth {} reached, {} bytes",
                "",
                st.nodes,
                st.leaves,
                st.element_links,
                st.max_depth_reached,
                st.bytes
            );
        }
    }
    if mismatch {
        eprintln!("agents: checksum MISMATCH");
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
