//! Moves that a panic stops halfway, finished from their arguments.
//!
//! Every argument of a move is checked before anything changes, so a panic
//! inside one is a bug in flatquad. It can stop a batch on any of rayon's
//! threads with some records moved and the structure's own state (lists,
//! nodes, runs, counts) half-changed. [`finish_on_panic`] catches it and
//! finishes the moves from the arguments alone: each moved slot's record
//! takes its last box of the call (by the fat-bounds rule under a margin),
//! and the structure is rebuilt around the records (each structure's
//! `refile_all`), with every handle, id and filter kept. The index then
//! holds exactly the elements a call that succeeded would have left, and the
//! call returns [`Error::Panicked`]: all, of all or nothing.
//!
//! Why all and not nothing: putting the old boxes back needs them kept on
//! the way, a write of 20 bytes (28 in 3D) per move into a log every index
//! would hold at its largest batch's size, on the hot path of every frame.
//! Finishing needs only the arguments the caller still holds, and costs
//! nothing until a panic. A panic while finishing goes on unwinding, with
//! the first panic's payload: the bindings then poison the index.

use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

use crate::index::raw::{HasSlots, Structure};
use crate::slots::{SlotPool, SlotRecord};
use crate::{Bounds, Error, Handle};

/// Runs `moves` (of `handles` to `rects`, checked); if it panics, finishes
/// them ([`Structure::finish_moves`]) and returns [`Error::Panicked`].
pub(crate) fn finish_on_panic<T: Structure + ?Sized>(
    index: &mut T,
    handles: &[Handle],
    rects: &[T::Bounds],
    moves: impl FnOnce(&mut T),
) -> Result<(), Error> {
    let Err(payload) = catch_unwind(AssertUnwindSafe(|| moves(index))) else {
        return Ok(());
    };
    if catch_unwind(AssertUnwindSafe(|| index.finish_moves(handles, rects))).is_err() {
        resume_unwind(payload);
    }
    Err(Error::Panicked(panic_message(&*payload)))
}

/// [`Structure::finish_moves`] of a structure with a slot pool: each record
/// of `handles` (live) takes its last box of `rects`, then `refile_all`
/// rebuilds the structure around the records.
pub(crate) fn finish<T: HasSlots>(
    index: &mut T,
    handles: &[Handle],
    rects: &[<T::Slot as SlotRecord>::Bounds],
    refile_all: impl FnOnce(&mut T),
) {
    let pool = index.slot_pool_mut();
    for (&handle, &rect) in handles.iter().zip(rects) {
        let slot = handle.slot() as usize;
        if pool.is_fat() {
            // Any filed box that holds the element's own box is a true one.
            pool.tight[slot] = rect;
            let record = &mut pool.slots[slot];
            if !record.rect().holds_box(&rect) {
                record.set_rect(rect.grown(pool.margin));
            }
        } else {
            pool.slots[slot].set_rect(rect);
        }
    }
    refile_all(index);
}

/// Rebuilds a structure around its slots: `reset` (the structure's
/// `clear`, which frees the slots of the pool it holds) runs with the pool
/// kept aside, then `file` links every live slot by its filed box again,
/// the last slot first (lists pushed at their head then come out in slot
/// order, and the loose grid's, appended at their tail, take one step each).
/// Handles, ids, filters and boxes stay as they were.
pub(crate) fn refile_around_slots<T: HasSlots>(
    index: &mut T,
    reset: impl FnOnce(&mut T),
    mut file: impl FnMut(&mut T, u32, <T::Slot as SlotRecord>::Bounds),
) {
    let pool = core::mem::replace(index.slot_pool_mut(), SlotPool::new());
    reset(index);
    *index.slot_pool_mut() = pool;
    for slot in (0..index.slot_pool().slots.len() as u32).rev() {
        let pool = index.slot_pool();
        if pool.is_live(slot) {
            let rect = pool.slots[slot as usize].rect();
            file(index, slot, rect);
        }
    }
}

/// A panic's message, if it has one (`panic!` with a string or a format);
/// for the bindings too ([`crate::panic_message`]).
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(message) = payload.downcast_ref::<&str>() {
        (*message).to_owned()
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message.clone()
    } else {
        "a panic without a message".to_owned()
    }
}

/// The core's own tests break moves with these: a move to a box centred on
/// `x` = [`PANIC_X`] + 1.5 and `y` = 11 panics where a structure's move code calls
/// [`panic_if_told`] (in the grid's record loop, on any thread, before the
/// record is written; in a tree's refiling between unlinking and linking;
/// in the loose grid's between its lists; in the loose quadtree's after its
/// boxes grew), and one on [`PANIC_LATE_X`] + 1.5 where it calls
/// [`panic_late_if_told`] (the grid's, after the record is written and in
/// its relinks), so that the tests stop batches in the middle of every path.
#[cfg(test)]
pub(crate) const PANIC_X: f32 = -12_345.5;
/// See [`PANIC_X`].
#[cfg(test)]
pub(crate) const PANIC_LATE_X: f32 = -23_456.5;

