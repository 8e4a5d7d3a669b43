//! flatquad's test harness (unpublished): random operation sequences against
//! brute force, for any structure, in 2D or 3D: awkward boxes, `validate`
//! after every operation, every query kind compared, refusals leaving the
//! bytes unchanged, snapshots round-tripped and damaged. Each structure
//! supplies its shapes (where its borders lie) and its own check of
//! `traverse`.
//!
//! Used by core's integration tests (`core/tests/`), the fuzz targets
//! (`fuzz/`), and this crate's examples: the soak, the churn run and the
//! fuzz seeds (`mk/fuzz.mk`, `docs/soak.md`). It reaches flatquad through its
//! public API only.
//!
//! Feature `rayon`: flatquad's rayon API, and the tracker checks alternate
//! `PairTracker::update` with `par_update`; runs whose [`Checks`] ask for it
//! compare every parallel call with the serial one ([`check_threads`]).

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use flatquad::{
    AnyIndex, Bounds, Box3, BoxCast, Dimension, Error, Filter, FlatTree, Grid, Handle, LooseGrid,
    LooseQuadtree, Neighbor, NodeInfo, Octree, PairTracker, Quadtree, Query, Ray, RayHit, Rect,
    SpatialIndex,
};

/// Where the harness's choices come from: a seeded [`Lcg`] in the tests and
/// the soak, the fuzzer's bytes ([`Bytes`]) in the fuzz targets, so both drive
/// the same operations against the same model.
pub trait Draw {
    /// A raw 32-bit draw.
    fn next(&mut self) -> u32;
    /// In `[0, 1)`.
    fn unit(&mut self) -> f32 {
        (self.next() >> 8) as f32 / 16_777_216.0
    }
    /// In `[0, n)`.
    fn below(&mut self, n: u32) -> u32 {
        self.next() % n
    }
    /// True `percent` times in a hundred.
    fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent
    }
    /// Nothing left to draw: a run stops at the next operation.
    fn exhausted(&self) -> bool {
        false
    }
}

/// A small LCG, so the tests need no dependency and replay exactly.
pub struct Lcg(pub u64);

impl Draw for Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) as u32
    }
}

/// A fuzzer's input read as the harness's choices: one byte for a small
/// choice (an operation, a chance), four for anything else, zeros once used up.
pub struct Bytes<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Bytes<'a> {
    /// Choices read from `data`, front to back.
    pub fn new(data: &'a [u8]) -> Bytes<'a> {
        Bytes { data, at: 0 }
    }

    fn take(&mut self, n: usize) -> u32 {
        let mut word = [0u8; 4];
        let start = self.at.min(self.data.len());
        let end = (self.at + n).min(self.data.len());
        word[..end - start].copy_from_slice(&self.data[start..end]);
        self.at += n;
        u32::from_le_bytes(word)
    }
}

impl Draw for Bytes<'_> {
    fn next(&mut self) -> u32 {
        self.take(4)
    }
    fn below(&mut self, n: u32) -> u32 {
        let raw = if n <= 256 { self.take(1) } else { self.take(4) };
        raw % n
    }
    fn exhausted(&self) -> bool {
        self.at >= self.data.len()
    }
}

/// The model: every live element, by handle.
pub type Model<B = Rect> = BTreeMap<Handle, (B, u32)>;

/// The model's collision filters: an element not listed has
/// [`Filter::DEFAULT`].
pub type Filters = BTreeMap<Handle, Filter>;

fn filter_of(filters: &Filters, handle: &Handle) -> Filter {
    filters.get(handle).copied().unwrap_or_default()
}

/// Closed-box intersection, written out axis by axis (touching counts), so
/// the oracle does not lean on the structures' own test.
pub fn meets<B: Bounds>(a: &B, b: &B) -> bool {
    (0..B::AXES).all(|axis| a.lo(axis) <= b.hi(axis) && b.lo(axis) <= a.hi(axis))
}

/// A box generator for one world (2D or 3D): coordinates drawn near the
/// world, often exactly on the structures' borders, of every awkward kind.
pub struct Shapes<B: Bounds = Rect> {
    world: B,
    /// Per axis, values that sit exactly on (or next to) cell borders.
    borders: Vec<Vec<f32>>,
    /// Per axis, a cell's extent.
    cell: Vec<f32>,
    /// Sizes in cells around which a structure treats elements as large.
    wide: f32,
    /// The spot where stacks pile up.
    spot: Vec<f32>,
}

pub fn borders(origin: f32, size: f32, counts: &[u32]) -> Vec<f32> {
    let mut values = Vec::new();
    for &n in counts {
        for k in 0..=n {
            let v = (origin as f64 + k as f64 * (size as f64 / n as f64)) as f32;
            values.extend([v, next_up(v), next_down(v)]);
        }
    }
    values
}

/// The next `f32` above `x` (written out: `f32::next_up` is newer than the
/// MSRV); NaN and +∞ are their own.
pub fn next_up(x: f32) -> f32 {
    if x.is_nan() || x == f32::INFINITY {
        x
    } else if x == 0.0 {
        f32::from_bits(1)
    } else if x > 0.0 {
        f32::from_bits(x.to_bits() + 1)
    } else {
        f32::from_bits(x.to_bits() - 1)
    }
}

/// The next `f32` below `x`.
pub fn next_down(x: f32) -> f32 {
    -next_up(-x)
}

impl Shapes<Rect> {
    /// Shapes for a 2D `world`: coordinates on (and next to) the borders of
    /// `x_counts` and `y_counts` cells, sizes around `cell`, some `wide`
    /// cells wide (a structure's threshold for large elements).
    pub fn new(
        world: Rect,
        x_counts: &[u32],
        y_counts: &[u32],
        cell: (f32, f32),
        wide: f32,
        rng: &mut impl Draw,
    ) -> Shapes {
        Shapes::for_axes(world, &[x_counts, y_counts], &[cell.0, cell.1], wide, rng)
    }
}

impl<B: Bounds> Shapes<B> {
    /// [`Shapes::new`] in any dimension: `counts[axis]` and `cell[axis]` per axis.
    pub fn for_axes(
        world: B,
        counts: &[&[u32]],
        cell: &[f32],
        wide: f32,
        rng: &mut impl Draw,
    ) -> Shapes<B> {
        let borders = (0..B::AXES)
            .map(|axis| borders(world.lo(axis), size(&world, axis), counts[axis]))
            .collect();
        let spot = (0..B::AXES)
            .map(|axis| world.lo(axis) + rng.unit() * size(&world, axis))
            .collect();
        Shapes {
            world,
            borders,
            cell: cell.to_vec(),
            wide,
            spot,
        }
    }

    pub fn coordinate(&self, rng: &mut impl Draw, axis: usize) -> f32 {
        let (lo, size, values) = (
            self.world.lo(axis),
            size(&self.world, axis),
            &self.borders[axis],
        );
        match rng.below(10) {
            0..=2 => values[rng.below(values.len() as u32) as usize],
            3 => lo + (rng.unit() * 3.0 - 1.0) * size, // around the world
            4 if rng.chance(20) => (rng.unit() - 0.5) * 1e30, // far out
            _ => lo + rng.unit() * size,
        }
    }

    pub fn extent(&self, rng: &mut impl Draw, cell: f32, world: f32) -> f32 {
        match rng.below(12) {
            0..=1 => 0.0,                                      // points and segments
            2 => cell * self.wide,                             // right at the threshold
            3 => cell * (self.wide - 1.0 + 2.0 * rng.unit()),  // around it
            5 => world * 0.5 * rng.unit(),                     // up to half the world
            4 if rng.chance(30) => world * (1.0 + rng.unit()), // world-sized
            _ => cell * rng.unit() * rng.unit(),
        }
    }

    pub fn rect(&self, rng: &mut impl Draw) -> B {
        let (mut lo, mut hi) = ([0.0; 3], [0.0; 3]);
        if rng.chance(8) {
            for axis in 0..B::AXES {
                lo[axis] = self.spot[axis];
                hi[axis] = self.spot[axis] + self.cell[axis] * 0.25;
            }
            return B::from_corners(lo, hi);
        }
        if rng.chance(2) {
            return B::from_corners([-3e38; 3], [3e38; 3]);
        }
        for (axis, v) in lo.iter_mut().enumerate().take(B::AXES) {
            *v = self.coordinate(rng, axis);
        }
        for axis in 0..B::AXES {
            hi[axis] = lo[axis] + self.extent(rng, self.cell[axis], size(&self.world, axis));
        }
        let r = B::from_corners(lo, hi);
        if r.is_valid() {
            r
        } else {
            B::from_corners(lo, lo)
        }
    }

