//! The geometry of the descent: where each node splits the plane, and the region
//! of the plane each node stands for.
//!
//! A node at depth `d` with integer coordinates `(ix, iy)` covers grid column
//! `ix` and row `iy` of the `2^d × 2^d` division of the world. Its split lines are
//! computed in closed form from the world's corner and size (see [`SplitLines`]), never
//! accumulated, so a line has one `f32` value however it is reached — from a
//! parent's split, a child's border, or an element's stored cell.
//!
//! A point goes to the left children when `x <= split_x` and to the right ones
//! when `x > split_x` (the same for y), so each point of the plane, inside the
//! world or not, belongs to exactly one leaf, and a closed rectangle belongs to
//! every leaf whose region it meets. Inserts and queries take the same decisions
//! on the same `f32` lines, which is why results are exact whatever rounding went
//! into the lines: an element and a query that intersect both reach the leaf
//! holding the top-left corner of their intersection. That corner also
//! de-duplicates hits across leaves without scratch memory: a hit is reported
//! only in the leaf that owns the corner.

use arrayvec::ArrayVec;

use crate::Rect;

/// Deepest `max_depth` a tree accepts.
pub const MAX_DEPTH_LIMIT: u32 = 30;

/// Depth-first walks push at most three siblings per level plus four children.
pub(crate) const STACK_CAPACITY: usize = 3 * MAX_DEPTH_LIMIT as usize + 1;

/// The explicit stack of every walk: on the call stack, never on the heap.
pub(crate) type Stack = ArrayVec<Cell, STACK_CAPACITY>;

/// The split lines of a world: line `k` of depth `d` lies at
/// `x1 + k · width / 2^d`, computed in `f64` and rounded once to `f32`.
///
/// `k · (width / 2^d)` is the same real number as `2k · (width / 2^(d+1))`, so a
/// line gets the same `f32` at every depth it is seen from; rounding is monotone,
/// so lines stay in order. Line 0 and line `2^d` are the world's border, which
/// regions do not stop at: there the lines are -∞ and +∞. For trees up to
/// [`TABLE_MAX_DEPTH`] deep every line is looked up in a table of the deepest
/// level's lines, which holds all the shallower ones too.
#[derive(Clone, Debug)]
pub(crate) struct SplitLines {
    x1: f64,
    y1: f64,
    /// Width and height of a cell at each depth (exact powers-of-two scalings).
    step: [(f64, f64); MAX_DEPTH_LIMIT as usize + 2],
    /// Depth of the tables' level; lines of depth `d` are at `k << (depth - d)`.
    table_depth: u32,
    table_x: Vec<f32>,
    table_y: Vec<f32>,
    /// Whether the tables are there (the tree is at most [`TABLE_MAX_DEPTH`] deep).
    tabled: bool,
}

/// Deepest tree whose lines are kept in a table (2 × 4 KiB at depth 9).
pub(crate) const TABLE_MAX_DEPTH: u32 = 12;

impl SplitLines {
    pub fn new(world: &Rect, max_depth: u32) -> SplitLines {
        let (width, height) = (world.width() as f64, world.height() as f64);
        let mut step = [(width, height); MAX_DEPTH_LIMIT as usize + 2];
        for depth in 1..step.len() {
            step[depth] = (step[depth - 1].0 * 0.5, step[depth - 1].1 * 0.5);
        }
        let mut grid = SplitLines {
            x1: world.x1 as f64,
            y1: world.y1 as f64,
            step,
            table_depth: max_depth,
            table_x: Vec::new(),
            table_y: Vec::new(),
            tabled: false,
        };
        if max_depth <= TABLE_MAX_DEPTH {
            let lines = 0..=1u32 << max_depth;
            grid.table_x = lines
                .clone()
                .map(|k| grid.compute_x(k, max_depth))
                .collect();
            grid.table_y = lines.map(|k| grid.compute_y(k, max_depth)).collect();
        }
        grid.tabled = !grid.table_x.is_empty();
        grid
    }

    #[cold]
    #[inline(never)]
    fn compute_x(&self, k: u32, depth: u32) -> f32 {
        match k {
            0 => f32::NEG_INFINITY,
            k if k == 1 << depth => f32::INFINITY,
            k => (self.x1 + k as f64 * self.step[depth as usize].0) as f32,
        }
    }

    #[cold]
    #[inline(never)]
    fn compute_y(&self, k: u32, depth: u32) -> f32 {
        match k {
            0 => f32::NEG_INFINITY,
            k if k == 1 << depth => f32::INFINITY,
            k => (self.y1 + k as f64 * self.step[depth as usize].1) as f32,
        }
    }

    /// Vertical line `k` of depth `d` (±∞ at the world's border).
    #[inline(always)]
    pub fn line_x(&self, k: u32, depth: u32) -> f32 {
        if self.tabled {
            self.table_x[(k << (self.table_depth - depth)) as usize]
        } else {
            self.compute_x(k, depth)
        }
    }

