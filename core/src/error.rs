//! The one error type of the crate.

use crate::{Box3, Handle, Rect};

/// Why a call was refused. A call that returns an error has changed nothing.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// A coordinate is NaN or infinite, or the rectangle is inverted (`x1 > x2` or `y1 > y2`).
    InvalidRect(Rect),
    /// A point coordinate is NaN or infinite.
    InvalidPoint {
        /// The point's x.
        x: f32,
        /// The point's y.
        y: f32,
    },
    /// A coordinate of a 3D box is NaN or infinite, or the box is inverted
    /// (kind [`ErrorKind::InvalidRect`]).
    InvalidBox(Box3),
    /// A coordinate of a 3D point is NaN or infinite (kind [`ErrorKind::InvalidPoint`]).
    InvalidPoint3 {
        /// The point's x.
        x: f32,
        /// The point's y.
        y: f32,
        /// The point's z.
        z: f32,
    },
    /// The world box cannot hold an octree: not finite, or of zero or negative
    /// extent on an axis (kind [`ErrorKind::InvalidWorld`]).
    InvalidWorldBox(Box3),
    /// The handle names no live element: never issued by this structure, already
    /// removed, or cleared.
    InvalidHandle(Handle),
    /// The same handle appears twice in one batch removal.
    DuplicateHandle(Handle),
    /// Two slices of one batch call have different lengths.
    LengthMismatch {
        /// Length of the first slice (rectangles or handles).
        expected: usize,
        /// Length of the slice that should have matched it.
        found: usize,
    },
    /// The world rectangle cannot hold a tree: not finite, or of zero or negative
    /// width or height, or too wide for `f32`.
    InvalidWorld(Rect),
    /// A construction parameter is out of range.
    InvalidParameter {
        /// The parameter's name.
        name: &'static str,
        /// What the parameter must satisfy.
        expected: &'static str,
        /// The value given (counts are exact; sizes are the `f32` given).
        found: f64,
    },
    /// A distance argument of a search is out of range: a radius or a
    /// maximum distance that is NaN or negative, a ray's `max_length` that is
    /// NaN, negative or infinite (kind [`ErrorKind::InvalidParameter`]).
    InvalidDistance {
        /// The argument's name (`"radius"`, `"max_distance"`, `"max_length"`).
        name: &'static str,
        /// The value given.
        found: f64,
    },
    /// A 2D ray's direction is zero or not finite (kind
    /// [`ErrorKind::InvalidParameter`]).
    InvalidDirection {
        /// The direction's x.
        dx: f32,
        /// The direction's y.
        dy: f32,
    },
    /// A 3D ray's direction is zero or not finite (kind
    /// [`ErrorKind::InvalidParameter`]).
    InvalidDirection3 {
        /// The direction's x.
        dx: f32,
        /// The direction's y.
        dy: f32,
        /// The direction's z.
        dz: f32,
    },
    /// A box cast's motion is not finite (kind [`ErrorKind::InvalidParameter`]).
    InvalidMotion {
        /// The motion's x.
        dx: f32,
        /// The motion's y.
        dy: f32,
        /// The motion's z (3D only).
        dz: Option<f32>,
    },
    /// The structure cannot hold more elements or element links (2^32 - 1 of each).
    CapacityExceeded,
    /// Bytes given to [`SpatialIndex::from_bytes`](crate::SpatialIndex::from_bytes) are not
    /// a consistent snapshot; the reason says what is wrong.
    InvalidBytes(String),
    /// A panic inside flatquad (a bug, never bad input: please report it)
    /// stopped a batch of moves (`update_many`, `par_update_many`) halfway.
    /// The move was then finished from its arguments: every element stands
    /// at its new box, as if the call had succeeded, in a structure rebuilt
    /// from the elements. The string is the panic's message.
    Panicked(String),
    /// An item of a batch call was refused; `index` is its position in the batch.
    InBatch {
        /// Position of the refused item.
        index: usize,
        /// Why it was refused.
        error: Box<Error>,
    },
}

/// What kind of error an [`Error`] is, looking through [`Error::InBatch`]: the
/// one table every binding maps from (C statuses, Python exception classes,
/// Node error codes). The values are stable and never reused; the C ABI's
/// `qt_status` has the same numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
#[non_exhaustive]
pub enum ErrorKind {
    /// [`Error::InvalidRect`].
    InvalidRect = 3,
    /// [`Error::InvalidPoint`].
    InvalidPoint = 4,
    /// [`Error::InvalidHandle`].
    InvalidHandle = 5,
    /// [`Error::DuplicateHandle`].
    DuplicateHandle = 6,
    /// [`Error::InvalidWorld`].
    InvalidWorld = 7,
    /// [`Error::InvalidParameter`], [`Error::InvalidDistance`],
    /// [`Error::InvalidDirection`], [`Error::InvalidDirection3`], [`Error::InvalidMotion`].
    InvalidParameter = 8,
    /// [`Error::CapacityExceeded`].
    CapacityExceeded = 9,
    /// [`Error::InvalidBytes`].
    InvalidBytes = 10,
    /// [`Error::Panicked`].
    Panic = 11,
    /// [`Error::LengthMismatch`].
    LengthMismatch = 14,
}

