//! The loose quadtree against brute force (the oracles of flatquad-testkit):
//! random operation sequences in awkward worlds, with and without a
//! `max_extent`, `validate` after every operation, every query kind compared;
//! stacks, crowds and world-sized elements. The tests of its internals are in
//! `src/loose_quadtree/tests.rs`.

use flatquad::{Handle, LooseQuadtree, Rect, SpatialIndex};
use flatquad_testkit::{self as testkit, check_queries, Draw, Lcg, Model};

/// One random run of `steps` operations.
fn run(tree: LooseQuadtree, seed: u64, steps: usize) {
    testkit::run(
        tree,
        seed,
        steps,
        testkit::loose_quadtree_shapes,
        testkit::check_loose_quadtree_traverse,
    );
}

#[test]
fn random_operations_match_brute_force() {
    let mut seed = 1;
    for world in testkit::WORLDS {
        for (max_elements, max_depth) in [(1, 0), (1, 3), (2, 5), (3, 12), (1, 30)] {
            let tree = LooseQuadtree::new(world, max_elements, max_depth).unwrap();
            run(tree, seed, 400);
            seed += 1;
        }
        run(LooseQuadtree::for_world(world).unwrap(), seed, 150);
        seed += 1;
    }
}

/// With a `max_extent`: elements cross the bound both ways as they move.
#[test]
fn random_operations_with_a_max_extent_match_brute_force() {
    let mut seed = 1000;
    for world in testkit::WORLDS {
        let side = world.width().min(world.height());
        for (max_elements, max_depth, fraction) in
            [(1, 3, 0.5), (2, 5, 0.1), (3, 12, 0.02), (1, 30, 0.3)]
        {
            let tree =
                LooseQuadtree::with_max_extent(world, max_elements, max_depth, side * fraction)
                    .unwrap();
            run(tree, seed, 400);
            seed += 1;
        }
    }
}

#[test]
fn stacks_at_one_spot_build_no_chains() {
    let world = Rect::new(0.0, 0.0, 64.0, 64.0);
    let mut tree = LooseQuadtree::new(world, 2, 30).unwrap();
    let mut model = Model::new();
    for i in 0..500 {
        // The same centre, different sizes.
        let r = Rect::new(10.0 - i as f32 * 0.01, 10.0, 10.0 + i as f32 * 0.01, 10.0);
        model.insert(tree.insert(r, i).unwrap(), (r, i));
    }
    assert_eq!(tree.stats().nodes, 1);
    tree.validate().unwrap();
    let mut rng = Lcg(3);
    let shapes = testkit::loose_quadtree_shapes(&tree, &mut rng);
    check_queries(&tree, &model, &Default::default(), &shapes, &mut rng);
    // A big batch removal sweeps the stack.
    let handles: Vec<Handle> = model.keys().copied().take(300).collect();
    tree.remove_many(&handles).unwrap();
    for h in &handles {
        model.remove(h);
    }
    tree.validate().unwrap();
    check_queries(&tree, &model, &Default::default(), &shapes, &mut rng);
}

#[test]
fn crowds_and_world_sized_elements_pair_correctly() {
    let world = Rect::new(0.0, 0.0, 64.0, 64.0);
    for (n, spread) in [
        (300, 0.0),
        (200, 8.0),
        (700, 0.5),
        (1400, 16.0),
        (2000, 60.0),
    ] {
        let mut tree = LooseQuadtree::new(world, 4, 8).unwrap();
        let mut rng = Lcg(n as u64);
        let mut model = Model::new();
        for i in 0..n {
            let (x, y) = (2.0 + rng.unit() * spread, 2.0 + rng.unit() * spread);
            let r = if i % 97 == 0 {
                Rect::new(-1e9, -1e9, 1e9, 1e9)
            } else {
                Rect::new(x, y, x + 1.0, y + 1.0)
            };
            model.insert(tree.insert(r, i).unwrap(), (r, i));
        }
        tree.validate().unwrap();
        let shapes = testkit::loose_quadtree_shapes(&tree, &mut rng);
        check_queries(&tree, &model, &Default::default(), &shapes, &mut rng);
    }
}
