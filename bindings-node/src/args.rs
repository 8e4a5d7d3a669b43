//! Arguments in: JavaScript values checked and turned into the core's types,
//! with a `TypeError`/`RangeError` naming the argument and what it received.
//! Typed arrays of the right element type are read in place, never copied.

use std::ffi::CStr;

use flatquad::{Bounds, Box3, Handle, Rect};
use napi::bindgen_prelude::{FromNapiValue, ToNapiValue, TypedArray, TypedArrayType};
use napi::{sys, JsValue, Unknown, ValueType};

use crate::error::{code, Class, Fail, Outcome};
use crate::objects::RowsOut;
use crate::typed::{Element, OutArray};

/// 2^53: every integer below it is exact in a JavaScript number, and so is
/// every handle (the core keeps them below it).
const MAX_SAFE: f64 = 9_007_199_254_740_992.0;
/// 2^52: from here to 2^53 every `f64` is an integer, its mantissa's bits its
/// excess over 2^52 (see [`handles`]).
const TWO_POW_52: f64 = 4_503_599_627_370_496.0;

/// What a value is, for messages: "a string", "an Int32Array", "the number 1.5".
pub(crate) fn describe(value: &Unknown<'_>) -> String {
    let kind = match value.get_type() {
        Ok(kind) => kind,
        Err(_) => return "a value of unknown type".to_owned(),
    };
    match kind {
        ValueType::Undefined => "undefined".to_owned(),
        ValueType::Null => "null".to_owned(),
        ValueType::Boolean => "a boolean".to_owned(),
        ValueType::Number => match number_of(value) {
            Some(n) => format!("the number {}", js_number(n)),
            None => "a number".to_owned(),
        },
        ValueType::String => "a string".to_owned(),
        ValueType::Symbol => "a symbol".to_owned(),
        ValueType::Function => "a function".to_owned(),
        ValueType::Object => match typed_array_kind(value) {
            Some(kind) => format!("a {kind}"),
            None if is_array(value) => "an Array".to_owned(),
            None => "an object".to_owned(),
        },
        _ => "a bigint".to_owned(),
    }
}

/// A number as JavaScript prints it (integers without ".0").
pub(crate) fn js_number(n: f64) -> String {
    if n.is_nan() {
        "NaN".to_owned()
    } else if n.is_infinite() {
        if n > 0.0 { "Infinity" } else { "-Infinity" }.to_owned()
    } else if n != 0.0 && !(1e-7..1e21).contains(&n.abs()) {
        // JavaScript switches to exponent notation outside [1e-7, 1e21).
        let s = format!("{n:e}");
        match s.split_once('e') {
            Some((mantissa, exp)) if !exp.starts_with('-') => format!("{mantissa}e+{exp}"),
            _ => s,
        }
    } else {
        format!("{n}")
    }
}

fn number_of(value: &Unknown<'_>) -> Option<f64> {
    let raw = value.value();
    // SAFETY: a live value of the current call; a non-number only makes the call fail.
    unsafe { f64::from_napi_value(raw.env, raw.value) }.ok()
}

fn is_array(value: &Unknown<'_>) -> bool {
    let raw = value.value();
    let mut result = false;
    // SAFETY: a live value of the current call.
    let status = unsafe { sys::napi_is_array(raw.env, raw.value, &mut result) };
    status == sys::Status::napi_ok && result
}

fn is_typed_array(value: &Unknown<'_>) -> bool {
    let raw = value.value();
    let mut result = false;
    // SAFETY: a live value of the current call.
    let status = unsafe { sys::napi_is_typedarray(raw.env, raw.value, &mut result) };
    status == sys::Status::napi_ok && result
}

/// The typed array's constructor name, or `None` for anything else.
fn typed_array_kind(value: &Unknown<'_>) -> Option<&'static str> {
    typed_array(value).map(|array| kind_name(array.typed_array_type))
}

fn kind_name(kind: TypedArrayType) -> &'static str {
    match kind {
        TypedArrayType::Int8 => "Int8Array",
        TypedArrayType::Uint8 => "Uint8Array",
        TypedArrayType::Uint8Clamped => "Uint8ClampedArray",
        TypedArrayType::Int16 => "Int16Array",
        TypedArrayType::Uint16 => "Uint16Array",
        TypedArrayType::Int32 => "Int32Array",
        TypedArrayType::Uint32 => "Uint32Array",
        TypedArrayType::Float32 => "Float32Array",
        TypedArrayType::Float64 => "Float64Array",
        _ => "BigInt64Array, BigUint64Array or Float16Array",
    }
}

