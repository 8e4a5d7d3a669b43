//! Contact events: `qt_tracker`, the core's `PairTracker` following one
//! `qt_tree` or `qt_octree`.
//!
//! A tracker keeps a pointer to its tree and a share of the tree's liveness
//! flag (`Held::alive`, made by the first tracker of a tree). The tree's
//! destroy call clears the flag before freeing the tree, and every tracker
//! call checks it before anything else: a tracker that outlives its tree is
//! refused with `QT_TREE_DESTROYED` instead of reading freed memory. The flag
//! is owned by the tree and its trackers together, so it outlives the tree;
//! a new tree allocated at the old address has a flag of its own.
//!
//! A tracker changes only in `qt_tracker_update` and `qt_tracker_reset`, after
//! every check has passed, so a refused call leaves it as it was: the next
//! update still reports the exact difference since the last successful one.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use flatquad_core::{Handle, PairTracker};

use crate::boundary::*;
use crate::status::*;
use crate::types::*;

/// Reports the pairs of elements that began and ended overlapping between two
/// updates: the contact events of a game loop, on the closed boxes, with the
/// collision filters applied. Opaque: made from a tree by `qt_tracker_create`
/// (a `qt_tree`, any structure) or `qt_octree_tracker_create` (a
/// `qt_octree`), freed by `qt_tracker_destroy`; every other call works on
/// either.
///
/// A tracker follows the one tree it was made from. Destroying that tree
/// first is allowed: every call on the tracker but `qt_tracker_destroy` then
/// returns `QT_TREE_DESTROYED`.
pub struct qt_tracker {
    follow: Box<dyn Events>,
    /// Set while a call changes the tracker; left set if that call panics.
    poisoned: bool,
}

/// A tracker over one tree type.
struct Follow<W: Shell> {
    tree: *const W,
    alive: Arc<AtomicBool>,
    events: PairTracker<W::BoxType>,
}

/// The tracker calls, over either tree type.
trait Events {
    /// `QT_TREE_DESTROYED` once the tree is gone.
    fn check_alive(&self) -> Status;
    /// One update of the core tracker; refuses a dead or poisoned tree
    /// before changing anything.
    fn update(&mut self) -> Result<(usize, usize), qt_status>;
    fn began(&self) -> &[[Handle; 2]];
    fn ended(&self) -> &[[Handle; 2]];
    fn pair_count(&self) -> usize;
    fn reset(&mut self);
}

impl<W: Shell> Events for Follow<W> {
    fn check_alive(&self) -> Status {
        // Acquire: pairs with the destroy call's Release store.
        match self.alive.load(Ordering::Acquire) {
            true => Ok(()),
            false => Err(QT_TREE_DESTROYED),
        }
    }

    fn update(&mut self) -> Result<(usize, usize), qt_status> {
        self.check_alive()?;
        // SAFETY: the tree is not destroyed (the flag is cleared before it is
        // freed, and destroying it during this call breaks the threading
        // rules), and it came from this library.
        let tree = unsafe { tree_ref(self.tree)? };
        // On rayon's pool when its scan or its pair walk takes the threads, as
        // the batch calls (RAYON_NUM_THREADS=1 keeps it on the caller's
        // thread): the same events.
        let (began, ended) = self.events.par_update(tree);
        Ok((began.len(), ended.len()))
    }

    fn began(&self) -> &[[Handle; 2]] {
        self.events.began()
    }

    fn ended(&self) -> &[[Handle; 2]] {
        self.events.ended()
    }

    fn pair_count(&self) -> usize {
        self.events.pair_count()
    }

    fn reset(&mut self) {
        self.events.reset()
    }
}

/// The body of both constructors (`qt_octree_tracker_create` is generated).
pub(crate) unsafe fn create_tracker<W: Shell>(
    tree: *const W,
    out_tracker: *mut *mut qt_tracker,
) -> Status {
    let held = arg(tree)?;
    if held.poisoned {
        return Err(QT_POISONED);
    }
    let out_tracker = Out::new(out_tracker)?;
    let alive = held
        .alive
        .get_or_init(|| Arc::new(AtomicBool::new(true)))
        .clone();
    let follow = Follow {
        tree,
        alive,
        events: PairTracker::new(),
    };
    out_tracker.write(Box::into_raw(Box::new(qt_tracker {
        follow: Box::new(follow),
        poisoned: false,
    })));
    Ok(())
}