    /// A fat-bounds margin: none, a sliver, half a cell, two cells, or so
    /// large that every fat box reaches the ends of `f32`.
    pub fn margin(&self, rng: &mut impl Draw) -> f32 {
        let cell = self.cell[0];
        match rng.below(6) {
            0 => 0.0,
            1 => cell * 0.01,
            2 => cell * 0.5,
            3 => cell * 2.0,
            4 => f32::MIN_POSITIVE,
            _ if rng.chance(20) => 1e38,
            _ => cell * rng.unit(),
        }
    }

    /// A box near `r` (a small move), or anywhere.
    pub fn moved(&self, rng: &mut impl Draw, r: &B) -> B {
        if rng.chance(30) {
            return self.rect(rng);
        }
        let (mut lo, mut hi) = ([0.0; 3], [0.0; 3]);
        for axis in 0..B::AXES {
            let d = (rng.unit() - 0.5) * self.cell[axis];
            lo[axis] = r.lo(axis) + d;
            hi[axis] = r.hi(axis) + d;
        }
        let moved = B::from_corners(lo, hi);
        if moved.is_valid() {
            moved
        } else {
            *r
        }
    }

    /// A radius or maximum distance: zero, about a cell, a share of the
    /// world, or far beyond it.
    pub fn distance(&self, rng: &mut impl Draw) -> f64 {
        let (cell, world) = (self.cell[0] as f64, size(&self.world, 0) as f64);
        match rng.below(5) {
            0 => 0.0,
            1 => cell * rng.unit() as f64,
            2 => cell * 3.0,
            3 => world * rng.unit() as f64,
            _ => world * 1e3,
        }
    }

    /// A ray from a drawn point: directions along axes, diagonal, tiny or
    /// huge components, or drawn; lengths zero, within the world, or far
    /// beyond it.
    pub fn ray(&self, rng: &mut impl Draw) -> Ray<B::Point> {
        let mut direction = [0.0f32; 3];
        for d in direction.iter_mut().take(B::AXES) {
            *d = match rng.below(6) {
                0 => 0.0,
                1 => 1.0,
                2 => -1.0,
                3 => pick_of(rng, &[1e-30, -1e-30, 1e30, -3.0]),
                _ => rng.unit() * 2.0 - 1.0,
            };
        }
        if direction[..B::AXES].iter().all(|&d| d == 0.0) {
            direction[0] = 1.0;
        }
        let max_length = match rng.below(4) {
            0 => 0.0,
            1 => self.distance(rng),
            _ => size(&self.world, 0) as f64 * 4.0,
        };
        Ray {
            origin: self.point(rng),
            direction: B::from_corners(direction, direction).low_corner(),
            max_length,
        }
    }

    /// A box cast: a drawn box moved along an axis, diagonally or anywhere,
    /// by nothing, about a cell, the world or far beyond it.
    pub fn box_cast(&self, rng: &mut impl Draw) -> BoxCast<B> {
        let mut motion = [0.0f32; 3];
        for m in motion.iter_mut().take(B::AXES) {
            let reach = self.distance(rng) as f32;
            *m = match rng.below(5) {
                0 => 0.0,
                1 => reach,
                2 => -reach,
                3 => pick_of(rng, &[1e-30, -1e-30, 1e30, -3.0]),
                _ => (rng.unit() * 2.0 - 1.0) * reach,
            };
        }
        BoxCast::new(self.rect(rng), B::from_corners(motion, motion).low_corner())
    }

    pub fn point(&self, rng: &mut impl Draw) -> B::Point {
        let mut at = [0.0; 3];
        for (axis, v) in at.iter_mut().enumerate().take(B::AXES) {
            *v = self.coordinate(rng, axis);
        }
        B::from_corners(at, at).low_corner()
    }
}

/// The world's extent on `axis`.
fn size<B: Bounds>(world: &B, axis: usize) -> f32 {
    world.hi(axis) - world.lo(axis)
}

/// A box's coordinates as bits, so `-0.0` and every ulp compare exactly.
fn bits<B: Bounds>(b: &B) -> Vec<u32> {
    (0..B::AXES)
        .flat_map(|axis| [b.lo(axis).to_bits(), b.hi(axis).to_bits()])
        .collect()
}

pub fn sorted(mut v: Vec<Handle>) -> Vec<Handle> {
    v.sort_unstable();
    v
}

pub fn ordered((a, b): (Handle, Handle)) -> (Handle, Handle) {
    if a < b {
        (a, b)
    } else {
        (b, a)
    }
}

/// Every query kind against brute force: region and point queries, masked
/// ones, `overlapping` and `pairs` under the elements' `filters` (Box2D's
/// rule), and the searches ([`check_searches`]).
pub fn check_queries<T: SpatialIndex>(
    index: &T,
    model: &Model<T::Bounds>,
    filters: &Filters,
    shapes: &Shapes<T::Bounds>,
    rng: &mut impl Draw,
) {
    let mut hits = Vec::new();
    for _ in 0..4 {
        let q = shapes.rect(rng);
        let omit = if rng.chance(30) && !model.is_empty() {
            model
                .keys()
                .nth(rng.below(model.len() as u32) as usize)
                .copied()
        } else {
            None
        };
        index
            .query(
                &Query {
                    omit,
                    ..Query::rect(q)
                },
                &mut hits,
            )
            .unwrap();
        let expected: Vec<Handle> = model
            .iter()
            .filter(|(h, (r, _))| Some(**h) != omit && meets(r, &q))
            .map(|(h, _)| *h)
            .collect();
        assert_eq!(sorted(hits.clone()), expected, "query {q}");

        let point = shapes.point(rng);
        index
            .query(
                &Query {
                    omit,
                    ..Query::point(point)
                },
                &mut hits,
            )
            .unwrap();
        let expected: Vec<Handle> = model
            .iter()
            .filter(|(h, (r, _))| Some(**h) != omit && meets(r, &T::Bounds::point_box(point)))
            .map(|(h, _)| *h)
            .collect();
        assert_eq!(sorted(hits.clone()), expected, "point {point:?}");

        let mask = draw_mask(rng);
        index
            .query(
                &Query {
                    omit,
                    ..Query::rect(q).mask(mask)
                },
                &mut hits,
            )
            .unwrap();
        let expected: Vec<Handle> = model
            .iter()
            .filter(|(h, (r, _))| {
                Some(**h) != omit && meets(r, &q) && filter_of(filters, h).passes(mask)
            })
            .map(|(h, _)| *h)
            .collect();
        assert_eq!(sorted(hits.clone()), expected, "query {q} mask {mask:#x}");
    }
    if let Some((&h, &(rect, _))) = model
        .iter()
        .nth(rng.below(model.len().max(1) as u32) as usize)
    {
        index.query(&Query::element(h), &mut hits).unwrap();
        let own = filter_of(filters, &h);
        let expected: Vec<Handle> = model
            .iter()
            .filter(|(other, (r, _))| {
                **other != h && meets(r, &rect) && own.collides(filter_of(filters, other))
            })
            .map(|(h, _)| *h)
            .collect();
        assert_eq!(sorted(hits.clone()), expected, "overlapping {h:?}");
    }
    let mut pairs = Vec::new();
    index.pairs(&mut pairs);
    let mut found: Vec<(Handle, Handle)> = pairs.into_iter().map(ordered).collect();
    found.sort_unstable();
    let expected = brute_pairs(model, filters);
    assert_eq!(found.len(), expected.len(), "pairs: count (or duplicates)");
    assert_eq!(found, expected, "pairs");
    check_searches(index, model, filters, shapes, rng);
}

/// Every pair of the model's elements whose boxes meet and whose filters
/// collide, each `(lower, higher)`, sorted.
pub fn brute_pairs<B: Bounds>(model: &Model<B>, filters: &Filters) -> Vec<(Handle, Handle)> {
    let all: Vec<(&Handle, &(B, u32))> = model.iter().collect();
    let mut pairs = Vec::new();
    for (i, (a, (ra, _))) in all.iter().enumerate() {
        for (b, (rb, _)) in &all[i + 1..] {
            if meets(ra, rb) && filter_of(filters, a).collides(filter_of(filters, b)) {
                pairs.push(ordered((**a, **b)));
            }
        }
    }
    pairs.sort_unstable();
    pairs
}

