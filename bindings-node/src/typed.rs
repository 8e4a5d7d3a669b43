//! Typed arrays handed back to JavaScript.
//!
//! napi-rs's own arrays (`Float64Array::new(vec)`) give V8 the `Vec` as an
//! external buffer: a finalizer, a global handle and an external-memory report
//! each, then a free when the collector finds it. That bookkeeping was a third
//! of an empty call: an empty `overlappingMany` (two arrays) took 1,580 ns,
//! and takes 1,050 with the arrays copied. So an array
//! of up to [`COPY_UP_TO`] bytes is copied into a buffer V8 allocates; a
//! larger one is still handed over, its one pass of conversion not doubled by
//! a copy (the limit is a guess: copying everything measured level within this
//! VM's noise on the agents frames, whose 16,384-handle batches give 16,385
//! offsets, just above it).

use core::marker::PhantomData;
use core::ptr;

use napi::bindgen_prelude::{
    Float32Array, Float64Array, ToNapiValue, TypeName, TypedArrayType, Uint32Array, Uint8Array,
};
use napi::{check_status, sys, JsValue, Unknown, ValueType};

use crate::error::{Fail, Outcome};

/// The largest array, in bytes, copied rather than handed over.
const COPY_UP_TO: usize = 64 * 1024;

/// A number type a typed array holds.
pub trait Element: Copy + 'static {
    const KIND: TypedArrayType;
    /// The JavaScript class, as TypeScript names it.
    const NAME: &'static str;
    /// napi-rs's array of this type, to hand a large `Vec` over.
    type External: ToNapiValue;
    fn external(values: Vec<Self>) -> Self::External;
}

macro_rules! element {
    ($t:ty, $kind:ident, $external:ty) => {
        impl Element for $t {
            const KIND: TypedArrayType = TypedArrayType::$kind;
            const NAME: &'static str = stringify!($external);
            type External = $external;
            fn external(values: Vec<$t>) -> $external {
                <$external>::new(values)
            }
        }
    };
}

element!(f64, Float64, Float64Array);
element!(f32, Float32, Float32Array);
element!(u32, Uint32, Uint32Array);
element!(u8, Uint8, Uint8Array);

/// A typed array of `T` for JavaScript (see the module): `Float64Array` for
/// `f64`, `Float32Array`, `Uint32Array`, `Uint8Array`.
pub struct Typed<T: Element>(Vec<T>);

impl<T: Element> Typed<T> {
    pub(crate) fn new(values: Vec<T>) -> Self {
        Typed(values)
    }
}

impl<T: Element> TypeName for Typed<T> {
    fn type_name() -> &'static str {
        T::NAME
    }

    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl<T: Element> ToNapiValue for Typed<T> {
    unsafe fn to_napi_value(
        env: sys::napi_env,
        Typed(values): Self,
    ) -> napi::Result<sys::napi_value> {
        let bytes = core::mem::size_of_val(values.as_slice());
        if bytes > COPY_UP_TO {
            // SAFETY: `env` is the current call's, as this function's contract says.
            return unsafe { T::External::to_napi_value(env, T::external(values)) };
        }
        let mut buffer = ptr::null_mut();
        let mut data = ptr::null_mut();
        // SAFETY: `env` is the current call's; `data` receives `bytes` writable bytes.
        check_status!(
            unsafe { sys::napi_create_arraybuffer(env, bytes, &mut data, &mut buffer) },
            "Failed to create an ArrayBuffer"
        )?;
        if bytes > 0 {
            // SAFETY: `data` holds `bytes` bytes, V8's own, apart from `values`.
            unsafe { ptr::copy_nonoverlapping(values.as_ptr().cast::<u8>(), data.cast(), bytes) };
        }
        // SAFETY: `buffer` was just created, `values.len()` elements long.
        unsafe { view::<T>(env, buffer, 0, values.len()) }
    }
}

/// A typed array of `len` elements of `T` over `buffer` from `byte_offset`.
///
/// # Safety
/// `env` is the current call's and `buffer` an `ArrayBuffer` of it holding
/// `len` elements of `T` from `byte_offset`.
unsafe fn view<T: Element>(
    env: sys::napi_env,
    buffer: sys::napi_value,
    byte_offset: usize,
    len: usize,
) -> napi::Result<sys::napi_value> {
    let mut array = ptr::null_mut();
    // SAFETY: as this function's contract says.
    check_status!(
        unsafe {
            sys::napi_create_typedarray(env, T::KIND as i32, len, buffer, byte_offset, &mut array)
        },
        "Failed to create a typed array"
    )?;
    Ok(array)
}

/// A typed array the caller keeps between calls, written in place: the
/// answer is then a view of its first elements (`out.subarray(0, n)`), so
/// the call leaves no new buffer for the collector, whose dead answers
/// otherwise pile up as fresh memory until it runs (a `pairs()` answer took
/// 75 page faults a call; see docs/design.md). Only for a call answered on the
/// JavaScript thread, which owns the memory while the call runs. Its memory
/// is held as a pointer: a slice of it is made only to write the answer.
pub(crate) struct OutArray<'env, T> {
    /// The array's `ArrayBuffer` and where the array starts in it, for the view.
    buffer: sys::napi_value,
    byte_offset: usize,
    data: *mut T,
    len: usize,
    call: PhantomData<&'env mut [T]>,
}

