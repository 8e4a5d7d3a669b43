//! The types of the C ABI: the opaque tree, the structure kinds, rectangles,
//! handles, pairs, stats and callbacks.

use std::ffi::{c_int, c_void};

use std::ops::{Deref, DerefMut};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use flatquad_core::{
    join, AnyIndex, AnyIndex3, Bounds, Box3, Error, Filter, Handle, Kind, NodeInfo, Quadtree, Ray,
    RayHit, Rect, Shape, SpatialIndex, Stats,
};

/// An element's handle: an opaque nonzero integer below 2^53 (exact in a
/// `double`), valid until the element is removed or the tree cleared. A stale
/// handle is refused with `QT_INVALID_HANDLE`, even after its slot is reused.
pub type qt_handle_t = u64;

/// Never a handle: pass it as `omit` to leave nothing out of a query.
pub const QT_NO_HANDLE: qt_handle_t = 0;

// The omit rule is the core's (`Handle::optional`): 0 names no element.
const _: () = assert!(Handle::optional(QT_NO_HANDLE).is_none());

/// Which structure a `qt_tree` is: one of the `QT_KIND_*` values, as
/// `qt_kind_of` returns them and `qt_create_default` takes them. A plain
/// integer rather than a C enum, so that any value a caller passes is safe:
/// an unknown one is refused with `QT_INVALID_PARAMETER`. The values are
/// stable (they are the core's, and snapshots carry them).
pub type qt_kind = u32;

/// The flat quadtree (`qt_create`): adapts its depth to where the elements
/// are; for uneven densities and mixed sizes.
pub const QT_KIND_QUADTREE: qt_kind = 1;
/// The uniform grid (`qt_create_grid`): fixed cells, each a list of the
/// elements it meets; for many elements of similar size spread over the world.
pub const QT_KIND_GRID: qt_kind = 2;
/// The loose/tight double grid (`qt_create_loose_grid`): every element in
/// exactly one loose cell, whose box grows and shrinks around its elements;
/// for elements of similar size that move every frame.
pub const QT_KIND_LOOSE_GRID: qt_kind = 3;
/// The loose quadtree (`qt_create_loose_quadtree`): every element in exactly
/// one leaf, by its centre, the nodes' boxes grown to hold it; large elements
/// cost no more than small ones.
pub const QT_KIND_LOOSE_QUADTREE: qt_kind = 4;

const _: () = {
    assert!(QT_KIND_QUADTREE == Kind::Quadtree as u32);
    assert!(QT_KIND_GRID == Kind::Grid as u32);
    assert!(QT_KIND_LOOSE_GRID == Kind::LooseGrid as u32);
    assert!(QT_KIND_LOOSE_QUADTREE == Kind::LooseQuadtree as u32);
};

/// The `max_elements` the core's authors measured as best: 8 elements per leaf.
pub const QT_DEFAULT_MAX_ELEMENTS: u32 = 8;
/// A default `max_depth`: 256 x 256 cells at the deepest level.
pub const QT_DEFAULT_MAX_DEPTH: u32 = 8;
/// The largest `max_depth` `qt_create` accepts.
pub const QT_MAX_DEPTH_LIMIT: u32 = 30;

const _: () = {
    assert!(QT_DEFAULT_MAX_ELEMENTS == Quadtree::DEFAULT_MAX_ELEMENTS);
    assert!(QT_DEFAULT_MAX_DEPTH == Quadtree::DEFAULT_MAX_DEPTH);
    assert!(QT_MAX_DEPTH_LIMIT == Quadtree::MAX_DEPTH_LIMIT);
};

/// A closed axis-aligned rectangle `[x1, x2] x [y1, y2]`: touching counts as
/// overlapping, and a point is a rectangle with `x1 == x2` and `y1 == y2`. The
/// tree accepts it when every coordinate is finite and `x1 <= x2`, `y1 <= y2`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct qt_rect {
    /// Left edge (smallest x).
    pub x1: f32,
    /// Top edge (smallest y).
    pub y1: f32,
    /// Right edge (largest x).
    pub x2: f32,
    /// Bottom edge (largest y).
    pub y2: f32,
}

