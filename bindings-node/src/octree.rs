//! The JavaScript `Octree`: the core's octree in an [`Index`]. The methods
//! every class has come from `common_methods!`; here are only the constructor,
//! the getters and the calls that take a box's six coordinates, each one call
//! to the [`Index`] method the 2D classes call.

use napi::bindgen_prelude::{Buffer, Float64Array, This, Uint32Array};
use napi::{Env, Unknown};
use napi_derive::napi;

use crate::args;
use crate::classes::common_methods;
use crate::index::Index;
use crate::objects::{
    Box3, Filter, NearestManyResult, Neighbor, NodeInfo3, Nodes, QueryManyResult, RayHit, Stats,
};

fn box3(b: flatquad::Box3) -> Box3 {
    Box3 {
        x1: b.x1 as f64,
        y1: b.y1 as f64,
        z1: b.z1 as f64,
        x2: b.x2 as f64,
        y2: b.y2 as f64,
        z2: b.z2 as f64,
    }
}

/// An octree over boxes `[x1, x2] × [y1, y2] × [z1, z2]`: the quadtree in 3D,
/// with the same methods, each taking 6 coordinates per box (batches: 6
/// numbers per box in a `Float32Array`, read in place, or a `Float64Array`).
/// Results are exact for 32-bit floats; touching counts.
#[napi]
pub struct Octree {
    index: Index<flatquad::Octree>,
}

impl Octree {
    /// The index inside (for a `PairTracker`).
    pub(crate) fn inner(&self) -> &Index<flatquad::Octree> {
        &self.index
    }
}

