//! The exact oracle: counts overlapping pairs by sort-and-sweep on x, with the
//! closed-rectangle test of [`Aabb::overlaps`]. It gives the same count as the
//! O(n²) scan of AGENTS.md in O(n log n + n k) time, k being the number of agents
//! whose left edge lies within one agent's x extent.

use crate::workload::{Aabb, Agents, Scenario, WARMUP_FRAMES};

/// Number of unordered overlapping pairs among `rects` (a rectangle never pairs
/// with itself; two identical rectangles are a pair).
pub fn count_pairs(rects: &[Aabb]) -> u64 {
    let mut sorted = rects.to_vec();
    sorted.sort_unstable_by(|a, b| a.x1.total_cmp(&b.x1));
    let mut count = 0u64;
    for (i, a) in sorted.iter().enumerate() {
        // Every later rectangle starts at or after `a.x1`, so it overlaps `a` on x
        // exactly when it starts at or before `a.x2`.
        for b in &sorted[i + 1..] {
            if b.x1 > a.x2 {
                break;
            }
            if a.y1 <= b.y2 && b.y1 <= a.y2 {
                count += 1;
            }
        }
    }
    count
}

/// Number of ordered overlapping pairs among the agents' current rectangles (twice
/// [`count_pairs`]): the quantity a frame adds to the checksum.
pub fn count_ordered_pairs(agents: &Agents) -> u64 {
    let rects: Vec<Aabb> = agents.rects().collect();
    2 * count_pairs(&rects)
}

/// The scenario's checksum, computed: the mean number of ordered overlapping pairs
/// over the measured frames (integer division), simulating the frames from a fresh
/// set of agents exactly as the runner does.
pub fn checksum(scenario: &Scenario) -> u64 {
    let mut agents = Agents::new(scenario);
    let mut total = 0u64;
    for frame in 0..WARMUP_FRAMES + scenario.frames {
        agents.step();
        if frame >= WARMUP_FRAMES {
            total += count_ordered_pairs(&agents);
        }
    }
    total / scenario.frames as u64
}

/// The checksum a run of `scenario` must reproduce: the one AGENTS.md states, or
/// the oracle's for the scenarios it does not list.
pub fn expected_checksum(scenario: &Scenario) -> u64 {
    scenario.checksum.unwrap_or_else(|| checksum(scenario))
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

    /// About 1.6e9 rectangle tests: run it with `cargo test --release`.
    #[test]
    #[cfg_attr(debug_assertions, ignore = "slow in debug builds; run with --release")]
    fn checksum_uniform_1m() {
        let s = scenario("uniform-1m").expect("scenario");
        assert_eq!(checksum(s), 422_580);
    }
}
