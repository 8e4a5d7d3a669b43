//! Every kind of bad input, on every structure: each call returns the specific
//! error and leaves the structure exactly as it was (its bytes, contents,
//! shape, query and pair results). Then the constructors' bad worlds and bad
//! parameters.

#[macro_use]
mod common;

use std::ops::ControlFlow;

use common::{snapshot, Snapshot, Subject};
use flatquad::{
    AnyIndex, Error, ErrorKind, Grid, Handle, Kind, LooseGrid, LooseQuadtree, Quadtree, Query,
    Rect, SpatialIndex,
};

const GOOD: Rect = Rect::new(10.0, 10.0, 20.0, 20.0);

/// A structure with a history: live elements, removed ones (stale handles),
/// and for a tree split leaves and empty leaves left for cleanup.
fn sample<T: Subject>(make: fn(Rect) -> T) -> (T, Vec<Handle>, Vec<Handle>) {
    let mut tree = make(Rect::new(0.0, 0.0, 100.0, 100.0));
    let mut rng = common::Lcg(42);
    let mut live = Vec::new();
    for i in 0..60 {
        let (x, y) = (rng.unit() * 120.0 - 10.0, rng.unit() * 120.0 - 10.0);
        let r = Rect::new(x, y, x + rng.unit() * 8.0, y + rng.unit() * 8.0);
        live.push(tree.insert(r, i).unwrap());
    }
    let mut dead = Vec::new();
    for k in (0..60).step_by(3).rev() {
        let h = live.remove(k);
        tree.remove(h).unwrap();
        dead.push(h);
    }
    tree.validate().unwrap();
    (tree, live, dead)
}

/// Runs a call that must be refused; checks the tree is exactly as before and
/// returns the error.
fn refused<S: SpatialIndex<Bounds = Rect>, T: std::fmt::Debug>(
    tree: &mut S,
    call: impl FnOnce(&mut S) -> Result<T, Error>,
) -> Error {
    let before: Snapshot = snapshot(tree);
    let error = match call(tree) {
        Ok(v) => panic!("bad input accepted, returned {v:?}"),
        Err(e) => e,
    };
    assert_eq!(
        snapshot(tree),
        before,
        "refused call ({error}) changed the tree"
    );
    error
}

/// Bad rectangles: NaN (both signs) and each infinity in each coordinate, and
/// each axis inverted alone (by a lot and by one ulp).
fn bad_rects() -> Vec<Rect> {
    let mut rects = Vec::new();
    for at in 0..4 {
        for v in [f32::NAN, -f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            let mut c: [f32; 4] = GOOD.into();
            c[at] = v;
            rects.push(Rect::from(c));
        }
    }
    rects.push(Rect::new(20.0, 10.0, 10.0, 20.0)); // x inverted only
    rects.push(Rect::new(10.0, 20.0, 20.0, 10.0)); // y inverted only
    rects.push(Rect::new(common::next_up(10.0), 10.0, 10.0, 10.0)); // x by one ulp
    rects.push(Rect::new(10.0, common::next_up(10.0), 10.0, 10.0)); // y by one ulp
    rects.push(Rect::new(20.0, 20.0, 10.0, 10.0)); // both
    rects.push(Rect::new(f32::NAN, f32::NAN, f32::NAN, f32::NAN));
    rects.push(Rect::new(
        f32::NEG_INFINITY,
        f32::NEG_INFINITY,
        f32::INFINITY,
        f32::INFINITY,
    ));
    rects
}

fn is_invalid_rect(e: &Error, r: &Rect) -> bool {
    matches!(e, Error::InvalidRect(got) if common::bits(got) == common::bits(r))
        && e.kind() == ErrorKind::InvalidRect
}

fn is_invalid_handle(e: &Error, h: Handle) -> bool {
    matches!(e, Error::InvalidHandle(got) if *got == h) && e.kind() == ErrorKind::InvalidHandle
}

/// The text of an error names the offending rectangle.
fn assert_names_rect(e: &Error, r: &Rect) {
    let text = e.to_string();
    for v in [r.x1, r.y1, r.x2, r.y2] {
        assert!(text.contains(&v.to_string()), "{text:?} does not show {v}");
    }
}