fn typed_array<'env>(value: &Unknown<'env>) -> Option<TypedArray<'env>> {
    if !is_typed_array(value) {
        return None;
    }
    let raw = value.value();
    // SAFETY: checked to be a typed array of the current call just above.
    unsafe { TypedArray::from_napi_value(raw.env, raw.value) }.ok()
}

/// Whether an optional argument was left out (`undefined` or `null`).
pub(crate) fn is_absent(value: Option<&Unknown<'_>>) -> bool {
    match value {
        None => true,
        Some(value) => matches!(
            value.get_type(),
            Ok(ValueType::Undefined) | Ok(ValueType::Null)
        ),
    }
}

/// Any JavaScript number, NaN and infinities included.
pub(crate) fn number(value: &Unknown<'_>, name: &str) -> Outcome<f64> {
    if value.get_type()? != ValueType::Number {
        return Err(Fail::wrong_type(format!(
            "{name} must be a number, received {}",
            describe(value)
        )));
    }
    let raw = value.value();
    // SAFETY: checked to be a number of the current call.
    Ok(unsafe { f64::from_napi_value(raw.env, raw.value) }?)
}

/// The names of a box's coordinates, low corner then high corner.
fn corner_names<B: Bounds>() -> &'static [&'static str] {
    if B::AXES == 3 {
        &["x1", "y1", "z1", "x2", "y2", "z2"]
    } else {
        &["x1", "y1", "x2", "y2"]
    }
}

