//! Errors as JavaScript sees them: the right class (`TypeError`, `RangeError` or
//! `Error`), a stable `code`, a message that names the bad value, and for an item
//! of a batch call its position as `index`.

use napi::bindgen_prelude::{JsError, JsRangeError, JsTypeError};
use napi::{sys, Status, Unknown};

/// The `code` property of every error this package throws.
pub(crate) mod code {
    /// An argument of the wrong JavaScript type (Node's own code for it).
    pub const INVALID_ARG_TYPE: &str = "ERR_INVALID_ARG_TYPE";
    /// A number that is not an integer, or outside the range an argument takes
    /// (Node's own code for it).
    pub const OUT_OF_RANGE: &str = "ERR_OUT_OF_RANGE";
    /// An argument of the right type whose value cannot be used (Node's own
    /// code for it): two `out` arrays sharing memory.
    pub const INVALID_ARG_VALUE: &str = "ERR_INVALID_ARG_VALUE";
    /// A typed array of the wrong length, or two batch arrays that do not match.
    pub const BAD_LENGTH: &str = "ERR_FLATQUAD_BAD_LENGTH";
    /// A NaN or infinite coordinate, or an inverted rectangle.
    pub const INVALID_RECT: &str = "ERR_FLATQUAD_INVALID_RECT";
    /// A NaN or infinite point coordinate.
    pub const INVALID_POINT: &str = "ERR_FLATQUAD_INVALID_POINT";
    /// A world rectangle no index can be built on.
    pub const INVALID_WORLD: &str = "ERR_FLATQUAD_INVALID_WORLD";
    /// A construction option out of range (`maxElements`, `columns`, `cellSize`, ...),
    /// or a search argument the core refuses (a radius, `maxDistance`, a ray).
    pub const INVALID_OPTION: &str = "ERR_FLATQUAD_INVALID_OPTION";
    /// A handle that names no element of the index (never issued, removed, cleared).
    pub const INVALID_HANDLE: &str = "ERR_FLATQUAD_INVALID_HANDLE";
    /// The same handle twice in one `removeMany`.
    pub const DUPLICATE_HANDLE: &str = "ERR_FLATQUAD_DUPLICATE_HANDLE";
    /// The index holds 2^32 - 1 elements or links.
    pub const CAPACITY: &str = "ERR_FLATQUAD_CAPACITY";
    /// Bytes given to `fromBytes` are not a snapshot.
    pub const INVALID_BYTES: &str = "ERR_FLATQUAD_INVALID_BYTES";
    /// A call that changes the index, made from inside one of its own callbacks.
    pub const BUSY: &str = "ERR_FLATQUAD_BUSY";
    /// A Rust panic was caught (a bug in flatquad: please report it).
    pub const PANIC: &str = "ERR_FLATQUAD_PANIC";
    /// The index was left unusable by a panic during an earlier call.
    pub const POISONED: &str = "ERR_FLATQUAD_POISONED";
    /// Any other error of the core.
    pub const OTHER: &str = "ERR_FLATQUAD";
}

/// Which JavaScript error constructor a [`Fail`] is thrown with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    Error,
    Type,
    Range,
}

/// Why a call failed, before it is thrown.
pub(crate) enum Fail {
    /// An error of ours, built and thrown by [`Fail::throw`].
    Raise {
        class: Class,
        code: &'static str,
        message: String,
        index: Option<usize>,
    },
    /// An exception JavaScript already raised (a callback threw, or Node-API
    /// refused a call): passed on untouched, so the caller catches the very
    /// object that was thrown.
    Js(napi::Error),
}

/// The result of every conversion and every call on an index.
pub(crate) type Outcome<T> = Result<T, Fail>;

impl From<napi::Error> for Fail {
    fn from(error: napi::Error) -> Fail {
        Fail::Js(error)
    }
}

impl Fail {
    pub(crate) fn new(class: Class, code: &'static str, message: impl Into<String>) -> Fail {
        Fail::Raise {
            class,
            code,
            message: message.into(),
            index: None,
        }
    }

    /// A `TypeError` with code `ERR_INVALID_ARG_TYPE`.
    pub(crate) fn wrong_type(message: impl Into<String>) -> Fail {
        Fail::new(Class::Type, code::INVALID_ARG_TYPE, message)
    }

    /// A `RangeError` with code `ERR_OUT_OF_RANGE`.
    pub(crate) fn out_of_range(message: impl Into<String>) -> Fail {
        Fail::new(Class::Range, code::OUT_OF_RANGE, message)
    }

    /// A `RangeError` with code `ERR_FLATQUAD_BAD_LENGTH`.
    pub(crate) fn bad_length(message: impl Into<String>) -> Fail {
        Fail::new(Class::Range, code::BAD_LENGTH, message)
    }

    /// Marks the error as about item `index` of a batch: sets the `index`
    /// property and says so in the message.
    pub(crate) fn at(self, index: usize) -> Fail {
        match self {
            Fail::Raise {
                class,
                code,
                message,
                ..
            } => Fail::Raise {
                class,
                code,
                message: format!("item {index} of the batch: {message}"),
                index: Some(index),
            },
            js => js,
        }
    }

