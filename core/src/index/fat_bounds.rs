//! Fat bounds: the `margin` option of every structure, written once.
//!
//! With a margin `m > 0` a structure files each element by its box grown by
//! `m` (the slot's rectangle, all the structure itself ever sees), and the
//! pool keeps the element's own box apart (`SlotPool::tight`). A move that
//! stays inside the fat box only rewrites the tight box: the structure is not
//! called at all. A move that leaves it refiles the element by its new box
//! grown by `m`.
//!
//! Exactness: a structure reports every element whose filed box meets a
//! query, a superset of those whose tight box does (the fat box holds the
//! tight one), and each result path here tests the tight boxes before a
//! caller sees a hit. The searches and every other reader of an element's box
//! take it from [`Slots::rect_at`](crate::index::raw::Slots::rect_at), which
//! answers the tight box. So the margin changes speed, never an answer.
//!
//! `impl_structure!` (raw.rs) routes each structure's primitives through the
//! functions below.

use core::ops::ControlFlow;

use crate::index::raw::{HasSlots, PREFETCH_AHEAD};
use crate::slots::{prefetch, SlotPool, SlotRecord};
use crate::{Bounds, Error, Handle};

impl<S: SlotRecord> SlotPool<S> {
    /// Whether elements are filed by fat boxes.
    #[inline]
    pub(crate) fn is_fat(&self) -> bool {
        self.margin > 0.0
    }

    /// The element's own box in slot `index` (in range): the tight box kept
    /// apart under a margin, else the slot's rectangle.
    #[inline]
    pub(crate) fn tight_box(&self, index: u32) -> S::Bounds {
        match self.tight.get(index as usize) {
            Some(&tight) => tight,
            None => self.slots[index as usize].rect(),
        }
    }

    /// Whether live slot `index`'s own box meets `query`.
    #[inline]
    fn tight_meets(&self, index: u32, query: &S::Bounds) -> bool {
        self.tight[index as usize].meets(query)
    }
}

/// A margin a structure accepts: finite and `>= 0`.
pub(crate) fn check_margin(margin: f32) -> Result<f32, Error> {
    if margin >= 0.0 && margin.is_finite() {
        Ok(margin)
    } else {
        Err(Error::InvalidParameter {
            name: "margin",
            expected: "finite and >= 0",
            found: f64::from(margin),
        })
    }
}

/// Sets the margin (checked) and refiles every live element by its own box
/// grown by it, through the structure's `relocate`.
pub(crate) fn set_margin<T: HasSlots>(
    index: &mut T,
    margin: f32,
    mut relocate: impl FnMut(&mut T, u32, <T::Slot as SlotRecord>::Bounds),
) {
    let pool = index.slot_pool_mut();
    if pool.margin == margin {
        return;
    }
    if !pool.is_fat() {
        pool.tight.clear();
        crate::huge_pages::reserve_exact(&mut pool.tight, pool.slots.len());
        pool.tight.extend(pool.slots.iter().map(|slot| slot.rect()));
    }
    pool.margin = margin;
    for slot in 0..pool.slots.len() as u32 {
        let pool = index.slot_pool();
        if pool.is_live(slot) {
            let tight = pool.tight[slot as usize];
            relocate(index, slot, tight.grown(margin));
        }
    }
    let pool = index.slot_pool_mut();
    if margin == 0.0 {
        pool.tight = Vec::new();
    }
}

/// Inserts through the structure's `insert` (given the fat box) and keeps the
/// element's own box.
#[inline]
pub(crate) fn insert<T: HasSlots>(
    index: &mut T,
    rect: <T::Slot as SlotRecord>::Bounds,
    insert: impl FnOnce(&mut T, <T::Slot as SlotRecord>::Bounds) -> Handle,
) -> Handle {
    let margin = index.slot_pool().margin;
    if margin == 0.0 {
        return insert(index, rect);
    }
    let handle = insert(index, rect.grown(margin));
    index.slot_pool_mut().tight[handle.slot() as usize] = rect;
    handle
}

/// [`insert`] of a batch: the structure's batch insert is given the fat
/// boxes, and appends one handle per box in order.
pub(crate) fn insert_many<T: HasSlots>(
    index: &mut T,
    rects: &[<T::Slot as SlotRecord>::Bounds],
    handles: &mut Vec<Handle>,
    insert: impl FnOnce(&mut T, &[<T::Slot as SlotRecord>::Bounds], &mut Vec<Handle>),
) {
    let margin = index.slot_pool().margin;
    if margin == 0.0 {
        return insert(index, rects, handles);
    }
    let fat: Vec<_> = rects.iter().map(|rect| rect.grown(margin)).collect();
    let start = handles.len();
    insert(index, &fat, handles);
    let pool = index.slot_pool_mut();
    for (&handle, &rect) in handles[start..].iter().zip(rects) {
        pool.tight[handle.slot() as usize] = rect;
    }
}

