//! The Node.js binding of flatquad: one class, `Quadtree`, over the core's
//! [`flatquad::Quadtree`], built with napi-rs.
//!
//! Thin by design: every call converts its arguments ([`args`]), forwards to the
//! core, and converts the result or the error ([`error`]). Nothing here decides
//! which rectangles are valid or which elements overlap; the core does.
//!
//! - Handles cross as JavaScript numbers (exact: the core keeps them below 2^53)
//!   and arrays of handles as `Float64Array`s.
//! - Batch calls read `Float32Array` rectangles in place (`Float64Array`s are
//!   rounded to `f32`, the core's precision).
//! - Every export catches panics (`catch_unwind`); a panic inside a call that
//!   changes the tree leaves it unusable ("poisoned") rather than half-changed.
//! - The tree sits in a `RefCell`: a JavaScript callback (`traverse`,
//!   `queryWith`) may read the tree, but a call that would change it throws
//!   `ERR_FLATQUAD_BUSY` instead of changing what the walk is reading.

mod args;
mod error;

use std::cell::{Cell, RefCell};
use std::ops::ControlFlow;
use std::panic::{catch_unwind, AssertUnwindSafe};

use flatquad::{Handle, NodeInfo as CoreNode, Quadtree as Core, Rect, SpatialIndex};
use napi::bindgen_prelude::{Buffer, Float32Array, Float64Array, This, Uint32Array, Uint8Array};
use napi::{sys, Env, JsValue, Unknown};
use napi_derive::napi;

use crate::args::Rects;
use crate::error::{code, Class, Fail, Outcome};

/// The world rectangle: top-left corner `(x, y)`, `width` and `height`.
#[napi(object)]
pub struct WorldRect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

/// Construction options.
#[napi(object)]
pub struct QuadtreeOptions {
    /// Elements a leaf holds before it splits (default 8, at least 1).
    pub max_elements: Option<u32>,
    /// Depth below which leaves no longer split; the root is depth 0 (default 8,
    /// at most 30). Pick it so the deepest cells are a little larger than a typical
    /// element: `world / 2^maxDepth ≈ 2 × element size`.
    pub max_depth: Option<u32>,
}

/// A closed rectangle `[x1, x2] × [y1, y2]`.
#[napi(object)]
pub struct Rectangle {
    pub x1: f64,
    pub y1: f64,
    pub x2: f64,
    pub y2: f64,
}

/// One node of the tree, as `traverse` visits it.
#[napi(object)]
pub struct NodeInfo {
    /// The node's index in the node array (the root is 0).
    pub index: u32,
    /// Depth: 0 for the root.
    pub depth: u32,
    pub x1: f64,
    pub y1: f64,
    pub x2: f64,
    pub y2: f64,
    /// Whether the node is a leaf (else a branch with four children).
    pub is_leaf: bool,
    /// Element links in the leaf; 0 for a branch.
    pub count: u32,
}

/// Every node of the tree in `traverse` order, as arrays ready to draw.
#[napi(object, object_from_js = false)]
pub struct Nodes {
    /// `x1, y1, x2, y2` of each node's cell: 4 numbers per node.
    pub rects: Float32Array,
    /// Depth of each node (0 for the root).
    pub depths: Uint8Array,
    /// 1 for a leaf, 0 for a branch.
    pub is_leaf: Uint8Array,
    /// Element links in each leaf (0 for a branch).
    pub counts: Uint32Array,
}

/// The hits of `queryMany`: the hits of rectangle `i` are
/// `hits.subarray(offsets[i], offsets[i + 1])`.
#[napi(object, object_from_js = false)]
pub struct QueryManyResult {
    /// `n + 1` offsets into `hits`, for `n` query rectangles; `offsets[0]` is 0.
    pub offsets: Uint32Array,
    /// The handles found, query after query.
    #[napi(ts_type = "Float64Array")]
    pub hits: Float64Array,
}

/// Counts of what the tree holds.
#[napi(object)]
pub struct Stats {
    /// Live elements.
    pub elements: f64,
    /// Nodes, branches and leaves.
    pub nodes: f64,
    /// Leaves, empty ones included.
    pub leaves: f64,
    /// Leaves holding no element.
    pub empty_leaves: f64,
    /// Deepest depth any node has.
    pub max_depth_reached: u32,
    /// Element links in leaves: one per element per leaf it lies in.
    pub element_links: f64,
    /// Bytes the tree holds, the capacity of its pools included.
    pub bytes: f64,
}

