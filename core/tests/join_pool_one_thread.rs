//! `join_global_pool` with one thread asked for leaves the pool alone (thread
//! 0 runs no loop, so in a pool of it alone a job that another thread gave
//! the pool would wait for it), and flatquad's calls stay on their callers.
//! Its own test binary: the global pool is built once a process.
#![cfg(feature = "rayon")]

use flatquad::{Grid, Rect, SpatialIndex};

#[test]
fn one_thread_is_not_joined() {
    // This binary's only test, so no other test sees the variable.
    std::env::set_var("RAYON_NUM_THREADS", "1");
    assert!(!flatquad::join_global_pool());
    assert_eq!(rayon::current_thread_index(), None);
    // The global pool, built by default on the first call, has one thread,
    // and a call from another thread is answered.
    let mut grid = Grid::new(Rect::new(0.0, 0.0, 100.0, 100.0), 10, 10).unwrap();
    let boxes: Vec<Rect> = (0..2_000)
        .map(|i| {
            let at = (i % 97) as f32;
            Rect::new(at, at * 0.5, at + 2.0, at * 0.5 + 2.0)
        })
        .collect();
    let ids: Vec<u32> = (0..2_000).collect();
    let mut handles = Vec::new();
    grid.insert_many(&boxes, &ids, &mut handles).unwrap();
    let (mut serial, mut parallel) = (Vec::new(), Vec::new());
    grid.pairs(&mut serial);
    std::thread::scope(|s| {
        s.spawn(|| grid.par_pairs(&mut parallel));
    });
    assert_eq!(serial, parallel);
    assert_eq!(rayon::current_num_threads(), 1);
    assert!(!flatquad::join_global_pool());
}
