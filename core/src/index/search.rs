//! Nearest neighbours, circle (sphere) queries, ray casts and box casts,
//! written once for every structure: a best-first walk (a binary heap of
//! nodes and elements by key) or a depth-first branch and bound over each
//! structure's one primitive, [`search_roots`](Structure::search_roots) /
//! [`search_expand`](Structure::search_expand). Where a structure's
//! rectangle queries are cheap, the nearest go by squares about the point
//! first ([`Structure::nearest_squares`]), and the first hits of rays and
//! box casts by pieces of their path ([`Structure::ray_pieces`]), each
//! falling back to the descent when that does not settle them.
//!
//! Keys: an element's key is computed by exactly the function a brute-force
//! scan would use ([`Bounds::distance_to_point`], [`Bounds::ray_entry`]), so
//! results are the same bits. A node's key is a lower bound of the keys of
//! the elements it leads to (distance to, or ray entry into, its box), lowered
//! by a relative `NODE_MARGIN`: a tight node's box holds only part of an
//! element, and rounding on different axes could otherwise put the node an
//! ulp above an element it leads to.
//!
//! Order: ascending `(key, id, handle raw value)`; at an equal key nodes pop
//! before elements. With the structures' exactness condition, every element
//! smaller in that order than the one being popped has been popped already,
//! so an element popped again (listed in several leaves, reached through
//! several cells) is one not above the last element popped, and is skipped.

use core::cmp::Ordering;
use core::ops::ControlFlow;
use std::collections::BinaryHeap;

use crate::axis::Axis;
use crate::index::check_lengths;
use crate::index::raw::{mean_side, side_of, Pieces, SearchItem, Structure};
use crate::slots::NONE;
use crate::{Bounds, Error, Handle, Rect, SpatialIndex};

/// How much node keys are lowered, relatively: far above the `f64` rounding
/// of a key (a few units of 2^-53), far below anything that costs work.
const NODE_MARGIN: f64 = 1e-12;

/// One neighbour found by [`nearest`](crate::SpatialIndex::nearest).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Neighbor {
    /// The element.
    pub handle: Handle,
    /// Its id.
    pub id: u32,
    /// The distance from the query point to its closed box
    /// ([`Bounds::distance_to_point`]), 0 when the box holds the point.
    pub distance: f64,
}

/// A segment to cast: from `origin` along `direction` for `max_length`
/// (`P` is `[f32; 2]` in 2D, `[f32; 3]` in 3D).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray<P> {
    /// Where the ray starts; finite.
    pub origin: P,
    /// Its direction: finite and not zero, of any length (it is normalised
    /// in `f64`, see [`unit_direction`](Ray::unit_direction)).
    pub direction: P,
    /// How far the ray goes, in the units of the coordinates: finite and
    /// `>= 0` (0 hits the elements holding the origin).
    pub max_length: f64,
}

impl<P: Copy> Ray<P> {
    /// One ray per `(origins[i], directions[i], max_lengths[i])`: the columns
    /// a binding receives, as values for
    /// [`ray_cast_many`](crate::SpatialIndex::ray_cast_many). The rays'
    /// values are checked there.
    ///
    /// ```
    /// use flatquad::{Error, Ray};
    /// let (origins, directions) = ([[0.0f32, 0.0], [5.0, 5.0]], [[1.0f32, 0.0], [0.0, -1.0]]);
    /// let rays = Ray::of_columns(&origins, &directions, &[10.0, 20.0])?;
    /// assert_eq!(rays[1], Ray { origin: [5.0, 5.0], direction: [0.0, -1.0], max_length: 20.0 });
    /// let refused = Ray::of_columns(&origins, &directions[..1], &[10.0, 20.0]);
    /// assert_eq!(refused, Err(Error::LengthMismatch { expected: 2, found: 1 }));
    /// # Ok::<(), Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] if `directions`, then `max_lengths`, is not
    /// as long as `origins`.
    pub fn of_columns(
        origins: &[P],
        directions: &[P],
        max_lengths: &[f64],
    ) -> Result<Vec<Ray<P>>, Error> {
        check_lengths(origins.len(), directions.len())?;
        check_lengths(origins.len(), max_lengths.len())?;
        Ok(origins
            .iter()
            .zip(directions)
            .zip(max_lengths)
            .map(|((&origin, &direction), &max_length)| Ray {
                origin,
                direction,
                max_length,
            })
            .collect())
    }
}

impl<P: AsRef<[f32]>> Ray<P> {
    /// The direction scaled to length 1 in `f64` (0 on the axes past the
    /// point's), the one the casts use; all zeros for a zero direction.
    pub fn unit_direction(&self) -> [f64; 3] {
        let d = self.direction.as_ref();
        let mut unit = [0.0; 3];
        let mut length = 0.0f64;
        for (u, &v) in unit.iter_mut().zip(d) {
            *u = f64::from(v);
            length += *u * *u;
        }
        let length = length.sqrt();
        if length > 0.0 {
            for u in &mut unit {
                *u /= length;
            }
        }
        unit
    }

    /// The origin in `f64`.
    fn origin_f64(&self) -> [f64; 3] {
        let mut origin = [0.0; 3];
        for (o, &v) in origin.iter_mut().zip(self.origin.as_ref()) {
            *o = f64::from(v);
        }
        origin
    }

    /// Where the ray first touches the closed box `b` (its distance from the
    /// origin along the ray), or `None`: the value the casts report, for a
    /// brute-force check.
    pub fn entry_into<B: Bounds<Point = P>>(&self, b: &B) -> Option<f64> {
        b.ray_entry(&self.origin_f64(), &self.unit_direction(), self.max_length)
    }
}

/// One element a ray cast hit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// The element.
    pub handle: Handle,
    /// Its id.
    pub id: u32,
    /// The distance along the ray from the origin to where the ray first
    /// touches the element's closed box ([`Ray::entry_into`]): 0 when the
    /// origin is inside or on it.
    pub distance: f64,
    /// `distance / max_length` of the ray as given (0 when `max_length` is 0).
    pub fraction: f64,
}

/// What [`ray_cast_with`](crate::SpatialIndex::ray_cast_with)'s visitor
/// asks for after a hit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RayControl {
    /// Go on to the next hit.
    Continue,
    /// Shorten the ray to this length (kept if longer than the current
    /// one): only hits at most this far are visited from now on (a hit at
    /// exactly this distance still is). NaN or a negative length stops.
    Clip(f64),
    /// Stop the cast.
    Stop,
}

/// A heap entry: a node or an element with its key. `Ord` is reversed, so
/// that [`BinaryHeap`] pops the smallest `(key, node before element, id,
/// handle)` first.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    key: f64,
    element: bool,
    id: u32,
    handle: u64,
    /// The node's id, or the element's slot.
    node: u128,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Entry) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Entry) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Entry) -> Ordering {
        other
            .key
            .total_cmp(&self.key)
            .then(other.element.cmp(&self.element))
            .then(other.id.cmp(&self.id))
            .then(other.handle.cmp(&self.handle))
            .then(other.node.cmp(&self.node))
    }
}

/// The heap a walk uses; batch calls reuse one across their queries.
pub(crate) type Heap = BinaryHeap<Entry>;

/// A heap with room for a typical walk's entries (a few dozen), so that a
/// single query allocates once.
pub(crate) fn heap() -> Heap {
    Heap::with_capacity(64)
}

