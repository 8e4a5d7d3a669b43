//! The bodies of the methods every class has, written once over the core
//! structure a class locks (`Core`): `SpatialIndex` (and its 2D subclasses)
//! locks an `AnyIndex`, `Octree` an `Octree`. Each method of
//! `methods::index_methods!` is its signature, its docstring and one call
//! here. The dimension is the structure's box type (`convert::any_box`,
//! `convert::Rects<B>`) and the length of the coordinate slices (2 or 3).

use std::cell::RefCell;
use std::ops::ControlFlow;

use flatquad::{
    Bounds, BoxCast, Error, Filter, Handle, NodeInfo, Query, QueryColumns, Ray, RayControl, RayHit,
    SpatialIndex,
};
use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::{PyAssertionError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyList, PyTuple, PyType};

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
pub(crate) const SET_FILTERS: Args = Args {
    rects: "handles",
    handles: "handles",
    lengths: ("handles", "filters"),
};
pub(crate) const QUERY_MANY: Args = Args {
    rects: "rects",
    handles: "omit",
    lengths: ("rects", "omit"),
};

/// What a class's lock holds: a core structure, shared between threads, and
/// the little that differs between the classes in making and showing one
/// (the snapshot, copy and `repr` methods are written once over it).
pub(crate) trait Core: SpatialIndex + Lockable + Clone + Sync {
    /// What a class asks of a snapshot: the 2D classes their own kind (any
    /// kind on `SpatialIndex`), `Octree` no more than the core checks.
    type Kind: Copy + Send;
    /// The constructor's name for the world, as `repr` shows it.
    const WORLD: &'static str;
    /// The kind the class `cls` (or a subclass of it) serves.
    fn kind_of_class(cls: &Bound<'_, PyType>) -> Self::Kind;
    /// The structure a snapshot holds (the core refuses one of another kind).
    fn from_snapshot(kind: Self::Kind, bytes: &[u8]) -> Result<Self, Error>;
    /// A new Python object holding the structure: an instance of its class.
    fn into_object(self, py: Python<'_>) -> PyResult<Bound<'_, PyAny>>;
    /// The constructor's parameters, as `repr` shows them (`"columns=4 rows=4"`).
    fn parameters(&self) -> String;
}

/// A structure with the fat-bounds `margin` (the constructors' keyword), or
/// the core's error raised.
pub(crate) fn with_margin<T: SpatialIndex>(
    py: Python<'_>,
    structure: Result<T, Error>,
    margin: f64,
) -> PyResult<T> {
    structure
        .and_then(|structure| structure.with_margin(margin as f32))
        .map_err(|e| errors::to_py(py, e, Args::SINGLE))
}

/// A tree from its constructor's arguments, which the quadtrees and the
/// octree share but for the world's width and `name` (`"bounds"`, `"world"`).
pub(crate) fn new_tree<T: SpatialIndex>(
    py: Python<'_>,
    world: &Bound<'_, PyAny>,
    name: &str,
    max_elements: i64,
    max_depth: i64,
    margin: f64,
    new: impl FnOnce(T::Bounds, u32, u32) -> Result<T, Error>,
) -> PyResult<T> {
    let world = convert::any_box::<T::Bounds>(world, name)?;
    let max_elements = convert::count(py, max_elements, "max_elements")?;
    let max_depth = convert::count(py, max_depth, "max_depth")?;
    with_margin(py, new(world, max_elements, max_depth), margin)
}

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

pub(crate) fn margin<T: Core>(lock: &IndexLock<T>, py: Python<'_>) -> PyResult<f64> {
    Ok(f64::from(lock.read(py)?.margin()))
}

/// Sets the fat-bounds margin (refiles every element, so without the GIL).
pub(crate) fn set_margin<T: Core>(
    lock: &IndexLock<T>,
    py: Python<'_>,
    margin: f64,
) -> PyResult<()> {
    let result = lock.write_detached(py, |index| index.set_margin(margin as f32))?;
    result.map_err(|e| errors::to_py(py, e, Args::SINGLE))
}

pub(crate) fn cleanup<T: Core>(lock: &IndexLock<T>, py: Python<'_>) -> PyResult<()> {
    lock.write_detached(py, |index| index.cleanup())
}

pub(crate) fn clear<T: Core>(lock: &IndexLock<T>, py: Python<'_>) -> PyResult<()> {
    lock.write_detached(py, |index| index.clear())
}

/// A query mask: `None` reports every element ([`Filter::ALL`], which the
/// core skips at no cost), else the categories to report.
pub(crate) fn mask(mask: Option<&Bound<'_, PyAny>>) -> PyResult<u32> {
    match mask {
        Some(mask) if !mask.is_none() => convert::u32_value(mask, "mask"),
        _ => Ok(Filter::ALL),
    }
}

pub(crate) fn query<T: Core>(
    lock: &IndexLock<T>,
    py: Python<'_>,
    rect: &Bound<'_, PyAny>,
    omit: Option<&Bound<'_, PyAny>>,
    mask: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<u64>> {
    let rect = convert::any_box::<T::Bounds>(rect, "rect")?;
    let omit = convert::opt_handle(omit, "omit")?;
    let mask = self::mask(mask)?;
    let mut hits = Vec::new();
    let result = lock.read(py)?.query(
        &Query {
            omit,
            ..Query::rect(rect).mask(mask)
        },
        &mut hits,
    );
    result.map_err(|e| errors::to_py(py, e, Args::QUERY))?;
    Ok(raws(hits))
}

/// `coords`: `[x, y]` or `[x, y, z]`.
pub(crate) fn query_point<T: Core>(
    lock: &IndexLock<T>,
    py: Python<'_>,
    coords: &[f64],
    omit: Option<&Bound<'_, PyAny>>,
    mask: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<u64>> {
    let point = convert::any_point::<T::Bounds>(coords);
    let omit = convert::opt_handle(omit, "omit")?;
    let mask = self::mask(mask)?;
    let mut hits = Vec::new();
    let result = lock.read(py)?.visit(
        &Query {
            omit,
            ..Query::point(point).mask(mask)
        },
        |handle| {
            hits.push(handle);
            ControlFlow::Continue(())
        },
    );
    // The walk never breaks: it ran to the end.
    let _finished = result.map_err(|e| errors::to_py(py, e, Args::QUERY))?;
    Ok(raws(hits))
}

pub(crate) fn set_filter<T: Core>(
    lock: &IndexLock<T>,
    py: Python<'_>,
    handle: &Bound<'_, PyAny>,
    category: &Bound<'_, PyAny>,
    mask: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let handle = convert::handle(handle, "handle")?;
    let filter = Filter::new(
        convert::u32_value(category, "category")?,
        convert::u32_value(mask, "mask")?,
    );
    let result = lock.write(py)?.set_filter(handle, filter);
    result.map_err(|e| errors::to_py(py, e, Args::SINGLE))
}

/// `(category, mask)`.
pub(crate) fn filter<T: Core>(
    lock: &IndexLock<T>,
    py: Python<'_>,
    handle: &Bound<'_, PyAny>,
) -> PyResult<(u32, u32)> {
    let handle = convert::handle(handle, "handle")?;
    let result = lock.read(py)?.filter(handle);
    let filter = result.map_err(|e| errors::to_py(py, e, Args::SINGLE))?;
    Ok((filter.category, filter.mask))
}

pub(crate) fn set_filters<T: Core>(
    lock: &IndexLock<T>,
    py: Python<'_>,
    handles: &Bound<'_, PyAny>,
    categories: &Bound<'_, PyAny>,
    masks: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let handles_arg = Handles::new(handles, "handles")?;
    let handles = handles_arg.as_handles()?;
    let n = handles.len();
    let categories = Ids::named(categories, n, ("categories", "category"))?;
    let categories = categories.as_ids()?;
    let masks = Ids::named(masks, n, ("masks", "mask"))?;
    let masks = masks.as_ids()?;
    // The two columns become the core's one slice of filters; their lengths
    // are refused as the core refuses a slice of the wrong length.
    for (name, found) in [("categories", categories.len()), ("masks", masks.len())] {
        if found != n {
            let mismatch = Error::LengthMismatch { expected: n, found };
            let args = Args {
                lengths: ("handles", name),
                ..SET_FILTERS
            };
            return Err(errors::to_py(py, mismatch, args));
        }
    }
    let filters: Vec<Filter> = categories
        .iter()
        .zip(masks)
        .map(|(&category, &mask)| Filter::new(category, mask))
        .collect();
    let result = lock.write_detached(py, |index| index.set_filter_many(handles, &filters))?;
    result.map_err(|e| errors::to_py_shown(py, e, SET_FILTERS, &|i| handles_arg.show(i)))
}

pub(crate) fn pairs<'py, T: Core>(
    lock: &IndexLock<T>,
    py: Python<'py>,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    // The core's pair walk, on all threads where the structure can split it
    // and the size pays.
    let flat = lock.read_on_threads(py, |index| {
        let mut pairs = Vec::new();
        index.par_pairs(&mut pairs);
        pairs
            .into_iter()
            .flat_map(|(a, b)| [raw(a), raw(b)])
            .collect::<Vec<i64>>()
    })?;
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
    moves_by(lock, py, handles, rects, |index, handles, rects| {
        index.par_update_many(handles, rects)
    })
}

/// `move_many` whose moves panic after the first `at` are made (on a
/// worker thread with `on_worker`), as a bug would: the moves are finished
/// and the call raises (testing only: `_panic_in_moves_for_tests`).
pub(crate) fn move_many_panicking<T: Core>(
    lock: &IndexLock<T>,
    py: Python<'_>,
    handles: &Bound<'_, PyAny>,
    rects: &Bound<'_, PyAny>,
    at: usize,
    on_worker: bool,
) -> PyResult<()> {
    moves_by(lock, py, handles, rects, |index, handles, rects| {
        flatquad::update_many_panicking_for_tests(index, handles, rects, at, on_worker)
    })
}

/// `move_many`'s arguments read, then moved by `moves` under the lock, on
/// the batch calls' threads.
fn moves_by<T: Core>(
    lock: &IndexLock<T>,
    py: Python<'_>,
    handles: &Bound<'_, PyAny>,
    rects: &Bound<'_, PyAny>,
    moves: impl FnOnce(&mut T, &[Handle], &[T::Bounds]) -> Result<(), flatquad::Error> + Send,
) -> PyResult<()> {
    let handles_arg = Handles::new(handles, "handles")?;
    let handles = handles_arg.as_handles()?;
    let rects = Rects::<T::Bounds>::new(rects, "rects")?;
    let rects = rects.as_rects()?;
    let result = lock.write_on_threads(py, |index| moves(index, handles, rects))?;
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
    // The core's batch query, a block at a time, on all threads when the batch is big enough.
    let result = lock.read_on_threads(py, |index| {
        let (mut offsets, mut hits) = (Vec::new(), Vec::new());
        QueryColumns::rects(rects, omit)?.answer(index, &mut offsets, &mut hits)?;
        Ok::<_, Error>(csr_vecs(offsets, hits))
    })?;
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
    let result = lock.read(py)?.query(&Query::element(handle), &mut hits);
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
    let result = lock.read_on_threads(py, |index| {
        let (mut offsets, mut hits) = (Vec::new(), Vec::new());
        index.par_overlapping_many(handles, &mut offsets, &mut hits)?;
        Ok::<_, Error>(csr_vecs(offsets, hits))
    })?;
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
    let result = lock.read(py)?.id(handle);
    result.map_err(|e| errors::to_py(py, e, Args::SINGLE))
}

/// The element's box: low corner then high corner.
pub(crate) fn rect_of<'py, T: Core>(
    lock: &IndexLock<T>,
    py: Python<'py>,
    handle: &Bound<'_, PyAny>,
) -> PyResult<Bound<'py, PyTuple>> {
    let handle = convert::handle(handle, "handle")?;
    let result = lock.read(py)?.rect(handle);
    let b = result.map_err(|e| errors::to_py(py, e, Args::SINGLE))?;
    PyTuple::new(py, convert::box_coords(&b))
}

/// The world: low corner then high corner.
pub(crate) fn bounds<'py, T: Core>(
    lock: &IndexLock<T>,
    py: Python<'py>,
) -> PyResult<Bound<'py, PyTuple>> {
    let world = lock.read(py)?.world();
    PyTuple::new(py, convert::box_coords(&world))
}

