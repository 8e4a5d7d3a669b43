//! The soak: many seeded runs of the random-operation harness
//! (`flatquad_testkit::run_with`: every operation checked against a brute-force
//! model, `validate` after each) across every structure, on all cores, until
//! `--ops` operations are done. Exits non-zero on any mismatch or panic.
//! With feature `rayon`, every parallel call is also held to its serial call
//! on 1, 2 and 8 threads every `--threads-every` operations, from sizes
//! lowered so that the runs' small structures take the parallel paths.
//!
//! cargo run --release -p flatquad-testkit --features rayon --example soak -- --ops 100000000

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use flatquad_testkit::{Checks, Lcg, Subject};

struct Options {
    ops: u64,
    threads: usize,
    steps: usize,
    cap: usize,
    first_seed: u64,
    checks: Checks,
}

fn options() -> Options {
    let mut o = Options {
        ops: 1_000_000,
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        steps: 2_000,
        cap: 200,
        first_seed: 0,
        checks: Checks::EVERY,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let value = pair.get(1).map(|v| v.replace('_', ""));
        let number = || -> u64 {
            value
                .as_deref()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{} needs a number", pair[0]))
        };
        match pair[0].as_str() {
            "--ops" => o.ops = number(),
            "--threads" => o.threads = number() as usize,
            "--steps" => o.steps = number() as usize,
            "--cap" => o.cap = number() as usize,
            "--first-seed" => o.first_seed = number(),
            "--validate-every" => o.checks.validate_every = number() as usize,
            "--compare-every" => o.checks.compare_every = number() as usize,
            "--snapshot-every" => o.checks.snapshot_every = number() as usize,
            "--threads-every" => o.checks.threads_every = number() as usize,
            other => panic!(
                "unknown option {other} (--ops --threads --steps --cap --first-seed \
                 --validate-every --compare-every --snapshot-every --threads-every)"
            ),
        }
    }
    o
}

fn main() {
    let o = options();
    #[cfg(feature = "rayon")]
    flatquad::parallel_from_for_tests(4);
    let started = Instant::now();
    let done = AtomicU64::new(0);
    let next_seed = AtomicU64::new(o.first_seed);
    let runs = AtomicUsize::new(0);
    let per_subject: Vec<AtomicU64> = Subject::ALL.iter().map(|_| AtomicU64::new(0)).collect();
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..o.threads {
            scope.spawn(|| {
                while done.load(Ordering::Relaxed) < o.ops {
                    let seed = next_seed.fetch_add(1, Ordering::Relaxed);
                    let which = (seed % Subject::ALL.len() as u64) as usize;
                    let subject = Subject::ALL[which];
                    let outcome = catch_unwind(AssertUnwindSafe(|| {
                        subject.run(
                            &mut Lcg(seed),
                            o.steps,
                            &Checks {
                                cap: o.cap,
                                ..o.checks
                            },
                        )
                    }));
                    match outcome {
                        Ok(ops) => {
                            done.fetch_add(ops as u64, Ordering::Relaxed);
                            per_subject[which].fetch_add(ops as u64, Ordering::Relaxed);
                        }
                        Err(_) => failures.lock().unwrap().push((subject, seed)),
                    }
                    let n = runs.fetch_add(1, Ordering::Relaxed) + 1;
                    if n % 5_000 == 0 {
                        eprintln!(
                            "{n} runs, {} ops, {:.0} s",
                            done.load(Ordering::Relaxed),
                            started.elapsed().as_secs_f64()
                        );
                    }
                }
            });
        }
    });
    let seconds = started.elapsed().as_secs_f64();
    let total = done.load(Ordering::Relaxed);
    println!(
        "soak: {total} operations in {} runs (seeds {}..{}, {} steps a run, cap {} live, \
         validate every {}, compare every {}, snapshot every {}, threads every {}) on {} threads \
         in {seconds:.0} s ({:.0} ops/s)",
        runs.load(Ordering::Relaxed),
        o.first_seed,
        next_seed.load(Ordering::Relaxed),
        o.steps,
        o.cap,
        o.checks.validate_every,
        o.checks.compare_every,
        o.checks.snapshot_every,
        o.checks.threads_every,
        o.threads,
        total as f64 / seconds
    );
    for (subject, ops) in Subject::ALL.iter().zip(&per_subject) {
        println!("  {subject:?}: {} operations", ops.load(Ordering::Relaxed));
    }
    let failures = failures.into_inner().unwrap();
    println!("mismatches: {}", failures.len());
    for (subject, seed) in &failures {
        println!("  {subject:?} seed {seed}");
    }
    if !failures.is_empty() {
        std::process::exit(1);
    }
}
