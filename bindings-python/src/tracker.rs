//! `flatquad.PairTracker`: the core's contact events (`flatquad::PairTracker`)
//! over one index, which the tracker keeps alive. Nothing is decided here:
//! `update` takes the index's read lock and the tracker's own lock, with the
//! GIL released, and hands the core's sorted pairs to numpy.

use std::sync::atomic::{AtomicBool, Ordering};

use flatquad::{Bounds, Box3, Handle, Rect};
use numpy::{PyArray1, PyArray2, PyArrayMethods};
use parking_lot::{Mutex, MutexGuard};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::index::Index;
use crate::lock::{poisoned, IndexLock};
use crate::octree::Octree;
use crate::shared::{raw, Core};

/// The core tracker of one box width, behind its own lock. A panic inside
/// flatquad while a call was changing it (`update`, `reset`) poisons it: it
/// may be half-updated, so every later call raises, as for an index.
struct Tracker<B: Bounds> {
    state: Mutex<flatquad::PairTracker<B>>,
    poisoned: AtomicBool,
}

impl<B: Bounds> Default for Tracker<B> {
    fn default() -> Self {
        Tracker {
            state: Mutex::default(),
            poisoned: AtomicBool::new(false),
        }
    }
}

/// The tracker locked for a change: a panic unwinding through it poisons
/// the tracker before the lock is let go.
struct Changing<'a, B: Bounds> {
    guard: MutexGuard<'a, flatquad::PairTracker<B>>,
    poisoned: &'a AtomicBool,
}

impl<B: Bounds> Drop for Changing<'_, B> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.poisoned.store(true, Ordering::Relaxed);
        }
    }
}

impl<B: Bounds> Tracker<B> {
    /// `guard` for a change, refused once poisoned: checked with the lock
    /// held (a call that waited for the one that panicked sees it), the error
    /// built after letting the lock go (building it takes the GIL).
    fn usable<'a>(
        &'a self,
        guard: MutexGuard<'a, flatquad::PairTracker<B>>,
    ) -> PyResult<Changing<'a, B>> {
        if self.poisoned.load(Ordering::Relaxed) {
            drop(guard);
            return Err(poisoned("PairTracker")?);
        }
        Ok(Changing {
            guard,
            poisoned: &self.poisoned,
        })
    }

    /// The tracker for a change, waited for with the GIL released (another
    /// thread may hold it inside `update`, without the GIL).
    fn changing(&self, py: Python<'_>) -> PyResult<Changing<'_, B>> {
        let guard = match self.state.try_lock() {
            Some(guard) => guard,
            None => py.detach(|| self.state.lock()),
        };
        self.usable(guard)
    }

    /// [`changing`](Tracker::changing) on a thread without the GIL.
    fn changing_detached(&self) -> PyResult<Changing<'_, B>> {
        self.usable(self.state.lock())
    }
}

/// The index a tracker follows (a strong reference: it cannot go away while
/// the tracker lives) and the core tracker of its box width.
enum Tracked {
    Flat(Py<Index>, Tracker<Rect>),
    Solid(Py<Octree>, Tracker<Box3>),
}

/// `$body` with the tracked index and core tracker bound, written once for
/// both box widths (each arm is compiled for its own types).
macro_rules! with_tracked {
    ($tracked:expr, |$index:pat_param, $tracker:pat_param| $body:expr) => {
        match $tracked {
            Tracked::Flat($index, $tracker) => $body,
            Tracked::Solid($index, $tracker) => $body,
        }
    };
}

/// The pairs that began and ended overlapping in an index since the last
/// look: the contact events of a game loop (a sensor entered or left, a
/// contact to create or destroy).
///
/// Parameters
/// ----------
/// index : SpatialIndex or Octree
///     Any flatquad structure (``Quadtree``, ``Grid``, ``LooseGrid``,
///     ``LooseQuadtree``, ``Octree``). The tracker keeps a reference to it, so
///     the index lives as long as the tracker.
///
/// After the frame's moves, inserts, removals and filter changes, ``update()``
/// returns ``(began, ended)``. Boxes are closed (touching counts) and
/// collision filters apply, as for ``pairs()``. The first update reports
/// every overlapping pair as began. A removed element's pairs end with the
/// handle it had; a pair whose filters stop colliding ends. A slot the index
/// reuses for a new element ends the old element's pairs and begins the new
/// one's. The work follows the change: pairs between unchanged elements are
/// not tested again.
///
/// Several threads may share a tracker; ``update`` releases the GIL and waits
/// for a writer of the index to finish.
///
/// Raises
/// ------
/// TypeError
///     If ``index`` is not a flatquad structure (``BoxIndex`` is static: it
///     has nothing to track).
/// RuntimeError
///     With ``kind == "Poisoned"``, from every call on a tracker whose update
///     a panic inside flatquad (a bug; please report it) stopped halfway.
///
/// Examples
/// --------
/// >>> import flatquad
/// >>> grid = flatquad.Grid((0, 0, 100, 100))
/// >>> a = grid.insert((0, 0, 2, 2))
/// >>> b = grid.insert((5, 0, 7, 2))
/// >>> tracker = flatquad.PairTracker(grid)
/// >>> began, ended = tracker.update()
/// >>> began.shape, ended.shape
/// ((0, 2), (0, 2))
/// >>> grid.move(b, (1, 0, 3, 2))  # b walks into a
/// >>> began, ended = tracker.update()
/// >>> began.tolist() == [[a, b]], tracker.pair_count
/// (True, 1)
/// >>> grid.remove(a)
/// >>> began, ended = tracker.update()
/// >>> ended.tolist() == [[a, b]], tracker.pair_count
/// (True, 0)
#[pyclass(frozen, weakref, name = "PairTracker", module = "flatquad")]
pub(crate) struct PairTracker {
    tracked: Tracked,
}

