//! `query` and `queryPoint`, one query a call, without napi-rs's per-call
//! machinery.
//!
//! A `#[napi]` method on `&self` registers a borrow of the object in a global
//! table (a lock, a hash map, allocations) on every call, and its
//! `Float64Array` result is an `ArrayBuffer` V8 allocates outside its heap and
//! sweeps later. For a call that finds a hit or two, that was most of it:
//! 1,350 ns a `queryPoint` against flatbush's 800 for its `search` (2-vCPU
//! EPYC, 100,000 elements). Here each class gets two plain Node-API functions
//! that check `this` as napi-rs does (its class's type tag) but register no
//! borrow, run the same [`Index::query_found`] as the methods, and write the
//! handles found into a buffer shared with `index.js` (the addon's
//! [`SCRATCH`] numbers), returning how many; `index.js` copies them into a
//! `Float64Array` of V8's own heap and installs the pair as the classes'
//! `query` and `queryPoint`. More hits than the buffer holds come back as the
//! methods' own `Float64Array`.
//!
//! Sound without the borrow table because every method of every class takes
//! `&self` (the classes' state is behind the [`Index`]'s lock and cells), so
//! no call can hold the object exclusively while these read it.

use std::ptr;

use napi::bindgen_prelude::{
    CallbackInfo, FromNapiValue, JsObjectValue, MaybeTypeTag, Object, ToNapiValue, TypeName,
};
use napi::{check_status, sys, Env, JsError, JsValue, Unknown};

use crate::error::Outcome;
use crate::index::{guarded, raw, raws, Held, Index, Shape};
use crate::typed::Typed;

/// Handles the shared buffer holds: more come back as a `Float64Array` of
/// their own.
const SCRATCH: usize = 1024;

/// A class whose `query` and `queryPoint` go this way.
pub(crate) trait Class: TypeName + MaybeTypeTag + 'static {
    type Held: Held;
    /// Its name in the exports.
    const NAME: &'static str;
    fn index(&self) -> &Index<Self::Held>;
}

/// What a call returns: how many handles it wrote into the shared buffer, or
/// all of them in an array when they do not fit.
enum Found {
    Shared(u32),
    Own(Typed<f64>),
}

/// The Node-API callback of `query` (or, with `POINT`, `queryPoint`) of class
/// `C`; its data is the shared buffer. A panic anywhere in it becomes the
/// methods' exception (`ERR_FLATQUAD_PANIC`), never an abort.
unsafe extern "C" fn one_query<C: Class, const POINT: bool>(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    let shape = if POINT { Shape::Point } else { Shape::Box };
    // SAFETY: `env` and `info` are this callback's, as Node-API hands them over.
    let outcome = guarded(|| {}, || unsafe { answer::<C>(env, info, shape) });
    outcome.unwrap_or_else(|fail| {
        // SAFETY: as above; an exception already pending is not thrown again.
        unsafe { JsError::from(fail.throw(env)).throw_into(env) };
        ptr::null_mut()
    })
}

/// The most arguments a call reads: an octree's box, `omit` and `mask`.
const MOST_ARGUMENTS: usize = 8;

/// Coordinates a point of `T` has.
fn axes<T: Held>() -> usize {
    <T::Bounds as flatquad::Bounds>::AXES
}

/// # Safety
/// `env` and `info` must be the current callback's.
unsafe fn answer<C: Class>(
    env: sys::napi_env,
    info: sys::napi_callback_info,
    shape: Shape,
) -> Outcome<sys::napi_value> {
    let mut call = CallbackInfo::<MOST_ARGUMENTS>::new(env, info, None, false)?;
    let mut scratch = ptr::null_mut();
    // SAFETY: only the function's data (the shared buffer) is asked for.
    check_status!(
        unsafe {
            sys::napi_get_cb_info(
                env,
                info,
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut(),
                &mut scratch,
            )
        },
        "Failed to read the call's data"
    )?;
    // SAFETY: `unwrap_raw` checks that `this` holds a `C` (napi-rs's type tag,
    // or the class it recorded) before the cast.
    let class: &C = unsafe { &*call.unwrap_raw::<C>()? };
    let coordinates = match shape {
        Shape::Box => 2 * axes::<C::Held>(),
        Shape::Point => axes::<C::Held>(),
    };
    // SAFETY: each value is one of this call's arguments (`undefined` where
    // the caller passed fewer).
    let values = call
        .args
        .map(|value| unsafe { Unknown::from_raw_unchecked(env, value) });
    // `undefined` and `null` are left out, as napi-rs reads an `Option`.
    let optional = |value: &Unknown<'_>| -> napi::Result<Option<Unknown<'_>>> {
        // SAFETY: as above.
        unsafe { Option::<Unknown>::from_napi_value(env, value.raw()) }
    };
    let (omit, mask) = (
        optional(&values[coordinates])?,
        optional(&values[coordinates + 1])?,
    );
    let mut corners = [&values[0]; 2 * 3];
    for (corner, value) in corners.iter_mut().zip(&values[..coordinates]) {
        *corner = value;
    }
    let found = class.index().query_found(
        shape,
        &corners[..coordinates],
        omit.as_ref(),
        mask.as_ref(),
        |found| {
            if found.len() > SCRATCH {
                return Ok(Found::Own(raws(found.iter().copied())));
            }
            // SAFETY: `scratch` is the shared buffer's data, `SCRATCH` numbers,
            // kept alive by a reference for the environment's life (`install`);
            // nothing else writes it during this call.
            let shared = unsafe { std::slice::from_raw_parts_mut(scratch.cast::<f64>(), SCRATCH) };
            for (number, handle) in shared.iter_mut().zip(found) {
                *number = raw(*handle);
            }
            Ok(Found::Shared(found.len() as u32))
        },
    )?;
    // SAFETY: `env` is the current call's.
    Ok(match found {
        Found::Shared(count) => unsafe { u32::to_napi_value(env, count) }?,
        Found::Own(array) => unsafe { Typed::to_napi_value(env, array) }?,
    })
}

