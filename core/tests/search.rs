//! Nearest neighbours, circle queries and ray casts against a brute-force
//! oracle, on every structure (through [`AnyIndex`], several shapes each, and
//! the loose quadtree with a `max_extent`) and on the octree, over the six
//! worlds of `model.rs`, after random inserts, moves, removes and cleanups.
//!
//! The oracle scans every live element with the same per-box functions the
//! structures' element keys use ([`Bounds::distance_to_point`],
//! [`Ray::entry_into`]), so results must be equal bit for bit: the same
//! handles, in the same order, with the same distances. Each case is drawn
//! from one seed (so a failure names the seed that reproduces it);
//! `PROPTEST_CASES` (256 by default) sets the cases per world and structure,
//! divided by 16.

#[macro_use]
mod common;

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use common::{next_down, next_up, snapshot, Lcg, Shape, Subject};
use flatquad::{
    AnyIndex, Bounds, Box3, BoxCast, Error, Grid, Handle, LooseGrid, LooseQuadtree, Neighbor,
    Octree, Quadtree, Query, Ray, RayControl, RayHit, Rect, SpatialIndex,
};
use flatquad_testkit::{
    brute_box_cast, brute_circle, brute_nearest, brute_ray, hit_bits, neighbor_bits, Model,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

// ---------------------------------------------------------------------------
// Drawing coordinates, boxes, points and rays

/// Draws everything of a case on a world `lo..hi` (per axis; the third axis
/// unused in 2D).
struct Draw {
    rng: Lcg,
    lo: [f32; 3],
    hi: [f32; 3],
    axes: usize,
}

impl Draw {
    fn coord(&mut self, axis: usize) -> f32 {
        let (lo, hi) = (self.lo[axis], self.hi[axis]);
        let size = hi - lo;
        match self.rng.below(10) {
            0..=2 => lo + size * (self.rng.below(17) as f32 - 4.0) / 8.0,
            3 => {
                let v = [lo, hi, lo + size * 0.5][self.rng.below(3) as usize];
                [v, next_up(v), next_down(v)][self.rng.below(3) as usize]
            }
            4 => [lo - size * 10.0, hi + size * 100.0][self.rng.below(2) as usize],
            _ => lo + size * (self.rng.unit() * 2.0 - 0.5),
        }
    }

    fn point(&mut self) -> [f32; 3] {
        let mut p = [0.0; 3];
        for (axis, v) in p.iter_mut().enumerate().take(self.axes) {
            *v = self.coord(axis);
        }
        p
    }

    /// A box: degenerate, small, or spanning two drawn coordinates.
    fn corners(&mut self) -> ([f32; 3], [f32; 3]) {
        let (mut lo, mut hi) = ([0.0; 3], [0.0; 3]);
        for axis in 0..self.axes {
            let a = self.coord(axis);
            let b = match self.rng.below(5) {
                0 => a,
                1 | 2 => a + (self.hi[axis] - self.lo[axis]) * self.rng.unit() * 0.05,
                _ => self.coord(axis),
            };
            lo[axis] = a.min(b);
            hi[axis] = a.max(b);
        }
        (lo, hi)
    }

    fn bounds<B: Bounds>(&mut self) -> B {
        let (lo, hi) = self.corners();
        B::from_corners(lo, hi)
    }

    /// A radius or maximum distance: 0, tiny, a fraction of the world, huge.
    fn distance(&mut self) -> f64 {
        let size = f64::from(self.hi[0] - self.lo[0]);
        match self.rng.below(6) {
            0 => 0.0,
            1 => size * 1e-9,
            2 => f64::INFINITY,
            3 => 1e300,
            _ => size * f64::from(self.rng.unit()) * 0.7,
        }
    }

    /// A direction: along an axis, diagonal, small integers, or any.
    fn direction(&mut self) -> [f32; 3] {
        loop {
            let mut d = [0.0f32; 3];
            for v in d.iter_mut().take(self.axes) {
                *v = match self.rng.below(4) {
                    0 => 0.0,
                    1 => [1.0, -1.0][self.rng.below(2) as usize],
                    2 => self.rng.below(7) as f32 - 3.0,
                    _ => self.rng.unit() * 2.0 - 1.0,
                };
            }
            if d.iter().any(|&v| v != 0.0) {
                return d;
            }
        }
    }

    fn max_length(&mut self) -> f64 {
        let size = f64::from(self.hi[0] - self.lo[0]);
        match self.rng.below(5) {
            0 => 0.0,
            1 => 1e30,
            _ => size * f64::from(self.rng.unit()) * 2.0,
        }
    }
}

fn point_of<B: Bounds>(p: [f32; 3]) -> B::Point {
    B::from_corners(p, p).low_corner()
}

fn ray_of<B: Bounds>(origin: [f32; 3], direction: [f32; 3], max_length: f64) -> Ray<B::Point> {
    Ray {
        origin: point_of::<B>(origin),
        direction: point_of::<B>(direction),
        max_length,
    }
}

// ---------------------------------------------------------------------------
// One case (the oracle: flatquad_testkit's brute_* functions)

/// Random inserts, moves, removes and cleanups, then every query against the
/// oracle.
fn run_case<T: SpatialIndex>(mut index: T, world: T::Bounds, seed: u32) {
    let axes = T::Bounds::AXES;
    let (mut lo, mut hi) = ([0.0; 3], [0.0; 3]);
    for axis in 0..axes {
        lo[axis] = world.lo(axis);
        hi[axis] = world.hi(axis);
    }
    let mut draw = Draw {
        rng: Lcg(seed),
        lo,
        hi,
        axes,
    };
    let mut model: Model<T::Bounds> = BTreeMap::new();
    let mut live: Vec<Handle> = Vec::new();
    let inserts = draw.rng.below(60);
    for i in 0..inserts {
        let b = if i > 0 && draw.rng.below(10) == 0 {
            // A stack: the same box again.
            model[&live[draw.rng.below(live.len() as u32) as usize]].0
        } else {
            draw.bounds()
        };
        let id = draw.rng.below(8);
        let h = index.insert(b, id).unwrap();
        model.insert(h, (b, id));
        live.push(h);
    }
    for _ in 0..draw.rng.below(40) {
        match draw.rng.below(10) {
            0..=4 if !live.is_empty() => {
                let h = live[draw.rng.below(live.len() as u32) as usize];
                let b = draw.bounds();
                index.update(h, b).unwrap();
                model.get_mut(&h).unwrap().0 = b;
            }
            5..=6 if !live.is_empty() => {
                let h = live.swap_remove(draw.rng.below(live.len() as u32) as usize);
                index.remove(h).unwrap();
                model.remove(&h);
            }
            7 => index.cleanup(),
            _ => {
                let (b, id) = (draw.bounds(), draw.rng.below(8));
                let h = index.insert(b, id).unwrap();
                model.insert(h, (b, id));
                live.push(h);
            }
        }
    }
    let context = format!("seed {seed}, {} elements", model.len());

    // Circles, one by one and as a batch.
    let mut hits = Vec::new();
    let (mut centers, mut radii, mut rows) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..8 {
        let center = point_of::<T::Bounds>(draw.point());
        let radius = draw.distance();
        index
            .query(&Query::circle(center, radius).mask(u32::MAX), &mut hits)
            .unwrap();
        hits.sort_unstable();
        assert_eq!(
            hits,
            brute_circle(&model, center, radius),
            "circle {center:?} r {radius}, {context}"
        );
        index
            .query(&Query::circle(center, radius).mask(0), &mut hits)
            .unwrap();
        assert!(hits.is_empty(), "mask 0 reports nothing");
        centers.push(center);
        radii.push(radius);
        rows.push(brute_circle(&model, center, radius));
    }
    let (mut offsets, mut batch) = (Vec::new(), Vec::new());
    let circles: Vec<_> = centers
        .iter()
        .zip(&radii)
        .map(|(&center, &radius)| Query::circle(center, radius).mask(1))
        .collect();
    index
        .query_many(&circles, &mut offsets, &mut batch)
        .unwrap();
    for (i, row) in rows.iter().enumerate() {
        let mut got = batch[offsets[i]..offsets[i + 1]].to_vec();
        got.sort_unstable();
        assert_eq!(&got, row, "circle batch row {i}, {context}");
    }

    // Nearest: every k, with and without a maximum distance, with a filter.
    let mut out = Vec::new();
    let mut points = Vec::new();
    for q in 0..10 {
        let point = point_of::<T::Bounds>(draw.point());
        points.push(point);
        let k = [0, 1, 3, 10, 1000][q % 5];
        let max = (draw.rng.below(2) == 0).then(|| draw.distance());
        let all = brute_nearest(&model, point, max.unwrap_or(f64::INFINITY));
        index.nearest(point, k, max, u32::MAX, &mut out).unwrap();
        let want: Vec<Neighbor> = all.iter().copied().take(k).collect();
        assert_eq!(
            neighbor_bits(&out),
            neighbor_bits(&want),
            "nearest {point:?} k {k} max {max:?}, {context}"
        );
        let modulus = 2 + draw.rng.below(3);
        let mut asked = Vec::new();
        index
            .nearest_with(
                point,
                k,
                max,
                u32::MAX,
                |h| {
                    asked.push(h);
                    model[&h].1 % modulus != 0
                },
                &mut out,
            )
            .unwrap();
        let want: Vec<Neighbor> = all
            .iter()
            .copied()
            .filter(|n| n.id % modulus != 0)
            .take(k)
            .collect();
        assert_eq!(
            neighbor_bits(&out),
            neighbor_bits(&want),
            "nearest_with {point:?} k {k} max {max:?} id % {modulus}, {context}"
        );
        // The filter sees candidates in order, each once, up to the last taken.
        let seen: Vec<Handle> = all.iter().map(|n| n.handle).take(asked.len()).collect();
        assert_eq!(asked, seen, "accept's calls, {context}");
        index.nearest(point, k, max, 0, &mut out).unwrap();
        assert!(out.is_empty(), "mask 0 reports nothing");
    }
    let max = Some(draw.distance());
    let mut one = Vec::new();
    index
        .nearest_many(&points, 3, max, u32::MAX, &mut offsets, &mut out)
        .unwrap();
    assert_eq!(offsets.len(), points.len() + 1);
    for (i, &point) in points.iter().enumerate() {
        index.nearest(point, 3, max, u32::MAX, &mut one).unwrap();
        assert_eq!(
            neighbor_bits(&out[offsets[i]..offsets[i + 1]]),
            neighbor_bits(&one),
            "nearest batch row {i}, {context}"
        );
    }

    // Rays: random ones, then special ones around live elements.
    let mut rays = Vec::new();
    for _ in 0..8 {
        rays.push(ray_of::<T::Bounds>(
            draw.point(),
            draw.direction(),
            draw.max_length(),
        ));
    }
    let size = f64::from(hi[0] - lo[0]);
    for _ in 0..3 {
        let Some(&h) = live.get(draw.rng.below(live.len().max(1) as u32) as usize) else {
            break;
        };
        let b = model[&h].0;
        let (mut blo, mut bhi, mut mid) = ([0.0f32; 3], [0.0f32; 3], [0.0f32; 3]);
        for axis in 0..axes {
            blo[axis] = b.lo(axis);
            bhi[axis] = b.hi(axis);
            mid[axis] = b.lo(axis) * 0.5 + b.hi(axis) * 0.5;
        }
        let span = (f64::from(bhi[0]) - f64::from(blo[0])).max(size * 0.01);
        let mut x_axis = [0.0; 3];
        x_axis[0] = 1.0;
        let mut diagonal = [0.0; 3];
        diagonal[..axes].fill(-1.0);
        let mut before = blo;
        before[0] = blo[0] - (size as f32) * 0.25;
        let mut corner_out = bhi;
        for v in corner_out.iter_mut().take(axes) {
            *v += (size as f32) * 0.125;
        }
        let mut away = x_axis;
        away[0] = -1.0;
        let mut diagonal_up = [0.0; 3];
        diagonal_up[..axes].fill(1.0);
        rays.extend([
            // Along the low edge (face in 3D), parallel to x.
            ray_of::<T::Bounds>(before, x_axis, size),
            // Towards the high corner, from outside, diagonally.
            ray_of::<T::Bounds>(corner_out, diagonal, size * 4.0),
            // Grazing the high corner: from beyond it, leaving.
            ray_of::<T::Bounds>(bhi, diagonal_up, span),
            // Starting inside; of zero length; pointing away.
            ray_of::<T::Bounds>(mid, diagonal, span),
            ray_of::<T::Bounds>(mid, x_axis, 0.0),
            ray_of::<T::Bounds>(before, away, size),
            // From far outside the world.
            ray_of::<T::Bounds>(
                {
                    let mut far = mid;
                    far[0] = lo[0] - (size as f32) * 50.0;
                    far
                },
                x_axis,
                size * 100.0,
            ),
        ]);
    }
    let mut all = Vec::new();
    for ray in &rays {
        let want = brute_ray(&model, ray);
        index.ray_cast_all(ray, u32::MAX, &mut all).unwrap();
        assert_eq!(
            hit_bits(&all),
            hit_bits(&want),
            "ray_cast_all {ray:?}, {context}"
        );
        let first = index.ray_cast(ray, 7).unwrap();
        assert_eq!(
            hit_bits(&first.into_iter().collect::<Vec<_>>()),
            hit_bits(&want[..want.len().min(1)]),
            "ray_cast {ray:?}, {context}"
        );
        assert_eq!(index.ray_cast(ray, 0).unwrap(), None, "mask 0");
        // Clip to the first hit: only the hits as near as it remain.
        let mut clipped = Vec::new();
        index
            .ray_cast_with(ray, u32::MAX, |hit| {
                clipped.push(*hit);
                RayControl::Clip(hit.distance)
            })
            .unwrap();
        let first_distance = want.first().map_or(0.0, |h| h.distance);
        let near: Vec<RayHit> = want
            .iter()
            .copied()
            .filter(|h| h.distance <= first_distance)
            .collect();
        assert_eq!(
            hit_bits(&clipped),
            hit_bits(&near),
            "clip {ray:?}, {context}"
        );
        // Clip to half the length: the hits within it.
        let half = ray.max_length * 0.5;
        clipped.clear();
        index
            .ray_cast_with(ray, u32::MAX, |hit| {
                clipped.push(*hit);
                RayControl::Clip(half)
            })
            .unwrap();
        let within: Vec<RayHit> = want
            .iter()
            .copied()
            .enumerate()
            .filter(|&(i, h)| i == 0 || h.distance <= half)
            .map(|(_, h)| h)
            .collect();
        assert_eq!(
            hit_bits(&clipped),
            hit_bits(&within),
            "clip half {ray:?}, {context}"
        );
        // Stop after two.
        clipped.clear();
        index
            .ray_cast_with(ray, u32::MAX, |hit| {
                clipped.push(*hit);
                if clipped.len() == 2 {
                    RayControl::Stop
                } else {
                    RayControl::Continue
                }
            })
            .unwrap();
        assert_eq!(
            hit_bits(&clipped),
            hit_bits(&want[..want.len().min(2)]),
            "stop {ray:?}, {context}"
        );
    }
}

// ---------------------------------------------------------------------------
// The cases: every structure over the six worlds

const UNIT: Rect = Rect::new(0.0, 0.0, 1.0, 1.0);
const PIXELS: Rect = Rect::new(0.0, 0.0, 4096.0, 4096.0);
const HUGE: Rect = Rect::new(-1e6, -1e6, 1e6, 1e6);
const FLAT: Rect = Rect::new(-3.0, 10.0, 5.0, 10.5);
const TINY: Rect = Rect::new(1e-30, 1e-30, 1e-29, 1e-29);
/// Where `f32` steps are 1 or 2 apart: split lines and borders collide.
const COARSE: Rect = Rect::new(16_777_216.0, -2.0, 16_777_224.0, 6.0);

fn config() -> Config {
    let cases: u32 = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(256);
    Config {
        cases: (cases / 16).max(1),
        failure_persistence: None,
        ..Config::default()
    }
}

/// The shapes each 2D structure is drawn with.
fn shapes(kind: &str, world: Rect) -> Vec<Shape> {
    let mut shapes = Vec::new();
    match kind {
        "quadtree" => {
            for max_elements in [1, 2, 8] {
                for max_depth in [0, 1, 3, 8, 30] {
                    shapes.push(Shape::Tree {
                        max_elements,
                        max_depth,
                    });
                }
            }
        }
        "grid" => {
            for (columns, rows) in [(1, 1), (2, 2), (7, 3), (1, 5), (16, 16), (64, 64)] {
                shapes.push(Shape::Grid { columns, rows });
            }
        }
        "loose_grid" => {
            for (columns, rows, tight_columns, tight_rows) in [
                (1, 1, 1, 1),
                (2, 2, 1, 1),
                (7, 3, 4, 2),
                (5, 9, 5, 1),
                (16, 16, 8, 8),
                (64, 64, 32, 32),
            ] {
                shapes.push(Shape::LooseGrid {
                    columns,
                    rows,
                    tight_columns,
                    tight_rows,
                });
            }
        }
        "loose_quadtree" | "loose_quadtree_max_extent" => {
            let side = world.width().min(world.height());
            let bounds: &[f32] = if kind == "loose_quadtree" {
                &[0.0]
            } else {
                &[2.0, 16.0, 256.0]
            };
            for max_elements in [1, 2, 8] {
                for max_depth in [0, 3, 30] {
                    for &divisor in bounds {
                        shapes.push(Shape::LooseTree {
                            max_elements,
                            max_depth,
                            max_extent: (divisor > 0.0).then(|| (side / divisor).to_bits()),
                        });
                    }
                }
            }
        }
        _ => unreachable!(),
    }
    shapes
}

fn check_2d(kind: &str, world: Rect) {
    let shapes = shapes(kind, world);
    let mut runner = TestRunner::new(config());
    let result = runner.run(&(0..shapes.len(), any::<u32>()), |(shape, seed)| {
        let index: AnyIndex = shapes[shape].build(world);
        run_case(index, world, seed);
        Ok(())
    });
    if let Err(error) = result {
        panic!("{kind} over {world:?}: {error}");
    }
}

fn check_octree(world: Rect) {
    // The world's x extent again on z.
    let world = Box3::new(world.x1, world.y1, world.x1, world.x2, world.y2, world.x2);
    let mut runner = TestRunner::new(config());
    let result = runner.run(
        &(
            prop::sample::select(vec![1u32, 2, 8]),
            prop::sample::select(vec![0u32, 1, 3, 8]),
            any::<u32>(),
        ),
        |(max_elements, max_depth, seed)| {
            run_case(
                Octree::new(world, max_elements, max_depth).unwrap(),
                world,
                seed,
            );
            Ok(())
        },
    );
    if let Err(error) = result {
        panic!("octree over {world:?}: {error}");
    }
}

macro_rules! worlds {
    ($($world:ident: $value:expr),+ $(,)?) => {
        $(
            mod $world {
                use super::*;
                #[test]
                fn quadtree() {
                    check_2d("quadtree", $value)
                }
                #[test]
                fn grid() {
                    check_2d("grid", $value)
                }
                #[test]
                fn loose_grid() {
                    check_2d("loose_grid", $value)
                }
                #[test]
                fn loose_quadtree() {
                    check_2d("loose_quadtree", $value)
                }
                #[test]
                fn loose_quadtree_max_extent() {
                    check_2d("loose_quadtree_max_extent", $value)
                }
                #[test]
                fn octree() {
                    check_octree($value)
                }
            }
        )+
    };
}

worlds!(unit: UNIT, pixels: PIXELS, huge: HUGE, flat: FLAT, tiny: TINY, coarse: COARSE);

// ---------------------------------------------------------------------------
// Fixed cases

/// A bad direction is named with the ray's own number of coordinates.
#[test]
fn a_bad_direction_is_named_in_its_dimension() {
    let octree = Octree::new(Box3::new(0.0, 0.0, 0.0, 8.0, 8.0, 8.0), 4, 4).unwrap();
    let ray = Ray {
        origin: [1.0; 3],
        direction: [0.0, f32::NAN, 0.0],
        max_length: 1.0,
    };
    let e = octree.ray_cast(&ray, u32::MAX).unwrap_err();
    assert!(
        matches!(e, Error::InvalidDirection3 { dz, .. } if dz == 0.0),
        "{e}"
    );
    assert_eq!(
        e.to_string().matches(',').count(),
        2,
        "three coordinates: {e}"
    );
    let grid = Grid::new(Rect::new(0.0, 0.0, 8.0, 8.0), 4, 4).unwrap();
    let ray = Ray {
        origin: [1.0; 2],
        direction: [0.0; 2],
        max_length: 1.0,
    };
    let e = grid.ray_cast(&ray, u32::MAX).unwrap_err();
    assert_eq!(e, Error::InvalidDirection { dx: 0.0, dy: 0.0 });
}

/// Rays along an edge, grazing a corner, from inside, of zero length, and
/// parallel to an axis, with the distances worked out by hand.
#[test]
fn special_rays_by_hand() {
    let mut grid = Grid::new(Rect::new(0.0, 0.0, 100.0, 100.0), 10, 10).unwrap();
    let a = grid.insert(Rect::new(10.0, 10.0, 20.0, 20.0), 1).unwrap();
    let b = grid.insert(Rect::new(30.0, 10.0, 40.0, 10.0), 2).unwrap(); // flat
    let cast = |origin: [f32; 2], direction: [f32; 2], max_length: f64| {
        let mut hits = Vec::new();
        grid.ray_cast_all(
            &Ray {
                origin,
                direction,
                max_length,
            },
            u32::MAX,
            &mut hits,
        )
        .unwrap();
        hits.iter()
            .map(|h| (h.handle, h.distance, h.fraction))
            .collect::<Vec<_>>()
    };
    // Along the bottom edge y = 10, through both.
    assert_eq!(
        cast([0.0, 10.0], [3.0, 0.0], 50.0),
        [(a, 10.0, 0.2), (b, 30.0, 0.6)]
    );
    // Just below it: nothing.
    assert_eq!(cast([0.0, 9.999], [1.0, 0.0], 50.0), []);
    // Grazing the corner (20, 20) diagonally from (25, 15).
    assert_eq!(cast([25.0, 15.0], [-1.0, 1.0], 100.0).len(), 1);
    assert_eq!(cast([25.0, 15.0], [-1.0, 1.0], 100.0)[0].0, a);
    // From inside: distance 0; zero length: only what holds the origin.
    assert_eq!(cast([15.0, 15.0], [0.0, -1.0], 1.0), [(a, 0.0, 0.0)]);
    assert_eq!(cast([15.0, 15.0], [0.0, -1.0], 0.0), [(a, 0.0, 0.0)]);
    assert_eq!(cast([25.0, 15.0], [1.0, 0.0], 0.0), []);
    // Ending exactly on the box: a hit at fraction 1.
    assert_eq!(cast([0.0, 15.0], [1.0, 0.0], 10.0), [(a, 10.0, 1.0)]);
    // Pointing away.
    assert_eq!(cast([25.0, 15.0], [1.0, 0.0], 100.0), []);
    // Vertical, through the flat element at x = 35.
    assert_eq!(cast([35.0, 0.0], [0.0, 0.5], 100.0), [(b, 10.0, 0.1)]);
}

/// Ties in distance come out by id, then by handle.
#[test]
fn ties_by_id_then_handle() {
    let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 16.0, 16.0), 1, 4).unwrap();
    let r = Rect::new(4.0, 4.0, 5.0, 5.0);
    let h: Vec<Handle> = [3, 1, 1, 2]
        .iter()
        .map(|&id| tree.insert(r, id).unwrap())
        .collect();
    let mut out = Vec::new();
    tree.nearest([0.0, 0.0], 10, None, u32::MAX, &mut out)
        .unwrap();
    let order: Vec<Handle> = out.iter().map(|n| n.handle).collect();
    let (lo, hi) = if h[1] < h[2] {
        (h[1], h[2])
    } else {
        (h[2], h[1])
    };
    assert_eq!(order, [lo, hi, h[3], h[0]]);
    assert!(out.iter().all(|n| n.distance == 32f64.sqrt()));
}

