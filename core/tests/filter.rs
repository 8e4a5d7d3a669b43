//! Collision filters on every structure, against a brute-force oracle: pairs,
//! `overlapping` (one by one, and both routes of `overlapping_many`) obey
//! Box2D's rule, masked queries report exactly the categories in the mask,
//! filters survive snapshots and reset on removal and `clear`, and refused
//! calls change nothing.

#[macro_use]
mod common;

use std::ops::ControlFlow;

use common::{meets, snapshot, Lcg, Subject};
use flatquad::{
    Bounds, Box3, Error, Filter, Grid, Handle, LooseGrid, LooseQuadtree, Octree, Quadtree, Query,
    Ray, Rect, SpatialIndex,
};

/// A few categories and masks, the default, and "collides with nothing".
fn random_filter(rng: &mut Lcg) -> Filter {
    const BITS: [u32; 6] = [0, 1, 2, 3, 0b101, u32::MAX];
    if rng.below(4) == 0 {
        return Filter::DEFAULT;
    }
    Filter::new(BITS[rng.below(6) as usize], BITS[rng.below(6) as usize])
}

/// Elements of every sort over `world`: ordinary, degenerate, stacked at one
/// spot, reaching outside the world.
fn random_rect(rng: &mut Lcg, world: Rect) -> Rect {
    let (w, h) = (world.width(), world.height());
    let x = world.x1 - 0.1 * w + rng.unit() * 1.2 * w;
    let y = world.y1 - 0.1 * h + rng.unit() * 1.2 * h;
    match rng.below(8) {
        0 => Rect::point(world.x1 + 0.5 * w, world.y1 + 0.5 * h),
        1 => Rect::point(x, y),
        2 => Rect::new(x, y, x + 0.3 * w, y + 0.01 * h),
        _ => Rect::new(x, y, x + 0.05 * w * rng.unit(), y + 0.05 * h * rng.unit()),
    }
}

struct Model {
    live: Vec<(Handle, Rect, Filter)>,
}

impl Model {
    fn pairs(&self) -> Vec<(Handle, Handle)> {
        let mut pairs = Vec::new();
        for (i, (a, ra, fa)) in self.live.iter().enumerate() {
            for (b, rb, fb) in &self.live[i + 1..] {
                if meets(ra, rb) && fa.collides(*fb) {
                    pairs.push(((*a).min(*b), (*a).max(*b)));
                }
            }
        }
        pairs.sort_unstable();
        pairs
    }

    fn neighbours(&self, of: Handle) -> Vec<Handle> {
        let &(_, r, f) = self.live.iter().find(|e| e.0 == of).unwrap();
        let mut near: Vec<Handle> = (self.live.iter())
            .filter(|(h, rh, fh)| *h != of && meets(&r, rh) && f.collides(*fh))
            .map(|e| e.0)
            .collect();
        near.sort_unstable();
        near
    }

    fn query(&self, q: Rect, mask: u32) -> Vec<Handle> {
        let mut hits: Vec<Handle> = (self.live.iter())
            .filter(|(_, r, f)| meets(r, &q) && f.passes(mask))
            .map(|e| e.0)
            .collect();
        hits.sort_unstable();
        hits
    }
}

fn sorted_pairs(mut pairs: Vec<(Handle, Handle)>) -> Vec<(Handle, Handle)> {
    for pair in &mut pairs {
        *pair = (pair.0.min(pair.1), pair.0.max(pair.1));
    }
    pairs.sort_unstable();
    pairs
}

fn check<T: Subject>(index: &T, model: &Model, rng: &mut Lcg) {
    index.validate().unwrap();
    let expected = model.pairs();
    let mut pairs = Vec::new();
    index.pairs(&mut pairs);
    assert_eq!(sorted_pairs(pairs), expected, "pairs");
    #[cfg(feature = "rayon")]
    {
        let mut par = Vec::new();
        index.par_pairs(&mut par);
        assert_eq!(sorted_pairs(par), expected, "par_pairs");
    }
    let handles: Vec<Handle> = model.live.iter().map(|e| e.0).collect();
    let mut one = Vec::new();
    for &h in &handles {
        assert_eq!(
            index.filter(h).unwrap(),
            model.live.iter().find(|e| e.0 == h).unwrap().2
        );
        index.query(&Query::element(h), &mut one).unwrap();
        one.sort_unstable();
        assert_eq!(one, model.neighbours(h), "overlapping");
    }
    // All handles (the pair-walk route) and a few (one query each).
    for batch in [&handles[..], &handles[..handles.len().min(40)]] {
        let (mut offsets, mut hits) = (Vec::new(), Vec::new());
        index
            .overlapping_many(batch, &mut offsets, &mut hits)
            .unwrap();
        for (row, &h) in batch.iter().enumerate() {
            let mut got = hits[offsets[row]..offsets[row + 1]].to_vec();
            got.sort_unstable();
            assert_eq!(got, model.neighbours(h), "overlapping_many row {row}");
        }
    }
    let world = index.world();
    for _ in 0..20 {
        let q = random_rect(rng, world);
        let mask = [0, 1, 2, 0b110, Filter::ALL][rng.below(5) as usize];
        let mut hits = Vec::new();
        index.query(&Query::rect(q).mask(mask), &mut hits).unwrap();
        hits.sort_unstable();
        assert_eq!(hits, model.query(q, mask), "query_masked {q:?} {mask:#x}");
        let p = [q.x1, q.y1];
        let mut at = Vec::new();
        let _ = index
            .visit(&Query::point(p).mask(mask), |h| {
                at.push(h);
                ControlFlow::Continue(())
            })
            .unwrap();
        at.sort_unstable();
        assert_eq!(at, model.query(Rect::point(p[0], p[1]), mask), "point");
        check_searches(index, model, p, mask, world);
    }
}

