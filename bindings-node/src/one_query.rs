//! The calls that answer one query (`query`, `queryPoint`, `queryCircle`,
//! `overlapping`, `nearest`, `rayCast`, `rayCastAll`, `boxCast`,
//! `boxCastAll`), those that read or change one element (`insert`, `move`,
//! `remove`, `idOf`, `has`, `rectOf`), and the getters `size` and `margin`,
//! without napi-rs's per-call machinery.
//!
//! A `#[napi]` method on `&self` registers a borrow of the object in a global
//! table (a lock, a hash map, allocations) on every call, and its
//! `Float64Array` result is an `ArrayBuffer` V8 allocates outside its heap and
//! sweeps later; an object result is built property by property through
//! Node-API. For a call that finds a hit or two, that was most of it: 1,350
//! ns a `queryPoint` against flatbush's 800 for its `search`, and 4.0 µs a
//! `nearest` against flatbush's 3.5 for its `neighbors` (2-vCPU EPYC, 100,000
//! elements).
//!
//! Here each class gets one plain Node-API function a call. Each checks
//! `this` by napi-rs's type tag (the `napi8` feature stamps it on every
//! instance; these functions have no V8 signature to check the receiver, as
//! methods do) but registers no borrow. It runs the same [`Index`] code as
//! the methods. A call answering a number, a boolean or nothing (`insert`,
//! `move`, `remove`, `idOf`, `has`, the getters and `margin`'s setter)
//! returns it; the others write their answer's numbers into a buffer shared
//! with `index.js` ([`SCRATCH`] numbers), returning how many handles,
//! neighbours, hits or coordinates. `index.js` installs the functions as the
//! classes' methods, getters and setter of those names and builds each
//! buffered answer in V8's own heap: a `Float64Array` of the handles, the
//! neighbours' objects, the hits' objects, the box. More than the buffer
//! holds, or a buffer JavaScript detached, come back as the methods' own
//! answers (a box's coordinates as an array).
//!
//! Sound without the borrow table because every method of every class takes
//! `&self` (the classes' state is behind the [`Index`]'s lock and cells), so
//! no call can hold the object exclusively while these read it.

use std::ptr;

use napi::bindgen_prelude::{CallbackInfo, FromNapiValue, JsObjectValue, Object, ToNapiValue};
use napi::{check_status, sys, Env, JsError, JsValue, Unknown};

use flatquad::Bounds;

use crate::error::{Fail, Outcome};
use crate::index::{guarded, neighbor, raw, raws, ray_hit, Asked, Held, JsClass};

/// Numbers the shared buffer holds: more come back as the method's answer.
const SCRATCH: usize = 1024;

/// Numbers a neighbour takes in the shared buffer: its handle, id and distance.
const NEIGHBOUR_NUMBERS: usize = 3;

/// Numbers a ray's hit takes in the shared buffer: its handle, id, distance and fraction.
const HIT_NUMBERS: usize = 4;

/// What a call found: how many handles, neighbours or hits it wrote into the
/// shared buffer, or the method's answer when they do not fit. Made into a
/// JavaScript value once the index is let go, as the methods' answers were:
/// building objects can run JavaScript (setters), which may change the index.
enum Found<T> {
    Shared(u32),
    Own(T),
}

impl<T: ToNapiValue> Found<T> {
    /// # Safety
    /// `env` must be the current call's.
    unsafe fn into_value(self, env: sys::napi_env) -> napi::Result<sys::napi_value> {
        // SAFETY: as the caller promises.
        unsafe {
            match self {
                Found::Shared(count) => u32::to_napi_value(env, count),
                Found::Own(answer) => T::to_napi_value(env, answer),
            }
        }
    }
}

/// The calls that go this way, by the names of their methods.
#[derive(Clone, Copy)]
enum Call {
    Query,
    QueryPoint,
    QueryCircle,
    Overlapping,
    Nearest,
    RayCast,
    Insert,
    Move,
    Remove,
    IdOf,
    Has,
    RectOf,
    RayCastAll,
    BoxCast,
    BoxCastAll,
    Size,
    Margin,
    SetMargin,
}

/// Every [`Call`], with its method's name.
/// A name ending in `=` is the setter of the property before it.
const CALLS: [(Call, &str); 18] = [
    (Call::Query, "query"),
    (Call::QueryPoint, "queryPoint"),
    (Call::QueryCircle, "queryCircle"),
    (Call::Overlapping, "overlapping"),
    (Call::Nearest, "nearest"),
    (Call::RayCast, "rayCast"),
    (Call::Insert, "insert"),
    (Call::Move, "move"),
    (Call::Remove, "remove"),
    (Call::IdOf, "idOf"),
    (Call::Has, "has"),
    (Call::RectOf, "rectOf"),
    (Call::RayCastAll, "rayCastAll"),
    (Call::BoxCast, "boxCast"),
    (Call::BoxCastAll, "boxCastAll"),
    (Call::Size, "size"),
    (Call::Margin, "margin"),
    (Call::SetMargin, "margin="),
];