/// A [`PairTracker`]'s update against the brute-force difference between
/// the pairs at its last update (`last`, which becomes the current pairs)
/// and now: what began, what ended, nothing reported twice.
pub fn check_tracker<T: SpatialIndex + Sync>(
    tracker: &mut PairTracker<T::Bounds>,
    index: &T,
    last: &mut Vec<(Handle, Handle)>,
    model: &Model<T::Bounds>,
    filters: &Filters,
    parallel: bool,
) {
    let now = brute_pairs(model, filters);
    let (began, ended) = update_tracker(tracker, index, parallel);
    let as_tuples = |list: &[[Handle; 2]]| -> Vec<(Handle, Handle)> {
        list.iter().map(|&[a, b]| (a, b)).collect()
    };
    let expected_began: Vec<_> = now
        .iter()
        .filter(|p| last.binary_search(p).is_err())
        .copied()
        .collect();
    let expected_ended: Vec<_> = last
        .iter()
        .filter(|p| now.binary_search(p).is_err())
        .copied()
        .collect();
    assert_eq!(as_tuples(began), expected_began, "tracker: began");
    assert_eq!(as_tuples(ended), expected_ended, "tracker: ended");
    assert_eq!(tracker.pair_count(), now.len(), "tracker: pair count");
    *last = now;
}

#[cfg(feature = "rayon")]
fn update_tracker<'t, T: SpatialIndex + Sync>(
    tracker: &'t mut PairTracker<T::Bounds>,
    index: &T,
    parallel: bool,
) -> (&'t [[Handle; 2]], &'t [[Handle; 2]]) {
    if parallel {
        tracker.par_update(index)
    } else {
        tracker.update(index)
    }
}

#[cfg(not(feature = "rayon"))]
fn update_tracker<'t, T: SpatialIndex>(
    tracker: &'t mut PairTracker<T::Bounds>,
    index: &T,
    _parallel: bool,
) -> (&'t [[Handle; 2]], &'t [[Handle; 2]]) {
    tracker.update(index)
}

/// A filter from a few bit patterns, so that some elements collide and
/// others miss each other.
fn draw_filter(rng: &mut impl Draw) -> Filter {
    Filter::new(draw_mask(rng), draw_mask(rng))
}

/// A query mask: every bit, none, or one of a few categories.
fn draw_mask(rng: &mut impl Draw) -> u32 {
    pick_of(rng, &[Filter::ALL, Filter::ALL, 0, 1, 2, 3, 0x8000_0000])
}

/// Sorts search results as the searches promise: by distance, then id, then
/// handle.
fn by_distance<R>(results: &mut [R], key: impl Fn(&R) -> (f64, u32, Handle)) {
    results.sort_by(|a, b| {
        let (a, b) = (key(a), key(b));
        a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2))
    });
}

/// Every element of the model whose closed box is within `radius` of
/// `center`, by handle.
pub fn brute_circle<B: Bounds>(model: &Model<B>, center: B::Point, radius: f64) -> Vec<Handle> {
    model
        .iter()
        .filter(|(_, (b, _))| b.distance_to_point(center) <= radius)
        .map(|(&h, _)| h)
        .collect()
}

/// Every element of the model within `max` of `point`, ascending
/// `(distance, id, handle)`.
pub fn brute_nearest<B: Bounds>(model: &Model<B>, point: B::Point, max: f64) -> Vec<Neighbor> {
    let mut all: Vec<Neighbor> = model
        .iter()
        .map(|(&handle, &(b, id))| Neighbor {
            handle,
            id,
            distance: b.distance_to_point(point),
        })
        .filter(|n| n.distance <= max)
        .collect();
    by_distance(&mut all, |n| (n.distance, n.id, n.handle));
    all
}

/// Every element of the model the ray hits, ascending `(distance, id,
/// handle)`.
pub fn brute_ray<B: Bounds>(model: &Model<B>, ray: &Ray<B::Point>) -> Vec<RayHit> {
    let mut all: Vec<RayHit> = model
        .iter()
        .filter_map(|(&handle, &(b, id))| {
            let distance = ray.entry_into(&b)?;
            let fraction = if ray.max_length > 0.0 {
                distance / ray.max_length
            } else {
                0.0
            };
            Some(RayHit {
                handle,
                id,
                distance,
                fraction,
            })
        })
        .collect();
    by_distance(&mut all, |h| (h.distance, h.id, h.handle));
    all
}

/// Every element a box cast touches, in ascending `(t, id, handle)`: the
/// brute-force sweep the casts are checked against.
pub fn brute_box_cast<B: Bounds>(model: &Model<B>, cast: &BoxCast<B>) -> Vec<RayHit> {
    let length = cast
        .motion
        .as_ref()
        .iter()
        .map(|&m| f64::from(m) * f64::from(m))
        .sum::<f64>()
        .sqrt();
    let mut all: Vec<RayHit> = model
        .iter()
        .filter(|(&handle, _)| Some(handle) != cast.omit)
        .filter_map(|(&handle, &(b, id))| {
            let fraction = cast.entry_into(&b)?;
            Some(RayHit {
                handle,
                id,
                distance: fraction * length,
                fraction,
            })
        })
        .collect();
    by_distance(&mut all, |h| (h.fraction, h.id, h.handle));
    all
}

/// Neighbours as bits, so that equal means the same bits.
pub fn neighbor_bits(list: &[Neighbor]) -> Vec<(Handle, u32, u64)> {
    list.iter()
        .map(|n| (n.handle, n.id, n.distance.to_bits()))
        .collect()
}

/// Ray hits as bits, so that equal means the same bits.
pub fn hit_bits(list: &[RayHit]) -> Vec<(Handle, u32, u64, u64)> {
    list.iter()
        .map(|h| (h.handle, h.id, h.distance.to_bits(), h.fraction.to_bits()))
        .collect()
}

/// Circles, nearest neighbours (both routes: `nearest` and `nearest_with`)
/// and ray casts (first hit and all hits), each with a mask, against brute
/// force over the model, distances bit for bit.
pub fn check_searches<T: SpatialIndex>(
    index: &T,
    model: &Model<T::Bounds>,
    filters: &Filters,
    shapes: &Shapes<T::Bounds>,
    rng: &mut impl Draw,
) {
    let mut hits = Vec::new();
    let mut neighbors = Vec::new();
    for _ in 0..2 {
        let (point, mask) = (shapes.point(rng), draw_mask(rng));
        // The searches with `mask` answer as brute force over these.
        let passing: Model<T::Bounds> = model
            .iter()
            .filter(|(h, _)| filter_of(filters, h).passes(mask))
            .map(|(h, e)| (*h, *e))
            .collect();
        let radius = shapes.distance(rng);
        index
            .query(&Query::circle(point, radius).mask(mask), &mut hits)
            .unwrap();
        assert_eq!(
            sorted(hits.clone()),
            brute_circle(&passing, point, radius),
            "circle {point:?} {radius}"
        );

        let k = pick_of(rng, &[0, 1, 1, 3, 10, model.len() + 1]);
        let max_distance = rng.chance(50).then(|| shapes.distance(rng));
        let expected = brute_nearest(&passing, point, max_distance.unwrap_or(f64::INFINITY));
        index
            .nearest(point, k, max_distance, mask, &mut neighbors)
            .unwrap();
        assert_eq!(
            neighbor_bits(&neighbors),
            neighbor_bits(&expected[..k.min(expected.len())]),
            "nearest {point:?} k {k} max {max_distance:?} mask {mask:#x}"
        );
        // The ordered route, refusing a third of the candidates.
        // (A handle's slot is its low 32 bits.)
        let accept = |h: Handle| (h.to_raw() as u32) % 3 != 1;
        index
            .nearest_with(point, k, max_distance, mask, accept, &mut neighbors)
            .unwrap();
        let accepted: Vec<Neighbor> = expected
            .iter()
            .copied()
            .filter(|n| accept(n.handle))
            .take(k)
            .collect();
        assert_eq!(
            neighbor_bits(&neighbors),
            neighbor_bits(&accepted),
            "nearest_with {point:?} k {k} max {max_distance:?} mask {mask:#x}"
        );

        let ray = shapes.ray(rng);
        let expected = brute_ray(&passing, &ray);
        let mut all = Vec::new();
        index.ray_cast_all(&ray, mask, &mut all).unwrap();
        assert_eq!(
            hit_bits(&all),
            hit_bits(&expected),
            "ray {ray:?} mask {mask:#x}"
        );
        let first = index.ray_cast(&ray, mask).unwrap();
        assert_eq!(
            hit_bits(first.as_slice()),
            hit_bits(&expected[..expected.len().min(1)]),
            "first hit of {ray:?} mask {mask:#x}"
        );
        // The batch: each ray's first hit, in ray order (rays made from this
        // one, so that the run draws no more than before).
        let half = Ray {
            max_length: ray.max_length * 0.5,
            ..ray
        };
        let stub = Ray {
            max_length: 0.0,
            ..ray
        };
        let rays = [ray, half, stub];
        let mut firsts = Vec::new();
        index.ray_cast_many(&rays, mask, &mut firsts).unwrap();
        assert_eq!(firsts.len(), rays.len());
        for (ray, first) in rays.iter().zip(&firsts) {
            let expected = brute_ray(&passing, ray);
            assert_eq!(
                hit_bits(first.as_slice()),
                hit_bits(&expected[..expected.len().min(1)]),
                "ray_cast_many: first hit of {ray:?} mask {mask:#x}"
            );
        }

        let mut cast = shapes.box_cast(rng).mask(mask);
        if rng.chance(30) {
            if let Some(&omit) = passing
                .keys()
                .nth(rng.below(passing.len().max(1) as u32) as usize)
            {
                cast = cast.omit(omit);
            }
        }
        let expected = brute_box_cast(&passing, &cast);
        index.box_cast_all(&cast, &mut all).unwrap();
        assert_eq!(hit_bits(&all), hit_bits(&expected), "{cast:?}");
        let first = index.box_cast(&cast).unwrap();
        assert_eq!(
            hit_bits(first.as_slice()),
            hit_bits(&expected[..expected.len().min(1)]),
            "first hit of {cast:?}"
        );
    }
}

