//! Queries take `&self`: many threads may query one structure at once, for
//! every structure.

use std::ops::ControlFlow;

#[macro_use]
mod common;

use common::{Lcg, Subject};
use flatquad::{AnyIndex, Grid, Handle, LooseGrid, LooseQuadtree, Quadtree, Rect};

fn assert_send_sync<T: Send + Sync>() {}

#[test]
fn every_structure_is_send_and_sync() {
    assert_send_sync::<Quadtree>();
    assert_send_sync::<Grid>();
    assert_send_sync::<LooseGrid>();
    assert_send_sync::<AnyIndex>();
}

fn sorted(mut v: Vec<Handle>) -> Vec<Handle> {
    v.sort_unstable();
    v
}

fn concurrent_queries_match_single_threaded_ones<T: Subject>(make: fn(Rect) -> T) {
    let mut rng = Lcg(7);
    let mut f = || rng.unit();
    let mut tree = make(Rect::new(-100.0, -100.0, 100.0, 100.0));
    let mut handles = Vec::new();
    for i in 0..5_000 {
        let (x, y) = (f() * 240.0 - 120.0, f() * 240.0 - 120.0);
        let (w, h) = (f() * 6.0, f() * 6.0);
        handles.push(tree.insert(Rect::new(x, y, x + w, y + h), i).unwrap());
    }
    // A few long or huge ones, which a grid keeps apart from its cells.
    for i in 0..10 {
        let at = i as f32 * 20.0 - 100.0;
        handles.push(
            tree.insert(Rect::new(at, -150.0, at + 1.0, 150.0), i)
                .unwrap(),
        );
        handles.push(tree.insert(Rect::new(-1e6, at, 1e6, at), i).unwrap());
    }
    let queries: Vec<Rect> = (0..300)
        .map(|_| {
            let (x, y) = (f() * 240.0 - 120.0, f() * 240.0 - 120.0);
            Rect::new(x, y, x + f() * 30.0, y + f() * 30.0)
        })
        .collect();
    let expected: Vec<Vec<Handle>> = queries
        .iter()
        .map(|q| {
            let mut hits = Vec::new();
            tree.query(*q, None, &mut hits).unwrap();
            sorted(hits)
        })
        .collect();
    let some = &handles[4_990..];
    let expected_near: Vec<Vec<Handle>> = some
        .iter()
        .map(|&h| {
            let mut near = Vec::new();
            tree.overlapping(h, &mut near).unwrap();
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
                            tree.query(*q, None, &mut hits).unwrap();
                            assert_eq!(sorted(hits.clone()), expected[i]);
                            tree.query_point([q.x1, q.y1], None, &mut hits).unwrap();
                        }
                        for (&h, near) in some.iter().zip(expected_near) {
                            tree.overlapping(h, &mut hits).unwrap();
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

per_structure! {
    quadtree: |world| Quadtree::new(world, 4, 8),
    grid: |world| Grid::new(world, 40, 40),
    loose_grid: |world| LooseGrid::new(world, 32, 32, 16, 16),
    loose_quadtree: |world| LooseQuadtree::new(world, 4, 8);
    concurrent_queries_match_single_threaded_ones,
}
