//! The JavaScript classes: `Quadtree`, `Grid`, `LooseGrid` and `LooseQuadtree`, one per core
//! structure, each an [`Index`] inside.
//!
//! `shared_methods!` declares every method they share once: those of every
//! class ([`methods!`], with the 2D coordinate names) and the 2D classes' own
//! (bulk queries, joins); a class adds only its constructor and the getters of
//! its parameters. napi-rs generates `index.d.ts` from these declarations, so
//! each class is typed in full.

use napi::bindgen_prelude::{AsyncTask, Buffer, Either4, This};
use napi::{Env, Unknown};
use napi_derive::napi;

use crate::args;
use crate::index::{Index, Later, Now, Promised};
use crate::methods::methods;
use crate::objects::{
    BulkResult, Filter, JoinResult, NearestManyResult, Neighbor, NodeInfo, Nodes, QueryManyResult,
    RayCastManyResult, RayHit, Rectangle, Stats, WrittenRows,
};
use crate::typed::{Typed, Written};

/// `shared_methods!(Class, core type, "'Class'")`: the methods every 2D class
/// has, declared on `Class` (whose field `index` is the [`Index`]).
macro_rules! shared_methods {
    ($class:ident, $core:ty, $kind:tt) => {
        impl From<Index> for $class {
            fn from(index: Index) -> $class {
                $class { index }
            }
        }

        impl crate::index::JsClass for $class {
            type Held = flatquad::AnyIndex;
            const NAME: &'static str = stringify!($class);
            fn inner(&self) -> &Index {
                &self.index
            }
        }

        methods! {
            class: $class,
            core: $core,
            kind: $kind,
            boxes: Rectangle,
            nodes: NodeInfo,
            traverse: "callback: (node: NodeInfo) => boolean | void",
            corners: [x1, y1, x2, y2],
            point: [x, y],
            origin: [ox, oy],
            direction: [dx, dy],
        }

        // The calls the octree does not have.
        #[napi]
        impl $class {
            /// Every pair `(i, h)` such that rectangle `i` of `rects` (4 numbers
            /// each; a `Float64Array` is rounded to the nearest `f32` once, which
            /// never loses a pair whose boxes meet in `f64`) meets the element
            /// `h`: `rows[k]` is `i`, `hits[k]` the handle. Rows increase; with
            /// `sort`, the handles of each row too. `queryMany` is the same
            /// batch in compressed rows.
            #[napi(
                catch_unwind,
                ts_args_type = "rects: Float32Array | Float64Array, sort?: boolean | null"
            )]
            pub fn query_bulk(
                &self,
                env: &Env,
                rects: Unknown<'_>,
                sort: Option<bool>,
            ) -> napi::Result<BulkResult> {
                self.index.query_bulk::<Now>(env, &rects, sort)
            }

            /// `queryBulk`, answered on a worker thread (see `pairsAsync`).
            #[napi(
                catch_unwind,
                ts_args_type = "rects: Float32Array | Float64Array, sort?: boolean | null",
                ts_return_type = "Promise<BulkResult>"
            )]
            pub fn query_bulk_async(
                &self,
                env: &Env,
                rects: Unknown<'_>,
                sort: Option<bool>,
            ) -> AsyncTask<Promised<BulkResult>> {
                self.index.query_bulk::<Later>(env, &rects, sort)
            }

            /// Every pair of an element of this index and an element of
            /// `other` (any class) whose rectangles meet, each pair once:
            /// `left[k]` of this index meets `right[k]` of `other`. With `sort`,
            /// in increasing `(left, right)` order.
            #[napi(catch_unwind, ts_args_type = "other: Quadtree | Grid | LooseGrid | LooseQuadtree, sort?: boolean | null")]
            pub fn join(
                &self,
                env: &Env,
                other: Either4<&Quadtree, &Grid, &LooseGrid, &LooseQuadtree>,
                sort: Option<bool>,
            ) -> napi::Result<JoinResult> {
                let other = match other {
                    Either4::A(o) => &o.index,
                    Either4::B(o) => &o.index,
                    Either4::C(o) => &o.index,
                    Either4::D(o) => &o.index,
                };
                self.index.join(env, other, sort)
            }
        }
    };
}

/// A flat quadtree over rectangles, for broad-phase collision detection and
/// region queries over many moving elements of any sizes.
///
/// Results are exact for 32-bit floats: a query returns precisely the elements
/// whose closed rectangle meets the closed query rectangle. Coordinates are
/// rounded to the nearest 32-bit float when they come in.
#[napi]
pub struct Quadtree {
    index: Index,
}

