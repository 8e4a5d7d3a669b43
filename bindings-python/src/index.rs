//! `flatquad.SpatialIndex`: the base class of the 2D structures, holding the
//! core's `AnyIndex` behind a lock. Its methods are `methods::index_methods!`,
//! given the coordinate names `x, y`, and the two only 2D structures have:
//! `query_bulk` and `join`. No algorithm lives here; the subclasses
//! (`structures`) only construct themselves.

use flatquad::{AnyIndex, SpatialIndex};
use numpy::{PyArray1, PyArray2};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple, PyType};

use crate::convert::Rects;
use crate::errors::{self, Args};
use crate::join;
use crate::lock::{IndexLock, Reading};
use crate::methods::index_methods;
use crate::shared::{self, raw, Csr};

const BULK: Args = Args {
    rects: "bounds",
    handles: "handle",
    lengths: ("", ""),
};
/// The API every flatquad structure shares: ``Quadtree``, ``Grid`` and
/// ``LooseGrid`` are its subclasses and differ only in how they are
/// constructed. Use it for ``isinstance`` checks, type hints, and
/// ``SpatialIndex.from_bytes`` (which gives back whichever structure a
/// snapshot holds); it has no constructor of its own.
///
/// Rectangles are ``(x1, y1, x2, y2)`` with ``x1 <= x2`` and ``y1 <= y2``,
/// closed (touching rectangles overlap), stored as float32: results are exact
/// for float32 input, the same for every structure. ``insert`` returns a
/// *handle*, an int naming the element until it is removed; a removed handle
/// is never reused by the structure. Each element also carries an *id*, an
/// unsigned 32-bit int of yours (0 unless given).
///
/// Bad coordinates raise ``ValueError``, stale or unknown handles ``KeyError``
/// (``err.kind`` names the core's error kind, ``err.index`` the bad item of a
/// batch); a call that raises has changed nothing. Several threads may query
/// one structure at once; long calls (the ``*_many`` batches, ``pairs``)
/// release the GIL. Structures pickle and deep-copy exactly, handles included.
///
/// Examples
/// --------
/// >>> import flatquad
/// >>> index = flatquad.Grid((0, 0, 100, 100))
/// >>> isinstance(index, flatquad.SpatialIndex), index.kind
/// (True, 'Grid')
/// >>> a = index.insert((10, 10, 20, 20), id=1)
/// >>> copy = flatquad.SpatialIndex.from_bytes(index.to_bytes())
/// >>> type(copy).__name__, copy.id_of(a)
/// ('Grid', 1)
#[pyclass(frozen, weakref, subclass, name = "SpatialIndex", module = "flatquad")]
pub(crate) struct Index {
    lock: IndexLock,
}

impl Index {
    pub(crate) fn new(index: AnyIndex) -> Self {
        Index {
            lock: IndexLock::new(index),
        }
    }

    /// The structure, read-locked (for the subclasses' parameters).
    pub(crate) fn read(&self, py: Python<'_>) -> PyResult<Reading<'_>> {
        self.lock.read(py)
    }

    /// The lock itself (for a `PairTracker`, which reads it without the GIL).
    pub(crate) fn lock(&self) -> &IndexLock {
        &self.lock
    }
}

index_methods!(Index, AnyIndex, "_restore_index",
    point (x, y), origin (ox, oy), direction (dx, dy), [
    /// Every pair ``(i, h)`` such that ``bounds[i]`` meets the element ``h``
    /// (closed boxes: touching counts): one query per row, as shapely's
    /// ``STRtree.query(geoms, predicate="intersects")`` gives them for boxes.
    /// (``query`` is the one-rectangle call; ``query_many`` the same batch in
    /// compressed rows.)
    ///
    /// Parameters
    /// ----------
    /// bounds : array_like, shape (m, 4)
    ///     Rows ``(x1, y1, x2, y2)``: float32 or float64, both read in place
    ///     (float64 rounded once to the nearest float32, which never loses a
    ///     pair whose boxes meet in float64).
    /// predicate : None or "intersects"
    ///     Boxes only; both mean "the boxes meet".
    /// sort : bool
    ///     Handles of each row in increasing order (rows always increase).
    ///
    /// Returns
    /// -------
    /// numpy.ndarray
    ///     int64, shape ``(2, k)``: ``[input_index, handle]``. For tree
    ///     *positions* instead of handles, use ``flatquad.BoxIndex``.
    ///
    /// Raises
    /// ------
    /// ValueError
    ///     For a bad row (``err.index`` is its position).
    ///
    /// Releases the GIL and runs on every core.
    #[pyo3(signature = (bounds, predicate = None, *, sort = false))]
    fn query_bulk<'py>(
        &self,
        py: Python<'py>,
        bounds: &Bound<'py, PyAny>,
        predicate: Option<&str>,
        sort: bool,
    ) -> PyResult<Bound<'py, PyArray2<i64>>> {
        join::check_predicate(predicate)?;
        let rects = Rects::new(bounds, "bounds")?;
        let rects = rects.as_rects()?;
        let columns = self
            .lock
            .read_on_threads(py, |index| {
                let (mut rows, mut hits) = (Vec::new(), Vec::new());
                flatquad::join::query_bulk(index, rects, sort, &mut rows, &mut hits)
                    .map(|_| (rows, hits))
            })?
            .map_err(|e| errors::to_py(py, e, BULK))?;
        join::two_rows(py, columns, join::position, raw)
    }

    /// Every pair of an element of this index and an element of ``other``
    /// whose rectangles meet, each pair once (``other`` may be another kind
    /// of structure, or this one: then each element also pairs with itself).
    ///
    /// Parameters
    /// ----------
    /// other : SpatialIndex
    /// sort : bool
    ///     Pairs in increasing ``(handle here, handle in other)`` order.
    ///
    /// Returns
    /// -------
    /// numpy.ndarray
    ///     int64 handles, shape ``(2, k)``: ``[handle here, handle in other]``.
    ///
    /// Releases the GIL and runs on every core.
    #[pyo3(signature = (other, *, sort = false))]
    fn join<'py>(
        &self,
        py: Python<'py>,
        other: &Bound<'py, Index>,
        sort: bool,
    ) -> PyResult<Bound<'py, PyArray2<i64>>> {
        let other = other.get();
        crate::join_pool_from_main_thread();
        let columns = py.detach(|| {
            let (left, right) = (self.lock.read_detached()?, other.lock.read_detached()?);
            let (mut lefts, mut rights) = (Vec::new(), Vec::new());
            flatquad::join::join(&*left, &*right, sort, &mut lefts, &mut rights);
            Ok::<_, PyErr>((lefts, rights))
        })?;
        join::two_rows(py, columns, raw, raw)
    }
]);
