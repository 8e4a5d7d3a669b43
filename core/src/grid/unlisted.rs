//! Big batches of moves without the lists: the runs alone stay true until the
//! next change that needs the lists, which rebuilds them in one pass.
//!
//! A frame that moves most elements spends half its update relinking the
//! ones that left their cells (a search of each list they leave, a link in
//! each they join), only for `cleanup` to lay the cells out as runs, which the
//! frame's queries then read instead of the lists. So a batch
//! moving a good share of the elements writes the slot records alone (and
//! keeps the big list, which the runs leave out), then lays the runs out at
//! once: a counting sort, as `cleanup` does. Until the lists are rebuilt
//! (`relist`: any insert, removal, single move or small batch), every reader
//! takes the runs: queries, point queries, the pair walks, the searches; the
//! few that show the lists (`traverse`, `stats`, `validate`, snapshots) count
//! from the slots or work on a relisted copy.

use crate::big::BigList;
use crate::grid::packed::{count_into_cells, fill_cells, for_each_cell, KeptCounts};
use crate::grid::relocate::{move_range, move_record, Move};
use crate::grid::{is_big_among, Grid, Slot, Span};
use crate::links::{Link, LinkPool};
use crate::slots::{SlotPool, NONE};
use crate::{Handle, Rect};

impl Grid {
    /// Whether a batch of `moves` leaves the lists behind: when it moves at
    /// least a quarter of the elements, plus a 64th of the cells (what the
    /// counting sort costs beyond the elements), and at least 16, and enough
    /// queries (or a pair walk) came since the last `cleanup` for it to lay
    /// the runs out (a loop that queries or walks the pairs each frame).
    #[inline]
    pub(crate) fn defers_lists(&self, moves: usize) -> bool {
        moves >= 16
            && moves >= self.slots.live / 4 + self.cells.len() / 64
            && self.demand.counted() >= self.queries_to_pack()
    }

    /// `update_many`'s moves, checked, with the lists left stale (see the
    /// module): each record takes its rectangle in batch order (a handle
    /// given twice ends at its last), the big list follows the moves into and
    /// out of it, and the runs are laid out. The last sort's counts are kept
    /// through the moves when they can be ([`keep_counts`](Grid::keep_counts)),
    /// and the sort then skips its count.
    pub(crate) fn relocate_unlisted(&mut self, handles: &[Handle], rects: &[Rect]) {
        let mut kept = self.keep_counts(1);
        let rule = self.filing_rule();
        let axes = (&self.axis_x, &self.axis_y);
        let cells = self.cells.len();
        let mut changes = core::mem::take(&mut self.packed.count_changes);
        changes.clear();
        let (records, big) = (&mut self.slots.slots[..], &mut self.big);
        let follow = |_, m| follow_big(big, cells, m);
        // A loop for each kind of move, neither paying the other's check.
        match kept {
            Some(_) => {
                let mover = |record: &mut Slot, slot, rect| {
                    rule.move_record(axes, record, slot, rect, &mut changes)
                };
                move_range(records, 0, handles, rects, mover, follow);
            }
            None => {
                let mover = |record: &mut Slot, slot, rect| move_record(axes, record, slot, rect);
                move_range(records, 0, handles, rects, mover, follow);
            }
        }
        if changes.broken {
            kept = None;
        } else if kept.is_some() {
            changes.apply(&mut self.packed.starts);
        }
        self.packed.count_changes = changes;
        self.unlist(1, kept);
    }

    /// Marks the lists stale and lays the runs out (sorted on `threads`, with
    /// the counts `kept` or not: see [`pack_cells_in`](Grid::pack_cells_in)),
    /// which are then the truth.
    ///
    /// The second big batch in a row without the lists between gives their
    /// links' memory back (8 bytes a link; at uniform-100k the pool held 22
    /// bytes an agent): a loop of big batches has no use for them, and the next
    /// [`relist`](Grid::relist) allocates them again. A loop that alternates
    /// big batches with single changes keeps them.
    pub(crate) fn unlist(&mut self, threads: usize, kept: Option<KeptCounts>) {
        if self.lists_stale {
            self.links.release();
        }
        self.lists_stale = true;
        self.pack_cells_in(threads, kept);
    }