/// The Node-API callback of the [`Call`] numbered `CALL` (its place in
/// [`CALLS`]) of class `C`; its data is the reference to the shared buffer. A panic anywhere
/// in it becomes the methods' exception (`ERR_FLATQUAD_PANIC`), never an abort.
unsafe extern "C" fn one_query<C: JsClass, const CALL: usize>(
    env: sys::napi_env,
    info: sys::napi_callback_info,
) -> sys::napi_value {
    // SAFETY: `env` and `info` are this callback's, as Node-API hands them over.
    let outcome = guarded(|| {}, || unsafe { answer::<C>(env, info, CALLS[CALL].0) });
    outcome.unwrap_or_else(|fail| {
        // SAFETY: as above; an exception already pending is not thrown again.
        unsafe { JsError::from(fail.throw(env)).throw_into(env) };
        ptr::null_mut()
    })
}

/// The most arguments a call reads: an octree's box cast (its box, motion,
/// `mask` and `omit`).
const MOST_ARGUMENTS: usize = 11;

/// Coordinates a point of `T` has.
fn axes<T: Held>() -> usize {
    <T::Bounds as flatquad::Bounds>::AXES
}

/// # Safety
/// `env` and `info` must be the current callback's.
unsafe fn answer<C: JsClass>(
    env: sys::napi_env,
    info: sys::napi_callback_info,
    call: Call,
) -> Outcome<sys::napi_value> {
    let mut arguments = CallbackInfo::<MOST_ARGUMENTS>::new(env, info, None, false)?;
    let mut shared = ptr::null_mut();
    // SAFETY: only the function's data (the reference to the shared buffer) is asked for.
    check_status!(
        unsafe {
            sys::napi_get_cb_info(
                env,
                info,
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut(),
                &mut shared,
            )
        },
        "Failed to read the call's data"
    )?;
    // SAFETY: `unwrap_raw` checks that `this` holds a `C` (napi-rs's type
    // tag, stamped with the `napi8` feature) before the cast. A method's
    // receiver was checked by V8, so the error is V8's.
    let class = unsafe { arguments.unwrap_raw::<C>() }
        .map_err(|_| Fail::wrong_type(format!("Illegal invocation: this is not a {}", C::NAME)))?;
    // SAFETY: checked above to point at the `C` this object wraps, alive while
    // `this` is (this call's receiver).
    let class: &C = unsafe { &*class };
    // SAFETY: each value is one of this call's arguments (`undefined` where
    // the caller passed fewer).
    let values = arguments
        .args
        .map(|value| unsafe { Unknown::from_raw_unchecked(env, value) });
    let all: [&Unknown<'_>; MOST_ARGUMENTS] = std::array::from_fn(|i| &values[i]);
    // `undefined` and `null` are left out, as napi-rs reads an `Option`.
    let optional = |at: usize| -> napi::Result<Option<&Unknown<'_>>> {
        // SAFETY: as above.
        let given = unsafe { Option::<Unknown>::from_napi_value(env, values[at].raw()) }?;
        Ok(given.map(|_| &values[at]))
    };
    let axes = axes::<C::Held>();
    let index = class.inner();
    // The shared buffer's first `len` numbers, looked up once the answer is
    // found: a `nearest` filter (JavaScript) may have detached it meanwhile.
    // SAFETY: `shared` is the reference `install` made for this function; no
    // JavaScript runs while an answer is written.
    let shared = |len| unsafe { shared_slice(env, shared.cast(), len) };
    // The calls on one element answer as their methods do, through the same
    // `Index` code (which throws its refusals itself).
    let node = Env::from_raw(env);
    // SAFETY: `env` is the current call's.
    let value = |v| unsafe { value_of(env, v) };
    let corners = 2 * axes;
    let asked = match call {
        Call::Insert => {
            let handle = index.insert(&node, &all[..corners], optional(corners)?)?;
            return value(Answer::Number(handle));
        }
        Call::Move => {
            index.move_to(&node, all[0], &all[1..=corners])?;
            return value(Answer::Nothing);
        }
        Call::Remove => {
            index.remove(&node, all[0])?;
            return value(Answer::Nothing);
        }
        Call::IdOf => return value(Answer::Number(index.id_of(&node, all[0])?.into())),
        Call::Size => return value(Answer::Number(index.size(&node)?.into())),
        Call::Margin => return value(Answer::Number(index.margin(&node)?)),
        Call::SetMargin => {
            index.set_margin(&node, all[0])?;
            return value(Answer::Nothing);
        }
        Call::RayCastAll | Call::BoxCast | Call::BoxCastAll => {
            let write = |hits: &[flatquad::RayHit]| -> Outcome<Found<Vec<_>>> {
                Ok(match shared(HIT_NUMBERS * hits.len())? {
                    Some(numbers) => {
                        for (numbers, hit) in numbers.chunks_exact_mut(HIT_NUMBERS).zip(hits) {
                            numbers.copy_from_slice(&hit_numbers(hit));
                        }
                        Found::Shared(hits.len() as u32)
                    }
                    None => Found::Own(hits.iter().copied().map(ray_hit).collect()),
                })
            };
            let found = match call {
                Call::RayCastAll => {
                    let (origin, direction) = (&all[..axes], &all[axes..2 * axes]);
                    let mask = optional(2 * axes + 1)?;
                    index.ray_cast_all_found(origin, direction, all[2 * axes], mask, write)?
                }
                _ => {
                    let (corners, motion) = (&all[..corners], &all[corners..corners + axes]);
                    let (mask, omit) = (
                        optional(corners.len() + axes)?,
                        optional(corners.len() + axes + 1)?,
                    );
                    let every = matches!(call, Call::BoxCastAll);
                    index.box_cast_found(corners, motion, mask, omit, every, write)?
                }
            };
            // SAFETY: `env` is the current call's.
            return unsafe { found.into_value(env) }.map_err(Into::into);
        }
        Call::Has => return value(Answer::Truth(index.has(&node, all[0])?)),
        Call::RectOf => {
            // The low corner's coordinates, then the high one's, built into
            // the class's object by `index.js`.
            let corners = index.rect_of(&node, all[0], |b| {
                let (lo, hi) = ((0..axes).map(|a| b.lo(a)), (0..axes).map(|a| b.hi(a)));
                lo.chain(hi).map(f64::from).collect::<Vec<f64>>()
            })?;
            let found = match shared(corners.len())? {
                Some(numbers) => {
                    numbers.copy_from_slice(&corners);
                    Found::Shared(corners.len() as u32)
                }
                None => Found::Own(corners),
            };
            // SAFETY: `env` is the current call's.
            return unsafe { found.into_value(env) }.map_err(Into::into);
        }
        Call::Query => Asked::Box {
            corners: &all[..2 * axes],
            omit: optional(2 * axes)?,
            mask: optional(2 * axes + 1)?,
        },
        Call::QueryPoint => Asked::Point {
            coordinates: &all[..axes],
            omit: optional(axes)?,
            mask: optional(axes + 1)?,
        },
        Call::QueryCircle => Asked::Circle {
            center: &all[..axes],
            radius: all[axes],
            mask: optional(axes + 1)?,
        },
        Call::Overlapping => Asked::Element { handle: all[0] },
        Call::Nearest => {
            let (k, options) = (optional(axes)?, optional(axes + 1)?);
            let found = index.nearest_found(&all[..axes], k, options, |found| {
                Ok(match shared(NEIGHBOUR_NUMBERS * found.len())? {
                    Some(numbers) => {
                        for (numbers, n) in numbers.chunks_exact_mut(NEIGHBOUR_NUMBERS).zip(found) {
                            numbers.copy_from_slice(&[raw(n.handle), f64::from(n.id), n.distance]);
                        }
                        Found::Shared(found.len() as u32)
                    }
                    None => Found::Own(found.iter().copied().map(neighbor).collect::<Vec<_>>()),
                })
            })?;
            // SAFETY: `env` is the current call's.
            return unsafe { found.into_value(env) }.map_err(Into::into);
        }
        Call::RayCast => {
            let hit = index.ray_cast_found(
                &all[..axes],
                &all[axes..2 * axes],
                all[2 * axes],
                optional(2 * axes + 1)?,
            )?;
            let found = match (hit, shared(HIT_NUMBERS)?) {
                (None, _) => Found::Shared(0),
                (Some(hit), Some(numbers)) => {
                    numbers.copy_from_slice(&hit_numbers(&hit));
                    Found::Shared(1)
                }
                (Some(hit), None) => Found::Own(ray_hit(hit)),
            };
            // SAFETY: `env` is the current call's.
            return unsafe { found.into_value(env) }.map_err(Into::into);
        }
    };
    let found = index.found(asked, |found| {
        Ok(match shared(found.len())? {
            Some(numbers) => {
                for (number, handle) in numbers.iter_mut().zip(found) {
                    *number = raw(*handle);
                }
                Found::Shared(found.len() as u32)
            }
            None => Found::Own(raws(found.iter().copied())),
        })
    })?;
    // SAFETY: `env` is the current call's.
    unsafe { found.into_value(env) }.map_err(Into::into)
}

