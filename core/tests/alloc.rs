//! A frame of the agents workload makes no heap allocation once the structure
//! is warm, for every structure.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::ops::ControlFlow;

#[macro_use]
mod common;

use common::{Lcg, Subject};
use flatquad::{
    Bounds, Box3, Grid, Handle, LooseGrid, LooseQuadtree, Octree, PairTracker, Quadtree, Query,
    Rect, SpatialIndex,
};

/// Counts the allocations of the current thread only, so other tests running
/// at the same time cannot disturb the count.
struct CountingAllocator;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator; only adds a thread-local counter.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

fn allocations() -> usize {
    ALLOCATIONS.with(|n| n.get())
}

struct Agent {
    at: [f32; 3],
    velocity: [f32; 3],
    handle: Handle,
}

const N: usize = 20_000;
const SIZE: f32 = 4.0;

/// The agents workload of `docs/workload.md` at 20,000 agents, in 2D
/// (a 2048 world) or 3D (256³, about as crowded): moves (one by one, or all
/// at once every other frame), cleanup, all pairs into a reused `Vec`, every
/// agent's neighbours by `overlapping_many` into reused `Vec`s, a query per
/// agent into a reused `Vec`, and the frame's contact events ([`PairTracker`]).
fn a_warm_frame_allocates_nothing<T: SpatialIndex>(make: fn(T::Bounds) -> T) {
    let axes = <T::Bounds as Bounds>::AXES;
    let world = if axes == 2 { 2048.0 } else { 256.0 };
    let mut tree = make(T::Bounds::from_corners([0.0; 3], [world; 3]));
    let mut rng = Lcg(12345); // docs/workload.md's generator and seed
    let mut f = || rng.unit();
    let cube = |at: &[f32; 3]| T::Bounds::from_corners(*at, at.map(|v| v + SIZE));
    let mut agents: Vec<Agent> = (0..N)
        .map(|i| {
            let (mut at, mut velocity) = ([0.0; 3], [0.0; 3]);
            at[..axes]
                .iter_mut()
                .for_each(|v| *v = f() * (world - SIZE));
            velocity[..axes]
                .iter_mut()
                .for_each(|v| *v = f() * 2.0 - 1.0);
            let handle = tree.insert(cube(&at), i as u32).unwrap();
            Agent {
                at,
                velocity,
                handle,
            }
        })
        .collect();
    let mut pairs = Vec::new();
    let mut hits = Vec::new();
    let (mut offsets, mut neighbours) = (Vec::new(), Vec::new());
    let handles: Vec<Handle> = agents.iter().map(|a| a.handle).collect();
    let mut rects = Vec::with_capacity(N);
    let mut tracker = PairTracker::new();
    let mut count = 0;
    let mut frame = |tree: &mut T| {
        count += 1;
        rects.clear();
        for a in agents.iter_mut() {
            for axis in 0..axes {
                let (v, dv) = (&mut a.at[axis], &mut a.velocity[axis]);
                *v += *dv;
                if *v < 0.0 {
                    *v = 0.0;
                    *dv = -*dv;
                }
                if *v > world - SIZE {
                    *v = world - SIZE;
                    *dv = -*dv;
                }
            }
            let r = cube(&a.at);
            if count % 2 == 0 {
                tree.update(a.handle, r).unwrap();
            } else {
                rects.push(r);
            }
        }
        if count % 2 == 1 {
            tree.update_many(&handles, &rects).unwrap();
        }
        tree.cleanup();
        tree.pairs(&mut pairs);
        tree.overlapping_many(&handles, &mut offsets, &mut neighbours)
            .unwrap();
        assert_eq!(offsets.len(), N + 1);
        assert_eq!(neighbours.len(), 2 * pairs.len());
        let mut per_agent = 0;
        for a in &agents {
            let rect = tree.rect(a.handle).unwrap();
            tree.query(&Query::rect(rect).omit(a.handle), &mut hits)
                .unwrap();
            per_agent += hits.len();
            let _ = tree.visit(&Query::rect(rect).omit(a.handle), |_| {
                ControlFlow::Continue(())
            });
        }
        assert_eq!(per_agent, 2 * pairs.len());
        // Contact events: the tracker's own pair set matches the walk's.
        let before = tracker.pair_count();
        let (began, ended) = tracker.update(tree);
        assert_eq!(before + began.len() - ended.len(), pairs.len());
        assert_eq!(tracker.pair_count(), pairs.len());
        pairs.len()
    };
    // Warm-up: the pools and the result `Vec`s grow until the workload's
    // high-water marks are reached (in 2D within the first ~10 frames, in 3D
    // by frame 31, and after frame 40 with a margin's fatter boxes; 200
    // frames were watched when this test was written and none allocated
    // after that).
    let warm_up = if axes == 2 { 20 } else { 80 };
    for _ in 0..warm_up {
        frame(&mut tree);
    }
    let before = allocations();
    let mut found = 0;
    for _ in 0..30 {
        found += frame(&mut tree);
    }
    assert_eq!(allocations() - before, 0, "allocations in 30 warm frames");
    assert!(found > 0, "the workload collides");
    // The counter does count: growing a Vec is seen.
    let before = allocations();
    let grown: Vec<u64> = Vec::with_capacity(1);
    drop(grown);
    assert_eq!(allocations() - before, 1);
}

