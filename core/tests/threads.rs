//! Queries take `&self`: many threads may query one tree at once.

use std::ops::ControlFlow;

mod common;

use common::Lcg;
use flatquad::{Handle, Quadtree, Rect, SpatialIndex};

fn assert_send_sync<T: Send + Sync>() {}

#[test]
fn the_tree_is_send_and_sync() {
    assert_send_sync::<Quadtree>();
}

fn sorted(mut v: Vec<Handle>) -> Vec<Handle> {
    v.sort_unstable();
    v
}

#[test]
fn concurrent_queries_match_single_threaded_ones() {
    let mut rng = Lcg(7);
    let mut f = || rng.unit();
    let mut tree = Quadtree::new(Rect::new(-100.0, -100.0, 100.0, 100.0), 4, 8).unwrap();
    for i in 0..5_000 {
        let (x, y) = (f() * 240.0 - 120.0, f() * 240.0 - 120.0);
        let (w, h) = (f() * 6.0, f() * 6.0);
        tree.insert(Rect::new(x, y, x + w, y + h), i).unwrap();
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
                let (queries, expected) = (&queries, &expected);
                scope.spawn(move || {
                    let mut hits = Vec::new();
                    for round in 0..5 {
                        for (i, q) in queries.iter().enumerate().skip((t + round) % 3) {
                            tree.query(*q, None, &mut hits).unwrap();
                            assert_eq!(sorted(hits.clone()), expected[i]);
                            tree.query_point(q.x1, q.y1, None, &mut hits).unwrap();
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