impl ErrorKind {
    /// The kind's name, as the bindings show it (`"InvalidRect"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::InvalidRect => "InvalidRect",
            ErrorKind::InvalidPoint => "InvalidPoint",
            ErrorKind::InvalidHandle => "InvalidHandle",
            ErrorKind::DuplicateHandle => "DuplicateHandle",
            ErrorKind::InvalidWorld => "InvalidWorld",
            ErrorKind::InvalidParameter => "InvalidParameter",
            ErrorKind::CapacityExceeded => "CapacityExceeded",
            ErrorKind::InvalidBytes => "InvalidBytes",
            ErrorKind::Panic => "Panic",
            ErrorKind::LengthMismatch => "LengthMismatch",
        }
    }

    /// Whether the caller gave a bad value (as opposed to a full structure):
    /// bindings raise their "bad value" error (Python `ValueError`, JS
    /// `RangeError`) for these.
    pub fn is_bad_value(self) -> bool {
        !matches!(self, ErrorKind::CapacityExceeded | ErrorKind::Panic)
    }
}

impl Error {
    /// What kind of error this is, looking through [`Error::InBatch`].
    pub fn kind(&self) -> ErrorKind {
        match self.root() {
            Error::InvalidRect(_) | Error::InvalidBox(_) => ErrorKind::InvalidRect,
            Error::InvalidPoint { .. } | Error::InvalidPoint3 { .. } => ErrorKind::InvalidPoint,
            Error::InvalidHandle(_) => ErrorKind::InvalidHandle,
            Error::DuplicateHandle(_) => ErrorKind::DuplicateHandle,
            Error::LengthMismatch { .. } => ErrorKind::LengthMismatch,
            Error::InvalidWorld(_) | Error::InvalidWorldBox(_) => ErrorKind::InvalidWorld,
            Error::InvalidParameter { .. }
            | Error::InvalidDistance { .. }
            | Error::InvalidDirection { .. }
            | Error::InvalidDirection3 { .. }
            | Error::InvalidMotion { .. } => ErrorKind::InvalidParameter,
            Error::CapacityExceeded => ErrorKind::CapacityExceeded,
            Error::InvalidBytes(_) => ErrorKind::InvalidBytes,
            Error::Panicked(_) => ErrorKind::Panic,
            Error::InBatch { .. } => unreachable!("root() looks through InBatch"),
        }
    }

    /// The position of the refused item of a batch call, if this came from one.
    pub fn batch_index(&self) -> Option<usize> {
        match self {
            Error::InBatch { index, .. } => Some(*index),
            _ => None,
        }
    }

    /// The error itself, looking through [`Error::InBatch`].
    pub fn root(&self) -> &Error {
        match self {
            Error::InBatch { error, .. } => error.root(),
            other => other,
        }
    }

    pub(crate) fn in_batch(self, index: usize) -> Error {
        Error::InBatch {
            index,
            error: Box::new(self),
        }
    }

    /// This error of a block of a batch that began at `start`: its position
    /// counted from the batch's start.
    pub(crate) fn batch_from(self, start: usize) -> Error {
        match self {
            Error::InBatch { index, error } => Error::InBatch {
                index: start + index,
                error,
            },
            other => other,
        }
    }
}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Error::InvalidRect(r) => write!(
                f,
                "invalid rectangle {r}: coordinates must be finite with x1 <= x2 and y1 <= y2"
            ),
            Error::InvalidPoint { x, y } => {
                write!(f, "invalid point ({x}, {y}): coordinates must be finite")
            }
            Error::InvalidBox(b) => write!(
                f,
                "invalid box {b}: coordinates must be finite with x1 <= x2, y1 <= y2 and z1 <= z2"
            ),
            Error::InvalidPoint3 { x, y, z } => {
                write!(f, "invalid point ({x}, {y}, {z}): coordinates must be finite")
            }
            Error::InvalidWorldBox(b) => write!(
                f,
                "invalid world {b}: it must be finite with x1 < x2, y1 < y2 and z1 < z2"
            ),
            Error::InvalidHandle(h) => write!(
                f,
                "handle {h} names no element of this index (never issued, removed, or cleared)"
            ),
            Error::DuplicateHandle(h) => write!(f, "handle {h} appears twice in one batch"),
            Error::LengthMismatch { expected, found } => write!(
                f,
                "batch lengths differ: {expected} items in the first slice, {found} in the second"
            ),
            Error::InvalidWorld(r) => write!(
                f,
                "invalid world {r}: it must be finite with x1 < x2 and y1 < y2, and its width and height finite"
            ),
            Error::InvalidParameter {
                name,
                expected,
                found,
            } => write!(f, "invalid parameter {name} = {found}: expected {expected}"),
            Error::InvalidDistance { name, found } => write!(
                f,
                "invalid {name} {found}: it must be a number >= 0{}",
                if *name == "max_length" { ", finite" } else { "" }
            ),
            Error::InvalidDirection { dx, dy } => write!(
                f,
                "invalid ray direction ({dx}, {dy}): it must be finite and not zero"
            ),
            Error::InvalidDirection3 { dx, dy, dz } => write!(
                f,
                "invalid ray direction ({dx}, {dy}, {dz}): it must be finite and not zero"
            ),
            Error::InvalidMotion { dx, dy, dz: None } => write!(
                f,
                "invalid box-cast motion ({dx}, {dy}): it must be finite"
            ),
            Error::InvalidMotion {
                dx,
                dy,
                dz: Some(dz),
            } => write!(
                f,
                "invalid box-cast motion ({dx}, {dy}, {dz}): it must be finite"
            ),
            Error::CapacityExceeded => write!(f, "the index is full (2^32 - 1 elements or links)"),
            Error::InvalidBytes(reason) => write!(f, "invalid snapshot bytes: {reason}"),
            Error::Panicked(message) => write!(
                f,
                "internal error in flatquad (a panic, please report it): {message}; \
                 the move was finished: every element is at its new box"
            ),
            Error::InBatch { index, error } => write!(f, "item {index} of the batch: {error}"),
        }
    }
}

impl std::error::Error for Error {}
