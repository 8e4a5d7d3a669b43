//! The loose grid against brute force (the oracles of flatquad-testkit):
//! random operation sequences in awkward worlds, `validate` after every
//! operation, every query kind compared; crowded cells; the rayon pair walk.
//! The tests of its internals are in `src/loose_grid/tests.rs`.

use flatquad::{LooseGrid, Rect, SpatialIndex};
use flatquad_testkit::{self as testkit, check_queries, Draw, Lcg, Model};

/// One random run of `steps` operations.
fn run(grid: LooseGrid, seed: u64, steps: usize) {
    testkit::run(
        grid,
        seed,
        steps,
        testkit::loose_grid_shapes,
        testkit::check_loose_grid_traverse,
    );
}

#[test]
fn random_operations_match_brute_force() {
    let mut seed = 1;
    for world in testkit::WORLDS {
        for (columns, rows, tight_columns, tight_rows) in [
            (1, 1, 1, 1),
            (7, 5, 7, 5),
            (16, 16, 8, 8),
            (13, 9, 4, 3),
            (32, 8, 1, 2),
        ] {
            let grid = LooseGrid::new(world, columns, rows, tight_columns, tight_rows).unwrap();
            run(grid, seed, 400);
            seed += 1;
        }
        run(LooseGrid::for_world(world).unwrap(), seed, 150);
        seed += 1;
    }
}

#[test]
fn stacks_and_crowds_pair_correctly() {
    // More elements in one cell than are gathered on the stack, and crowded
    // cells that are sorted and swept.
    let world = Rect::new(0.0, 0.0, 64.0, 64.0);
    for (n, spread) in [(300, 0.0), (200, 8.0), (60, 4.0), (700, 0.5), (1400, 16.0)] {
        let mut grid = LooseGrid::new(world, 8, 8, 4, 4).unwrap();
        let mut rng = Lcg(n as u64);
        let mut model = Model::new();
        for i in 0..n {
            let (x, y) = (30.0 + rng.unit() * spread, 30.0 + rng.unit() * spread);
            let r = Rect::new(x, y, x + 1.0, y + 1.0);
            model.insert(grid.insert(r, i).unwrap(), (r, i));
        }
        grid.validate().unwrap();
        let shapes = testkit::loose_grid_shapes(&grid, &mut rng);
        check_queries(&grid, &model, &Default::default(), &shapes, &mut rng);
    }
}

#[cfg(feature = "rayon")]
#[test]
fn par_pairs_finds_the_same_pairs() {
    use flatquad_testkit::ordered;

    let world = Rect::new(0.0, 0.0, 4096.0, 4096.0);
    let mut grid = LooseGrid::for_world(world).unwrap();
    let mut rng = Lcg(5);
    let rects: Vec<Rect> = (0..260_000)
        .map(|i| {
            let (x, y) = (rng.unit() * 4090.0, rng.unit() * 4090.0);
            let side = if i % 1000 == 0 { 300.0 } else { 4.0 };
            Rect::new(x, y, x + side, y + side)
        })
        .collect();
    let ids: Vec<u32> = (0..rects.len() as u32).collect();
    let mut handles = Vec::new();
    grid.insert_many(&rects, &ids, &mut handles).unwrap();
    let (mut one, mut many) = (Vec::new(), Vec::new());
    grid.pairs(&mut one);
    grid.par_pairs(&mut many);
    let mut one: Vec<_> = one.into_iter().map(ordered).collect();
    let mut many: Vec<_> = many.into_iter().map(ordered).collect();
    one.sort_unstable();
    many.sort_unstable();
    assert_eq!(one, many);
}
