//! The one API every structure has: [`SpatialIndex`]. Argument checks, batch
//! calls, compressed-row results and omit handling are written here once; each
//! structure supplies the checked primitives of [`raw`].

use core::ops::ControlFlow;

use crate::{Bounds, Error, Filter, Handle, Rect};

mod any;
mod columns;
pub(crate) mod fat_bounds;
pub(crate) mod finish_moves;
pub mod join;
mod pair_tracker;
#[cfg(feature = "rayon")]
pub(crate) mod parallel;
pub(crate) mod query;
pub(crate) mod raw;
pub(crate) mod search;
pub(crate) mod snapshot;
mod str_order;

pub use any::{AnyIndex, AnyIndex3, Kind};
pub use columns::QueryColumns;
use finish_moves::finish_on_panic;
pub use pair_tracker::PairTracker;
pub use query::{Query, Shape};
use raw::{Structure, PREFETCH_AHEAD};
pub use search::{BoxCast, Neighbor, Ray, RayControl, RayHit};

/// `update_many`'s checks of `handles[i]` and `rects[i]`, numbered from
/// `first` in the errors. The checks read the dense stamps (4 bytes an
/// element), not the slots; asking for them a few handles ahead overlaps the
/// misses when handles come in an order unrelated to memory.
#[inline(always)]
pub(crate) fn check_moves<T: SpatialIndex>(
    index: &T,
    handles: &[Handle],
    rects: &[T::Bounds],
    first: usize,
) -> Result<(), Error> {
    for (at, (&handle, &rect)) in handles.iter().zip(rects).enumerate() {
        if let Some(&ahead) = handles.get(at + PREFETCH_AHEAD) {
            index.prefetch_stamp(ahead);
        }
        check_rect(rect)
            .and_then(|_| index.lookup(handle))
            .map_err(|e| e.in_batch(first + at))?;
    }
    Ok(())
}

/// A box the structures accept, or [`Error::InvalidRect`] ([`Error::InvalidBox`] in 3D).
pub(crate) fn check_rect<B: Bounds>(rect: B) -> Result<B, Error> {
    if rect.is_valid() {
        Ok(rect)
    } else {
        Err(rect.invalid())
    }
}

/// A world box a structure can divide, or [`Error::InvalidWorld`]
/// ([`Error::InvalidWorldBox`] in 3D): finite, with a positive, finite extent
/// on every axis.
pub(crate) fn check_world<B: Bounds>(world: B) -> Result<B, Error> {
    let extent_ok = |axis| {
        let extent = world.hi(axis) - world.lo(axis);
        extent > 0.0 && extent.is_finite()
    };
    if world.is_valid() && (0..B::AXES).all(extent_ok) {
        Ok(world)
    } else {
        Err(world.invalid_world())
    }
}

/// A point the structures accept, or [`Error::InvalidPoint`] ([`Error::InvalidPoint3`] in 3D).
pub(crate) fn check_point<B: Bounds>(point: B::Point) -> Result<(), Error> {
    if point.as_ref().iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(B::invalid_point(point))
    }
}

/// A node (of a tree) or a cell (of a grid) as [`SpatialIndex::traverse`] shows it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NodeInfo<B = Rect> {
    /// The node's or cell's index in its structure: stable until a cleanup
    /// merges the node away (a grid's cells never move).
    pub index: u32,
    /// Depth: 0 for a tree's root and for a grid's cells.
    pub depth: u32,
    /// The node's or cell's rectangle (an octree's: box) in world coordinates
    /// (for a loose grid's cells and a loose quadtree's nodes, the box that
    /// bounds their elements).
    pub rect: B,
    /// Whether it holds elements directly (a leaf or a cell).
    pub is_leaf: bool,
    /// Elements it holds directly (0 for a branch).
    pub count: u32,
}

/// Sizes of a structure, from [`SpatialIndex::stats`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Live elements.
    pub elements: usize,
    /// Nodes or cells (branches and leaves; free ones not counted).
    pub nodes: usize,
    /// Leaves or cells that hold elements directly, empty ones included.
    pub leaves: usize,
    /// Leaves or cells holding no element.
    pub empty_leaves: usize,
    /// Deepest depth any node has (0 for a grid, or a tree that is one leaf).
    pub max_depth_reached: u32,
    /// Links: one per element per leaf or cell it is listed in (for a loose
    /// grid, one per element in its loose cell plus one per listing of a loose
    /// cell in a tight cell; for a loose quadtree, one per element).
    pub element_links: usize,
    /// Bytes the structure holds, its pools' capacity included.
    pub bytes: usize,
}

/// The API every flatquad structure has: [`Quadtree`](crate::Quadtree),
/// [`Grid`](crate::Grid), [`LooseGrid`](crate::LooseGrid),
/// [`LooseQuadtree`](crate::LooseQuadtree), and [`AnyIndex`] over them.
///
/// Elements are closed `f32` rectangles with a `u32` id of yours, named by the
/// [`Handle`] that `insert` returns. Every query is exact: it returns precisely
/// the elements whose closed rectangle meets the closed query, each once, the
/// same set a brute-force scan finds. Queries take `&self` and keep no scratch
/// state, so many threads may query at once. A call that returns an error has
/// changed nothing.
///
/// ```
/// use flatquad::{Grid, Quadtree, Rect, SpatialIndex};
///
/// fn frame(index: &mut impl SpatialIndex<Bounds = Rect>) -> Result<usize, flatquad::Error> {
///     let a = index.insert(Rect::new(1.0, 1.0, 3.0, 3.0), 0)?;
///     index.insert(Rect::new(3.0, 3.0, 5.0, 5.0), 1)?; // touches `a`
///     index.update(a, Rect::new(2.0, 2.0, 4.0, 4.0))?;
///     index.cleanup();
///     let mut pairs = Vec::new();
///     index.pairs(&mut pairs);
///     Ok(pairs.len())
/// }
/// let world = Rect::new(0.0, 0.0, 64.0, 64.0);
/// assert_eq!(frame(&mut Quadtree::for_world(world)?)?, 1);
/// assert_eq!(frame(&mut Grid::for_world(world)?)?, 1);
/// # Ok::<(), flatquad::Error>(())
/// ```
pub trait SpatialIndex: Structure + Sized + Send + Sync {
    /// The world rectangle the structure divides. Elements and queries outside
    /// it are fine: they belong to the border cells or leaves.
    fn world(&self) -> Self::Bounds;

    /// Once a frame: the lazy tidying a structure does after moves and removals
    /// (a tree merges empty siblings and, once moves have scattered them, lays
    /// its leaves' lists out contiguously again; a loose grid shrinks its
    /// cells' boxes).
    fn cleanup(&mut self);

    /// Removes every element (all handles go stale); keeps the memory for reuse.
    fn clear(&mut self);

