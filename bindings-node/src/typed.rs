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

use core::ptr;

use napi::bindgen_prelude::{
    Float32Array, Float64Array, ToNapiValue, TypeName, TypedArrayType, Uint32Array, Uint8Array,
};
use napi::{check_status, sys, ValueType};

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
        let mut array = ptr::null_mut();
        // SAFETY: `buffer` was just created, `values.len()` elements long.
        check_status!(
            unsafe {
                sys::napi_create_typedarray(
                    env,
                    T::KIND as i32,
                    values.len(),
                    buffer,
                    0,
                    &mut array,
                )
            },
            "Failed to create a typed array"
        )?;
        Ok(array)
    }
}
