//! Python values to core values: rectangles, points, handles and ids, one at a
//! time or as numpy arrays. Arrays that already have the core's layout
//! (C-contiguous native `float32` of shape `(n, 4)`, `int64`/`uint64` handles,
//! `uint32` ids) are read in place; anything else numpy can turn into one is
//! converted once; the rest is refused with a message saying what was expected.

use flatquad::{Bounds, Handle, Rect};
use numpy::{
    PyArray1, PyArray2, PyArrayDescrMethods, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2,
    PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyBool;

use crate::errors::{self, no_such_handle};

static ASARRAY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static ASCONTIGUOUSARRAY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// The name of `obj`'s type, for messages.
pub(crate) fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map_or_else(|_| "?".to_string(), |n| n.to_string())
}

/// One coordinate: any real number Python can turn into a float (rounded to
/// `f32` later, with the others of its rectangle, by [`Rect::from_f64`]).
/// `what` is formatted only for the error (a call's happy path formats nothing).
pub(crate) fn coordinate(obj: &Bound<'_, PyAny>, what: impl std::fmt::Display) -> PyResult<f64> {
    obj.extract::<f64>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{what} must be a real number, got {}",
            type_name(obj)
        ))
    })
}

/// `N` numbers from any iterable (tuple, list, numpy array of shape (N,)).
pub(crate) fn numbers<const N: usize>(
    obj: &Bound<'_, PyAny>,
    what: &str,
    fields: &str,
) -> PyResult<[f64; N]> {
    let mut out = [0.0f64; N];
    numbers_into(obj, what, fields, &mut out)?;
    Ok(out)
}

/// `out.len()` numbers from any iterable, into `out`.
fn numbers_into(obj: &Bound<'_, PyAny>, what: &str, fields: &str, out: &mut [f64]) -> PyResult<()> {
    let n = out.len();
    let not_a_sequence = || {
        PyTypeError::new_err(format!(
            "{what} must be a sequence of {n} numbers {fields}, got {}",
            type_name(obj)
        ))
    };
    if obj.is_instance_of::<pyo3::types::PyString>() || obj.is_instance_of::<pyo3::types::PyBytes>()
    {
        return Err(not_a_sequence());
    }
    // A tuple, the common case, read in place (no iterator).
    if let Ok(tuple) = obj.cast::<pyo3::types::PyTuple>() {
        if tuple.len() == n {
            for (count, (slot, item)) in out.iter_mut().zip(tuple.iter_borrowed()).enumerate() {
                *slot = coordinate(&item, format_args!("{what}[{count}]"))?;
            }
            return Ok(());
        }
    }
    let mut items = obj.try_iter().map_err(|_| not_a_sequence())?;
    let mut count = 0;
    for item in &mut items {
        let item = item?;
        if count < n {
            out[count] = coordinate(&item, format_args!("{what}[{count}]"))?;
        }
        count += 1;
    }
    if count != n {
        return Err(PyValueError::new_err(format!(
            "{what} must have {n} numbers {fields}, got {count}"
        )));
    }
    Ok(())
}

/// The fields of a box of `B`: `(x1, y1, x2, y2)` or `(x1, y1, z1, x2, y2, z2)`.
fn box_fields<B: Bounds>() -> &'static str {
    if B::AXES == 3 {
        "(x1, y1, z1, x2, y2, z2)"
    } else {
        "(x1, y1, x2, y2)"
    }
}

/// A box of either dimension (an element, a query or a world), rounded by the
/// core's one rule; its validity is the core's to check.
pub(crate) fn any_box<B: Bounds>(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<B> {
    let mut coords = [0.0; 6];
    let coords = &mut coords[..2 * B::AXES];
    numbers_into(obj, what, box_fields::<B>(), coords)?;
    Ok(B::from_f64_slice(coords).expect("2 * AXES numbers"))
}

/// A box's coordinates, low corner then high corner, as Python floats.
pub(crate) fn box_coords<B: Bounds>(b: &B) -> Vec<f64> {
    let lo = (0..B::AXES).map(|axis| f64::from(b.lo(axis)));
    lo.chain((0..B::AXES).map(|axis| f64::from(b.hi(axis))))
        .collect()
}

/// A point of either dimension, rounded as the box that is just the point would be.
pub(crate) fn any_point<B: Bounds>(coords: &[f64]) -> B::Point {
    let n = coords.len();
    let mut both = [0.0f64; 6];
    both[..n].copy_from_slice(coords);
    both[n..2 * n].copy_from_slice(coords);
    B::from_f64_slice(&both[..2 * n])
        .expect("AXES coordinates")
        .low_corner()
}

/// The fields of a point of `B`: `(x, y)` or `(x, y, z)`.
fn point_fields<B: Bounds>() -> &'static str {
    if B::AXES == 3 {
        "(x, y, z)"
    } else {
        "(x, y)"
    }
}

