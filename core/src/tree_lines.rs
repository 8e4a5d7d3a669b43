//! The geometry of the descent: where each node splits the plane, and the region
//! of the plane each node stands for.
//!
//! Written once for both dimensions (see [`Dimension`]); the comments speak of
//! the plane, and the same holds for space with a third axis. A node at depth
//! `d` with integer coordinates `(ix, iy)` covers grid column `ix` and row `iy`
//! of the `2^d × 2^d` division of the world. Its split lines are
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

// The loops over `0..D::AXES` index several per-axis arrays at once; the
// compiler unrolls them, since `AXES` is a constant of each dimension.
#![allow(clippy::needless_range_loop)]

use arrayvec::ArrayVec;

use crate::dimension::{Dim2, Dimension};
use crate::{Bounds, Error};

/// Deepest `max_depth` a tree accepts.
pub const MAX_DEPTH_LIMIT: u32 = 30;

/// 2D depth-first walks push at most three siblings per level plus four
/// children (the loose quadtree's walks).
pub(crate) const STACK_CAPACITY: usize = 3 * MAX_DEPTH_LIMIT as usize + 1;

/// The flat tree's walks, in either dimension: at most seven siblings per
/// level plus eight children. The stack is never initialised, so the 2D tree
/// pays nothing for the room it does not use.
pub(crate) const TREE_STACK_CAPACITY: usize = 7 * MAX_DEPTH_LIMIT as usize + 1;

/// The explicit stack of every walk: on the call stack, never on the heap.
pub(crate) type Stack<D = Dim2> = ArrayVec<Cell<D>, TREE_STACK_CAPACITY>;

/// The split lines (planes, in 3D) of a world: line `k` of depth `d` on an
/// axis lies at `lo + k · extent / 2^d`, computed in `f64` and rounded once to
/// `f32`.
///
/// `k · (extent / 2^d)` is the same real number as `2k · (extent / 2^(d+1))`, so a
/// line gets the same `f32` at every depth it is seen from; rounding is monotone,
/// so lines stay in order. Line 0 and line `2^d` are the world's border, which
/// regions do not stop at: there the lines are -∞ and +∞. For trees up to
/// [`TABLE_MAX_DEPTH`] deep every line is looked up in a table of the deepest
/// level's lines, which holds all the shallower ones too.
#[derive(Clone, Debug)]
pub(crate) struct SplitLines<D: Dimension = Dim2> {
    origin: [f64; 3],
    /// A cell's extent on each axis at each depth (exact powers-of-two scalings).
    step: [[f64; 3]; MAX_DEPTH_LIMIT as usize + 2],
    /// Depth of the tables' level; lines of depth `d` are at `k << (depth - d)`.
    table_depth: u32,
    /// One table per axis (the third empty in 2D).
    tables: [Vec<f32>; 3],
    /// Whether the tables are there (the tree is at most [`TABLE_MAX_DEPTH`] deep).
    tabled: bool,
    dimension: core::marker::PhantomData<D>,
}

/// Deepest tree whose lines are kept in a table (2 × 4 KiB at depth 9).
pub(crate) const TABLE_MAX_DEPTH: u32 = 12;

impl<D: Dimension> SplitLines<D> {
    pub fn new(world: &D::Bounds, max_depth: u32) -> SplitLines<D> {
        let mut origin = [0.0; 3];
        let mut extent = [0.0; 3];
        for axis in 0..D::AXES {
            origin[axis] = world.lo(axis) as f64;
            extent[axis] = world.hi(axis) as f64 - world.lo(axis) as f64;
        }
        let mut step = [extent; MAX_DEPTH_LIMIT as usize + 2];
        for depth in 1..step.len() {
            step[depth] = step[depth - 1].map(|v| v * 0.5);
        }
        let mut grid = SplitLines {
            origin,
            step,
            table_depth: max_depth,
            tables: [Vec::new(), Vec::new(), Vec::new()],
            tabled: false,
            dimension: core::marker::PhantomData,
        };
        if max_depth <= TABLE_MAX_DEPTH {
            for axis in 0..D::AXES {
                grid.tables[axis] = (0..=1u32 << max_depth)
                    .map(|k| grid.compute(axis, k, max_depth))
                    .collect();
            }
            grid.tabled = true;
        }
        grid
    }

    #[cold]
    #[inline(never)]
    fn compute(&self, axis: usize, k: u32, depth: u32) -> f32 {
        match k {
            0 => f32::NEG_INFINITY,
            k if k == 1 << depth => f32::INFINITY,
            k => (self.origin[axis] + k as f64 * self.step[depth as usize][axis]) as f32,
        }
    }