#[napi]
impl Octree {
    /// An empty octree over `world`, `{ x1, y1, z1, x2, y2, z2 }` with
    /// `x1 < x2`, `y1 < y2`, `z1 < z2`. Options left out take their defaults
    /// (`maxElements` 8, `maxDepth` 6). Throws a `RangeError` for a bad world
    /// or options out of range, a `TypeError` for arguments of the wrong type.
    #[napi(
        constructor,
        catch_unwind,
        ts_args_type = "world: Box3, options?: OctreeOptions"
    )]
    pub fn new(
        env: &Env,
        this: This<'_>,
        world: Unknown<'_>,
        options: Option<Unknown<'_>>,
    ) -> napi::Result<Self> {
        let index = Index::construct_with(
            env,
            &this,
            "Octree",
            || args::world3(&world),
            options.as_ref(),
            |world| {
                use flatquad::Octree as Defaults;
                let (mut max_elements, mut max_depth) = (None, None);
                if let Some(options) = args::options(options.as_ref(), "{ maxElements, maxDepth }")?
                {
                    max_elements = args::option_u32(options, c"maxElements")?;
                    max_depth = args::option_u32(options, c"maxDepth")?;
                }
                Ok(flatquad::Octree::new(
                    world,
                    max_elements.unwrap_or(Defaults::DEFAULT_MAX_ELEMENTS),
                    max_depth.unwrap_or(Defaults::DEFAULT_MAX_DEPTH),
                ))
            },
        )?;
        Ok(Octree { index })
    }

    /// `'Octree'`.
    #[napi(getter, ts_return_type = "'Octree'")]
    pub fn kind(&self) -> &'static str {
        self.index.name()
    }

    /// The world box it was made with (32-bit floats, what it stores).
    #[napi(getter, catch_unwind)]
    pub fn world(&self, env: &Env) -> napi::Result<Box3> {
        self.index.world_box(env, box3)
    }

    /// Elements a leaf holds before it splits.
    #[napi(getter, catch_unwind)]
    pub fn max_elements(&self, env: &Env) -> napi::Result<u32> {
        self.index.read_core(env, flatquad::Octree::max_elements)
    }

    /// Depth below which leaves no longer split.
    #[napi(getter, catch_unwind)]
    pub fn max_depth(&self, env: &Env) -> napi::Result<u32> {
        self.index.read_core(env, flatquad::Octree::max_depth)
    }

    /// Adds the box with an id of yours (0 when left out) and returns its
    /// handle. Throws a `RangeError` (`ERR_FLATQUAD_INVALID_RECT`) for NaN or
    /// infinite coordinates or an inverted box; nothing is changed then.
    #[napi(
        catch_unwind,
        ts_args_type = "x1: number, y1: number, z1: number, x2: number, y2: number, z2: number, id?: number",
        ts_return_type = "Handle"
    )]
    #[allow(clippy::too_many_arguments)]
    pub fn insert(
        &self,
        env: &Env,
        x1: Unknown<'_>,
        y1: Unknown<'_>,
        z1: Unknown<'_>,
        x2: Unknown<'_>,
        y2: Unknown<'_>,
        z2: Unknown<'_>,
        id: Option<Unknown<'_>>,
    ) -> napi::Result<f64> {
        self.index
            .insert(env, &[&x1, &y1, &z1, &x2, &y2, &z2], id.as_ref())
    }

    /// Gives an element a new box.
    #[napi(
        js_name = "move",
        catch_unwind,
        ts_args_type = "handle: Handle, x1: number, y1: number, z1: number, x2: number, y2: number, z2: number"
    )]
    #[allow(clippy::too_many_arguments)]
    pub fn move_to(
        &self,
        env: &Env,
        handle: Unknown<'_>,
        x1: Unknown<'_>,
        y1: Unknown<'_>,
        z1: Unknown<'_>,
        x2: Unknown<'_>,
        y2: Unknown<'_>,
        z2: Unknown<'_>,
    ) -> napi::Result<()> {
        self.index
            .move_to(env, &handle, &[&x1, &y1, &z1, &x2, &y2, &z2])
    }

    /// Handles of the elements whose closed box meets the closed query box,
    /// each once, leaving out `omit` and, with a `mask`, the elements whose
    /// filter category has no bit in it (see `setFilter`).
    #[napi(
        catch_unwind,
        ts_args_type = "x1: number, y1: number, z1: number, x2: number, y2: number, z2: number, omit?: Handle | null, mask?: number | null",
        ts_return_type = "Float64Array"
    )]
    #[allow(clippy::too_many_arguments)]
    pub fn query(
        &self,
        env: &Env,
        x1: Unknown<'_>,
        y1: Unknown<'_>,
        z1: Unknown<'_>,
        x2: Unknown<'_>,
        y2: Unknown<'_>,
        z2: Unknown<'_>,
        omit: Option<Unknown<'_>>,
        mask: Option<Unknown<'_>>,
    ) -> napi::Result<Float64Array> {
        self.index.query(
            env,
            &[&x1, &y1, &z1, &x2, &y2, &z2],
            omit.as_ref(),
            mask.as_ref(),
        )
    }

    /// Calls `callback(handle)` for each element `query` would return, until
    /// the callback returns `false`. An exception thrown by the callback
    /// propagates. The callback may read the tree; a call that changes it
    /// throws `ERR_FLATQUAD_BUSY`.
    #[napi(
        catch_unwind,
        ts_args_type = "x1: number, y1: number, z1: number, x2: number, y2: number, z2: number, callback: (handle: Handle) => boolean | void, omit?: Handle | null, mask?: number | null"
    )]
    #[allow(clippy::too_many_arguments)]
    pub fn query_with(
        &self,
        env: &Env,
        x1: Unknown<'_>,
        y1: Unknown<'_>,
        z1: Unknown<'_>,
        x2: Unknown<'_>,
        y2: Unknown<'_>,
        z2: Unknown<'_>,
        callback: Unknown<'_>,
        omit: Option<Unknown<'_>>,
        mask: Option<Unknown<'_>>,
    ) -> napi::Result<()> {
        self.index.query_with(
            env,
            &[&x1, &y1, &z1, &x2, &y2, &z2],
            callback,
            omit.as_ref(),
            mask.as_ref(),
        )
    }

    /// Calls `callback(node)` for every node (depth-first, parents before
    /// children), each with its box `x1, y1, z1, x2, y2, z2`; returning
    /// `false` stops the walk. An exception thrown by the callback
    /// propagates; a call that changes the tree from inside it throws
    /// `ERR_FLATQUAD_BUSY`.
    #[napi(
        catch_unwind,
        ts_args_type = "callback: (node: NodeInfo3) => boolean | void"
    )]
    pub fn traverse(&self, env: &Env, callback: Unknown<'_>) -> napi::Result<()> {
        self.index.traverse(env, callback, NodeInfo3::of)
    }

    /// Handles of the elements whose closed box holds `(x, y, z)`, leaving out
    /// `omit` and, with a `mask`, the elements whose category has no bit in it.
    #[napi(
        catch_unwind,
        ts_args_type = "x: number, y: number, z: number, omit?: Handle | null, mask?: number | null",
        ts_return_type = "Float64Array"
    )]
    pub fn query_point(
        &self,
        env: &Env,
        x: Unknown<'_>,
        y: Unknown<'_>,
        z: Unknown<'_>,
        omit: Option<Unknown<'_>>,
        mask: Option<Unknown<'_>>,
    ) -> napi::Result<Float64Array> {
        self.index
            .query_point(env, &[&x, &y, &z], omit.as_ref(), mask.as_ref())
    }

    /// Handles of the elements whose closed box is within `radius` of
    /// `(x, y, z)` (a sphere), in no particular order; with a `mask`, only
    /// the categories in it. Throws as the 2D classes' `queryCircle` does.
    #[napi(
        catch_unwind,
        ts_args_type = "x: number, y: number, z: number, radius: number, mask?: number | null",
        ts_return_type = "Float64Array"
    )]
    pub fn query_circle(
        &self,
        env: &Env,
        x: Unknown<'_>,
        y: Unknown<'_>,
        z: Unknown<'_>,
        radius: Unknown<'_>,
        mask: Option<Unknown<'_>>,
    ) -> napi::Result<Float64Array> {
        self.index
            .query_circle(env, &[&x, &y, &z], &radius, mask.as_ref())
    }

    /// The `k` (default 1) elements nearest to `(x, y, z)`, nearest first:
    /// `[{ handle, id, distance }]`; options and errors as the 2D classes'
    /// `nearest`.
    #[napi(
        catch_unwind,
        ts_args_type = "x: number, y: number, z: number, k?: number | null, options?: NearestOptions | null"
    )]
    pub fn nearest(
        &self,
        env: &Env,
        x: Unknown<'_>,
        y: Unknown<'_>,
        z: Unknown<'_>,
        k: Option<Unknown<'_>>,
        options: Option<Unknown<'_>>,
    ) -> napi::Result<Vec<Neighbor>> {
        self.index
            .nearest(env, &[&x, &y, &z], k.as_ref(), options.as_ref())
    }

    /// The first element the segment from `(ox, oy, oz)` along `(dx, dy, dz)`
    /// for `maxLength` hits, or `null`; as the 2D classes' `rayCast`.
    #[napi(
        catch_unwind,
        ts_args_type = "ox: number, oy: number, oz: number, dx: number, dy: number, dz: number, maxLength: number, mask?: number | null"
    )]
    #[allow(clippy::too_many_arguments)]
    pub fn ray_cast(
        &self,
        env: &Env,
        ox: Unknown<'_>,
        oy: Unknown<'_>,
        oz: Unknown<'_>,
        dx: Unknown<'_>,
        dy: Unknown<'_>,
        dz: Unknown<'_>,
        max_length: Unknown<'_>,
        mask: Option<Unknown<'_>>,
    ) -> napi::Result<Option<RayHit>> {
        self.index.ray_cast(
            env,
            &[&ox, &oy, &oz],
            &[&dx, &dy, &dz],
            &max_length,
            mask.as_ref(),
        )
    }

    /// The first box `(x1, y1, z1, x2, y2, z2)` touches moving by `t * (dx, dy,
    /// dz)`, `t` from 0 to 1, or `null`; as the 2D classes' `boxCast`.
    #[napi(
        catch_unwind,
        ts_args_type = "x1: number, y1: number, z1: number, x2: number, y2: number, z2: number, dx: number, dy: number, dz: number, mask?: number | null, omit?: number | null"
    )]
    #[allow(clippy::too_many_arguments)]
    pub fn box_cast(
        &self,
        env: &Env,
        x1: Unknown<'_>,
        y1: Unknown<'_>,
        z1: Unknown<'_>,
        x2: Unknown<'_>,
        y2: Unknown<'_>,
        z2: Unknown<'_>,
        dx: Unknown<'_>,
        dy: Unknown<'_>,
        dz: Unknown<'_>,
        mask: Option<Unknown<'_>>,
        omit: Option<Unknown<'_>>,
    ) -> napi::Result<Option<RayHit>> {
        let hits = self.index.box_cast(
            env,
            &[&x1, &y1, &z1, &x2, &y2, &z2],
            &[&dx, &dy, &dz],
            mask.as_ref(),
            omit.as_ref(),
            false,
        )?;
        Ok(hits.into_iter().next())
    }

    /// Every box the moving box of `boxCast` touches, in ascending
    /// `(fraction, id, handle)` order.
    #[napi(
        catch_unwind,
        ts_args_type = "x1: number, y1: number, z1: number, x2: number, y2: number, z2: number, dx: number, dy: number, dz: number, mask?: number | null, omit?: number | null"
    )]
    #[allow(clippy::too_many_arguments)]
    pub fn box_cast_all(
        &self,
        env: &Env,
        x1: Unknown<'_>,
        y1: Unknown<'_>,
        z1: Unknown<'_>,
        x2: Unknown<'_>,
        y2: Unknown<'_>,
        z2: Unknown<'_>,
        dx: Unknown<'_>,
        dy: Unknown<'_>,
        dz: Unknown<'_>,
        mask: Option<Unknown<'_>>,
        omit: Option<Unknown<'_>>,
    ) -> napi::Result<Vec<RayHit>> {
        self.index.box_cast(
            env,
            &[&x1, &y1, &z1, &x2, &y2, &z2],
            &[&dx, &dy, &dz],
            mask.as_ref(),
            omit.as_ref(),
            true,
        )
    }

    /// Every element the ray hits, nearest first.
    #[napi(
        catch_unwind,
        ts_args_type = "ox: number, oy: number, oz: number, dx: number, dy: number, dz: number, maxLength: number, mask?: number | null"
    )]
    #[allow(clippy::too_many_arguments)]
    pub fn ray_cast_all(
        &self,
        env: &Env,
        ox: Unknown<'_>,
        oy: Unknown<'_>,
        oz: Unknown<'_>,
        dx: Unknown<'_>,
        dy: Unknown<'_>,
        dz: Unknown<'_>,
        max_length: Unknown<'_>,
        mask: Option<Unknown<'_>>,
    ) -> napi::Result<Vec<RayHit>> {
        self.index.ray_cast_all(
            env,
            &[&ox, &oy, &oz],
            &[&dx, &dy, &dz],
            &max_length,
            mask.as_ref(),
        )
    }

    /// Calls `callback(hit)` for each hit in `rayCastAll`'s order: nothing or
    /// `true` goes on, `false` stops, a number shortens the ray to that length.
    /// An exception thrown by the callback propagates.
    #[napi(
        catch_unwind,
        ts_args_type = "ox: number, oy: number, oz: number, dx: number, dy: number, dz: number, maxLength: number, callback: (hit: RayHit) => boolean | number | void, mask?: number | null"
    )]
    #[allow(clippy::too_many_arguments)]
    pub fn ray_cast_with(
        &self,
        env: &Env,
        ox: Unknown<'_>,
        oy: Unknown<'_>,
        oz: Unknown<'_>,
        dx: Unknown<'_>,
        dy: Unknown<'_>,
        dz: Unknown<'_>,
        max_length: Unknown<'_>,
        callback: Unknown<'_>,
        mask: Option<Unknown<'_>>,
    ) -> napi::Result<()> {
        self.index.ray_cast_with(
            env,
            &[&ox, &oy, &oz],
            &[&dx, &dy, &dz],
            &max_length,
            callback,
            mask.as_ref(),
        )
    }

    /// The element's box (as 32-bit floats: what the octree stores).
    #[napi(catch_unwind, ts_args_type = "handle: Handle")]
    pub fn rect_of(&self, env: &Env, handle: Unknown<'_>) -> napi::Result<Box3> {
        self.index.rect_of(env, &handle, box3)
    }
}

common_methods!(Octree, flatquad::Octree);
