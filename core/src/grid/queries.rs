//! Queries: by rectangle and by point.

use core::ops::ControlFlow;

use crate::grid::{Grid, Span};
use crate::index::raw::{Pieces, SearchItem, PREFETCH_AHEAD};
use crate::index::search::CellRanges;
use crate::links::Link;
use crate::slots::{prefetch, NONE};
use crate::{Handle, Rect};

/// Elements a thread from which the grid's bulk queries pay for the spatial
/// order ([`Structure::spatial_order_from`](crate::index::raw::Structure::spatial_order_from)).
/// Below, its runs sit in the caches, and the order's serial sort and passes
/// (about 30 ms a million queries) are the whole difference: 1M rect queries of
/// side 4 over uniform agents of side 4, 2 vCPUs, medians of 9, ordered against
/// not, 1 / 2 threads: 100,000 elements 94 / 75 ms against 63 / 37; 200,000 94 /
/// 76 against 75 / 40; 300,000 95 / 79 against 107 / 49; 500,000 97 / 82 against
/// 164 / 69; 1,000,000 99 / 78 against 203 / 94. (0 in the crate's unit tests,
/// so that the grid's bulk queries there take the ordered path too.)
const SPATIAL_ORDER_FROM: usize = if cfg!(test) { 0 } else { 250_000 };

impl Grid {
    /// [`SPATIAL_ORDER_FROM`] elements for each thread of rayon's pool: the
    /// order's own passes are serial, the queries are not.
    pub(crate) fn spatial_order_from(&self) -> usize {
        #[cfg(feature = "rayon")]
        let threads = rayon::current_num_threads();
        #[cfg(not(feature = "rayon"))]
        let threads = 1;
        SPATIAL_ORDER_FROM * threads
    }

    /// Elements meeting the checked `rect`, each once, but slot `omit`: the
    /// cells the rectangle meets, then the big list.
    pub(crate) fn query_rect<F>(&self, rect: Rect, omit: u32, visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        self.query_span(rect, self.span(&rect), omit, visit)
    }

    /// The other elements meeting a live slot's rectangle: a query whose cells
    /// are known already.
    pub(crate) fn neighbours<F>(&self, slot: u32, visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        let record = &self.slots.slots[slot as usize];
        self.query_span(record.rect, Span::unpack(record.cells), slot, visit)
    }

    /// [`query_rect`](Grid::query_rect) of `rect`, whose cells are `span`.
    #[inline]
    fn query_span<F>(&self, rect: Rect, span: Span, omit: u32, mut visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        if span.cells() > self.slots.slots.len() as u64 {
            // More cells than slots (a query far larger than the cells): a scan
            // of the slots is cheaper, and finds the big elements too.
            return self.scan_slots(&rect, omit, false, &mut visit);
        }
        if self.packed.fresh {
            self.query_runs(&rect, span, omit, &mut visit)?;
        } else {
            self.query_cells(&rect, span, omit, &mut visit)?;
        }
        self.big.query(
            &rect,
            omit,
            |slot| self.slots.slots[slot as usize].rect,
            |slot| self.slots.handle(slot),
            &mut visit,
        )
    }