/// Handles no tree ever issues, or this one did not: 0, all ones, huge
/// generations, generation 0, out-of-range slots, and (from `live`) a live slot
/// with the next generation and with a much later one.
fn forged_handles(live: &[Handle]) -> Vec<Handle> {
    let mut raws = vec![
        0,
        1,
        5,
        u64::MAX,
        1 << 53,
        (1 << 53) | 1,
        1 << 63,
        ((1 << 21) - 1) << 32,
        (1 << 32) | 1_000_000,
        (1 << 32) | u32::MAX as u64,
    ];
    for h in live.iter().take(3) {
        raws.push(h.to_raw() + (1 << 32));
        raws.push(h.to_raw() + (77 << 32));
        raws.push(h.to_raw() & 0xffff_ffff); // generation 0
        raws.push(h.to_raw() | 1 << 60);
    }
    raws.into_iter().map(Handle::from_raw).collect()
}

fn insert_refuses_bad_rects<T: Subject>(make: fn(Rect) -> T) {
    let (mut tree, _, _) = sample(make);
    for r in bad_rects() {
        assert!(!r.is_valid());
        let e = refused(&mut tree, |t| t.insert(r, 1));
        assert!(is_invalid_rect(&e, &r), "{r:?}: {e:?}");
        assert!(is_invalid_rect(e.root(), &r));
        assert_names_rect(&e, &r);
    }
}

fn insert_many_refuses_the_whole_batch<T: Subject>(make: fn(Rect) -> T) {
    let (mut tree, _, _) = sample(make);
    let good = [GOOD, Rect::point(1.0, 1.0), Rect::new(-5.0, 0.0, 5.0, 0.0)];
    for bad in bad_rects() {
        for index in [0, 2, 4] {
            let mut rects = vec![good[0], good[1], good[2], good[1]];
            rects.insert(index, bad);
            rects.push(bad); // a later bad item is not the one reported
            let ids: Vec<u32> = (0..rects.len() as u32).collect();
            let sentinel = Handle::from_raw(7);
            let mut handles = vec![sentinel];
            let e = refused(&mut tree, |t| t.insert_many(&rects, &ids, &mut handles));
            assert_eq!(handles, [sentinel], "handles appended by a refused batch");
            match &e {
                Error::InBatch { index: i, error } => {
                    assert_eq!(*i, index, "{e:?}");
                    assert!(is_invalid_rect(error, &bad), "{e:?}");
                }
                other => panic!("expected InBatch, got {other:?}"),
            }
            assert!(is_invalid_rect(e.root(), &bad));
            let text = e.to_string();
            assert!(text.contains(&format!("item {index}")), "{text}");
            assert_names_rect(&e, &bad);
        }
    }
}

fn batch_lengths_must_match<T: Subject>(make: fn(Rect) -> T) {
    let (mut tree, live, _) = sample(make);
    let mut handles = Vec::new();
    for (rects, ids) in [(2, 3), (3, 2), (0, 1), (1, 0)] {
        let rs = vec![GOOD; rects];
        let is = vec![0u32; ids];
        let e = refused(&mut tree, |t| t.insert_many(&rs, &is, &mut handles));
        assert!(
            matches!(e, Error::LengthMismatch { expected, found } if expected == rects && found == ids),
            "{e:?}"
        );
        let text = e.to_string();
        assert!(
            text.contains(&rects.to_string()) && text.contains(&ids.to_string()),
            "{text}"
        );
        assert!(handles.is_empty());
    }
    // A length mismatch wins over bad items.
    let e = refused(&mut tree, |t| {
        t.insert_many(&[bad_rects()[0]], &[1, 2], &mut handles)
    });
    assert!(
        matches!(
            e,
            Error::LengthMismatch {
                expected: 1,
                found: 2
            }
        ),
        "{e:?}"
    );

    for (hs, rs) in [(2, 3), (3, 2), (0, 1), (1, 0)] {
        let handles = &live[..hs];
        let rects = vec![GOOD; rs];
        let e = refused(&mut tree, |t| t.update_many(handles, &rects));
        assert!(
            matches!(e, Error::LengthMismatch { expected, found } if expected == hs && found == rs),
            "{e:?}"
        );
    }
}

