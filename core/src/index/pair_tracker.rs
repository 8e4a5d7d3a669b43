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
/// nothing there. The filters are kept apart, only once the index has any.
#[derive(Clone, Copy, PartialEq)]
struct Seen<B> {
    handle: u64,
    rect: B,
}

impl<B: Bounds> Seen<B> {
    fn empty() -> Seen<B> {
        Seen {
            handle: 0,
            rect: B::default(),
        }
    }
}

/// How a slot changed since the last update.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Change {
    None,
    /// The same element, moved or refiltered.
    Moved,
    /// Another element or none: removed, inserted, or the slot reused.
    Element,
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
/// the whole index beats a neighbour query per changed element. Measured on
/// uniform-100k in a grid (`bench --bin events`, ms per update with 10 / 25 /
/// 50 / 100% of the agents moving): queries 2.4 / 2.8 / 5.2, the walk about
/// 2.9 whatever moved.
const WALK_SIXTEENTHS: usize = 4;

/// At most this many updates in a row skip the pass over the slots (see
/// [`PairTracker::refresh`]): after them, one pass on old records (its update
/// walks) and one on fresh ones see whether the elements still all move.
const SKIPS: u8 = 7;

/// The stretches [`PairTracker::par_update`]'s scan of `slots` slots is cut
/// into: fewer than 32,768 slots a stretch are not worth a task, and a pool
/// of one thread scans in one.
#[cfg(feature = "rayon")]
fn scan_parts(slots: usize) -> usize {
    const STRETCH: usize = 1 << 15;
    if rayon::current_num_threads() == 1 {
        return 1;
    }
    (slots / super::parallel::parallel_from(STRETCH))
        .clamp(1, 4 * rayon::current_num_threads())
        .next_power_of_two()
}

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
    /// Per slot, the filter the last update saw; empty while the index had
    /// none but the default (a missing entry is the default).
    filters: Vec<Filter>,
    /// The overlapping pairs of the last update, as sorted slot-pair keys.
    pairs: Vec<u64>,
    /// Scratch: this update's pairs.
    next: Vec<u64>,
    /// Scratch: the pairs the changed elements' queries found.
    found: Vec<u64>,
    /// Scratch for the radix sort.
    sorting: Vec<u64>,
    /// Scratch: the live changed elements, queried.
    queried: Vec<Handle>,
    /// Scratch: the changed slots, and each slot's [`Change`].
    changed: Vec<u32>,
    change: Vec<Change>,
    /// Per slot, the handle it had before this update, where it changed
    /// (read only for slots whose change is [`Change::Element`]).
    old_handle: Vec<u64>,
    /// Slots whose change is [`Change::Element`] in this update.
    elements_changed: usize,
    /// The index's membership ([`Slots::membership`](super::raw::Slots::membership))
    /// at the last update.
    membership: u64,
    /// Whether the last pass over the slots that compared with fresh records
    /// found most elements changed (so the updates after it may skip it).
    busy: bool,
    /// How many updates in a row, up to the last, skipped the pass.
    skipped: u8,
    /// Scratch of the parallel search for changes: a list per stretch.
    #[cfg(feature = "rayon")]
    part_changed: Vec<Vec<u32>>,
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
            filters: Vec::new(),
            pairs: Vec::new(),
            next: Vec::new(),
            found: Vec::new(),
            sorting: Vec::new(),
            queried: Vec::new(),
            changed: Vec::new(),
            change: Vec::new(),
            old_handle: Vec::new(),
            elements_changed: 0,
            membership: 0,
            busy: false,
            skipped: 0,
            #[cfg(feature = "rayon")]
            walked: Vec::new(),
            #[cfg(feature = "rayon")]
            part_changed: Vec::new(),
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
        self.refresh(index, Self::find_changes, |index, next| {
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
        let update = |tracker: &mut Self| {
            let mut walked = core::mem::take(&mut tracker.walked);
            tracker.refresh(index, Self::par_find_changes, |index, next| {
                index.par_pairs(&mut walked);
                next.extend(walked.iter().map(|(a, b)| key(a.slot(), b.slot())));
            });
            tracker.walked = walked;
        };
        // Its steps on one thread (the sort, the difference) beside those on
        // the threads, as every batch call that takes them.
        // The scan covers every slot seen, which may be more than the index has now.
        let slots = self.seen.len().max(index.slot_count());
        if index.pairs_in_parallel() || scan_parts(slots) > 1 {
            super::parallel::on_pool(|| update(self));
        } else {
            update(self);
        }
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
        self.filters.clear();
        self.pairs.clear();
        self.began.clear();
        self.ended.clear();
        (self.busy, self.skipped) = (false, 0);
    }

    /// One update: `find_changes` notes what changed (on one thread or
    /// many); `walk` fills the (empty) new pair list from the whole index when
    /// that is cheaper than querying the changed elements.
    fn refresh<I>(
        &mut self,
        index: &I,
        find_changes: impl FnOnce(&mut Self, &I),
        walk: impl FnOnce(&I, &mut Vec<u64>),
    ) where
        I: SpatialIndex<Bounds = B>,
    {
        self.began.clear();
        self.ended.clear();
        // While everything moves (the last fresh pass found most elements
        // changed) and no element came or went (the membership is the one
        // seen), the pass over the slots is skipped: the pair walk is right
        // whatever moved, and the slots hold the handles seen. The boxes and
        // filters seen then grow old: the next pass compares with old records
        // and cannot trust a pair between two elements it finds unchanged (one
        // may have moved away and back), so its update walks too; the pass
        // after it compares with fresh records and decides anew.
        let membership = index.membership();
        let walk_all = if self.busy && membership == self.membership && self.skipped < SKIPS {
            self.changed.clear();
            self.elements_changed = 0;
            self.skipped += 1;
            true
        } else {
            find_changes(self, index);
            let most = self.changed.len() * 16 > index.live() * WALK_SIXTEENTHS;
            let on_old_records = self.skipped > 0;
            self.busy = most && !on_old_records;
            self.skipped = 0;
            most || on_old_records
        };
        self.membership = membership;
        self.next.clear();
        if walk_all {
            walk(index, &mut self.next);
            sort_keys(&mut self.next, &mut self.sorting, index.slot_count());
        } else {
            self.query_changed(index);
        }
        self.diff();
        for &slot in &self.changed {
            self.change[slot as usize] = Change::None;
        }
        core::mem::swap(&mut self.pairs, &mut self.next);
        self.began.sort_unstable();
        self.ended.sort_unstable();
    }

    /// Fills `changed` with every slot whose handle, box or filter differs
    /// from what the last update saw, records how, and sees them anew (the
    /// old handle kept aside where it changed, for the pairs that end).
    fn find_changes<I: Structure<Bounds = B>>(&mut self, index: &I) {
        let slots = self.make_room(index);
        let (mut whole, changed) = self.whole();
        changed.clear();
        whole.scan(index, slots, changed);
        self.elements_changed = whole.elements_changed;
    }

    /// [`find_changes`](PairTracker::find_changes) in stretches of the pool
    /// on rayon's threads, each with its own list of changed slots (kept for
    /// the next frame), joined in slot order.
    #[cfg(feature = "rayon")]
    fn par_find_changes<I: Structure<Bounds = B> + Sync>(&mut self, index: &I) {
        let slots = self.make_room(index);
        let parts = scan_parts(self.seen.len());
        if self.part_changed.len() < parts {
            self.part_changed.resize_with(parts, Vec::new);
        }
        let mut part_changed = core::mem::take(&mut self.part_changed);
        let (whole, changed) = self.whole();
        let elements_changed = whole.par_scan(index, slots, &mut part_changed[..parts]);
        changed.clear();
        for part in &part_changed[..parts] {
            changed.extend_from_slice(part);
        }
        self.elements_changed = elements_changed;
        self.part_changed = part_changed;
    }

    /// Every slot's records as one stretch, and the list of changed slots.
    fn whole(&mut self) -> (Stretch<'_, B>, &mut Vec<u32>) {
        let whole = Stretch {
            start: 0,
            seen: &mut self.seen,
            filters: &mut self.filters,
            change: &mut self.change,
            old_handle: &mut self.old_handle,
            elements_changed: 0,
        };
        (whole, &mut self.changed)
    }

    /// Grows the per-slot records to the pool; the pool's slot count.
    fn make_room<I: Structure<Bounds = B>>(&mut self, index: &I) -> usize {
        let slots = index.slot_count();
        if self.seen.len() < slots {
            self.seen.resize(slots, Seen::empty());
            self.change.resize(slots, Change::None);
            self.old_handle.resize(slots, 0);
        }
        if index.filtered() && self.filters.len() < slots {
            self.filters.resize(slots, Filter::DEFAULT);
        }
        slots
    }

    /// `next` as the old pairs between unchanged elements (still true: their
    /// boxes and filters are as they were) and what the changed elements'
    /// queries find, sorted.
    fn query_changed<I: Structure<Bounds = B>>(&mut self, index: &I) {
        let change = &self.change;
        // The live ones, as a batch of handles: the structure fetches what the
        // queries ahead will read, as `overlapping_many` does (each query of
        // elements scattered over memory otherwise waits on its misses).
        self.queried.clear();
        self.queried.extend(self.changed.iter().filter_map(|&slot| {
            let handle = self.seen[slot as usize].handle;
            (handle != 0).then_some(Handle::from_raw(handle))
        }));
        // Counted as any batch's queries: a grid lays its cells out at the
        // next cleanup when enough come.
        index.count_queries(self.queried.len());
        self.found.clear();
        let found = &mut self.found;
        query::overlapping_batch(index, &self.queried, |_, handle| {
            let slot = handle.slot();
            let _ = query::overlapping(index, slot, NONE, |other| {
                let other = other.slot();
                // A pair of two changed elements is found from both: kept once.
                if change[other as usize] == Change::None || other > slot {
                    found.push(key(slot, other));
                }
                ControlFlow::Continue(())
            });
        });
        sort_keys(&mut self.found, &mut self.sorting, index.slot_count());
        let kept = self.pairs.iter().copied().filter(|&pair| {
            let (a, b) = slots_of(pair);
            change[a as usize] == Change::None && change[b as usize] == Change::None
        });
        merge_sorted(kept, &self.found, &mut self.next);
    }

    /// The events: pairs only in the old set ended, pairs only in the new one
    /// began, and a pair of slots in both whose element changed identity (a
    /// removed element's slot reused) is both.
    fn diff(&mut self) {
        let (old, new) = (&self.pairs, &self.next);
        // With no element removed, inserted or replaced (a frame of moves), a
        // pair in both sets is the same pair.
        let same_elements = self.elements_changed == 0;
        let (mut i, mut j) = (0, 0);
        while i < old.len() && j < new.len() {
            let (o, n) = (old[i], new[j]);
            if o == n {
                let (a, b) = slots_of(o);
                if !same_elements
                    && (self.change[a as usize] == Change::Element
                        || self.change[b as usize] == Change::Element)
                {
                    self.ended.push(self.old_pair(o));
                    self.began.push(self.new_pair(n));
                }
                i += 1;
                j += 1;
            } else if o < n {
                self.ended.push(self.old_pair(o));
                i += 1;
            } else {
                self.began.push(self.new_pair(n));
                j += 1;
            }
        }
        for &o in &old[i..] {
            self.ended.push(self.old_pair(o));
        }
        for &n in &new[j..] {
            self.began.push(self.new_pair(n));
        }
    }

    /// The handle slot `slot` had at the last update.
    fn old_handle(&self, slot: u32) -> Handle {
        let slot = slot as usize;
        Handle::from_raw(if self.change[slot] == Change::Element {
            self.old_handle[slot]
        } else {
            self.seen[slot].handle
        })
    }

    fn old_pair(&self, pair: u64) -> [Handle; 2] {
        let (a, b) = slots_of(pair);
        handle_pair(self.old_handle(a), self.old_handle(b))
    }

    fn new_pair(&self, pair: u64) -> [Handle; 2] {
        let (a, b) = slots_of(pair);
        let handle = |slot: u32| Handle::from_raw(self.seen[slot as usize].handle);
        handle_pair(handle(a), handle(b))
    }
}