// Arrays of handles are read as the core's `Handle`s without copying (as
// arrays of `qt_rect` and `qt_box` are read as `Rect`s and `Box3`s: `shell!`).
const _: () = assert!(core::mem::size_of::<qt_handle_t>() == core::mem::size_of::<Handle>());

impl From<qt_rect> for Rect {
    fn from(r: qt_rect) -> Rect {
        Rect::new(r.x1, r.y1, r.x2, r.y2)
    }
}

/// A rectangle in `double`, for `qt_insert_d`, `qt_move_d` and the query shape
/// `QT_SHAPE_RECT_D`. Each corner is rounded once to the
/// nearest `float` (the one conversion every language uses). Rounding to
/// nearest is monotone, so a query never misses an element whose closed
/// rectangle meets the query in `double`; it may add one that the rounding
/// made touch.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct qt_rect_d {
    /// Left edge (smallest x).
    pub x1: f64,
    /// Top edge (smallest y).
    pub y1: f64,
    /// Right edge (largest x).
    pub x2: f64,
    /// Bottom edge (largest y).
    pub y2: f64,
}

impl From<qt_rect_d> for Rect {
    fn from(r: qt_rect_d) -> Rect {
        Rect::from_f64(r.x1, r.y1, r.x2, r.y2)
    }
}

impl From<qt_rect_d> for qt_rect {
    fn from(r: qt_rect_d) -> qt_rect {
        Rect::from(r).into()
    }
}

impl From<Rect> for qt_rect {
    fn from(r: Rect) -> qt_rect {
        qt_rect {
            x1: r.x1,
            y1: r.y1,
            x2: r.x2,
            y2: r.y2,
        }
    }
}

/// A closed axis-aligned box `[x1, x2] x [y1, y2] x [z1, z2]`, the octree's
/// `qt_rect`: touching counts as overlapping, and a point is a box with equal
/// corners. The octree accepts it when every coordinate is finite and
/// `x1 <= x2`, `y1 <= y2`, `z1 <= z2`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct qt_box {
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

impl From<qt_box> for Box3 {
    fn from(b: qt_box) -> Box3 {
        Box3::new(b.x1, b.y1, b.z1, b.x2, b.y2, b.z2)
    }
}

impl From<Box3> for qt_box {
    fn from(b: Box3) -> qt_box {
        qt_box {
            x1: b.x1,
            y1: b.y1,
            z1: b.z1,
            x2: b.x2,
            y2: b.y2,
            z2: b.z2,
        }
    }
}

/// Which shape a query description holds: one of the `QT_SHAPE_*` values, in
/// its `kind` field. A plain integer rather than a C enum, so that any value a
/// caller passes is safe: one the call does not know (0, the kind of a
/// zeroed description, among them) is refused with `QT_INVALID_PARAMETER`.
pub type qt_shape_kind = u32;

/// A rectangle, `shape.rect` (2D): the elements whose closed rectangle meets it.
pub const QT_SHAPE_RECT: qt_shape_kind = 1;
/// A point, `shape.point`: the elements whose closed box holds it (2D
/// `qt_point`, 3D `qt_point3`).
pub const QT_SHAPE_POINT: qt_shape_kind = 2;
/// A closed disc, `shape.circle` (2D): the elements whose closed rectangle is
/// at most `radius` from the centre.
pub const QT_SHAPE_CIRCLE: qt_shape_kind = 3;
/// A live element, `shape.element`: the other elements meeting its box whose
/// collision filters collide with its own (what it touches in a collision
/// loop); starts from where the element is stored.
pub const QT_SHAPE_ELEMENT: qt_shape_kind = 4;
/// A rectangle in `double`, `shape.rect_d` (2D): each corner rounded once to
/// the nearest `float`, so no element whose rectangle meets it in `double` is
/// missed (one the rounding made touch may be added).
pub const QT_SHAPE_RECT_D: qt_shape_kind = 5;
/// A box, `shape.box` (3D): the elements whose closed box meets it.
pub const QT_SHAPE_BOX: qt_shape_kind = 6;
/// A closed ball, `shape.sphere` (3D): the elements whose closed box is at
/// most `radius` from the centre.
pub const QT_SHAPE_SPHERE: qt_shape_kind = 7;

