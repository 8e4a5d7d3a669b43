//! Unit tests of the internals; the behaviour is tested in `tests/`.

use crate::dimension::{Dim2, Dim3};
use crate::test_pairs::sorted_pairs;
use crate::tree_lines::{
    mask, place_in_children, place_of, point_child, unpack_place, Cell, SplitLines,
    TABLE_MAX_DEPTH, TREE_STACK_CAPACITY,
};
use crate::{Box3, Rect};

#[test]
fn mask_is_closed_on_the_left_and_open_on_the_right() {
    let m = |r: Rect| mask::<Dim2>(&[0.0, 0.0], &r);
    assert_eq!(m(Rect::new(-1.0, -1.0, 0.0, 0.0)), 0b0001);
    assert_eq!(m(Rect::new(0.0, 0.0, 0.0, 0.0)), 0b0001);
    assert_eq!(m(Rect::new(0.0, 0.0, 0.5, 0.5)), 0b1111);
    assert_eq!(m(Rect::new(0.5, -1.0, 1.0, 0.0)), 0b0010);
    assert_eq!(m(Rect::new(0.5, 0.5, 1.0, 1.0)), 0b1000);
    assert_eq!(point_child::<Dim2>(&[0.0, 0.0], &[0.0, 0.0]), 0);
    assert_eq!(point_child::<Dim2>(&[0.0, 0.0], &[0.1, 0.1]), 3);
    // In 3D the third axis picks the high four of the eight children.
    let m3 = |b: Box3| mask::<Dim3>(&[0.0, 0.0, 0.0], &b);
    assert_eq!(m3(Box3::new(-1.0, -1.0, -1.0, 0.0, 0.0, 0.0)), 0b0000_0001);
    assert_eq!(m3(Box3::new(0.5, 0.5, 0.5, 1.0, 1.0, 1.0)), 0b1000_0000);
    assert_eq!(m3(Box3::new(-1.0, -1.0, 0.5, 0.0, 0.0, 1.0)), 0b0001_0000);
    assert_eq!(m3(Box3::new(0.0, 0.0, 0.0, 0.5, 0.5, 0.5)), 0xff);
    assert_eq!(point_child::<Dim3>(&[0.0; 3], &[0.1, -1.0, 0.1]), 0b101);
}

#[test]
fn child_regions_partition_the_parent() {
    for max_depth in [3, 20] {
        let grid = SplitLines::<Dim2>::new(&Rect::new(-1.0, -1.0, 1.0, 1.0), max_depth);
        let root = Cell::ROOT;
        let split = grid.split(&root);
        assert_eq!(split, [0.0, 0.0]);
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
                .filter(|c| grid.region(c).owns(&[x, y]))
                .count();
            assert_eq!(owners, 1, "point ({x}, {y})");
            let child = &children[point_child::<Dim2>(&split, &[x, y]) as usize];
            assert!(grid.region(child).owns(&[x, y]));
        }
    }
}

#[test]
fn stack_capacity_covers_the_deepest_walk() {
    // Seven siblings a level (the octree's) plus the last eight children.
    assert_eq!(
        TREE_STACK_CAPACITY,
        7 * crate::Octree::MAX_DEPTH_LIMIT as usize + 1
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
        let table = SplitLines::<Dim2>::new(world, TABLE_MAX_DEPTH);
        let computed = SplitLines::<Dim2>::new(world, TABLE_MAX_DEPTH + 1);
        for depth in 0..TABLE_MAX_DEPTH {
            for k in 0..=(1u32 << depth).min(300) {
                let line = computed.line(0, k, depth);
                assert_eq!(
                    line,
                    computed.line(0, 2 * k, depth + 1),
                    "{world:?} k {k} depth {depth}"
                );
                assert_eq!(
                    computed.line(1, k, depth),
                    computed.line(1, 4 * k, depth + 2)
                );
                assert_eq!(line, table.line(0, k, depth));
                assert_eq!(computed.line(1, k, depth), table.line(1, k, depth));
                if k > 0 {
                    assert!(computed.line(0, k - 1, depth) < line || world.width() < 1e-20);
                }
            }
            assert_eq!(computed.line(0, 0, depth), f32::NEG_INFINITY);
            assert_eq!(computed.line(0, 1 << depth, depth), f32::INFINITY);
        }
    }
}

