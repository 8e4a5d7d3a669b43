//! The bodies of the methods every class has, written once over the core
//! structure a class locks: `SpatialIndex` (and its 2D subclasses) locks an
//! `AnyIndex`, `Octree` an `Octree`. Each `#[pymethods]` method is its
//! signature, its docstring and one call here; only the box width differs
//! (`convert::any_box`, `convert::Rects<B>`).

use flatquad::{Error, Handle, SpatialIndex};
use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::{PyAssertionError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::convert::{self, Handles, Ids, Rects};
use crate::errors::{self, Args};
use crate::lock::{IndexLock, Lockable};

/// `(offsets, hits)` of a batch query.
pub(crate) type Csr<'py> = (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>);

pub(crate) const INSERT_MANY: Args = Args {
    rects: "rects",
    handles: "handles",
    lengths: ("rects", "ids"),
};
pub(crate) const MOVE_MANY: Args = Args {
    rects: "rects",
    handles: "handles",
    lengths: ("handles", "rects"),
};
pub(crate) const QUERY_MANY: Args = Args {
    rects: "rects",
    handles: "omit",
    lengths: ("rects", "omit"),
};

/// What a class's lock holds: a core structure, shared between threads.
pub(crate) trait Core: SpatialIndex + Lockable + Clone + Sync {}
impl<T: SpatialIndex + Lockable + Clone + Sync> Core for T {}

pub(crate) fn raw(handle: Handle) -> i64 {
    // Handles are below 2^53: exact as int64 (and as float64).
    handle.to_raw() as i64
}

fn raws(hits: Vec<Handle>) -> Vec<u64> {
    hits.into_iter().map(Handle::to_raw).collect()
}

/// The core's compressed rows as the int64 vectors Python gets (runs without the GIL).
pub(crate) fn csr_vecs(offsets: Vec<usize>, hits: Vec<Handle>) -> (Vec<i64>, Vec<i64>) {
    (
        offsets.into_iter().map(|o| o as i64).collect(),
        hits.into_iter().map(raw).collect(),
    )
}

/// Those vectors as numpy arrays, without copying them.
pub(crate) fn csr_arrays(py: Python<'_>, (offsets, hits): (Vec<i64>, Vec<i64>)) -> Csr<'_> {
    (
        PyArray1::from_vec(py, offsets),
        PyArray1::from_vec(py, hits),
    )
}

fn id_value(id: Option<i64>) -> PyResult<u32> {
    let id = id.unwrap_or(0);
    u32::try_from(id).map_err(|_| {
        PyValueError::new_err(format!(
            "id {id} is out of range: ids are unsigned 32-bit integers (0 <= id < 2**32)"
        ))
    })
}

pub(crate) fn insert<T: Core>(
    lock: &IndexLock<T>,
    py: Python<'_>,
    rect: &Bound<'_, PyAny>,
    id: Option<i64>,
) -> PyResult<u64> {
    let rect = convert::any_box::<T::Bounds>(rect, "rect")?;
    let id = id_value(id)?;
    let result = lock.write(py)?.insert(rect, id);
    result
        .map(Handle::to_raw)
        .map_err(|e| errors::to_py(py, e, Args::SINGLE))
}

pub(crate) fn remove<T: Core>(
    lock: &IndexLock<T>,
    py: Python<'_>,
    handle: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let handle = convert::handle(handle, "handle")?;
    let result = lock.write(py)?.remove(handle);
    result.map_err(|e| errors::to_py(py, e, Args::SINGLE))
}

pub(crate) fn move_to<T: Core>(
    lock: &IndexLock<T>,
    py: Python<'_>,
    handle: &Bound<'_, PyAny>,
    rect: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let handle = convert::handle(handle, "handle")?;
    let rect = convert::any_box::<T::Bounds>(rect, "rect")?;
    let result = lock.write(py)?.update(handle, rect);
    result.map_err(|e| errors::to_py(py, e, Args::SINGLE))
}

pub(crate) fn cleanup<T: Core>(lock: &IndexLock<T>, py: Python<'_>) -> PyResult<()> {
    lock.write_detached(py, |index| index.cleanup())
}

pub(crate) fn clear<T: Core>(lock: &IndexLock<T>, py: Python<'_>) -> PyResult<()> {
    lock.write_detached(py, |index| index.clear())
}

pub(crate) fn query<T: Core>(
    lock: &IndexLock<T>,
    py: Python<'_>,
    rect: &Bound<'_, PyAny>,
    omit: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<u64>> {
    let rect = convert::any_box::<T::Bounds>(rect, "rect")?;
    let omit = convert::opt_handle(omit, "omit")?;
    let mut hits = Vec::new();
    let result = lock.read(py).query(rect, omit, &mut hits);
    result.map_err(|e| errors::to_py(py, e, Args::QUERY))?;
    Ok(raws(hits))
}

/// `coords`: `[x, y]` or `[x, y, z]`.
pub(crate) fn query_point<T: Core>(
    lock: &IndexLock<T>,
    py: Python<'_>,
    coords: &[f64],
    omit: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<u64>> {
    let point = convert::any_point::<T::Bounds>(coords);
    let omit = convert::opt_handle(omit, "omit")?;
    let mut hits = Vec::new();
    let result = lock.read(py).query_point(point, omit, &mut hits);
    result.map_err(|e| errors::to_py(py, e, Args::QUERY))?;
    Ok(raws(hits))
}

pub(crate) fn pairs<'py, T: Core>(
    lock: &IndexLock<T>,
    py: Python<'py>,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    // The core's pair walk, on all threads where the structure can split it
    // and the size pays.
    let flat = lock.read_with_gil_released(py, |index| {
        let mut pairs = Vec::new();
        index.par_pairs(&mut pairs);
        pairs
            .into_iter()
            .flat_map(|(a, b)| [raw(a), raw(b)])
            .collect::<Vec<i64>>()
    });
    let k = flat.len() / 2;
    PyArray1::from_vec(py, flat).reshape([k, 2])
}

pub(crate) fn insert_many<'py, T: Core>(
    lock: &IndexLock<T>,
    py: Python<'py>,
    rects: &Bound<'py, PyAny>,
    ids: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let rects = Rects::<T::Bounds>::new(rects, "rects")?;
    let rects = rects.as_rects()?;
    let ids = Ids::new(ids, rects.len())?;
    let ids = ids.as_ids()?;
    let result = lock.write_detached(py, |index| {
        let mut handles = Vec::new();
        index
            .insert_many(rects, ids, &mut handles)
            .map(|()| handles)
    })?;
    let handles = result.map_err(|e| errors::to_py(py, e, INSERT_MANY))?;
    Ok(PyArray1::from_vec(
        py,
        handles.into_iter().map(raw).collect::<Vec<i64>>(),
    ))
}

pub(crate) fn move_many<T: Core>(
    lock: &IndexLock<T>,
    py: Python<'_>,
    handles: &Bound<'_, PyAny>,
    rects: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let handles_arg = Handles::new(handles, "handles")?;
    let handles = handles_arg.as_handles()?;
    let rects = Rects::<T::Bounds>::new(rects, "rects")?;
    let rects = rects.as_rects()?;
    let result = lock.write_detached(py, |index| index.update_many(handles, rects))?;
    result.map_err(|e| errors::to_py_shown(py, e, MOVE_MANY, &|i| handles_arg.show(i)))
}

pub(crate) fn remove_many<T: Core>(
    lock: &IndexLock<T>,
    py: Python<'_>,
    handles: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let handles_arg = Handles::new(handles, "handles")?;
    let handles = handles_arg.as_handles()?;
    let result = lock.write_detached(py, |index| index.remove_many(handles))?;
    result.map_err(|e| errors::to_py_shown(py, e, MOVE_MANY, &|i| handles_arg.show(i)))
}

pub(crate) fn query_many<'py, T: Core>(
    lock: &IndexLock<T>,
    py: Python<'py>,
    rects: &Bound<'py, PyAny>,
    omit: Option<&Bound<'py, PyAny>>,
) -> PyResult<Csr<'py>> {
    let rects = Rects::<T::Bounds>::new(rects, "rects")?;
    let rects = rects.as_rects()?;
    let omit_arg = match omit {
        Some(omit) if !omit.is_none() => Some(Handles::new(omit, "omit")?),
        _ => None,
    };
    let omit = omit_arg.as_ref().map(Handles::as_handles).transpose()?;
    // The core's batch query, on all threads when the batch is big enough.
    let result = lock.read_with_gil_released(py, |index| {
        let (mut offsets, mut hits) = (Vec::new(), Vec::new());
        index.par_query_many(rects, omit, &mut offsets, &mut hits)?;
        Ok::<_, Error>(csr_vecs(offsets, hits))
    });
    let rows = result.map_err(|e| {
        errors::to_py_shown(py, e, QUERY_MANY, &|i| {
            omit_arg.as_ref().and_then(|omit| omit.show(i))
        })
    })?;
    Ok(csr_arrays(py, rows))
}