    /// Rebuilds the lists if a big batch left them stale: every element linked
    /// into the cells it meets, in one counting sort, so each cell's links
    /// are contiguous in the pool and in slot order (the walks then read them
    /// in order). The pool's memory is reused: nothing is allocated once warm,
    /// unless a loop of big batches gave it back ([`unlist`](Grid::unlist)).
    pub(crate) fn relist(&mut self) {
        if !self.lists_stale {
            return;
        }
        self.lists_stale = false;
        let columns = self.columns() as usize;
        let count = self.cells.len();
        // Taken out while the slots are read, put back at the end.
        let mut cells = core::mem::take(&mut self.cells);
        let mut links = core::mem::replace(&mut self.links, LinkPool::new());
        // The counting sort into cells: each cell's links in slot order, and
        // each cell's head at its run's start.
        cells.fill(0);
        let spans = (0..self.slots.slots.len() as u32)
            .filter_map(|slot| Some((slot, listed_span(&self.slots, count, slot)?)));
        let total = count_into_cells(spans.clone(), columns, &mut cells);
        links.free = NONE;
        links.links.clear();
        crate::huge_pages::resize(
            &mut links.links,
            total as usize,
            Link {
                next: NONE,
                element: NONE,
            },
        );
        fill_cells(spans, columns, &mut cells, |at, slot| {
            links.links[at] = Link {
                next: at as u32 + 1,
                element: slot,
            };
        });
        // Each run's last link ends its list; an empty cell has no head. A
        // cell's run ends where the next one's starts (read before it is
        // rewritten).
        for cell in 0..cells.len() {
            let start = cells[cell];
            let end = cells.get(cell + 1).copied().unwrap_or(total);
            if start == end {
                cells[cell] = NONE;
            } else {
                links.links[end as usize - 1].next = NONE;
            }
        }
        self.cells = cells;
        self.links = links;
    }

    /// How many elements each cell's list holds (or would, rebuilt): from the
    /// lists, or from the slots while the lists are stale.
    pub(crate) fn list_lengths(&self) -> Vec<u32> {
        let columns = self.columns() as usize;
        let mut lengths = vec![0u32; self.cells.len()];
        if self.lists_stale {
            for slot in 0..self.slots.slots.len() as u32 {
                if let Some(span) = listed_span(&self.slots, self.cells.len(), slot) {
                    for_each_cell(span, columns, |cell| lengths[cell] += 1);
                }
            }
            return lengths;
        }
        for (length, &head) in lengths.iter_mut().zip(&self.cells) {
            let mut link = head;
            while link != NONE {
                *length += 1;
                link = self.links.links[link as usize].next;
            }
        }
        lengths
    }

    /// This grid, or while its lists are stale a copy with them rebuilt: for
    /// the readers that show the lists themselves (snapshots, `validate`).
    pub(crate) fn listed(&self) -> std::borrow::Cow<'_, Grid> {
        if !self.lists_stale {
            return std::borrow::Cow::Borrowed(self);
        }
        let mut copy = self.clone();
        copy.relist();
        std::borrow::Cow::Owned(copy)
    }
}

/// Keeps the big list `big` (of a grid of `cells` cells) through a move while
/// the lists are not kept.
#[inline]
pub(crate) fn follow_big(big: &mut BigList, cells: usize, Move { slot, from, to }: Move) {
    match (is_big_among(cells, &from), is_big_among(cells, &to)) {
        (false, true) => big.add(slot),
        (true, false) => big.remove(slot),
        _ => {}
    }
}

/// The cells a slot's element is linked in (of a grid of `cells` cells), if it
/// is live and not big.
#[inline]
fn listed_span(pool: &SlotPool<Slot>, cells: usize, slot: u32) -> Option<Span> {
    let span = Span::unpack(pool.slots[slot as usize].cells);
    (pool.is_live(slot) && !is_big_among(cells, &span)).then_some(span)
}
