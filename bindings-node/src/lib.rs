//! The Node.js binding of flatquad, built with napi-rs: the classes
//! `Quadtree`, `Grid`, `LooseGrid` and `LooseQuadtree`, one per core
//! structure, with the same methods, and `Octree` (3D), the same methods over
//! 6-number boxes.
//!
//! Thin by design: every call converts its arguments ([`args`]), forwards to the
//! core, and converts the result or the error ([`error`]). Nothing here decides
//! which rectangles are valid or which elements overlap; the core does.
//!
//! - One layer serves every structure: [`index::Index`] wraps the core's
//!   [`flatquad::AnyIndex`] (or the octree) and implements every shared
//!   method once, generic over the core type;
//!   [`methods`] declares them once for both dimensions (a macro over the
//!   coordinate names), and [`classes`] (2D) and [`octree`] invoke it and add
//!   each class's constructor and parameter getters.
//! - Handles cross as JavaScript numbers (exact: the core keeps them below 2^53)
//!   and arrays of handles as `Float64Array`s.
//! - Batch calls read `Float32Array` rectangles in place (`Float64Array`s are
//!   rounded to `f32` by the core's rule, as single coordinates are).
//! - Every export catches panics (`catch_unwind`); a panic inside a call that
//!   changes an index leaves it unusable ("poisoned") rather than half-changed.

mod args;
mod classes;
mod error;
mod index;
mod methods;
pub mod objects;
mod octree;
mod one_query;
mod tracker;
mod typed;

use napi::bindgen_prelude::Either4;
use napi::{Env, Unknown};
use napi_derive::napi;

use crate::classes::{Grid, LooseGrid, LooseQuadtree, Quadtree};
use crate::index::Index;

/// Makes the calling thread, which the package's loader makes sure is Node's
/// main JavaScript thread, thread 0 of the pool the batch calls run on
/// (`flatquad::join_global_pool`): a batch call then starts on it at once,
/// rather than waking a sleeping worker and waiting for it (47-80 µs a call
/// once the workers sleep). The `...Async` calls run on a pool of their own
/// (`on_later_pool` in `index.rs`). Joins only where the pool has two threads
/// or more.
/// Returns whether the thread is thread 0. Not part of the API (absent from
/// the typings): index.js calls it as it loads.
#[napi(js_name = "__joinThreadPool", skip_typescript, catch_unwind)]
pub fn join_thread_pool() -> bool {
    flatquad::join_global_pool()
}

/// An index of whichever class the snapshot (from `toBytes()`) holds: a
/// `Quadtree`, a `Grid`, a `LooseGrid` or a `LooseQuadtree` (its `kind` says
/// which). Damaged
/// bytes throw `ERR_FLATQUAD_INVALID_BYTES`.
#[napi(catch_unwind, ts_args_type = "bytes: Uint8Array")]
pub fn from_bytes(
    env: &Env,
    bytes: Unknown<'_>,
) -> napi::Result<Either4<Quadtree, Grid, LooseGrid, LooseQuadtree>> {
    let index = Index::from_any_bytes(env, &bytes)?;
    Ok(match index.kind() {
        flatquad::Kind::Quadtree => Either4::A(Quadtree::from(index)),
        flatquad::Kind::Grid => Either4::B(Grid::from(index)),
        flatquad::Kind::LooseGrid => Either4::C(LooseGrid::from(index)),
        flatquad::Kind::LooseQuadtree => Either4::D(LooseQuadtree::from(index)),
        // `Index::kind` names 2D kinds only (`AnyIndex::from_bytes` refuses an
        // Octree's snapshot); thrown as the damaged bytes it would be.
        flatquad::Kind::Octree => {
            let refused = flatquad::Error::InvalidBytes("an Octree's snapshot".into());
            return Err(error::Fail::core(&refused).throw(env.raw()));
        }
    })
}

