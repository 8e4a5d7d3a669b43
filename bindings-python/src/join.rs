//! Bulk queries and joins from Python: `SpatialIndex.query_bulk` and
//! `SpatialIndex.join` (their bodies in `index`), the `BoxIndex` class (a
//! static index answering in positions, like shapely's `STRtree`) and
//! `join_bounds`. The pairs come back as one `(2, k)` int64 array, shapely's
//! shape. Every algorithm is the core's (`flatquad::join`); this file converts.

use flatquad::join::Boxes;
use flatquad::{AnyIndex, Kind, Rect, SpatialIndex};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

use crate::convert::Rects;
use crate::errors::{self, Args};
use crate::shared::{self, Core};

/// `rects` named in messages (`bounds[3]: ...`).
const BOUNDS: Args = Args {
    rects: "bounds",
    handles: "handle",
    lengths: ("", ""),
};

/// Two columns as one `(2, k)` int64 array (a copy of each column, without the GIL).
pub(crate) fn two_rows<'py, A, B>(
    py: Python<'py>,
    (left, right): (Vec<A>, Vec<B>),
    a: impl Fn(A) -> i64 + Send,
    b: impl Fn(B) -> i64 + Send,
) -> PyResult<Bound<'py, PyArray2<i64>>>
where
    A: Send,
    B: Send,
{
    let k = left.len();
    let flat: Vec<i64> = py.detach(|| {
        let mut flat = Vec::with_capacity(2 * k);
        flat.extend(left.into_iter().map(a));
        flat.extend(right.into_iter().map(b));
        flat
    });
    PyArray1::from_vec(py, flat).reshape([2, k])
}

/// Positions as Python gets them (a position is below 2^63).
pub(crate) fn position(p: usize) -> i64 {
    p as i64
}

/// `predicate` of the shapely-shaped calls: only boxes are tested here.
pub(crate) fn check_predicate(predicate: Option<&str>) -> PyResult<()> {
    match predicate {
        None | Some("intersects") => Ok(()),
        Some(other) => Err(PyValueError::new_err(format!(
            "predicate {other:?}: flatquad tests boxes only (None or \"intersects\"); \
             refine the candidate pairs with shapely (flatquad.geopandas.sjoin does)"
        ))),
    }
}

/// The structure named by `index` (`"grid"`, `"quadtree"`, ...).
fn kind_named(py: Python<'_>, name: &str) -> PyResult<Kind> {
    Kind::ALL_2D
        .into_iter()
        .find(|kind| {
            kind.name()
                .replace('_', "")
                .eq_ignore_ascii_case(&name.replace(['_', '-'], ""))
        })
        .ok_or_else(|| {
            errors::invalid_parameter(
                py,
                format!("index {name:?}: expected \"grid\", \"quadtree\", \"loose_grid\" or \"loose_quadtree\""),
            )
        })
}

/// A snapshot's bytes from any buffer (bytes and bytearray read in place;
/// memoryview, `pickle.PickleBuffer` and other buffers copied once: the abi3
/// build has no buffer protocol below Python 3.11).
pub(crate) fn with_buffer<R>(obj: &Bound<'_, PyAny>, read: impl FnOnce(&[u8]) -> R) -> PyResult<R> {
    if let Ok(bytes) = obj.extract::<std::borrow::Cow<'_, [u8]>>() {
        return Ok(read(&bytes));
    }
    let py = obj.py();
    let copied = py
        .import("builtins")?
        .getattr("memoryview")?
        .call1((obj,))
        .and_then(|view| view.call_method1("cast", ("B",)))
        .and_then(|view| view.call_method0("tobytes"))
        .map_err(|_| {
            PyTypeError::new_err(format!(
                "data must be bytes or a buffer of bytes, got {}",
                crate::convert::type_name(obj)
            ))
        })?;
    let bytes = copied.cast::<PyBytes>()?;
    Ok(read(bytes.as_bytes()))
}

/// The structure of a snapshot of `kind` in any buffer: what unpickling calls.
pub(crate) fn from_buffer<T: Core>(obj: &Bound<'_, PyAny>, kind: T::Kind) -> PyResult<T> {
    with_buffer(obj, |bytes| shared::from_snapshot(obj.py(), kind, bytes))?
}

/// `(restore, (PickleBuffer(snapshot),))` for pickle protocol 5 and later (the
/// snapshot travels out of band when the pickler takes buffers), else `None`.
pub(crate) fn reduce_out_of_band<'py>(
    py: Python<'py>,
    restore: &str,
    snapshot: Vec<u8>,
    protocol: i64,
) -> PyResult<Option<Bound<'py, PyTuple>>> {
    if protocol < 5 {
        return Ok(None);
    }
    let module = py.import("flatquad._native")?;
    let restore = module.getattr(restore)?;
    let bytes = PyBytes::new(py, &snapshot);
    let buffer = py
        .import("pickle")?
        .getattr("PickleBuffer")?
        .call1((bytes,))?;
    let args = PyTuple::new(py, [buffer])?;
    Ok(Some(PyTuple::new(py, [restore, args.into_any()])?))
}

