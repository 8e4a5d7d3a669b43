//! [`AnyIndex`]: one type over every 2D structure, for code that picks the
//! structure at run time — the C, Python and Node bindings are each written once
//! against it.

use core::ops::ControlFlow;

use super::raw::{SearchItem, Slots, Structure};
use super::search::{BoxCast, Neighbor, Ray, RayControl, RayHit};
use super::snapshot::Reader;
use super::{NodeInfo, Query, SpatialIndex, Stats};
use crate::{Error, Filter, Grid, Handle, LooseGrid, LooseQuadtree, Quadtree, Rect};

/// Which structure an [`AnyIndex`] (or a snapshot) holds. The values are
/// stable: they are written into snapshots and passed across the C ABI.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Kind {
    /// [`Quadtree`].
    Quadtree = 1,
    /// [`Grid`].
    Grid = 2,
    /// [`LooseGrid`].
    LooseGrid = 3,
    /// [`LooseQuadtree`].
    LooseQuadtree = 4,
}

impl Kind {
    /// Every kind, in value order.
    pub const ALL: [Kind; 4] = [
        Kind::Quadtree,
        Kind::Grid,
        Kind::LooseGrid,
        Kind::LooseQuadtree,
    ];

    /// The kind with this value.
    pub fn from_u32(value: u32) -> Option<Kind> {
        Kind::ALL.into_iter().find(|kind| *kind as u32 == value)
    }

    /// The structure's type name (`"Quadtree"`, `"Grid"`, `"LooseGrid"`,
    /// `"LooseQuadtree"`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Quadtree => "Quadtree",
            Kind::Grid => "Grid",
            Kind::LooseGrid => "LooseGrid",
            Kind::LooseQuadtree => "LooseQuadtree",
        }
    }
}

/// Any of the 2D structures, behind the same [`SpatialIndex`] API: for code that
/// chooses the structure at run time (a command-line flag, a binding's
/// constructor). Each call dispatches once to the structure inside.
///
/// ```
/// use flatquad::{AnyIndex, Grid, Kind, Rect, SpatialIndex};
/// let mut index = AnyIndex::from(Grid::for_world(Rect::new(0.0, 0.0, 100.0, 100.0))?);
/// let h = index.insert(Rect::new(1.0, 1.0, 2.0, 2.0), 7)?;
/// assert_eq!(index.kind(), Kind::Grid);
/// let copy = AnyIndex::from_bytes(&index.to_bytes())?; // any structure's snapshot
/// assert_eq!(copy.id(h)?, 7);
/// # Ok::<(), flatquad::Error>(())
/// ```
// The variants differ in size (the quadtree keeps its split-line steps inline),
// but an index is made once and used for a whole run: boxing would only add an
// indirection to every call.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum AnyIndex {
    /// A [`Quadtree`].
    Quadtree(Quadtree),
    /// A [`Grid`].
    Grid(Grid),
    /// A [`LooseGrid`].
    LooseGrid(LooseGrid),
    /// A [`LooseQuadtree`].
    LooseQuadtree(LooseQuadtree),
}

/// `dispatch!(self, s => expr)`: `expr` with `s` bound to the structure inside.
macro_rules! dispatch {
    ($value:expr, $s:ident => $body:expr) => {
        match $value {
            AnyIndex::Quadtree($s) => $body,
            AnyIndex::Grid($s) => $body,
            AnyIndex::LooseGrid($s) => $body,
            AnyIndex::LooseQuadtree($s) => $body,
        }
    };
}

impl AnyIndex {
    /// Which structure this is.
    pub fn kind(&self) -> Kind {
        match self {
            AnyIndex::Quadtree(_) => Kind::Quadtree,
            AnyIndex::Grid(_) => Kind::Grid,
            AnyIndex::LooseGrid(_) => Kind::LooseGrid,
            AnyIndex::LooseQuadtree(_) => Kind::LooseQuadtree,
        }
    }

