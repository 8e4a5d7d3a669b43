//! The exact oracle: counts overlapping pairs by sort-and-sweep on x, with the
//! closed-rectangle test of [`Aabb::overlaps`]. It gives the same count as the
//! O(n²) scan of docs/workload.md in O(n log n + n k) time, k being the number of agents
//! whose left edge lies within one agent's x extent. For static scenarios,
//! [`QueryOracle`] counts the hits of rectangle and point queries the same exact way.

use crate::workload::{static_workload, Aabb, Agents, Scenario, WARMUP_FRAMES};
use crate::Mode;

/// Number of unordered overlapping pairs among `rects` (a rectangle never pairs
/// with itself; two identical rectangles are a pair).
pub fn count_pairs(rects: &[Aabb]) -> u64 {
    let boxes: Vec<([f32; 2], [f32; 2])> =
        rects.iter().map(|r| ([r.x1, r.y1], [r.x2, r.y2])).collect();
    count_box_pairs(&boxes)
}

/// Number of unordered overlapping pairs among closed boxes given by their low
/// and high corners, in any dimension ([`sweep_box_pairs`]).
pub fn count_box_pairs<const D: usize>(boxes: &[([f32; D], [f32; D])]) -> u64 {
    let mut count = 0u64;
    sweep_box_pairs(boxes, |_, _| count += 1);
    count
}

/// Calls `visit(a, b)` with the indices of every overlapping pair of closed
/// boxes (given by their low and high corners), once: a sweep on x over the
/// boxes sorted by their low x (copied with their index, so the sweep reads
/// them in order), the other axes tested exactly.
pub fn sweep_box_pairs<const D: usize>(
    boxes: &[([f32; D], [f32; D])],
    mut visit: impl FnMut(u32, u32),
) {
    let mut sorted: Vec<([f32; D], [f32; D], u32)> = (0u32..)
        .zip(boxes)
        .map(|(i, &(lo, hi))| (lo, hi, i))
        .collect();
    sorted.sort_unstable_by(|a, b| a.0[0].total_cmp(&b.0[0]));
    for (i, (lo_a, hi_a, a)) in sorted.iter().enumerate() {
        for (lo_b, hi_b, b) in &sorted[i + 1..] {
            if lo_b[0] > hi_a[0] {
                break;
            }
            if (1..D).all(|axis| lo_a[axis] <= hi_b[axis] && lo_b[axis] <= hi_a[axis]) {
                visit(*a, *b);
            }
        }
    }
}

/// Number of ordered overlapping pairs among the agents' current rectangles
/// (or cubes, in 3D), twice [`count_pairs`]: the quantity a frame adds to the
/// checksum.
pub fn count_ordered_pairs(agents: &Agents) -> u64 {
    if agents.dimensions() == 3 {
        let cubes: Vec<_> = (0..agents.len()).map(|i| agents.corners::<3>(i)).collect();
        return 2 * count_box_pairs(&cubes);
    }
    let rects: Vec<Aabb> = agents.rects().collect();
    2 * count_pairs(&rects)
}

/// The scenario's agents as its first warm-up frame finds them: after its
/// aging frames, if any.
fn aged_agents(scenario: &Scenario) -> Agents {
    let mut agents = Agents::new(scenario);
    for _ in 0..scenario.aging {
        agents.step();
    }
    agents
}

/// The scenario's checksum, computed: the mean number of ordered overlapping pairs
/// over the measured frames (integer division), simulating the frames from a fresh
/// set of agents exactly as the runner does.
pub fn checksum(scenario: &Scenario) -> u64 {
    let mut agents = aged_agents(scenario);
    let mut total = 0u64;
    for frame in 0..WARMUP_FRAMES + scenario.frames {
        agents.step();
        if frame >= WARMUP_FRAMES {
            total += count_ordered_pairs(&agents);
        }
    }
    total / scenario.frames as u64
}

/// Exact hit counts of queries over a fixed set of closed rectangles, with no
/// arithmetic on coordinates (only comparisons), so exact for any `f32` input.
///
/// The rectangles are sorted by left edge `x1`, and `reach[i]` is the largest right
/// edge `x2` among the first `i` of them. A rectangle meets the query `q` only if
/// `x1 <= q.x2` (a prefix of the sorted order, found by binary search) and
/// `x2 >= q.x1`; every rectangle before the last `i` with `reach[i] < q.x1` fails
/// the second test (also a binary search, `reach` being non-decreasing). The
/// rectangles between the two bounds get the exact test of [`Aabb::overlaps`].
/// With agents of similar widths that scans the agents whose left edge lies
/// within one width of the query's x extent.
#[derive(Clone, Debug)]
pub struct QueryOracle {
    sorted: Vec<Aabb>,
    /// `reach[i]`: the largest `x2` among `sorted[..i]` (`-inf` for `i = 0`).
    reach: Vec<f32>,
}

