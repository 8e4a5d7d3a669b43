//! `flatquad.Quadtree`: the core tree behind a lock, its calls converted and
//! forwarded. No algorithm lives here.

use std::cell::RefCell;
use std::ops::ControlFlow;

use flatquad::{Error, Handle, NodeInfo, Rect};
use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::{PyAssertionError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyDict, PyList, PyTuple};

use crate::convert::{self, Handles, Ids, Rects};
use crate::errors::{self, Args};
use crate::lock::TreeLock;

/// `(offsets, hits)` of a batch query.
type Csr<'py> = (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>);

/// The core's compressed rows as the int64 vectors Python gets (runs without the GIL).
fn csr_vecs(offsets: Vec<usize>, hits: Vec<Handle>) -> (Vec<i64>, Vec<i64>) {
    (
        offsets.into_iter().map(|o| o as i64).collect(),
        hits.into_iter().map(raw).collect(),
    )
}

/// Those vectors as numpy arrays, without copying them.
fn csr_arrays(py: Python<'_>, (offsets, hits): (Vec<i64>, Vec<i64>)) -> Csr<'_> {
    (
        PyArray1::from_vec(py, offsets),
        PyArray1::from_vec(py, hits),
    )
}

static NODES: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static ELEMENTS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

const INSERT_MANY: Args = Args {
    rects: "rects",
    handles: "handles",
    lengths: ("rects", "ids"),
};
const MOVE_MANY: Args = Args {
    rects: "rects",
    handles: "handles",
    lengths: ("handles", "rects"),
};
const QUERY_MANY: Args = Args {
    rects: "rects",
    handles: "omit",
    lengths: ("rects", "omit"),
};

/// A flat quadtree over moving 2-D rectangles, for broad-phase collision
/// detection and region queries.
///
/// Parameters
/// ----------
/// bounds : (x, y, width, height)
///     The world the tree divides. Elements and queries outside it are fine:
///     they live in the border cells.
/// max_elements : int, default 8
///     A cell splits when it holds more elements than this (>= 1).
/// max_depth : int, default 8
///     Cells stop splitting at this depth (the root is depth 0; at most 30).
///     Pick it so that the smallest cells, ``width / 2**max_depth`` wide, are a
///     little larger than a typical element.
///
/// Rectangles are ``(x1, y1, x2, y2)`` with ``x1 <= x2`` and ``y1 <= y2``,
/// closed (touching rectangles overlap), stored as float32: results are exact
/// for float32 input. ``insert`` returns a *handle*, an int naming the element
/// until it is removed; a removed handle is never reused by the tree.
/// Each element also carries an *id*, an unsigned 32-bit int of yours (0 unless
/// given).
///
/// Bad coordinates raise ``ValueError``, stale or unknown handles ``KeyError``;
/// a call that raises has changed nothing. Several threads may query one tree
/// at once; long calls (the ``*_many`` batches, ``pairs``) release the GIL.
/// Trees pickle and deep-copy exactly, handles included.
///
/// Examples
/// --------
/// >>> import flatquad
/// >>> tree = flatquad.Quadtree((0, 0, 100, 100))
/// >>> a = tree.insert((10, 10, 20, 20), id=1)
/// >>> b = tree.insert((20, 20, 30, 30), id=2)
/// >>> tree.query((0, 0, 15, 15)) == [a]
/// True
/// >>> pairs = tree.pairs()  # touching rectangles overlap
/// >>> pairs.shape, sorted(pairs[0].tolist()) == sorted([a, b])
/// ((1, 2), True)
#[pyclass(frozen, weakref, name = "Quadtree", module = "flatquad")]
pub(crate) struct Quadtree {
    lock: TreeLock,
}

fn id_value(id: Option<i64>) -> PyResult<u32> {
    let id = id.unwrap_or(0);
    u32::try_from(id).map_err(|_| {
        PyValueError::new_err(format!(
            "id {id} is out of range: ids are unsigned 32-bit integers (0 <= id < 2**32)"
        ))
    })
}

fn parameter(value: i64, name: &str) -> PyResult<u32> {
    u32::try_from(value).map_err(|_| {
        PyValueError::new_err(format!(
            "invalid parameter {name}: {value} is out of range (it must be >= 0)"
        ))
    })
}

fn raw(handle: Handle) -> i64 {
    // Handles are below 2^53: exact as int64 (and as float64).
    handle.to_raw() as i64
}

fn f64_of(v: f32) -> f64 {
    f64::from(v)
}

/// The `(x, y, width, height)` a world rectangle was made from.
fn bounds_of(world: Rect) -> (f32, f32, f32, f32) {
    (world.x1, world.y1, world.width(), world.height())
}

impl Quadtree {
    fn from_core(tree: flatquad::Quadtree) -> Self {
        Quadtree {
            lock: TreeLock::new(tree),
        }
    }

    fn snapshot(&self, py: Python<'_>) -> flatquad::Quadtree {
        self.lock.read_with_gil_released(py, |tree| tree.clone())
    }
}

#[pymethods]
impl Quadtree {
    #[new]
    #[pyo3(signature = (bounds, max_elements = 8, max_depth = 8))]
    fn new(bounds: &Bound<'_, PyAny>, max_elements: i64, max_depth: i64) -> PyResult<Self> {
        let [x, y, width, height] = convert::four(bounds, "bounds", "(x, y, width, height)")?;
        let max_elements = parameter(max_elements, "max_elements")?;
        let max_depth = parameter(max_depth, "max_depth")?;
        let world = Rect::from_xywh(x, y, width, height);
        flatquad::Quadtree::new(world, max_elements, max_depth)
            .map(Quadtree::from_core)
            .map_err(|e| match e {
                Error::InvalidParameter { name, expected, .. } => {
                    let got = if name == "max_depth" {
                        max_depth
                    } else {
                        max_elements
                    };
                    PyValueError::new_err(format!(
                        "invalid parameter {name}: expected {expected}, got {got}"
                    ))
                }
                Error::InvalidWorld(_) => PyValueError::new_err(format!(
                    "invalid bounds (x, y, width, height) = ({x:?}, {y:?}, {width:?}, {height:?}): \
                     they must be finite, with width and height > 0 and x + width, y + height finite"
                )),
                other => PyValueError::new_err(other.to_string()),
            })
    }

    /// The world as ``(x, y, width, height)``, in float32 precision.
    #[getter]
    fn bounds(&self, py: Python<'_>) -> (f32, f32, f32, f32) {
        bounds_of(self.lock.read(py).world())
    }

    /// Elements a cell holds before it splits.
    #[getter]
    fn max_elements(&self, py: Python<'_>) -> u32 {
        self.lock.read(py).max_elements()
    }

    /// Depth below which cells no longer split (the root is depth 0).
    #[getter]
    fn max_depth(&self, py: Python<'_>) -> u32 {
        self.lock.read(py).max_depth()
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
        let rect = convert::rect(rect, "rect")?;
        let id = id_value(id)?;
        let result = self.lock.write(py)?.insert(rect, id);
        result
            .map(Handle::to_raw)
            .map_err(|e| errors::to_py(py, e, Args::SINGLE))
    }

    /// Remove an element. Its handle goes stale for good.
    ///
    /// Emptied cells are merged by ``cleanup()``.
    ///
    /// Raises
    /// ------
    /// KeyError
    ///     If ``handle`` names no element of this tree (never issued, already
    ///     removed, or cleared).
    fn remove(&self, py: Python<'_>, handle: &Bound<'_, PyAny>) -> PyResult<()> {
        let handle = convert::handle(handle, "handle")?;
        let result = self.lock.write(py)?.remove(handle);
        result.map_err(|e| errors::to_py(py, e, Args::SINGLE))
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
        let handle = convert::handle(handle, "handle")?;
        let rect = convert::rect(rect, "rect")?;
        let result = self.lock.write(py)?.update(handle, rect);
        result.map_err(|e| errors::to_py(py, e, Args::SINGLE))
    }

    /// Merge cells emptied by removals and moves, one level per call: call it
    /// once a frame, after the moves.
    fn cleanup(&self, py: Python<'_>) -> PyResult<()> {
        self.lock.write_detached(py, |tree| tree.cleanup())
    }

    /// Remove every element (all handles go stale) and every cell but the root.
    fn clear(&self, py: Python<'_>) -> PyResult<()> {
        self.lock.write_detached(py, |tree| tree.clear())
    }

    /// The handles of the elements whose rectangle meets ``rect``.
    ///
    /// Parameters
    /// ----------
    /// rect : (x1, y1, x2, y2)
    ///     The closed query rectangle: elements that only touch it are found.
    /// omit : int, optional
    ///     A handle to leave out, typically the querying element's own.
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
        let rect = convert::rect(rect, "rect")?;
        let omit = convert::opt_handle(omit, "omit")?;
        let mut hits = Vec::new();
        let result = self.lock.read(py).query(rect, omit, &mut hits);
        result.map_err(|e| errors::to_py(py, e, Args::QUERY))?;
        Ok(hits.into_iter().map(Handle::to_raw).collect())
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
        let omit = convert::opt_handle(omit, "omit")?;
        let mut hits = Vec::new();
        let result = self
            .lock
            .read(py)
            .query_point(x as f32, y as f32, omit, &mut hits);
        result.map_err(|e| errors::to_py(py, e, Args::QUERY))?;
        Ok(hits.into_iter().map(Handle::to_raw).collect())
    }

    /// Every pair of elements whose rectangles overlap, each pair once.
    ///
    /// Returns
    /// -------
    /// numpy.ndarray
    ///     int64 handles, shape ``(k, 2)``; the order of the pairs and within a
    ///     pair is unspecified. Releases the GIL while it works.
    fn pairs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<i64>>> {
        // The core's pair walk, on all threads when the tree is big enough.
        let flat = self.lock.read_with_gil_released(py, |tree| {
            let mut pairs = Vec::new();
            tree.par_pairs(&mut pairs);
            pairs
                .into_iter()
                .flat_map(|(a, b)| [raw(a), raw(b)])
                .collect::<Vec<i64>>()
        });
        let k = flat.len() / 2;
        PyArray1::from_vec(py, flat).reshape([k, 2])
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
        let rects = Rects::new(rects, "rects")?;
        let rects = rects.as_rects()?;
        let ids = Ids::new(ids, rects.len())?;
        let ids = ids.as_ids()?;
        let result = self.lock.write_detached(py, |tree| {
            let mut handles = Vec::new();
            tree.insert_many(rects, ids, &mut handles).map(|()| handles)
        })?;
        let handles = result.map_err(|e| errors::to_py(py, e, INSERT_MANY))?;
        Ok(PyArray1::from_vec(
            py,
            handles.into_iter().map(raw).collect::<Vec<i64>>(),
        ))
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
        let handles_arg = Handles::new(handles, "handles")?;
        let handles = handles_arg.as_handles()?;
        let rects = Rects::new(rects, "rects")?;
        let rects = rects.as_rects()?;
        let result = self
            .lock
            .write_detached(py, |tree| tree.update_many(handles, rects))?;
        result.map_err(|e| errors::to_py_shown(py, e, MOVE_MANY, &|i| handles_arg.show(i)))
    }

    /// Remove many elements at once.
    ///
    /// Raises
    /// ------
    /// KeyError
    ///     For a handle that names no element or appears twice
    ///     (``err.index`` is its position). On error nothing is removed.
    fn remove_many(&self, py: Python<'_>, handles: &Bound<'_, PyAny>) -> PyResult<()> {
        let handles_arg = Handles::new(handles, "handles")?;
        let handles = handles_arg.as_handles()?;
        let result = self
            .lock
            .write_detached(py, |tree| tree.remove_many(handles))?;
        result.map_err(|e| errors::to_py_shown(py, e, MOVE_MANY, &|i| handles_arg.show(i)))
    }

    /// Query many rectangles at once.
    ///
    /// Parameters
    /// ----------
    /// rects : array_like, shape (n, 4)
    ///     As for ``insert_many``.
    /// omit : array_like of int, shape (n,), optional
    ///     ``omit[i]`` is left out of query ``i`` (typically the querying
    ///     element's own handle).
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
        let rects = Rects::new(rects, "rects")?;
        let rects = rects.as_rects()?;
        let omit_arg = match omit {
            Some(omit) if !omit.is_none() => Some(Handles::new(omit, "omit")?),
            _ => None,
        };
        let omit = omit_arg.as_ref().map(Handles::as_handles).transpose()?;
        if let Some(omit) = omit {
            if omit.len() != rects.len() {
                return Err(PyValueError::new_err(format!(
                    "omit has {} items but rects has {}: they must be the same length",
                    omit.len(),
                    rects.len()
                )));
            }
        }
        // The core's batch query, on all threads when the batch is big enough.
        let result = self.lock.read_with_gil_released(py, |tree| {
            let (mut offsets, mut hits) = (Vec::new(), Vec::new());
            tree.par_query_many(rects, omit, &mut offsets, &mut hits)?;
            Ok::<_, Error>(csr_vecs(offsets, hits))
        });
        let rows = result.map_err(|e| {
            errors::to_py_shown(py, e, QUERY_MANY, &|i| {
                omit_arg.as_ref().and_then(|omit| omit.show(i))
            })
        })?;
        Ok(csr_arrays(py, rows))
    }

    /// The handles of the other elements whose rectangle meets this element's
    /// (touching counts): ``query(rect_of(handle), omit=handle)``, but found
    /// from the element's own cells, without walking down from the root.
    ///
    /// Raises
    /// ------
    /// KeyError
    ///     If ``handle`` names no element.
    fn overlapping(&self, py: Python<'_>, handle: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
        let handle = convert::handle(handle, "handle")?;
        let mut hits = Vec::new();
        let result = self.lock.read(py).overlapping(handle, &mut hits);
        result.map_err(|e| errors::to_py(py, e, Args::SINGLE))?;
        Ok(hits.into_iter().map(Handle::to_raw).collect())
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
        let handles_arg = Handles::new(handles, "handles")?;
        let handles = handles_arg.as_handles()?;
        let result = self.lock.read_with_gil_released(py, |tree| {
            let (mut offsets, mut hits) = (Vec::new(), Vec::new());
            tree.overlapping_many(handles, &mut offsets, &mut hits)?;
            Ok::<_, Error>(csr_vecs(offsets, hits))
        });
        let rows =
            result.map_err(|e| errors::to_py_shown(py, e, MOVE_MANY, &|i| handles_arg.show(i)))?;
        Ok(csr_arrays(py, rows))
    }

    /// The id the element was inserted with.
    ///
    /// Raises
    /// ------
    /// KeyError
    ///     If ``handle`` names no element.
    fn id_of(&self, py: Python<'_>, handle: &Bound<'_, PyAny>) -> PyResult<u32> {
        let handle = convert::handle(handle, "handle")?;
        let result = self.lock.read(py).id(handle);
        result.map_err(|e| errors::to_py(py, e, Args::SINGLE))
    }

    /// The element's rectangle ``(x1, y1, x2, y2)``, as stored (float32).
    ///
    /// Raises
    /// ------
    /// KeyError
    ///     If ``handle`` names no element.
    fn rect_of(&self, py: Python<'_>, handle: &Bound<'_, PyAny>) -> PyResult<(f64, f64, f64, f64)> {
        let handle = convert::handle(handle, "handle")?;
        let result = self.lock.read(py).rect(handle);
        let r = result.map_err(|e| errors::to_py(py, e, Args::SINGLE))?;
        Ok((f64_of(r.x1), f64_of(r.y1), f64_of(r.x2), f64_of(r.y2)))
    }

    fn __len__(&self, py: Python<'_>) -> usize {
        self.lock.read(py).len()
    }

    fn __contains__(&self, py: Python<'_>, handle: &Bound<'_, PyAny>) -> bool {
        match handle.extract::<u64>() {
            Ok(raw) => self.lock.read(py).contains(Handle::from_raw(raw)),
            Err(_) => false,
        }
    }

    /// Iterate over the live handles (a snapshot taken when iteration starts).
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let handles: Vec<u64> = {
            let tree = self.lock.read(py);
            tree.iter().map(|(h, _, _)| h.to_raw()).collect()
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
        let (handles, flat, ids) = self.lock.read_with_gil_released(py, |tree| {
            let n = tree.len();
            let (mut handles, mut flat, mut ids) = (
                Vec::with_capacity(n),
                Vec::with_capacity(4 * n),
                Vec::with_capacity(n),
            );
            for (handle, rect, id) in tree.iter() {
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

    /// Every node of the tree, as arrays ready to plot.
    ///
    /// Returns
    /// -------
    /// Nodes
    ///     A named tuple of ``indices`` (int64, the node's index, as
    ///     ``traverse`` gives it), ``rects`` (float32, shape (m, 4), the cell
    ///     of each node), ``depths`` (int64), ``is_leaf`` (bool) and
    ///     ``counts`` (int64, elements linked in each leaf, 0 for branches),
    ///     in depth-first order, parents before children.
    fn nodes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let nodes: Vec<NodeInfo> = self.lock.read_with_gil_released(py, |tree| {
            let nodes = RefCell::new(Vec::new());
            let visit = |info: &NodeInfo| {
                nodes.borrow_mut().push(*info);
                ControlFlow::Continue(())
            };
            let _ = tree.traverse(visit, visit);
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

    /// Walk the tree depth-first, parents before children, calling
    /// ``branch(index, depth, x1, y1, x2, y2)`` for each branch and
    /// ``leaf(index, depth, x1, y1, x2, y2, count)`` for each leaf (``count``:
    /// the elements linked in it). Either may be None.
    ///
    /// A callback that returns ``False`` (exactly) stops the walk; an exception
    /// it raises stops the walk and propagates. The tree cannot be modified
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
            let tree = self.lock.read(py);
            let _ = tree.traverse(
                |info| call(&branch, info, false),
                |info| call(&leaf, info, true),
            );
        }
        match failure.into_inner() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Sizes of the tree, as a dict: ``elements``, ``nodes``, ``leaves``,
    /// ``empty_leaves``, ``max_depth_reached``, ``element_links`` (one per
    /// element per leaf it lies in) and ``bytes`` (memory held, capacity
    /// included).
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.lock.read_with_gil_released(py, |tree| tree.stats());
        let d = PyDict::new(py);
        d.set_item("elements", s.elements)?;
        d.set_item("nodes", s.nodes)?;
        d.set_item("leaves", s.leaves)?;
        d.set_item("empty_leaves", s.empty_leaves)?;
        d.set_item("max_depth_reached", s.max_depth_reached)?;
        d.set_item("element_links", s.element_links)?;
        d.set_item("bytes", s.bytes)?;
        Ok(d)
    }

    /// The whole tree as bytes (versioned, little-endian); ``from_bytes``
    /// gives back an equal tree, the same handles valid.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let bytes = self.lock.read_with_gil_released(py, |tree| tree.to_bytes());
        PyBytes::new(py, &bytes)
    }

    /// A tree from ``to_bytes()``'s output.
    ///
    /// Raises
    /// ------
    /// ValueError
    ///     If the bytes are not a consistent snapshot (every invariant is
    ///     checked).
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: std::borrow::Cow<'_, [u8]>) -> PyResult<Self> {
        let data: &[u8] = &data;
        py.detach(|| flatquad::Quadtree::from_bytes(data))
            .map(Quadtree::from_core)
            .map_err(|e| errors::to_py(py, e, Args::SINGLE))
    }

    fn __getstate__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        self.to_bytes(py)
    }

    fn __setstate__(&self, py: Python<'_>, state: std::borrow::Cow<'_, [u8]>) -> PyResult<()> {
        let data: &[u8] = &state;
        let tree = py
            .detach(|| flatquad::Quadtree::from_bytes(data))
            .map_err(|e| errors::to_py(py, e, Args::SINGLE))?;
        *self.lock.write(py)? = tree;
        Ok(())
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let this = slf.get();
        let (bounds, max_elements, max_depth) = {
            let tree = this.lock.read(py);
            (
                bounds_of(tree.world()),
                tree.max_elements(),
                tree.max_depth(),
            )
        };
        let args = (bounds, max_elements, max_depth).into_pyobject(py)?;
        PyTuple::new(
            py,
            [
                slf.get_type().into_any(),
                args.into_any(),
                this.__getstate__(py).into_any(),
            ],
        )
    }

    fn __copy__(&self, py: Python<'_>) -> Self {
        Quadtree::from_core(self.snapshot(py))
    }

    fn __deepcopy__(&self, py: Python<'_>, _memo: &Bound<'_, PyAny>) -> Self {
        Quadtree::from_core(self.snapshot(py))
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let tree = self.lock.read(py);
        let (x, y, w, h) = bounds_of(tree.world());
        format!(
            "<flatquad.Quadtree bounds=({x:?}, {y:?}, {w:?}, {h:?}) max_elements={} max_depth={} len={}>",
            tree.max_elements(),
            tree.max_depth(),
            tree.len()
        )
    }

    /// Check every invariant of the tree (slow; for tests).
    ///
    /// Raises
    /// ------
    /// AssertionError
    ///     Naming the first broken invariant.
    fn _validate(&self, py: Python<'_>) -> PyResult<()> {
        self.lock
            .read_with_gil_released(py, |tree| tree.validate())
            .map_err(PyAssertionError::new_err)
    }
}