pub(crate) fn kind<T: Core>(lock: &IndexLock<T>, py: Python<'_>) -> PyResult<&'static str> {
    Ok(lock.read(py)?.class_name())
}

pub(crate) fn contains<T: Core>(
    lock: &IndexLock<T>,
    py: Python<'_>,
    handle: &Bound<'_, PyAny>,
) -> PyResult<bool> {
    let index = lock.read(py)?;
    Ok(match handle.extract::<u64>() {
        Ok(raw) => index.contains(Handle::from_raw(raw)),
        Err(_) => false,
    })
}

pub(crate) fn stats<'py, T: Core>(
    lock: &IndexLock<T>,
    py: Python<'py>,
) -> PyResult<Bound<'py, PyDict>> {
    let s = lock.read_with_gil_released(py, |index| index.stats())?;
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

pub(crate) fn to_bytes<'py, T: Core>(
    lock: &IndexLock<T>,
    py: Python<'py>,
) -> PyResult<Bound<'py, PyBytes>> {
    let bytes = lock.read_with_gil_released(py, |index| index.to_bytes())?;
    Ok(PyBytes::new(py, &bytes))
}

/// The structure a snapshot of `kind` holds, read without the GIL.
pub(crate) fn from_snapshot<T: Core>(py: Python<'_>, kind: T::Kind, data: &[u8]) -> PyResult<T> {
    py.detach(move || T::from_snapshot(kind, data))
        .map_err(|e| errors::to_py(py, e, Args::SINGLE))
}