fn update_refuses_bad_rects_and_stale_handles<T: Subject>(make: fn(Rect) -> T) {
    let (mut tree, live, dead) = sample(make);
    let h = live[5];
    let before = tree.rect(h).unwrap();
    for r in bad_rects() {
        let e = refused(&mut tree, |t| t.update(h, r));
        assert!(is_invalid_rect(&e, &r), "{e:?}");
        assert_eq!(tree.rect(h).unwrap(), before);
    }
    for &h in dead.iter().chain(&forged_handles(&live)) {
        let e = refused(&mut tree, |t| t.update(h, GOOD));
        assert!(is_invalid_handle(&e, h), "{h:?}: {e:?}");
        assert!(e.to_string().contains(&h.to_raw().to_string()), "{e}");
    }
}

fn update_many_refuses_the_whole_batch<T: Subject>(make: fn(Rect) -> T) {
    let (mut tree, live, dead) = sample(make);
    let handles: Vec<Handle> = live[..6].to_vec();
    let moved: Vec<Rect> = (0..6)
        .map(|i| Rect::from_xywh(i as f32 * 3.0, 50.0, 2.0, 2.0))
        .collect();
    for bad in bad_rects() {
        for index in [0, 3, 5] {
            let mut rects = moved.clone();
            rects[index] = bad;
            let e = refused(&mut tree, |t| t.update_many(&handles, &rects));
            assert!(
                matches!(&e, Error::InBatch { index: i, error } if *i == index && is_invalid_rect(error, &bad)),
                "{e:?}"
            );
            assert!(is_invalid_rect(e.root(), &bad));
        }
    }
    let mut stale = forged_handles(&live);
    stale.extend(&dead);
    for s in stale {
        for index in [0, 2, 5] {
            let mut hs = handles.clone();
            hs[index] = s;
            let e = refused(&mut tree, |t| t.update_many(&hs, &moved));
            assert!(
                matches!(&e, Error::InBatch { index: i, error } if *i == index && is_invalid_handle(error, s)),
                "{e:?}"
            );
            assert!(is_invalid_handle(e.root(), s));
        }
    }
    // The first bad item is the one reported, whichever way it is bad.
    let mut hs = handles.clone();
    let mut rects = moved.clone();
    hs[4] = dead[0];
    rects[2] = bad_rects()[0];
    let e = refused(&mut tree, |t| t.update_many(&hs, &rects));
    assert!(matches!(e, Error::InBatch { index: 2, .. }), "{e:?}");
    // After all that, the good batch goes through.
    tree.update_many(&handles, &moved).unwrap();
    tree.validate().unwrap();
    for (h, r) in handles.iter().zip(&moved) {
        assert_eq!(tree.rect(*h).unwrap(), *r);
    }
}

fn remove_refuses_double_removal_and_forged_handles<T: Subject>(make: fn(Rect) -> T) {
    let (mut tree, live, dead) = sample(make);
    for &h in &dead {
        let e = refused(&mut tree, |t| t.remove(h));
        assert!(is_invalid_handle(&e, h), "{e:?}");
    }
    // Remove, then remove again.
    let h = live[0];
    tree.remove(h).unwrap();
    let e = refused(&mut tree, |t| t.remove(h));
    assert!(is_invalid_handle(&e, h), "{e:?}");
    assert!(e.to_string().contains(&h.to_raw().to_string()), "{e}");
    // The slot is reused by the next insert, and the old handle still refused.
    let fresh = tree.insert(GOOD, 9).unwrap();
    assert_eq!(fresh.to_raw() as u32, h.to_raw() as u32, "slot reused");
    assert_ne!(fresh, h);
    let e = refused(&mut tree, |t| t.remove(h));
    assert!(is_invalid_handle(&e, h), "{e:?}");
    assert!(tree.contains(fresh));

    for f in forged_handles(&live[1..]) {
        let e = refused(&mut tree, |t| t.remove(f));
        assert!(is_invalid_handle(&e, f), "{f:?}: {e:?}");
        assert!(!tree.contains(f));
        assert!(is_invalid_handle(&tree.id(f).unwrap_err(), f));
        assert!(is_invalid_handle(&tree.rect(f).unwrap_err(), f));
    }
}

