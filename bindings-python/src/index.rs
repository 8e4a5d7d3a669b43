//! `flatquad.SpatialIndex`: the base class of every structure, holding the
//! core's `AnyIndex` behind a lock, with every method written once: calls
//! converted and forwarded. No algorithm lives here; the subclasses
//! (`structures`) only construct themselves.

use std::cell::RefCell;
use std::ops::ControlFlow;

use flatquad::{AnyIndex, NodeInfo, SpatialIndex};
use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyDict, PyList, PyTuple, PyType};

use crate::convert::{self, Rects};
use crate::errors::{self, Args};
use crate::lock::{IndexLock, Reading};
use crate::shared::{self, raw, Csr};
use crate::{join, structures};

static NODES: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static ELEMENTS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

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

fn f64_of(v: f32) -> f64 {
    f64::from(v)
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

    fn snapshot(&self, py: Python<'_>) -> AnyIndex {
        self.lock.read_with_gil_released(py, |index| index.clone())
    }
}

#[pymethods]
impl Index {
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

    /// Add a rectangle and return its handle.
    ///
    /// Parameters
    /// ----------
    /// rect : (x1, y1, x2, y2)
    ///     Finite numbers with ``x1 <= x2`` and ``y1 <= y2`` (a point or a
    ///     segment is fine). Stored as float32.
    /// id : int, optional
    ///     Your unsigned 32-bit value for the element, returned by ``id_of``;
    ///     0 when omitted.
    ///
    /// Returns
    /// -------
    /// int
    ///     The handle, never 0 and below 2**53.
    ///
    /// Raises
    /// ------
    /// ValueError
    ///     For NaN or infinite coordinates, an inverted rectangle, or an id
    ///     out of range.
    #[pyo3(signature = (rect, id = None))]
    fn insert(&self, py: Python<'_>, rect: &Bound<'_, PyAny>, id: Option<i64>) -> PyResult<u64> {
        shared::insert(&self.lock, py, rect, id)
    }

    /// Remove an element. Its handle goes stale for good.
    ///
    /// Raises
    /// ------
    /// KeyError
    ///     If ``handle`` names no element of this structure (never issued,
    ///     already removed, or cleared).
    fn remove(&self, py: Python<'_>, handle: &Bound<'_, PyAny>) -> PyResult<()> {
        shared::remove(&self.lock, py, handle)
    }

    /// Give an element a new rectangle (the "move" of a collision loop).
    ///
    /// Raises
    /// ------
    /// KeyError
    ///     If ``handle`` names no element.
    /// ValueError
    ///     For a bad rectangle.
    #[pyo3(name = "move")]
    fn move_(
        &self,
        py: Python<'_>,
        handle: &Bound<'_, PyAny>,
        rect: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        shared::move_to(&self.lock, py, handle, rect)
    }

    /// The lazy tidying after moves and removals (a quadtree merges emptied
    /// cells, one level per call; a loose grid shrinks its cells' boxes): call
    /// it once a frame, after the moves.
    fn cleanup(&self, py: Python<'_>) -> PyResult<()> {
        shared::cleanup(&self.lock, py)
    }

    /// Remove every element (all handles go stale); the memory is kept for reuse.
    fn clear(&self, py: Python<'_>) -> PyResult<()> {
        shared::clear(&self.lock, py)
    }