/// A point in 2D.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct qt_point {
    /// x.
    pub x: f32,
    /// y.
    pub y: f32,
}

/// A point in 3D.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct qt_point3 {
    /// x.
    pub x: f32,
    /// y.
    pub y: f32,
    /// z.
    pub z: f32,
}

/// A closed disc: the centre `(x, y)` and a `radius` (`>= 0`, `INFINITY`
/// reaches every element) in `double`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct qt_circle {
    /// Centre x.
    pub x: f32,
    /// Centre y.
    pub y: f32,
    /// The radius: an element at distance `<= radius` is found.
    pub radius: f64,
}

/// A closed ball: the centre `(x, y, z)` and a `radius`, as `qt_circle`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct qt_sphere {
    /// Centre x.
    pub x: f32,
    /// Centre y.
    pub y: f32,
    /// Centre z.
    pub z: f32,
    /// The radius: an element at distance `<= radius` is found.
    pub radius: f64,
}

/// The shape of a 2D query: the member `kind` names is read, the others not.
#[repr(C)]
#[derive(Clone, Copy)]
pub union qt_shape {
    /// `QT_SHAPE_RECT`.
    pub rect: qt_rect,
    /// `QT_SHAPE_POINT`.
    pub point: qt_point,
    /// `QT_SHAPE_CIRCLE`.
    pub circle: qt_circle,
    /// `QT_SHAPE_ELEMENT`: the element's handle.
    pub element: qt_handle_t,
    /// `QT_SHAPE_RECT_D`.
    pub rect_d: qt_rect_d,
}

/// The shape of a 3D query (the octree's): the member `kind` names is read.
#[repr(C)]
#[derive(Clone, Copy)]
pub union qt_shape3 {
    /// `QT_SHAPE_BOX`.
    pub r#box: qt_box,
    /// `QT_SHAPE_POINT`.
    pub point: qt_point3,
    /// `QT_SHAPE_SPHERE`.
    pub sphere: qt_sphere,
    /// `QT_SHAPE_ELEMENT`: the element's handle.
    pub element: qt_handle_t,
}

/// A query on a `qt_tree`: a shape and the options every shape takes, for
/// `qt_query`, `qt_query_each` and (an array of them) `qt_query_many`. Make
/// one with `qt_rect_query`, `qt_point_query`, `qt_circle_query`,
/// `qt_element_query` or `qt_rect_d_query` (mask `QT_MASK_ALL`, nothing
/// omitted), then set `mask` or `omit`; or fill it in yourself. A zeroed
/// description is refused (kind 0), and its mask 0 would find nothing.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct qt_query_desc {
    /// Which member of `shape` holds the shape: a `QT_SHAPE_*` value (2D:
    /// `RECT`, `POINT`, `CIRCLE`, `ELEMENT`, `RECT_D`).
    pub kind: qt_shape_kind,
    /// The shape.
    pub shape: qt_shape,
    /// Only the elements whose collision category is in `mask` are reported
    /// (`category & mask` nonzero): `QT_MASK_ALL` for every element, 0 none.
    pub mask: u32,
    /// An element to leave out of the answer, or `QT_NO_HANDLE`.
    pub omit: qt_handle_t,
}

/// A query on a `qt_octree`, as `qt_query_desc` (kinds `QT_SHAPE_BOX`,
/// `QT_SHAPE_POINT`, `QT_SHAPE_SPHERE`, `QT_SHAPE_ELEMENT`): for
/// `qt_octree_query`, `qt_octree_query_each` and `qt_octree_query_many`. Make
/// one with `qt_box_query`, `qt_point3_query`, `qt_sphere_query` or
/// `qt_element3_query`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct qt_query3_desc {
    /// Which member of `shape` holds the shape: a `QT_SHAPE_*` value.
    pub kind: qt_shape_kind,
    /// The shape.
    pub shape: qt_shape3,
    /// The collision mask, as `qt_query_desc`'s.
    pub mask: u32,
    /// An element to leave out of the answer, or `QT_NO_HANDLE`.
    pub omit: qt_handle_t,
}