impl QueryOracle {
    /// The oracle over `rects`, which must hold no NaN.
    pub fn new(rects: &[Aabb]) -> Self {
        let mut sorted = rects.to_vec();
        sorted.sort_unstable_by(|a, b| a.x1.total_cmp(&b.x1));
        let mut reach = Vec::with_capacity(sorted.len() + 1);
        let mut max = f32::NEG_INFINITY;
        reach.push(max);
        for r in &sorted {
            max = max.max(r.x2);
            reach.push(max);
        }
        QueryOracle { sorted, reach }
    }

    /// Number of rectangles whose closed rectangle meets the closed rectangle `q`.
    pub fn count(&self, q: &Aabb) -> u64 {
        let end = self.sorted.partition_point(|r| r.x1 <= q.x2);
        // reach[0] = -inf < q.x1, so at least one entry passes.
        let start = self.reach.partition_point(|&m| m < q.x1) - 1;
        if start >= end {
            return 0;
        }
        self.sorted[start..end]
            .iter()
            .filter(|r| r.overlaps(q))
            .count() as u64
    }

    /// Number of rectangles whose closed rectangle holds the point `(x, y)`.
    pub fn count_point(&self, x: f32, y: f32) -> u64 {
        self.count(&Aabb::point(x, y))
    }
}

/// A static scenario's checksums, computed by [`QueryOracle`] over its agents:
/// the total hits of its rectangle queries and of its point queries. `None` for a
/// moving scenario.
pub fn query_checksums(scenario: &Scenario) -> Option<(u64, u64)> {
    let (agents, queries) = static_workload(scenario)?;
    let rects: Vec<Aabb> = agents.rects().collect();
    let oracle = QueryOracle::new(&rects);
    let rect_hits = queries.rects.iter().map(|q| oracle.count(q)).sum();
    let point_hits = queries
        .points
        .iter()
        .map(|&[x, y]| oracle.count_point(x, y))
        .sum();
    Some((rect_hits, point_hits))
}

/// Every overlapping pair of closed boxes (by their low and high corners), as
/// sorted keys `low index << 32 | high index` ([`sweep_box_pairs`]).
pub fn box_pair_keys<const D: usize>(boxes: &[([f32; D], [f32; D])]) -> Vec<u64> {
    let mut keys = Vec::new();
    sweep_box_pairs(boxes, |a, b| keys.push(pair_key(a, b)));
    keys.sort_unstable();
    keys
}

/// The key of the pair of boxes `a` and `b`, either way round: the lower
/// index in the high half.
pub(crate) fn pair_key(a: u32, b: u32) -> u64 {
    (u64::from(a.min(b)) << 32) | u64::from(a.max(b))
}

/// The overlapping pairs of the agents' current boxes ([`box_pair_keys`]).
pub(crate) fn agent_pair_keys(agents: &Agents) -> Vec<u64> {
    if agents.dimensions() == 3 {
        let cubes: Vec<_> = (0..agents.len()).map(|i| agents.corners::<3>(i)).collect();
        return box_pair_keys(&cubes);
    }
    let rects: Vec<_> = agents
        .rects()
        .map(|r| ([r.x1, r.y1], [r.x2, r.y2]))
        .collect();
    box_pair_keys(&rects)
}

/// The number of keys in exactly one of two sorted key lists: the pairs that
/// began plus the pairs that ended between them.
pub fn symmetric_difference(old: &[u64], new: &[u64]) -> u64 {
    let (mut i, mut j, mut count) = (0, 0, 0u64);
    while i < old.len() && j < new.len() {
        match old[i].cmp(&new[j]) {
            std::cmp::Ordering::Less => (i, count) = (i + 1, count + 1),
            std::cmp::Ordering::Greater => (j, count) = (j + 1, count + 1),
            std::cmp::Ordering::Equal => (i, j) = (i + 1, j + 1),
        }
    }
    count + (old.len() - i + new.len() - j) as u64
}

/// The events mode's checksum: the mean number of contact events (pairs that
/// began plus pairs that ended since the previous frame) over the measured
/// frames, the pairs of the built index (frame -1) counting as none.
pub fn events_checksum(scenario: &Scenario) -> u64 {
    let mut agents = aged_agents(scenario);
    let mut last = Vec::new();
    let mut total = 0u64;
    for frame in 0..WARMUP_FRAMES + scenario.frames {
        agents.step();
        let now = agent_pair_keys(&agents);
        if frame >= WARMUP_FRAMES {
            total += symmetric_difference(&last, &now);
        }
        last = now;
    }
    total / scenario.frames as u64
}

