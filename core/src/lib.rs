//! # flatquad
//!
//! Spatial indexes for broad-phase collision detection and region queries over
//! many moving 2D rectangles (and 3D boxes): 100,000+ elements moved and
//! collided every frame on one core, with results exact for `f32` input.
//!
//! Every structure has the same API, the [`SpatialIndex`] trait:
//!
//! - [`Quadtree`]: the flat quadtree — 8-byte nodes in one array, four siblings
//!   allocated together, node rectangles computed on the way down, elements
//!   stored once and chained into leaves, free lists everywhere, lazy cleanup.
//! - [`Grid`]: a uniform grid, each cell one list head; for many elements of
//!   similar size.
//! - [`LooseGrid`]: the loose/tight double grid; every element in exactly one
//!   loose cell, whose box grows and shrinks around its elements.
//! - [`LooseQuadtree`]: the loose quadtree; every element in exactly one leaf,
//!   by its centre, each node with a box that grows and shrinks around what
//!   lies below it.
//! - [`Octree`]: the quadtree in 3D over [`Box3`] boxes, eight siblings a
//!   block; the same code ([`FlatTree`], generic over its [`Dimension`]).
//! - [`AnyIndex`] and [`AnyIndex3`]: any of the 2D ones, any of the 3D ones, chosen at run time.
//!
//! ```
//! use core::ops::ControlFlow;
//! use flatquad::{Quadtree, Rect, SpatialIndex};
//!
//! let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 1024.0, 1024.0), 8, 8)?;
//! let handles: Vec<_> = (0..100)
//!     .map(|i| {
//!         let x = (i % 10) as f32 * 10.0;
//!         let y = (i / 10) as f32 * 10.0;
//!         tree.insert(Rect::new(x, y, x + 10.0, y + 10.0), i)
//!     })
//!     .collect::<Result<_, _>>()?;
//!
//! // Each frame: move, clean up, collide.
//! for &h in &handles {
//!     let r = tree.rect(h)?;
//!     tree.update(h, Rect::new(r.x1 + 0.5, r.y1, r.x2 + 0.5, r.y2))?;
//! }
//! tree.cleanup();
//! let mut overlapping = 0;
//! let _ = tree.pairs_with(|_, _| {
//!     overlapping += 1;
//!     ControlFlow::Continue(())
//! });
//! assert_eq!(overlapping, 342); // 10×10 touching squares: 2·9·10 edges + 2·81 corners
//! # Ok::<(), flatquad::Error>(())
//! ```
#![warn(missing_docs)]

mod axis;
mod batch_order;
mod big;
mod blocks;
mod bounds;
mod box3;
mod dimension;
mod error;
mod filter;
mod flat_tree;
mod grid;
mod handle;
mod index;
mod links;
mod loose_grid;
mod loose_quadtree;
mod rect;
mod slots;
#[cfg(test)]
mod test_lcg;
mod tree_lines;

pub use bounds::Bounds;
pub use box3::Box3;
pub use dimension::{Dim2, Dim3, Dimension};
pub use error::{Error, ErrorKind};
pub use filter::Filter;
pub use flat_tree::{FlatTree, Octree, Quadtree};
pub use grid::Grid;
pub use handle::Handle;
pub use index::{
    join, AnyIndex, AnyIndex3, BoxCast, Kind, Neighbor, NodeInfo, PairTracker, Query, QueryColumns,
    Ray, RayControl, RayHit, Shape, SpatialIndex, Stats,
};
pub use loose_grid::LooseGrid;
pub use loose_quadtree::LooseQuadtree;
pub use rect::Rect;

/// **Testing only** (for the thread-equivalence tests): from this many items
/// (elements, moves or queries), every parallel call takes rayon's threads,
/// in place of the sizes measured to pay on them; 0 restores those. For the
/// whole process: a call's result never depends on it, only which path
/// gives the result.
#[doc(hidden)]
#[cfg(feature = "rayon")]
pub fn parallel_from_for_tests(size: usize) {
    index::parallel::set_parallel_from(size);
}

/// **Testing only** (for the bindings' panic tests): panics on a worker
/// thread of rayon's global pool, the pool the batch calls run on, which
/// hands the panic back to the calling thread as it would a batch call's.
/// Called from outside the pool, `join` runs its work on the pool's threads;
/// returns, without panicking, only if that work ran on the calling thread
/// instead, so a test can tell.
#[doc(hidden)]
#[cfg(feature = "rayon")]
pub fn panic_on_a_worker_for_tests() {
    rayon::join(
        || (),
        || {
            if rayon::current_thread_index().is_some() {
                panic!("deliberate test panic on a worker thread");
            }
        },
    );
}

/// **Testing only** (for the Python and Node panic tests): panics, on the
/// calling thread or (`on_worker`) on a worker thread through
/// [`panic_on_a_worker_for_tests`], with a message saying which ("... on the
/// calling thread" if the worker's work ran on the caller after all).
#[doc(hidden)]
#[cfg(feature = "rayon")]
pub fn panic_for_tests(on_worker: bool) -> ! {
    if on_worker {
        panic_on_a_worker_for_tests();
        panic!("deliberate test panic on the calling thread");
    }
    panic!("deliberate test panic")
}

/// The crate README's examples, compiled and run as doc tests (the README is
/// inside the package, so the published crate's doc tests pass too; the
/// repository's README is tested by flatquad-bench).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
