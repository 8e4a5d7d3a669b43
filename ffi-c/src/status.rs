//! What a call did: the status every fallible function returns.

use std::ffi::{c_char, c_int, CStr};

use flatquad_core::{Error, ErrorKind};

use crate::boundary::guard;

/// What a call did. `QT_OK` is 0; every other value says why the call did
/// nothing. Values are explicit and never reused: a status added later gets a
/// new number.
///
/// The errors of the core (`QT_INVALID_RECT` to `QT_INVALID_BYTES`) have the
/// numbers of the core's error kinds, the table every flatquad binding maps
/// from. The core's `LengthMismatch` (14) has no status: every batch call here
/// takes one count for all its arrays, so no C call can produce it, and 14 is
/// never used for anything else.
///
/// A call that returns anything but `QT_OK` has changed nothing: not the tree,
/// not its out-parameters (the one exception, `out_bad_index` of the batch
/// calls, is written only on failure and says so), but for `QT_PANIC` from a
/// batch of moves, which finished them.
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
    /// The world rectangle of a `qt_create*` call is not finite, or has zero
    /// or negative width or height.
    QT_INVALID_WORLD = 7,
    /// A number is out of range: a construction parameter the structure
    /// refuses (`max_elements` 0, `max_depth` above `QT_MAX_DEPTH_LIMIT`, 0 or
    /// too many columns or rows, a cell size that is not positive and finite,
    /// a tight grid finer than its loose grid), an unknown `qt_kind`, a
    /// search's radius or `max_distance` that is NaN or negative, a ray whose
    /// direction is zero or not finite or whose `max_length` is NaN, negative
    /// or infinite, or an array length (or a `k`) that is impossibly large.
    QT_INVALID_PARAMETER = 8,
    /// The tree cannot hold more elements (2^32 - 1 at most).
    QT_CAPACITY_EXCEEDED = 9,
    /// The bytes given to `qt_from_bytes` are not a valid snapshot.
    QT_INVALID_BYTES = 10,
    /// flatquad panicked inside the call (a bug: please report it). No unwind
    /// crossed into C. If the call was given a `qt_tree *`, that tree is now
    /// poisoned, except after a batch of moves (`qt_move_many`,
    /// `qt_octree_move_many`): the
    /// moves were finished, every element is at its new rectangle, and the
    /// tree goes on (the one status that reports a change).
    QT_PANIC = 11,
    /// An earlier call panicked while changing this tree (or this tracker),
    /// so it may be inconsistent: every call on it now returns this. Only its
    /// destroy call still works.
    QT_POISONED = 12,
    /// `qt_validate` found a broken invariant, or the core reported an error
    /// this version of the C ABI does not know (a bug: please report it).
    QT_INTERNAL_ERROR = 13,
    /// The call is for another kind of structure than this tree (asking a
    /// grid for `qt_params`, say): `qt_kind_of` tells which it is.
    QT_WRONG_KIND = 15,
    /// The tracker's tree was destroyed: the tracker is refused instead of
    /// reading freed memory. Only `qt_tracker_destroy` still works on it.
    QT_TREE_DESTROYED = 16,
    /// The caller's buffer is smaller than the result (`qt_tracker_began`,
    /// `qt_tracker_ended`): nothing was written. Ask for the count (capacity
    /// 0) and call again with a buffer that holds it.
    QT_BUFFER_TOO_SMALL = 17,
}

pub use qt_status::*;

impl qt_status {
    /// Every status, in value order.
    pub(crate) const ALL: [qt_status; 17] = [
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
        QT_WRONG_KIND,
        QT_TREE_DESTROYED,
        QT_BUFFER_TOO_SMALL,
    ];

    /// The statuses that report a core error, each numbered as its
    /// [`ErrorKind`].
    const CORE_ERRORS: [qt_status; 9] = [
        QT_INVALID_RECT,
        QT_INVALID_POINT,
        QT_INVALID_HANDLE,
        QT_DUPLICATE_HANDLE,
        QT_INVALID_WORLD,
        QT_INVALID_PARAMETER,
        QT_CAPACITY_EXCEEDED,
        QT_INVALID_BYTES,
        QT_PANIC,
    ];