/// A C query description: its kind and options, and its shape read as the
/// core's (`None` for a kind its dimension does not have). The one place a
/// description's union is read; [`crate::shared::to_query`] does the rest.
pub(crate) trait Describe {
    /// The core structure's box: `Rect` or `Box3`.
    type BoxType: Bounds;
    /// The mask and the omitted handle.
    fn options(&self) -> (u32, qt_handle_t);
    /// The shape, read from the member `kind` names.
    fn shape(&self) -> Option<Shape<Self::BoxType>>;
    /// Whether it has no mask and leaves nothing out.
    fn is_plain(&self) -> bool {
        self.options() == (Filter::ALL, QT_NO_HANDLE)
    }
}

impl Describe for qt_query_desc {
    type BoxType = Rect;
    fn options(&self) -> (u32, qt_handle_t) {
        (self.mask, self.omit)
    }
    fn shape(&self) -> Option<Shape<Rect>> {
        // SAFETY: every member is plain numbers, any bits of which are a
        // value; `kind` says which the caller wrote.
        unsafe {
            Some(match self.kind {
                QT_SHAPE_RECT => Shape::Rect(self.shape.rect.into()),
                QT_SHAPE_RECT_D => Shape::Rect(self.shape.rect_d.into()),
                QT_SHAPE_POINT => Shape::Point([self.shape.point.x, self.shape.point.y]),
                QT_SHAPE_CIRCLE => {
                    let c = self.shape.circle;
                    Shape::Circle {
                        center: [c.x, c.y],
                        radius: c.radius,
                    }
                }
                QT_SHAPE_ELEMENT => Shape::Element(Handle::from_raw(self.shape.element)),
                _ => return None,
            })
        }
    }
}

impl Describe for qt_query3_desc {
    type BoxType = Box3;
    fn options(&self) -> (u32, qt_handle_t) {
        (self.mask, self.omit)
    }
    fn shape(&self) -> Option<Shape<Box3>> {
        // SAFETY: as for `qt_query_desc`.
        unsafe {
            Some(match self.kind {
                QT_SHAPE_BOX => Shape::Rect(self.shape.r#box.into()),
                QT_SHAPE_POINT => {
                    let p = self.shape.point;
                    Shape::Point([p.x, p.y, p.z])
                }
                QT_SHAPE_SPHERE => {
                    let s = self.shape.sphere;
                    Shape::Circle {
                        center: [s.x, s.y, s.z],
                        radius: s.radius,
                    }
                }
                QT_SHAPE_ELEMENT => Shape::Element(Handle::from_raw(self.shape.element)),
                _ => return None,
            })
        }
    }
}

/// Two elements whose rectangles overlap, as `qt_query_pairs` reports them.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct qt_pair {
    /// One element.
    pub a: qt_handle_t,
    /// The other element.
    pub b: qt_handle_t,
}

/// Sizes of a tree, from `qt_stats`. A grid counts its cells as leaves of
/// depth 0 (so `nodes == leaves` and `max_depth_reached == 0`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct qt_tree_stats {
    /// Live elements (the same as `qt_len`).
    pub elements: usize,
    /// Nodes of a quadtree, branches and leaves; cells of a grid.
    pub nodes: usize,
    /// Leaves (or cells), empty ones included.
    pub leaves: usize,
    /// Leaves (or cells) holding no element.
    pub empty_leaves: usize,
    /// Element links: one per element per leaf (or cell) it is listed in.
    pub element_links: usize,
    /// Bytes the tree holds, spare capacity of its pools included.
    pub bytes: usize,
    /// Deepest depth any node has (0 when the root is the only node, and for a grid).
    pub max_depth_reached: u32,
}

impl From<Stats> for qt_tree_stats {
    fn from(s: Stats) -> qt_tree_stats {
        qt_tree_stats {
            elements: s.elements,
            nodes: s.nodes,
            leaves: s.leaves,
            empty_leaves: s.empty_leaves,
            element_links: s.element_links,
            bytes: s.bytes,
            max_depth_reached: s.max_depth_reached,
        }
    }
}

