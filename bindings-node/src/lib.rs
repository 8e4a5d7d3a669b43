//! The Node.js binding of flatquad, built with napi-rs: the classes
//! `Quadtree`, `Grid`, `LooseGrid` and `LooseQuadtree`, one per core
//! structure, with the same methods.
//!
//! Thin by design: every call converts its arguments ([`args`]), forwards to the
//! core, and converts the result or the error ([`error`]). Nothing here decides
//! which rectangles are valid or which elements overlap; the core does.
//!
//! - One layer serves every structure: [`index::Index`] wraps the core's
//!   [`flatquad::AnyIndex`] and implements every shared method once;
//!   [`classes`] declares them on each class and adds its constructor and
//!   parameter getters.
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
pub mod objects;

use napi::bindgen_prelude::Either4;
use napi::{Env, Unknown};
use napi_derive::napi;

use crate::classes::{Grid, LooseGrid, LooseQuadtree, Quadtree};
use crate::index::Index;

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
    })
}

/// Test hook: panics in an export with nothing of ours around it, so the tests
/// can check napi-rs's `catch_unwind` turns it into an exception. Not part of
/// the API (absent from the typings).
#[napi(js_name = "__panicInExportForTests", skip_typescript, catch_unwind)]
pub fn panic_in_export_for_tests() {
    panic!("deliberate test panic outside any guard");
}
