//! Unit tests of the internals; the behaviour is tested in `tests/`.

use crate::quadtree::lines::{
    mask, point_child, Cell, SplitLines, STACK_CAPACITY, TABLE_MAX_DEPTH,
};
use crate::Rect;

#[test]
fn mask_is_closed_on_the_left_and_open_on_the_right() {
    let m = |r: Rect| mask(0.0, 0.0, &r);
    assert_eq!(m(Rect::new(-1.0, -1.0, 0.0, 0.0)), 0b0001);
    assert_eq!(m(Rect::new(0.0, 0.0, 0.0, 0.0)), 0b0001);
    assert_eq!(m(Rect::new(0.0, 0.0, 0.5, 0.5)), 0b1111);
    assert_eq!(m(Rect::new(0.5, -1.0, 1.0, 0.0)), 0b0010);
    assert_eq!(m(Rect::new(0.5, 0.5, 1.0, 1.0)), 0b1000);
    assert_eq!(point_child(0.0, 0.0, 0.0, 0.0), 0);
    assert_eq!(point_child(0.0, 0.0, 0.1, 0.1), 3);
}

#[test]
fn child_regions_partition_the_parent() {
    for max_depth in [3, 20] {
        let grid = SplitLines::new(&Rect::new(-1.0, -1.0, 1.0, 1.0), max_depth);
        let root = Cell::ROOT;
        let (cx, cy) = grid.split(&root);
        assert_eq!((cx, cy), (0.0, 0.0));
        let children: Vec<Cell> = (0..4).map(|k| root.child(1, k)).collect();
        for &(x, y) in &[
            (0.0, 0.0),
            (0.0, 1.0),
            (-3.0, 2.0),
            (1e30, -1e30),
            (0.25, -0.25),
        ] {
            let owners = children
                .iter()
                .filter(|c| grid.region(c).owns(x, y))
                .count();
            assert_eq!(owners, 1, "point ({x}, {y})");
            let child = &children[point_child(cx, cy, x, y) as usize];
            assert!(grid.region(child).owns(x, y));
        }
    }
}

#[test]
fn stack_capacity_covers_the_deepest_walk() {
    assert_eq!(
        STACK_CAPACITY,
        3 * crate::Quadtree::MAX_DEPTH_LIMIT as usize + 1
    );
}

#[test]
fn lines_agree_across_depths_tables_and_stay_in_order() {
    let worlds = [
        Rect::new(0.0, 0.0, 4096.0, 4096.0),
        Rect::new(-3.0, 10.0, 5.0, 10.5),
        Rect::new(-1e6, -1e6, 1e6, 1e6),
        Rect::new(0.1, 0.2, 0.3, 0.7),
        Rect::new(1e-30, 1e-30, 3e-29, 7e-30),
    ];
    for world in &worlds {
        // A table-backed grid and a computed one give the same lines.
        let table = SplitLines::new(world, TABLE_MAX_DEPTH);
        let computed = SplitLines::new(world, TABLE_MAX_DEPTH + 1);
        for depth in 0..TABLE_MAX_DEPTH {
            for k in 0..=(1u32 << depth).min(300) {
                let line = computed.line_x(k, depth);
                assert_eq!(
                    line,
                    computed.line_x(2 * k, depth + 1),
                    "{world:?} k {k} depth {depth}"
                );
                assert_eq!(computed.line_y(k, depth), computed.line_y(4 * k, depth + 2));
                assert_eq!(line, table.line_x(k, depth));
                assert_eq!(computed.line_y(k, depth), table.line_y(k, depth));
                if k > 0 {
                    assert!(computed.line_x(k - 1, depth) < line || world.width() < 1e-20);
                }
            }
            assert_eq!(computed.line_x(0, depth), f32::NEG_INFINITY);
            assert_eq!(computed.line_x(1 << depth, depth), f32::INFINITY);
        }
    }
}
