//! The README's figures ("Which index for which job"), generated from the table
//! `make bench` writes to `docs/benchmarks.md`, so that the README quotes exactly
//! the numbers of that table. `make figures` (the `figures` binary) rewrites the
//! block between [`BEGIN`] and [`END`] in README.md; a test checks that the
//! committed README matches the committed table.

use std::collections::HashMap;
use std::fmt::Write as _;

/// The line opening the generated block in README.md.
pub const BEGIN: &str =
    "<!-- figures:begin: generated from docs/benchmarks.md by `make figures`; do not edit -->";
/// The line closing it.
pub const END: &str = "<!-- figures:end -->";

/// The main table of `docs/benchmarks.md`: frame ms and bytes per agent by
/// (scenario, implementation, mode), and the run's description.
#[derive(Debug, Default)]
pub struct Table {
    rows: HashMap<(String, String, String), (f64, String)>,
    /// "2 CPUs, Intel(R) Xeon(R) Processor", from the "Machine:" line.
    pub machine: String,
    /// The date of the run.
    pub date: String,
    /// "Median of 3 runs".
    pub runs: String,
}

impl Table {
    /// Reads the table `peers --markdown` writes (the sections other benches add
    /// below it have other columns and are skipped).
    pub fn parse(markdown: &str) -> Result<Table, String> {
        let mut table = Table::default();
        for line in markdown.lines() {
            // The first "Machine:" line is the main table's: the sections
            // below it (`searches`, run on its own) carry their own dates.
            if let Some(rest) = line
                .strip_prefix("Machine: ")
                .filter(|_| table.machine.is_empty())
            {
                let (machine, date) = rest
                    .split_once(". Date: ")
                    .ok_or("the Machine: line has no date")?;
                table.machine = machine.to_string();
                table.date = date.split('.').next().unwrap_or_default().to_string();
            } else if line.starts_with("Median of ") {
                table.runs = line.split(" (").next().unwrap_or_default().to_string();
            } else if line.starts_with("| ") {
                let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
                // scenario | implementation | mode | update | collide | frame | ratio | pairs | checksum | bytes
                if cells.len() != 10 || cells[0] == "scenario" {
                    continue;
                }
                let frame: f64 = cells[5]
                    .parse()
                    .map_err(|_| format!("not a frame time: {line}"))?;
                let key = (cells[0].into(), cells[1].into(), cells[2].into());
                table.rows.insert(key, (frame, cells[9].to_string()));
            }
        }
        if table.rows.is_empty() || table.machine.is_empty() || table.runs.is_empty() {
            return Err("no benchmark table found".into());
        }
        Ok(table)
    }

    fn get(
        &self,
        scenario: &str,
        implementation: &str,
        mode: &str,
    ) -> Result<&(f64, String), String> {
        self.rows
            .get(&(scenario.into(), implementation.into(), mode.into()))
            .ok_or_else(|| {
                format!("docs/benchmarks.md has no row {scenario} / {implementation} / {mode}")
            })
    }
}

/// One implementation's numbers in a cell: `label v1 / v2 suffix`.
struct Entry {
    label: &'static str,
    scenario: &'static str,
    implementation: &'static str,
    /// Which of the cell's modes it shows.
    modes: &'static [&'static str],
    suffix: &'static str,
}

impl Entry {
    /// One of flatquad's structures, not a peer.
    fn ours(&self) -> bool {
        self.implementation.starts_with("flatquad")
    }
}

/// A table cell: `prefix` then the first entry, the others in parentheses. Per
/// mode, the fastest of a cell's entries is in bold.
struct Cell {
    prefix: &'static str,
    entries: &'static [Entry],
}

const fn e(
    label: &'static str,
    scenario: &'static str,
    implementation: &'static str,
    modes: &'static [&'static str],
    suffix: &'static str,
) -> Entry {
    Entry {
        label,
        scenario,
        implementation,
        modes,
        suffix,
    }
}

const BOTH: &[&str] = &["all-pairs", "per-agent"];
const ALL_PAIRS: &[&str] = &["all-pairs"];
const PER_AGENT: &[&str] = &["per-agent"];
const QUERIES: &[&str] = &["rect-queries", "point-queries"];
const U: &str = "uniform-100k";
const M: &str = "mixed-100k";
const C: &str = "clustered-100k";
const S: &str = "static-1m-queries";

