//! The machine's memory bandwidth, measured as STREAM's "copy" does: one
//! array of `f64` copied into another, both far larger than the caches, the
//! bytes read and written counted. On one thread, then on every thread of a
//! rayon pool of `--threads N` (default: the CPUs this process may use).
//! `docs/design.md` divides the bytes a frame must touch by this rate to give
//! the frame's physical limit.
//!
//!     cargo run --release -p flatquad-bench --bin bandwidth [-- --threads N --mib M]

use std::time::Instant;

use flatquad_bench::machine;
use rayon::prelude::*;

/// Repetitions; the best is reported, as STREAM does (the others include
/// page faults and the noise of a shared machine), with the median beside it.
const RUNS: usize = 15;

fn main() {
    let mut threads = machine::nproc();
    let mut mib: usize = 512;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = |v: Option<String>| -> usize {
            v.and_then(|v| v.parse().ok()).unwrap_or_else(|| {
                eprintln!("usage: bandwidth [--threads N] [--mib M]");
                std::process::exit(2)
            })
        };
        match arg.as_str() {
            "--threads" => threads = value(args.next()).max(1),
            "--mib" => mib = value(args.next()).max(8),
            _ => {
                eprintln!("usage: bandwidth [--threads N] [--mib M]");
                std::process::exit(2)
            }
        }
    }
    let n = mib * 1024 * 1024 / 8;
    let source: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let mut target = vec![0.0f64; n];
    println!(
        "{}, {} CPUs; copy of {} MiB arrays (f64), best and median of {RUNS}",
        machine::cpu_model(),
        machine::nproc(),
        mib
    );
    let counted = 2.0 * (n * 8) as f64;
    for t in [1, threads] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .expect("a rayon pool");
        let chunk = n.div_ceil(t);
        let mut rates: Vec<f64> = (0..RUNS)
            .map(|_| {
                let start = Instant::now();
                pool.install(|| {
                    target
                        .par_chunks_mut(chunk)
                        .zip(source.par_chunks(chunk))
                        .for_each(|(to, from)| to.copy_from_slice(from));
                });
                counted / start.elapsed().as_secs_f64() / 1e9
            })
            .collect();
        assert_eq!(target[n - 1], source[n - 1]);
        rates.sort_by(f64::total_cmp);
        println!(
            "{t} thread{}: {:.1} GB/s best, {:.1} GB/s median",
            if t == 1 { "" } else { "s" },
            rates[RUNS - 1],
            rates[RUNS / 2]
        );
        if threads == 1 {
            break;
        }
    }
}