/// The per-slot records of slots `start..start + seen.len()`, compared with
/// the pool (`filters` may be shorter: a missing entry is the default).
struct Stretch<'a, B> {
    start: u32,
    seen: &'a mut [Seen<B>],
    filters: &'a mut [Filter],
    change: &'a mut [Change],
    old_handle: &'a mut [u64],
    elements_changed: usize,
}

impl<B: Bounds> Stretch<'_, B> {
    /// Compares the stretch with the index's slots (of which there are
    /// `slots`: those past it hold nothing now), noting the changed ones.
    fn scan<I: Structure<Bounds = B>>(&mut self, index: &I, slots: usize, changed: &mut Vec<u32>) {
        let start = self.start as usize;
        let end = start + self.seen.len();
        let pooled = slots.clamp(start, end);
        index.for_each_slot(start as u32..pooled as u32, |slot, element| match element {
            Some((handle, rect, filter)) => {
                let handle = handle.to_raw();
                self.note(slot, Seen { handle, rect }, filter, changed);
            }
            None => self.note(slot, Seen::empty(), Filter::DEFAULT, changed),
        });
        for slot in pooled..end {
            self.note(slot as u32, Seen::empty(), Filter::DEFAULT, changed);
        }
    }

    #[inline]
    fn note(&mut self, slot: u32, now: Seen<B>, filter: Filter, changed: &mut Vec<u32>) {
        let at = (slot - self.start) as usize;
        let seen = &mut self.seen[at];
        let refiltered = match self.filters.get_mut(at) {
            Some(seen_filter) if *seen_filter != filter => {
                *seen_filter = filter;
                true
            }
            _ => false,
        };
        if now != *seen || refiltered {
            changed.push(slot);
            self.change[at] = if now.handle == seen.handle {
                Change::Moved
            } else {
                self.old_handle[at] = seen.handle;
                self.elements_changed += 1;
                Change::Element
            };
            *seen = now;
        }
    }

    /// [`scan`](Stretch::scan) cut in halves down to one stretch a list of
    /// `parts`, the halves on rayon's threads; the elements changed.
    #[cfg(feature = "rayon")]
    fn par_scan<I: Structure<Bounds = B> + Sync>(
        self,
        index: &I,
        slots: usize,
        parts: &mut [Vec<u32>],
    ) -> usize {
        if parts.len() == 1 {
            let mut stretch = self;
            parts[0].clear();
            stretch.scan(index, slots, &mut parts[0]);
            return stretch.elements_changed;
        }
        let half = self.seen.len() / 2;
        let (seen_low, seen_high) = self.seen.split_at_mut(half);
        let (filters_low, filters_high) = self.filters.split_at_mut(half.min(self.filters.len()));
        let (change_low, change_high) = self.change.split_at_mut(half);
        let (old_low, old_high) = self.old_handle.split_at_mut(half);
        let low = Stretch {
            start: self.start,
            seen: seen_low,
            filters: filters_low,
            change: change_low,
            old_handle: old_low,
            elements_changed: 0,
        };
        let high = Stretch {
            start: self.start + half as u32,
            seen: seen_high,
            filters: filters_high,
            change: change_high,
            old_handle: old_high,
            elements_changed: 0,
        };
        let (parts_low, parts_high) = parts.split_at_mut(parts.len() / 2);
        let (a, b) = rayon::join(
            || low.par_scan(index, slots, parts_low),
            || high.par_scan(index, slots, parts_high),
        );
        a + b
    }
}