/// What a walk's visitor says: go on, ending the walk at keys above the
/// given limit, or stop.
pub(crate) enum Walk {
    Continue(f64),
    Stop,
}

/// The best-first walk: calls `visit(slot, key)` with each element passing
/// `mask` whose `element_key` is some key at most `limit`, in ascending
/// `(key, id, handle)` order, each once, until `visit` stops or the next key
/// is above the limit `visit` last gave. `node_key` gives a node's key (a
/// lower bound of its elements'), or `None` to prune it.
pub(crate) fn walk<T, N, E, V>(
    index: &T,
    heap: &mut Heap,
    mask: u32,
    mut limit: f64,
    node_key: N,
    element_key: E,
    mut visit: V,
) where
    T: Structure + ?Sized,
    N: Fn(&T::Bounds) -> Option<f64>,
    E: Fn(&T::Bounds) -> Option<f64>,
    V: FnMut(u32, f64) -> Walk,
{
    heap.clear();
    if mask == 0 {
        return;
    }
    let entry = |item: SearchItem<T::Bounds>, limit: f64| -> Option<Entry> {
        let entry = match item {
            SearchItem::Node(node, b) => {
                if (0..T::Bounds::AXES).any(|axis| b.lo(axis) > b.hi(axis)) {
                    return None;
                }
                Entry {
                    key: node_key(&b)? * (1.0 - NODE_MARGIN) + 0.0,
                    element: false,
                    id: 0,
                    handle: 0,
                    node,
                }
            }
            SearchItem::Element(slot) => {
                if !index.passes_mask(slot, mask) {
                    return None;
                }
                Entry {
                    key: element_key(&index.rect_at(slot))?,
                    element: true,
                    id: index.id_at(slot),
                    handle: index.handle_at(slot).to_raw(),
                    node: u128::from(slot),
                }
            }
        };
        (entry.key <= limit).then_some(entry)
    };
    index.search_roots(&mut |item| {
        if let Some(e) = entry(item, limit) {
            heap.push(e);
        }
    });
    // The last element popped, duplicates included: anything not above it
    // was popped before (see the module's comment).
    let mut last: Option<Entry> = None;
    while let Some(popped) = heap.pop() {
        if popped.key > limit {
            break;
        }
        if !popped.element {
            index.search_expand(popped.node, &mut |item| {
                if let Some(e) = entry(item, limit) {
                    heap.push(e);
                }
            });
            continue;
        }
        // Reversed order: `>=` means "not above".
        if last.is_some_and(|last| popped >= last) {
            continue;
        }
        last = Some(popped);
        match visit(popped.node as u32, popped.key) {
            Walk::Continue(new_limit) => limit = new_limit,
            Walk::Stop => break,
        }
    }
    heap.clear();
}

/// The node key of a nearest search: the distance to the box.
#[inline]
pub(crate) fn point_node_key<B: Bounds>(point: B::Point) -> impl Fn(&B) -> Option<f64> {
    move |b: &B| Some(b.distance_to_point(point))
}

/// A checked nearest query: the point, `k`, the maximum distance (+∞ for
/// none) and the mask.
#[derive(Clone, Copy)]
pub(crate) struct Nearest<P> {
    pub point: P,
    pub k: usize,
    pub max_distance: f64,
    pub mask: u32,
}

/// The `k` (or fewer) nearest elements passing the mask and `accept`,
/// within the maximum distance, appended to `out`.
pub(crate) fn nearest<T, A>(
    index: &T,
    heap: &mut Heap,
    query: Nearest<<T::Bounds as Bounds>::Point>,
    mut accept: A,
    out: &mut Vec<Neighbor>,
) where
    T: Structure + ?Sized,
    A: FnMut(Handle) -> bool,
{
    let Nearest {
        point,
        k,
        max_distance,
        mask,
    } = query;
    if k == 0 {
        return;
    }
    if scans(index, k) {
        let mut candidates = Vec::new();
        scan_sorted(
            index,
            mask,
            NONE,
            max_distance,
            &|b: &T::Bounds| Some(b.distance_to_point(point)),
            &mut candidates,
        );
        out.extend(candidates.into_iter().filter(|n| accept(n.handle)).take(k));
        return;
    }
    let mut found = 0;
    walk(
        index,
        heap,
        mask,
        max_distance,
        point_node_key::<T::Bounds>(point),
        |b: &T::Bounds| Some(b.distance_to_point(point)),
        |slot, distance| {
            let handle = index.handle_at(slot);
            if accept(handle) {
                out.push(Neighbor {
                    handle,
                    id: index.id_at(slot),
                    distance,
                });
                found += 1;
                if found == k {
                    return Walk::Stop;
                }
            }
            Walk::Continue(max_distance)
        },
    );
}

impl RayHit {
    /// A box cast's hit at fraction `t` of a motion `length` long.
    fn of_cast(handle: Handle, id: u32, t: f64, length: f64) -> RayHit {
        RayHit {
            handle,
            id,
            distance: t * length,
            fraction: t,
        }
    }

    /// The hit at `distance` along a ray of `max_length`.
    fn new(handle: Handle, id: u32, distance: f64, max_length: f64) -> RayHit {
        let fraction = if max_length > 0.0 {
            distance / max_length
        } else {
            0.0
        };
        RayHit {
            handle,
            id,
            distance,
            fraction,
        }
    }
}

/// A ray's key for a node: where it enters the box, if it meets the box up
/// to rounding (both ends widened by the node margin). The slabs are cut by
/// multiplying with the direction's reciprocals rather than dividing (a
/// node test is made per child, an element test only at the leaves): a
/// product rounds at most an ulp or two away from the quotient, far inside
/// the node margin, and a unit direction's nonzero components are at least
/// about 1e-83, so no reciprocal overflows.
fn ray_node_key<B: Bounds>(
    b: &B,
    origin: &[f64; 3],
    inverse: &[f64; 3],
    max_length: f64,
) -> Option<f64> {
    let (mut enter, mut exit) = (0.0f64, max_length);
    for axis in 0..B::AXES {
        let (o, inv) = (origin[axis], inverse[axis]);
        let (lo, hi) = (f64::from(b.lo(axis)), f64::from(b.hi(axis)));
        if inv.is_infinite() {
            // Parallel to this axis (a zero component).
            if o < lo || o > hi {
                return None;
            }
            continue;
        }
        let (t1, t2) = ((lo - o) * inv, (hi - o) * inv);
        let (near, far) = if t1 <= t2 { (t1, t2) } else { (t2, t1) };
        // Plain comparisons, not `max`/`min`: no NaN can arise here (finite
        // box, origin and reciprocal), so their NaN handling is wasted.
        if near > enter {
            enter = near;
        }
        if far < exit {
            exit = far;
        }
    }
    (enter * (1.0 - NODE_MARGIN) <= exit * (1.0 + NODE_MARGIN)).then_some(enter + 0.0)
}

/// The reciprocals of a unit direction's components (±∞ for a zero one).
fn reciprocals(direction: &[f64; 3]) -> [f64; 3] {
    direction.map(|d| 1.0 / d)
}

