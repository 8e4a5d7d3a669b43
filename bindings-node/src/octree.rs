//! The JavaScript `Octree`: the core's octree in an [`Index`]. Its methods
//! come from [`methods!`], with the 3D coordinate names; here are only the
//! constructor and the getters of its parameters.

use napi::bindgen_prelude::{AsyncTask, Buffer, This};
use napi::{Env, Unknown};
use napi_derive::napi;

use crate::args;
use crate::index::{Index, Later, Now, Promised};
use crate::methods::methods;
use crate::objects::{
    Box3, Filter, NearestManyResult, Neighbor, NodeInfo3, Nodes, QueryManyResult,
    RayCastManyResult, RayHit, Stats, WrittenRows,
};
use crate::typed::{Typed, Written};

/// An octree over boxes `[x1, x2] × [y1, y2] × [z1, z2]`: the quadtree in 3D,
/// with the same methods, each taking 6 coordinates per box (batches: 6
/// numbers per box in a `Float32Array`, read in place, or a `Float64Array`).
/// Results are exact for 32-bit floats; touching counts.
#[napi]
pub struct Octree {
    index: Index<flatquad::Octree>,
}

impl crate::index::JsClass for Octree {
    type Held = flatquad::Octree;
    const NAME: &'static str = "Octree";
    fn inner(&self) -> &Index<flatquad::Octree> {
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
                use flatquad::Octree as Core;
                let defaults = [Core::DEFAULT_MAX_ELEMENTS, Core::DEFAULT_MAX_DEPTH];
                let [max_elements, max_depth] = args::tree_options(options.as_ref(), defaults)?;
                Ok(Core::new(world, max_elements, max_depth))
            },
        )?;
        Ok(Octree { index })
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
}

methods! {
    class: Octree,
    core: flatquad::Octree,
    kind: "'Octree'",
    boxes: Box3,
    nodes: NodeInfo3,
    traverse: "callback: (node: NodeInfo3) => boolean | void",
    corners: [x1, y1, z1, x2, y2, z2],
    point: [x, y, z],
    origin: [ox, oy, oz],
    direction: [dx, dy, dz],
}