/// Runs the generic `check(index, lift, boxed)` on every structure over the
/// world `(0, 0)..(1000, 1000)`: the 2D ones as they are, the octree on a
/// slab of it about z = 500 (`lift` and `boxed` take 2D points and boxes
/// there).
macro_rules! on_every_structure {
    ($check:ident) => {{
        let world = Rect::new(0.0, 0.0, 1000.0, 1000.0);
        let flat = |p: [f32; 2]| p;
        let same = |r: Rect| r;
        $check(Grid::for_world(world).unwrap(), flat, same);
        $check(LooseGrid::for_world(world).unwrap(), flat, same);
        $check(Quadtree::for_world(world).unwrap(), flat, same);
        $check(LooseQuadtree::for_world(world).unwrap(), flat, same);
        $check(
            Octree::for_world(Box3::new(0.0, 0.0, 0.0, 1000.0, 1000.0, 1000.0)).unwrap(),
            |[x, y]| [x, y, 500.0],
            |r| Box3::new(r.x1, r.y1, 499.0, r.x2, r.y2, 502.0),
        );
    }};
}

/// Nearest searches where the squares about the point cannot settle them
/// alone, against the brute force: a point in a stack of 300 equal boxes
/// (every square about it meets them all: too many, a quarter as wide, too
/// many again), points far outside the world and in its empty half (squares
/// widened until they give up), next to elements outside the world, and with
/// a maximum distance; k from 1 to past the trees' square limit. On every
/// structure, 2D and 3D.
#[test]
fn nearest_past_the_squares() {
    fn check<T: SpatialIndex>(
        mut index: T,
        lift: fn([f32; 2]) -> <T::Bounds as Bounds>::Point,
        boxed: fn(Rect) -> T::Bounds,
    ) {
        let far = [Rect::new(1e6, 1e6, 1e6, 1e6)];
        let (model, _) = field_and_stack(&mut index, boxed, &mut Lcg(17), &far);
        let points = [
            [200.5, 200.5],
            [200.0, 201.0],
            [500.0, 900.0],
            [-4_000.0, 705.0],
            [3e6, -2e6],
            [1e6, 1e6 + 1.0],
            [-1e30, 1e30],
            [700.0, 250.0],
        ];
        let mut out = Vec::new();
        for p in points {
            let point = lift(p);
            for k in [1, 2, 5, 6, 7, 10, 11, 33] {
                for max in [None, Some(0.0), Some(2.5), Some(400.0)] {
                    index.nearest(point, k, max, u32::MAX, &mut out).unwrap();
                    let want: Vec<Neighbor> =
                        brute_nearest(&model, point, max.unwrap_or(f64::INFINITY))
                            .into_iter()
                            .take(k)
                            .collect();
                    assert_eq!(
                        neighbor_bits(&out),
                        neighbor_bits(&want),
                        "{} nearest {point:?} k {k} max {max:?}",
                        std::any::type_name::<T>()
                    );
                }
            }
        }
    }
    on_every_structure!(check);
}