/// Any flatquad structure: a quadtree, a grid or a loose grid (`qt_kind_of`
/// says which). Opaque: made by `qt_create`, `qt_create_grid`,
/// `qt_create_grid_cell_size`, `qt_create_loose_grid`,
/// `qt_create_loose_grid_cell_size`, `qt_create_default`, `qt_clone` or
/// `qt_from_bytes`, freed by `qt_destroy`. Every other call works on every
/// kind, except the parameter getters of one kind (`qt_params`,
/// `qt_grid_params`, `qt_loose_grid_params`).
pub struct qt_tree(pub(crate) Held<AnyIndex>);

/// The octree: the quadtree in 3D, over `qt_box` boxes. Opaque: made by
/// `qt_octree_create`, `qt_octree_clone` or `qt_octree_from_bytes`, freed by
/// `qt_octree_destroy`; its calls are the `qt_` calls of a `qt_tree`, named
/// `qt_octree_*`, with the same conventions and statuses.
pub struct qt_octree(pub(crate) Held<AnyIndex3>);

/// What an opaque handle holds: the core structure, a scratch vector and the
/// poison flag. One generic type, so every call's body is written once for
/// `qt_tree` and `qt_octree` (see [`Shell`]).
#[doc(hidden)]
pub struct Held<T> {
    pub(crate) tree: T,
    /// Reused by the batch insert, so a warm tree allocates nothing there either.
    pub(crate) scratch: Vec<Handle>,
    /// Set while a call changes the tree; left set if that call panics.
    pub(crate) poisoned: bool,
    /// Whether the tree is still alive, shared with its trackers (made by the
    /// first `qt_tracker_create`): the destroy call clears it before freeing
    /// the tree, and a tracker checks it before it reads the tree, so a
    /// tracker outliving its tree is refused instead of reading freed memory.
    pub(crate) alive: OnceLock<Arc<AtomicBool>>,
}

/// An opaque C type over a core structure: `qt_tree` (any 2D structure) or
/// `qt_octree`. The bodies in `shared` are generic over it; each C function
/// only passes its arguments on.
pub(crate) trait Shell: DerefMut<Target = Held<Self::Index>> + Sized + 'static {
    /// The core structure's box: `Rect` or `Box3`.
    type BoxType: Bounds;
    /// Its C box, `qt_rect` or `qt_box`: the same numbers in the same order
    /// (`shell!` asserts the layout), so C arrays of it are read in place.
    type CBox: Copy + Into<Self::BoxType> + From<Self::BoxType>;
    /// The core structure.
    type Index: SpatialIndex<Bounds = Self::BoxType> + Batch<Desc = Self::Desc>;
    /// Its C query description: `qt_query_desc` or `qt_query3_desc`.
    type Desc: Describe<BoxType = Self::BoxType>;
    /// Wraps a core structure.
    fn wrap(held: Held<Self::Index>) -> Self;

    /// A new tree on the heap, for the caller to free with its destroy call.
    fn into_raw(tree: impl Into<Self::Index>) -> *mut Self {
        Box::into_raw(Box::new(Self::wrap(Held {
            tree: tree.into(),
            scratch: Vec::new(),
            poisoned: false,
            alive: OnceLock::new(),
        })))
    }
}

/// A batch of descriptions (`qt_query_many`) a tree type answers its own
/// way: the 2D tree sends a big batch of plain rectangles (no mask, nothing
/// omitted: what `qt_query_bulk` took) through `join::query_bulk`, which
/// answers it in the Z-order of the rectangles and puts the rows back. Any
/// other batch but one of plain element queries (`overlapping_many`'s) is
/// converted and given to the core's batch query.
pub(crate) trait Batch: SpatialIndex + Sync {
    /// The tree type's C query description.
    type Desc: Describe<BoxType = Self::Bounds>;
    /// `Some` when this batch was answered here (into compressed rows, as
    /// `SpatialIndex::query_many`), `None` to go the common way.
    fn bulk(
        &self,
        _descs: &[Self::Desc],
        _offsets: &mut Vec<usize>,
        _hits: &mut Vec<Handle>,
    ) -> Option<Result<(), Error>> {
        None
    }
}