    /// The structure `kind` over `world` with its defaults (see each
    /// structure's `for_world`).
    ///
    /// # Errors
    /// [`Error::InvalidWorld`] for a world no structure can divide.
    pub fn for_world(kind: Kind, world: Rect) -> Result<AnyIndex, Error> {
        Ok(match kind {
            Kind::Quadtree => Quadtree::for_world(world)?.into(),
            Kind::Grid => Grid::for_world(world)?.into(),
            Kind::LooseGrid => LooseGrid::for_world(world)?.into(),
            Kind::LooseQuadtree => LooseQuadtree::for_world(world)?.into(),
        })
    }
}

impl From<Quadtree> for AnyIndex {
    fn from(tree: Quadtree) -> AnyIndex {
        AnyIndex::Quadtree(tree)
    }
}

impl From<Grid> for AnyIndex {
    fn from(grid: Grid) -> AnyIndex {
        AnyIndex::Grid(grid)
    }
}

impl From<LooseGrid> for AnyIndex {
    fn from(grid: LooseGrid) -> AnyIndex {
        AnyIndex::LooseGrid(grid)
    }
}

impl From<LooseQuadtree> for AnyIndex {
    fn from(tree: LooseQuadtree) -> AnyIndex {
        AnyIndex::LooseQuadtree(tree)
    }
}

impl Slots for AnyIndex {
    type Bounds = Rect;
    fn lookup(&self, handle: Handle) -> Result<u32, Error> {
        dispatch!(self, s => s.lookup(handle))
    }
    fn handle_at(&self, slot: u32) -> Handle {
        dispatch!(self, s => s.handle_at(slot))
    }
    fn rect_at(&self, slot: u32) -> Rect {
        dispatch!(self, s => s.rect_at(slot))
    }
    fn id_at(&self, slot: u32) -> u32 {
        dispatch!(self, s => s.id_at(slot))
    }
    fn live(&self) -> usize {
        dispatch!(self, s => s.live())
    }
    fn check_room(&self, additional: usize) -> Result<(), Error> {
        dispatch!(self, s => s.check_room(additional))
    }
    fn is_marked(&self, slot: u32) -> bool {
        dispatch!(self, s => s.is_marked(slot))
    }
    fn set_mark(&mut self, slot: u32, on: bool) {
        dispatch!(self, s => s.set_mark(slot, on))
    }
    fn prefetch_slot(&self, handle: Handle) {
        dispatch!(self, s => s.prefetch_slot(handle))
    }
    fn prefetch_stamp(&self, handle: Handle) {
        dispatch!(self, s => s.prefetch_stamp(handle))
    }
    fn slot_count(&self) -> usize {
        dispatch!(self, s => s.slot_count())
    }
    fn membership(&self) -> u64 {
        dispatch!(self, s => s.membership())
    }
    fn element_at(&self, slot: u32) -> Option<(Handle, Rect, u32)> {
        dispatch!(self, s => s.element_at(slot))
    }
    fn for_each_slot<F>(&self, slots: core::ops::Range<u32>, visit: F)
    where
        F: FnMut(u32, Option<(Handle, Rect, Filter)>),
    {
        dispatch!(self, s => s.for_each_slot(slots.clone(), visit))
    }
    fn filtered(&self) -> bool {
        dispatch!(self, s => s.filtered())
    }
    fn fat_margin(&self) -> f32 {
        dispatch!(self, s => s.fat_margin())
    }
    fn filter_at(&self, slot: u32) -> Filter {
        dispatch!(self, s => s.filter_at(slot))
    }
    fn set_filter_at(&mut self, slot: u32, filter: Filter) {
        dispatch!(self, s => s.set_filter_at(slot, filter))
    }
}