    /// Visits every node (or cell) depth-first, parents before children,
    /// calling `branch` or `leaf`; either returns [`ControlFlow::Break`] to stop.
    /// A grid shows its cells as leaves of depth 0, so drawing code written for
    /// a tree draws a grid too.
    fn traverse<B, L>(&self, branch: B, leaf: L) -> ControlFlow<()>
    where
        B: FnMut(&NodeInfo<Self::Bounds>) -> ControlFlow<()>,
        L: FnMut(&NodeInfo<Self::Bounds>) -> ControlFlow<()>;

    /// Counts nodes or cells and links, and the bytes held.
    fn stats(&self) -> Stats;

    /// Checks every invariant of the structure and says which fails first.
    /// O(size) time, allocates: meant for tests and debugging, not for frames.
    ///
    /// # Errors
    /// A description of the first broken invariant.
    fn validate(&self) -> Result<(), String>;

    /// The whole state as bytes (little-endian, versioned, tagged with the
    /// structure): [`from_bytes`](SpatialIndex::from_bytes) gives back a
    /// structure equal in every respect, the same handles valid.
    fn to_bytes(&self) -> Vec<u8>;

    /// A structure from [`to_bytes`](SpatialIndex::to_bytes)'s output; every
    /// invariant is checked, so damaged or hostile bytes give an error, never a
    /// broken structure.
    ///
    /// # Errors
    /// [`Error::InvalidBytes`] saying what is wrong (a snapshot of another
    /// structure included).
    fn from_bytes(bytes: &[u8]) -> Result<Self, Error>;

    /// Calls `visit` with every pair of intersecting elements, each unordered
    /// pair once, until `visit` breaks; returns how the walk ended. Pairs
    /// whose [`Filter`]s do not collide are left out.
    fn pairs_with<F>(&self, mut visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        if !self.filtered() {
            return self.pairs_checked(visit);
        }
        self.pairs_checked(|a, b| {
            if self.collide(a, b) {
                visit(a, b)
            } else {
                ControlFlow::Continue(())
            }
        })
    }

    /// The element's collision filter ([`Filter::DEFAULT`] unless set).
    ///
    /// # Errors
    /// [`Error::InvalidHandle`] if `handle` is not live.
    fn filter(&self, handle: Handle) -> Result<Filter, Error> {
        Ok(self.filter_at(self.lookup(handle)?))
    }

    /// Sets the element's collision filter: from now on [`pairs`](SpatialIndex::pairs)
    /// and [`Query::element`] report it with another
    /// element only when their filters [collide](Filter::collides), and a
    /// query with a mask reports it only when its category is in the mask.
    /// The first filter other than the default costs 8 bytes per slot;
    /// removing the element (or [`clear`](SpatialIndex::clear)) resets it.
    ///
    /// # Errors
    /// [`Error::InvalidHandle`] if `handle` is not live.
    fn set_filter(&mut self, handle: Handle, filter: Filter) -> Result<(), Error> {
        let slot = self.lookup(handle)?;
        self.set_filter_at(slot, filter);
        Ok(())
    }

    /// [`set_filter`](SpatialIndex::set_filter) of `handles[i]` to
    /// `filters[i]` for every `i`. Checks every handle first: on error
    /// nothing changes.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`], or the first handle that is not live inside
    /// [`Error::InBatch`].
    fn set_filter_many(&mut self, handles: &[Handle], filters: &[Filter]) -> Result<(), Error> {
        check_lengths(handles.len(), filters.len())?;
        for (index, &handle) in handles.iter().enumerate() {
            self.lookup(handle).map_err(|e| e.in_batch(index))?;
        }
        for (&handle, &filter) in handles.iter().zip(filters) {
            self.set_filter_at(handle.slot(), filter);
        }
        Ok(())
    }

    /// Number of elements.
    fn len(&self) -> usize {
        self.live()
    }

    /// Whether the structure holds no element.
    fn is_empty(&self) -> bool {
        self.live() == 0
    }

    /// Whether `handle` names an element now.
    fn contains(&self, handle: Handle) -> bool {
        self.lookup(handle).is_ok()
    }

    /// The id the element was inserted with.
    ///
    /// # Errors
    /// [`Error::InvalidHandle`] if `handle` is not live.
    fn id(&self, handle: Handle) -> Result<u32, Error> {
        Ok(self.id_at(self.lookup(handle)?))
    }

    /// The element's current rectangle.
    ///
    /// # Errors
    /// [`Error::InvalidHandle`] if `handle` is not live.
    fn rect(&self, handle: Handle) -> Result<Self::Bounds, Error> {
        Ok(self.rect_at(self.lookup(handle)?))
    }