/// Casts a checked ray, calling `visit` with each hit in ascending order.
pub(crate) fn ray_cast<T, V>(
    index: &T,
    ray: &Ray<<T::Bounds as Bounds>::Point>,
    mask: u32,
    mut visit: V,
) where
    T: Structure + ?Sized,
    V: FnMut(&RayHit) -> RayControl,
{
    let origin = ray.origin_f64();
    let direction = ray.unit_direction();
    let inverse = reciprocals(&direction);
    let max_length = ray.max_length;
    let mut current = max_length;
    let mut heap = heap();
    walk(
        index,
        &mut heap,
        mask,
        max_length,
        |b: &T::Bounds| ray_node_key(b, &origin, &inverse, max_length),
        |b: &T::Bounds| b.ray_entry(&origin, &direction, max_length),
        |slot, distance| {
            let hit = RayHit::new(
                index.handle_at(slot),
                index.id_at(slot),
                distance,
                max_length,
            );
            match visit(&hit) {
                RayControl::Continue => Walk::Continue(current),
                RayControl::Clip(length) if length >= 0.0 => {
                    current = current.min(length);
                    Walk::Continue(current)
                }
                RayControl::Clip(_) | RayControl::Stop => Walk::Stop,
            }
        },
    );
}

/// A box cast: the closed box `rect` moved by `t · motion` for `t` in `[0, 1]`
/// (Box2D's and parry's shape cast, for boxes). What it hits is every element
/// whose closed box the moving box touches, at the smallest such `t`.
///
/// ```
/// use flatquad::{BoxCast, Grid, Rect, SpatialIndex};
/// let mut grid = Grid::for_world(Rect::new(0.0, 0.0, 100.0, 100.0))?;
/// let wall = grid.insert(Rect::new(50.0, 0.0, 55.0, 100.0), 7)?;
/// let agent = grid.insert(Rect::new(10.0, 10.0, 20.0, 20.0), 8)?;
/// // Can the agent move 40 to the right? It touches the wall after 3/4 of it.
/// let cast = BoxCast::new(grid.rect(agent)?, [40.0, 0.0]).omit(agent);
/// let hit = grid.box_cast(&cast)?.unwrap();
/// assert_eq!((hit.handle, hit.fraction, hit.distance), (wall, 0.75, 30.0));
/// # Ok::<(), flatquad::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxCast<B: Bounds = Rect> {
    /// The box at `t = 0`.
    pub rect: B,
    /// How far it moves by `t = 1` (`[dx, dy]`, or `[dx, dy, dz]` in 3D);
    /// finite, zero allowed (then only the boxes it touches where it is).
    pub motion: B::Point,
    /// A collision mask, as a [`Query`](crate::Query)'s ([`Filter::ALL`](crate::Filter::ALL) by default).
    pub mask: u32,
    /// An element left out (the moving element itself, say).
    pub omit: Option<Handle>,
}

impl<B: Bounds> BoxCast<B> {
    /// `rect` moved by `motion`, every element reported.
    pub const fn new(rect: B, motion: B::Point) -> BoxCast<B> {
        BoxCast {
            rect,
            motion,
            mask: crate::Filter::ALL,
            omit: None,
        }
    }

    /// The same cast reporting only the elements whose category is in `mask`.
    #[must_use]
    pub const fn mask(self, mask: u32) -> BoxCast<B> {
        BoxCast { mask, ..self }
    }

    /// The same cast leaving `element` out.
    #[must_use]
    pub const fn omit(self, element: Handle) -> BoxCast<B> {
        BoxCast {
            omit: Some(element),
            ..self
        }
    }

    /// The motion in `f64` (0 on the axes past the box's).
    fn motion_f64(&self) -> [f64; 3] {
        let mut motion = [0.0; 3];
        for (m, &v) in motion.iter_mut().zip(self.motion.as_ref()) {
            *m = f64::from(v);
        }
        motion
    }

    /// The motion in `f64` and its length: what a search keys and reports
    /// by.
    fn motion_and_length(&self) -> ([f64; 3], f64) {
        let motion = self.motion_f64();
        (motion, motion.iter().map(|m| m * m).sum::<f64>().sqrt())
    }

    /// The fraction `t` at which the moving box first touches the closed box
    /// `b`, or `None`: the key the casts order by, for a brute-force check.
    /// Per axis, `rect.lo + t·d <= b.hi` and `rect.hi + t·d >= b.lo`: the
    /// differences of `f32` bounds in `f64`, one division each.
    pub fn entry_into(&self, b: &B) -> Option<f64> {
        sweep_entry(&self.rect, &self.motion_f64(), b)
    }
}

/// The interval of `t` in `[0, 1]` over which `moving` moved by `t·motion`
/// meets the closed box `b` (empty when `enter > exit`), or `None` when an
/// axis it does not move along misses. Per axis `t·d` must lie in
/// `[b.lo - moving.hi, b.hi - moving.lo]`.
#[inline]
fn sweep_slab<B: Bounds>(moving: &B, motion: &[f64; 3], b: &B) -> Option<(f64, f64)> {
    let (mut enter, mut exit) = (0.0f64, 1.0f64);
    for (axis, &d) in motion.iter().enumerate().take(B::AXES) {
        let lo = f64::from(b.lo(axis)) - f64::from(moving.hi(axis));
        let hi = f64::from(b.hi(axis)) - f64::from(moving.lo(axis));
        if d == 0.0 {
            if lo > 0.0 || hi < 0.0 {
                return None;
            }
            continue;
        }
        let (t1, t2) = (lo / d, hi / d);
        let (near, far) = if t1 <= t2 { (t1, t2) } else { (t2, t1) };
        enter = enter.max(near);
        exit = exit.min(far);
    }
    Some((enter, exit))
}

/// [`BoxCast::entry_into`] of `moving` by `motion` into `b`.
fn sweep_entry<B: Bounds>(moving: &B, motion: &[f64; 3], b: &B) -> Option<f64> {
    let (enter, exit) = sweep_slab(moving, motion, b)?;
    (enter <= exit).then_some(enter + 0.0)
}

/// A box cast's key for a node: its entry into the node's box, lowered by the
/// node margin (a lower bound of the keys of the elements it leads to: where
/// the moving box first touches an element, it touches a node listing it).
fn sweep_node_key<B: Bounds>(moving: &B, motion: &[f64; 3], b: &B) -> Option<f64> {
    let (enter, exit) = sweep_slab(moving, motion, b)?;
    let slack = NODE_MARGIN * (1.0 + enter.abs() + exit.abs());
    (enter - slack <= exit + slack).then_some((enter - slack).max(0.0))
}

/// Calls `visit` with each hit of a checked box cast in ascending `(t, id,
/// handle)` order until it returns `false`; `omit` is a slot or [`NONE`](crate::slots::NONE).
pub(crate) fn box_cast<T, V>(index: &T, cast: &BoxCast<T::Bounds>, omit: u32, mut visit: V)
where
    T: Structure + ?Sized,
    V: FnMut(RayHit) -> bool,
{
    let (motion, length) = cast.motion_and_length();
    walk(
        index,
        &mut heap(),
        cast.mask,
        1.0,
        |b: &T::Bounds| sweep_node_key(&cast.rect, &motion, b),
        |b: &T::Bounds| sweep_entry(&cast.rect, &motion, b),
        |slot, t| {
            let hit = || RayHit::of_cast(index.handle_at(slot), index.id_at(slot), t, length);
            if slot == omit || visit(hit()) {
                Walk::Continue(1.0)
            } else {
                Walk::Stop
            }
        },
    );
}