/// Every pair `(i, j)` such that box `i` of `left` meets box `j` of `right`
/// (closed boxes, 4 numbers `x1, y1, x2, y2` each), as positions: `rows[k]` is
/// `i`, `hits[k]` is `j` (exact numbers below 2^53). `right` is indexed by a
/// grid sized from its boxes, and `left` queries it (the core's
/// `join::Boxes`). Rows increase; with `sort`, the `j` of each row too. A
/// `Float64Array` is rounded to the nearest `f32` once: monotone, so no pair
/// whose boxes meet in `f64` is missed (a pair the rounding made touch may be
/// added). A bad box throws `ERR_FLATQUAD_INVALID_RECT` naming `left` or
/// `right`, with its `index`.
#[napi(
    catch_unwind,
    ts_args_type = "left: Float32Array | Float64Array, right: Float32Array | Float64Array, sort?: boolean | null"
)]
pub fn join_bounds(
    env: &Env,
    left: Unknown<'_>,
    right: Unknown<'_>,
    sort: Option<bool>,
) -> napi::Result<objects::BulkResult> {
    let outcome = (|| {
        let right = args::rects(&right, "right")?;
        let boxes = flatquad::join::Boxes::new(right.get(), flatquad::Kind::Grid)
            .map_err(|e| index::core(e).context("right"))?;
        let left = args::rects(&left, "left")?;
        let (mut rows, mut hits) = (Vec::new(), Vec::new());
        boxes
            .query_bulk(left.get(), sort.unwrap_or(false), &mut rows, &mut hits)
            .map_err(|e| index::core(e).context("left"))?;
        Ok(objects::BulkResult {
            rows: index::positions(rows),
            hits: index::positions(hits),
        })
    })();
    outcome.map_err(|fail: error::Fail| fail.throw(env.raw()))
}

/// Adds the hidden export that `index.js` makes the classes' one-query calls
/// of (`query`, `queryPoint`, `queryCircle`, `overlapping`: [`one_query`]).
#[napi(module_exports)]
pub fn install_one_query_calls(
    mut exports: napi::bindgen_prelude::Object<'_>,
    env: Env,
) -> napi::Result<()> {
    one_query::install(&env, &mut exports)
}

/// Test hook: panics in an export with nothing of ours around it, so the tests
/// can check napi-rs's `catch_unwind` turns it into an exception. Not part of
/// the API (absent from the typings).
#[napi(js_name = "__panicInExportForTests", skip_typescript, catch_unwind)]
pub fn panic_in_export_for_tests() {
    panic!("deliberate test panic outside any guard");
}

/// Test hook: an object Node-API wraps with a payload that is no class of
/// ours, as another addon's objects are, for the tests of receivers that are
/// not ours. Not part of the API (absent from the typings).
#[napi(js_name = "__foreignObjectForTests", skip_typescript, catch_unwind)]
pub fn foreign_object_for_tests(env: &Env) -> napi::Result<napi::bindgen_prelude::Object<'_>> {
    use napi::{check_status, sys, JsValue};
    unsafe extern "C" fn drop_payload(
        _env: sys::napi_env,
        data: *mut core::ffi::c_void,
        _hint: *mut core::ffi::c_void,
    ) {
        // SAFETY: `data` is the box `foreign_object_for_tests` wrapped, dropped once.
        drop(unsafe { Box::from_raw(data.cast::<[u64; 8]>()) });
    }
    let object = napi::bindgen_prelude::Object::new(env)?;
    let payload = Box::into_raw(Box::new([u64::MAX; 8]));
    // SAFETY: a fresh object of `env`; the finalizer frees the payload, or
    // this does if the wrap fails.
    let wrapped = check_status!(unsafe {
        sys::napi_wrap(
            env.raw(),
            object.raw(),
            payload.cast(),
            Some(drop_payload),
            core::ptr::null_mut(),
            core::ptr::null_mut(),
        )
    });
    if wrapped.is_err() {
        drop(unsafe { Box::from_raw(payload) });
    }
    wrapped.map(|()| object)
}
