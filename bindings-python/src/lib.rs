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
    m.add_function(wrap_pyfunction!(_join_thread_pool, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    _join_thread_pool(m.py())?;
    Ok(())
}

/// Makes Python's main thread, when it is the one calling (as it is when it
/// imports flatquad), thread 0 of the pool the batch calls run on
/// (`flatquad::join_global_pool`): its batch calls then start on it at once,
/// rather than waking a sleeping worker and waiting for it, 50-80 µs a call.
/// Called as the module is imported; returns whether the calling thread is
/// thread 0. Other threads' calls are answered by the pool's other threads,
/// with the main thread's help while it waits in a call of its own. Not part
/// of the API.
#[pyfunction]
fn _join_thread_pool(py: Python<'_>) -> PyResult<bool> {
    let threading = py.import("threading")?;
    let on_main = threading
        .call_method0("main_thread")?
        .is(&threading.call_method0("current_thread")?);
    Ok(on_main && py.detach(flatquad::join_global_pool))
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