/// Pairs as the rows of a `(k, 2)` int64 array, flat.
fn flat(pairs: &[[Handle; 2]]) -> Vec<i64> {
    pairs.iter().flat_map(|&[a, b]| [raw(a), raw(b)]).collect()
}

fn rows(py: Python<'_>, flat: Vec<i64>) -> PyResult<Bound<'_, PyArray2<i64>>> {
    let k = flat.len() / 2;
    PyArray1::from_vec(py, flat).reshape([k, 2])
}

type Events = (Vec<i64>, Vec<i64>);

/// `(began, ended)` as Python gets them.
type EventArrays<'py> = (Bound<'py, PyArray2<i64>>, Bound<'py, PyArray2<i64>>);

fn update<T: Core>(
    py: Python<'_>,
    lock: &IndexLock<T>,
    tracker: &Tracker<T::Bounds>,
) -> PyResult<Events> {
    crate::join_pool_from_main_thread();
    py.detach(|| {
        // The index's lock first, then the tracker's, always in this order: a
        // thread holding the tracker never waits for the index, so two threads
        // (or an update inside the index's own traverse callback) cannot wait
        // on each other.
        let index = lock.read_detached()?;
        let mut tracker = tracker.changing_detached()?;
        // The whole-index pair walk, when the tracker takes it, on all threads.
        let (began, ended) = tracker.guard.par_update(&*index);
        Ok((flat(began), flat(ended)))
    })
}

#[pymethods]
impl PairTracker {
    #[new]
    fn new(index: &Bound<'_, PyAny>) -> PyResult<Self> {
        let tracked = if let Ok(index) = index.cast::<Index>() {
            Tracked::Flat(index.clone().unbind(), Tracker::default())
        } else if let Ok(index) = index.cast::<Octree>() {
            Tracked::Solid(index.clone().unbind(), Tracker::default())
        } else {
            return Err(PyTypeError::new_err(format!(
                "PairTracker(index): index must be a flatquad Quadtree, Grid, LooseGrid, \
                 LooseQuadtree or Octree, not {}",
                index.get_type().name()?
            )));
        };
        Ok(PairTracker { tracked })
    }

    /// The pairs that began and ended overlapping since the last ``update``
    /// (or since the tracker was made, or ``reset``).
    ///
    /// Returns
    /// -------
    /// (began, ended) : (numpy.ndarray, numpy.ndarray)
    ///     int64 handles, each of shape ``(k, 2)``: each row a pair in
    ///     ascending order, the rows sorted. Releases the GIL while it works.
    fn update<'py>(&self, py: Python<'py>) -> PyResult<EventArrays<'py>> {
        let (began, ended) = with_tracked!(&self.tracked, |index, tracker| {
            update(py, index.get().lock(), tracker)
        })?;
        Ok((rows(py, began)?, rows(py, ended)?))
    }

    /// How many pairs overlapped at the last ``update`` (0 before the first).
    #[getter]
    fn pair_count(&self, py: Python<'_>) -> PyResult<usize> {
        with_tracked!(&self.tracked, |_, tracker| Ok(tracker
            .changing(py)?
            .guard
            .pair_count()))
    }

    /// Forget everything seen: the next ``update`` reports every overlapping
    /// pair as began, and nothing as ended.
    fn reset(&self, py: Python<'_>) -> PyResult<()> {
        with_tracked!(&self.tracked, |_, tracker| {
            tracker.changing(py)?.guard.reset();
            Ok(())
        })
    }

    /// The index the tracker follows.
    #[getter]
    fn index(&self, py: Python<'_>) -> Py<PyAny> {
        with_tracked!(&self.tracked, |index, _| index.clone_ref(py).into_any())
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let class = self.index(py).bind(py).get_type().name()?;
        Ok(format!(
            "<flatquad.PairTracker index={class} pair_count={}>",
            self.pair_count(py)?
        ))
    }
}

impl PairTracker {
    /// Test hook (see `_panic_for_tests`): panics while the tracker is held
    /// for a change, as inside `update`, which poisons it.
    pub(crate) fn panic_for_tests(&self, py: Python<'_>, on_worker: bool) -> PyResult<()> {
        with_tracked!(&self.tracked, |_, tracker| py.detach(|| {
            let _changing = tracker.changing_detached()?;
            flatquad::panic_for_tests(on_worker)
        }))
    }
}
