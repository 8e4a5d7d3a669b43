//! How the rayon-backed calls scale: all pairs and batch queries over the
//! uniform-100k (or, with the argument `1m`, uniform-1m) positions of docs/workload.md,
//! on 1 thread and on all.
//!
//! `cargo run --release -p flatquad --features rayon --example parallel [1m]`

use std::time::Instant;

use flatquad::{Handle, Quadtree, Query, Rect, SpatialIndex};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn time(runs: usize, mut f: impl FnMut()) -> f64 {
    median(
        (0..runs)
            .map(|_| {
                let start = Instant::now();
                f();
                start.elapsed().as_secs_f64() * 1e3
            })
            .collect(),
    )
}

fn main() {
    let million = std::env::args().nth(1).as_deref() == Some("1m");
    let (n, world, size, depth) = if million {
        (1_000_000, 12288.0f32, 4.0f32, 9)
    } else {
        (100_000, 4096.0f32, 4.0f32, 8)
    };
    let mut state: u32 = 12345;
    let mut f = || {
        state = state.wrapping_mul(1664525).wrapping_add(1013904223);
        (state >> 8) as f32 * (1.0 / 16777216.0)
    };
    let rects: Vec<Rect> = (0..n)
        .map(|_| {
            let (x, y) = (f() * (world - size), f() * (world - size));
            let _ = (f(), f()); // the velocities of docs/workload.md
            Rect::new(x, y, x + size, y + size)
        })
        .collect();
    let ids: Vec<u32> = (0..n as u32).collect();
    let mut tree = Quadtree::new(Rect::new(0.0, 0.0, world, world), 16, depth).unwrap();
    let mut handles: Vec<Handle> = Vec::new();
    tree.insert_many(&rects, &ids, &mut handles).unwrap();

    let threads = rayon::current_num_threads();
    let (mut pairs, mut offsets, mut hits) = (Vec::new(), Vec::new(), Vec::new());
    let runs = if million { 5 } else { 21 };
    let seq_pairs = time(runs, || tree.pairs(&mut pairs));
    let found = pairs.len();
    let par_pairs = time(runs, || tree.par_pairs(&mut pairs));
    assert_eq!(pairs.len(), found);
    let seq_q = time(runs, || {
        tree.query_many(
            &Query::of_rects(&rects, Some(&handles)).unwrap(),
            &mut offsets,
            &mut hits,
        )
        .unwrap()
    });
    let par_q = time(runs, || {
        tree.par_query_many(
            &Query::of_rects(&rects, Some(&handles)).unwrap(),
            &mut offsets,
            &mut hits,
        )
        .unwrap()
    });
    assert_eq!(hits.len(), 2 * found);
    println!("{n} agents, {found} pairs; median of {runs} runs, {threads} threads");
    println!(
        "pairs        1 thread {seq_pairs:7.3} ms   {threads} threads {par_pairs:7.3} ms   x{:.2}",
        seq_pairs / par_pairs
    );
    println!(
        "query_many   1 thread {seq_q:7.3} ms   {threads} threads {par_q:7.3} ms   x{:.2}",
        seq_q / par_q
    );
}
