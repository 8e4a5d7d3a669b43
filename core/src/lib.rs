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
mod huge_pages;
mod index;
mod links;
mod loose_grid;
mod loose_quadtree;
mod rect;
mod slots;
#[cfg(test)]
mod test_lcg;
#[cfg(test)]
mod test_pairs;
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

/// Makes the calling thread thread 0 of rayon's global pool, the pool the
/// batch calls run on, beside n - 1 workers, n being `RAYON_NUM_THREADS` (or
/// the deprecated `RAYON_RS_NUM_CPUS`), else the number of CPUs; returns
/// whether the calling thread is that thread 0, by this call or an earlier
/// one.
///
/// For a program that makes its batch calls from one thread of its own, such
/// as a binding's: a call from outside the pool hands its work to the pool as
/// a job and waits, and a worker that has gone to sleep between two calls
/// takes 47-80 µs to wake (17 µs when the calls come back to back). From
/// thread 0 the work starts on the calling thread at once and the other
/// threads steal from it, as for a call made inside
/// [`rayon::ThreadPool::install`].
///
/// Returns `false` where the global pool was already built (by an earlier
/// call of another thread, or by any use of it), where the calling thread
/// belongs to a pool already, or where n is 1: thread 0 runs no loop of its
/// own, so a job another thread gave that pool would wait until thread 0 next
/// entered it (flatquad's own calls stay on their caller with one thread).
/// Where the pool's threads cannot be started it returns `false`, and rayon
/// (1.13) has made its one attempt at the global pool: the calling thread
/// stays its thread 0 and answers its own calls alone, and other threads'
/// parallel calls panic, as they would have had the default build failed.
///
/// Keep the thread alive while the process uses flatquad, and make it the one
/// that calls most. Other threads' calls get the n - 1 workers, and thread 0
/// while it waits inside a call of its own, which may then run such a call
/// whole before its own returns. `rayon::broadcast` on the global pool from
/// another thread waits until thread 0 enters the pool.
#[cfg(feature = "rayon")]
pub fn join_global_pool() -> bool {
    index::parallel::join_global_pool()
}

/// **Testing only** (for the bindings' panic tests): panics on a worker
/// thread of rayon's global pool, the pool the batch calls run on, which
/// hands the panic back to the calling thread as it would a batch call's.
/// Called from outside the pool, `join` runs both halves on the pool's
/// threads; called from the pool's thread 0 ([`join_global_pool`]), the half
/// that runs on the caller waits (up to 10 s) until the other has started on
/// another thread. Returns, without panicking, only if the panicking half ran
/// on the calling thread after all, so a test can tell.
#[doc(hidden)]
#[cfg(feature = "rayon")]
pub fn panic_on_a_worker_for_tests() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let caller = std::thread::current().id();
    let started = AtomicBool::new(false);
    rayon::join(
        || {
            if std::thread::current().id() == caller {
                let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
                while !started.load(Ordering::Acquire) && std::time::Instant::now() < until {
                    std::hint::spin_loop();
                }
            }
        },
        || {
            if std::thread::current().id() != caller && rayon::current_thread_index().is_some() {
                started.store(true, Ordering::Release);
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

#[doc(hidden)]
pub use index::finish_moves::panic_message;

/// **Testing only** (for the bindings' tests of moves a panic stops):
/// [`SpatialIndex::update_many`] of `handles` to `rects`, checked as it
/// checks them, whose moves panic after the first `at` are made (on the
/// calling thread), then on a worker thread when `on_worker`
/// ([`panic_for_tests`]), as a bug would. The moves
/// are then finished as after any such panic: the call returns
/// [`Error::Panicked`] and every element is at its new box.
///
/// # Errors
/// As [`SpatialIndex::update_many`], and [`Error::Panicked`] for the panic.
#[doc(hidden)]
#[cfg(feature = "rayon")]
pub fn update_many_panicking_for_tests<T: SpatialIndex>(
    index: &mut T,
    handles: &[Handle],
    rects: &[T::Bounds],
    at: usize,
    on_worker: bool,
) -> Result<(), Error> {
    index::check_lengths(handles.len(), rects.len())?;
    index::check_moves(index, handles, rects, 0)?;
    let at = at.min(handles.len());
    index::finish_moves::finish_on_panic(index, handles, rects, |index| {
        index.relocate_many(&handles[..at], &rects[..at]);
        panic_for_tests(on_worker)
    })
}

/// The crate README's examples, compiled and run as doc tests (the README is
/// inside the package, so the published crate's doc tests pass too; the
/// repository's README is tested by flatquad-bench).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
