//! The one native wrapper every class is: an [`AnyIndex`] with the guards the
//! JavaScript side needs, and every shared method written once, here. The
//! classes of [`crate::classes`] declare the methods to JavaScript and call
//! these.
//!
//! Each method converts its arguments ([`crate::args`]), makes one call to the
//! core, and converts the result or the error ([`crate::error`]).

use std::cell::{Cell, RefCell};
use std::ops::ControlFlow;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, PoisonError, RwLock};

use flatquad::{
    AnyIndex, BoxCast, ErrorKind, Filter, Handle, Kind, NodeInfo as CoreNode, Query, QueryColumns,
    Ray, RayControl, Rect, SpatialIndex,
};
use napi::bindgen_prelude::{AsyncTask, Buffer, MaybeTypeTag, This, ToNapiValue, TypeName};
use napi::{sys, Env, JsValue, Task, Unknown};

use crate::args::{self, Rects};
use crate::error::{code, Class, Fail, Outcome};
use crate::objects::{
    BulkResult, Filter as FilterObject, JoinResult, NearestManyResult, Neighbor, Nodes, PairEvents,
    QueryManyResult, RayCastManyResult, RayHit as RayHitObject, RowsOut, Stats, WrittenRows,
};
use crate::typed::{Typed, Written};

/// A core structure one of the classes wraps.
pub(crate) trait Core: SpatialIndex + Into<AnyIndex> {
    /// Which structure it is.
    const KIND: Kind;
    /// The structure inside `index`, if it is of this kind.
    fn inside(index: &AnyIndex) -> Option<&Self>;
}

macro_rules! core {
    ($($kind:ident),*) => {$(
        impl Core for flatquad::$kind {
            const KIND: Kind = Kind::$kind;
            fn inside(index: &AnyIndex) -> Option<&Self> {
                match index {
                    AnyIndex::$kind(structure) => Some(structure),
                    _ => None,
                }
            }
        }
    )*};
}

core!(Quadtree, Grid, LooseGrid, LooseQuadtree);

/// What an [`Index`] can hold: `AnyIndex` (the 2D classes) or the octree.
pub(crate) trait Held: SpatialIndex + Send + Sync + 'static {
    /// The class name, for messages.
    fn name(&self) -> &'static str;
}

impl Held for AnyIndex {
    fn name(&self) -> &'static str {
        self.kind().name()
    }
}

impl Held for flatquad::Octree {
    fn name(&self) -> &'static str {
        "Octree"
    }
}

/// A JavaScript class of ours: its name in the exports and the [`Index`]
/// inside (for a `PairTracker`, and for the one-query calls of
/// [`crate::one_query`], which check a receiver by napi-rs's type tag).
pub(crate) trait JsClass: TypeName + MaybeTypeTag + 'static {
    type Held: Held;
    const NAME: &'static str;
    fn inner(&self) -> &Index<Self::Held>;
}

/// An index of any kind (or the octree), as a JavaScript object holds it.
///
/// - The structure sits behind a lock shared with the batch calls answered on
///   a worker (`queryManyAsync`, ...). Every call on the JavaScript thread only
///   tries it, never waits: a JavaScript callback (`traverse`, `queryWith`)
///   may read the structure, but a call that would change it during the walk,
///   or while a promise of this index is pending, throws `ERR_FLATQUAD_BUSY`
///   instead of changing what is being read.
/// - Every call catches panics; a panic inside a call that changes the
///   structure leaves it unusable ("poisoned") rather than half-changed.
pub(crate) struct Index<T = AnyIndex> {
    shared: Arc<Shared<T>>,
    /// The class name of the structure, which never changes (readable while it is borrowed).
    name: &'static str,
    /// Set when a panic interrupted a call that changes the structure.
    poisoned: Cell<bool>,
    /// Reused by the batch calls, so a frame's calls allocate nothing.
    kept: RefCell<Kept>,
}

/// The structure, and how many batch calls a worker is answering from it.
struct Shared<T> {
    structure: RwLock<T>,
    /// Batch calls whose promises have not settled: while any has not,
    /// nothing may change the structure (so a worker's read never waits).
    away: AtomicUsize,
}

/// One batch call answered on a worker, counted in [`Shared::away`] from
/// the call until its promise settles (or the call is dropped unanswered):
/// so a change made after the call throws, deterministically, until then.
struct Away<T>(Arc<Shared<T>>);

impl<T> Away<T> {
    fn new(shared: &Arc<Shared<T>>) -> Away<T> {
        shared.away.fetch_add(1, Ordering::AcqRel);
        Away(Arc::clone(shared))
    }
}

