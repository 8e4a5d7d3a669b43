//! The pool the batch calls run on, and the calling thread's place in it.

use crate::boundary::guard;

/// Makes the calling thread thread 0 of the pool the batch calls run on,
/// beside n - 1 other threads, n being `RAYON_NUM_THREADS`, else the number of
/// CPUs. A big batch call from it then starts on it at once while the others
/// take parts of it; a call from a thread outside the pool hands its work over
/// and waits, and a pool thread asleep between two calls takes 47-80 µs to
/// wake.
///
/// Call it first thing, before any batch call has started the pool, from the
/// thread that makes most calls (a game loop's), and keep that thread alive
/// while flatquad is used. Other threads' calls are answered by the pool's
/// other threads, and by thread 0 while it waits inside a call of its own,
/// which may then finish such a call before its own returns.
///
/// Returns true if the calling thread is thread 0, by this call or an earlier
/// one. Returns false if the pool was started already, another thread joined
/// it first, or n is 1 (`RAYON_NUM_THREADS=1`, or one CPU: every call stays on
/// its caller); and if the pool's threads could not be started, after which
/// the calling thread answers its own calls alone and other threads' big
/// batch calls return `QT_PANIC`, as they would have anyway. Any thread may
/// call it.
#[no_mangle]
pub extern "C" fn qt_join_thread_pool() -> bool {
    guard(flatquad_core::join_global_pool)
}