/// `from_bytes` on the class `cls`: a snapshot of the kind it serves.
pub(crate) fn from_bytes<'py, T: Core>(
    cls: &Bound<'py, PyType>,
    data: &[u8],
) -> PyResult<Bound<'py, PyAny>> {
    let py = cls.py();
    from_snapshot::<T>(py, T::kind_of_class(cls), data)?.into_object(py)
}

/// Replaces the whole structure with a snapshot of the kind `cls` serves.
pub(crate) fn set_state<T: Core>(
    lock: &IndexLock<T>,
    cls: &Bound<'_, PyType>,
    data: &[u8],
) -> PyResult<()> {
    let py = cls.py();
    let index = from_snapshot(py, T::kind_of_class(cls), data)?;
    *lock.write(py)? = index;
    Ok(())
}

/// A new object of the same class holding a copy of the structure.
pub(crate) fn copy<'py, T: Core>(
    lock: &IndexLock<T>,
    py: Python<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    lock.read_with_gil_released(py, T::clone)?.into_object(py)
}

/// `<flatquad.Quadtree bounds=(0.0, 0.0, 1.0, 1.0) max_elements=8 max_depth=8 len=0>`.
pub(crate) fn repr<T: Core>(lock: &IndexLock<T>, py: Python<'_>) -> PyResult<String> {
    let index = lock.read(py)?;
    let world: Vec<String> = f32_coords(&index.world())
        .map(|c| format!("{c:?}"))
        .collect();
    Ok(format!(
        "<flatquad.{} {}=({}) {} len={}>",
        index.class_name(),
        T::WORLD,
        world.join(", "),
        index.parameters(),
        index.len()
    ))
}