    /// The status of an error kind: the one of the same number, or
    /// `QT_INTERNAL_ERROR` for a kind no C call can meet.
    fn of_kind(kind: ErrorKind) -> qt_status {
        Self::CORE_ERRORS
            .into_iter()
            .find(|status| *status as u32 == kind as u32)
            .unwrap_or(QT_INTERNAL_ERROR)
    }

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
            QT_INVALID_PARAMETER => c"invalid parameter: a construction parameter or qt_kind the structure refuses, a search's NaN or negative radius or distance, a zero ray direction, or an impossible length",
            QT_CAPACITY_EXCEEDED => c"the tree is full (2^32 - 1 elements)",
            QT_INVALID_BYTES => c"invalid snapshot bytes",
            QT_PANIC => c"flatquad panicked inside the call (a bug; please report it)",
            QT_POISONED => c"poisoned by an earlier panic (the tree or tracker may be inconsistent); destroy it",
            QT_INTERNAL_ERROR => c"internal error: a broken invariant or an unknown core error (a bug; please report it)",
            QT_WRONG_KIND => c"wrong kind: the call is for another kind of structure (see qt_kind_of)",
            QT_TREE_DESTROYED => c"the tracker's tree was destroyed: only qt_tracker_destroy still works on it",
            QT_BUFFER_TOO_SMALL => c"the buffer is too small: ask for the count (capacity 0) and call again",
        }
    }
}

/// The one mapping from core errors to statuses (through a batch error to the
/// refused item's).
impl From<Error> for qt_status {
    fn from(error: Error) -> qt_status {
        qt_status::of_kind(error.kind())
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
    fn values_are_increasing_and_messages_distinct() {
        let mut seen = std::collections::HashSet::new();
        for pair in qt_status::ALL.windows(2) {
            assert!((pair[0] as c_int) < (pair[1] as c_int));
        }
        for status in qt_status::ALL {
            assert!(seen.insert(status.message()));
            let s = unsafe { CStr::from_ptr(qt_status_str(status as c_int)) };
            assert_eq!(s, status.message());
        }
        // 14 is the core's LengthMismatch, which no C call produces.
        for unknown in [-1, 14, 18, c_int::MAX, c_int::MIN] {
            let s = unsafe { CStr::from_ptr(qt_status_str(unknown)) };
            assert_eq!(s, c"unknown status");
        }
    }

    /// `QT_INVALID_RECT` for `InvalidRect`, and so on: the same numbers name
    /// the same errors.
    #[test]
    fn core_errors_keep_their_kinds_numbers_and_names() {
        let kinds = [
            ErrorKind::InvalidRect,
            ErrorKind::InvalidPoint,
            ErrorKind::InvalidHandle,
            ErrorKind::DuplicateHandle,
            ErrorKind::InvalidWorld,
            ErrorKind::InvalidParameter,
            ErrorKind::CapacityExceeded,
            ErrorKind::InvalidBytes,
            ErrorKind::Panic,
        ];
        assert_eq!(kinds.len(), qt_status::CORE_ERRORS.len());
        for kind in kinds {
            let status = qt_status::of_kind(kind);
            assert_eq!(status as u32, kind as u32);
            let mut screaming = String::from("QT");
            for c in kind.name().chars() {
                if c.is_ascii_uppercase() {
                    screaming.push('_');
                }
                screaming.push(c.to_ascii_uppercase());
            }
            assert_eq!(format!("{status:?}"), screaming);
        }
        assert_eq!(
            qt_status::of_kind(ErrorKind::LengthMismatch),
            QT_INTERNAL_ERROR
        );
    }

    #[test]
    fn batch_errors_map_to_their_root() {
        use flatquad_core::SpatialIndex;
        let bad = flatquad_core::Handle::from_raw(7);
        let mut tree =
            flatquad_core::Quadtree::new(flatquad_core::Rect::new(0.0, 0.0, 1.0, 1.0), 8, 4)
                .unwrap();
        let error = tree.remove_many(&[bad]).unwrap_err();
        assert_eq!(error.batch_index(), Some(0));
        assert_eq!(qt_status::from(error), QT_INVALID_HANDLE);
    }
}
