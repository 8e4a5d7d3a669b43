//! Core errors as Python exceptions, by one table over the core's
//! [`ErrorKind`]: `ValueError` for bad values, `KeyError` for handles that name
//! no element, `OverflowError` for a full structure. Each exception carries the
//! kind's name as `err.kind` and, for an item of a batch, its position as
//! `err.index`; the message names the bad value (and, for a batch, the argument
//! and position: `rects[3]: ...`).

use flatquad::{Error, ErrorKind};
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
    /// A call on one rectangle and/or one handle (or none: a constructor).
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

/// The Python exception for a core error of `kind`: the one table.
fn exception(py: Python<'_>, kind: ErrorKind, message: String) -> PyErr {
    let err = match kind {
        ErrorKind::InvalidHandle | ErrorKind::DuplicateHandle => PyKeyError::new_err(message),
        ErrorKind::CapacityExceeded => PyOverflowError::new_err(message),
        // A move a panic stopped, finished: the structure is whole, not poisoned.
        ErrorKind::Panic => PyRuntimeError::new_err(message),
        ErrorKind::InvalidRect
        | ErrorKind::InvalidPoint
        | ErrorKind::InvalidWorld
        | ErrorKind::InvalidParameter
        | ErrorKind::InvalidBytes
        | ErrorKind::LengthMismatch => PyValueError::new_err(message),
        // `ErrorKind` is non-exhaustive: a kind added later is still raised by
        // what the core says it is.
        _ if kind.is_bad_value() => PyValueError::new_err(message),
        _ => PyRuntimeError::new_err(message),
    };
    // The kind's name, as the shared test vectors and the other bindings name it.
    let _ = err.value(py).setattr("kind", kind.name());
    err
}

/// The Python exception for `error`.
pub(crate) fn to_py(py: Python<'_>, error: Error, args: Args) -> PyErr {
    to_py_shown(py, error, args, &|_| None)
}

/// As [`to_py`], showing batch handles with `show`.
pub(crate) fn to_py_shown(py: Python<'_>, error: Error, args: Args, show: HandleDisplay) -> PyErr {
    let kind = error.kind();
    let root = error.root();
    let message = match (root, error.batch_index()) {
        (Error::LengthMismatch { expected, found }, _) => {
            let (first, second) = args.lengths;
            format!(
                "{second} has {found} items but {first} has {expected}: they must be the same length"
            )
        }
        (_, None) => root.to_string(),
        (_, Some(index)) => {
            let name = match kind {
                ErrorKind::InvalidHandle | ErrorKind::DuplicateHandle => args.handles,
                _ => args.rects,
            };
            let message = match (root, show(index)) {
                (Error::InvalidHandle(_), Some(value)) => no_such_handle_message(&value),
                (Error::DuplicateHandle(_), Some(value)) => {
                    format!("handle {value} appears twice in one batch")
                }
                _ => root.to_string(),
            };
            format!("{name}[{index}]: {message}")
        }
    };
    let err = exception(py, kind, message);
    if let Some(index) = error.batch_index() {
        // The position, for programs that want to drop or fix the bad item.
        let _ = err.value(py).setattr("index", index);
    }
    err
}

fn no_such_handle_message(shown: &str) -> String {
    format!("handle {shown} names no element of this index (never issued, removed, or cleared)")
}

/// The `KeyError` for a Python value that cannot be a handle at all (negative,
/// too large), worded as the core words a stale handle.
pub(crate) fn no_such_handle(py: Python<'_>, shown: &str) -> PyErr {
    exception(py, ErrorKind::InvalidHandle, no_such_handle_message(shown))
}

/// A `ValueError` of kind `InvalidParameter` for a parameter the binding
/// refuses before the core sees it (a count Python cannot pass as `u32`, a mix
/// of exclusive parameters).
pub(crate) fn invalid_parameter(py: Python<'_>, message: String) -> PyErr {
    exception(py, ErrorKind::InvalidParameter, message)
}
