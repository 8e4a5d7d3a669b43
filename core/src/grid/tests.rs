//! The grid's own tests: random operation sequences against brute force over
//! awkward worlds, refused calls that change nothing, snapshots (round trips,
//! every truncation, damaged words), construction, and the big-element rule.

use core::ops::ControlFlow;

use crate::grid::Grid;
use crate::index::{NodeInfo, Stats};
use crate::test_pairs::sorted_pairs;
use crate::{Bounds, Error, Handle, Query, Rect, SpatialIndex};

/// A small LCG (Knuth's MMIX constants), so the tests need no dependency.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 32) as u32
    }
    /// In `[0, 1)`.
    fn unit(&mut self) -> f32 {
        (self.next() >> 8) as f32 / (1u32 << 24) as f32
    }
    fn below(&mut self, n: usize) -> usize {
        ((self.next() as u64 * n as u64) >> 32) as usize
    }
    fn chance(&mut self, p: f32) -> bool {
        self.unit() < p
    }
}

/// The elements the grid should hold, as brute force sees them.
#[derive(Default)]
struct Model {
    live: Vec<(Handle, Rect)>,
    dead: Vec<Handle>,
}

impl Model {
    fn query(&self, q: &Rect, omit: Option<Handle>) -> Vec<Handle> {
        let mut hits: Vec<Handle> = self
            .live
            .iter()
            .filter(|(h, r)| Some(*h) != omit && meets(r, q))
            .map(|(h, _)| *h)
            .collect();
        hits.sort();
        hits
    }

    fn pairs(&self) -> Vec<(Handle, Handle)> {
        let mut pairs = Vec::new();
        for (i, (a, ra)) in self.live.iter().enumerate() {
            for (b, rb) in &self.live[i + 1..] {
                if meets(ra, rb) {
                    pairs.push((*a.min(b), *a.max(b)));
                }
            }
        }
        pairs.sort();
        pairs
    }

    fn set(&mut self, handle: Handle, rect: Rect) {
        let at = self.live.iter().position(|(h, _)| *h == handle).unwrap();
        self.live[at].1 = rect;
    }

    fn remove(&mut self, handle: Handle) {
        let at = self.live.iter().position(|(h, _)| *h == handle).unwrap();
        self.live.swap_remove(at);
        self.dead.push(handle);
    }
}

/// Closed intersection written out, independent of `Rect::intersects`.
fn meets(a: &Rect, b: &Rect) -> bool {
    a.x1 <= b.x2 && b.x1 <= a.x2 && a.y1 <= b.y2 && b.y1 <= a.y2
}

/// Rectangles of every awkward kind for a world of `columns × rows` cells.
struct Shapes {
    world: Rect,
    columns: u32,
    rows: u32,
    /// A few spots where elements pile up.
    stacks: [Rect; 3],
}

impl Shapes {
    fn new(world: Rect, columns: u32, rows: u32, rng: &mut Lcg) -> Shapes {
        let mut shapes = Shapes {
            world,
            columns,
            rows,
            stacks: [world; 3],
        };
        shapes.stacks = [shapes.small(rng), shapes.point(rng), shapes.on_borders(rng)];
        shapes
    }

    fn x(&self, t: f32) -> f32 {
        self.world.x1 + t * self.world.width()
    }

    fn y(&self, t: f32) -> f32 {
        self.world.y1 + t * self.world.height()
    }

    /// A coordinate from somewhat outside the world to somewhat past it.
    fn around(rng: &mut Lcg) -> f32 {
        rng.unit() * 1.4 - 0.2
    }

    fn small(&self, rng: &mut Lcg) -> Rect {
        let (x, y) = (self.x(Self::around(rng)), self.y(Self::around(rng)));
        // Sizes from nothing to a few cells, mostly under a cell.
        let w = rng.unit().powi(3) * 3.0 * self.world.width() / self.columns as f32;
        let h = rng.unit().powi(3) * 3.0 * self.world.height() / self.rows as f32;
        Rect::new(x, y, x + w, y + h)
    }

    fn point(&self, rng: &mut Lcg) -> Rect {
        Rect::point(self.x(Self::around(rng)), self.y(Self::around(rng)))
    }

    fn segment(&self, rng: &mut Lcg) -> Rect {
        let r = self.small(rng);
        if rng.chance(0.5) {
            Rect::new(r.x1, r.y1, r.x2 + self.world.width() * rng.unit(), r.y1)
        } else {
            Rect::new(r.x1, r.y1, r.x1, r.y2 + self.world.height() * rng.unit())
        }
    }

    /// Edges on (or next to) cell borders.
    fn on_borders(&self, rng: &mut Lcg) -> Rect {
        let border_x = |rng: &mut Lcg| {
            let k = rng.below(self.columns as usize + 1) as f64;
            let v =
                (self.world.x1 as f64 + k * self.world.width() as f64 / self.columns as f64) as f32;
            nudge(v, rng)
        };
        let border_y = |rng: &mut Lcg| {
            let k = rng.below(self.rows as usize + 1) as f64;
            let v =
                (self.world.y1 as f64 + k * self.world.height() as f64 / self.rows as f64) as f32;
            nudge(v, rng)
        };
        let (a, b) = (border_x(rng), border_x(rng));
        let (c, d) = (border_y(rng), border_y(rng));
        Rect::new(a.min(b), c.min(d), a.max(b), c.max(d))
    }

    /// World-sized, bigger than the world, or a long band across it.
    fn huge(&self, rng: &mut Lcg) -> Rect {
        let w = self.world;
        match rng.below(4) {
            0 => w,
            1 => Rect::new(
                w.x1 - w.width(),
                w.y1 - w.height(),
                w.x2 + w.width(),
                w.y2 + w.height(),
            ),
            2 => {
                let y = self.y(rng.unit());
                Rect::new(w.x1 - w.width(), y, w.x2, y + w.height() * 0.01)
            }
            _ => {
                let (x, y) = (self.x(rng.unit()), self.y(rng.unit()));
                Rect::new(x, y, x + w.width() * 0.6, y + w.height() * 0.6)
            }
        }
    }

