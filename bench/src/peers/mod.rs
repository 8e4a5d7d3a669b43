//! The peer libraries flatquad is measured against (feature `peers`), each behind the
//! same [`crate::Index`] trait and each checked against the same checksums.
//!
//! | peer | update | all-pairs | per-agent | rect and point queries (static) |
//! |---|---|---|---|---|
//! | [`broccoli`] | refill the slice, rebuild the tree | `find_colliding_pairs` | — | `find_all_intersect_rect`, widened, + exact test |
//! | [`parry2d`] `Bvh` (and [`parry3d`]'s in 3D) | `insert_or_update_partially`, `refit`, `optimize_incremental` | `traverse_bvtt_single_tree` | `intersect_aabb` | `intersect_aabb` |
//! | [`rstar`] (2D or 3D envelopes) | `bulk_load` | `intersection_candidates_with_other_tree` | `locate_in_envelope_intersecting` | `locate_in_envelope_intersecting` |
//! | [`flat_spatial`] `AABBGrid` | `set_aabb` | — | `query_broad_visitor` + exact test | `query_broad_visitor` + exact test |
//! | Box2D v3 `b2DynamicTree` ([`boxdd_sys`]) | fat boxes, `b2DynamicTree_MoveProxy` when a box leaves its fat box | moved proxies' `b2DynamicTree_Query` into a pair set, + exact test | `b2DynamicTree_Query` + exact test | `b2DynamicTree_Query` + exact test |
//!
//! Bytes held ([`crate::Index::bytes`]): parry2d's `total_memory_size`, broccoli's
//! element slice (its tree data, a few nodes, left out), Box2D's
//! `b2DynamicTree_GetByteCount` plus the adapter's boxes and pair set; rstar and
//! flat_spatial do not tell.

mod box2d_index;
mod broccoli_index;
mod flat_spatial_index;
mod parry_index;
mod rstar_index;

pub use box2d_index::Box2dIndex;
pub use broccoli_index::BroccoliIndex;
pub use flat_spatial_index::FlatSpatialIndex;
pub use parry_index::{Parry3dIndex, ParryIndex};
pub use rstar_index::{Rstar3dIndex, RstarIndex};

use crate::Index;

/// The peers of the 3D scenario (parry3d's `Bvh` and rstar with 3D
/// envelopes, used as their 2D versions are), freshly made.
pub fn all_3d() -> Vec<Box<dyn Index>> {
    vec![Box::new(Parry3dIndex::new()), Box::new(Rstar3dIndex::new())]
}

/// Every 2D peer, freshly made, for agents of (typical) side `size`.
pub fn all(size: f32) -> Vec<Box<dyn Index>> {
    vec![
        Box::new(BroccoliIndex::new()),
        Box::new(Box2dIndex::for_size(size)),
        Box::new(ParryIndex::new()),
        Box::new(RstarIndex::<2>::new()),
        Box::new(FlatSpatialIndex::new(
            size,
            FlatSpatialIndex::DEFAULT_FACTOR,
        )),
    ]
}