    /// Every live element as `(handle, rectangle, id)`, in slot order.
    fn iter(&self) -> impl Iterator<Item = (Handle, Self::Bounds, u32)> + '_ {
        (0..self.slot_count() as u32).filter_map(|slot| self.element_at(slot))
    }

    /// Adds an element and returns its handle.
    ///
    /// # Errors
    /// [`Error::InvalidRect`] (3D: [`Error::InvalidBox`]) for NaN or infinite coordinates or an inverted
    /// rectangle; [`Error::CapacityExceeded`] when 2^32 - 1 slots are in use.
    fn insert(&mut self, rect: Self::Bounds, id: u32) -> Result<Handle, Error> {
        check_rect(rect)?;
        self.check_room(1)?;
        Ok(self.insert_checked(rect, id))
    }

    /// Adds `rects[i]` with id `ids[i]` for every `i`, appending the handles to
    /// `handles` in order. Checks every item first: on error nothing is inserted.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] if the slices differ in length; otherwise the
    /// first item's error from [`insert`](SpatialIndex::insert), inside
    /// [`Error::InBatch`].
    fn insert_many(
        &mut self,
        rects: &[Self::Bounds],
        ids: &[u32],
        handles: &mut Vec<Handle>,
    ) -> Result<(), Error> {
        check_lengths(rects.len(), ids.len())?;
        for (index, &rect) in rects.iter().enumerate() {
            check_rect(rect).map_err(|e| e.in_batch(index))?;
        }
        self.check_room(rects.len())?;
        self.insert_many_checked(rects, ids, handles);
        Ok(())
    }

    /// Removes an element; its handle, and every copy of it, goes stale.
    ///
    /// # Errors
    /// [`Error::InvalidHandle`] if `handle` is not live (never issued, already
    /// removed, or cleared).
    fn remove(&mut self, handle: Handle) -> Result<(), Error> {
        let slot = self.lookup(handle)?;
        self.remove_checked(slot);
        Ok(())
    }

    /// Removes every element of `handles`. Checks them all first: on error
    /// nothing is removed.
    ///
    /// # Errors
    /// The first item's [`Error::InvalidHandle`] or [`Error::DuplicateHandle`],
    /// inside [`Error::InBatch`].
    fn remove_many(&mut self, handles: &[Handle]) -> Result<(), Error> {
        // Mark each slot while checking, so a handle given twice is caught
        // without allocating.
        let mut failure = None;
        let mut marked = 0;
        for (index, &handle) in handles.iter().enumerate() {
            match self.lookup(handle) {
                Ok(slot) if self.is_marked(slot) => {
                    failure = Some(Error::DuplicateHandle(handle).in_batch(index));
                }
                Ok(slot) => {
                    self.set_mark(slot, true);
                    marked = index + 1;
                }
                Err(error) => failure = Some(error.in_batch(index)),
            }
            if let Some(error) = failure {
                for &handle in &handles[..marked] {
                    self.set_mark(handle.slot(), false);
                }
                return Err(error);
            }
        }
        self.remove_marked(handles);
        Ok(())
    }

    /// Gives an element a new rectangle (the "move" of a collision loop).
    ///
    /// # Errors
    /// [`Error::InvalidRect`] or [`Error::InvalidHandle`]; nothing changes.
    fn update(&mut self, handle: Handle, rect: Self::Bounds) -> Result<(), Error> {
        check_rect(rect)?;
        let slot = self.lookup(handle)?;
        self.relocate(slot, rect);
        Ok(())
    }

    /// [`update`](SpatialIndex::update)s `handles[i]` to `rects[i]` for every
    /// `i`, in order (a handle given twice ends at its last rectangle). Checks
    /// every item first: on error nothing moves.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`], or the first item's error inside
    /// [`Error::InBatch`]; nothing moves. [`Error::Panicked`] if a bug in
    /// flatquad panicked halfway through the moves, on any thread: they were
    /// finished from the arguments, so every element is at its new box, as
    /// after a call that succeeded (`docs/design.md`, "A panic on a worker
    /// thread").
    fn update_many(&mut self, handles: &[Handle], rects: &[Self::Bounds]) -> Result<(), Error> {
        check_lengths(handles.len(), rects.len())?;
        check_moves(self, handles, rects, 0)?;
        finish_on_panic(self, handles, rects, |index| {
            index.relocate_many(handles, rects)
        })
    }

    /// [`update_many`](SpatialIndex::update_many) on all of rayon's threads
    /// where the structure can split the moves, with the same result: the
    /// checks run in parts on every thread (the first bad item is still the
    /// one reported, and nothing moves); the grid then moves its slot records
    /// in ranges, one per thread, and relinks the few elements that changed
    /// cells on one thread, in batch order. The grid moves its records on one
    /// thread below 400,000 moves (below that the records fit in the caches
    /// and splitting them measured no faster on 2 cores), or 10,000 for a
    /// batch that leaves its lists behind; the other structures always move
    /// on one thread. With more than one thread, a batch of 1,000 moves or
    /// more runs whole on rayon's pool, its one-thread steps included: from
    /// outside the pool, as one job the caller waits for, which keeps the moves
    /// and the walks after them on the same threads (a thread that makes most
    /// calls can be one of the pool's instead: [`crate::join_global_pool`]).
    ///
    /// # Errors
    /// As [`update_many`](SpatialIndex::update_many).
    #[cfg(feature = "rayon")]
    fn par_update_many(&mut self, handles: &[Handle], rects: &[Self::Bounds]) -> Result<(), Error>
    where
        Self: Sync,
    {
        check_lengths(handles.len(), rects.len())?;
        parallel::update_many(self, handles, rects)
    }

    /// Sets the fat-bounds margin, in world units (`0`, the default, for
    /// none). With a margin `m` each element is filed by its box grown by `m`
    /// on every side, so a move that stays inside that fat box costs no
    /// relink, only a write of the element's own box; a move that leaves it
    /// refiles the element around its new box. Every query, pair, search and
    /// event still answers on the elements' own boxes: the margin is a speed
    /// knob, never an approximation. It pays where elements move a little
    /// every frame across cell or leaf borders, and costs a test of the own
    /// box per candidate, and more candidates; `docs/design.md` has the
    /// measurements. Setting it refiles every element (O(n)).
    ///
    /// ```
    /// use flatquad::{Quadtree, Query, Rect, SpatialIndex};
    /// let mut tree = Quadtree::for_world(Rect::new(0.0, 0.0, 100.0, 100.0))?.with_margin(2.0)?;
    /// let h = tree.insert(Rect::new(10.0, 10.0, 12.0, 12.0), 7)?;
    /// tree.update(h, Rect::new(11.0, 10.0, 13.0, 12.0))?; // inside its fat box
    /// let mut hits = Vec::new();
    /// tree.query(&Query::rect(Rect::new(0.0, 0.0, 10.5, 100.0)), &mut hits)?;
    /// assert!(hits.is_empty()); // exact: the fat box reaches 9, the box 11
    /// assert_eq!(tree.rect(h)?, Rect::new(11.0, 10.0, 13.0, 12.0));
    /// # Ok::<(), flatquad::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a NaN, negative or infinite margin;
    /// nothing changes.
    fn set_margin(&mut self, margin: f32) -> Result<(), Error> {
        let margin = fat_bounds::check_margin(margin)?;
        self.set_margin_checked(margin);
        Ok(())
    }

    /// [`set_margin`](SpatialIndex::set_margin) on a new structure, as a
    /// builder step.
    ///
    /// # Errors
    /// As [`set_margin`](SpatialIndex::set_margin).
    fn with_margin(mut self, margin: f32) -> Result<Self, Error> {
        self.set_margin(margin)?;
        Ok(self)
    }

    /// The fat-bounds margin ([`set_margin`](SpatialIndex::set_margin); `0` for none).
    fn margin(&self) -> f32 {
        self.fat_margin()
    }

    /// Calls `visit` with each element `query` reports ([`Query`]: a shape, a
    /// mask, an element left out), each once, in no particular order; `visit`
    /// returns [`ControlFlow::Break`] to stop early, and the call returns how
    /// the walk ended. Every other result style ([`query`](SpatialIndex::query),
    /// [`query_many`](SpatialIndex::query_many), [`locate`](SpatialIndex::locate))
    /// goes through the same walk.
    ///
    /// ```
    /// use core::ops::ControlFlow;
    /// use flatquad::{Quadtree, Query, Rect, SpatialIndex};
    /// let mut tree = Quadtree::for_world(Rect::new(0.0, 0.0, 100.0, 100.0))?;
    /// for i in 0..10 {
    ///     let x = i as f32 * 5.0;
    ///     tree.insert(Rect::new(x, 0.0, x + 4.0, 4.0), i)?;
    /// }
    /// let mut first = None; // any one element in the strip, then stop
    /// tree.visit(&Query::rect(Rect::new(0.0, 0.0, 100.0, 1.0)), |h| {
    ///     first = Some(h);
    ///     ControlFlow::Break(())
    /// })?;
    /// assert!(first.is_some());
    /// # Ok::<(), flatquad::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidRect`] ([`Error::InvalidBox`] in 3D) for a bad
    /// rectangle, [`Error::InvalidPoint`] ([`Error::InvalidPoint3`]) for a NaN
    /// or infinite point or centre, [`Error::InvalidDistance`] for a NaN or
    /// negative radius, [`Error::InvalidHandle`] for a [`Shape::Element`] or an
    /// `omit` that is not live; `visit` is then never called.
    fn visit<F>(&self, query: &Query<Self::Bounds>, visit: F) -> Result<ControlFlow<()>, Error>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        let query = query.check(self)?;
        self.count_queries(1);
        Ok(query.run(self, visit))
    }

    /// Fills `hits` (cleared first) with the handles of the elements `query`
    /// reports, each once, in no particular order. `hits` keeps its capacity,
    /// so a reused `Vec` stops allocating.
    ///
    /// # Errors
    /// As [`visit`](SpatialIndex::visit); `hits` is then left empty.
    fn query(&self, query: &Query<Self::Bounds>, hits: &mut Vec<Handle>) -> Result<(), Error> {
        hits.clear();
        self.visit(query, collect_into(hits)).map(|_| ())
    }

    /// The handles of the elements `query` reports, as an iterator (Rust's
    /// idiom, as rstar's `locate_*`): `for h in index.locate(&q)? { ... }`.
    /// The hits are gathered when it is made; [`query`](SpatialIndex::query)
    /// into a reused `Vec` allocates nothing, and [`visit`](SpatialIndex::visit)
    /// can stop early.
    ///
    /// # Errors
    /// As [`visit`](SpatialIndex::visit).
    fn locate(&self, query: &Query<Self::Bounds>) -> Result<std::vec::IntoIter<Handle>, Error> {
        let mut hits = Vec::new();
        self.query(query, &mut hits)?;
        Ok(hits.into_iter())
    }

    /// A [`Query::element`] for each handle, in compressed
    /// rows: the neighbours of `handles[i]` are `hits[offsets[i]..offsets[i + 1]]`.
    /// The per-agent query of a collision loop in one call. Both vectors are
    /// cleared first and keep their capacity.
    ///
    /// # Errors
    /// The first handle that is not live, inside [`Error::InBatch`]; nothing is
    /// written then.
    fn overlapping_many(
        &self,
        handles: &[Handle],
        offsets: &mut Vec<usize>,
        hits: &mut Vec<Handle>,
    ) -> Result<(), Error> {
        for (index, &handle) in handles.iter().enumerate() {
            self.lookup(handle).map_err(|e| e.in_batch(index))?;
        }
        self.count_queries(handles.len());
        // Most elements at once: one pair walk answers them all, far cheaper
        // than a query each (unless a handle is given twice).
        if by_pairs(handles.len(), self.live())
            && overlapping_by_pairs(self, handles, offsets, hits)
        {
            return Ok(());
        }
        offsets.clear();
        hits.clear();
        offsets.reserve(handles.len() + 1);
        offsets.push(0);
        query::overlapping_batch(self, handles, |_, handle| {
            // Checked above: no second look-up per element.
            let _ = query::overlapping(self, handle.slot(), crate::slots::NONE, collect_into(hits));
            offsets.push(hits.len());
        });
        Ok(())
    }

    /// Answers every query and gives the results in compressed rows: the hits
    /// of `queries[i]` are `hits[offsets[i]..offsets[i + 1]]`, each row in no
    /// particular order. Both vectors are cleared first and keep their
    /// capacity. The queries may mix shapes and options.
    ///
    /// ```
    /// use flatquad::{Grid, Query, Rect, SpatialIndex};
    /// let mut grid = Grid::for_world(Rect::new(0.0, 0.0, 10.0, 10.0))?;
    /// let a = grid.insert(Rect::new(1.0, 1.0, 2.0, 2.0), 0)?;
    /// let b = grid.insert(Rect::new(2.0, 2.0, 3.0, 3.0), 1)?;
    /// let queries = [Query::rect(grid.rect(a)?).omit(a), Query::point([2.0, 2.0])];
    /// let (mut offsets, mut hits) = (Vec::new(), Vec::new());
    /// grid.query_many(&queries, &mut offsets, &mut hits)?;
    /// assert_eq!(offsets, [0, 1, 3]);
    /// assert_eq!(hits[0], b);
    /// # Ok::<(), flatquad::Error>(())
    /// ```
    ///
    /// A batch of element queries alone, with no mask and nothing left out
    /// (a collision loop's per-agent queries), is answered as
    /// [`overlapping_many`](SpatialIndex::overlapping_many) of their handles:
    /// the same rows, the slots fetched ahead, a batch of most elements by one
    /// pair walk (it takes a list of the handles, allocated per call).
    ///
    /// # Errors
    /// The first bad query's error (see [`visit`](SpatialIndex::visit)) inside
    /// [`Error::InBatch`]. Nothing is written then.
    fn query_many(
        &self,
        queries: &[Query<Self::Bounds>],
        offsets: &mut Vec<usize>,
        hits: &mut Vec<Handle>,
    ) -> Result<(), Error> {
        if let Some(handles) = query::plain_elements(queries) {
            return self.overlapping_many(&handles, offsets, hits);
        }
        query::check_all(self, queries)?;
        offsets.clear();
        hits.clear();
        offsets.reserve(queries.len() + 1);
        offsets.push(0);
        self.count_queries(queries.len());
        // Checked above, so this returns `Ok`: one loop serves both batches.
        query::check_and_run_all(self, queries, 0, offsets, hits)
    }

    /// Fills `out` (cleared first) with the `k` elements passing `mask`
    /// nearest to `point` (fewer if there are fewer), nearest first, at most
    /// `max_distance` away if given (closed). The distance is to the
    /// element's closed box ([`Bounds::distance_to_point`], in `f64`; 0 when
    /// the box holds the point). Ties are broken by id, then by the handle's
    /// raw value: the order is ascending `(distance, id, handle)`, the same
    /// as a brute-force sort. The search first queries small squares about
    /// the point where the structure measured that faster (the grids, and the
    /// flat trees for a small `k`), then, if they did not settle it, descends
    /// depth-first through the structure's nodes, visiting only what can
    /// beat the `k`-th result. `k` = 0 gives nothing.
    ///
    /// ```
    /// use flatquad::{Quadtree, Rect, SpatialIndex};
    /// let mut tree = Quadtree::for_world(Rect::new(0.0, 0.0, 100.0, 100.0))?;
    /// let a = tree.insert(Rect::new(10.0, 10.0, 20.0, 20.0), 1)?;
    /// let b = tree.insert(Rect::new(50.0, 10.0, 60.0, 20.0), 2)?;
    /// let mut near = Vec::new();
    /// tree.nearest([25.0, 15.0], 2, None, u32::MAX, &mut near)?;
    /// assert_eq!((near[0].handle, near[0].distance), (a, 5.0));
    /// assert_eq!((near[1].handle, near[1].distance), (b, 25.0));
    /// tree.nearest([25.0, 15.0], 2, Some(10.0), u32::MAX, &mut near)?;
    /// assert_eq!(near.len(), 1);
    /// # Ok::<(), flatquad::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidPoint`] ([`Error::InvalidPoint3`]) for a NaN or
    /// infinite `point`; [`Error::InvalidDistance`] for a NaN or negative
    /// `max_distance`. `out` is then left empty.
    fn nearest(
        &self,
        point: <Self::Bounds as Bounds>::Point,
        k: usize,
        max_distance: Option<f64>,
        mask: u32,
        out: &mut Vec<Neighbor>,
    ) -> Result<(), Error> {
        out.clear();
        check_point::<Self::Bounds>(point)?;
        let max_distance = check_max_distance(max_distance)?;
        let query = search::Nearest {
            point,
            k,
            max_distance,
            mask,
        };
        search::nearest_bounded(self, &mut search::NodeStack::new(), query, out);
        Ok(())
    }

    /// [`nearest`](SpatialIndex::nearest) with a filter: `accept` is called
    /// with candidates in ascending order, each once, and the elements it
    /// rejects do not count towards `k`.
    ///
    /// # Errors
    /// As [`nearest`](SpatialIndex::nearest); `accept` is then never called.
    fn nearest_with<A>(
        &self,
        point: <Self::Bounds as Bounds>::Point,
        k: usize,
        max_distance: Option<f64>,
        mask: u32,
        accept: A,
        out: &mut Vec<Neighbor>,
    ) -> Result<(), Error>
    where
        A: FnMut(Handle) -> bool,
    {
        out.clear();
        check_point::<Self::Bounds>(point)?;
        let max_distance = check_max_distance(max_distance)?;
        let query = search::Nearest {
            point,
            k,
            max_distance,
            mask,
        };
        search::nearest(self, &mut search::heap(), query, accept, out);
        Ok(())
    }

    /// [`nearest`](SpatialIndex::nearest) for each point, in compressed rows:
    /// the neighbours of `points[i]` are `out[offsets[i]..offsets[i + 1]]`,
    /// nearest first. Both vectors are cleared first.
    ///
    /// # Errors
    /// [`Error::InvalidDistance`] for a bad `max_distance`; the first bad
    /// point inside [`Error::InBatch`]. Nothing is written then.
    fn nearest_many(
        &self,
        points: &[<Self::Bounds as Bounds>::Point],
        k: usize,
        max_distance: Option<f64>,
        mask: u32,
        offsets: &mut Vec<usize>,
        out: &mut Vec<Neighbor>,
    ) -> Result<(), Error> {
        let max_distance = check_max_distance(max_distance)?;
        for (index, &point) in points.iter().enumerate() {
            check_point::<Self::Bounds>(point).map_err(|e| e.in_batch(index))?;
        }
        offsets.clear();
        out.clear();
        offsets.reserve(points.len() + 1);
        offsets.push(0);
        let mut heap = search::NodeStack::new();
        for &point in points {
            let query = search::Nearest {
                point,
                k,
                max_distance,
                mask,
            };
            search::nearest_bounded(self, &mut heap, query, out);
            offsets.push(out.len());
        }
        Ok(())
    }

    /// The first element passing `mask` that the segment `ray` hits, in the
    /// order of [`ray_cast_all`](SpatialIndex::ray_cast_all), or `None`.
    ///
    /// ```
    /// use flatquad::{Grid, Ray, Rect, SpatialIndex};
    /// let mut grid = Grid::for_world(Rect::new(0.0, 0.0, 100.0, 100.0))?;
    /// let wall = grid.insert(Rect::new(40.0, 0.0, 45.0, 100.0), 7)?;
    /// grid.insert(Rect::new(60.0, 0.0, 65.0, 100.0), 8)?;
    /// let ray = Ray { origin: [10.0, 50.0], direction: [2.0, 0.0], max_length: 80.0 };
    /// let hit = grid.ray_cast(&ray, u32::MAX)?.unwrap();
    /// assert_eq!((hit.handle, hit.distance, hit.fraction), (wall, 30.0, 0.375));
    /// let short = Ray { max_length: 20.0, ..ray };
    /// assert!(grid.ray_cast(&short, u32::MAX)?.is_none());
    /// # Ok::<(), flatquad::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidPoint`] ([`Error::InvalidPoint3`]) for a NaN or
    /// infinite origin; [`Error::InvalidDirection`] ([`Error::InvalidDirection3`])
    /// for a zero or non-finite direction; [`Error::InvalidDistance`] for a
    /// `max_length` that is NaN, negative or infinite.
    fn ray_cast(
        &self,
        ray: &Ray<<Self::Bounds as Bounds>::Point>,
        mask: u32,
    ) -> Result<Option<RayHit>, Error> {
        check_ray::<Self::Bounds>(ray)?;
        Ok(search::ray_first(self, ray, mask))
    }

    /// The first hit of each ray, as [`ray_cast`](SpatialIndex::ray_cast)
    /// gives it: `out[i]` (cleared first) for `rays[i]`, `None` where the ray
    /// touches nothing. One call for a scan of many rays (a lidar sweep, a
    /// line of sight per agent).
    ///
    /// ```
    /// use flatquad::{Grid, Ray, Rect, SpatialIndex};
    /// let mut grid = Grid::for_world(Rect::new(0.0, 0.0, 100.0, 100.0))?;
    /// let wall = grid.insert(Rect::new(50.0, 0.0, 51.0, 100.0), 7)?;
    /// let ray = |direction| Ray { origin: [10.0, 10.0], direction, max_length: 100.0 };
    /// let rays = [ray([1.0, 0.0]), ray([-1.0, 0.0])];
    /// let mut hits = Vec::new();
    /// grid.ray_cast_many(&rays, u32::MAX, &mut hits)?;
    /// assert_eq!(hits[0].map(|hit| (hit.handle, hit.distance)), Some((wall, 40.0)));
    /// assert!(hits[1].is_none());
    /// # Ok::<(), flatquad::Error>(())
    /// ```
    ///
    /// # Errors
    /// What [`ray_cast`](SpatialIndex::ray_cast) says of the first bad ray,
    /// inside [`Error::InBatch`]. Nothing is written then.
    fn ray_cast_many(
        &self,
        rays: &[Ray<<Self::Bounds as Bounds>::Point>],
        mask: u32,
        out: &mut Vec<Option<RayHit>>,
    ) -> Result<(), Error> {
        check_rays::<Self::Bounds>(rays)?;
        out.clear();
        out.extend(rays.iter().map(|ray| search::ray_first(self, ray, mask)));
        Ok(())
    }

    /// Fills `hits` (cleared first) with every element passing `mask` that
    /// the segment from `ray.origin` along `ray.direction` for
    /// `ray.max_length` touches, in ascending order of `(distance, id,
    /// handle)`. Boxes are closed: a ray grazing a corner or running along
    /// an edge hits (where it first touches), a ray starting inside or on a
    /// box hits it at distance 0, and a ray of length 0 hits the boxes
    /// holding its origin. Exact for rays parallel to an axis (see
    /// [`Bounds::ray_entry`]).
    ///
    /// # Errors
    /// As [`ray_cast`](SpatialIndex::ray_cast); `hits` is then left empty.
    fn ray_cast_all(
        &self,
        ray: &Ray<<Self::Bounds as Bounds>::Point>,
        mask: u32,
        hits: &mut Vec<RayHit>,
    ) -> Result<(), Error> {
        hits.clear();
        self.ray_cast_with(ray, mask, |hit| {
            hits.push(*hit);
            RayControl::Continue
        })
    }

    /// Calls `visit` with each hit of [`ray_cast_all`](SpatialIndex::ray_cast_all)
    /// in that order; `visit` says whether to go on, to stop, or to shorten
    /// the ray ([`RayControl::Clip`], the Box2D / parry pattern: clip to a
    /// hit's distance to keep only the hits that are as near).
    ///
    /// # Errors
    /// As [`ray_cast`](SpatialIndex::ray_cast); `visit` is then never called.
    fn ray_cast_with<F>(
        &self,
        ray: &Ray<<Self::Bounds as Bounds>::Point>,
        mask: u32,
        visit: F,
    ) -> Result<(), Error>
    where
        F: FnMut(&RayHit) -> RayControl,
    {
        check_ray::<Self::Bounds>(ray)?;
        search::ray_cast(self, ray, mask, visit);
        Ok(())
    }

    /// The first element the box cast touches ([`BoxCast`]: a box moved by
    /// `t · motion`, `t` in `[0, 1]`), or `None`: the smallest `t` at which
    /// the moving closed box touches the element's closed box, ties broken
    /// by id, then handle (the order of [`box_cast_all`](SpatialIndex::box_cast_all)).
    /// The hit's `fraction` is `t`, its `distance` `t · |motion|`.
    ///
    /// # Errors
    /// [`Error::InvalidRect`] ([`Error::InvalidBox`]) for a bad box,
    /// [`Error::InvalidMotion`] for a NaN or infinite motion,
    /// [`Error::InvalidHandle`] for an `omit` that is not live.
    fn box_cast(&self, cast: &BoxCast<Self::Bounds>) -> Result<Option<RayHit>, Error> {
        let omit = check_box_cast(self, cast)?;
        Ok(search::box_cast_first(self, cast, omit))
    }

    /// Fills `hits` (cleared first) with every element the box cast touches,
    /// in ascending order of `(t, id, handle)` (see [`box_cast`](SpatialIndex::box_cast)).
    /// A box touching an element where it starts hits it at `t = 0`.
    ///
    /// # Errors
    /// As [`box_cast`](SpatialIndex::box_cast); `hits` is then left empty.
    fn box_cast_all(
        &self,
        cast: &BoxCast<Self::Bounds>,
        hits: &mut Vec<RayHit>,
    ) -> Result<(), Error> {
        hits.clear();
        let omit = check_box_cast(self, cast)?;
        search::box_cast(self, cast, omit, |hit| {
            hits.push(hit);
            true
        });
        Ok(())
    }

    /// Fills `pairs` (cleared first) with every pair of elements whose closed
    /// rectangles intersect, each unordered pair exactly once.
    fn pairs(&self, pairs: &mut Vec<(Handle, Handle)>) {
        pairs.clear();
        let _ = self.pairs_with(collect_pairs(pairs));
    }

    /// [`pairs`](SpatialIndex::pairs) on all of rayon's threads where the
    /// structure can split its walk and the size pays; otherwise on the
    /// calling thread. The same pairs in the same order as `pairs`, on any
    /// number of threads: each thread walks a part of the structure in which
    /// the one-thread walk would have found them, and the parts are joined in
    /// that walk's order. A walk on threads runs whole on rayon's pool, from
    /// outside it as one job the caller waits for (as
    /// [`par_update_many`](SpatialIndex::par_update_many), and every batch call
    /// here that takes the threads).
    #[cfg(feature = "rayon")]
    fn par_pairs(&self, pairs: &mut Vec<(Handle, Handle)>)
    where
        Self: Sync,
    {
        let walk = |pairs: &mut Vec<(Handle, Handle)>| {
            self.par_pairs_checked(pairs);
            if self.filtered() {
                pairs.retain(|&(a, b)| self.collide(a, b));
            }
        };
        if self.pairs_in_parallel() {
            parallel::on_pool(|| walk(pairs));
        } else {
            walk(pairs);
        }
    }

    /// [`pairs_with`](SpatialIndex::pairs_with) with the walk on rayon's
    /// threads where [`par_pairs`](SpatialIndex::par_pairs) takes them: the
    /// same pairs in the same order, `visit` called on the calling thread
    /// (never on a worker). On threads the walk fills a list first, which
    /// `visit` then reads, so breaking early saves none of the walk there.
    #[cfg(feature = "rayon")]
    fn par_pairs_with<F>(&self, mut visit: F) -> ControlFlow<()>
    where
        Self: Sync,
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        if !self.pairs_in_parallel() {
            return self.pairs_with(visit);
        }
        let mut pairs = Vec::new();
        self.par_pairs(&mut pairs);
        for (a, b) in pairs {
            visit(a, b)?;
        }
        ControlFlow::Continue(())
    }

    /// [`nearest_many`](SpatialIndex::nearest_many) on all of rayon's
    /// threads, with the same result (batches under 1,000 points stay on the
    /// calling thread).
    ///
    /// # Errors
    /// As [`nearest_many`](SpatialIndex::nearest_many).
    #[cfg(feature = "rayon")]
    fn par_nearest_many(
        &self,
        points: &[<Self::Bounds as Bounds>::Point],
        k: usize,
        max_distance: Option<f64>,
        mask: u32,
        offsets: &mut Vec<usize>,
        out: &mut Vec<Neighbor>,
    ) -> Result<(), Error>
    where
        Self: Sync,
    {
        parallel::nearest_many(self, points, k, max_distance, mask, offsets, out)
    }

    /// [`ray_cast_many`](SpatialIndex::ray_cast_many) on all of rayon's
    /// threads, with the same result (batches under 1,000 rays stay on the
    /// calling thread).
    ///
    /// # Errors
    /// As [`ray_cast_many`](SpatialIndex::ray_cast_many).
    #[cfg(feature = "rayon")]
    fn par_ray_cast_many(
        &self,
        rays: &[Ray<<Self::Bounds as Bounds>::Point>],
        mask: u32,
        out: &mut Vec<Option<RayHit>>,
    ) -> Result<(), Error>
    where
        Self: Sync,
    {
        parallel::ray_cast_many(self, rays, mask, out)
    }

    /// [`overlapping_many`](SpatialIndex::overlapping_many) on all of rayon's
    /// threads, with the same rows, in order. The batch is cut into chunks,
    /// each answered query by query; batches under 1,000 handles, and those
    /// of a quarter of the elements or more (which one pair walk answers
    /// faster), stay on the calling thread.
    ///
    /// # Errors
    /// As [`overlapping_many`](SpatialIndex::overlapping_many).
    #[cfg(feature = "rayon")]
    fn par_overlapping_many(
        &self,
        handles: &[Handle],
        offsets: &mut Vec<usize>,
        hits: &mut Vec<Handle>,
    ) -> Result<(), Error>
    where
        Self: Sync,
    {
        parallel::overlapping_many(self, handles, offsets, hits)
    }

    /// [`query_many`](SpatialIndex::query_many) on all of rayon's threads, with
    /// the same result (batches under 1,000 queries stay on the calling thread).
    ///
    /// # Errors
    /// As [`query_many`](SpatialIndex::query_many).
    #[cfg(feature = "rayon")]
    fn par_query_many(
        &self,
        queries: &[Query<Self::Bounds>],
        offsets: &mut Vec<usize>,
        hits: &mut Vec<Handle>,
    ) -> Result<(), Error>
    where
        Self: Sync,
    {
        parallel::query_many(self, queries, offsets, hits)
    }
}