fn remove_many_refuses_duplicates_and_stale_handles<T: Subject>(make: fn(Rect) -> T) {
    let (mut tree, live, dead) = sample(make);
    // A duplicate: reported at its second occurrence.
    for (first, second) in [(0, 1), (1, 3), (0, 4), (3, 4)] {
        let mut hs = live[..5].to_vec();
        hs[second] = hs[first];
        let e = refused(&mut tree, |t| t.remove_many(&hs));
        assert!(
            matches!(&e, Error::InBatch { index, error }
                if *index == second && matches!(**error, Error::DuplicateHandle(d) if d == hs[first])),
            "{e:?}"
        );
        assert!(matches!(e.root(), Error::DuplicateHandle(d) if *d == hs[first]));
        assert!(
            e.to_string().contains(&hs[first].to_raw().to_string()),
            "{e}"
        );
    }
    // A stale or forged handle in the middle.
    let mut stale = dead.clone();
    stale.extend(forged_handles(&live));
    for s in stale {
        for index in [0, 2, 4] {
            let mut hs = live[..4].to_vec();
            hs.insert(index, s);
            let e = refused(&mut tree, |t| t.remove_many(&hs));
            assert!(
                matches!(&e, Error::InBatch { index: i, error } if *i == index && is_invalid_handle(error, s)),
                "{e:?}"
            );
        }
    }
    // Stale before a duplicate: the first problem wins.
    let hs = [live[0], dead[0], live[0]];
    let e = refused(&mut tree, |t| t.remove_many(&hs));
    assert!(matches!(e, Error::InBatch { index: 1, .. }), "{e:?}");
    // Every handle given twice, all at once.
    let mut hs = live[..5].to_vec();
    hs.extend_from_slice(&live[..5]);
    let e = refused(&mut tree, |t| t.remove_many(&hs));
    assert!(matches!(e, Error::InBatch { index: 5, .. }), "{e:?}");
    // The refusals left no trace: the same handles, once each, go.
    tree.remove_many(&live[..5]).unwrap();
    tree.validate().unwrap();
    for &h in &live[..5] {
        assert!(!tree.contains(h));
    }
    assert!(tree.contains(live[5]));
    // And removing them again is refused.
    let e = refused(&mut tree, |t| t.remove_many(&live[3..7]));
    assert!(
        matches!(&e, Error::InBatch { index: 0, error } if is_invalid_handle(error, live[3])),
        "{e:?}"
    );
}

fn handles_from_before_clear_are_refused<T: Subject>(make: fn(Rect) -> T) {
    let (mut tree, live, _) = sample(make);
    tree.clear();
    let fresh = tree.insert(GOOD, 1).unwrap();
    for &h in &live {
        assert!(!tree.contains(h));
        let e = refused(&mut tree, |t| t.remove(h));
        assert!(is_invalid_handle(&e, h), "{e:?}");
        let e = refused(&mut tree, |t| t.update(h, GOOD));
        assert!(is_invalid_handle(&e, h), "{e:?}");
        let e = refused(&mut tree, |t| t.remove_many(&[fresh, h]));
        assert!(matches!(e, Error::InBatch { index: 1, .. }), "{e:?}");
        let mut hits = Vec::new();
        let e = tree
            .query(&Query::rect(GOOD).omit(h), &mut hits)
            .unwrap_err();
        assert!(is_invalid_handle(&e, h), "{e:?}");
    }
}