impl<T> Drop for Away<T> {
    fn drop(&mut self) {
        self.0.away.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Buffers the calls reuse between frames (a batch answered on a worker
/// gets fresh ones).
#[derive(Default)]
pub(crate) struct Kept {
    /// A batch's handles, as the core reads them.
    handles: Vec<Handle>,
    /// The core's compressed rows (`overlappingMany`, `queryMany`).
    offsets: Vec<usize>,
    hits: Vec<Handle>,
    /// The pair walk's output (`pairs()`): it holds the most pairs a call
    /// found, 16 bytes each, while the index lives.
    pairs: Vec<(Handle, Handle)>,
    /// `nearest`'s neighbours, handed to its answer.
    neighbours: Vec<flatquad::Neighbor>,
}

/// Runs an `...Async` call's answer (the lock already held by this worker of
/// Node's) on a pool of its own, with as many threads as the global pool: the
/// JavaScript thread is the global pool's thread 0 (`__joinThreadPool`) and
/// takes part only while in a call of its own, so the global pool would leave
/// an answer awaited meanwhile one thread fewer. Where the pool's threads
/// cannot start, on this thread (the global pool's, from outside).
fn on_later_pool<R: Send>(answer: impl FnOnce() -> R + Send) -> R {
    match later_pool() {
        Some(pool) => pool.install(answer),
        None => answer(),
    }
}

/// The pool of [`on_later_pool`], started by the first `...Async` call.
fn later_pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .thread_name(|i| format!("flatquad-async-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

/// The work of a batch call answered on a worker of Node's pool, and then
/// converted on the JavaScript thread: what an `...Async` method returns
/// (JavaScript sees a `Promise`). See [`Later`].
pub struct Promised<R> {
    /// The answer to compute, or why the call was refused as it was made.
    work: Option<Result<Work<R>, napi::Error>>,
    /// The call's [`Away`] count, until the promise settles.
    away: Option<Box<dyn Send>>,
}

type Work<R> = Box<dyn FnOnce() -> Outcome<R> + Send>;

/// A [`Promised`] answer, as the worker computed it.
pub struct Answer<R>(Outcome<R>);

impl<R: ToNapiValue + TypeName + Send + 'static> Task for Promised<R> {
    type Output = Answer<R>;
    type JsValue = R;

    fn compute(&mut self) -> napi::Result<Answer<R>> {
        match self.work.take() {
            Some(Ok(work)) => Ok(Answer(work())),
            Some(Err(refused)) => Err(refused),
            None => Err(napi::Error::from_reason("a batch call was answered twice")),
        }
    }

    fn resolve(&mut self, env: Env, Answer(answer): Answer<R>) -> napi::Result<R> {
        self.away = None;
        answer.map_err(|fail| fail.rejection(env.raw()))
    }

    fn reject(&mut self, _env: Env, error: napi::Error) -> napi::Result<R> {
        self.away = None;
        Err(error)
    }
}

/// Runs `body`, turning a panic into an `ERR_FLATQUAD_PANIC` error; `on_panic`
/// runs first when one is caught.
pub(crate) fn guarded<T>(on_panic: impl FnOnce(), body: impl FnOnce() -> Outcome<T>) -> Outcome<T> {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(outcome) => outcome,
        Err(payload) => {
            on_panic();
            Err(Fail::new(
                Class::Error,
                code::PANIC,
                format!(
                    "internal error in flatquad (a Rust panic, please report it): {}",
                    flatquad::panic_message(&*payload)
                ),
            ))
        }
    }
}

/// Refuses `Quadtree(world)` without `new`, which would otherwise attach an
/// index to the global object (napi-rs runs the constructor with `this` =
/// `globalThis`).
pub(crate) fn called_with_new(env: &Env, this: &This<'_>, name: &str) -> Outcome<()> {
    let global = env.get_global()?;
    let (this, global) = (this.value(), global.value());
    let mut same = false;
    // SAFETY: both are live values of the current call.
    let status = unsafe { sys::napi_strict_equals(this.env, this.value, global.value, &mut same) };
    if status == sys::Status::napi_ok && !same {
        return Ok(());
    }
    Err(Fail::wrong_type(format!(
        "Class constructor {name} cannot be invoked without 'new'"
    )))
}

/// `snake_case` as `camelCase`: the core's parameter names as the options'.
fn camel(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        match c {
            '_' => upper = true,
            c if upper => {
                out.extend(c.to_uppercase());
                upper = false;
            }
            c => out.push(c),
        }
    }
    out
}

pub(crate) fn raw(handle: Handle) -> f64 {
    handle.to_raw() as f64
}

pub(crate) fn neighbor(n: flatquad::Neighbor) -> Neighbor {
    Neighbor {
        handle: raw(n.handle),
        id: n.id,
        distance: n.distance,
    }
}

/// The hits as the methods return them.
pub(crate) fn hit_objects(hits: &[flatquad::RayHit]) -> Outcome<Vec<RayHitObject>> {
    Ok(hits.iter().copied().map(ray_hit).collect())
}

pub(crate) fn ray_hit(hit: flatquad::RayHit) -> RayHitObject {
    RayHitObject {
        handle: raw(hit.handle),
        id: hit.id,
        distance: hit.distance,
        fraction: hit.fraction,
    }
}

/// Runs `body` on a buffer kept between calls, or on a fresh one while a call
/// above this one (a callback's caller) holds it.
fn with_kept<V: Default, R>(kept: &RefCell<V>, body: impl FnOnce(&mut V) -> R) -> R {
    match kept.try_borrow_mut() {
        Ok(mut buffer) => body(&mut buffer),
        Err(_) => body(&mut V::default()),
    }
}

/// The structure for a read, unless a call is changing it (a read never
/// waits on the JavaScript thread). A poisoned lock is read anyway: the
/// index's own flag ([`Index::usable`]) says whether the structure is whole.
fn try_read<T>(lock: &RwLock<T>) -> Option<std::sync::RwLockReadGuard<'_, T>> {
    match lock.try_read() {
        Ok(index) => Some(index),
        Err(std::sync::TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
        Err(std::sync::TryLockError::WouldBlock) => None,
    }
}

/// The pair walk's answer, `[a0, b0, a1, b1, ...]`. The walk itself (the
/// core's `par_pairs`) runs on all threads where the structure can split it
/// and the size pays, into a list kept between calls.
fn pair_handles(pairs: &[(Handle, Handle)]) -> Vec<f64> {
    let mut values = vec![0.0; 2 * pairs.len()];
    write_pair_handles(pairs, &mut values);
    values
}

/// [`pair_handles`] into the first `2 * pairs.len()` of `out`.
fn write_pair_handles(pairs: &[(Handle, Handle)], out: &mut [f64]) {
    for (slot, &(a, b)) in out.chunks_exact_mut(2).zip(pairs) {
        slot.copy_from_slice(&[raw(a), raw(b)]);
    }
}

pub(crate) fn raws(handles: impl IntoIterator<Item = Handle>) -> Typed<f64> {
    Typed::new(handles.into_iter().map(raw).collect())
}

/// Positions in an input array, as exact JavaScript numbers (below 2^53).
pub(crate) fn positions(positions: Vec<usize>) -> Typed<f64> {
    Typed::new(positions.into_iter().map(|p| p as f64).collect())
}

pub(crate) fn core(error: flatquad::Error) -> Fail {
    Fail::core(&error)
}

/// The core's compressed rows as `{ offsets, hits }`.
fn rows(offsets: &[usize], hits: &[Handle], what: &str) -> Outcome<QueryManyResult> {
    check_offsets(offsets, what)?;
    Ok(QueryManyResult {
        offsets: Typed::new(offsets.iter().map(|&offset| offset as u32).collect()),
        hits: raws(hits.iter().copied()),
    })
}

/// [`rows`] into the caller's arrays where they fit ([`RowsOut`]).
fn rows_into(
    out: RowsOut<'_>,
    offsets: &[usize],
    hits: &[Handle],
    what: &str,
) -> Outcome<WrittenRows> {
    check_offsets(offsets, what)?;
    Ok(WrittenRows {
        offsets: Written::answer(out.offsets, offsets.len(), |values| {
            for (value, &offset) in values.iter_mut().zip(offsets) {
                *value = offset as u32;
            }
        }),
        hits: Written::answer(out.hits, hits.len(), |values| {
            for (value, &hit) in values.iter_mut().zip(hits) {
                *value = raw(hit);
            }
        }),
    })
}

/// Refuses rows whose offsets a `Uint32Array` cannot hold (they ascend, so
/// the last is the largest).
fn check_offsets(offsets: &[usize], what: &str) -> Outcome<()> {
    match offsets.last() {
        Some(&last) if u32::try_from(last).is_err() => Err(Fail::new(
            Class::Range,
            code::CAPACITY,
            format!("{what} found more than 2^32 - 1 hits: split the batch"),
        )),
        _ => Ok(()),
    }
}

/// What a walk's JavaScript callback said: go on, stop, or it threw.
fn visit<A: napi::bindgen_prelude::ToNapiValue>(
    callback: &Unknown<'_>,
    arg: A,
    failure: &mut Option<Fail>,
) -> ControlFlow<()> {
    match args::call(callback, arg).and_then(|r| args::stops(&r)) {
        Ok(false) => ControlFlow::Continue(()),
        Ok(true) => ControlFlow::Break(()),
        Err(fail) => {
            *failure = Some(fail);
            ControlFlow::Break(())
        }
    }
}

/// `overlappingMany`'s rows, into the kept rows, for the handles kept.
fn overlapping_rows<T: Held>(index: &T, (): (), kept: &mut Kept) -> Outcome<()> {
    index
        .par_overlapping_many(&kept.handles, &mut kept.offsets, &mut kept.hits)
        .map_err(core)
}

/// `queryMany`'s arguments: the rectangles (copied: 16 bytes each, not the
/// 48-byte queries, which the core builds a block at a time) and whether
/// `omit`, read into the kept handles, was given.
fn query_many_args<B: flatquad::Bounds>(
    rects: &Unknown<'_>,
    omit: Option<&Unknown<'_>>,
    kept: &mut Kept,
) -> Outcome<(Vec<B>, bool)> {
    let rects = args::rects::<B>(rects, "rects")?;
    let omit = match omit.filter(|v| !args::is_absent(Some(v))) {
        Some(omit) => {
            args::handles(omit, "omit", &mut kept.handles)?;
            if kept.handles.len() != rects.get().len() {
                return Err(Fail::bad_length(format!(
                    "omit holds {} handles but rects holds {} rectangles: give one handle per rectangle",
                    kept.handles.len(),
                    rects.get().len()
                )));
            }
            true
        }
        None => false,
    };
    Ok((rects.into_owned(), omit))
}

/// `queryMany`'s rows, into the kept rows.
fn query_many_rows<T: Held>(
    index: &T,
    (rects, omit): (Vec<T::Bounds>, bool),
    kept: &mut Kept,
) -> Outcome<()> {
    let omit = omit.then_some(&kept.handles[..]);
    let columns = QueryColumns::rects(&rects, omit).map_err(core)?;
    // The core's batch query, a block at a time, on all threads when the
    // batch is big enough to pay.
    columns
        .answer(index, &mut kept.offsets, &mut kept.hits)
        .map_err(core)
}

/// `queryCircleMany`'s rows, into the kept rows.
fn circle_rows<T: Held>(
    index: &T,
    (centers, radii, mask): Circles<T::Bounds>,
    kept: &mut Kept,
) -> Outcome<()> {
    let columns = QueryColumns::circles(&centers, &radii, mask).map_err(core)?;
    columns
        .answer(index, &mut kept.offsets, &mut kept.hits)
        .map_err(core)
}

/// `queryCircleMany`'s arguments: centers, radii and mask.
type Circles<B> = (Vec<<B as flatquad::Bounds>::Point>, Vec<f64>, u32);

/// `queryCircleMany`'s arguments, refused here as a call's other arguments are.
fn circle_args<B: flatquad::Bounds>(
    centers: &Unknown<'_>,
    radii: &Unknown<'_>,
    mask: Option<&Unknown<'_>>,
) -> Outcome<Circles<B>> {
    let centers = args::points::<B>(centers, "centers")?;
    let radii = args::float_array(radii, "radii", "one radius per center")?;
    let mask = args::optional_mask(mask)?;
    QueryColumns::<B>::circles(&centers, &radii, mask).map_err(core)?;
    Ok((centers, radii, mask))
}

/// `query` with the `omit` and `mask` arguments of a call (read after its
/// shape, so a bad shape is the error reported).
fn filtered<B: flatquad::Bounds>(
    query: Query<B>,
    omit: Option<&Unknown<'_>>,
    mask: Option<&Unknown<'_>>,
) -> Outcome<Query<B>> {
    Ok(Query {
        omit: args::optional_handle(omit, "omit")?,
        mask: args::optional_mask(mask)?,
        ..query
    })
}

/// What a call answered by handles alone asks, as its arguments: read the
/// same way by the class methods and by [`crate::one_query`].
pub(crate) enum Asked<'a, 'v> {
    /// `query(corners..., omit, mask)`.
    Box {
        corners: &'a [&'a Unknown<'v>],
        omit: Option<&'a Unknown<'v>>,
        mask: Option<&'a Unknown<'v>>,
    },
    /// `queryPoint(coordinates..., omit, mask)`.
    Point {
        coordinates: &'a [&'a Unknown<'v>],
        omit: Option<&'a Unknown<'v>>,
        mask: Option<&'a Unknown<'v>>,
    },
    /// `queryCircle(center..., radius, mask)`.
    Circle {
        center: &'a [&'a Unknown<'v>],
        radius: &'a Unknown<'v>,
        mask: Option<&'a Unknown<'v>>,
    },
    /// `overlapping(handle)`.
    Element { handle: &'a Unknown<'v> },
}

impl Asked<'_, '_> {
    /// The query the arguments describe, or the error the call throws.
    fn query<B: flatquad::Bounds>(&self) -> Outcome<Query<B>> {
        Ok(match *self {
            Asked::Box {
                corners,
                omit,
                mask,
            } => filtered(Query::rect(args::any_box::<B>(corners)?), omit, mask)?,
            Asked::Point {
                coordinates,
                omit,
                mask,
            } => filtered(Query::point(args::any_point::<B>(coordinates)?), omit, mask)?,
            Asked::Circle {
                center,
                radius,
                mask,
            } => {
                let center = args::any_point::<B>(center)?;
                let radius = args::number(radius, "radius")?;
                Query::circle(center, radius).mask(args::optional_mask(mask)?)
            }
            Asked::Element { handle } => Query::element(args::handle(handle, "handle")?),
        })
    }
}

/// Calls `each` with every node (or cell) in `traverse` order.
fn walk<S: SpatialIndex>(index: &S, each: impl FnMut(&CoreNode<S::Bounds>) -> ControlFlow<()>) {
    // One closure serves both kinds of node; the core calls them in turn.
    let each = RefCell::new(each);
    let _ = index.traverse(|n| (each.borrow_mut())(n), |n| (each.borrow_mut())(n));
}

/// A box's 32-bit coordinates, lows then highs.
fn box_f32<B: flatquad::Bounds>(b: &B) -> impl Iterator<Item = f32> + '_ {
    (0..B::AXES)
        .map(|axis| b.lo(axis))
        .chain((0..B::AXES).map(|axis| b.hi(axis)))
}

/// When a batch call that only reads is answered: [`Now`] or [`Later`]. Each
/// batch call is written once, as `ask` (read the arguments, into `kept`'s
/// buffers where it can) and `answer` (answer them from the structure), and
/// runs either way.
pub(crate) trait When {
    /// What the call returns.
    type Answer<R: ToNapiValue + TypeName + Send + 'static>;