#[test]
fn places_pack_and_unpack_in_both_dimensions() {
    // A 2 × 1 × 2 block at depth 5 of an octree.
    let cells: Vec<Cell<Dim3>> = [[6, 9, 20], [7, 9, 20], [6, 9, 21], [7, 9, 21]]
        .iter()
        .map(|&at| Cell {
            node: 0,
            depth: 5,
            at,
        })
        .collect();
    let block = unpack_place::<Dim3>(place_of(&cells));
    assert_eq!(
        (block.depth, block.at, block.width),
        (5, [6, 9, 20], [2, 1, 2])
    );
    // The children of the 3D root a box meets on both sides of x and z.
    let place = place_in_children(&Cell::<Dim3>::ROOT, 0b0011_0011);
    let block = unpack_place::<Dim3>(place);
    assert_eq!(
        (block.depth, block.at, block.width),
        (1, [0, 0, 0], [2, 1, 2])
    );
    // 2D keeps its layout: depth in the top bits, x above y.
    let cell = Cell::<Dim2> {
        node: 0,
        depth: 3,
        at: [5, 2],
    };
    assert_eq!(place_of(&[cell]), (3 << 28) | (5 << 12) | 2);
}

/// Moves that scatter the leaves' lists, then the `cleanup` that packs them:
/// every list contiguous and in walk order, and every answer as before.
fn packing_keeps_every_answer<D: crate::dimension::Dimension>(
    tree: &mut crate::flat_tree::FlatTree<D>,
    boxes: impl Fn(&mut crate::test_lcg::Lcg32) -> D::Bounds,
) {
    use crate::links::Link;
    use crate::slots::NONE;
    use crate::{Handle, Query, SpatialIndex};

    let mut rng = crate::test_lcg::Lcg32::new(7);
    let initial: Vec<D::Bounds> = (0..2_000).map(|_| boxes(&mut rng)).collect();
    let ids: Vec<u32> = (0..initial.len() as u32).collect();
    let mut handles = Vec::new();
    tree.insert_many(&initial, &ids, &mut handles).unwrap();
    tree.cleanup();
    let mut packs = 0;
    for _ in 0..6 {
        // Every other element moves, some far (a relink), then a few leave.
        let moved: Vec<Handle> = handles.iter().copied().step_by(2).collect();
        let to: Vec<D::Bounds> = moved.iter().map(|_| boxes(&mut rng)).collect();
        tree.update_many(&moved, &to).unwrap();
        let pairs = sorted_pairs(&*tree);
        let probe = boxes(&mut rng);
        let mut hits = Vec::new();
        tree.query(&Query::rect(probe), &mut hits).unwrap();
        hits.sort_unstable();
        let wanted = tree.links.wants_pack();
        tree.cleanup();
        if wanted {
            packs += 1;
            // Each leaf's list at consecutive indices, leaves in walk order.
            let mut expected_head = 0;
            let mut stack = vec![0u32];
            while let Some(at) = stack.pop() {
                let node = tree.nodes.nodes[at as usize];
                if node.is_branch() {
                    stack.extend((node.first..node.first + D::CHILDREN).rev());
                } else if node.count > 0 {
                    assert_eq!(node.first, expected_head);
                    let mut link = node.first;
                    for k in 0..node.count as u32 {
                        let Link { next, .. } = tree.links.links[link as usize];
                        let last = k + 1 == node.count as u32;
                        assert_eq!(next, if last { NONE } else { link + 1 });
                        link = next;
                    }
                    expected_head += node.count as u32;
                }
            }
            assert_eq!(expected_head as usize, tree.links.links.len());
            assert_eq!(tree.links.free, NONE);
        }
        tree.validate().unwrap();
        assert_eq!(sorted_pairs(&*tree), pairs);
        let mut after = Vec::new();
        tree.query(&Query::rect(probe), &mut after).unwrap();
        after.sort_unstable();
        assert_eq!(after, hits);
        // Removals after a pack take free links again.
        let gone = handles.pop().unwrap();
        tree.remove(gone).unwrap();
    }
    assert!(packs >= 3, "the moves packed the lists only {packs} times");
}

#[test]
fn cleanup_packs_the_lists_of_both_trees() {
    let mut quadtree = crate::Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0), 4, 6).unwrap();
    packing_keeps_every_answer(&mut quadtree, |rng| {
        let (x, y) = (rng.unit() * 100.0, rng.unit() * 100.0);
        Rect::new(x, y, x + rng.unit() * 6.0, y + rng.unit() * 6.0)
    });
    let mut octree =
        crate::Octree::new(Box3::new(0.0, 0.0, 0.0, 100.0, 100.0, 100.0), 4, 5).unwrap();
    packing_keeps_every_answer(&mut octree, |rng| {
        let (x, y, z) = (rng.unit() * 100.0, rng.unit() * 100.0, rng.unit() * 100.0);
        let s = rng.unit() * 9.0;
        Box3::new(x, y, z, x + s, y + s, z + s)
    });
}