/// Circle, nearest and ray casts with a mask: the brute force over the
/// elements whose category is in the mask (orders by the documented rule).
fn check_searches<T: Subject>(index: &T, model: &Model, p: [f32; 2], mask: u32, world: Rect) {
    let passing: Vec<&(Handle, Rect, Filter)> =
        model.live.iter().filter(|e| e.2.passes(mask)).collect();
    let ids: std::collections::HashMap<Handle, u32> =
        index.iter().map(|(h, _, id)| (h, id)).collect();
    let radius = 0.05 * f64::from(world.width());
    let mut hits = Vec::new();
    index
        .query(&Query::circle(p, radius).mask(mask), &mut hits)
        .unwrap();
    hits.sort_unstable();
    let mut expected: Vec<Handle> = (passing.iter())
        .filter(|e| e.1.distance_to_point(p) <= radius)
        .map(|e| e.0)
        .collect();
    expected.sort_unstable();
    assert_eq!(hits, expected, "query_circle mask {mask:#x}");

    let mut by_distance: Vec<(f64, u32, Handle)> = (passing.iter())
        .map(|e| (e.1.distance_to_point(p), ids[&e.0], e.0))
        .collect();
    by_distance.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let mut near = Vec::new();
    index.nearest(p, 5, None, mask, &mut near).unwrap();
    let got: Vec<Handle> = near.iter().map(|n| n.handle).collect();
    let want: Vec<Handle> = by_distance.iter().take(5).map(|e| e.2).collect();
    assert_eq!(got, want, "nearest mask {mask:#x}");

    let ray = Ray {
        origin: p,
        direction: [1.0, 0.25],
        max_length: f64::from(world.width()),
    };
    let mut cast = Vec::new();
    index.ray_cast_all(&ray, mask, &mut cast).unwrap();
    let got: Vec<Handle> = cast.iter().map(|h| h.handle).collect();
    let mut by_entry: Vec<(f64, u32, Handle)> = (passing.iter())
        .filter_map(|e| ray.entry_into(&e.1).map(|t| (t, ids[&e.0], e.0)))
        .collect();
    by_entry.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let want: Vec<Handle> = by_entry.iter().map(|e| e.2).collect();
    assert_eq!(got, want, "ray_cast_all mask {mask:#x}");
}

fn filters_obey_the_collision_rule<T: Subject>(make: fn(Rect) -> T) {
    for (seed, world) in [
        (1, Rect::new(0.0, 0.0, 100.0, 100.0)),
        (2, Rect::new(-1e6, -1e6, 1e6, 1e6)),
        (3, Rect::new(0.0, 0.0, 1e-3, 1e-3)),
    ] {
        let mut rng = Lcg(seed);
        let mut index = make(world);
        let mut model = Model { live: Vec::new() };
        for round in 0..4 {
            for i in 0..150 {
                let rect = random_rect(&mut rng, world);
                let h = index.insert(rect, i).unwrap();
                assert_eq!(index.filter(h).unwrap(), Filter::DEFAULT, "a fresh slot");
                let filter = random_filter(&mut rng);
                index.set_filter(h, filter).unwrap();
                model.live.push((h, rect, filter));
            }
            // Moves, removals (whose slots the next round reuses) and new filters.
            for _ in 0..80 {
                let at = rng.below(model.live.len() as u32) as usize;
                match rng.below(3) {
                    0 => {
                        let (h, ..) = model.live.swap_remove(at);
                        index.remove(h).unwrap();
                    }
                    1 => {
                        let rect = random_rect(&mut rng, world);
                        index.update(model.live[at].0, rect).unwrap();
                        model.live[at].1 = rect;
                    }
                    _ => {
                        let filter = random_filter(&mut rng);
                        index.set_filter(model.live[at].0, filter).unwrap();
                        model.live[at].2 = filter;
                    }
                }
            }
            if round % 2 == 1 {
                index.cleanup();
            }
            check(&index, &model, &mut rng);
            let copy = T::from_bytes(&index.to_bytes()).unwrap();
            check(&copy, &model, &mut rng);
        }
        index.clear();
        let h = index.insert(Rect::point(0.0, 0.0), 0).unwrap();
        assert_eq!(index.filter(h).unwrap(), Filter::DEFAULT, "after clear");
    }
}

