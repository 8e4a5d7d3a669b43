//! Every overlapping pair, each once: tight cell by tight cell, the pairs
//! inside and across the loose cells it lists, each pair in the one tight cell
//! owning a corner; then big elements against the grid and each other.

use core::ops::{ControlFlow, Range};

use arrayvec::ArrayVec;

use crate::links::Link;
use crate::loose_grid::{LooseGrid, Slot};
use crate::slots::SlotPool;
use crate::slots::NONE;
use crate::{Handle, Rect};

/// In a tight cell too crowded to gather whole, loose cells of up to this many
/// elements are gathered one at a time; bigger ones (stacks at one spot) are
/// walked in place.
const GATHER: usize = 512;

/// Gathered cells with more elements than this are sorted and swept rather
/// than tested pair by pair; two cells, when the product of their counts is
/// above its square.
const SWEEP_FROM: usize = 24;

/// A cell's elements as `(rectangle, slot)`.
type Gathered = ArrayVec<(Rect, u32), GATHER>;

/// Loose cells of one tight cell gathered for the pair walk.
const LISTED: usize = 32;

/// Elements of one tight cell's loose cells gathered for the pair walk; more
/// (crowds) are walked in place.
const ELEMENTS: usize = 256;

/// A loose cell gathered for the pair walk: its box and its elements'
/// range in the gathered elements.
struct Listed {
    rect: Rect,
    start: u16,
    end: u16,
}

/// The pairs among gathered elements.
#[inline]
fn pairs_among<F>(
    elements: &mut [(Rect, u32)],
    pool: &SlotPool<Slot>,
    visit: &mut F,
) -> ControlFlow<()>
where
    F: FnMut(Handle, Handle) -> ControlFlow<()>,
{
    if elements.len() <= SWEEP_FROM {
        for (i, (a, slot_a)) in elements.iter().enumerate() {
            for (b, slot_b) in &elements[i + 1..] {
                if a.intersects(b) {
                    visit(pool.handle(*slot_a), pool.handle(*slot_b))?;
                }
            }
        }
        return ControlFlow::Continue(());
    }
    // A crowded cell: sorted by left edge, each element meets only those
    // starting before it ends.
    elements.sort_unstable_by(|(a, _), (b, _)| a.x1.total_cmp(&b.x1));
    for (i, (a, slot_a)) in elements.iter().enumerate() {
        for (b, slot_b) in &elements[i + 1..] {
            if b.x1 > a.x2 {
                break;
            }
            if a.intersects(b) {
                visit(pool.handle(*slot_a), pool.handle(*slot_b))?;
            }
        }
    }
    ControlFlow::Continue(())
}

/// The pairs across two gathered cells (sorted by left edge here when both
/// are crowded).
#[inline]
fn pairs_between<F>(
    first: &mut [(Rect, u32)],
    second: &mut [(Rect, u32)],
    pool: &SlotPool<Slot>,
    visit: &mut F,
) -> ControlFlow<()>
where
    F: FnMut(Handle, Handle) -> ControlFlow<()>,
{
    if first.len() * second.len() <= SWEEP_FROM * SWEEP_FROM {
        for (a, slot_a) in first.iter() {
            for (b, slot_b) in second.iter() {
                if a.intersects(b) {
                    visit(pool.handle(*slot_a), pool.handle(*slot_b))?;
                }
            }
        }
        return ControlFlow::Continue(());
    }
    // Both sorted by left edge: the element that starts first meets only those
    // of the other cell starting before it ends.
    first.sort_unstable_by(|(a, _), (b, _)| a.x1.total_cmp(&b.x1));
    second.sort_unstable_by(|(a, _), (b, _)| a.x1.total_cmp(&b.x1));
    let (mut i, mut j) = (0, 0);
    while i < first.len() && j < second.len() {
        if first[i].0.x1 <= second[j].0.x1 {
            let (a, slot_a) = &first[i];
            for (b, slot_b) in &second[j..] {
                if b.x1 > a.x2 {
                    break;
                }
                if a.intersects(b) {
                    visit(pool.handle(*slot_a), pool.handle(*slot_b))?;
                }
            }
            i += 1;
        } else {
            let (b, slot_b) = &second[j];
            for (a, slot_a) in &first[i..] {
                if a.x1 > b.x2 {
                    break;
                }
                if a.intersects(b) {
                    visit(pool.handle(*slot_a), pool.handle(*slot_b))?;
                }
            }
            j += 1;
        }
    }
    ControlFlow::Continue(())
}

