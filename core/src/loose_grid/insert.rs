//! Adding elements: pushing onto a loose cell's list, growing its box, and
//! listing the cell in the tight cells the box newly covers.

use crate::batch_order::{insert_by_key, SORTED_BATCH};
use crate::index::finish_moves::refile_around_slots;
use crate::loose_grid::{holds, is_empty_box, union, LooseGrid, Span};
use crate::slots::NONE;
use crate::{Handle, Rect};

impl LooseGrid {
    /// Adds an element: room checked, `rect` valid.
    pub(crate) fn insert_one(&mut self, rect: Rect, id: u32) -> Handle {
        let slot = self.slots.alloc(rect, id);
        self.file(slot, rect);
        self.slots.handle(slot)
    }

    /// Files a slot holding `rect`: in the big list, or its loose cell.
    fn file(&mut self, slot: u32, rect: Rect) {
        if self.is_big(&rect) {
            self.big.add(slot);
        } else {
            let cell = self.home(&rect);
            self.push_in_order(cell, slot);
            self.grow(cell, &rect);
        }
    }

    /// Files every live element anew into empty cells, after a panic left
    /// them unknown (`index::finish_moves`).
    pub(crate) fn refile_all(&mut self) {
        refile_around_slots(self, Self::reset, Self::file);
    }

    /// Adds a checked batch. Big batches go in cell order, so that the
    /// elements of a cell get consecutive slots: walks over the cells (pairs,
    /// queries, cleanup) then read the slot array nearly in order.
    pub(crate) fn insert_batch(&mut self, rects: &[Rect], ids: &[u32], handles: &mut Vec<Handle>) {
        self.slots.reserve(rects.len());
        handles.reserve(rects.len());
        if rects.len() < SORTED_BATCH {
            for (&rect, &id) in rects.iter().zip(ids) {
                handles.push(self.insert_one(rect, id));
            }
            return;
        }
        // Sorted by loose cell: each cell's elements get one run of slots, in
        // the order cleanup walks them (sorting by tight cell first measured
        // no faster for the pair walk).
        let cells = self.cells.len() as u32;
        let keys: Vec<u32> = rects
            .iter()
            .map(|rect| {
                if self.is_big(rect) {
                    cells
                } else {
                    self.home(rect)
                }
            })
            .collect();
        // Slots first, in order (fresh slots ascending); then each cell's run
        // is merged into its list, which is kept in slot order.
        let mut slots: Vec<u32> = Vec::with_capacity(rects.len());
        let order = insert_by_key(
            &keys,
            u64::from(cells) + 1,
            (rects, ids),
            handles,
            |_| {},
            |_, rect, id| {
                let slot = self.slots.alloc(rect, id);
                slots.push(slot);
                self.slots.handle(slot)
            },
        );
        let mut run = 0;
        while run < order.len() {
            let key = keys[order[run] as usize];
            let end = run
                + order[run..]
                    .iter()
                    .take_while(|&&at| keys[at as usize] == key)
                    .count();
            if key == cells {
                for &slot in &slots[run..end] {
                    self.big.add(slot);
                }
            } else {
                let cell = key;
                let mut grown = self.cells[cell as usize].rect;
                for &slot in &slots[run..end] {
                    grown = union(&grown, &self.slots.slots[slot as usize].rect);
                }
                self.merge_run(cell, &mut slots[run..end]);
                self.set_box(cell, grown);
            }
            run = end;
        }
    }

    /// Merges slots, sorted here, into a loose cell's list (in slot order).
    fn merge_run(&mut self, cell: u32, run: &mut [u32]) {
        run.sort_unstable();
        let slots = &mut self.slots.slots;
        let mut existing = self.cells[cell as usize].head;
        let (mut head, mut last) = (NONE, NONE);
        let mut taken = 0;
        loop {
            let slot = if taken < run.len() && (existing == NONE || run[taken] < existing) {
                taken += 1;
                run[taken - 1]
            } else if existing != NONE {
                let slot = existing;
                existing = slots[slot as usize].next;
                slot
            } else {
                break;
            };
            if last == NONE {
                head = slot;
            } else {
                slots[last as usize].next = slot;
            }
            last = slot;
        }
        if last != NONE {
            slots[last as usize].next = NONE;
        }
        self.cells[cell as usize].head = head;
    }