/// A box of either dimension from its `2 * AXES` coordinate arguments, each
/// rounded to the nearest `f32` by the core's one rule.
pub(crate) fn any_box<B: Bounds>(coords: &[&Unknown<'_>]) -> Outcome<B> {
    let values = coordinates(coords, corner_names::<B>())?;
    Ok(B::from_f64_slice(&values[..2 * B::AXES]).expect("2 * AXES coordinates"))
}

/// Up to a 3D box's six coordinates, read as [`number`]s named `names`, on
/// the stack (a one-query call allocates nothing for them).
fn coordinates(coords: &[&Unknown<'_>], names: &[&str]) -> Outcome<[f64; 6]> {
    let mut values = [0.0; 6];
    for ((slot, value), name) in values.iter_mut().zip(coords).zip(names) {
        *slot = number(value, name)?;
    }
    Ok(values)
}

/// A point `(x, y)` or `(x, y, z)`, rounded as the corners of a box are.
pub(crate) fn any_point<B: Bounds>(coords: &[&Unknown<'_>]) -> Outcome<B::Point> {
    named_point::<B>(coords, &["x", "y", "z"])
}

/// A point (or a vector: a ray's direction) from `AXES` number arguments
/// named `names` in messages.
pub(crate) fn named_point<B: Bounds>(coords: &[&Unknown<'_>], names: &[&str]) -> Outcome<B::Point> {
    let values = coordinates(coords, names)?;
    Ok(point_of::<B>(&values[..B::AXES]))
}

/// `AXES` `f64` coordinates as a point, each rounded to the nearest `f32` by
/// the core's one rule (the low corner of the degenerate box).
fn point_of<B: Bounds>(values: &[f64]) -> B::Point {
    let n = B::AXES;
    let mut both = [0.0; 6];
    both[..n].copy_from_slice(values);
    both[n..2 * n].copy_from_slice(values);
    B::from_f64_slice(&both[..2 * n])
        .expect("AXES coordinates")
        .low_corner()
}

/// The points of a batch argument: a `Float32Array` or `Float64Array` of
/// `AXES` numbers per point (a `Float64Array` rounded to `f32` as single
/// coordinates are).
pub(crate) fn points<B: Bounds>(value: &Unknown<'_>, name: &str) -> Outcome<Vec<B::Point>> {
    let n = B::AXES;
    let fields = if n == 3 { "(x, y, z)" } else { "(x, y)" };
    let floats = float_array(value, name, &format!("{n} numbers {fields} per point"))?;
    if !floats.len().is_multiple_of(n) {
        return Err(Fail::bad_length(format!(
            "{name} must hold {n} numbers {fields} per point, but its length {} is not a multiple of {n}",
            floats.len()
        )));
    }
    Ok(floats.chunks_exact(n).map(point_of::<B>).collect())
}

/// The numbers of a `Float64Array` or a `Float32Array`, in `f64` (copied:
/// the batches that take them convert every item anyway); `what` says what it
/// holds, for the message.
pub(crate) fn float_array(value: &Unknown<'_>, name: &str, what: &str) -> Outcome<Vec<f64>> {
    match typed_array(value) {
        Some(array) if array.typed_array_type == TypedArrayType::Float64 => {
            Ok(f64s(&array.arraybuffer).into_owned())
        }
        Some(array) if array.typed_array_type == TypedArrayType::Float32 => Ok(array
            .arraybuffer
            .chunks_exact(4)
            .map(|b| f64::from(f32::from_ne_bytes([b[0], b[1], b[2], b[3]])))
            .collect()),
        _ => Err(Fail::wrong_type(format!(
            "{name} must be a Float32Array or Float64Array ({what}), received {}",
            describe(value)
        ))),
    }
}

/// One number for all `n` items, or a `Float32Array` / `Float64Array` of one
/// each (its length is the caller's to check).
pub(crate) fn number_or_floats(
    value: &Unknown<'_>,
    n: usize,
    name: &str,
    what: &str,
) -> Outcome<Vec<f64>> {
    if typed_array(value).is_some() {
        float_array(value, name, what)
    } else {
        Ok(vec![number(value, name)?; n])
    }
}

/// An optional count (`k`): an integer from 0 to 2^32 - 1, `default` when
/// left out.
pub(crate) fn count(value: Option<&Unknown<'_>>, name: &str, default: usize) -> Outcome<usize> {
    match value {
        Some(value) if !is_absent(Some(value)) => {
            Ok(integer(value, name, 0.0, u32::MAX as f64)? as usize)
        }
        _ => Ok(default),
    }
}

/// JavaScript truthiness (`Boolean(value)`), as `Array.prototype.filter` reads
/// its callback's result.
pub(crate) fn truthy(value: &Unknown<'_>) -> Outcome<bool> {
    let raw = value.value();
    let mut coerced = std::ptr::null_mut();
    // SAFETY: a live value of the current call; coercing to a boolean runs no user code.
    let status = unsafe { sys::napi_coerce_to_bool(raw.env, raw.value, &mut coerced) };
    if status != sys::Status::napi_ok {
        return Err(
            napi::Error::new(napi::Status::from(status), "reading a boolean failed").into(),
        );
    }
    // SAFETY: `coerced` is a boolean just produced for this call.
    Ok(unsafe { bool::from_napi_value(raw.env, coerced) }?)
}

/// What a `rayCastWith` callback's return value asks for: `false` stops, a
/// number clips the ray to that length, anything else (`undefined`, `true`)
/// goes on.
pub(crate) fn ray_control(returned: &Unknown<'_>) -> Outcome<flatquad::RayControl> {
    use flatquad::RayControl;
    Ok(match returned.get_type()? {
        ValueType::Number => RayControl::Clip(number(returned, "the callback's result")?),
        ValueType::Boolean if stops(returned)? => RayControl::Stop,
        _ => RayControl::Continue,
    })
}

/// A property of an object argument (`undefined` when it has none).
pub(crate) fn property<'env>(object: &Unknown<'env>, name: &CStr) -> Outcome<Unknown<'env>> {
    let value = object.value();
    let mut result = std::ptr::null_mut();
    // SAFETY: `object` is a live object of the current call; `name` is NUL-terminated.
    let status =
        unsafe { sys::napi_get_named_property(value.env, value.value, name.as_ptr(), &mut result) };
    if status != sys::Status::napi_ok {
        return Err(napi::Error::new(
            napi::Status::from(status),
            format!("reading property {name:?} failed"),
        )
        .into());
    }
    // SAFETY: `result` was just produced by Node-API for this call.
    Ok(unsafe { Unknown::from_napi_value(value.env, result) }?)
}

/// Whether a value is an object (arrays and typed arrays included, not `null`).
pub(crate) fn is_object(value: &Unknown<'_>) -> Outcome<bool> {
    Ok(value.get_type()? == ValueType::Object)
}

/// The numbers `object[names[i]]`, named `{what}.{name}` in messages.
fn numbers<const N: usize>(
    object: &Unknown<'_>,
    what: &str,
    names: [&CStr; N],
) -> Outcome<[f64; N]> {
    let mut out = [0.0; N];
    for (slot, name) in out.iter_mut().zip(names) {
        let label = format!("{what}.{}", name.to_str().unwrap_or("?"));
        *slot = number(&property(object, name)?, &label)?;
    }
    Ok(out)
}

/// The numbers `world[names[i]]`, and how they were written (`{ x1: 0, ...
/// }`), for the message of a world the core refuses.
fn world_numbers<const N: usize>(
    world: &Unknown<'_>,
    names: [&CStr; N],
) -> Outcome<([f64; N], String)> {
    let values = numbers(world, "world", names)?;
    let shown: Vec<String> = names
        .iter()
        .zip(values)
        .map(|(name, v)| format!("{}: {}", name.to_str().unwrap_or("?"), js_number(v)))
        .collect();
    Ok((values, format!("{{ {} }}", shown.join(", "))))
}

/// Refuses a world that is not an object (`forms`: what it may be).
fn world_object(value: &Unknown<'_>, forms: &str) -> Outcome<()> {
    if is_object(value)? {
        return Ok(());
    }
    Err(Fail::wrong_type(format!(
        "world must be an object {forms}, received {}",
        describe(value)
    )))
}

/// The octree's world: an object `{ x1, y1, z1, x2, y2, z2 }`, and how to show it.
pub(crate) fn world3(value: &Unknown<'_>) -> Outcome<(Box3, String)> {
    world_object(value, "{ x1, y1, z1, x2, y2, z2 }")?;
    let ([x1, y1, z1, x2, y2, z2], shown) =
        world_numbers(value, [c"x1", c"y1", c"z1", c"x2", c"y2", c"z2"])?;
    Ok((Box3::from_f64(x1, y1, z1, x2, y2, z2), shown))
}

/// The world rectangle, in either of two forms: corners `{ x1, y1, x2, y2 }`
/// (like every rectangle of the API; each rounded to `f32` by
/// [`Rect::from_f64`]) or `{ x, y, width, height }` (the far corner added in
/// `f64`, then every corner rounded once: [`Rect::from_xywh_f64`]). Also gives
/// the values as written, for the message of a world the core refuses.
pub(crate) fn world(value: &Unknown<'_>) -> Outcome<(Rect, String)> {
    const FORMS: &str = "{ x1, y1, x2, y2 } or { x, y, width, height }";
    world_object(value, FORMS)?;
    let corners = !is_absent(Some(&property(value, c"x1")?));
    let sized = !is_absent(Some(&property(value, c"x")?));
    match (corners, sized) {
        (true, false) => {
            let ([x1, y1, x2, y2], shown) = world_numbers(value, [c"x1", c"y1", c"x2", c"y2"])?;
            Ok((Rect::from_f64(x1, y1, x2, y2), shown))
        }
        (false, true) => {
            let ([x, y, w, h], shown) = world_numbers(value, [c"x", c"y", c"width", c"height"])?;
            Ok((Rect::from_xywh_f64(x, y, w, h), shown))
        }
        (true, true) => Err(Fail::wrong_type(format!(
            "world has both x1 and x: give it as {FORMS}, not both"
        ))),
        (false, false) => Err(Fail::wrong_type(format!(
            "world must be an object {FORMS}, received an object with neither x1 nor x"
        ))),
    }
}

/// The options argument of a constructor: `None` when left out; `forms` says
/// what it may hold, for the message when it is not an object.
pub(crate) fn options<'a, 'env>(
    value: Option<&'a Unknown<'env>>,
    forms: &str,
) -> Outcome<Option<&'a Unknown<'env>>> {
    match value {
        Some(value) if !is_absent(Some(value)) => {
            if !is_object(value)? || is_array(value) {
                return Err(Fail::wrong_type(format!(
                    "options must be an object {forms}, received {}",
                    describe(value)
                )));
            }
            Ok(Some(value))
        }
        _ => Ok(None),
    }
}

/// A tree's options `{ maxElements, maxDepth }`, each left out taking its
/// default of `defaults` (so no options give the defaults). The core decides
/// which values make sense.
pub(crate) fn tree_options(value: Option<&Unknown<'_>>, defaults: [u32; 2]) -> Outcome<[u32; 2]> {
    let [mut max_elements, mut max_depth] = defaults;
    if let Some(options) = options(value, "{ maxElements, maxDepth }")? {
        max_elements = option_u32(options, c"maxElements")?.unwrap_or(max_elements);
        max_depth = option_u32(options, c"maxDepth")?.unwrap_or(max_depth);
    }
    Ok([max_elements, max_depth])
}

/// Option `options[name]`, an integer from 0 to 2^32 - 1; `None` when absent.
/// The core decides which values make sense.
pub(crate) fn option_u32(options: &Unknown<'_>, name: &CStr) -> Outcome<Option<u32>> {
    let value = property(options, name)?;
    if is_absent(Some(&value)) {
        return Ok(None);
    }
    let label = format!("options.{}", name.to_str().unwrap_or("?"));
    Ok(Some(integer(&value, &label, 0.0, u32::MAX as f64)? as u32))
}

/// Option `options[name]`, any number, rounded to `f32`; `None` when absent.
/// The core decides which values make sense.
pub(crate) fn option_f32(options: &Unknown<'_>, name: &CStr) -> Outcome<Option<f32>> {
    let value = property(options, name)?;
    if is_absent(Some(&value)) {
        return Ok(None);
    }
    let label = format!("options.{}", name.to_str().unwrap_or("?"));
    Ok(Some(number(&value, &label)? as f32))
}

/// Options `names` that go together: `None` when all are absent, else every
/// one of them (a missing one is a `TypeError` naming it).
pub(crate) fn option_u32s<const N: usize>(
    options: &Unknown<'_>,
    names: [&CStr; N],
) -> Outcome<Option<[u32; N]>> {
    let mut values = [None; N];
    for (value, name) in values.iter_mut().zip(names) {
        *value = option_u32(options, name)?;
    }
    if values.iter().all(Option::is_none) {
        return Ok(None);
    }
    let mut out = [0; N];
    for ((slot, value), name) in out.iter_mut().zip(values).zip(names) {
        *slot = value.ok_or_else(|| {
            let all: Vec<&str> = names.iter().map(|n| n.to_str().unwrap_or("?")).collect();
            Fail::wrong_type(format!(
                "options.{} must be a number, received undefined ({} go together)",
                name.to_str().unwrap_or("?"),
                all.join(", ")
            ))
        })?;
    }
    Ok(Some(out))
}

/// Option `options.cellSize`: a number (square cells) or, when `pair` allows
/// it, an array `[width, height]`; `None` when absent. Each size is rounded to
/// the nearest `f32`, as every coordinate is; the core decides which make sense.
pub(crate) fn cell_size(options: &Unknown<'_>, pair: bool) -> Outcome<Option<(f32, f32)>> {
    let value = property(options, c"cellSize")?;
    if is_absent(Some(&value)) {
        return Ok(None);
    }
    if value.get_type()? == ValueType::Number {
        let n = number(&value, "options.cellSize")? as f32;
        return Ok(Some((n, n)));
    }
    if pair && is_array(&value) {
        let length = number(&property(&value, c"length")?, "options.cellSize.length")?;
        if length == 2.0 {
            let [w, h] = numbers(&value, "options.cellSize", [c"0", c"1"])?;
            return Ok(Some((w as f32, h as f32)));
        }
    }
    Err(Fail::wrong_type(format!(
        "options.cellSize must be a number{}, received {}",
        if pair {
            " or an array [width, height] of two numbers"
        } else {
            ""
        },
        describe(&value)
    )))
}

/// The `TypeError` for options that mix two of the `forms` a constructor takes.
pub(crate) fn both_forms(forms: &str) -> Fail {
    Fail::wrong_type(format!("options must be one of {forms}, not both"))
}

/// An integer number in `[min, max]`.
pub(crate) fn integer(value: &Unknown<'_>, name: &str, min: f64, max: f64) -> Outcome<f64> {
    let n = number(value, name)?;
    if n.fract() != 0.0 || !(min..=max).contains(&n) {
        return Err(Fail::out_of_range(format!(
            "{name} must be an integer from {} to {}, received {}",
            js_number(min),
            js_number(max),
            js_number(n)
        )));
    }
    Ok(n)
}

/// An element id: an integer in `[0, 2^32)`; 0 when left out.
pub(crate) fn id(value: Option<&Unknown<'_>>) -> Outcome<u32> {
    match value {
        Some(value) if !is_absent(Some(value)) => {
            Ok(integer(value, "id", 0.0, u32::MAX as f64)? as u32)
        }
        _ => Ok(0),
    }
}

/// 32 filter bits (a category or a mask): an integer from -2^31 to 2^32 - 1,
/// a negative one (what `~` gives in JavaScript) read as its two's complement
/// bits, as `x >>> 0` does.
pub(crate) fn bits(value: &Unknown<'_>, name: &str) -> Outcome<u32> {
    let n = integer(value, name, -2_147_483_648.0, u32::MAX as f64)?;
    Ok(n as i64 as u32)
}

/// An optional query mask: every element ([`flatquad::Filter::ALL`]) when
/// left out (`undefined` or `null`).
pub(crate) fn optional_mask(value: Option<&Unknown<'_>>) -> Outcome<u32> {
    match value {
        Some(value) if !is_absent(Some(value)) => bits(value, "mask"),
        _ => Ok(flatquad::Filter::ALL),
    }
}

/// A raw handle from a number, or why it cannot be one. Integers in `[0, 2^53)`
/// are passed to the core, which decides whether they name a live element.
/// `as` saturates (NaN to 0), so the round trip gives back `n` exactly when it
/// is an integer that fits, or 2^63 itself (which `i64::MAX` rounds to):
/// `n < MAX_SAFE` refuses that and the negative ones. Not `fract`: a libm call.
fn raw_handle(n: f64) -> Result<u64, String> {
    let raw = n as i64;
    if raw as f64 == n && (0.0..MAX_SAFE).contains(&n) {
        Ok(raw as u64)
    } else {
        Err(format!(
            "a handle is an integer returned by insert() or insertMany(), received {}",
            js_number(n)
        ))
    }
}

/// A handle argument.
pub(crate) fn handle(value: &Unknown<'_>, name: &str) -> Outcome<Handle> {
    let n = number(value, name)?;
    raw_handle(n)
        .map(Handle::from_raw)
        .map_err(|why| Fail::out_of_range(format!("{name}: {why}")))
}

/// An optional handle: `undefined` and `null` mean none, and so does 0 (the
/// core's one rule, [`Handle::optional`]).
pub(crate) fn optional_handle(value: Option<&Unknown<'_>>, name: &str) -> Outcome<Option<Handle>> {
    match value {
        Some(value) if !is_absent(Some(value)) => {
            Ok(Handle::optional(handle(value, name)?.to_raw()))
        }
        _ => Ok(None),
    }
}

/// A typed array argument of one element type; `what` says what it holds.
fn typed<'env>(
    value: &Unknown<'env>,
    name: &str,
    kind: TypedArrayType,
    what: &str,
) -> Outcome<TypedArray<'env>> {
    match typed_array(value) {
        Some(array) if array.typed_array_type == kind => Ok(array),
        _ => Err(Fail::wrong_type(format!(
            "{name} must be a {} ({what}), received {}",
            kind_name(kind),
            describe(value)
        ))),
    }
}

