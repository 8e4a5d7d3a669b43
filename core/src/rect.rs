//! The axis-aligned rectangle every call takes and returns.

/// A closed axis-aligned rectangle `[x1, x2] × [y1, y2]` in `f32`.
///
/// Points and segments are rectangles too (`x1 == x2` and/or `y1 == y2`). A
/// rectangle the tree accepts is [valid](Rect::is_valid): finite coordinates and
/// `x1 <= x2`, `y1 <= y2`. The layout is four `f32`s in that order, so a flat
/// `[f32]` of length `4n` can be viewed as `n` rectangles without copying
/// ([`Rect::cast_slice`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct Rect {
    /// Left edge (smallest x).
    pub x1: f32,
    /// Top edge (smallest y).
    pub y1: f32,
    /// Right edge (largest x).
    pub x2: f32,
    /// Bottom edge (largest y).
    pub y2: f32,
}

// SAFETY: `Rect` is `repr(C)` of four `f32`, with no padding; every bit pattern is a valid `Rect`.
unsafe impl bytemuck::Zeroable for Rect {}
// SAFETY: see above; `Rect` is `Copy` and `'static`.
unsafe impl bytemuck::Pod for Rect {}

impl Rect {
    /// The rectangle `[x1, x2] × [y1, y2]`, unchecked (the tree checks it when given).
    pub const fn new(x1: f32, y1: f32, x2: f32, y2: f32) -> Rect {
        Rect { x1, y1, x2, y2 }
    }

    /// The rectangle with top-left corner `(x, y)`, width `w` and height `h`.
    pub fn from_xywh(x: f32, y: f32, w: f32, h: f32) -> Rect {
        Rect::new(x, y, x + w, y + h)
    }

    /// The rectangle of `f64` corners, each rounded to the nearest `f32` — the
    /// one conversion every binding uses. Rounding to nearest is monotone, so a
    /// closed rectangle that meets another in `f64` still meets it in `f32`:
    /// queries on rounded input never miss an `f64` hit (they may add a hit the
    /// rounding made touch).
    pub fn from_f64(x1: f64, y1: f64, x2: f64, y2: f64) -> Rect {
        Rect::new(x1 as f32, y1 as f32, x2 as f32, y2 as f32)
    }

    /// The rectangle with top-left corner `(x, y)`, width `w` and height `h`
    /// given in `f64`: the far corner is added in `f64`, then every corner is
    /// rounded once to `f32` (as [`from_f64`](Rect::from_f64)).
    pub fn from_xywh_f64(x: f64, y: f64, w: f64, h: f64) -> Rect {
        Rect::from_f64(x, y, x + w, y + h)
    }

    /// Rounds a flat `[x1, y1, x2, y2, x1, ...]` slice of `f64` into `out`
    /// (cleared first), each corner by [`from_f64`](Rect::from_f64): how every
    /// binding reads a batch of `f64` rectangles. A trailing partial rectangle
    /// (fewer than 4 numbers) is left out; bindings check the length first.
    ///
    /// ```
    /// use flatquad::Rect;
    /// let mut rects = Vec::new();
    /// Rect::round_f64s(&[0.1, 0.2, 1e7 + 0.3, 1.0], &mut rects);
    /// assert_eq!(rects, [Rect::new(0.1, 0.2, 10_000_000.0, 1.0)]);
    /// ```
    pub fn round_f64s(flat: &[f64], out: &mut Vec<Rect>) {
        out.clear();
        out.extend(
            flat.chunks_exact(4)
                .map(|c| Rect::from_f64(c[0], c[1], c[2], c[3])),
        );
    }

    /// The degenerate rectangle holding the single point `(x, y)`.
    pub const fn point(x: f32, y: f32) -> Rect {
        Rect::new(x, y, x, y)
    }

    /// Whether every coordinate is finite and the rectangle is not inverted.
    ///
    /// ```
    /// use flatquad::Rect;
    /// assert!(Rect::new(0.0, 0.0, 0.0, 5.0).is_valid()); // a segment
    /// assert!(!Rect::new(1.0, 0.0, 0.0, 1.0).is_valid()); // x1 > x2
    /// assert!(!Rect::new(f32::NAN, 0.0, 1.0, 1.0).is_valid());
    /// ```
    #[inline]
    pub fn is_valid(&self) -> bool {
        // NaN fails every comparison, so `x1 <= x2` also rejects it; the finiteness
        // check catches the infinities that compare fine. Bitwise `&`, as in
        // `Box3::is_valid`: one branch for a check that nearly always passes.
        self.x1.is_finite()
            & self.y1.is_finite()
            & self.x2.is_finite()
            & self.y2.is_finite()
            & (self.x1 <= self.x2)
            & (self.y1 <= self.y2)
    }

    /// Whether the two closed rectangles share at least one point (touching counts).
    #[inline]
    pub fn intersects(&self, other: &Rect) -> bool {
        // All four comparisons, then one branch at the caller: short-circuit
        // branches mispredict about half the time when most tests fail.
        (self.x1 <= other.x2)
            & (other.x1 <= self.x2)
            & (self.y1 <= other.y2)
            & (other.y1 <= self.y2)
    }