/// Every ray of a batch checked, the first bad one reported in
/// [`Error::InBatch`].
pub(crate) fn check_rays<B: Bounds>(rays: &[Ray<B::Point>]) -> Result<(), Error> {
    for (index, ray) in rays.iter().enumerate() {
        check_ray::<B>(ray).map_err(|e| e.in_batch(index))?;
    }
    Ok(())
}

/// A box cast's arguments checked: the omitted slot ([`NONE`](crate::slots::NONE) for none).
fn check_box_cast<T: Structure + ?Sized>(
    index: &T,
    cast: &BoxCast<T::Bounds>,
) -> Result<u32, Error> {
    check_rect(cast.rect)?;
    let motion = cast.motion.as_ref();
    if !motion.iter().all(|m| m.is_finite()) {
        return Err(Error::InvalidMotion {
            dx: motion[0],
            dy: motion[1],
            dz: motion.get(2).copied(),
        });
    }
    index.omit_slot(cast.omit)
}

/// Batches of at least this many handles, and a quarter of the elements,
/// may go through [`overlapping_by_pairs`].
const PAIRS_FROM: usize = 256;

/// Whether `overlapping_many` of `handles` handles among `live` elements
/// answers them by one pair walk ([`overlapping_by_pairs`]): batches of at
/// least [`PAIRS_FROM`] handles and a quarter of the elements.
pub(crate) fn by_pairs(handles: usize, live: usize) -> bool {
    handles >= PAIRS_FROM && handles * 4 >= live
}

