//! Unit tests of the loose grid's internals and its parameters; the random
//! operations against brute force are in `tests/loose_grid.rs`.

use std::ops::ControlFlow;

use crate::index::SpatialIndex;
use crate::loose_grid::LooseGrid;
use crate::{Error, Handle, Rect};

/// flatquad-testkit's LCG (the same draws), so these tests need no dependency.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) as u32
    }
    /// In `[0, 1)`.
    fn unit(&mut self) -> f32 {
        (self.next() >> 8) as f32 / 16_777_216.0
    }
}

/// A pair as `(lower, higher)`.
fn ordered((a, b): (Handle, Handle)) -> (Handle, Handle) {
    if a < b {
        (a, b)
    } else {
        (b, a)
    }
}

#[test]
fn parameters_are_checked() {
    let world = Rect::new(0.0, 0.0, 100.0, 100.0);
    let refused = |r: Result<LooseGrid, Error>| {
        assert!(matches!(r, Err(Error::InvalidParameter { .. })), "{r:?}")
    };
    refused(LooseGrid::new(world, 0, 4, 1, 1));
    refused(LooseGrid::new(world, 4, 0, 1, 1));
    refused(LooseGrid::new(world, 4, 4, 0, 1));
    refused(LooseGrid::new(world, 4, 4, 5, 1)); // tight finer than loose
    refused(LooseGrid::new(world, 4, 4, 1, 5));
    refused(LooseGrid::new(world, 1 << 17, 1, 1, 1));
    refused(LooseGrid::new(world, 1 << 16, 1 << 11, 1, 1)); // 2^27 cells
    refused(LooseGrid::with_cell_size(world, 0.0));
    refused(LooseGrid::with_cell_size(world, -1.0));
    refused(LooseGrid::with_cell_size(world, f32::NAN));
    refused(LooseGrid::with_cell_size(world, 1e-6));
    assert!(matches!(
        LooseGrid::new(Rect::new(0.0, 0.0, 0.0, 1.0), 1, 1, 1, 1),
        Err(Error::InvalidWorld(_))
    ));
    assert!(LooseGrid::for_world(Rect::new(f32::MIN, 0.0, f32::MAX, 1.0)).is_err());
    let grid = LooseGrid::for_world(world).unwrap();
    assert_eq!((grid.columns(), grid.rows()), (100, 100));
    assert_eq!((grid.tight_columns(), grid.tight_rows()), (50, 50));
    let grid = LooseGrid::for_world(Rect::new(-3.0, 10.0, 5.0, 10.5)).unwrap();
    assert_eq!((grid.columns(), grid.rows()), (100, 7));
    let grid = LooseGrid::with_cell_size(world, 30.0).unwrap();
    assert_eq!((grid.columns(), grid.rows()), (4, 4));
    assert_eq!((grid.tight_columns(), grid.tight_rows()), (2, 2));
    let grid = LooseGrid::new(world, 1 << 16, 1 << 10, 1, 1).unwrap();
    assert_eq!(grid.columns(), 1 << 16);
}

#[test]
fn big_elements_cost_one_entry() {
    let world = Rect::new(0.0, 0.0, 1000.0, 1000.0);
    let mut grid = LooseGrid::new(world, 100, 100, 50, 50).unwrap();
    let links = grid.stats().element_links;
    let h = grid.insert(Rect::new(-1e9, -1e9, 1e9, 1e9), 0).unwrap();
    assert_eq!(grid.big_len(), 1);
    assert_eq!(grid.stats().element_links, links);
    // Eight cells wide is still small; a hair more is big.
    grid.update(h, Rect::new(0.0, 0.0, 80.0, 80.0)).unwrap();
    assert_eq!(grid.big_len(), 0);
    grid.update(h, Rect::new(0.0, 0.0, 80.001, 1.0)).unwrap();
    assert_eq!(grid.big_len(), 1);
    grid.validate().unwrap();
}