    /// Puts a slot into a loose cell's list in slot order. Lists kept in slot
    /// order walk forward through memory, mostly through the consecutive
    /// slots a batch gave the cell, which queries fetch ahead.
    #[inline]
    pub(crate) fn push_in_order(&mut self, cell: u32, slot: u32) {
        let slots = &mut self.slots.slots;
        let head = &mut self.cells[cell as usize].head;
        if *head == NONE || *head > slot {
            slots[slot as usize].next = *head;
            *head = slot;
            return;
        }
        let mut at = *head;
        loop {
            let next = slots[at as usize].next;
            if next == NONE || next > slot {
                slots[slot as usize].next = next;
                slots[at as usize].next = slot;
                return;
            }
            at = next;
        }
    }

    /// Grows a loose cell's box to hold `rect`, listing the cell in the tight
    /// cells it newly covers.
    #[inline]
    pub(crate) fn grow(&mut self, cell: u32, rect: &Rect) {
        let old = self.cells[cell as usize].rect;
        if !holds(&old, rect) {
            self.set_box(cell, union(&old, rect));
        }
    }

    /// Replaces a loose cell's box by a larger one (or the same), listing the
    /// cell in the tight cells the new box covers and the old one did not.
    pub(crate) fn set_box(&mut self, cell: u32, grown: Rect) {
        let old = self.cells[cell as usize].rect;
        self.cells[cell as usize].rect = grown;
        if is_empty_box(&old) {
            let span = self.span(&grown);
            self.list_in(cell, &span, None);
            return;
        }
        if self.same_span(&old, &grown) {
            return;
        }
        let new = self.span(&grown);
        let old = self.span_beside(&old, &grown, &new);
        self.list_in(cell, &new, Some(&old));
    }

    /// Whether two boxes cover the same tight cells. Most growths and shrinks
    /// move a side by a fraction of a cell and stay in the same tight cell, so
    /// only the sides that moved are looked up.
    #[inline]
    pub(crate) fn same_span(&self, a: &Rect, b: &Rect) -> bool {
        let same = |axis: &crate::axis::Axis, from: f32, to: f32| {
            from == to || axis.owns(axis.cell(from), to)
        };
        same(&self.tight_x, a.x1, b.x1)
            && same(&self.tight_x, a.x2, b.x2)
            && same(&self.tight_y, a.y1, b.y1)
            && same(&self.tight_y, a.y2, b.y2)
    }

    /// The span of box `old`, given the span `known` of box `other`: the sides
    /// the two boxes share are not looked up again.
    #[inline]
    pub(crate) fn span_beside(&self, old: &Rect, other: &Rect, known: &Span) -> Span {
        let pick = |same: bool, known: u32, axis: &crate::axis::Axis, v: f32| {
            if same {
                known
            } else {
                axis.cell(v)
            }
        };
        Span {
            x1: pick(old.x1 == other.x1, known.x1, &self.tight_x, old.x1),
            y1: pick(old.y1 == other.y1, known.y1, &self.tight_y, old.y1),
            x2: pick(old.x2 == other.x2, known.x2, &self.tight_x, old.x2),
            y2: pick(old.y2 == other.y2, known.y2, &self.tight_y, old.y2),
        }
    }

    /// Lists a loose cell in the tight cells of `span` outside `except`.
    fn list_in(&mut self, cell: u32, span: &Span, except: Option<&Span>) {
        for ty in span.y1..=span.y2 {
            for tx in span.x1..=span.x2 {
                if except.is_some_and(|old| old.contains(tx, ty)) {
                    continue;
                }
                let tight = (ty * self.tight_columns + tx) as usize;
                // Grow the links by an eighth, not double: listings are
                // counted in the memory per element.
                let pool = &mut self.links;
                if pool.free == NONE && pool.links.len() == pool.links.capacity() {
                    let more = (pool.links.len() / 8).max(64);
                    crate::huge_pages::reserve_exact(&mut pool.links, more);
                }
                self.tight[tight] = pool.alloc(cell, self.tight[tight]);
            }
        }
    }
}
