//! The flat tree, written once for 2D (the quadtree) and 3D (the octree)
//! over [`Dimension`]: its state and construction here, one file per
//! operation beside it.

mod cleanup;
mod insert;
pub(crate) mod nodes;
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

use crate::dimension::{Dim2, Dim3, Dimension};
use crate::flat_tree::nodes::NodePool;
use crate::index::raw::impl_structure;
use crate::index::{check_world, NodeInfo, SpatialIndex, Stats};
use crate::links::LinkPool;
use crate::slots::{slot_record, SlotPool, NONE};
use crate::tree_lines::{check_tree_parameters, Place, SplitLines, MAX_DEPTH_LIMIT, NO_PLACE};
use crate::Error;

/// Where an element's box and id live, with its place and home for moves
/// that stay put. In 2D 32 bytes, aligned, so a slot never straddles two cache
/// lines; in 3D 36 bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct Slot<D: Dimension> {
    pub(crate) rect: D::Bounds,
    pub(crate) id: u32,
    /// Where the element lies, for moves that stay put (see [`Place`]).
    pub(crate) place: Place,
    /// The node holding the place's leaves: the leaf itself for a one-leaf
    /// place, their parent when the place's leaves are siblings; else [`NONE`].
    /// Lets removals and queries around the element skip the descent.
    pub(crate) home: u32,
    align: D::SlotAlign,
}

slot_record!(
    impl[D: Dimension] Slot<D>,
    D::Bounds,
    Slot {
        rect: D::Bounds::default(),
        id: 0,
        place: NO_PLACE,
        home: NONE,
        align: D::SlotAlign::default(),
    },
    // A move reads the place and a query the home, after the box: in 3D (36
    // bytes) they are in a second cache line in one slot out of two.
    // uniform3d-100k's update with the second line fetched, one tree
    // alternating the two ways frame by frame, 8 runs: 7–16% faster in 7,
    // level in one; its per-agent queries level.
    read_whole = true
);

/// The flat tree over `f32` boxes in [`Dim2`] or [`Dim3`]: use it as
/// [`Quadtree`] and [`Octree`].
#[derive(Clone)]
pub struct FlatTree<D: Dimension> {
    world: D::Bounds,
    pub(crate) lines: SplitLines<D>,
    max_elements: u32,
    max_depth: u32,
    pub(crate) nodes: NodePool,
    pub(crate) links: LinkPool,
    pub(crate) slots: SlotPool<Slot<D>>,
}

/// A flat quadtree over `f32` rectangles, for broad-phase collision detection
/// and region queries over many moving elements.
///
/// Nodes are 8 bytes in one `Vec`, four siblings allocated together; a node's
/// rectangle is computed on the way down from the root's. Each element is
/// stored once (rectangle and id); a leaf chains small links to the elements it
/// holds, and an element that straddles leaves has a link in each. Every pool
/// recycles its holes through a free list, so once warm the tree allocates
/// nothing, whatever is inserted, moved or removed.
///
/// Results are exact: a query returns precisely the elements whose closed
/// rectangle intersects the closed query rectangle, for any world and for
/// elements partly or wholly outside it (those live in the border leaves).
///
/// Queries take `&self`, keep no scratch state in the tree, and may run from
/// many threads at once.
///
/// ```
/// use flatquad::{Quadtree, Query, Rect, SpatialIndex};
///
/// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0), 8, 8)?;
/// let a = tree.insert(Rect::new(10.0, 10.0, 20.0, 20.0), 1)?;
/// let b = tree.insert(Rect::new(20.0, 15.0, 30.0, 25.0), 2)?; // touches `a`
/// let mut hits = Vec::new();
/// tree.query(&Query::rect(Rect::new(0.0, 0.0, 12.0, 12.0)), &mut hits)?;
/// assert_eq!(hits, [a]);
/// tree.update(b, Rect::new(50.0, 50.0, 60.0, 60.0))?;
/// let mut pairs = Vec::new();
/// tree.pairs(&mut pairs);
/// assert!(pairs.is_empty());
/// tree.remove(a)?;
/// assert!(tree.remove(a).is_err()); // a stale handle is refused
/// # Ok::<(), flatquad::Error>(())
/// ```
pub type Quadtree = FlatTree<Dim2>;

/// A flat octree over `f32` boxes ([`Box3`](crate::Box3)): the
/// [`Quadtree`]'s design and code in 3D, eight siblings allocated together.
///
/// Nodes are 8 bytes in one `Vec`; a node's box is computed on the way down.
/// Each element is stored once (box and id) and linked into every leaf it
/// meets; a move that stays in the same leaves only writes the box. Queries
/// are exact for `f32` input, take `&self`, and keep no scratch state.
///
/// ```
/// use flatquad::{Box3, Octree, Query, SpatialIndex};
///
/// let mut tree = Octree::new(Box3::new(0.0, 0.0, 0.0, 100.0, 100.0, 100.0), 8, 6)?;
/// let a = tree.insert(Box3::new(10.0, 10.0, 10.0, 20.0, 20.0, 20.0), 1)?;
/// let b = tree.insert(Box3::new(20.0, 15.0, 15.0, 30.0, 25.0, 25.0), 2)?; // touches `a`
/// let mut hits = Vec::new();
/// tree.query(&Query::point([12.0, 12.0, 12.0]), &mut hits)?;
/// assert_eq!(hits, [a]);
/// let mut pairs = Vec::new();
/// tree.pairs(&mut pairs);
/// assert_eq!(pairs.len(), 1); // (a, b) or (b, a)
/// # Ok::<(), flatquad::Error>(())
/// ```
pub type Octree = FlatTree<Dim3>;