fn queries_refuse_bad_rects_points_and_omits<T: Subject>(make: fn(Rect) -> T) {
    let (tree, live, dead) = sample(make);
    let before = snapshot(&tree);
    let junk = Handle::from_raw(3);
    for r in bad_rects() {
        let mut hits = vec![junk];
        let e = tree.query(&Query::rect(r), &mut hits).unwrap_err();
        assert!(is_invalid_rect(&e, &r), "{e:?}");
        assert!(hits.is_empty(), "hits left after a refused query");
        let mut called = false;
        let e = tree
            .visit(&Query::rect(r).omit(live[0]), |_| {
                called = true;
                ControlFlow::Continue(())
            })
            .unwrap_err();
        assert!(is_invalid_rect(&e, &r), "{e:?}");
        assert!(!called);
    }
    for &h in dead.iter().chain(&forged_handles(&live)) {
        let mut hits = vec![junk];
        let e = tree
            .query(&Query::rect(GOOD).omit(h), &mut hits)
            .unwrap_err();
        assert!(is_invalid_handle(&e, h), "{e:?}");
        assert!(hits.is_empty());
        let mut hits = vec![junk];
        let e = tree
            .query(&Query::point([15.0, 15.0]).omit(h), &mut hits)
            .unwrap_err();
        assert!(is_invalid_handle(&e, h), "{e:?}");
        assert!(hits.is_empty());
        let mut called = false;
        let e = tree
            .visit(&Query::point([15.0, 15.0]).omit(h), |_| {
                called = true;
                ControlFlow::Continue(())
            })
            .unwrap_err();
        assert!(is_invalid_handle(&e, h), "{e:?}");
        assert!(!called);
        // An element's own neighbours: the handle must be live.
        let mut hits = vec![junk];
        let e = tree.query(&Query::element(h), &mut hits).unwrap_err();
        assert!(is_invalid_handle(&e, h), "{e:?}");
        assert!(hits.is_empty());
        let e = tree
            .visit(&Query::element(h), |_| {
                called = true;
                ControlFlow::Continue(())
            })
            .unwrap_err();
        assert!(is_invalid_handle(&e, h), "{e:?}");
        assert!(!called);
        let (mut offsets, mut hits) = (vec![7], vec![junk]);
        let e = tree
            .overlapping_many(&[live[0], live[1], h], &mut offsets, &mut hits)
            .unwrap_err();
        assert!(
            matches!(&e, Error::InBatch { index: 2, error } if is_invalid_handle(error, h)),
            "{e:?}"
        );
        assert_eq!((offsets, hits), (vec![7], vec![junk]), "written on error");
    }
    let specials = [f32::NAN, -f32::NAN, f32::INFINITY, f32::NEG_INFINITY];
    for bad in specials {
        for (x, y) in [(bad, 1.0), (1.0, bad), (bad, bad)] {
            let mut hits = vec![junk];
            let e = tree.query(&Query::point([x, y]), &mut hits).unwrap_err();
            assert!(
                matches!(e, Error::InvalidPoint { x: ex, y: ey } if ex.to_bits() == x.to_bits() && ey.to_bits() == y.to_bits()),
                "{e:?}"
            );
            assert!(hits.is_empty());
            let text = e.to_string();
            assert!(
                text.contains(&x.to_string()) && text.contains(&y.to_string()),
                "{text}"
            );
            // A bad point wins over a bad omit.
            let e = tree
                .query(&Query::point([x, y]).omit(dead[0]), &mut hits)
                .unwrap_err();
            assert!(matches!(e, Error::InvalidPoint { .. }), "{e:?}");
        }
    }
    assert_eq!(snapshot(&tree), before);
}

/// Worlds no structure can divide.
fn bad_worlds() -> Vec<Rect> {
    let mut worlds = Vec::new();
    for at in 0..4 {
        for v in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            let mut c = [0.0f32, 0.0, 1.0, 1.0];
            c[at] = v;
            worlds.push(Rect::from(c));
        }
    }
    worlds.extend([
        Rect::new(0.0, 0.0, 0.0, 1.0),    // zero width
        Rect::new(0.0, 0.0, 1.0, 0.0),    // zero height
        Rect::new(5.0, 5.0, 5.0, 5.0),    // a point
        Rect::new(1.0, 0.0, 0.0, 1.0),    // inverted x
        Rect::new(0.0, 1.0, 1.0, 0.0),    // inverted y
        Rect::new(-3e38, 0.0, 3e38, 1.0), // width overflows f32
        Rect::new(0.0, -3e38, 1.0, 3e38), // height overflows f32
        Rect::new(f32::MIN, f32::MIN, f32::MAX, f32::MAX),
    ]);
    worlds
}

/// Every constructor of every structure over `world`, by name.
#[allow(clippy::type_complexity)]
fn constructors() -> Vec<(&'static str, fn(Rect) -> Result<AnyIndex, Error>)> {
    vec![
        ("Quadtree::new", |w| Quadtree::new(w, 8, 8).map(Into::into)),
        ("Quadtree::for_world", |w| {
            Quadtree::for_world(w).map(Into::into)
        }),
        ("Grid::new", |w| Grid::new(w, 7, 3).map(Into::into)),
        ("Grid::with_cell_size", |w| {
            Grid::with_cell_size(w, w.width(), w.height() / 3.0).map(Into::into)
        }),
        ("Grid::for_world", |w| Grid::for_world(w).map(Into::into)),
        ("LooseGrid::new", |w| {
            LooseGrid::new(w, 8, 4, 4, 2).map(Into::into)
        }),
        ("LooseGrid::with_cell_size", |w| {
            LooseGrid::with_cell_size(w, w.width().max(w.height()) / 8.0).map(Into::into)
        }),
        ("LooseGrid::for_world", |w| {
            LooseGrid::for_world(w).map(Into::into)
        }),
        ("LooseQuadtree::new", |w| {
            LooseQuadtree::new(w, 8, 8).map(Into::into)
        }),
        ("LooseQuadtree::for_world", |w| {
            LooseQuadtree::for_world(w).map(Into::into)
        }),
        ("AnyIndex::for_world(Quadtree)", |w| {
            AnyIndex::for_world(Kind::Quadtree, w)
        }),
        ("AnyIndex::for_world(Grid)", |w| {
            AnyIndex::for_world(Kind::Grid, w)
        }),
        ("AnyIndex::for_world(LooseGrid)", |w| {
            AnyIndex::for_world(Kind::LooseGrid, w)
        }),
        ("AnyIndex::for_world(LooseQuadtree)", |w| {
            AnyIndex::for_world(Kind::LooseQuadtree, w)
        }),
    ]
}

