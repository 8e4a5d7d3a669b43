//! A query as a value: the shape looked for and its options, checked once and
//! answered by one traversal per result style ([`SpatialIndex::visit`],
//! [`SpatialIndex::query`], [`SpatialIndex::query_many`],
//! [`SpatialIndex::locate`]), the same for every shape.

use core::ops::ControlFlow;

use super::raw::{Structure, PREFETCH_AHEAD};
use super::search::circle_box;
use super::{check_distance, check_point, check_rect, QueryColumns};
use crate::slots::NONE;
use crate::{Bounds, Error, Filter, Handle, Rect};

#[cfg(doc)]
use super::SpatialIndex;

/// What a [`Query`] looks for: the elements whose closed box meets it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape<B: Bounds = Rect> {
    /// A closed rectangle (an axis-aligned box in 3D).
    Rect(B),
    /// A point: the elements whose box holds it.
    Point(B::Point),
    /// A closed disc (a ball in 3D): the elements whose box is at most
    /// `radius` from `center` ([`Bounds::distance_to_point`], in `f64`).
    Circle {
        /// The centre.
        center: B::Point,
        /// The radius, `>= 0`; `+∞` reaches everything.
        radius: f64,
    },
    /// The other elements meeting this live element's box whose collision
    /// [`Filter`]s collide with its own: what the element touches in a
    /// collision loop. Structures that know where an element lies start there.
    Element(Handle),
}

/// A query: a [`Shape`] and the options every shape takes. Build it with
/// [`Query::rect`], [`Query::point`], [`Query::circle`] or
/// [`Query::element`], then [`mask`](Query::mask) and [`omit`](Query::omit):
///
/// ```
/// use flatquad::{Grid, Query, Rect, SpatialIndex};
/// let mut grid = Grid::for_world(Rect::new(0.0, 0.0, 100.0, 100.0))?;
/// let a = grid.insert(Rect::new(10.0, 10.0, 20.0, 20.0), 0)?;
/// let b = grid.insert(Rect::new(15.0, 15.0, 25.0, 25.0), 1)?;
/// let mut hits = Vec::new();
/// grid.query(&Query::rect(Rect::new(0.0, 0.0, 12.0, 12.0)), &mut hits)?;
/// assert_eq!(hits, [a]);
/// grid.query(&Query::circle([30.0, 20.0], 5.0), &mut hits)?;
/// assert_eq!(hits, [b]);
/// grid.query(&Query::element(a), &mut hits)?; // what `a` touches
/// assert_eq!(hits, [b]);
/// grid.query(&Query::point([16.0, 16.0]).omit(a), &mut hits)?;
/// assert_eq!(hits, [b]);
/// # Ok::<(), flatquad::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Query<B: Bounds = Rect> {
    /// What to look for.
    pub shape: Shape<B>,
    /// A collision mask: only the elements whose [`Filter`] category `& mask
    /// != 0` are reported ([`Filter::ALL`], the default: every element; 0:
    /// none).
    pub mask: u32,
    /// An element to leave out of the answer (the querying element, say).
    pub omit: Option<Handle>,
}

impl<B: Bounds> Query<B> {
    /// The elements meeting `shape`, with no mask and nothing left out.
    pub const fn new(shape: Shape<B>) -> Query<B> {
        Query {
            shape,
            mask: Filter::ALL,
            omit: None,
        }
    }

    /// The elements whose closed box meets the closed `rect`.
    pub const fn rect(rect: B) -> Query<B> {
        Query::new(Shape::Rect(rect))
    }

    /// The elements whose closed box holds `point`.
    pub const fn point(point: B::Point) -> Query<B> {
        Query::new(Shape::Point(point))
    }

    /// The elements whose closed box is at most `radius` from `center`.
    pub const fn circle(center: B::Point, radius: f64) -> Query<B> {
        Query::new(Shape::Circle { center, radius })
    }

    /// The other elements meeting `element`'s box whose filters collide with
    /// its own ([`Shape::Element`]).
    pub const fn element(element: Handle) -> Query<B> {
        Query::new(Shape::Element(element))
    }

    /// The same query reporting only the elements whose category is in `mask`.
    #[must_use]
    pub const fn mask(self, mask: u32) -> Query<B> {
        Query { mask, ..self }
    }

    /// The same query leaving `element` out of the answer.
    #[must_use]
    pub const fn omit(self, element: Handle) -> Query<B> {
        Query {
            omit: Some(element),
            ..self
        }
    }