    /// Horizontal line `k` of depth `d` (±∞ at the world's border).
    #[inline(always)]
    pub fn line_y(&self, k: u32, depth: u32) -> f32 {
        if self.tabled {
            self.table_y[(k << (self.table_depth - depth)) as usize]
        } else {
            self.compute_y(k, depth)
        }
    }

    /// The split lines `(x, y)` of a branch.
    #[inline(always)]
    pub fn split(&self, cell: &Cell) -> (f32, f32) {
        let depth = cell.depth + 1;
        (
            self.line_x(2 * cell.ix + 1, depth),
            self.line_y(2 * cell.iy + 1, depth),
        )
    }

    /// The region a node owns: `lo < p <= hi` on each axis.
    #[inline(always)]
    pub fn region(&self, cell: &Cell) -> Region {
        Region {
            lo_x: self.line_x(cell.ix, cell.depth),
            hi_x: self.line_x(cell.ix + 1, cell.depth),
            lo_y: self.line_y(cell.iy, cell.depth),
            hi_y: self.line_y(cell.iy + 1, cell.depth),
        }
    }

    /// The node's cell in world coordinates, bounded by the world (for drawing).
    pub fn rect(&self, cell: &Cell) -> Rect {
        let (sx, sy) = self.step[cell.depth as usize];
        let x = |k: u32| (self.x1 + k as f64 * sx) as f32;
        let y = |k: u32| (self.y1 + k as f64 * sy) as f32;
        Rect::new(x(cell.ix), y(cell.iy), x(cell.ix + 1), y(cell.iy + 1))
    }

    /// A key that sorts rectangles in the order a depth-first walk meets them
    /// (Z-order of the top-left corner on a 65536 × 65536 grid over the world).
    /// Only an ordering hint: nothing exact depends on it.
    pub fn z_order(&self, r: &Rect) -> u32 {
        let (w, h) = self.step[0];
        let cell = |v: f32, origin: f64, size: f64| {
            ((v as f64 - origin) / size * 65536.0).clamp(0.0, 65535.0) as u32
        };
        spread(cell(r.x1, self.x1, w)) | (spread(cell(r.y1, self.y1, h)) << 1)
    }

    /// Width and height of a cell at `depth`.
    pub fn cell_size(&self, depth: u32) -> (f32, f32) {
        let (w, h) = self.step[depth as usize];
        (w as f32, h as f32)
    }

    /// Bytes the tables hold.
    pub fn bytes(&self) -> usize {
        (self.table_x.capacity() + self.table_y.capacity()) * core::mem::size_of::<f32>()
    }
}

/// The 16 low bits of `v`, moved to the even bit positions.
fn spread(v: u32) -> u32 {
    let mut v = v & 0xffff;
    v = (v | (v << 8)) & 0x00ff_00ff;
    v = (v | (v << 4)) & 0x0f0f_0f0f;
    v = (v | (v << 2)) & 0x3333_3333;
    (v | (v << 1)) & 0x5555_5555
}

/// The part of the plane a node owns: `lo_x < x <= hi_x`, `lo_y < y <= hi_y`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Region {
    pub lo_x: f32,
    pub hi_x: f32,
    pub lo_y: f32,
    pub hi_y: f32,
}

impl Region {
    /// Whether the region owns the point.
    #[inline]
    pub fn owns(&self, x: f32, y: f32) -> bool {
        (self.lo_x < x) & (x <= self.hi_x) & (self.lo_y < y) & (y <= self.hi_y)
    }

    /// Whether this is where the pair `a`, `b` (known to intersect) is reported:
    /// the region owns the top-left corner of their intersection.
    #[inline]
    pub fn owns_intersection(&self, a: &Rect, b: &Rect) -> bool {
        self.owns(a.x1.max(b.x1), a.y1.max(b.y1))
    }
}

/// The children a closed rectangle meets when split at `(cx, cy)`, as bits
/// `1 << k` for child `k` (0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right).
#[inline(always)]
pub(crate) fn mask(cx: f32, cy: f32, r: &Rect) -> u32 {
    let left = (r.x1 <= cx) as u32;
    let right = (r.x2 > cx) as u32;
    let top = (r.y1 <= cy) as u32;
    let bottom = (r.y2 > cy) as u32;
    let columns = left | (right << 1);
    (columns * top) | ((columns * bottom) << 2)
}

/// A node met during a descent: its index, depth and grid coordinates. Its
/// split lines and region come from the [`SplitLines`] when needed.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cell {
    pub node: u32,
    pub depth: u32,
    pub ix: u32,
    pub iy: u32,
}

