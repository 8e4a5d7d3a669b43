//! Queries: by rectangle, by point, and every overlapping pair.

use core::ops::ControlFlow;

use arrayvec::ArrayVec;

use crate::cell::{point_child, unpack_place, Cell, Region, Stack};
use crate::pool::{prefetch, Link, Slot, NONE};
use crate::tree::{check_rect, home_leaves, PREFETCH_AHEAD};
use crate::{Error, Handle, Quadtree, Rect};

impl Quadtree {
    /// Fills `hits` (cleared first) with the handles of the elements whose closed
    /// rectangle intersects the closed rectangle `rect`, each once, leaving out
    /// `omit`. `hits` keeps its capacity, so a reused `Vec` stops allocating.
    ///
    /// # Errors
    /// [`Error::InvalidRect`] for a bad `rect`, [`Error::InvalidHandle`] for an
    /// `omit` that is not live; `hits` is then left empty.
    pub fn query(
        &self,
        rect: Rect,
        omit: Option<Handle>,
        hits: &mut Vec<Handle>,
    ) -> Result<(), Error> {
        hits.clear();
        self.query_with(rect, omit, |handle| {
            hits.push(handle);
            ControlFlow::Continue(())
        })
        .map(|_| ())
    }

    /// Calls `visit` with each element whose closed rectangle intersects `rect`,
    /// each once, leaving out `omit`; `visit` returns [`ControlFlow::Break`] to
    /// stop early, and the call returns how the walk ended.
    ///
    /// ```
    /// use core::ops::ControlFlow;
    /// use flatquad::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 10.0, 10.0), 8, 4)?;
    /// for i in 0..5 {
    ///     tree.insert(Rect::point(i as f32, 1.0), i)?;
    /// }
    /// let mut first = None;
    /// tree.query_with(Rect::new(0.0, 0.0, 10.0, 10.0), None, |h| {
    ///     first = Some(h);
    ///     ControlFlow::Break(())
    /// })?;
    /// assert!(first.is_some());
    /// # Ok::<(), flatquad::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`query`](Quadtree::query); `visit` is then never called.
    pub fn query_with<F>(
        &self,
        rect: Rect,
        omit: Option<Handle>,
        visit: F,
    ) -> Result<ControlFlow<()>, Error>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        check_rect(rect)?;
        let omit = match omit {
            Some(handle) => self.slots.lookup(handle)?,
            None => NONE,
        };
        Ok(self.query_checked(rect, omit, visit))
    }

    /// [`query_with`](Quadtree::query_with) once `rect` and the omitted slot
    /// (`NONE` for none) have been checked.
    pub(crate) fn query_checked<F>(&self, rect: Rect, omit: u32, mut visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        // Straight down while the query picks one child, then depth-first.
        let mut stack = Stack::new();
        let (top, node, mask) = self.descend(&rect);
        if mask == 0 {
            stack.push(top);
        } else {
            self.push_children(&mut stack, &top, node.first, mask);
        }
        while let Some(cell) = stack.pop() {
            let node = self.nodes.nodes[cell.node as usize];
            if node.is_branch() {
                self.push_children(&mut stack, &cell, node.first, self.mask_at(&cell, &rect));
                continue;
            }
            let region = self.grid.region(&cell);
            let mut link = node.first;
            while link != NONE {
                let Link { next, element } = self.links.links[link as usize];
                let slot = &self.slots.slots[element as usize];
                if element != omit
                    && slot.rect.intersects(&rect)
                    && region.owns_intersection(&slot.rect, &rect)
                    && visit(self.slots.handle(element)).is_break()
                {
                    return ControlFlow::Break(());
                }
                link = next;
            }
        }
        ControlFlow::Continue(())
    }

    /// Fills `hits` (cleared first) with the other elements whose closed rectangle
    /// intersects this element's: the same as [`query`](Quadtree::query) with the
    /// element's rectangle, omitting it, but usually without a descent, for the
    /// element knows its leaves.
    ///
    /// # Errors
    /// [`Error::InvalidHandle`] if `handle` is not live.
    pub fn overlapping(&self, handle: Handle, hits: &mut Vec<Handle>) -> Result<(), Error> {
        hits.clear();
        self.overlapping_with(handle, |other| {
            hits.push(other);
            ControlFlow::Continue(())
        })
        .map(|_| ())
    }

    /// Calls `visit` with each other element whose closed rectangle intersects
    /// this element's, until `visit` breaks (see [`overlapping`](Quadtree::overlapping)).
    ///
    /// ```
    /// use core::ops::ControlFlow;
    /// use flatquad::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 64.0, 64.0), 8, 4)?;
    /// let a = tree.insert(Rect::new(1.0, 1.0, 3.0, 3.0), 0)?;
    /// let b = tree.insert(Rect::new(3.0, 3.0, 5.0, 5.0), 1)?;
    /// tree.insert(Rect::new(9.0, 9.0, 10.0, 10.0), 2)?;
    /// let mut near = Vec::new();
    /// tree.overlapping(a, &mut near)?;
    /// assert_eq!(near, [b]);
    /// # Ok::<(), flatquad::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`overlapping`](Quadtree::overlapping); `visit` is then never called.
    pub fn overlapping_with<F>(&self, handle: Handle, visit: F) -> Result<ControlFlow<()>, Error>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        let element = self.slots.lookup(handle)?;
        Ok(self.overlapping_checked(element, visit))
    }

    /// [`overlapping_with`](Quadtree::overlapping_with) for a live slot.
    fn overlapping_checked<F>(&self, element: u32, mut visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        let Slot {
            rect, place, home, ..
        } = self.slots.slots[element as usize];
        if home == NONE {
            return self.query_checked(rect, element, visit);
        }
        // The element's leaves are exactly the leaves a query with its rectangle
        // visits; the place gives their cells, for the corner rule.
        let (depth, x0, y0, wx, wy) = unpack_place(place);
        for leaf in home_leaves(place, home, &self.nodes.nodes) {
            let region = if wx == 1 && wy == 1 {
                None // one leaf holds the whole rectangle, so every corner
            } else {
                let k = leaf - self.nodes.nodes[home as usize].first;
                let cell = Cell {
                    node: leaf,
                    depth,
                    ix: (x0 & !1) + (k & 1),
                    iy: (y0 & !1) + (k >> 1),
                };
                Some(self.grid.region(&cell))
            };
            let mut link = self.nodes.nodes[leaf as usize].first;
            while link != NONE {
                let Link {
                    next,
                    element: other,
                } = self.links.links[link as usize];
                let slot = &self.slots.slots[other as usize];
                if other != element
                    && slot.rect.intersects(&rect)
                    && region.is_none_or(|r| r.owns_intersection(&slot.rect, &rect))
                    && visit(self.slots.handle(other)).is_break()
                {
                    return ControlFlow::Break(());
                }
                link = next;
            }
        }
        ControlFlow::Continue(())
    }

    /// Fills `hits` (cleared first) with the elements whose closed rectangle holds
    /// the point `(x, y)`, leaving out `omit`.
    ///
    /// # Errors
    /// [`Error::InvalidPoint`] for a NaN or infinite coordinate,
    /// [`Error::InvalidHandle`] for an `omit` that is not live.
    pub fn query_point(
        &self,
        x: f32,
        y: f32,
        omit: Option<Handle>,
        hits: &mut Vec<Handle>,
    ) -> Result<(), Error> {
        hits.clear();
        self.query_point_with(x, y, omit, |handle| {
            hits.push(handle);
            ControlFlow::Continue(())
        })
        .map(|_| ())
    }

    /// Calls `visit` with each element whose closed rectangle holds `(x, y)`,
    /// leaving out `omit`, until `visit` breaks.
    ///
    /// # Errors
    /// As [`query_point`](Quadtree::query_point).
    pub fn query_point_with<F>(
        &self,
        x: f32,
        y: f32,
        omit: Option<Handle>,
        mut visit: F,
    ) -> Result<ControlFlow<()>, Error>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        if !(x.is_finite() && y.is_finite()) {
            return Err(Error::InvalidPoint { x, y });
        }
        let omit = match omit {
            Some(handle) => self.slots.lookup(handle)?,
            None => NONE,
        };
        // A point belongs to exactly one leaf, and so does every element holding it.
        let mut cell = Cell::ROOT;
        let mut node = self.nodes.nodes[0];
        while node.is_branch() {
            let (cx, cy) = self.grid.split(&cell);
            cell = cell.child(node.first, point_child(cx, cy, x, y));
            node = self.nodes.nodes[cell.node as usize];
        }
        let mut link = node.first;
        while link != NONE {
            let Link { next, element } = self.links.links[link as usize];
            if element != omit
                && self.slots.slots[element as usize].rect.contains_point(x, y)
                && visit(self.slots.handle(element)).is_break()
            {
                return Ok(ControlFlow::Break(()));
            }
            link = next;
        }
        Ok(ControlFlow::Continue(()))
    }

    /// Runs one query per rectangle and gives the results in compressed rows:
    /// the hits of `rects[i]` are `hits[offsets[i]..offsets[i + 1]]`, each row in
    /// no particular order. `omit`, if given, holds one handle per rectangle to
    /// leave out of its row (the querying element, say). Both vectors are
    /// cleared first and keep their capacity.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] if `omit` is not as long as `rects`; the first
    /// bad rectangle or omitted handle inside [`Error::InBatch`]. Nothing is
    /// written then.
    pub fn query_many(
        &self,
        rects: &[Rect],
        omit: Option<&[Handle]>,
        offsets: &mut Vec<usize>,
        hits: &mut Vec<Handle>,
    ) -> Result<(), Error> {
        self.check_query_many(rects, omit)?;
        offsets.clear();
        hits.clear();
        offsets.reserve(rects.len() + 1);
        offsets.push(0);
        let mut counts = core::mem::take(offsets);
        self.query_each(rects, omit, &mut counts, hits);
        // `counts` is [0, n0, n1, ...]: turn it into running sums in place.
        for i in 1..counts.len() {
            counts[i] += counts[i - 1];
        }
        *offsets = counts;
        Ok(())
    }

    /// [`overlapping`](Quadtree::overlapping) for each handle, in compressed rows
    /// as [`query_many`](Quadtree::query_many) gives them: the neighbours of
    /// `handles[i]` are `hits[offsets[i]..offsets[i + 1]]`. The per-agent query of
    /// a collision loop in one call.
    ///
    /// # Errors
    /// The first handle that is not live, inside [`Error::InBatch`]; nothing is
    /// written then.
    pub fn overlapping_many(
        &self,
        handles: &[Handle],
        offsets: &mut Vec<usize>,
        hits: &mut Vec<Handle>,
    ) -> Result<(), Error> {
        for (index, &handle) in handles.iter().enumerate() {
            self.slots.lookup(handle).map_err(|e| e.in_batch(index))?;
        }
        offsets.clear();
        hits.clear();
        offsets.reserve(handles.len() + 1);
        offsets.push(0);
        for (index, &handle) in handles.iter().enumerate() {
            // Two stages ahead: the slot of a handle far ahead, then, once that
            // slot has arrived, the home leaf of a nearer one.
            if let Some(&ahead) = handles.get(index + PREFETCH_AHEAD) {
                self.slots.prefetch(ahead);
            }
            if let Some(&near) = handles.get(index + PREFETCH_AHEAD / 2) {
                let home = self.slots.slots[near.slot() as usize].home;
                if let Some(node) = self.nodes.nodes.get(home as usize) {
                    prefetch(node);
                    if !node.is_branch() {
                        if let Some(link) = self.links.links.get(node.first as usize) {
                            prefetch(link);
                        }
                    }
                }
            }
            // Checked above: no second look-up per element.
            let _ = self.overlapping_checked(handle.slot(), |other| {
                hits.push(other);
                ControlFlow::Continue(())
            });
            offsets.push(hits.len());
        }
        Ok(())
    }

    pub(crate) fn check_query_many(
        &self,
        rects: &[Rect],
        omit: Option<&[Handle]>,
    ) -> Result<(), Error> {
        if let Some(omit) = omit {
            if omit.len() != rects.len() {
                return Err(Error::LengthMismatch {
                    expected: rects.len(),
                    found: omit.len(),
                });
            }
            for (index, &handle) in omit.iter().enumerate() {
                self.slots.lookup(handle).map_err(|e| e.in_batch(index))?;
            }
        }
        for (index, &rect) in rects.iter().enumerate() {
            check_rect(rect).map_err(|e| e.in_batch(index))?;
        }
        Ok(())
    }

    /// Appends each query's hit count to `counts` and its hits to `hits`; the
    /// batch was checked.
    pub(crate) fn query_each(
        &self,
        rects: &[Rect],
        omit: Option<&[Handle]>,
        counts: &mut Vec<usize>,
        hits: &mut Vec<Handle>,
    ) {
        for (index, &rect) in rects.iter().enumerate() {
            let before = hits.len();
            // Checked by `check_query_many`: no second check per query.
            let omit = omit.map_or(NONE, |omit| omit[index].slot());
            let _ = self.query_checked(rect, omit, |handle| {
                hits.push(handle);
                ControlFlow::Continue(())
            });
            counts.push(hits.len() - before);
        }
    }

    /// Fills `pairs` (cleared first) with every pair of elements whose closed
    /// rectangles intersect, each unordered pair exactly once.
    pub fn pairs(&self, pairs: &mut Vec<(Handle, Handle)>) {
        pairs.clear();
        let _ = self.pairs_with(|a, b| {
            pairs.push((a, b));
            ControlFlow::Continue(())
        });
    }

    /// Calls `visit` with every pair of intersecting elements, each unordered pair
    /// once, until `visit` breaks.
    ///
    /// Walks the leaves and tests the elements of each leaf against each other
    /// (no query per element, no hash set): a pair is reported only in the leaf
    /// that owns the top-left corner of the two rectangles' intersection.
    pub fn pairs_with<F>(&self, visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        self.pairs_below(Cell::ROOT, visit)
    }

    /// The pairs reported in the leaves below `top` (each pair has one leaf).
    pub(crate) fn pairs_below<F>(&self, top: Cell, mut visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        let mut stack = Stack::new();
        stack.push(top);
        while let Some(cell) = stack.pop() {
            let node = self.nodes.nodes[cell.node as usize];
            if node.is_branch() {
                self.push_children(&mut stack, &cell, node.first, 0b1111);
            } else if node.count >= 2 {
                self.leaf_pairs(&self.grid.region(&cell), node.first, &mut visit)?;
            }
        }
        ControlFlow::Continue(())
    }

    fn leaf_pairs<F>(&self, region: &Region, first_link: u32, visit: &mut F) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        let links = &self.links.links;
        let slots = &self.slots.slots;
        // Gather the leaf's rectangles first so the quadratic loop reads one small
        // contiguous array instead of chasing links; big leaves (stacks at
        // max_depth) are walked in place.
        let mut gathered = ArrayVec::<(Rect, u32), GATHER>::new();
        let mut link = first_link;
        while link != NONE {
            let Link { next, element } = links[link as usize];
            if gathered
                .try_push((slots[element as usize].rect, element))
                .is_err()
            {
                return self.leaf_pairs_in_place(region, first_link, visit);
            }
            link = next;
        }
        if gathered.len() <= SWEEP_FROM {
            for (i, (rect_a, a)) in gathered.iter().enumerate() {
                for (rect_b, b) in &gathered[i + 1..] {
                    if rect_a.intersects(rect_b) && region.owns_intersection(rect_a, rect_b) {
                        visit(self.slots.handle(*a), self.slots.handle(*b))?;
                    }
                }
            }
            return ControlFlow::Continue(());
        }
        // A crowded leaf (at max_depth): sort by left edge and sweep, so each
        // element meets only those starting before it ends.
        gathered.sort_unstable_by(|(a, _), (b, _)| a.x1.total_cmp(&b.x1));
        for (i, (rect_a, a)) in gathered.iter().enumerate() {
            for (rect_b, b) in &gathered[i + 1..] {
                if rect_b.x1 > rect_a.x2 {
                    break;
                }
                if rect_a.intersects(rect_b) && region.owns_intersection(rect_a, rect_b) {
                    visit(self.slots.handle(*a), self.slots.handle(*b))?;
                }
            }
        }
        ControlFlow::Continue(())
    }

    fn leaf_pairs_in_place<F>(
        &self,
        region: &Region,
        first_link: u32,
        visit: &mut F,
    ) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        let links = &self.links.links;
        let slots = &self.slots.slots;
        let mut outer = first_link;
        while outer != NONE {
            let Link { next, element: a } = links[outer as usize];
            let rect_a = slots[a as usize].rect;
            let mut inner = next;
            while inner != NONE {
                let Link { next, element: b } = links[inner as usize];
                let rect_b = &slots[b as usize].rect;
                if rect_a.intersects(rect_b) && region.owns_intersection(&rect_a, rect_b) {
                    visit(self.slots.handle(a), self.slots.handle(b))?;
                }
                inner = next;
            }
            outer = next;
        }
        ControlFlow::Continue(())
    }
}

/// Leaves up to this many elements are gathered before their pairs are tested.
const GATHER: usize = 128;

/// Gathered leaves with more elements than this are swept rather than tested
/// pair by pair.
const SWEEP_FROM: usize = 24;