impl<D: Dimension> FlatTree<D> {
    /// Elements a leaf holds before it splits, by default: the capacity measured
    /// best on the agents workload.
    pub const DEFAULT_MAX_ELEMENTS: u32 = 8;
    /// A default depth: 256 × 256 cells at the deepest level in 2D, 64³ in 3D.
    pub const DEFAULT_MAX_DEPTH: u32 = D::DEFAULT_MAX_DEPTH;
    /// The largest `max_depth` accepted.
    pub const MAX_DEPTH_LIMIT: u32 = MAX_DEPTH_LIMIT;

    /// An empty tree over `world` with the default leaf capacity and depth,
    /// which suit elements of about 1/1000 of the world's side (the deepest
    /// cells are 1/256 of it; 1/64 in 3D).
    ///
    /// # Errors
    /// [`Error::InvalidWorld`] as for [`new`](FlatTree::new).
    pub fn for_world(world: D::Bounds) -> Result<FlatTree<D>, Error> {
        FlatTree::new(world, Self::DEFAULT_MAX_ELEMENTS, Self::DEFAULT_MAX_DEPTH)
    }

    /// An empty tree over `world`. A leaf splits when it holds more than
    /// `max_elements` and is shallower than `max_depth` (the root is depth 0).
    ///
    /// The world only sets where the tree divides the plane: elements and queries
    /// outside it are fine, they end up in the border leaves. Pick `max_depth` so
    /// that the deepest cells are a little larger than a typical element.
    ///
    /// # Errors
    /// [`Error::InvalidWorld`] ([`Error::InvalidWorldBox`] in 3D) unless `world`
    /// is finite with a positive, finite extent on every axis;
    /// [`Error::InvalidParameter`] if `max_elements` is 0 or `max_depth`
    /// exceeds [`MAX_DEPTH_LIMIT`](FlatTree::MAX_DEPTH_LIMIT).
    pub fn new(world: D::Bounds, max_elements: u32, max_depth: u32) -> Result<FlatTree<D>, Error> {
        check_world(world)?;
        check_tree_parameters(max_elements, max_depth)?;
        Ok(FlatTree {
            world,
            lines: SplitLines::new(&world, max_depth),
            max_elements,
            max_depth,
            nodes: NodePool::new(),
            links: LinkPool::new(),
            slots: SlotPool::new(),
        })
    }

    /// Elements a leaf holds before it splits.
    pub fn max_elements(&self) -> u32 {
        self.max_elements
    }

    /// Depth below which leaves no longer split (the root is depth 0).
    pub fn max_depth(&self) -> u32 {
        self.max_depth
    }
}

impl<D: Dimension> core::fmt::Debug for FlatTree<D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct(D::NAME)
            .field("world", &self.world)
            .field("len", &self.len())
            .field("max_elements", &self.max_elements)
            .field("max_depth", &self.max_depth)
            .field("nodes", &self.nodes.nodes.len())
            .finish_non_exhaustive()
    }
}

impl_structure!(
    impl[D: Dimension] FlatTree<D>, Slot<D>;
    overlapping_checked => neighbours,
    prefetch_overlapping => prefetch_neighbours,
    par_pairs_checked => pairs_parallel,
    nearest_squares => nearest_squares,
    ray_pieces => ray_pieces,
);

impl<D: Dimension> SpatialIndex for FlatTree<D> {
    fn world(&self) -> D::Bounds {
        self.world
    }
    /// Merges, bottom-up, every branch whose children are all empty leaves into
    /// one empty leaf. Lazy: one level per call, so call it once a frame; an
    /// element that leaves a cell is often replaced in the same frame, and nodes
    /// are not churned for nothing. The root always stays.
    ///
    /// Also lays the leaves' lists of links out contiguously again once
    /// moves have scattered them (O(links), about one cleanup in three on the
    /// agents workload).
    fn cleanup(&mut self) {
        self.merge_empty();
        if self.links.wants_pack() {
            self.pack_links();
        }
    }
    /// Removes every element (all handles go stale) and every node but the
    /// root; keeps the memory for reuse.
    fn clear(&mut self) {
        self.reset()
    }
    /// Children in the order top-left, top-right, bottom-left, bottom-right
    /// (in 3D those four at low z, then at high z).
    fn traverse<B, L>(&self, branch: B, leaf: L) -> ControlFlow<()>
    where
        B: FnMut(&NodeInfo<D::Bounds>) -> ControlFlow<()>,
        L: FnMut(&NodeInfo<D::Bounds>) -> ControlFlow<()>,
    {
        self.walk_nodes(branch, leaf)
    }
    fn stats(&self) -> Stats {
        self.count_nodes()
    }
    /// Each live element is linked in exactly the leaves its rectangle meets,
    /// once each; leaf counts match their lists; depths stay within
    /// `max_depth`; every node, link and slot is in use or free, exactly once.
    fn validate(&self) -> Result<(), String> {
        self.check_invariants()
    }
    fn to_bytes(&self) -> Vec<u8> {
        self.write_snapshot()
    }
    fn from_bytes(bytes: &[u8]) -> Result<FlatTree<D>, Error> {
        FlatTree::read_snapshot(bytes)
    }
}
