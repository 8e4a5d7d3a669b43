//! The plain objects that cross the boundary (TypeScript interfaces in
//! `index.d.ts`), shared by every class.

use napi::bindgen_prelude::{JsObjectValue, Object, ToNapiValue, TypeName};
use napi::{sys, Env, ValueType};
use napi_derive::napi;

use crate::typed::{OutArray, Typed, Written};

/// A closed rectangle `[x1, x2] × [y1, y2]`: the form of every rectangle the
/// API returns, and of the world it takes.
#[napi(object)]
pub struct Rectangle {
    pub x1: f64,
    pub y1: f64,
    pub x2: f64,
    pub y2: f64,
}

/// A closed box `[x1, x2] × [y1, y2] × [z1, z2]`: the form of every box the
/// `Octree` returns, and of the world it takes.
#[napi(object)]
pub struct Box3 {
    pub x1: f64,
    pub y1: f64,
    pub z1: f64,
    pub x2: f64,
    pub y2: f64,
    pub z2: f64,
}

impl From<flatquad::Rect> for Rectangle {
    fn from(r: flatquad::Rect) -> Rectangle {
        Rectangle {
            x1: r.x1 as f64,
            y1: r.y1 as f64,
            x2: r.x2 as f64,
            y2: r.y2 as f64,
        }
    }
}

impl From<flatquad::Box3> for Box3 {
    fn from(b: flatquad::Box3) -> Box3 {
        Box3 {
            x1: b.x1 as f64,
            y1: b.y1 as f64,
            z1: b.z1 as f64,
            x2: b.x2 as f64,
            y2: b.y2 as f64,
            z2: b.z2 as f64,
        }
    }
}

/// `Octree` options; a left-out one takes its default.
#[napi(object)]
pub struct OctreeOptions {
    /// Elements a leaf holds before it splits (default 8, at least 1).
    pub max_elements: Option<u32>,
    /// Depth below which leaves no longer split; the root is depth 0 (default
    /// 6, at most 30): `world / 2^maxDepth ≈ 2 × element size`.
    pub max_depth: Option<u32>,
    /// Fat bounds, in world units (default 0, none): each element is filed by
    /// its box grown by this on every side, so moves that stay inside cost no
    /// relink. Finite and at least 0; results are as exact either way.
    pub margin: Option<f64>,
}

/// The other form of the world a constructor takes: top-left corner `(x, y)`,
/// `width` and `height`. The far corner is added in 64-bit floats, then every
/// corner rounded once to a 32-bit float.
#[napi(object)]
pub struct WorldRect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

/// `Quadtree` options; a left-out one takes its default.
#[napi(object)]
pub struct QuadtreeOptions {
    /// Elements a leaf holds before it splits (default 8, at least 1).
    pub max_elements: Option<u32>,
    /// Depth below which leaves no longer split; the root is depth 0 (default 8,
    /// at most 30). Pick it so the deepest cells are a little larger than a typical
    /// element: `world / 2^maxDepth ≈ 2 × element size`.
    pub max_depth: Option<u32>,
    /// Fat bounds, in world units (default 0, none): each element is filed by
    /// its box grown by this on every side, so moves that stay inside cost no
    /// relink. Finite and at least 0; results are as exact either way.
    pub margin: Option<f64>,
}

/// `LooseQuadtree` options; a left-out one takes its default.
#[napi(object)]
pub struct LooseQuadtreeOptions {
    /// Elements a leaf holds before it splits (default 8, at least 1).
    pub max_elements: Option<u32>,
    /// Depth below which leaves no longer split; the root is depth 0 (default 8,
    /// at most 30).
    pub max_depth: Option<u32>,
    /// For many small elements among a few large ones: elements wider or taller
    /// than this are kept apart, in a loose quadtree of their own, so that they
    /// do not widen the boxes the small ones share (positive and finite; left
    /// out, no bound). Any size is fine either way, and results are as exact.
    pub max_extent: Option<f64>,
    /// Fat bounds, in world units (default 0, none): each element is filed by
    /// its box grown by this on every side, so moves that stay inside cost no
    /// relink. Finite and at least 0; results are as exact either way.
    pub margin: Option<f64>,
}

/// A grid's options with only the fat-bounds margin (the cells the
/// world's defaults).
#[napi(object)]
pub struct MarginOption {
    /// Fat bounds, in world units (default 0, none): each element is filed by
    /// its box grown by this on every side, so moves that stay inside cost no
    /// relink. Finite and at least 0; results are as exact either way.
    pub margin: Option<f64>,
}

