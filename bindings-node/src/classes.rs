//! The JavaScript classes: `Quadtree`, `Grid`, `LooseGrid` and `LooseQuadtree`, one per core
//! structure, each an [`Index`] inside.
//!
//! [`shared_methods!`] declares every method they share once, each a call to
//! the [`Index`] method of the same name; a class adds only its constructor
//! and the getters of its parameters. napi-rs generates `index.d.ts` from
//! these declarations, so each class is typed in full.

use napi::bindgen_prelude::{Buffer, Either4, Float64Array, This, Uint32Array};
use napi::{Env, Unknown};
use napi_derive::napi;

use crate::args;
use crate::index::Index;
use crate::objects::{
    BulkResult, Filter, JoinResult, NearestManyResult, Neighbor, Nodes, QueryManyResult, RayHit,
    Rectangle, Stats,
};

/// `common_methods!(Class, core type)`: the methods every class has, the
/// octree included (none takes a box's coordinates one by one), declared on
/// `Class` (whose field `index` is the [`Index`] of `core type`).
macro_rules! common_methods {
    ($class:ident, $core:ty) => {
        #[napi]
        impl $class {
            /// Every node (or cell) in `traverse` order, as typed arrays ready to
            /// draw: `rects` (4 numbers per node; an octree's 6), `depths`,
            /// `isLeaf` (1 or 0) and `counts`.
            #[napi(catch_unwind)]
            pub fn nodes(&self, env: &Env) -> napi::Result<Nodes> {
                self.index.nodes(env)
            }

            /// Number of elements.
            #[napi(getter, catch_unwind)]
            pub fn size(&self, env: &Env) -> napi::Result<u32> {
                self.index.size(env)
            }

            /// Removes an element; its handle goes stale. Throws an `Error` with
            /// code `ERR_FLATQUAD_INVALID_HANDLE` if the handle names no element
            /// (never issued, already removed, or cleared); nothing is changed then.
            #[napi(catch_unwind, ts_args_type = "handle: Handle")]
            pub fn remove(&self, env: &Env, handle: Unknown<'_>) -> napi::Result<()> {
                self.index.remove(env, &handle)
            }

            /// The fat-bounds margin, in world units (a 32-bit float; 0 for
            /// none; the constructor's `margin` option). Each element is filed
            /// by its box grown by the margin on every side, so a move that
            /// stays inside that fat box costs no relink; every query, pair,
            /// search and contact event still answers on the elements' own
            /// boxes. Setting it refiles every element; a NaN, negative or
            /// infinite value throws a `RangeError` and changes nothing.
            #[napi(getter, catch_unwind)]
            pub fn margin(&self, env: &Env) -> napi::Result<f64> {
                self.index.margin(env)
            }

            #[napi(setter, js_name = "margin", catch_unwind, ts_args_type = "margin: number")]
            pub fn set_margin(&self, env: &Env, margin: Unknown<'_>) -> napi::Result<()> {
                self.index.set_margin(env, &margin)
            }

            /// The lazy tidying after moves and removals (a quadtree merges
            /// emptied branches, one level per call; a loose grid shrinks its
            /// cells' boxes): call it once a frame, after the moves.
            #[napi(catch_unwind)]
            pub fn cleanup(&self, env: &Env) -> napi::Result<()> {
                self.index.cleanup(env)
            }

            /// Removes every element (every handle goes stale); keeps the memory.
            #[napi(catch_unwind)]
            pub fn clear(&self, env: &Env) -> napi::Result<()> {
                self.index.clear(env)
            }

            /// Every pair of elements whose closed rectangles meet, each pair once:
            /// `[a0, b0, a1, b1, ...]`, 2 handles per pair.
            #[napi(catch_unwind, ts_return_type = "Float64Array")]
            pub fn pairs(&self, env: &Env) -> napi::Result<Float64Array> {
                self.index.pairs(env)
            }

            /// The other elements whose rectangle meets this element's (touching
            /// counts): `query(...rectOf(handle), handle)`, but structures that
            /// know where the element lies start there.
            #[napi(
                catch_unwind,
                ts_args_type = "handle: Handle",
                ts_return_type = "Float64Array"
            )]
            pub fn overlapping(
                &self,
                env: &Env,
                handle: Unknown<'_>,
            ) -> napi::Result<Float64Array> {
                self.index.overlapping(env, &handle)
            }

            /// `overlapping` for every handle at once, the per-agent query of a
            /// collision loop in one call: the neighbours of `handles[i]` are
            /// `hits.subarray(offsets[i], offsets[i + 1])`. A stale handle is
            /// refused (the error's `index` says which) and nothing is returned.
            #[napi(catch_unwind, ts_args_type = "handles: Float64Array")]
            pub fn overlapping_many(
                &self,
                env: &Env,
                handles: Unknown<'_>,
            ) -> napi::Result<QueryManyResult> {
                self.index.overlapping_many(env, &handles)
            }

            /// One `query` per rectangle of `rects` (4 numbers each; 6, `x1, y1, z1, x2, y2, z2`, for an `Octree`), in one call
            /// to the core (on several threads for big batches), leaving out
            /// `omit[i]` from query `i` when `omit` is given: then every entry
            /// must be a live handle (the error's `index` says which is not). The
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
                self.index.query_many(env, &rects, omit.as_ref())
            }

            /// Sets the element's collision filter: from now on `pairs`,
            /// `overlapping` and `overlappingMany` report it with another element
            /// only when each one's `category` has a bit in the other's `mask`
            /// (Box2D's rule), and a query given a `mask` reports it only when
            /// its `category` has a bit in that mask. Each is 32 bits: an integer
            /// from 0 to 2^32 - 1, or a negative one as `~` gives (read as
            /// `x >>> 0`). Every element starts with all bits set (everything
            /// collides); removing it resets its filter. Throws as `remove` does
            /// for a bad handle; nothing is changed then.
            #[napi(
                catch_unwind,
                ts_args_type = "handle: Handle, category: number, mask: number"
            )]
            pub fn set_filter(
                &self,
                env: &Env,
                handle: Unknown<'_>,
                category: Unknown<'_>,
                mask: Unknown<'_>,
            ) -> napi::Result<()> {
                self.index.set_filter(env, &handle, &category, &mask)
            }

            /// The element's collision filter (`setFilter`), as unsigned numbers.
            #[napi(catch_unwind, ts_args_type = "handle: Handle")]
            pub fn filter(&self, env: &Env, handle: Unknown<'_>) -> napi::Result<Filter> {
                self.index.filter(env, &handle)
            }

            /// `setFilter(handles[i], categories[i], masks[i])` for every `i`.
            /// Everything is checked first: on error (a stale handle, lengths
            /// that differ) nothing changes, and the error's `index` says which
            /// handle was refused.
            #[napi(
                catch_unwind,
                ts_args_type = "handles: Float64Array, categories: Uint32Array, masks: Uint32Array"
            )]
            pub fn set_filters(
                &self,
                env: &Env,
                handles: Unknown<'_>,
                categories: Unknown<'_>,
                masks: Unknown<'_>,
            ) -> napi::Result<()> {
                self.index.set_filters(env, &handles, &categories, &masks)
            }

            /// `queryCircle` for every `(centers[i], radii[i])` in one call: `centers`
            /// holds 2 numbers `x, y` per center (an `Octree`'s 3, `x, y, z`),
            /// `radii` one radius each; the hits of circle `i` are
            /// `hits.subarray(offsets[i], offsets[i + 1])`. A bad center or radius
            /// is refused (the error's `index` says which) and nothing is returned.
            #[napi(
                catch_unwind,
                ts_args_type = "centers: Float32Array | Float64Array, radii: Float32Array | Float64Array, mask?: number | null"
            )]
            pub fn query_circle_many(
                &self,
                env: &Env,
                centers: Unknown<'_>,
                radii: Unknown<'_>,
                mask: Option<Unknown<'_>>,
            ) -> napi::Result<QueryManyResult> {
                self.index
                    .query_circle_many(env, &centers, &radii, mask.as_ref())
            }

            /// `nearest` for every point of `points` (2 numbers `x, y` each; an
            /// `Octree`'s 3) in one call, with the same `k` and options (no
            /// `filter` callback): the neighbours of point `i` are at positions
            /// `offsets[i]` to `offsets[i + 1]` of `handles`, `ids` and
            /// `distances`, nearest first. A bad point is refused (the error's
            /// `index` says which) and nothing is returned.
            #[napi(
                catch_unwind,
                ts_args_type = "points: Float32Array | Float64Array, k?: number | null, options?: NearestManyOptions | null"
            )]
            pub fn nearest_many(
                &self,
                env: &Env,
                points: Unknown<'_>,
                k: Option<Unknown<'_>>,
                options: Option<Unknown<'_>>,
            ) -> napi::Result<NearestManyResult> {
                self.index
                    .nearest_many(env, &points, k.as_ref(), options.as_ref())
            }

            /// The id the element was inserted with.
            #[napi(catch_unwind, ts_args_type = "handle: Handle")]
            pub fn id_of(&self, env: &Env, handle: Unknown<'_>) -> napi::Result<u32> {
                self.index.id_of(env, &handle)
            }

            /// Whether `handle` names an element of this index now (false for any
            /// number that is not a live handle).
            #[napi(catch_unwind, ts_args_type = "handle: Handle")]
            pub fn has(&self, env: &Env, handle: Unknown<'_>) -> napi::Result<bool> {
                self.index.has(env, &handle)
            }

            /// The handles of every element, in storage order.
            #[napi(catch_unwind, ts_return_type = "Float64Array")]
            pub fn handles(&self, env: &Env) -> napi::Result<Float64Array> {
                self.index.handles(env)
            }

            /// The ids of the elements `handles` names, in order. Throws (with the
            /// `index` of the first bad one) if one of them is not live.
            #[napi(catch_unwind, ts_args_type = "handles: Float64Array")]
            pub fn ids_of(&self, env: &Env, handles: Unknown<'_>) -> napi::Result<Uint32Array> {
                self.index.ids_of(env, &handles)
            }

            /// Counts of elements, nodes or cells, leaves and links, and the bytes held.
            #[napi(catch_unwind)]
            pub fn stats(&self, env: &Env) -> napi::Result<Stats> {
                self.index.stats(env)
            }

            /// Adds `n` rectangles at once: `rects` holds `x1, y1, x2, y2` for each (an `Octree`'s `x1, y1, z1, x2, y2, z2`)
            /// (a `Float32Array` is read in place; a `Float64Array` is rounded to
            /// 32-bit floats), `ids` one id each (all 0 when left out). Returns the
            /// `n` handles. Every rectangle is checked first: on error nothing is
            /// inserted, and the error's `index` says which rectangle was refused.
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
                self.index.insert_many(env, &rects, ids.as_ref())
            }

            /// Moves `handles[i]` to rectangle `i` of `rects` (4 numbers each; 6, `x1, y1, z1, x2, y2, z2`, for an `Octree`), for
            /// every `i`. Everything is checked first: on error nothing moves, and
            /// the error's `index` says which item was refused.
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
                self.index.move_many(env, &handles, &rects)
            }

            /// Removes every element of `handles`. Everything is checked first: on
            /// error (a stale or repeated handle) nothing is removed, and the
            /// error's `index` says which item was refused.
            #[napi(catch_unwind, ts_args_type = "handles: Float64Array")]
            pub fn remove_many(&self, env: &Env, handles: Unknown<'_>) -> napi::Result<()> {
                self.index.remove_many(env, &handles)
            }

            /// Checks every invariant; throws an `Error` naming the first broken
            /// one. Costs time proportional to the size: for tests, not frames.
            #[napi(catch_unwind)]
            pub fn validate(&self, env: &Env) -> napi::Result<()> {
                self.index.validate(env)
            }

            /// The whole state as bytes (a Node `Buffer`); `fromBytes` gives back
            /// an equal index, with the same handles valid.
            #[napi(catch_unwind, ts_return_type = "Uint8Array")]
            pub fn to_bytes(&self, env: &Env) -> napi::Result<Buffer> {
                self.index.to_bytes(env)
            }

            /// An index of this class from `toBytes()`'s output. Damaged bytes,
            /// or a snapshot of another class (see the module's `fromBytes`),
            /// throw `ERR_FLATQUAD_INVALID_BYTES`.
            #[napi(factory, catch_unwind, ts_args_type = "bytes: Uint8Array")]
            pub fn from_bytes(env: &Env, bytes: Unknown<'_>) -> napi::Result<Self> {
                Index::decode(env, &bytes, <$core as flatquad::SpatialIndex>::from_bytes)
                    .map(|index| $class { index })
            }

            /// Test hook: panics inside a call that reads (`mutating` false) or
            /// changes the index, so the tests can check that a panic becomes an
            /// exception and poisons it. Not part of the API (absent from the typings).
            #[napi(js_name = "__panicForTests", skip_typescript, catch_unwind)]
            pub fn panic_for_tests(&self, env: &Env, mutating: bool) -> napi::Result<()> {
                self.index.panic_for_tests(env, mutating)
            }
        }
    };
}