/// A flat quadtree over rectangles, for broad-phase collision detection and
/// region queries over many moving elements.
///
/// Results are exact for 32-bit floats: a query returns precisely the elements
/// whose closed rectangle meets the closed query rectangle. Coordinates are
/// rounded to the nearest 32-bit float when they come in.
#[napi]
pub struct Quadtree {
    tree: RefCell<Core>,
    /// Set when a panic interrupted a call that changes the tree.
    poisoned: Cell<bool>,
    /// Reused by the batch calls, so a frame's `moveMany` allocates nothing.
    scratch: RefCell<Vec<Handle>>,
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_owned()
    }
}

/// Runs `body`, turning a panic into an `ERR_FLATQUAD_PANIC` error; `on_panic`
/// runs first when one is caught.
fn guarded<T>(on_panic: impl FnOnce(), body: impl FnOnce() -> Outcome<T>) -> Outcome<T> {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(outcome) => outcome,
        Err(payload) => {
            on_panic();
            Err(Fail::new(
                Class::Error,
                code::PANIC,
                format!(
                    "internal error in flatquad (a Rust panic, please report it): {}",
                    panic_message(&*payload)
                ),
            ))
        }
    }
}

fn rectangle(r: Rect) -> Rectangle {
    Rectangle {
        x1: r.x1 as f64,
        y1: r.y1 as f64,
        x2: r.x2 as f64,
        y2: r.y2 as f64,
    }
}

fn raw(handle: Handle) -> f64 {
    handle.to_raw() as f64
}

/// A property of an object argument.
fn property<'env>(object: &Unknown<'env>, name: &std::ffi::CStr) -> Outcome<Unknown<'env>> {
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
    Ok(unsafe {
        <Unknown as napi::bindgen_prelude::FromNapiValue>::from_napi_value(value.env, result)
    }?)
}

fn is_object(value: &Unknown<'_>) -> Outcome<bool> {
    Ok(value.get_type()? == napi::ValueType::Object)
}

/// Refuses `Quadtree(world)` without `new`, which would otherwise attach a tree
/// to the global object (napi-rs runs the constructor with `this` = `globalThis`).
fn called_with_new(env: &Env, this: &This<'_>) -> Outcome<()> {
    let global = env.get_global()?;
    let (this, global) = (this.value(), global.value());
    let mut same = false;
    // SAFETY: both are live values of the current call.
    let status = unsafe { sys::napi_strict_equals(this.env, this.value, global.value, &mut same) };
    if status == sys::Status::napi_ok && !same {
        return Ok(());
    }
    Err(Fail::wrong_type(
        "Class constructor Quadtree cannot be invoked without 'new'",
    ))
}

fn construct(world: &Unknown<'_>, options: Option<&Unknown<'_>>) -> Outcome<Core> {
    if !is_object(world)? {
        return Err(Fail::wrong_type(format!(
            "world must be an object {{ x, y, width, height }}, received {}",
            args::describe(world)
        )));
    }
    let x = args::number(&property(world, c"x")?, "world.x")?;
    let y = args::number(&property(world, c"y")?, "world.y")?;
    let width = args::number(&property(world, c"width")?, "world.width")?;
    let height = args::number(&property(world, c"height")?, "world.height")?;
    let (mut max_elements, mut max_depth) = (Core::DEFAULT_MAX_ELEMENTS, Core::DEFAULT_MAX_DEPTH);
    if let Some(options) = options.filter(|o| !args::is_absent(Some(o))) {
        if !is_object(options)? {
            return Err(Fail::wrong_type(format!(
                "options must be an object {{ maxElements, maxDepth }}, received {}",
                args::describe(options)
            )));
        }
        let limit = u32::MAX as f64;
        let value = property(options, c"maxElements")?;
        if !args::is_absent(Some(&value)) {
            max_elements = args::integer(&value, "options.maxElements", 0.0, limit)? as u32;
        }
        let value = property(options, c"maxDepth")?;
        if !args::is_absent(Some(&value)) {
            max_depth = args::integer(&value, "options.maxDepth", 0.0, limit)? as u32;
        }
    }
    let rect = Rect::new(x as f32, y as f32, (x + width) as f32, (y + height) as f32);
    Core::new(rect, max_elements, max_depth).map_err(|e| match e {
        flatquad::Error::InvalidWorld(_) => Fail::new(
            Class::Range,
            code::INVALID_WORLD,
            format!(
                "invalid world {{ x: {}, y: {}, width: {}, height: {} }}: x and y must be finite, width and height finite and positive (as 32-bit floats)",
                args::js_number(x),
                args::js_number(y),
                args::js_number(width),
                args::js_number(height)
            ),
        ),
        flatquad::Error::InvalidParameter { name, expected, .. } => {
            let (js, value) = match name {
                "max_elements" => ("maxElements", max_elements),
                _ => ("maxDepth", max_depth),
            };
            Fail::new(
                Class::Range,
                code::INVALID_OPTION,
                format!("options.{js}: expected {expected}, received {value}"),
            )
        }
        other => Fail::core(&other),
    })
}