/// Moves a live slot's element to `rect`: within its fat box only the tight
/// box changes; outside it the structure refiles it by `rect` grown by the
/// margin.
#[inline]
pub(crate) fn relocate<T: HasSlots>(
    index: &mut T,
    slot: u32,
    rect: <T::Slot as SlotRecord>::Bounds,
    relocate: impl FnOnce(&mut T, u32, <T::Slot as SlotRecord>::Bounds),
) {
    let pool = index.slot_pool_mut();
    if !pool.is_fat() {
        return relocate(index, slot, rect);
    }
    pool.tight[slot as usize] = rect;
    if !pool.slots[slot as usize].rect().holds_box(&rect) {
        let fat = rect.grown(pool.margin);
        relocate(index, slot, fat);
    }
}

/// [`relocate`] of a batch (`handles` live), in order. Without a margin the
/// structure's own batch move takes it; with one, most moves stay inside
/// their fat boxes and only write the tight box, so the few that leave are
/// refiled one by one (a handle given twice ends at its last box, as in any
/// batch), with the slots ahead fetched.
pub(crate) fn relocate_many<T: HasSlots>(
    index: &mut T,
    handles: &[Handle],
    rects: &[<T::Slot as SlotRecord>::Bounds],
    relocate_many: impl FnOnce(&mut T, &[Handle], &[<T::Slot as SlotRecord>::Bounds]),
    mut relocate_one: impl FnMut(&mut T, u32, <T::Slot as SlotRecord>::Bounds),
) {
    if !index.slot_pool().is_fat() {
        return relocate_many(index, handles, rects);
    }
    for (at, (&handle, &rect)) in handles.iter().zip(rects).enumerate() {
        if let Some(&ahead) = handles.get(at + PREFETCH_AHEAD) {
            let pool = index.slot_pool();
            pool.prefetch(ahead);
            if let Some(tight) = pool.tight.get(ahead.slot() as usize) {
                prefetch(tight);
            }
        }
        relocate(index, handle.slot(), rect, &mut relocate_one);
    }
}

/// `visit` limited to the elements whose own box meets `query` (a
/// structure's candidates under a margin).
#[inline]
pub(crate) fn meeting<'a, S: SlotRecord>(
    pool: &'a SlotPool<S>,
    query: S::Bounds,
    mut visit: impl FnMut(Handle) -> ControlFlow<()> + 'a,
) -> impl FnMut(Handle) -> ControlFlow<()> + 'a {
    move |handle| {
        if pool.tight_meets(handle.slot(), &query) {
            visit(handle)
        } else {
            ControlFlow::Continue(())
        }
    }
}

/// `visit` limited to the elements whose own box holds `point`.
#[inline]
pub(crate) fn holding<'a, S: SlotRecord>(
    pool: &'a SlotPool<S>,
    point: <S::Bounds as Bounds>::Point,
    mut visit: impl FnMut(Handle) -> ControlFlow<()> + 'a,
) -> impl FnMut(Handle) -> ControlFlow<()> + 'a {
    move |handle| {
        if pool.tight[handle.slot() as usize].contains_point(point) {
            visit(handle)
        } else {
            ControlFlow::Continue(())
        }
    }
}

/// `visit` limited to the pairs whose own boxes meet.
#[inline]
pub(crate) fn pairs_meeting<'a, S: SlotRecord>(
    pool: &'a SlotPool<S>,
    mut visit: impl FnMut(Handle, Handle) -> ControlFlow<()> + 'a,
) -> impl FnMut(Handle, Handle) -> ControlFlow<()> + 'a {
    move |a, b| {
        if pool.tight_meets(a.slot(), &pool.tight[b.slot() as usize]) {
            visit(a, b)
        } else {
            ControlFlow::Continue(())
        }
    }
}

/// Drops the pairs whose own boxes do not meet (a parallel walk's output).
#[cfg(feature = "rayon")]
pub(crate) fn retain_meeting<S: SlotRecord>(pool: &SlotPool<S>, pairs: &mut Vec<(Handle, Handle)>) {
    if pool.is_fat() {
        pairs.retain(|&(a, b)| pool.tight_meets(a.slot(), &pool.tight[b.slot() as usize]));
    }
}
