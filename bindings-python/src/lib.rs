//! `flatquad._native`: the Python extension module of flatquad, built by maturin
//! into the `flatquad` package (`python/flatquad/`).
//!
//! A thin layer: Python values are converted (`convert`), calls forwarded to the
//! core under a reader-writer lock (`lock`), and core errors raised as Python
//! exceptions (`errors`). Every algorithm lives in the core crate.

mod convert;
mod errors;
mod index;
mod join;
mod lock;
mod methods;
mod octree;
mod shared;
mod structures;
mod tracker;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::thread::ThreadId;

use pyo3::prelude::*;

/// The compiled part of flatquad; import ``flatquad`` instead.
#[pymodule]
#[pyo3(name = "_native")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<index::Index>()?;
    m.add_class::<structures::Quadtree>()?;
    m.add_class::<structures::Grid>()?;
    m.add_class::<structures::LooseGrid>()?;
    m.add_class::<structures::LooseQuadtree>()?;
    m.add_class::<octree::Octree>()?;
    m.add_class::<join::BoxIndex>()?;
    m.add_class::<tracker::PairTracker>()?;
    m.add_function(wrap_pyfunction!(join::join_bounds, m)?)?;
    m.add_function(wrap_pyfunction!(join::_restore_index, m)?)?;
    m.add_function(wrap_pyfunction!(join::_str_ranks, m)?)?;
    m.add_function(wrap_pyfunction!(octree::_restore_octree, m)?)?;
    m.add_function(wrap_pyfunction!(join::_restore_boxes, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_in_moves_for_tests, m)?)?;
    m.add_function(wrap_pyfunction!(_join_thread_pool, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    if on_main_thread(m.py())? {
        let _ = MAIN_THREAD.set(std::thread::current().id());
    }
    Ok(())
}

/// Python's main thread, when the module was imported on it.
static MAIN_THREAD: OnceLock<ThreadId> = OnceLock::new();

/// Whether the main thread has asked to join the batch calls' pool.
static JOIN_ASKED: AtomicBool = AtomicBool::new(false);

fn on_main_thread(py: Python<'_>) -> PyResult<bool> {
    let threading = py.import("threading")?;
    Ok(threading
        .call_method0("main_thread")?
        .is(&threading.call_method0("current_thread")?))
}

/// Called before every call that may take the threads (`read_on_threads`,
/// `write_on_threads`, the joins, the tracker's update): on Python's main
/// thread, the first time, makes it thread 0 of the pool the batch calls run
/// on (`flatquad::join_global_pool`), so that they start on it at once rather
/// than waking a sleeping worker and waiting for it (47-80 µs a call). Not at
/// import: a process forked between the import and its first such call (as
/// multiprocessing's `fork` does) then starts a pool of its own, and flatquad
/// adds no threads to a process that has only imported it.
pub(crate) fn join_pool_from_main_thread() {
    if !JOIN_ASKED.load(Ordering::Relaxed)
        && MAIN_THREAD.get() == Some(&std::thread::current().id())
    {
        JOIN_ASKED.store(true, Ordering::Relaxed);
        flatquad::join_global_pool();
    }
}

/// Test hook: on Python's main thread, joins the pool as a first big call
/// would, and returns whether this thread is its thread 0; `False` on any
/// other thread. Not part of the API.
#[pyfunction]
fn _join_thread_pool(py: Python<'_>) -> PyResult<bool> {
    Ok(on_main_thread(py)? && py.detach(flatquad::join_global_pool))
}

/// Test hook: panics inside flatquad, on the calling thread or (`on_worker`)
/// on a worker thread of the pool the batch calls run on (rayon's), with the
/// GIL released as a batch call's work is, so the tests can check that both
/// come back as the same exception and never abort Python. Given an `index`,
/// the panic happens under its lock, as in one of its read-only calls or
/// (`mutating`) in a call changing it, which poisons it; given a
/// `PairTracker`, under its lock as in `update`, which poisons the tracker.
/// Not part of the API.
#[pyfunction]
#[pyo3(signature = (on_worker, index = None, mutating = false))]
fn _panic_for_tests(
    py: Python<'_>,
    on_worker: bool,
    index: Option<&Bound<'_, PyAny>>,
    mutating: bool,
) -> PyResult<()> {
    let panic = move || -> PyResult<()> { flatquad::panic_for_tests(on_worker) };
    let Some(index) = index else {
        return py.detach(panic);
    };
    if let Ok(tracker) = index.cast::<tracker::PairTracker>() {
        return tracker.get().panic_for_tests(py, on_worker);
    }
    if let Ok(index) = index.cast::<index::Index>() {
        panic_under(index.get().lock(), py, mutating, panic)
    } else {
        let index = index.cast::<octree::Octree>()?;
        panic_under(index.get().lock(), py, mutating, panic)
    }
}

/// Test hook: `index.move_many(handles, rects)` whose moves panic after the
/// first `at` are made, on a worker thread of the batch calls' pool if
/// `on_worker`, as a bug in flatquad would: the moves are finished, the call
/// raises a `RuntimeError` whose `kind` is `"Panic"`, and the structure is
/// not poisoned. Not part of the API.
#[pyfunction]
#[pyo3(signature = (index, handles, rects, at, on_worker = false))]
fn _panic_in_moves_for_tests(
    py: Python<'_>,
    index: &Bound<'_, PyAny>,
    handles: &Bound<'_, PyAny>,
    rects: &Bound<'_, PyAny>,
    at: usize,
    on_worker: bool,
) -> PyResult<()> {
    if let Ok(index) = index.cast::<index::Index>() {
        shared::move_many_panicking(index.get().lock(), py, handles, rects, at, on_worker)
    } else {
        let index = index.cast::<octree::Octree>()?;
        shared::move_many_panicking(index.get().lock(), py, handles, rects, at, on_worker)
    }
}

/// Runs `panic` under `lock`, as a read-only or (`mutating`) a changing call.
fn panic_under<T: lock::Lockable>(
    lock: &lock::IndexLock<T>,
    py: Python<'_>,
    mutating: bool,
    panic: impl FnOnce() -> PyResult<()> + Send,
) -> PyResult<()> {
    if mutating {
        lock.write_detached(py, |_| panic())?
    } else {
        lock.read_with_gil_released(py, |_| panic())?
    }
}
