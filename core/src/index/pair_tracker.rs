//! Contact events: the pairs that began and ended overlapping since the last
//! look, over any structure.
//!
//! The tracker keeps what it saw of every slot (handle, box, filter) and the
//! overlapping pairs of that moment, sorted by their slot pair. Each
//! [`update`](PairTracker::update) first finds the slots that changed (one
//! pass over the slots, comparing). Then:
//!
//! - when few changed, only they are queried (the structure's own neighbour
//!   query), and the pairs between two unchanged elements are kept as they
//!   were, untested: neither box nor filter moved;
//! - when most changed (every agent moves every frame), one pair walk over the
//!   whole index is cheaper than a query per element, and is used instead.
//!
//! Either way the new pair set is sorted, and one merge with the old one gives
//! the events. Nothing is allocated once the vectors have grown.

use core::ops::ControlFlow;

use super::query;
use super::raw::Structure;
use super::SpatialIndex;
use crate::slots::NONE;
use crate::{Bounds, Filter, Handle, Rect};

/// What the tracker last saw of one slot; `handle == 0` (no handle is 0):
/// nothing there.
#[derive(Clone, Copy, PartialEq)]
struct Seen<B> {
    handle: u64,
    rect: B,
    filter: Filter,
}

impl<B: Bounds> Seen<B> {
    fn empty() -> Seen<B> {
        Seen {
            handle: 0,
            rect: B::default(),
            filter: Filter::DEFAULT,
        }
    }

    fn of<T: Structure<Bounds = B> + ?Sized>(index: &T, slot: u32) -> Seen<B> {
        if (slot as usize) >= index.slot_count() {
            return Seen::empty();
        }
        match index.element_at(slot) {
            Some((handle, rect, _)) => Seen {
                handle: handle.to_raw(),
                rect,
                filter: index.filter_at(slot),
            },
            None => Seen::empty(),
        }
    }
}

/// A pair of slots as one sortable key: the lower slot in the high half.
#[inline]
fn key(a: u32, b: u32) -> u64 {
    let (low, high) = if a < b { (a, b) } else { (b, a) };
    (u64::from(low) << 32) | u64::from(high)
}

#[inline]
fn slots_of(key: u64) -> (u32, u32) {
    ((key >> 32) as u32, key as u32)
}

/// A pair of handles, the lower first (the order of every event list).
#[inline]
fn handle_pair(a: Handle, b: Handle) -> [Handle; 2] {
    if a < b {
        [a, b]
    } else {
        [b, a]
    }
}

/// Above this share of changed live elements (in 1/16ths), one pair walk over
/// the whole index beats a neighbour query per changed element: a query costs
/// about 1.7 times a walk's share per element on the agents workload.
const WALK_SIXTEENTHS: usize = 9;

/// Reports the pairs of elements that **began** and **ended** overlapping
/// between two looks at an index: the contact events of a game loop, with
/// the elements' [`Filter`]s applied, on the exact (closed) boxes.
///
/// The tracker holds no borrow of the index: each
/// [`update`](PairTracker::update) takes it again, after the frame's moves,
/// inserts, removals and filter changes. The first update reports every
/// overlapping pair as began; a removed element's pairs end with the handles
/// they had; a pair whose filters stop colliding ends. Each list holds
/// `[lower, higher]` handle pairs, sorted. A tracker follows one index:
/// given another, it reports the difference between the two.
///
/// The work follows the change: unchanged pairs are not re-tested, and when
/// few elements changed only they are queried. With everything moving, it is
/// the pair walk plus a sort of the pairs.
///
/// ```
/// use flatquad::{Grid, PairTracker, Rect, SpatialIndex};
/// let mut grid = Grid::for_world(Rect::new(0.0, 0.0, 100.0, 100.0))?;
/// let a = grid.insert(Rect::new(0.0, 0.0, 2.0, 2.0), 0)?;
/// let b = grid.insert(Rect::new(5.0, 0.0, 7.0, 2.0), 1)?;
/// let mut tracker = PairTracker::new();
/// let (began, ended) = tracker.update(&grid);
/// assert!(began.is_empty() && ended.is_empty());
///
/// grid.update(b, Rect::new(1.0, 0.0, 3.0, 2.0))?; // b walks into a
/// let (began, _) = tracker.update(&grid);
/// assert_eq!(began, [[a, b]]);
///
/// grid.remove(a)?;
/// let (_, ended) = tracker.update(&grid);
/// assert_eq!(ended, [[a, b]]);
/// # Ok::<(), flatquad::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct PairTracker<B: Bounds = Rect> {
    /// Per slot, what the last update saw.
    seen: Vec<Seen<B>>,
    /// The overlapping pairs of the last update, as sorted slot-pair keys.
    pairs: Vec<u64>,
    /// Scratch: this update's pairs.
    next: Vec<u64>,
    /// Scratch: the pairs the changed elements' queries found.
    found: Vec<u64>,
    /// Scratch: the changed slots, and a flag per slot.
    changed: Vec<u32>,
    is_changed: Vec<bool>,
    /// Scratch for the parallel pair walk.
    #[cfg(feature = "rayon")]
    walked: Vec<(Handle, Handle)>,
    began: Vec<[Handle; 2]>,
    ended: Vec<[Handle; 2]>,
}