pub(crate) use common_methods;

/// `shared_methods!(Class, core type, "Class")`: the methods every 2D class
/// has, declared on `Class` (whose field `index` is the [`Index`]): the common
/// ones and those taking a rectangle's four coordinates.
macro_rules! shared_methods {
    ($class:ident, $core:ty, $kind:tt) => {
        impl From<Index> for $class {
            fn from(index: Index) -> $class {
                $class { index }
            }
        }

        impl $class {
            /// The index inside (for a `PairTracker`).
            pub(crate) fn inner(&self) -> &Index {
                &self.index
            }
        }

        common_methods!($class, $core);

        #[napi]
        impl $class {
            /// Which structure this is.
            #[napi(getter, ts_return_type = $kind)]
            pub fn kind(&self) -> &'static str {
                self.index.name()
            }

            /// The world rectangle it was made with, as corners (32-bit floats,
            /// what it stores): `new Class(index.world, ...)` divides the same world.
            #[napi(getter, catch_unwind)]
            pub fn world(&self, env: &Env) -> napi::Result<Rectangle> {
                self.index.world_box(env, crate::index::rectangle)
            }

            /// Adds the rectangle `[x1, x2] × [y1, y2]` with an id of yours (an
            /// integer from 0 to 2^32 - 1; 0 when left out) and returns its handle.
            /// Coordinates are rounded to the nearest 32-bit float.
            ///
            /// Throws a `RangeError` (`ERR_FLATQUAD_INVALID_RECT`) for NaN or
            /// infinite coordinates (a number beyond the 32-bit range rounds to
            /// an infinity) or `x1 > x2` / `y1 > y2`; nothing is changed then.
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
                self.index.insert(env, &[&x1, &y1, &x2, &y2], id.as_ref())
            }

            /// Gives an element a new rectangle. Throws as `insert` does for a bad
            /// rectangle and as `remove` does for a bad handle; nothing is changed then.
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
                self.index.move_to(env, &handle, &[&x1, &y1, &x2, &y2])
            }

            /// Handles of the elements whose closed rectangle meets the closed
            /// rectangle `[x1, x2] × [y1, y2]`, each once, leaving out `omit` (a
            /// live handle; `0`, `null` or `undefined` omit nothing) and, with a
            /// `mask`, the elements whose filter category has no bit in it (see
            /// `setFilter`; left out, every element).
            #[napi(
                catch_unwind,
                ts_args_type = "x1: number, y1: number, x2: number, y2: number, omit?: Handle | null, mask?: number | null",
                ts_return_type = "Float64Array"
            )]
            #[allow(clippy::too_many_arguments)]
            pub fn query(
                &self,
                env: &Env,
                x1: Unknown<'_>,
                y1: Unknown<'_>,
                x2: Unknown<'_>,
                y2: Unknown<'_>,
                omit: Option<Unknown<'_>>,
                mask: Option<Unknown<'_>>,
            ) -> napi::Result<Float64Array> {
                self.index
                    .query(env, &[&x1, &y1, &x2, &y2], omit.as_ref(), mask.as_ref())
            }

            /// Handles of the elements whose closed rectangle holds the point
            /// `(x, y)`, leaving out `omit` and, with a `mask`, the elements
            /// whose category has no bit in it.
            #[napi(
                catch_unwind,
                ts_args_type = "x: number, y: number, omit?: Handle | null, mask?: number | null",
                ts_return_type = "Float64Array"
            )]
            pub fn query_point(
                &self,
                env: &Env,
                x: Unknown<'_>,
                y: Unknown<'_>,
                omit: Option<Unknown<'_>>,
                mask: Option<Unknown<'_>>,
            ) -> napi::Result<Float64Array> {
                self.index
                    .query_point(env, &[&x, &y], omit.as_ref(), mask.as_ref())
            }

            /// Handles of the elements whose closed rectangle is within `radius`
            /// of `(x, y)` (at distance `<= radius`, in 64-bit floats from the
            /// 32-bit coordinates), in no particular order, leaving out, with a
            /// `mask`, the elements whose category has no bit in it. Throws a
            /// `RangeError` for a NaN or infinite center or a NaN or negative
            /// `radius` (`Infinity` is fine: everything).
            #[napi(
                catch_unwind,
                ts_args_type = "x: number, y: number, radius: number, mask?: number | null",
                ts_return_type = "Float64Array"
            )]
            pub fn query_circle(
                &self,
                env: &Env,
                x: Unknown<'_>,
                y: Unknown<'_>,
                radius: Unknown<'_>,
                mask: Option<Unknown<'_>>,
            ) -> napi::Result<Float64Array> {
                self.index
                    .query_circle(env, &[&x, &y], &radius, mask.as_ref())
            }

            /// The `k` (default 1; an integer `>= 0`) elements nearest to `(x, y)`,
            /// nearest first, fewer if there are fewer: `[{ handle, id, distance }]`,
            /// the distance to the element's closed rectangle (0 inside it).
            /// Ties go to the smaller id, then the smaller handle. Options:
            /// `maxDistance` (closed), `mask` (only the categories in it) and
            /// `filter(handle)`, called nearest first, which leaves out the
            /// elements it returns a falsy value for (they do not count towards
            /// `k`); an exception it throws propagates. Throws a `RangeError` for
            /// a NaN or infinite point, a negative or non-integer `k`, or a NaN
            /// or negative `maxDistance`.
            #[napi(
                catch_unwind,
                ts_args_type = "x: number, y: number, k?: number | null, options?: NearestOptions | null"
            )]
            pub fn nearest(
                &self,
                env: &Env,
                x: Unknown<'_>,
                y: Unknown<'_>,
                k: Option<Unknown<'_>>,
                options: Option<Unknown<'_>>,
            ) -> napi::Result<Vec<Neighbor>> {
                self.index
                    .nearest(env, &[&x, &y], k.as_ref(), options.as_ref())
            }

            /// The first element the segment from `(ox, oy)` along `(dx, dy)` (any
            /// length but 0; normalised in 64-bit floats) for `maxLength` hits:
            /// `{ handle, id, distance, fraction }` or `null`. Closed boxes: a ray
            /// starting inside one hits it at distance 0; ties go to the smaller
            /// id, then handle. With a `mask`, only the categories in it. Throws
            /// a `RangeError` for a NaN or infinite origin, a zero or non-finite
            /// direction, or a `maxLength` that is NaN, negative or infinite.
            #[napi(
                catch_unwind,
                ts_args_type = "ox: number, oy: number, dx: number, dy: number, maxLength: number, mask?: number | null"
            )]
            #[allow(clippy::too_many_arguments)]
            pub fn ray_cast(
                &self,
                env: &Env,
                ox: Unknown<'_>,
                oy: Unknown<'_>,
                dx: Unknown<'_>,
                dy: Unknown<'_>,
                max_length: Unknown<'_>,
                mask: Option<Unknown<'_>>,
            ) -> napi::Result<Option<RayHit>> {
                self.index
                    .ray_cast(env, &[&ox, &oy], &[&dx, &dy], &max_length, mask.as_ref())
            }

            /// The first element the rectangle `(x1, y1, x2, y2)` touches when it
            /// moves by `t * (dx, dy)` for `t` from 0 to 1, or `null`: the first of
            /// `boxCastAll`. `hit.fraction` is `t`, `hit.distance` that times the
            /// motion's length. Pass `omit` (the moving element's own handle) to
            /// ask where it can go. Throws a `RangeError` for a bad rectangle or a
            /// NaN or infinite motion.
            #[napi(
                catch_unwind,
                ts_args_type = "x1: number, y1: number, x2: number, y2: number, dx: number, dy: number, mask?: number | null, omit?: number | null"
            )]
            #[allow(clippy::too_many_arguments)]
            pub fn box_cast(
                &self,
                env: &Env,
                x1: Unknown<'_>,
                y1: Unknown<'_>,
                x2: Unknown<'_>,
                y2: Unknown<'_>,
                dx: Unknown<'_>,
                dy: Unknown<'_>,
                mask: Option<Unknown<'_>>,
                omit: Option<Unknown<'_>>,
            ) -> napi::Result<Option<RayHit>> {
                let hits = self.index.box_cast(
                    env,
                    &[&x1, &y1, &x2, &y2],
                    &[&dx, &dy],
                    mask.as_ref(),
                    omit.as_ref(),
                    false,
                )?;
                Ok(hits.into_iter().next())
            }

            /// Every element the moving rectangle of `boxCast` touches, in
            /// ascending `(fraction, id, handle)` order (one it touches where it
            /// starts at fraction 0).
            #[napi(
                catch_unwind,
                ts_args_type = "x1: number, y1: number, x2: number, y2: number, dx: number, dy: number, mask?: number | null, omit?: number | null"
            )]
            #[allow(clippy::too_many_arguments)]
            pub fn box_cast_all(
                &self,
                env: &Env,
                x1: Unknown<'_>,
                y1: Unknown<'_>,
                x2: Unknown<'_>,
                y2: Unknown<'_>,
                dx: Unknown<'_>,
                dy: Unknown<'_>,
                mask: Option<Unknown<'_>>,
                omit: Option<Unknown<'_>>,
            ) -> napi::Result<Vec<RayHit>> {
                self.index.box_cast(
                    env,
                    &[&x1, &y1, &x2, &y2],
                    &[&dx, &dy],
                    mask.as_ref(),
                    omit.as_ref(),
                    true,
                )
            }

            /// Every element the ray hits, nearest first (ties: id, then handle).
            #[napi(
                catch_unwind,
                ts_args_type = "ox: number, oy: number, dx: number, dy: number, maxLength: number, mask?: number | null"
            )]
            #[allow(clippy::too_many_arguments)]
            pub fn ray_cast_all(
                &self,
                env: &Env,
                ox: Unknown<'_>,
                oy: Unknown<'_>,
                dx: Unknown<'_>,
                dy: Unknown<'_>,
                max_length: Unknown<'_>,
                mask: Option<Unknown<'_>>,
            ) -> napi::Result<Vec<RayHit>> {
                self.index
                    .ray_cast_all(env, &[&ox, &oy], &[&dx, &dy], &max_length, mask.as_ref())
            }

            /// Calls `callback(hit)` for each hit of `rayCastAll`, in its order; the
            /// callback returns nothing or `true` to go on, `false` to stop, or a
            /// number to shorten the ray to that length (only hits at most that
            /// far are visited from then on: return `hit.distance` to keep the
            /// nearest). An exception thrown by the callback propagates. The
            /// callback may read the index; a call that changes it throws
            /// `ERR_FLATQUAD_BUSY`.
            #[napi(
                catch_unwind,
                ts_args_type = "ox: number, oy: number, dx: number, dy: number, maxLength: number, callback: (hit: RayHit) => boolean | number | void, mask?: number | null"
            )]
            #[allow(clippy::too_many_arguments)]
            pub fn ray_cast_with(
                &self,
                env: &Env,
                ox: Unknown<'_>,
                oy: Unknown<'_>,
                dx: Unknown<'_>,
                dy: Unknown<'_>,
                max_length: Unknown<'_>,
                callback: Unknown<'_>,
                mask: Option<Unknown<'_>>,
            ) -> napi::Result<()> {
                self.index.ray_cast_with(
                    env,
                    &[&ox, &oy],
                    &[&dx, &dy],
                    &max_length,
                    callback,
                    mask.as_ref(),
                )
            }

            /// Calls `callback(handle)` for each element `query` would return,
            /// until the callback returns `false`. An exception thrown by the
            /// callback propagates. The callback may read the index; a call that
            /// changes it throws `ERR_FLATQUAD_BUSY`.
            #[napi(
                catch_unwind,
                ts_args_type = "x1: number, y1: number, x2: number, y2: number, callback: (handle: Handle) => boolean | void, omit?: Handle | null, mask?: number | null"
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
                mask: Option<Unknown<'_>>,
            ) -> napi::Result<()> {
                self.index.query_with(
                    env,
                    &[&x1, &y1, &x2, &y2],
                    callback,
                    omit.as_ref(),
                    mask.as_ref(),
                )
            }

            /// Every pair `(i, h)` such that rectangle `i` of `rects` (4 numbers
            /// each; a `Float64Array` is rounded to the nearest `f32` once, which
            /// never loses a pair whose boxes meet in `f64`) meets the element
            /// `h`: `rows[k]` is `i`, `hits[k]` the handle. Rows increase; with
            /// `sort`, the handles of each row too. `queryMany` is the same
            /// batch in compressed rows.
            #[napi(
                catch_unwind,
                ts_args_type = "rects: Float32Array | Float64Array, sort?: boolean | null"
            )]
            pub fn query_bulk(
                &self,
                env: &Env,
                rects: Unknown<'_>,
                sort: Option<bool>,
            ) -> napi::Result<BulkResult> {
                self.index.query_bulk(env, &rects, sort)
            }

            /// Every pair of an element of this index and an element of
            /// `other` (any class) whose rectangles meet, each pair once:
            /// `left[k]` of this index meets `right[k]` of `other`. With `sort`,
            /// in increasing `(left, right)` order.
            #[napi(catch_unwind, ts_args_type = "other: Quadtree | Grid | LooseGrid | LooseQuadtree, sort?: boolean | null")]
            pub fn join(
                &self,
                env: &Env,
                other: Either4<&Quadtree, &Grid, &LooseGrid, &LooseQuadtree>,
                sort: Option<bool>,
            ) -> napi::Result<JoinResult> {
                let other = match other {
                    Either4::A(o) => &o.index,
                    Either4::B(o) => &o.index,
                    Either4::C(o) => &o.index,
                    Either4::D(o) => &o.index,
                };
                self.index.join(env, other, sort)
            }

            /// The element's rectangle (as 32-bit floats: what the index stores).
            #[napi(catch_unwind, ts_args_type = "handle: Handle")]
            pub fn rect_of(&self, env: &Env, handle: Unknown<'_>) -> napi::Result<Rectangle> {
                self.index.rect_of(env, &handle, crate::index::rectangle)
            }

            /// Calls `callback(node)` for every node of a tree (depth-first,
            /// parents before children, children in the order top-left, top-right,
            /// bottom-left, bottom-right) or every cell of a grid (as leaves of
            /// depth 0); returning `false` stops the walk. An exception thrown by
            /// the callback propagates. The callback may read the index; a call
            /// that changes it throws `ERR_FLATQUAD_BUSY`.
            #[napi(catch_unwind, ts_args_type = "callback: (node: NodeInfo) => boolean | void")]
            pub fn traverse(&self, env: &Env, callback: Unknown<'_>) -> napi::Result<()> {
                self.index.traverse(env, callback, crate::objects::NodeInfo::of)
            }
        }
    };
}