/// [`SpatialIndex::overlapping_many`] of live `handles` through one pair walk:
/// every intersecting pair with a requested element is buffered, the rows are
/// counted, then filled (a counting sort). The buffer and the row of each slot
/// live in `hits` and `offsets`, which keep their capacity, so a warm frame
/// allocates nothing. Returns `false`, having written nothing meaningful, if a
/// handle is given twice (a slot can have one row only here).
fn overlapping_by_pairs<T: SpatialIndex>(
    index: &T,
    handles: &[Handle],
    offsets: &mut Vec<usize>,
    hits: &mut Vec<Handle>,
) -> bool {
    const NO_ROW: usize = usize::MAX;
    let rows = handles.len();
    // offsets[..=rows]: counts, then starts, then ends of the rows;
    // offsets[rows + 1..]: the row of each slot.
    offsets.clear();
    offsets.resize(rows + 1 + index.slot_count(), NO_ROW);
    let (counts, row_of) = offsets.split_at_mut(rows + 1);
    counts.fill(0);
    for (row, handle) in handles.iter().enumerate() {
        let at = &mut row_of[handle.slot() as usize];
        if *at != NO_ROW {
            return false;
        }
        *at = row;
    }
    // Each pair as the two slots in one word.
    hits.clear();
    let _ = index.pairs_with(|a, b| {
        let (row_a, row_b) = (row_of[a.slot() as usize], row_of[b.slot() as usize]);
        if row_a != NO_ROW {
            counts[row_a] += 1;
        }
        if row_b != NO_ROW {
            counts[row_b] += 1;
        }
        if (row_a != NO_ROW) | (row_b != NO_ROW) {
            hits.push(Handle::from_raw(
                u64::from(a.slot()) | u64::from(b.slot()) << 32,
            ));
        }
        ControlFlow::Continue(())
    });
    let mut total = 0;
    for count in &mut counts[..rows] {
        let n = *count;
        *count = total;
        total += n;
    }
    let buffered = hits.len();
    hits.resize(buffered + total, Handle::from_raw(0));
    let (pairs, out) = hits.split_at_mut(buffered);
    for pair in pairs.iter() {
        let raw = pair.to_raw();
        let (a, b) = (raw as u32, (raw >> 32) as u32);
        for (from, to) in [(a, b), (b, a)] {
            let row = row_of[from as usize];
            if row != NO_ROW {
                out[counts[row]] = index.handle_at(to);
                counts[row] += 1;
            }
        }
    }
    hits.copy_within(buffered.., 0);
    hits.truncate(total);
    // counts[i] is now the end of row i: shift them into offsets[i + 1].
    offsets.truncate(rows + 1);
    offsets.copy_within(..rows, 1);
    offsets[0] = 0;
    true
}

