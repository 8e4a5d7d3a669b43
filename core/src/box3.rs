//! The axis-aligned box the 3D structure takes and returns.

/// A closed axis-aligned box `[x1, x2] × [y1, y2] × [z1, z2]` in `f32`, the 3D
/// [`Rect`](crate::Rect).
///
/// Points, segments and flat boxes are boxes too. A box the [`Octree`](crate::Octree)
/// accepts is [valid](Box3::is_valid): finite coordinates, `x1 <= x2`, `y1 <= y2`,
/// `z1 <= z2`. The layout is six `f32`s in that order, so a flat `[f32]` of
/// length `6n` can be viewed as `n` boxes without copying ([`Box3::cast_slice`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct Box3 {
    /// Smallest x.
    pub x1: f32,
    /// Smallest y.
    pub y1: f32,
    /// Smallest z.
    pub z1: f32,
    /// Largest x.
    pub x2: f32,
    /// Largest y.
    pub y2: f32,
    /// Largest z.
    pub z2: f32,
}

// SAFETY: `Box3` is `repr(C)` of six `f32`, with no padding; every bit pattern is a valid `Box3`.
unsafe impl bytemuck::Zeroable for Box3 {}
// SAFETY: see above; `Box3` is `Copy` and `'static`.
unsafe impl bytemuck::Pod for Box3 {}

impl Box3 {
    /// The box `[x1, x2] × [y1, y2] × [z1, z2]`, unchecked (the octree checks it when given).
    pub const fn new(x1: f32, y1: f32, z1: f32, x2: f32, y2: f32, z2: f32) -> Box3 {
        Box3 {
            x1,
            y1,
            z1,
            x2,
            y2,
            z2,
        }
    }

    /// The box of `f64` corners, each rounded to the nearest `f32` (as
    /// [`Rect::from_f64`](crate::Rect::from_f64): monotone, so no `f64` hit is lost).
    pub fn from_f64(x1: f64, y1: f64, z1: f64, x2: f64, y2: f64, z2: f64) -> Box3 {
        Box3::new(
            x1 as f32, y1 as f32, z1 as f32, x2 as f32, y2 as f32, z2 as f32,
        )
    }

    /// The degenerate box holding the single point `(x, y, z)`.
    pub const fn point(x: f32, y: f32, z: f32) -> Box3 {
        Box3::new(x, y, z, x, y, z)
    }

    /// Whether every coordinate is finite and the box is not inverted.
    ///
    /// ```
    /// use flatquad::Box3;
    /// assert!(Box3::new(0.0, 0.0, 0.0, 0.0, 5.0, 5.0).is_valid()); // flat
    /// assert!(!Box3::new(0.0, 0.0, 1.0, 1.0, 1.0, 0.0).is_valid()); // z1 > z2
    /// ```
    #[inline]
    pub fn is_valid(&self) -> bool {
        // NaN fails every comparison; the finiteness checks catch the infinities.
        // Bitwise `&`: every batch checks each box, and the answer is nearly
        // always yes, so one branch beats nine.
        let finite = [self.x1, self.y1, self.z1, self.x2, self.y2, self.z2]
            .iter()
            .fold(true, |all, v| all & v.is_finite());
        finite & (self.x1 <= self.x2) & (self.y1 <= self.y2) & (self.z1 <= self.z2)
    }

    /// Whether the two closed boxes share at least one point (touching counts).
    #[inline]
    pub fn intersects(&self, other: &Box3) -> bool {
        // All six comparisons, then one branch at the caller (see `Rect::intersects`).
        (self.x1 <= other.x2)
            & (other.x1 <= self.x2)
            & (self.y1 <= other.y2)
            & (other.y1 <= self.y2)
            & (self.z1 <= other.z2)
            & (other.z1 <= self.z2)
    }

    /// Whether the closed box holds the point `(x, y, z)` (its border included).
    #[inline]
    pub fn contains_point(&self, x: f32, y: f32, z: f32) -> bool {
        (self.x1 <= x)
            & (x <= self.x2)
            & (self.y1 <= y)
            & (y <= self.y2)
            & (self.z1 <= z)
            & (z <= self.z2)
    }

    /// Views a flat `[x1, y1, z1, x2, y2, z2, ...]` slice as boxes without
    /// copying; `None` when its length is not a multiple of 6.
    pub fn cast_slice(flat: &[f32]) -> Option<&[Box3]> {
        bytemuck::try_cast_slice(flat).ok()
    }

    /// The boxes as a flat slice of `6 * boxes.len()` floats, without copying.
    pub fn flatten(boxes: &[Box3]) -> &[f32] {
        bytemuck::cast_slice(boxes)
    }
}

impl From<[f32; 6]> for Box3 {
    fn from([x1, y1, z1, x2, y2, z2]: [f32; 6]) -> Box3 {
        Box3::new(x1, y1, z1, x2, y2, z2)
    }
}

impl From<Box3> for [f32; 6] {
    fn from(b: Box3) -> [f32; 6] {
        [b.x1, b.y1, b.z1, b.x2, b.y2, b.z2]
    }
}

impl core::fmt::Display for Box3 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "({}, {}, {}, {}, {}, {})",
            self.x1, self.y1, self.z1, self.x2, self.y2, self.z2
        )
    }
}