/// The checksum of every mode of `scenario` ([`Scenario::modes`]), computed once:
/// for a moving scenario docs/workload.md's or, where it states none, the oracle's (the
/// same for both collide modes) and the [`events_checksum`]; for a static one the
/// [`query_checksums`].
pub fn expected_checksums(scenario: &Scenario) -> Vec<(Mode, u64)> {
    match query_checksums(scenario) {
        Some((rects, points)) => vec![(Mode::RectQueries, rects), (Mode::PointQueries, points)],
        None => {
            let sum = scenario.checksum.unwrap_or_else(|| checksum(scenario));
            vec![
                (Mode::AllPairs, sum),
                (Mode::PerAgent, sum),
                (Mode::Events, events_checksum(scenario)),
            ]
        }
    }
}

/// The checksum a run of `scenario` in `mode` must reproduce (one entry of
/// [`expected_checksums`]), or `None` for a mode the scenario does not have.
pub fn expected_checksum(scenario: &Scenario, mode: Mode) -> Option<u64> {
    expected_checksums(scenario)
        .into_iter()
        .find_map(|(m, sum)| (m == mode).then_some(sum))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{scenario, Lcg};

    fn brute_force(rects: &[Aabb]) -> u64 {
        let mut count = 0;
        for (i, a) in rects.iter().enumerate() {
            for b in &rects[i + 1..] {
                if a.overlaps(b) {
                    count += 1;
                }
            }
        }
        count
    }

    #[test]
    fn sweep_matches_brute_force_in_3d() {
        let mut rng = Lcg::new();
        let mut coarse = |scale: f32| (rng.f() * scale).floor();
        let cubes: Vec<([f32; 3], [f32; 3])> = (0..1500)
            .map(|_| {
                let lo = [coarse(24.0), coarse(24.0), coarse(24.0)];
                (
                    lo,
                    [
                        lo[0] + coarse(4.0),
                        lo[1] + coarse(4.0),
                        lo[2] + coarse(4.0),
                    ],
                )
            })
            .collect();
        let mut brute = 0;
        for (i, a) in cubes.iter().enumerate() {
            for b in &cubes[i + 1..] {
                brute += (0..3).all(|k| a.0[k] <= b.1[k] && b.0[k] <= a.1[k]) as u64;
            }
        }
        assert!(brute > 0);
        assert_eq!(count_box_pairs(&cubes), brute);
    }

    #[test]
    fn pair_keys_are_the_brute_force_pairs() {
        let mut rng = Lcg::new();
        let rects = lattice_rects(&mut rng, 400);
        let boxes: Vec<_> = rects.iter().map(|r| ([r.x1, r.y1], [r.x2, r.y2])).collect();
        let mut expected = Vec::new();
        for (i, a) in rects.iter().enumerate() {
            for (j, b) in rects.iter().enumerate().skip(i + 1) {
                if a.overlaps(b) {
                    expected.push(((i as u64) << 32) | j as u64);
                }
            }
        }
        assert!(!expected.is_empty());
        assert_eq!(box_pair_keys(&boxes), expected);
        assert_eq!(symmetric_difference(&[1, 3, 5], &[2, 3, 6, 7]), 5);
        assert_eq!(symmetric_difference(&expected, &expected), 0);
    }

    #[test]
    fn sweep_matches_brute_force() {
        let mut rng = Lcg::new();
        // Coarse integer coordinates so that touching edges and duplicates occur.
        let rects: Vec<Aabb> = (0..2000)
            .map(|_| {
                let x = (rng.f() * 64.0).floor();
                let y = (rng.f() * 64.0).floor();
                let w = (rng.f() * 4.0).floor();
                let h = (rng.f() * 4.0).floor();
                Aabb {
                    x1: x,
                    y1: y,
                    x2: x + w,
                    y2: y + h,
                }
            })
            .collect();
        let expect = brute_force(&rects);
        assert!(expect > 0);
        assert_eq!(count_pairs(&rects), expect);
    }

    #[test]
    fn checksum_uniform_20k() {
        let s = scenario("uniform-20k").expect("scenario");
        assert_eq!(checksum(s), 6257);
    }

    #[test]
    fn checksum_uniform_100k() {
        let s = scenario("uniform-100k").expect("scenario");
        assert_eq!(checksum(s), 38442);
    }

    fn brute_force_hits(rects: &[Aabb], q: &Aabb) -> u64 {
        rects.iter().filter(|r| r.overlaps(q)).count() as u64
    }

    /// Rectangles on a coarse integer lattice (touching edges, duplicates, zero
    /// widths), a few of them wide, so that `reach` jumps ahead of `x1`.
    fn lattice_rects(rng: &mut Lcg, n: usize) -> Vec<Aabb> {
        (0..n)
            .map(|i| {
                let x = (rng.f() * 64.0).floor() - 4.0;
                let y = (rng.f() * 64.0).floor() - 4.0;
                let w = if i % 97 == 0 {
                    30.0
                } else {
                    (rng.f() * 5.0).floor()
                };
                let h = (rng.f() * 5.0).floor();
                Aabb {
                    x1: x,
                    y1: y,
                    x2: x + w,
                    y2: y + h,
                }
            })
            .collect()
    }

    #[test]
    fn query_oracle_matches_brute_force() {
        let mut rng = Lcg::new();
        let rects = lattice_rects(&mut rng, 1500);
        let oracle = QueryOracle::new(&rects);
        let mut total = 0;
        for _ in 0..3000 {
            let x = (rng.f() * 80.0).floor() - 10.0;
            let y = (rng.f() * 80.0).floor() - 10.0;
            let w = (rng.f() * 6.0).floor();
            let h = (rng.f() * 6.0).floor();
            let q = Aabb {
                x1: x,
                y1: y,
                x2: x + w,
                y2: y + h,
            };
            let expect = brute_force_hits(&rects, &q);
            assert_eq!(oracle.count(&q), expect, "{q:?}");
            total += expect;
            // Points on the lattice: on corners and edges of many rectangles.
            let point = Aabb { x2: x, y2: y, ..q };
            assert_eq!(oracle.count_point(x, y), brute_force_hits(&rects, &point));
        }
        assert!(
            total > 3000,
            "the queries hit too little to test anything: {total}"
        );
    }

    #[test]
    fn query_oracle_edge_cases() {
        let empty = QueryOracle::new(&[]);
        let q = Aabb {
            x1: 0.0,
            y1: 0.0,
            x2: 1.0,
            y2: 1.0,
        };
        assert_eq!(empty.count(&q), 0);
        assert_eq!(empty.count_point(0.0, 0.0), 0);
        // Touching at a corner, and far outside the query on either side.
        let rects = [
            Aabb {
                x1: 1.0,
                y1: 1.0,
                x2: 2.0,
                y2: 2.0,
            },
            Aabb {
                x1: -5.0,
                y1: 0.0,
                x2: -0.5,
                y2: 1.0,
            },
            Aabb {
                x1: 1.5,
                y1: 0.0,
                x2: 9.0,
                y2: 1.0,
            },
        ];
        let oracle = QueryOracle::new(&rects);
        assert_eq!(oracle.count(&q), 1);
        assert_eq!(oracle.count_point(1.0, 1.0), 1);
        assert_eq!(oracle.count_point(2.0, 1.0), 2);
        assert_eq!(oracle.count_point(-0.5, 0.5), 1);
        assert_eq!(oracle.count_point(-0.6, 1.5), 0);
    }

    #[test]
    fn static_scenario_checksums() {
        let s = scenario("static-1m-queries").expect("scenario");
        let expected = expected_checksums(s);
        assert_eq!(
            expected.iter().map(|&(m, _)| m).collect::<Vec<_>>(),
            Mode::QUERIES
        );
        // Uniform agents of side 4 in 4092 units: a query of side 4 meets one with
        // probability about (4 + 4)^2 / 4092^2, a point about 4^2 / 4096^2.
        let (rects, points) = (expected[0].1 as f64, expected[1].1 as f64);
        let n = 1e5 * 1e6;
        assert!(
            (rects / (n * 64.0 / 4092f64.powi(2)) - 1.0).abs() < 0.05,
            "{rects}"
        );
        assert!(
            (points / (n * 16.0 / 4096f64.powi(2)) - 1.0).abs() < 0.05,
            "{points}"
        );
        assert_eq!(expected_checksum(s, Mode::PerAgent), None);
        let moving = scenario("uniform-20k").expect("scenario");
        assert_eq!(expected_checksum(moving, Mode::PerAgent), Some(6257));
        assert_eq!(query_checksums(moving), None);
    }

    /// About 1.6e9 rectangle tests: run it with `cargo test --release`.
    #[test]
    #[cfg_attr(debug_assertions, ignore = "slow in debug builds; run with --release")]
    fn checksum_uniform_1m() {
        let s = scenario("uniform-1m").expect("scenario");
        assert_eq!(checksum(s), 422_580);
    }
}