/// The box of the circle (sphere) of `radius` around `center`, rounded
/// outward to `f32` with room to spare: every element whose
/// [`distance_to_point`](Bounds::distance_to_point) is at most `radius` meets
/// it. The margin, `(|c| + r) · 2^-50` on each side before rounding, is far
/// above the rounding of a computed distance, so an element outside the box
/// has a computed distance above `radius`. Clamped to `±f32::MAX`, so a huge
/// or infinite radius still gives a valid box.
pub(crate) fn circle_box<B: Bounds>(center: B::Point, radius: f64) -> B {
    let (mut lo, mut hi) = ([0.0f32; 3], [0.0f32; 3]);
    for (axis, &c) in center.as_ref().iter().enumerate() {
        let c = f64::from(c);
        let margin = (c.abs() + radius) * (1.0 / (1u64 << 50) as f64);
        lo[axis] = round_down(c - radius - margin);
        hi[axis] = round_up(c + radius + margin);
    }
    B::from_corners(lo, hi)
}

/// The largest finite `f32` at most `v` (`-f32::MAX` below that).
fn round_down(v: f64) -> f32 {
    let f = v.clamp(-f64::from(f32::MAX), f64::from(f32::MAX)) as f32;
    if f64::from(f) > v {
        next_toward_neg_inf(f)
    } else {
        f
    }
}

/// The smallest finite `f32` at least `v` (`f32::MAX` above that).
fn round_up(v: f64) -> f32 {
    -round_down(-v)
}

/// The `f32` just below finite `f` (not below `-f32::MAX`).
fn next_toward_neg_inf(f: f32) -> f32 {
    if f == -f32::MAX {
        f
    } else if f == 0.0 {
        -f32::from_bits(1)
    } else if f > 0.0 {
        f32::from_bits(f.to_bits() - 1)
    } else {
        f32::from_bits(f.to_bits() + 1)
    }
}

/// The implicit hierarchy over a grid's cell ranges that the grids' search
/// primitives share: a node is a range of columns and rows (16 bits each in
/// the low 64 bits of its id); a range splits its longer side in two, a
/// single cell is the grid's to expand. Range boxes come from the axes'
/// borders, infinite on the world's outer sides (the border cells own
/// everything beyond the world), so they hold every point their cells own.
pub(crate) struct CellRanges<'a> {
    pub x: &'a Axis,
    pub y: &'a Axis,
}