/// Panics if `rect` is a test's breaking box ([`PANIC_X`]).
#[cfg(test)]
#[inline]
pub(crate) fn panic_if_told<B: Bounds>(rect: &B) {
    if spans(rect, PANIC_X) {
        panic!("a move told to panic (test)");
    }
}

/// Whether `rect` is a test's breaking box for `x`, grown by a margin or not:
/// centred exactly on `x + 1.5` and `y` = 11, as no other test's box is.
#[cfg(test)]
fn spans<B: Bounds>(rect: &B, x: f32) -> bool {
    let centre = |axis| (rect.lo(axis) + rect.hi(axis)) * 0.5;
    centre(0) == x + 1.5 && centre(1) == 11.0
}

/// Panics if `rect` is a test's late breaking box ([`PANIC_LATE_X`]).
#[cfg(test)]
#[inline]
pub(crate) fn panic_late_if_told<B: Bounds>(rect: &B) {
    if spans(rect, PANIC_LATE_X) {
        panic!("a move told to panic late (test)");
    }
}

#[cfg(test)]
mod tests {
    use super::{PANIC_LATE_X, PANIC_X};
    use crate::test_lcg::Lcg32;
    use crate::test_pairs::sorted_pairs;
    use crate::{AnyIndex, Bounds, Error, Handle, Kind, Octree, Query, Rect, SpatialIndex};

    /// How a test batch is given to the index.
    #[derive(Clone, Copy, Debug)]
    enum Call {
        Many,
        #[cfg(feature = "rayon")]
        Parallel,
    }

    const CALLS: &[Call] = &[
        Call::Many,
        #[cfg(feature = "rayon")]
        Call::Parallel,
    ];

    /// A random box of `world` (side 256): mostly small, some straddling
    /// cells, some big, some outside the world, some at one spot.
    fn random_box<B: Bounds>(rng: &mut Lcg32) -> B {
        let mut lo = [0.0f32; 3];
        let mut hi = [0.0f32; 3];
        let kind = rng.next_state() % 16;
        for axis in 0..3 {
            let (start, side) = match kind {
                0 => (64.0, 0.0),                                     // a stack at one spot
                1 => (rng.unit() * 300.0 - 20.0, rng.unit() * 120.0), // big, maybe outside
                2 => (-80.0 - rng.unit() * 40.0, rng.unit() * 4.0),   // outside the world
                _ => (rng.unit() * 250.0, rng.unit() * 6.0),
            };
            lo[axis] = start;
            hi[axis] = start + side;
        }
        B::from_corners(lo, hi)
    }

    /// The box from `x` the test hooks panic on (centred on `x + 1.5`, 11).
    fn breaking_box<B: Bounds>(x: f32) -> B {
        B::from_corners([x, 10.0, 10.0], [x + 3.0, 12.0, 12.0])
    }

    /// Every element the index holds, checked against `expected` (its
    /// handles and boxes), and every query and the pairs against a scan.
    fn check_against<T: SpatialIndex>(index: &T, expected: &[(Handle, T::Bounds)], rng: &mut Lcg32)
    where
        T::Bounds: PartialEq + core::fmt::Debug,
    {
        index.validate().unwrap();
        assert_eq!(index.len(), expected.len());
        for &(handle, rect) in expected {
            assert_eq!(index.rect(handle).unwrap(), rect, "{handle:?}");
        }
        for _ in 0..40 {
            let query = random_box::<T::Bounds>(rng);
            let mut hits = Vec::new();
            index.query(&Query::rect(query), &mut hits).unwrap();
            hits.sort_unstable();
            let mut want: Vec<Handle> = expected
                .iter()
                .filter(|(_, rect)| rect.meets(&query))
                .map(|&(handle, _)| handle)
                .collect();
            want.sort_unstable();
            assert_eq!(hits, want, "query {query:?}");
        }
        let pairs = sorted_pairs(index);
        let mut want = Vec::new();
        for (i, &(a, ra)) in expected.iter().enumerate() {
            for &(b, rb) in &expected[i + 1..] {
                if ra.meets(&rb) {
                    want.push((a.min(b), a.max(b)));
                }
            }
        }
        want.sort_unstable();
        assert_eq!(pairs, want);
    }

    /// The moves by `call`.
    fn moves_of<T: SpatialIndex + Sync>(
        index: &mut T,
        call: Call,
        handles: &[Handle],
        rects: &[T::Bounds],
    ) -> Result<(), Error> {
        match call {
            Call::Many => index.update_many(handles, rects),
            #[cfg(feature = "rayon")]
            Call::Parallel => index.par_update_many(handles, rects),
        }
    }

