//! Runs one [`Index`] on one scenario in one mode and times it.

use std::hint::black_box;
use std::time::{Duration, Instant};

use crate::workload::{static_workload, Agents, Scenario, WARMUP_FRAMES};
use crate::{unsupported, BenchError, Index, Mode};

/// The outcome of one run. In a query mode (static scenarios) the frame fields
/// mean: `update_ms` the one build of the index over the agents, `collide_ms` and
/// `frame_ms` the whole batch of queries (the build left out), `pairs_per_frame` the
/// total hits of the batch.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// The index's name.
    pub index: &'static str,
    /// The scenario's name.
    pub scenario: &'static str,
    /// The collide mode, or the query mode.
    pub mode: Mode,
    /// Mean update time per measured frame (moving the agents and telling the
    /// index); in a query mode, the build time.
    pub update_ms: f64,
    /// Mean collide time per measured frame; in a query mode, the time of all the
    /// queries.
    pub collide_ms: f64,
    /// Mean of update plus collide per measured frame; in a query mode, the time of
    /// all the queries.
    pub frame_ms: f64,
    /// Mean ordered pairs per measured frame (integer division); in a query mode,
    /// the total hits.
    pub pairs_per_frame: u64,
    /// The checksum the run had to reproduce.
    pub expected: u64,
    /// What [`Index::bytes`] said after the last frame (or the queries).
    pub bytes: Option<usize>,
    /// Number of agents in the index.
    pub agents: usize,
}

impl Report {
    /// Whether the run reproduced the checksum.
    pub fn ok(&self) -> bool {
        self.pairs_per_frame == self.expected
    }

    /// [`Report::bytes`] per agent, where the index tells its bytes.
    pub fn bytes_per_agent(&self) -> Option<f64> {
        self.bytes
            .filter(|_| self.agents > 0)
            .map(|b| b as f64 / self.agents as f64)
    }
}

