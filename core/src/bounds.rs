//! [`Bounds`]: what the structures need of an element's box, in 2D ([`Rect`])
//! or 3D ([`Box3`]), so the trait layer, the slots, the snapshots and the flat
//! tree are written once for both.

use crate::{Box3, Error, Rect};

mod sealed {
    pub trait Sealed {}
    impl Sealed for crate::Rect {}
    impl Sealed for crate::Box3 {}
}

/// A closed axis-aligned box of `f32` coordinates: [`Rect`] in 2D, [`Box3`]
/// in 3D. Sealed: the structures are exact for these two only.
pub trait Bounds:
    sealed::Sealed
    + Copy
    + PartialEq
    + Default
    + core::fmt::Debug
    + core::fmt::Display
    + bytemuck::Pod
    + Send
    + Sync
    + 'static
{
    /// A point: `[x, y]` or `[x, y, z]`.
    type Point: Copy + PartialEq + core::fmt::Debug + AsRef<[f32]> + Send + Sync;
    /// 2 or 3.
    const AXES: usize;

    /// Whether every coordinate is finite and the box is not inverted.
    fn is_valid(&self) -> bool;
    /// Whether the two closed boxes share at least one point (touching counts).
    fn meets(&self, other: &Self) -> bool;
    /// Whether the closed box holds the point (its border included).
    fn contains_point(&self, point: Self::Point) -> bool;
    /// The smallest coordinate on `axis` (0 x, 1 y, 2 z).
    fn lo(&self, axis: usize) -> f32;
    /// The largest coordinate on `axis`.
    fn hi(&self, axis: usize) -> f32;
    /// The box from its low and high corners (the first [`AXES`](Bounds::AXES)
    /// coordinates of each are used).
    fn from_corners(lo: [f32; 3], hi: [f32; 3]) -> Self;
    /// The box of `f64` coordinates, low corner then high corner (`2 · AXES`
    /// of them), each rounded to the nearest `f32`: the one conversion every
    /// binding uses (monotone, so an `f64` hit is never lost). `None` for a
    /// slice of another length.
    fn from_f64_slice(coords: &[f64]) -> Option<Self>;
    /// The degenerate box holding only `point`.
    fn point_box(point: Self::Point) -> Self;
    /// The box's low corner (smallest coordinate on every axis).
    fn low_corner(&self) -> Self::Point;
    /// [`Error::InvalidRect`] or [`Error::InvalidBox`] for this box.
    fn invalid(self) -> Error;
    /// [`Error::InvalidWorld`] or [`Error::InvalidWorldBox`] for this box.
    fn invalid_world(self) -> Error;
    /// [`Error::InvalidPoint`] or [`Error::InvalidPoint3`] for this point.
    fn invalid_point(point: Self::Point) -> Error;
    /// [`Error::InvalidDirection`] or [`Error::InvalidDirection3`] for this
    /// ray direction.
    fn invalid_direction(direction: Self::Point) -> Error;

    /// The Euclidean distance from `point` to the closed box, in `f64` from
    /// the `f32` coordinates: 0 when the box holds the point. Every distance
    /// the searches report ([`nearest`](crate::SpatialIndex::nearest),
    /// [`Query::circle`](crate::Query::circle)) is this value, so
    /// a brute-force scan calling it gets the same bits.
    #[inline]
    fn distance_to_point(&self, point: Self::Point) -> f64 {
        let p = point.as_ref();
        let mut sum = 0.0f64;
        for (axis, &v) in p.iter().enumerate().take(Self::AXES) {
            let v = f64::from(v);
            let gap = (f64::from(self.lo(axis)) - v)
                .max(v - f64::from(self.hi(axis)))
                .max(0.0);
            sum += gap * gap;
        }
        // `+ 0.0` turns a -0.0 into 0.0, so equal distances are equal bits.
        sum.sqrt() + 0.0
    }

    /// Whether the closed box holds `inner` whole (borders included).
    #[inline]
    fn holds_box(&self, inner: &Self) -> bool {
        (0..Self::AXES)
            .all(|axis| self.lo(axis) <= inner.lo(axis) && inner.hi(axis) <= self.hi(axis))
    }

    /// The box grown by `margin` (finite, `>= 0`) on every side, each
    /// coordinate rounded outwards and kept finite: a fat box that holds this
    /// one whatever the rounding, and stays a valid box.
    #[inline]
    fn grown(&self, margin: f32) -> Self {
        let (mut lo, mut hi) = ([0.0f32; 3], [0.0f32; 3]);
        for axis in 0..Self::AXES {
            // Rounding to nearest is monotone, so `lo - margin <= lo`; the
            // clamp keeps a box at the edge of `f32` finite.
            lo[axis] = (self.lo(axis) - margin).max(f32::MIN);
            hi[axis] = (self.hi(axis) + margin).min(f32::MAX);
        }
        Self::from_corners(lo, hi)
    }

    /// Where the segment `origin + t · direction`, `0 <= t <= max_length`,
    /// first touches the closed box: that `t`, or `None` if it misses. The
    /// slab method in `f64`; an axis on which `direction` is 0 is inside the
    /// slab (`lo <= origin <= hi`) or a miss, so rays parallel to an axis and
    /// rays running along an edge are exact. The ray casts report this value
    /// with `direction` the [`Ray`](crate::Ray)'s
    /// [`unit_direction`](crate::Ray::unit_direction) (see
    /// [`Ray::entry_into`](crate::Ray::entry_into)).
    #[inline]
    fn ray_entry(&self, origin: &[f64], direction: &[f64], max_length: f64) -> Option<f64> {
        let (enter, exit) = slab(self, origin, direction, max_length)?;
        (enter <= exit).then_some(enter)
    }
}

