//! The loose quadtree: its state and construction here, one file per operation
//! beside it.
//!
//! Every element lives in exactly one leaf, the one its centre descends to by
//! the nodes' split lines (the quadtree's lines). Each node keeps a box that
//! holds the rectangles of every element below it; boxes grow on the way down
//! when elements are inserted or moved, and are refitted in `cleanup`. Queries
//! descend into every child whose box meets the query.

mod bounded;
mod cleanup;
mod insert;
mod nodes;
mod pairs;
#[cfg(feature = "rayon")]
mod parallel;
mod queries;
mod relocate;
mod remove;
mod snapshot;
#[cfg(test)]
mod tests;
mod traverse;
mod validate;

use core::ops::ControlFlow;

use crate::index::raw::impl_structure;
use crate::index::{check_world, NodeInfo, SpatialIndex, Stats};
use crate::loose_quadtree::bounded::check_max_extent;
use crate::loose_quadtree::nodes::{Families, NodePool};
use crate::slots::{slot_record, SlotPool, NONE};
use crate::tree_lines::check_tree_parameters;
use crate::tree_lines::{SplitLines, MAX_DEPTH_LIMIT};
use crate::{Error, Rect};

/// Where an element's rectangle and id live, with the next element of its leaf
/// and the leaf itself. 28 bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct Slot {
    pub(crate) rect: Rect,
    pub(crate) id: u32,
    /// The next element of the same leaf, or [`NONE`]; void for free slots.
    pub(crate) next: u32,
    /// The leaf holding the element; void for free slots.
    pub(crate) leaf: u32,
}

slot_record!(
    Slot,
    Slot {
        rect: Rect::new(0.0, 0.0, 0.0, 0.0),
        id: 0,
        next: NONE,
        leaf: NONE,
    }
);

/// A loose quadtree over `f32` rectangles: each element in exactly one leaf,
/// the one its centre falls in, and each node with a box bounding everything
/// below it.
///
/// - Nodes are 24 bytes (box, first child or first element, count) in one
///   `Vec`, four siblings allocated and freed together through a free list;
///   walks use explicit stacks, so once warm the tree allocates nothing.
/// - An element is placed by its centre, descending by the same split lines
///   as the [`Quadtree`](crate::Quadtree)'s, and every box on the way grows to
///   hold its rectangle. Elements are chained through their slots: no link per
///   element, whatever their size. A leaf splits when it holds more than
///   `max_elements` and is shallower than `max_depth`, unless all its elements
///   share one centre (a stack at one spot stays in one leaf).
/// - A move whose centre stays in its leaf writes the rectangle and grows the
///   boxes on the path; otherwise the element is relinked into the leaf
///   owning its new centre. Boxes shrink to fit, and branches whose four
///   children are empty leaves merge, in [`cleanup`](SpatialIndex::cleanup).
/// - Queries descend into every child whose box meets the query and test the
///   elements of the leaves they reach; as each element is in one leaf, each
///   is found once, with no de-duplication.
///
/// Results are exact for any `f32` input: every test is a comparison of closed
/// rectangles, and the centre only chooses the leaf. Elements outside the
/// world and elements as large as the world are fine (they grow the boxes on
/// their path, which then meet more queries).
///
/// ```
/// use flatquad::{LooseQuadtree, Query, Rect, SpatialIndex};
///
/// let mut tree = LooseQuadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0), 8, 8)?;
/// let a = tree.insert(Rect::new(10.0, 10.0, 20.0, 20.0), 1)?;
/// let b = tree.insert(Rect::new(20.0, 15.0, 30.0, 25.0), 2)?; // touches `a`
/// let mut hits = Vec::new();
/// tree.query(&Query::rect(Rect::new(0.0, 0.0, 12.0, 12.0)), &mut hits)?;
/// assert_eq!(hits, [a]);
/// let mut pairs = Vec::new();
/// tree.pairs(&mut pairs);
/// assert_eq!(pairs.len(), 1);
/// tree.update(b, Rect::new(50.0, 50.0, 60.0, 60.0))?;
/// tree.cleanup(); // boxes shrink to fit
/// tree.pairs(&mut pairs);
/// assert!(pairs.is_empty());
/// tree.remove(a)?;
/// assert!(tree.remove(a).is_err()); // a stale handle is refused
/// tree.validate().unwrap();
/// # Ok::<(), flatquad::Error>(())
/// ```
#[derive(Clone)]
pub struct LooseQuadtree {
    world: Rect,
    pub(crate) lines: SplitLines,
    max_elements: u32,
    max_depth: u32,
    /// The bound of the upper-bound size trick, if one was given.
    max_extent: Option<f32>,
    /// With a `max_extent`, the elements over it (a plain loose quadtree
    /// whose ids are this tree's slots).
    pub(crate) over_bound: Option<Box<LooseQuadtree>>,
    pub(crate) nodes: NodePool,
    pub(crate) families: Families,
    pub(crate) slots: SlotPool<Slot>,
}