#[napi]
impl Quadtree {
    /// An empty tree over `world`, given as corners `{ x1, y1, x2, y2 }` or as
    /// `{ x, y, width, height }`. Elements and queries outside the world are
    /// fine (they live in the border leaves); the world only sets where the tree
    /// divides the plane. Options left out take their defaults.
    ///
    /// Throws a `RangeError` for a world that is not finite or has no area, or
    /// options out of range; a `TypeError` for arguments of the wrong type.
    #[napi(
        constructor,
        catch_unwind,
        ts_args_type = "world: Rectangle | WorldRect, options?: QuadtreeOptions"
    )]
    pub fn new(
        env: &Env,
        this: This<'_>,
        world: Unknown<'_>,
        options: Option<Unknown<'_>>,
    ) -> napi::Result<Self> {
        use flatquad::Quadtree as Core;
        let index = Index::construct(env, &this, &world, options.as_ref(), |world| {
            let defaults = [Core::DEFAULT_MAX_ELEMENTS, Core::DEFAULT_MAX_DEPTH];
            let [max_elements, max_depth] = args::tree_options(options.as_ref(), defaults)?;
            Ok(Core::new(world, max_elements, max_depth))
        })?;
        Ok(Quadtree { index })
    }

    /// Elements a leaf holds before it splits.
    #[napi(getter, catch_unwind)]
    pub fn max_elements(&self, env: &Env) -> napi::Result<u32> {
        self.index.read_as(env, flatquad::Quadtree::max_elements)
    }

    /// Depth below which leaves no longer split.
    #[napi(getter, catch_unwind)]
    pub fn max_depth(&self, env: &Env) -> napi::Result<u32> {
        self.index.read_as(env, flatquad::Quadtree::max_depth)
    }
}
shared_methods!(Quadtree, flatquad::Quadtree, "'Quadtree'");

/// A uniform grid over rectangles: for many elements of similar size. Same
/// methods and exact results as `Quadtree`.
#[napi]
pub struct Grid {
    index: Index,
}

#[napi]
impl Grid {
    /// An empty grid over `world` (corners `{ x1, y1, x2, y2 }` or `{ x, y,
    /// width, height }`), of `columns × rows` cells, or of cells of `cellSize`
    /// (a number, or `[width, height]`); defaults for the world when the
    /// options are left out. Elements outside the world belong to the border cells.
    ///
    /// Throws a `RangeError` for a world that is not finite or has no area, or
    /// options out of range; a `TypeError` for arguments of the wrong type.
    #[napi(
        constructor,
        catch_unwind,
        ts_args_type = "world: Rectangle | WorldRect, options?: GridCells | GridCellSize | MarginOption"
    )]
    pub fn new(
        env: &Env,
        this: This<'_>,
        world: Unknown<'_>,
        options: Option<Unknown<'_>>,
    ) -> napi::Result<Self> {
        use flatquad::Grid as Core;
        const FORMS: &str = "{ columns, rows } or { cellSize }";
        let index = Index::construct(env, &this, &world, options.as_ref(), |world| {
            let Some(options) = args::options(options.as_ref(), FORMS)? else {
                return Ok(Core::for_world(world));
            };
            let cells = args::option_u32s(options, [c"columns", c"rows"])?;
            Ok(match (cells, args::cell_size(options, true)?) {
                (None, None) => Core::for_world(world),
                (Some([columns, rows]), None) => Core::new(world, columns, rows),
                (None, Some((width, height))) => Core::with_cell_size(world, width, height),
                (Some(_), Some(_)) => return Err(args::both_forms(FORMS)),
            })
        })?;
        Ok(Grid { index })
    }

    /// Columns of cells.
    #[napi(getter, catch_unwind)]
    pub fn columns(&self, env: &Env) -> napi::Result<u32> {
        self.index.read_as(env, flatquad::Grid::columns)
    }

    /// Rows of cells.
    #[napi(getter, catch_unwind)]
    pub fn rows(&self, env: &Env) -> napi::Result<u32> {
        self.index.read_as(env, flatquad::Grid::rows)
    }

    /// Width of a cell.
    #[napi(getter, catch_unwind)]
    pub fn cell_width(&self, env: &Env) -> napi::Result<f64> {
        self.index
            .read_as(env, |grid: &flatquad::Grid| grid.cell_width().into())
    }

    /// Height of a cell.
    #[napi(getter, catch_unwind)]
    pub fn cell_height(&self, env: &Env) -> napi::Result<f64> {
        self.index
            .read_as(env, |grid: &flatquad::Grid| grid.cell_height().into())
    }
}
shared_methods!(Grid, flatquad::Grid, "'Grid'");

/// The loose/tight double grid: every element in exactly one loose cell, whose
/// box grows and shrinks around its elements. Same methods and exact results as
/// `Quadtree`.
#[napi]
pub struct LooseGrid {
    index: Index,
}

