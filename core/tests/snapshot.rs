//! `to_bytes`/`from_bytes` round-trip every structure exactly, damaged bytes are
//! refused, and a snapshot names its structure: another structure refuses it,
//! `AnyIndex` reads it back as what it was.

#[macro_use]
mod common;

use common::{brute_pairs, brute_query, nodes, pairs_sorted, query_sorted, Lcg, Subject};
use flatquad::{
    AnyIndex, Error, Grid, Handle, Kind, LooseGrid, LooseQuadtree, Quadtree, Rect, SpatialIndex,
};

const WORLD: Rect = Rect::new(-10.0, -10.0, 30.0, 20.0);

/// A structure with a history: elements inserted and removed (stale handles),
/// points, two elements far bigger than the world, and a cleanup.
fn sample_tree<T: Subject>(make: fn(Rect) -> T) -> (T, Vec<Handle>, Vec<Handle>) {
    let mut rng = Lcg(99);
    let mut f = || rng.unit();
    let mut tree = make(WORLD);
    let mut live = Vec::new();
    for i in 0..60 {
        let (x, y) = (f() * 50.0 - 15.0, f() * 40.0 - 15.0);
        live.push(
            tree.insert(Rect::new(x, y, x + f() * 4.0, y + f() * 4.0), i)
                .unwrap(),
        );
    }
    let mut stale = Vec::new();
    for _ in 0..20 {
        let h = live.remove((f() * live.len() as f32) as usize);
        tree.remove(h).unwrap();
        stale.push(h);
    }
    for i in 0..5 {
        live.push(tree.insert(Rect::point(i as f32, 1.0), 100 + i).unwrap());
    }
    live.push(
        tree.insert(Rect::new(-100.0, -50.0, 100.0, 50.0), 200)
            .unwrap(),
    );
    live.push(tree.insert(Rect::new(0.0, -1e30, 0.5, 1e30), 201).unwrap());
    tree.cleanup();
    (tree, live, stale)
}

fn round_trip_keeps_handles_structure_and_results<T: Subject>(make: fn(Rect) -> T) {
    let (tree, live, stale) = sample_tree(make);
    let copy = T::from_bytes(&tree.to_bytes()).unwrap();
    copy.validate().unwrap();
    assert_eq!(copy.to_bytes(), tree.to_bytes());
    assert_eq!(copy.world(), tree.world());
    // Equal but for `bytes`, which counts spare capacity.
    let without_bytes = |t: &T| flatquad::Stats {
        bytes: 0,
        ..t.stats()
    };
    assert_eq!(without_bytes(&copy), without_bytes(&tree));
    assert_eq!(nodes(&copy), nodes(&tree));
    assert_eq!(
        copy.iter().collect::<Vec<_>>(),
        tree.iter().collect::<Vec<_>>()
    );
    for h in &live {
        assert_eq!(copy.id(*h).unwrap(), tree.id(*h).unwrap());
    }
    for h in &stale {
        assert!(!copy.contains(*h));
    }
    // The same pairs; their order is unspecified (a grid read from bytes has
    // its cells laid out contiguously, and walks them in another order).
    let pairs = pairs_sorted(&tree);
    assert!(!pairs.is_empty());
    assert_eq!(pairs_sorted(&copy), pairs);
    // Both structures go on issuing the same handles.
    let (mut tree, mut copy) = (tree, copy);
    let r = Rect::new(0.0, 0.0, 1.0, 1.0);
    assert_eq!(tree.insert(r, 1).unwrap(), copy.insert(r, 1).unwrap());
    for &h in &live[..3] {
        tree.remove(h).unwrap();
        copy.remove(h).unwrap();
    }
    assert_eq!(tree.insert(r, 2).unwrap(), copy.insert(r, 2).unwrap());
    assert_eq!(copy.to_bytes(), tree.to_bytes());
}

/// Whatever loads answers exactly for what it holds.
fn assert_consistent<T: Subject>(copy: &T) {
    copy.validate().unwrap();
    let elements: Vec<(Handle, Rect)> = copy.iter().map(|(h, r, _)| (h, r)).collect();
    let map: std::collections::BTreeMap<Handle, Rect> = elements.iter().copied().collect();
    // Every handle the snapshot lists is one the structure accepts (a stray
    // stamp bit once made `iter` give handles that `remove` refused).
    for (h, r) in &elements {
        assert_eq!(copy.rect(*h), Ok(*r), "{h:?}");
    }
    for q in [
        Rect::new(f32::MIN, f32::MIN, f32::MAX, f32::MAX),
        WORLD,
        Rect::new(0.0, 0.0, 5.0, 5.0),
        Rect::point(1.0, 1.0),
    ] {
        assert_eq!(
            query_sorted(copy, q, None).unwrap(),
            brute_query(map.iter(), &q, None),
            "a loaded snapshot: query {q:?}"
        );
    }
    assert_eq!(pairs_sorted(copy), brute_pairs(&elements));
}

