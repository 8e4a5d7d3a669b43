//! Writes the fuzz targets' seed corpus (fuzz/corpus/<target>/): for the
//! operation targets and the C ABI, choice streams of the testkit
//! harness's own generator; for the snapshot reader, real snapshots of every
//! structure after random operations, each behind its selector byte.
//!
//! cargo run --release -p flatquad-testkit --example fuzz_seeds -- fuzz/corpus

use std::path::Path;

use flatquad::{
    AnyIndex, Box3, Grid, Kind, LooseGrid, LooseQuadtree, Octree, Quadtree, Rect, SpatialIndex,
};
use flatquad_testkit::{Draw, Lcg, Shapes};

const STREAM_TARGETS: [&str; 7] = [
    "ops_quadtree",
    "ops_grid",
    "ops_loose_grid",
    "ops_loose_quadtree",
    "ops_loose_quadtree_max_extent",
    "ops_octree",
    "c_abi",
];

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join(name), bytes).unwrap();
}

/// A snapshot of `index` with `n` boxes from its world's shapes.
fn snapshot<T: SpatialIndex>(mut index: T, n: u32, seed: u64) -> Vec<u8> {
    let mut rng = Lcg(seed);
    // Every world here is 100 a side: 16 cells of 6.25.
    let axes: Vec<&[u32]> = vec![&[4, 16]; 3];
    let shapes = Shapes::for_axes(index.world(), &axes, &[6.25; 3], 2.0, &mut rng);
    let handles: Vec<_> = (0..n)
        .map(|id| index.insert(shapes.rect(&mut rng), id).unwrap())
        .collect();
    for h in handles.iter().step_by(3) {
        index.remove(*h).unwrap();
    }
    if seed % 2 == 0 {
        index.cleanup();
    }
    // Some with fat bounds: the margin and the own boxes in the snapshot.
    if n == 40 {
        index.set_margin(1.5).unwrap();
    }
    index.to_bytes()
}

fn main() {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "fuzz/corpus".into());
    let out = Path::new(&out);
    for (t, target) in STREAM_TARGETS.iter().enumerate() {
        for (i, len) in [16usize, 64, 256, 1024, 4096].into_iter().enumerate() {
            let mut rng = Lcg(1000 * t as u64 + i as u64);
            let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
            write(&out.join(target), &format!("lcg-{len}"), &bytes);
        }
    }
    let world = Rect::new(0.0, 0.0, 100.0, 100.0);
    let dir = out.join("snapshot");
    for (n, seed) in [(0, 2), (5, 3), (40, 4)] {
        let seeds: [(u8, &str, Vec<u8>); 6] = [
            (
                0,
                "quadtree",
                snapshot(Quadtree::new(world, 2, 6).unwrap(), n, seed),
            ),
            (
                1,
                "grid",
                snapshot(Grid::new(world, 8, 8).unwrap(), n, seed),
            ),
            (
                2,
                "loose_grid",
                snapshot(LooseGrid::new(world, 8, 8, 4, 4).unwrap(), n, seed),
            ),
            (
                3,
                "loose_quadtree",
                snapshot(
                    LooseQuadtree::with_max_extent(world, 2, 6, 20.0).unwrap(),
                    n,
                    seed,
                ),
            ),
            (
                4,
                "any",
                snapshot(
                    AnyIndex::for_world(Kind::LooseQuadtree, world).unwrap(),
                    n,
                    seed,
                ),
            ),
            (
                5,
                "octree",
                snapshot(
                    Octree::new(Box3::new(0.0, 0.0, 0.0, 100.0, 100.0, 100.0), 2, 5).unwrap(),
                    n,
                    seed,
                ),
            ),
        ];
        for (selector, name, bytes) in seeds {
            let mut input = vec![selector];
            input.extend_from_slice(&bytes);
            write(&dir, &format!("{name}-{n}"), &input);
        }
    }
    println!("seeds written under {}", out.display());
}