impl Quadtree {
    fn wrap(tree: Core) -> Quadtree {
        Quadtree {
            tree: RefCell::new(tree),
            poisoned: Cell::new(false),
            scratch: RefCell::new(Vec::new()),
        }
    }

    fn usable(&self) -> Outcome<()> {
        if self.poisoned.get() {
            return Err(Fail::new(
                Class::Error,
                code::POISONED,
                "this Quadtree is unusable: an internal error (a Rust panic) interrupted an earlier call that was changing it; build a new tree",
            ));
        }
        Ok(())
    }

    /// Runs `body` on the tree for a call that only reads it.
    fn read<T>(&self, env: &Env, body: impl FnOnce(&Core) -> Outcome<T>) -> napi::Result<T> {
        let outcome = self.usable().and_then(|()| {
            let tree = self
                .tree
                .try_borrow()
                .map_err(|_| Fail::new(Class::Error, code::BUSY, "the tree is being changed"))?;
            guarded(|| {}, || body(&tree))
        });
        outcome.map_err(|fail| fail.throw(env.raw()))
    }

    /// Runs `body` on the tree for a call named `what` that changes it.
    fn write<T>(
        &self,
        env: &Env,
        what: &str,
        body: impl FnOnce(&mut Core) -> Outcome<T>,
    ) -> napi::Result<T> {
        let outcome = self.usable().and_then(|()| {
            let mut tree = self.tree.try_borrow_mut().map_err(|_| {
                Fail::new(
                    Class::Error,
                    code::BUSY,
                    format!(
                        "{what}() cannot change the tree from inside its own traverse() or queryWith() callback; collect the changes and make them after the walk"
                    ),
                )
            })?;
            guarded(|| self.poisoned.set(true), || body(&mut tree))
        });
        outcome.map_err(|fail| fail.throw(env.raw()))
    }

    fn fail<T>(env: &Env, fail: Fail) -> napi::Result<T> {
        Err(fail.throw(env.raw()))
    }
}