    /// Wholly outside the world, near or far.
    fn outside(&self, rng: &mut Lcg) -> Rect {
        let far = if rng.chance(0.5) { 3.0 } else { 1000.0 };
        let (x, y) = (self.x(1.0 + far * rng.unit()), self.y(-far * rng.unit()));
        Rect::new(
            x,
            y - self.world.height() * 0.01,
            x + self.world.width() * 0.01,
            y,
        )
    }

    fn any(&self, rng: &mut Lcg) -> Rect {
        match rng.below(20) {
            0..=7 => self.small(rng),
            8 | 9 => self.point(rng),
            10 | 11 => self.segment(rng),
            12 | 13 => self.stacks[rng.below(3)],
            14 | 15 => self.on_borders(rng),
            16 => self.huge(rng),
            17 => self.outside(rng),
            _ => {
                // A query-sized box: a good part of the world.
                let r = self.small(rng);
                Rect::new(
                    r.x1,
                    r.y1,
                    r.x2 + self.world.width() * 0.3 * rng.unit(),
                    r.y2 + self.world.height() * 0.3 * rng.unit(),
                )
            }
        }
    }
}

/// `v`, or the `f32` just below or above it.
fn nudge(v: f32, rng: &mut Lcg) -> f32 {
    match rng.below(4) {
        0 => next_toward(v, f32::NEG_INFINITY),
        1 => next_toward(v, f32::INFINITY),
        _ => v,
    }
}

fn next_toward(v: f32, to: f32) -> f32 {
    if v == to {
        v
    } else if v == 0.0 {
        if to > 0.0 {
            f32::from_bits(1)
        } else {
            -f32::from_bits(1)
        }
    } else if (v < to) == (v > 0.0) {
        f32::from_bits(v.to_bits() + 1)
    } else {
        f32::from_bits(v.to_bits() - 1)
    }
}

fn sorted(mut handles: Vec<Handle>) -> Vec<Handle> {
    handles.sort();
    handles
}

/// The grid agrees with brute force on a few queries of every kind, and on
/// all pairs.
fn compare(grid: &Grid, model: &Model, shapes: &Shapes, rng: &mut Lcg) {
    if let Err(reason) = grid.validate() {
        panic!("invalid grid: {reason}");
    }
    assert_eq!(grid.len(), model.live.len());
    let mut hits = Vec::new();
    for _ in 0..6 {
        let q = shapes.any(rng);
        let omit = if rng.chance(0.3) && !model.live.is_empty() {
            Some(model.live[rng.below(model.live.len())].0)
        } else {
            None
        };
        grid.query(
            &Query {
                omit,
                ..Query::rect(q)
            },
            &mut hits,
        )
        .unwrap();
        assert_eq!(
            sorted(hits.clone()),
            model.query(&q, omit),
            "query {q} omitting {omit:?}"
        );
    }
    for _ in 0..4 {
        // Points anywhere, and the corners of elements.
        let (x, y) = if rng.chance(0.5) && !model.live.is_empty() {
            let r = model.live[rng.below(model.live.len())].1;
            ([r.x1, r.x2][rng.below(2)], [r.y1, r.y2][rng.below(2)])
        } else {
            let p = shapes.point(rng);
            (p.x1, p.y1)
        };
        grid.query(&Query::point([x, y]), &mut hits).unwrap();
        assert_eq!(
            sorted(hits.clone()),
            model.query(&Rect::point(x, y), None),
            "point ({x}, {y})"
        );
    }
    for _ in 0..4.min(model.live.len()) {
        let (h, r) = model.live[rng.below(model.live.len())];
        grid.query(&Query::element(h), &mut hits).unwrap();
        assert_eq!(
            sorted(hits.clone()),
            model.query(&r, Some(h)),
            "overlapping {h:?} {r}"
        );
    }
    assert_eq!(sorted_pairs(grid), model.pairs());
    #[cfg(feature = "rayon")]
    if rng.chance(0.2) {
        par_pairs_in_bands(grid, rng);
    }
    // The nearest three to a point: the distances brute force finds (from
    // the runs while they are fresh, else the lists).
    let p = shapes.point(rng);
    let mut near = Vec::new();
    grid.nearest([p.x1, p.y1], 3, None, u32::MAX, &mut near)
        .unwrap();
    let mut expected: Vec<f64> = model
        .live
        .iter()
        .map(|(_, r)| r.distance_to_point([p.x1, p.y1]))
        .collect();
    expected.sort_by(f64::total_cmp);
    expected.truncate(3);
    let found: Vec<f64> = near.iter().map(|n| n.distance).collect();
    assert_eq!(found, expected, "nearest to ({}, {})", p.x1, p.y1);
    if grid.lists_stale {
        // What the lists would show, rebuilt: the same cells and counts.
        let relisted = grid.listed();
        assert_eq!(cell_counts(grid), cell_counts(&relisted));
        // (The bytes differ: a copy holds no spare capacity.)
        let without_bytes = |stats: Stats| Stats { bytes: 0, ..stats };
        assert_eq!(without_bytes(grid.stats()), without_bytes(relisted.stats()));
    }
}

/// Every cell's element count, as `traverse` shows them.
fn cell_counts(grid: &Grid) -> Vec<u32> {
    let mut counts = Vec::new();
    let _ = grid.traverse(
        |_| ControlFlow::Continue(()),
        |cell| {
            counts.push(cell.count);
            ControlFlow::Continue(())
        },
    );
    counts
}