impl Structure for AnyIndex {
    fn insert_checked(&mut self, rect: Rect, id: u32) -> Handle {
        dispatch!(self, s => s.insert_checked(rect, id))
    }
    fn insert_many_checked(&mut self, rects: &[Rect], ids: &[u32], handles: &mut Vec<Handle>) {
        dispatch!(self, s => s.insert_many_checked(rects, ids, handles))
    }
    fn remove_checked(&mut self, slot: u32) {
        dispatch!(self, s => s.remove_checked(slot))
    }
    fn remove_marked(&mut self, handles: &[Handle]) {
        dispatch!(self, s => s.remove_marked(handles))
    }
    fn relocate(&mut self, slot: u32, rect: Rect) {
        dispatch!(self, s => Structure::relocate(s, slot, rect))
    }
    fn set_margin_checked(&mut self, margin: f32) {
        dispatch!(self, s => s.set_margin_checked(margin))
    }
    fn pairs_checked<F>(&self, visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        dispatch!(self, s => s.pairs_checked(visit))
    }
    #[cfg(feature = "rayon")]
    fn par_pairs_checked(&self, pairs: &mut Vec<(Handle, Handle)>) {
        dispatch!(self, s => s.par_pairs_checked(pairs))
    }
    fn search_roots(&self, push: &mut impl FnMut(SearchItem<Rect>)) {
        dispatch!(self, s => s.search_roots(push))
    }
    fn search_expand(&self, node: u128, push: &mut impl FnMut(SearchItem<Rect>)) {
        dispatch!(self, s => s.search_expand(node, push))
    }
    fn relocate_many(&mut self, handles: &[Handle], rects: &[Rect]) {
        dispatch!(self, s => s.relocate_many(handles, rects))
    }
    #[cfg(feature = "rayon")]
    fn par_relocate_many(&mut self, handles: &[Handle], rects: &[Rect]) {
        dispatch!(self, s => s.par_relocate_many(handles, rects))
    }
    fn query_checked<F>(&self, rect: Rect, omit: u32, visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        dispatch!(self, s => s.query_checked(rect, omit, visit))
    }
    fn query_point_checked<F>(&self, point: [f32; 2], omit: u32, visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        dispatch!(self, s => s.query_point_checked(point, omit, visit))
    }
    fn overlapping_checked<F>(&self, slot: u32, visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        dispatch!(self, s => s.overlapping_checked(slot, visit))
    }
    fn prefetch_overlapping(&self, handles: &[Handle], index: usize) {
        dispatch!(self, s => s.prefetch_overlapping(handles, index))
    }
    fn count_queries(&self, queries: usize) {
        dispatch!(self, s => s.count_queries(queries))
    }
}