#[napi]
impl Quadtree {
    /// An empty tree over `world`. Elements and queries outside the world are
    /// fine (they live in the border leaves); the world only sets where the tree
    /// divides the plane.
    ///
    /// Throws a `RangeError` for a world that is not finite or has no area, or
    /// options out of range; a `TypeError` for arguments of the wrong type.
    #[napi(
        constructor,
        catch_unwind,
        ts_args_type = "world: WorldRect, options?: QuadtreeOptions"
    )]
    pub fn new(
        env: &Env,
        this: This<'_>,
        world: Unknown<'_>,
        options: Option<Unknown<'_>>,
    ) -> napi::Result<Self> {
        match guarded(
            || {},
            || {
                called_with_new(env, &this)?;
                construct(&world, options.as_ref())
            },
        ) {
            Ok(tree) => Ok(Quadtree::wrap(tree)),
            Err(fail) => Quadtree::fail(env, fail),
        }
    }

    /// Number of elements in the tree.
    #[napi(getter, catch_unwind)]
    pub fn size(&self, env: &Env) -> napi::Result<u32> {
        self.read(env, |tree| Ok(tree.len() as u32))
    }

    /// The world rectangle the tree was made with (as 32-bit floats).
    #[napi(getter, catch_unwind)]
    pub fn world(&self, env: &Env) -> napi::Result<WorldRect> {
        self.read(env, |tree| {
            let w = tree.world();
            Ok(WorldRect {
                x: w.x1 as f64,
                y: w.y1 as f64,
                width: w.x2 as f64 - w.x1 as f64,
                height: w.y2 as f64 - w.y1 as f64,
            })
        })
    }

    /// Elements a leaf holds before it splits.
    #[napi(getter, catch_unwind)]
    pub fn max_elements(&self, env: &Env) -> napi::Result<u32> {
        self.read(env, |tree| Ok(tree.max_elements()))
    }

    /// Depth below which leaves no longer split.
    #[napi(getter, catch_unwind)]
    pub fn max_depth(&self, env: &Env) -> napi::Result<u32> {
        self.read(env, |tree| Ok(tree.max_depth()))
    }

    /// Adds the rectangle `[x1, x2] × [y1, y2]` with an id of yours (an integer
    /// from 0 to 2^32 - 1; 0 when left out) and returns its handle.
    ///
    /// Throws a `RangeError` (`ERR_FLATQUAD_INVALID_RECT`) for NaN or infinite
    /// coordinates or `x1 > x2` / `y1 > y2`; the tree is then unchanged.
    #[napi(
        catch_unwind,
        ts_args_type = "x1: number, y1: number, x2: number, y2: number, id?: number",
        ts_return_type = "Handle"
    )]
    pub fn insert(
        &self,
        env: &Env,
        x1: Unknown<'_>,
        y1: Unknown<'_>,
        x2: Unknown<'_>,
        y2: Unknown<'_>,
        id: Option<Unknown<'_>>,
    ) -> napi::Result<f64> {
        self.write(env, "insert", |tree| {
            let rect = args::rect([&x1, &y1, &x2, &y2])?;
            let id = args::id(id.as_ref())?;
            let handle = tree.insert(rect, id).map_err(|e| Fail::core(&e))?;
            Ok(raw(handle))
        })
    }

    /// Removes an element; its handle goes stale. Throws an `Error` with code
    /// `ERR_FLATQUAD_INVALID_HANDLE` if the handle names no element (never issued,
    /// already removed, or cleared); the tree is then unchanged.
    #[napi(catch_unwind, ts_args_type = "handle: Handle")]
    pub fn remove(&self, env: &Env, handle: Unknown<'_>) -> napi::Result<()> {
        self.write(env, "remove", |tree| {
            let handle = args::handle(&handle, "handle")?;
            tree.remove(handle).map_err(|e| Fail::core(&e))
        })
    }

    /// Gives an element a new rectangle. Throws as `insert` does for a bad
    /// rectangle and as `remove` does for a bad handle; the tree is then unchanged.
    #[napi(
        js_name = "move",
        catch_unwind,
        ts_args_type = "handle: Handle, x1: number, y1: number, x2: number, y2: number"
    )]
    pub fn move_to(
        &self,
        env: &Env,
        handle: Unknown<'_>,
        x1: Unknown<'_>,
        y1: Unknown<'_>,
        x2: Unknown<'_>,
        y2: Unknown<'_>,
    ) -> napi::Result<()> {
        self.write(env, "move", |tree| {
            let handle = args::handle(&handle, "handle")?;
            let rect = args::rect([&x1, &y1, &x2, &y2])?;
            tree.update(handle, rect).map_err(|e| Fail::core(&e))
        })
    }

    /// Merges emptied branches, one level per call: call it once a frame, after
    /// the moves.
    #[napi(catch_unwind)]
    pub fn cleanup(&self, env: &Env) -> napi::Result<()> {
        self.write(env, "cleanup", |tree| {
            tree.cleanup();
            Ok(())
        })
    }

    /// Removes every element (every handle goes stale); keeps the memory.
    #[napi(catch_unwind)]
    pub fn clear(&self, env: &Env) -> napi::Result<()> {
        self.write(env, "clear", |tree| {
            tree.clear();
            Ok(())
        })
    }

    /// Handles of the elements whose closed rectangle meets the closed rectangle
    /// `[x1, x2] × [y1, y2]`, each once, leaving out `omit` (a live handle; `0`,
    /// `null` or `undefined` omit nothing).
    #[napi(
        catch_unwind,
        ts_args_type = "x1: number, y1: number, x2: number, y2: number, omit?: Handle | null",
        ts_return_type = "Float64Array"
    )]
    pub fn query(
        &self,
        env: &Env,
        x1: Unknown<'_>,
        y1: Unknown<'_>,
        x2: Unknown<'_>,
        y2: Unknown<'_>,
        omit: Option<Unknown<'_>>,
    ) -> napi::Result<Float64Array> {
        self.read(env, |tree| {
            let rect = args::rect([&x1, &y1, &x2, &y2])?;
            let omit = args::optional_handle(omit.as_ref(), "omit")?;
            let mut hits = Vec::new();
            let _ = tree
                .query_with(rect, omit, |h| {
                    hits.push(raw(h));
                    ControlFlow::Continue(())
                })
                .map_err(|e| Fail::core(&e))?;
            Ok(Float64Array::new(hits))
        })
    }

    /// Handles of the elements whose closed rectangle holds the point `(x, y)`,
    /// leaving out `omit`.
    #[napi(
        catch_unwind,
        ts_args_type = "x: number, y: number, omit?: Handle | null",
        ts_return_type = "Float64Array"
    )]
    pub fn query_point(
        &self,
        env: &Env,
        x: Unknown<'_>,
        y: Unknown<'_>,
        omit: Option<Unknown<'_>>,
    ) -> napi::Result<Float64Array> {
        self.read(env, |tree| {
            let x = args::coordinate(&x, "x")?;
            let y = args::coordinate(&y, "y")?;
            let omit = args::optional_handle(omit.as_ref(), "omit")?;
            let mut hits = Vec::new();
            let _ = tree
                .query_point_with(x, y, omit, |h| {
                    hits.push(raw(h));
                    ControlFlow::Continue(())
                })
                .map_err(|e| Fail::core(&e))?;
            Ok(Float64Array::new(hits))
        })
    }

    /// Calls `callback(handle)` for each element `query` would return, until the
    /// callback returns `false`. An exception thrown by the callback propagates.
    /// The callback may read the tree; a call that changes it throws
    /// `ERR_FLATQUAD_BUSY`.
    #[napi(
        catch_unwind,
        ts_args_type = "x1: number, y1: number, x2: number, y2: number, callback: (handle: Handle) => boolean | void, omit?: Handle | null"
    )]
    #[allow(clippy::too_many_arguments)]
    pub fn query_with(
        &self,
        env: &Env,
        x1: Unknown<'_>,
        y1: Unknown<'_>,
        x2: Unknown<'_>,
        y2: Unknown<'_>,
        callback: Unknown<'_>,
        omit: Option<Unknown<'_>>,
    ) -> napi::Result<()> {
        self.read(env, |tree| {
            let rect = args::rect([&x1, &y1, &x2, &y2])?;
            let callback = args::function(callback, "callback")?;
            let omit = args::optional_handle(omit.as_ref(), "omit")?;
            let mut failure = None;
            let _ = tree
                .query_with(rect, omit, |h| {
                    match args::call(&callback, raw(h)).and_then(|r| args::stops(&r)) {
                        Ok(false) => ControlFlow::Continue(()),
                        Ok(true) => ControlFlow::Break(()),
                        Err(fail) => {
                            failure = Some(fail);
                            ControlFlow::Break(())
                        }
                    }
                })
                .map_err(|e| Fail::core(&e))?;
            failure.map_or(Ok(()), Err)
        })
    }

    /// Every pair of elements whose closed rectangles meet, each pair once:
    /// `[a0, b0, a1, b1, ...]`, 2 handles per pair.
    #[napi(catch_unwind, ts_return_type = "Float64Array")]
    pub fn pairs(&self, env: &Env) -> napi::Result<Float64Array> {
        self.read(env, |tree| {
            // The core's pair walk, on all threads when the tree is big enough.
            let mut pairs = Vec::new();
            tree.par_pairs(&mut pairs);
            let flat: Vec<f64> = pairs
                .into_iter()
                .flat_map(|(a, b)| [raw(a), raw(b)])
                .collect();
            Ok(Float64Array::new(flat))
        })
    }

    /// The other elements whose rectangle meets this element's (touching
    /// counts): `query(...rectOf(handle), handle)`, but found from the element's
    /// own leaves, without walking down from the root.
    #[napi(
        catch_unwind,
        ts_args_type = "handle: Handle",
        ts_return_type = "Float64Array"
    )]
    pub fn overlapping(&self, env: &Env, handle: Unknown<'_>) -> napi::Result<Float64Array> {
        self.read(env, |tree| {
            let handle = args::handle(&handle, "handle")?;
            let mut hits = Vec::new();
            tree.overlapping(handle, &mut hits)
                .map_err(|e| Fail::core(&e))?;
            Ok(Float64Array::new(hits.into_iter().map(raw).collect()))
        })
    }

    /// `overlapping` for every handle at once, the per-agent query of a
    /// collision loop in one call: the neighbours of `handles[i]` are
    /// `hits.subarray(offsets[i], offsets[i + 1])`. A stale handle is refused
    /// (the error's `index` says which) and nothing is returned.
    #[napi(catch_unwind, ts_args_type = "handles: Float64Array")]
    pub fn overlapping_many(
        &self,
        env: &Env,
        handles: Unknown<'_>,
    ) -> napi::Result<QueryManyResult> {
        self.read(env, |tree| {
            let mut owned = Vec::new();
            let mut scratch = self.scratch.try_borrow_mut();
            let list = match scratch.as_deref_mut() {
                Ok(list) => list,
                Err(_) => &mut owned,
            };
            args::handles(&handles, "handles", list)?;
            let (mut offsets, mut hits) = (Vec::new(), Vec::new());
            tree.overlapping_many(list, &mut offsets, &mut hits)
                .map_err(|e| Fail::core(&e))?;
            let offsets = offsets
                .into_iter()
                .map(u32::try_from)
                .collect::<Result<Vec<u32>, _>>()
                .map_err(|_| {
                    Fail::new(
                        Class::Range,
                        code::CAPACITY,
                        "overlappingMany found more than 2^32 - 1 hits: split the batch",
                    )
                })?;
            Ok(QueryManyResult {
                offsets: Uint32Array::new(offsets),
                hits: Float64Array::new(hits.into_iter().map(raw).collect()),
            })
        })
    }

    /// The id the element was inserted with.
    #[napi(catch_unwind, ts_args_type = "handle: Handle")]
    pub fn id_of(&self, env: &Env, handle: Unknown<'_>) -> napi::Result<u32> {
        self.read(env, |tree| {
            let handle = args::handle(&handle, "handle")?;
            tree.id(handle).map_err(|e| Fail::core(&e))
        })
    }

    /// The element's rectangle (as 32-bit floats: what the tree stores).
    #[napi(catch_unwind, ts_args_type = "handle: Handle")]
    pub fn rect_of(&self, env: &Env, handle: Unknown<'_>) -> napi::Result<Rectangle> {
        self.read(env, |tree| {
            let handle = args::handle(&handle, "handle")?;
            tree.rect(handle).map(rectangle).map_err(|e| Fail::core(&e))
        })
    }

    /// Whether `handle` names an element of this tree now (false for any number
    /// that is not a live handle).
    #[napi(catch_unwind, ts_args_type = "handle: Handle")]
    pub fn has(&self, env: &Env, handle: Unknown<'_>) -> napi::Result<bool> {
        self.read(env, |tree| {
            let n = args::number(&handle, "handle")?;
            Ok(n.fract() == 0.0
                && (0.0..9_007_199_254_740_992.0).contains(&n)
                && tree.contains(Handle::from_raw(n as u64)))
        })
    }

    /// The handles of every element, in storage order.
    #[napi(catch_unwind, ts_return_type = "Float64Array")]
    pub fn handles(&self, env: &Env) -> napi::Result<Float64Array> {
        self.read(env, |tree| {
            Ok(Float64Array::new(
                tree.iter().map(|(h, _, _)| raw(h)).collect(),
            ))
        })
    }

    /// The ids of the elements `handles` names, in order. Throws (with the
    /// `index` of the first bad one) if one of them is not live.
    #[napi(catch_unwind, ts_args_type = "handles: Float64Array")]
    pub fn ids_of(&self, env: &Env, handles: Unknown<'_>) -> napi::Result<Uint32Array> {
        self.read(env, |tree| {
            let mut list = Vec::new();
            args::handles(&handles, "handles", &mut list)?;
            let ids = list
                .iter()
                .enumerate()
                .map(|(i, &h)| tree.id(h).map_err(|e| Fail::core(&e).at(i)))
                .collect::<Outcome<Vec<u32>>>()?;
            Ok(Uint32Array::new(ids))
        })
    }

    /// Counts of elements, nodes, leaves and links, and the bytes held.
    #[napi(catch_unwind)]
    pub fn stats(&self, env: &Env) -> napi::Result<Stats> {
        self.read(env, |tree| {
            let s = tree.stats();
            Ok(Stats {
                elements: s.elements as f64,
                nodes: s.nodes as f64,
                leaves: s.leaves as f64,
                empty_leaves: s.empty_leaves as f64,
                max_depth_reached: s.max_depth_reached,
                element_links: s.element_links as f64,
                bytes: s.bytes as f64,
            })
        })
    }

    /// Calls `callback(node)` for every node, depth-first, parents before
    /// children, children in the order top-left, top-right, bottom-left,
    /// bottom-right; returning `false` stops the walk. An exception thrown by the
    /// callback propagates. The callback may read the tree; a call that changes
    /// it throws `ERR_FLATQUAD_BUSY`.
    #[napi(
        catch_unwind,
        ts_args_type = "callback: (node: NodeInfo) => boolean | void"
    )]
    pub fn traverse(&self, env: &Env, callback: Unknown<'_>) -> napi::Result<()> {
        self.read(env, |tree| {
            let callback = args::function(callback, "callback")?;
            let mut failure = None;
            let mut visit = |node: &CoreNode| {
                let info = NodeInfo {
                    index: node.index,
                    depth: node.depth,
                    x1: node.rect.x1 as f64,
                    y1: node.rect.y1 as f64,
                    x2: node.rect.x2 as f64,
                    y2: node.rect.y2 as f64,
                    is_leaf: node.is_leaf,
                    count: node.count,
                };
                match args::call(&callback, info).and_then(|r| args::stops(&r)) {
                    Ok(false) => ControlFlow::Continue(()),
                    Ok(true) => ControlFlow::Break(()),
                    Err(fail) => {
                        failure = Some(fail);
                        ControlFlow::Break(())
                    }
                }
            };
            // One closure serves both kinds of node; the core calls them in turn.
            let visit = RefCell::new(&mut visit);
            let _ = tree.traverse(|n| (visit.borrow_mut())(n), |n| (visit.borrow_mut())(n));
            failure.map_or(Ok(()), Err)
        })
    }

    /// Every node in `traverse` order, as typed arrays ready to draw: `rects`
    /// (4 numbers per node), `depths`, `isLeaf` (1 or 0) and `counts`.
    #[napi(catch_unwind)]
    pub fn nodes(&self, env: &Env) -> napi::Result<Nodes> {
        self.read(env, |tree| {
            let (mut rects, mut depths, mut is_leaf, mut counts) =
                (Vec::new(), Vec::new(), Vec::new(), Vec::new());
            let mut visit = |node: &CoreNode| {
                rects.extend_from_slice(&<[f32; 4]>::from(node.rect));
                depths.push(node.depth as u8);
                is_leaf.push(node.is_leaf as u8);
                counts.push(node.count);
                ControlFlow::Continue(())
            };
            let visit = RefCell::new(&mut visit);
            let _ = tree.traverse(|n| (visit.borrow_mut())(n), |n| (visit.borrow_mut())(n));
            Ok(Nodes {
                rects: Float32Array::new(rects),
                depths: Uint8Array::new(depths),
                is_leaf: Uint8Array::new(is_leaf),
                counts: Uint32Array::new(counts),
            })
        })
    }

    /// Adds `n` rectangles at once: `rects` holds `x1, y1, x2, y2` for each
    /// (a `Float32Array` is read in place; a `Float64Array` is rounded to 32-bit
    /// floats), `ids` one id each (all 0 when left out). Returns the `n` handles.
    /// Every rectangle is checked first: on error nothing is inserted, and the
    /// error's `index` says which rectangle was refused.
    #[napi(
        catch_unwind,
        ts_args_type = "rects: Float32Array | Float64Array, ids?: Uint32Array | null",
        ts_return_type = "Float64Array"
    )]
    pub fn insert_many(
        &self,
        env: &Env,
        rects: Unknown<'_>,
        ids: Option<Unknown<'_>>,
    ) -> napi::Result<Float64Array> {
        self.write(env, "insertMany", |tree| {
            let rects: Rects = args::rects(&rects, "rects")?;
            let rects = rects.get();
            let ids = match ids.as_ref().filter(|v| !args::is_absent(Some(v))) {
                Some(ids) => Some(args::ids(ids, "ids")?),
                None => None,
            };
            let ids = match &ids {
                Some(ids) => ids.get(),
                None => std::borrow::Cow::Owned(vec![0; rects.len()]),
            };
            if ids.len() != rects.len() {
                return Err(Fail::bad_length(format!(
                    "ids holds {} ids but rects holds {} rectangles: give one id per rectangle",
                    ids.len(),
                    rects.len()
                )));
            }
            let mut handles = Vec::new();
            tree.insert_many(rects, &ids, &mut handles)
                .map_err(|e| Fail::core(&e))?;
            Ok(Float64Array::new(handles.into_iter().map(raw).collect()))
        })
    }

    /// Moves `handles[i]` to rectangle `i` of `rects` (4 numbers each), for every
    /// `i`. Everything is checked first: on error nothing moves, and the error's
    /// `index` says which item was refused.
    #[napi(
        catch_unwind,
        ts_args_type = "handles: Float64Array, rects: Float32Array | Float64Array"
    )]
    pub fn move_many(
        &self,
        env: &Env,
        handles: Unknown<'_>,
        rects: Unknown<'_>,
    ) -> napi::Result<()> {
        self.write(env, "moveMany", |tree| {
            let mut list = self.scratch.try_borrow_mut().map_err(|_| busy_scratch())?;
            args::handles(&handles, "handles", &mut list)?;
            let rects = args::rects(&rects, "rects")?;
            let rects = rects.get();
            if rects.len() != list.len() {
                return Err(Fail::bad_length(format!(
                    "handles holds {} handles but rects holds {} rectangles: give one rectangle per handle",
                    list.len(),
                    rects.len()
                )));
            }
            tree.update_many(&list, rects).map_err(|e| Fail::core(&e))
        })
    }

    /// Removes every element of `handles`. Everything is checked first: on error
    /// (a stale or repeated handle) nothing is removed, and the error's `index`
    /// says which item was refused.
    #[napi(catch_unwind, ts_args_type = "handles: Float64Array")]
    pub fn remove_many(&self, env: &Env, handles: Unknown<'_>) -> napi::Result<()> {
        self.write(env, "removeMany", |tree| {
            let mut list = self.scratch.try_borrow_mut().map_err(|_| busy_scratch())?;
            args::handles(&handles, "handles", &mut list)?;
            tree.remove_many(&list).map_err(|e| Fail::core(&e))
        })
    }

    /// One `query` per rectangle of `rects` (4 numbers each), leaving out
    /// `omit[i]` from query `i` when `omit` is given (`0` omits nothing). The
    /// hits of query `i` are `hits.subarray(offsets[i], offsets[i + 1])`.
    #[napi(
        catch_unwind,
        ts_args_type = "rects: Float32Array | Float64Array, omit?: Float64Array | null"
    )]
    pub fn query_many(
        &self,
        env: &Env,
        rects: Unknown<'_>,
        omit: Option<Unknown<'_>>,
    ) -> napi::Result<QueryManyResult> {
        self.read(env, |tree| {
            let rects = args::rects(&rects, "rects")?;
            let rects = rects.get();
            let mut owned = Vec::new();
            let mut scratch = self.scratch.try_borrow_mut();
            let list = match scratch.as_deref_mut() {
                Ok(list) => list,
                Err(_) => &mut owned,
            };
            list.clear();
            if let Some(omit) = omit.as_ref().filter(|v| !args::is_absent(Some(v))) {
                args::handles(omit, "omit", list)?;
                if list.len() != rects.len() {
                    return Err(Fail::bad_length(format!(
                        "omit holds {} handles but rects holds {} rectangles: give one handle (or 0) per rectangle",
                        list.len(),
                        rects.len()
                    )));
                }
            }
            let mut offsets = Vec::with_capacity(rects.len() + 1);
            offsets.push(0u32);
            let mut hits = Vec::with_capacity(rects.len());
            for (i, &rect) in rects.iter().enumerate() {
                let omit = list.get(i).copied().filter(|h| h.to_raw() != 0);
                let _ = tree.query_with(rect, omit, |h| {
                    hits.push(raw(h));
                    ControlFlow::Continue(())
                })
                .map_err(|e| Fail::core(&e).at(i))?;
                let end = u32::try_from(hits.len()).map_err(|_| {
                    Fail::new(
                        Class::Range,
                        code::CAPACITY,
                        "queryMany found more than 2^32 - 1 hits: split the batch",
                    )
                })?;
                offsets.push(end);
            }
            Ok(QueryManyResult {
                offsets: Uint32Array::new(offsets),
                hits: Float64Array::new(hits),
            })
        })
    }

    /// Checks every invariant of the tree; throws an `Error` naming the first
    /// broken one. Costs time proportional to the tree: for tests, not frames.
    #[napi(catch_unwind)]
    pub fn validate(&self, env: &Env) -> napi::Result<()> {
        self.read(env, |tree| {
            tree.validate()
                .map_err(|why| Fail::new(Class::Error, code::OTHER, format!("broken tree: {why}")))
        })
    }

    /// The tree's whole state as bytes (a Node `Buffer`); `Quadtree.fromBytes`
    /// gives back an equal tree, with the same handles valid.
    #[napi(catch_unwind, ts_return_type = "Uint8Array")]
    pub fn to_bytes(&self, env: &Env) -> napi::Result<Buffer> {
        self.read(env, |tree| Ok(Buffer::from(tree.to_bytes())))
    }

    /// A tree from `toBytes()`'s output. Damaged bytes throw
    /// `ERR_FLATQUAD_INVALID_BYTES`.
    #[napi(factory, catch_unwind, ts_args_type = "bytes: Uint8Array")]
    pub fn from_bytes(env: &Env, bytes: Unknown<'_>) -> napi::Result<Quadtree> {
        let outcome = guarded(
            || {},
            || {
                let array = args::bytes(&bytes, "bytes")?;
                Core::from_bytes(&array.arraybuffer).map_err(|e| Fail::core(&e))
            },
        );
        match outcome {
            Ok(tree) => Ok(Quadtree::wrap(tree)),
            Err(fail) => Quadtree::fail(env, fail),
        }
    }

    /// Test hook: panics inside a call that reads (`mutating` false) or changes
    /// the tree, so the tests can check that a panic becomes an exception and
    /// poisons the tree. Not part of the API (absent from the typings).
    #[napi(js_name = "__panicForTests", skip_typescript, catch_unwind)]
    pub fn panic_for_tests(&self, env: &Env, mutating: bool) -> napi::Result<()> {
        if mutating {
            self.write(env, "__panicForTests", |_| panic!("deliberate test panic"))
        } else {
            self.read(env, |_| panic!("deliberate test panic"))
        }
    }
}

fn busy_scratch() -> Fail {
    Fail::new(Class::Error, code::BUSY, "a batch call is already running")
}

/// Test hook: panics in an export with nothing of ours around it, so the tests
/// can check napi-rs's `catch_unwind` turns it into an exception. Not part of
/// the API (absent from the typings).
#[napi(js_name = "__panicInExportForTests", skip_typescript, catch_unwind)]
pub fn panic_in_export_for_tests() {
    panic!("deliberate test panic outside any guard");
}