pub(crate) fn validate<T: Core>(lock: &IndexLock<T>, py: Python<'_>) -> PyResult<()> {
    lock.read_with_gil_released(py, |index| index.validate())?
        .map_err(PyAssertionError::new_err)
}

static NODES: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();
static ELEMENTS: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();

/// A box's float32 coordinates, lows then highs: 4 for a rectangle, 6 for a 3D box.
fn f32_coords<B: Bounds>(b: &B) -> impl Iterator<Item = f32> + '_ {
    (0..B::AXES)
        .map(|axis| b.lo(axis))
        .chain((0..B::AXES).map(|axis| b.hi(axis)))
}

/// The live handles (a snapshot), as an iterator.
pub(crate) fn iter<'py, T: Core>(
    lock: &IndexLock<T>,
    py: Python<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    let handles: Vec<u64> = {
        let index = lock.read(py)?;
        index.iter().map(|(h, _, _)| h.to_raw()).collect()
    };
    PyList::new(py, handles)?.try_iter().map(Bound::into_any)
}

/// Every element as arrays: `Elements(handles, rects, ids)`.
pub(crate) fn elements<'py, T: Core>(
    lock: &IndexLock<T>,
    py: Python<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    let width = 2 * <T::Bounds as Bounds>::AXES;
    let (handles, flat, ids) = lock.read_with_gil_released(py, |index| {
        let n = index.len();
        let (mut handles, mut flat, mut ids) = (
            Vec::with_capacity(n),
            Vec::with_capacity(width * n),
            Vec::with_capacity(n),
        );
        for (handle, rect, id) in index.iter() {
            handles.push(raw(handle));
            flat.extend(f32_coords(&rect));
            ids.push(i64::from(id));
        }
        (handles, flat, ids)
    })?;
    let n = handles.len();
    let rects = PyArray1::from_vec(py, flat).reshape([n, width])?;
    ELEMENTS.import(py, "flatquad._types", "Elements")?.call1((
        PyArray1::from_vec(py, handles),
        rects,
        PyArray1::from_vec(py, ids),
    ))
}

