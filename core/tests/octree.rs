//! The octree against brute force (the oracles of flatquad-testkit): random
//! operation sequences in awkward 3D worlds, `validate` after every
//! operation, every query kind compared; a stack at one point; snapshots
//! tagged apart from the 2D structures; the rayon variants. The quadtree's
//! are in `model.rs`; the tests of the flat tree's internals in
//! `src/flat_tree/tests.rs`.

use flatquad::{
    AnyIndex, AnyIndex3, Box3, Error, Kind, Octree, Quadtree, Query, Rect, SpatialIndex,
};
use flatquad_testkit as testkit;

#[test]
fn octree_random_operations_match_brute_force() {
    let mut seed = 1;
    for world in testkit::WORLDS_3D {
        for (max_elements, max_depth) in [(1, 3), (4, 5), (8, 12), (2, 20)] {
            let tree = Octree::new(world, max_elements, max_depth).unwrap();
            testkit::run(
                tree,
                seed,
                500,
                testkit::tree_shapes,
                testkit::check_tree_traverse,
            );
            seed += 1;
        }
    }
}

/// `AnyIndex3` forwards every call to the octree inside: the same random
/// operations against brute force, through the enum.
#[test]
fn any_index3_random_operations_match_brute_force() {
    for (seed, world) in testkit::WORLDS_3D.into_iter().enumerate() {
        let tree = Octree::new(world, 2, 8).unwrap();
        let shapes = |index: &AnyIndex3, rng: &mut testkit::Lcg| match index {
            AnyIndex3::Octree(tree) => testkit::tree_shapes(tree, rng),
        };
        testkit::run(
            AnyIndex3::from(tree),
            100 + seed as u64,
            300,
            shapes,
            testkit::check_any_traverse,
        );
    }
}

/// Each enum takes its own dimension's kinds and snapshots, and refuses the
/// other's with a clear error.
#[test]
fn any_index_and_any_index3_refuse_the_other_dimension() {
    let world = Box3::new(0.0, 0.0, 0.0, 8.0, 8.0, 8.0);
    let plane = Rect::new(0.0, 0.0, 8.0, 8.0);
    assert!(matches!(
        AnyIndex::for_world(Kind::Octree, plane),
        Err(Error::InvalidParameter { name: "kind", .. })
    ));
    for kind in Kind::ALL_2D {
        assert!(AnyIndex3::for_world(kind, world).is_err(), "{kind:?}");
        assert_eq!(kind.dimensions(), 2);
        let bytes = AnyIndex::for_world(kind, plane).unwrap().to_bytes();
        let err = AnyIndex3::from_bytes(&bytes).unwrap_err().to_string();
        assert!(
            err.contains(&format!(
                "a snapshot of a {}, not of a 3D structure",
                kind.name()
            )),
            "{err}"
        );
    }
    let index = AnyIndex3::for_world(Kind::Octree, world).unwrap();
    assert_eq!((index.kind(), Kind::Octree.dimensions()), (Kind::Octree, 3));
    let err = AnyIndex::from_bytes(&index.to_bytes())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("a snapshot of an Octree, not of a 2D structure"),
        "{err}"
    );
    assert_eq!(Kind::ALL.len(), Kind::ALL_2D.len() + Kind::ALL_3D.len());
    assert!(Kind::ALL
        .iter()
        .all(|&kind| Kind::from_u32(kind as u32) == Some(kind)));
}

#[test]
fn octree_stack_at_one_point_stays_shallow_and_exact() {
    let mut tree = Octree::new(Box3::new(0.0, 0.0, 0.0, 64.0, 64.0, 64.0), 2, 20).unwrap();
    let spot = Box3::point(10.0, 20.0, 30.0);
    let handles: Vec<_> = (0..500).map(|i| tree.insert(spot, i).unwrap()).collect();
    tree.validate().unwrap();
    let mut hits = Vec::new();
    tree.query(
        &Query::point([10.0, 20.0, 30.0]).omit(handles[7]),
        &mut hits,
    )
    .unwrap();
    assert_eq!(hits.len(), 499);
    let mut pairs = Vec::new();
    tree.pairs(&mut pairs);
    assert_eq!(pairs.len(), 500 * 499 / 2);
    // Splitting cannot separate them: the stack stays near the root.
    assert!(tree.stats().max_depth_reached <= 1, "{:?}", tree.stats());
}

#[test]
fn octree_snapshots_are_tagged_apart_from_the_2d_structures() {
    let world = Box3::new(0.0, 0.0, 0.0, 8.0, 8.0, 8.0);
    let mut tree = Octree::new(world, 1, 4).unwrap();
    tree.insert(Box3::new(1.0, 1.0, 1.0, 2.0, 2.0, 2.0), 3)
        .unwrap();
    let bytes = tree.to_bytes();
    let err = AnyIndex::from_bytes(&bytes).unwrap_err();
    assert!(err.to_string().contains("Octree"), "{err}");
    let quad = Quadtree::for_world(Rect::new(0.0, 0.0, 8.0, 8.0)).unwrap();
    let err = Octree::from_bytes(&quad.to_bytes()).unwrap_err();
    assert!(
        err.to_string()
            .contains("a snapshot of a Quadtree, not of an Octree"),
        "{err}"
    );
}

/// The rayon variants give the octree the same answers as the calling thread.
#[cfg(feature = "rayon")]
#[test]
fn octree_parallel_variants_match() {
    use flatquad::Handle;

    let world = Box3::new(0.0, 0.0, 0.0, 64.0, 64.0, 64.0);
    let mut tree = Octree::new(world, 4, 5).unwrap();
    let mut rng = testkit::Lcg(9);
    let shapes = testkit::tree_shapes(&tree, &mut rng);
    let boxes: Vec<Box3> = (0..3000).map(|_| shapes.rect(&mut rng)).collect();
    let ids: Vec<u32> = (0..boxes.len() as u32).collect();
    let mut handles = Vec::new();
    tree.insert_many(&boxes, &ids, &mut handles).unwrap();
    let (mut offsets, mut hits) = (Vec::new(), Vec::new());
    let (mut par_offsets, mut par_hits) = (Vec::new(), Vec::new());
    tree.query_many(
        &Query::of_rects(&boxes, Some(&handles)).unwrap(),
        &mut offsets,
        &mut hits,
    )
    .unwrap();
    tree.par_query_many(
        &Query::of_rects(&boxes, Some(&handles)).unwrap(),
        &mut par_offsets,
        &mut par_hits,
    )
    .unwrap();
    assert_eq!((offsets, hits), (par_offsets, par_hits));
    let (mut pairs, mut par_pairs) = (Vec::new(), Vec::new());
    tree.pairs(&mut pairs);
    tree.par_pairs(&mut par_pairs);
    let ordered = |v: Vec<(Handle, Handle)>| {
        let mut v: Vec<_> = v.into_iter().map(testkit::ordered).collect();
        v.sort_unstable();
        v
    };
    assert_eq!(ordered(pairs), ordered(par_pairs));
}
