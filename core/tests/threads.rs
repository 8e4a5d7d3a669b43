//! Queries take `&self`: many threads may query one structure at once, for
//! every structure. And threads never change a result: random operation
//! sequences on every structure, each parallel call held to its serial call
//! on pools of 1, 2 and 8 threads.

use std::ops::ControlFlow;

#[macro_use]
mod common;

use common::{Lcg, Subject};
use flatquad::{
    AnyIndex, Bounds, Grid, Handle, LooseGrid, LooseQuadtree, Octree, Quadtree, Query, Rect,
    SpatialIndex,
};
use flatquad_testkit::{Checks, Lcg as Seeded, Subject as Structure};
use proptest::prelude::*;

fn assert_send_sync<T: Send + Sync>() {}

#[test]
fn every_structure_is_send_and_sync() {
    assert_send_sync::<Quadtree>();
    assert_send_sync::<Grid>();
    assert_send_sync::<LooseGrid>();
    assert_send_sync::<AnyIndex>();
    assert_send_sync::<Octree>();
}

fn sorted(mut v: Vec<Handle>) -> Vec<Handle> {
    v.sort_unstable();
    v
}

/// The same test in 2D and 3D: boxes are built from per-axis corners.
fn concurrent_queries_match_single_threaded_ones<T: SpatialIndex + Sync>(make: fn(T::Bounds) -> T) {
    let axes = <T::Bounds as Bounds>::AXES;
    let make_box = T::Bounds::from_corners;
    let mut rng = Lcg(7);
    let mut f = || rng.unit();
    // A 3D world is smaller on each axis, to stay about as crowded.
    let side = if axes == 2 { 100.0 } else { 25.0 };
    let mut tree = make(make_box([-side; 3], [side; 3]));
    let mut random_box = |extent: f32| {
        let (mut lo, mut hi) = ([0.0; 3], [0.0; 3]);
        for axis in 0..axes {
            lo[axis] = f() * 2.4 * side - 1.2 * side;
            hi[axis] = lo[axis] + f() * extent;
        }
        make_box(lo, hi)
    };
    let mut handles = Vec::new();
    for i in 0..5_000 {
        handles.push(tree.insert(random_box(6.0), i).unwrap());
    }
    // A few long or huge ones, which a grid keeps apart from its cells.
    for i in 0..10 {
        let at = i as f32 * side / 5.0 - side;
        let mut long = ([at; 3], [at + 1.0; 3]);
        (long.0[1], long.1[1]) = (-1.5 * side, 1.5 * side);
        handles.push(tree.insert(make_box(long.0, long.1), i).unwrap());
        let mut flat = ([-1e6; 3], [1e6; 3]);
        (flat.0[1], flat.1[1]) = (at, at);
        handles.push(tree.insert(make_box(flat.0, flat.1), i).unwrap());
    }
    let queries: Vec<T::Bounds> = (0..300).map(|_| random_box(30.0)).collect();
    let expected: Vec<Vec<Handle>> = queries
        .iter()
        .map(|q| {
            let mut hits = Vec::new();
            tree.query(&Query::rect(*q), &mut hits).unwrap();
            sorted(hits)
        })
        .collect();
    let some = &handles[4_990..];
    let expected_near: Vec<Vec<Handle>> = some
        .iter()
        .map(|&h| {
            let mut near = Vec::new();
            tree.query(&Query::element(h), &mut near).unwrap();
            sorted(near)
        })
        .collect();
    let mut expected_pairs = 0;
    let _ = tree.pairs_with(|_, _| {
        expected_pairs += 1;
        ControlFlow::Continue(())
    });
    assert!(expected.iter().any(|hits| !hits.is_empty()));

    let tree = &tree;
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..4)
            .map(|t| {
                let (queries, expected, expected_near) = (&queries, &expected, &expected_near);
                scope.spawn(move || {
                    let mut hits = Vec::new();
                    for round in 0..5 {
                        for (i, q) in queries.iter().enumerate().skip((t + round) % 3) {
                            tree.query(&Query::rect(*q), &mut hits).unwrap();
                            assert_eq!(sorted(hits.clone()), expected[i]);
                            tree.query(&Query::point(q.low_corner()), &mut hits)
                                .unwrap();
                        }
                        for (&h, near) in some.iter().zip(expected_near) {
                            tree.query(&Query::element(h), &mut hits).unwrap();
                            assert_eq!(&sorted(hits.clone()), near);
                        }
                        let mut pairs = 0;
                        let _ = tree.pairs_with(|_, _| {
                            pairs += 1;
                            ControlFlow::Continue(())
                        });
                        assert_eq!(pairs, expected_pairs);
                    }
                })
            })
            .collect();
        for worker in workers {
            worker.join().unwrap();
        }
    });
}

/// The 2D structures through [`per_structure!`].
fn concurrent_2d_queries_match_single_threaded_ones<T: Subject>(make: fn(Rect) -> T) {
    concurrent_queries_match_single_threaded_ones(make)
}

#[test]
fn concurrent_octree_queries_match_single_threaded_ones() {
    concurrent_queries_match_single_threaded_ones(|world| Octree::new(world, 4, 6).unwrap());
}

per_structure! {
    quadtree: |world| Quadtree::new(world, 4, 8),
    grid: |world| Grid::new(world, 40, 40),
    loose_grid: |world| LooseGrid::new(world, 32, 32, 16, 16),
    loose_quadtree: |world| LooseQuadtree::new(world, 4, 8);
    concurrent_2d_queries_match_single_threaded_ones,
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// The harness's random operations (awkward worlds, degenerate boxes,
    /// stacks at one spot, elements outside the world, margins, filters,
    /// batches with a handle twice, refusals) on every structure, and every
    /// few operations each parallel call against its serial call on 1, 2 and
    /// 8 threads (`flatquad_testkit::check_threads`): the same pairs in the
    /// same order, the same rows, the same bytes after `par_update_many`.
    /// The sizes from which the calls take the threads are lowered for this
    /// process, so that these small structures take the parallel paths.
    #[cfg(feature = "rayon")]
    #[test]
    fn threads_never_change_a_result(subject in 0..Structure::ALL.len(), seed in any::<u64>()) {
        flatquad::parallel_from_for_tests(4);
        // The global pool, which `check_threads` also calls from outside, of
        // two threads even on one CPU, so that those calls take the threads.
        // (Refused if the pool was built already: then it has its size.)
        let _ = rayon::ThreadPoolBuilder::new().num_threads(2).build_global();
        prop_assert!(rayon::current_num_threads() >= 2, "the global pool has one thread");
        // `make test` runs 1,024 cases (PROPTEST_CASES): short runs keep it
        // to about 20 s.
        Structure::ALL[subject].run(&mut Seeded(seed), 80, &Checks::THREADS);
    }
}
