//! Fat bounds (`set_margin`): a structure with a margin answers exactly as
//! the same structure without one. Twins take the same operations (small
//! moves that stay inside the fat boxes, moves that leave them, batches with
//! a handle given twice, inserts, removals, filters, `cleanup`, the margin
//! changed and cleared midway) and every answer is compared by element id:
//! elements, pairs, rectangle, point and circle queries, element queries,
//! nearest, ray and box casts, contact events and snapshots. The brute-force
//! comparison of every structure with margins is in the shared harness
//! (`flatquad-testkit`, which draws margins in its runs).

use std::collections::HashMap;

use flatquad::{
    AnyIndex, Bounds, Box3, BoxCast, Filter, Handle, Kind, Octree, PairTracker, Query, Ray, Rect,
    SpatialIndex,
};
use flatquad_testkit::{Draw, Lcg};
use proptest::prelude::*;

/// Ids of a list of handles, sorted.
fn ids<T: SpatialIndex>(index: &T, handles: &[Handle]) -> Vec<u32> {
    let mut ids: Vec<u32> = handles.iter().map(|&h| index.id(h).unwrap()).collect();
    ids.sort_unstable();
    ids
}

/// Id pairs of handle pairs, each ordered, sorted.
fn id_pairs<T: SpatialIndex>(index: &T, pairs: impl Iterator<Item = [Handle; 2]>) -> Vec<[u32; 2]> {
    let mut out: Vec<[u32; 2]> = pairs
        .map(|[a, b]| {
            let (a, b) = (
                index.id(a).unwrap_or(u32::MAX),
                index.id(b).unwrap_or(u32::MAX),
            );
            [a.min(b), a.max(b)]
        })
        .collect();
    out.sort_unstable();
    out
}

/// Every answer of `fat` equals `plain`'s, element by element id.
fn same_answers<T: SpatialIndex>(plain: &T, fat: &T, rng: &mut Lcg, world: f32) {
    fat.validate().unwrap();
    let elements = |index: &T| {
        let mut all: Vec<(u32, T::Bounds)> = index.iter().map(|(_, r, id)| (id, r)).collect();
        all.sort_unstable_by_key(|&(id, _)| id);
        all
    };
    assert_eq!(elements(plain), elements(fat));
    let (mut a, mut b) = (Vec::new(), Vec::new());
    plain.pairs(&mut a);
    fat.pairs(&mut b);
    let pairs =
        |index: &T, list: &[(Handle, Handle)]| id_pairs(index, list.iter().map(|&(a, b)| [a, b]));
    assert_eq!(pairs(plain, &a), pairs(fat, &b));
    let by_id =
        |index: &T| -> HashMap<u32, Handle> { index.iter().map(|(h, _, id)| (id, h)).collect() };
    let (plain_of, fat_of) = (by_id(plain), by_id(fat));
    let axes = T::Bounds::AXES;
    let mut point = [0.0f32; 3];
    for v in point.iter_mut().take(axes) {
        *v = rng.unit() * world;
    }
    let corner = T::Bounds::from_corners(point, point);
    let mut high = point;
    for v in high.iter_mut().take(axes) {
        *v += rng.unit() * world / 4.0;
    }
    let area = T::Bounds::from_corners(point, high);
    let at = corner.low_corner();
    let radius = f64::from(rng.unit() * world / 8.0);
    let mut queries = vec![
        (Query::rect(area), Query::rect(area)),
        (Query::point(at), Query::point(at)),
        (Query::circle(at, radius), Query::circle(at, radius)),
    ];
    if let Some((&id, &h)) = plain_of.iter().next() {
        queries.push((Query::element(h), Query::element(fat_of[&id])));
        queries.push((
            Query::rect(area).omit(h),
            Query::rect(area).omit(fat_of[&id]),
        ));
    }
    for (p, f) in &queries {
        let (mut x, mut y) = (Vec::new(), Vec::new());
        plain.query(p, &mut x).unwrap();
        fat.query(f, &mut y).unwrap();
        assert_eq!(ids(plain, &x), ids(fat, &y), "{p:?}");
    }
    let (mut x, mut y) = (Vec::new(), Vec::new());
    plain.nearest(at, 5, None, Filter::ALL, &mut x).unwrap();
    fat.nearest(at, 5, None, Filter::ALL, &mut y).unwrap();
    let near = |index: &T, list: &[flatquad::Neighbor]| -> Vec<(u32, u64)> {
        list.iter()
            .map(|n| (index.id(n.handle).unwrap(), n.distance.to_bits()))
            .collect()
    };
    assert_eq!(near(plain, &x), near(fat, &y));
    let mut direction = [0.0f32; 3];
    for v in direction.iter_mut().take(axes) {
        *v = rng.unit() - 0.5;
    }
    direction[0] += 0.25;
    let ray = Ray {
        origin: at,
        direction: T::Bounds::from_corners(direction, direction).low_corner(),
        max_length: f64::from(world),
    };
    let cast = BoxCast::new(
        area,
        T::Bounds::from_corners(direction, direction).low_corner(),
    );
    let (mut x, mut y) = (Vec::new(), Vec::new());
    let hits = |index: &T, list: &[flatquad::RayHit]| -> Vec<(u32, u64)> {
        list.iter()
            .map(|h| (index.id(h.handle).unwrap(), h.fraction.to_bits()))
            .collect()
    };
    plain.ray_cast_all(&ray, Filter::ALL, &mut x).unwrap();
    fat.ray_cast_all(&ray, Filter::ALL, &mut y).unwrap();
    assert_eq!(hits(plain, &x), hits(fat, &y));
    plain.box_cast_all(&cast, &mut x).unwrap();
    fat.box_cast_all(&cast, &mut y).unwrap();
    assert_eq!(hits(plain, &x), hits(fat, &y));
    // A snapshot keeps the margin and the answers.
    let copy = T::from_bytes(&fat.to_bytes()).unwrap();
    assert_eq!(copy.margin(), fat.margin());
    assert_eq!(elements(&copy), elements(fat));
    assert_eq!(copy.to_bytes(), fat.to_bytes());
}