    /// Line `k` of depth `d` across `axis` (±∞ at the world's border).
    #[inline(always)]
    pub fn line(&self, axis: usize, k: u32, depth: u32) -> f32 {
        if self.tabled {
            self.tables[axis][(k << (self.table_depth - depth)) as usize]
        } else {
            self.compute(axis, k, depth)
        }
    }

    /// The split point of a branch: one line per axis.
    #[inline(always)]
    pub fn split(&self, cell: &Cell<D>) -> D::Values {
        let depth = cell.depth + 1;
        let mut split = D::Values::default();
        for (axis, value) in split.as_mut().iter_mut().enumerate() {
            *value = self.line(axis, 2 * cell.at.as_ref()[axis] + 1, depth);
        }
        split
    }

    /// The region a node owns: `lo < p <= hi` on each axis.
    #[inline(always)]
    pub fn region(&self, cell: &Cell<D>) -> Region<D> {
        let (mut lo, mut hi) = (D::Values::default(), D::Values::default());
        for axis in 0..D::AXES {
            let k = cell.at.as_ref()[axis];
            lo.as_mut()[axis] = self.line(axis, k, cell.depth);
            hi.as_mut()[axis] = self.line(axis, k + 1, cell.depth);
        }
        Region { lo, hi }
    }

    /// The node's cell in world coordinates, bounded by the world (for drawing).
    pub fn rect(&self, cell: &Cell<D>) -> D::Bounds {
        let (mut lo, mut hi) = ([0.0; 3], [0.0; 3]);
        for axis in 0..D::AXES {
            let step = self.step[cell.depth as usize][axis];
            let k = cell.at.as_ref()[axis] as f64;
            lo[axis] = (self.origin[axis] + k * step) as f32;
            hi[axis] = (self.origin[axis] + (k + 1.0) * step) as f32;
        }
        D::Bounds::from_corners(lo, hi)
    }

    /// A key that sorts boxes in the order a depth-first walk meets them
    /// (Z-order of the low corner on a grid of `2^(32 / AXES)` cells a side
    /// over the world). Only an ordering hint: nothing exact depends on it.
    pub fn z_order(&self, r: &D::Bounds) -> u32 {
        let bits = 32 / D::AXES as u32;
        let cells = (1u64 << bits) as f64;
        let mut key = 0;
        for axis in 0..D::AXES {
            let v = (r.lo(axis) as f64 - self.origin[axis]) / self.step[0][axis] * cells;
            let v = v.clamp(0.0, cells - 1.0) as u32;
            for bit in 0..bits {
                key |= ((v >> bit) & 1) << (bit * D::AXES as u32 + axis as u32);
            }
        }
        key
    }

    /// A cell's extent on each axis at `depth`.
    pub fn cell_size(&self, depth: u32) -> D::Values {
        let mut size = D::Values::default();
        for (axis, value) in size.as_mut().iter_mut().enumerate() {
            *value = self.step[depth as usize][axis] as f32;
        }
        size
    }

    /// Bytes the tables hold.
    pub fn bytes(&self) -> usize {
        self.tables.iter().map(Vec::capacity).sum::<usize>() * core::mem::size_of::<f32>()
    }
}

/// The part of space a node owns: `lo < p <= hi` on every axis.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Region<D: Dimension = Dim2> {
    pub lo: D::Values,
    pub hi: D::Values,
}

impl<D: Dimension> Region<D> {
    /// Whether the region owns the point.
    #[inline]
    pub fn owns(&self, point: &[f32]) -> bool {
        let mut owns = true;
        for axis in 0..D::AXES {
            let v = point[axis];
            owns &= (self.lo.as_ref()[axis] < v) & (v <= self.hi.as_ref()[axis]);
        }
        owns
    }

    /// Whether this is where the pair `a`, `b` (known to intersect) is reported:
    /// the region owns the low corner of their intersection.
    #[inline]
    pub fn owns_intersection(&self, a: &D::Bounds, b: &D::Bounds) -> bool {
        let mut corner = D::Values::default();
        for (axis, value) in corner.as_mut().iter_mut().enumerate() {
            *value = a.lo(axis).max(b.lo(axis));
        }
        self.owns(corner.as_ref())
    }
}