/// The model's elements and the index's agree, ids and rectangles bit for bit.
pub fn check_elements<T: SpatialIndex>(index: &T, model: &Model<T::Bounds>, filters: &Filters) {
    assert_eq!(index.len(), model.len());
    for h in model.keys() {
        assert_eq!(
            index.filter(*h),
            Ok(filter_of(filters, h)),
            "filter of {h:?}"
        );
    }
    let elements = index.iter().collect::<Vec<_>>();
    assert_eq!(elements.len(), model.len());
    for (h, r, id) in elements {
        let (mr, mid) = model[&h];
        assert_eq!(bits(&r), bits(&mr));
        assert_eq!(id, mid);
    }
}

/// One random run of `steps` operations on `index`, with the structure's
/// `shapes` and its own check of `traverse`.
pub fn run<T>(
    index: T,
    seed: u64,
    steps: usize,
    shapes: impl FnOnce(&T, &mut Lcg) -> Shapes<T::Bounds>,
    check_traverse: impl Fn(&T),
) where
    T: SpatialIndex + Clone + Sync + core::fmt::Debug,
{
    run_with(
        index,
        &mut Lcg(seed),
        steps,
        &Checks::EVERY,
        shapes,
        check_traverse,
    );
}

/// How much a run checks, and how many elements it keeps live.
#[derive(Clone, Copy, Debug)]
pub struct Checks {
    /// At most about this many elements live: inserts turn into removes at
    /// the cap, so brute force stays cheap in long runs.
    pub cap: usize,
    /// `validate` after every this many operations.
    pub validate_every: usize,
    /// Elements and every query kind against the model after every this many.
    pub compare_every: usize,
    /// Snapshots round-tripped and damaged, `traverse` checked, every this many.
    pub snapshot_every: usize,
    /// The parallel calls against the serial ones on 1, 2 and 8 threads
    /// ([`check_threads`], feature `rayon`) every this many; 0 for never. It
    /// draws from its own source, so a run replays the same operations
    /// whether it is on or not.
    pub threads_every: usize,
}

impl Checks {
    /// The tests' and fuzz targets' checks: `validate` after every operation,
    /// queries every 8, snapshots every 64; no cap.
    pub const EVERY: Checks = Checks {
        cap: usize::MAX,
        validate_every: 1,
        compare_every: 8,
        snapshot_every: 64,
        threads_every: 0,
    };

    /// The thread-equivalence tests' checks: the parallel calls every 4
    /// operations, the rest sparser, at most 400 elements (short runs keep
    /// many seeds cheap).
    pub const THREADS: Checks = Checks {
        cap: 400,
        validate_every: 16,
        compare_every: 16,
        snapshot_every: 1 << 20,
        threads_every: 4,
    };
}

/// [`run`] with its choices from `rng`, stopping early when `rng` is used up,
/// and the `checks` asked for. Returns the operations done.
pub fn run_with<T, R: Draw>(
    index: T,
    rng: &mut R,
    steps: usize,
    checks: &Checks,
    shapes: impl FnOnce(&T, &mut R) -> Shapes<T::Bounds>,
    check_traverse: impl Fn(&T),
) -> usize
where
    T: SpatialIndex + Clone + Sync + core::fmt::Debug,
{
    let mut index = index;
    let shapes = shapes(&index, rng);
    // Fat bounds from the start in about a third of the runs, set (changed,
    // cleared) in the middle of others below: every answer must stay exact.
    if rng.chance(35) {
        set_margin(&mut index, &shapes, rng);
    }
    let mut model = Model::<T::Bounds>::new();
    let mut filters = Filters::new();
    let mut next_id = 0u32;
    let mut handles = Vec::new();
    let mut tracker = PairTracker::new();
    let mut tracked = Vec::new();
    fn pick<B>(model: &Model<B>, rng: &mut impl Draw) -> Option<Handle> {
        if model.is_empty() {
            None
        } else {
            model
                .keys()
                .nth(rng.below(model.len() as u32) as usize)
                .copied()
        }
    }
    for step in 0..steps {
        if rng.exhausted() {
            // The input is used up: the state it left is checked in full.
            index.validate().unwrap();
            check_elements(&index, &model, &filters);
            check_queries(&index, &model, &filters, &shapes, rng);
            return step;
        }
        let mut choice = rng.below(100);
        if model.len() >= checks.cap && choice <= 33 {
            choice = 34;
        }
        match choice {
            0..=29 => {
                let r = shapes.rect(rng);
                let h = index.insert(r, next_id).unwrap();
                model.insert(h, (r, next_id));
                next_id += 1;
            }
            30..=33 => {
                let n = if rng.chance(20) {
                    300
                } else {
                    rng.below(20) as usize
                }
                .min(checks.cap - model.len());
                let rects: Vec<T::Bounds> = (0..n).map(|_| shapes.rect(rng)).collect();
                let ids: Vec<u32> = (0..n as u32).map(|i| next_id + i).collect();
                handles.clear();
                index.insert_many(&rects, &ids, &mut handles).unwrap();
                for (i, &h) in handles.iter().enumerate() {
                    model.insert(h, (rects[i], ids[i]));
                }
                next_id += n as u32;
            }
            34..=43 => {
                if let Some(h) = pick(&model, rng) {
                    index.remove(h).unwrap();
                    model.remove(&h);
                    filters.remove(&h);
                }
            }
            44..=46 => {
                let share = if rng.chance(30) { 80 } else { 15 };
                let mut chosen: Vec<Handle> = model
                    .keys()
                    .copied()
                    .filter(|_| rng.chance(share))
                    .collect();
                if !chosen.is_empty() && rng.chance(30) {
                    // A duplicate: refused, nothing removed.
                    chosen.push(chosen[0]);
                    let before = index.to_bytes();
                    assert!(matches!(
                        index.remove_many(&chosen).unwrap_err().root(),
                        Error::DuplicateHandle(_)
                    ));
                    assert_eq!(index.to_bytes(), before);
                    chosen.pop();
                }
                index.remove_many(&chosen).unwrap();
                for h in &chosen {
                    model.remove(h);
                    filters.remove(h);
                }
            }
            47..=76 => {
                if let Some(h) = pick(&model, rng) {
                    let r = shapes.moved(rng, &model[&h].0);
                    index.update(h, r).unwrap();
                    model.get_mut(&h).unwrap().0 = r;
                }
            }
            77..=84 => {
                let chosen: Vec<Handle> =
                    model.keys().copied().filter(|_| rng.chance(50)).collect();
                let rects: Vec<T::Bounds> = chosen
                    .iter()
                    .map(|h| shapes.moved(rng, &model[h].0))
                    .collect();
                index.update_many(&chosen, &rects).unwrap();
                for (h, r) in chosen.iter().zip(&rects) {
                    model.get_mut(h).unwrap().0 = *r;
                }
            }
            85..=90 => index.cleanup(),
            91..=92 => {
                if let Some(h) = pick(&model, rng) {
                    let filter = draw_filter(rng);
                    index.set_filter(h, filter).unwrap();
                    assert_eq!(index.filter(h), Ok(filter));
                    filters.insert(h, filter);
                }
            }
            93..=94 => {
                let chosen: Vec<Handle> =
                    model.keys().copied().filter(|_| rng.chance(40)).collect();
                let drawn: Vec<Filter> = chosen.iter().map(|_| draw_filter(rng)).collect();
                index.set_filter_many(&chosen, &drawn).unwrap();
                filters.extend(chosen.into_iter().zip(drawn));
            }
            95 => {
                if rng.chance(20) {
                    index.clear();
                    model.clear();
                    filters.clear();
                } else if rng.chance(50) {
                    set_margin(&mut index, &shapes, rng);
                }
            }
            _ => check_refusals(&mut index, &model, rng),
        }
        if step % checks.validate_every == 0 || step + 1 == steps {
            if let Err(reason) = index.validate() {
                panic!("step {step}: {reason}\n{index:?}");
            }
        }
        // The tracker sees single changes and whole batches between updates.
        if step % 3 == 0 || step + 1 == steps {
            let parallel = step % 2 == 0;
            check_tracker(
                &mut tracker,
                &index,
                &mut tracked,
                &model,
                &filters,
                parallel,
            );
        }
        if step % checks.compare_every == 0 || step + 1 == steps {
            check_elements(&index, &model, &filters);
            check_queries(&index, &model, &filters, &shapes, rng);
        }
        if step % checks.snapshot_every == 0 {
            check_snapshot(&index);
            check_traverse(&index);
        }
        #[cfg(feature = "rayon")]
        if checks.threads_every != 0 && (step % checks.threads_every == 0 || step + 1 == steps) {
            check_threads(&index, &model, &shapes, &mut Lcg(step as u64));
        }
    }
    steps
}