/// Calls that must fail and leave the grid exactly as it was.
fn refused(grid: &mut Grid, model: &Model, rng: &mut Lcg) {
    let before = grid.to_bytes();
    let nan = Rect::new(f32::NAN, 0.0, 1.0, 1.0);
    let inverted = Rect::new(1.0, 0.0, 0.0, 1.0);
    let infinite = Rect::new(0.0, 0.0, f32::INFINITY, 1.0);
    for bad in [nan, inverted, infinite] {
        assert!(matches!(grid.insert(bad, 0), Err(Error::InvalidRect(_))));
        let mut handles = Vec::new();
        let batch = [Rect::new(0.0, 0.0, 1.0, 1.0), bad];
        assert!(grid.insert_many(&batch, &[1, 2], &mut handles).is_err());
        assert!(grid.query(&Query::rect(bad), &mut handles).is_err());
        if let Some(&(h, _)) = model.live.first() {
            assert!(matches!(grid.update(h, bad), Err(Error::InvalidRect(_))));
            let rects = [Rect::new(0.0, 0.0, 1.0, 1.0), bad];
            let handles = [h, h];
            assert!(grid.update_many(&handles, &rects).is_err());
        }
    }
    assert!(grid
        .query(&Query::point([f32::NAN, 0.0]), &mut Vec::new())
        .is_err());
    if let Some(&stale) = model.dead.get(rng.below(model.dead.len().max(1))) {
        assert_eq!(grid.remove(stale), Err(Error::InvalidHandle(stale)));
        assert!(grid.update(stale, Rect::point(0.0, 0.0)).is_err());
        assert!(grid.query(&Query::element(stale), &mut Vec::new()).is_err());
        assert!(grid
            .query(
                &Query::rect(Rect::point(0.0, 0.0)).omit(stale),
                &mut Vec::new()
            )
            .is_err());
        if let Some(&(live, _)) = model.live.first() {
            assert!(grid.remove_many(&[live, stale]).is_err());
        }
    }
    if model.live.len() >= 2 {
        let (a, b) = (model.live[0].0, model.live[1].0);
        assert_eq!(
            grid.remove_many(&[a, b, a]),
            Err(Error::DuplicateHandle(a).in_batch(2))
        );
    }
    assert!(grid.remove(Handle::from_raw(0)).is_err());
    assert_eq!(grid.to_bytes(), before, "a refused call changed the grid");
}

/// A snapshot gives back the same grid, and no truncation of it is accepted
/// (all of them for small snapshots, a sample for big ones).
fn snapshot_round_trip(grid: &Grid, rng: &mut Lcg) {
    let bytes = grid.to_bytes();
    let copy = Grid::from_bytes(&bytes).unwrap();
    assert_eq!(copy.to_bytes(), bytes);
    assert_eq!(sorted_pairs(&copy), sorted_pairs(grid));
    // The same but for the capacity held.
    assert_eq!(
        Stats {
            bytes: 0,
            ..copy.stats()
        },
        Stats {
            bytes: 0,
            ..grid.stats()
        }
    );
    let cuts: Vec<usize> = if bytes.len() <= 4000 {
        (0..bytes.len()).collect()
    } else {
        (0..200).map(|_| rng.below(bytes.len())).collect()
    };
    for cut in cuts {
        assert!(
            Grid::from_bytes(&bytes[..cut]).is_err(),
            "cut at {cut} accepted"
        );
    }
}

/// The pair walk on threads: bands that cover the rows in order, each
/// non-empty (cut by the work in the runs while they are fresh), and the
/// one-thread walk's pairs in its order.
#[cfg(feature = "rayon")]
fn par_pairs_in_bands(grid: &Grid, rng: &mut Lcg) {
    let wanted = 1 + rng.below(9);
    let bands = grid.pair_bands(wanted);
    let mut next = 0;
    for band in &bands {
        assert!(
            band.start == next && band.end > band.start,
            "bands {bands:?}"
        );
        next = band.end;
    }
    assert_eq!(next, grid.rows(), "bands {bands:?}");
    assert!(bands.len() <= wanted, "{} bands for {wanted}", bands.len());
    let (mut serial, mut parallel) = (Vec::new(), Vec::new());
    grid.pairs(&mut serial);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2 + rng.below(3))
        .build()
        .unwrap();
    pool.install(|| grid.par_pairs(&mut parallel));
    assert_eq!(parallel, serial, "fresh runs: {}", grid.packed.fresh);
}

/// `update_many`, or (with `rayon`, at random) `par_update_many` on 2 or 3
/// threads (the records moved in ranges, one per thread, relinked in order),
/// which must leave the lists exactly as `update_many` does.
fn move_many(grid: &mut Grid, handles: &[Handle], rects: &[Rect], rng: &mut Lcg) {
    #[cfg(feature = "rayon")]
    if rng.chance(0.5) {
        let mut serial = grid.clone();
        serial.update_many(handles, rects).unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2 + rng.below(2))
            .build()
            .unwrap();
        pool.install(|| grid.par_update_many(handles, rects))
            .unwrap();
        assert_eq!(grid.cells, serial.cells);
        // The runs, sorted in parts when the batch left the lists behind.
        assert_eq!(grid.packed.fresh, serial.packed.fresh);
        if grid.packed.fresh {
            assert_eq!(grid.packed.starts, serial.packed.starts);
            assert_eq!(grid.packed.entries, serial.packed.entries);
            assert_eq!(grid.packed.reach, serial.packed.reach);
            assert_eq!(grid.packed.has_mid, serial.packed.has_mid);
            if grid.packed.has_mid {
                assert_eq!(grid.packed.mid_starts, serial.packed.mid_starts);
                assert_eq!(grid.packed.mid_slots, serial.packed.mid_slots);
                assert_eq!(grid.packed.mid_rects, serial.packed.mid_rects);
            }
        }
        // The pairs in walk order: the same lists, linked in the same order.
        let (mut a, mut b) = (Vec::new(), Vec::new());
        grid.pairs(&mut a);
        serial.pairs(&mut b);
        assert_eq!(a, b, "par_update_many linked in another order");
        return;
    }
    let _ = rng;
    grid.update_many(handles, rects).unwrap();
}