impl Batch for AnyIndex3 {
    type Desc = qt_query3_desc;
}

/// From this many plain rectangles on, `join::query_bulk` answers a batch in
/// spatial order (the core's `SPATIAL_ORDER_FROM`); below, both ways are the
/// core's batch query.
const BULK_FROM: usize = 4096;

impl Batch for AnyIndex {
    type Desc = qt_query_desc;
    fn bulk(
        &self,
        descs: &[qt_query_desc],
        offsets: &mut Vec<usize>,
        hits: &mut Vec<Handle>,
    ) -> Option<Result<(), Error>> {
        if descs.len() < BULK_FROM {
            return None;
        }
        let mut rects = Vec::with_capacity(descs.len());
        for q in descs {
            match q.shape() {
                Some(Shape::Rect(rect)) if q.is_plain() => {
                    rects.push(rect);
                }
                _ => return None,
            }
        }
        let mut rows = Vec::new();
        if let Err(error) = join::query_bulk(self, &rects, false, &mut rows, hits) {
            return Some(Err(error));
        }
        // One row number per hit back to offsets (the core keeps its
        // spatial-order query in compressed rows private).
        offsets.clear();
        offsets.resize(rects.len() + 1, 0);
        for &row in &rows {
            offsets[row + 1] += 1;
        }
        for i in 1..offsets.len() {
            offsets[i] += offsets[i - 1];
        }
        Some(Ok(()))
    }
}

/// `Shell`, `Deref` and `DerefMut` for a C type over one core structure.
macro_rules! shell {
    ($c:ident, $index:ty, $box:ty, $cbox:ty, $desc:ty) => {
        const _: () = {
            assert!(core::mem::size_of::<$cbox>() == core::mem::size_of::<$box>());
            assert!(core::mem::align_of::<$cbox>() == core::mem::align_of::<$box>());
        };
        impl Shell for $c {
            type BoxType = $box;
            type CBox = $cbox;
            type Index = $index;
            type Desc = $desc;
            fn wrap(held: Held<$index>) -> $c {
                $c(held)
            }
        }
        impl Deref for $c {
            type Target = Held<$index>;
            fn deref(&self) -> &Held<$index> {
                &self.0
            }
        }
        impl DerefMut for $c {
            fn deref_mut(&mut self) -> &mut Held<$index> {
                &mut self.0
            }
        }
    };
}
shell!(qt_tree, AnyIndex, Rect, qt_rect, qt_query_desc);
shell!(qt_octree, AnyIndex3, Box3, qt_box, qt_query3_desc);

/// Called with each element a query finds. Return 0 to go on, nonzero to stop
/// the walk (the query then returns `QT_STOPPED`). `user_data` is the pointer
/// given to the query, passed through untouched.
pub type qt_visit_fn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, handle: qt_handle_t) -> c_int>;

/// Called with each overlapping pair. Return 0 to go on, nonzero to stop.
pub type qt_pair_fn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, a: qt_handle_t, b: qt_handle_t) -> c_int>;

/// Called by `qt_octree_traverse` with each node: its index in the node array
/// (the root is 0), its depth (the root's is 0), its box in world coordinates,
/// and the number of elements linked in it (always 0 for a branch). Return 0
/// to go on, nonzero to stop.
pub type qt_node3_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        node: u32,
        depth: u32,
        b: qt_box,
        count: u32,
    ) -> c_int,
>;

/// Called by `qt_traverse` with each node: its index in the node array (the
/// root is 0), its depth (the root's is 0), its cell `(x1, y1)..(x2, y2)` in
/// world coordinates, and the number of elements linked in it (always 0 for a
/// branch). A grid's cells come as leaves of depth 0, each with its index in the grid (a
/// loose grid's cell rectangle is the box that bounds its elements). Return 0
/// to go on, nonzero to stop.
pub type qt_node_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        node: u32,
        depth: u32,
        x1: f32,
        y1: f32,
        x2: f32,
        y2: f32,
        count: u32,
    ) -> c_int,
>;