impl<B: Bounds> core::fmt::Debug for Seen<B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{:#x}:{}", self.handle, self.rect)
    }
}

impl<B: Bounds> Default for PairTracker<B> {
    fn default() -> Self {
        PairTracker::new()
    }
}

impl<B: Bounds> PairTracker<B> {
    /// A tracker that has seen nothing: its first update reports every
    /// overlapping pair as began.
    pub fn new() -> PairTracker<B> {
        PairTracker {
            seen: Vec::new(),
            pairs: Vec::new(),
            next: Vec::new(),
            found: Vec::new(),
            changed: Vec::new(),
            is_changed: Vec::new(),
            #[cfg(feature = "rayon")]
            walked: Vec::new(),
            began: Vec::new(),
            ended: Vec::new(),
        }
    }

    /// The pairs that began and ended overlapping since the last update (or
    /// since [`new`](PairTracker::new)/[`reset`](PairTracker::reset)), each
    /// `[lower, higher]`, each list sorted. The slices live until the next
    /// update; [`began`](PairTracker::began) and
    /// [`ended`](PairTracker::ended) give them again.
    pub fn update<I>(&mut self, index: &I) -> (&[[Handle; 2]], &[[Handle; 2]])
    where
        I: SpatialIndex<Bounds = B>,
    {
        self.refresh(index, |index, next| {
            let _ = index.pairs_with(|a, b| {
                next.push(key(a.slot(), b.slot()));
                ControlFlow::Continue(())
            });
        });
        (&self.began, &self.ended)
    }

    /// [`update`](PairTracker::update) with the whole-index pair walk, when it
    /// is taken, on all of rayon's threads. The same events.
    #[cfg(feature = "rayon")]
    pub fn par_update<I>(&mut self, index: &I) -> (&[[Handle; 2]], &[[Handle; 2]])
    where
        I: SpatialIndex<Bounds = B> + Sync,
    {
        let mut walked = core::mem::take(&mut self.walked);
        self.refresh(index, |index, next| {
            index.par_pairs(&mut walked);
            next.extend(walked.iter().map(|(a, b)| key(a.slot(), b.slot())));
        });
        self.walked = walked;
        (&self.began, &self.ended)
    }

    /// The pairs that began overlapping at the last update.
    pub fn began(&self) -> &[[Handle; 2]] {
        &self.began
    }

    /// The pairs that ended at the last update.
    pub fn ended(&self) -> &[[Handle; 2]] {
        &self.ended
    }

    /// How many pairs overlapped at the last update.
    pub fn pair_count(&self) -> usize {
        self.pairs.len()
    }

    /// Forgets everything seen: the next update reports every overlapping
    /// pair as began (and nothing as ended).
    pub fn reset(&mut self) {
        self.seen.clear();
        self.pairs.clear();
        self.began.clear();
        self.ended.clear();
    }

    /// One update: `walk` fills the (empty) new pair list from the whole
    /// index when that is cheaper than querying the changed elements.
    fn refresh<I>(&mut self, index: &I, walk: impl FnOnce(&I, &mut Vec<u64>))
    where
        I: SpatialIndex<Bounds = B>,
    {
        self.began.clear();
        self.ended.clear();
        self.find_changes(index);
        self.next.clear();
        if self.changed.len() * 16 > index.live() * WALK_SIXTEENTHS {
            walk(index, &mut self.next);
            self.next.sort_unstable();
        } else {
            self.query_changed(index);
        }
        self.diff(index);
        for &slot in &self.changed {
            self.seen[slot as usize] = Seen::of(index, slot);
            self.is_changed[slot as usize] = false;
        }
        core::mem::swap(&mut self.pairs, &mut self.next);
        self.began.sort_unstable();
        self.ended.sort_unstable();
    }