    /// Whether the closed rectangle holds the point `(x, y)` (its border included).
    #[inline]
    pub fn contains_point(&self, x: f32, y: f32) -> bool {
        // One vector of four comparisons, which the compiler currently keeps
        // without a branch in the loose grid's and the quadtree's point
        // queries; written as four `&`-ed comparisons it made branches of them
        // there, mispredicted element after element (static 1M point queries
        // 151 -> 87-91 ms and 116-118 -> 85-96). Codegen, not a guarantee: a
        // later compiler may differ. The same form for `intersects` measured level.
        let lo = [self.x1, self.y1, x, y];
        let hi = [x, y, self.x2, self.y2];
        lo.iter().zip(&hi).fold(true, |all, (a, b)| all & (a <= b))
    }

    /// Width `x2 - x1`.
    pub fn width(&self) -> f32 {
        self.x2 - self.x1
    }

    /// Height `y2 - y1`.
    pub fn height(&self) -> f32 {
        self.y2 - self.y1
    }

    /// Views a flat `[x1, y1, x2, y2, x1, y1, ...]` slice as rectangles without
    /// copying; `None` when its length is not a multiple of 4.
    ///
    /// ```
    /// use flatquad::Rect;
    /// let flat = [0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0];
    /// let rects = Rect::cast_slice(&flat).unwrap();
    /// assert_eq!(rects[1], Rect::new(2.0, 2.0, 3.0, 3.0));
    /// assert!(Rect::cast_slice(&flat[..3]).is_none());
    /// ```
    pub fn cast_slice(flat: &[f32]) -> Option<&[Rect]> {
        bytemuck::try_cast_slice(flat).ok()
    }

    /// The rectangles as a flat slice of `4 * rects.len()` floats, without copying.
    pub fn flatten(rects: &[Rect]) -> &[f32] {
        bytemuck::cast_slice(rects)
    }
}

impl From<[f32; 4]> for Rect {
    fn from([x1, y1, x2, y2]: [f32; 4]) -> Rect {
        Rect::new(x1, y1, x2, y2)
    }
}

impl From<Rect> for [f32; 4] {
    fn from(r: Rect) -> [f32; 4] {
        [r.x1, r.y1, r.x2, r.y2]
    }
}

impl core::fmt::Display for Rect {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "({}, {}, {}, {})", self.x1, self.y1, self.x2, self.y2)
    }
}

/// Whether two closed rectangles meet, as [`Rect::intersects`], in one vector
/// comparison on x86_64. Given four scalar comparisons the compiler may chain
/// them into branches (it did, inlined into the grid's pair walk), and those
/// mispredict when most tests fail.
#[inline(always)]
pub(crate) fn meets(a: &Rect, b: &Rect) -> bool {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE is part of x86_64; each pointer comes from a reference to a
    // `Rect`, which is `repr(C)` of four `f32` (16 bytes), read unaligned.
    unsafe {
        use core::arch::x86_64::{
            _mm_cmple_ps, _mm_loadu_ps, _mm_movehl_ps, _mm_movelh_ps, _mm_movemask_ps,
        };
        let va = _mm_loadu_ps((a as *const Rect).cast::<f32>());
        let vb = _mm_loadu_ps((b as *const Rect).cast::<f32>());
        // (a.x1, a.y1, b.x1, b.y1) <= (b.x2, b.y2, a.x2, a.y2), lane by lane.
        let near = _mm_movelh_ps(va, vb);
        let far = _mm_movehl_ps(va, vb);
        _mm_movemask_ps(_mm_cmple_ps(near, far)) == 0b1111
    }
    #[cfg(not(target_arch = "x86_64"))]
    a.intersects(b)
}

// Box helpers the loose structures share.

/// An inverted, infinite box: it meets nothing and a union with it is the
/// other rectangle (a loose cell or node listed nowhere, a box not grown yet).
pub(crate) const EMPTY: Rect = Rect::new(
    f32::INFINITY,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NEG_INFINITY,
);

/// Whether a box is [`EMPTY`] (compared bit for bit).
#[inline]
pub(crate) fn is_empty_box(r: &Rect) -> bool {
    r.x1 == f32::INFINITY
        && r.y1 == f32::INFINITY
        && r.x2 == f32::NEG_INFINITY
        && r.y2 == f32::NEG_INFINITY
}

/// The smallest rectangle holding both (either may be [`EMPTY`]).
#[inline]
pub(crate) fn union(a: &Rect, b: &Rect) -> Rect {
    Rect::new(
        a.x1.min(b.x1),
        a.y1.min(b.y1),
        a.x2.max(b.x2),
        a.y2.max(b.y2),
    )
}

/// Whether `outer` holds `inner` entirely (never, when `outer` is [`EMPTY`]).
#[inline]
pub(crate) fn holds(outer: &Rect, inner: &Rect) -> bool {
    (outer.x1 <= inner.x1)
        & (outer.y1 <= inner.y1)
        & (inner.x2 <= outer.x2)
        & (inner.y2 <= outer.y2)
}

/// The centre coordinate that picks an element's loose cell or node, computed
/// the same way everywhere so that it can be recomputed from the stored rectangle.
#[inline(always)]
pub(crate) fn centre(a: f32, b: f32) -> f32 {
    a * 0.5 + b * 0.5
}