impl LooseQuadtree {
    /// Elements a leaf holds before it splits, by default (the
    /// [`Quadtree`](crate::Quadtree)'s default).
    pub const DEFAULT_MAX_ELEMENTS: u32 = 8;
    /// A default depth: 256 × 256 cells at the deepest level.
    pub const DEFAULT_MAX_DEPTH: u32 = 8;
    /// The largest `max_depth` accepted.
    pub const MAX_DEPTH_LIMIT: u32 = MAX_DEPTH_LIMIT;

    /// An empty tree over `world` with the default leaf capacity and depth.
    ///
    /// ```
    /// use flatquad::{LooseQuadtree, Rect};
    /// let tree = LooseQuadtree::for_world(Rect::new(0.0, 0.0, 1024.0, 1024.0))?;
    /// assert_eq!((tree.max_elements(), tree.max_depth()), (8, 8));
    /// # Ok::<(), flatquad::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidWorld`] as for [`new`](LooseQuadtree::new).
    pub fn for_world(world: Rect) -> Result<LooseQuadtree, Error> {
        LooseQuadtree::new(world, Self::DEFAULT_MAX_ELEMENTS, Self::DEFAULT_MAX_DEPTH)
    }

    /// An empty tree over `world`. A leaf splits when it holds more than
    /// `max_elements` and is shallower than `max_depth` (the root is depth 0).
    ///
    /// The world only sets where the tree's split lines lie: elements and
    /// queries outside it are fine.
    ///
    /// ```
    /// use flatquad::{Error, LooseQuadtree, Rect};
    /// let world = Rect::new(0.0, 0.0, 64.0, 64.0);
    /// assert!(LooseQuadtree::new(world, 4, 6).is_ok());
    /// assert!(matches!(
    ///     LooseQuadtree::new(world, 0, 6),
    ///     Err(Error::InvalidParameter { .. })
    /// ));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidWorld`] unless `world` is finite with a positive, finite
    /// width and height; [`Error::InvalidParameter`] if `max_elements` is 0 or
    /// `max_depth` exceeds [`LooseQuadtree::MAX_DEPTH_LIMIT`].
    pub fn new(world: Rect, max_elements: u32, max_depth: u32) -> Result<LooseQuadtree, Error> {
        check_world(world)?;
        check_tree_parameters(max_elements, max_depth)?;
        Ok(LooseQuadtree {
            world,
            lines: SplitLines::new(&world, max_depth),
            max_elements,
            max_depth,
            max_extent: None,
            over_bound: None,
            nodes: NodePool::new(),
            families: Families::default(),
            slots: SlotPool::new(),
        })
    }

    /// An empty tree over `world` for elements mostly no wider and no taller
    /// than `max_extent` (after the "uniform upper-bound size" of the design
    /// notes, `docs/design.md`): the elements over the bound — a few large ones among many small — are kept
    /// apart, in a plain loose quadtree of their own (see
    /// [`over_bound_len`](LooseQuadtree::over_bound_len)), so that they do
    /// not widen the boxes the small ones share. Any size is fine either way,
    /// and results are as exact as without the bound. A rectangle is over
    /// the bound when its `f32` width or height (`x2 - x1`, `y2 - y1`) is
    /// greater: leave a little room above the common size, for
    /// `(x + 4.0) - x` may round to a hair over 4. mixed-100k (1% of the
    /// agents 32–64× larger), all pairs: 15.5 → 11.7 ms a frame.
    ///
    /// ```
    /// use flatquad::{LooseQuadtree, Rect, SpatialIndex};
    /// let world = Rect::new(0.0, 0.0, 1024.0, 1024.0);
    /// let mut tree = LooseQuadtree::with_max_extent(world, 8, 8, 4.0)?;
    /// let small = tree.insert(Rect::new(10.0, 10.0, 14.0, 14.0), 0)?;
    /// let big = tree.insert(Rect::new(0.0, 0.0, 200.0, 200.0), 1)?; // over the bound
    /// assert_eq!((tree.max_extent(), tree.over_bound_len()), (Some(4.0), 1));
    /// let mut pairs = Vec::new();
    /// tree.pairs(&mut pairs);
    /// assert_eq!(pairs.len(), 1);
    /// assert!(LooseQuadtree::with_max_extent(world, 8, 8, f32::NAN).is_err());
    /// # let _ = (small, big);
    /// # Ok::<(), flatquad::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`new`](LooseQuadtree::new), and [`Error::InvalidParameter`] unless
    /// `max_extent` is positive and finite.
    pub fn with_max_extent(
        world: Rect,
        max_elements: u32,
        max_depth: u32,
        max_extent: f32,
    ) -> Result<LooseQuadtree, Error> {
        check_max_extent(max_extent)?;
        let over_bound = LooseQuadtree::new(world, max_elements, max_depth)?;
        Ok(LooseQuadtree {
            max_extent: Some(max_extent),
            over_bound: Some(Box::new(over_bound.clone())),
            ..over_bound
        })
    }