/// The children a closed box meets when split at `split`, as bits `1 << k`
/// for child `k`, whose bit `a` says the high side of axis `a` (in 2D: 0
/// top-left, 1 top-right, 2 bottom-left, 3 bottom-right).
#[inline(always)]
pub(crate) fn mask<D: Dimension>(split: &D::Values, r: &D::Bounds) -> u32 {
    // Axis by axis, the children met so far are copied to the low side, the
    // high side, or both: multiplications by 0/1 instead of branches.
    let mut children = 1;
    for axis in 0..D::AXES {
        let c = split.as_ref()[axis];
        let low = (r.lo(axis) <= c) as u32;
        let high = (r.hi(axis) > c) as u32;
        children = (children * low) | ((children * high) << (1 << axis));
    }
    children
}

/// The children on the low side of `axis`: `0b0101` for x and `0b0011` for y
/// in 2D.
#[inline(always)]
pub(crate) fn low_children<D: Dimension>(axis: usize) -> u32 {
    (0..D::CHILDREN)
        .filter(|k| k >> axis & 1 == 0)
        .fold(0, |m, k| m | 1 << k)
}

/// A node met during a descent: its index, depth and grid coordinates. Its
/// split lines and region come from the [`SplitLines`] when needed.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cell<D: Dimension = Dim2> {
    pub node: u32,
    pub depth: u32,
    pub at: D::Coords,
}

impl<D: Dimension> Cell<D> {
    pub const ROOT: Cell<D> = Cell {
        node: 0,
        depth: 0,
        at: D::ORIGIN,
    };

    /// Child `k` of this cell (bit `a` of `k`: the high side of axis `a`),
    /// whose node is `first + k`.
    #[inline]
    /// The cell of this cell's parent, which is node `parent`.
    pub fn parent(&self, parent: u32) -> Cell<D> {
        let mut at = self.at;
        for v in at.as_mut() {
            *v >>= 1;
        }
        Cell {
            node: parent,
            depth: self.depth - 1,
            at,
        }
    }

    /// Whether `other` is the same node at the same place.
    pub fn same(&self, other: &Cell<D>) -> bool {
        (self.node, self.depth) == (other.node, other.depth)
            && self.at.as_ref() == other.at.as_ref()
    }

    pub fn child(&self, first: u32, k: u32) -> Cell<D> {
        let mut at = self.at;
        for (axis, v) in at.as_mut().iter_mut().enumerate() {
            *v = 2 * *v + (k >> axis & 1);
        }
        Cell {
            node: first + k,
            depth: self.depth + 1,
            at,
        }
    }
}

/// The one child that owns a point, for a branch split at `split`.
#[inline]
pub(crate) fn point_child<D: Dimension>(split: &D::Values, point: &[f32]) -> u32 {
    let mut k = 0;
    for axis in 0..D::AXES {
        k |= ((point[axis] > split.as_ref()[axis]) as u32) << axis;
    }
    k
}

/// Where an element lies, kept in its slot so that a move within the same
/// leaves is seen without descending from the root: a block of leaves of one
/// depth, at most 2 wide on each axis, low cell `at`, each of them a leaf,
/// which are exactly the leaves the element lies in. Packed in 32 bits: the
/// depth (4 bits), one "2 wide" bit per axis from bit 27 down, and each
/// coordinate in `PLACE_COORD_BITS` (12 in 2D, 8 in 3D). Elements in any other
/// shape, or deeper than [`place_max_depth`], have [`NO_PLACE`] and take the
/// full path. Splitting a leaf voids the places that name it.
pub(crate) type Place = u32;
pub(crate) const NO_PLACE: Place = u32::MAX;

/// Deepest leaves a [`Place`] can name: 12 in 2D, 8 in 3D.
#[inline(always)]
pub(crate) fn place_max_depth<D: Dimension>() -> u32 {
    D::PLACE_COORD_BITS
}

/// A place from its parts; `wide` says which axes are two cells wide.
#[inline]
fn pack_place<D: Dimension>(depth: u32, at: &D::Coords, wide: &[bool]) -> Place {
    let mut place = depth << 28;
    for axis in 0..D::AXES {
        place |= (wide[axis] as u32) << (27 - axis);
        place |= at.as_ref()[axis] << (D::PLACE_COORD_BITS * (D::AXES - 1 - axis) as u32);
    }
    place
}

