//! Unit tests of the internals; the behaviour is tested in `tests/`.

use crate::cell::{Cell, STACK_CAPACITY};
use crate::Rect;

#[test]
fn mask_is_closed_on_the_left_and_open_on_the_right() {
    let cell = Cell::root(0.0, 0.0);
    assert_eq!(cell.mask(&Rect::new(-1.0, -1.0, 0.0, 0.0)), 0b0001);
    assert_eq!(cell.mask(&Rect::new(0.0, 0.0, 0.0, 0.0)), 0b0001);
    assert_eq!(cell.mask(&Rect::new(0.0, 0.0, 0.5, 0.5)), 0b1111);
    assert_eq!(cell.mask(&Rect::new(0.5, -1.0, 1.0, 0.0)), 0b0010);
    assert_eq!(cell.mask(&Rect::new(0.5, 0.5, 1.0, 1.0)), 0b1000);
    assert_eq!(cell.point_child(0.0, 0.0), 0);
    assert_eq!(cell.point_child(0.1, 0.1), 3);
}

#[test]
fn child_regions_partition_the_parent() {
    let root = Cell::root(0.0, 0.0);
    let children: Vec<Cell> = (0..4).map(|k| root.child(1, k, (0.5, 0.5))).collect();
    for &(x, y) in &[
        (0.0, 0.0),
        (0.0, 1.0),
        (-3.0, 2.0),
        (1e30, -1e30),
        (0.25, -0.25),
    ] {
        let owners = children.iter().filter(|c| c.owns(x, y)).count();
        assert_eq!(owners, 1, "point ({x}, {y})");
        assert!(children[root.point_child(x, y) as usize].owns(x, y));
    }
}

#[test]
fn stack_capacity_covers_the_deepest_walk() {
    assert_eq!(
        STACK_CAPACITY,
        3 * crate::Quadtree::MAX_DEPTH_LIMIT as usize + 1
    );
}