/// The world of the searches' edge cases, over `(0, 0)..(1000, 1000)`: 2,000
/// boxes of side 3 over its lower half only, a stack of 300 equal boxes at
/// (200, 200), one element far left of the world and `far` (id 2): inserted
/// into `index` as `boxed` makes them, and returned as the model, with the
/// stack's handles.
fn field_and_stack<T: SpatialIndex>(
    index: &mut T,
    boxed: fn(Rect) -> T::Bounds,
    rng: &mut Lcg,
    far: &[Rect],
) -> (Model<T::Bounds>, Vec<Handle>) {
    let mut model: Model<T::Bounds> = BTreeMap::new();
    let mut add = |r: Rect, id: u32| {
        let b = boxed(r);
        let h = index.insert(b, id).unwrap();
        model.insert(h, (b, id));
        h
    };
    for i in 0..2_000 {
        let (x, y) = (rng.unit() * 1000.0, rng.unit() * 500.0);
        add(Rect::new(x, y, x + 3.0, y + 3.0), i % 7);
    }
    let stacked = (0..300)
        .map(|i| add(Rect::new(200.0, 200.0, 201.0, 201.0), i % 5))
        .collect();
    add(Rect::new(-5_000.0, 700.0, -4_990.0, 710.0), 1);
    for &r in far {
        add(r, 2);
    }
    (model, stacked)
}