/// Unpickles any structure from its snapshot (pickle protocol 5).
#[pyfunction]
pub(crate) fn _restore_index<'py>(data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    from_buffer::<AnyIndex>(data, None)?.into_object(data.py())
}

/// Unpickles a ``BoxIndex`` from its snapshot (pickle protocol 5).
#[pyfunction]
pub(crate) fn _restore_boxes(data: &Bound<'_, PyAny>) -> PyResult<BoxIndex> {
    Ok(BoxIndex {
        boxes: Boxes::from_index(from_buffer(data, None)?),
    })
}

/// A static index of boxes answering in *positions*, like shapely's
/// ``STRtree``: ``BoxIndex(bounds).query_bulk(other)`` gives the
/// ``[input_index, tree_index]`` pairs whose closed boxes meet.
///
/// Parameters
/// ----------
/// bounds : array_like, shape (n, 4)
///     Rows ``(x1, y1, x2, y2)`` (``GeoSeries.bounds`` or shapely's
///     ``bounds`` give them), float32 or float64, read in place. float64 is
///     rounded to the nearest float32 once; that rounding is monotone, so no
///     pair whose boxes meet in float64 is ever missed (a pair the rounding
///     made touch may be added: refine exactly if that matters).
/// index : str, optional
///     The structure built over the boxes' extent: ``"grid"`` (the default,
///     cells of about twice the mean box side), ``"quadtree"``,
///     ``"loose_grid"`` or ``"loose_quadtree"``.
///
/// Pickles (protocol 5: the snapshot travels as an out-of-band buffer) and is
/// safe to query from many threads at once.
///
/// Examples
/// --------
/// >>> import numpy as np, flatquad
/// >>> tree = flatquad.BoxIndex(np.array([[5, 5, 9, 9], [1, 1, 3, 3]], dtype=float))
/// >>> tree.query_bulk(np.array([[0, 0, 2, 2], [9, 9, 10, 10.]]), sort=True).tolist()
/// [[0, 1], [1, 0]]
#[pyclass(frozen, module = "flatquad", name = "BoxIndex")]
pub(crate) struct BoxIndex {
    boxes: Boxes,
}

impl BoxIndex {
    /// `query_bulk` with the argument named `what` in messages.
    fn pairs_with<'py>(
        &self,
        py: Python<'py>,
        bounds: &Bound<'py, PyAny>,
        what: &'static str,
        owner: Option<Rect>,
        sort: bool,
    ) -> PyResult<Bound<'py, PyArray2<i64>>> {
        let rects = Rects::new(bounds, what)?;
        let rects = rects.as_rects()?;
        crate::join_pool_from_main_thread();
        let columns = py
            .detach(|| {
                let (mut rows, mut positions) = (Vec::new(), Vec::new());
                self.boxes
                    .query_bulk_owned(rects, owner, sort, &mut rows, &mut positions)
                    .map(|_| (rows, positions))
            })
            .map_err(|e| {
                errors::to_py(
                    py,
                    e,
                    Args {
                        rects: what,
                        ..BOUNDS
                    },
                )
            })?;
        two_rows(py, columns, position, position)
    }
}

#[pymethods]
impl BoxIndex {
    #[new]
    #[pyo3(signature = (bounds, *, index = "grid"))]
    fn new(py: Python<'_>, bounds: &Bound<'_, PyAny>, index: &str) -> PyResult<Self> {
        let kind = kind_named(py, index)?;
        let rects = Rects::new(bounds, "bounds")?;
        let rects = rects.as_rects()?;
        let boxes = py
            .detach(|| Boxes::new(rects, kind))
            .map_err(|e| errors::to_py(py, e, BOUNDS))?;
        Ok(BoxIndex { boxes })
    }

    fn __len__(&self) -> usize {
        self.boxes.len()
    }