/// `Grid` options by count: `columns × rows` cells over the world.
#[napi(object)]
pub struct GridCells {
    pub columns: u32,
    pub rows: u32,
    /// Fat bounds, in world units (default 0, none): each element is filed by
    /// its box grown by this on every side, so moves that stay inside cost no
    /// relink. Finite and at least 0; results are as exact either way.
    pub margin: Option<f64>,
}

/// `Grid` options by size: cells of `cellSize` (square) or `[width, height]`,
/// as many as cover the world.
#[napi(object)]
pub struct GridCellSize {
    #[napi(ts_type = "number | [number, number]")]
    pub cell_size: f64,
    /// Fat bounds, in world units (default 0, none): each element is filed by
    /// its box grown by this on every side, so moves that stay inside cost no
    /// relink. Finite and at least 0; results are as exact either way.
    pub margin: Option<f64>,
}

/// `LooseGrid` options by count: `columns × rows` loose cells (every element
/// in exactly one, whose box grows and shrinks around its elements) and
/// `tightColumns × tightRows` tight cells over the same world.
#[napi(object)]
pub struct LooseGridCells {
    pub columns: u32,
    pub rows: u32,
    pub tight_columns: u32,
    pub tight_rows: u32,
    /// Fat bounds, in world units (default 0, none): each element is filed by
    /// its box grown by this on every side, so moves that stay inside cost no
    /// relink. Finite and at least 0; results are as exact either way.
    pub margin: Option<f64>,
}

/// `LooseGrid` options by size: square loose cells of `cellSize`.
#[napi(object)]
pub struct LooseGridCellSize {
    pub cell_size: f64,
    /// Fat bounds, in world units (default 0, none): each element is filed by
    /// its box grown by this on every side, so moves that stay inside cost no
    /// relink. Finite and at least 0; results are as exact either way.
    pub margin: Option<f64>,
}

/// One node of a tree or one cell of a grid, as `traverse` visits it.
#[napi(object)]
pub struct NodeInfo {
    /// The node's (or cell's) index in its structure (a tree's root is 0).
    pub index: u32,
    /// Depth: 0 for a tree's root and for a grid's cells.
    pub depth: u32,
    /// The node's or cell's rectangle (a loose grid's cells: the box that
    /// bounds their elements).
    pub x1: f64,
    pub y1: f64,
    pub x2: f64,
    pub y2: f64,
    /// Whether it holds elements directly: a leaf, or a grid's cell (else a
    /// branch with four children).
    pub is_leaf: bool,
    /// Elements it holds directly; 0 for a branch.
    pub count: u32,
}

impl NodeInfo {
    /// The object `traverse` passes for a node of a 2D structure.
    pub(crate) fn of(node: &flatquad::NodeInfo) -> NodeInfo {
        NodeInfo {
            index: node.index,
            depth: node.depth,
            x1: node.rect.x1 as f64,
            y1: node.rect.y1 as f64,
            x2: node.rect.x2 as f64,
            y2: node.rect.y2 as f64,
            is_leaf: node.is_leaf,
            count: node.count,
        }
    }
}

/// One node of an octree, as `Octree.traverse` visits it.
#[napi(object)]
pub struct NodeInfo3 {
    /// The node's index in the tree (the root is 0).
    pub index: u32,
    /// Depth: 0 for the root.
    pub depth: u32,
    /// The node's box.
    pub x1: f64,
    pub y1: f64,
    pub z1: f64,
    pub x2: f64,
    pub y2: f64,
    pub z2: f64,
    /// Whether it holds elements directly (else a branch with eight children).
    pub is_leaf: bool,
    /// Elements it holds directly; 0 for a branch.
    pub count: u32,
}

impl NodeInfo3 {
    /// The object `Octree.traverse` passes for a node.
    pub(crate) fn of(node: &flatquad::NodeInfo<flatquad::Box3>) -> NodeInfo3 {
        let r = node.rect;
        NodeInfo3 {
            index: node.index,
            depth: node.depth,
            x1: r.x1 as f64,
            y1: r.y1 as f64,
            z1: r.z1 as f64,
            x2: r.x2 as f64,
            y2: r.y2 as f64,
            z2: r.z2 as f64,
            is_leaf: node.is_leaf,
            count: node.count,
        }
    }
}