/// Rays' and box casts' first hits where the pieces of the grids and the
/// flat trees settle, grow over empty space, give up in a crowd (a stack of
/// 300 boxes) or after their budget, and where the descent answers alone
/// (the loose quadtree): each against the brute force.
#[test]
fn casts_past_the_pieces() {
    fn check<T: SpatialIndex>(
        mut index: T,
        lift: fn([f32; 2]) -> <T::Bounds as Bounds>::Point,
        boxed: fn(Rect) -> T::Bounds,
    ) {
        let mut rng = Lcg(23);
        let far = [Rect::new(900.0, 5e5, 910.0, 5e5 + 10.0)];
        let (model, stacked) = field_and_stack(&mut index, boxed, &mut rng, &far);
        // A cast from inside the stack first hits its first element, so the
        // casts below that leave it out check that it is left out.
        let inside = BoxCast::new(
            boxed(Rect::new(198.5, 198.5, 202.5, 202.5)),
            lift([1.0, 0.0]),
        );
        let first = index.box_cast(&inside).unwrap();
        assert_eq!(first.map(|hit| hit.handle), Some(stacked[0]));
        let origins = [
            [200.5, 200.5],
            [150.0, 200.5],
            [500.0, 900.0],
            [700.0, 250.0],
            [-4_000.0, 705.0],
            [905.0, 900.0],
        ];
        let directions = [
            [1.0, 0.0],
            [0.0, 1.0],
            [-1.0, -1.0],
            [0.3, -0.7],
            [-1.0, 0.05],
        ];
        let name = std::any::type_name::<T>();
        for origin in origins {
            for direction in directions {
                for length in [0.0, 3.0, 40.0, 600.0, 1e4, 1e6] {
                    let ray = Ray {
                        origin: lift(origin),
                        direction: lift(direction),
                        max_length: length,
                    };
                    let hit = index.ray_cast(&ray, u32::MAX).unwrap();
                    let want = brute_ray(&model, &ray);
                    assert_eq!(
                        hit_bits(hit.as_slice()),
                        hit_bits(&want[..want.len().min(1)]),
                        "{name} {ray:?}"
                    );
                    let motion = lift(direction.map(|d| d * length as f32));
                    let [x, y] = origin;
                    let from = boxed(Rect::new(x - 2.0, y - 2.0, x + 2.0, y + 2.0));
                    for cast in [
                        BoxCast::new(from, motion),
                        BoxCast::new(from, motion).omit(stacked[0]),
                        BoxCast::new(from, motion).mask(0),
                    ] {
                        let hit = index.box_cast(&cast).unwrap();
                        let mut passing = model.clone();
                        passing.retain(|h, _| Some(*h) != cast.omit);
                        if cast.mask != u32::MAX {
                            passing.clear();
                        }
                        let want = brute_box_cast(&passing, &cast);
                        assert_eq!(
                            hit_bits(hit.as_slice()),
                            hit_bits(&want[..want.len().min(1)]),
                            "{name} {cast:?}"
                        );
                    }
                }
            }
        }
        // Many casts across the field, from random points in random
        // directions: pieces settled after one, two or more queries.
        for _ in 0..3_000 {
            let origin = [rng.unit() * 1000.0, rng.unit() * 500.0];
            let angle = rng.unit() * std::f32::consts::TAU;
            let direction = [angle.cos(), angle.sin()];
            let length = 5.0 + rng.unit() * 150.0;
            let ray = Ray {
                origin: lift(origin),
                direction: lift(direction),
                max_length: f64::from(length),
            };
            let hit = index.ray_cast(&ray, u32::MAX).unwrap();
            let want = brute_ray(&model, &ray);
            let first = &want[..want.len().min(1)];
            assert_eq!(hit_bits(hit.as_slice()), hit_bits(first), "{name} {ray:?}");
            let [x, y] = origin;
            let side = rng.unit() * 6.0;
            let from = boxed(Rect::new(x, y, x + side, y + side));
            let cast = BoxCast::new(from, lift(direction.map(|d| d * length)));
            let hit = index.box_cast(&cast).unwrap();
            let want = brute_box_cast(&model, &cast);
            let first = &want[..want.len().min(1)];
            assert_eq!(hit_bits(hit.as_slice()), hit_bits(first), "{name} {cast:?}");
        }
    }
    on_every_structure!(check);
}