/// `stats` with its node, leaf, link and depth counts filled in from a walk of
/// `index`'s [`traverse`](SpatialIndex::traverse) (for the trees; the grids
/// count their cells directly).
pub(crate) fn count_walk<T: SpatialIndex>(index: &T, mut stats: Stats) -> Stats {
    let (mut branches, mut deepest_branch) = (0, 0);
    let _ = index.traverse(
        |info| {
            branches += 1;
            deepest_branch = deepest_branch.max(info.depth);
            ControlFlow::Continue(())
        },
        |info| {
            stats.leaves += 1;
            stats.empty_leaves += (info.count == 0) as usize;
            stats.element_links += info.count as usize;
            stats.max_depth_reached = stats.max_depth_reached.max(info.depth);
            ControlFlow::Continue(())
        },
    );
    stats.nodes = stats.leaves + branches;
    stats.max_depth_reached = stats.max_depth_reached.max(deepest_branch);
    stats
}

/// Every pair of `index` into `pairs` (cleared first), whatever the filters.
#[cfg(feature = "rayon")]
pub(crate) fn pairs_into<T: Structure + ?Sized>(index: &T, pairs: &mut Vec<(Handle, Handle)>) {
    pairs.clear();
    let _ = index.pairs_checked(collect_pairs(pairs));
}