/// An optional array to answer into (`out`, see [`OutArray`]): absent
/// (`undefined` or `null`) or a typed array of `T`.
///
/// # Safety
/// As for [`OutArray::of`]: the call's other arguments are read (copied)
/// already, and no JavaScript runs until the answer is written.
pub(crate) unsafe fn out_array<'env, T: Element>(
    value: Option<&Unknown<'env>>,
    name: &str,
    what: &str,
) -> Outcome<Option<OutArray<'env, T>>> {
    match value.filter(|value| !is_absent(Some(value))) {
        None => Ok(None),
        Some(value) => {
            typed(value, name, T::KIND, what)?;
            // SAFETY: this function's contract.
            unsafe { OutArray::of(value, name) }
        }
    }
}

/// The `out` of a call answering rows: absent, or an object whose
/// `offsets` (a `Uint32Array`) and `hits` (a `Float64Array`) may each be
/// absent.
///
/// # Safety
/// As for [`out_array`].
pub(crate) unsafe fn rows_out<'env>(value: Option<&Unknown<'env>>) -> Outcome<RowsOut<'env>> {
    let Some(value) = value.filter(|value| !is_absent(Some(value))) else {
        return Ok(RowsOut::default());
    };
    if !is_object(value)? || typed_array(value).is_some() || is_array(value) {
        return Err(Fail::wrong_type(format!(
            "out must be an object {{ offsets?: Uint32Array, hits?: Float64Array }} to answer into, received {}",
            describe(value)
        )));
    }
    // Both read before either array's memory is taken: a getter runs
    // JavaScript, which could detach a buffer already taken.
    let (offsets, hits) = (property(value, c"offsets")?, property(value, c"hits")?);
    // SAFETY: this function's contract; no JavaScript runs between the two.
    let out = unsafe {
        RowsOut {
            offsets: out_array(
                Some(&offsets),
                "out.offsets",
                "room for one offset per item and one more",
            )?,
            hits: out_array(Some(&hits), "out.hits", "room for the hits")?,
        }
    };
    if let (Some(offsets), Some(hits)) = (&out.offsets, &out.hits) {
        if offsets.overlaps(hits) {
            return Err(Fail::new(
                Class::Type,
                code::INVALID_ARG_VALUE,
                "out.offsets and out.hits share memory: give each its own",
            ));
        }
    }
    Ok(out)
}