/// The structure a tree's options give: `{ maxElements, maxDepth }`, each left
/// out taking the trees' default (8 and 8), so no options give the defaults.
fn tree_options<C>(
    options: Option<&Unknown<'_>>,
    world: flatquad::Rect,
    new: impl FnOnce(flatquad::Rect, u32, u32) -> Result<C, flatquad::Error>,
) -> crate::error::Outcome<Result<C, flatquad::Error>> {
    use flatquad::Quadtree as Defaults;
    let (mut max_elements, mut max_depth) = (None, None);
    if let Some(options) = args::options(options, "{ maxElements, maxDepth }")? {
        max_elements = args::option_u32(options, c"maxElements")?;
        max_depth = args::option_u32(options, c"maxDepth")?;
    }
    Ok(new(
        world,
        max_elements.unwrap_or(Defaults::DEFAULT_MAX_ELEMENTS),
        max_depth.unwrap_or(Defaults::DEFAULT_MAX_DEPTH),
    ))
}

/// A flat quadtree over rectangles, for broad-phase collision detection and
/// region queries over many moving elements of any sizes.
///
/// Results are exact for 32-bit floats: a query returns precisely the elements
/// whose closed rectangle meets the closed query rectangle. Coordinates are
/// rounded to the nearest 32-bit float when they come in.
#[napi]
pub struct Quadtree {
    index: Index,
}

