//! Nearest neighbours and ray casts on the static index of `uniform-100k` (its
//! 100,000 agents at their initial positions): 1,000,000 nearest queries with
//! `k = 1` and `k = 10`, and 1,000,000 ray casts (first hit, random direction,
//! length world / 8), on each flatquad structure beside rstar's
//! `nearest_neighbor_iter` and parry2d's `Bvh::cast_ray`. Each line prints ns a
//! query (build excluded) and a checksum (sum of the ids found; rays: of the
//! first hits' ids, and how many hit). flatquad's structures must agree
//! exactly; the peers measure distances in `f32`, so near-ties may differ.
//!
//! cargo run --release -p flatquad-bench --features peers --bin queries [-- COUNT]

use std::time::Instant;

use flatquad::{AnyIndex, Kind, Ray, Rect, SpatialIndex};
use flatquad_bench::workload::{scenario, Agents, Lcg};
use parry2d::bounding_volume::Aabb as ParryAabb;
use parry2d::math::Vector;
use parry2d::partitioning::{Bvh, BvhBuildStrategy};
use parry2d::query::{Ray as ParryRay, RayCast};
use rstar::{PointDistance, RTree, RTreeObject, AABB};

/// An agent in rstar's tree.
struct Item {
    envelope: AABB<[f32; 2]>,
    id: u32,
}

impl RTreeObject for Item {
    type Envelope = AABB<[f32; 2]>;
    fn envelope(&self) -> Self::Envelope {
        self.envelope
    }
}

impl PointDistance for Item {
    fn distance_2(&self, point: &[f32; 2]) -> f32 {
        self.envelope.distance_2(point)
    }
}

fn report(name: &str, what: &str, start: Instant, count: usize, checksum: String) {
    let ns = start.elapsed().as_nanos() as f64 / count as f64;
    println!("{name:<14} {what:<12} {ns:>9.0} ns/query   checksum {checksum}");
}

fn main() {
    let count: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let s = scenario("uniform-100k").expect("scenario");
    let agents = Agents::new(s);
    let rects: Vec<Rect> = agents
        .rects()
        .map(|a| Rect::new(a.x1, a.y1, a.x2, a.y2))
        .collect();
    let world = s.world;
    let mut rng = Lcg::new();
    let points: Vec<[f32; 2]> = (0..count)
        .map(|_| [rng.f() * world, rng.f() * world])
        .collect();
    let rays: Vec<Ray<[f32; 2]>> = (0..count)
        .map(|_| {
            let angle = rng.f() * core::f32::consts::TAU;
            Ray {
                origin: [rng.f() * world, rng.f() * world],
                direction: [angle.cos(), angle.sin()],
                max_length: f64::from(world / 8.0),
            }
        })
        .collect();

    let ids: Vec<u32> = (0..rects.len() as u32).collect();
    for kind in Kind::ALL {
        let mut index = AnyIndex::for_world(kind, Rect::new(0.0, 0.0, world, world)).unwrap();
        index.insert_many(&rects, &ids, &mut Vec::new()).unwrap();
        let mut out = Vec::new();
        for k in [1, 10] {
            let start = Instant::now();
            let mut sum = 0u64;
            for &p in &points {
                index.nearest(p, k, None, u32::MAX, &mut out).unwrap();
                sum += out.iter().map(|n| u64::from(n.id)).sum::<u64>();
            }
            report(
                kind.name(),
                &format!("nearest k={k}"),
                start,
                count,
                sum.to_string(),
            );
        }
        let start = Instant::now();
        let (mut sum, mut hits) = (0u64, 0usize);
        for ray in &rays {
            if let Some(hit) = index.ray_cast(ray, u32::MAX).unwrap() {
                sum += u64::from(hit.id);
                hits += 1;
            }
        }
        report(
            kind.name(),
            "ray_cast",
            start,
            count,
            format!("{sum} ({hits} hits)"),
        );
    }

    let tree = RTree::bulk_load(
        rects
            .iter()
            .zip(&ids)
            .map(|(r, &id)| Item {
                envelope: AABB::from_corners([r.x1, r.y1], [r.x2, r.y2]),
                id,
            })
            .collect(),
    );
    for k in [1, 10] {
        let start = Instant::now();
        let mut sum = 0u64;
        for p in &points {
            sum += tree
                .nearest_neighbor_iter(*p)
                .take(k)
                .map(|item| u64::from(item.id))
                .sum::<u64>();
        }
        report(
            "rstar",
            &format!("nearest k={k}"),
            start,
            count,
            sum.to_string(),
        );
    }

    let leaves: Vec<ParryAabb> = rects
        .iter()
        .map(|r| {
            ParryAabb::new(
                Vector::from_slice(&[r.x1, r.y1]),
                Vector::from_slice(&[r.x2, r.y2]),
            )
        })
        .collect();
    let bvh = Bvh::from_leaves(BvhBuildStrategy::Binned, &leaves);
    let start = Instant::now();
    let (mut sum, mut hits) = (0u64, 0usize);
    for ray in &rays {
        let r = ParryRay::new(
            Vector::from_slice(&ray.origin),
            Vector::from_slice(&ray.direction),
        );
        let best = bvh.cast_ray(&r, ray.max_length as f32, |leaf, best| {
            leaves[leaf as usize].cast_local_ray(&r, best, true)
        });
        if let Some((leaf, _)) = best {
            sum += u64::from(leaf);
            hits += 1;
        }
    }
    report(
        "parry2d Bvh",
        "ray_cast",
        start,
        count,
        format!("{sum} ({hits} hits)"),
    );
}