/// Random operations on one grid, checked against brute force after each.
fn run(world: Rect, columns: u32, rows: u32, seed: u64, steps: usize) {
    let mut rng = Lcg(seed);
    let shapes = Shapes::new(world, columns, rows, &mut rng);
    let mut grid = Grid::new(world, columns, rows).unwrap();
    let mut model = Model::default();
    let mut id = 0;
    // Steps compared with the cells laid out contiguously (by `cleanup` or a bulk insert).
    let mut packed_steps = 0;
    // Steps after a big batch of moves left the lists behind (the runs alone true).
    let mut unlisted_steps = 0;
    for step in 0..steps {
        let live = model.live.len();
        let op = rng.below(100);
        match op {
            // Inserts, while the grid is small.
            0..=24 if live < 200 => {
                let rect = shapes.any(&mut rng);
                let h = grid.insert(rect, id).unwrap();
                assert_eq!(grid.id(h), Ok(id));
                id += 1;
                model.live.push((h, rect));
            }
            25..=29 if live < 120 => {
                // A batch, big enough for the cell-ordered path at times.
                let n = if rng.chance(0.3) {
                    256 + rng.below(40)
                } else {
                    rng.below(20)
                };
                let rects: Vec<Rect> = (0..n).map(|_| shapes.any(&mut rng)).collect();
                let ids: Vec<u32> = (id..id + n as u32).collect();
                id += n as u32;
                let mut handles = vec![Handle::from_raw(7)];
                grid.insert_many(&rects, &ids, &mut handles).unwrap();
                assert_eq!(handles.len(), n + 1);
                for (k, (&h, &r)) in handles[1..].iter().zip(&rects).enumerate() {
                    assert_eq!(grid.rect(h), Ok(r));
                    assert_eq!(grid.id(h), Ok(ids[k]));
                    model.live.push((h, r));
                }
            }
            30..=39 if live > 0 => {
                let (h, _) = model.live[rng.below(live)];
                grid.remove(h).unwrap();
                model.remove(h);
            }
            40..=43 if live > 0 => {
                // Many at once: now and then most of them (the sweep).
                let n = if rng.chance(0.4) {
                    live * 3 / 4
                } else {
                    rng.below(live.min(10)) + 1
                };
                let mut picked: Vec<Handle> = model.live.iter().map(|(h, _)| *h).collect();
                for k in 0..n {
                    let j = k + rng.below(picked.len() - k);
                    picked.swap(k, j);
                }
                picked.truncate(n);
                grid.remove_many(&picked).unwrap();
                for h in picked {
                    model.remove(h);
                }
            }
            44..=69 if live > 0 => {
                // A move: a small step (mostly staying in its cells), a jump,
                // or to a shape of another kind (small to big and back).
                let (h, r) = model.live[rng.below(live)];
                let to = if rng.chance(0.6) {
                    let dx = (rng.unit() - 0.5) * world.width() / columns as f32 * 0.3;
                    let dy = (rng.unit() - 0.5) * world.height() / rows as f32 * 0.3;
                    Rect::new(r.x1 + dx, r.y1 + dy, r.x2 + dx, r.y2 + dy)
                } else {
                    shapes.any(&mut rng)
                };
                grid.update(h, to).unwrap();
                model.set(h, to);
            }
            70..=79 if live > 0 => {
                // Every element moves a little, some twice.
                let mut handles: Vec<Handle> = model.live.iter().map(|(h, _)| *h).collect();
                handles.push(handles[0]);
                let rects: Vec<Rect> = handles
                    .iter()
                    .map(|&h| {
                        let r = grid.rect(h).unwrap();
                        let d = (rng.unit() - 0.5) * world.width() / columns as f32;
                        if rng.chance(0.05) {
                            shapes.any(&mut rng)
                        } else {
                            Rect::new(r.x1 + d, r.y1 - d, r.x2 + d, r.y2 - d)
                        }
                    })
                    .collect();
                move_many(&mut grid, &handles, &rects, &mut rng);
                for (&h, &r) in handles.iter().zip(&rects) {
                    model.set(h, r);
                }
            }
            80..=84 => grid.cleanup(),
            85 => {
                grid.clear();
                let gone: Vec<Handle> = model.live.iter().map(|(h, _)| *h).collect();
                for h in gone {
                    model.remove(h);
                }
                assert!(grid.is_empty());
            }
            86..=89 => refused(&mut grid, &model, &mut rng),
            90 if step % 7 == 0 => snapshot_round_trip(&grid, &mut rng),
            _ => {}
        }
        packed_steps += grid.packed.fresh as usize;
        unlisted_steps += grid.lists_stale as usize;
        compare(&grid, &model, &shapes, &mut rng);
        for &stale in model.dead.iter().rev().take(3) {
            assert!(!grid.contains(stale));
        }
    }
    assert!(packed_steps > 0, "the contiguous cells were never queried");
    assert!(
        unlisted_steps > 0,
        "no batch of moves left the lists behind"
    );
    snapshot_round_trip(&grid, &mut rng);
}

/// The worlds of the brief: unit square, 4096, ±1e6, non-square, tiny, and one
/// at 2^24 where `f32` cannot separate some cell borders.
const WORLDS: [Rect; 6] = [
    Rect::new(0.0, 0.0, 1.0, 1.0),
    Rect::new(0.0, 0.0, 4096.0, 4096.0),
    Rect::new(-1e6, -1e6, 1e6, 1e6),
    Rect::new(-3.0, 10.0, 5.0, 10.5),
    Rect::new(1e-30, 2e-30, 4e-30, 9e-30),
    Rect::new(16_777_216.0, -2.0, 16_777_226.0, 3.0),
];