    fn batch<T, Q, R>(
        index: &Index<T>,
        env: &Env,
        ask: impl FnOnce(&mut Kept) -> Outcome<Q>,
        answer: impl FnOnce(&T, Q, &mut Kept) -> Outcome<R> + Send + 'static,
    ) -> Self::Answer<R>
    where
        T: Held,
        Q: Send + 'static,
        R: ToNapiValue + TypeName + Send + 'static;
}

/// On the JavaScript thread, into the buffers kept between calls.
pub(crate) struct Now;

impl When for Now {
    type Answer<R: ToNapiValue + TypeName + Send + 'static> = napi::Result<R>;

    fn batch<T: Held, Q: Send + 'static, R: ToNapiValue + TypeName + Send + 'static>(
        index: &Index<T>,
        env: &Env,
        ask: impl FnOnce(&mut Kept) -> Outcome<Q>,
        answer: impl FnOnce(&T, Q, &mut Kept) -> Outcome<R> + Send + 'static,
    ) -> napi::Result<R> {
        Now::batch_here(index, env, ask, answer)
    }
}

impl Now {
    /// [`When::batch`] for a call only ever answered here, on the JavaScript
    /// thread: its question and answer may hold the caller's memory (an
    /// `out` array, [`RowsOut`]), which never leaves this thread.
    pub(crate) fn batch_here<T: Held, Q, R>(
        index: &Index<T>,
        env: &Env,
        ask: impl FnOnce(&mut Kept) -> Outcome<Q>,
        answer: impl FnOnce(&T, Q, &mut Kept) -> Outcome<R>,
    ) -> napi::Result<R> {
        index.read(env, |structure| {
            with_kept(&index.kept, |kept| {
                let question = ask(kept)?;
                answer(structure, question, kept)
            })
        })
    }
}

/// On a worker of Node's pool, where the core's batch calls take rayon's
/// threads as they do on the JavaScript thread, which goes on meanwhile: a
/// `Promise` of the same result (the `...Async` methods).
///
/// - The arguments are read (and copied) as the call is made: changing them
///   afterwards changes nothing.
/// - A refused call rejects the promise with the error the call answered now
///   would throw.
/// - Until the promise settles, calls that change the index throw
///   `ERR_FLATQUAD_BUSY` (reads go on): the answer is the index's as it was
///   when the call was made.
pub(crate) struct Later;

impl When for Later {
    type Answer<R: ToNapiValue + TypeName + Send + 'static> = AsyncTask<Promised<R>>;