/// Every node as arrays: `Nodes(indices, rects, depths, is_leaf, counts)`.
pub(crate) fn nodes<'py, T: Core>(
    lock: &IndexLock<T>,
    py: Python<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    let width = 2 * <T::Bounds as Bounds>::AXES;
    let nodes: Vec<NodeInfo<T::Bounds>> = lock.read_with_gil_released(py, |index| {
        let nodes = RefCell::new(Vec::new());
        let visit = |info: &NodeInfo<T::Bounds>| {
            nodes.borrow_mut().push(*info);
            ControlFlow::Continue(())
        };
        let _ = index.traverse(visit, visit);
        nodes.into_inner()
    })?;
    let m = nodes.len();
    let indices: Vec<i64> = nodes.iter().map(|n| i64::from(n.index)).collect();
    let flat: Vec<f32> = nodes.iter().flat_map(|n| f32_coords(&n.rect)).collect();
    let depths: Vec<i64> = nodes.iter().map(|n| i64::from(n.depth)).collect();
    let is_leaf: Vec<bool> = nodes.iter().map(|n| n.is_leaf).collect();
    let counts: Vec<i64> = nodes.iter().map(|n| i64::from(n.count)).collect();
    NODES.import(py, "flatquad._types", "Nodes")?.call1((
        PyArray1::from_vec(py, indices),
        PyArray1::from_vec(py, flat).reshape([m, width])?,
        PyArray1::from_vec(py, depths),
        PyArray1::from_vec(py, is_leaf),
        PyArray1::from_vec(py, counts),
    ))
}