/// (your elements, pick, uniform-100k cell, 1M cell) of each row.
const ROWS: &[(&str, &str, Cell, Cell)] = &[
    (
        "many, of similar size, spread out (agents, particles, bullets)",
        "`Grid`, cells of 4–6 element sides",
        Cell {
            prefix: "",
            entries: &[
                e("", U, "flatquad grid", BOTH, ""),
                e("rebuilt grid", U, "grid", BOTH, ""),
                e("parry2d", U, "parry2d-bvh", BOTH, ""),
                e("broccoli", U, "broccoli", ALL_PAIRS, " all pairs"),
            ],
        },
        Cell {
            prefix: "",
            entries: &[
                e("", "uniform-1m", "flatquad grid", ALL_PAIRS, ""),
                e("rebuilt grid", "uniform-1m", "grid", ALL_PAIRS, ""),
                e("parry2d", "uniform-1m", "parry2d-bvh", ALL_PAIRS, ""),
                e("broccoli", "uniform-1m", "broccoli", ALL_PAIRS, ""),
            ],
        },
    ),
    (
        "mixed sizes (a few 30–60× larger)",
        "`Grid` (big ones kept apart), or `LooseQuadtree` with a `max_extent`",
        Cell {
            prefix: "mixed-100k: ",
            entries: &[
                e("Grid", M, "flatquad grid", BOTH, ""),
                e(
                    "bounded LooseQuadtree",
                    M,
                    "flatquad loose-quadtree-bounded",
                    BOTH,
                    "",
                ),
                e("parry2d", M, "parry2d-bvh", BOTH, ""),
                e("broccoli", M, "broccoli", ALL_PAIRS, " all pairs"),
            ],
        },
        Cell {
            prefix: "—",
            entries: &[],
        },
    ),
    (
        "crowded in a few spots, empty elsewhere",
        "`LooseQuadtree`",
        Cell {
            prefix: "clustered-100k: ",
            entries: &[
                e("", C, "flatquad loose-quadtree", BOTH, ""),
                e("broccoli", C, "broccoli", ALL_PAIRS, " all pairs"),
                e("rstar", C, "rstar", PER_AGENT, " per agent"),
                e("Quadtree", C, "flatquad", BOTH, ""),
            ],
        },
        Cell {
            prefix: "—",
            entries: &[],
        },
    ),
    (
        "memory first",
        "`LooseGrid` (BYTES bytes per element)",
        Cell {
            prefix: "",
            entries: &[e("", U, "flatquad loose-grid", BOTH, "")],
        },
        Cell {
            prefix: "",
            entries: &[e("", "uniform-1m", "flatquad loose-grid", ALL_PAIRS, "")],
        },
    ),
    (
        "static, queried by rectangles or points",
        "`Grid`",
        Cell {
            prefix: "1M rect / point queries: ",
            entries: &[
                e("", S, "flatquad grid", QUERIES, " ms"),
                e("rebuilt grid", S, "grid", QUERIES, ""),
                e("parry2d", S, "parry2d-bvh", QUERIES, ""),
            ],
        },
        Cell {
            prefix: "—",
            entries: &[],
        },
    ),
    (
        "3D boxes",
        "`Octree`",
        Cell {
            prefix: "uniform3d-100k (100,000 cubes): ",
            entries: &[
                e("", "uniform3d-100k", "flatquad octree", BOTH, ""),
                e("parry3d", "uniform3d-100k", "parry3d-bvh", BOTH, ""),
                e("rstar", "uniform3d-100k", "rstar 3d", BOTH, ""),
            ],
        },
        Cell {
            prefix: "—",
            entries: &[],
        },
    ),
];

/// Three significant figures or so: 4.3, 35.7, 158.
fn ms(v: f64) -> String {
    if v < 100.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.0}")
    }
}

