//! Runs one [`Index`] on one scenario in one mode and times it.

use std::hint::black_box;
use std::time::{Duration, Instant};

use crate::workload::{Agents, Scenario, WARMUP_FRAMES};
use crate::{unsupported, BenchError, Index, Mode};

/// The outcome of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// The index's name.
    pub index: &'static str,
    /// The scenario's name.
    pub scenario: &'static str,
    /// The collide mode.
    pub mode: Mode,
    /// Mean update time per measured frame (moving the agents and telling the index).
    pub update_ms: f64,
    /// Mean collide time per measured frame.
    pub collide_ms: f64,
    /// Mean of update plus collide per measured frame.
    pub frame_ms: f64,
    /// Mean ordered pairs per measured frame (integer division).
    pub pairs_per_frame: u64,
    /// The checksum the run had to reproduce.
    pub expected: u64,
    /// What [`Index::bytes`] said after the last frame.
    pub bytes: Option<usize>,
}

impl Report {
    /// Whether the run reproduced the checksum.
    pub fn ok(&self) -> bool {
        self.pairs_per_frame == self.expected
    }
}

/// Runs `index` on `scenario` in `mode`: builds it from the initial agents, plays
/// the two warm-up frames and the scenario's measured frames, timing update and
/// collide separately with [`Instant`]. `expected` is the checksum to compare with
/// (see [`crate::oracle::expected_checksum`]); a mismatch is reported through
/// [`Report::ok`], not as an error.
pub fn run(
    scenario: &Scenario,
    index: &mut dyn Index,
    mode: Mode,
    expected: u64,
) -> Result<Report, BenchError> {
    if !index.supports(mode) {
        return Err(unsupported(index.name(), mode));
    }
    let mut agents = Agents::new(scenario);
    index.build(&agents)?;
    let (mut update, mut collide) = (Duration::ZERO, Duration::ZERO);
    let mut total = 0u64;
    for frame in 0..WARMUP_FRAMES + scenario.frames {
        let t0 = Instant::now();
        agents.step();
        index.update(&agents)?;
        let t1 = Instant::now();
        let ordered = match mode {
            Mode::PerAgent => index.per_agent(&agents)?,
            Mode::AllPairs => 2 * index.all_pairs(&agents)?,
        };
        let t2 = Instant::now();
        black_box(ordered);
        if frame >= WARMUP_FRAMES {
            update += t1 - t0;
            collide += t2 - t1;
            total += ordered;
        }
    }
    let frames = scenario.frames as u64;
    let ms = |d: Duration| d.as_secs_f64() * 1e3 / frames as f64;
    Ok(Report {
        index: index.name(),
        scenario: scenario.name,
        mode,
        update_ms: ms(update),
        collide_ms: ms(collide),
        frame_ms: ms(update + collide),
        pairs_per_frame: total / frames,
        expected,
        bytes: index.bytes(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flatquad_index::FlatquadConfig;
    use crate::oracle;
    use crate::workload::{Layout, Scenario};
    use crate::{FlatquadIndex, GridIndex};

    /// A small scenario of each layout, for fast cross-checks of every index.
    pub(crate) fn small_scenarios() -> Vec<Scenario> {
        [Layout::Uniform, Layout::Clustered, Layout::Mixed]
            .into_iter()
            .map(|layout| Scenario {
                name: "small",
                layout,
                n: 3000,
                world: 1024.0,
                size: 4.0,
                frames: 3,
                checksum: None,
            })
            .collect()
    }

    /// Every index this build has, for agents of side `size`.
    fn every_index(size: f32) -> Vec<Box<dyn Index>> {
        #[allow(unused_mut)]
        let mut all: Vec<Box<dyn Index>> = vec![
            Box::new(FlatquadIndex::new(size, FlatquadConfig::default())),
            Box::new(GridIndex::new(size, GridIndex::DEFAULT_FACTOR)),
            Box::new(GridIndex::new(size, 0.5)),
        ];
        #[cfg(feature = "peers")]
        all.extend(crate::peers::all(size));
        all
    }

    #[test]
    fn every_index_matches_oracle() {
        for s in small_scenarios() {
            let expected = oracle::checksum(&s);
            for mut index in every_index(s.size) {
                for mode in Mode::ALL {
                    if !index.supports(mode) {
                        let err = run(&s, index.as_mut(), mode, expected);
                        assert!(err.is_err());
                        continue;
                    }
                    let report = run(&s, index.as_mut(), mode, expected).expect("run");
                    assert!(report.ok(), "{:?}: {report:?}", s.layout);
                }
            }
        }
    }
}
