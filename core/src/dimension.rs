//! What the flat tree needs to know about its dimension: the box type, the
//! per-axis arrays, and the constants that differ between the quadtree (2D,
//! four children) and the octree (3D, eight). Everything else is written once,
//! over [`Dimension`].

use crate::index::Kind;
use crate::{Bounds, Box3, Rect};

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Dim2 {}
    impl Sealed for super::Dim3 {}
}

/// The dimension of a [`FlatTree`](crate::FlatTree): [`Dim2`] (the
/// [`Quadtree`](crate::Quadtree)) or [`Dim3`] (the [`Octree`](crate::Octree)).
/// Sealed.
pub trait Dimension:
    sealed::Sealed + Copy + Clone + core::fmt::Debug + Default + Send + Sync + 'static
{
    /// The elements' box.
    type Bounds: Bounds;
    /// A cell's integer coordinates, one per axis.
    type Coords: Copy
        + core::fmt::Debug
        + Default
        + PartialEq
        + AsRef<[u32]>
        + AsMut<[u32]>
        + Send
        + Sync;
    /// An `f32` per axis (a split point, a cell's size).
    type Values: Copy + core::fmt::Debug + Default + AsRef<[f32]> + AsMut<[f32]> + Send + Sync;
    /// A zero-sized field that gives the tree's slot its alignment.
    type SlotAlign: Copy + core::fmt::Debug + Default + PartialEq + Send + Sync;
    /// The root's coordinates: all zero.
    const ORIGIN: Self::Coords;
    /// Axes: 2 or 3.
    const AXES: usize = <Self::Bounds as Bounds>::AXES;
    /// Children of a branch: 4 or 8.
    const CHILDREN: u32 = 1 << Self::AXES;
    /// Bits of each coordinate in a place (see `lines::Place`).
    const PLACE_COORD_BITS: u32;
    /// The snapshot tag.
    const TAG: u32;
    /// The type's name, for `Debug` and errors.
    const NAME: &'static str;
    /// The default `max_depth` of `for_world`.
    const DEFAULT_MAX_DEPTH: u32;
}

/// Two dimensions: the [`Quadtree`](crate::Quadtree).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Dim2;

/// Three dimensions: the [`Octree`](crate::Octree).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Dim3;

/// Aligns the quadtree's 32-byte slot to 32 bytes, so a slot never straddles
/// two cache lines.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(align(32))]
pub struct Align32;

impl Dimension for Dim2 {
    type Bounds = Rect;
    type Coords = [u32; 2];
    type Values = [f32; 2];
    type SlotAlign = [Align32; 0];
    const ORIGIN: [u32; 2] = [0; 2];
    const PLACE_COORD_BITS: u32 = 12;
    const TAG: u32 = Kind::Quadtree as u32;
    const NAME: &'static str = "Quadtree";
    const DEFAULT_MAX_DEPTH: u32 = 8;
}

impl Dimension for Dim3 {
    type Bounds = Box3;
    type Coords = [u32; 3];
    type Values = [f32; 3];
    // 36 bytes unaligned: padding to 64 would cost more memory than the
    // occasional split cache line costs time.
    type SlotAlign = ();
    const ORIGIN: [u32; 3] = [0; 3];
    const PLACE_COORD_BITS: u32 = 8;
    const TAG: u32 = Kind::Octree as u32;
    const NAME: &'static str = "Octree";
    const DEFAULT_MAX_DEPTH: u32 = 6;
}