impl CellRanges<'_> {
    fn pack([x1, x2, y1, y2]: [u32; 4]) -> u128 {
        u128::from(x1) | u128::from(x2) << 16 | u128::from(y1) << 32 | u128::from(y2) << 48
    }

    fn item(&self, range: [u32; 4], tag: u128) -> SearchItem<Rect> {
        let [x1, x2, y1, y2] = range;
        let b = Rect::new(
            self.x.border(x1),
            self.y.border(y1),
            self.x.border(x2 + 1),
            self.y.border(y2 + 1),
        );
        SearchItem::Node(Self::pack(range) | tag, b)
    }

    /// The root range, every cell, with `tag` in the id's high bits.
    pub fn root(&self, tag: u128) -> SearchItem<Rect> {
        self.item([0, self.x.cells() - 1, 0, self.y.cells() - 1], tag)
    }

    /// Expands range node `id`: pushes its two halves (tagged `tag`) and
    /// returns `None`, or returns the single cell `(column, row)` it is.
    pub fn expand(
        &self,
        id: u128,
        tag: u128,
        push: &mut impl FnMut(SearchItem<Rect>),
    ) -> Option<(u32, u32)> {
        let field = |at: u32| (id >> at) as u32 & 0xffff;
        let [x1, x2, y1, y2] = [field(0), field(16), field(32), field(48)];
        if x1 == x2 && y1 == y2 {
            return Some((x1, y1));
        }
        if x2 - x1 >= y2 - y1 {
            let mid = x1 + (x2 - x1) / 2;
            push(self.item([x1, mid, y1, y2], tag));
            push(self.item([mid + 1, x2, y1, y2], tag));
        } else {
            let mid = y1 + (y2 - y1) / 2;
            push(self.item([x1, x2, y1, mid], tag));
            push(self.item([x1, x2, mid + 1, y2], tag));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::{point_node_key, walk, Heap, Walk};
    use crate::{AnyIndex, Bounds, Kind, Rect, SpatialIndex};

    /// Never a scan: a nearest query (k = 1) over 100,000 uniform elements
    /// computes the key of a few dozen elements (17 to 50 when written), not of
    /// all of them.
    #[test]
    fn nearest_examines_few_elements() {
        let world = Rect::new(0.0, 0.0, 1000.0, 1000.0);
        let mut rng = crate::test_lcg::Lcg32::new(11);
        let mut next = move || rng.unit() * 1000.0;
        let rects: Vec<Rect> = (0..100_000)
            .map(|_| {
                let (x, y) = (next(), next());
                Rect::new(x, y, x + 1.0, y + 1.0)
            })
            .collect();
        let ids: Vec<u32> = (0..rects.len() as u32).collect();
        for kind in Kind::ALL_2D {
            let mut index = AnyIndex::for_world(kind, world).unwrap();
            index.insert_many(&rects, &ids, &mut Vec::new()).unwrap();
            let mut heap = Heap::new();
            let mut most = 0;
            for _ in 0..100 {
                let point = [next(), next()];
                let examined = core::cell::Cell::new(0);
                let mut found = 0;
                walk(
                    &index,
                    &mut heap,
                    u32::MAX,
                    f64::INFINITY,
                    point_node_key::<Rect>(point),
                    |b: &Rect| {
                        examined.set(examined.get() + 1);
                        Some(b.distance_to_point(point))
                    },
                    |_, _| {
                        found += 1;
                        Walk::Stop
                    },
                );
                assert_eq!(found, 1);
                most = most.max(examined.get());
            }
            assert!(most < 200, "{kind:?}: {most} elements examined");
        }
    }

    /// 4,000 boxes of side 2 over the lower half of `(0, 0)..(1000, 1000)`
    /// and `stacked` equal boxes at (300, 300), each inserted as `boxed`
    /// makes it (a 3D index: a slab about one height), drawn from a
    /// generator seeded `seed`, which is returned for the test's own draws.
    fn field_with_a_stack<T: SpatialIndex>(
        index: &mut T,
        boxed: fn(Rect) -> T::Bounds,
        seed: u32,
        stacked: u32,
    ) -> crate::test_lcg::Lcg32 {
        let mut rng = crate::test_lcg::Lcg32::new(seed);
        for i in 0..4_000 {
            let (x, y) = (rng.unit() * 1000.0, rng.unit() * 500.0);
            index
                .insert(boxed(Rect::new(x, y, x + 2.0, y + 2.0)), i % 13)
                .unwrap();
        }
        for i in 0..stacked {
            index
                .insert(boxed(Rect::new(300.0, 300.0, 301.0, 301.0)), i)
                .unwrap();
        }
        rng
    }

    /// The squares settle nearly every search in a populated field, with the
    /// descent's answers, bit for bit, at 2,000 points (so a settle rule a
    /// little too loose would show); a point in a stack (every square
    /// crowded) and one in the world's empty half (past the widest square)
    /// are left to the descent, with nothing written.
    #[test]
    fn squares_settle_in_a_field_as_the_descent_would() {
        use super::{bounded, nearest_in_squares, Nearest, NodeStack, NONE};
        use crate::{Grid, LooseGrid, Neighbor, Quadtree};
        fn bits(n: &[Neighbor]) -> Vec<(u64, u32, u64)> {
            n.iter()
                .map(|n| (n.handle.to_raw(), n.id, n.distance.to_bits()))
                .collect()
        }
        fn check<T: SpatialIndex<Bounds = Rect>>(mut index: T) {
            let mut rng = field_with_a_stack(&mut index, |r| r, 5, 200);
            let query = |point, k, max_distance| Nearest {
                point,
                k,
                max_distance,
                mask: u32::MAX,
            };
            let (mut squares, mut descent, mut stack) = (Vec::new(), Vec::new(), NodeStack::new());
            let mut settled = 0;
            for q in 0..2_000 {
                let point = [rng.unit() * 1000.0, rng.unit() * 500.0];
                let (k, max) = (1 + q % 10, [f64::INFINITY, 5.0, 0.0][q % 3]);
                squares.clear();
                if !nearest_in_squares(&index, query(point, k, max), &mut squares) {
                    assert!(squares.is_empty());
                    continue;
                }
                settled += 1;
                descent.clear();
                let key = |b: &Rect| Some(b.distance_to_point(point));
                let node_key = point_node_key::<Rect>(point);
                bounded(
                    &index,
                    &mut stack,
                    k,
                    u32::MAX,
                    NONE,
                    max,
                    node_key,
                    key,
                    &mut descent,
                );
                assert_eq!(bits(&squares), bits(&descent), "{point:?} k {k} max {max}");
            }
            assert!(settled >= 1_900, "{settled} of 2,000 settled by squares");
            for point in [[300.5, 300.5], [500.0, 950.0]] {
                squares.clear();
                let settled =
                    nearest_in_squares(&index, query(point, 1, f64::INFINITY), &mut squares);
                assert!(!settled && squares.is_empty(), "{point:?}");
            }
        }
        let world = Rect::new(0.0, 0.0, 1000.0, 1000.0);
        check(Grid::for_world(world).unwrap());
        check(LooseGrid::for_world(world).unwrap());
        check(Quadtree::for_world(world).unwrap());
    }

    /// The pieces do settle casts in a field on the grids and the flat
    /// trees (the octree's field a slab, its casts level in it), each first
    /// hit the walk's; the trees' give up in a crowd (their budget) with
    /// nothing kept, where the grids' have none.
    #[test]
    fn pieces_settle_casts_in_a_field_as_the_walk_would() {
        use super::{box_cast, box_cast_first_in_pieces, ray_cast, ray_first_in_pieces};
        use super::{BoxCast, Ray, RayControl, RayHit, NONE};
        use crate::{Box3, Grid, LooseGrid, Octree, Quadtree};
        fn bits(hit: Option<RayHit>) -> Option<(u64, u32, u64)> {
            hit.map(|h| (h.handle.to_raw(), h.id, h.distance.to_bits()))
        }
        /// `boxed` lifts a 2D box into the index's, `lifted` a 2D point (at
        /// the given height, where the index has one).
        fn check<T: SpatialIndex>(
            mut index: T,
            crowd_settles: bool,
            boxed: fn(Rect) -> T::Bounds,
            lifted: fn([f32; 2], f32) -> <T::Bounds as Bounds>::Point,
        ) {
            let mut rng = field_with_a_stack(&mut index, boxed, 9, 300);
            let pieces = index.ray_pieces().unwrap();
            let mut settled = 0;
            for _ in 0..1_000 {
                let origin = [rng.unit() * 1000.0, rng.unit() * 500.0];
                let angle = rng.unit() * core::f32::consts::TAU;
                let direction = [angle.cos(), angle.sin()];
                let length = 1.0 + rng.unit() * 60.0;
                let ray = Ray {
                    origin: lifted(origin, 500.5),
                    direction: lifted(direction, 0.0),
                    max_length: f64::from(length),
                };
                let mut walked = None;
                ray_cast(&index, &ray, u32::MAX, |hit| {
                    walked = Some(*hit);
                    RayControl::Stop
                });
                if let Some(hit) = ray_first_in_pieces(&index, &ray, u32::MAX, pieces) {
                    settled += 1;
                    assert_eq!(bits(hit), bits(walked), "{ray:?}");
                }
                let from = Rect::new(origin[0], origin[1], origin[0] + 3.0, origin[1] + 3.0);
                let cast = BoxCast::new(boxed(from), lifted(direction.map(|d| d * length), 0.0));
                let mut walked = None;
                box_cast(&index, &cast, NONE, |hit| {
                    walked = Some(hit);
                    false
                });
                let (motion, length) = cast.motion_and_length();
                let by_pieces =
                    box_cast_first_in_pieces(&index, &cast, (&motion, length), NONE, pieces);
                if let Some(hit) = by_pieces {
                    settled += 1;
                    assert_eq!(bits(hit), bits(walked), "{cast:?}");
                }
            }
            assert!(
                settled >= 1_900,
                "{settled} of 2,000 casts settled by pieces"
            );
            // Out of the stack of 300: the grids scan it, the trees give up.
            let ray = Ray {
                origin: lifted([300.5, 300.5], 500.5),
                direction: lifted([1.0, 0.0], 0.0),
                max_length: 10.0,
            };
            let by_pieces = ray_first_in_pieces(&index, &ray, u32::MAX, pieces);
            assert_eq!(by_pieces.is_some(), crowd_settles, "{ray:?}");
            let from = boxed(Rect::new(299.0, 299.0, 302.0, 302.0));
            let cast = BoxCast::new(from, lifted([5.0, 0.0], 0.0));
            let (motion, length) = cast.motion_and_length();
            let by_pieces =
                box_cast_first_in_pieces(&index, &cast, (&motion, length), NONE, pieces);
            assert_eq!(by_pieces.is_some(), crowd_settles, "{cast:?}");
        }
        let world = Rect::new(0.0, 0.0, 1000.0, 1000.0);
        let flat = |p: [f32; 2], _| p;
        check(Grid::for_world(world).unwrap(), true, |r| r, flat);
        check(LooseGrid::for_world(world).unwrap(), true, |r| r, flat);
        check(Quadtree::for_world(world).unwrap(), false, |r| r, flat);
        check(
            Octree::for_world(Box3::new(0.0, 0.0, 0.0, 1000.0, 1000.0, 1000.0)).unwrap(),
            false,
            |r| Box3::new(r.x1, r.y1, 500.0, r.x2, r.y2, 502.0),
            |[x, y], z| [x, y, z],
        );
    }
}

/// A node waiting in a [`bounded`] search: its key and id.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NodeKey {
    key: f64,
    node: u128,
}

/// The node stack of a [`bounded`] search; batch calls reuse one.
pub(crate) type NodeStack = Vec<NodeKey>;