/// The function a `qt_node_fn` or `qt_node3_fn` holds, called with a node of
/// a tree whose boxes are `B`, in the callback's own form.
pub(crate) trait NodeFn<B>: Copy {
    /// Calls it with the node's index, depth, box and element count.
    unsafe fn call(self, user_data: *mut c_void, node: &NodeInfo<B>) -> c_int;
}

impl NodeFn<Rect>
    for unsafe extern "C" fn(*mut c_void, u32, u32, f32, f32, f32, f32, u32) -> c_int
{
    unsafe fn call(self, user_data: *mut c_void, node: &NodeInfo<Rect>) -> c_int {
        let r = node.rect;
        self(
            user_data, node.index, node.depth, r.x1, r.y1, r.x2, r.y2, node.count,
        )
    }
}

impl NodeFn<Box3> for unsafe extern "C" fn(*mut c_void, u32, u32, qt_box, u32) -> c_int {
    unsafe fn call(self, user_data: *mut c_void, node: &NodeInfo<Box3>) -> c_int {
        self(
            user_data,
            node.index,
            node.depth,
            node.rect.into(),
            node.count,
        )
    }
}

/// A segment to cast in 2D: from `(x, y)` along `(dx, dy)` (any length but
/// zero; it is normalised in `double`) for `max_length` (finite, `>= 0`; 0
/// hits the elements holding the origin).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct qt_ray {
    /// Origin x.
    pub x: f32,
    /// Origin y.
    pub y: f32,
    /// Direction x.
    pub dx: f32,
    /// Direction y.
    pub dy: f32,
    /// How far the ray goes, in the units of the coordinates.
    pub max_length: f64,
}

/// A segment to cast in 3D, as `qt_ray`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct qt_ray3 {
    /// Origin x.
    pub x: f32,
    /// Origin y.
    pub y: f32,
    /// Origin z.
    pub z: f32,
    /// Direction x.
    pub dx: f32,
    /// Direction y.
    pub dy: f32,
    /// Direction z.
    pub dz: f32,
    /// How far the ray goes, in the units of the coordinates.
    pub max_length: f64,
}

impl From<qt_ray> for Ray<[f32; 2]> {
    fn from(r: qt_ray) -> Self {
        Ray {
            origin: [r.x, r.y],
            direction: [r.dx, r.dy],
            max_length: r.max_length,
        }
    }
}

impl From<qt_ray3> for Ray<[f32; 3]> {
    fn from(r: qt_ray3) -> Self {
        Ray {
            origin: [r.x, r.y, r.z],
            direction: [r.dx, r.dy, r.dz],
            max_length: r.max_length,
        }
    }
}

/// One element a ray hit.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct qt_ray_hit {
    /// The element.
    pub handle: qt_handle_t,
    /// Its id.
    pub id: u32,
    /// The distance along the ray from the origin to where the ray first
    /// touches the element's closed box (0 when the origin is in it).
    pub distance: f64,
    /// `distance / max_length` (0 when `max_length` is 0).
    pub fraction: f64,
}

impl From<&RayHit> for qt_ray_hit {
    fn from(hit: &RayHit) -> qt_ray_hit {
        qt_ray_hit {
            handle: hit.handle.to_raw(),
            id: hit.id,
            distance: hit.distance,
            fraction: hit.fraction,
        }
    }
}

/// Called by `qt_ray_cast_each` with each hit, nearest first. Returns what to
/// do next, as Box2D's ray-cast callbacks do: -1 (any negative value) to go
/// on, 0 (or NaN) to stop (the call then returns `QT_STOPPED`), a fraction
/// between 0 and 1 to clip the ray there (only hits at most that far along
/// it come next; return `hit.fraction` to keep the hits as near as this one,
/// which stops at a hit of fraction 0), 1 (or more) to go on unclipped. The
/// fraction is of the `max_length` the ray was cast with.
pub type qt_ray_fn = Option<unsafe extern "C" fn(user_data: *mut c_void, hit: qt_ray_hit) -> f64>;

/// Called by `qt_nearest_with` with each candidate, nearest first: return
/// nonzero to accept it (it counts towards `k`), 0 to pass over it.
pub type qt_accept_fn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, handle: qt_handle_t) -> c_int>;