impl<'env, T: Element> OutArray<'env, T> {
    /// The memory of `value`, a typed array of `T` (checked by the caller):
    /// `None` for one that cannot be written in place (its buffer detached,
    /// or shrunk below it; misaligned, which JavaScript's typed arrays never
    /// are). A `SharedArrayBuffer`'s is refused: Node-API makes no views of one.
    ///
    /// # Safety
    /// From this call until the answer is written ([`Written::answer`]), no
    /// JavaScript runs and nothing else reads or writes the array's memory
    /// (the batch calls read their arguments, copied, before their `out`).
    pub(crate) unsafe fn of(value: &Unknown<'env>, name: &str) -> Outcome<Option<Self>> {
        let raw = value.value();
        let (mut kind, mut len, mut data, mut buffer, mut byte_offset) =
            (0, 0, ptr::null_mut(), ptr::null_mut(), 0);
        // SAFETY: `value` is a typed array of the current call.
        check_status!(
            unsafe {
                sys::napi_get_typedarray_info(
                    raw.env,
                    raw.value,
                    &mut kind,
                    &mut len,
                    &mut data,
                    &mut buffer,
                    &mut byte_offset,
                )
            },
            "Failed to read a typed array"
        )?;
        let mut plain = false;
        // SAFETY: `buffer` is the array's buffer, of the current call.
        check_status!(
            unsafe { sys::napi_is_arraybuffer(raw.env, buffer, &mut plain) },
            "Failed to read an ArrayBuffer"
        )?;
        if !plain {
            return Err(Fail::wrong_type(format!(
                "{name} must be over an ArrayBuffer, not a SharedArrayBuffer, to be answered into"
            )));
        }
        let (mut detached, mut whole, mut bytes) = (false, ptr::null_mut(), 0);
        // SAFETY: `buffer` is an `ArrayBuffer` of the current call.
        check_status!(
            unsafe { sys::napi_is_detached_arraybuffer(raw.env, buffer, &mut detached) },
            "Failed to read an ArrayBuffer"
        )?;
        // SAFETY: as above.
        check_status!(
            unsafe { sys::napi_get_arraybuffer_info(raw.env, buffer, &mut whole, &mut bytes) },
            "Failed to read an ArrayBuffer"
        )?;
        let inside = len
            .checked_mul(core::mem::size_of::<T>())
            .and_then(|size| size.checked_add(byte_offset))
            .is_some_and(|end| end <= bytes);
        let mut data = data.cast::<T>();
        if len == 0 {
            // An empty array may have no memory at all, yet holds an empty answer.
            data = ptr::NonNull::dangling().as_ptr();
        }
        if detached || !inside || kind != T::KIND as i32 || data.is_null() || !data.is_aligned() {
            return Ok(None);
        }
        Ok(Some(OutArray {
            buffer,
            byte_offset,
            data,
            len,
            call: PhantomData,
        }))
    }

    /// Whether the two arrays share a byte of memory (each lies inside its
    /// buffer, checked by [`OutArray::of`], so the ends do not overflow).
    pub(crate) fn overlaps<U>(&self, other: &OutArray<'_, U>) -> bool {
        let (a, b) = (self.data as usize, other.data as usize);
        let (a_end, b_end) = (
            a + self.len * core::mem::size_of::<T>(),
            b + other.len * core::mem::size_of::<U>(),
        );
        a < b_end && b < a_end
    }
}

/// An answer written into the caller's array where it fits
/// ([`OutArray`]), into a new one otherwise.
pub enum Written<T: Element> {
    /// The first `len` elements of the caller's array.
    InPlace {
        buffer: sys::napi_value,
        byte_offset: usize,
        len: usize,
    },
    New(Typed<T>),
}

impl<T: Element> Written<T> {
    /// `len` values written by `fill` into `out` when it is given and holds
    /// them, into a new array otherwise (`out` then left as it was).
    pub(crate) fn answer(
        out: Option<OutArray<'_, T>>,
        len: usize,
        fill: impl FnOnce(&mut [T]),
    ) -> Self
    where
        T: Default,
    {
        match out {
            Some(out) if out.len >= len => {
                // SAFETY: `len` elements of `T` from `out.data` are the caller's
                // array's, which nothing else touches meanwhile (`OutArray::of`).
                fill(unsafe { core::slice::from_raw_parts_mut(out.data, len) });
                Written::InPlace {
                    buffer: out.buffer,
                    byte_offset: out.byte_offset,
                    len,
                }
            }
            _ => {
                let mut values = vec![T::default(); len];
                fill(&mut values);
                Written::New(Typed::new(values))
            }
        }
    }
}

impl<T: Element> TypeName for Written<T> {
    fn type_name() -> &'static str {
        T::NAME
    }

    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl<T: Element> ToNapiValue for Written<T> {
    unsafe fn to_napi_value(env: sys::napi_env, written: Self) -> napi::Result<sys::napi_value> {
        match written {
            // SAFETY: `env` is the current call's.
            Written::New(values) => unsafe { Typed::to_napi_value(env, values) },
            Written::InPlace {
                buffer,
                byte_offset,
                len,
            } => {
                // SAFETY: `buffer` is the caller's array's, of the current
                // call, holding `len` elements of `T` from `byte_offset` (and
                // should a setter on the answer object shrink it meanwhile,
                // Node-API checks the bounds and fails the call).
                unsafe { view::<T>(env, buffer, byte_offset, len) }
            }
        }
    }
}
