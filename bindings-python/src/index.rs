//! `flatquad.SpatialIndex`: the base class of every structure, holding the
//! core's `AnyIndex` behind a lock, with every method written once: calls
//! converted and forwarded. No algorithm lives here; the subclasses
//! (`structures`) only construct themselves.

use flatquad::{AnyIndex, SpatialIndex};
use numpy::{PyArray1, PyArray2};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple, PyType};

use crate::convert::Rects;
use crate::errors::{self, Args};
use crate::lock::{IndexLock, Reading};
use crate::shared::{self, index_methods, raw, Csr};
use crate::{join, structures};

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
    pub(crate) fn read(&self, py: Python<'_>) -> Reading<'_> {
        self.lock.read(py)
    }

    /// The lock itself (for a `PairTracker`, which reads it without the GIL).
    pub(crate) fn lock(&self) -> &IndexLock {
        &self.lock
    }

    fn snapshot(&self, py: Python<'_>) -> AnyIndex {
        self.lock.read_with_gil_released(py, |index| index.clone())
    }
}

index_methods!(Index, "_restore_index", [
    /// The world as ``(x1, y1, x2, y2)``, in float32 precision.
    #[getter]
    fn bounds(&self, py: Python<'_>) -> (f32, f32, f32, f32) {
        let world = self.lock.read(py).world();
        (world.x1, world.y1, world.x2, world.y2)
    }

    /// The structure's class name: ``"Quadtree"``, ``"Grid"`` or ``"LooseGrid"``.
    #[getter]
    fn kind(&self, py: Python<'_>) -> &'static str {
        self.lock.read(py).kind().name()
    }

    /// The handles of the elements whose rectangle holds the point ``(x, y)``
    /// (its border included), leaving out ``omit``; with ``mask``, only those
    /// whose filter category has a bit in it (as for ``query``).
    ///
    /// Raises
    /// ------
    /// ValueError
    ///     For a NaN or infinite coordinate, or a mask out of range.
    /// KeyError
    ///     If ``omit`` names no element.
    #[pyo3(signature = (x, y, omit = None, mask = None))]
    fn query_point(
        &self,
        py: Python<'_>,
        x: f64,
        y: f64,
        omit: Option<&Bound<'_, PyAny>>,
        mask: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<u64>> {
        shared::query_point(&self.lock, py, &[x, y], omit, mask)
    }

    /// The handles of the elements whose rectangle is within ``radius`` of
    /// ``(x, y)`` (closed: at distance ``<= radius`` from the rectangle; 0
    /// for a rectangle holding the point), in no particular order; with
    /// ``mask``, only those whose filter category has a bit in it.
    ///
    /// Raises
    /// ------
    /// ValueError
    ///     For a NaN or infinite coordinate, a NaN or negative radius (``inf``
    ///     is fine: every element), or a mask out of range.
    #[pyo3(signature = (x, y, radius, mask = None))]
    fn query_circle(
        &self,
        py: Python<'_>,
        x: f64,
        y: f64,
        radius: f64,
        mask: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<u64>> {
        shared::query_circle(&self.lock, py, &[x, y], radius, mask)
    }

    /// The ``k`` elements nearest to ``(x, y)`` (fewer if there are fewer),
    /// nearest first. The distance is to the element's closed rectangle, in
    /// float64 (0 when the rectangle holds the point); ties go to the smaller
    /// id, then the smaller handle, the order of a brute-force sort. The
    /// search is best-first: it reads only what can beat the ``k``-th result.
    ///
    /// Parameters
    /// ----------
    /// x, y : float
    /// k : int
    ///     How many, ``>= 0`` (default 1).
    /// max_distance : float, optional
    ///     Only elements at most this far (closed).
    /// return_distance : bool
    ///     Also return the distances.
    /// mask : int, optional
    ///     Only elements whose filter category has a bit in it.
    /// filter : callable, optional
    ///     ``filter(handle) -> bool``, called on candidates in ascending order,
    ///     each once; the ones it rejects do not count towards ``k``. An
    ///     exception it raises propagates; it cannot modify the structure
    ///     (``RuntimeError``).
    ///
    /// Returns
    /// -------
    /// list of int, or (list of int, list of float)
    ///     The handles, and with ``return_distance`` their distances.
    ///
    /// Raises
    /// ------
    /// ValueError
    ///     For a NaN or infinite coordinate, a negative ``k``, a NaN or negative
    ///     ``max_distance``, or a mask out of range.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (x, y, k = 1, max_distance = None, return_distance = false, mask = None, filter = None))]
    fn nearest<'py>(
        &self,
        py: Python<'py>,
        x: f64,
        y: f64,
        k: i64,
        max_distance: Option<f64>,
        return_distance: bool,
        mask: Option<&Bound<'py, PyAny>>,
        filter: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        shared::nearest(&self.lock, py, &[x, y], k, max_distance, return_distance, mask, filter)
    }

    /// The first element the segment from ``(ox, oy)`` along ``(dx, dy)`` for
    /// ``max_length`` touches, or None: the first of ``ray_cast_all``.
    ///
    /// Returns
    /// -------
    /// RayHit or None
    ///     ``RayHit(handle, id, distance, fraction)``: ``distance`` along the ray
    ///     to where it first touches the element's closed rectangle (0 when the
    ///     origin is in it), ``fraction`` that over ``max_length``.
    ///
    /// Raises
    /// ------
    /// ValueError
    ///     For a NaN or infinite origin, a zero or non-finite direction, a NaN,
    ///     negative or infinite ``max_length``, or a mask out of range.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (ox, oy, dx, dy, max_length, mask = None))]
    fn ray_cast<'py>(
        &self,
        py: Python<'py>,
        ox: f64,
        oy: f64,
        dx: f64,
        dy: f64,
        max_length: f64,
        mask: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        shared::ray_cast(&self.lock, py, &[ox, oy], &[dx, dy], max_length, mask)
    }

    /// The first element the rectangle ``rect`` touches when it moves by
    /// ``t * (dx, dy)`` for ``t`` from 0 to 1, or None: the first of
    /// ``box_cast_all``. Pass ``omit=`` the moving element's own handle to
    /// ask where it can go.
    ///
    /// Returns
    /// -------
    /// RayHit or None
    ///     ``fraction`` is ``t`` at the first contact of the closed rectangles,
    ///     ``distance`` that times the motion's length.
    ///
    /// Raises
    /// ------
    /// ValueError
    ///     For a NaN, infinite or inverted ``rect``, a NaN or infinite motion,
    ///     or a mask out of range.
    /// KeyError
    ///     ``omit`` is not a live handle.
    #[pyo3(signature = (rect, dx, dy, *, mask = None, omit = None))]
    #[allow(clippy::too_many_arguments)]
    fn box_cast<'py>(
        &self,
        py: Python<'py>,
        rect: &Bound<'py, PyAny>,
        dx: f64,
        dy: f64,
        mask: Option<&Bound<'py, PyAny>>,
        omit: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let hits = shared::box_cast(&self.lock, py, rect, &[dx, dy], mask, omit, false)?;
        Ok(hits.into_iter().next())
    }

    /// Every element the moving rectangle of ``box_cast`` touches, as
    /// ``RayHit``s in ascending ``(fraction, id, handle)`` order; one it
    /// touches where it starts is hit at fraction 0.
    ///
    /// Raises
    /// ------
    /// ValueError
    ///     As ``box_cast``.
    #[pyo3(signature = (rect, dx, dy, *, mask = None, omit = None))]
    #[allow(clippy::too_many_arguments)]
    fn box_cast_all<'py>(
        &self,
        py: Python<'py>,
        rect: &Bound<'py, PyAny>,
        dx: f64,
        dy: f64,
        mask: Option<&Bound<'py, PyAny>>,
        omit: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Vec<Bound<'py, PyAny>>> {
        shared::box_cast(&self.lock, py, rect, &[dx, dy], mask, omit, true)
    }

    /// Every element the segment from ``(ox, oy)`` along ``(dx, dy)`` (any
    /// length but 0) for ``max_length`` touches, as ``RayHit``s in ascending
    /// ``(distance, id, handle)`` order. Rectangles are closed: grazing a
    /// corner or running along an edge hits, and a ray of length 0 hits the
    /// rectangles holding its origin. Exact for rays parallel to an axis.
    ///
    /// Raises
    /// ------
    /// ValueError
    ///     As ``ray_cast``.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (ox, oy, dx, dy, max_length, mask = None))]
    fn ray_cast_all<'py>(
        &self,
        py: Python<'py>,
        ox: f64,
        oy: f64,
        dx: f64,
        dy: f64,
        max_length: f64,
        mask: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Vec<Bound<'py, PyAny>>> {
        shared::ray_cast_all(&self.lock, py, &[ox, oy], &[dx, dy], max_length, mask)
    }

    /// Calls ``callback(hit)`` with each hit of ``ray_cast_all``, in that order.
    /// It returns None or True to go on, False to stop, or a number to clip the
    /// ray to that length (kept if longer than the current one; a hit at exactly
    /// that distance is still visited; NaN or negative stops): return
    /// ``hit.distance`` to keep only the hits as near as this one. An exception
    /// it raises stops the cast and propagates; it cannot modify the structure
    /// (``RuntimeError``).
    ///
    /// Raises
    /// ------
    /// ValueError
    ///     As ``ray_cast`` (``callback`` is then never called).
    /// TypeError
    ///     If ``callback`` is not callable or returns anything else.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (ox, oy, dx, dy, max_length, callback, mask = None))]
    fn ray_cast_with(
        &self,
        py: Python<'_>,
        ox: f64,
        oy: f64,
        dx: f64,
        dy: f64,
        max_length: f64,
        callback: &Bound<'_, PyAny>,
        mask: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        shared::ray_cast_with(&self.lock, py, &[ox, oy], &[dx, dy], max_length, callback, mask)
    }

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
            .read_with_gil_released(py, |index| {
                let (mut rows, mut hits) = (Vec::new(), Vec::new());
                flatquad::join::query_bulk(index, rects, sort, &mut rows, &mut hits)
                    .map(|_| (rows, hits))
            })
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
        let columns = py.detach(|| {
            let (left, right) = (self.lock.read_detached(), other.lock.read_detached());
            let (mut lefts, mut rights) = (Vec::new(), Vec::new());
            flatquad::join::join(&*left, &*right, sort, &mut lefts, &mut rights);
            (lefts, rights)
        });
        join::two_rows(py, columns, raw, raw)
    }

    /// The element's rectangle ``(x1, y1, x2, y2)``, as stored (float32).
    ///
    /// Raises
    /// ------
    /// KeyError
    ///     If ``handle`` names no element.
    fn rect_of(&self, py: Python<'_>, handle: &Bound<'_, PyAny>) -> PyResult<(f64, f64, f64, f64)> {
        let r = shared::box_of(&self.lock, py, handle)?;
        Ok((r[0], r[1], r[2], r[3]))
    }

    /// A structure from ``to_bytes()``'s output. On ``SpatialIndex``, it is
    /// whichever structure the snapshot holds; on a subclass, the snapshot must
    /// be of that subclass's kind.
    ///
    /// Raises
    /// ------
    /// ValueError
    ///     If the bytes are not a consistent snapshot (every invariant is
    ///     checked), or hold another kind of structure than the class's.
    #[classmethod]
    fn from_bytes<'py>(
        cls: &Bound<'py, PyType>,
        data: std::borrow::Cow<'_, [u8]>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = cls.py();
        let kind = structures::kind_of_class(cls);
        let data: &[u8] = &data;
        let index = py
            .detach(|| structures::from_bytes(kind, data))
            .map_err(|e| errors::to_py(py, e, Args::SINGLE))?;
        structures::wrap(py, index)
    }

    /// Replaces the whole structure with a snapshot of the same kind.
    fn __setstate__(&self, py: Python<'_>, state: std::borrow::Cow<'_, [u8]>) -> PyResult<()> {
        let kind = self.lock.read(py).kind();
        let data: &[u8] = &state;
        let index = py
            .detach(|| structures::from_bytes(Some(kind), data))
            .map_err(|e| errors::to_py(py, e, Args::SINGLE))?;
        *self.lock.write(py)? = index;
        Ok(())
    }

    fn __copy__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        structures::wrap(py, self.snapshot(py))
    }

    fn __deepcopy__<'py>(
        &self,
        py: Python<'py>,
        _memo: &Bound<'_, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        structures::wrap(py, self.snapshot(py))
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let index = self.lock.read(py);
        let world = index.world();
        format!(
            "<flatquad.{} bounds=({:?}, {:?}, {:?}, {:?}) {} len={}>",
            index.kind().name(),
            world.x1,
            world.y1,
            world.x2,
            world.y2,
            structures::parameters(&index),
            index.len()
        )
    }
]);