/// Rectangles from a `Float32Array` (read in place) or a `Float64Array`
/// (rounded to `f32`), 4 numbers `x1, y1, x2, y2` per rectangle.
pub(crate) enum Rects<'env, B = Rect> {
    InPlace(TypedArray<'env>),
    Copied(Vec<B>),
}

impl<B: Bounds> Rects<'_, B> {
    /// The boxes as a `Vec` of their own: the one already made for a
    /// `Float64Array`, a copy of a `Float32Array` read in place.
    pub(crate) fn into_owned(self) -> Vec<B> {
        match self {
            Rects::Copied(rects) => rects,
            in_place => in_place.get().to_vec(),
        }
    }

    pub(crate) fn get(&self) -> &[B] {
        match self {
            Rects::InPlace(array) => {
                let floats: &[f32] = bytemuck::try_cast_slice(&array.arraybuffer).unwrap_or(&[]);
                bytemuck::try_cast_slice(floats).unwrap_or(&[])
            }
            Rects::Copied(rects) => rects,
        }
    }
}

/// The boxes of a batch argument: `2 * AXES` numbers per box.
pub(crate) fn rects<'env, B: Bounds>(value: &Unknown<'env>, name: &str) -> Outcome<Rects<'env, B>> {
    let n = 2 * B::AXES;
    let (fields, what) = if B::AXES == 3 {
        ("(x1, y1, z1, x2, y2, z2)", "box")
    } else {
        ("(x1, y1, x2, y2)", "rectangle")
    };
    let array = match typed_array(value) {
        Some(array)
            if matches!(
                array.typed_array_type,
                TypedArrayType::Float32 | TypedArrayType::Float64
            ) =>
        {
            array
        }
        _ => {
            return Err(Fail::wrong_type(format!(
                "{name} must be a Float32Array or Float64Array of {n} numbers {fields} per {what}, received {}",
                describe(value)
            )))
        }
    };
    let bytes: &[u8] = &array.arraybuffer;
    let width = if array.typed_array_type == TypedArrayType::Float32 {
        4
    } else {
        8
    };
    let len = bytes.len() / width;
    if !len.is_multiple_of(n) {
        return Err(Fail::bad_length(format!(
            "{name} must hold {n} numbers {fields} per {what}, but its length {len} is not a multiple of {n}"
        )));
    }
    if width == 4 {
        if let Ok(floats) = bytemuck::try_cast_slice::<u8, f32>(bytes) {
            if bytemuck::try_cast_slice::<f32, B>(floats).is_ok() {
                return Ok(Rects::InPlace(array));
            }
        }
        // A view the platform cannot read in place (never seen in practice): copy.
        let floats: Vec<f32> = bytes
            .chunks_exact(4)
            .map(|b| f32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        return Ok(Rects::Copied(
            floats
                .chunks_exact(n)
                .map(|c| {
                    let lo = [c[0], c[1], c[n / 2 - 1]];
                    let hi = [c[n / 2], c[n / 2 + 1], c[n - 1]];
                    B::from_corners(lo, hi)
                })
                .collect(),
        ));
    }
    let floats = f64s(bytes);
    Ok(Rects::Copied(
        floats
            .chunks_exact(n)
            .map(|c| B::from_f64_slice(c).expect("2 * AXES numbers"))
            .collect(),
    ))
}

