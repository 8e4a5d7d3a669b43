//! The methods every class declares, written once for both dimensions:
//! [`methods!`] takes the coordinate names of one dimension (`x1, y1, x2, y2`
//! or `x1, y1, z1, x2, y2, z2`, ...) and the objects its boxes and nodes are
//! shown as, and declares each method on a class as one call to the [`Index`]
//! method of the same name, which is generic over the core type.
//!
//! A macro, not generics: napi-rs reads each JavaScript method, and its
//! TypeScript signature, from a concrete `#[napi]` declaration, and the
//! number of coordinate arguments differs by dimension. Each argument
//! carries its TypeScript type (`ts_arg_type`), so one body gives both
//! signatures in `index.d.ts`.
//!
//! [`Index`]: crate::index::Index

/// `methods! { class: Class, core: core type, kind: "'Class'", ... }`: every
/// method of `Class` (whose field `index` is the [`Index`] of `core type`)
/// but its constructor and the getters of its parameters.
///
/// - `boxes`, `nodes`: the objects (of [`crate::objects`]) a box and a
///   `traverse` node are shown as.
/// - `kind`, `traverse`: the TypeScript type of `kind` and the arguments of
///   `traverse` (whose callback names the node object), each one string
///   literal: napi-rs reads attribute values as written, so `concat!` cannot
///   build them.
/// - `corners`, `point`, `origin`, `direction`: the names of the coordinate
///   arguments of a box, a point, a ray's origin and a direction (or motion).
///
/// The module invoking it imports the types the bodies name.
///
/// [`Index`]: crate::index::Index
macro_rules! methods {
    (
        class: $class:ident,
        core: $core:ty,
        kind: $kind:tt,
        boxes: $boxed:ident,
        nodes: $node:ident,
        traverse: $traverse_args:tt,
        corners: [$($corner:ident),+],
        point: [$($axis:ident),+],
        origin: [$($origin:ident),+],
        direction: [$($direction:ident),+] $(,)?
    ) => {
        // The methods that take no coordinates.
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
            ///
            /// With `out`, a `Float64Array` kept from frame to frame, the handles
            /// are written to its start and the answer is `out.subarray(0, 2 *
            /// pairCount)`: no new memory a frame for the garbage collector. If
            /// `out` is too short for them, the answer is a new array, as
            /// without it, and `out` is left as it was.
            #[napi(
                catch_unwind,
                ts_args_type = "out?: Float64Array | null",
                ts_return_type = "Float64Array"
            )]
            pub fn pairs(&self, env: &Env, out: Option<Unknown<'_>>) -> napi::Result<Written<f64>> {
                self.index.pairs_into(env, out.as_ref())
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
            ) -> napi::Result<Typed<f64>> {
                self.index
                    .hits(env, crate::index::Asked::Element { handle: &handle })
            }

            /// `overlapping` for every handle at once, the per-agent query of a
            /// collision loop in one call: the neighbours of `handles[i]` are
            /// `hits.subarray(offsets[i], offsets[i + 1])`. A stale handle is
            /// refused (the error's `index` says which) and nothing is returned.
            ///
            /// With `out`, `{ offsets, hits }` arrays kept from frame to frame
            /// (a `Uint32Array` and a `Float64Array`, either may be left out),
            /// each answer array is written to the start of its `out` array and
            /// answered as a view of it (`out.hits.subarray(0, hitCount)`): no
            /// new memory a frame for the garbage collector. An answer array
            /// its `out` array is too short for is a new one, that `out` array
            /// left as it was.
            #[napi(
                catch_unwind,
                ts_args_type = "handles: Float64Array, out?: Partial<QueryManyResult> | null",
                ts_return_type = "QueryManyResult"
            )]
            pub fn overlapping_many(
                &self,
                env: &Env,
                handles: Unknown<'_>,
                out: Option<Unknown<'_>>,
            ) -> napi::Result<WrittenRows> {
                self.index.overlapping_many_into(env, &handles, out.as_ref())
            }

            /// One `query` per rectangle of `rects` (4 numbers each; 6, `x1, y1, z1, x2, y2, z2`, for an `Octree`), in one call
            /// to the core (on several threads for big batches), leaving out
            /// `omit[i]` from query `i` when `omit` is given: then every entry
            /// must be a live handle (the error's `index` says which is not). The
            /// hits of query `i` are `hits.subarray(offsets[i], offsets[i + 1])`.
            ///
            /// `out`: arrays to answer into, as for `overlappingMany`.
            #[napi(
                catch_unwind,
                ts_args_type = "rects: Float32Array | Float64Array, omit?: Float64Array | null, out?: Partial<QueryManyResult> | null",
                ts_return_type = "QueryManyResult"
            )]
            pub fn query_many(
                &self,
                env: &Env,
                rects: Unknown<'_>,
                omit: Option<Unknown<'_>>,
                out: Option<Unknown<'_>>,
            ) -> napi::Result<WrittenRows> {
                self.index
                    .query_many_into(env, &rects, omit.as_ref(), out.as_ref())
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
            ///
            /// `out`: arrays to answer into, as for `overlappingMany`.
            #[napi(
                catch_unwind,
                ts_args_type = "centers: Float32Array | Float64Array, radii: Float32Array | Float64Array, mask?: number | null, out?: Partial<QueryManyResult> | null",
                ts_return_type = "QueryManyResult"
            )]
            pub fn query_circle_many(
                &self,
                env: &Env,
                centers: Unknown<'_>,
                radii: Unknown<'_>,
                mask: Option<Unknown<'_>>,
                out: Option<Unknown<'_>>,
            ) -> napi::Result<WrittenRows> {
                self.index.query_circle_many_into(
                    env,
                    &centers,
                    &radii,
                    mask.as_ref(),
                    out.as_ref(),
                )
            }

            /// `nearest` for every point of `points` (2 numbers `x, y` each; an
            /// `Octree`'s 3) in one call to the core (on several threads for big
            /// batches), with the same `k` and options (no
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
                    .nearest_many::<Now>(env, &points, k.as_ref(), options.as_ref())
            }

            /// `rayCast` for many rays in one call to the core (on several threads
            /// for big batches): ray `i` starts at point `i` of `origins` (2
            /// numbers each; an `Octree`'s 3) and goes along direction `i` of
            /// `directions` for `maxLength` (one number for all, or one each).
            /// Gives each ray's first hit at position `i`: handle 0, id 0 and
            /// distance `Infinity` where it touches nothing. A bad ray is refused
            /// (the error's `index` says which) and nothing is returned.
            #[napi(
                catch_unwind,
                ts_args_type = "origins: Float32Array | Float64Array, directions: Float32Array | Float64Array, maxLength: number | Float32Array | Float64Array, mask?: number | null"
            )]
            pub fn ray_cast_many(
                &self,
                env: &Env,
                origins: Unknown<'_>,
                directions: Unknown<'_>,
                max_length: Unknown<'_>,
                mask: Option<Unknown<'_>>,
            ) -> napi::Result<RayCastManyResult> {
                self.index.ray_cast_many::<Now>(
                    env,
                    &origins,
                    &directions,
                    &max_length,
                    mask.as_ref(),
                )
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
            pub fn handles(&self, env: &Env) -> napi::Result<Typed<f64>> {
                self.index.handles(env)
            }

            /// The ids of the elements `handles` names, in order. Throws (with the
            /// `index` of the first bad one) if one of them is not live.
            #[napi(
                catch_unwind,
                ts_args_type = "handles: Float64Array",
                ts_return_type = "Uint32Array"
            )]
            pub fn ids_of(&self, env: &Env, handles: Unknown<'_>) -> napi::Result<Typed<u32>> {
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
            ) -> napi::Result<Typed<f64>> {
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
            /// changes the index, on the calling thread or (`onWorker`) on a
            /// worker thread of the batch calls' pool, so the tests can check that
            /// a panic becomes an exception and poisons it, wherever it happens.
            /// Not part of the API (absent from the typings).
            #[napi(js_name = "__panicForTests", skip_typescript, catch_unwind)]
            pub fn panic_for_tests(
                &self,
                env: &Env,
                mutating: bool,
                on_worker: Option<bool>,
            ) -> napi::Result<()> {
                self.index
                    .panic_for_tests(env, mutating, on_worker.unwrap_or(false))
            }

            /// Test hook: `moveMany` whose moves panic after the first `at` are
            /// made (on a worker thread with `onWorker`), as a bug in flatquad
            /// would, so the tests can check that the moves are finished, the
            /// call throws `ERR_FLATQUAD_PANIC` and the index goes on. Not part
            /// of the API (absent from the typings).
            #[napi(js_name = "__panicInMovesForTests", skip_typescript, catch_unwind)]
            pub fn panic_in_moves_for_tests(
                &self,
                env: &Env,
                handles: Unknown<'_>,
                rects: Unknown<'_>,
                at: u32,
                on_worker: Option<bool>,
            ) -> napi::Result<()> {
                self.index.panic_in_moves_for_tests(
                    env,
                    &handles,
                    &rects,
                    at,
                    on_worker.unwrap_or(false),
                )
            }

            /// Test hook: an `...Async` call whose answer panics, on another
            /// thread of the pool answering it (`onWorker`) or on the thread
            /// the answer starts on, so the tests can check that the promise
            /// rejects with `ERR_FLATQUAD_PANIC` and the index goes on. Not
            /// part of the API (absent from the typings).
            #[napi(js_name = "__panicAsyncForTests", skip_typescript, catch_unwind)]
            pub fn panic_async_for_tests(
                &self,
                env: &Env,
                on_worker: Option<bool>,
            ) -> AsyncTask<Promised<Typed<f64>>> {
                self.index
                    .panic_async_for_tests(env, on_worker.unwrap_or(false))
            }
        }

        // The batch calls that only read, answered on a worker (`When` of
        // `crate::index`): each resolves to what its twin returns.
        #[napi]
        impl $class {
            /// `pairs()`, answered on a worker thread: the JavaScript thread goes
            /// on meanwhile, and the promise resolves to the same pairs. Until it
            /// settles, calls that change this index throw `ERR_FLATQUAD_BUSY`
            /// (reads go on), so the answer is the index's as it was when the call
            /// was made. Every `...Async` method works so; a refused call rejects
            /// with the error its twin would throw.
            #[napi(catch_unwind, ts_return_type = "Promise<Float64Array>")]
            pub fn pairs_async(&self, env: &Env) -> AsyncTask<Promised<Typed<f64>>> {
                self.index.pairs_later(env)
            }

            /// `overlappingMany`, answered on a worker thread (see `pairsAsync`).
            #[napi(
                catch_unwind,
                ts_args_type = "handles: Float64Array",
                ts_return_type = "Promise<QueryManyResult>"
            )]
            pub fn overlapping_many_async(
                &self,
                env: &Env,
                handles: Unknown<'_>,
            ) -> AsyncTask<Promised<QueryManyResult>> {
                self.index.overlapping_many_later(env, &handles)
            }

            /// `queryMany`, answered on a worker thread (see `pairsAsync`); the
            /// arrays are read as the call is made.
            #[napi(
                catch_unwind,
                ts_args_type = "rects: Float32Array | Float64Array, omit?: Float64Array | null",
                ts_return_type = "Promise<QueryManyResult>"
            )]
            pub fn query_many_async(
                &self,
                env: &Env,
                rects: Unknown<'_>,
                omit: Option<Unknown<'_>>,
            ) -> AsyncTask<Promised<QueryManyResult>> {
                self.index.query_many_later(env, &rects, omit.as_ref())
            }

            /// `queryCircleMany`, answered on a worker thread (see `pairsAsync`).
            #[napi(
                catch_unwind,
                ts_args_type = "centers: Float32Array | Float64Array, radii: Float32Array | Float64Array, mask?: number | null",
                ts_return_type = "Promise<QueryManyResult>"
            )]
            pub fn query_circle_many_async(
                &self,
                env: &Env,
                centers: Unknown<'_>,
                radii: Unknown<'_>,
                mask: Option<Unknown<'_>>,
            ) -> AsyncTask<Promised<QueryManyResult>> {
                self.index
                    .query_circle_many_later(env, &centers, &radii, mask.as_ref())
            }

            /// `nearestMany`, answered on a worker thread (see `pairsAsync`).
            #[napi(
                catch_unwind,
                ts_args_type = "points: Float32Array | Float64Array, k?: number | null, options?: NearestManyOptions | null",
                ts_return_type = "Promise<NearestManyResult>"
            )]
            pub fn nearest_many_async(
                &self,
                env: &Env,
                points: Unknown<'_>,
                k: Option<Unknown<'_>>,
                options: Option<Unknown<'_>>,
            ) -> AsyncTask<Promised<NearestManyResult>> {
                self.index
                    .nearest_many::<Later>(env, &points, k.as_ref(), options.as_ref())
            }

            /// `rayCastMany`, answered on a worker thread (see `pairsAsync`).
            #[napi(
                catch_unwind,
                ts_args_type = "origins: Float32Array | Float64Array, directions: Float32Array | Float64Array, maxLength: number | Float32Array | Float64Array, mask?: number | null",
                ts_return_type = "Promise<RayCastManyResult>"
            )]
            pub fn ray_cast_many_async(
                &self,
                env: &Env,
                origins: Unknown<'_>,
                directions: Unknown<'_>,
                max_length: Unknown<'_>,
                mask: Option<Unknown<'_>>,
            ) -> AsyncTask<Promised<RayCastManyResult>> {
                self.index.ray_cast_many::<Later>(
                    env,
                    &origins,
                    &directions,
                    &max_length,
                    mask.as_ref(),
                )
            }
        }

        // The methods that take coordinates, one argument each (a 3D box is
        // six of them: clippy's argument count does not apply).
        #[napi]
        #[allow(clippy::too_many_arguments)]
        impl $class {
            /// Which structure this is.
            #[napi(getter, ts_return_type = $kind)]
            pub fn kind(&self) -> &'static str {
                self.index.name()
            }

            /// The world it was made with, as corners (32-bit floats, what it
            /// stores): `new Class(index.world, ...)` divides the same world.
            #[napi(getter, catch_unwind)]
            pub fn world(&self, env: &Env) -> napi::Result<$boxed> {
                self.index.world_box(env, $boxed::from)
            }

            /// Adds the box `[x1, x2] × [y1, y2]` (an `Octree`'s `[x1, x2] ×
            /// [y1, y2] × [z1, z2]`) with an id of yours (an integer from 0 to
            /// 2^32 - 1; 0 when left out) and returns its handle. Coordinates
            /// are rounded to the nearest 32-bit float.
            ///
            /// Throws a `RangeError` (`ERR_FLATQUAD_INVALID_RECT`) for NaN or
            /// infinite coordinates (a number beyond the 32-bit range rounds to
            /// an infinity) or a low corner above the high one (`x1 > x2`, ...);
            /// nothing is changed then.
            #[napi(catch_unwind, ts_return_type = "Handle")]
            pub fn insert(
                &self,
                env: &Env,
                $(#[napi(ts_arg_type = "number")] $corner: Unknown<'_>,)+
                #[napi(ts_arg_type = "number")] id: Option<Unknown<'_>>,
            ) -> napi::Result<f64> {
                self.index.insert(env, &[$(&$corner),+], id.as_ref())
            }

            /// Gives an element a new box. Throws as `insert` does for a bad
            /// box and as `remove` does for a bad handle; nothing is changed then.
            #[napi(js_name = "move", catch_unwind)]
            pub fn move_to(
                &self,
                env: &Env,
                #[napi(ts_arg_type = "Handle")] handle: Unknown<'_>,
                $(#[napi(ts_arg_type = "number")] $corner: Unknown<'_>,)+
            ) -> napi::Result<()> {
                self.index.move_to(env, &handle, &[$(&$corner),+])
            }

            /// Handles of the elements whose closed box meets the closed query
            /// box, each once, leaving out `omit` (a live handle; `0`, `null` or
            /// `undefined` omit nothing) and, with a `mask`, the elements whose
            /// filter category has no bit in it (see `setFilter`; left out,
            /// every element).
            #[napi(catch_unwind, ts_return_type = "Float64Array")]
            pub fn query(
                &self,
                env: &Env,
                $(#[napi(ts_arg_type = "number")] $corner: Unknown<'_>,)+
                #[napi(ts_arg_type = "Handle | null")] omit: Option<Unknown<'_>>,
                #[napi(ts_arg_type = "number | null")] mask: Option<Unknown<'_>>,
            ) -> napi::Result<Typed<f64>> {
                self.index.hits(
                    env,
                    crate::index::Asked::Box {
                        corners: &[$(&$corner),+],
                        omit: omit.as_ref(),
                        mask: mask.as_ref(),
                    },
                )
            }

            /// Handles of the elements whose closed box holds the point `(x, y)`
            /// (an `Octree`'s `(x, y, z)`), leaving out `omit` and, with a
            /// `mask`, the elements whose category has no bit in it.
            #[napi(catch_unwind, ts_return_type = "Float64Array")]
            pub fn query_point(
                &self,
                env: &Env,
                $(#[napi(ts_arg_type = "number")] $axis: Unknown<'_>,)+
                #[napi(ts_arg_type = "Handle | null")] omit: Option<Unknown<'_>>,
                #[napi(ts_arg_type = "number | null")] mask: Option<Unknown<'_>>,
            ) -> napi::Result<Typed<f64>> {
                self.index.hits(
                    env,
                    crate::index::Asked::Point {
                        coordinates: &[$(&$axis),+],
                        omit: omit.as_ref(),
                        mask: mask.as_ref(),
                    },
                )
            }

            /// Handles of the elements whose closed box is within `radius` of
            /// `(x, y)` (a circle; an `Octree`'s sphere around `(x, y, z)`): at
            /// distance `<= radius`, in 64-bit floats from the 32-bit
            /// coordinates, in no particular order, leaving out, with a `mask`,
            /// the elements whose category has no bit in it. Throws a
            /// `RangeError` for a NaN or infinite center or a NaN or negative
            /// `radius` (`Infinity` is fine: everything).
            #[napi(catch_unwind, ts_return_type = "Float64Array")]
            pub fn query_circle(
                &self,
                env: &Env,
                $(#[napi(ts_arg_type = "number")] $axis: Unknown<'_>,)+
                #[napi(ts_arg_type = "number")] radius: Unknown<'_>,
                #[napi(ts_arg_type = "number | null")] mask: Option<Unknown<'_>>,
            ) -> napi::Result<Typed<f64>> {
                self.index.hits(
                    env,
                    crate::index::Asked::Circle {
                        center: &[$(&$axis),+],
                        radius: &radius,
                        mask: mask.as_ref(),
                    },
                )
            }

            /// The `k` (default 1; an integer `>= 0`) elements nearest to the
            /// point `(x, y)` (an `Octree`'s `(x, y, z)`), nearest first, fewer
            /// if there are fewer: `[{ handle, id, distance }]`, the distance to
            /// the element's closed box (0 inside it). Ties go to the smaller
            /// id, then the smaller handle. Options: `maxDistance` (closed),
            /// `mask` (only the categories in it) and `filter(handle)`, called
            /// nearest first, which leaves out the elements it returns a falsy
            /// value for (they do not count towards `k`); an exception it
            /// throws propagates. Throws a `RangeError` for a NaN or infinite
            /// point, a negative or non-integer `k`, or a NaN or negative
            /// `maxDistance`.
            #[napi(catch_unwind)]
            pub fn nearest(
                &self,
                env: &Env,
                $(#[napi(ts_arg_type = "number")] $axis: Unknown<'_>,)+
                #[napi(ts_arg_type = "number | null")] k: Option<Unknown<'_>>,
                #[napi(ts_arg_type = "NearestOptions | null")] options: Option<Unknown<'_>>,
            ) -> napi::Result<Vec<Neighbor>> {
                self.index
                    .nearest(env, &[$(&$axis),+], k.as_ref(), options.as_ref())
            }

            /// The first element the segment from `(ox, oy)` along `(dx, dy)`
            /// (an `Octree`'s `(ox, oy, oz)` along `(dx, dy, dz)`; any length
            /// but 0, normalised in 64-bit floats) for `maxLength` hits:
            /// `{ handle, id, distance, fraction }` or `null`. Closed boxes: a
            /// ray starting inside one hits it at distance 0; ties go to the
            /// smaller id, then handle. With a `mask`, only the categories in
            /// it. Throws a `RangeError` for a NaN or infinite origin, a zero
            /// or non-finite direction, or a `maxLength` that is NaN, negative
            /// or infinite.
            #[napi(catch_unwind)]
            pub fn ray_cast(
                &self,
                env: &Env,
                $(#[napi(ts_arg_type = "number")] $origin: Unknown<'_>,)+
                $(#[napi(ts_arg_type = "number")] $direction: Unknown<'_>,)+
                #[napi(ts_arg_type = "number")] max_length: Unknown<'_>,
                #[napi(ts_arg_type = "number | null")] mask: Option<Unknown<'_>>,
            ) -> napi::Result<Option<RayHit>> {
                self.index.ray_cast(
                    env,
                    &[$(&$origin),+],
                    &[$(&$direction),+],
                    &max_length,
                    mask.as_ref(),
                )
            }

            /// The first element the box `x1, y1, x2, y2` (an `Octree`'s
            /// `x1, y1, z1, x2, y2, z2`) touches when it moves by
            /// `t * (dx, dy)` (`t * (dx, dy, dz)`) for `t` from 0 to 1, or
            /// `null`: the first of `boxCastAll`. `hit.fraction` is `t`,
            /// `hit.distance` that times the motion's length. Pass `omit` (the
            /// moving element's own handle) to ask where it can go. Throws a
            /// `RangeError` for a bad box or a NaN or infinite motion.
            #[napi(catch_unwind)]
            pub fn box_cast(
                &self,
                env: &Env,
                $(#[napi(ts_arg_type = "number")] $corner: Unknown<'_>,)+
                $(#[napi(ts_arg_type = "number")] $direction: Unknown<'_>,)+
                #[napi(ts_arg_type = "number | null")] mask: Option<Unknown<'_>>,
                #[napi(ts_arg_type = "number | null")] omit: Option<Unknown<'_>>,
            ) -> napi::Result<Option<RayHit>> {
                let hits = self.index.box_cast(
                    env,
                    &[$(&$corner),+],
                    &[$(&$direction),+],
                    mask.as_ref(),
                    omit.as_ref(),
                    false,
                )?;
                Ok(hits.into_iter().next())
            }

            /// Every element the moving box of `boxCast` touches, in ascending
            /// `(fraction, id, handle)` order (one it touches where it starts at
            /// fraction 0).
            #[napi(catch_unwind)]
            pub fn box_cast_all(
                &self,
                env: &Env,
                $(#[napi(ts_arg_type = "number")] $corner: Unknown<'_>,)+
                $(#[napi(ts_arg_type = "number")] $direction: Unknown<'_>,)+
                #[napi(ts_arg_type = "number | null")] mask: Option<Unknown<'_>>,
                #[napi(ts_arg_type = "number | null")] omit: Option<Unknown<'_>>,
            ) -> napi::Result<Vec<RayHit>> {
                self.index.box_cast(
                    env,
                    &[$(&$corner),+],
                    &[$(&$direction),+],
                    mask.as_ref(),
                    omit.as_ref(),
                    true,
                )
            }

            /// Every element the ray hits, nearest first (ties: id, then handle).
            #[napi(catch_unwind)]
            pub fn ray_cast_all(
                &self,
                env: &Env,
                $(#[napi(ts_arg_type = "number")] $origin: Unknown<'_>,)+
                $(#[napi(ts_arg_type = "number")] $direction: Unknown<'_>,)+
                #[napi(ts_arg_type = "number")] max_length: Unknown<'_>,
                #[napi(ts_arg_type = "number | null")] mask: Option<Unknown<'_>>,
            ) -> napi::Result<Vec<RayHit>> {
                self.index.ray_cast_all(
                    env,
                    &[$(&$origin),+],
                    &[$(&$direction),+],
                    &max_length,
                    mask.as_ref(),
                )
            }

            /// Calls `callback(hit)` for each hit of `rayCastAll`, in its order; the
            /// callback returns nothing or `true` to go on, `false` to stop, or a
            /// number to shorten the ray to that length (only hits at most that
            /// far are visited from then on: return `hit.distance` to keep the
            /// nearest). An exception thrown by the callback propagates. The
            /// callback may read the index; a call that changes it throws
            /// `ERR_FLATQUAD_BUSY`.
            #[napi(catch_unwind)]
            pub fn ray_cast_with(
                &self,
                env: &Env,
                $(#[napi(ts_arg_type = "number")] $origin: Unknown<'_>,)+
                $(#[napi(ts_arg_type = "number")] $direction: Unknown<'_>,)+
                #[napi(ts_arg_type = "number")] max_length: Unknown<'_>,
                #[napi(ts_arg_type = "(hit: RayHit) => boolean | number | void")]
                callback: Unknown<'_>,
                #[napi(ts_arg_type = "number | null")] mask: Option<Unknown<'_>>,
            ) -> napi::Result<()> {
                self.index.ray_cast_with(
                    env,
                    &[$(&$origin),+],
                    &[$(&$direction),+],
                    &max_length,
                    callback,
                    mask.as_ref(),
                )
            }

            /// Calls `callback(handle)` for each element `query` would return,
            /// until the callback returns `false`. An exception thrown by the
            /// callback propagates. The callback may read the index; a call that
            /// changes it throws `ERR_FLATQUAD_BUSY`.
            #[napi(catch_unwind)]
            pub fn query_with(
                &self,
                env: &Env,
                $(#[napi(ts_arg_type = "number")] $corner: Unknown<'_>,)+
                #[napi(ts_arg_type = "(handle: Handle) => boolean | void")] callback: Unknown<'_>,
                #[napi(ts_arg_type = "Handle | null")] omit: Option<Unknown<'_>>,
                #[napi(ts_arg_type = "number | null")] mask: Option<Unknown<'_>>,
            ) -> napi::Result<()> {
                self.index.query_with(
                    env,
                    &[$(&$corner),+],
                    callback,
                    omit.as_ref(),
                    mask.as_ref(),
                )
            }

            /// The element's box (as 32-bit floats: what the index stores).
            #[napi(catch_unwind, ts_args_type = "handle: Handle")]
            pub fn rect_of(&self, env: &Env, handle: Unknown<'_>) -> napi::Result<$boxed> {
                self.index.rect_of(env, &handle, $boxed::from)
            }

            /// Calls `callback(node)` for every node of a tree (depth-first,
            /// parents before children; a quadtree's children in the order
            /// top-left, top-right, bottom-left, bottom-right) or every cell of
            /// a grid (as leaves of depth 0); returning `false` stops the walk.
            /// An exception thrown by the callback propagates. The callback may
            /// read the index; a call that changes it throws `ERR_FLATQUAD_BUSY`.
            #[napi(catch_unwind, ts_args_type = $traverse_args)]
            pub fn traverse(&self, env: &Env, callback: Unknown<'_>) -> napi::Result<()> {
                self.index.traverse(env, callback, $node::of)
            }
        }
    };
}

pub(crate) use methods;