/// A hit's numbers in the shared buffer.
fn hit_numbers(hit: &flatquad::RayHit) -> [f64; HIT_NUMBERS] {
    [
        raw(hit.handle),
        f64::from(hit.id),
        hit.distance,
        hit.fraction,
    ]
}

/// What a call on one element returns, made into its JavaScript value by
/// [`value_of`].
enum Answer {
    Nothing,
    Number(f64),
    Truth(bool),
}

/// # Safety
/// `env` must be the current call's.
unsafe fn value_of(env: sys::napi_env, answer: Answer) -> Outcome<sys::napi_value> {
    // SAFETY: as the caller promises.
    let made = unsafe {
        match answer {
            Answer::Nothing => <()>::to_napi_value(env, ()),
            Answer::Number(n) => f64::to_napi_value(env, n),
            Answer::Truth(t) => bool::to_napi_value(env, t),
        }
    };
    made.map_err(Into::into)
}

/// The shared buffer's first `len` numbers, or `None` if it does not hold
/// that many or JavaScript detached it (a transfer moves its memory
/// elsewhere; the reference keeps only the object): the answer then comes
/// back as the method's own.
///
/// # Safety
/// `reference` must be the one `install` made in `env`, and no JavaScript may
/// run while the slice is in use.
unsafe fn shared_slice<'a>(
    env: sys::napi_env,
    reference: sys::napi_ref,
    len: usize,
) -> napi::Result<Option<&'a mut [f64]>> {
    if len > SCRATCH {
        return Ok(None);
    }
    let mut buffer = ptr::null_mut();
    let (mut data, mut length) = (ptr::null_mut(), 0);
    // SAFETY: `reference` is alive for the environment's life (never deleted).
    check_status!(
        unsafe { sys::napi_get_reference_value(env, reference, &mut buffer) },
        "Failed to read the shared buffer"
    )?;
    // SAFETY: `buffer` is the `ArrayBuffer` the reference holds.
    check_status!(
        unsafe { sys::napi_get_arraybuffer_info(env, buffer, &mut data, &mut length) },
        "Failed to read the shared buffer"
    )?;
    let attached = length == SCRATCH * size_of::<f64>() && !data.is_null();
    // SAFETY: the buffer's data, `SCRATCH` numbers, attached (checked just
    // now); the caller runs no JavaScript while the slice is in use.
    Ok(attached.then(|| unsafe { std::slice::from_raw_parts_mut(data.cast(), len) }))
}

