//! `join_global_pool`: the calling thread becomes thread 0 of rayon's global
//! pool, its batch calls give the serial results from there and from other
//! threads (which the workers serve while thread 0 is away from the pool), and
//! a worker's panic comes back to it. Its own test binary: the global pool is
//! built once a process.
#![cfg(feature = "rayon")]

mod common;

use common::Lcg;
use flatquad::{Grid, Handle, Quadtree, Rect, SpatialIndex};

/// 30,000 boxes of a random world (big enough that every parallel call takes
/// the threads at its measured sizes), and their handles.
fn crowded<T: SpatialIndex<Bounds = Rect>>(mut index: T) -> (T, Vec<Handle>) {
    let mut rng = Lcg(0x2545_f491);
    let mut unit = move || rng.unit();
    let boxes: Vec<Rect> = (0..30_000)
        .map(|_| {
            let (x, y) = (unit() * 1_000.0, unit() * 1_000.0);
            Rect::new(x, y, x + unit() * 6.0, y + unit() * 6.0)
        })
        .collect();
    let ids: Vec<u32> = (0..boxes.len() as u32).collect();
    let mut handles = Vec::new();
    index.insert_many(&boxes, &ids, &mut handles).unwrap();
    (index, handles)
}

/// Every parallel call named in the issue, against its serial twin.
fn parallel_calls_match_serial<T: SpatialIndex<Bounds = Rect> + Clone>(
    index: &T,
    handles: &[Handle],
) {
    let (mut serial, mut parallel) = (Vec::new(), Vec::new());
    index.pairs(&mut serial);
    index.par_pairs(&mut parallel);
    assert!(!serial.is_empty());
    assert_eq!(serial, parallel);

    let (mut offsets, mut hits) = (Vec::new(), Vec::new());
    let (mut par_offsets, mut par_hits) = (Vec::new(), Vec::new());
    index
        .overlapping_many(handles, &mut offsets, &mut hits)
        .unwrap();
    index
        .par_overlapping_many(handles, &mut par_offsets, &mut par_hits)
        .unwrap();
    assert_eq!((offsets, hits), (par_offsets, par_hits));

    let moved: Vec<Rect> = handles
        .iter()
        .map(|&h| {
            let r = index.rect(h).unwrap();
            Rect::new(r.x1 + 1.5, r.y1 - 0.5, r.x2 + 1.5, r.y2 - 0.5)
        })
        .collect();
    let (mut one, mut many) = (index.clone(), index.clone());
    one.update_many(handles, &moved).unwrap();
    many.par_update_many(handles, &moved).unwrap();
    let (mut after_one, mut after_many) = (Vec::new(), Vec::new());
    one.pairs(&mut after_one);
    many.par_pairs(&mut after_many);
    assert_eq!(after_one, after_many);
}

#[test]
fn the_calling_thread_joins_the_global_pool() {
    // This binary's only test, so no other test sees the variable; two
    // threads even on a one-CPU machine.
    std::env::set_var("RAYON_NUM_THREADS", "2");
    assert_eq!(rayon::current_thread_index(), None);
    assert!(flatquad::join_global_pool());
    assert_eq!(rayon::current_thread_index(), Some(0));
    assert_eq!(rayon::current_num_threads(), 2);
    // Asked again it is still thread 0; another thread cannot join any more.
    assert!(flatquad::join_global_pool());
    assert!(!std::thread::spawn(flatquad::join_global_pool)
        .join()
        .unwrap());

    let (grid, grid_handles) =
        crowded(Grid::new(Rect::new(0.0, 0.0, 1_000.0, 1_000.0), 128, 128).unwrap());
    let (tree, tree_handles) =
        crowded(Quadtree::new(Rect::new(0.0, 0.0, 1_000.0, 1_000.0), 8, 10).unwrap());
    parallel_calls_match_serial(&grid, &grid_handles);
    parallel_calls_match_serial(&tree, &tree_handles);
    // From another thread while thread 0 waits outside the pool (in `join`
    // of std): the worker alone must answer, or this would hang.
    std::thread::scope(|s| {
        s.spawn(|| {
            assert_eq!(rayon::current_thread_index(), None);
            parallel_calls_match_serial(&grid, &grid_handles);
            parallel_calls_match_serial(&tree, &tree_handles);
        });
    });

    // A worker's panic comes back to thread 0, which the hook tells apart.
    let panic = std::panic::catch_unwind(flatquad::panic_on_a_worker_for_tests).unwrap_err();
    assert_eq!(
        panic.downcast_ref::<&str>(),
        Some(&"deliberate test panic on a worker thread")
    );
    // And the pool goes on.
    parallel_calls_match_serial(&grid, &grid_handles);
}