/// Pools of 1, 2 and 8 threads, built once for the whole process.
#[cfg(feature = "rayon")]
fn thread_pools() -> &'static [rayon::ThreadPool] {
    static POOLS: std::sync::OnceLock<Vec<rayon::ThreadPool>> = std::sync::OnceLock::new();
    POOLS.get_or_init(|| {
        [1, 2, 8]
            .map(|threads| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .expect("a thread pool")
            })
            .into()
    })
}

/// Threads never change a result. On pools of 1, 2 and 8 threads (called
/// from inside each), and on rayon's global pool called from outside it, each
/// parallel call gives exactly what its serial call gives: `par_pairs` the
/// pairs of `pairs` in the same order; `par_query_many` (rectangles, points,
/// circles, element queries, masks, left-out elements), `par_overlapping_many`
/// and `par_nearest_many` the same rows; `par_update_many` leaves a copy
/// byte for byte as `update_many` leaves another, and refuses a bad batch at
/// the same item, changing nothing. A parallel call takes the threads only
/// from a size measured to pay: a test that wants those paths on small
/// structures lowers it first (`flatquad::parallel_from_for_tests`).
#[cfg(feature = "rayon")]
pub fn check_threads<T: SpatialIndex + Clone + Sync>(
    index: &T,
    model: &Model<T::Bounds>,
    shapes: &Shapes<T::Bounds>,
    rng: &mut impl Draw,
) {
    let live: Vec<Handle> = model.keys().copied().collect();
    let some_handle = |rng: &mut dyn FnMut(u32) -> u32| live[rng(live.len() as u32) as usize];
    let mut queries = Vec::new();
    for _ in 0..24 {
        let mut query = match rng.below(4) {
            0 => Query::rect(shapes.rect(rng)),
            1 => Query::point(shapes.point(rng)),
            2 => Query::circle(shapes.point(rng), shapes.distance(rng)),
            _ if live.is_empty() => Query::rect(shapes.rect(rng)),
            _ => Query::element(some_handle(&mut |n| rng.below(n))),
        };
        if rng.chance(30) {
            query = query.mask(draw_mask(rng));
        }
        if rng.chance(30) && !live.is_empty() {
            query = query.omit(some_handle(&mut |n| rng.below(n)));
        }
        queries.push(query);
    }
    // Some handles twice, as a batch may give them.
    let asked: Vec<Handle> = (0..live.len().min(40))
        .map(|_| some_handle(&mut |n| rng.below(n)))
        .collect();
    let points: Vec<_> = (0..16).map(|_| shapes.point(rng)).collect();
    let k = [1, 3, 50][rng.below(3) as usize];
    let max_distance = rng.chance(50).then(|| shapes.distance(rng));
    let mask = if rng.chance(30) {
        draw_mask(rng)
    } else {
        Filter::ALL
    };
    let moved: Vec<T::Bounds> = asked
        .iter()
        .map(|h| shapes.moved(rng, &model[h].0))
        .collect();
    let rays: Vec<_> = (0..16).map(|_| shapes.ray(rng)).collect();
    let mut bad_rays = rays.clone();
    bad_rays[11].max_length = f64::NAN;
    let first_hits = |hits: &[Option<RayHit>]| -> Vec<Vec<(Handle, u32, u64, u64)>> {
        hits.iter().map(|hit| hit_bits(hit.as_slice())).collect()
    };

    let mut pairs = Vec::new();
    index.pairs(&mut pairs);
    let (mut offsets, mut hits) = (Vec::new(), Vec::new());
    index.query_many(&queries, &mut offsets, &mut hits).unwrap();
    let (mut near_offsets, mut near) = (Vec::new(), Vec::new());
    index
        .overlapping_many(&asked, &mut near_offsets, &mut near)
        .unwrap();
    let (mut nearest_offsets, mut nearest) = (Vec::new(), Vec::new());
    index
        .nearest_many(
            &points,
            k,
            max_distance,
            mask,
            &mut nearest_offsets,
            &mut nearest,
        )
        .unwrap();
    let mut ray_hits = Vec::new();
    index.ray_cast_many(&rays, mask, &mut ray_hits).unwrap();
    let mut serial = index.clone();
    serial.update_many(&asked, &moved).unwrap();
    let serial_bytes = serial.to_bytes();
    let index_bytes = index.to_bytes();
    let mut bad = moved.clone();
    if let Some(last) = bad.last_mut() {
        *last = T::Bounds::from_corners([f32::NAN; 3], [1.0; 3]);
    }

    // Each pool's calls from inside it, then the global pool's from outside
    // it, as the bindings call (a batch call then runs whole on the pool).
    let pools = thread_pools().iter().map(Some).chain([None]);
    for pool in pools {
        let threads = pool.map_or(rayon::current_num_threads(), |p| p.current_num_threads());
        let check = || {
            let mut got = Vec::new();
            index.par_pairs(&mut got);
            assert!(got == pairs, "{threads} threads: par_pairs");
            // The visitor: the same order, and a break stops it there.
            got.clear();
            let _ = index.par_pairs_with(|a, b| {
                got.push((a, b));
                ControlFlow::Continue(())
            });
            assert!(got == pairs, "{threads} threads: par_pairs_with");
            got.clear();
            let stopped = index.par_pairs_with(|a, b| {
                got.push((a, b));
                if got.len() == 3 {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            });
            assert_eq!(stopped.is_break(), pairs.len() >= 3);
            assert!(
                got[..] == pairs[..pairs.len().min(3)],
                "{threads} threads: a break"
            );
            let (mut o, mut h) = (Vec::new(), Vec::new());
            index.par_query_many(&queries, &mut o, &mut h).unwrap();
            assert_eq!(
                (&o, &h),
                (&offsets, &hits),
                "{threads} threads: par_query_many"
            );
            index.par_overlapping_many(&asked, &mut o, &mut h).unwrap();
            assert_eq!(
                (&o, &h),
                (&near_offsets, &near),
                "{threads} threads: par_overlapping_many"
            );
            let mut found = Vec::new();
            index
                .par_nearest_many(&points, k, max_distance, mask, &mut o, &mut found)
                .unwrap();
            assert_eq!(o, nearest_offsets, "{threads} threads: par_nearest_many");
            assert_eq!(
                neighbor_bits(&found),
                neighbor_bits(&nearest),
                "{threads} threads: par_nearest_many"
            );
            let mut hits = Vec::new();
            index.par_ray_cast_many(&rays, mask, &mut hits).unwrap();
            assert_eq!(
                first_hits(&hits),
                first_hits(&ray_hits),
                "{threads} threads: par_ray_cast_many"
            );
            let e = index
                .par_ray_cast_many(&bad_rays, mask, &mut hits)
                .unwrap_err();
            assert!(
                matches!(e, Error::InBatch { index: 11, .. }),
                "{threads} threads: {e:?}"
            );
            assert_eq!(first_hits(&hits), first_hits(&ray_hits), "written on error");
            let mut parallel = index.clone();
            parallel.par_update_many(&asked, &moved).unwrap();
            assert!(
                parallel.to_bytes() == serial_bytes,
                "{threads} threads: par_update_many"
            );
            if !asked.is_empty() {
                let mut refused = index.clone();
                let e = refused.par_update_many(&asked, &bad).unwrap_err();
                assert!(
                    matches!(e, Error::InBatch { index, .. } if index == asked.len() - 1),
                    "{threads} threads: {e:?}"
                );
                assert!(
                    refused.to_bytes() == index_bytes,
                    "{threads} threads: refused, yet moved"
                );
            }
        };
        match pool {
            Some(pool) => pool.install(check),
            None => check(),
        }
    }
}

/// Sets a margin drawn by [`Shapes::margin`]; the elements keep their boxes.
fn set_margin<T: SpatialIndex>(index: &mut T, shapes: &Shapes<T::Bounds>, rng: &mut impl Draw) {
    let margin = shapes.margin(rng);
    let before: Vec<_> = index.iter().collect();
    index.set_margin(margin).unwrap();
    assert_eq!(index.margin(), margin);
    assert_eq!(index.iter().collect::<Vec<_>>(), before);
}

/// Every node `traverse` shows, in its order, each checked to come through
/// the right callback; the walk must not stop early.
pub fn traverse_all<T: SpatialIndex>(index: &T) -> Vec<NodeInfo<T::Bounds>> {
    let infos = core::cell::RefCell::new(Vec::new());
    let flow = index.traverse(
        |info| {
            assert!(!info.is_leaf);
            infos.borrow_mut().push(*info);
            core::ops::ControlFlow::Continue(())
        },
        |info| {
            assert!(info.is_leaf);
            infos.borrow_mut().push(*info);
            core::ops::ControlFlow::Continue(())
        },
    );
    assert_eq!(flow, core::ops::ControlFlow::Continue(()));
    infos.into_inner()
}

/// Bad arguments are refused and change nothing.
pub fn check_refusals<T: SpatialIndex + Clone>(
    index: &mut T,
    model: &Model<T::Bounds>,
    rng: &mut impl Draw,
) {
    let before = index.to_bytes();
    let make = T::Bounds::from_corners;
    let origin = make([0.0; 3], [0.0; 3]);
    let one = make([1.0; 3], [1.0; 3]);
    let nan = make([f32::NAN, 0.0, 0.0], [1.0; 3]);
    assert!(index.insert(nan, 0).is_err());
    // Inverted on the last axis, then on the first.
    let mut inverted_lo = [0.0; 3];
    inverted_lo[T::Bounds::AXES - 1] = 2.0;
    assert!(index.insert(make(inverted_lo, [1.0; 3]), 0).is_err());
    assert!(index
        .insert(make([1.0, 0.0, 0.0], [0.0, 1.0, 1.0]), 0)
        .is_err());
    assert!(index
        .insert(make([0.0; 3], [1.0, f32::INFINITY, 1.0]), 0)
        .is_err());
    let mut hits = Vec::new();
    assert!(index.query(&Query::rect(nan), &mut hits).is_err());
    assert!(index
        .query(&Query::point(nan.low_corner()), &mut hits)
        .is_err());
    // A batch with one bad item inserts nothing.
    let mut handles = Vec::new();
    assert!(index
        .insert_many(&[origin, nan], &[1, 2], &mut handles)
        .is_err());
    if let Some(&h) = model
        .keys()
        .nth(rng.below(model.len().max(1) as u32) as usize)
    {
        assert!(index.update(h, nan).is_err());
        assert!(index.update_many(&[h, h], &[one, nan]).is_err());
        // A stale handle: the same slot, another generation.
        let stale = Handle::from_raw(h.to_raw() + (1 << 32));
        assert!(matches!(index.remove(stale), Err(Error::InvalidHandle(_))));
        assert!(index.update(stale, origin).is_err());
        assert!(index.remove_many(&[h, stale]).is_err());
        assert!(index
            .query(&Query::rect(origin).omit(stale), &mut hits)
            .is_err());
        assert!(index.query(&Query::element(stale), &mut hits).is_err());
        let filter = Filter::new(1, 2);
        assert!(index.set_filter(stale, filter).is_err());
        assert!(index.set_filter_many(&[h, stale], &[filter; 2]).is_err());
        assert!(index.set_filter_many(&[h], &[filter; 2]).is_err());
    }
    assert!(index.remove(Handle::from_raw(0)).is_err());
    // Searches: a bad point, distance or ray is refused.
    let mut neighbors = Vec::new();
    let point = origin.low_corner();
    assert!(index
        .nearest(nan.low_corner(), 1, None, Filter::ALL, &mut neighbors)
        .is_err());
    assert!(index
        .nearest(point, 1, Some(-1.0), Filter::ALL, &mut neighbors)
        .is_err());
    assert!(index
        .query(&Query::circle(point, f64::NAN), &mut hits)
        .is_err());
    let zero = Ray {
        origin: point,
        direction: point,
        max_length: 1.0,
    };
    assert!(index.ray_cast(&zero, Filter::ALL).is_err());
    let endless = Ray {
        direction: one.low_corner(),
        max_length: f64::INFINITY,
        ..zero
    };
    assert!(index.ray_cast(&endless, Filter::ALL).is_err());
    for margin in [f32::NAN, -1.0, -0.0 - f32::MIN_POSITIVE, f32::INFINITY] {
        assert!(matches!(
            index.set_margin(margin),
            Err(Error::InvalidParameter { name: "margin", .. })
        ));
    }
    assert_eq!(
        index.to_bytes(),
        before,
        "a refused call changed the structure"
    );
    // A double remove: the second is refused.
    if let Some(&h) = model.keys().next() {
        let mut copy = index.clone();
        copy.remove(h).unwrap();
        let after = copy.to_bytes();
        assert!(copy.remove(h).is_err());
        assert_eq!(copy.to_bytes(), after);
    }
}

/// A snapshot gives back the same index; truncated or damaged ones are refused
/// (or, if a damaged one happens to be consistent, give a valid index).
pub fn check_snapshot<T: SpatialIndex>(index: &T) {
    let bytes = index.to_bytes();
    let copy = T::from_bytes(&bytes).unwrap();
    assert_eq!(copy.to_bytes(), bytes);
    assert_eq!(
        copy.iter().collect::<Vec<_>>(),
        index.iter().collect::<Vec<_>>()
    );
    for cut in [
        0,
        4,
        12,
        bytes.len() / 3,
        bytes.len() / 2,
        bytes.len() - 4,
        bytes.len() - 1,
    ] {
        assert!(T::from_bytes(&bytes[..cut]).is_err(), "cut at {cut}");
    }
    let mut extra = bytes.clone();
    extra.push(0);
    assert!(T::from_bytes(&extra).is_err());
    let mut rng = Lcg(bytes.len() as u64);
    for _ in 0..40 {
        let mut damaged = bytes.clone();
        let at = 12 + 4 * rng.below(((damaged.len() - 12) / 4) as u32) as usize;
        let at = at.min(damaged.len() - 4);
        let word = match rng.below(4) {
            0 => u32::MAX,
            1 => rng.next(),
            2 => u32::from_le_bytes(damaged[at..at + 4].try_into().unwrap()) ^ 1,
            _ => 0,
        };
        damaged[at..at + 4].copy_from_slice(&word.to_le_bytes());
        if let Ok(back) = T::from_bytes(&damaged) {
            check_loaded(&back);
        }
    }
}

/// What a snapshot reader accepted, however damaged the bytes: it validates,
/// and every handle [`iter`](SpatialIndex::iter) lists is one the index
/// accepts, naming that element.
pub fn check_loaded<T: SpatialIndex>(index: &T) {
    index.validate().expect("an accepted snapshot validates");
    for (h, rect, id) in index.iter() {
        assert_eq!(index.rect(h), Ok(rect), "{h:?} listed but not accepted");
        assert_eq!(index.id(h), Ok(id), "{h:?}");
    }
}

/// The snapshot reader on arbitrary bytes (the `snapshot` fuzz target): the
/// first byte picks the structure, the rest are its snapshot. Whatever is
/// accepted passes [`check_loaded`], writes back the same bytes, and takes
/// further operations: an insert, a query, a remove of a listed handle, a
/// cleanup.
pub fn fuzz_snapshot(data: &[u8]) {
    fn check<T: SpatialIndex>(bytes: &[u8], probe: T::Bounds) {
        let Ok(mut index) = T::from_bytes(bytes) else {
            return;
        };
        check_loaded(&index);
        assert_eq!(
            index.to_bytes(),
            bytes,
            "an accepted snapshot writes back the same"
        );
        let (mut hits, mut pairs) = (Vec::new(), Vec::new());
        index.pairs(&mut pairs);
        if let Ok(h) = index.insert(probe, 7) {
            index.query(&Query::rect(probe), &mut hits).unwrap();
            assert!(hits.contains(&h));
            index.query(&Query::element(h), &mut hits).unwrap();
            let first = index.iter().next().map(|(h, ..)| h);
            if let Some(first) = first {
                index.remove(first).unwrap();
            }
        }
        index.cleanup();
        index.validate().expect("still valid after operations");
    }
    let Some((&which, bytes)) = data.split_first() else {
        return;
    };
    let probe = Rect::new(0.0, 0.0, 1.0, 1.0);
    match which % 6 {
        0 => check::<Quadtree>(bytes, probe),
        1 => check::<Grid>(bytes, probe),
        2 => check::<LooseGrid>(bytes, probe),
        3 => check::<LooseQuadtree>(bytes, probe),
        4 => check::<AnyIndex>(bytes, probe),
        _ => check::<Octree>(bytes, Box3::new(0.0, 0.0, 0.0, 1.0, 1.0, 1.0)),
    }
}

// ---------------------------------------------------------------------------
// Every structure, built and run from draws: the soak and the fuzz targets.

/// A structure (and configuration) [`Subject::run`] can build and check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subject {
    /// [`Quadtree`].
    Quadtree,
    /// [`Grid`].
    Grid,
    /// [`LooseGrid`].
    LooseGrid,
    /// [`LooseQuadtree::new`].
    LooseQuadtree,
    /// [`LooseQuadtree::with_max_extent`].
    BoundedLooseQuadtree,
    /// [`Octree`] (3D).
    Octree,
}