/// The `f64`s of a `Float64Array`'s bytes, read in place when aligned.
fn f64s(bytes: &[u8]) -> std::borrow::Cow<'_, [f64]> {
    match bytemuck::try_cast_slice::<u8, f64>(bytes) {
        Ok(floats) => std::borrow::Cow::Borrowed(floats),
        Err(_) => std::borrow::Cow::Owned(
            bytes
                .chunks_exact(8)
                .map(|b| f64::from_ne_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
                .collect(),
        ),
    }
}

/// Handles of a batch argument (a `Float64Array`), written to `out` (cleared
/// first). Every integer in `[0, 2^53)` passes, 0 included: the core decides
/// which name live elements.
pub(crate) fn handles(value: &Unknown<'_>, name: &str, out: &mut Vec<Handle>) -> Outcome<()> {
    let array = typed(
        value,
        name,
        TypedArrayType::Float64,
        "handles from insert() or insertMany()",
    )?;
    let floats = f64s(&array.arraybuffer);
    out.clear();
    // One pass without a branch a handle, in the vector unit: below 2^52
    // (every handle but those of a slot reused about a million times) an
    // integer is its bits' difference from 2^52 once added to it, exactly when
    // the sum less 2^52 gives it back. x86-64's baseline has no vector
    // conversion between doubles and 64-bit integers, which a cast takes
    // (100,000 handles in a scratch loop: 145 -> 49 µs).
    let mut all = true;
    out.extend(floats.iter().map(|&n| {
        let sum = n + TWO_POW_52;
        all &= (0.0..TWO_POW_52).contains(&n) & (sum - TWO_POW_52 == n);
        Handle::from_raw(sum.to_bits() ^ TWO_POW_52.to_bits())
    }));
    if !all {
        // A handle from 2^52 on, or a number that is none: read one by one.
        for (index, (handle, &n)) in out.iter_mut().zip(floats.iter()).enumerate() {
            let raw = raw_handle(n).map_err(|why| {
                Fail::out_of_range(format!("{name}[{index}]: {why}")).index(index)
            })?;
            *handle = Handle::from_raw(raw);
        }
    }
    Ok(())
}