#[napi]
impl Quadtree {
    /// An empty tree over `world`, given as corners `{ x1, y1, x2, y2 }` or as
    /// `{ x, y, width, height }`. Elements and queries outside the world are
    /// fine (they live in the border leaves); the world only sets where the tree
    /// divides the plane. Options left out take their defaults.
    ///
    /// Throws a `RangeError` for a world that is not finite or has no area, or
    /// options out of range; a `TypeError` for arguments of the wrong type.
    #[napi(
        constructor,
        catch_unwind,
        ts_args_type = "world: Rectangle | WorldRect, options?: QuadtreeOptions"
    )]
    pub fn new(
        env: &Env,
        this: This<'_>,
        world: Unknown<'_>,
        options: Option<Unknown<'_>>,
    ) -> napi::Result<Self> {
        let index = Index::construct(env, &this, &world, options.as_ref(), |world| {
            tree_options(options.as_ref(), world, flatquad::Quadtree::new)
        })?;
        Ok(Quadtree { index })
    }

    /// Elements a leaf holds before it splits.
    #[napi(getter, catch_unwind)]
    pub fn max_elements(&self, env: &Env) -> napi::Result<u32> {
        self.index.read_as(env, flatquad::Quadtree::max_elements)
    }

    /// Depth below which leaves no longer split.
    #[napi(getter, catch_unwind)]
    pub fn max_depth(&self, env: &Env) -> napi::Result<u32> {
        self.index.read_as(env, flatquad::Quadtree::max_depth)
    }
}
shared_methods!(Quadtree, flatquad::Quadtree, "'Quadtree'");

