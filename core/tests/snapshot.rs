//! `to_bytes`/`from_bytes` round-trip a tree exactly, and damaged bytes are refused.

mod common;

use common::Lcg;
use flatquad::{Error, Handle, Quadtree, Rect, SpatialIndex};

fn sample_tree() -> (Quadtree, Vec<Handle>, Vec<Handle>) {
    let mut rng = Lcg(99);
    let mut f = || rng.unit();
    let mut tree = Quadtree::new(Rect::new(-10.0, -10.0, 30.0, 20.0), 2, 6).unwrap();
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
    tree.cleanup();
    (tree, live, stale)
}

#[test]
fn round_trip_keeps_handles_structure_and_results() {
    let (tree, live, stale) = sample_tree();
    let copy = Quadtree::from_bytes(&tree.to_bytes()).unwrap();
    copy.validate().unwrap();
    assert_eq!(copy.to_bytes(), tree.to_bytes());
    // Equal but for `bytes`, which counts spare capacity.
    let without_bytes = |t: &Quadtree| flatquad::Stats {
        bytes: 0,
        ..t.stats()
    };
    assert_eq!(without_bytes(&copy), without_bytes(&tree));
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
    let (mut a, mut b) = (Vec::new(), Vec::new());
    tree.pairs(&mut a);
    copy.pairs(&mut b);
    assert_eq!(a, b);
    // Both trees go on issuing the same handles.
    let (mut tree, mut copy) = (tree, copy);
    let r = Rect::new(0.0, 0.0, 1.0, 1.0);
    assert_eq!(tree.insert(r, 1).unwrap(), copy.insert(r, 1).unwrap());
}

#[test]
fn damaged_bytes_are_refused_without_panicking() {
    let (tree, _, _) = sample_tree();
    let bytes = tree.to_bytes();
    for cut in 0..bytes.len() {
        assert!(matches!(
            Quadtree::from_bytes(&bytes[..cut]),
            Err(Error::InvalidBytes(_))
        ));
    }
    let mut loaded = 0;
    for at in 0..bytes.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut damaged = bytes.clone();
            damaged[at] ^= flip;
            match Quadtree::from_bytes(&damaged) {
                Ok(copy) => {
                    // Some flips are harmless (a rectangle moved within its leaves,
                    // an id); whatever loads is a consistent tree.
                    copy.validate().unwrap();
                    loaded += 1;
                }
                Err(error) => assert!(matches!(error, Error::InvalidBytes(_))),
            }
        }
    }
    assert!(loaded < bytes.len() * 3);
    let mut extra = bytes.clone();
    extra.push(0);
    assert!(Quadtree::from_bytes(&extra).is_err());
    assert!(Quadtree::from_bytes(b"nope").is_err());
}
