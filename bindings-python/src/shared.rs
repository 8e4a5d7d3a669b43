//! The bodies of the methods every class has, written once over the core
//! structure a class locks: `SpatialIndex` (and its 2D subclasses) locks an
//! `AnyIndex`, `Octree` an `Octree`. Each `#[pymethods]` method is its
//! signature, its docstring and one call here; only the box width differs
//! (`convert::any_box`, `convert::Rects<B>`).

use std::cell::RefCell;
use std::ops::ControlFlow;

use flatquad::{
    Bounds, BoxCast, Error, Filter, Handle, NodeInfo, Query, Ray, RayControl, RayHit, SpatialIndex,
};
use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::{PyAssertionError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyList, PyTuple};

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

pub(crate) fn margin<T: Core>(lock: &IndexLock<T>, py: Python<'_>) -> f64 {
    f64::from(lock.read(py).margin())
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
    let result = lock.read(py).query(
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
    let result = lock.read(py).visit(
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
    let result = lock.read(py).filter(handle);
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
    let result = lock.write_detached(py, |index| index.par_update_many(handles, rects))?;
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
        index.par_query_many(&Query::of_rects(rects, omit)?, &mut offsets, &mut hits)?;
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
    let result = lock.read(py).query(&Query::element(handle), &mut hits);
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
        index.par_overlapping_many(handles, &mut offsets, &mut hits)?;
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

/// `index_methods!(Class, "_restore_function", [own methods])`: the
/// `#[pymethods]` of a class whose field `lock` is an [`IndexLock`] and which
/// has a `bounds` getter: its own methods, then every method all classes share
/// (the 2D ones and `Octree`), each one call above, and the pickle protocol
/// (`_restore_function` unpickles protocol 5's out-of-band snapshot).
macro_rules! index_methods {
    ($class:ident, $restore:literal, [$($own:tt)*]) => {
        #[pymethods]
        impl $class {
            $($own)*

            /// ``(class, (bounds,), state)``: an index of the class over the same
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
                match crate::join::reduce_out_of_band(py, $restore, snapshot, protocol)? {
                    Some(reduced) => Ok(reduced),
                    None => Self::__reduce__(slf),
                }
            }

            /// Add a rectangle and return its handle.
            ///
            /// Parameters
            /// ----------
            /// rect : (x1, y1, x2, y2)
            ///     Or ``(x1, y1, z1, x2, y2, z2)`` for an ``Octree``.
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

            /// The fat-bounds margin, in world units (float32; 0 for none; the
            /// constructors' ``margin=``). Each element is filed by its box grown
            /// by the margin on every side, so a move that stays inside that fat
            /// box costs no relink. Every query, pair, search and contact event
            /// still answers on the elements' own boxes: the margin changes
            /// speed, never a result. Setting it refiles every element.
            ///
            /// Raises
            /// ------
            /// ValueError
            ///     When set to a NaN, negative or infinite value (nothing changes).
            #[getter]
            fn get_margin(&self, py: Python<'_>) -> f64 {
                shared::margin(&self.lock, py)
            }

            #[setter]
            fn set_margin(&self, py: Python<'_>, margin: f64) -> PyResult<()> {
                shared::set_margin(&self.lock, py, margin)
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
            ///     Or ``(x1, y1, z1, x2, y2, z2)`` for an ``Octree``.
            ///     The closed query rectangle: elements that only touch it are found.
            /// omit : int, optional
            ///     A handle to leave out, typically the querying element's own;
            ///     None or 0 (never a handle) leave out nothing.
            /// mask : int, optional
            ///     Report only the elements whose filter category has a bit in
            ///     ``mask`` (see ``set_filter``); None (or ``0xFFFFFFFF``): every
            ///     element.
            ///
            /// Returns
            /// -------
            /// list of int
            ///     Each matching handle once, in no particular order.
            ///
            /// Raises
            /// ------
            /// ValueError
            ///     For a bad rectangle or a mask out of range.
            /// KeyError
            ///     If ``omit`` names no element.
            #[pyo3(signature = (rect, omit = None, mask = None))]
            fn query(
                &self,
                py: Python<'_>,
                rect: &Bound<'_, PyAny>,
                omit: Option<&Bound<'_, PyAny>>,
                mask: Option<&Bound<'_, PyAny>>,
            ) -> PyResult<Vec<u64>> {
                shared::query(&self.lock, py, rect, omit, mask)
            }

            /// Give an element a collision filter (Box2D's rule): ``pairs``,
            /// ``overlapping`` and ``overlapping_many`` report two elements only
            /// when each one's ``category`` has a bit in the other's ``mask``, and a
            /// query with ``mask=m`` reports an element only when its category has a
            /// bit in ``m``. Every element starts with category and mask
            /// ``0xFFFFFFFF`` (everything collides). Filters are kept by ``move``,
            /// snapshots, pickling and copies.
            ///
            /// Parameters
            /// ----------
            /// handle : int
            /// category : int
            ///     The categories the element belongs to (unsigned 32-bit bits).
            /// mask : int
            ///     The categories it collides with (unsigned 32-bit bits).
            ///
            /// Raises
            /// ------
            /// KeyError
            ///     If ``handle`` names no element.
            /// ValueError
            ///     For a category or mask out of range.
            fn set_filter(
                &self,
                py: Python<'_>,
                handle: &Bound<'_, PyAny>,
                category: &Bound<'_, PyAny>,
                mask: &Bound<'_, PyAny>,
            ) -> PyResult<()> {
                shared::set_filter(&self.lock, py, handle, category, mask)
            }

            /// The element's collision filter ``(category, mask)``
            /// (``(0xFFFFFFFF, 0xFFFFFFFF)`` unless set).
            ///
            /// Raises
            /// ------
            /// KeyError
            ///     If ``handle`` names no element.
            fn filter(&self, py: Python<'_>, handle: &Bound<'_, PyAny>) -> PyResult<(u32, u32)> {
                shared::filter(&self.lock, py, handle)
            }

            /// ``set_filter`` for many elements at once: ``handles[i]`` gets
            /// ``(categories[i], masks[i])``.
            ///
            /// Parameters
            /// ----------
            /// handles : array_like of int, shape (n,)
            ///     As for ``move_many``.
            /// categories, masks : int or array_like of int, shape (n,)
            ///     Unsigned 32-bit values, one per handle or one int for all (uint32
            ///     arrays are read in place).
            ///
            /// Raises
            /// ------
            /// KeyError
            ///     For a handle that names no element (``err.index`` is its position).
            /// ValueError
            ///     For a value out of range or arrays of different lengths. Every
            ///     item is checked first: on error no filter changes.
            fn set_filters(
                &self,
                py: Python<'_>,
                handles: &Bound<'_, PyAny>,
                categories: &Bound<'_, PyAny>,
                masks: &Bound<'_, PyAny>,
            ) -> PyResult<()> {
                shared::set_filters(&self.lock, py, handles, categories, masks)
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
            ///     Or ``(n, 6)`` for an ``Octree``.
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
            ///     Or ``(n, 6)`` for an ``Octree``.
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
            ///     Or ``(n, 6)`` for an ``Octree``.
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

            /// ``query_circle`` for many circles at once (spheres for an ``Octree``).
            ///
            /// Parameters
            /// ----------
            /// centers : array_like, shape (n, 2)
            ///     Or ``(n, 3)`` for an ``Octree``; any real dtype.
            /// radii : float or array_like, shape (n,)
            ///     One radius for all, or one per center.
            /// mask : int, optional
            ///     As for ``query``.
            ///
            /// Returns
            /// -------
            /// (offsets, hits)
            ///     As ``query_many`` gives them: circle ``i`` holds
            ///     ``hits[offsets[i]:offsets[i + 1]]``.
            ///
            /// Raises
            /// ------
            /// ValueError
            ///     For a bad center or radius (``err.index`` is its row) or different
            ///     lengths; nothing is returned then.
            ///
            /// Releases the GIL while it works.
            #[pyo3(signature = (centers, radii, mask = None))]
            fn query_circle_many<'py>(
                &self,
                py: Python<'py>,
                centers: &Bound<'py, PyAny>,
                radii: &Bound<'py, PyAny>,
                mask: Option<&Bound<'py, PyAny>>,
            ) -> PyResult<Csr<'py>> {
                shared::query_circle_many(&self.lock, py, centers, radii, mask)
            }

            /// ``nearest`` for many points at once (no ``filter``: the GIL is
            /// released while it works).
            ///
            /// Parameters
            /// ----------
            /// points : array_like, shape (n, 2)
            ///     Or ``(n, 3)`` for an ``Octree``; any real dtype.
            /// k, max_distance, mask
            ///     As for ``nearest``.
            ///
            /// Returns
            /// -------
            /// offsets : numpy.ndarray
            ///     int64, shape ``(n + 1,)``: the neighbours of ``points[i]`` are
            ///     ``handles[offsets[i]:offsets[i + 1]]``, nearest first.
            /// handles : numpy.ndarray
            ///     int64.
            /// distances : numpy.ndarray
            ///     float64, the distance of each of ``handles``.
            ///
            /// Raises
            /// ------
            /// ValueError
            ///     For a bad point (``err.index`` is its row), a negative ``k`` or a
            ///     bad ``max_distance``.
            #[pyo3(signature = (points, k = 1, max_distance = None, mask = None))]
            fn nearest_many<'py>(
                &self,
                py: Python<'py>,
                points: &Bound<'py, PyAny>,
                k: i64,
                max_distance: Option<f64>,
                mask: Option<&Bound<'py, PyAny>>,
            ) -> PyResult<shared::NearestRows<'py>> {
                shared::nearest_many(&self.lock, py, points, k, max_distance, mask)
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

            fn __len__(&self, py: Python<'_>) -> usize {
                self.lock.read(py).len()
            }

            fn __contains__(&self, py: Python<'_>, handle: &Bound<'_, PyAny>) -> bool {
                shared::contains(&self.lock, py, handle)
            }

            /// Iterate over the live handles (a snapshot taken when iteration starts).
            fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                shared::iter(&self.lock, py)
            }

            /// Every element, as arrays: ``Elements(handles, rects, ids)``.
            ///
            /// Returns
            /// -------
            /// Elements
            ///     A named tuple of ``handles`` (int64, shape (n,)), ``rects``
            ///     (float32, shape (n, 4), or (n, 6) for an ``Octree``) and ``ids``
            ///     (int64, shape (n,)), in storage order.
            fn elements<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                shared::elements(&self.lock, py)
            }

            /// Every node (of a tree) or cell (of a grid), as arrays ready to plot.
            ///
            /// Returns
            /// -------
            /// Nodes
            ///     A named tuple of ``indices`` (int64, the node's index, as
            ///     ``traverse`` gives it), ``rects`` (float32, shape (m, 4), or
            ///     (m, 6) for an ``Octree``: the box of each), ``depths`` (int64),
            ///     ``is_leaf`` (bool) and ``counts`` (int64, elements linked in each
            ///     leaf, 0 for branches), in depth-first order, parents before
            ///     children.
            fn nodes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                shared::nodes(&self.lock, py)
            }

            /// Walk the nodes depth-first, parents before children, calling
            /// ``branch(index, depth, x1, y1, x2, y2)`` for each branch and
            /// ``leaf(index, depth, x1, y1, x2, y2, count)`` for each leaf (``count``:
            /// the elements linked in it; an ``Octree`` passes its 6 numbers
            /// ``x1, y1, z1, x2, y2, z2``). Either may be None. A grid shows its
            /// cells as leaves of depth 0 (a loose grid's cell rectangle is the box
            /// around its elements).
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
                shared::traverse(&self.lock, py, branch, leaf)
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

            fn __getstate__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
                self.to_bytes(py)
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
    };
}
pub(crate) use index_methods;

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
        let index = lock.read(py);
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
    });
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
    });
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
        let index = lock.read(py);
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
        .read(py)
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
    let result = lock.read_with_gil_released(py, |index| {
        let (mut offsets, mut hits) = (Vec::new(), Vec::new());
        index.query_many(
            &Query::of_circles(&centers, &radii, mask)?,
            &mut offsets,
            &mut hits,
        )?;
        Ok::<_, Error>(csr_vecs(offsets, hits))
    });
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
        let index = lock.read(py);
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
    let result = lock.read_with_gil_released(py, |index| {
        let (mut offsets, mut out) = (Vec::new(), Vec::new());
        index.nearest_many(&points, k, max_distance, mask, &mut offsets, &mut out)?;
        let offsets: Vec<i64> = offsets.into_iter().map(|o| o as i64).collect();
        let handles: Vec<i64> = out.iter().map(|n| raw(n.handle)).collect();
        let distances: Vec<f64> = out.iter().map(|n| n.distance).collect();
        Ok::<_, Error>((offsets, handles, distances))
    });
    let (offsets, handles, distances) = result.map_err(|e| errors::to_py(py, e, POINTS))?;
    Ok((
        PyArray1::from_vec(py, offsets),
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

pub(crate) fn ray_cast<'py, T: Core>(
    lock: &IndexLock<T>,
    py: Python<'py>,
    origin: &[f64],
    direction: &[f64],
    max_length: f64,
    mask: Option<&Bound<'py, PyAny>>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let ray = ray::<T::Bounds>(origin, direction, max_length);
    let mask = self::mask(mask)?;
    let result = lock.read(py).ray_cast(&ray, mask);
    let hit = result.map_err(|e| errors::to_py(py, e, Args::SINGLE))?;
    hit.map(|hit| ray_hit(py, &hit)).transpose()
}

pub(crate) fn ray_cast_all<'py, T: Core>(
    lock: &IndexLock<T>,
    py: Python<'py>,
    origin: &[f64],
    direction: &[f64],
    max_length: f64,
    mask: Option<&Bound<'py, PyAny>>,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let ray = ray::<T::Bounds>(origin, direction, max_length);
    let mask = self::mask(mask)?;
    let mut hits = Vec::new();
    let result = lock.read(py).ray_cast_all(&ray, mask, &mut hits);
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
        lock.read(py).box_cast_all(&cast, &mut hits)
    } else {
        lock.read(py)
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
        let index = lock.read(py);
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