/// A uniform grid over rectangles: for many elements of similar size. Same
/// methods and exact results as `Quadtree`.
#[napi]
pub struct Grid {
    index: Index,
}

#[napi]
impl Grid {
    /// An empty grid over `world` (corners `{ x1, y1, x2, y2 }` or `{ x, y,
    /// width, height }`), of `columns × rows` cells, or of cells of `cellSize`
    /// (a number, or `[width, height]`); defaults for the world when the
    /// options are left out. Elements outside the world belong to the border cells.
    ///
    /// Throws a `RangeError` for a world that is not finite or has no area, or
    /// options out of range; a `TypeError` for arguments of the wrong type.
    #[napi(
        constructor,
        catch_unwind,
        ts_args_type = "world: Rectangle | WorldRect, options?: GridCells | GridCellSize | MarginOption"
    )]
    pub fn new(
        env: &Env,
        this: This<'_>,
        world: Unknown<'_>,
        options: Option<Unknown<'_>>,
    ) -> napi::Result<Self> {
        use flatquad::Grid as Core;
        const FORMS: &str = "{ columns, rows } or { cellSize }";
        let index = Index::construct(env, &this, &world, options.as_ref(), |world| {
            let Some(options) = args::options(options.as_ref(), FORMS)? else {
                return Ok(Core::for_world(world));
            };
            let cells = args::option_u32s(options, [c"columns", c"rows"])?;
            Ok(match (cells, args::cell_size(options, true)?) {
                (None, None) => Core::for_world(world),
                (Some([columns, rows]), None) => Core::new(world, columns, rows),
                (None, Some((width, height))) => Core::with_cell_size(world, width, height),
                (Some(_), Some(_)) => return Err(args::both_forms(FORMS)),
            })
        })?;
        Ok(Grid { index })
    }

    /// Columns of cells.
    #[napi(getter, catch_unwind)]
    pub fn columns(&self, env: &Env) -> napi::Result<u32> {
        self.index.read_as(env, flatquad::Grid::columns)
    }

    /// Rows of cells.
    #[napi(getter, catch_unwind)]
    pub fn rows(&self, env: &Env) -> napi::Result<u32> {
        self.index.read_as(env, flatquad::Grid::rows)
    }

    /// Width of a cell.
    #[napi(getter, catch_unwind)]
    pub fn cell_width(&self, env: &Env) -> napi::Result<f64> {
        self.index
            .read_as(env, |grid: &flatquad::Grid| grid.cell_width().into())
    }

    /// Height of a cell.
    #[napi(getter, catch_unwind)]
    pub fn cell_height(&self, env: &Env) -> napi::Result<f64> {
        self.index
            .read_as(env, |grid: &flatquad::Grid| grid.cell_height().into())
    }
}
shared_methods!(Grid, flatquad::Grid, "'Grid'");