    /// A batch of moves with one breaking move at a random place (its
    /// element sometimes moved again later) ends as if it had succeeded, in
    /// a whole structure, and returns `Panicked`; the next frame goes on.
    /// `late`: whether the structure has late hooks (the grid).
    fn finishes_broken_moves<T: SpatialIndex + Sync>(
        name: &str,
        make: impl Fn() -> T,
        seed: u32,
        late: bool,
    ) where
        T::Bounds: PartialEq + core::fmt::Debug,
    {
        let mut rng = Lcg32::new(seed);
        let breaks: &[f32] = if late {
            &[PANIC_X, PANIC_LATE_X]
        } else {
            &[PANIC_X]
        };
        for &call in CALLS {
            for margin in [0.0, 3.0] {
                for &x in breaks {
                    for share in [10, 100] {
                        let mut index = make();
                        index.set_margin(margin).unwrap();
                        let rects: Vec<T::Bounds> =
                            (0..300).map(|_| random_box(&mut rng)).collect();
                        let mut handles = Vec::new();
                        index
                            .insert_many(&rects, &vec![0; rects.len()], &mut handles)
                            .unwrap();
                        let mut expected: Vec<(Handle, T::Bounds)> =
                            handles.iter().copied().zip(rects.iter().copied()).collect();
                        // A frame, so that the grid lays its runs out and
                        // its next big batch leaves the lists behind.
                        index.cleanup();
                        check_against(&index, &expected, &mut rng);
                        let count = expected.len() * share / 100;
                        let mut moved: Vec<Handle> = (0..count)
                            .map(|_| handles[rng.next_state() as usize % handles.len()])
                            .collect();
                        let mut to: Vec<T::Bounds> =
                            (0..count).map(|_| random_box(&mut rng)).collect();
                        // The breaking move: of a small element in the right
                        // half, moved nowhere else in the batch, so that
                        // every structure refiles it (leaves, cells).
                        let at = rng.next_state() as usize % count;
                        let breaking = expected
                            .iter()
                            .find(|&&(handle, rect)| {
                                rect.lo(0) >= 128.0
                                    && (0..T::Bounds::AXES).all(|a| rect.hi(a) - rect.lo(a) < 8.0)
                                    && !moved.contains(&handle)
                            })
                            .unwrap()
                            .0;
                        moved[at] = breaking;
                        to[at] = breaking_box(x);
                        // (Not for a late break: the grid relinks after the
                        // records moved, when a later move has overwritten it.)
                        if x == PANIC_X && rng.next_state() % 2 == 0 {
                            moved.push(breaking);
                            to.push(random_box(&mut rng));
                        }
                        let result = moves_of(&mut index, call, &moved, &to);
                        let what = format!("{name}, {call:?}, margin {margin}, x {x}, {share}%");
                        match result {
                            Err(Error::Panicked(message)) => {
                                assert!(message.contains("told to panic"), "{what}: {message}")
                            }
                            other => panic!("{what}: {other:?}"),
                        }
                        for (&handle, &rect) in moved.iter().zip(&to) {
                            expected.iter_mut().find(|(h, _)| *h == handle).unwrap().1 = rect;
                        }
                        check_against(&index, &expected, &mut rng);
                        // The next frame: every element moves.
                        let all: Vec<Handle> = expected.iter().map(|&(h, _)| h).collect();
                        let to: Vec<T::Bounds> = all.iter().map(|_| random_box(&mut rng)).collect();
                        moves_of(&mut index, call, &all, &to).unwrap();
                        for (entry, &rect) in expected.iter_mut().zip(&to) {
                            entry.1 = rect;
                        }
                        index.cleanup();
                        check_against(&index, &expected, &mut rng);
                    }
                }
            }
        }
    }

    #[test]
    fn moves_a_panic_stops_are_finished_in_every_structure() {
        let world = Rect::new(0.0, 0.0, 256.0, 256.0);
        for (seed, kind) in Kind::ALL_2D.into_iter().enumerate() {
            let make = || AnyIndex::for_world(kind, world).unwrap();
            finishes_broken_moves(kind.name(), make, seed as u32 + 1, kind == Kind::Grid);
        }
        // Few cells, so that a batch of all the elements leaves the grid's
        // lists behind (the path of the sort and its kept counts).
        finishes_broken_moves(
            "Grid 16x16",
            || crate::Grid::new(world, 16, 16).unwrap(),
            7,
            true,
        );
        let bounded = || crate::LooseQuadtree::with_max_extent(world, 8, 8, 20.0).unwrap();
        finishes_broken_moves("LooseQuadtree bounded", bounded, 8, false);
        let world = crate::Box3::new(0.0, 0.0, 0.0, 256.0, 256.0, 256.0);
        finishes_broken_moves("Octree", || Octree::for_world(world).unwrap(), 9, false);
    }
}