/// Frames of agents-like moves on a plain index and its fat twin.
fn twins<T: SpatialIndex + Clone + Sync>(empty: T, world: f32, margin: f32, seed: u64) {
    let mut rng = Lcg(seed);
    let mut plain = empty.clone();
    let mut fat = empty.with_margin(margin).unwrap();
    let axes = T::Bounds::AXES;
    let side = world / 32.0;
    let draw = |rng: &mut Lcg| {
        let (mut lo, mut hi) = ([0.0f32; 3], [0.0f32; 3]);
        for axis in 0..axes {
            lo[axis] = rng.unit() * world * 1.1 - world * 0.05;
            hi[axis] = lo[axis] + if rng.below(8) == 0 { 0.0 } else { side };
        }
        T::Bounds::from_corners(lo, hi)
    };
    let nudge = |rng: &mut Lcg, r: &T::Bounds, step: f32| {
        let (mut lo, mut hi) = ([0.0f32; 3], [0.0f32; 3]);
        for axis in 0..axes {
            let d = (rng.unit() - 0.5) * step;
            lo[axis] = r.lo(axis) + d;
            hi[axis] = r.hi(axis) + d;
        }
        T::Bounds::from_corners(lo, hi)
    };
    // Handles of the same element in each twin, by id.
    let mut live: Vec<(u32, Handle, Handle)> = Vec::new();
    let mut next = 0u32;
    let (mut plain_events, mut fat_events) = (PairTracker::new(), PairTracker::new());
    for frame in 0..24 {
        let inserts = if frame == 0 {
            80
        } else {
            rng.below(6) as usize
        };
        let rects: Vec<T::Bounds> = (0..inserts).map(|_| draw(&mut rng)).collect();
        let new_ids: Vec<u32> = (next..next + inserts as u32).collect();
        next += inserts as u32;
        let (mut p, mut f) = (Vec::new(), Vec::new());
        plain.insert_many(&rects, &new_ids, &mut p).unwrap();
        fat.insert_many(&rects, &new_ids, &mut f).unwrap();
        live.extend(
            new_ids
                .iter()
                .zip(p.iter().zip(&f))
                .map(|(&id, (&p, &f))| (id, p, f)),
        );
        // Moves: most a fraction of the margin, some far; one handle twice
        // (far, then back near), which the batch must end at its last box.
        let step = [margin * 0.5, margin * 3.0, side][rng.below(3) as usize];
        let (mut ph, mut fh, mut rs) = (Vec::new(), Vec::new(), Vec::new());
        for &(_, p, f) in &live {
            if rng.below(4) != 0 {
                let r = if rng.below(10) == 0 {
                    draw(&mut rng)
                } else {
                    nudge(&mut rng, &plain.rect(p).unwrap(), step)
                };
                ph.push(p);
                fh.push(f);
                rs.push(r);
            }
        }
        if let Some(&(_, p, f)) = live.first() {
            let home = plain.rect(p).unwrap();
            for r in [draw(&mut rng), nudge(&mut rng, &home, margin * 0.5)] {
                ph.push(p);
                fh.push(f);
                rs.push(r);
            }
        }
        if frame % 2 == 0 {
            plain.update_many(&ph, &rs).unwrap();
            fat.update_many(&fh, &rs).unwrap();
        } else {
            // One by one, and on rayon's threads where the feature is on.
            for ((&p, &f), &r) in ph.iter().zip(&fh).zip(&rs) {
                plain.update(p, r).unwrap();
                fat.update(f, r).unwrap();
            }
        }
        for _ in 0..rng.below(4) {
            if live.is_empty() {
                break;
            }
            let (_, p, f) = live.swap_remove(rng.below(live.len() as u32) as usize);
            plain.remove(p).unwrap();
            fat.remove(f).unwrap();
        }
        if let Some(&(_, p, f)) = live.get(rng.below(live.len().max(1) as u32) as usize) {
            let filter = Filter::new(1 << rng.below(3), 1 << rng.below(3));
            plain.set_filter(p, filter).unwrap();
            fat.set_filter(f, filter).unwrap();
        }
        if frame % 3 == 0 {
            plain.cleanup();
            fat.cleanup();
        }
        if frame == 12 {
            fat.set_margin(margin * 2.0).unwrap();
        }
        if frame == 18 {
            fat.set_margin(0.0).unwrap();
            assert_eq!(fat.margin(), 0.0);
        }
        if frame == 20 {
            fat.set_margin(margin).unwrap();
        }
        let (began, ended) = plain_events.update(&plain);
        let plain_changes = (id_pairs(&plain, began.iter().copied()), ended.len());
        let (began, ended) = fat_events.update(&fat);
        let fat_changes = (id_pairs(&fat, began.iter().copied()), ended.len());
        assert_eq!(plain_changes, fat_changes, "frame {frame}");
        same_answers(&plain, &fat, &mut rng, world);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_structure_answers_as_without_a_margin(
        seed in any::<u64>(),
        kind in 0..Kind::ALL_2D.len(),
        margin_share in prop::sample::select(vec![0.001f32, 0.02, 0.1, 0.5]),
    ) {
        let world = 1024.0;
        let empty = AnyIndex::for_world(Kind::ALL_2D[kind], Rect::new(0.0, 0.0, world, world)).unwrap();
        twins(empty, world, world / 32.0 * margin_share * 8.0, seed);
    }

    #[test]
    fn the_octree_answers_as_without_a_margin(seed in any::<u64>()) {
        let world = 256.0;
        let empty = Octree::for_world(Box3::new(0.0, 0.0, 0.0, world, world, world)).unwrap();
        twins(empty, world, 2.0, seed);
    }
}

#[test]
fn a_move_inside_the_fat_box_keeps_the_filing_and_answers_exactly() {
    let world = Rect::new(0.0, 0.0, 64.0, 64.0);
    for kind in Kind::ALL_2D {
        let mut index = AnyIndex::for_world(kind, world)
            .unwrap()
            .with_margin(2.0)
            .unwrap();
        let a = index.insert(Rect::new(10.0, 10.0, 11.0, 11.0), 1).unwrap();
        let b = index.insert(Rect::new(12.5, 10.0, 13.5, 11.0), 2).unwrap();
        // The fat boxes meet (9..13 and 10.5..15.5), the boxes do not.
        let mut pairs = Vec::new();
        index.pairs(&mut pairs);
        assert!(pairs.is_empty(), "{kind:?}");
        let before = index.stats();
        index.update(a, Rect::new(11.5, 10.0, 12.5, 11.0)).unwrap();
        assert_eq!(
            index.stats(),
            before,
            "{kind:?}: a move inside the fat box refiled"
        );
        index.pairs(&mut pairs);
        assert_eq!(pairs.len(), 1, "{kind:?}");
        assert_eq!(index.rect(a).unwrap(), Rect::new(11.5, 10.0, 12.5, 11.0));
        // A batch with `b` twice: far away, then back beside `a`.
        let far = Rect::new(50.0, 50.0, 51.0, 51.0);
        let back = Rect::new(12.0, 10.0, 13.0, 11.0);
        index.update_many(&[b, b], &[far, back]).unwrap();
        index.validate().unwrap();
        assert_eq!(index.rect(b).unwrap(), back);
        index.pairs(&mut pairs);
        assert_eq!(pairs.len(), 1, "{kind:?}");
    }
}

#[test]
fn bad_margins_are_refused_and_change_nothing() {
    let world = Rect::new(0.0, 0.0, 64.0, 64.0);
    for kind in Kind::ALL_2D {
        let mut index = AnyIndex::for_world(kind, world)
            .unwrap()
            .with_margin(1.0)
            .unwrap();
        index.insert(Rect::new(1.0, 1.0, 2.0, 2.0), 0).unwrap();
        let before = index.to_bytes();
        for margin in [f32::NAN, -0.5, f32::INFINITY, f32::NEG_INFINITY] {
            let error = index.set_margin(margin).unwrap_err();
            assert_eq!(error.kind(), flatquad::ErrorKind::InvalidParameter);
            assert!(error.to_string().contains("margin"), "{error}");
        }
        assert_eq!(index.to_bytes(), before);
        assert_eq!(index.margin(), 1.0);
        assert!(AnyIndex::for_world(kind, world)
            .unwrap()
            .with_margin(-1.0)
            .is_err());
    }
}