/// Random operations over one world, for grids from one cell to 64 × 64
/// (small ones send many elements to the big list).
fn random_operations_agree_with_brute_force(w: usize) {
    let dimensions = [(1, 1), (2, 3), (7, 5), (16, 16), (40, 3), (64, 64)];
    for (d, &(columns, rows)) in dimensions.iter().enumerate() {
        let seed = 1 + 100 * w as u64 + d as u64;
        run(WORLDS[w], columns, rows, seed, 250);
    }
}

#[test]
fn random_operations_in_the_unit_square() {
    random_operations_agree_with_brute_force(0);
}

#[test]
fn random_operations_in_4096() {
    random_operations_agree_with_brute_force(1);
}

#[test]
fn random_operations_in_a_million() {
    random_operations_agree_with_brute_force(2);
}

#[test]
fn random_operations_in_a_non_square_world() {
    random_operations_agree_with_brute_force(3);
}

#[test]
fn random_operations_in_a_tiny_world() {
    random_operations_agree_with_brute_force(4);
}

#[test]
fn random_operations_at_two_to_the_24() {
    random_operations_agree_with_brute_force(5);
}

#[test]
fn for_world_and_with_cell_size() {
    let world = Rect::new(0.0, 0.0, 4096.0, 4096.0);
    let grid = Grid::for_world(world).unwrap();
    assert_eq!((grid.columns(), grid.rows()), (256, 256));
    assert_eq!((grid.cell_width(), grid.cell_height()), (16.0, 16.0));
    assert_eq!(grid.world(), world);
    let grid = Grid::with_cell_size(world, 4.0, 5000.0).unwrap();
    assert_eq!((grid.columns(), grid.rows()), (1024, 1));
    let grid = Grid::with_cell_size(Rect::new(0.0, 0.0, 10.0, 1.0), 3.0, 0.3).unwrap();
    assert_eq!((grid.columns(), grid.rows()), (4, 4));
    assert_eq!(grid.cell_width(), 2.5);
    let grid = Grid::with_cell_size(world, 1.0 / 16.0, 4096.0).unwrap();
    assert_eq!(grid.columns(), 65536);
}

#[test]
fn nonsense_parameters_are_refused() {
    let world = Rect::new(0.0, 0.0, 100.0, 100.0);
    // The value as bits, so NaN compares too.
    let parameter = |e: Result<Grid, Error>| match e {
        Err(Error::InvalidParameter { name, found, .. }) => (name, found.to_bits()),
        other => panic!("{other:?}"),
    };
    let value = |name: &'static str, v: f64| (name, v.to_bits());
    assert_eq!(parameter(Grid::new(world, 0, 4)), value("columns", 0.0));
    assert_eq!(parameter(Grid::new(world, 4, 0)), value("rows", 0.0));
    assert_eq!(
        parameter(Grid::new(world, 65537, 1)),
        value("columns", 65537.0)
    );
    assert_eq!(
        parameter(Grid::new(world, 1, 65537)),
        value("rows", 65537.0)
    );
    assert_eq!(
        parameter(Grid::new(world, 65536, 1025)),
        value("columns × rows", 65536.0 * 1025.0)
    );
    assert!(Grid::new(world, 65536, 1).is_ok());
    for bad in [0.0, -1.0, f32::NAN, f32::NEG_INFINITY, f32::INFINITY] {
        assert_eq!(
            parameter(Grid::with_cell_size(world, bad, 1.0)),
            value("cell_width", bad.into())
        );
        assert_eq!(
            parameter(Grid::with_cell_size(world, 1.0, bad)),
            value("cell_height", bad.into())
        );
    }
    assert_eq!(
        parameter(Grid::with_cell_size(world, 1e-3, 1.0)),
        value("columns", (100.0f64 / 1e-3f32 as f64).ceil())
    );
    assert_eq!(
        parameter(Grid::with_cell_size(world, 1.0, 1e-30)),
        value("rows", (100.0f64 / 1e-30f32 as f64).ceil())
    );
    let message = Grid::with_cell_size(world, -2.0, 1.0)
        .unwrap_err()
        .to_string();
    assert!(message.contains("cell_width = -2"), "{message}");
    for bad in [
        Rect::new(0.0, 0.0, 0.0, 1.0),
        Rect::new(0.0, 0.0, f32::INFINITY, 1.0),
        Rect::new(-f32::MAX, 0.0, f32::MAX, 1.0),
        Rect::new(f32::NAN, 0.0, 1.0, 1.0),
    ] {
        // Compared as bits: NaN is not equal to itself.
        let world_of = |e: Error| match e {
            Error::InvalidWorld(r) => [r.x1, r.y1, r.x2, r.y2].map(f32::to_bits),
            other => panic!("{other:?}"),
        };
        let expected = [bad.x1, bad.y1, bad.x2, bad.y2].map(f32::to_bits);
        assert_eq!(world_of(Grid::new(bad, 4, 4).unwrap_err()), expected);
        assert_eq!(world_of(Grid::for_world(bad).unwrap_err()), expected);
        assert_eq!(
            world_of(Grid::with_cell_size(bad, 1.0, 1.0).unwrap_err()),
            expected
        );
    }
}