/// Every node (or cell) in `traverse` order, as arrays ready to draw.
#[napi(object, object_from_js = false)]
pub struct Nodes {
    /// `x1, y1, x2, y2` of each node's cell: 4 numbers per node (an octree's
    /// `x1, y1, z1, x2, y2, z2`: 6).
    #[napi(ts_type = "Float32Array")]
    pub rects: Typed<f32>,
    /// Depth of each node (0 for a tree's root and for a grid's cells).
    #[napi(ts_type = "Uint8Array")]
    pub depths: Typed<u8>,
    /// 1 for a leaf or a cell, 0 for a branch.
    #[napi(ts_type = "Uint8Array")]
    pub is_leaf: Typed<u8>,
    /// Elements each holds directly (0 for a branch).
    #[napi(ts_type = "Uint32Array")]
    pub counts: Typed<u32>,
}

/// The contact events of `PairTracker.update()`: the pairs that began and
/// ended overlapping, 2 handles per pair (`[a0, b0, a1, b1, ...]`), each pair
/// lower handle first, the pairs sorted.
#[napi(object, object_from_js = false)]
pub struct PairEvents {
    /// The pairs that began overlapping since the last update.
    #[napi(ts_type = "Float64Array")]
    pub began: Typed<f64>,
    /// The pairs that ended since the last update (a removed element's under
    /// the handle it had).
    #[napi(ts_type = "Float64Array")]
    pub ended: Typed<f64>,
}

/// The hits of `queryMany` and `overlappingMany`: the hits of item `i` are
/// `hits.subarray(offsets[i], offsets[i + 1])`.
#[napi(object, object_from_js = false)]
pub struct QueryManyResult {
    /// `n + 1` offsets into `hits`, for `n` items; `offsets[0]` is 0.
    #[napi(ts_type = "Uint32Array")]
    pub offsets: Typed<u32>,
    /// The handles found, item after item.
    #[napi(ts_type = "Float64Array")]
    pub hits: Typed<f64>,
}

/// `QueryManyResult` as a call answered on the JavaScript thread gives it:
/// each array written into the caller's `out` where it fits ([`RowsOut`]).
/// TypeScript sees a `QueryManyResult` (the methods say so): napi-rs would
/// declare an interface of its own for a `#[napi(object)]`.
pub struct WrittenRows {
    pub offsets: Written<u32>,
    pub hits: Written<f64>,
}

impl TypeName for WrittenRows {
    fn type_name() -> &'static str {
        "QueryManyResult"
    }

    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl ToNapiValue for WrittenRows {
    unsafe fn to_napi_value(env: sys::napi_env, rows: Self) -> napi::Result<sys::napi_value> {
        let mut object = Object::new(&Env::from_raw(env))?;
        object.set_named_property("offsets", rows.offsets)?;
        object.set_named_property("hits", rows.hits)?;
        // SAFETY: `env` is the current call's.
        unsafe { Object::to_napi_value(env, object) }
    }
}

/// The `out` of a call answering rows, `{ offsets?, hits? }`: arrays kept
/// between calls, each written in place where the answer fits it.
#[derive(Default)]
pub(crate) struct RowsOut<'env> {
    pub offsets: Option<OutArray<'env, u32>>,
    pub hits: Option<OutArray<'env, f64>>,
}

/// The pairs of `queryBulk` and `joinBounds`: `rows[k]` is a position in the
/// query rectangles, `hits[k]` what it meets (a handle, or a position in the
/// other array for `joinBounds`). Rows increase.
#[napi(object, object_from_js = false)]
pub struct BulkResult {
    /// Positions in the query array, one per pair (exact numbers below 2^53).
    #[napi(ts_type = "Float64Array")]
    pub rows: Typed<f64>,
    /// What each row meets: handles (`queryBulk`) or positions (`joinBounds`).
    #[napi(ts_type = "Float64Array")]
    pub hits: Typed<f64>,
}

/// The pairs of `join`: `left[k]` (a handle of this index) meets `right[k]`
/// (a handle of the other), each pair once.
#[napi(object, object_from_js = false)]
pub struct JoinResult {
    /// Handles of this index.
    #[napi(ts_type = "Float64Array")]
    pub left: Typed<f64>,
    /// Handles of the other index.
    #[napi(ts_type = "Float64Array")]
    pub right: Typed<f64>,
}