/// A pair walk's visitor that adds every pair to `pairs`, to the end.
pub(crate) fn collect_pairs(
    pairs: &mut Vec<(Handle, Handle)>,
) -> impl FnMut(Handle, Handle) -> ControlFlow<()> + '_ {
    move |a, b| {
        pairs.push((a, b));
        ControlFlow::Continue(())
    }
}

/// A radius or maximum distance the searches accept (`>= 0`, +∞ included),
/// or [`Error::InvalidDistance`].
pub(crate) fn check_distance(name: &'static str, value: f64) -> Result<f64, Error> {
    if value >= 0.0 {
        Ok(value)
    } else {
        Err(Error::InvalidDistance { name, found: value })
    }
}

/// An optional maximum distance, +∞ for none.
pub(crate) fn check_max_distance(max_distance: Option<f64>) -> Result<f64, Error> {
    max_distance.map_or(Ok(f64::INFINITY), |d| check_distance("max_distance", d))
}

/// A ray the casts accept: finite origin, finite non-zero direction, finite
/// `max_length >= 0`.
pub(crate) fn check_ray<B: Bounds>(ray: &Ray<B::Point>) -> Result<(), Error> {
    check_point::<B>(ray.origin)?;
    let d = ray.direction.as_ref();
    if !d.iter().all(|v| v.is_finite()) || d.iter().all(|&v| v == 0.0) {
        return Err(B::invalid_direction(ray.direction));
    }
    if !(ray.max_length >= 0.0 && ray.max_length.is_finite()) {
        return Err(Error::InvalidDistance {
            name: "max_length",
            found: ray.max_length,
        });
    }
    Ok(())
}

