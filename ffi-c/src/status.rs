//! What a call did: the status every fallible function returns.

use std::ffi::{c_char, c_int, CStr};

use flatquad_core::Error;

use crate::boundary::guard;

/// What a call did. `QT_OK` is 0; every other value says why the call did
/// nothing. Values are explicit and never reused: a status added later gets a
/// new number.
///
/// A call that returns anything but `QT_OK` has changed nothing: not the tree,
/// not its out-parameters (the one exception, `out_bad_index` of the batch
/// calls, is written only on failure and says so).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum qt_status {
    /// Success.
    QT_OK = 0,
    /// Not an error: a callback returned nonzero and the walk stopped early.
    QT_STOPPED = 1,
    /// A pointer that must not be NULL was NULL (or a buffer pointer was NULL
    /// with a nonzero length).
    QT_NULL_ARGUMENT = 2,
    /// A rectangle has a NaN or infinite coordinate, or is inverted
    /// (`x1 > x2` or `y1 > y2`).
    QT_INVALID_RECT = 3,
    /// A point has a NaN or infinite coordinate.
    QT_INVALID_POINT = 4,
    /// A handle names no element of this tree: never issued by it, removed,
    /// or cleared.
    QT_INVALID_HANDLE = 5,
    /// The same handle appears twice in one `qt_remove_many`.
    QT_DUPLICATE_HANDLE = 6,
    /// The world rectangle of `qt_create` is not finite, or has zero or
    /// negative width or height.
    QT_INVALID_WORLD = 7,
    /// A number is out of range: `max_elements` is 0, `max_depth` is above
    /// `QT_MAX_DEPTH_LIMIT`, or an array length is impossibly large.
    QT_INVALID_PARAMETER = 8,
    /// The tree cannot hold more elements (2^32 - 1 at most).
    QT_CAPACITY_EXCEEDED = 9,
    /// The bytes given to `qt_from_bytes` are not a valid snapshot.
    QT_INVALID_BYTES = 10,
    /// flatquad panicked inside the call (a bug: please report it). No unwind
    /// crossed into C. If the call was given a `qt_tree *`, that tree is now
    /// poisoned.
    QT_PANIC = 11,
    /// An earlier call panicked while changing this tree, so it may be
    /// inconsistent: every call on it now returns this. Only `qt_destroy`
    /// still works.
    QT_POISONED = 12,
    /// `qt_validate` found a broken invariant, or the core reported an error
    /// this version of the C ABI does not know (a bug: please report it).
    QT_INTERNAL_ERROR = 13,
}

pub use qt_status::*;

impl qt_status {
    /// Every status, in value order.
    pub(crate) const ALL: [qt_status; 14] = [
        QT_OK,
        QT_STOPPED,
        QT_NULL_ARGUMENT,
        QT_INVALID_RECT,
        QT_INVALID_POINT,
        QT_INVALID_HANDLE,
        QT_DUPLICATE_HANDLE,
        QT_INVALID_WORLD,
        QT_INVALID_PARAMETER,
        QT_CAPACITY_EXCEEDED,
        QT_INVALID_BYTES,
        QT_PANIC,
        QT_POISONED,
        QT_INTERNAL_ERROR,
    ];

    fn message(self) -> &'static CStr {
        match self {
            QT_OK => c"ok",
            QT_STOPPED => c"stopped: a callback returned nonzero",
            QT_NULL_ARGUMENT => c"a required pointer argument was NULL",
            QT_INVALID_RECT => c"invalid rectangle: coordinates must be finite with x1 <= x2 and y1 <= y2",
            QT_INVALID_POINT => c"invalid point: coordinates must be finite",
            QT_INVALID_HANDLE => c"invalid handle: it names no element of this tree (never issued, removed, or cleared)",
            QT_DUPLICATE_HANDLE => c"the same handle appears twice in one batch",
            QT_INVALID_WORLD => c"invalid world: it must be finite with x1 < x2 and y1 < y2",
            QT_INVALID_PARAMETER => c"invalid parameter: max_elements must be at least 1, max_depth at most QT_MAX_DEPTH_LIMIT, lengths possible",
            QT_CAPACITY_EXCEEDED => c"the tree is full (2^32 - 1 elements)",
            QT_INVALID_BYTES => c"invalid snapshot bytes",
            QT_PANIC => c"flatquad panicked inside the call (a bug; please report it)",
            QT_POISONED => c"the tree is poisoned by an earlier panic; destroy it",
            QT_INTERNAL_ERROR => c"internal error: a broken invariant or an unknown core error (a bug; please report it)",
        }
    }
}

impl From<Error> for qt_status {
    fn from(error: Error) -> qt_status {
        match error.root() {
            Error::InvalidRect(_) => QT_INVALID_RECT,
            Error::InvalidPoint { .. } => QT_INVALID_POINT,
            Error::InvalidHandle(_) => QT_INVALID_HANDLE,
            Error::DuplicateHandle(_) => QT_DUPLICATE_HANDLE,
            Error::InvalidWorld(_) => QT_INVALID_WORLD,
            Error::InvalidParameter { .. } => QT_INVALID_PARAMETER,
            Error::CapacityExceeded => QT_CAPACITY_EXCEEDED,
            Error::InvalidBytes(_) => QT_INVALID_BYTES,
            // A C call passes one length for every array, so slices never
            // differ; anything else is a core error this layer does not know.
            _ => QT_INTERNAL_ERROR,
        }
    }
}

/// A short English message for a status: a static string, never NULL, never to
/// be freed. Takes an `int` so that any value is safe to pass; values that are
/// no `qt_status` give "unknown status".
#[no_mangle]
pub extern "C" fn qt_status_str(status: c_int) -> *const c_char {
    guard(|| {
        qt_status::ALL
            .iter()
            .find(|s| **s as c_int == status)
            .map_or(c"unknown status", |s| s.message())
            .as_ptr()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_dense_and_messages_distinct() {
        let mut seen = std::collections::HashSet::new();
        for (value, status) in qt_status::ALL.iter().enumerate() {
            assert_eq!(*status as usize, value);
            assert!(seen.insert(status.message()));
            let s = unsafe { CStr::from_ptr(qt_status_str(value as c_int)) };
            assert_eq!(s, status.message());
        }
        for unknown in [-1, qt_status::ALL.len() as c_int, c_int::MAX, c_int::MIN] {
            let s = unsafe { CStr::from_ptr(qt_status_str(unknown)) };
            assert_eq!(s, c"unknown status");
        }
    }

    #[test]
    fn batch_errors_map_to_their_root() {
        let bad = flatquad_core::Handle::from_raw(7);
        let mut tree =
            flatquad_core::Quadtree::new(flatquad_core::Rect::new(0.0, 0.0, 1.0, 1.0), 8, 4)
                .unwrap();
        let error = tree.remove_many(&[bad]).unwrap_err();
        assert!(matches!(error, Error::InBatch { index: 0, .. }));
        assert_eq!(qt_status::from(error), QT_INVALID_HANDLE);
    }
}
