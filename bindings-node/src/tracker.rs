//! The JavaScript `PairTracker`: the core's contact events
//! (`flatquad::PairTracker`) over one index of any class, which it holds a
//! strong reference to (the index cannot be collected while the tracker
//! lives). Each call is one call to the core through the index's own guards.

use std::cell::{Cell, RefCell};

use flatquad::{Box3, Rect};
use napi::bindgen_prelude::{Either5, FromNapiValue, Reference, This};
use napi::{Env, JsValue, Unknown};
use napi_derive::napi;

use crate::args;
use crate::classes::{Grid, LooseGrid, LooseQuadtree, Quadtree};
use crate::error::{code, Class, Fail, Outcome};
use crate::index::{self, Index, JsClass as _};
use crate::objects::PairEvents;
use crate::octree::Octree;

/// A 2D index of any class.
enum Flat {
    Quadtree(Reference<Quadtree>),
    Grid(Reference<Grid>),
    LooseGrid(Reference<LooseGrid>),
    LooseQuadtree(Reference<LooseQuadtree>),
}

impl Flat {
    fn index(&self) -> &Index {
        match self {
            Flat::Quadtree(c) => c.inner(),
            Flat::Grid(c) => c.inner(),
            Flat::LooseGrid(c) => c.inner(),
            Flat::LooseQuadtree(c) => c.inner(),
        }
    }
}

/// Any index class, as the `index` getter gives it back.
type AnyClass = Either5<
    Reference<Quadtree>,
    Reference<Grid>,
    Reference<LooseGrid>,
    Reference<LooseQuadtree>,
    Reference<Octree>,
>;

/// The index followed and the core tracker of its box width.
enum Tracked {
    Flat(Flat, RefCell<flatquad::PairTracker<Rect>>),
    Solid(Reference<Octree>, RefCell<flatquad::PairTracker<Box3>>),
}

/// `value` as a reference to an instance of class `C`, if it is one (napi-rs
/// checks the class of the wrapped object, not only that it wraps something).
fn instance<C: 'static + napi::bindgen_prelude::MaybeTypeTag>(
    value: &Unknown<'_>,
) -> Option<Reference<C>> {
    let raw = value.value();
    // SAFETY: a live value of the current call; anything else only fails.
    unsafe { Reference::<C>::from_napi_value(raw.env, raw.value) }.ok()
}

/// The pairs of elements of one index that began and ended overlapping since
/// the last look: the contact events of a game loop (a sensor entered or
/// left, a contact to create or destroy).
///
/// After the frame's moves, inserts, removals and filter changes, `update()`
/// returns `{ began, ended }`. Boxes are closed (touching counts) and
/// collision filters apply, as for `pairs()`. The first update reports every
/// overlapping pair as began. A removed element's pairs end under the handle
/// it had; a pair whose filters stop colliding ends; a slot the index reuses
/// for a new element ends the old element's pairs and begins the new one's.
/// The work follows the change: pairs between unchanged elements are not
/// tested again.
#[napi]
pub struct PairTracker {
    tracked: Tracked,
    /// Set when a panic stopped an update halfway: the tracker may be
    /// half-updated, so every later call throws `ERR_FLATQUAD_POISONED`.
    poisoned: Cell<bool>,
}