#[test]
fn a_warm_octree_frame_allocates_nothing() {
    a_warm_frame_allocates_nothing(|world| Octree::new(world, 8, 6).unwrap());
}

/// The 2D structures through [`per_structure!`].
fn a_warm_2d_frame_allocates_nothing<T: Subject>(make: fn(Rect) -> T) {
    a_warm_frame_allocates_nothing(make)
}

// Cells about four agent sides for the grid, eight for the loose grid (the
// sizes each was measured fastest with).
per_structure! {
    quadtree: |world| Quadtree::new(world, 8, 9),
    grid: |world| Grid::new(world, 128, 128),
    loose_grid: |world| LooseGrid::new(world, 64, 64, 32, 32),
    loose_quadtree: |world| LooseQuadtree::new(world, 8, 9);
    a_warm_2d_frame_allocates_nothing,
}

/// Fat bounds keep the frame free of allocations (moves inside the fat boxes
/// write the own boxes only; the others are refiled as without a margin).
#[test]
fn a_warm_grid_frame_with_a_margin_allocates_nothing() {
    a_warm_frame_allocates_nothing(|world| {
        Grid::new(world, 128, 128)
            .unwrap()
            .with_margin(SIZE / 2.0)
            .unwrap()
    });
}

#[test]
fn a_warm_quadtree_frame_with_a_margin_allocates_nothing() {
    a_warm_frame_allocates_nothing(|world| {
        Quadtree::new(world, 8, 9)
            .unwrap()
            .with_margin(SIZE / 2.0)
            .unwrap()
    });
}

#[test]
fn a_warm_octree_frame_with_a_margin_allocates_nothing() {
    a_warm_frame_allocates_nothing(|world| {
        Octree::new(world, 8, 6)
            .unwrap()
            .with_margin(SIZE / 2.0)
            .unwrap()
    });
}

/// A nearest query the squares settle allocates nothing once `out` has
/// grown (the descent's node stack is only reserved when it runs): on every
/// structure that takes squares, at random points over a field of boxes.
/// (A query the squares leave to the descent allocates its node stack: this
/// fails if tuning ever leaves one of these typical queries to it.)
#[test]
fn nearest_by_squares_allocates_nothing() {
    /// 20,000 boxes of side `SIZE` over `index`'s world (a cube of side
    /// `side` from the origin), then 1,000 searches at random points with k
    /// from 1 to `most` (the trees' square limits).
    fn check<T: SpatialIndex>(mut index: T, side: f32, most: usize) {
        let mut lcg = Lcg(9);
        let mut corner = || [lcg.unit() * side, lcg.unit() * side, lcg.unit() * side];
        for id in 0..N as u32 {
            let lo = corner();
            let b = T::Bounds::from_corners(lo, lo.map(|v| v + SIZE));
            index.insert(b, id).unwrap();
        }
        let points: Vec<_> = (0..1_000)
            .map(|_| {
                let p = corner();
                T::Bounds::from_corners(p, p).low_corner()
            })
            .collect();
        let mut out = Vec::with_capacity(16);
        let before = allocations();
        for (i, &p) in points.iter().enumerate() {
            index
                .nearest(p, 1 + i % most, None, u32::MAX, &mut out)
                .unwrap();
            assert!(!out.is_empty());
        }
        let name = std::any::type_name::<T>();
        assert_eq!(
            allocations() - before,
            0,
            "{name}: allocations in 1,000 nearest"
        );
    }
    let world = Rect::new(0.0, 0.0, 2048.0, 2048.0);
    check(Grid::new(world, 128, 128).unwrap(), 2048.0, 10);
    check(LooseGrid::new(world, 64, 64, 32, 32).unwrap(), 2048.0, 10);
    check(Quadtree::new(world, 8, 9).unwrap(), 2048.0, 10);
    let cube = Box3::new(0.0, 0.0, 0.0, 256.0, 256.0, 256.0);
    check(Octree::new(cube, 8, 6).unwrap(), 256.0, 6);
}