/// The hidden export `__oneQueryCalls` that `index.js` installs and removes:
/// `{ scratch, Quadtree: { query, queryPoint }, Grid: { ... }, ... }`.
pub(crate) fn install(env: &Env, exports: &mut Object<'_>) -> napi::Result<()> {
    use crate::classes::{Grid, LooseGrid, LooseQuadtree, Quadtree};
    let raw = env.raw();
    let (mut data, mut buffer) = (ptr::null_mut(), ptr::null_mut());
    // SAFETY: `raw` is the module's environment, on its thread.
    check_status!(
        unsafe {
            sys::napi_create_arraybuffer(raw, SCRATCH * size_of::<f64>(), &mut data, &mut buffer)
        },
        "Failed to create the shared buffer"
    )?;
    // The functions write into `data` without holding the buffer: a reference
    // keeps it for the environment's life, whatever JavaScript drops.
    let mut reference = ptr::null_mut();
    // SAFETY: as above; the reference is never deleted.
    check_status!(
        unsafe { sys::napi_create_reference(raw, buffer, 1, &mut reference) },
        "Failed to keep the shared buffer"
    )?;
    let mut scratch = ptr::null_mut();
    // SAFETY: `buffer` holds `SCRATCH` numbers.
    check_status!(
        unsafe {
            sys::napi_create_typedarray(
                raw,
                sys::TypedarrayType::float64_array,
                SCRATCH,
                buffer,
                0,
                &mut scratch,
            )
        },
        "Failed to create the shared array"
    )?;
    let mut calls = Object::new(env)?;
    // SAFETY: `scratch` was just created in `raw`.
    calls.set_named_property("scratch", unsafe {
        Unknown::from_raw_unchecked(raw, scratch)
    })?;
    add::<Quadtree>(env, &mut calls, data)?;
    add::<Grid>(env, &mut calls, data)?;
    add::<LooseGrid>(env, &mut calls, data)?;
    add::<LooseQuadtree>(env, &mut calls, data)?;
    add::<crate::octree::Octree>(env, &mut calls, data)?;
    exports.set_named_property("__oneQueryCalls", calls)
}

/// `{ query, queryPoint }` of class `C`, as `calls[C::NAME]`.
fn add<C: Class>(
    env: &Env,
    calls: &mut Object<'_>,
    data: *mut std::ffi::c_void,
) -> napi::Result<()> {
    let mut methods = Object::new(env)?;
    methods.set_named_property(
        "query",
        function(env, c"query", one_query::<C, false>, data)?,
    )?;
    methods.set_named_property(
        "queryPoint",
        function(env, c"queryPoint", one_query::<C, true>, data)?,
    )?;
    calls.set_named_property(C::NAME, methods)
}

fn function<'env>(
    env: &'env Env,
    name: &std::ffi::CStr,
    callback: unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> sys::napi_value,
    data: *mut std::ffi::c_void,
) -> napi::Result<Unknown<'env>> {
    let mut function = ptr::null_mut();
    // SAFETY: `name` is a terminated string; `data` outlives the function (see `install`).
    check_status!(
        unsafe {
            sys::napi_create_function(
                env.raw(),
                name.as_ptr(),
                name.count_bytes() as isize,
                Some(callback),
                data,
                &mut function,
            )
        },
        "Failed to create a function"
    )?;
    // SAFETY: just created in `env`.
    Ok(unsafe { Unknown::from_raw_unchecked(env.raw(), function) })
}