/// Awkward 2D worlds: unit, large, huge, thin, subnormal-ish, past 2^24.
pub const WORLDS: [Rect; 6] = [
    Rect::new(0.0, 0.0, 1.0, 1.0),
    Rect::new(0.0, 0.0, 4096.0, 4096.0),
    Rect::new(-1e6, -1e6, 1e6, 1e6),
    Rect::new(-3.0, 10.0, 5.0, 10.5),
    Rect::new(1e-30, 1e-30, 3e-29, 7e-30),
    Rect::new(16_777_216.0, 16_777_216.0, 16_777_220.0, 16_777_230.0),
];

/// The same kinds of world in 3D.
pub const WORLDS_3D: [Box3; 5] = [
    Box3::new(0.0, 0.0, 0.0, 1.0, 1.0, 1.0),
    Box3::new(0.0, 0.0, 0.0, 1024.0, 1024.0, 1024.0),
    Box3::new(-1e6, -1e6, -1e6, 1e6, 1e6, 1e6),
    Box3::new(-3.0, 10.0, 0.25, 5.0, 10.5, 0.5),
    Box3::new(1e-30, 1e-30, 1e-30, 3e-29, 7e-30, 2e-29),
];

fn pick_of<T: Copy>(rng: &mut impl Draw, items: &[T]) -> T {
    items[rng.below(items.len() as u32) as usize]
}