/// A `Uint32Array` batch argument (ids, filter bits), read in place.
pub(crate) struct Words<'env>(TypedArray<'env>);

impl Words<'_> {
    pub(crate) fn get(&self) -> std::borrow::Cow<'_, [u32]> {
        let bytes: &[u8] = &self.0.arraybuffer;
        match bytemuck::try_cast_slice::<u8, u32>(bytes) {
            Ok(ids) => std::borrow::Cow::Borrowed(ids),
            Err(_) => std::borrow::Cow::Owned(
                bytes
                    .chunks_exact(4)
                    .map(|b| u32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
                    .collect(),
            ),
        }
    }
}

pub(crate) fn ids<'env>(value: &Unknown<'env>, name: &str) -> Outcome<Words<'env>> {
    typed(value, name, TypedArrayType::Uint32, "one id per rectangle").map(Words)
}

/// Filter bits of a batch argument (categories or masks): a `Uint32Array`, read in place.
pub(crate) fn bit_array<'env>(value: &Unknown<'env>, name: &str) -> Outcome<Words<'env>> {
    typed(
        value,
        name,
        TypedArrayType::Uint32,
        "32 filter bits per handle",
    )
    .map(Words)
}

/// Bytes of a `Uint8Array` (a `Buffer` is one), read in place.
pub(crate) fn bytes<'env>(value: &Unknown<'env>, name: &str) -> Outcome<TypedArray<'env>> {
    typed(value, name, TypedArrayType::Uint8, "bytes from toBytes()")
}

