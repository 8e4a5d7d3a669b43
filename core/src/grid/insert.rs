//! Adding elements: linking into every cell of the rectangle, or into the big
//! list; big batches in cell order.

use crate::grid::packed::running_sums;
use crate::grid::{Grid, Span};
use crate::slots::prefetch;
use crate::{Handle, Rect};

/// Batches at least this big are inserted in cell order.
const SORTED_BATCH: usize = 256;

impl Grid {
    /// Adds an element: room checked, `rect` valid.
    pub(crate) fn insert_one(&mut self, rect: Rect, id: u32) -> Handle {
        self.relist();
        self.insert_in(rect, id, self.span(&rect))
    }

    /// Adds an element whose rectangle meets the cells of `span`.
    #[inline]
    fn insert_in(&mut self, rect: Rect, id: u32, span: Span) -> Handle {
        self.packed.stale();
        let slot = self.slots.alloc(rect, id);
        self.slots.slots[slot as usize].cells = span.pack();
        self.link(slot, span);
        self.slots.handle(slot)
    }

    /// Adds a checked batch; big batches in cell order.
    pub(crate) fn insert_batch(&mut self, rects: &[Rect], ids: &[u32], handles: &mut Vec<Handle>) {
        self.relist();
        self.slots.reserve(rects.len());
        handles.reserve(rects.len());
        if rects.len() < SORTED_BATCH {
            for (&rect, &id) in rects.iter().zip(ids) {
                handles.push(self.insert_one(rect, id));
            }
            return;
        }
        // Insert in the order the pair walk meets the elements (row by row, by
        // the cell of their top-left corner), so that elements close in space
        // get slots close in memory: walks over the cells then read the slot
        // array nearly in order. Big elements, in no cell, come last.
        let spans: Vec<Span> = rects.iter().map(|rect| self.span(rect)).collect();
        let order = self.cell_order(&spans);
        let start = handles.len();
        handles.resize(start + rects.len(), Handle::from_raw(0));
        // The rectangles, ids, spans and handles are read and written out of
        // order: the gather misses the cache at every element unless loaded ahead.
        const AHEAD: usize = 16;
        for (at, &index) in order.iter().enumerate() {
            if let Some(&ahead) = order.get(at + AHEAD) {
                let ahead = ahead as usize;
                prefetch(&rects[ahead]);
                prefetch(&ids[ahead]);
                prefetch(&spans[ahead]);
                prefetch(&handles[start + ahead]);
            }
            let index = index as usize;
            handles[start + index] = self.insert_in(rects[index], ids[index], spans[index]);
        }
        // A bulk build (`from_many`, a static world) is laid out at once.
        self.pack_cells();
    }

    /// The positions of `spans` by the cell of their top-left corner (big ones
    /// last), in order of position within a cell: by counting sort when the
    /// grid has no more than a few cells per element, else by sorting keys.
    fn cell_order(&self, spans: &[Span]) -> Vec<u32> {
        let cells = self.cells.len();
        let key = |span: &Span| {
            if self.is_big(span) {
                cells
            } else {
                self.cell_index(span.x1, span.y1)
            }
        };
        if cells <= 4 * spans.len() {
            counting_order(spans, cells + 1, key)
        } else {
            sorted_order(spans, key)
        }
    }

    /// Links the element in `slot` into the cells of `span`, or into the big
    /// list if the span is big.
    #[inline]
    pub(crate) fn link(&mut self, slot: u32, span: Span) {
        if self.is_big(&span) {
            self.big.add(slot);
        } else {
            self.link_cells(slot, span, None);
        }
    }

    /// Links the element in `slot` into the cells of the small `span`, but those
    /// of `skip` (cells it is linked in already).
    #[inline]
    pub(crate) fn link_cells(&mut self, slot: u32, span: Span, skip: Option<Span>) {
        for cy in span.y1..=span.y2 {
            for cx in span.x1..=span.x2 {
                if skip.is_some_and(|skip| skip.contains(cx, cy)) {
                    continue;
                }
                let cell = self.cell_index(cx, cy);
                self.cells[cell] = self.links.alloc(slot, self.cells[cell]);
            }
        }
    }
}

/// The positions of `items` by `key` (below `keys`), then by position: by
/// counting sort, O(items + keys).
fn counting_order<T>(items: &[T], keys: usize, key: impl Fn(&T) -> usize) -> Vec<u32> {
    let mut ends = vec![0u32; keys];
    for item in items {
        ends[key(item)] += 1;
    }
    running_sums(&mut ends);
    // Filled from the end, the positions in reverse: each key's positions
    // then come in increasing order.
    let mut order = vec![0u32; items.len()];
    for (index, item) in items.iter().enumerate().rev() {
        let end = &mut ends[key(item)];
        *end -= 1;
        order[*end as usize] = index as u32;
    }
    order
}

/// [`counting_order`] by one sort of (key, position) words.
fn sorted_order<T>(items: &[T], key: impl Fn(&T) -> usize) -> Vec<u32> {
    let mut keyed: Vec<u64> = items
        .iter()
        .enumerate()
        .map(|(index, item)| (key(item) as u64) << 32 | index as u64)
        .collect();
    keyed.sort_unstable();
    keyed.into_iter().map(|word| word as u32).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counting_and_sorting_give_one_order() {
        let mut state = 7u32;
        let keys: Vec<usize> = (0..5000)
            .map(|_| {
                state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (state >> 20) as usize % 300
            })
            .collect();
        let by_counting = counting_order(&keys, 300, |&k| k);
        assert_eq!(by_counting, sorted_order(&keys, |&k| k));
        assert!(by_counting
            .windows(2)
            .all(|w| (keys[w[0] as usize], w[0]) < (keys[w[1] as usize], w[1])));
    }
}
