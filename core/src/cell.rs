//! The geometry of the descent: a node's centre, computed from the root's on the
//! way down, and the region of the plane the node stands for.
//!
//! Every node splits the plane at its centre: a point goes to the left children
//! when `x <= cx` and to the right ones when `x > cx` (the same for y), so each
//! point of the plane, inside the world or not, belongs to exactly one leaf, and a
//! closed rectangle belongs to every leaf whose region it meets. Insertions and
//! queries take the same decisions on the same `f32` centres, which is why the
//! results are exact whatever rounding went into the centres: an element and a
//! query that intersect both reach the leaf holding the top-left corner of their
//! intersection. That corner also de-duplicates hits across leaves without any
//! scratch memory: a hit is reported only in the leaf that owns the corner.

use arrayvec::ArrayVec;

use crate::Rect;

/// Deepest `max_depth` a tree accepts; beyond it `f32` halving stops meaning much.
pub const MAX_DEPTH_LIMIT: u32 = 30;

/// Depth-first walks push at most three siblings per level plus four children.
pub(crate) const STACK_CAPACITY: usize = 3 * MAX_DEPTH_LIMIT as usize + 1;

/// The explicit stack of every walk: on the call stack, never on the heap.
pub(crate) type Stack = ArrayVec<Cell, STACK_CAPACITY>;

/// A node met during a descent, with its centre and the region it owns:
/// `lo_x < x <= hi_x` and `lo_y < y <= hi_y` (infinite at the world's border,
/// since border leaves also own everything outside the world).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cell {
    pub node: u32,
    pub depth: u32,
    pub cx: f32,
    pub cy: f32,
    pub lo_x: f32,
    pub hi_x: f32,
    pub lo_y: f32,
    pub hi_y: f32,
}

impl Cell {
    pub fn root(cx: f32, cy: f32) -> Cell {
        Cell {
            node: 0,
            depth: 0,
            cx,
            cy,
            lo_x: f32::NEG_INFINITY,
            hi_x: f32::INFINITY,
            lo_y: f32::NEG_INFINITY,
            hi_y: f32::INFINITY,
        }
    }

    /// The children a closed rectangle meets, as bits `1 << k` for child `k`
    /// (0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right).
    #[inline]
    pub fn mask(&self, r: &Rect) -> u32 {
        let left = (r.x1 <= self.cx) as u32;
        let right = (r.x2 > self.cx) as u32;
        let top = (r.y1 <= self.cy) as u32;
        let bottom = (r.y2 > self.cy) as u32;
        let columns = left | (right << 1);
        (columns * top) | ((columns * bottom) << 2)
    }

    /// The one child that owns a point.
    #[inline]
    pub fn point_child(&self, x: f32, y: f32) -> u32 {
        (x > self.cx) as u32 | (((y > self.cy) as u32) << 1)
    }

    /// Child `k` of this cell, whose node is `first + k`; `half` is the child's
    /// half-size (its centre's offset from ours).
    #[inline]
    pub fn child(&self, first: u32, k: u32, half: (f32, f32)) -> Cell {
        let right = k & 1 != 0;
        let bottom = k & 2 != 0;
        // min/max rather than plain assignment keep the region exactly the set of
        // points whose descent reaches this node, even if rounding ever put a
        // child's centre past an ancestor's.
        let (cx, lo_x, hi_x) = if right {
            (self.cx + half.0, self.lo_x.max(self.cx), self.hi_x)
        } else {
            (self.cx - half.0, self.lo_x, self.hi_x.min(self.cx))
        };
        let (cy, lo_y, hi_y) = if bottom {
            (self.cy + half.1, self.lo_y.max(self.cy), self.hi_y)
        } else {
            (self.cy - half.1, self.lo_y, self.hi_y.min(self.cy))
        };
        Cell {
            node: first + k,
            depth: self.depth + 1,
            cx,
            cy,
            lo_x,
            hi_x,
            lo_y,
            hi_y,
        }
    }

    /// Whether this cell's leaf is the one that owns the point.
    #[inline]
    pub fn owns(&self, x: f32, y: f32) -> bool {
        self.lo_x < x && x <= self.hi_x && self.lo_y < y && y <= self.hi_y
    }

    /// Whether this leaf is where the pair `a`, `b` (known to intersect) is reported:
    /// it owns the top-left corner of their intersection.
    #[inline]
    pub fn owns_intersection(&self, a: &Rect, b: &Rect) -> bool {
        self.owns(a.x1.max(b.x1), a.y1.max(b.y1))
    }
}