/// The `k` smallest elements passing `mask` by `element_key`, at most `limit`,
/// slot `omit` left out (or [`NONE`]),
/// appended to `out` in ascending `(key, id, handle)` order (the order of
/// [`walk`]) with the key in `distance`. A depth-first branch and bound
/// rather than [`walk`]'s best-first heap: a node's children go on a stack
/// nearest last (so the nearest is expanded next), the elements of an
/// expanded node are tested at once against a sorted list of the best `k` so
/// far, whose last key then bounds the search, and a node whose key is above
/// the bound is dropped. Exact all the same: no node that could hold one of
/// the `k` is ever dropped. The answers of `nearest` and of a ray's or a box
/// cast's first hit, without the ordered visits that callbacks need.
#[allow(clippy::too_many_arguments)]
pub(crate) fn bounded<T, N, E>(
    index: &T,
    stack: &mut NodeStack,
    k: usize,
    mask: u32,
    omit: u32,
    limit: f64,
    node_key: N,
    element_key: E,
    out: &mut Vec<Neighbor>,
) where
    T: Structure + ?Sized,
    N: Fn(&T::Bounds) -> Option<f64>,
    E: Fn(&T::Bounds) -> Option<f64>,
{
    stack.clear();
    if k == 0 || mask == 0 {
        return;
    }
    if scans(index, k) {
        let base = out.len();
        scan_sorted(index, mask, omit, limit, &element_key, out);
        out.truncate(base + k);
        return;
    }
    // Reserved here rather than by the callers: a single search that squares
    // or pieces settled before the descent then allocates nothing.
    stack.reserve(64);
    let base = out.len();
    let mut bound = limit;
    let offer = |item: SearchItem<T::Bounds>,
                 stack: &mut NodeStack,
                 out: &mut Vec<Neighbor>,
                 bound: &mut f64| match item {
        SearchItem::Node(node, b) => {
            if (0..T::Bounds::AXES).any(|axis| b.lo(axis) > b.hi(axis)) {
                return;
            }
            if let Some(key) = node_key(&b) {
                let key = key * (1.0 - NODE_MARGIN) + 0.0;
                if key <= *bound {
                    stack.push(NodeKey { key, node });
                }
            }
        }
        SearchItem::Element(slot) => {
            if slot == omit {
                return;
            }
            let Some(key) = element_key(&index.rect_at(slot)) else {
                return;
            };
            if key > *bound || !index.passes_mask(slot, mask) {
                return;
            }
            let (id, handle) = (index.id_at(slot), index.handle_at(slot));
            keep_best(out, base, k, bound, key, id, handle);
        }
    };
    // The children an expansion pushed, nearest on top.
    let order_pushed = |stack: &mut NodeStack, from: usize| {
        stack[from..].sort_unstable_by(|a, b| b.key.total_cmp(&a.key));
    };
    index.search_roots(&mut |item| offer(item, stack, out, &mut bound));
    order_pushed(stack, 0);
    while let Some(top) = stack.pop() {
        if top.key > bound {
            continue;
        }
        let from = stack.len();
        index.search_expand(top.node, &mut |item| offer(item, stack, out, &mut bound));
        order_pushed(stack, from);
    }
}

/// Puts the element `(key, id, handle)` among the best `k` so far,
/// `out[base..]` in ascending `(key, id, handle)`, and once there are `k`
/// lowers `bound` to the last one's key. An element met again (listed in
/// several leaves) sorts right after itself and is not taken twice; one
/// pushed out before sorts past the k-th.
#[inline]
fn keep_best(
    out: &mut Vec<Neighbor>,
    base: usize,
    k: usize,
    bound: &mut f64,
    key: f64,
    id: u32,
    handle: Handle,
) {
    let order = (key, id, handle.to_raw());
    let best = &out[base..];
    let at = best.partition_point(|n| (n.distance, n.id, n.handle.to_raw()) <= order);
    if (at > 0 && best[at - 1].handle == handle) || at == k {
        return;
    }
    out.insert(
        base + at,
        Neighbor {
            handle,
            id,
            distance: key,
        },
    );
    if out.len() - base > k {
        out.pop();
    }
    if out.len() - base == k {
        *bound = out[out.len() - 1].distance;
    }
}

/// Whether a search for `k` elements should scan every element and sort
/// rather than walk: keeping the `k` best in order costs up to `k` moves an
/// element met, and a walk for many elements visits most of the structure
/// anyway (on a fine grid, every cell, however few the elements), where a
/// scan and one sort cost `n log n`. Measured on 100,000 elements in a
/// loose quadtree: the walk wins below about `n / 30` (k = 2,000: 1.2 ms
/// against 8.6), the scan above (k = 10,000: 14 ms against 63; k = n: 6 ms
/// against 2.3 s). Small `k` always walk: it costs little, and the tests'
/// small indexes then check the walk against brute force too.
fn scans<T: Structure + ?Sized>(index: &T, k: usize) -> bool {
    k > 32 && k.saturating_mul(32) >= index.live()
}

/// Every live element but slot `omit` passing `mask` whose key is within
/// `limit`, appended to `out` in ascending `(key, id, handle)`: the answer of a search with
/// `k` at least the number of elements, by brute force.
fn scan_sorted<T, E>(
    index: &T,
    mask: u32,
    omit: u32,
    limit: f64,
    element_key: &E,
    out: &mut Vec<Neighbor>,
) where
    T: Structure + ?Sized,
    E: Fn(&T::Bounds) -> Option<f64>,
{
    let base = out.len();
    for slot in 0..index.slot_count() as u32 {
        let Some((handle, b, id)) = index.element_at(slot).filter(|_| slot != omit) else {
            continue;
        };
        match element_key(&b) {
            Some(distance) if distance <= limit && index.passes_mask(slot, mask) => {
                out.push(Neighbor {
                    handle,
                    id,
                    distance,
                })
            }
            _ => {}
        }
    }
    out[base..].sort_unstable_by(|a, b| {
        a.distance
            .total_cmp(&b.distance)
            .then(a.id.cmp(&b.id))
            .then(a.handle.cmp(&b.handle))
    });
}

/// The `k` nearest elements passing the mask within the maximum distance,
/// appended to `out`: by [squares](nearest_in_squares) first, by
/// [`bounded`] descent if they do not settle it.
pub(crate) fn nearest_bounded<T>(
    index: &T,
    stack: &mut NodeStack,
    query: Nearest<<T::Bounds as Bounds>::Point>,
    out: &mut Vec<Neighbor>,
) where
    T: SpatialIndex,
{
    if query.k == 0 || query.mask == 0 {
        return;
    }
    if index.nearest_squares(query.k)
        && !scans(index, query.k)
        && nearest_in_squares(index, query, out)
    {
        return;
    }
    let point = query.point;
    bounded(
        index,
        stack,
        query.k,
        query.mask,
        NONE,
        query.max_distance,
        point_node_key::<T::Bounds>(point),
        |b: &T::Bounds| Some(b.distance_to_point(point)),
        out,
    );
}

/// Squares [`nearest_in_squares`] tries before it leaves the search to the
/// descent.
const NEAREST_SQUARES: u32 = 8;

/// The elements, in `k`s, a square of [`nearest_in_squares`] should meet to
/// settle the search: a square holding `k` elements' centres whose k-th
/// nearest lies within its inscribed circle (π/4 of it) needs more, and
/// boxes reach in from outside it.
const SQUARE_TARGET: f64 = 2.5;

/// The crowded squares (see [`square_budget`]) after which
/// [`nearest_in_squares`] leaves the search to the descent: a stack of equal
/// boxes crowds every square about it.
const CROWDED_SQUARES: u32 = 3;

/// The widest square [`nearest_in_squares`] queries, as a half side in mean
/// sides (the side of a square holding `k` elements at the world's mean
/// density): past it the point is in an empty region, whose cells a square
/// would read one by one, and the descent takes over.
const MAX_SQUARE: f64 = 4.0;