pub(crate) fn overlapping<T: Core>(
    lock: &IndexLock<T>,
    py: Python<'_>,
    handle: &Bound<'_, PyAny>,
) -> PyResult<Vec<u64>> {
    let handle = convert::handle(handle, "handle")?;
    let mut hits = Vec::new();
    let result = lock.read(py).overlapping(handle, &mut hits);
    result.map_err(|e| errors::to_py(py, e, Args::SINGLE))?;
    Ok(raws(hits))
}

pub(crate) fn overlapping_many<'py, T: Core>(
    lock: &IndexLock<T>,
    py: Python<'py>,
    handles: &Bound<'py, PyAny>,
) -> PyResult<Csr<'py>> {
    let handles_arg = Handles::new(handles, "handles")?;
    let handles = handles_arg.as_handles()?;
    let result = lock.read_with_gil_released(py, |index| {
        let (mut offsets, mut hits) = (Vec::new(), Vec::new());
        index.overlapping_many(handles, &mut offsets, &mut hits)?;
        Ok::<_, Error>(csr_vecs(offsets, hits))
    });
    let rows =
        result.map_err(|e| errors::to_py_shown(py, e, MOVE_MANY, &|i| handles_arg.show(i)))?;
    Ok(csr_arrays(py, rows))
}

pub(crate) fn id_of<T: Core>(
    lock: &IndexLock<T>,
    py: Python<'_>,
    handle: &Bound<'_, PyAny>,
) -> PyResult<u32> {
    let handle = convert::handle(handle, "handle")?;
    let result = lock.read(py).id(handle);
    result.map_err(|e| errors::to_py(py, e, Args::SINGLE))
}