/// The depth-first walk: `branch(index, depth, *box)` and
/// `leaf(index, depth, *box, count)`; `False` stops, an exception propagates.
pub(crate) fn traverse<T: Core>(
    lock: &IndexLock<T>,
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
    let call =
        |callback: &Option<Bound<'_, PyAny>>, info: &NodeInfo<T::Bounds>, with_count: bool| {
            let Some(callback) = callback else {
                return ControlFlow::Continue(());
            };
            let args = (|| -> PyResult<Bound<'_, PyTuple>> {
                let mut args: Vec<Bound<'_, PyAny>> = vec![
                    info.index.into_pyobject(py)?.into_any(),
                    info.depth.into_pyobject(py)?.into_any(),
                ];
                for c in f32_coords(&info.rect) {
                    args.push(PyFloat::new(py, f64::from(c)).into_any());
                }
                if with_count {
                    args.push(info.count.into_pyobject(py)?.into_any());
                }
                PyTuple::new(py, args)
            })();
            match args.and_then(|args| callback.call1(args)) {
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
        let index = lock.read(py)?;
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

// Nearest neighbours, circles (spheres) and ray casts: conversions around the
// core's searches, written once for 2D and 3D (`coords`: 2 or 3 numbers).

const CIRCLES: Args = Args {
    rects: "centers",
    handles: "",
    lengths: ("centers", "radii"),
};
const POINTS: Args = Args {
    rects: "points",
    handles: "",
    lengths: ("", ""),
};

static RAY_HIT: pyo3::sync::PyOnceLock<Py<PyAny>> = pyo3::sync::PyOnceLock::new();

/// `k` for the core: refused when negative, as the core refuses a bad distance.
fn k_value(py: Python<'_>, k: i64) -> PyResult<usize> {
    usize::try_from(k).map_err(|_| {
        errors::invalid_parameter(py, format!("invalid k {k}: it must be an integer >= 0"))
    })
}

/// A callback argument: callable, or a `TypeError` naming it.
fn callable<'a, 'py>(obj: &'a Bound<'py, PyAny>, what: &str) -> PyResult<&'a Bound<'py, PyAny>> {
    if obj.is_callable() {
        Ok(obj)
    } else {
        Err(PyTypeError::new_err(format!(
            "{what} must be callable, got {}",
            convert::type_name(obj)
        )))
    }
}

pub(crate) fn query_circle<T: Core>(
    lock: &IndexLock<T>,
    py: Python<'_>,
    center: &[f64],
    radius: f64,
    mask: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<u64>> {
    let center = convert::any_point::<T::Bounds>(center);
    let mask = self::mask(mask)?;
    let mut hits = Vec::new();
    let result = lock
        .read(py)?
        .query(&Query::circle(center, radius).mask(mask), &mut hits);
    result.map_err(|e| errors::to_py(py, e, Args::SINGLE))?;
    Ok(raws(hits))
}

pub(crate) fn query_circle_many<'py, T: Core>(
    lock: &IndexLock<T>,
    py: Python<'py>,
    centers: &Bound<'py, PyAny>,
    radii: &Bound<'py, PyAny>,
    mask: Option<&Bound<'py, PyAny>>,
) -> PyResult<Csr<'py>> {
    let centers = convert::points::<T::Bounds>(centers, "centers")?;
    let radii = convert::lengths(radii, centers.len(), "radii")?;
    let mask = self::mask(mask)?;
    let result = lock.read_on_threads(py, |index| {
        let (mut offsets, mut hits) = (Vec::new(), Vec::new());
        QueryColumns::circles(&centers, &radii, mask)?.answer(index, &mut offsets, &mut hits)?;
        Ok::<_, Error>(csr_vecs(offsets, hits))
    })?;
    let rows = result.map_err(|e| errors::to_py(py, e, CIRCLES))?;
    Ok(csr_arrays(py, rows))
}

/// `handles`, or `(handles, distances)` with `return_distance`. (The
/// arguments are the Python signature's, converted here once for 2D and 3D.)
#[allow(clippy::too_many_arguments)]
pub(crate) fn nearest<'py, T: Core>(
    lock: &IndexLock<T>,
    py: Python<'py>,
    point: &[f64],
    k: i64,
    max_distance: Option<f64>,
    return_distance: bool,
    mask: Option<&Bound<'py, PyAny>>,
    filter: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let point = convert::any_point::<T::Bounds>(point);
    let k = k_value(py, k)?;
    let mask = self::mask(mask)?;
    let filter = filter
        .filter(|f| !f.is_none())
        .map(|f| callable(f, "filter"))
        .transpose()?;
    let failure: RefCell<Option<PyErr>> = RefCell::new(None);
    let mut out = Vec::new();
    let result = {
        let index = lock.read(py)?;
        match filter {
            None => index.nearest(point, k, max_distance, mask, &mut out),
            Some(filter) => {
                // After an exception nothing more is accepted or called; the
                // exception is raised once the walk is over.
                let accept = |handle: Handle| {
                    if failure.borrow().is_some() {
                        return false;
                    }
                    match filter.call1((raw(handle),)).and_then(|v| v.is_truthy()) {
                        Ok(accepted) => accepted,
                        Err(e) => {
                            *failure.borrow_mut() = Some(e);
                            false
                        }
                    }
                };
                index.nearest_with(point, k, max_distance, mask, accept, &mut out)
            }
        }
    };
    result.map_err(|e| errors::to_py(py, e, Args::SINGLE))?;
    if let Some(e) = failure.into_inner() {
        return Err(e);
    }
    let handles: Vec<u64> = out.iter().map(|n| n.handle.to_raw()).collect();
    let handles = PyList::new(py, handles)?.into_any();
    if return_distance {
        let distances = PyList::new(py, out.iter().map(|n| n.distance))?;
        Ok(PyTuple::new(py, [handles, distances.into_any()])?.into_any())
    } else {
        Ok(handles)
    }
}