/// Sorts slot-pair keys of a pool of `slots` slots: a least-significant-digit
/// radix sort over the bits the slots use (a few passes of 11 bits in each
/// half of the key), several times faster than comparing on the 10^5 to 10^6
/// pairs of a frame where everything moved; short lists by comparison.
fn sort_keys(keys: &mut Vec<u64>, scratch: &mut Vec<u64>, slots: usize) {
    const DIGIT: u32 = 11;
    if keys.len() < 2048 {
        keys.sort_unstable();
        return;
    }
    let slot_bits = usize::BITS - slots.saturating_sub(1).leading_zeros();
    scratch.clear();
    scratch.resize(keys.len(), 0);
    let mut counts = [0usize; 1 << DIGIT];
    for half in [0, 32] {
        let mut bit = 0;
        while bit < slot_bits {
            let (shift, width) = (half + bit, DIGIT.min(slot_bits - bit));
            let mask = (1u64 << width) - 1;
            let digit = |key: u64| ((key >> shift) & mask) as usize;
            let counts = &mut counts[..1 << width];
            counts.fill(0);
            for &key in keys.iter() {
                counts[digit(key)] += 1;
            }
            let mut start = 0;
            for count in counts.iter_mut() {
                (*count, start) = (start, start + *count);
            }
            for &key in keys.iter() {
                let at = &mut counts[digit(key)];
                scratch[*at] = key;
                *at += 1;
            }
            core::mem::swap(keys, scratch);
            bit += width;
        }
    }
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

#[cfg(test)]
mod tests {
    use super::{key, sort_keys};
    #[cfg(feature = "rayon")]
    use {
        super::PairTracker,
        crate::{Filter, Grid, Rect, SpatialIndex},
    };

    /// The parallel search for changes (pools of several stretches) gives the
    /// serial one's events, frame after frame: moves of some or all,
    /// removals (slots reused), inserts past the old pool, filter changes.
    #[cfg(feature = "rayon")]
    #[test]
    fn par_update_reports_what_update_reports() {
        let mut rng = crate::test_lcg::Lcg32::new(12345);
        let mut unit = move || rng.unit();
        let mut grid = Grid::new(Rect::new(0.0, 0.0, 2048.0, 2048.0), 256, 256).unwrap();
        let square = |unit: &mut dyn FnMut() -> f32| {
            let (x, y) = (unit() * 2040.0, unit() * 2040.0);
            Rect::new(x, y, x + 4.0, y + 4.0)
        };
        let mut handles: Vec<_> = (0..140_000)
            .map(|i| grid.insert(square(&mut unit), i).unwrap())
            .collect();
        let (mut serial, mut parallel) = (PairTracker::new(), PairTracker::new());
        for frame in 0..8u32 {
            let every = [1, 2, 7, 1000][frame as usize % 4];
            for (i, handle) in handles.iter_mut().enumerate() {
                if i % every == 0 {
                    grid.update(*handle, square(&mut unit)).unwrap();
                }
                if i % 997 == frame as usize {
                    grid.remove(*handle).unwrap();
                    *handle = grid.insert(square(&mut unit), i as u32).unwrap();
                }
                if i % 1999 == frame as usize {
                    grid.set_filter(*handle, Filter::new(1, 2)).unwrap();
                }
            }
            for i in 0..frame * 5000 {
                handles.push(grid.insert(square(&mut unit), i).unwrap());
            }
            grid.cleanup();
            let (began, ended) = serial.update(&grid);
            assert!(!began.is_empty() || frame > 0);
            assert_eq!(parallel.par_update(&grid), (began, ended), "frame {frame}");
        }
    }

    /// The radix sort against a comparison sort, for pools of every size
    /// class (one digit, several, and slots using all 32 bits).
    #[test]
    fn keys_sort_as_compared() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut scratch = Vec::new();
        for slots in [
            2usize,
            1000,
            2048,
            2049,
            100_000,
            1 << 20,
            u32::MAX as usize + 1,
        ] {
            for len in [0usize, 5, 2047, 2048, 30_000] {
                let mut keys: Vec<u64> = (0..len)
                    .map(|_| {
                        let a = (next() % slots as u64) as u32;
                        let b = (next() % slots as u64) as u32;
                        key(a, b)
                    })
                    .collect();
                let mut expected = keys.clone();
                expected.sort_unstable();
                sort_keys(&mut keys, &mut scratch, slots);
                assert_eq!(keys, expected, "{slots} slots, {len} keys");
            }
        }
    }
}