/// The place of the block of leaves in `cells`, all of the same depth and
/// filling their bounding box of at most 2 on each axis.
pub(crate) fn place_of<D: Dimension>(cells: &[Cell<D>]) -> Place {
    let Some(first) = cells.first() else {
        return NO_PLACE;
    };
    let depth = first.depth;
    let (mut lo, mut hi) = (first.at, first.at);
    for cell in cells {
        if cell.depth != depth {
            return NO_PLACE;
        }
        for axis in 0..D::AXES {
            let v = cell.at.as_ref()[axis];
            lo.as_mut()[axis] = lo.as_ref()[axis].min(v);
            hi.as_mut()[axis] = hi.as_ref()[axis].max(v);
        }
    }
    let mut wide = [false; 3];
    let mut block = 1;
    for axis in 0..D::AXES {
        let width = hi.as_ref()[axis] - lo.as_ref()[axis] + 1;
        if width > 2 {
            return NO_PLACE;
        }
        wide[axis] = width == 2;
        block *= width as usize;
    }
    if depth > place_max_depth::<D>() || block != cells.len() {
        return NO_PLACE;
    }
    pack_place::<D>(depth, &lo, &wide)
}

/// The place of the children of `cell` named by `mask` (a box's mask).
pub(crate) fn place_in_children<D: Dimension>(cell: &Cell<D>, mask: u32) -> Place {
    let depth = cell.depth + 1;
    if depth > place_max_depth::<D>() {
        return NO_PLACE;
    }
    let mut at = cell.at;
    let mut wide = [false; 3];
    for axis in 0..D::AXES {
        let low = low_children::<D>(axis);
        let (on_low, on_high) = (mask & low != 0, mask & !low != 0);
        at.as_mut()[axis] = 2 * cell.at.as_ref()[axis] + !on_low as u32;
        wide[axis] = on_low && on_high;
    }
    pack_place::<D>(depth, &at, &wide)
}

/// A place other than [`NO_PLACE`], unpacked.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Unpacked<D: Dimension> {
    pub depth: u32,
    /// The block's low cell.
    pub at: D::Coords,
    /// The block's width on each axis, 1 or 2.
    pub width: D::Coords,
}

impl<D: Dimension> Unpacked<D> {
    /// Whether the block is a single leaf.
    #[inline]
    pub fn is_one_leaf(&self) -> bool {
        self.width.as_ref().iter().all(|&w| w == 1)
    }
}

/// The parts of a place other than [`NO_PLACE`].
#[inline]
pub(crate) fn unpack_place<D: Dimension>(place: Place) -> Unpacked<D> {
    let (mut at, mut width) = (D::Coords::default(), D::Coords::default());
    let coord_mask = (1 << D::PLACE_COORD_BITS) - 1;
    for axis in 0..D::AXES {
        width.as_mut()[axis] = ((place >> (27 - axis)) & 1) + 1;
        at.as_mut()[axis] =
            (place >> (D::PLACE_COORD_BITS * (D::AXES - 1 - axis) as u32)) & coord_mask;
    }
    Unpacked {
        depth: place >> 28,
        at,
        width,
    }
}

impl<D: Dimension> SplitLines<D> {
    /// Whether a box lies in exactly the leaves `place` names.
    #[inline]
    pub fn still_in(&self, place: Place, r: &D::Bounds) -> bool {
        let Unpacked { depth, at, width } = unpack_place::<D>(place);
        // Bitwise `&` rather than `&&`: one well-predicted branch instead of a
        // chain of coin flips.
        let mut inside = true;
        for axis in 0..D::AXES {
            let (k, w) = (at.as_ref()[axis], width.as_ref()[axis]);
            inside &= (self.line(axis, k, depth) < r.lo(axis))
                & (r.hi(axis) <= self.line(axis, k + w, depth));
        }
        // A two-wide block needs the box on both sides of its middle line
        // (`lo <= line < hi`, the descent's rule); a one-wide block needs nothing more.
        inside
            && (0..D::AXES).all(|axis| {
                let (k, w) = (at.as_ref()[axis], width.as_ref()[axis]);
                let line = self.line(axis, k + 1, depth);
                w == 1 || (r.lo(axis) <= line) & (line < r.hi(axis))
            })
    }
}

/// The trees' parameters (the quadtree's and the loose quadtree's), or
/// [`Error::InvalidParameter`]: at least one element per leaf, and a depth the
/// split lines can reach.
pub(crate) fn check_tree_parameters(max_elements: u32, max_depth: u32) -> Result<(), Error> {
    if max_elements == 0 {
        return Err(Error::InvalidParameter {
            name: "max_elements",
            expected: "at least 1",
            found: max_elements.into(),
        });
    }
    if max_depth > MAX_DEPTH_LIMIT {
        return Err(Error::InvalidParameter {
            name: "max_depth",
            expected: "at most 30",
            found: max_depth.into(),
        });
    }
    Ok(())
}
