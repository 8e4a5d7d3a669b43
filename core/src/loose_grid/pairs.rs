//! Every overlapping pair, each once: pairs inside a loose cell; pairs across
//! two loose cells whose boxes meet, found through the tight grid from the
//! lower-numbered cell; then big elements against the grid and each other.

use core::ops::{ControlFlow, Range};

use arrayvec::ArrayVec;

use crate::links::Link;
use crate::loose_grid::{LooseGrid, Span};
use crate::slots::NONE;
use crate::{Handle, Rect};

/// Cells of up to this many elements are gathered into an array on the stack
/// before their pairs are tested; bigger ones (stacks at one spot) are walked
/// in place.
const GATHER: usize = 128;

/// Gathered cells with more elements than this are sorted and swept rather
/// than tested pair by pair.
const SWEEP_FROM: usize = 24;

/// A cell's elements as `(rectangle, slot)`.
type Gathered = ArrayVec<(Rect, u32), GATHER>;

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
    /// [`pairs_with`](crate::SpatialIndex::pairs_with).
    pub(crate) fn all_pairs<F>(&self, mut visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        self.cell_pairs(0..self.cells.len() as u32, &mut visit)?;
        self.big_pairs(&mut visit)
    }

    /// The pairs of small elements owned by the loose cells of `range`: those
    /// inside each cell, and those across it and a higher-numbered cell.
    pub(crate) fn cell_pairs<F>(&self, range: Range<u32>, visit: &mut F) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        let mut gathered = Gathered::new();
        for index in range {
            let cell = self.cells[index as usize];
            if cell.head == NONE {
                continue;
            }
            let fits = self.gather(cell.head, &mut gathered);
            if fits {
                self.pairs_gathered(&mut gathered, visit)?;
            } else {
                self.pairs_in_place(cell.head, visit)?;
            }
            let own = &cell.rect;
            let span = self.span(own);
            for ty in span.y1..=span.y2 {
                let row = ty * self.tight_columns;
                for tx in span.x1..=span.x2 {
                    let mut link = self.tight[(row + tx) as usize];
                    while link != NONE {
                        let Link { next, element } = self.links.links[link as usize];
                        link = next;
                        if element <= index {
                            continue;
                        }
                        let other = &self.cells[element as usize];
                        if other.head == NONE || !own.intersects(&other.rect) {
                            continue;
                        }
                        let both = meet(own, &other.rect);
                        if !self.owns_corner(&span, tx, ty, &both) {
                            continue;
                        }
                        if fits {
                            self.pairs_across_gathered(&gathered, other.head, &both, visit)?;
                        } else {
                            self.pairs_across_in_place(cell.head, other.head, &both, visit)?;
                        }
                    }
                }
            }
        }
        ControlFlow::Continue(())
    }

    /// Whether tight cell `(tx, ty)` of `span` (the tight cells under one box)
    /// owns the top-left corner of `both`, that box's intersection with a box
    /// listed there: in the span's first column (row) it always does along x (y).
    #[inline(always)]
    fn owns_corner(&self, span: &Span, tx: u32, ty: u32, both: &Rect) -> bool {
        (tx == span.x1 || self.tight_x.owns(tx, both.x1))
            && (ty == span.y1 || self.tight_y.owns(ty, both.y1))
    }

    /// Gathers a cell's elements into `into`; false (and `into` partial) when
    /// they do not fit.
    #[inline]
    fn gather(&self, head: u32, into: &mut Gathered) -> bool {
        into.clear();
        let slots = &self.slots.slots;
        let mut at = head;
        while at != NONE {
            let slot = &slots[at as usize];
            if into.try_push((slot.rect, at)).is_err() {
                return false;
            }
            at = slot.next;
        }
        true
    }

    /// The pairs among gathered elements.
    #[inline]
    fn pairs_gathered<F>(&self, gathered: &mut Gathered, visit: &mut F) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        if gathered.len() <= SWEEP_FROM {
            for (i, (a, slot_a)) in gathered.iter().enumerate() {
                for (b, slot_b) in &gathered[i + 1..] {
                    if a.intersects(b) {
                        visit(self.slots.handle(*slot_a), self.slots.handle(*slot_b))?;
                    }
                }
            }
            return ControlFlow::Continue(());
        }
        // A crowded cell: sorted by left edge, each element meets only those
        // starting before it ends.
        gathered.sort_unstable_by(|(a, _), (b, _)| a.x1.total_cmp(&b.x1));
        for (i, (a, slot_a)) in gathered.iter().enumerate() {
            for (b, slot_b) in &gathered[i + 1..] {
                if b.x1 > a.x2 {
                    break;
                }
                if a.intersects(b) {
                    visit(self.slots.handle(*slot_a), self.slots.handle(*slot_b))?;
                }
            }
        }
        ControlFlow::Continue(())
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
                    visit(
                        LooseGrid::handle_of(a, slot_a),
                        LooseGrid::handle_of(b, slot_b),
                    )?;
                }
                b = slot_b.next;
            }
            a = slot_a.next;
        }
        ControlFlow::Continue(())
    }

    /// The pairs across gathered elements and the list starting at `head`:
    /// only elements meeting `both`, the intersection of the two boxes, can be
    /// in one.
    #[inline]
    fn pairs_across_gathered<F>(
        &self,
        gathered: &Gathered,
        head: u32,
        both: &Rect,
        visit: &mut F,
    ) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        let mut near = Gathered::new();
        for item in gathered {
            if item.0.intersects(both) {
                near.push(*item);
            }
        }
        if near.is_empty() {
            return ControlFlow::Continue(());
        }
        let slots = &self.slots.slots;
        let mut at = head;
        while at != NONE {
            let slot = &slots[at as usize];
            if slot.rect.intersects(both) {
                for (rect, other) in &near {
                    if rect.intersects(&slot.rect) {
                        visit(self.slots.handle(*other), LooseGrid::handle_of(at, slot))?;
                    }
                }
            }
            at = slot.next;
        }
        ControlFlow::Continue(())
    }

    /// [`pairs_across_gathered`](Self::pairs_across_gathered) for a first cell
    /// too big to gather.
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
                        visit(
                            LooseGrid::handle_of(a, slot_a),
                            LooseGrid::handle_of(b, slot_b),
                        )?;
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
            self.query_cells(&rect, NONE, |at, slot| {
                visit(handle, LooseGrid::handle_of(at, slot))
            })?;
        }
        self.big.pairs(
            |slot| self.slots.slots[slot as usize].rect,
            |slot| self.slots.handle(slot),
            visit,
        )
    }
}
