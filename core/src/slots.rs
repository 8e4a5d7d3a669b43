//! The element slots every structure shares: where an element's rectangle, id and
//! generation live, recycled through a free list, and the handles that name them.
//!
//! Each structure keeps its own slot type (the quadtree adds the element's place,
//! the loose grid its list link) behind [`SlotRecord`], so the generations, the
//! free list and the handle checks are written once, here.

use core::sync::atomic::{AtomicU64, Ordering};

use crate::handle::{Handle, MAX_GENERATION};
use crate::{huge_pages, Bounds, Error, Filter};

/// Asks the CPU to start loading the cache line of `value`; does nothing else.
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    prefetch_lines(value, 1);
}

/// Asks the CPU to start loading the cache line of `first` and the `lines - 1`
/// lines after it, which may lie past the end of `first`'s allocation.
#[inline(always)]
pub(crate) fn prefetch_lines<T>(first: &T, lines: usize) {
    prefetch_address(first as *const T, lines);
}

/// [`prefetch_lines`] from an address, for memory that other threads may be
/// writing (a reference to it would claim it unchanged).
#[inline(always)]
pub(crate) fn prefetch_address<T>(first: *const T, lines: usize) {
    #[cfg(target_arch = "x86_64")]
    for line in 0..lines {
        let address = first.cast::<i8>().wrapping_add(line * 64);
        // SAFETY: a prefetch is only a hint: it never faults, whatever the
        // address, and changes no state the program can see.
        unsafe {
            use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch::<_MM_HINT_T0>(address);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (first, lines);
}

/// The handle of slot `index` if its `stamp` says it is live: for walks that
/// read the stamps as a slice.
#[inline(always)]
pub(crate) fn live_handle(index: u32, stamp: u32) -> Option<Handle> {
    (stamp & LIVE != 0).then(|| Handle::new(index, stamp & GENERATION_MASK))
}

/// The "no index" value of every `u32` link.
pub(crate) const NONE: u32 = u32::MAX;

/// Slot stamp bit: the slot holds a live element.
pub(crate) const LIVE: u32 = 1 << 31;
/// Slot stamp bit: set for a moment while a batch call checks for duplicates.
pub(crate) const MARK: u32 = 1 << 30;
const GENERATION_MASK: u32 = MAX_GENERATION;
/// Stamp of a retired slot: generation 0, which no handle carries.
pub(crate) const RETIRED: u32 = 0;

/// What every structure's slot holds: the element's rectangle and its id (or,
/// while free, the next free slot). The stamps (live bit, mark bit, generation)
/// live apart, in [`SlotPool::stamps`].
pub trait SlotRecord: Copy {
    /// The element's box type.
    type Bounds: Bounds;
    /// A slot holding `rect` and `id`, its structure's fields void.
    fn fresh(rect: Self::Bounds, id: u32) -> Self;
    /// The element's rectangle (box).
    fn rect(&self) -> Self::Bounds;
    /// Sets [`rect`](SlotRecord::rect), the structure's fields untouched.
    fn set_rect(&mut self, rect: Self::Bounds);
    /// The element's id, or the next free slot while free.
    fn id(&self) -> u32;
    /// Sets [`id`](SlotRecord::id).
    fn set_id(&mut self, id: u32);
    /// Whether the structure's moves and queries read the whole record, not
    /// only its first fields: a slot fetched ahead then brings every cache
    /// line it spans ([`SlotPool::prefetch`]).
    const READ_WHOLE: bool = false;
}

/// Implements [`SlotRecord`] for a struct with fields `rect` and `id` whose
/// other fields are set by `$void` (a struct-update expression base), with
/// an optional `read_whole = true` ([`SlotRecord::READ_WHOLE`]).
macro_rules! slot_record {
    ($slot:ty, $void:expr) => {
        $crate::slots::slot_record!(impl[] $slot, $crate::Rect, $void);
    };
    (impl[$($g:tt)*] $slot:ty, $bounds:ty, $void:expr $(, read_whole = $whole:expr)?) => {
        impl<$($g)*> $crate::slots::SlotRecord for $slot {
            type Bounds = $bounds;
            $(const READ_WHOLE: bool = $whole;)?
            #[inline]
            fn fresh(rect: $bounds, id: u32) -> Self {
                Self { rect, id, ..$void }
            }
            #[inline]
            fn rect(&self) -> $bounds {
                self.rect
            }
            #[inline]
            fn set_rect(&mut self, rect: $bounds) {
                self.rect = rect;
            }
            #[inline]
            fn id(&self) -> u32 {
                self.id
            }
            #[inline]
            fn set_id(&mut self, id: u32) {
                self.id = id;
            }
        }
    };
}
pub(crate) use slot_record;

/// The slots of one structure, with their stamps and the head of their free list.
///
/// The stamps (live bit, mark bit, generation: what a handle look-up checks)
/// are kept in their own dense array, one word per slot, beside the slots:
/// checking a batch of handles then reads 4 bytes per element instead of a
/// whole slot.
#[derive(Clone, Debug)]
pub struct SlotPool<S: SlotRecord> {
    pub(crate) slots: Vec<S>,
    /// `stamps[i]` is slot `i`'s live bit, mark bit and generation.
    pub(crate) stamps: Vec<u32>,
    pub(crate) free: u32,
    pub(crate) live: usize,
    /// Each slot's collision filter, or empty while every element has
    /// [`Filter::DEFAULT`]: the unfiltered frame reads nothing more.
    pub(crate) filters: Vec<Filter>,
    /// The fat-bounds margin (`0` for none): while it is positive the
    /// structure files each element by its box grown by the margin (the
    /// slot's rectangle), and the element's own box is in `tight`.
    pub(crate) margin: f32,
    /// Each slot's own (tight) box while `margin > 0`, else empty: what every
    /// result is tested against (`index::fat_bounds`).
    pub(crate) tight: Vec<S::Bounds>,
    /// Which elements are in which slots ([`SlotPool::membership`]).
    membership: Membership,
}

/// A value naming one membership of a pool (which element is in which slot):
/// each value is handed out once, to one pool at one moment, so two reads
/// that give the same value saw the same elements in the same slots (a clone
/// keeps its original's value until either changes). A change only sets
/// [`CHANGED`]; the next read takes a fresh value.
#[derive(Debug)]
struct Membership(AtomicU64);

/// The membership bit of a pool changed since the value was handed out.
const CHANGED: u64 = 1 << 63;

/// The next membership value to hand out.
static NEXT_MEMBERSHIP: AtomicU64 = AtomicU64::new(1);

impl Membership {
    fn fresh() -> Membership {
        Membership(AtomicU64::new(
            NEXT_MEMBERSHIP.fetch_add(1, Ordering::Relaxed),
        ))
    }
}

impl Clone for Membership {
    fn clone(&self) -> Membership {
        Membership(AtomicU64::new(self.0.load(Ordering::Relaxed)))
    }
}

impl<S: SlotRecord> SlotPool<S> {
    pub(crate) fn new() -> SlotPool<S> {
        SlotPool {
            slots: Vec::new(),
            stamps: Vec::new(),
            free: NONE,
            live: 0,
            filters: Vec::new(),
            margin: 0.0,
            tight: Vec::new(),
            membership: Membership::fresh(),
        }
    }

    /// A value that changes whenever an element is added to or removed from
    /// the pool, and that no other pool has unless it is a clone with the
    /// same elements in the same slots. (The pair tracker skips its pass over
    /// the slots while it stays the same.)
    pub(crate) fn membership(&self) -> u64 {
        let value = self.membership.0.load(Ordering::Relaxed);
        if value & CHANGED == 0 {
            return value;
        }
        // Two threads reading at once may each hand out a value; either is
        // new, and the last one stored stays.
        let fresh = NEXT_MEMBERSHIP.fetch_add(1, Ordering::Relaxed);
        self.membership.0.store(fresh, Ordering::Relaxed);
        fresh
    }

    /// Notes that an element was added or removed.
    #[inline(always)]
    fn membership_changed(&mut self) {
        *self.membership.0.get_mut() |= CHANGED;
    }

    /// Room for `additional` more elements, or `CapacityExceeded`; on success
    /// that many `alloc`s cannot fail.
    pub(crate) fn check_room(&self, additional: usize) -> Result<(), Error> {
        let free_slots_bound = self.slots.len() - self.live;
        let fresh_needed = additional.saturating_sub(free_slots_bound);
        if self.slots.len() + fresh_needed >= NONE as usize {
            Err(Error::CapacityExceeded)
        } else {
            Ok(())
        }
    }

    /// Reserves memory for `additional` more elements beyond the free slots.
    pub(crate) fn reserve(&mut self, additional: usize) {
        let fresh = additional.saturating_sub(self.slots.len() - self.live);
        huge_pages::reserve_exact(&mut self.slots, fresh);
        huge_pages::reserve_exact(&mut self.stamps, fresh);
        if self.filtered() {
            huge_pages::reserve_exact(&mut self.filters, fresh);
        }
        if self.is_fat() {
            huge_pages::reserve_exact(&mut self.tight, fresh);
        }
    }

    /// Appends a slot with its stamp (snapshots, which read the tight boxes
    /// after the slots).
    pub(crate) fn push(&mut self, slot: S, stamp: u32) {
        self.membership_changed();
        self.live += (stamp & LIVE != 0) as usize;
        huge_pages::push(&mut self.slots, slot);
        huge_pages::push(&mut self.stamps, stamp);
        if !self.filters.is_empty() {
            self.filters.push(Filter::DEFAULT);
        }
    }

    /// A live slot for the element; the caller checked room.
    pub(crate) fn alloc(&mut self, rect: S::Bounds, id: u32) -> u32 {
        self.membership_changed();
        self.live += 1;
        if self.free != NONE {
            let index = self.free;
            let slot = &mut self.slots[index as usize];
            self.free = slot.id();
            *slot = S::fresh(rect, id);
            let stamp = &mut self.stamps[index as usize];
            *stamp = LIVE | (*stamp & GENERATION_MASK);
            if let Some(filter) = self.filters.get_mut(index as usize) {
                *filter = Filter::DEFAULT;
            }
            if let Some(tight) = self.tight.get_mut(index as usize) {
                *tight = rect;
            }
            index
        } else {
            let index = self.slots.len() as u32;
            huge_pages::push(&mut self.slots, S::fresh(rect, id));
            huge_pages::push(&mut self.stamps, LIVE | 1);
            if !self.filters.is_empty() {
                huge_pages::push(&mut self.filters, Filter::DEFAULT);
            }
            if self.is_fat() {
                huge_pages::push(&mut self.tight, rect);
            }
            index
        }
    }

    /// Whether any element may have a filter other than [`Filter::DEFAULT`].
    #[inline]
    pub(crate) fn filtered(&self) -> bool {
        !self.filters.is_empty()
    }

    /// The filter of slot `index`.
    #[inline]
    pub(crate) fn filter(&self, index: u32) -> Filter {
        self.filters
            .get(index as usize)
            .copied()
            .unwrap_or(Filter::DEFAULT)
    }

    /// Sets the filter of live slot `index` (the first filter other than the
    /// default makes room for all).
    pub(crate) fn set_filter(&mut self, index: u32, filter: Filter) {
        if self.filters.is_empty() {
            if filter == Filter::DEFAULT {
                return;
            }
            huge_pages::resize(&mut self.filters, self.slots.len(), Filter::DEFAULT);
        }
        self.filters[index as usize] = filter;
    }

    /// Frees a live slot: bumps its generation so its handle goes stale, and
    /// retires it instead when the generation is used up.
    pub(crate) fn free(&mut self, index: u32) {
        self.membership_changed();
        self.live -= 1;
        let generation = self.generation(index);
        let slot = &mut self.slots[index as usize];
        if generation == MAX_GENERATION {
            self.stamps[index as usize] = RETIRED;
            slot.set_id(NONE);
        } else {
            self.stamps[index as usize] = generation + 1;
            slot.set_id(self.free);
            self.free = index;
        }
    }

    /// The slot index a handle names, if it is live.
    #[inline]
    pub(crate) fn lookup(&self, handle: Handle) -> Result<u32, Error> {
        // No error built before it is needed: an `Error` has drop glue, and
        // a batch's check of every handle paid a call to it each.
        match (handle.generation(), self.stamps.get(handle.slot() as usize)) {
            (Some(generation), Some(&stamp)) if stamp & !MARK == LIVE | generation => {
                Ok(handle.slot())
            }
            _ => Err(Error::InvalidHandle(handle)),
        }
    }

    /// Asks the CPU to start loading a handle's slot; does nothing else, and
    /// nothing at all for a handle out of range. The line of its first byte;
    /// for a record its readers read whole ([`SlotRecord::READ_WHOLE`]) that
    /// can straddle two lines, the line of its last byte too.
    #[inline]
    pub(crate) fn prefetch(&self, handle: Handle) {
        if let Some(slot) = self.slots.get(handle.slot() as usize) {
            prefetch(slot);
            let size = core::mem::size_of::<S>();
            let straddles = 64 % size != 0 || core::mem::align_of::<S>() < size;
            if S::READ_WHOLE && straddles {
                let last = (slot as *const S).cast::<u8>().wrapping_add(size - 1);
                prefetch_address(last, 1);
            }
        }
    }

    /// Asks the CPU to start loading a handle's stamp.
    #[inline]
    pub(crate) fn prefetch_stamp(&self, handle: Handle) {
        if let Some(stamp) = self.stamps.get(handle.slot() as usize) {
            prefetch(stamp);
        }
    }

    /// Whether slot `index` (in range) holds a live element.
    #[inline]
    pub(crate) fn is_live(&self, index: u32) -> bool {
        self.stamps[index as usize] & LIVE != 0
    }

    /// The generation of slot `index` (that of its element, or of its next one
    /// while free).
    #[inline]
    pub(crate) fn generation(&self, index: u32) -> u32 {
        self.stamps[index as usize] & GENERATION_MASK
    }

    #[inline]
    pub(crate) fn handle(&self, index: u32) -> Handle {
        Handle::new(index, self.generation(index))
    }

    #[inline]
    pub(crate) fn is_marked(&self, index: u32) -> bool {
        self.stamps[index as usize] & MARK != 0
    }

    #[inline]
    pub(crate) fn set_mark(&mut self, index: u32, on: bool) {
        let stamp = &mut self.stamps[index as usize];
        *stamp = if on { *stamp | MARK } else { *stamp & !MARK };
    }

    /// Frees every live slot (handles go stale) and keeps the capacity; the
    /// filters go back to the default.
    pub(crate) fn free_all(&mut self) {
        self.filters.clear();
        for index in (0..self.slots.len() as u32).rev() {
            if self.is_live(index) {
                self.free(index);
            }
        }
    }

    /// Bytes the pool holds, capacity included.
    pub(crate) fn bytes(&self) -> usize {
        self.slots.capacity() * core::mem::size_of::<S>()
            + self.stamps.capacity() * core::mem::size_of::<u32>()
            + self.filters.capacity() * core::mem::size_of::<Filter>()
            + self.tight.capacity() * core::mem::size_of::<S::Bounds>()
    }

    /// Checks the free list, the marks and the live count; whatever else a
    /// structure's slots must satisfy is its own validation's business.
    pub(crate) fn validate(&self) -> Result<(), String> {
        let (slots, stamps) = (&self.slots, &self.stamps);
        if stamps.len() != slots.len() {
            return Err(format!("{} stamps for {} slots", stamps.len(), slots.len()));
        }
        if self.filtered() && self.filters.len() != slots.len() {
            return Err(format!(
                "{} filters for {} slots",
                self.filters.len(),
                slots.len()
            ));
        }
        if !(self.margin >= 0.0 && self.margin.is_finite()) {
            return Err(format!("margin {} is not finite and >= 0", self.margin));
        }
        if self.tight.len() != if self.is_fat() { slots.len() } else { 0 } {
            return Err(format!(
                "{} tight boxes for {} slots at margin {}",
                self.tight.len(),
                slots.len(),
                self.margin
            ));
        }
        let mut live = 0;
        for (index, (slot, &stamp)) in slots.iter().zip(stamps).enumerate() {
            if stamp & MARK != 0 {
                return Err(format!("slot {index} still marked"));
            }
            // A stray bit would make the slot's handle (built from the
            // generation alone) one that `lookup` refuses.
            if stamp & !(LIVE | MARK | GENERATION_MASK) != 0 {
                return Err(format!("slot {index} has stray stamp bits {stamp:#x}"));
            }
            if stamp & LIVE != 0 {
                live += 1;
                if stamp & GENERATION_MASK == 0 {
                    return Err(format!("live slot {index} has generation 0"));
                }
                if !slot.rect().is_valid() {
                    return Err(format!("live slot {index} has an invalid rectangle"));
                }
                if let Some(tight) = self.tight.get(index) {
                    if !tight.is_valid() || !slot.rect().holds_box(tight) {
                        return Err(format!(
                            "live slot {index}: its fat box {} does not hold its box {tight}",
                            slot.rect()
                        ));
                    }
                }
            }
        }
        if live != self.live {
            return Err(format!("{live} live slots, len says {}", self.live));
        }
        let mut slot_free = vec![false; slots.len()];
        let mut slot = self.free;
        while slot != NONE {
            let at = slot as usize;
            if at >= slots.len() || slot_free[at] || self.is_live(slot) {
                return Err(format!(
                    "free slot {at} out of range, live or reached twice"
                ));
            }
            let generation = self.generation(slot);
            if generation == 0 || generation > MAX_GENERATION {
                return Err(format!("free slot {at} has generation {generation}"));
            }
            slot_free[at] = true;
            slot = slots[at].id();
        }
        for (at, &stamp) in stamps.iter().enumerate() {
            let retired = stamp == RETIRED;
            if stamp & LIVE == 0 && !slot_free[at] && !retired {
                return Err(format!("slot {at} neither live, free nor retired"));
            }
        }
        Ok(())
    }
}