/// Runs `index` on `scenario` in `mode`.
///
/// A moving scenario (collide modes): builds the index from the initial agents,
/// plays the two warm-up frames and the scenario's measured frames, timing update
/// and collide separately with [`Instant`]. A static scenario (query modes): times
/// the build over the initial agents, then the whole batch of the scenario's
/// queries of that mode.
///
/// `expected` is the checksum to compare with (see
/// [`crate::oracle::expected_checksum`]); a mismatch is reported through
/// [`Report::ok`], not as an error. A mode the index or the scenario does not have
/// is an error.
pub fn run(
    scenario: &Scenario,
    index: &mut dyn Index,
    mode: Mode,
    expected: u64,
) -> Result<Report, BenchError> {
    if !index.supports(mode) {
        return Err(unsupported(index.name(), mode));
    }
    if index.dimensions() != scenario.dimensions() {
        return Err(BenchError::new(format!(
            "{} indexes {}D agents, {} has {}D ones",
            index.name(),
            index.dimensions(),
            scenario.name,
            scenario.dimensions()
        )));
    }
    if !scenario.modes().contains(&mode) {
        return Err(BenchError::new(format!(
            "{} has no {mode} mode (it has {})",
            scenario.name,
            scenario
                .modes()
                .iter()
                .map(|m| m.name())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    if mode.is_query() {
        return run_queries(scenario, index, mode, expected);
    }
    let mut agents = Agents::new(scenario);
    index.build(&agents)?;
    for _ in 0..scenario.aging {
        agents.step_on(index.threads());
        index.update(&agents)?;
    }
    let (mut update, mut collide) = (Duration::ZERO, Duration::ZERO);
    let mut total = 0u64;
    for frame in 0..WARMUP_FRAMES + scenario.frames {
        let t0 = Instant::now();
        agents.step_on(index.threads());
        index.update(&agents)?;
        let t1 = Instant::now();
        let ordered = match mode {
            Mode::PerAgent => index.per_agent(&agents)?,
            Mode::AllPairs => 2 * index.all_pairs(&agents)?,
            Mode::Events => index.events(&agents)?,
            Mode::RectQueries | Mode::PointQueries => unreachable!("checked above"),
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
        agents: agents.len(),
    })
}

/// The static half of [`run`]: build, then one batch of queries.
fn run_queries(
    scenario: &Scenario,
    index: &mut dyn Index,
    mode: Mode,
    expected: u64,
) -> Result<Report, BenchError> {
    let (agents, queries) = static_workload(scenario)
        .ok_or_else(|| BenchError::new(format!("{} is not static", scenario.name)))?;
    let t0 = Instant::now();
    index.build(&agents)?;
    let t1 = Instant::now();
    let hits = match mode {
        Mode::RectQueries => index.rect_queries(&queries.rects)?,
        Mode::PointQueries => index.point_queries(&queries.points)?,
        Mode::AllPairs | Mode::PerAgent | Mode::Events => unreachable!("a query mode"),
    };
    let t2 = Instant::now();
    black_box(hits);
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    Ok(Report {
        index: index.name(),
        scenario: scenario.name,
        mode,
        update_ms: ms(t1 - t0),
        collide_ms: ms(t2 - t1),
        frame_ms: ms(t2 - t1),
        pairs_per_frame: hits,
        expected,
        bytes: index.bytes(),
        agents: agents.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flatquad_index::FlatquadConfig;
    use crate::oracle;
    use crate::workload::{Layout, QuerySpec, Scenario};
    use crate::{FlatquadIndex, GridIndex, OctreeIndex};

    /// A small scenario of each layout, moving and static, for fast cross-checks
    /// of every index.
    pub(crate) fn small_scenarios() -> Vec<Scenario> {
        let layouts = [Layout::Uniform, Layout::Clustered, Layout::Mixed];
        let moving = layouts.into_iter().map(|layout| Scenario {
            name: "small",
            layout,
            n: 3000,
            world: 1024.0,
            size: 4.0,
            frames: 3,
            aging: 0,
            checksum: None,
            queries: None,
        });
        // Static: big queries so that each hits several agents, in a world where the
        // agents are dense.
        let fixed = layouts.into_iter().map(|layout| Scenario {
            name: "small-static",
            layout,
            n: 3000,
            world: 512.0,
            size: 4.0,
            frames: 0,
            aging: 0,
            checksum: None,
            queries: Some(QuerySpec {
                count: 5000,
                side: 16.0,
            }),
        });
        // 3D: 3000 cubes in 128³, about as crowded as the 2D ones.
        let cubes = Scenario {
            name: "small-3d",
            layout: Layout::Uniform3d,
            n: 3000,
            world: 128.0,
            size: 4.0,
            frames: 3,
            aging: 0,
            checksum: None,
            queries: None,
        };
        // Moving after frames of updates alone (the aged scenarios).
        let aged = Scenario {
            name: "small-aged",
            layout: Layout::Mixed,
            world: 1024.0,
            aging: 20,
            ..cubes
        };
        moving.chain(fixed).chain([cubes, aged]).collect()
    }

    /// Every index this build has, for agents of side `size`.
    fn every_index(size: f32) -> Vec<Box<dyn Index>> {
        #[allow(unused_mut)]
        let mut all: Vec<Box<dyn Index>> = vec![
            Box::new(FlatquadIndex::new(size, FlatquadConfig::default())),
            Box::new(GridIndex::new(size, GridIndex::DEFAULT_FACTOR)),
            Box::new(GridIndex::new(size, 0.5)),
            Box::new(OctreeIndex::new(size, 4, None)),
            Box::new(OctreeIndex::new(size, 4, None).with_margin(0.5)),
        ];
        #[cfg(feature = "peers")]
        all.extend(crate::peers::all(size));
        #[cfg(feature = "peers")]
        all.extend(crate::peers::all_3d());
        all
    }

    #[test]
    fn every_index_matches_oracle() {
        for s in small_scenarios() {
            let expected = oracle::expected_checksums(&s);
            assert!(expected.iter().all(|&(_, sum)| sum > 0), "{expected:?}");
            for mut index in every_index(s.size) {
                if index.dimensions() != s.dimensions() {
                    // A 2D index is refused a 3D scenario, and the other way round.
                    assert!(run(&s, index.as_mut(), s.modes()[0], 0).is_err());
                    continue;
                }
                for &(mode, expected) in &expected {
                    if !index.supports(mode) {
                        let err = run(&s, index.as_mut(), mode, expected);
                        assert!(err.is_err());
                        continue;
                    }
                    let report = run(&s, index.as_mut(), mode, expected).expect("run");
                    assert!(report.ok(), "{} {:?}: {report:?}", s.name, s.layout);
                }
                // A mode of the other kind of scenario is refused.
                let other = if s.is_static() {
                    Mode::PerAgent
                } else {
                    Mode::RectQueries
                };
                assert!(run(&s, index.as_mut(), other, 0).is_err());
            }
        }
    }
}