#[napi]
impl LooseGrid {
    /// An empty loose grid over `world` (corners `{ x1, y1, x2, y2 }` or `{ x,
    /// y, width, height }`), of `columns × rows` loose cells and `tightColumns ×
    /// tightRows` tight ones, or of loose cells of `cellSize`; defaults for the
    /// world when the options are left out.
    ///
    /// Throws a `RangeError` for a world that is not finite or has no area, or
    /// options out of range; a `TypeError` for arguments of the wrong type.
    #[napi(
        constructor,
        catch_unwind,
        ts_args_type = "world: Rectangle | WorldRect, options?: LooseGridCells | LooseGridCellSize | MarginOption"
    )]
    pub fn new(
        env: &Env,
        this: This<'_>,
        world: Unknown<'_>,
        options: Option<Unknown<'_>>,
    ) -> napi::Result<Self> {
        use flatquad::LooseGrid as Core;
        const FORMS: &str = "{ columns, rows, tightColumns, tightRows } or { cellSize }";
        let index = Index::construct(env, &this, &world, options.as_ref(), |world| {
            let Some(options) = args::options(options.as_ref(), FORMS)? else {
                return Ok(Core::for_world(world));
            };
            let names = [c"columns", c"rows", c"tightColumns", c"tightRows"];
            Ok(
                match (
                    args::option_u32s(options, names)?,
                    args::cell_size(options, false)?,
                ) {
                    (None, None) => Core::for_world(world),
                    (Some([c, r, tc, tr]), None) => Core::new(world, c, r, tc, tr),
                    (None, Some((size, _))) => Core::with_cell_size(world, size),
                    (Some(_), Some(_)) => return Err(args::both_forms(FORMS)),
                },
            )
        })?;
        Ok(LooseGrid { index })
    }

    /// Columns of loose cells.
    #[napi(getter, catch_unwind)]
    pub fn columns(&self, env: &Env) -> napi::Result<u32> {
        self.index.read_as(env, flatquad::LooseGrid::columns)
    }

    /// Rows of loose cells.
    #[napi(getter, catch_unwind)]
    pub fn rows(&self, env: &Env) -> napi::Result<u32> {
        self.index.read_as(env, flatquad::LooseGrid::rows)
    }

    /// Columns of tight cells.
    #[napi(getter, catch_unwind)]
    pub fn tight_columns(&self, env: &Env) -> napi::Result<u32> {
        self.index.read_as(env, flatquad::LooseGrid::tight_columns)
    }

    /// Rows of tight cells.
    #[napi(getter, catch_unwind)]
    pub fn tight_rows(&self, env: &Env) -> napi::Result<u32> {
        self.index.read_as(env, flatquad::LooseGrid::tight_rows)
    }
}
shared_methods!(LooseGrid, flatquad::LooseGrid, "'LooseGrid'");

/// A loose quadtree over rectangles: each element lives in exactly one leaf,
/// chosen by its centre, and the nodes' boxes grow to hold it, so large
/// elements cost no more than small ones. Same methods and exact results as
/// `Quadtree`; the same options.
///
/// Results are exact for 32-bit floats: a query returns precisely the elements
/// whose closed rectangle meets the closed query rectangle. Coordinates are
/// rounded to the nearest 32-bit float when they come in.
#[napi]
pub struct LooseQuadtree {
    index: Index,
}

#[napi]
impl LooseQuadtree {
    /// An empty loose tree over `world`, given as corners `{ x1, y1, x2, y2 }`
    /// or as `{ x, y, width, height }`. Elements and queries outside the world
    /// are fine; the world only sets where the tree divides the plane. Options
    /// left out take their defaults.
    ///
    /// Throws a `RangeError` for a world that is not finite or has no area, or
    /// options out of range; a `TypeError` for arguments of the wrong type.
    #[napi(
        constructor,
        catch_unwind,
        ts_args_type = "world: Rectangle | WorldRect, options?: LooseQuadtreeOptions"
    )]
    pub fn new(
        env: &Env,
        this: This<'_>,
        world: Unknown<'_>,
        options: Option<Unknown<'_>>,
    ) -> napi::Result<Self> {
        use flatquad::LooseQuadtree as Core;
        let index = Index::construct(env, &this, &world, options.as_ref(), |world| {
            let max_extent =
                match args::options(options.as_ref(), "{ maxElements, maxDepth, maxExtent }")? {
                    Some(options) => args::option_f32(options, c"maxExtent")?,
                    None => None,
                };
            let defaults = [Core::DEFAULT_MAX_ELEMENTS, Core::DEFAULT_MAX_DEPTH];
            let [max_elements, max_depth] = args::tree_options(options.as_ref(), defaults)?;
            Ok(match max_extent {
                Some(extent) => Core::with_max_extent(world, max_elements, max_depth, extent),
                None => Core::new(world, max_elements, max_depth),
            })
        })?;
        Ok(LooseQuadtree { index })
    }

    /// Elements wider or taller than this are kept apart (`maxExtent`);
    /// `null` without a bound.
    #[napi(getter, catch_unwind)]
    pub fn max_extent(&self, env: &Env) -> napi::Result<Option<f64>> {
        self.index.read_as(env, |tree: &flatquad::LooseQuadtree| {
            tree.max_extent().map(f64::from)
        })
    }

    /// Elements a leaf holds before it splits.
    #[napi(getter, catch_unwind)]
    pub fn max_elements(&self, env: &Env) -> napi::Result<u32> {
        self.index
            .read_as(env, flatquad::LooseQuadtree::max_elements)
    }

    /// Depth below which leaves no longer split.
    #[napi(getter, catch_unwind)]
    pub fn max_depth(&self, env: &Env) -> napi::Result<u32> {
        self.index.read_as(env, flatquad::LooseQuadtree::max_depth)
    }
}
shared_methods!(LooseQuadtree, flatquad::LooseQuadtree, "'LooseQuadtree'");