    /// The bound given to [`with_max_extent`](LooseQuadtree::with_max_extent),
    /// if any.
    ///
    /// ```
    /// use flatquad::{LooseQuadtree, Rect};
    /// let tree = LooseQuadtree::new(Rect::new(0.0, 0.0, 1.0, 1.0), 3, 5)?;
    /// assert_eq!(tree.max_extent(), None);
    /// # Ok::<(), flatquad::Error>(())
    /// ```
    pub fn max_extent(&self) -> Option<f32> {
        self.max_extent
    }

    /// Elements wider or taller than `max_extent`, kept apart (0 without one).
    pub fn over_bound_len(&self) -> usize {
        self.over_bound.as_ref().map_or(0, |over| over.len())
    }

    /// Elements a leaf holds before it splits.
    ///
    /// ```
    /// use flatquad::{LooseQuadtree, Rect};
    /// let tree = LooseQuadtree::new(Rect::new(0.0, 0.0, 1.0, 1.0), 3, 5)?;
    /// assert_eq!(tree.max_elements(), 3);
    /// # Ok::<(), flatquad::Error>(())
    /// ```
    pub fn max_elements(&self) -> u32 {
        self.max_elements
    }

    /// Depth below which leaves no longer split (the root is depth 0).
    ///
    /// ```
    /// use flatquad::{LooseQuadtree, Rect};
    /// let tree = LooseQuadtree::new(Rect::new(0.0, 0.0, 1.0, 1.0), 3, 5)?;
    /// assert_eq!(tree.max_depth(), 5);
    /// # Ok::<(), flatquad::Error>(())
    /// ```
    pub fn max_depth(&self) -> u32 {
        self.max_depth
    }
}

impl core::fmt::Debug for LooseQuadtree {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("LooseQuadtree")
            .field("world", &self.world)
            .field("len", &self.len())
            .field("max_elements", &self.max_elements)
            .field("max_depth", &self.max_depth)
            .field("max_extent", &self.max_extent)
            .field("over_bound", &self.over_bound_len())
            .field("nodes", &self.nodes.nodes.len())
            .finish_non_exhaustive()
    }
}

impl_structure!(LooseQuadtree; prefetch_relocate => prefetch_move, par_pairs_checked => pairs_parallel);

impl SpatialIndex for LooseQuadtree {
    fn world(&self) -> Rect {
        self.world
    }
    /// Merges every branch whose four children are empty leaves into one
    /// empty leaf (lazily, one level per call, as the quadtree does; the root
    /// always stays), then shrinks every box to fit what lies below it (and
    /// cleans up the elements over a `max_extent` likewise).
    fn cleanup(&mut self) {
        self.merge_empty();
        self.refit();
        if let Some(over) = &mut self.over_bound {
            over.cleanup();
        }
    }
    /// Removes every element (all handles go stale) and every node but the
    /// root; keeps the memory for reuse.
    fn clear(&mut self) {
        self.reset()
    }
    /// Children in the order top-left, top-right, bottom-left, bottom-right.
    /// A node's `rect` is its box, which holds every element below it (and
    /// may be larger between cleanups); a node with nothing below it shows its
    /// cell instead (bounded by the world).
    fn traverse<B, L>(&self, branch: B, leaf: L) -> ControlFlow<()>
    where
        B: FnMut(&NodeInfo) -> ControlFlow<()>,
        L: FnMut(&NodeInfo) -> ControlFlow<()>,
    {
        self.walk_nodes(branch, leaf)
    }
    fn stats(&self) -> Stats {
        self.count_nodes()
    }
    /// Each live element is in exactly one leaf, the one its centre descends
    /// to; every box holds its elements' rectangles and its children's boxes;
    /// counts match lists; depths stay within `max_depth`; every node and slot
    /// is in use or free, exactly once.
    fn validate(&self) -> Result<(), String> {
        self.check_invariants()?;
        self.check_families()
    }
    fn to_bytes(&self) -> Vec<u8> {
        self.write_snapshot()
    }
    fn from_bytes(bytes: &[u8]) -> Result<LooseQuadtree, Error> {
        LooseQuadtree::read_snapshot(bytes)
    }
}
