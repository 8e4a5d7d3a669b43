//! Queries: by rectangle and by point. The tight cells under the query list
//! the loose cells whose box may meet it; each element is in one loose cell, so
//! only loose cells listed in several of those tight cells need the corner
//! rule to be taken once.

use core::ops::ControlFlow;

use arrayvec::ArrayVec;

use crate::index::raw::SearchItem;
use crate::index::search::CellRanges;
use crate::links::Link;
use crate::loose_grid::{LooseGrid, Slot};
use crate::slots::{prefetch, NONE};
use crate::{Handle, Rect};

/// Loose cells a query collects before walking their lists.
const FOUND: usize = 16;

impl LooseGrid {
    /// Elements meeting the checked `rect`, each once, but slot `omit`.
    pub(crate) fn query_rect<F>(&self, rect: Rect, omit: u32, mut visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        self.query_cells(&rect, omit, |index, _| visit(self.slots.handle(index)))?;
        self.big.query(
            &rect,
            omit,
            |slot| self.slots.slots[slot as usize].rect,
            |slot| self.slots.handle(slot),
            &mut visit,
        )
    }

    /// The small elements meeting the finite `query`, each once, but slot
    /// `omit`, as `(slot index, slot)`.
    ///
    /// A loose cell listed in tight cell `T` is taken there only if `T` owns
    /// the top-left corner of the cell's box's intersection with the query: the
    /// corner lies in both, so in exactly one tight cell that the walk visits
    /// and that lists the cell.
    #[inline]
    pub(crate) fn query_cells<F>(&self, query: &Rect, omit: u32, mut visit: F) -> ControlFlow<()>
    where
        F: FnMut(u32, &Slot) -> ControlFlow<()>,
    {
        let span = self.span(query);
        // The lists of the loose cells found are walked after the tight cells,
        // their first slots asked for meanwhile: the slot loads of one cell
        // then overlap those of the next instead of waiting in turn.
        let mut found = ArrayVec::<u32, FOUND>::new();
        for ty in span.y1..=span.y2 {
            let row = ty * self.tight_columns;
            for tx in span.x1..=span.x2 {
                let mut link = self.tight[(row + tx) as usize];
                while link != NONE {
                    let Link { next, element } = self.links.links[link as usize];
                    link = next;
                    let cell = &self.cells[element as usize];
                    let b = &cell.rect;
                    // In the first column (row) of the walk the corner's x (y)
                    // is in this tight cell already: it is at least the
                    // query's, and at most the right border of every tight
                    // cell listing the loose cell and the query meets.
                    if !b.intersects(query)
                        || (tx != span.x1 && !self.tight_x.owns(tx, b.x1.max(query.x1)))
                        || (ty != span.y1 && !self.tight_y.owns(ty, b.y1.max(query.y1)))
                        || cell.head == NONE
                    {
                        continue;
                    }
                    self.prefetch_list(cell.head);
                    if found.is_full() {
                        self.walk_lists(&found, query, omit, &mut visit)?;
                        found.clear();
                    }
                    found.push(cell.head);
                }
            }
        }
        self.walk_lists(&found, query, omit, &mut visit)
    }

    /// Asks for the first slots of a list: a batch gives a cell's elements
    /// consecutive slots, so its first few lines hold most of the list.
    #[inline(always)]
    pub(crate) fn prefetch_list(&self, head: u32) {
        if let Some(run) = self.slots.slots.get(head as usize..head as usize + 7) {
            for slot in run.iter().step_by(2) {
                prefetch(slot);
            }
        }
    }

    /// The elements of the lists starting at `heads` meeting `query`, but `omit`.
    #[inline]
    fn walk_lists<F>(
        &self,
        heads: &[u32],
        query: &Rect,
        omit: u32,
        visit: &mut F,
    ) -> ControlFlow<()>
    where
        F: FnMut(u32, &Slot) -> ControlFlow<()>,
    {
        // A slice, not a `&Vec`: its address stays in a register across
        // `visit` (see `LooseQuadtree::leaves_meeting`).
        let slots = self.slots.slots.as_slice();
        for &head in heads {
            let mut at = head;
            while at != NONE {
                let slot = &slots[at as usize];
                if slot.rect.intersects(query) && at != omit {
                    visit(at, slot)?;
                }
                at = slot.next;
            }
        }
        ControlFlow::Continue(())
    }

    /// Elements holding the finite point `(x, y)`, but slot `omit`: the loose
    /// cells listed in the one tight cell owning the point.
    pub(crate) fn query_at<F>(&self, [x, y]: [f32; 2], omit: u32, mut visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        let (tx, ty) = (self.tight_x.cell(x), self.tight_y.cell(y));
        // Slices taken once, whose addresses stay in registers across `visit`.
        let (slots, links, cells) = (
            self.slots.slots.as_slice(),
            self.links.links.as_slice(),
            self.cells.as_slice(),
        );
        let mut link = self.tight[(ty * self.tight_columns + tx) as usize];
        while link != NONE {
            let Link { next, element } = links[link as usize];
            link = next;
            let cell = &cells[element as usize];
            if !cell.rect.contains_point(x, y) {
                continue;
            }
            let mut at = cell.head;
            while at != NONE {
                let slot = &slots[at as usize];
                if slot.rect.contains_point(x, y) && at != omit {
                    visit(self.slots.handle(at))?;
                }
                at = slot.next;
            }
        }
        self.big.query(
            &Rect::point(x, y),
            omit,
            |slot| slots[slot as usize].rect,
            |slot| self.slots.handle(slot),
            &mut visit,
        )
    }

    /// The search's hierarchy over the tight cells (see [`CellRanges`]).
    fn ranges(&self) -> CellRanges<'_> {
        CellRanges {
            x: &self.tight_x,
            y: &self.tight_y,
        }
    }

    /// The search's roots: all the tight cells as one range, and the big
    /// elements.
    pub(crate) fn search_top(&self, push: &mut impl FnMut(SearchItem<Rect>)) {
        push(self.ranges().root(0));
        for &slot in &self.big.slots {
            push(SearchItem::Element(slot));
        }
    }

    /// A range's halves; a tight cell's loose cells (tagged [`LOOSE`], with
    /// the boxes that hold their elements); a loose cell's elements.
    pub(crate) fn search_below(&self, id: u128, push: &mut impl FnMut(SearchItem<Rect>)) {
        if id & LOOSE != 0 {
            let mut at = self.cells[id as u32 as usize].head;
            while at != NONE {
                push(SearchItem::Element(at));
                at = self.slots.slots[at as usize].next;
            }
            return;
        }
        if let Some((tx, ty)) = self.ranges().expand(id, 0, push) {
            let mut link = self.tight[(ty * self.tight_columns + tx) as usize];
            while link != NONE {
                let Link { next, element } = self.links.links[link as usize];
                let cell = &self.cells[element as usize];
                if cell.head != NONE {
                    push(SearchItem::Node(LOOSE | u128::from(element), cell.rect));
                }
                link = next;
            }
        }
    }
}

/// The tag of a loose cell's search node (a tight range's is 0).
const LOOSE: u128 = 1 << 64;