/// An element's collision filter, as `filter(handle)` gives it: two
/// elements collide (`pairs`, `overlapping`) only when each one's `category`
/// has a bit in the other's `mask` (Box2D's rule); a query with a `mask`
/// reports an element only when its `category` has a bit in it. Both are
/// unsigned 32-bit integers; every element starts with all bits set.
#[napi(object)]
pub struct Filter {
    /// The categories the element belongs to (bits).
    pub category: u32,
    /// The categories it collides with (bits).
    pub mask: u32,
}

/// Counts of what an index holds.
#[napi(object)]
pub struct Stats {
    /// Live elements.
    pub elements: f64,
    /// Nodes (branches and leaves) or cells.
    pub nodes: f64,
    /// Leaves or cells, empty ones included.
    pub leaves: f64,
    /// Leaves or cells holding no element.
    pub empty_leaves: f64,
    /// Deepest depth any node has (0 for a grid).
    pub max_depth_reached: u32,
    /// Element links: one per element per leaf or cell it is listed in.
    pub element_links: f64,
    /// Bytes the index holds, the capacity of its pools included.
    pub bytes: f64,
}

/// One neighbour `nearest` found.
#[napi(object, object_from_js = false)]
pub struct Neighbor {
    /// The element.
    #[napi(ts_type = "Handle")]
    pub handle: f64,
    /// Its id.
    pub id: u32,
    /// The distance from the query point to its closed box (64-bit, from the
    /// 32-bit coordinates); 0 when the box holds the point.
    pub distance: f64,
}

/// One element a ray cast hit.
#[napi(object, object_from_js = false)]
pub struct RayHit {
    /// The element.
    #[napi(ts_type = "Handle")]
    pub handle: f64,
    /// Its id.
    pub id: u32,
    /// How far along the ray it first touches the element's closed box (0
    /// when the origin is inside or on it).
    pub distance: f64,
    /// `distance / maxLength` (0 when `maxLength` is 0).
    pub fraction: f64,
}

/// The neighbours of `nearestMany`: those of point `i` are at positions
/// `offsets[i]` to `offsets[i + 1]` of `handles`, `ids` and `distances`,
/// nearest first.
#[napi(object, object_from_js = false)]
pub struct NearestManyResult {
    /// `n + 1` offsets, for `n` points; `offsets[0]` is 0.
    #[napi(ts_type = "Uint32Array")]
    pub offsets: Typed<u32>,
    /// The neighbours found, point after point.
    #[napi(ts_type = "Float64Array")]
    pub handles: Typed<f64>,
    /// Their ids.
    #[napi(ts_type = "Uint32Array")]
    pub ids: Typed<u32>,
    /// Their distances.
    #[napi(ts_type = "Float64Array")]
    pub distances: Typed<f64>,
}

/// The first hits of `rayCastMany`: ray `i`'s at position `i` of each array;
/// a ray that touches nothing has handle 0, id 0 and distance `Infinity`.
#[napi(object, object_from_js = false)]
pub struct RayCastManyResult {
    /// The element each ray touches first, 0 for none.
    #[napi(ts_type = "Float64Array")]
    pub handles: Typed<f64>,
    /// Its id (0 for none).
    #[napi(ts_type = "Uint32Array")]
    pub ids: Typed<u32>,
    /// How far along the ray it is touched (0 from inside), `Infinity` for none.
    #[napi(ts_type = "Float64Array")]
    pub distances: Typed<f64>,
}

/// Options of `nearest`; a left-out one takes its default.
#[napi(object, object_to_js = false)]
pub struct NearestOptions {
    /// Only elements at most this far (closed); left out, any distance. A
    /// number `>= 0` (`Infinity` included).
    pub max_distance: Option<f64>,
    /// Only elements whose filter category has a bit in it (see `setFilter`);
    /// left out, every element.
    pub mask: Option<u32>,
    /// Called with candidates nearest first, each once: those for which it
    /// returns a falsy value are left out and do not count towards `k`.
    #[napi(ts_type = "(handle: Handle) => unknown")]
    pub filter: Option<bool>,
}

/// Options of `nearestMany`: those of `nearest` but the callback.
#[napi(object, object_to_js = false)]
pub struct NearestManyOptions {
    /// Only elements at most this far (closed); left out, any distance.
    pub max_distance: Option<f64>,
    /// Only elements whose filter category has a bit in it; left out, every element.
    pub mask: Option<u32>,
}