    /// Sets the `index` property only (the message already names the item).
    pub(crate) fn index(self, index: usize) -> Fail {
        match self {
            Fail::Raise {
                class,
                code,
                message,
                ..
            } => Fail::Raise {
                class,
                code,
                message,
                index: Some(index),
            },
            js => js,
        }
    }

    /// The JavaScript form of an error of the core: one total `match` over the
    /// core's [`flatquad::ErrorKind`] (the table every binding maps from) gives
    /// the class and the code; the core's message is kept as it is (it already
    /// says "item i of the batch: ..." for an item of a batch), and the batch
    /// position, if any, becomes the `index` property.
    pub(crate) fn core(error: &flatquad::Error) -> Fail {
        use flatquad::ErrorKind as K;
        let (class, code) = match error.kind() {
            K::InvalidRect => (Class::Range, code::INVALID_RECT),
            K::InvalidPoint => (Class::Range, code::INVALID_POINT),
            K::InvalidHandle => (Class::Error, code::INVALID_HANDLE),
            K::DuplicateHandle => (Class::Error, code::DUPLICATE_HANDLE),
            K::LengthMismatch => (Class::Range, code::BAD_LENGTH),
            K::InvalidWorld => (Class::Range, code::INVALID_WORLD),
            K::InvalidParameter => (Class::Range, code::INVALID_OPTION),
            K::CapacityExceeded => (Class::Range, code::CAPACITY),
            K::InvalidBytes => (Class::Error, code::INVALID_BYTES),
            // A move a panic stopped, finished: the index is whole, not poisoned.
            K::Panic => (Class::Error, code::PANIC),
            // `ErrorKind` is `#[non_exhaustive]`: a kind added to the core later
            // is thrown with the generic code until it gets its own here.
            _ => (Class::Error, code::OTHER),
        };
        Fail::Raise {
            class,
            code,
            message: error.to_string(),
            index: error.batch_index(),
        }
    }

    /// Puts `prefix: ` before the message (which argument it was about).
    pub(crate) fn context(self, prefix: impl std::fmt::Display) -> Fail {
        match self {
            Fail::Raise {
                class,
                code,
                message,
                index,
            } => Fail::Raise {
                class,
                code,
                message: format!("{prefix}: {message}"),
                index,
            },
            js => js,
        }
    }

    /// Throws the error into `env` and returns the marker napi-rs expects for
    /// "an exception is pending": the generated glue then throws nothing more.
    pub(crate) fn throw(self, env: sys::napi_env) -> napi::Error {
        match self.into_value(env) {
            Ok((value, message)) => {
                // SAFETY: `env` is the live environment of the current call, on its thread.
                unsafe { sys::napi_throw(env, value) };
                napi::Error::new(Status::PendingException, message)
            }
            Err(error) => error,
        }
    }

    /// The error a promise is rejected with: the same object [`Fail::throw`]
    /// throws, held by a reference (napi-rs rejects with the very value). An
    /// exception JavaScript raised meanwhile (a callback or getter threw while
    /// the arguments were read: any value, an `Error` or not) is taken off
    /// `env` first, so the call itself throws nothing and the promise rejects
    /// with that value. Nothing here runs JavaScript (no coercion to a string).
    pub(crate) fn rejection(self, env: sys::napi_env) -> napi::Error {
        let (mut pending, mut value) = (false, std::ptr::null_mut());
        // SAFETY: `env` is the live environment of the current call, on its thread.
        let taken = unsafe {
            sys::napi_is_exception_pending(env, &mut pending) == sys::Status::napi_ok
                && pending
                && sys::napi_get_and_clear_last_exception(env, &mut value) == sys::Status::napi_ok
        };
        if !taken || value.is_null() {
            value = match self.into_value(env) {
                Ok((value, _)) => value,
                Err(error) => return error,
            };
        }
        // SAFETY: `value` is a live value of the current call.
        napi::Error::from_unknown_without_coercion(unsafe {
            Unknown::from_raw_unchecked(env, value)
        })
    }

    /// The error object, not thrown yet, and its message; an exception
    /// JavaScript already raised is the `Err`.
    fn into_value(self, env: sys::napi_env) -> Result<(sys::napi_value, String), napi::Error> {
        let (class, code, message, index) = match self {
            Fail::Js(error) => return Err(error),
            Fail::Raise {
                class,
                code,
                message,
                index,
            } => (class, code, message, index),
        };
        let error = napi::Error::new(code.to_owned(), message.clone());
        // SAFETY: `env` is the live environment of the current call, on its thread.
        let value = unsafe {
            match class {
                Class::Error => JsError::from(error).into_value(env),
                Class::Type => JsTypeError::from(error).into_value(env),
                Class::Range => JsRangeError::from(error).into_value(env),
            }
        };
        if value.is_null() {
            // The environment is shutting down: nothing can receive the error.
            return Err(napi::Error::new(Status::GenericFailure, message));
        }
        if let Some(index) = index {
            let mut number = std::ptr::null_mut();
            // SAFETY: as above; `value` is the error object just created. A failure
            // only leaves the property unset.
            unsafe {
                if sys::napi_create_double(env, index as f64, &mut number) == sys::Status::napi_ok {
                    sys::napi_set_named_property(env, value, c"index".as_ptr(), number);
                }
            }
        }
        Ok((value, message))
    }
}
