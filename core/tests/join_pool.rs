//! `join_global_pool`: the calling thread becomes thread 0 of rayon's global
//! pool; every parallel call gives its serial call's results from there and
//! from another thread (which the workers serve while thread 0 is away from
//! the pool), checked by the shared harness's `check_threads`; and a worker's
//! panic comes back to it. Its own test binary: the global pool is built once
//! a process.
#![cfg(feature = "rayon")]

use flatquad_testkit::{Checks, Lcg, Subject};

/// Random operation sequences on every structure, each parallel call held to
/// its serial call every fourth step (`check_threads`: the global pool, and
/// local pools of 1, 2 and 8 threads), as `threads.rs` runs them.
fn threads_never_change_a_result(seed: u64) {
    for (at, subject) in Subject::ALL.iter().enumerate() {
        subject.run(&mut Lcg(seed + at as u64), 80, &Checks::THREADS);
    }
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

    // Small random structures take the parallel paths.
    flatquad::parallel_from_for_tests(4);
    threads_never_change_a_result(1);
    // From another thread while thread 0 waits outside the pool (in `join`
    // of std): the worker alone must answer, or this would hang.
    std::thread::scope(|s| {
        s.spawn(|| {
            assert_eq!(rayon::current_thread_index(), None);
            threads_never_change_a_result(100);
        });
    });

    // A worker's panic comes back to thread 0, which the hook tells apart.
    let panic = std::panic::catch_unwind(flatquad::panic_on_a_worker_for_tests).unwrap_err();
    assert_eq!(
        panic.downcast_ref::<&str>(),
        Some(&"deliberate test panic on a worker thread")
    );
    // And the pool goes on.
    threads_never_change_a_result(200);
}