    /// The elements linked in the cells of `span` (the span of `rect`, which
    /// may be big) that meet `rect`, each once, but slot `omit`.
    ///
    /// A hit is reported in the cell owning the top-left corner of the
    /// intersection, `(max(e.x1, q.x1), max(e.y1, q.y1))`. Both rectangles meet
    /// that cell, and every cell that both meet ends at or after the corner, so
    /// column `cx` owns the corner exactly when it is the query's first column
    /// or the element starts inside it (the same for rows): one test per axis,
    /// none in the query's first row and column.
    #[inline]
    pub(crate) fn query_cells<F>(
        &self,
        rect: &Rect,
        span: Span,
        omit: u32,
        visit: &mut F,
    ) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        let (links, slots) = (&self.links.links, &self.slots.slots);
        let columns = self.columns() as usize;
        for cy in span.y1..=span.y2 {
            let first_row = cy == span.y1;
            let row = cy as usize * columns;
            for cx in span.x1..=span.x2 {
                let first_column = cx == span.x1;
                let mut link = self.cells[row + cx as usize];
                while link != NONE {
                    let Link { next, element } = links[link as usize];
                    let r = &slots[element as usize].rect;
                    if (element != omit)
                        & r.intersects(rect)
                        & (first_column || self.axis_x.owns(cx, r.x1))
                        & (first_row || self.axis_y.owns(cy, r.y1))
                        && visit(self.slots.handle(element)).is_break()
                    {
                        return ControlFlow::Break(());
                    }
                    link = next;
                }
            }
        }
        ControlFlow::Continue(())
    }

    /// Every live element meeting `rect` but slot `omit`, in slot order; only
    /// those in cells if `small_only`.
    pub(crate) fn scan_slots<F>(
        &self,
        rect: &Rect,
        omit: u32,
        small_only: bool,
        visit: &mut F,
    ) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        for (index, slot) in self.slots.slots.iter().enumerate() {
            if self.slots.is_live(index as u32)
                && index as u32 != omit
                && slot.rect.intersects(rect)
                && !(small_only && self.is_big(&Span::unpack(slot.cells)))
            {
                visit(self.slots.handle(index as u32))?;
            }
        }
        ControlFlow::Continue(())
    }

    /// Stages ahead of `overlapping_many`, each reading what the one before
    /// fetched: the slot of a handle far ahead, the first cell of a nearer one
    /// (its slot has arrived), then that cell's first link, then the link's
    /// element and next link. Always inlined into the batch's loop: left to
    /// the inliner, it was inlined in one build and called per query in the
    /// next, an unrelated change apart.
    #[inline(always)]
    pub(crate) fn prefetch_neighbours(&self, handles: &[Handle], index: usize) {
        if let Some(&ahead) = handles.get(index + PREFETCH_AHEAD) {
            self.slots.prefetch(ahead);
        }
        if self.packed.fresh {
            return self.prefetch_runs(handles, index);
        }
        let first_cell = |at: usize| {
            let slot = self.slots.slots.get(handles.get(at)?.slot() as usize)?;
            let [x1, y1, ..] = slot.cells;
            self.cells.get(self.cell_index(x1.into(), y1.into()))
        };
        if let Some(head) = first_cell(index + PREFETCH_AHEAD * 3 / 4) {
            prefetch(head);
        }
        if let Some(&head) = first_cell(index + PREFETCH_AHEAD / 2) {
            if let Some(link) = self.links.links.get(head as usize) {
                prefetch(link);
            }
        }
        if let Some(&head) = first_cell(index + PREFETCH_AHEAD / 4) {
            if let Some(link) = self.links.links.get(head as usize) {
                if let Some(slot) = self.slots.slots.get(link.element as usize) {
                    prefetch(slot);
                }
                if let Some(next) = self.links.links.get(link.next as usize) {
                    prefetch(next);
                }
            }
        }
    }

    /// A ray's or a box cast's first hit is found by rectangle queries over
    /// pieces of its path a cell long: each scans a few runs, where the
    /// best-first descent over the cell ranges computes and orders some
    /// thirty node keys.
    pub(crate) fn ray_pieces(&self) -> Option<Pieces> {
        Some(Pieces::cells(f64::from(
            self.cell_width().min(self.cell_height()),
        )))
    }

    /// Nearest searches try squares first, for any `k`: a square about the
    /// point reads a few runs, where the descent over the cell ranges orders
    /// some thirty node keys (uniform-100k, k = 1: 2.7× faster, k = 32: 1.6×;
    /// clustered-100k's crowds 1.9–3.6×).
    pub(crate) fn nearest_squares(&self, _k: usize) -> bool {
        true
    }

    /// Elements holding the finite point `(x, y)`, but slot `omit`: a point
    /// lies in exactly one cell, and every small element holding it is linked
    /// there.
    pub(crate) fn query_at<F>(&self, [x, y]: [f32; 2], omit: u32, mut visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        let (cx, cy) = (self.axis_x.cell(x), self.axis_y.cell(y));
        if self.packed.fresh {
            self.point_run([cx, cy], [x, y], omit, &mut visit)?;
            return self.big.query(
                &Rect::point(x, y),
                omit,
                |slot| self.slots.slots[slot as usize].rect,
                |slot| self.slots.handle(slot),
                &mut visit,
            );
        }
        let mut link = self.cells[self.cell_index(cx, cy)];
        while link != NONE {
            let Link { next, element } = self.links.links[link as usize];
            if element != omit
                && self.slots.slots[element as usize].rect.contains_point(x, y)
                && visit(self.slots.handle(element)).is_break()
            {
                return ControlFlow::Break(());
            }
            link = next;
        }
        self.big.query(
            &Rect::point(x, y),
            omit,
            |slot| self.slots.slots[slot as usize].rect,
            |slot| self.slots.handle(slot),
            &mut visit,
        )
    }

    /// The search's hierarchy: ranges of cells (see [`CellRanges`]).
    fn ranges(&self) -> CellRanges<'_> {
        CellRanges {
            x: &self.axis_x,
            y: &self.axis_y,
        }
    }

    /// The search's roots: all the cells as one range, and the big elements.
    pub(crate) fn search_top(&self, push: &mut impl FnMut(SearchItem<Rect>)) {
        push(self.ranges().root(0));
        for &slot in &self.big.slots {
            push(SearchItem::Element(slot));
        }
    }

    /// A range's halves, or a single cell's elements: its list, or while the
    /// lists are stale the runs ([`cell_runs`](Grid::cell_runs)). The runs only
    /// then: a cell's elements from them are those of the runs within the
    /// reach before it, tested, and searches read them 20–35% slower than
    /// the list (static uniform-100k, nearest k = 10 and first ray hits).
    pub(crate) fn search_below(&self, id: u128, push: &mut impl FnMut(SearchItem<Rect>)) {
        if let Some((cx, cy)) = self.ranges().expand(id, 0, push) {
            if self.lists_stale {
                return self.cell_runs([cx, cy], |slot| push(SearchItem::Element(slot)));
            }
            let mut link = self.cells[(cy * self.axis_x.cells() + cx) as usize];
            while link != NONE {
                let Link { next, element } = self.links.links[link as usize];
                push(SearchItem::Element(element));
                link = next;
            }
        }
    }
}