    /// The element this query asks about, if it is a plain element query (no
    /// mask, nothing left out): a batch of those is
    /// [`overlapping_many`](SpatialIndex::overlapping_many) of their handles,
    /// with the same rows, and the batch calls answer it so. `None` for any
    /// other query.
    ///
    /// ```
    /// use flatquad::{Handle, Query, Rect};
    /// let h = Handle::from_raw(5);
    /// assert_eq!(Query::<Rect>::element(h).plain_element(), Some(h));
    /// assert_eq!(Query::<Rect>::element(h).mask(1).plain_element(), None);
    /// assert_eq!(Query::<Rect>::point([0.0, 0.0]).plain_element(), None);
    /// ```
    pub fn plain_element(&self) -> Option<Handle> {
        match self.shape {
            Shape::Element(handle) if self.mask == Filter::ALL && self.omit.is_none() => {
                Some(handle)
            }
            _ => None,
        }
    }

    /// One rectangle query per `rects[i]`, leaving out `omit[i]` if given (a
    /// raw handle 0 leaves nothing out of that row: [`Handle::optional`]): the
    /// columns a binding receives, as values for
    /// [`query_many`](SpatialIndex::query_many).
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] if `omit` is not as long as `rects`.
    pub fn of_rects(rects: &[B], omit: Option<&[Handle]>) -> Result<Vec<Query<B>>, Error> {
        Ok(QueryColumns::rects(rects, omit)?.to_queries())
    }

    /// One circle query per `(centers[i], radii[i])`, with `mask`.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] if `radii` is not as long as `centers`.
    pub fn of_circles(
        centers: &[B::Point],
        radii: &[f64],
        mask: u32,
    ) -> Result<Vec<Query<B>>, Error> {
        Ok(QueryColumns::circles(centers, radii, mask)?.to_queries())
    }

    /// The query with its arguments checked against `index`: valid boxes,
    /// finite points, a radius `>= 0`, live handles.
    #[inline(always)]
    pub(crate) fn check<T>(&self, index: &T) -> Result<Checked<B>, Error>
    where
        T: Structure<Bounds = B> + ?Sized,
    {
        let shape = match self.shape {
            Shape::Rect(rect) => CheckedShape::Rect(check_rect(rect)?),
            Shape::Point(point) => {
                check_point::<B>(point)?;
                CheckedShape::Point(point)
            }
            Shape::Circle { center, radius } => {
                check_point::<B>(center)?;
                check_distance("radius", radius)?;
                CheckedShape::Circle {
                    center,
                    radius,
                    around: circle_box::<B>(center, radius),
                }
            }
            Shape::Element(handle) => CheckedShape::Element(index.lookup(handle)?),
        };
        let omit = index.omit_slot(self.omit)?;
        Ok(Checked {
            shape,
            mask: self.mask,
            omit,
        })
    }
}

impl<B: Bounds> From<Shape<B>> for Query<B> {
    fn from(shape: Shape<B>) -> Query<B> {
        Query::new(shape)
    }
}

/// A [`Query`] whose arguments were checked: handles turned into live slots.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Checked<B: Bounds> {
    shape: CheckedShape<B>,
    mask: u32,
    /// The slot left out, or [`NONE`].
    omit: u32,
}

#[derive(Clone, Copy, Debug)]
enum CheckedShape<B: Bounds> {
    Rect(B),
    Point(B::Point),
    Circle {
        center: B::Point,
        radius: f64,
        /// A box holding every point within `radius` of `center`.
        around: B,
    },
    /// A live slot.
    Element(u32),
}

impl<B: Bounds> Checked<B> {
    /// Calls `visit` with each element the query reports, each once, until
    /// `visit` breaks: the structure's own walk for the shape, then the
    /// options. The one place every result style goes through.
    #[inline]
    pub(crate) fn run<T, F>(&self, index: &T, mut visit: F) -> ControlFlow<()>
    where
        T: Structure<Bounds = B> + ?Sized,
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        let mask = self.mask;
        if mask == 0 {
            return ControlFlow::Continue(());
        }
        // A mask that lets everything through, or no filter ever set: the
        // shape's walk calls `visit` itself (no wrapper in the hot loop).
        if mask == Filter::ALL || !index.filtered() {
            return self.walk(index, visit);
        }
        self.walk(index, |handle: Handle| {
            if index.passes_mask(handle.slot(), mask) {
                visit(handle)
            } else {
                ControlFlow::Continue(())
            }
        })
    }

    /// The shape's walk, `omit` left out, the mask already in `visit`.
    #[inline(always)]
    fn walk<T, F>(&self, index: &T, mut visit: F) -> ControlFlow<()>
    where
        T: Structure<Bounds = B> + ?Sized,
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        let omit = self.omit;
        match self.shape {
            CheckedShape::Rect(rect) => index.query_checked(rect, omit, visit),
            CheckedShape::Point(point) => index.query_point_checked(point, omit, visit),
            CheckedShape::Circle {
                center,
                radius,
                around,
            } => index.query_checked(around, omit, |handle| {
                if index.rect_at(handle.slot()).distance_to_point(center) <= radius {
                    visit(handle)
                } else {
                    ControlFlow::Continue(())
                }
            }),
            CheckedShape::Element(slot) => overlapping(index, slot, omit, visit),
        }
    }
}