    /// Fills `changed` with every slot whose handle, box or filter differs
    /// from what the last update saw, and flags them.
    fn find_changes<I: Structure<Bounds = B>>(&mut self, index: &I) {
        let slots = index.slot_count();
        if self.seen.len() < slots {
            self.seen.resize(slots, Seen::empty());
            self.is_changed.resize(slots, false);
        }
        self.changed.clear();
        for (slot, seen) in self.seen.iter().enumerate() {
            let slot = slot as u32;
            if Seen::of(index, slot) != *seen {
                self.changed.push(slot);
                self.is_changed[slot as usize] = true;
            }
        }
    }

    /// `next` as the old pairs between unchanged elements (still true: their
    /// boxes and filters are as they were) and what the changed elements'
    /// queries find, sorted.
    fn query_changed<I: Structure<Bounds = B>>(&mut self, index: &I) {
        let is_changed = &self.is_changed;
        self.found.clear();
        for &slot in &self.changed {
            if index.element_at(slot).is_none() {
                continue;
            }
            let found = &mut self.found;
            let _ = query::overlapping(index, slot, NONE, |other| {
                let other = other.slot();
                // A pair of two changed elements is found from both: kept once.
                if !is_changed[other as usize] || other > slot {
                    found.push(key(slot, other));
                }
                ControlFlow::Continue(())
            });
        }
        self.found.sort_unstable();
        let kept = self.pairs.iter().copied().filter(|&pair| {
            let (a, b) = slots_of(pair);
            !is_changed[a as usize] && !is_changed[b as usize]
        });
        merge_sorted(kept, &self.found, &mut self.next);
    }

    /// The events: pairs only in the old set ended, pairs only in the new one
    /// began, and a pair of slots in both whose element changed identity (a
    /// removed element's slot reused) is both.
    fn diff<I: Structure<Bounds = B>>(&mut self, index: &I) {
        let (old, new) = (&self.pairs, &self.next);
        let (mut i, mut j) = (0, 0);
        while i < old.len() || j < new.len() {
            match (old.get(i).copied(), new.get(j).copied()) {
                (Some(o), Some(n)) if o == n => {
                    let (a, b) = slots_of(o);
                    if self.reissued(index, a) || self.reissued(index, b) {
                        self.ended.push(self.old_pair(o));
                        self.began.push(new_pair(index, n));
                    }
                    i += 1;
                    j += 1;
                }
                (Some(o), Some(n)) if n < o => {
                    self.began.push(new_pair(index, n));
                    j += 1;
                }
                (Some(o), _) => {
                    self.ended.push(self.old_pair(o));
                    i += 1;
                }
                (None, Some(n)) => {
                    self.began.push(new_pair(index, n));
                    j += 1;
                }
                (None, None) => unreachable!(),
            }
        }
    }

    /// Whether a changed slot now holds another element than it did.
    fn reissued<I: Structure<Bounds = B>>(&self, index: &I, slot: u32) -> bool {
        self.is_changed[slot as usize]
            && self.seen[slot as usize].handle != index.handle_at(slot).to_raw()
    }

    fn old_pair(&self, pair: u64) -> [Handle; 2] {
        let (a, b) = slots_of(pair);
        handle_pair(
            Handle::from_raw(self.seen[a as usize].handle),
            Handle::from_raw(self.seen[b as usize].handle),
        )
    }
}

fn new_pair<I: Structure + ?Sized>(index: &I, pair: u64) -> [Handle; 2] {
    let (a, b) = slots_of(pair);
    handle_pair(index.handle_at(a), index.handle_at(b))
}

/// `out` as the sorted union of two sorted, disjoint sequences.
fn merge_sorted(mut left: impl Iterator<Item = u64>, right: &[u64], out: &mut Vec<u64>) {
    let mut right = right.iter().copied().peekable();
    let mut next_left = left.next();
    while let Some(l) = next_left {
        while let Some(r) = right.next_if(|&r| r < l) {
            out.push(r);
        }
        out.push(l);
        next_left = left.next();
    }
    out.extend(right);
}
