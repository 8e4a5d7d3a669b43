//! Moving elements: a move that stays in the same cells only writes the
//! rectangle; otherwise the element leaves the cells it no longer meets and
//! joins the new ones, or moves between the cells and the big list.

use arrayvec::ArrayVec;

use crate::axis::Axis;
use crate::grid::{is_big_among, Grid, Slot, Span};
use crate::index::raw::PREFETCH_AHEAD;
use crate::slots::{prefetch, NONE};
use crate::{Handle, Rect};

/// One element leaving the cells of `from` for those of `to`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Move {
    pub slot: u32,
    pub from: Span,
    pub to: Span,
}

/// Gives the slot record `record` (of slot `slot`) the rectangle `rect`;
/// returns the move to relink if the rectangle leaves the record's cells (the
/// record then holds the new ones). Over the axes alone, so that threads can
/// move the records of disjoint slots at once.
#[inline(always)]
pub(crate) fn move_record(
    (ax, ay): (&Axis, &Axis),
    record: &mut Slot,
    slot: u32,
    rect: Rect,
) -> Option<Move> {
    #[cfg(test)]
    crate::index::finish_moves::panic_if_told(&rect);
    let from = Span::unpack(record.cells);
    record.rect = rect;
    // The common case: the same cells (the rectangle's edges in the same
    // border cells), only the rectangle changes.
    if ax.owns(from.x1, rect.x1)
        & ax.owns(from.x2, rect.x2)
        & ay.owns(from.y1, rect.y1)
        & ay.owns(from.y2, rect.y2)
    {
        return None;
    }
    let to = Span::of((ax, ay), &rect);
    record.cells = to.pack();
    Some(Move { slot, from, to })
}

/// Moves, for each handle of a batch whose slot is in `first..first +
/// records.len()`, its record (`records[slot - first]`) by `mover`, and hands
/// each move that leaves its cells to `moved` with its place in the batch: a
/// big batch's moves on one thread (all the records) or on one of many.
#[inline(always)]
pub(crate) fn move_range(
    records: &mut [Slot],
    first: usize,
    handles: &[Handle],
    rects: &[Rect],
    mut mover: impl FnMut(&mut Slot, u32, Rect) -> Option<Move>,
    mut moved: impl FnMut(u32, Move),
) {
    let Some(last) = records.len().checked_sub(1) else {
        return;
    };
    for (at, (&handle, &rect)) in handles.iter().zip(rects).enumerate() {
        // Whether a handle is this range's is a coin toss for the branch
        // predictor when there are many, and each miss would throw away the
        // loads in flight: the records ahead are asked for without a branch
        // (another range's handle asks for a record of this range, harmlessly).
        if let Some(ahead) = handles.get(at + SLOTS_AHEAD) {
            let index = (ahead.slot() as usize).wrapping_sub(first).min(last);
            prefetch(&records[index]);
        }
        let slot = handle.slot();
        if let Some(record) = records.get_mut((slot as usize).wrapping_sub(first)) {
            if let Some(m) = mover(record, slot, rect) {
                moved(at as u32, m);
                #[cfg(test)]
                crate::index::finish_moves::panic_late_if_told(&rect);
            }
        }
    }
}

/// How many handles ahead a batch (or a thread's part of one) fetches slots.
pub(crate) const SLOTS_AHEAD: usize = 2 * PREFETCH_AHEAD;
/// Moves a batch gathers before it relinks them.
const MOVES: usize = 256;
/// How many moves ahead [`Grid::relink_moves`] fetches the list heads of the
/// cells a move leaves and joins; the first links of the cells it leaves
/// follow at two thirds of that, their second links at one third.
const HEADS_AHEAD: usize = 24;

impl Grid {
    /// Gives a live slot the rectangle `rect` ([`move_record`]).
    #[inline]
    pub(crate) fn move_slot(&mut self, slot: u32, rect: Rect) -> Option<Move> {
        self.packed.stale();
        let axes = (&self.axis_x, &self.axis_y);
        move_record(axes, &mut self.slots.slots[slot as usize], slot, rect)
    }

    /// Takes a moved element out of the lists it left and into those it joined.
    #[inline]
    fn relink(&mut self, Move { slot, from, to }: Move) {
        #[cfg(test)]
        crate::index::finish_moves::panic_late_if_told(&self.slots.slots[slot as usize].rect);
        match (self.is_big(&from), self.is_big(&to)) {
            (true, true) => {}
            (true, false) => {
                self.big.remove(slot);
                self.link_cells(slot, to, None);
            }
            (false, true) => {
                self.unlink_cells(slot, from, None);
                self.big.add(slot);
            }
            (false, false) => {
                self.unlink_cells(slot, from, Some(to));
                self.link_cells(slot, to, Some(from));
            }
        }
    }