#[napi]
impl PairTracker {
    /// A tracker of `index` (a `Quadtree`, `Grid`, `LooseGrid`,
    /// `LooseQuadtree` or `Octree`) that has seen nothing yet. It keeps the
    /// index alive. Throws a `TypeError` (`ERR_INVALID_ARG_TYPE`) for anything
    /// else.
    #[napi(
        constructor,
        catch_unwind,
        ts_args_type = "index: Quadtree | Grid | LooseGrid | LooseQuadtree | Octree"
    )]
    pub fn new(env: &Env, this: This<'_>, index: Unknown<'_>) -> napi::Result<Self> {
        let outcome = index::called_with_new(env, &this, "PairTracker").and_then(|()| {
            let tracked = if let Some(c) = instance::<Quadtree>(&index) {
                Tracked::Flat(Flat::Quadtree(c), RefCell::default())
            } else if let Some(c) = instance::<Grid>(&index) {
                Tracked::Flat(Flat::Grid(c), RefCell::default())
            } else if let Some(c) = instance::<LooseGrid>(&index) {
                Tracked::Flat(Flat::LooseGrid(c), RefCell::default())
            } else if let Some(c) = instance::<LooseQuadtree>(&index) {
                Tracked::Flat(Flat::LooseQuadtree(c), RefCell::default())
            } else if let Some(c) = instance::<Octree>(&index) {
                Tracked::Solid(c, RefCell::default())
            } else {
                return Err(Fail::wrong_type(format!(
                    "PairTracker(index): index must be a Quadtree, Grid, LooseGrid, LooseQuadtree or Octree; received {}",
                    args::describe(&index)
                )));
            };
            Ok(PairTracker {
                tracked,
                poisoned: Cell::new(false),
            })
        });
        index::fail(env, outcome)
    }

    /// The pairs that began and ended overlapping since the last `update()`
    /// (or since the tracker was made, or `reset()`): 2 handles per pair, the
    /// lower first, the pairs sorted. Throws as the index's own calls do when
    /// it cannot be read (`ERR_FLATQUAD_POISONED`); a tracker whose update a
    /// panic stopped halfway throws `ERR_FLATQUAD_POISONED` from then on.
    #[napi(catch_unwind)]
    pub fn update(&self, env: &Env) -> napi::Result<PairEvents> {
        index::fail(env, self.usable())?;
        let poison = || self.poisoned.set(true);
        match &self.tracked {
            Tracked::Flat(index, tracker) => {
                index.index().track(env, &mut tracker.borrow_mut(), poison)
            }
            Tracked::Solid(index, tracker) => {
                index.inner().track(env, &mut tracker.borrow_mut(), poison)
            }
        }
    }

    /// How many pairs overlapped at the last `update()` (0 before the first).
    #[napi(getter, catch_unwind)]
    pub fn pair_count(&self, env: &Env) -> napi::Result<f64> {
        index::fail(env, self.usable())?;
        // A number, as handles are: exact far beyond 2^32 pairs.
        Ok((match &self.tracked {
            Tracked::Flat(_, tracker) => tracker.borrow().pair_count(),
            Tracked::Solid(_, tracker) => tracker.borrow().pair_count(),
        }) as f64)
    }

    /// The index this tracker follows.
    #[napi(
        getter,
        catch_unwind,
        ts_return_type = "Quadtree | Grid | LooseGrid | LooseQuadtree | Octree"
    )]
    pub fn index(&self, env: &Env) -> napi::Result<AnyClass> {
        let env = *env;
        Ok(match &self.tracked {
            Tracked::Flat(Flat::Quadtree(c), _) => Either5::A(c.clone(env)?),
            Tracked::Flat(Flat::Grid(c), _) => Either5::B(c.clone(env)?),
            Tracked::Flat(Flat::LooseGrid(c), _) => Either5::C(c.clone(env)?),
            Tracked::Flat(Flat::LooseQuadtree(c), _) => Either5::D(c.clone(env)?),
            Tracked::Solid(c, _) => Either5::E(c.clone(env)?),
        })
    }

    /// Forgets everything seen: the next `update()` reports every overlapping
    /// pair as began, and nothing as ended.
    #[napi(catch_unwind)]
    pub fn reset(&self, env: &Env) -> napi::Result<()> {
        index::fail(
            env,
            self.changing(|| {
                match &self.tracked {
                    Tracked::Flat(_, tracker) => tracker.borrow_mut().reset(),
                    Tracked::Solid(_, tracker) => tracker.borrow_mut().reset(),
                }
                Ok(())
            }),
        )
    }

    /// Test hook: panics (on a worker thread of the batch calls' pool with
    /// `onWorker`) where an update would, so the tests can check that the
    /// tracker is poisoned. Not part of the API (absent from the typings).
    #[napi(js_name = "__panicForTests", skip_typescript, catch_unwind)]
    pub fn panic_for_tests(&self, env: &Env, on_worker: Option<bool>) -> napi::Result<()> {
        let on_worker = on_worker.unwrap_or(false);
        index::fail(env, self.changing(|| flatquad::panic_for_tests(on_worker)))
    }
}

impl PairTracker {
    /// `body`, a change to the tracker outside `update`: refused once
    /// poisoned, and poisoning the tracker if a panic stops it.
    fn changing(&self, body: impl FnOnce() -> Outcome<()>) -> Outcome<()> {
        self.usable()
            .and_then(|()| index::guarded(|| self.poisoned.set(true), body))
    }

    fn usable(&self) -> Outcome<()> {
        if self.poisoned.get() {
            return Err(Fail::new(
                Class::Error,
                code::POISONED,
                "this PairTracker is unusable: an internal error (a Rust panic) interrupted an earlier update; make a new one",
            ));
        }
        Ok(())
    }
}