/// A tracker for reading: not poisoned, its tree alive.
unsafe fn reading<'a>(tracker: *const qt_tracker) -> Result<&'a dyn Events, qt_status> {
    let tracker = arg(tracker)?;
    if tracker.poisoned {
        return Err(QT_POISONED);
    }
    tracker.follow.check_alive()?;
    Ok(&*tracker.follow)
}

/// Runs `change` on a tracker that is not poisoned; a panic inside leaves it
/// poisoned (its state may be half updated), as a tree is.
unsafe fn changing<R>(
    tracker: *mut qt_tracker,
    change: impl FnOnce(&mut dyn Events) -> Result<R, qt_status>,
) -> Result<R, qt_status> {
    let tracker = &mut *non_null(tracker)?.as_ptr();
    if tracker.poisoned {
        return Err(QT_POISONED);
    }
    tracker.poisoned = true;
    let result = change(&mut *tracker.follow);
    tracker.poisoned = false;
    result
}

/// The body of `qt_tracker_began` and `qt_tracker_ended`: capacity 0 asks for
/// the count; otherwise the buffer must hold every pair, or nothing is written.
unsafe fn fill(
    pairs: &[[Handle; 2]],
    out_pairs: *mut qt_pair,
    capacity: usize,
    out_total: *mut usize,
) -> Status {
    let out_total = Out::new(out_total)?;
    let out = slice_out(out_pairs, capacity)?;
    if capacity != 0 && capacity < pairs.len() {
        return Err(QT_BUFFER_TOO_SMALL);
    }
    for (slot, [a, b]) in out.iter_mut().zip(pairs) {
        slot.write(qt_pair {
            a: a.to_raw(),
            b: b.to_raw(),
        });
    }
    out_total.write(pairs.len());
    Ok(())
}

/// Makes a tracker of the contact events of `tree` (any structure) and writes
/// it to `*out_tracker`; free it with `qt_tracker_destroy`. It has seen
/// nothing yet: its first `qt_tracker_update` reports every overlapping pair
/// as began. A tree may have any number of trackers, each with its own
/// history.
///
/// Returns `QT_NULL_ARGUMENT` if `tree` or `out_tracker` is NULL,
/// `QT_POISONED` for a poisoned tree.
#[no_mangle]
pub unsafe extern "C" fn qt_tracker_create(
    tree: *const qt_tree,
    out_tracker: *mut *mut qt_tracker,
) -> qt_status {
    guard(|| create_tracker(tree, out_tracker))
}

/// Frees a tracker (before or after its tree: either order is fine).
/// `qt_tracker_destroy(NULL)` does nothing. The tracker must not be used
/// afterwards, nor destroyed twice.
#[no_mangle]
pub unsafe extern "C" fn qt_tracker_destroy(tracker: *mut qt_tracker) {
    guard(|| {
        if let Ok(tracker) = non_null(tracker) {
            drop(Box::from_raw(tracker.as_ptr()));
        }
    })
}

/// Looks at the tree again, after the frame's moves, inserts, removals,
/// filter changes and cleanup, and finds the pairs that began and ended
/// overlapping since the last successful update (or since the tracker was
/// made or reset). Writes how many of each to `*out_began` and `*out_ended`;
/// `qt_tracker_began` and `qt_tracker_ended` then give the pairs, and keep
/// giving them until the next update.
///
/// Pairs are of closed boxes with the collision filters applied (as
/// `qt_query_pairs`). A removed element's pairs end under the handle it had;
/// a pair whose filters stop colliding ends; a pair whose slot was reused by
/// a new element ends and the new element's begins. The work follows the
/// change: unchanged pairs are not tested again.
///
/// Reads the tree as the calls taking a `const qt_tree *` do: it may run
/// beside them, never beside a change to the tree. A tracker of 65,536 slots
/// or more looks for the changed elements on every core, and when most
/// elements changed it walks the pairs on every core; such an update runs on
/// rayon's global pool, as `qt_move_many`
/// (`RAYON_NUM_THREADS=1` keeps it on the calling thread). The events are the
/// same either way.
///
/// Returns `QT_NULL_ARGUMENT` if a pointer is NULL, `QT_TREE_DESTROYED` if
/// the tree was destroyed, `QT_POISONED` if the tree or the tracker is. A
/// refused update changes nothing: the next one still reports the whole
/// difference since the last successful one.
#[no_mangle]
pub unsafe extern "C" fn qt_tracker_update(
    tracker: *mut qt_tracker,
    out_began: *mut usize,
    out_ended: *mut usize,
) -> qt_status {
    guard(|| {
        let out_began = Out::new(out_began)?;
        let out_ended = Out::new(out_ended)?;
        let (began, ended) = changing(tracker, |events| events.update())?;
        out_began.write(began);
        out_ended.write(ended);
        Ok(())
    })
}