/// The element's box: low corner then high corner.
pub(crate) fn box_of<T: Core>(
    lock: &IndexLock<T>,
    py: Python<'_>,
    handle: &Bound<'_, PyAny>,
) -> PyResult<Vec<f64>> {
    let handle = convert::handle(handle, "handle")?;
    let result = lock.read(py).rect(handle);
    let b = result.map_err(|e| errors::to_py(py, e, Args::SINGLE))?;
    Ok(convert::box_coords(&b))
}

pub(crate) fn contains<T: Core>(
    lock: &IndexLock<T>,
    py: Python<'_>,
    handle: &Bound<'_, PyAny>,
) -> bool {
    match handle.extract::<u64>() {
        Ok(raw) => lock.read(py).contains(Handle::from_raw(raw)),
        Err(_) => false,
    }
}

pub(crate) fn stats<'py, T: Core>(
    lock: &IndexLock<T>,
    py: Python<'py>,
) -> PyResult<Bound<'py, PyDict>> {
    let s = lock.read_with_gil_released(py, |index| index.stats());
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

pub(crate) fn to_bytes<'py, T: Core>(lock: &IndexLock<T>, py: Python<'py>) -> Bound<'py, PyBytes> {
    let bytes = lock.read_with_gil_released(py, |index| index.to_bytes());
    PyBytes::new(py, &bytes)
}

pub(crate) fn validate<T: Core>(lock: &IndexLock<T>, py: Python<'_>) -> PyResult<()> {
    lock.read_with_gil_released(py, |index| index.validate())
        .map_err(PyAssertionError::new_err)
}