#[test]
fn every_constructor_refuses_bad_worlds() {
    for (name, make) in constructors() {
        for world in bad_worlds() {
            let e = make(world).unwrap_err();
            assert!(
                matches!(e, Error::InvalidWorld(w) if common::bits(&w) == common::bits(&world)),
                "{name} {world:?}: {e:?}"
            );
            assert_eq!(e.kind(), ErrorKind::InvalidWorld);
            assert_names_rect(&e, &world);
        }
        // Just inside the limits: huge, and one subnormal wide.
        for world in [
            Rect::new(-1.5e38, 0.0, 1.5e38, 1.0),
            Rect::new(0.0, 0.0, f32::from_bits(1), 1.0),
        ] {
            let index = make(world).unwrap_or_else(|e| panic!("{name} {world:?}: {e}"));
            index.validate().unwrap();
            assert_eq!(index.world(), world);
        }
    }
    Quadtree::new(Rect::new(-1.5e38, 0.0, 1.5e38, 1.0), 1, 30)
        .unwrap()
        .validate()
        .unwrap();
    Quadtree::new(Rect::new(0.0, 0.0, f32::from_bits(1), 1.0), u32::MAX, 0)
        .unwrap()
        .validate()
        .unwrap();
}

#[test]
fn new_refuses_bad_parameters() {
    let world = Rect::new(0.0, 0.0, 1.0, 1.0);
    let e = Quadtree::new(world, 0, 8).unwrap_err();
    assert!(
        matches!(
            e,
            Error::InvalidParameter {
                name: "max_elements",
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("max_elements"), "{e}");
    for depth in [31, 32, 64, u32::MAX] {
        let e = Quadtree::new(world, 8, depth).unwrap_err();
        assert!(
            matches!(
                e,
                Error::InvalidParameter {
                    name: "max_depth",
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(e.to_string().contains("max_depth"), "{e}");
    }
    assert_eq!(Quadtree::MAX_DEPTH_LIMIT, 30);
    Quadtree::new(world, 1, 30).unwrap();
    // A bad world is reported before bad parameters.
    let e = Quadtree::new(Rect::new(0.0, 0.0, 0.0, 0.0), 0, 99).unwrap_err();
    assert!(matches!(e, Error::InvalidWorld(_)), "{e:?}");
}

/// The brief: error messages mention the bad value. `InvalidParameter` names
/// the parameter and the allowed range but not the value that was given.
#[test]
fn parameter_errors_show_the_value_given() {
    let world = Rect::new(0.0, 0.0, 1.0, 1.0);
    let e = Quadtree::new(world, 8, 31).unwrap_err();
    assert!(e.to_string().contains("31"), "{e}");
    let e = Quadtree::new(world, 8, 4_000_000_000).unwrap_err();
    assert!(e.to_string().contains("4000000000"), "{e}");
    let e = Quadtree::new(world, 0, 8).unwrap_err();
    assert!(e.to_string().contains(" 0"), "{e}");
}

fn refused_calls_on_an_empty_structure_change_nothing<T: Subject>(make: fn(Rect) -> T) {
    let mut tree = make(Rect::new(-1.0, -1.0, 1.0, 1.0));
    let before = snapshot(&tree);
    for r in bad_rects() {
        refused(&mut tree, |t| t.insert(r, 0));
        refused(&mut tree, |t| t.insert_many(&[r], &[0], &mut Vec::new()));
    }
    for f in forged_handles(&[]) {
        refused(&mut tree, |t| t.remove(f));
        refused(&mut tree, |t| t.remove_many(&[f]));
        refused(&mut tree, |t| t.update(f, GOOD));
        refused(&mut tree, |t| t.update_many(&[f], &[GOOD]));
    }
    assert_eq!(snapshot(&tree), before);
    // Empty batches are fine and change nothing either.
    tree.insert_many(&[], &[], &mut Vec::new()).unwrap();
    tree.remove_many(&[]).unwrap();
    tree.update_many(&[], &[]).unwrap();
    assert_eq!(snapshot(&tree), before);
}

/// Asserts `InvalidParameter` naming a parameter that contains `name`.
fn assert_parameter(result: Result<impl std::fmt::Debug, Error>, name: &str, context: &str) {
    let e = result.expect_err(context);
    assert!(
        matches!(e, Error::InvalidParameter { name: got, .. } if got.contains(name)),
        "{context}: {e:?} does not name {name}"
    );
    assert_eq!(e.kind(), ErrorKind::InvalidParameter);
    assert!(e.to_string().contains(name), "{context}: {e}");
}

/// Cell sizes no grid accepts: NaN, zero, negative or infinite.
const BAD_CELL_SIZES: [f32; 8] = [
    f32::NAN,
    -f32::NAN,
    0.0,
    -0.0,
    -1.0,
    f32::MIN,
    f32::INFINITY,
    f32::NEG_INFINITY,
];

#[test]
fn grid_constructors_refuse_bad_parameters() {
    let world = Rect::new(0.0, 0.0, 1.0, 1.0);
    for (columns, rows, name) in [
        (0, 1, "columns"),
        (1, 0, "rows"),
        (0, 0, "columns"),
        (65_537, 1, "columns"),
        (1, 65_537, "rows"),
        (u32::MAX, 1, "columns"),
    ] {
        let context = format!("Grid::new({columns}, {rows})");
        assert_parameter(Grid::new(world, columns, rows), name, &context);
        let e = Grid::new(world, columns, rows).unwrap_err();
        let given = if name == "columns" { columns } else { rows };
        assert!(e.to_string().contains(&given.to_string()), "{e}");
    }
    // Absurdly many cells in all, refused before anything is allocated.
    for (columns, rows) in [(65_536, 65_536), (16_384, 16_384), (8_193, 8_192)] {
        let context = format!("Grid::new({columns}, {rows})");
        assert_parameter(Grid::new(world, columns, rows), "", &context);
    }
    for bad in BAD_CELL_SIZES {
        for (w, h) in [(bad, 0.5), (0.5, bad), (bad, bad)] {
            let context = format!("Grid::with_cell_size({w}, {h})");
            assert_parameter(Grid::with_cell_size(world, w, h), "cell", &context);
        }
    }
    // Cells so small that the grid would be absurdly big.
    let big = Rect::new(-1e6, -1e6, 1e6, 1e6);
    for (w, h) in [
        (1e-3, 1e-3),
        (f32::MIN_POSITIVE, 1.0),
        (1.0, f32::from_bits(1)),
        (20.0, 20.0),   // 100,000 columns
        (100.0, 100.0), // 20,000 × 20,000 cells
    ] {
        let context = format!("Grid::with_cell_size({w}, {h}) over {big:?}");
        assert_parameter(Grid::with_cell_size(big, w, h), "", &context);
    }
    // A bad world is reported before bad parameters.
    let e = Grid::new(Rect::new(0.0, 0.0, 0.0, 0.0), 0, 0).unwrap_err();
    assert!(matches!(e, Error::InvalidWorld(_)), "{e:?}");
    let e = Grid::with_cell_size(Rect::new(0.0, 0.0, f32::NAN, 1.0), f32::NAN, 0.0).unwrap_err();
    assert!(matches!(e, Error::InvalidWorld(_)), "{e:?}");
    // Just inside the limits.
    for (columns, rows) in [(65_536, 1), (1, 65_536), (1, 1)] {
        let grid = Grid::new(world, columns, rows).unwrap();
        assert_eq!((grid.columns(), grid.rows()), (columns, rows));
        grid.validate().unwrap();
    }
    let grid = Grid::with_cell_size(world, 1e30, f32::MAX).unwrap();
    assert_eq!((grid.columns(), grid.rows()), (1, 1));
}

#[test]
fn loose_grid_constructors_refuse_bad_parameters() {
    let world = Rect::new(0.0, 0.0, 1.0, 1.0);
    for (shape, name) in [
        ((0, 1, 1, 1), "columns"),
        ((1, 0, 1, 1), "rows"),
        ((65_537, 1, 1, 1), "columns"),
        ((1, 65_537, 1, 1), "rows"),
        ((u32::MAX, 4, 1, 1), "columns"),
        // Tight cells: none, or finer than the loose ones.
        ((4, 4, 0, 1), "tight_columns"),
        ((4, 4, 1, 0), "tight_rows"),
        ((4, 4, 5, 4), "tight_columns"),
        ((4, 4, 4, 5), "tight_rows"),
        ((1, 1, 2, 2), "tight"),
        ((7, 3, 7, u32::MAX), "tight_rows"),
    ] {
        let (columns, rows, tight_columns, tight_rows) = shape;
        let context = format!("LooseGrid::new{shape:?}");
        assert_parameter(
            LooseGrid::new(world, columns, rows, tight_columns, tight_rows),
            name,
            &context,
        );
    }
    // Absurdly many cells in all, refused before anything is allocated.
    for (columns, rows) in [(65_536, 65_536), (16_384, 16_384), (8_193, 8_192)] {
        let context = format!("LooseGrid::new({columns}, {rows}, 1, 1)");
        assert_parameter(LooseGrid::new(world, columns, rows, 1, 1), "", &context);
    }
    for bad in BAD_CELL_SIZES {
        let context = format!("LooseGrid::with_cell_size({bad})");
        assert_parameter(LooseGrid::with_cell_size(world, bad), "cell", &context);
    }
    let big = Rect::new(-1e6, -1e6, 1e6, 1e6);
    for cell in [1e-3, f32::MIN_POSITIVE, f32::from_bits(1), 20.0, 100.0] {
        let context = format!("LooseGrid::with_cell_size({cell}) over {big:?}");
        assert_parameter(LooseGrid::with_cell_size(big, cell), "", &context);
    }
    // A bad world is reported before bad parameters.
    let e = LooseGrid::new(Rect::new(0.0, 0.0, 0.0, 0.0), 0, 0, 9, 9).unwrap_err();
    assert!(matches!(e, Error::InvalidWorld(_)), "{e:?}");
    let e = LooseGrid::with_cell_size(Rect::new(0.0, 0.0, f32::NAN, 1.0), f32::NAN).unwrap_err();
    assert!(matches!(e, Error::InvalidWorld(_)), "{e:?}");
    // Just inside the limits: tight as fine as loose, one cell, one long row.
    for (columns, rows, tight_columns, tight_rows) in [
        (4, 4, 4, 4),
        (1, 1, 1, 1),
        (65_536, 1, 65_536, 1),
        (7, 3, 1, 1),
    ] {
        let grid = LooseGrid::new(world, columns, rows, tight_columns, tight_rows).unwrap();
        assert_eq!(
            (
                grid.columns(),
                grid.rows(),
                grid.tight_columns(),
                grid.tight_rows()
            ),
            (columns, rows, tight_columns, tight_rows)
        );
        grid.validate().unwrap();
    }
    let grid = LooseGrid::with_cell_size(world, 1e30).unwrap();
    assert_eq!((grid.columns(), grid.rows()), (1, 1));
}

per_structure! {
    quadtree: |world| Quadtree::new(world, 2, 6),
    grid: |world| Grid::new(world, 8, 8),
    loose_grid: |world| LooseGrid::new(world, 8, 8, 4, 4),
    loose_quadtree: |world| LooseQuadtree::new(world, 2, 6);
    insert_refuses_bad_rects,
    insert_many_refuses_the_whole_batch,
    batch_lengths_must_match,
    update_refuses_bad_rects_and_stale_handles,
    update_many_refuses_the_whole_batch,
    remove_refuses_double_removal_and_forged_handles,
    remove_many_refuses_duplicates_and_stale_handles,
    handles_from_before_clear_are_refused,
    queries_refuse_bad_rects_points_and_omits,
}

// An empty structure as deep or as fine as it gets.
per_structure! {
    quadtree: |world| Quadtree::new(world, 1, 30),
    grid: |world| Grid::new(world, 64, 64),
    loose_grid: |world| LooseGrid::new(world, 64, 64, 32, 32),
    loose_quadtree: |world| LooseQuadtree::new(world, 1, 30);
    refused_calls_on_an_empty_structure_change_nothing,
}
