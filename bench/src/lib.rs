//! The agents benchmark of flatquad (`docs/workload.md`): the workload, an
//! exact oracle for its checksums, a runner that times any [`Index`] on it, the
//! flatquad adapter, a uniform-grid baseline and, behind the `peers` feature, the
//! peer libraries flatquad is measured against.
//!
//! Binaries:
//!
//! ```text
//! cargo run --release -p flatquad-bench --bin agents -- [SCENARIO] [--mode MODE|both] [--png PATH] [--gif PATH]
//! cargo run --release -p flatquad-bench --features peers --bin peers -- [SCENARIO... | all] [--runs R] [--markdown PATH]
//! ```
//!
//! `agents` is the project demo (flatquad alone); `peers` runs flatquad, the grid
//! baseline and every peer in one process and prints one table. Both check every
//! run against the scenario's checksum: docs/workload.md's for the `uniform-*` scenarios,
//! the [`oracle`]'s for `clustered-100k`, `mixed-100k` and the query totals of
//! `static-1m-queries`. `agents --png PATH` (and `--gif PATH`) draws the agents and
//! the tree's leaves with the [`picture`] module.

pub mod figures;
pub mod flatquad_index;
pub mod grid;
pub mod machine;
pub mod oracle;
#[cfg(feature = "peers")]
pub mod peers;
pub mod picture;
pub mod runner;
pub mod targets;
pub mod workload;

pub use flatquad_index::{FlatquadIndex, OctreeIndex};
pub use grid::GridIndex;
pub use runner::{run, Report};
pub use workload::{scenario, Aabb, Agents, Layout, Queries, Scenario, SCENARIOS};

use std::fmt;

/// The tables' name of `base` run on `threads` threads: `base` alone on one,
/// `base (N threads)` above. [`targets`] finds the threaded rows by it.
pub fn threaded_label(base: &str, threads: usize) -> String {
    if threads > 1 {
        format!("{base} ({threads} threads)")
    } else {
        base.to_string()
    }
}

/// [`threaded_label`] as an index's name (leaked: a few names a process).
pub fn threaded_name(base: &str, threads: usize) -> &'static str {
    Box::leak(threaded_label(base, threads).into_boxed_str())
}

/// The repository README's Rust examples, compiled and run as doc tests (here,
/// not in the published core crate, whose package does not hold that README).
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;

/// What a run measures: how a frame's collisions are found (docs/workload.md "Collide")
/// in a moving scenario, or which queries a static scenario's index answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Every agent queries its own rectangle, omitting itself; the hits are summed.
    PerAgent,
    /// The index reports every overlapping pair once; each pair counts 2.
    AllPairs,
    /// Static scenarios: the index answers every rectangle query of the scenario's
    /// [`workload::Queries`]; the hits are summed.
    RectQueries,
    /// Static scenarios: the index answers every point query; the hits are summed.
    PointQueries,
    /// The index reports the frame's contact events: the pairs that began and
    /// ended overlapping since the last frame; began plus ended are summed.
    Events,
}

impl Mode {
    /// The collide modes of a moving scenario, all-pairs first.
    pub const FRAMES: [Mode; 3] = [Mode::AllPairs, Mode::PerAgent, Mode::Events];

    /// The query modes of a static scenario, rectangles first.
    pub const QUERIES: [Mode; 2] = [Mode::RectQueries, Mode::PointQueries];

    /// Every mode, in table order.
    pub const ALL: [Mode; 5] = [
        Mode::AllPairs,
        Mode::PerAgent,
        Mode::Events,
        Mode::RectQueries,
        Mode::PointQueries,
    ];

    /// The command-line spelling: `all-pairs`, `per-agent`, `rect-queries` or
    /// `point-queries`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::PerAgent => "per-agent",
            Mode::AllPairs => "all-pairs",
            Mode::RectQueries => "rect-queries",
            Mode::PointQueries => "point-queries",
            Mode::Events => "events",
        }
    }

    /// Parses the command-line spelling.
    pub fn parse(s: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.name() == s)
    }

    /// Whether this is a query mode of a static scenario.
    pub fn is_query(self) -> bool {
        matches!(self, Mode::RectQueries | Mode::PointQueries)
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An error of a benchmark run: an index that failed, or a mode it lacks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchError(pub String);

impl BenchError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        BenchError(message.into())
    }
}

impl fmt::Display for BenchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BenchError {}

impl From<flatquad::Error> for BenchError {
    fn from(e: flatquad::Error) -> Self {
        BenchError(format!("flatquad: {e}"))
    }
}

/// A spatial index under test. The runner calls [`Index::build`] once with the
/// initial agents, then every frame [`Index::update`] after the agents moved and one
/// collide call; in a static scenario, one batch of queries after the build.
pub trait Index {
    /// Short name for reports, e.g. `flatquad` or `rstar`.
    fn name(&self) -> &'static str;

    /// Whether the index implements `mode`.
    fn supports(&self, mode: Mode) -> bool;

    /// The dimension of the agents it indexes: 2 (rectangles), or 3 (cubes,
    /// [`workload::Layout::Uniform3d`]).
    fn dimensions(&self) -> usize {
        2
    }

    /// The threads its frames run on (1 unless it was made for more): the
    /// runner steps the agents on as many ([`Agents::step_on`]).
    fn threads(&self) -> usize {
        1
    }

    /// Builds the index from scratch from the initial agents (frame set-up, not
    /// timed). Discards whatever an earlier run left.
    fn build(&mut self, agents: &Agents) -> Result<(), BenchError>;

    /// After the agents moved: tells the index every agent's new rectangle, in agent
    /// order, then does whatever cleanup or refit the index needs.
    fn update(&mut self, agents: &Agents) -> Result<(), BenchError>;

    /// Per-agent mode: the sum over agents of the number of other agents whose
    /// rectangle overlaps theirs (ordered pairs).
    fn per_agent(&mut self, agents: &Agents) -> Result<u64, BenchError> {
        let _ = agents;
        Err(unsupported(self.name(), Mode::PerAgent))
    }

    /// All-pairs mode: the number of overlapping (unordered) pairs.
    fn all_pairs(&mut self, agents: &Agents) -> Result<u64, BenchError> {
        let _ = agents;
        Err(unsupported(self.name(), Mode::AllPairs))
    }

    /// Events mode: the number of pairs that began plus the number that ended
    /// overlapping since the last call (the first call after a build reports
    /// every pair as began).
    fn events(&mut self, agents: &Agents) -> Result<u64, BenchError> {
        let _ = agents;
        Err(unsupported(self.name(), Mode::Events))
    }

    /// Rect-queries mode, on the index as [`Index::build`] left it: the sum over
    /// `queries` of the number of agents whose closed rectangle meets the closed
    /// query rectangle.
    fn rect_queries(&mut self, queries: &[Aabb]) -> Result<u64, BenchError> {
        let _ = queries;
        Err(unsupported(self.name(), Mode::RectQueries))
    }

    /// Point-queries mode, on the index as [`Index::build`] left it: the sum over
    /// `points` of the number of agents whose closed rectangle holds the point.
    fn point_queries(&mut self, points: &[[f32; 2]]) -> Result<u64, BenchError> {
        let _ = points;
        Err(unsupported(self.name(), Mode::PointQueries))
    }

    /// Bytes the index holds, where it can tell.
    fn bytes(&self) -> Option<usize> {
        None
    }
}

/// The error an [`Index`] returns for a mode it does not implement.
pub fn unsupported(name: &str, mode: Mode) -> BenchError {
    BenchError(format!("{name} does not support the {mode} mode"))
}