#[test]
fn big_elements_cost_one_entry() {
    // 100 cells: an element meeting more than 25 (a quarter) is big.
    let world = Rect::new(0.0, 0.0, 100.0, 100.0);
    let mut grid = Grid::new(world, 10, 10).unwrap();
    // 5 × 5 cells: linked; 5 × 6: big; the world and beyond: big.
    let in_cells = grid.insert(Rect::new(0.0, 0.0, 50.0, 50.0), 0).unwrap();
    assert_eq!(grid.stats().element_links, 25);
    let wide = grid.insert(Rect::new(0.0, 0.0, 50.0, 50.5), 1).unwrap();
    let whole = grid.insert(world, 2).unwrap();
    let beyond = grid.insert(Rect::new(-1e30, -1e30, 1e30, 1e30), 3).unwrap();
    let stats = grid.stats();
    assert_eq!((stats.element_links, grid.big.len()), (25, 3));
    let mut hits = Vec::new();
    grid.query(&Query::point([99.0, 1.0]), &mut hits).unwrap();
    assert_eq!(sorted(hits.clone()), [whole, beyond]);
    assert_eq!(sorted_pairs(&grid).len(), 6);
    // Small to big and back.
    grid.update(in_cells, Rect::new(0.0, 0.0, 60.0, 60.0))
        .unwrap();
    assert_eq!((grid.stats().element_links, grid.big.len()), (0, 4));
    grid.update(wide, Rect::point(55.0, 55.0)).unwrap();
    assert_eq!((grid.stats().element_links, grid.big.len()), (1, 3));
    grid.validate().unwrap();
    // In a big grid, more than 32 × 32 cells is big.
    let mut big = Grid::new(world, 1000, 1000).unwrap();
    big.insert(Rect::new(0.0, 0.0, 3.2, 3.2), 0).unwrap();
    assert_eq!((big.stats().element_links, big.big.len()), (1024, 0));
    big.insert(Rect::new(0.0, 0.0, 3.2, 3.3), 0).unwrap();
    assert_eq!((big.stats().element_links, big.big.len()), (1024, 1));
    big.validate().unwrap();
    // A one-cell grid has no big elements at all.
    let mut one = Grid::new(world, 1, 1).unwrap();
    one.insert(Rect::new(-1e30, -1e30, 1e30, 1e30), 0).unwrap();
    assert_eq!((one.stats().element_links, one.big.len()), (1, 0));
    // In a grid of two cells, an element meeting both is big.
    let mut two = Grid::new(world, 2, 1).unwrap();
    two.insert(Rect::new(10.0, 10.0, 20.0, 20.0), 0).unwrap();
    two.insert(Rect::new(40.0, 10.0, 60.0, 20.0), 1).unwrap();
    assert_eq!((two.stats().element_links, two.big.len()), (1, 1));
}

/// A loop of big batches keeps the last sort's counts through its moves
/// (`keep_counts`), on one thread and on two or three (each keeping its range's
/// counts): batch after batch, the runs it lays out are exactly those of a
/// sort that counts afresh, and the counts are kept exactly when they can be.
/// Small elements change cells, one is moved twice in a batch, a medium and a
/// big element move within their kinds and trade them (which keeps the
/// counts), and now and then a small element grows medium or is made big and
/// comes back (which breaks them), on one thread and on three; dead slots lie
/// among the live.
#[cfg(feature = "rayon")]
#[test]
fn big_batches_keep_the_sorts_counts_exactly() {
    let world = Rect::new(0.0, 0.0, 2000.0, 2000.0);
    // 10,000 cells of side 20 and 20,000 elements: batches big enough for
    // the threads, and three parts on three threads.
    let mut grid = Grid::new(world, 100, 100).unwrap();
    let mut rng = Lcg(11);
    let mut rects: Vec<Rect> = (0..20_010)
        .map(|_| {
            let (x, y) = (rng.unit() * 1990.0, rng.unit() * 1990.0);
            Rect::new(x, y, x + 5.0, y + 5.0)
        })
        .collect();
    let (medium, big) = (
        Rect::new(500.0, 500.0, 530.0, 503.0),
        Rect::new(-10.0, -10.0, 1500.0, 1500.0),
    );
    rects.extend([medium, big]);
    let ids: Vec<u32> = (0..rects.len() as u32).collect();
    let mut handles = Vec::new();
    grid.insert_many(&rects, &ids, &mut handles).unwrap();
    let dead: Vec<Handle> = handles.drain(100..110).collect();
    grid.remove_many(&dead).unwrap();
    let (m, b) = (handles.len() - 2, handles.len() - 1);
    let mut kept_sorts = [0; 4];
    let mut pairs = Vec::new();
    for frame in 0..48 {
        // The pair walk asks for the runs: the next batch leaves the lists behind.
        grid.pairs(&mut pairs);
        // Four frames on one thread, four on two, four on three, and again.
        let threads = 1 + (frame / 4) % 3;
        let mut moved = handles.clone();
        moved.push(handles[1000 + frame]);
        let mut to: Vec<Rect> = moved
            .iter()
            .map(|&h| {
                let r = grid.rect(h).unwrap();
                let (dx, dy) = (rng.unit() * 16.0 - 8.0, rng.unit() * 16.0 - 8.0);
                Rect::new(r.x1 + dx, r.y1 + dy, r.x2 + dx, r.y2 + dy)
            })
            .collect();
        // The small element of the frame before comes back to its size.
        to[frame.saturating_sub(1)] = {
            let r = to[frame.saturating_sub(1)];
            Rect::new(r.x1, r.y1, r.x1 + 5.0, r.y1 + 5.0)
        };
        let breaks = match frame % 12 {
            1 => {
                to[frame] = medium; // one thread
                true
            }
            9 => {
                to[frame] = big; // three threads
                true
            }
            2 | 10 => true, // back to small
            7 => {
                // The medium and the big element trade kinds (two threads).
                (to[m], to[b]) = (to[b], to[m]);
                false
            }
            _ => false,
        };
        let shape = grid.packed.last_sort;
        let keeps = grid.packed.fresh
            && shape.parts == threads
            && grid.sort_parts(threads) == threads
            && !breaks;
        let before = grid.packed.kept_sorts;
        if threads == 1 {
            grid.update_many(&moved, &to).unwrap();
        } else {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| grid.par_update_many(&moved, &to)).unwrap();
        }
        assert!(grid.packed.fresh && grid.lists_stale, "frame {frame}");
        assert_eq!(
            grid.packed.kept_sorts - before,
            keeps as usize,
            "frame {frame}"
        );
        kept_sorts[threads] += keeps as usize;
        let parts = grid.sort_parts(threads);
        let mut afresh = grid.clone();
        afresh.packed.stale();
        afresh.pack_cells_in(threads, None);
        let (kept, counted) = (&grid.packed, &afresh.packed);
        assert_eq!(kept.starts, counted.starts, "frame {frame}");
        assert_eq!(
            kept.part_starts[..parts - 1],
            counted.part_starts[..parts - 1],
            "frame {frame}"
        );
        assert_eq!(kept.entries, counted.entries, "frame {frame}");
        assert_eq!(kept.reach, counted.reach, "frame {frame}");
        assert_eq!(kept.last_sort, counted.last_sort, "frame {frame}");
        assert!(kept.has_mid && counted.has_mid, "frame {frame}");
        assert_eq!(kept.mid_starts, counted.mid_starts, "frame {frame}");
        assert_eq!(kept.mid_slots, counted.mid_slots, "frame {frame}");
        grid.validate().unwrap();
    }
    // Each way of keeping them: on one thread frame 3 of every 12, on two
    // frames 5 to 7, on three frame 11.
    assert_eq!(kept_sorts, [0, 4, 12, 4]);
}