/// The loose/tight double grid: every element in exactly one loose cell, whose
/// box grows and shrinks around its elements. Same methods and exact results as
/// `Quadtree`.
#[napi]
pub struct LooseGrid {
    index: Index,
}

#[napi]
impl LooseGrid {
    /// An empty loose grid over `world` (corners `{ x1, y1, x2, y2 }` or `{ x,
    /// y, width, height }`), of `columns × rows` loose cells and `tightColumns ×
    /// tightRows` tight ones, or of loose cells of `cellSize`; defaults for the
    /// world when the options are left out.
    ///
    /// Throws a `RangeError` for a world that is not finite or has no area, or
    /// options out of range; a `TypeError` for arguments of the wrong type.
    #[napi(
        constructor,
        catch_unwind,
        ts_args_type = "world: Rectangle | WorldRect, options?: LooseGridCells | LooseGridCellSize | MarginOption"
    )]
    pub fn new(
        env: &Env,
        this: This<'_>,
        world: Unknown<'_>,
        options: Option<Unknown<'_>>,
    ) -> napi::Result<Self> {
        use flatquad::LooseGrid as Core;
        const FORMS: &str = "{ columns, rows, tightColumns, tightRows } or { cellSize }";
        let index = Index::construct(env, &this, &world, options.as_ref(), |world| {
            let Some(options) = args::options(options.as_ref(), FORMS)? else {
                return Ok(Core::for_world(world));
            };
            let names = [c"columns", c"rows", c"tightColumns", c"tightRows"];
            Ok(
                match (
                    args::option_u32s(options, names)?,
                    args::cell_size(options, false)?,
                ) {
                    (None, None) => Core::for_world(world),
                    (Some([c, r, tc, tr]), None) => Core::new(world, c, r, tc, tr),
                    (None, Some((size, _))) => Core::with_cell_size(world, size),
                    (Some(_), Some(_)) => return Err(args::both_forms(FORMS)),
                },
            )
        })?;
        Ok(LooseGrid { index })
    }

    /// Columns of loose cells.
    #[napi(getter, catch_unwind)]
    pub fn columns(&self, env: &Env) -> napi::Result<u32> {
        self.index.read_as(env, flatquad::LooseGrid::columns)
    }

    /// Rows of loose cells.
    #[napi(getter, catch_unwind)]
    pub fn rows(&self, env: &Env) -> napi::Result<u32> {
        self.index.read_as(env, flatquad::LooseGrid::rows)
    }

    /// Columns of tight cells.
    #[napi(getter, catch_unwind)]
    pub fn tight_columns(&self, env: &Env) -> napi::Result<u32> {
        self.index.read_as(env, flatquad::LooseGrid::tight_columns)
    }

    /// Rows of tight cells.
    #[napi(getter, catch_unwind)]
    pub fn tight_rows(&self, env: &Env) -> napi::Result<u32> {
        self.index.read_as(env, flatquad::LooseGrid::tight_rows)
    }
}
shared_methods!(LooseGrid, flatquad::LooseGrid, "'LooseGrid'");