/// `(offsets, handles, distances)` of a batch of nearest queries.
pub(crate) type NearestRows<'py> = (
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<f64>>,
);

pub(crate) fn nearest_many<'py, T: Core>(
    lock: &IndexLock<T>,
    py: Python<'py>,
    points: &Bound<'py, PyAny>,
    k: i64,
    max_distance: Option<f64>,
    mask: Option<&Bound<'py, PyAny>>,
) -> PyResult<NearestRows<'py>> {
    let points = convert::points::<T::Bounds>(points, "points")?;
    let k = k_value(py, k)?;
    let mask = self::mask(mask)?;
    let result = lock.read_on_threads(py, |index| {
        let (mut offsets, mut out) = (Vec::new(), Vec::new());
        index.par_nearest_many(&points, k, max_distance, mask, &mut offsets, &mut out)?;
        let offsets: Vec<i64> = offsets.into_iter().map(|o| o as i64).collect();
        let handles: Vec<i64> = out.iter().map(|n| raw(n.handle)).collect();
        let distances: Vec<f64> = out.iter().map(|n| n.distance).collect();
        Ok::<_, Error>((offsets, handles, distances))
    })?;
    let (offsets, handles, distances) = result.map_err(|e| errors::to_py(py, e, POINTS))?;
    Ok((
        PyArray1::from_vec(py, offsets),
        PyArray1::from_vec(py, handles),
        PyArray1::from_vec(py, distances),
    ))
}

const RAYS: Args = Args {
    rects: "rays",
    handles: "",
    lengths: ("", ""),
};

/// `ray_cast_many`'s arrays: each ray's first hit, 0 (no handle) and +inf
/// where the ray touches nothing.
pub(crate) type FirstHits<'py> = (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<f64>>);

/// The first hit of each ray `origins[i] + t * directions[i]`, `0 <= t <=
/// max_length[i]` (one length for all, or one a ray), on every core.
pub(crate) fn ray_cast_many<'py, T: Core>(
    lock: &IndexLock<T>,
    py: Python<'py>,
    origins: &Bound<'py, PyAny>,
    directions: &Bound<'py, PyAny>,
    max_length: &Bound<'py, PyAny>,
    mask: Option<&Bound<'py, PyAny>>,
) -> PyResult<FirstHits<'py>> {
    let origins = convert::points::<T::Bounds>(origins, "origins")?;
    let directions = convert::points::<T::Bounds>(directions, "directions")?;
    let lengths = convert::lengths(max_length, origins.len(), "max_length")?;
    let rays = Ray::of_columns(&origins, &directions, &lengths).map_err(|mismatch| {
        // The core checks the directions first.
        let second = if directions.len() != origins.len() {
            "directions"
        } else {
            "max_length"
        };
        let args = Args {
            lengths: ("origins", second),
            ..RAYS
        };
        errors::to_py(py, mismatch, args)
    })?;
    let mask = self::mask(mask)?;
    let result = lock.read_on_threads(py, |index| {
        let mut hits = Vec::new();
        index.par_ray_cast_many(&rays, mask, &mut hits)?;
        let handles: Vec<i64> = hits
            .iter()
            .map(|hit| hit.map_or(0, |hit| raw(hit.handle)))
            .collect();
        let distances: Vec<f64> = hits
            .iter()
            .map(|hit| hit.map_or(f64::INFINITY, |hit| hit.distance))
            .collect();
        Ok::<_, Error>((handles, distances))
    })?;
    let (handles, distances) = result.map_err(|e| errors::to_py(py, e, RAYS))?;
    Ok((
        PyArray1::from_vec(py, handles),
        PyArray1::from_vec(py, distances),
    ))
}

/// The ray `origin + t * direction`, `0 <= t <= max_length`, rounded as points
/// are; its validity is the core's to check.
fn ray<B: Bounds>(origin: &[f64], direction: &[f64], max_length: f64) -> Ray<B::Point> {
    Ray {
        origin: convert::any_point::<B>(origin),
        direction: convert::any_point::<B>(direction),
        max_length,
    }
}