/// The nearest elements by rectangle queries over squares (cubes in 3D)
/// centred on the point, each the [`circle_box`] of its half side: every
/// element met is keyed by the same [`Bounds::distance_to_point`] as the
/// descent's, the best `k` kept by `(key, id, handle)` ([`keep_best`]). Once
/// `k` are kept and the k-th key is at most the half side (or the maximum
/// distance is, or the square met every live element), no element left out
/// can come before it: an element at distance `d` holds a point within `d`
/// of the query point on every axis, so it meets the square.
///
/// The first square is a probe, a quarter as wide as the mean side (no wider
/// than the maximum distance): in a crowd it settles the search alone. A
/// square that does not settle it gives way to one wider by the square root
/// (the cube root in 3D) of how many more elements [`SQUARE_TARGET`] asks for
/// than it met passing the mask, 1.5 to 4 times, but no wider than halfway
/// (geometrically) to a crowded square met before; one that meets more than
/// [`square_budget`] (a crowd, or a world declared far wider than its
/// elements spread) to one a quarter as wide. A rectangle query reads the few cells or leaves about
/// the point where the descent orders some thirty node keys on its way down
/// (a grid's cell ranges, a tree's levels). `false`, with `out` as it came,
/// after [`NEAREST_SQUARES`] squares, [`CROWDED_SQUARES`] crowded ones, a
/// square that could grow by less than a quarter below a crowded one or
/// past [`MAX_SQUARE`], or for an empty index or a world of no volume.
fn nearest_in_squares<T>(
    index: &T,
    query: Nearest<<T::Bounds as Bounds>::Point>,
    out: &mut Vec<Neighbor>,
) -> bool
where
    T: SpatialIndex,
{
    let Nearest {
        point,
        k,
        max_distance,
        mask,
    } = query;
    let live = index.live();
    let Some(mean_side) = mean_side(index.world(), live, k) else {
        return false;
    };
    let widest = MAX_SQUARE * mean_side;
    let mut half = (0.125 * mean_side).min(max_distance);
    // The last crowded square's half side: later squares stay narrower.
    let mut ceiling = f64::INFINITY;
    let mut crowds = 0;
    let target = SQUARE_TARGET * k as f64;
    let budget = square_budget(k);
    let base = out.len();
    for _ in 0..NEAREST_SQUARES {
        out.truncate(base);
        let mut bound = max_distance;
        let (mut met, mut passed) = (0, 0);
        let square = circle_box::<T::Bounds>(point, half);
        let crowded = index
            .query_checked(square, NONE, |handle| {
                met += 1;
                if met > budget {
                    return ControlFlow::Break(());
                }
                let slot = handle.slot();
                if !index.passes_mask(slot, mask) {
                    return ControlFlow::Continue(());
                }
                passed += 1;
                let key = index.rect_at(slot).distance_to_point(point);
                if key <= bound {
                    keep_best(out, base, k, &mut bound, key, index.id_at(slot), handle);
                }
                ControlFlow::Continue(())
            })
            .is_break();
        if crowded {
            crowds += 1;
            if crowds == CROWDED_SQUARES {
                break;
            }
            ceiling = half;
            half *= 0.25;
            continue;
        }
        if max_distance <= half || met == live || (out.len() - base == k && bound <= half) {
            return true;
        }
        // Grown by the elements the mask lets through: a selective mask
        // needs a wider square for the same `k`.
        let wider = side_of(target / passed.max(1) as f64, T::Bounds::AXES).clamp(1.5, 4.0);
        // Below a crowded square, halfway (geometrically) to it: a sparse
        // spot next to a crowd would otherwise grow straight back into it.
        let grown = half * wider;
        let next = if grown < ceiling {
            grown
        } else {
            (half * ceiling).sqrt()
        };
        let next = next.min(max_distance);
        if next > widest || (next < max_distance && next < 1.25 * half) {
            break;
        }
        half = next;
    }
    out.truncate(base);
    false
}

/// The elements a square of [`nearest_in_squares`] may meet before it is
/// given up for a narrower one.
fn square_budget(k: usize) -> usize {
    k.saturating_mul(8).saturating_add(32)
}

/// The first hit of a checked ray ([`bounded`] by entry distance, `k` = 1).
pub(crate) fn ray_first<T>(
    index: &T,
    ray: &Ray<<T::Bounds as Bounds>::Point>,
    mask: u32,
) -> Option<RayHit>
where
    T: Structure + ?Sized,
{
    if let Some(hit) = index
        .ray_pieces()
        .and_then(|pieces| ray_first_in_pieces(index, ray, mask, pieces))
    {
        return hit;
    }
    let origin = ray.origin_f64();
    let direction = ray.unit_direction();
    let inverse = reciprocals(&direction);
    let max_length = ray.max_length;
    first_bounded(
        index,
        mask,
        NONE,
        max_length,
        |b: &T::Bounds| ray_node_key(b, &origin, &inverse, max_length),
        |b: &T::Bounds| b.ray_entry(&origin, &direction, max_length),
    )
    .map(|n| RayHit::new(n.handle, n.id, n.distance, max_length))
}

/// The first element by [`bounded`] (`k` = 1): the fallback of the first
/// hits of rays and box casts.
fn first_bounded<T, N, E>(
    index: &T,
    mask: u32,
    omit: u32,
    limit: f64,
    node_key: N,
    element_key: E,
) -> Option<Neighbor>
where
    T: Structure + ?Sized,
    N: Fn(&T::Bounds) -> Option<f64>,
    E: Fn(&T::Bounds) -> Option<f64>,
{
    // Room for the best and the one `keep_best` inserts before it pops.
    let mut best = Vec::with_capacity(2);
    let mut stack = NodeStack::new();
    bounded(
        index,
        &mut stack,
        1,
        mask,
        omit,
        limit,
        node_key,
        element_key,
        &mut best,
    );
    best.pop()
}

/// The first hit of a checked ray by rectangle queries: the ray is cut into
/// pieces of at most `limits.length`, and each piece's box, widened and
/// rounded outward to `f32`, is queried in order along the ray
/// ([`first_in_pieces`]); every element met is keyed by the same
/// [`Bounds::ray_entry`] as the descent's. An element entered at `t` holds
/// (to within rounding, far below the widening) the point of the ray at `t`,
/// which lies in the box of the piece holding `t`. `None` when the ray would
/// take more pieces, or they would meet more elements, than `limits` allows.
fn ray_first_in_pieces<T>(
    index: &T,
    ray: &Ray<<T::Bounds as Bounds>::Point>,
    mask: u32,
    limits: Pieces,
) -> Option<Option<RayHit>>
where
    T: Structure + ?Sized,
{
    let max_length = ray.max_length;
    if max_length / limits.length > limits.most {
        return None;
    }
    let origin = ray.origin_f64();
    let direction = ray.unit_direction();
    let reach = origin[..T::Bounds::AXES]
        .iter()
        .fold(max_length, |m, o| m + o.abs());
    let margin = piece_margin(reach);
    let piece_box = |t0, t1| swept_box(&origin, &origin, &direction, (t0, t1), margin);
    let key = |b: &T::Bounds| b.ray_entry(&origin, &direction, max_length);
    let path = (max_length, limits.length);
    let best = first_in_pieces(index, path, limits, mask, NONE, piece_box, key)?;
    Some(best.map(|(key, id, handle)| RayHit::new(Handle::from_raw(handle), id, key, max_length)))
}