impl Subject {
    /// Every subject, each structure once and the bounded loose quadtree.
    pub const ALL: [Subject; 6] = [
        Subject::Quadtree,
        Subject::Grid,
        Subject::LooseGrid,
        Subject::LooseQuadtree,
        Subject::BoundedLooseQuadtree,
        Subject::Octree,
    ];

    /// The differential fuzz target of this subject (`fuzz/fuzz_targets/`),
    /// also the prefix of its inputs in `fuzz/corpus/` and `fuzz/regressions/`.
    pub fn fuzz_target(self) -> &'static str {
        match self {
            Subject::Quadtree => "ops_quadtree",
            Subject::Grid => "ops_grid",
            Subject::LooseGrid => "ops_loose_grid",
            Subject::LooseQuadtree => "ops_loose_quadtree",
            Subject::BoundedLooseQuadtree => "ops_loose_quadtree_max_extent",
            Subject::Octree => "ops_octree",
        }
    }

    /// The differential fuzz targets' run: the fuzzer's bytes as every
    /// choice, each result against the model and `validate` after each
    /// operation, up to a population that keeps brute force (quadratic for
    /// pairs) fast per input.
    pub fn fuzz(self, data: &[u8]) {
        let checks = Checks {
            cap: 256,
            ..Checks::EVERY
        };
        self.run(&mut Bytes::new(data), usize::MAX, &checks);
    }

    /// Builds this structure in a world and with parameters drawn from `rng`,
    /// then runs [`run_with`] on it: up to `steps` operations with `checks`. Returns the operations done (0 if the drawn parameters are
    /// refused, which the lists below avoid).
    pub fn run(self, rng: &mut impl Draw, steps: usize, checks: &Checks) -> usize {
        let world = pick_of(rng, &WORLDS);
        match self {
            Subject::Quadtree => {
                let (max_elements, max_depth) =
                    pick_of(rng, &[(1, 0), (1, 3), (2, 5), (3, 12), (8, 8), (1, 30)]);
                match Quadtree::new(world, max_elements, max_depth) {
                    Ok(tree) => {
                        run_with(tree, rng, steps, checks, tree_shapes, check_tree_traverse)
                    }
                    Err(_) => 0,
                }
            }
            Subject::Grid => {
                let (columns, rows) = pick_of(rng, &[(1, 1), (7, 5), (16, 16), (32, 8), (3, 40)]);
                match Grid::new(world, columns, rows) {
                    Ok(grid) => run_with(grid, rng, steps, checks, grid_shapes, check_any_traverse),
                    Err(_) => 0,
                }
            }
            Subject::LooseGrid => {
                let (columns, rows, tight_columns, tight_rows) = pick_of(
                    rng,
                    &[
                        (1, 1, 1, 1),
                        (7, 5, 7, 5),
                        (16, 16, 8, 8),
                        (13, 9, 4, 3),
                        (32, 8, 1, 2),
                    ],
                );
                match LooseGrid::new(world, columns, rows, tight_columns, tight_rows) {
                    Ok(grid) => run_with(
                        grid,
                        rng,
                        steps,
                        checks,
                        loose_grid_shapes,
                        check_loose_grid_traverse,
                    ),
                    Err(_) => 0,
                }
            }
            Subject::LooseQuadtree | Subject::BoundedLooseQuadtree => {
                let (max_elements, max_depth) =
                    pick_of(rng, &[(1, 0), (1, 3), (2, 5), (3, 12), (1, 30)]);
                let tree = if self == Subject::LooseQuadtree {
                    LooseQuadtree::new(world, max_elements, max_depth)
                } else {
                    let fraction = pick_of(rng, &[0.5, 0.1, 0.02, 0.3]);
                    let side = world.width().min(world.height());
                    LooseQuadtree::with_max_extent(world, max_elements, max_depth, side * fraction)
                };
                match tree {
                    Ok(tree) => run_with(
                        tree,
                        rng,
                        steps,
                        checks,
                        loose_quadtree_shapes,
                        check_loose_quadtree_traverse,
                    ),
                    Err(_) => 0,
                }
            }
            Subject::Octree => {
                let world = pick_of(rng, &WORLDS_3D);
                let (max_elements, max_depth) = pick_of(rng, &[(1, 3), (4, 5), (8, 12), (2, 20)]);
                match Octree::new(world, max_elements, max_depth) {
                    Ok(tree) => {
                        run_with(tree, rng, steps, checks, tree_shapes, check_tree_traverse)
                    }
                    Err(_) => 0,
                }
            }
        }
    }
}

/// Shapes on the split lines (planes) of a quadtree's or octree's first
/// levels, up to a few cells wide.
pub fn tree_shapes<D: Dimension>(tree: &FlatTree<D>, rng: &mut impl Draw) -> Shapes<D::Bounds>
where
    FlatTree<D>: SpatialIndex<Bounds = D::Bounds>,
{
    let world = tree.world();
    let levels = 1u32 << tree.max_depth().min(5);
    let counts = [2, 4, levels];
    let cell: Vec<f32> = (0..D::Bounds::AXES)
        .map(|axis| size(&world, axis) / levels as f32)
        .collect();
    let per_axis: Vec<&[u32]> = (0..D::Bounds::AXES).map(|_| &counts[..]).collect();
    Shapes::for_axes(world, &per_axis, &cell, 2.0, rng)
}

/// Shapes on a uniform grid's cell borders, some a few cells wide.
pub fn grid_shapes(grid: &Grid, rng: &mut impl Draw) -> Shapes {
    let world = grid.world();
    let cell = (
        world.width() / grid.columns() as f32,
        world.height() / grid.rows() as f32,
    );
    Shapes::new(world, &[grid.columns()], &[grid.rows()], cell, 2.0, rng)
}

/// Shapes on the loose and tight borders, some near the big threshold.
pub fn loose_grid_shapes(grid: &LooseGrid, rng: &mut impl Draw) -> Shapes {
    Shapes::new(
        grid.world(),
        &[grid.columns(), grid.tight_columns()],
        &[grid.rows(), grid.tight_rows()],
        grid.cell_size(),
        LooseGrid::BIG_CELLS as f32,
        rng,
    )
}

/// Shapes on the split lines of the first levels, a few cells wide or more.
pub fn loose_quadtree_shapes(tree: &LooseQuadtree, rng: &mut impl Draw) -> Shapes {
    let world = tree.world();
    let levels = 1u32 << tree.max_depth().min(6);
    let counts = [2, 4, levels];
    let cell = (
        world.width() / levels as f32,
        world.height() / levels as f32,
    );
    Shapes::new(world, &counts, &counts, cell, 8.0, rng)
}

