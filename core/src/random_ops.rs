//! Random operation sequences against brute force, for any structure's own
//! tests (`loose_grid/tests.rs`, `loose_quadtree/tests.rs`): awkward
//! rectangles, `validate` after every operation, every query kind compared,
//! refusals leaving the bytes unchanged, snapshots round-tripped and damaged.
//! Each structure supplies its shapes (where its borders lie) and its own
//! check of `traverse`.

use std::collections::BTreeMap;

use crate::index::SpatialIndex;
use crate::{Error, Handle, Rect};

/// A small LCG, so the tests need no dependency and replay exactly.
pub(crate) struct Lcg(pub u64);

impl Lcg {
    pub(crate) fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) as u32
    }
    /// In `[0, 1)`.
    pub(crate) fn unit(&mut self) -> f32 {
        (self.next() >> 8) as f32 / 16_777_216.0
    }
    pub(crate) fn below(&mut self, n: u32) -> u32 {
        self.next() % n
    }
    pub(crate) fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent
    }
}

/// The model: every live element, by handle.
pub(crate) type Model = BTreeMap<Handle, (Rect, u32)>;

pub(crate) fn meets(a: &Rect, b: &Rect) -> bool {
    a.x1 <= b.x2 && b.x1 <= a.x2 && a.y1 <= b.y2 && b.y1 <= a.y2
}

/// A rectangle generator for one world: coordinates drawn near the world,
/// often exactly on the grids' borders, of every awkward kind.
pub(crate) struct Shapes {
    world: Rect,
    /// Values that sit exactly on (or next to) loose and tight borders.
    xs: Vec<f32>,
    ys: Vec<f32>,
    cell: (f32, f32),
    /// Sizes in cells around which a structure treats elements as large.
    wide: f32,
    /// The spot where stacks pile up.
    spot: (f32, f32),
}

pub(crate) fn borders(origin: f32, size: f32, counts: &[u32]) -> Vec<f32> {
    let mut values = Vec::new();
    for &n in counts {
        for k in 0..=n {
            let v = (origin as f64 + k as f64 * (size as f64 / n as f64)) as f32;
            values.extend([v, next_up(v), next_down(v)]);
        }
    }
    values
}

pub(crate) fn next_up(x: f32) -> f32 {
    if x == 0.0 {
        f32::from_bits(1)
    } else if x > 0.0 {
        f32::from_bits(x.to_bits() + 1)
    } else {
        f32::from_bits(x.to_bits() - 1)
    }
}

pub(crate) fn next_down(x: f32) -> f32 {
    -next_up(-x)
}

impl Shapes {
    /// Shapes for `world`: coordinates on (and next to) the borders of
    /// `x_counts` and `y_counts` cells, sizes around `cell`, some `wide`
    /// cells wide (a structure's threshold for large elements).
    pub(crate) fn new(
        world: Rect,
        x_counts: &[u32],
        y_counts: &[u32],
        cell: (f32, f32),
        wide: f32,
        rng: &mut Lcg,
    ) -> Shapes {
        let xs = borders(world.x1, world.width(), x_counts);
        let ys = borders(world.y1, world.height(), y_counts);
        let spot = (
            world.x1 + rng.unit() * world.width(),
            world.y1 + rng.unit() * world.height(),
        );
        Shapes {
            world,
            xs,
            ys,
            cell,
            wide,
            spot,
        }
    }

    pub(crate) fn coordinate(&self, rng: &mut Lcg, x: bool) -> f32 {
        let (lo, size, values) = if x {
            (self.world.x1, self.world.width(), &self.xs)
        } else {
            (self.world.y1, self.world.height(), &self.ys)
        };
        match rng.below(10) {
            0..=2 => values[rng.below(values.len() as u32) as usize],
            3 => lo + (rng.unit() * 3.0 - 1.0) * size, // around the world
            4 if rng.chance(20) => (rng.unit() - 0.5) * 1e30, // far out
            _ => lo + rng.unit() * size,
        }
    }

    pub(crate) fn extent(&self, rng: &mut Lcg, cell: f32, world: f32) -> f32 {
        match rng.below(12) {
            0..=1 => 0.0,                                      // points and segments
            2 => cell * self.wide,                             // right at the threshold
            3 => cell * (self.wide - 1.0 + 2.0 * rng.unit()),  // around it
            5 => world * 0.5 * rng.unit(),                     // up to half the world
            4 if rng.chance(30) => world * (1.0 + rng.unit()), // world-sized
            _ => cell * rng.unit() * rng.unit(),
        }
    }