/// The pairs that began overlapping at the last update, each as
/// `{lower, higher}` handle, sorted by `a` then `b`. Count first, then fill:
/// with `capacity` 0 (`out_pairs` may then be NULL) only the count is
/// written to `*out_total`; otherwise the buffer must hold every pair, and
/// all of them and the count are written.
///
/// Unlike the queries' buffers, a buffer that is too small is refused with
/// `QT_BUFFER_TOO_SMALL` and nothing written: the count is known (from
/// `qt_tracker_update`), and a list cut short would lose events (an enter
/// without its exit). Also returns `QT_NULL_ARGUMENT`, `QT_TREE_DESTROYED`
/// and `QT_POISONED`.
#[no_mangle]
pub unsafe extern "C" fn qt_tracker_began(
    tracker: *const qt_tracker,
    out_pairs: *mut qt_pair,
    capacity: usize,
    out_total: *mut usize,
) -> qt_status {
    guard(|| fill(reading(tracker)?.began(), out_pairs, capacity, out_total))
}

/// The pairs that ended at the last update, as `qt_tracker_began` gives the
/// began ones. An ended pair may name elements that are gone (their old
/// handles, now stale).
#[no_mangle]
pub unsafe extern "C" fn qt_tracker_ended(
    tracker: *const qt_tracker,
    out_pairs: *mut qt_pair,
    capacity: usize,
    out_total: *mut usize,
) -> qt_status {
    guard(|| fill(reading(tracker)?.ended(), out_pairs, capacity, out_total))
}

/// Writes how many pairs overlapped at the last update to `*out_count` (0
/// before the first).
///
/// Returns `QT_NULL_ARGUMENT`, `QT_TREE_DESTROYED` or `QT_POISONED`.
#[no_mangle]
pub unsafe extern "C" fn qt_tracker_pair_count(
    tracker: *const qt_tracker,
    out_count: *mut usize,
) -> qt_status {
    guard(|| {
        let events = reading(tracker)?;
        Out::new(out_count)?.write(events.pair_count());
        Ok(())
    })
}

/// Forgets everything the tracker saw: the began and ended lists are
/// emptied, and the next update reports every overlapping pair as began.
///
/// Returns `QT_NULL_ARGUMENT`, `QT_TREE_DESTROYED` or `QT_POISONED`.
#[no_mangle]
pub unsafe extern "C" fn qt_tracker_reset(tracker: *mut qt_tracker) -> qt_status {
    guard(|| {
        changing(tracker, |events| {
            events.check_alive()?;
            events.reset();
            Ok(())
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::panic::{catch_unwind, AssertUnwindSafe};

    /// A panic in the middle of a change poisons the tracker (its state may
    /// be half updated); the boundary returns `QT_PANIC`, and only destroy
    /// works afterwards.
    #[test]
    fn a_panic_while_changing_poisons_the_tracker() {
        unsafe {
            let mut tree = std::ptr::null_mut();
            let world = qt_rect {
                x1: 0.0,
                y1: 0.0,
                x2: 10.0,
                y2: 10.0,
            };
            assert_eq!(crate::qt_create_default(1, world, &mut tree), QT_OK);
            let mut tracker = std::ptr::null_mut();
            assert_eq!(qt_tracker_create(tree, &mut tracker), QT_OK);
            let panicked = catch_unwind(AssertUnwindSafe(|| {
                changing(tracker, |_| -> Result<(), qt_status> {
                    panic!("a deliberate panic (testing the tracker's poison)")
                })
            }));
            assert!(panicked.is_err());
            let (mut began, mut ended, mut count) = (7, 7, 7);
            assert_eq!(
                qt_tracker_update(tracker, &mut began, &mut ended),
                QT_POISONED
            );
            assert_eq!(qt_tracker_pair_count(tracker, &mut count), QT_POISONED);
            assert_eq!(qt_tracker_reset(tracker), QT_POISONED);
            assert_eq!((began, ended, count), (7, 7, 7));
            qt_tracker_destroy(tracker);
            crate::qt_destroy(tree);
        }
    }
}