/// [`Error::LengthMismatch`] unless two batch slices are equally long.
pub(crate) fn check_lengths(expected: usize, found: usize) -> Result<(), Error> {
    if expected == found {
        Ok(())
    } else {
        Err(Error::LengthMismatch { expected, found })
    }
}

/// A visitor that pushes every handle it is given.
#[inline]
pub(crate) fn collect_into(hits: &mut Vec<Handle>) -> impl FnMut(Handle) -> ControlFlow<()> + '_ {
    |handle| {
        hits.push(handle);
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
mod tests {
    use super::{AnyIndex, Kind, SpatialIndex};
    use crate::{Handle, Query, Rect};

    /// `overlapping_many` by one pair walk (big batches) gives the rows one
    /// `overlapping` each gives: whole and partial batches, big elements, a
    /// freed slot, and a handle given twice (which takes the other route).
    #[test]
    fn overlapping_many_by_pairs_matches_one_by_one() {
        let world = Rect::new(0.0, 0.0, 256.0, 256.0);
        let mut rng = crate::test_lcg::Lcg32::new(7);
        let mut next = move || rng.unit();
        for kind in Kind::ALL_2D {
            let mut index = AnyIndex::for_world(kind, world).unwrap();
            let rects: Vec<Rect> = (0..2000)
                .map(|i| {
                    let side = if i % 97 == 0 {
                        120.0
                    } else {
                        1.0 + 3.0 * next()
                    };
                    let (x, y) = (next() * 256.0, next() * 256.0);
                    Rect::new(x, y, x + side, y + side)
                })
                .collect();
            let ids: Vec<u32> = (0..rects.len() as u32).collect();
            let mut handles = Vec::new();
            index.insert_many(&rects, &ids, &mut handles).unwrap();
            index.remove(handles[3]).unwrap();
            handles.swap_remove(3);
            let check = |batch: &[Handle]| {
                let (mut offsets, mut hits, mut one) = (Vec::new(), Vec::new(), Vec::new());
                index
                    .overlapping_many(batch, &mut offsets, &mut hits)
                    .unwrap();
                assert_eq!(offsets.len(), batch.len() + 1);
                assert_eq!(offsets[batch.len()], hits.len());
                for (row, &handle) in batch.iter().enumerate() {
                    index.query(&Query::element(handle), &mut one).unwrap();
                    let mut got = hits[offsets[row]..offsets[row + 1]].to_vec();
                    got.sort_unstable();
                    one.sort_unstable();
                    assert_eq!(got, one, "{kind:?} row {row}");
                }
            };
            check(&handles);
            check(&handles[500..1200]);
            let mut twice = handles[..600].to_vec();
            twice.push(handles[10]);
            check(&twice);
        }
    }

    /// A batch of element queries that each carry a mask, or each leave out a
    /// neighbour, is not `overlapping_many` of their handles
    /// ([`Query::plain_element`]): its rows are the single queries', on one
    /// thread and on rayon's.
    #[test]
    fn element_queries_with_a_mask_or_an_omit_answer_as_themselves() {
        let world = Rect::new(0.0, 0.0, 64.0, 64.0);
        for kind in Kind::ALL_2D {
            let mut index = AnyIndex::for_world(kind, world).unwrap();
            let rects: Vec<Rect> = (0..400)
                .map(|i| {
                    let (x, y) = ((i % 20) as f32 * 3.0, (i / 20) as f32 * 3.0);
                    Rect::new(x, y, x + 4.0, y + 4.0)
                })
                .collect();
            let ids: Vec<u32> = (0..rects.len() as u32).collect();
            let mut handles = Vec::new();
            index.insert_many(&rects, &ids, &mut handles).unwrap();
            let masked: Vec<Query> = handles.iter().map(|&h| Query::element(h).mask(0)).collect();
            let omitting: Vec<Query> = handles
                .iter()
                .zip(handles.iter().cycle().skip(1))
                .map(|(&h, &next)| Query::element(h).omit(next))
                .collect();
            for batch in [&masked, &omitting] {
                let (mut offsets, mut hits, mut one) = (Vec::new(), Vec::new(), Vec::new());
                let mut answers = vec![];
                index.query_many(batch, &mut offsets, &mut hits).unwrap();
                answers.push((offsets.clone(), hits.clone()));
                #[cfg(feature = "rayon")]
                {
                    index
                        .par_query_many(batch, &mut offsets, &mut hits)
                        .unwrap();
                    answers.push((offsets.clone(), hits.clone()));
                }
                for (offsets, hits) in answers {
                    for (row, query) in batch.iter().enumerate() {
                        index.query(query, &mut one).unwrap();
                        let mut got = hits[offsets[row]..offsets[row + 1]].to_vec();
                        got.sort_unstable();
                        one.sort_unstable();
                        assert_eq!(got, one, "{kind:?} row {row}");
                    }
                }
            }
        }
    }
}
