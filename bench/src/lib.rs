//! The agents benchmark of flatquad (`shared/bench/AGENTS.md`): the workload, an
//! exact oracle for its checksums, a runner that times any [`Index`] on it, the
//! flatquad adapter, a uniform-grid baseline and, behind the `peers` feature, the
//! peer libraries flatquad is measured against.
//!
//! Binaries:
//!
//! ```text
//! cargo run --release -p flatquad-bench --bin agents -- [SCENARIO] [--mode all-pairs|per-agent|both]
//! cargo run --release -p flatquad-bench --features peers --bin peers -- [SCENARIO... | all] [--runs R] [--markdown PATH]
//! ```
//!
//! `agents` is the project demo (flatquad alone); `peers` runs flatquad, the grid
//! baseline and every peer in one process and prints one table. Both check every
//! run against the scenario's checksum: AGENTS.md's for the `uniform-*` scenarios,
//! the [`oracle`]'s for `clustered-100k` and `mixed-100k`.

pub mod flatquad_index;
pub mod grid;
pub mod machine;
pub mod oracle;
#[cfg(feature = "peers")]
pub mod peers;
pub mod runner;
pub mod workload;

pub use flatquad_index::FlatquadIndex;
pub use grid::GridIndex;
pub use runner::{run, Report};
pub use workload::{scenario, Aabb, Agents, Layout, Scenario, SCENARIOS};

use std::fmt;

/// How a frame's collisions are found (AGENTS.md "Collide").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Every agent queries its own rectangle, omitting itself; the hits are summed.
    PerAgent,
    /// The index reports every overlapping pair once; each pair counts 2.
    AllPairs,
}

impl Mode {
    /// Both modes, all-pairs first.
    pub const ALL: [Mode; 2] = [Mode::AllPairs, Mode::PerAgent];

    /// The command-line spelling: `all-pairs` or `per-agent`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::PerAgent => "per-agent",
            Mode::AllPairs => "all-pairs",
        }
    }

    /// Parses the command-line spelling.
    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "per-agent" => Some(Mode::PerAgent),
            "all-pairs" => Some(Mode::AllPairs),
            _ => None,
        }
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
/// collide call.
pub trait Index {
    /// Short name for reports, e.g. `flatquad` or `rstar`.
    fn name(&self) -> &'static str;

    /// Whether the index implements `mode`.
    fn supports(&self, mode: Mode) -> bool;

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

    /// Bytes the index holds, where it can tell.
    fn bytes(&self) -> Option<usize> {
        None
    }
}

/// The error an [`Index`] returns for a mode it does not implement.
pub fn unsupported(name: &str, mode: Mode) -> BenchError {
    BenchError(format!("{name} does not support the {mode} mode"))
}