#[test]
fn boxes_shrink_at_cleanup_and_cells_leave_tight_cells() {
    let world = Rect::new(0.0, 0.0, 100.0, 100.0);
    let mut grid = LooseGrid::new(world, 10, 10, 10, 10).unwrap();
    // Centre in cell (0, 0), reaching into three other cells.
    let h = grid.insert(Rect::new(5.0, 5.0, 14.0, 14.0), 0).unwrap();
    let listed = |g: &LooseGrid| g.stats().element_links - (g.len() - g.big_len());
    assert_eq!(listed(&grid), 4);
    grid.update(h, Rect::new(1.0, 1.0, 3.0, 3.0)).unwrap();
    assert_eq!(listed(&grid), 4); // not shrunk yet
    grid.cleanup();
    assert_eq!(listed(&grid), 1);
    grid.remove(h).unwrap();
    grid.cleanup();
    assert_eq!(listed(&grid), 0);
    grid.validate().unwrap();
}

#[test]
fn a_batch_lays_out_each_cell_in_slot_order() {
    let world = Rect::new(0.0, 0.0, 64.0, 64.0);
    let mut grid = LooseGrid::new(world, 8, 8, 4, 4).unwrap();
    let mut rng = Lcg(7);
    let rects: Vec<Rect> = (0..1000)
        .map(|_| {
            let (x, y) = (rng.unit() * 63.0, rng.unit() * 63.0);
            Rect::new(x, y, x + 1.0, y + 1.0)
        })
        .collect();
    let ids: Vec<u32> = (0..1000).collect();
    let mut handles = Vec::new();
    grid.insert_many(&rects, &ids, &mut handles).unwrap();
    for (h, &r) in handles.iter().zip(&rects) {
        assert_eq!(grid.rect(*h).unwrap(), r);
    }
    // Walking the cells in order reads the slots in order.
    let mut previous = None;
    for cell in &grid.cells {
        let mut at = cell.head;
        while at != crate::slots::NONE {
            assert!(previous.is_none_or(|p| p < at));
            previous = Some(at);
            at = grid.slots.slots[at as usize].next;
        }
    }
    grid.validate().unwrap();
}

#[test]
fn snapshots_of_other_structures_are_refused() {
    let world = Rect::new(0.0, 0.0, 10.0, 10.0);
    let quadtree = crate::Quadtree::for_world(world).unwrap();
    assert!(matches!(
        LooseGrid::from_bytes(&quadtree.to_bytes()),
        Err(Error::InvalidBytes(_))
    ));
    // A forged size is refused before anything is reserved.
    let grid = LooseGrid::new(world, 2, 2, 1, 1).unwrap();
    let mut bytes = grid.to_bytes();
    bytes[28..32].copy_from_slice(&(1u32 << 16).to_le_bytes()); // columns
    bytes[32..36].copy_from_slice(&(1u32 << 10).to_le_bytes()); // rows
    assert!(matches!(
        LooseGrid::from_bytes(&bytes),
        Err(Error::InvalidBytes(_))
    ));
}

#[test]
fn pairs_of_bands_of_tight_cells_add_up_to_all_pairs() {
    // What `par_pairs` does on rayon's threads, here on one.
    let world = Rect::new(0.0, 0.0, 256.0, 256.0);
    let mut grid = LooseGrid::new(world, 16, 16, 5, 7).unwrap();
    let mut rng = Lcg(99);
    for i in 0..3000 {
        let (x, y) = (rng.unit() * 260.0 - 2.0, rng.unit() * 260.0 - 2.0);
        let side = if i % 50 == 0 { 200.0 } else { 3.0 };
        grid.insert(Rect::new(x, y, x + side, y + side), i).unwrap();
    }
    let mut all = Vec::new();
    grid.pairs(&mut all);
    let mut banded = Vec::new();
    let tight = grid.tight.len() as u32;
    for band in [0..3, 3..17, 17..tight] {
        let _ = grid.tight_pairs(band, &mut |a, b| {
            banded.push(ordered((a, b)));
            ControlFlow::Continue(())
        });
    }
    let _ = grid.big_pairs(&mut |a, b| {
        banded.push(ordered((a, b)));
        ControlFlow::Continue(())
    });
    let mut all: Vec<_> = all.into_iter().map(ordered).collect();
    all.sort_unstable();
    banded.sort_unstable();
    assert_eq!(all, banded);
}