/// `par_nearest_many` gives `nearest_many`'s rows, on a batch big enough to
/// be cut into chunks; and refuses a bad point anywhere in it.
#[cfg(feature = "rayon")]
#[test]
fn par_nearest_many_matches_nearest_many() {
    let world = Rect::new(0.0, 0.0, 1000.0, 1000.0);
    let mut rng = Lcg(3);
    let mut grid = Grid::for_world(world).unwrap();
    for i in 0..5000 {
        let (x, y) = (rng.unit() * 1000.0, rng.unit() * 1000.0);
        grid.insert(Rect::new(x, y, x + 2.0, y + 2.0), i).unwrap();
    }
    let mut points: Vec<[f32; 2]> = (0..5000)
        .map(|_| [rng.unit() * 1200.0 - 100.0, rng.unit() * 1200.0 - 100.0])
        .collect();
    let (mut offsets, mut out, mut par_offsets, mut par_out) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (k, max) in [(1, None), (4, Some(20.0)), (0, None)] {
        grid.nearest_many(&points, k, max, u32::MAX, &mut offsets, &mut out)
            .unwrap();
        grid.par_nearest_many(&points, k, max, u32::MAX, &mut par_offsets, &mut par_out)
            .unwrap();
        assert_eq!(par_offsets, offsets);
        assert_eq!(neighbor_bits(&par_out), neighbor_bits(&out));
    }
    points[4321] = [f32::NAN, 0.0];
    let e = grid
        .par_nearest_many(&points, 1, None, u32::MAX, &mut par_offsets, &mut par_out)
        .unwrap_err();
    assert_eq!(e.batch_index(), Some(4321));
    assert_eq!(par_offsets.len(), points.len() + 1, "nothing written");
}

