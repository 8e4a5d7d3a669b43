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
use crate::shared::{self, index_methods, raw, Csr};
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