impl SpatialIndex for AnyIndex {
    fn world(&self) -> Rect {
        dispatch!(self, s => s.world())
    }
    fn cleanup(&mut self) {
        dispatch!(self, s => s.cleanup())
    }
    fn clear(&mut self) {
        dispatch!(self, s => s.clear())
    }
    fn traverse<B, L>(&self, branch: B, leaf: L) -> ControlFlow<()>
    where
        B: FnMut(&NodeInfo) -> ControlFlow<()>,
        L: FnMut(&NodeInfo) -> ControlFlow<()>,
    {
        dispatch!(self, s => s.traverse(branch, leaf))
    }
    fn stats(&self) -> Stats {
        dispatch!(self, s => s.stats())
    }
    fn validate(&self) -> Result<(), String> {
        dispatch!(self, s => s.validate())
    }
    fn to_bytes(&self) -> Vec<u8> {
        dispatch!(self, s => s.to_bytes())
    }
    fn from_bytes(bytes: &[u8]) -> Result<AnyIndex, Error> {
        let (_, tag) = Reader::open(bytes)?;
        let kind = Kind::from_u32(tag).ok_or_else(|| {
            super::snapshot::invalid("a snapshot of an Octree, not of a 2D structure")
        })?;
        Ok(match kind {
            Kind::Quadtree => Quadtree::from_bytes(bytes)?.into(),
            Kind::Grid => Grid::from_bytes(bytes)?.into(),
            Kind::LooseGrid => LooseGrid::from_bytes(bytes)?.into(),
            Kind::LooseQuadtree => LooseQuadtree::from_bytes(bytes)?.into(),
        })
    }
    // Batch calls dispatch once for the whole batch, not once per item.
    fn update_many(&mut self, handles: &[Handle], rects: &[Rect]) -> Result<(), Error> {
        dispatch!(self, s => s.update_many(handles, rects))
    }
    fn overlapping_many(
        &self,
        handles: &[Handle],
        offsets: &mut Vec<usize>,
        hits: &mut Vec<Handle>,
    ) -> Result<(), Error> {
        dispatch!(self, s => s.overlapping_many(handles, offsets, hits))
    }
    fn query_many(
        &self,
        queries: &[Query],
        offsets: &mut Vec<usize>,
        hits: &mut Vec<Handle>,
    ) -> Result<(), Error> {
        dispatch!(self, s => s.query_many(queries, offsets, hits))
    }
    #[cfg(feature = "rayon")]
    fn par_query_many(
        &self,
        queries: &[Query],
        offsets: &mut Vec<usize>,
        hits: &mut Vec<Handle>,
    ) -> Result<(), Error> {
        dispatch!(self, s => s.par_query_many(queries, offsets, hits))
    }
    #[cfg(feature = "rayon")]
    fn par_overlapping_many(
        &self,
        handles: &[Handle],
        offsets: &mut Vec<usize>,
        hits: &mut Vec<Handle>,
    ) -> Result<(), Error> {
        dispatch!(self, s => s.par_overlapping_many(handles, offsets, hits))
    }
    // The searches dispatch once per call, not once per node and element.
    fn visit<F>(&self, query: &Query, visit: F) -> Result<ControlFlow<()>, Error>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        dispatch!(self, s => s.visit(query, visit))
    }
    fn nearest_with<A>(
        &self,
        point: [f32; 2],
        k: usize,
        max_distance: Option<f64>,
        mask: u32,
        accept: A,
        out: &mut Vec<Neighbor>,
    ) -> Result<(), Error>
    where
        A: FnMut(Handle) -> bool,
    {
        dispatch!(self, s => s.nearest_with(point, k, max_distance, mask, accept, out))
    }
    fn nearest_many(
        &self,
        points: &[[f32; 2]],
        k: usize,
        max_distance: Option<f64>,
        mask: u32,
        offsets: &mut Vec<usize>,
        out: &mut Vec<Neighbor>,
    ) -> Result<(), Error> {
        dispatch!(self, s => s.nearest_many(points, k, max_distance, mask, offsets, out))
    }
    #[cfg(feature = "rayon")]
    fn par_nearest_many(
        &self,
        points: &[[f32; 2]],
        k: usize,
        max_distance: Option<f64>,
        mask: u32,
        offsets: &mut Vec<usize>,
        out: &mut Vec<Neighbor>,
    ) -> Result<(), Error> {
        dispatch!(self, s => s.par_nearest_many(points, k, max_distance, mask, offsets, out))
    }
    fn ray_cast_with<F>(&self, ray: &Ray<[f32; 2]>, mask: u32, visit: F) -> Result<(), Error>
    where
        F: FnMut(&RayHit) -> RayControl,
    {
        dispatch!(self, s => s.ray_cast_with(ray, mask, visit))
    }
    fn nearest(
        &self,
        point: [f32; 2],
        k: usize,
        max_distance: Option<f64>,
        mask: u32,
        out: &mut Vec<Neighbor>,
    ) -> Result<(), Error> {
        dispatch!(self, s => s.nearest(point, k, max_distance, mask, out))
    }
    fn ray_cast(&self, ray: &Ray<[f32; 2]>, mask: u32) -> Result<Option<RayHit>, Error> {
        dispatch!(self, s => s.ray_cast(ray, mask))
    }
    fn box_cast(&self, cast: &BoxCast) -> Result<Option<RayHit>, Error> {
        dispatch!(self, s => s.box_cast(cast))
    }
    fn box_cast_all(&self, cast: &BoxCast, hits: &mut Vec<RayHit>) -> Result<(), Error> {
        dispatch!(self, s => s.box_cast_all(cast, hits))
    }
}