/// The callback argument of `traverse` and `queryWith`: checked to be a function.
pub(crate) fn function<'env>(value: Unknown<'env>, name: &str) -> Outcome<Unknown<'env>> {
    if value.get_type()? != ValueType::Function {
        return Err(Fail::wrong_type(format!(
            "{name} must be a function, received {}",
            describe(&value)
        )));
    }
    Ok(value)
}

/// Calls `callback(arg)` with `this` undefined. If it throws, the exception is
/// left pending, untouched (whatever was thrown, `Error` or not), and the error
/// returned tells napi-rs to throw nothing more: the caller must return it at
/// once, making no other Node-API call.
pub(crate) fn call<'env, A: ToNapiValue>(
    callback: &Unknown<'env>,
    arg: A,
) -> Outcome<Unknown<'env>> {
    let raw = callback.value();
    let env = raw.env;
    let mut this = std::ptr::null_mut();
    let mut result = std::ptr::null_mut();
    // SAFETY: `env` and `callback` are live values of the current call; the
    // argument is converted in the same environment.
    let status = unsafe {
        let arg = A::to_napi_value(env, arg)?;
        sys::napi_get_undefined(env, &mut this);
        sys::napi_call_function(env, this, raw.value, 1, &arg, &mut result)
    };
    match status {
        sys::Status::napi_ok => {
            // SAFETY: `result` was just produced by Node-API for this call.
            Ok(unsafe { Unknown::from_napi_value(env, result) }?)
        }
        sys::Status::napi_pending_exception => Err(Fail::Js(napi::Error::new(
            napi::Status::PendingException,
            "the callback threw",
        ))),
        other => Err(Fail::Js(napi::Error::new(
            napi::Status::from(other),
            "calling the callback failed",
        ))),
    }
}

/// Whether a callback's return value asks to stop: exactly `false`.
pub(crate) fn stops(returned: &Unknown<'_>) -> Outcome<bool> {
    if returned.get_type()? != ValueType::Boolean {
        return Ok(false);
    }
    let raw = returned.value();
    // SAFETY: checked to be a boolean of the current call.
    Ok(!unsafe { bool::from_napi_value(raw.env, raw.value) }?)
}

/// The options of `nearest` and `nearestMany`, read.
pub(crate) struct SearchOptions<'env> {
    pub max_distance: Option<f64>,
    pub mask: u32,
    pub filter: Option<Unknown<'env>>,
}

/// `{ maxDistance, mask, filter }` (`filter` only where `callbacks` allows it);
/// defaults when left out. The core decides which distances make sense.
pub(crate) fn search_options<'env>(
    value: Option<&Unknown<'env>>,
    callbacks: bool,
) -> Outcome<SearchOptions<'env>> {
    let forms = if callbacks {
        "{ maxDistance, mask, filter }"
    } else {
        "{ maxDistance, mask }"
    };
    let mut out = SearchOptions {
        max_distance: None,
        mask: flatquad::Filter::ALL,
        filter: None,
    };
    let Some(options) = options(value, forms)? else {
        return Ok(out);
    };
    let max_distance = property(options, c"maxDistance")?;
    if !is_absent(Some(&max_distance)) {
        out.max_distance = Some(number(&max_distance, "options.maxDistance")?);
    }
    let mask = property(options, c"mask")?;
    if !is_absent(Some(&mask)) {
        out.mask = bits(&mask, "options.mask")?;
    }
    let filter = property(options, c"filter")?;
    if !is_absent(Some(&filter)) {
        if !callbacks {
            return Err(Fail::wrong_type(format!(
                "options must be an object {forms}: a batch takes no filter callback (call nearest() per point for one)"
            )));
        }
        out.filter = Some(function(filter, "options.filter")?);
    }
    Ok(out)
}