/// The elements of `from` meeting `both` (the intersection of two cells'
/// boxes, which holds every pair across them), into `into`.
#[inline]
fn near(from: &[(Rect, u32)], both: &Rect, into: &mut Gathered) {
    into.clear();
    for item in from {
        if item.0.intersects(both) {
            into.push(*item);
        }
    }
}

/// The intersection of two rectangles that meet.
#[inline]
fn meet(a: &Rect, b: &Rect) -> Rect {
    Rect::new(
        a.x1.max(b.x1),
        a.y1.max(b.y1),
        a.x2.min(b.x2),
        a.y2.min(b.y2),
    )
}

impl LooseGrid {
    /// Tight cell by tight cell: the loose cells it lists are gathered with
    /// their elements, and it reports the pairs inside a listed cell whose box's
    /// top-left corner it owns, and the pairs across two listed cells whose
    /// boxes meet where it owns the top-left corner of their intersection (each
    /// corner has one tight cell, so each pair is reported once, with no hash
    /// set). Then big elements against the grid and against each other.
    pub(crate) fn all_pairs<F>(&self, mut visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        self.tight_pairs(0..self.tight.len() as u32, &mut visit)?;
        self.big_pairs(&mut visit)
    }

    /// The pairs of small elements owned by the tight cells of `range`. A
    /// tight cell owns the pairs inside each loose cell it lists whose box's
    /// top-left corner it owns, and the pairs across two loose cells it lists
    /// whose boxes' intersection's top-left corner it owns: each corner lies in
    /// one tight cell, which lists the cells concerned, so every pair is
    /// reported once.
    pub(crate) fn tight_pairs<F>(&self, range: Range<u32>, visit: &mut F) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        let mut listed = ArrayVec::<Listed, LISTED>::new();
        let mut elements = ArrayVec::<(Rect, u32), ELEMENTS>::new();
        let (mut first, mut second) = (Gathered::new(), Gathered::new());
        for tight in range {
            let (tx, ty) = (tight % self.tight_columns, tight / self.tight_columns);
            let owns = |x: f32, y: f32| self.tight_x.owns(tx, x) && self.tight_y.owns(ty, y);
            if !self.gather_tight(tight, &mut listed, &mut elements) {
                self.tight_pairs_in_place(tight, &owns, [&mut first, &mut second], visit)?;
                continue;
            }
            for (i, a) in listed.iter().enumerate() {
                let (from, to) = (a.start as usize, a.end as usize);
                if to - from >= 2 && owns(a.rect.x1, a.rect.y1) {
                    pairs_among(&mut elements[from..to], &self.slots, visit)?;
                }
                for b in &listed[i + 1..] {
                    if !a.rect.intersects(&b.rect) {
                        continue;
                    }
                    let both = meet(&a.rect, &b.rect);
                    if owns(both.x1, both.y1) {
                        // Only elements meeting `both` can pair across.
                        near(&elements[from..to], &both, &mut first);
                        if first.is_empty() {
                            continue;
                        }
                        near(
                            &elements[b.start as usize..b.end as usize],
                            &both,
                            &mut second,
                        );
                        pairs_between(&mut first, &mut second, &self.slots, visit)?;
                    }
                }
            }
        }
        ControlFlow::Continue(())
    }

    /// Gathers the loose cells a tight cell lists (those holding elements) and
    /// their elements; false when they do not fit.
    #[inline]
    fn gather_tight(
        &self,
        tight: u32,
        listed: &mut ArrayVec<Listed, LISTED>,
        elements: &mut ArrayVec<(Rect, u32), ELEMENTS>,
    ) -> bool {
        listed.clear();
        elements.clear();
        let slots = &self.slots.slots;
        let mut link = self.tight[tight as usize];
        while link != NONE {
            let Link { next, element } = self.links.links[link as usize];
            link = next;
            let cell = &self.cells[element as usize];
            if cell.head == NONE {
                continue;
            }
            let start = elements.len() as u16;
            let mut at = cell.head;
            while at != NONE {
                let slot = &slots[at as usize];
                if elements.try_push((slot.rect, at)).is_err() {
                    return false;
                }
                at = slot.next;
            }
            let end = elements.len() as u16;
            if listed
                .try_push(Listed {
                    rect: cell.rect,
                    start,
                    end,
                })
                .is_err()
            {
                return false;
            }
        }
        true
    }

    /// [`tight_pairs`](Self::tight_pairs) for one tight cell too crowded to
    /// gather whole: its loose cells are gathered one at a time (or walked in
    /// place when even one does not fit), and each couple of them whose boxes
    /// meet there is tested through the elements meeting both boxes.
    fn tight_pairs_in_place<O, F>(
        &self,
        tight: u32,
        owns: &O,
        [first, second]: [&mut Gathered; 2],
        visit: &mut F,
    ) -> ControlFlow<()>
    where
        O: Fn(f32, f32) -> bool,
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        let mut gathered = Gathered::new();
        let mut link = self.tight[tight as usize];
        while link != NONE {
            let Link { next, element } = self.links.links[link as usize];
            link = next;
            let cell = &self.cells[element as usize];
            if cell.head == NONE {
                continue;
            }
            let fits = self.gather(cell.head, &mut gathered, None);
            if owns(cell.rect.x1, cell.rect.y1) {
                if fits {
                    pairs_among(&mut gathered, &self.slots, visit)?;
                } else {
                    self.pairs_in_place(cell.head, visit)?;
                }
            }
            let mut later = next;
            while later != NONE {
                let Link { next, element } = self.links.links[later as usize];
                later = next;
                let other = &self.cells[element as usize];
                if other.head == NONE || !cell.rect.intersects(&other.rect) {
                    continue;
                }
                let both = meet(&cell.rect, &other.rect);
                if !owns(both.x1, both.y1) {
                    continue;
                }
                let nearby = if fits {
                    near(&gathered, &both, first);
                    true
                } else {
                    self.gather(cell.head, first, Some(&both))
                };
                if nearby && self.gather(other.head, second, Some(&both)) {
                    pairs_between(first, second, &self.slots, visit)?;
                } else {
                    self.pairs_across_in_place(cell.head, other.head, &both, visit)?;
                }
            }
        }
        ControlFlow::Continue(())
    }

    /// Gathers a cell's elements (those meeting `within`, if given) into
    /// `into`; false (and `into` partial) when they do not fit.
    #[inline]
    fn gather(&self, head: u32, into: &mut Gathered, within: Option<&Rect>) -> bool {
        into.clear();
        let slots = &self.slots.slots;
        let mut at = head;
        while at != NONE {
            let slot = &slots[at as usize];
            if within.is_none_or(|r| slot.rect.intersects(r))
                && into.try_push((slot.rect, at)).is_err()
            {
                return false;
            }
            at = slot.next;
        }
        true
    }

    /// The pairs among a cell's elements, walking its list in place.
    fn pairs_in_place<F>(&self, head: u32, visit: &mut F) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        let slots = &self.slots.slots;
        let mut a = head;
        while a != NONE {
            let slot_a = &slots[a as usize];
            let mut b = slot_a.next;
            while b != NONE {
                let slot_b = &slots[b as usize];
                if slot_a.rect.intersects(&slot_b.rect) {
                    visit(self.slots.handle(a), self.slots.handle(b))?;
                }
                b = slot_b.next;
            }
            a = slot_a.next;
        }
        ControlFlow::Continue(())
    }

    /// The pairs across two cells' lists walked in place (cells too crowded to
    /// gather): only elements meeting `both`, the intersection of the two
    /// boxes, can be in one.
    fn pairs_across_in_place<F>(
        &self,
        head_a: u32,
        head_b: u32,
        both: &Rect,
        visit: &mut F,
    ) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        let slots = &self.slots.slots;
        let mut a = head_a;
        while a != NONE {
            let slot_a = &slots[a as usize];
            if slot_a.rect.intersects(both) {
                let mut b = head_b;
                while b != NONE {
                    let slot_b = &slots[b as usize];
                    if slot_a.rect.intersects(&slot_b.rect) {
                        visit(self.slots.handle(a), self.slots.handle(b))?;
                    }
                    b = slot_b.next;
                }
            }
            a = slot_a.next;
        }
        ControlFlow::Continue(())
    }

    /// Big elements against the small ones (a query over the loose cells per
    /// big element) and against each other.
    pub(crate) fn big_pairs<F>(&self, visit: &mut F) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        for &big in &self.big.slots {
            let rect = self.slots.slots[big as usize].rect;
            let handle = self.slots.handle(big);
            self.query_cells(&rect, NONE, |at, _| visit(handle, self.slots.handle(at)))?;
        }
        self.big.pairs(
            |slot| self.slots.slots[slot as usize].rect,
            |slot| self.slots.handle(slot),
            visit,
        )
    }
}