/// The interval of `t` (clamped to `[0, max_length]`) over which the line
/// `origin + t · direction` is inside every slab of `b`, possibly empty
/// (`enter > exit`); `None` when an axis the line is parallel to misses.
#[inline]
pub(crate) fn slab<B: Bounds>(
    b: &B,
    origin: &[f64],
    direction: &[f64],
    max_length: f64,
) -> Option<(f64, f64)> {
    let (mut enter, mut exit) = (0.0f64, max_length);
    for axis in 0..B::AXES {
        let (o, d) = (origin[axis], direction[axis]);
        let (lo, hi) = (f64::from(b.lo(axis)), f64::from(b.hi(axis)));
        if d == 0.0 {
            if o < lo || o > hi {
                return None;
            }
            continue;
        }
        let (t1, t2) = ((lo - o) / d, (hi - o) / d);
        let (near, far) = if t1 <= t2 { (t1, t2) } else { (t2, t1) };
        enter = enter.max(near);
        exit = exit.min(far);
    }
    // `+ 0.0` turns a -0.0 into 0.0, so equal entries are equal bits.
    Some((enter + 0.0, exit))
}

impl Bounds for Rect {
    type Point = [f32; 2];
    const AXES: usize = 2;

    #[inline]
    fn is_valid(&self) -> bool {
        Rect::is_valid(self)
    }
    #[inline(always)]
    fn meets(&self, other: &Rect) -> bool {
        crate::rect::meets(self, other)
    }
    #[inline]
    fn contains_point(&self, [x, y]: [f32; 2]) -> bool {
        Rect::contains_point(self, x, y)
    }
    #[inline(always)]
    fn lo(&self, axis: usize) -> f32 {
        [self.x1, self.y1][axis]
    }
    #[inline(always)]
    fn hi(&self, axis: usize) -> f32 {
        [self.x2, self.y2][axis]
    }
    #[inline]
    fn from_corners(lo: [f32; 3], hi: [f32; 3]) -> Rect {
        Rect::new(lo[0], lo[1], hi[0], hi[1])
    }
    fn from_f64_slice(c: &[f64]) -> Option<Rect> {
        match *c {
            [x1, y1, x2, y2] => Some(Rect::from_f64(x1, y1, x2, y2)),
            _ => None,
        }
    }
    #[inline]
    fn point_box([x, y]: [f32; 2]) -> Rect {
        Rect::point(x, y)
    }
    fn low_corner(&self) -> [f32; 2] {
        [self.x1, self.y1]
    }
    fn invalid(self) -> Error {
        Error::InvalidRect(self)
    }
    fn invalid_world(self) -> Error {
        Error::InvalidWorld(self)
    }
    fn invalid_point([x, y]: [f32; 2]) -> Error {
        Error::InvalidPoint { x, y }
    }
    fn invalid_direction([dx, dy]: [f32; 2]) -> Error {
        Error::InvalidDirection { dx, dy }
    }
}

impl Bounds for Box3 {
    type Point = [f32; 3];
    const AXES: usize = 3;

    #[inline]
    fn is_valid(&self) -> bool {
        Box3::is_valid(self)
    }
    #[inline(always)]
    fn meets(&self, other: &Box3) -> bool {
        self.intersects(other)
    }
    #[inline]
    fn contains_point(&self, [x, y, z]: [f32; 3]) -> bool {
        Box3::contains_point(self, x, y, z)
    }
    #[inline(always)]
    fn lo(&self, axis: usize) -> f32 {
        [self.x1, self.y1, self.z1][axis]
    }
    #[inline(always)]
    fn hi(&self, axis: usize) -> f32 {
        [self.x2, self.y2, self.z2][axis]
    }
    #[inline]
    fn from_corners(lo: [f32; 3], hi: [f32; 3]) -> Box3 {
        Box3::new(lo[0], lo[1], lo[2], hi[0], hi[1], hi[2])
    }
    fn from_f64_slice(c: &[f64]) -> Option<Box3> {
        match *c {
            [x1, y1, z1, x2, y2, z2] => Some(Box3::from_f64(x1, y1, z1, x2, y2, z2)),
            _ => None,
        }
    }
    #[inline]
    fn point_box([x, y, z]: [f32; 3]) -> Box3 {
        Box3::point(x, y, z)
    }
    fn low_corner(&self) -> [f32; 3] {
        [self.x1, self.y1, self.z1]
    }
    fn invalid(self) -> Error {
        Error::InvalidBox(self)
    }
    fn invalid_world(self) -> Error {
        Error::InvalidWorldBox(self)
    }
    fn invalid_point([x, y, z]: [f32; 3]) -> Error {
        Error::InvalidPoint3 { x, y, z }
    }
    fn invalid_direction([dx, dy, dz]: [f32; 3]) -> Error {
        Error::InvalidDirection3 { dx, dy, dz }
    }
}