    /// The handles of the elements whose rectangle meets ``rect``.
    ///
    /// Parameters
    /// ----------
    /// rect : (x1, y1, x2, y2)
    ///     The closed query rectangle: elements that only touch it are found.
    /// omit : int, optional
    ///     A handle to leave out, typically the querying element's own;
    ///     None or 0 (never a handle) leave out nothing.
    ///
    /// Returns
    /// -------
    /// list of int
    ///     Each matching handle once, in no particular order.
    ///
    /// Raises
    /// ------
    /// ValueError
    ///     For a bad rectangle.
    /// KeyError
    ///     If ``omit`` names no element.
    #[pyo3(signature = (rect, omit = None))]
    fn query(
        &self,
        py: Python<'_>,
        rect: &Bound<'_, PyAny>,
        omit: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<u64>> {
        shared::query(&self.lock, py, rect, omit)
    }

    /// The handles of the elements whose rectangle holds the point ``(x, y)``
    /// (its border included), leaving out ``omit``.
    ///
    /// Raises
    /// ------
    /// ValueError
    ///     For a NaN or infinite coordinate.
    /// KeyError
    ///     If ``omit`` names no element.
    #[pyo3(signature = (x, y, omit = None))]
    fn query_point(
        &self,
        py: Python<'_>,
        x: f64,
        y: f64,
        omit: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<u64>> {
        shared::query_point(&self.lock, py, &[x, y], omit)
    }

    /// Every pair of elements whose rectangles overlap, each pair once.
    ///
    /// Returns
    /// -------
    /// numpy.ndarray
    ///     int64 handles, shape ``(k, 2)``; the order of the pairs and within a
    ///     pair is unspecified. Releases the GIL while it works.
    fn pairs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<i64>>> {
        shared::pairs(&self.lock, py)
    }

    /// Insert many rectangles at once; return their handles.
    ///
    /// Parameters
    /// ----------
    /// rects : array_like, shape (n, 4)
    ///     Rows ``(x1, y1, x2, y2)``. A C-contiguous float32 array is read in
    ///     place; float64 (or integer) arrays and nested sequences are
    ///     converted first.
    /// ids : None, int or array_like of shape (n,), optional
    ///     Unsigned 32-bit ids: one per row, one for all rows, or 0 for all
    ///     (the default).
    ///
    /// Returns
    /// -------
    /// numpy.ndarray
    ///     The handles, int64, shape ``(n,)``, in row order.
    ///
    /// Raises
    /// ------
    /// TypeError, ValueError
    ///     For arrays of the wrong dtype or shape; ``ValueError`` for a bad
    ///     row (the message names it, ``err.index`` is its position). Every
    ///     row is checked first: on error nothing is inserted.
    #[pyo3(signature = (rects, ids = None))]
    fn insert_many<'py>(
        &self,
        py: Python<'py>,
        rects: &Bound<'py, PyAny>,
        ids: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        shared::insert_many(&self.lock, py, rects, ids)
    }

    /// Move many elements at once: ``handles[i]`` gets ``rects[i]``.
    ///
    /// Parameters
    /// ----------
    /// handles : array_like of int, shape (n,)
    ///     int64 or uint64 arrays are read in place.
    /// rects : array_like, shape (n, 4)
    ///     As for ``insert_many``.
    ///
    /// Raises
    /// ------
    /// KeyError
    ///     For a handle that names no element (``err.index`` is its position).
    /// ValueError
    ///     For a bad row or different lengths. Every item is checked first:
    ///     on error nothing moves.
    fn move_many(
        &self,
        py: Python<'_>,
        handles: &Bound<'_, PyAny>,
        rects: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        shared::move_many(&self.lock, py, handles, rects)
    }

    /// Remove many elements at once.
    ///
    /// Raises
    /// ------
    /// KeyError
    ///     For a handle that names no element or appears twice
    ///     (``err.index`` is its position). On error nothing is removed.
    fn remove_many(&self, py: Python<'_>, handles: &Bound<'_, PyAny>) -> PyResult<()> {
        shared::remove_many(&self.lock, py, handles)
    }

    /// Query many rectangles at once.
    ///
    /// Parameters
    /// ----------
    /// rects : array_like, shape (n, 4)
    ///     As for ``insert_many``.
    /// omit : array_like of int, shape (n,), optional
    ///     ``omit[i]`` is left out of query ``i`` (typically the querying
    ///     element's own handle); each must name an element.
    ///
    /// Returns
    /// -------
    /// offsets : numpy.ndarray
    ///     int64, shape ``(n + 1,)``: the hits of query ``i`` are
    ///     ``hits[offsets[i]:offsets[i + 1]]`` (CSR layout).
    /// hits : numpy.ndarray
    ///     int64 handles, shape ``(offsets[-1],)``.
    ///
    /// Releases the GIL while it works.
    #[pyo3(signature = (rects, omit = None))]
    fn query_many<'py>(
        &self,
        py: Python<'py>,
        rects: &Bound<'py, PyAny>,
        omit: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Csr<'py>> {
        shared::query_many(&self.lock, py, rects, omit)
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

    /// The handles of the other elements whose rectangle meets this element's
    /// (touching counts): ``query(rect_of(handle), omit=handle)``, but found
    /// from where the element lies, without a search from the top.
    ///
    /// Raises
    /// ------
    /// KeyError
    ///     If ``handle`` names no element.
    fn overlapping(&self, py: Python<'_>, handle: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
        shared::overlapping(&self.lock, py, handle)
    }

    /// ``overlapping`` for many elements at once: the per-agent query of a
    /// collision loop in one call.
    ///
    /// Parameters
    /// ----------
    /// handles : array_like of int, shape (n,)
    ///     As for ``move_many``.
    ///
    /// Returns
    /// -------
    /// (offsets, hits)
    ///     As ``query_many`` gives them: the neighbours of ``handles[i]`` are
    ///     ``hits[offsets[i]:offsets[i + 1]]``.
    ///
    /// Raises
    /// ------
    /// KeyError
    ///     For a handle that names no element (``err.index`` is its position).
    ///
    /// Releases the GIL while it works.
    fn overlapping_many<'py>(
        &self,
        py: Python<'py>,
        handles: &Bound<'py, PyAny>,
    ) -> PyResult<Csr<'py>> {
        shared::overlapping_many(&self.lock, py, handles)
    }

    /// The id the element was inserted with.
    ///
    /// Raises
    /// ------
    /// KeyError
    ///     If ``handle`` names no element.
    fn id_of(&self, py: Python<'_>, handle: &Bound<'_, PyAny>) -> PyResult<u32> {
        shared::id_of(&self.lock, py, handle)
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

    fn __len__(&self, py: Python<'_>) -> usize {
        self.lock.read(py).len()
    }

    fn __contains__(&self, py: Python<'_>, handle: &Bound<'_, PyAny>) -> bool {
        shared::contains(&self.lock, py, handle)
    }

    /// Iterate over the live handles (a snapshot taken when iteration starts).
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let handles: Vec<u64> = {
            let index = self.lock.read(py);
            index.iter().map(|(h, _, _)| h.to_raw()).collect()
        };
        PyList::new(py, handles)?.try_iter().map(Bound::into_any)
    }

    /// Every element, as arrays: ``Elements(handles, rects, ids)``.
    ///
    /// Returns
    /// -------
    /// Elements
    ///     A named tuple of ``handles`` (int64, shape (n,)), ``rects``
    ///     (float32, shape (n, 4)) and ``ids`` (int64, shape (n,)), in
    ///     storage order.
    fn elements<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let (handles, flat, ids) = self.lock.read_with_gil_released(py, |index| {
            let n = index.len();
            let (mut handles, mut flat, mut ids) = (
                Vec::with_capacity(n),
                Vec::with_capacity(4 * n),
                Vec::with_capacity(n),
            );
            for (handle, rect, id) in index.iter() {
                handles.push(raw(handle));
                flat.extend_from_slice(&<[f32; 4]>::from(rect));
                ids.push(i64::from(id));
            }
            (handles, flat, ids)
        });
        let n = handles.len();
        let rects = PyArray1::from_vec(py, flat).reshape([n, 4])?;
        ELEMENTS.import(py, "flatquad._types", "Elements")?.call1((
            PyArray1::from_vec(py, handles),
            rects,
            PyArray1::from_vec(py, ids),
        ))
    }

    /// Every node (of a tree) or cell (of a grid), as arrays ready to plot.
    ///
    /// Returns
    /// -------
    /// Nodes
    ///     A named tuple of ``indices`` (int64, the node's index, as
    ///     ``traverse`` gives it), ``rects`` (float32, shape (m, 4), the
    ///     rectangle of each), ``depths`` (int64), ``is_leaf`` (bool) and
    ///     ``counts`` (int64, elements linked in each leaf, 0 for branches),
    ///     in depth-first order, parents before children.
    fn nodes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let nodes: Vec<NodeInfo> = self.lock.read_with_gil_released(py, |index| {
            let nodes = RefCell::new(Vec::new());
            let visit = |info: &NodeInfo| {
                nodes.borrow_mut().push(*info);
                ControlFlow::Continue(())
            };
            let _ = index.traverse(visit, visit);
            nodes.into_inner()
        });
        let m = nodes.len();
        let indices: Vec<i64> = nodes.iter().map(|n| i64::from(n.index)).collect();
        let flat: Vec<f32> = nodes
            .iter()
            .flat_map(|n| <[f32; 4]>::from(n.rect))
            .collect();
        let depths: Vec<i64> = nodes.iter().map(|n| i64::from(n.depth)).collect();
        let is_leaf: Vec<bool> = nodes.iter().map(|n| n.is_leaf).collect();
        let counts: Vec<i64> = nodes.iter().map(|n| i64::from(n.count)).collect();
        NODES.import(py, "flatquad._types", "Nodes")?.call1((
            PyArray1::from_vec(py, indices),
            PyArray1::from_vec(py, flat).reshape([m, 4])?,
            PyArray1::from_vec(py, depths),
            PyArray1::from_vec(py, is_leaf),
            PyArray1::from_vec(py, counts),
        ))
    }

    /// Walk the nodes depth-first, parents before children, calling
    /// ``branch(index, depth, x1, y1, x2, y2)`` for each branch and
    /// ``leaf(index, depth, x1, y1, x2, y2, count)`` for each leaf (``count``:
    /// the elements linked in it). Either may be None. A grid shows its cells
    /// as leaves of depth 0 (a loose grid's cell rectangle is the box around
    /// its elements).
    ///
    /// A callback that returns ``False`` (exactly) stops the walk; an exception
    /// it raises stops the walk and propagates. The structure cannot be modified
    /// from inside a callback: that raises ``RuntimeError``. Queries are fine.
    #[pyo3(signature = (branch = None, leaf = None))]
    fn traverse(
        &self,
        py: Python<'_>,
        branch: Option<Bound<'_, PyAny>>,
        leaf: Option<Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        for (name, callback) in [("branch", &branch), ("leaf", &leaf)] {
            if let Some(callback) = callback {
                if !callback.is_none() && !callback.is_callable() {
                    return Err(PyTypeError::new_err(format!(
                        "{name} must be callable or None, got {}",
                        convert::type_name(callback)
                    )));
                }
            }
        }
        let branch = branch.filter(|b| !b.is_none());
        let leaf = leaf.filter(|l| !l.is_none());
        let failure: RefCell<Option<PyErr>> = RefCell::new(None);
        let call = |callback: &Option<Bound<'_, PyAny>>, info: &NodeInfo, with_count: bool| {
            let Some(callback) = callback else {
                return ControlFlow::Continue(());
            };
            let r = info.rect;
            let result = if with_count {
                callback.call1((
                    info.index,
                    info.depth,
                    f64_of(r.x1),
                    f64_of(r.y1),
                    f64_of(r.x2),
                    f64_of(r.y2),
                    info.count,
                ))
            } else {
                callback.call1((
                    info.index,
                    info.depth,
                    f64_of(r.x1),
                    f64_of(r.y1),
                    f64_of(r.x2),
                    f64_of(r.y2),
                ))
            };
            match result {
                Ok(value) => match value.cast::<PyBool>() {
                    Ok(flag) if !flag.is_true() => ControlFlow::Break(()),
                    _ => ControlFlow::Continue(()),
                },
                Err(e) => {
                    *failure.borrow_mut() = Some(e);
                    ControlFlow::Break(())
                }
            }
        };
        {
            let index = self.lock.read(py);
            let _ = index.traverse(
                |info| call(&branch, info, false),
                |info| call(&leaf, info, true),
            );
        }
        match failure.into_inner() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Sizes of the structure, as a dict: ``elements``, ``nodes``, ``leaves``,
    /// ``empty_leaves``, ``max_depth_reached``, ``element_links`` (one per
    /// element per leaf it lies in) and ``bytes`` (memory held, capacity
    /// included).
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        shared::stats(&self.lock, py)
    }

    /// The whole structure as bytes (versioned, little-endian, tagged with the
    /// structure's kind); ``from_bytes`` gives back an equal structure, the
    /// same handles valid.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        shared::to_bytes(&self.lock, py)
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

    fn __getstate__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        self.to_bytes(py)
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

    /// ``(class, (bounds,), state)``: a structure of the class over the same
    /// world, then the snapshot in place of its contents.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let this = slf.get();
        let args = (this.bounds(py),).into_pyobject(py)?;
        PyTuple::new(
            py,
            [
                slf.get_type().into_any(),
                args.into_any(),
                this.__getstate__(py).into_any(),
            ],
        )
    }

    /// Pickle protocol 5 and later: the snapshot as an out-of-band buffer
    /// (no copy in a pickler that takes buffers; nothing is rebuilt on
    /// loading, only checked); earlier protocols: ``__reduce__``.
    fn __reduce_ex__<'py>(slf: &Bound<'py, Self>, protocol: i64) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let snapshot = slf
            .get()
            .lock
            .read_with_gil_released(py, |index| index.to_bytes());
        match join::reduce_out_of_band(py, "_restore_index", snapshot, protocol)? {
            Some(reduced) => Ok(reduced),
            None => Self::__reduce__(slf),
        }
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

    /// Check every invariant of the structure (slow; for tests).
    ///
    /// Raises
    /// ------
    /// AssertionError
    ///     Naming the first broken invariant.
    fn _validate(&self, py: Python<'_>) -> PyResult<()> {
        shared::validate(&self.lock, py)
    }
}