/// The first hit of a checked box cast (`omit` a slot or [`NONE`]): by
/// rectangle queries over pieces of the motion where the structure answers
/// rays so ([`Structure::ray_pieces`]), else by [`bounded`] over the walk's
/// keys ([`box_cast`]'s first hit).
pub(crate) fn box_cast_first<T>(index: &T, cast: &BoxCast<T::Bounds>, omit: u32) -> Option<RayHit>
where
    T: Structure + ?Sized,
{
    let (motion, length) = cast.motion_and_length();
    if let Some(hit) = index
        .ray_pieces()
        .and_then(|pieces| box_cast_first_in_pieces(index, cast, (&motion, length), omit, pieces))
    {
        return hit;
    }
    first_bounded(
        index,
        cast.mask,
        omit,
        1.0,
        |b: &T::Bounds| sweep_node_key(&cast.rect, &motion, b),
        |b: &T::Bounds| sweep_entry(&cast.rect, &motion, b),
    )
    .map(|n| RayHit::of_cast(n.handle, n.id, n.distance, length))
}

/// [`box_cast_first`] by pieces: the motion is cut into pieces of at most
/// `limits.length`, or the moving box's widest side if longer (so that a big
/// box's consecutive pieces overlap by at most one piece, and no cell is
/// scanned more than twice), and the box each piece sweeps (the box of the moving
/// box at both ends), widened and rounded outward to `f32`, is queried in
/// order ([`first_in_pieces`]); every element met is keyed by the same
/// [`BoxCast::entry_into`] as the walk's. The moving box at `t` lies in the
/// box swept by the piece holding `t`, and an element it touches there meets
/// that box (to within rounding, far below the widening). `None` when the
/// motion would take more pieces, or they would meet more elements, than
/// `limits` allows.
fn box_cast_first_in_pieces<T>(
    index: &T,
    cast: &BoxCast<T::Bounds>,
    (motion, length): (&[f64; 3], f64),
    omit: u32,
    limits: Pieces,
) -> Option<Option<RayHit>>
where
    T: Structure + ?Sized,
{
    let widest = (0..T::Bounds::AXES).fold(0.0f64, |w, a| {
        w.max(f64::from(cast.rect.hi(a)) - f64::from(cast.rect.lo(a)))
    });
    let piece = limits.length.max(widest);
    if length / piece > limits.most {
        return None;
    }
    let (lo, hi) = (
        corner(&cast.rect, Bounds::lo),
        corner(&cast.rect, Bounds::hi),
    );
    let reach = lo
        .iter()
        .chain(&hi)
        .chain(motion)
        .map(|v| v.abs())
        .sum::<f64>();
    let margin = piece_margin(reach);
    let piece_box = |t0, t1| swept_box(&lo, &hi, motion, (t0, t1), margin);
    let key = |b: &T::Bounds| sweep_entry(&cast.rect, motion, b);
    // The motion's fraction `t` runs over [0, 1]: a piece is that share of it
    // (all of it for a box that does not move).
    let path = (1.0, piece / length);
    let best = first_in_pieces(index, path, limits, cast.mask, omit, piece_box, key)?;
    Some(best.map(|(t, id, handle)| RayHit::of_cast(Handle::from_raw(handle), id, t, length)))
}

/// The coordinates of `b`'s corner that `side` gives (`Bounds::lo` or
/// `Bounds::hi`), in `f64` (0 past its axes).
fn corner<B: Bounds>(b: &B, side: fn(&B, usize) -> f32) -> [f64; 3] {
    let mut at = [0.0; 3];
    for (axis, v) in at.iter_mut().enumerate().take(B::AXES) {
        *v = f64::from(side(b, axis));
    }
    at
}

/// The box `[lo, hi]` sweeps moving by `t · motion` for `t` in `[t0, t1]`
/// (a ray's segment when `lo` and `hi` are its origin), widened by `margin`
/// and rounded outward to `f32`: the query of a piece.
fn swept_box<B: Bounds>(
    lo: &[f64; 3],
    hi: &[f64; 3],
    motion: &[f64; 3],
    (t0, t1): (f64, f64),
    margin: f64,
) -> B {
    let (mut low, mut high) = ([0.0f32; 3], [0.0f32; 3]);
    for axis in 0..B::AXES {
        let (near, far) = (t0 * motion[axis], t1 * motion[axis]);
        low[axis] = round_down(lo[axis] + near.min(far) - margin);
        high[axis] = round_up(hi[axis] + near.max(far) + margin);
    }
    B::from_corners(low, high)
}

/// The widening of a piece's box: `(reach + 1) · 2^-40`, `reach` bounding the
/// coordinates' magnitudes, far above the rounding of a computed entry.
fn piece_margin(reach: f64) -> f64 {
    (reach + 1.0) * (1.0 / (1u64 << 40) as f64)
}

/// The best element met by rectangle queries of pieces of a path in order,
/// as `(key, id, handle)`. The path is `(end, step)`: keys run over `[0,
/// end]`, and the first piece is `[0, step]`; each next one starts where the
/// last ended, twice as long if `limits.grow` and the last met nothing (a
/// tree skips empty space in one query), and the last ends at `end` exactly,
/// so the pieces cover the path. `piece(t0, t1)` is the box of the piece
/// `[t0, t1]`; every element met (but slot `omit`) is keyed by `key` on its
/// box, and those `mask` passes kept by that order. Once the best key is at
/// most the end of the piece just queried, no element can come before it
/// (the callers' widening makes every element whose key is at most a piece's
/// end meet that piece or an earlier one). `None` (unsettled) once more
/// pieces were queried, or more elements met, than `limits` allows.
fn first_in_pieces<T, P, K>(
    index: &T,
    (end, step): (f64, f64),
    limits: Pieces,
    mask: u32,
    omit: u32,
    piece: P,
    key: K,
) -> Option<Option<(f64, u32, u64)>>
where
    T: Structure + ?Sized,
    P: Fn(f64, f64) -> T::Bounds,
    K: Fn(&T::Bounds) -> Option<f64>,
{
    if mask == 0 {
        return Some(None);
    }
    let mut best: Option<(f64, u32, u64)> = None;
    let (mut met, mut queried) = (0usize, 0u32);
    let (mut t0, mut step) = (0.0f64, step);
    loop {
        if queried == limits.queried {
            return None;
        }
        queried += 1;
        let t1 = if t0 + step < end { t0 + step } else { end };
        let before = met;
        let crowded = index.query_checked(piece(t0, t1), omit, |handle| {
            met += 1;
            if met > limits.met {
                return ControlFlow::Break(());
            }
            let slot = handle.slot();
            let Some(key) = key(&index.rect_at(slot)) else {
                return ControlFlow::Continue(());
            };
            // The key alone rules most elements out before their id is read.
            if best.is_none_or(|b| key <= b.0) {
                let order = (key, index.id_at(slot), handle.to_raw());
                if best.is_none_or(|b| order < b) && index.passes_mask(slot, mask) {
                    best = Some(order);
                }
            }
            ControlFlow::Continue(())
        });
        if crowded.is_break() {
            return None;
        }
        if t1 >= end || best.is_some_and(|(key, ..)| key <= t1) {
            return Some(best);
        }
        if limits.grow && met == before {
            step *= 2.0;
        }
        t0 = t1;
    }
}
