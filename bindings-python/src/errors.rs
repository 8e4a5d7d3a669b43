//! Core errors as Python exceptions: `ValueError` for bad values, `KeyError` for
//! handles that name no element, each with a message naming the bad value (and,
//! for a batch, the argument and position: `rects[3]: ...`).

use flatquad::Error;
use pyo3::exceptions::{PyKeyError, PyOverflowError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

/// Names of the arguments of the call that failed, so that a message can say
/// `rects[3]` or `ids has 2 items but rects has 3`.
#[derive(Clone, Copy)]
pub(crate) struct Args {
    /// The argument holding rectangles (`rect`, `rects`).
    pub rects: &'static str,
    /// The argument holding handles (`handle`, `handles`, `omit`).
    pub handles: &'static str,
    /// For [`Error::LengthMismatch`]: the first and the second slice.
    pub lengths: (&'static str, &'static str),
}

impl Args {
    /// A call on one rectangle and/or one handle.
    pub const SINGLE: Args = Args {
        rects: "rect",
        handles: "handle",
        lengths: ("", ""),
    };
    /// A call that also takes `omit`, the handle left out of a query.
    pub const QUERY: Args = Args {
        rects: "rect",
        handles: "omit",
        lengths: ("", ""),
    };
}

/// How to show the `index`-th handle of a batch as the caller gave it (an
/// `int64` array may hold a negative value, which the core saw as a huge `u64`).
pub(crate) type HandleDisplay<'a> = &'a dyn Fn(usize) -> Option<String>;

/// The Python exception for `error`.
pub(crate) fn to_py(py: Python<'_>, error: Error, args: Args) -> PyErr {
    to_py_shown(py, error, args, &|_| None)
}

/// As [`to_py`], showing batch handles with `show`.
pub(crate) fn to_py_shown(py: Python<'_>, error: Error, args: Args, show: HandleDisplay) -> PyErr {
    match error {
        Error::InBatch { index, error } => {
            let root = error.root().clone();
            let name = match root {
                Error::InvalidHandle(_) | Error::DuplicateHandle(_) => args.handles,
                _ => args.rects,
            };
            let message = match (&root, show(index)) {
                (Error::InvalidHandle(_), Some(value)) => {
                    format!(
                        "handle {value} names no element of this tree (never issued, removed, or cleared)"
                    )
                }
                (Error::DuplicateHandle(_), Some(value)) => {
                    format!("handle {value} appears twice in one batch")
                }
                _ => root.to_string(),
            };
            let err = exception(&root, format!("{name}[{index}]: {message}"));
            // The position, for programs that want to drop or fix the bad item.
            let _ = err.value(py).setattr("index", index);
            err
        }
        Error::LengthMismatch { expected, found } => {
            let (first, second) = args.lengths;
            PyValueError::new_err(format!(
                "{second} has {found} items but {first} has {expected}: they must be the same length"
            ))
        }
        other => {
            let message = other.to_string();
            exception(&other, message)
        }
    }
}

fn exception(error: &Error, message: String) -> PyErr {
    match error {
        Error::InvalidHandle(_) | Error::DuplicateHandle(_) => PyKeyError::new_err(message),
        Error::CapacityExceeded => PyOverflowError::new_err(message),
        Error::InvalidRect(_)
        | Error::InvalidPoint { .. }
        | Error::InvalidWorld(_)
        | Error::InvalidParameter { .. }
        | Error::LengthMismatch { .. }
        | Error::InvalidBytes(_)
        | Error::InBatch { .. } => PyValueError::new_err(message),
        _ => PyRuntimeError::new_err(message),
    }
}

/// The `KeyError` for a Python value that cannot be a handle at all (negative,
/// too large), worded as the core words a stale handle.
pub(crate) fn no_such_handle(shown: &str) -> PyErr {
    PyKeyError::new_err(format!(
        "handle {shown} names no element of this tree (never issued, removed, or cleared)"
    ))
}