/// A loose quadtree over rectangles: each element lives in exactly one leaf,
/// chosen by its centre, and the nodes' boxes grow to hold it, so large
/// elements cost no more than small ones. Same methods and exact results as
/// `Quadtree`; the same options.
///
/// Results are exact for 32-bit floats: a query returns precisely the elements
/// whose closed rectangle meets the closed query rectangle. Coordinates are
/// rounded to the nearest 32-bit float when they come in.
#[napi]
pub struct LooseQuadtree {
    index: Index,
}

#[napi]
impl LooseQuadtree {
    /// An empty loose tree over `world`, given as corners `{ x1, y1, x2, y2 }`
    /// or as `{ x, y, width, height }`. Elements and queries outside the world
    /// are fine; the world only sets where the tree divides the plane. Options
    /// left out take their defaults.
    ///
    /// Throws a `RangeError` for a world that is not finite or has no area, or
    /// options out of range; a `TypeError` for arguments of the wrong type.
    #[napi(
        constructor,
        catch_unwind,
        ts_args_type = "world: Rectangle | WorldRect, options?: LooseQuadtreeOptions"
    )]
    pub fn new(
        env: &Env,
        this: This<'_>,
        world: Unknown<'_>,
        options: Option<Unknown<'_>>,
    ) -> napi::Result<Self> {
        use flatquad::LooseQuadtree as Core;
        let index = Index::construct(env, &this, &world, options.as_ref(), |world| {
            let max_extent =
                match args::options(options.as_ref(), "{ maxElements, maxDepth, maxExtent }")? {
                    Some(options) => args::option_f32(options, c"maxExtent")?,
                    None => None,
                };
            tree_options(
                options.as_ref(),
                world,
                |world, max_elements, max_depth| match max_extent {
                    Some(extent) => Core::with_max_extent(world, max_elements, max_depth, extent),
                    None => Core::new(world, max_elements, max_depth),
                },
            )
        })?;
        Ok(LooseQuadtree { index })
    }

    /// Elements wider or taller than this are kept apart (`maxExtent`);
    /// `null` without a bound.
    #[napi(getter, catch_unwind)]
    pub fn max_extent(&self, env: &Env) -> napi::Result<Option<f64>> {
        self.index.read_as(env, |tree: &flatquad::LooseQuadtree| {
            tree.max_extent().map(f64::from)
        })
    }

    /// Elements a leaf holds before it splits.
    #[napi(getter, catch_unwind)]
    pub fn max_elements(&self, env: &Env) -> napi::Result<u32> {
        self.index
            .read_as(env, flatquad::LooseQuadtree::max_elements)
    }

    /// Depth below which leaves no longer split.
    #[napi(getter, catch_unwind)]
    pub fn max_depth(&self, env: &Env) -> napi::Result<u32> {
        self.index.read_as(env, flatquad::LooseQuadtree::max_depth)
    }
}
shared_methods!(LooseQuadtree, flatquad::LooseQuadtree, "'LooseQuadtree'");
