//! The C ABI of flatquad: `libflatquad.so` / `libflatquad.a`, described by the
//! generated header `include/flatquad.h`.
//!
//! This crate only converts and maps errors; every algorithm lives in the core
//! crate. One opaque type, `qt_tree`, holds any 2D structure (the core's
//! `AnyIndex`), and `qt_octree` the octree. The call bodies are written once,
//! in `shared`, generic over both (`types::Shell`); the exported 2D functions
//! in `tree`, `inspect`, `query`, `filter`, `search` and `tracker` each call
//! one of them, and their octree twins in `octree_calls` are generated from
//! them (`tests/octree_calls.rs`). Each structure adds its constructors and
//! parameter getters (`quadtree`, `grid`, `loose_grid`, `loose_quadtree`,
//! `octree`). `tracker` holds `qt_tracker`, the contact events of either tree
//! type. The conventions follow rustls-ffi:
//!
//! - `qt_tree` is opaque; functions that do not change the tree take a `const`
//!   pointer, and `qt_destroy(NULL)` does nothing.
//! - Fallible calls return a [`qt_status`] (explicit values, never reused) and
//!   write their out-parameters only when they return `QT_OK`.
//! - Every body runs inside [`boundary::guard`], which turns a Rust panic into
//!   `QT_PANIC`; every pointer goes through [`boundary::non_null`].
//! - Arrays come out through a caller buffer, its capacity and the total found
//!   (like `snprintf`), or through a callback with `void *user_data`.
#![allow(non_camel_case_types)]
// Pointer rules are stated once, in the header's preamble (cbindgen.toml), and
// each function's doc says which pointers may be NULL.
#![allow(clippy::missing_safety_doc)]

// Declared in the order the header shows them (rustfmt sorts only within a group).
mod version;

mod status;

mod types;

mod quadtree;

mod grid;

mod loose_grid;

mod loose_quadtree;

mod octree;

mod octree_calls;

mod tree;

mod inspect;

mod query;

mod join;

mod filter;

mod search;

mod tracker;

mod boundary;

mod shared;

pub use boundary::qt_test_panic;
pub use filter::*;
pub use grid::*;
pub use inspect::*;
pub use join::*;
pub use loose_grid::*;
pub use loose_quadtree::*;
pub use octree::*;
pub use octree_calls::*;
pub use quadtree::*;
pub use query::*;
pub use search::*;
pub use status::*;
pub use tracker::*;
pub use tree::*;
pub use types::*;
pub use version::*;