/// A cell's text, and the places where a peer was the fastest: (what, peer, how
/// much slower ours was, in %).
fn cell(table: &Table, cell: &Cell, losses: &mut Vec<String>) -> Result<String, String> {
    let modes: Vec<&str> = {
        let mut all = Vec::new();
        for entry in cell.entries {
            for m in entry.modes {
                if !all.contains(m) {
                    all.push(*m);
                }
            }
        }
        all
    };
    // The fastest per mode, bold when the cell compares several entries.
    let mut best: HashMap<&str, (f64, &Entry)> = HashMap::new();
    for entry in cell.entries {
        for &m in entry.modes {
            let (v, _) = table.get(entry.scenario, entry.implementation, m)?;
            if best.get(m).is_none_or(|(b, _)| v < b) {
                best.insert(m, (*v, entry));
            }
        }
    }
    for &m in &modes {
        let (peer_ms, peer) = best[m];
        if !peer.ours() {
            if let Some(ours) = cell
                .entries
                .iter()
                .find(|e| e.ours() && e.modes.contains(&m))
            {
                let (ours_ms, _) = table.get(ours.scenario, ours.implementation, m)?;
                losses.push(format!(
                    "{} {} ({}; ours {:.0}% slower)",
                    ours.scenario,
                    m.replace('-', " "),
                    if peer.label == "rebuilt grid" {
                        "a grid rebuilt from scratch"
                    } else {
                        peer.label
                    },
                    (ours_ms / peer_ms - 1.0) * 100.0
                ));
            }
        }
    }
    let mut texts = Vec::new();
    for entry in cell.entries {
        let mut values = Vec::new();
        for &m in entry.modes {
            let (v, _) = table.get(entry.scenario, entry.implementation, m)?;
            let bold = cell.entries.len() > 1 && std::ptr::eq(best[m].1, entry);
            values.push(if bold {
                format!("**{}**", ms(*v))
            } else {
                ms(*v)
            });
        }
        let label = if entry.label.is_empty() {
            String::new()
        } else {
            format!("{} ", entry.label)
        };
        texts.push(format!("{label}{}{}", values.join(" / "), entry.suffix));
    }
    let mut out = cell.prefix.to_string();
    if let Some((first, rest)) = texts.split_first() {
        out += first;
        if !rest.is_empty() {
            let _ = write!(out, " ({})", rest.join(", "));
        }
    }
    Ok(out)
}

/// The README block (between [`BEGIN`] and [`END`], markers included) for `table`.
pub fn readme_block(table: &Table) -> Result<String, String> {
    let mut md = String::new();
    let _ = writeln!(md, "{BEGIN}");
    let _ = writeln!(
        md,
        "From `make bench` ([`docs/benchmarks.md`](docs/benchmarks.md), {}: {}, \
         one thread of {}; frame ms, every implementation in the same run; peers: \
         broccoli, parry2d, rstar, flat_spatial, Box2D v3's dynamic tree, and a grid \
         rebuilt from scratch every frame):\n",
        table.date,
        table.runs.to_lowercase(),
        table.machine
    );
    let _ = writeln!(
        md,
        "| your elements | pick | uniform-100k frame, all pairs / a query per agent | 1M agents, all pairs |"
    );
    let _ = writeln!(md, "|---|---|---|---|");
    let mut losses = Vec::new();
    for (elements, pick, uniform, million) in ROWS {
        let pick = if pick.contains("BYTES") {
            let (_, bytes) = table.get(U, "flatquad loose-grid", "all-pairs")?;
            let bytes: f64 = bytes
                .parse()
                .map_err(|_| format!("not bytes/agent: {bytes}"))?;
            pick.replace("BYTES", &format!("{bytes:.0}"))
        } else {
            pick.to_string()
        };
        let a = cell(table, uniform, &mut losses)?;
        let b = cell(table, million, &mut losses)?;
        let _ = writeln!(md, "| {elements} | {pick} | {a} | {b} |");
    }
    let _ = writeln!(
        md,
        "\nWhere a peer was faster in this run: {}.",
        if losses.is_empty() {
            "nowhere".to_string()
        } else {
            losses.join("; ")
        }
    );
    let _ = writeln!(md, "{END}");
    Ok(md)
}

/// `readme` with its block replaced by `block`.
pub fn replace_block(readme: &str, block: &str) -> Result<String, String> {
    let start = readme
        .find(BEGIN)
        .ok_or("README.md has no figures:begin marker")?;
    let end = readme[start..]
        .find(END)
        .ok_or("README.md has no figures:end marker")?
        + start;
    let end = end + END.len() + usize::from(readme[end + END.len()..].starts_with('\n'));
    Ok(format!("{}{block}{}", &readme[..start], &readme[end..]))
}