    fn batch<T: Held, Q: Send + 'static, R: ToNapiValue + TypeName + Send + 'static>(
        index: &Index<T>,
        env: &Env,
        ask: impl FnOnce(&mut Kept) -> Outcome<Q>,
        answer: impl FnOnce(&T, Q, &mut Kept) -> Outcome<R> + Send + 'static,
    ) -> AsyncTask<Promised<R>> {
        let mut kept = Kept::default();
        // Read as the call answered now is, under a read of the structure:
        // refused while a change is under way (no change runs JavaScript
        // today, but no worker may depend on that), and a getter among the
        // arguments cannot change the index either.
        let asked = index.reading(|_| ask(&mut kept));
        let (work, away) = match asked {
            Ok(question) => {
                let shared = Arc::clone(&index.shared);
                let work = Box::new(move || {
                    // Nothing changes the structure while the call is counted
                    // away, so this never waits.
                    let structure = shared
                        .structure
                        .read()
                        .unwrap_or_else(PoisonError::into_inner);
                    let structure = &*structure;
                    guarded(
                        || {},
                        || on_later_pool(|| answer(structure, question, &mut kept)),
                    )
                }) as Work<R>;
                let away: Box<dyn Send> = Box::new(Away::new(&index.shared));
                (Ok(work), Some(away))
            }
            Err(fail) => (Err(fail.rejection(env.raw())), None),
        };
        AsyncTask::new(Promised {
            work: Some(work),
            away,
        })
    }
}

pub(crate) fn fail<T>(env: &Env, outcome: Outcome<T>) -> napi::Result<T> {
    outcome.map_err(|fail| fail.throw(env.raw()))
}

/// The 2D classes' own: construction, snapshots of any kind, and the calls
/// the octree does not have (the world as a `Rectangle`, bulk queries, joins,
/// the node walk).
impl Index {
    /// A new index for a constructor of kind `C`: checks it was called with
    /// `new`, reads the world, and runs `build`, which reads the options and
    /// calls the core's constructor. The core's refusal names the argument.
    pub(crate) fn construct<C: Core>(
        env: &Env,
        this: &This<'_>,
        world: &Unknown<'_>,
        options: Option<&Unknown<'_>>,
        build: impl FnOnce(Rect) -> Outcome<Result<C, flatquad::Error>>,
    ) -> napi::Result<Index> {
        Index::construct_with(
            env,
            this,
            C::KIND.name(),
            || args::world(world),
            options,
            build,
        )
    }

    /// An index of whichever kind the snapshot holds.
    pub(crate) fn from_any_bytes(env: &Env, bytes: &Unknown<'_>) -> napi::Result<Index> {
        Index::decode(env, bytes, AnyIndex::from_bytes)
    }

    pub(crate) fn kind(&self) -> Kind {
        Kind::ALL_2D
            .into_iter()
            .find(|kind| kind.name() == self.name)
            .unwrap_or(Kind::Quadtree)
    }

    /// Runs `body` on the structure of kind `C` inside: for the getters of
    /// one class.
    pub(crate) fn read_as<C: Core, R>(
        &self,
        env: &Env,
        body: impl FnOnce(&C) -> R,
    ) -> napi::Result<R> {
        self.read(env, |index| {
            let structure = C::inside(index).ok_or_else(|| {
                Fail::new(Class::Error, code::OTHER, "the index is of another kind")
            })?;
            Ok(body(structure))
        })
    }

    pub(crate) fn query_bulk<W: When>(
        &self,
        env: &Env,
        rects: &Unknown<'_>,
        sort: Option<bool>,
    ) -> W::Answer<BulkResult> {
        W::batch(
            self,
            env,
            |_| Ok(args::rects::<Rect>(rects, "rects")?.into_owned()),
            move |index, rects, _| {
                let (mut rows, mut hits) = (Vec::new(), Vec::new());
                flatquad::join::query_bulk(
                    index,
                    &rects,
                    sort.unwrap_or(false),
                    &mut rows,
                    &mut hits,
                )
                .map_err(core)?;
                Ok(BulkResult {
                    rows: positions(rows),
                    hits: raws(hits),
                })
            },
        )
    }

    pub(crate) fn join(
        &self,
        env: &Env,
        other: &Index,
        sort: Option<bool>,
    ) -> napi::Result<JoinResult> {
        self.read(env, |left| {
            other.usable()?;
            let right = try_read(&other.shared.structure).ok_or_else(|| {
                Fail::new(Class::Error, code::BUSY, "the other index is being changed")
            })?;
            let (mut lefts, mut rights) = (Vec::new(), Vec::new());
            flatquad::join::join(
                left,
                &*right,
                sort.unwrap_or(false),
                &mut lefts,
                &mut rights,
            );
            Ok(JoinResult {
                left: raws(lefts),
                right: raws(rights),
            })
        })
    }
}

/// Every call the classes share, written once for the 2D classes and the octree.
impl<T: Held> Index<T> {
    pub(crate) fn wrap(index: T) -> Index<T> {
        Index {
            name: index.name(),
            shared: Arc::new(Shared {
                structure: RwLock::new(index),
                away: AtomicUsize::new(0),
            }),
            poisoned: Cell::new(false),
            kept: RefCell::new(Kept::default()),
        }
    }

    /// The class name.
    pub(crate) fn name(&self) -> &'static str {
        self.name
    }

    /// A new index for the constructor of the class `name`: checks it was
    /// called with `new`, reads the world (`world` gives it and how to show
    /// it), and runs `build`, which reads the options and calls the core's
    /// constructor. The core's refusal names the argument.
    /// `options.margin`, read once here for every class, sets the fat bounds.
    pub(crate) fn construct_with<B, C: Into<T> + SpatialIndex>(
        env: &Env,
        this: &This<'_>,
        name: &str,
        world: impl FnOnce() -> Outcome<(B, String)>,
        options: Option<&Unknown<'_>>,
        build: impl FnOnce(B) -> Outcome<Result<C, flatquad::Error>>,
    ) -> napi::Result<Index<T>> {
        let outcome = guarded(
            || {},
            || {
                called_with_new(env, this, name)?;
                let (world, shown) = world()?;
                let structure = build(world)?;
                let margin = match args::options(options, "{ margin }")? {
                    Some(options) => args::option_f32(options, c"margin")?,
                    None => None,
                };
                let structure = match margin {
                    Some(margin) => structure.and_then(|s| s.with_margin(margin)),
                    None => structure,
                };
                structure.map_err(|error| match error.root() {
                    e if e.kind() == ErrorKind::InvalidWorld => {
                        core(error).context(format!("world {shown}"))
                    }
                    flatquad::Error::InvalidParameter { name, .. } => {
                        let name = camel(name);
                        core(error).context(format!("options.{name}"))
                    }
                    _ => core(error),
                })
            },
        );
        fail(env, outcome).map(|structure| Index::wrap(structure.into()))
    }

    /// An index from `toBytes()`'s output, read by `parse` (which refuses a
    /// snapshot of another kind).
    pub(crate) fn decode<C: Into<T>>(
        env: &Env,
        bytes: &Unknown<'_>,
        parse: impl FnOnce(&[u8]) -> Result<C, flatquad::Error>,
    ) -> napi::Result<Index<T>> {
        let outcome = guarded(
            || {},
            || {
                let array = args::bytes(bytes, "bytes")?;
                parse(&array.arraybuffer).map_err(core)
            },
        );
        fail(env, outcome).map(|structure| Index::wrap(structure.into()))
    }

    fn usable(&self) -> Outcome<()> {
        if self.poisoned.get() {
            return Err(Fail::new(
                Class::Error,
                code::POISONED,
                format!(
                    "this {} is unusable: an internal error (a Rust panic) interrupted an earlier call that was changing it; build a new one",
                    self.name
                ),
            ));
        }
        Ok(())
    }

    /// Runs `body` on the structure for a call that only reads it.
    fn read<R>(&self, env: &Env, body: impl FnOnce(&T) -> Outcome<R>) -> napi::Result<R> {
        fail(env, self.reading(body))
    }

    /// [`read`](Index::read) without throwing: the outcome, for a caller
    /// that hands a failure on otherwise (a promise's rejection).
    fn reading<R>(&self, body: impl FnOnce(&T) -> Outcome<R>) -> Outcome<R> {
        self.usable().and_then(|()| {
            let index = try_read(&self.shared.structure)
                .ok_or_else(|| Fail::new(Class::Error, code::BUSY, "the index is being changed"))?;
            guarded(|| {}, || body(&index))
        })
    }