#[test]
fn a_loop_that_moves_and_walks_the_pairs_gets_runs() {
    // Inserted one by one (so not laid out by a bulk insert), never queried:
    // only the pair walk asks for the runs.
    let world = Rect::new(0.0, 0.0, 64.0, 64.0);
    let mut grid = Grid::new(world, 16, 16).unwrap();
    let mut rng = Lcg(3);
    let mut model = Model::default();
    for id in 0..400 {
        let (x, y) = (rng.unit() * 62.0, rng.unit() * 62.0);
        let rect = Rect::new(x, y, x + 2.0, y + 2.0);
        model.live.push((grid.insert(rect, id).unwrap(), rect));
    }
    grid.cleanup();
    assert!(!grid.packed.fresh, "laid out with nothing asking for it");
    for frame in 0..3 {
        assert_eq!(sorted_pairs(&grid), model.pairs(), "frame {frame}");
        let handles: Vec<Handle> = model.live.iter().map(|(h, _)| *h).collect();
        let rects: Vec<Rect> = model
            .live
            .iter()
            .map(|(_, r)| {
                let d = rng.unit() * 4.0 - 2.0;
                Rect::new(r.x1 + d, r.y1 - d, r.x2 + d, r.y2 - d)
            })
            .collect();
        grid.update_many(&handles, &rects).unwrap();
        for (&h, &r) in handles.iter().zip(&rects) {
            model.set(h, r);
        }
        grid.cleanup();
        // The walk before asked for the runs: the batch left the lists behind.
        assert!(grid.packed.fresh && grid.lists_stale, "frame {frame}");
    }
    assert_eq!(sorted_pairs(&grid), model.pairs());
    // Big batches in a row gave the links' memory back.
    assert_eq!(grid.links.links.capacity(), 0);
    // A single move needs the lists again, and they come back exact.
    let (h, r) = model.live[0];
    grid.update(h, Rect::new(r.x1 + 1.0, r.y1, r.x2 + 1.0, r.y2))
        .unwrap();
    model.set(h, Rect::new(r.x1 + 1.0, r.y1, r.x2 + 1.0, r.y2));
    assert!(!grid.lists_stale);
    assert!(!grid.links.links.is_empty());
    assert_eq!(sorted_pairs(&grid), model.pairs());
    grid.validate().unwrap();
}

#[test]
fn stacks_and_borders_at_two_to_the_24() {
    // Cells 0.5 wide where f32 steps by 2: many borders coincide, and some
    // cells own no coordinate at all.
    let world = Rect::new(16_777_216.0, 0.0, 16_777_226.0, 10.0);
    let mut grid = Grid::new(world, 20, 20).unwrap();
    let mut model = Model::default();
    for k in 0..200u32 {
        let x = 16_777_216.0 + 2.0 * (k % 6) as f32;
        let r = Rect::new(
            x,
            (k % 11) as f32,
            x + 2.0 * (k % 3) as f32,
            (k % 11) as f32 + 0.5,
        );
        model.live.push((grid.insert(r, k).unwrap(), r));
    }
    let mut rng = Lcg(5);
    let shapes = Shapes::new(world, 20, 20, &mut rng);
    for _ in 0..20 {
        compare(&grid, &model, &shapes, &mut rng);
    }
    // Remove most in one sweep, the rest one by one.
    let handles: Vec<Handle> = model.live.iter().map(|(h, _)| *h).collect();
    grid.remove_many(&handles[..150]).unwrap();
    for &h in &handles[..150] {
        model.remove(h);
    }
    compare(&grid, &model, &shapes, &mut rng);
    for &h in &handles[150..] {
        grid.remove(h).unwrap();
        model.remove(h);
    }
    compare(&grid, &model, &shapes, &mut rng);
    assert_eq!(grid.stats().element_links, 0);
}

#[test]
fn traverse_shows_every_cell_row_by_row() {
    let mut grid = Grid::new(Rect::new(-3.0, 10.0, 5.0, 10.5), 4, 2).unwrap();
    grid.insert(Rect::new(-3.0, 10.0, -1.0, 10.25), 0).unwrap(); // cell 0 only
    grid.insert(Rect::new(0.0, 10.2, 0.0, 10.3), 1).unwrap(); // cells 1, 5
    grid.insert(Rect::new(-1.5, 10.1, 0.5, 10.2), 2).unwrap(); // cells 0, 1
                                                               // 8 cells, more than a quarter of them: big, in no cell.
    grid.insert(Rect::new(-100.0, -100.0, 100.0, 100.0), 3)
        .unwrap();
    let mut cells: Vec<NodeInfo> = Vec::new();
    let flow = grid.traverse(
        |_| panic!("a grid has no branches"),
        |cell| {
            cells.push(*cell);
            ControlFlow::Continue(())
        },
    );
    assert_eq!(flow, ControlFlow::Continue(()));
    assert_eq!(cells.len(), 8);
    for (k, cell) in cells.iter().enumerate() {
        assert_eq!((cell.index, cell.depth, cell.is_leaf), (k as u32, 0, true));
    }
    assert_eq!(cells[0].rect, Rect::new(-3.0, 10.0, -1.0, 10.25));
    assert_eq!(cells[7].rect, Rect::new(3.0, 10.25, 5.0, 10.5));
    let counts: Vec<u32> = cells.iter().map(|c| c.count).collect();
    assert_eq!(counts, [2, 2, 0, 0, 0, 1, 0, 0]);
    let stats = grid.stats();
    assert_eq!(
        (
            stats.elements,
            stats.nodes,
            stats.leaves,
            stats.empty_leaves
        ),
        (4, 8, 8, 5)
    );
    assert_eq!((stats.element_links, stats.max_depth_reached), (5, 0));
    assert!(stats.bytes > 8 * 4 + 5 * 8 + 4 * 32);
    // Stopping early.
    let mut seen = 0;
    let flow = grid.traverse(
        |_| ControlFlow::Continue(()),
        |_| {
            seen += 1;
            if seen == 3 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        },
    );
    assert_eq!((flow, seen), (ControlFlow::Break(()), 3));
}