/// The hidden export `__oneQueryCalls` that `index.js` installs and removes:
/// `{ scratch, Quadtree: { query, ..., size, margin, 'margin=' }, Grid: ... }`,
/// every [`CALLS`] name for every class.
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
    // The functions find the buffer through a reference, kept for the
    // environment's life whatever JavaScript drops (Node-API deletes it when
    // the environment ends).
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
    add::<Quadtree>(env, &mut calls, reference.cast())?;
    add::<Grid>(env, &mut calls, reference.cast())?;
    add::<LooseGrid>(env, &mut calls, reference.cast())?;
    add::<LooseQuadtree>(env, &mut calls, reference.cast())?;
    add::<crate::octree::Octree>(env, &mut calls, reference.cast())?;
    exports.set_named_property("__oneQueryCalls", calls)
}

/// The functions of class `C`, by their methods' names, as `calls[C::NAME]`.
fn add<C: JsClass>(
    env: &Env,
    calls: &mut Object<'_>,
    data: *mut std::ffi::c_void,
) -> napi::Result<()> {
    let mut methods = Object::new(env)?;
    let callbacks: [Callback; CALLS.len()] = [
        one_query::<C, 0>,
        one_query::<C, 1>,
        one_query::<C, 2>,
        one_query::<C, 3>,
        one_query::<C, 4>,
        one_query::<C, 5>,
        one_query::<C, 6>,
        one_query::<C, 7>,
        one_query::<C, 8>,
        one_query::<C, 9>,
        one_query::<C, 10>,
        one_query::<C, 11>,
        one_query::<C, 12>,
        one_query::<C, 13>,
        one_query::<C, 14>,
        one_query::<C, 15>,
        one_query::<C, 16>,
        one_query::<C, 17>,
    ];
    for ((_, name), callback) in CALLS.iter().zip(callbacks) {
        let function = function(env, name, callback, data)?;
        methods.set_named_property(name, function)?;
    }
    calls.set_named_property(C::NAME, methods)
}

type Callback = unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> sys::napi_value;

fn function<'env>(
    env: &'env Env,
    name: &str,
    callback: Callback,
    data: *mut std::ffi::c_void,
) -> napi::Result<Unknown<'env>> {
    let mut function = ptr::null_mut();
    // SAFETY: `name` is UTF-8 of the length given; `data` (the reference to
    // the shared buffer) lives as long as the environment, the function too.
    check_status!(
        unsafe {
            sys::napi_create_function(
                env.raw(),
                name.as_ptr().cast(),
                name.len() as isize,
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
