//! Big batch removals take the sweep path; small ones the per-element path.
//! Both must leave exactly the right elements, and a stack at one spot must
//! not make a big removal quadratic. On every structure.

#[macro_use]
mod common;

use common::{Lcg, Subject};
use flatquad::{Grid, Handle, LooseGrid, LooseQuadtree, Quadtree, Query, Rect};

fn check_against_brute_force<T: Subject>(tree: &T, live: &[(Handle, Rect)]) {
    tree.validate().unwrap();
    assert_eq!(tree.len(), live.len());
    let mut hits = Vec::new();
    for q in [
        Rect::new(0.0, 0.0, 100.0, 100.0),
        Rect::point(50.0, 50.0),
        Rect::new(10.0, 20.0, 30.0, 90.0),
    ] {
        tree.query(&Query::rect(q), &mut hits).unwrap();
        hits.sort_unstable();
        let mut expected: Vec<Handle> = live
            .iter()
            .filter(|(_, r)| common::meets(r, &q))
            .map(|(h, _)| *h)
            .collect();
        expected.sort_unstable();
        assert_eq!(hits, expected);
    }
}

fn big_and_small_batch_removals_remove_exactly_the_batch<T: Subject>(make: fn(Rect) -> T) {
    let mut rng = Lcg(5);
    let mut tree = make(Rect::new(0.0, 0.0, 100.0, 100.0));
    let mut rects = Vec::new();
    for i in 0..6000 {
        rects.push(if i % 3 == 0 {
            Rect::point(50.0, 50.0) // a stack at one spot
        } else {
            let (x, y) = (rng.unit() * 100.0, rng.unit() * 100.0);
            Rect::new(x, y, x + rng.unit() * 3.0, y + rng.unit() * 3.0)
        });
    }
    let ids: Vec<u32> = (0..rects.len() as u32).collect();
    let mut handles = Vec::new();
    tree.insert_many(&rects, &ids, &mut handles).unwrap();
    let mut live: Vec<(Handle, Rect)> =
        handles.iter().copied().zip(rects.iter().copied()).collect();

    // Every other element, in insertion order: the sweep path.
    let (gone, kept): (Vec<_>, Vec<_>) = live.iter().enumerate().partition(|(i, _)| i % 2 == 0);
    let gone: Vec<Handle> = gone.into_iter().map(|(_, (h, _))| *h).collect();
    live = kept.into_iter().map(|(_, e)| *e).collect();
    tree.remove_many(&gone).unwrap();
    check_against_brute_force(&tree, &live);
    assert!(gone.iter().all(|h| !tree.contains(*h)));

    // A few: the per-element path.
    let few: Vec<Handle> = live.iter().take(10).map(|(h, _)| *h).collect();
    tree.remove_many(&few).unwrap();
    live.drain(..10);
    check_against_brute_force(&tree, &live);

    // The rest, stacked ones included, at once.
    let rest: Vec<Handle> = live.iter().map(|(h, _)| *h).collect();
    tree.remove_many(&rest).unwrap();
    check_against_brute_force(&tree, &[]);
    common::cleanup_fully(&mut tree);
    common::assert_emptied(&tree, "all removed");
}

fn a_refused_big_batch_leaves_no_marks<T: Subject>(make: fn(Rect) -> T) {
    let mut tree = make(Rect::new(0.0, 0.0, 10.0, 10.0));
    let rects = vec![Rect::point(1.0, 1.0); 200];
    let ids = vec![0; 200];
    let mut handles = Vec::new();
    tree.insert_many(&rects, &ids, &mut handles).unwrap();
    let mut batch = handles.clone();
    batch.push(handles[7]); // a duplicate at the end
    assert!(tree.remove_many(&batch).is_err());
    tree.validate().unwrap();
    assert_eq!(tree.len(), 200);
    tree.remove_many(&handles).unwrap();
    assert!(tree.is_empty());
    tree.validate().unwrap();
}

per_structure! {
    quadtree: |world| Quadtree::new(world, 4, 8),
    grid: |world| Grid::new(world, 32, 32),
    loose_grid: |world| LooseGrid::new(world, 16, 16, 8, 8),
    loose_quadtree: |world| LooseQuadtree::new(world, 4, 8);
    big_and_small_batch_removals_remove_exactly_the_batch,
}

// 200 elements at one point of a small world.
per_structure! {
    quadtree: |world| Quadtree::new(world, 8, 4),
    grid: |world| Grid::new(world, 8, 8),
    loose_grid: |world| LooseGrid::new(world, 8, 8, 4, 4),
    loose_quadtree: |world| LooseQuadtree::new(world, 8, 4);
    a_refused_big_batch_leaves_no_marks,
}
