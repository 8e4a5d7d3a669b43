//! Unit tests of the loose quadtree: its parameters, the bound, one leaf per
//! element, snapshots; the random operations against brute force are in
//! `tests/loose_quadtree.rs`.

use std::ops::ControlFlow;

use crate::index::SpatialIndex;
use crate::loose_quadtree::LooseQuadtree;
use crate::{Error, Query, Rect};

#[test]
fn a_bad_max_extent_is_refused() {
    let world = Rect::new(0.0, 0.0, 100.0, 100.0);
    for bad in [0.0, -1.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let r = LooseQuadtree::with_max_extent(world, 8, 8, bad);
        assert!(
            matches!(
                r,
                Err(Error::InvalidParameter {
                    name: "max_extent",
                    ..
                })
            ),
            "{r:?}"
        );
    }
    let tree = LooseQuadtree::with_max_extent(world, 8, 8, f32::MIN_POSITIVE).unwrap();
    assert_eq!(tree.max_extent(), Some(f32::MIN_POSITIVE));
}

#[test]
fn elements_over_the_bound_are_kept_apart_and_come_back() {
    let world = Rect::new(0.0, 0.0, 64.0, 64.0);
    let mut tree = LooseQuadtree::with_max_extent(world, 1, 4, 2.0).unwrap();
    let small = tree.insert(Rect::new(1.0, 1.0, 2.0, 2.0), 0).unwrap();
    let big = tree.insert(Rect::new(0.0, 0.0, 30.0, 3.0), 1).unwrap();
    assert_eq!(tree.over_bound_len(), 1);
    tree.update(small, Rect::new(1.0, 1.0, 9.0, 2.0)).unwrap(); // now over
    tree.update(big, Rect::new(40.0, 40.0, 41.0, 41.0)).unwrap(); // now under
    assert_eq!(tree.over_bound_len(), 1);
    tree.validate().unwrap();
    let copy = LooseQuadtree::from_bytes(&tree.to_bytes()).unwrap();
    assert_eq!(copy.to_bytes(), tree.to_bytes());
    copy.validate().unwrap();
    let mut hits = Vec::new();
    copy.query(&Query::rect(Rect::new(5.0, 1.5, 5.0, 1.5)), &mut hits)
        .unwrap();
    assert_eq!(hits, [small]);
    tree.remove_many(&[small, big]).unwrap();
    assert_eq!((tree.len(), tree.over_bound_len()), (0, 0));
    tree.validate().unwrap();
}

#[test]
fn parameters_are_checked() {
    let world = Rect::new(0.0, 0.0, 100.0, 100.0);
    let refused = |r: Result<LooseQuadtree, Error>| {
        assert!(matches!(r, Err(Error::InvalidParameter { .. })), "{r:?}")
    };
    refused(LooseQuadtree::new(world, 0, 4));
    refused(LooseQuadtree::new(world, 4, 31));
    assert!(LooseQuadtree::new(world, 1, 30).is_ok());
    assert!(matches!(
        LooseQuadtree::new(Rect::new(0.0, 0.0, 0.0, 1.0), 1, 1),
        Err(Error::InvalidWorld(_))
    ));
    assert!(LooseQuadtree::for_world(Rect::new(f32::MIN, 0.0, f32::MAX, 1.0)).is_err());
    let tree = LooseQuadtree::for_world(world).unwrap();
    assert_eq!((tree.max_elements(), tree.max_depth()), (8, 8));
}

#[test]
fn each_element_is_in_one_leaf_and_boxes_shrink_at_cleanup() {
    let world = Rect::new(0.0, 0.0, 100.0, 100.0);
    let mut tree = LooseQuadtree::new(world, 1, 4).unwrap();
    // A wide element whose centre is in the top-left quadrant.
    let wide = tree.insert(Rect::new(1.0, 1.0, 90.0, 2.0), 0).unwrap();
    let small = tree.insert(Rect::new(80.0, 1.0, 81.0, 2.0), 1).unwrap();
    let stats = tree.stats();
    assert_eq!(stats.element_links, 2);
    assert_eq!(stats.max_depth_reached, 1);
    let mut hits = Vec::new();
    tree.query(&Query::point([85.0, 1.5]), &mut hits).unwrap();
    assert_eq!(hits, [wide]);
    tree.update(wide, Rect::new(1.0, 1.0, 2.0, 2.0)).unwrap();
    let box_of_first_leaf = |t: &LooseQuadtree| {
        let mut found = None;
        let _ = t.traverse(
            |_| ControlFlow::Continue(()),
            |leaf| {
                found.get_or_insert(leaf.rect);
                ControlFlow::Continue(())
            },
        );
        found.unwrap()
    };
    assert_eq!(box_of_first_leaf(&tree), Rect::new(1.0, 1.0, 90.0, 2.0));
    tree.cleanup();
    assert_eq!(box_of_first_leaf(&tree), Rect::new(1.0, 1.0, 2.0, 2.0));
    tree.query(&Query::point([85.0, 1.5]), &mut hits).unwrap();
    assert!(hits.is_empty());
    tree.remove(wide).unwrap();
    tree.remove(small).unwrap();
    for _ in 0..5 {
        tree.cleanup();
        tree.validate().unwrap();
    }
    let stats = tree.stats();
    assert_eq!((stats.nodes, stats.leaves, stats.empty_leaves), (1, 1, 1));
}

#[test]
fn snapshots_of_other_structures_are_refused() {
    let world = Rect::new(0.0, 0.0, 10.0, 10.0);
    let quadtree = crate::Quadtree::for_world(world).unwrap();
    assert!(matches!(
        LooseQuadtree::from_bytes(&quadtree.to_bytes()),
        Err(Error::InvalidBytes(_))
    ));
    let tree = LooseQuadtree::for_world(world).unwrap();
    assert!(matches!(
        crate::Quadtree::from_bytes(&tree.to_bytes()),
        Err(Error::InvalidBytes(_))
    ));
    // A forged node count is refused before anything is reserved.
    let mut bytes = tree.to_bytes();
    bytes[36..40].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(
        LooseQuadtree::from_bytes(&bytes),
        Err(Error::InvalidBytes(_))
    ));
}