/// What holds for every structure's `traverse`: one callback per node, valid
/// boxes, and `stats` counting the same nodes, leaves and elements.
pub fn check_any_traverse<T: SpatialIndex>(index: &T) {
    let infos = traverse_all(index);
    let stats = index.stats();
    assert_eq!(stats.elements, index.len());
    assert_eq!(stats.nodes, infos.len());
    assert_eq!(stats.leaves, infos.iter().filter(|n| n.is_leaf).count());
    assert!(infos.iter().all(|n| n.rect.is_valid()));
    assert!(stats.bytes > 0);
}

/// A quadtree's or octree's `traverse`: pre-order from the world, 2^AXES
/// children a branch, leaves counting the element links `stats` reports.
pub fn check_tree_traverse<D: Dimension>(tree: &FlatTree<D>)
where
    FlatTree<D>: SpatialIndex<Bounds = D::Bounds>,
{
    check_any_traverse(tree);
    let infos = traverse_all(tree);
    assert_eq!(
        (infos[0].index, infos[0].depth, bits(&infos[0].rect)),
        (0, 0, bits(&tree.world()))
    );
    let branches = infos.iter().filter(|n| !n.is_leaf).count();
    assert_eq!(infos.len(), 1 + (1 << D::Bounds::AXES) * branches);
    assert!(infos.iter().all(|n| n.depth <= tree.max_depth()));
    let links: u32 = infos.iter().filter(|n| n.is_leaf).map(|l| l.count).sum();
    assert_eq!(tree.stats().element_links, links as usize);
    assert!(tree.stats().element_links >= tree.len());
}

/// A loose grid's `traverse` shows every loose cell once as a leaf of depth 0
/// with its count.
pub fn check_loose_grid_traverse(grid: &LooseGrid) {
    let mut leaves: Vec<NodeInfo> = Vec::new();
    let flow = grid.traverse(
        |_| panic!("a loose grid has no branches"),
        |info| {
            leaves.push(*info);
            core::ops::ControlFlow::Continue(())
        },
    );
    assert_eq!(flow, core::ops::ControlFlow::Continue(()));
    assert_eq!(leaves.len(), (grid.columns() * grid.rows()) as usize);
    let total: u32 = leaves.iter().map(|l| l.count).sum();
    assert_eq!(total as usize, grid.len() - grid.big_len());
    for (i, leaf) in leaves.iter().enumerate() {
        assert_eq!((leaf.index, leaf.depth, leaf.is_leaf), (i as u32, 0, true));
        assert!(leaf.rect.is_valid());
    }
    let stats = grid.stats();
    assert_eq!(stats.elements, grid.len());
    assert_eq!(stats.nodes, leaves.len());
    assert_eq!(stats.leaves, leaves.len());
    assert_eq!(
        stats.empty_leaves,
        leaves.iter().filter(|l| l.count == 0).count()
    );
    assert!(stats.element_links >= total as usize);
    assert!(stats.bytes > 0);
}

/// A loose quadtree's `traverse` shows the tree in pre-order, each leaf with
/// its count, and `stats` agrees.
pub fn check_loose_quadtree_traverse(tree: &LooseQuadtree) {
    let infos = traverse_all(tree);
    assert_eq!((infos[0].index, infos[0].depth), (0, 0));
    let leaves: Vec<&NodeInfo> = infos.iter().filter(|n| n.is_leaf).collect();
    let total: u32 = leaves.iter().map(|l| l.count).sum();
    // Elements over a `max_extent` are kept apart, in no leaf of the tree.
    assert_eq!(total as usize + tree.over_bound_len(), tree.len());
    for info in &infos {
        assert!(info.rect.is_valid(), "{info:?}");
        assert!(info.depth <= tree.max_depth());
    }
    let stats = tree.stats();
    assert_eq!(stats.elements, tree.len());
    assert_eq!(stats.nodes, infos.len());
    assert_eq!(stats.leaves, leaves.len());
    assert_eq!(
        stats.empty_leaves,
        leaves.iter().filter(|l| l.count == 0).count()
    );
    assert_eq!(stats.element_links + tree.over_bound_len(), tree.len());
    assert!(stats.bytes > 0);
}

// ---------------------------------------------------------------------------
// Churn: a steady population under many mixed operations, memory sampled.

/// A box in `world` of up to `side` a side (a point now and then).
fn churn_box<B: Bounds>(world: &B, side: f32, rng: &mut impl Draw) -> B {
    let (mut lo, mut hi) = ([0.0; 3], [0.0; 3]);
    for axis in 0..B::AXES {
        let extent = if rng.chance(5) {
            0.0
        } else {
            rng.unit() * side
        };
        lo[axis] = world.lo(axis) + rng.unit() * (size(world, axis) - extent);
        hi[axis] = lo[axis] + extent;
    }
    B::from_corners(lo, hi)
}

/// `ops` mixed operations on `index` around a steady `population` (inserts,
/// removes, moves, queries, a `cleanup` every 1024 as a frame would), the
/// population first filled in; `sample(done, index)` every `ops / samples`.
pub fn churn<T: SpatialIndex>(
    index: &mut T,
    rng: &mut impl Draw,
    ops: u64,
    population: usize,
    samples: u64,
    mut sample: impl FnMut(u64, &T),
) {
    let world = index.world();
    let side = (0..T::Bounds::AXES)
        .map(|axis| size(&world, axis))
        .fold(f32::INFINITY, f32::min);
    let small = side / 256.0;
    let mut live: Vec<(Handle, T::Bounds)> = Vec::with_capacity(population * 2);
    let mut hits = Vec::new();
    for id in 0..population as u32 {
        let b = churn_box(&world, small, rng);
        live.push((index.insert(b, id).unwrap(), b));
    }
    let (low, high) = (population - population / 20, population + population / 20);
    let every = (ops / samples).max(1);
    for done in 0..ops {
        let choice = rng.below(100);
        let insert = match choice {
            0..=19 => live.len() < high,
            20..=39 => live.len() <= low,
            _ => false,
        };
        if insert {
            // One in a hundred is large: it spans many cells or nodes.
            let size = if rng.chance(1) { side / 4.0 } else { small };
            let b = churn_box(&world, size, rng);
            live.push((index.insert(b, done as u32).unwrap(), b));
        } else if choice < 40 {
            let at = rng.below(live.len() as u32) as usize;
            index.remove(live.swap_remove(at).0).unwrap();
        } else if choice < 90 {
            let at = rng.below(live.len() as u32) as usize;
            let (h, b) = live[at];
            let moved = if rng.chance(2) {
                churn_box(&world, small, rng)
            } else {
                // A small step, kept inside the world.
                let (mut lo, mut hi) = ([0.0; 3], [0.0; 3]);
                for axis in 0..T::Bounds::AXES {
                    let extent = b.hi(axis) - b.lo(axis);
                    let room = size(&world, axis) - extent;
                    let step = (rng.unit() - 0.5) * small * 0.5;
                    lo[axis] = (b.lo(axis) + step).clamp(world.lo(axis), world.lo(axis) + room);
                    hi[axis] = lo[axis] + extent;
                }
                T::Bounds::from_corners(lo, hi)
            };
            index.update(h, moved).unwrap();
            live[at].1 = moved;
        } else {
            index
                .query(&Query::rect(churn_box(&world, small * 4.0, rng)), &mut hits)
                .unwrap();
        }
        if done % 1024 == 1023 {
            index.cleanup();
        }
        if done % every == 0 || done + 1 == ops {
            sample(done + 1, index);
        }
    }
}

/// Each later value at most 5% (plus `slack`) over the value at the end of
/// warm-up (the first fifth of the samples); the first offender if not.
pub fn flat_after_warm_up(values: &[(u64, usize)], slack: usize) -> Result<(), String> {
    let warm = values[values.len() / 5].1;
    let limit = warm + warm / 20 + slack;
    match values[values.len() / 5..].iter().find(|(_, v)| *v > limit) {
        Some((done, v)) => Err(format!(
            "{v} after {done} operations, over {limit} (warm-up end {warm})"
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fuzzer's bytes decode the same way every time, and running out of
    /// them ends the run.
    #[test]
    fn bytes_decode_as_choices() {
        let mut d = Bytes::new(&[7, 1, 0, 0, 0, 9]);
        assert_eq!(d.below(5), 2);
        assert_eq!(d.next(), 1);
        assert!(!d.exhausted());
        assert_eq!(d.next(), 9);
        assert!(d.exhausted());
        assert_eq!(d.below(3), 0);
        let steps = Subject::Grid.run(&mut Bytes::new(&[0; 40]), 1000, &Checks::EVERY);
        assert!(steps > 0 && steps < 40, "{steps}");
    }
}