// ---------------------------------------------------------------------------
// Bad input: refused with the right error, the structure unchanged

fn sample<T: Subject>(make: fn(Rect) -> T) -> T {
    let mut index = make(Rect::new(0.0, 0.0, 100.0, 100.0));
    let mut rng = Lcg(5);
    for i in 0..40 {
        let (x, y) = (rng.unit() * 120.0 - 10.0, rng.unit() * 120.0 - 10.0);
        index
            .insert(
                Rect::new(x, y, x + rng.unit() * 8.0, y + rng.unit() * 8.0),
                i,
            )
            .unwrap();
    }
    index
}

fn refused<T: Subject, R: std::fmt::Debug>(
    index: &T,
    call: impl FnOnce(&T) -> Result<R, Error>,
) -> Error {
    let before = (index.to_bytes(), snapshot(index));
    let error = call(index).expect_err("bad input accepted");
    assert_eq!((index.to_bytes(), snapshot(index)), before, "{error}");
    error
}

fn bad_search_input<T: Subject>(make: fn(Rect) -> T) {
    let index = sample(make);
    let (nan, inf) = (f32::NAN, f32::INFINITY);
    for p in [[nan, 1.0], [1.0, inf], [-inf, 0.0]] {
        let e = refused(&index, |t| t.nearest(p, 1, None, 1, &mut Vec::new()));
        assert!(matches!(e, Error::InvalidPoint { .. }), "{e}");
        let e = refused(&index, |t| {
            t.query(&Query::circle(p, 1.0).mask(1), &mut Vec::new())
        });
        assert!(matches!(e, Error::InvalidPoint { .. }), "{e}");
        let ray = Ray {
            origin: p,
            direction: [1.0, 0.0],
            max_length: 1.0,
        };
        let e = refused(&index, |t| t.ray_cast(&ray, 1));
        assert!(matches!(e, Error::InvalidPoint { .. }), "{e}");
    }
    for d in [f64::NAN, -1.0, -0.0001, f64::NEG_INFINITY] {
        let e = refused(&index, |t| {
            t.query(&Query::circle([1.0, 1.0], d).mask(1), &mut Vec::new())
        });
        assert!(
            matches!(e, Error::InvalidDistance { name: "radius", .. }),
            "{e}"
        );
        let e = refused(&index, |t| {
            t.nearest([1.0, 1.0], 3, Some(d), 1, &mut Vec::new())
        });
        assert!(
            matches!(
                e,
                Error::InvalidDistance {
                    name: "max_distance",
                    ..
                }
            ),
            "{e}"
        );
        assert_eq!(e.kind(), flatquad::ErrorKind::InvalidParameter);
    }
    for max_length in [f64::NAN, -1.0, f64::INFINITY] {
        let ray = Ray {
            origin: [1.0, 1.0],
            direction: [1.0, 0.0],
            max_length,
        };
        let e = refused(&index, |t| t.ray_cast_all(&ray, 1, &mut Vec::new()));
        assert!(
            matches!(
                e,
                Error::InvalidDistance {
                    name: "max_length",
                    ..
                }
            ),
            "{e}"
        );
    }
    for direction in [[0.0, 0.0], [-0.0, 0.0], [nan, 1.0], [1.0, inf]] {
        let ray = Ray {
            origin: [1.0, 1.0],
            direction,
            max_length: 1.0,
        };
        let e = refused(&index, |t| {
            t.ray_cast_with(&ray, 1, |_| RayControl::Continue)
        });
        assert!(matches!(e, Error::InvalidDirection { .. }), "{e}");
        assert_eq!(
            e.to_string().matches(',').count(),
            1,
            "two coordinates: {e}"
        );
        assert!(!e.to_string().is_empty());
    }
    // Batches: lengths, and the first bad item named.
    let e = refused(&index, |t| {
        t.query_many(
            &[
                Query::circle([1.0, 1.0], 1.0),
                Query::circle([2.0, 2.0], -1.0),
            ],
            &mut Vec::new(),
            &mut Vec::new(),
        )
    });
    assert_eq!(e.batch_index(), Some(1), "{e}");
    let e = refused(&index, |t| {
        t.nearest_many(
            &[[1.0, 1.0], [2.0, 2.0], [nan, 0.0]],
            2,
            None,
            1,
            &mut Vec::new(),
            &mut Vec::new(),
        )
    });
    assert_eq!(e.batch_index(), Some(2), "{e}");
    // k = 0 and an empty batch are not errors.
    let mut out = vec![Neighbor {
        handle: Handle::from_raw(1),
        id: 0,
        distance: 0.0,
    }];
    index
        .nearest([1.0, 1.0], 0, None, u32::MAX, &mut out)
        .unwrap();
    assert!(out.is_empty());
    let mut offsets = Vec::new();
    index
        .nearest_many(&[], 3, None, u32::MAX, &mut offsets, &mut out)
        .unwrap();
    assert_eq!(offsets, [0]);
    // An infinite radius holds everything.
    let mut hits = Vec::new();
    index
        .query(
            &Query::circle([0.0, 0.0], f64::INFINITY).mask(u32::MAX),
            &mut hits,
        )
        .unwrap();
    assert_eq!(hits.len(), index.len());
    let _ = index.visit(&Query::circle([0.0, 0.0], 1e30).mask(u32::MAX), |_| {
        ControlFlow::Break(())
    });
}

per_structure! {
    quadtree: |w| Quadtree::new(w, 2, 6),
    grid: |w| Grid::new(w, 9, 7),
    loose_grid: |w| LooseGrid::new(w, 9, 7, 4, 3),
    loose_quadtree: |w| LooseQuadtree::new(w, 2, 6);
    bad_search_input,
}