/// A `flatquad.RayHit(handle, id, distance, fraction)`.
fn ray_hit<'py>(py: Python<'py>, hit: &RayHit) -> PyResult<Bound<'py, PyAny>> {
    RAY_HIT.import(py, "flatquad._types", "RayHit")?.call1((
        hit.handle.to_raw(),
        hit.id,
        hit.distance,
        hit.fraction,
    ))
}

/// The ray cast (`all`: every hit, else the first), as `RayHit`s.
pub(crate) fn ray_cast<'py, T: Core>(
    lock: &IndexLock<T>,
    py: Python<'py>,
    origin: &[f64],
    direction: &[f64],
    max_length: f64,
    mask: Option<&Bound<'py, PyAny>>,
    all: bool,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let ray = ray::<T::Bounds>(origin, direction, max_length);
    let mask = self::mask(mask)?;
    let mut hits = Vec::new();
    let result = if all {
        lock.read(py)?.ray_cast_all(&ray, mask, &mut hits)
    } else {
        lock.read(py)?
            .ray_cast(&ray, mask)
            .map(|first| hits.extend(first))
    };
    result.map_err(|e| errors::to_py(py, e, Args::SINGLE))?;
    hits.iter().map(|hit| ray_hit(py, hit)).collect()
}

/// The box cast of `rect` by `motion` (`all`: every hit, else the first),
/// as `RayHit`s.
pub(crate) fn box_cast<'py, T: Core>(
    lock: &IndexLock<T>,
    py: Python<'py>,
    rect: &Bound<'py, PyAny>,
    motion: &[f64],
    mask: Option<&Bound<'py, PyAny>>,
    omit: Option<&Bound<'py, PyAny>>,
    all: bool,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let rect = convert::any_box::<T::Bounds>(rect, "rect")?;
    let omit = convert::opt_handle(omit, "omit")?;
    let cast = BoxCast {
        omit,
        ..BoxCast::new(rect, convert::any_point::<T::Bounds>(motion)).mask(self::mask(mask)?)
    };
    let mut hits = Vec::new();
    let result = if all {
        lock.read(py)?.box_cast_all(&cast, &mut hits)
    } else {
        lock.read(py)?
            .box_cast(&cast)
            .map(|first| hits.extend(first))
    };
    result.map_err(|e| errors::to_py(py, e, Args::QUERY))?;
    hits.iter().map(|hit| ray_hit(py, hit)).collect()
}

/// What a `ray_cast_with` callback's return value asks for: None or True go
/// on, False stops, a number clips the ray there.
fn ray_control(value: &Bound<'_, PyAny>) -> PyResult<RayControl> {
    if value.is_none() {
        return Ok(RayControl::Continue);
    }
    if let Ok(flag) = value.cast::<PyBool>() {
        return Ok(if flag.is_true() {
            RayControl::Continue
        } else {
            RayControl::Stop
        });
    }
    match value.extract::<f64>() {
        Ok(length) => Ok(RayControl::Clip(length)),
        Err(_) => Err(PyTypeError::new_err(format!(
            "the ray_cast_with callback must return None, True, False or a number \
             (the new max_length), got {}",
            convert::type_name(value)
        ))),
    }
}

pub(crate) fn ray_cast_with<T: Core>(
    lock: &IndexLock<T>,
    py: Python<'_>,
    origin: &[f64],
    direction: &[f64],
    max_length: f64,
    callback: &Bound<'_, PyAny>,
    mask: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    let callback = callable(callback, "callback")?;
    let ray = ray::<T::Bounds>(origin, direction, max_length);
    let mask = self::mask(mask)?;
    let mut failure: Option<PyErr> = None;
    let result = {
        let index = lock.read(py)?;
        index.ray_cast_with(&ray, mask, |hit| {
            let control = ray_hit(py, hit)
                .and_then(|hit| callback.call1((hit,)))
                .and_then(|value| ray_control(&value));
            control.unwrap_or_else(|e| {
                failure = Some(e);
                RayControl::Stop
            })
        })
    };
    result.map_err(|e| errors::to_py(py, e, Args::SINGLE))?;
    failure.map_or(Ok(()), Err)
}