fn refused_filter_calls_change_nothing<T: Subject>(make: fn(Rect) -> T) {
    let mut index = make(Rect::new(0.0, 0.0, 10.0, 10.0));
    let a = index.insert(Rect::new(1.0, 1.0, 2.0, 2.0), 0).unwrap();
    let b = index.insert(Rect::new(1.5, 1.5, 3.0, 3.0), 1).unwrap();
    let gone = index.insert(Rect::new(5.0, 5.0, 6.0, 6.0), 2).unwrap();
    index.remove(gone).unwrap();
    index.set_filter(a, Filter::new(1, 2)).unwrap();
    let before = snapshot(&index);
    let refused = [
        index.set_filter(gone, Filter::new(4, 4)),
        index.set_filter(Handle::from_raw(0), Filter::DEFAULT),
        index.set_filter_many(&[b, gone], &[Filter::new(8, 8); 2]),
        index.set_filter_many(&[a, b], &[Filter::DEFAULT]),
    ];
    assert!(matches!(refused[0], Err(Error::InvalidHandle(_))));
    assert!(matches!(refused[1], Err(Error::InvalidHandle(_))));
    assert!(matches!(refused[2], Err(Error::InBatch { index: 1, .. })));
    assert!(matches!(refused[3], Err(Error::LengthMismatch { .. })));
    assert!(index.filter(gone).is_err());
    assert_eq!(snapshot(&index), before);
    // a (category 1, mask 2) and b (default) collide: 1 & ALL and ALL & 2.
    let mut pairs = Vec::new();
    index.pairs(&mut pairs);
    assert_eq!(pairs.len(), 1);
    index.set_filter(b, Filter::new(4, Filter::ALL)).unwrap();
    index.pairs(&mut pairs);
    assert!(pairs.is_empty(), "b's category 4 is not in a's mask 2");
}

per_structure! {
    quadtree: |world| Quadtree::new(world, 4, 8),
    grid: |world| Grid::new(world, 16, 16),
    loose_grid: |world| LooseGrid::new(world, 16, 16, 8, 8),
    loose_quadtree: |world| LooseQuadtree::new(world, 4, 8);
    filters_obey_the_collision_rule,
    refused_filter_calls_change_nothing,
}

/// The octree shares the slots, so the same rule holds in 3D.
#[test]
fn octree_pairs_obey_filters() {
    let mut tree = Octree::new(Box3::new(0.0, 0.0, 0.0, 8.0, 8.0, 8.0), 4, 4).unwrap();
    let cube = |x: f32| Box3::new(x, x, x, x + 2.0, x + 2.0, x + 2.0);
    let hs: Vec<Handle> = (0..3)
        .map(|i| tree.insert(cube(i as f32), i).unwrap())
        .collect();
    let mut pairs = Vec::new();
    tree.pairs(&mut pairs);
    assert_eq!(pairs.len(), 3);
    tree.set_filter(hs[1], Filter::new(2, 1)).unwrap();
    tree.set_filter(hs[0], Filter::new(1, 1)).unwrap();
    tree.pairs(&mut pairs);
    // 0-1: 1 & 1 and 2 & 1 = 0, no; 0-2: 1 & ALL, ALL & 1, yes; 1-2: yes.
    assert_eq!(
        sorted_pairs(pairs),
        sorted_pairs(vec![(hs[0], hs[2]), (hs[1], hs[2])])
    );
    let mut hits = Vec::new();
    tree.query(
        &Query::rect(Box3::new(0.0, 0.0, 0.0, 8.0, 8.0, 8.0)).mask(2),
        &mut hits,
    )
    .unwrap();
    hits.sort_unstable();
    assert_eq!(hits, [hs[1], hs[2]]);
    let copy = Octree::from_bytes(&tree.to_bytes()).unwrap();
    assert_eq!(copy.filter(hs[1]).unwrap(), Filter::new(2, 1));
}
