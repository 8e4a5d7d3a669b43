//! Contact events when only part of the world moves: `PairTracker::update`
//! beside what a user writes without it (all pairs every frame, then the set
//! difference with last frame's pairs in a `HashSet`), on the agents of a
//! moving scenario where a share of them moves each frame (the others stand
//! still). Both answers are checked against each other every frame.
//!
//!     cargo run --release -p flatquad-bench --bin events [-- SCENARIO --index STRUCTURE --runs R]

use std::collections::HashSet;
use std::ops::ControlFlow;
use std::time::Instant;

use flatquad::{AnyIndex, Handle, PairTracker, Rect, SpatialIndex};
use flatquad_bench::flatquad_index::{parse_structure, FlatquadConfig};
use flatquad_bench::{machine, scenario, Agents};

/// The shares of agents that move each frame, in percent.
const SHARES: [u32; 8] = [0, 1, 5, 10, 25, 50, 75, 100];
/// Frames measured per share, after one warm-up.
const FRAMES: usize = 10;

fn usage() -> ! {
    eprintln!("usage: events [SCENARIO] [--index STRUCTURE] [--runs R]");
    std::process::exit(2)
}

fn main() {
    let mut name = "uniform-100k".to_string();
    let mut structure = "grid".to_string();
    let mut runs = 3;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--index" => structure = args.next().unwrap_or_else(|| usage()),
            "--runs" => {
                runs = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_else(|| usage())
            }
            other if !other.starts_with('-') => name = other.to_string(),
            _ => usage(),
        }
    }
    let s = scenario(&name).unwrap_or_else(|| usage());
    let (kind, max_extent) = parse_structure(&structure).unwrap_or_else(|| usage());
    let config = FlatquadConfig {
        max_extent,
        ..FlatquadConfig::of(kind)
    };
    println!(
        "{}, {} CPUs; {}: {} agents, {structure}; ms per frame, median of {runs} runs of \
         {FRAMES} frames",
        machine::cpu_model(),
        machine::nproc(),
        s.name,
        s.n
    );
    println!(
        "{:>7} {:>10} {:>12} {:>14} {:>7}",
        "moving", "events", "tracker ms", "pairs+set ms", "ratio"
    );
    for share in SHARES {
        let mut tracker_ms = Vec::new();
        let mut naive_ms = Vec::new();
        let mut events = 0;
        for _ in 0..runs {
            let (t, n, e) = measure(s, config, share);
            tracker_ms.push(t);
            naive_ms.push(n);
            events = e;
        }
        let (t, n) = (median(&mut tracker_ms), median(&mut naive_ms));
        println!(
            "{:>6}% {:>10} {:>12.3} {:>14.3} {:>6.1}x",
            share,
            events,
            t,
            n,
            n / t
        );
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// One run: the mean ms per frame of the tracker and of the hand-written
/// difference, and the events of the last frame.
fn measure(s: &flatquad_bench::Scenario, config: FlatquadConfig, share: u32) -> (f64, f64, usize) {
    let mut agents = Agents::new(s);
    let mut index: AnyIndex = config.make(s.world, s.size).expect("the structure");
    let rects: Vec<Rect> = agents.rects().map(to_rect).collect();
    let ids: Vec<u32> = (0..rects.len() as u32).collect();
    let mut handles = Vec::new();
    index
        .insert_many(&rects, &ids, &mut handles)
        .expect("insert");
    let mut tracker = PairTracker::new();
    tracker.update(&index);
    let mut last: HashSet<(Handle, Handle)> = HashSet::new();
    let mut pairs = Vec::new();
    index.pairs(&mut pairs);
    last.extend(pairs.iter().map(|&(a, b)| ordered(a, b)));
    let (mut moved, mut moved_rects) = (Vec::new(), Vec::new());
    let (mut tracker_s, mut naive_s, mut events) = (0.0, 0.0, 0);
    for frame in 0..=FRAMES {
        agents.step();
        moved.clear();
        moved_rects.clear();
        for (i, &h) in handles.iter().enumerate() {
            // A share of the agents, a different one each frame.
            if ((i + frame * 37) % 100) < share as usize {
                moved.push(h);
                moved_rects.push(to_rect(agents.rect(i)));
            }
        }
        index.update_many(&moved, &moved_rects).expect("moves");
        index.cleanup();

        let t0 = Instant::now();
        let (began, ended) = tracker.update(&index);
        let (began, ended) = (began.len(), ended.len());
        let t1 = Instant::now();
        let mut now: HashSet<(Handle, Handle)> = HashSet::with_capacity(last.len());
        let _ = index.pairs_with(|a, b| {
            now.insert(ordered(a, b));
            ControlFlow::Continue(())
        });
        let naive_began = now.difference(&last).count();
        let naive_ended = last.difference(&now).count();
        last = now;
        let t2 = Instant::now();
        assert_eq!((began, ended), (naive_began, naive_ended), "frame {frame}");
        if frame > 0 {
            tracker_s += (t1 - t0).as_secs_f64();
            naive_s += (t2 - t1).as_secs_f64();
        }
        events = began + ended;
    }
    let ms = |seconds: f64| seconds * 1e3 / FRAMES as f64;
    (ms(tracker_s), ms(naive_s), events)
}

fn ordered(a: Handle, b: Handle) -> (Handle, Handle) {
    if a < b {
        (a, b)
    } else {
        (b, a)
    }
}

fn to_rect(r: flatquad_bench::workload::Aabb) -> Rect {
    Rect::new(r.x1, r.y1, r.x2, r.y2)
}