impl Cell {
    pub const ROOT: Cell = Cell {
        node: 0,
        depth: 0,
        ix: 0,
        iy: 0,
    };

    /// Child `k` (0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right) of this
    /// cell, whose node is `first + k`.
    #[inline]
    pub fn child(&self, first: u32, k: u32) -> Cell {
        Cell {
            node: first + k,
            depth: self.depth + 1,
            ix: 2 * self.ix + (k & 1),
            iy: 2 * self.iy + (k >> 1),
        }
    }
}

/// The one child that owns a point, for a branch split at `(cx, cy)`.
#[inline]
pub(crate) fn point_child(cx: f32, cy: f32, x: f32, y: f32) -> u32 {
    (x > cx) as u32 | (((y > cy) as u32) << 1)
}

/// Where an element lies, kept in its slot so that a move within the same
/// leaves is seen without descending from the root: a block of `wx × wy` grid
/// cells (`wx`, `wy` ≤ 2) of one depth, top-left cell `(ix, iy)`, each of them a
/// leaf, which are exactly the leaves the element lies in. Elements in any other
/// shape, or deeper than [`PLACE_MAX_DEPTH`], have [`NO_PLACE`] and take the full
/// path. Splitting a leaf voids the places that name it.
pub(crate) type Place = u32;
pub(crate) const NO_PLACE: Place = u32::MAX;
/// Deepest leaves a [`Place`] can name (12 bits per coordinate).
pub(crate) const PLACE_MAX_DEPTH: u32 = 12;

/// The place of the block of leaves in `cells`, all of the same depth and
/// filling their bounding box of at most 2 × 2.
pub(crate) fn place_of(cells: &[Cell]) -> Place {
    let Some(first) = cells.first() else {
        return NO_PLACE;
    };
    let depth = first.depth;
    let (mut x0, mut x1, mut y0, mut y1) = (first.ix, first.ix, first.iy, first.iy);
    for cell in cells {
        if cell.depth != depth {
            return NO_PLACE;
        }
        x0 = x0.min(cell.ix);
        x1 = x1.max(cell.ix);
        y0 = y0.min(cell.iy);
        y1 = y1.max(cell.iy);
    }
    let (wx, wy) = (x1 - x0 + 1, y1 - y0 + 1);
    if depth > PLACE_MAX_DEPTH || wx > 2 || wy > 2 || (wx * wy) as usize != cells.len() {
        return NO_PLACE;
    }
    (depth << 28) | ((wx - 1) << 27) | ((wy - 1) << 26) | (x0 << 12) | y0
}

/// The place of the children of `cell` named by `mask` (a rectangle's mask).
pub(crate) fn place_in_children(cell: &Cell, mask: u32) -> Place {
    let depth = cell.depth + 1;
    if depth > PLACE_MAX_DEPTH {
        return NO_PLACE;
    }
    let (left, right) = (mask & 0b0101 != 0, mask & 0b1010 != 0);
    let (top, bottom) = (mask & 0b0011 != 0, mask & 0b1100 != 0);
    let x0 = 2 * cell.ix + !left as u32;
    let y0 = 2 * cell.iy + !top as u32;
    let (wx, wy) = ((left && right) as u32 + 1, (top && bottom) as u32 + 1);
    (depth << 28) | ((wx - 1) << 27) | ((wy - 1) << 26) | (x0 << 12) | y0
}

/// `(depth, ix, iy, wx, wy)` of a place other than [`NO_PLACE`].
#[inline]
pub(crate) fn unpack_place(place: Place) -> (u32, u32, u32, u32, u32) {
    (
        place >> 28,
        (place >> 12) & 0xfff,
        place & 0xfff,
        ((place >> 27) & 1) + 1,
        ((place >> 26) & 1) + 1,
    )
}

impl SplitLines {
    /// Whether a rectangle lies in exactly the leaves `place` names.
    #[inline]
    pub fn still_in(&self, place: Place, r: &Rect) -> bool {
        let (depth, ix, iy, wx, wy) = unpack_place(place);
        // Bitwise `&` rather than `&&`: one well-predicted branch instead of a
        // chain of coin flips.
        let inside = (self.line_x(ix, depth) < r.x1)
            & (r.x2 <= self.line_x(ix + wx, depth))
            & (self.line_y(iy, depth) < r.y1)
            & (r.y2 <= self.line_y(iy + wy, depth));
        // A two-wide block needs the rectangle on both sides of its middle line
        // (`x1 <= line < x2`, the descent's rule); a one-wide block needs nothing more.
        let crosses = |line: f32, lo: f32, hi: f32| (lo <= line) & (line < hi);
        inside
            && (wx == 1 || crosses(self.line_x(ix + 1, depth), r.x1, r.x2))
            && (wy == 1 || crosses(self.line_y(iy + 1, depth), r.y1, r.y2))
    }
}