fn damaged_bytes_are_refused_without_panicking<T: Subject>(make: fn(Rect) -> T) {
    let (tree, _, _) = sample_tree(make);
    let bytes = tree.to_bytes();
    for cut in 0..bytes.len() {
        assert!(matches!(
            T::from_bytes(&bytes[..cut]),
            Err(Error::InvalidBytes(_))
        ));
        assert!(matches!(
            AnyIndex::from_bytes(&bytes[..cut]),
            Err(Error::InvalidBytes(_))
        ));
    }
    let mut loaded = 0;
    for at in 0..bytes.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut damaged = bytes.clone();
            damaged[at] ^= flip;
            match T::from_bytes(&damaged) {
                Ok(copy) => {
                    // Some flips are harmless (a rectangle moved within its
                    // leaves or cells, an id); whatever loads is consistent.
                    assert_consistent(&copy);
                    loaded += 1;
                }
                Err(error) => {
                    assert!(
                        matches!(error, Error::InvalidBytes(_)),
                        "byte {at} ^ {flip:#x}: {error:?}"
                    );
                    assert!(!error.to_string().is_empty());
                }
            }
        }
    }
    assert!(loaded < bytes.len() * 3);
    let mut extra = bytes.clone();
    extra.push(0);
    assert!(T::from_bytes(&extra).is_err());
    assert!(T::from_bytes(b"nope").is_err());
    assert!(T::from_bytes(&[]).is_err());
}

per_structure! {
    quadtree: |world| Quadtree::new(world, 2, 6),
    grid: |world| Grid::new(world, 8, 6),
    loose_grid: |world| LooseGrid::new(world, 8, 6, 4, 3),
    loose_quadtree: |world| LooseQuadtree::new(world, 2, 6);
    round_trip_keeps_handles_structure_and_results,
    damaged_bytes_are_refused_without_panicking,
}

#[test]
fn a_snapshot_is_refused_by_another_structure_and_read_by_any_index() {
    let snapshots: [(Kind, Vec<u8>); 4] = [
        (
            Kind::Quadtree,
            sample_tree(|w| Quadtree::new(w, 2, 6).unwrap())
                .0
                .to_bytes(),
        ),
        (
            Kind::Grid,
            sample_tree(|w| Grid::new(w, 8, 6).unwrap()).0.to_bytes(),
        ),
        (
            Kind::LooseGrid,
            sample_tree(|w| LooseGrid::new(w, 8, 6, 4, 3).unwrap())
                .0
                .to_bytes(),
        ),
        (
            Kind::LooseQuadtree,
            sample_tree(|w| LooseQuadtree::new(w, 2, 6).unwrap())
                .0
                .to_bytes(),
        ),
    ];
    for (kind, bytes) in &snapshots {
        let refused = |result: Result<(), Error>, by: &str| match result {
            Err(Error::InvalidBytes(reason)) => assert!(!reason.is_empty()),
            other => panic!("a {kind:?} snapshot given to {by}: {other:?}"),
        };
        if *kind != Kind::Quadtree {
            refused(Quadtree::from_bytes(bytes).map(|_| ()), "Quadtree");
        }
        if *kind != Kind::Grid {
            refused(Grid::from_bytes(bytes).map(|_| ()), "Grid");
        }
        if *kind != Kind::LooseGrid {
            refused(LooseGrid::from_bytes(bytes).map(|_| ()), "LooseGrid");
        }
        if *kind != Kind::LooseQuadtree {
            refused(
                LooseQuadtree::from_bytes(bytes).map(|_| ()),
                "LooseQuadtree",
            );
        }
        let any = AnyIndex::from_bytes(bytes).unwrap();
        assert_eq!(any.kind(), *kind);
        any.validate().unwrap();
        assert_eq!(&any.to_bytes(), bytes);
        assert_eq!(any.len(), 47);
        assert_consistent(&any);
    }
    // Four different snapshots.
    for (i, (_, a)) in snapshots.iter().enumerate() {
        for (_, b) in &snapshots[i + 1..] {
            assert_ne!(a, b);
        }
    }
}