/// What the live `slot` touches ([`Shape::Element`]): the other elements
/// meeting its box whose filters collide with its own, leaving out `omit`.
/// The one collision rule of the neighbour queries, also called directly by
/// `overlapping_many` (whose handles are checked already).
#[inline(always)]
pub(crate) fn overlapping<T, F>(index: &T, slot: u32, omit: u32, mut visit: F) -> ControlFlow<()>
where
    T: Structure + ?Sized,
    F: FnMut(Handle) -> ControlFlow<()>,
{
    let own = index.filtered().then(|| index.filter_at(slot));
    // The per-agent query of a collision loop: with no filter and nothing
    // left out, nothing to test per neighbour.
    if own.is_none() && omit == NONE {
        return index.overlapping_checked(slot, visit);
    }
    index.overlapping_checked(slot, |other| {
        let other_slot = other.slot();
        if other_slot == omit || own.is_some_and(|own| !own.collides(index.filter_at(other_slot))) {
            ControlFlow::Continue(())
        } else {
            visit(other)
        }
    })
}

/// Calls `each(at, handle)` for every live, checked handle of a batch of
/// neighbour queries, in order, after asking the structure to fetch what the
/// later items will read (the first ones' slots at once, so that their misses
/// overlap): the loop of `overlapping_many` and of the pair tracker.
#[inline(always)]
pub(crate) fn overlapping_batch<T, F>(index: &T, handles: &[Handle], mut each: F)
where
    T: Structure + ?Sized,
    F: FnMut(usize, Handle),
{
    for &handle in handles.iter().take(PREFETCH_AHEAD) {
        index.prefetch_slot(handle);
    }
    for (at, &handle) in handles.iter().enumerate() {
        index.prefetch_overlapping(handles, at);
        each(at, handle);
    }
}

/// The handles of a batch made only of plain element queries
/// ([`Query::plain_element`]: a collision loop's per-agent queries), which
/// [`SpatialIndex::overlapping_many`] answers with the same rows, its slots
/// fetched ahead and a batch of most elements by one pair walk; `None` for
/// any other batch (found at its first other query) or an empty one.
pub(crate) fn plain_elements<B: Bounds>(queries: &[Query<B>]) -> Option<Vec<Handle>> {
    if queries.is_empty() {
        return None;
    }
    queries.iter().map(Query::plain_element).collect()
}

/// Checks every query of a batch: the first bad one's error, inside
/// [`Error::InBatch`].
pub(crate) fn check_all<T>(index: &T, queries: &[Query<T::Bounds>]) -> Result<(), Error>
where
    T: Structure + ?Sized,
{
    for (at, query) in queries.iter().enumerate() {
        query.check(index).map_err(|e| e.in_batch(at))?;
    }
    Ok(())
}

/// Checks and answers each query in turn, appending each row's end to `ends`
/// and its hits to `hits`: the first bad query's error (its index counted from
/// `first`) stops it, leaving the buffers part-written. The serial batch calls
/// it on queries it checked before writing anything (the checks are repeated
/// rather than kept, so that a warm batch allocates nothing); the parallel
/// batch's chunks, whose buffers are their own, check only here.
pub(crate) fn check_and_run_all<T>(
    index: &T,
    queries: &[Query<T::Bounds>],
    first: usize,
    ends: &mut Vec<usize>,
    hits: &mut Vec<Handle>,
) -> Result<(), Error>
where
    T: Structure + ?Sized,
{
    for (at, query) in queries.iter().enumerate() {
        let query = query.check(index).map_err(|e| e.in_batch(first + at))?;
        let _ = query.run(index, super::collect_into(hits));
        ends.push(hits.len());
    }
    Ok(())
}