    pub(crate) fn rect(&self, rng: &mut Lcg) -> Rect {
        if rng.chance(8) {
            let (x, y) = self.spot;
            return Rect::new(x, y, x + self.cell.0 * 0.25, y + self.cell.1 * 0.25);
        }
        if rng.chance(2) {
            return Rect::new(-3e38, -3e38, 3e38, 3e38);
        }
        let (x, y) = (self.coordinate(rng, true), self.coordinate(rng, false));
        let w = self.extent(rng, self.cell.0, self.world.width());
        let h = self.extent(rng, self.cell.1, self.world.height());
        let r = Rect::new(x, y, x + w, y + h);
        if r.is_valid() {
            r
        } else {
            Rect::point(x, y)
        }
    }

    /// A rectangle near `r` (a small move), or anywhere.
    pub(crate) fn moved(&self, rng: &mut Lcg, r: &Rect) -> Rect {
        if rng.chance(30) {
            return self.rect(rng);
        }
        let dx = (rng.unit() - 0.5) * self.cell.0;
        let dy = (rng.unit() - 0.5) * self.cell.1;
        let moved = Rect::new(r.x1 + dx, r.y1 + dy, r.x2 + dx, r.y2 + dy);
        if moved.is_valid() {
            moved
        } else {
            *r
        }
    }

    pub(crate) fn point(&self, rng: &mut Lcg) -> (f32, f32) {
        (self.coordinate(rng, true), self.coordinate(rng, false))
    }
}

pub(crate) fn sorted(mut v: Vec<Handle>) -> Vec<Handle> {
    v.sort_unstable();
    v
}

pub(crate) fn ordered((a, b): (Handle, Handle)) -> (Handle, Handle) {
    if a < b {
        (a, b)
    } else {
        (b, a)
    }
}

/// Every query kind against brute force.
pub(crate) fn check_queries<T: SpatialIndex<Bounds = Rect>>(
    index: &T,
    model: &Model,
    shapes: &Shapes,
    rng: &mut Lcg,
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
        index.query(q, omit, &mut hits).unwrap();
        let expected: Vec<Handle> = model
            .iter()
            .filter(|(h, (r, _))| Some(**h) != omit && meets(r, &q))
            .map(|(h, _)| *h)
            .collect();
        assert_eq!(sorted(hits.clone()), expected, "query {q}");

        let (x, y) = shapes.point(rng);
        index.query_point([x, y], omit, &mut hits).unwrap();
        let expected: Vec<Handle> = model
            .iter()
            .filter(|(h, (r, _))| Some(**h) != omit && meets(r, &Rect::point(x, y)))
            .map(|(h, _)| *h)
            .collect();
        assert_eq!(sorted(hits.clone()), expected, "point ({x}, {y})");
    }
    if let Some((&h, &(rect, _))) = model
        .iter()
        .nth(rng.below(model.len().max(1) as u32) as usize)
    {
        index.overlapping(h, &mut hits).unwrap();
        let expected: Vec<Handle> = model
            .iter()
            .filter(|(other, (r, _))| **other != h && meets(r, &rect))
            .map(|(h, _)| *h)
            .collect();
        assert_eq!(sorted(hits.clone()), expected, "overlapping {h:?}");
    }
    let mut pairs = Vec::new();
    index.pairs(&mut pairs);
    let mut found: Vec<(Handle, Handle)> = pairs.into_iter().map(ordered).collect();
    found.sort_unstable();
    let all: Vec<(&Handle, &(Rect, u32))> = model.iter().collect();
    let mut expected = Vec::new();
    for (i, (a, (ra, _))) in all.iter().enumerate() {
        for (b, (rb, _)) in &all[i + 1..] {
            if meets(ra, rb) {
                expected.push(ordered((**a, **b)));
            }
        }
    }
    expected.sort_unstable();
    assert_eq!(found.len(), expected.len(), "pairs: count (or duplicates)");
    assert_eq!(found, expected, "pairs");
}

/// The model's elements and the index's agree, ids and rectangles bit for bit.
pub(crate) fn check_elements<T: SpatialIndex<Bounds = Rect>>(index: &T, model: &Model) {
    assert_eq!(index.len(), model.len());
    let elements = index.iter().collect::<Vec<_>>();
    assert_eq!(elements.len(), model.len());
    for (h, r, id) in elements {
        let (mr, mid) = model[&h];
        assert_eq!(
            (r.x1.to_bits(), r.y1.to_bits()),
            (mr.x1.to_bits(), mr.y1.to_bits())
        );
        assert_eq!(
            (r.x2.to_bits(), r.y2.to_bits()),
            (mr.x2.to_bits(), mr.y2.to_bits())
        );
        assert_eq!(id, mid);
    }
}

