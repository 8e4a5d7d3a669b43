//! The short churn (flatquad-testkit's `churn`): a steady population under
//! mixed operations, on every structure; `make churn` runs 10^7 operations
//! each and watches the process's RSS too.

use flatquad::{Box3, Grid, LooseGrid, LooseQuadtree, Octree, Quadtree, Rect, SpatialIndex};
use flatquad_testkit::{churn, flat_after_warm_up, Lcg};

/// `stats().bytes` stays flat after warm-up on every structure.
#[test]
fn memory_stays_flat_under_churn() {
    fn check<T: SpatialIndex>(mut index: T) {
        let mut bytes = Vec::new();
        churn(&mut index, &mut Lcg(5), 500_000, 10_000, 20, |done, t| {
            bytes.push((done, t.stats().bytes))
        });
        index.validate().unwrap();
        if let Err(e) = flat_after_warm_up(&bytes, 4096) {
            panic!("{}: {e}\n{bytes:?}", core::any::type_name::<T>());
        }
    }
    let world = Rect::new(0.0, 0.0, 1024.0, 1024.0);
    check(Quadtree::for_world(world).unwrap());
    check(Grid::new(world, 64, 64).unwrap());
    check(LooseGrid::for_world(world).unwrap());
    check(LooseQuadtree::for_world(world).unwrap());
    check(LooseQuadtree::with_max_extent(world, 8, 8, 64.0).unwrap());
    check(Octree::for_world(Box3::new(0.0, 0.0, 0.0, 1024.0, 1024.0, 1024.0)).unwrap());
}