    /// The structure the boxes are in (``"Grid"``, ...).
    #[getter]
    fn kind(&self) -> &'static str {
        self.boxes.index().kind().name()
    }

    /// Every pair ``(i, j)`` such that ``bounds[i]`` meets box ``j`` of the
    /// index (closed boxes: touching counts), as shapely's
    /// ``STRtree.query(geoms, predicate="intersects")`` gives them for boxes.
    ///
    /// Parameters
    /// ----------
    /// bounds : array_like, shape (m, 4)
    ///     As for the constructor (float64 read in place, rounded once).
    /// predicate : None or "intersects"
    ///     Boxes only; both mean "the boxes meet".
    /// sort : bool
    ///     Pairs in increasing ``(i, j)`` order. Otherwise ``i`` increases and
    ///     the ``j`` of one ``i`` come in no particular order.
    /// owner : (x1, y1, x2, y2), optional
    ///     Keep only the pairs this half-open extent ``[x1, x2) x [y1, y2)``
    ///     owns (infinite ends allowed): those whose intersection's top-left
    ///     corner ``(max x1, max y1)`` lies in it. A join cut into half-open
    ///     pieces, each joining every box that meets it, finds each pair in
    ///     exactly one piece this way (``flatquad.dask`` does).
    ///
    /// Returns
    /// -------
    /// numpy.ndarray
    ///     int64 (intp), shape ``(2, k)``: ``[input_index, tree_index]``.
    ///
    /// Raises
    /// ------
    /// ValueError
    ///     For a bad row (``err.index`` is its position); nothing is returned.
    ///
    /// Releases the GIL and runs on every core.
    #[pyo3(signature = (bounds, predicate = None, *, sort = false, owner = None))]
    fn query_bulk<'py>(
        &self,
        py: Python<'py>,
        bounds: &Bound<'py, PyAny>,
        predicate: Option<&str>,
        sort: bool,
        owner: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray2<i64>>> {
        check_predicate(predicate)?;
        let owner = match owner {
            Some(owner) if !owner.is_none() => Some(crate::convert::rect(owner, "owner")?),
            _ => None,
        };
        self.pairs_with(py, bounds, "bounds", owner, sort)
    }

    /// The index as bytes (a snapshot of its structure); ``BoxIndex.from_bytes``
    /// gives it back.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let bytes = py.detach(|| self.boxes.index().to_bytes());
        PyBytes::new(py, &bytes)
    }

    /// A ``BoxIndex`` from ``to_bytes()``'s output (any buffer).
    ///
    /// Raises
    /// ------
    /// ValueError
    ///     If the bytes are not a consistent snapshot.
    #[staticmethod]
    fn from_bytes(data: &Bound<'_, PyAny>) -> PyResult<BoxIndex> {
        _restore_boxes(data)
    }

    fn __reduce_ex__<'py>(&self, py: Python<'py>, protocol: i64) -> PyResult<Bound<'py, PyTuple>> {
        let snapshot = py.detach(|| self.boxes.index().to_bytes());
        if let Some(reduced) = reduce_out_of_band(py, "_restore_boxes", snapshot.clone(), protocol)?
        {
            return Ok(reduced);
        }
        let restore = py.import("flatquad._native")?.getattr("_restore_boxes")?;
        let args = PyTuple::new(py, [PyBytes::new(py, &snapshot)])?;
        PyTuple::new(py, [restore, args.into_any()])
    }

    fn __repr__(&self) -> String {
        format!(
            "<flatquad.BoxIndex {} len={}>",
            self.kind(),
            self.boxes.len()
        )
    }
}

/// Every pair ``(i, j)`` such that ``left[i]`` and ``right[j]`` meet (closed
/// boxes): ``BoxIndex(right, index=index).query_bulk(left, sort=sort)``.
///
/// Parameters
/// ----------
/// left, right : array_like, shape (n, 4) and (m, 4)
///     Rows ``(x1, y1, x2, y2)``, float32 or float64 (read in place; float64
///     is rounded to float32 once, which never loses a float64 pair).
/// sort : bool
///     Pairs in increasing ``(i, j)`` order.
/// index : str
///     The structure built over ``right`` (see ``BoxIndex``).
///
/// Returns
/// -------
/// numpy.ndarray
///     int64 (intp), shape ``(2, k)``: ``[left_index, right_index]``.
#[pyfunction]
#[pyo3(signature = (left, right, *, sort = false, index = "grid"))]
pub(crate) fn join_bounds<'py>(
    py: Python<'py>,
    left: &Bound<'py, PyAny>,
    right: &Bound<'py, PyAny>,
    sort: bool,
    index: &str,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let kind = kind_named(py, index)?;
    let right_rects = Rects::new(right, "right")?;
    let right_rects = right_rects.as_rects()?;
    let boxes = py.detach(|| Boxes::new(right_rects, kind)).map_err(|e| {
        errors::to_py(
            py,
            e,
            Args {
                rects: "right",
                ..BOUNDS
            },
        )
    })?;
    BoxIndex { boxes }.pairs_with(py, left, "left", None, sort)
}

/// ``_str_ranks(bounds, capacity)``: ``flatquad.geopandas.tree_ranks``' core
/// (`flatquad::join::str_ranks`), without the GIL. ``bounds``: float64 rows
/// ``(x1, y1, x2, y2)``, finite.
#[pyfunction]
pub(crate) fn _str_ranks<'py>(
    py: Python<'py>,
    bounds: numpy::PyReadonlyArray2<'py, f64>,
    capacity: usize,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let rows = bounds
        .as_slice()
        .ok()
        .filter(|_| bounds.shape()[1] == 4)
        .and_then(|flat| bytemuck::try_cast_slice::<f64, [f64; 4]>(flat).ok())
        .ok_or_else(|| PyValueError::new_err("bounds: not a contiguous float64 (n, 4) array"))?;
    let ranks = py.detach(|| {
        flatquad::join::str_ranks(rows, capacity)
            .into_iter()
            .map(position)
            .collect()
    });
    Ok(PyArray1::from_vec(py, ranks))
}