    /// Runs `body` on the structure for a call named `what` that changes it.
    fn write<R>(
        &self,
        env: &Env,
        what: &str,
        body: impl FnOnce(&mut T) -> Outcome<R>,
    ) -> napi::Result<R> {
        let outcome = self.usable().and_then(|()| {
            let busy = |why: String| {
                Fail::new(
                    Class::Error,
                    code::BUSY,
                    format!("{what}() cannot change this {} {why}", self.name),
                )
            };
            let away = self.shared.away.load(Ordering::Acquire);
            if away > 0 {
                return Err(busy(format!(
                    "while {away} of its promises (queryManyAsync, pairsAsync, ...) are pending: await them first"
                )));
            }
            let mut index = match self.shared.structure.try_write() {
                Ok(index) => index,
                Err(std::sync::TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
                Err(std::sync::TryLockError::WouldBlock) => {
                    return Err(busy("from inside one of its own callbacks (traverse, queryWith, rayCastWith, a nearest filter); collect the changes and make them after the walk".to_owned()));
                }
            };
            guarded(|| self.poisoned.set(true), || body(&mut index))
        });
        fail(env, outcome)
    }

    /// The scratch list of handles (see [`with_kept`]).
    fn with_scratch<R>(&self, body: impl FnOnce(&mut Vec<Handle>) -> Outcome<R>) -> Outcome<R> {
        with_kept(&self.kept, |kept| body(&mut kept.handles))
    }

    /// The world, as the class shows it (`show`).
    pub(crate) fn world_box<B>(
        &self,
        env: &Env,
        show: impl FnOnce(T::Bounds) -> B,
    ) -> napi::Result<B> {
        self.read(env, |index| Ok(show(index.world())))
    }

    /// Runs `get` on the core structure: for the getters of one class.
    pub(crate) fn read_core<R>(&self, env: &Env, get: impl FnOnce(&T) -> R) -> napi::Result<R> {
        self.read(env, |index| Ok(get(index)))
    }

    /// The contact events since `tracker`'s last look at this index;
    /// `on_panic` runs if a panic stops the tracker's update halfway.
    pub(crate) fn track(
        &self,
        env: &Env,
        tracker: &mut flatquad::PairTracker<T::Bounds>,
        on_panic: impl FnOnce(),
    ) -> napi::Result<PairEvents> {
        self.read(env, |index| {
            guarded(on_panic, || {
                // The whole-index pair walk, when the tracker takes it, on all threads.
                let (began, ended) = tracker.par_update(index);
                Ok(PairEvents {
                    began: raws(began.iter().flatten().copied()),
                    ended: raws(ended.iter().flatten().copied()),
                })
            })
        })
    }

    pub(crate) fn size(&self, env: &Env) -> napi::Result<u32> {
        self.read(env, |index| Ok(index.len() as u32))
    }

    pub(crate) fn insert(
        &self,
        env: &Env,
        coords: &[&Unknown<'_>],
        id: Option<&Unknown<'_>>,
    ) -> napi::Result<f64> {
        self.write(env, "insert", |index| {
            let rect = args::any_box::<T::Bounds>(coords)?;
            let id = args::id(id)?;
            index.insert(rect, id).map(raw).map_err(core)
        })
    }

    pub(crate) fn remove(&self, env: &Env, handle: &Unknown<'_>) -> napi::Result<()> {
        self.write(env, "remove", |index| {
            let handle = args::handle(handle, "handle")?;
            index.remove(handle).map_err(core)
        })
    }

    pub(crate) fn move_to(
        &self,
        env: &Env,
        handle: &Unknown<'_>,
        coords: &[&Unknown<'_>],
    ) -> napi::Result<()> {
        self.write(env, "move", |index| {
            let handle = args::handle(handle, "handle")?;
            let rect = args::any_box::<T::Bounds>(coords)?;
            index.update(handle, rect).map_err(core)
        })
    }

    pub(crate) fn margin(&self, env: &Env) -> napi::Result<f64> {
        self.read(env, |index| Ok(f64::from(index.margin())))
    }

    pub(crate) fn set_margin(&self, env: &Env, margin: &Unknown<'_>) -> napi::Result<()> {
        self.write(env, "margin", |index| {
            let margin = args::number(margin, "margin")? as f32;
            index.set_margin(margin).map_err(core)
        })
    }

    pub(crate) fn cleanup(&self, env: &Env) -> napi::Result<()> {
        self.write(env, "cleanup", |index| {
            index.cleanup();
            Ok(())
        })
    }

    pub(crate) fn clear(&self, env: &Env) -> napi::Result<()> {
        self.write(env, "clear", |index| {
            index.clear();
            Ok(())
        })
    }

    /// `query`, `queryPoint`, `queryCircle` or `overlapping`: the handles found.
    pub(crate) fn hits(&self, env: &Env, asked: Asked<'_, '_>) -> napi::Result<Typed<f64>> {
        fail(
            env,
            self.found(asked, |found| Ok(raws(found.iter().copied()))),
        )
    }

    /// Answers one call of [`hits`](Index::hits): `answer` gets the handles
    /// found, in a buffer kept between calls (so a call allocates nothing
    /// but what `answer` makes). Shared by the class methods and by the same
    /// calls without napi-rs's machinery ([`crate::one_query`]).
    pub(crate) fn found<R>(
        &self,
        asked: Asked<'_, '_>,
        answer: impl FnOnce(&[Handle]) -> Outcome<R>,
    ) -> Outcome<R> {
        self.reading(|index| {
            let query = asked.query::<T::Bounds>()?;
            self.with_scratch(|found| {
                found.clear();
                index.query(&query, found).map_err(core)?;
                answer(found)
            })
        })
    }

    pub(crate) fn query_with(
        &self,
        env: &Env,
        coords: &[&Unknown<'_>],
        callback: Unknown<'_>,
        omit: Option<&Unknown<'_>>,
        mask: Option<&Unknown<'_>>,
    ) -> napi::Result<()> {
        self.read(env, |index| {
            let rect = Query::rect(args::any_box::<T::Bounds>(coords)?);
            let callback = args::function(callback, "callback")?;
            let query = filtered(rect, omit, mask)?;
            let mut failure = None;
            let _ = index
                .visit(&query, |h| visit(&callback, raw(h), &mut failure))
                .map_err(core)?;
            failure.map_or(Ok(()), Err)
        })
    }

    /// Calls `callback(info(node))` for every node in depth-first order
    /// until it returns `false` (`info` makes the 2D or the 3D node object).
    pub(crate) fn traverse<A: napi::bindgen_prelude::ToNapiValue>(
        &self,
        env: &Env,
        callback: Unknown<'_>,
        info: impl Fn(&CoreNode<T::Bounds>) -> A,
    ) -> napi::Result<()> {
        self.read(env, |index| {
            let callback = args::function(callback, "callback")?;
            let mut failure = None;
            walk(index, |node| visit(&callback, info(node), &mut failure));
            failure.map_or(Ok(()), Err)
        })
    }

    /// Every node in `traverse` order, as typed arrays (4 or 6 numbers per box).
    pub(crate) fn nodes(&self, env: &Env) -> napi::Result<Nodes> {
        self.read(env, |index| {
            let (mut rects, mut depths, mut is_leaf, mut counts) =
                (Vec::new(), Vec::new(), Vec::new(), Vec::new());
            walk(index, |node| {
                rects.extend(box_f32(&node.rect));
                depths.push(node.depth as u8);
                is_leaf.push(node.is_leaf as u8);
                counts.push(node.count);
                ControlFlow::Continue(())
            });
            Ok(Nodes {
                rects: Typed::new(rects),
                depths: Typed::new(depths),
                is_leaf: Typed::new(is_leaf),
                counts: Typed::new(counts),
            })
        })
    }

    /// `pairs`'s `...Async` twin (the call answered now is `pairs_into`).
    pub(crate) fn pairs_later(&self, env: &Env) -> AsyncTask<Promised<Typed<f64>>> {
        Later::batch(
            self,
            env,
            |_| Ok(()),
            |index, (), kept| {
                index.par_pairs(&mut kept.pairs);
                Ok(Typed::new(pair_handles(&kept.pairs)))
            },
        )
    }

    /// `pairs(out?)`, on the JavaScript thread: the handles written into `out`
    /// when it is given and holds them ([`Written`]), into a new array otherwise.
    pub(crate) fn pairs_into(
        &self,
        env: &Env,
        out: Option<&Unknown<'_>>,
    ) -> napi::Result<Written<f64>> {
        Now::batch_here(
            self,
            env,
            // SAFETY: the call's only argument; nothing runs JavaScript
            // until the answer is written.
            |_| unsafe { args::out_array(out, "out", "room for 2 handles per pair") },
            |index, out, kept| {
                index.par_pairs(&mut kept.pairs);
                Ok(Written::answer(out, 2 * kept.pairs.len(), |values| {
                    write_pair_handles(&kept.pairs, values)
                }))
            },
        )
    }

    /// `overlappingMany`'s `...Async` twin.
    pub(crate) fn overlapping_many_later(
        &self,
        env: &Env,
        handles: &Unknown<'_>,
    ) -> AsyncTask<Promised<QueryManyResult>> {
        let ask = |kept: &mut Kept| args::handles(handles, "handles", &mut kept.handles);
        self.rows_later(env, "overlappingMany", ask, overlapping_rows)
    }

    /// `overlappingMany(handles, out?)`, answered now.
    pub(crate) fn overlapping_many_into(
        &self,
        env: &Env,
        handles: &Unknown<'_>,
        out: Option<&Unknown<'_>>,
    ) -> napi::Result<WrittenRows> {
        let ask = |kept: &mut Kept| args::handles(handles, "handles", &mut kept.handles);
        self.rows_now(env, "overlappingMany", out, ask, overlapping_rows)
    }

    /// `queryMany`'s `...Async` twin.
    pub(crate) fn query_many_later(
        &self,
        env: &Env,
        rects: &Unknown<'_>,
        omit: Option<&Unknown<'_>>,
    ) -> AsyncTask<Promised<QueryManyResult>> {
        let ask = |kept: &mut Kept| query_many_args(rects, omit, kept);
        self.rows_later(env, "queryMany", ask, query_many_rows)
    }

    /// `queryMany(rects, omit?, out?)`, answered now.
    pub(crate) fn query_many_into(
        &self,
        env: &Env,
        rects: &Unknown<'_>,
        omit: Option<&Unknown<'_>>,
        out: Option<&Unknown<'_>>,
    ) -> napi::Result<WrittenRows> {
        let ask = |kept: &mut Kept| query_many_args(rects, omit, kept);
        self.rows_now(env, "queryMany", out, ask, query_many_rows)
    }

    /// A call answering rows (`overlappingMany`, `queryMany`,
    /// `queryCircleMany`, named `what`) on a worker: `ask` reads its
    /// arguments on the JavaScript thread, `run` fills the kept rows.
    fn rows_later<Q: Send + 'static>(
        &self,
        env: &Env,
        what: &'static str,
        ask: impl FnOnce(&mut Kept) -> Outcome<Q>,
        run: fn(&T, Q, &mut Kept) -> Outcome<()>,
    ) -> AsyncTask<Promised<QueryManyResult>> {
        Later::batch(self, env, ask, move |index, question, kept| {
            run(index, question, kept)?;
            rows(&kept.offsets, &kept.hits, what)
        })
    }

    /// [`rows_later`](Index::rows_later) answered now, into the caller's
    /// `out` where the rows fit ([`RowsOut`]).
    fn rows_now<Q: 'static>(
        &self,
        env: &Env,
        what: &str,
        out: Option<&Unknown<'_>>,
        ask: impl FnOnce(&mut Kept) -> Outcome<Q>,
        run: fn(&T, Q, &mut Kept) -> Outcome<()>,
    ) -> napi::Result<WrittenRows> {
        Now::batch_here(
            self,
            env,
            |kept| {
                let question = ask(kept)?;
                // SAFETY: `out` is read after the other arguments, which the
                // question holds as copies (`'static`: none of the caller's
                // memory), and nothing runs JavaScript until the answer.
                Ok((question, unsafe { args::rows_out(out)? }))
            },
            |index, (question, out), kept| {
                run(index, question, kept)?;
                rows_into(out, &kept.offsets, &kept.hits, what)
            },
        )
    }

    pub(crate) fn set_filter(
        &self,
        env: &Env,
        handle: &Unknown<'_>,
        category: &Unknown<'_>,
        mask: &Unknown<'_>,
    ) -> napi::Result<()> {
        self.write(env, "setFilter", |index| {
            let handle = args::handle(handle, "handle")?;
            let filter = Filter::new(args::bits(category, "category")?, args::bits(mask, "mask")?);
            index.set_filter(handle, filter).map_err(core)
        })
    }

    pub(crate) fn filter(&self, env: &Env, handle: &Unknown<'_>) -> napi::Result<FilterObject> {
        self.read(env, |index| {
            let handle = args::handle(handle, "handle")?;
            let filter = index.filter(handle).map_err(core)?;
            Ok(FilterObject {
                category: filter.category,
                mask: filter.mask,
            })
        })
    }

    pub(crate) fn set_filters(
        &self,
        env: &Env,
        handles: &Unknown<'_>,
        categories: &Unknown<'_>,
        masks: &Unknown<'_>,
    ) -> napi::Result<()> {
        self.write(env, "setFilters", |index| {
            self.with_scratch(|list| {
                args::handles(handles, "handles", list)?;
                let categories = args::bit_array(categories, "categories")?;
                let masks = args::bit_array(masks, "masks")?;
                let (categories, masks) = (categories.get(), masks.get());
                if categories.len() != masks.len() {
                    return Err(Fail::bad_length(format!(
                        "categories holds {} numbers but masks holds {}: give one category and one mask per handle",
                        categories.len(),
                        masks.len()
                    )));
                }
                let filters: Vec<Filter> = categories
                    .iter()
                    .zip(masks.iter())
                    .map(|(&category, &mask)| Filter::new(category, mask))
                    .collect();
                // The core checks the handles against the filters' count, and
                // every handle before it changes anything.
                index.set_filter_many(list, &filters).map_err(core)
            })
        })
    }

    /// `queryCircleMany`'s `...Async` twin.
    pub(crate) fn query_circle_many_later(
        &self,
        env: &Env,
        centers: &Unknown<'_>,
        radii: &Unknown<'_>,
        mask: Option<&Unknown<'_>>,
    ) -> AsyncTask<Promised<QueryManyResult>> {
        let ask = |_: &mut Kept| circle_args::<T::Bounds>(centers, radii, mask);
        self.rows_later(env, "queryCircleMany", ask, circle_rows)
    }

    /// `queryCircleMany(centers, radii, mask?, out?)`, answered now.
    pub(crate) fn query_circle_many_into(
        &self,
        env: &Env,
        centers: &Unknown<'_>,
        radii: &Unknown<'_>,
        mask: Option<&Unknown<'_>>,
        out: Option<&Unknown<'_>>,
    ) -> napi::Result<WrittenRows> {
        let ask = |_: &mut Kept| circle_args::<T::Bounds>(centers, radii, mask);
        self.rows_now(env, "queryCircleMany", out, ask, circle_rows)
    }

    /// `coords`: the point, `[x, y]` or `[x, y, z]`.
    pub(crate) fn nearest(
        &self,
        env: &Env,
        coords: &[&Unknown<'_>],
        k: Option<&Unknown<'_>>,
        options: Option<&Unknown<'_>>,
    ) -> napi::Result<Vec<Neighbor>> {
        let found = self.nearest_found(coords, k, options, |found| {
            Ok(found.iter().copied().map(neighbor).collect())
        });
        fail(env, found)
    }

    /// The neighbours `nearest` finds, nearest first, handed to `answer`
    /// (the method's objects, or `one_query`'s shared buffer).
    pub(crate) fn nearest_found<R>(
        &self,
        coords: &[&Unknown<'_>],
        k: Option<&Unknown<'_>>,
        options: Option<&Unknown<'_>>,
        answer: impl FnOnce(&[flatquad::Neighbor]) -> Outcome<R>,
    ) -> Outcome<R> {
        self.reading(|index| {
            let point = args::any_point::<T::Bounds>(coords)?;
            let k = args::count(k, "k", 1)?;
            let options = args::search_options(options, true)?;
            with_kept(&self.kept, |kept| {
                let found = &mut kept.neighbours;
                // Without a filter callback, the branch and bound (no ordered
                // visits to promise): about twice as fast as the ordered walk.
                let Some(filter) = &options.filter else {
                    index
                        .nearest(point, k, options.max_distance, options.mask, found)
                        .map_err(core)?;
                    return answer(found);
                };
                let mut failure = None;
                index
                    .nearest_with(
                        point,
                        k,
                        options.max_distance,
                        options.mask,
                        |handle| {
                            // After a throw the exception is pending: no more calls.
                            if failure.is_some() {
                                return false;
                            }
                            match args::call(filter, raw(handle)).and_then(|r| args::truthy(&r)) {
                                Ok(keep) => keep,
                                Err(fail) => {
                                    failure = Some(fail);
                                    false
                                }
                            }
                        },
                        found,
                    )
                    .map_err(core)?;
                if let Some(fail) = failure {
                    return Err(fail);
                }
                answer(found)
            })
        })
    }

    pub(crate) fn nearest_many<W: When>(
        &self,
        env: &Env,
        points: &Unknown<'_>,
        k: Option<&Unknown<'_>>,
        options: Option<&Unknown<'_>>,
    ) -> W::Answer<NearestManyResult> {
        W::batch(
            self,
            env,
            |_| {
                let points = args::points::<T::Bounds>(points, "points")?;
                let k = args::count(k, "k", 1)?;
                let options = args::search_options(options, false)?;
                Ok((points, k, options.max_distance, options.mask))
            },
            |index, (points, k, max_distance, mask), _| {
                let (mut offsets, mut found) = (Vec::new(), Vec::new());
                index
                    .par_nearest_many(&points, k, max_distance, mask, &mut offsets, &mut found)
                    .map_err(core)?;
                let handles = raws(found.iter().map(|n| n.handle));
                let ids = Typed::new(found.iter().map(|n| n.id).collect());
                let distances = Typed::new(found.iter().map(|n| n.distance).collect());
                let QueryManyResult { offsets, .. } = rows(&offsets, &[], "nearestMany")?;
                Ok(NearestManyResult {
                    offsets,
                    handles,
                    ids,
                    distances,
                })
            },
        )
    }

    /// The ray of `origin` and `direction` (`AXES` numbers each) and `max_length`.
    fn ray(
        origin: &[&Unknown<'_>],
        direction: &[&Unknown<'_>],
        max_length: &Unknown<'_>,
    ) -> Outcome<Ray<<T::Bounds as flatquad::Bounds>::Point>> {
        Ok(Ray {
            origin: args::named_point::<T::Bounds>(origin, &["ox", "oy", "oz"])?,
            direction: args::named_point::<T::Bounds>(direction, &["dx", "dy", "dz"])?,
            max_length: args::number(max_length, "maxLength")?,
        })
    }

    pub(crate) fn ray_cast(
        &self,
        env: &Env,
        origin: &[&Unknown<'_>],
        direction: &[&Unknown<'_>],
        max_length: &Unknown<'_>,
        mask: Option<&Unknown<'_>>,
    ) -> napi::Result<Option<RayHitObject>> {
        let hit = self.ray_cast_found(origin, direction, max_length, mask);
        fail(env, hit.map(|hit| hit.map(ray_hit)))
    }

    /// The first hit `ray_cast` finds (the method's object, or `one_query`'s
    /// shared buffer).
    pub(crate) fn ray_cast_found(
        &self,
        origin: &[&Unknown<'_>],
        direction: &[&Unknown<'_>],
        max_length: &Unknown<'_>,
        mask: Option<&Unknown<'_>>,
    ) -> Outcome<Option<flatquad::RayHit>> {
        self.reading(|index| {
            let ray = Self::ray(origin, direction, max_length)?;
            let mask = args::optional_mask(mask)?;
            index.ray_cast(&ray, mask).map_err(core)
        })
    }

    pub(crate) fn ray_cast_many<W: When>(
        &self,
        env: &Env,
        origins: &Unknown<'_>,
        directions: &Unknown<'_>,
        max_length: &Unknown<'_>,
        mask: Option<&Unknown<'_>>,
    ) -> W::Answer<RayCastManyResult> {
        W::batch(
            self,
            env,
            |_| {
                let origins = args::points::<T::Bounds>(origins, "origins")?;
                let directions = args::points::<T::Bounds>(directions, "directions")?;
                let lengths = args::number_or_floats(
                    max_length,
                    origins.len(),
                    "maxLength",
                    "one length per ray",
                )?;
                let rays =
                    Ray::of_columns(&origins, &directions, &lengths).map_err(|mismatch| {
                        // The core checks the directions first.
                        let name = if directions.len() != origins.len() {
                            "directions"
                        } else {
                            "maxLength"
                        };
                        core(mismatch).context(name)
                    })?;
                Ok((rays, args::optional_mask(mask)?))
            },
            |index, (rays, mask), _| {
                let mut hits = Vec::new();
                index
                    .par_ray_cast_many(&rays, mask, &mut hits)
                    .map_err(core)?;
                Ok(RayCastManyResult {
                    handles: Typed::new(
                        hits.iter()
                            .map(|hit| hit.map_or(0.0, |hit| raw(hit.handle)))
                            .collect(),
                    ),
                    ids: Typed::new(hits.iter().map(|hit| hit.map_or(0, |hit| hit.id)).collect()),
                    distances: Typed::new(
                        hits.iter()
                            .map(|hit| hit.map_or(f64::INFINITY, |hit| hit.distance))
                            .collect(),
                    ),
                })
            },
        )
    }

    pub(crate) fn ray_cast_all(
        &self,
        env: &Env,
        origin: &[&Unknown<'_>],
        direction: &[&Unknown<'_>],
        max_length: &Unknown<'_>,
        mask: Option<&Unknown<'_>>,
    ) -> napi::Result<Vec<RayHitObject>> {
        let hits = self.ray_cast_all_found(origin, direction, max_length, mask, hit_objects);
        fail(env, hits)
    }

    /// Every hit of the ray, handed to `answer` while the index is read.
    pub(crate) fn ray_cast_all_found<R>(
        &self,
        origin: &[&Unknown<'_>],
        direction: &[&Unknown<'_>],
        max_length: &Unknown<'_>,
        mask: Option<&Unknown<'_>>,
        answer: impl FnOnce(&[flatquad::RayHit]) -> Outcome<R>,
    ) -> Outcome<R> {
        self.reading(|index| {
            let ray = Self::ray(origin, direction, max_length)?;
            let mask = args::optional_mask(mask)?;
            let mut hits = Vec::new();
            index.ray_cast_all(&ray, mask, &mut hits).map_err(core)?;
            answer(&hits)
        })
    }

    /// The box cast of the box `coords` by `motion` (`all`: every hit, else
    /// the first).
    pub(crate) fn box_cast(
        &self,
        env: &Env,
        coords: &[&Unknown<'_>],
        motion: &[&Unknown<'_>],
        mask: Option<&Unknown<'_>>,
        omit: Option<&Unknown<'_>>,
        all: bool,
    ) -> napi::Result<Vec<RayHitObject>> {
        fail(
            env,
            self.box_cast_found(coords, motion, mask, omit, all, hit_objects),
        )
    }

    /// [`box_cast`](Index::box_cast)'s hits, handed to `answer` while the
    /// index is read.
    pub(crate) fn box_cast_found<R>(
        &self,
        coords: &[&Unknown<'_>],
        motion: &[&Unknown<'_>],
        mask: Option<&Unknown<'_>>,
        omit: Option<&Unknown<'_>>,
        all: bool,
        answer: impl FnOnce(&[flatquad::RayHit]) -> Outcome<R>,
    ) -> Outcome<R> {
        self.reading(|index| {
            let rect = args::any_box::<T::Bounds>(coords)?;
            let motion = args::named_point::<T::Bounds>(motion, &["dx", "dy", "dz"])?;
            let cast = BoxCast {
                omit: args::optional_handle(omit, "omit")?,
                ..BoxCast::new(rect, motion).mask(args::optional_mask(mask)?)
            };
            let mut hits = Vec::new();
            if all {
                index.box_cast_all(&cast, &mut hits).map_err(core)?;
            } else {
                hits.extend(index.box_cast(&cast).map_err(core)?);
            }
            answer(&hits)
        })
    }

    pub(crate) fn ray_cast_with(
        &self,
        env: &Env,
        origin: &[&Unknown<'_>],
        direction: &[&Unknown<'_>],
        max_length: &Unknown<'_>,
        callback: Unknown<'_>,
        mask: Option<&Unknown<'_>>,
    ) -> napi::Result<()> {
        self.read(env, |index| {
            let ray = Self::ray(origin, direction, max_length)?;
            let callback = args::function(callback, "callback")?;
            let mask = args::optional_mask(mask)?;
            let mut failure = None;
            index
                .ray_cast_with(&ray, mask, |hit| {
                    match args::call(&callback, ray_hit(*hit)).and_then(|r| args::ray_control(&r)) {
                        Ok(control) => control,
                        Err(fail) => {
                            failure = Some(fail);
                            RayControl::Stop
                        }
                    }
                })
                .map_err(core)?;
            failure.map_or(Ok(()), Err)
        })
    }

    pub(crate) fn id_of(&self, env: &Env, handle: &Unknown<'_>) -> napi::Result<u32> {
        self.read(env, |index| {
            let handle = args::handle(handle, "handle")?;
            index.id(handle).map_err(core)
        })
    }

    /// The element's box, as the class shows it (`show`).
    pub(crate) fn rect_of<B>(
        &self,
        env: &Env,
        handle: &Unknown<'_>,
        show: impl FnOnce(T::Bounds) -> B,
    ) -> napi::Result<B> {
        self.read(env, |index| {
            let handle = args::handle(handle, "handle")?;
            index.rect(handle).map(show).map_err(core)
        })
    }

    pub(crate) fn has(&self, env: &Env, handle: &Unknown<'_>) -> napi::Result<bool> {
        self.read(env, |index| {
            // Any number (a TypeError for anything else): false for whatever
            // is not a live handle.
            args::number(handle, "handle")?;
            Ok(args::handle(handle, "handle").is_ok_and(|h| index.contains(h)))
        })
    }

    pub(crate) fn handles(&self, env: &Env) -> napi::Result<Typed<f64>> {
        self.read(env, |index| Ok(raws(index.iter().map(|(h, _, _)| h))))
    }

    pub(crate) fn ids_of(&self, env: &Env, handles: &Unknown<'_>) -> napi::Result<Typed<u32>> {
        self.read(env, |index| {
            self.with_scratch(|list| {
                args::handles(handles, "handles", list)?;
                let ids = list
                    .iter()
                    .enumerate()
                    .map(|(i, &h)| index.id(h).map_err(|e| core(e).at(i)))
                    .collect::<Outcome<Vec<u32>>>()?;
                Ok(Typed::new(ids))
            })
        })
    }

    pub(crate) fn stats(&self, env: &Env) -> napi::Result<Stats> {
        self.read(env, |index| {
            let s = index.stats();
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

    pub(crate) fn insert_many(
        &self,
        env: &Env,
        rects: &Unknown<'_>,
        ids: Option<&Unknown<'_>>,
    ) -> napi::Result<Typed<f64>> {
        self.write(env, "insertMany", |index| {
            let rects: Rects<T::Bounds> = args::rects(rects, "rects")?;
            let rects = rects.get();
            let ids = match ids.filter(|v| !args::is_absent(Some(v))) {
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
            index.insert_many(rects, &ids, &mut handles).map_err(core)?;
            Ok(raws(handles))
        })
    }

    pub(crate) fn move_many(
        &self,
        env: &Env,
        handles: &Unknown<'_>,
        rects: &Unknown<'_>,
    ) -> napi::Result<()> {
        self.moves(env, "moveMany", handles, rects, |index, list, rects| {
            index.par_update_many(list, rects)
        })
    }

    /// Test hook: `moveMany` whose moves panic after the first `at` are
    /// made, on a worker thread if `on_worker`, as a bug would: the moves are
    /// finished and the call throws `ERR_FLATQUAD_PANIC`, the index not
    /// poisoned.
    pub(crate) fn panic_in_moves_for_tests(
        &self,
        env: &Env,
        handles: &Unknown<'_>,
        rects: &Unknown<'_>,
        at: u32,
        on_worker: bool,
    ) -> napi::Result<()> {
        self.moves(
            env,
            "__panicInMovesForTests",
            handles,
            rects,
            |index, list, rects| {
                flatquad::update_many_panicking_for_tests(
                    index,
                    list,
                    rects,
                    at as usize,
                    on_worker,
                )
            },
        )
    }

    /// `moveMany`'s arguments read and checked, then moved by `moves`.
    fn moves(
        &self,
        env: &Env,
        what: &str,
        handles: &Unknown<'_>,
        rects: &Unknown<'_>,
        moves: impl FnOnce(&mut T, &[Handle], &[T::Bounds]) -> Result<(), flatquad::Error>,
    ) -> napi::Result<()> {
        self.write(env, what, |index| {
            self.with_scratch(|list| {
                args::handles(handles, "handles", list)?;
                let rects = args::rects(rects, "rects")?;
                let rects = rects.get();
                if rects.len() != list.len() {
                    return Err(Fail::bad_length(format!(
                        "handles holds {} handles but rects holds {} rectangles: give one rectangle per handle",
                        list.len(),
                        rects.len()
                    )));
                }
                moves(index, list, rects).map_err(core)
            })
        })
    }

    pub(crate) fn remove_many(&self, env: &Env, handles: &Unknown<'_>) -> napi::Result<()> {
        self.write(env, "removeMany", |index| {
            self.with_scratch(|list| {
                args::handles(handles, "handles", list)?;
                index.remove_many(list).map_err(core)
            })
        })
    }

    pub(crate) fn validate(&self, env: &Env) -> napi::Result<()> {
        self.read(env, |index| {
            index.validate().map_err(|why| {
                Fail::new(
                    Class::Error,
                    code::OTHER,
                    format!("broken {}: {why}", self.name),
                )
            })
        })
    }

    pub(crate) fn to_bytes(&self, env: &Env) -> napi::Result<Buffer> {
        self.read(env, |index| Ok(Buffer::from(index.to_bytes())))
    }

    /// Test hook: panics inside a call that reads (`mutating` false) or
    /// changes the index; with `on_worker`, on one of rayon's threads, as a
    /// batch call's work would.
    pub(crate) fn panic_for_tests(
        &self,
        env: &Env,
        mutating: bool,
        on_worker: bool,
    ) -> napi::Result<()> {
        if mutating {
            self.write(env, "__panicForTests", |_| -> Outcome<()> {
                flatquad::panic_for_tests(on_worker)
            })
        } else {
            self.read(env, |_| -> Outcome<()> {
                flatquad::panic_for_tests(on_worker)
            })
        }
    }

    /// Test hook: an `...Async` call whose answer panics, on another thread
    /// of the pool answering it (`on_worker`) or on the thread the answer
    /// starts on.
    pub(crate) fn panic_async_for_tests(
        &self,
        env: &Env,
        on_worker: bool,
    ) -> AsyncTask<Promised<Typed<f64>>> {
        Later::batch(
            self,
            env,
            |_| Ok(()),
            move |_, (), _| -> Outcome<Typed<f64>> { flatquad::panic_for_tests(on_worker) },
        )
    }
}