/// Points from an array-like of shape `(n, AXES)` (any real dtype, read through
/// float64), each rounded as [`any_point`] rounds one; their validity is the
/// core's to check.
pub(crate) fn points<B: Bounds>(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<B::Point>> {
    let axes = B::AXES;
    let expected = format!(
        "an array of shape (n, {axes}) holding rows {}",
        point_fields::<B>()
    );
    let array = ndarray(obj, what, &expected)?;
    if array.len() == 0 && array.ndim() == 1 {
        return Ok(Vec::new());
    }
    if !matches!(array.dtype().kind(), b'f' | b'i' | b'u') {
        return Err(PyTypeError::new_err(format!(
            "{what} must be {expected}; got an array of dtype {}",
            dtype_text(&array)
        )));
    }
    let shape = array.shape();
    if !(shape.len() == 2 && shape[1] == axes) {
        let hint = if shape == [axes] {
            " (for one point, pass [point])"
        } else {
            ""
        };
        return Err(PyValueError::new_err(format!(
            "{what} must be {expected}; got an array of shape {}{hint}",
            shape_text(shape)
        )));
    }
    let wide = contiguous::<f64>(&array)?.cast_into::<PyArray2<f64>>()?;
    let wide = wide.try_readonly().map_err(borrow_error(what))?;
    let flat = wide
        .as_slice()
        .map_err(|_| PyValueError::new_err(format!("{what}: not a contiguous array")))?;
    Ok(flat.chunks_exact(axes).map(any_point::<B>).collect())
}

/// `n` lengths (radii): one real number for all, or a 1-D array-like of `n`
/// (a different length is the core's to refuse).
pub(crate) fn lengths(obj: &Bound<'_, PyAny>, n: usize, what: &str) -> PyResult<Vec<f64>> {
    let expected = "a number, or a 1-D array of numbers";
    let array = ndarray(obj, what, expected)?;
    if array.ndim() == 0 {
        return Ok(vec![coordinate(obj, what)?; n]);
    }
    let empty = array.len() == 0 && array.ndim() == 1;
    if !empty && !matches!(array.dtype().kind(), b'f' | b'i' | b'u') {
        return Err(PyTypeError::new_err(format!(
            "{what} must be {expected}; got an array of dtype {}",
            dtype_text(&array)
        )));
    }
    if array.ndim() != 1 {
        return Err(PyValueError::new_err(format!(
            "{what} must be {expected}; got an array of shape {}",
            shape_text(array.shape())
        )));
    }
    let wide = contiguous::<f64>(&array)?.cast_into::<PyArray1<f64>>()?;
    let wide = wide.try_readonly().map_err(borrow_error(what))?;
    Ok(wide
        .as_slice()
        .map_err(|_| PyValueError::new_err(format!("{what}: not a contiguous array")))?
        .to_vec())
}

/// A rectangle `(x1, y1, x2, y2)` (an element, a query or a world), rounded by
/// the core's one rule; its validity is the core's to check.
pub(crate) fn rect(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Rect> {
    any_box(obj, what)
}

/// A handle's raw value: a Python int. Ints that cannot be a handle (negative,
/// 2**64 or more) are a `KeyError`, like a stale handle; anything but an int a
/// `TypeError`.
fn raw_handle(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<u64> {
    obj.extract::<u64>().map_err(|e| {
        if e.is_instance_of::<PyOverflowError>(obj.py()) {
            no_such_handle(obj.py(), &obj.to_string())
        } else {
            PyTypeError::new_err(format!(
                "{what} must be an int (a handle), got {}",
                type_name(obj)
            ))
        }
    })
}

/// A handle, for the structure to check.
pub(crate) fn handle(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Handle> {
    raw_handle(obj, what).map(Handle::from_raw)
}

/// An optional handle: `None` and 0 (never a handle) omit nothing, by the
/// core's one rule ([`Handle::optional`]).
pub(crate) fn opt_handle(obj: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Option<Handle>> {
    match obj {
        Some(obj) if !obj.is_none() => raw_handle(obj, what).map(Handle::optional),
        _ => Ok(None),
    }
}

/// A cell's `(width, height)` from one number (a square) or a pair; rounded as
/// the far corner of the cell at the origin would be.
pub(crate) fn cell_size(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<(f32, f32)> {
    let [width, height] = match obj.extract::<f64>() {
        Ok(side) => [side, side],
        Err(_) => numbers(obj, what, "(width, height), or one number")?,
    };
    let cell = Rect::from_f64(0.0, 0.0, width, height);
    Ok((cell.x2, cell.y2))
}

/// The side of a square cell: one number, rounded as [`cell_size`] rounds it.
pub(crate) fn cell_side(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<f32> {
    let side = coordinate(obj, what)?;
    Ok(Rect::from_f64(0.0, 0.0, side, side).x2)
}

/// A constructor's count (`max_elements`, `columns`, ...): a Python int the
/// core can take (`u32`); the core checks its range further.
pub(crate) fn count(py: Python<'_>, value: i64, name: &str) -> PyResult<u32> {
    u32::try_from(value).map_err(|_| {
        errors::invalid_parameter(
            py,
            format!("invalid parameter {name} = {value}: expected an unsigned 32-bit integer"),
        )
    })
}

/// An int in `0..=u32::MAX` (an id).
pub(crate) fn u32_value(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<u32> {
    let out_of_range = |shown: String| {
        PyValueError::new_err(format!(
            "{what} {shown} is out of range: it must be an unsigned 32-bit integer (0 <= {what} < 2**32)"
        ))
    };
    if obj.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "{what} must be an int, got bool"
        )));
    }
    match obj.extract::<i64>() {
        Ok(v) => u32::try_from(v).map_err(|_| out_of_range(v.to_string())),
        Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => {
            Err(out_of_range(obj.to_string()))
        }
        Err(_) => Err(PyTypeError::new_err(format!(
            "{what} must be an int, got {}",
            type_name(obj)
        ))),
    }
}

/// `obj` as a numpy array: itself if it is one, else `numpy.asarray(obj)`.
fn ndarray<'py>(
    obj: &Bound<'py, PyAny>,
    what: &str,
    expected: &str,
) -> PyResult<Bound<'py, PyUntypedArray>> {
    if let Ok(array) = obj.cast::<PyUntypedArray>() {
        return Ok(array.clone());
    }
    let py = obj.py();
    let array = ASARRAY
        .import(py, "numpy", "asarray")?
        .call1((obj,))
        .map_err(|e| {
            PyTypeError::new_err(format!(
                "{what} must be {expected}; numpy cannot make an array of it: {}",
                e.value(py)
            ))
        })?;
    Ok(array.cast_into::<PyUntypedArray>()?)
}

/// `numpy.ascontiguousarray(array, dtype)`: the same values in the layout given.
fn contiguous<'py, T: numpy::Element>(
    array: &Bound<'py, PyUntypedArray>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = array.py();
    ASCONTIGUOUSARRAY
        .import(py, "numpy", "ascontiguousarray")?
        .call1((array, numpy::dtype::<T>(py)))
}

fn shape_text(shape: &[usize]) -> String {
    match shape {
        [n] => format!("({n},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn dtype_text(array: &Bound<'_, PyUntypedArray>) -> String {
    array.dtype().to_string()
}

/// Whether `array` can be read in place as `T`, C-ordered.
fn readable_in_place<'py, T: numpy::Element, D: numpy::ndarray::Dimension>(
    array: &Bound<'py, PyUntypedArray>,
) -> Option<Bound<'py, numpy::PyArray<T, D>>> {
    let typed = array.cast::<numpy::PyArray<T, D>>().ok()?;
    (typed.is_c_contiguous() && typed.is_aligned()).then(|| typed.clone())
}

fn borrow_error(what: &str) -> impl Fn(numpy::BorrowError) -> PyErr + '_ {
    move |e| PyValueError::new_err(format!("{what}: cannot read the array: {e}"))
}