    /// Files every live element anew, after a panic left the lists, runs or
    /// counts unknown (`index::finish_moves`): each record's cells from its
    /// rectangle, the big list from those, the lists by one counting sort
    /// ([`relist`](Grid::relist)); the runs wait for the next sort.
    pub(crate) fn refile_all(&mut self) {
        // A panic inside `relist` leaves the cell heads taken out (empty).
        let cells = self.columns() as usize * self.rows() as usize;
        self.cells.resize(cells, NONE);
        self.big.clear();
        for slot in 0..self.slots.slots.len() as u32 {
            if self.slots.is_live(slot) {
                let span = self.span(&self.slots.slots[slot as usize].rect);
                self.slots.slots[slot as usize].cells = span.pack();
                if is_big_among(cells, &span) {
                    self.big.add(slot);
                }
            }
        }
        self.packed.stale();
        self.lists_stale = true;
        self.relist();
    }

    pub(crate) fn move_element(&mut self, slot: u32, rect: Rect) {
        self.relist();
        if let Some(moved) = self.move_slot(slot, rect) {
            self.relink(moved);
        }
    }

    /// `update_many`'s moves, checked: every slot takes its rectangle in
    /// order (the slots are fetched ahead); the moves that leave their cells
    /// are gathered and relinked in groups, in the same order, each group
    /// fetching the lists it will search ahead. The lists then change exactly
    /// as by one [`move_element`](Grid::move_element) after another. A batch moving a
    /// good share of the elements leaves the lists behind instead
    /// ([`relocate_unlisted`](Grid::relocate_unlisted)).
    pub(crate) fn relocate_batch(&mut self, handles: &[Handle], rects: &[Rect]) {
        if self.defers_lists(handles.len()) {
            return self.relocate_unlisted(handles, rects);
        }
        self.relist();
        let mut moves = ArrayVec::<Move, MOVES>::new();
        for (index, (&handle, &rect)) in handles.iter().zip(rects).enumerate() {
            if let Some(&ahead) = handles.get(index + SLOTS_AHEAD) {
                self.slots.prefetch(ahead);
            }
            if let Some(moved) = self.move_slot(handle.slot(), rect) {
                moves.push(moved);
                if moves.is_full() {
                    self.relink_moves(&moves);
                    moves.clear();
                }
            }
        }
        self.relink_moves(&moves);
    }

    /// Relinks `moves` in order, fetching ahead the list heads of the cells a
    /// move leaves and joins, then the first and second links of the lists it
    /// leaves (where the search for its links starts).
    pub(crate) fn relink_moves(&mut self, moves: &[Move]) {
        for k in 0..moves.len() + HEADS_AHEAD {
            if let Some(m) = moves.get(k) {
                for span in [m.from, m.to] {
                    if self.few_cells(&span) {
                        self.for_each_head(span, prefetch);
                    }
                }
            }
            let first = (k + HEADS_AHEAD * 2 / 3).checked_sub(HEADS_AHEAD);
            if let Some(m) = first.and_then(|j| moves.get(j)) {
                if self.few_cells(&m.from) {
                    self.for_each_head(m.from, |&head| {
                        if let Some(link) = self.links.links.get(head as usize) {
                            prefetch(link);
                        }
                    });
                }
            }
            let second = (k + HEADS_AHEAD / 3).checked_sub(HEADS_AHEAD);
            if let Some(m) = second.and_then(|j| moves.get(j)) {
                if self.few_cells(&m.from) {
                    self.for_each_head(m.from, |&head| {
                        let links = &self.links.links;
                        if let Some(link) = links.get(head as usize) {
                            if let Some(next) = links.get(link.next as usize) {
                                prefetch(next);
                            }
                        }
                    });
                }
            }
            if let Some(&m) = k.checked_sub(HEADS_AHEAD).and_then(|j| moves.get(j)) {
                self.relink(m);
            }
        }
    }

    /// Whether `span` is of an element in at most four cells (worth fetching).
    #[inline(always)]
    fn few_cells(&self, span: &Span) -> bool {
        span.cells() <= 4 && !self.is_big(span)
    }

    /// Calls `f` with the list head of every cell of `span`.
    #[inline(always)]
    fn for_each_head(&self, span: Span, mut f: impl FnMut(&u32)) {
        for cy in span.y1..=span.y2 {
            for cx in span.x1..=span.x2 {
                f(&self.cells[self.cell_index(cx, cy)]);
            }
        }
    }
}