#[test]
fn clear_makes_every_handle_stale_and_keeps_working() {
    let mut grid = Grid::new(Rect::new(0.0, 0.0, 10.0, 10.0), 5, 5).unwrap();
    let a = grid.insert(Rect::new(1.0, 1.0, 2.0, 2.0), 0).unwrap();
    let b = grid.insert(Rect::new(-5.0, -5.0, 50.0, 50.0), 1).unwrap();
    grid.clear();
    assert!(grid.is_empty() && !grid.contains(a) && !grid.contains(b));
    assert_eq!(grid.stats().element_links, 0);
    grid.validate().unwrap();
    let c = grid.insert(Rect::new(1.0, 1.0, 2.0, 2.0), 2).unwrap();
    assert_ne!(c, a);
    let mut hits = Vec::new();
    grid.query(&Query::rect(Rect::new(0.0, 0.0, 10.0, 10.0)), &mut hits)
        .unwrap();
    assert_eq!(hits, [c]);
}

#[test]
fn batch_queries_agree_with_single_ones() {
    let world = Rect::new(0.0, 0.0, 256.0, 256.0);
    let mut rng = Lcg(99);
    let shapes = Shapes::new(world, 16, 16, &mut rng);
    let mut grid = Grid::new(world, 16, 16).unwrap();
    let rects: Vec<Rect> = (0..600).map(|_| shapes.any(&mut rng)).collect();
    let ids: Vec<u32> = (0..600).collect();
    let mut handles = Vec::new();
    grid.insert_many(&rects, &ids, &mut handles).unwrap();
    for (&h, &r) in handles.iter().zip(&rects) {
        assert_eq!(grid.rect(h), Ok(r));
    }
    let (mut offsets, mut hits, mut one) = (Vec::new(), Vec::new(), Vec::new());
    grid.overlapping_many(&handles, &mut offsets, &mut hits)
        .unwrap();
    grid.query_many(
        &Query::of_rects(&rects, Some(&handles)).unwrap(),
        &mut Vec::new(),
        &mut Vec::new(),
    )
    .unwrap();
    for (i, &h) in handles.iter().enumerate() {
        grid.query(&Query::element(h), &mut one).unwrap();
        assert_eq!(
            sorted(hits[offsets[i]..offsets[i + 1]].to_vec()),
            sorted(one.clone())
        );
    }
    // Early stops.
    let mut n = 0;
    let flow = grid.pairs_with(|_, _| {
        n += 1;
        if n == 5 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    assert_eq!((flow, n), (ControlFlow::Break(()), 5));
    let flow = grid
        .visit(&Query::rect(world), |_| ControlFlow::Break(()))
        .unwrap();
    assert_eq!(flow, ControlFlow::Break(()));
}

#[test]
fn damaged_snapshots_are_refused_or_valid_never_a_panic() {
    let world = Rect::new(0.0, 0.0, 64.0, 64.0);
    let mut rng = Lcg(3);
    let shapes = Shapes::new(world, 8, 8, &mut rng);
    let mut grid = Grid::new(world, 8, 8).unwrap();
    let mut handles = Vec::new();
    for k in 0..60 {
        handles.push(grid.insert(shapes.any(&mut rng), k).unwrap());
    }
    for &h in handles.iter().step_by(3) {
        grid.remove(h).unwrap();
    }
    let bytes = grid.to_bytes();
    snapshot_round_trip(&grid, &mut rng);
    let words = bytes.len() / 4;
    for round in 0..3000 {
        let mut damaged = bytes.clone();
        for _ in 0..1 + round % 3 {
            let at = 4 * rng.below(words);
            let value: u32 = match rng.below(5) {
                0 => u32::MAX,
                1 => rng.below(80) as u32,
                2 => {
                    u32::from_le_bytes(damaged[at..at + 4].try_into().unwrap())
                        ^ (1 << rng.below(32))
                }
                3 => (1 << 31) | rng.below(4) as u32,
                _ => rng.next(),
            };
            damaged[at..at + 4].copy_from_slice(&value.to_le_bytes());
        }
        if let Ok(copy) = Grid::from_bytes(&damaged) {
            copy.validate().unwrap();
        }
    }
    // A forged cell count cannot make the grid allocate its cells.
    let mut forged = Grid::new(world, 1, 1).unwrap().to_bytes();
    forged[28..32].copy_from_slice(&65536u32.to_le_bytes());
    forged[32..36].copy_from_slice(&1024u32.to_le_bytes());
    assert!(matches!(
        Grid::from_bytes(&forged),
        Err(Error::InvalidBytes(_))
    ));
    // Another structure's snapshot.
    let tree = crate::Quadtree::for_world(world).unwrap().to_bytes();
    assert!(matches!(
        Grid::from_bytes(&tree),
        Err(Error::InvalidBytes(_))
    ));
}