/// Rectangles from an array-like of shape `(n, 4)`: a C-contiguous `float32`
/// array is read in place; `float64` is read in place too and rounded once by
/// the core's rule ([`Bounds::from_f64_slice`]); other real dtypes and nested
/// sequences go through `float64` first.
/// Generic over the box type: rows of 4 for a `Rect`, of 6 for a `Box3`.
pub(crate) enum Rects<'py, B = Rect> {
    InPlace(PyReadonlyArray2<'py, f32>),
    Rounded(Vec<B>),
}

impl<'py, B: Bounds> Rects<'py, B> {
    pub(crate) fn new(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Self> {
        let width = 2 * B::AXES;
        let rects_expected = format!(
            "an array of shape (n, {width}) holding rows {}, float32 or float64 (both read in place)",
            box_fields::<B>()
        );
        let rects_expected = rects_expected.as_str();
        let array = ndarray(obj, what, rects_expected)?;
        let shape = array.shape().to_vec();
        let empty = array.len() == 0 && array.ndim() == 1;
        if !empty && !matches!(array.dtype().kind(), b'f' | b'i' | b'u') {
            return Err(PyTypeError::new_err(format!(
                "{what} must be {rects_expected}; got an array of dtype {}",
                dtype_text(&array)
            )));
        }
        let rows_of_four = shape.len() == 2 && shape[1] == width;
        if !empty && !rows_of_four {
            let hint = if shape == [width] {
                " (for one rectangle, pass [rect])"
            } else {
                ""
            };
            return Err(PyValueError::new_err(format!(
                "{what} must be {rects_expected}; got an array of shape {}{hint}",
                shape_text(&shape)
            )));
        }
        if empty {
            return Ok(Rects::Rounded(Vec::new()));
        }
        if let Some(typed) = readable_in_place::<f32, numpy::Ix2>(&array) {
            return Ok(Rects::InPlace(
                typed.try_readonly().map_err(borrow_error(what))?,
            ));
        }
        let wide = match readable_in_place::<f64, numpy::Ix2>(&array) {
            Some(typed) => typed,
            None => contiguous::<f64>(&array)?.cast_into::<PyArray2<f64>>()?,
        };
        let wide = wide.try_readonly().map_err(borrow_error(what))?;
        let flat = wide.as_slice().map_err(|_| {
            PyValueError::new_err(format!("{what}: not a contiguous (n, {width}) array"))
        })?;
        let rects = flat
            .chunks_exact(width)
            .map(|row| B::from_f64_slice(row).expect("rows of 2 * AXES"))
            .collect();
        Ok(Rects::Rounded(rects))
    }

    /// The rows as core rectangles (float32 input without copying).
    pub(crate) fn as_rects(&self) -> PyResult<&[B]> {
        match self {
            Rects::InPlace(array) => array
                .as_slice()
                .ok()
                .and_then(|flat| bytemuck::try_cast_slice(flat).ok())
                .ok_or_else(|| {
                    PyValueError::new_err("boxes: not a contiguous float32 array of rows")
                }),
            Rects::Rounded(rects) => Ok(rects),
        }
    }
}

/// Handles from a 1-D array-like of integers.
pub(crate) enum Handles<'py> {
    Signed(PyReadonlyArray1<'py, i64>),
    Unsigned(PyReadonlyArray1<'py, u64>),
}

/// Checks that `array` is 1-D and of an integer dtype (an empty 1-D array of
/// any dtype passes); returns the dtype's kind (`b'i'` or `b'u'`).
fn integer_vector(array: &Bound<'_, PyUntypedArray>, what: &str, expected: &str) -> PyResult<u8> {
    let empty = array.len() == 0 && array.ndim() == 1;
    let kind = array.dtype().kind();
    if !empty && !matches!(kind, b'i' | b'u') {
        return Err(PyTypeError::new_err(format!(
            "{what} must be {expected}; got an array of dtype {}",
            dtype_text(array)
        )));
    }
    if array.ndim() != 1 {
        return Err(PyValueError::new_err(format!(
            "{what} must be {expected}; got an array of shape {}",
            shape_text(array.shape())
        )));
    }
    Ok(kind)
}

const HANDLES_EXPECTED: &str = "a 1-D array of handles (int64 or uint64)";

impl<'py> Handles<'py> {
    pub(crate) fn new(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Self> {
        let array = ndarray(obj, what, HANDLES_EXPECTED)?;
        let kind = integer_vector(&array, what, HANDLES_EXPECTED)?;
        if kind == b'u' {
            let typed = match readable_in_place::<u64, numpy::Ix1>(&array) {
                Some(typed) => typed,
                None => contiguous::<u64>(&array)?.cast_into::<PyArray1<u64>>()?,
            };
            Ok(Handles::Unsigned(
                typed.try_readonly().map_err(borrow_error(what))?,
            ))
        } else {
            let typed = match readable_in_place::<i64, numpy::Ix1>(&array) {
                Some(typed) => typed,
                None => contiguous::<i64>(&array)?.cast_into::<PyArray1<i64>>()?,
            };
            Ok(Handles::Signed(
                typed.try_readonly().map_err(borrow_error(what))?,
            ))
        }
    }

    /// The handles, without copying (an `int64` handle is the same bits).
    pub(crate) fn as_handles(&self) -> PyResult<&[Handle]> {
        let raw: &[u64] = match self {
            Handles::Signed(a) => a.as_slice().map(bytemuck::cast_slice),
            Handles::Unsigned(a) => a.as_slice(),
        }
        .map_err(|_| PyValueError::new_err("handles: not a contiguous 1-D array"))?;
        Ok(Handle::cast_slice(raw))
    }

    /// The `index`-th handle as the caller wrote it.
    pub(crate) fn show(&self, index: usize) -> Option<String> {
        match self {
            Handles::Signed(a) => a.as_slice().ok()?.get(index).map(|v| v.to_string()),
            Handles::Unsigned(a) => a.as_slice().ok()?.get(index).map(|v| v.to_string()),
        }
    }
}

/// Unsigned 32-bit values of a batch (the ids of an insert, the categories
/// and masks of filters): read in place from a `uint32` array, else converted
/// (and range-checked) once.
pub(crate) enum Ids<'py> {
    Borrowed(PyReadonlyArray1<'py, u32>),
    Owned(Vec<u32>),
}

const IDS_EXPECTED: &str =
    "None, an int, or a 1-D array of unsigned 32-bit integers (uint32 is read in place)";

impl<'py> Ids<'py> {
    /// `obj` for `n` rectangles: `None` gives id 0 to each, an int gives it to each.
    pub(crate) fn new(obj: Option<&Bound<'py, PyAny>>, n: usize) -> PyResult<Self> {
        match obj {
            Some(obj) if !obj.is_none() => Self::named(obj, n, ("ids", "id")),
            _ => Ok(Ids::Owned(vec![0; n])),
        }
    }

    /// `obj` for `n` items: an int (or numpy scalar) for each, or one per item.
    /// `(plural, singular)` name the argument in messages.
    pub(crate) fn named(
        obj: &Bound<'py, PyAny>,
        n: usize,
        (plural, singular): (&str, &str),
    ) -> PyResult<Self> {
        if obj.is_instance_of::<pyo3::types::PyInt>() {
            return Ok(Ids::Owned(vec![u32_value(obj, singular)?; n]));
        }
        let array = ndarray(obj, plural, IDS_EXPECTED)?;
        if array.ndim() == 0 {
            // A numpy scalar or 0-d array: one value for every item.
            return Ok(Ids::Owned(vec![u32_value(obj, singular)?; n]));
        }
        let kind = integer_vector(&array, plural, IDS_EXPECTED)?;
        if let Some(typed) = readable_in_place::<u32, numpy::Ix1>(&array) {
            return Ok(Ids::Borrowed(
                typed.try_readonly().map_err(borrow_error(plural))?,
            ));
        }
        let out_of_range = |index: usize, shown: String| {
            let err = PyValueError::new_err(format!(
                "{plural}[{index}]: {singular} {shown} is out of range: it must be an unsigned 32-bit integer (0 <= {singular} < 2**32)"
            ));
            let _ = err.value(obj.py()).setattr("index", index);
            err
        };
        let not_contiguous = || PyValueError::new_err(format!("{plural}: not contiguous"));
        let values = if kind == b'u' {
            let wide = contiguous::<u64>(&array)?.cast_into::<PyArray1<u64>>()?;
            let wide = wide.try_readonly().map_err(borrow_error(plural))?;
            wide.as_slice()
                .map_err(|_| not_contiguous())?
                .iter()
                .enumerate()
                .map(|(i, &v)| u32::try_from(v).map_err(|_| out_of_range(i, v.to_string())))
                .collect::<PyResult<Vec<u32>>>()?
        } else {
            let wide = contiguous::<i64>(&array)?.cast_into::<PyArray1<i64>>()?;
            let wide = wide.try_readonly().map_err(borrow_error(plural))?;
            wide.as_slice()
                .map_err(|_| not_contiguous())?
                .iter()
                .enumerate()
                .map(|(i, &v)| u32::try_from(v).map_err(|_| out_of_range(i, v.to_string())))
                .collect::<PyResult<Vec<u32>>>()?
        };
        Ok(Ids::Owned(values))
    }

    pub(crate) fn as_ids(&self) -> PyResult<&[u32]> {
        match self {
            Ids::Borrowed(a) => a
                .as_slice()
                .map_err(|_| PyValueError::new_err("not a contiguous uint32 array")),
            Ids::Owned(v) => Ok(v),
        }
    }
}