/// One random run of `steps` operations on `index`, with the structure's
/// `shapes` and its own check of `traverse`.
pub(crate) fn run<T>(
    index: T,
    seed: u64,
    steps: usize,
    shapes: impl FnOnce(&T, &mut Lcg) -> Shapes,
    check_traverse: impl Fn(&T),
) where
    T: SpatialIndex<Bounds = Rect> + Clone + core::fmt::Debug,
{
    let mut index = index;
    let mut rng = Lcg(seed);
    let shapes = shapes(&index, &mut rng);
    let mut model = Model::new();
    let mut next_id = 0u32;
    let mut handles = Vec::new();
    let pick = |model: &Model, rng: &mut Lcg| -> Option<Handle> {
        if model.is_empty() {
            None
        } else {
            model
                .keys()
                .nth(rng.below(model.len() as u32) as usize)
                .copied()
        }
    };
    for step in 0..steps {
        match rng.below(100) {
            0..=29 => {
                let r = shapes.rect(&mut rng);
                let h = index.insert(r, next_id).unwrap();
                model.insert(h, (r, next_id));
                next_id += 1;
            }
            30..=33 => {
                let n = if rng.chance(20) {
                    300
                } else {
                    rng.below(20) as usize
                };
                let rects: Vec<Rect> = (0..n).map(|_| shapes.rect(&mut rng)).collect();
                let ids: Vec<u32> = (0..n as u32).map(|i| next_id + i).collect();
                handles.clear();
                index.insert_many(&rects, &ids, &mut handles).unwrap();
                for (i, &h) in handles.iter().enumerate() {
                    model.insert(h, (rects[i], ids[i]));
                }
                next_id += n as u32;
            }
            34..=43 => {
                if let Some(h) = pick(&model, &mut rng) {
                    index.remove(h).unwrap();
                    model.remove(&h);
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
                }
            }
            47..=76 => {
                if let Some(h) = pick(&model, &mut rng) {
                    let r = shapes.moved(&mut rng, &model[&h].0);
                    index.update(h, r).unwrap();
                    model.get_mut(&h).unwrap().0 = r;
                }
            }
            77..=84 => {
                let chosen: Vec<Handle> =
                    model.keys().copied().filter(|_| rng.chance(50)).collect();
                let rects: Vec<Rect> = chosen
                    .iter()
                    .map(|h| shapes.moved(&mut rng, &model[h].0))
                    .collect();
                index.update_many(&chosen, &rects).unwrap();
                for (h, r) in chosen.iter().zip(&rects) {
                    model.get_mut(h).unwrap().0 = *r;
                }
            }
            85..=94 => index.cleanup(),
            95 => {
                if rng.chance(20) {
                    index.clear();
                    model.clear();
                }
            }
            _ => check_refusals(&mut index, &model, &mut rng),
        }
        if let Err(reason) = index.validate() {
            panic!("step {step} (seed {seed}): {reason}\n{index:?}");
        }
        if step % 8 == 0 || step + 1 == steps {
            check_elements(&index, &model);
            check_queries(&index, &model, &shapes, &mut rng);
        }
        if step % 64 == 0 {
            check_snapshot(&index);
            check_traverse(&index);
        }
    }
}

/// Bad arguments are refused and change nothing.
pub(crate) fn check_refusals<T: SpatialIndex<Bounds = Rect> + Clone>(
    index: &mut T,
    model: &Model,
    rng: &mut Lcg,
) {
    let before = index.to_bytes();
    let nan = Rect::new(f32::NAN, 0.0, 1.0, 1.0);
    assert!(index.insert(nan, 0).is_err());
    assert!(index.insert(Rect::new(1.0, 0.0, 0.0, 1.0), 0).is_err());
    assert!(index
        .insert(Rect::new(0.0, 0.0, f32::INFINITY, 1.0), 0)
        .is_err());
    let mut hits = Vec::new();
    assert!(index.query(nan, None, &mut hits).is_err());
    assert!(index.query_point([f32::NAN, 0.0], None, &mut hits).is_err());
    // A batch with one bad item inserts nothing.
    let mut handles = Vec::new();
    assert!(index
        .insert_many(&[Rect::point(0.0, 0.0), nan], &[1, 2], &mut handles)
        .is_err());
    if let Some(&h) = model
        .keys()
        .nth(rng.below(model.len().max(1) as u32) as usize)
    {
        assert!(index.update(h, nan).is_err());
        assert!(index
            .update_many(&[h, h], &[Rect::point(1.0, 1.0), nan])
            .is_err());
        // A stale handle: the same slot, another generation.
        let stale = Handle::from_raw(h.to_raw() + (1 << 32));
        assert!(matches!(index.remove(stale), Err(Error::InvalidHandle(_))));
        assert!(index.update(stale, Rect::point(0.0, 0.0)).is_err());
        assert!(index.remove_many(&[h, stale]).is_err());
        assert!(index
            .query(Rect::point(0.0, 0.0), Some(stale), &mut hits)
            .is_err());
        assert!(index.overlapping(stale, &mut hits).is_err());
    }
    assert!(index.remove(Handle::from_raw(0)).is_err());
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
pub(crate) fn check_snapshot<T: SpatialIndex<Bounds = Rect>>(index: &T) {
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
            back.validate().unwrap();
        }
    }
}
