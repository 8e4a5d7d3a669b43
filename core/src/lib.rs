//! # flatquad
//!
//! A flat, cache-friendly quadtree for broad-phase collision detection and region
//! queries over many moving 2D rectangles: 100,000+ elements moved and collided
//! every frame on one core, with results exact for `f32` input.
//!
//! The design follows the "flat quadtree": 8-byte nodes in one array, four
//! siblings allocated together, node rectangles computed on the way down from
//! the root's, elements stored once and chained into leaves by small links, free
//! lists everywhere, lazy cleanup. See [`Quadtree`] for the whole API.
//!
//! ```
//! use core::ops::ControlFlow;
//! use flatquad::{Quadtree, Rect};
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
//! tree.pairs_with(|_, _| {
//!     overlapping += 1;
//!     ControlFlow::Continue(())
//! });
//! assert_eq!(overlapping, 342); // 10×10 touching squares: 2·9·10 edges + 2·81 corners
//! # Ok::<(), flatquad::Error>(())
//! ```
#![warn(missing_docs)]

mod cell;
mod error;
mod handle;
#[cfg(feature = "rayon")]
mod parallel;
mod pool;
mod query;
mod serialize;
mod traverse;
mod tree;
mod validate;

pub use error::Error;
pub use handle::Handle;
pub use rect::Rect;
pub use traverse::{NodeInfo, Stats};
pub use tree::Quadtree;

mod rect;

#[cfg(test)]
mod tests;

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
