//! The loose grid against brute force: random operation sequences in awkward
//! worlds, `validate` after every operation, every query kind compared.

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use crate::index::SpatialIndex;
use crate::loose_grid::LooseGrid;
use crate::{Error, Handle, NodeInfo, Rect};

/// A small LCG, so the tests need no dependency and replay exactly.
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
    fn below(&mut self, n: u32) -> u32 {
        self.next() % n
    }
    fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent
    }
}

/// The model: every live element, by handle.
type Model = BTreeMap<Handle, (Rect, u32)>;

fn meets(a: &Rect, b: &Rect) -> bool {
    a.x1 <= b.x2 && b.x1 <= a.x2 && a.y1 <= b.y2 && b.y1 <= a.y2
}

/// A rectangle generator for one world: coordinates drawn near the world,
/// often exactly on the grids' borders, of every awkward kind.
struct Shapes {
    world: Rect,
    /// Values that sit exactly on (or next to) loose and tight borders.
    xs: Vec<f32>,
    ys: Vec<f32>,
    cell: (f32, f32),
    /// The spot where stacks pile up.
    spot: (f32, f32),
}

fn borders(origin: f32, size: f32, counts: &[u32]) -> Vec<f32> {
    let mut values = Vec::new();
    for &n in counts {
        for k in 0..=n {
            let v = (origin as f64 + k as f64 * (size as f64 / n as f64)) as f32;
            values.extend([v, next_up(v), next_down(v)]);
        }
    }
    values
}

fn next_up(x: f32) -> f32 {
    if x == 0.0 {
        f32::from_bits(1)
    } else if x > 0.0 {
        f32::from_bits(x.to_bits() + 1)
    } else {
        f32::from_bits(x.to_bits() - 1)
    }
}

fn next_down(x: f32) -> f32 {
    -next_up(-x)
}

impl Shapes {
    fn new(grid: &LooseGrid, rng: &mut Lcg) -> Shapes {
        let world = grid.world();
        let xs = borders(
            world.x1,
            world.width(),
            &[grid.columns(), grid.tight_columns()],
        );
        let ys = borders(world.y1, world.height(), &[grid.rows(), grid.tight_rows()]);
        let spot = (
            world.x1 + rng.unit() * world.width(),
            world.y1 + rng.unit() * world.height(),
        );
        Shapes {
            world,
            xs,
            ys,
            cell: grid.cell_size(),
            spot,
        }
    }

    fn coordinate(&self, rng: &mut Lcg, x: bool) -> f32 {
        let (lo, size, values) = if x {
            (self.world.x1, self.world.width(), &self.xs)
        } else {
            (self.world.y1, self.world.height(), &self.ys)
        };
        match rng.below(10) {
            0..=2 => values[rng.below(values.len() as u32) as usize],
            3 => lo + (rng.unit() * 3.0 - 1.0) * size, // around the world
            4 if rng.chance(20) => (rng.unit() - 0.5) * 1e30, // far out
            _ => lo + rng.unit() * size,
        }
    }

    fn extent(&self, rng: &mut Lcg, cell: f32, world: f32) -> f32 {
        match rng.below(12) {
            0..=1 => 0.0,                            // points and segments
            2 => cell * LooseGrid::BIG_CELLS as f32, // right at the big threshold
            3 => cell * (LooseGrid::BIG_CELLS as f32 - 1.0 + 2.0 * rng.unit()), // around it
            4 if rng.chance(30) => world * (1.0 + rng.unit()), // world-sized
            _ => cell * rng.unit() * rng.unit(),
        }
    }

    fn rect(&self, rng: &mut Lcg) -> Rect {
        if rng.chance(8) {
            let (x, y) = self.spot;
            return Rect::new(x, y, x + self.cell.0 * 0.25, y + self.cell.1 * 0.25);
        }
        if rng.chance(2) {
            return Rect::new(-3e38, -3e38, 3e38, 3e38);
        }
        let (x, y) = (self.coordinate(rng, true), self.coordinate(rng, false));
        let w = self.extent(rng, self.cell.0, self.world.width());
        let h = self.extent(rng, self.cell.1, self.world.height());
        let r = Rect::new(x, y, x + w, y + h);
        if r.is_valid() {
            r
        } else {
            Rect::point(x, y)
        }
    }

    /// A rectangle near `r` (a small move), or anywhere.
    fn moved(&self, rng: &mut Lcg, r: &Rect) -> Rect {
        if rng.chance(30) {
            return self.rect(rng);
        }
        let dx = (rng.unit() - 0.5) * self.cell.0;
        let dy = (rng.unit() - 0.5) * self.cell.1;
        let moved = Rect::new(r.x1 + dx, r.y1 + dy, r.x2 + dx, r.y2 + dy);
        if moved.is_valid() {
            moved
        } else {
            *r
        }
    }

    fn point(&self, rng: &mut Lcg) -> (f32, f32) {
        (self.coordinate(rng, true), self.coordinate(rng, false))
    }
}

fn sorted(mut v: Vec<Handle>) -> Vec<Handle> {
    v.sort_unstable();
    v
}

fn ordered((a, b): (Handle, Handle)) -> (Handle, Handle) {
    if a < b {
        (a, b)
    } else {
        (b, a)
    }
}

/// Every query kind against brute force.
fn check_queries(grid: &LooseGrid, model: &Model, shapes: &Shapes, rng: &mut Lcg) {
    let mut hits = Vec::new();
    for _ in 0..4 {
        let q = shapes.rect(rng);
        let omit = if rng.chance(30) && !model.is_empty() {
            model
                .keys()
                .nth(rng.below(model.len() as u32) as usize)
                .copied()
        } else {
            None
        };
        grid.query(q, omit, &mut hits).unwrap();
        let expected: Vec<Handle> = model
            .iter()
            .filter(|(h, (r, _))| Some(**h) != omit && meets(r, &q))
            .map(|(h, _)| *h)
            .collect();
        assert_eq!(sorted(hits.clone()), expected, "query {q}");

        let (x, y) = shapes.point(rng);
        grid.query_point(x, y, omit, &mut hits).unwrap();
        let expected: Vec<Handle> = model
            .iter()
            .filter(|(h, (r, _))| Some(**h) != omit && meets(r, &Rect::point(x, y)))
            .map(|(h, _)| *h)
            .collect();
        assert_eq!(sorted(hits.clone()), expected, "point ({x}, {y})");
    }
    if let Some((&h, &(rect, _))) = model
        .iter()
        .nth(rng.below(model.len().max(1) as u32) as usize)
    {
        grid.overlapping(h, &mut hits).unwrap();
        let expected: Vec<Handle> = model
            .iter()
            .filter(|(other, (r, _))| **other != h && meets(r, &rect))
            .map(|(h, _)| *h)
            .collect();
        assert_eq!(sorted(hits.clone()), expected, "overlapping {h:?}");
    }
    let mut pairs = Vec::new();
    grid.pairs(&mut pairs);
    let mut found: Vec<(Handle, Handle)> = pairs.into_iter().map(ordered).collect();
    found.sort_unstable();
    let all: Vec<(&Handle, &(Rect, u32))> = model.iter().collect();
    let mut expected = Vec::new();
    for (i, (a, (ra, _))) in all.iter().enumerate() {
        for (b, (rb, _)) in &all[i + 1..] {
            if meets(ra, rb) {
                expected.push(ordered((**a, **b)));
            }
        }
    }
    expected.sort_unstable();
    assert_eq!(found.len(), expected.len(), "pairs: count (or duplicates)");
    assert_eq!(found, expected, "pairs");
}

/// The model's elements and the grid's agree, ids and rectangles bit for bit.
fn check_elements(grid: &LooseGrid, model: &Model) {
    assert_eq!(grid.len(), model.len());
    let elements = grid.iter().collect::<Vec<_>>();
    assert_eq!(elements.len(), model.len());
    for (h, r, id) in elements {
        let (mr, mid) = model[&h];
        assert_eq!(
            (r.x1.to_bits(), r.y1.to_bits()),
            (mr.x1.to_bits(), mr.y1.to_bits())
        );
        assert_eq!(
            (r.x2.to_bits(), r.y2.to_bits()),
            (mr.x2.to_bits(), mr.y2.to_bits())
        );
        assert_eq!(id, mid);
    }
}

/// One random run of `steps` operations.
fn run(grid: LooseGrid, seed: u64, steps: usize) {
    let mut grid = grid;
    let mut rng = Lcg(seed);
    let shapes = Shapes::new(&grid, &mut rng);
    let mut model = Model::new();
    let mut next_id = 0u32;
    let mut handles = Vec::new();
    let pick = |model: &Model, rng: &mut Lcg| -> Option<Handle> {
        if model.is_empty() {
            None
        } else {
            model
                .keys()
                .nth(rng.below(model.len() as u32) as usize)
                .copied()
        }
    };
    for step in 0..steps {
        match rng.below(100) {
            0..=29 => {
                let r = shapes.rect(&mut rng);
                let h = grid.insert(r, next_id).unwrap();
                model.insert(h, (r, next_id));
                next_id += 1;
            }
            30..=33 => {
                let n = if rng.chance(20) {
                    300
                } else {
                    rng.below(20) as usize
                };
                let rects: Vec<Rect> = (0..n).map(|_| shapes.rect(&mut rng)).collect();
                let ids: Vec<u32> = (0..n as u32).map(|i| next_id + i).collect();
                handles.clear();
                grid.insert_many(&rects, &ids, &mut handles).unwrap();
                for (i, &h) in handles.iter().enumerate() {
                    model.insert(h, (rects[i], ids[i]));
                }
                next_id += n as u32;
            }
            34..=43 => {
                if let Some(h) = pick(&model, &mut rng) {
                    grid.remove(h).unwrap();
                    model.remove(&h);
                }
            }
            44..=46 => {
                let share = if rng.chance(30) { 80 } else { 15 };
                let mut chosen: Vec<Handle> = model
                    .keys()
                    .copied()
                    .filter(|_| rng.chance(share))
                    .collect();
                if !chosen.is_empty() && rng.chance(30) {
                    // A duplicate: refused, nothing removed.
                    chosen.push(chosen[0]);
                    let before = grid.to_bytes();
                    assert!(matches!(
                        grid.remove_many(&chosen).unwrap_err().root(),
                        Error::DuplicateHandle(_)
                    ));
                    assert_eq!(grid.to_bytes(), before);
                    chosen.pop();
                }
                grid.remove_many(&chosen).unwrap();
                for h in &chosen {
                    model.remove(h);
                }
            }
            47..=76 => {
                if let Some(h) = pick(&model, &mut rng) {
                    let r = shapes.moved(&mut rng, &model[&h].0);
                    grid.update(h, r).unwrap();
                    model.get_mut(&h).unwrap().0 = r;
                }
            }
            77..=84 => {
                let chosen: Vec<Handle> =
                    model.keys().copied().filter(|_| rng.chance(50)).collect();
                let rects: Vec<Rect> = chosen
                    .iter()
                    .map(|h| shapes.moved(&mut rng, &model[h].0))
                    .collect();
                grid.update_many(&chosen, &rects).unwrap();
                for (h, r) in chosen.iter().zip(&rects) {
                    model.get_mut(h).unwrap().0 = *r;
                }
            }
            85..=94 => grid.cleanup(),
            95 => {
                if rng.chance(20) {
                    grid.clear();
                    model.clear();
                }
            }
            _ => check_refusals(&mut grid, &model, &mut rng),
        }
        if let Err(reason) = grid.validate() {
            panic!("step {step} (seed {seed}): {reason}\n{grid:?}");
        }
        if step % 8 == 0 || step + 1 == steps {
            check_elements(&grid, &model);
            check_queries(&grid, &model, &shapes, &mut rng);
        }
        if step % 64 == 0 {
            check_snapshot(&grid);
            check_traverse(&grid);
        }
    }
}

/// Bad arguments are refused and change nothing.
fn check_refusals(grid: &mut LooseGrid, model: &Model, rng: &mut Lcg) {
    let before = grid.to_bytes();
    let nan = Rect::new(f32::NAN, 0.0, 1.0, 1.0);
    assert!(grid.insert(nan, 0).is_err());
    assert!(grid.insert(Rect::new(1.0, 0.0, 0.0, 1.0), 0).is_err());
    assert!(grid
        .insert(Rect::new(0.0, 0.0, f32::INFINITY, 1.0), 0)
        .is_err());
    let mut hits = Vec::new();
    assert!(grid.query(nan, None, &mut hits).is_err());
    assert!(grid.query_point(f32::NAN, 0.0, None, &mut hits).is_err());
    // A batch with one bad item inserts nothing.
    let mut handles = Vec::new();
    assert!(grid
        .insert_many(&[Rect::point(0.0, 0.0), nan], &[1, 2], &mut handles)
        .is_err());
    if let Some(&h) = model
        .keys()
        .nth(rng.below(model.len().max(1) as u32) as usize)
    {
        assert!(grid.update(h, nan).is_err());
        assert!(grid
            .update_many(&[h, h], &[Rect::point(1.0, 1.0), nan])
            .is_err());
        // A stale handle: the same slot, another generation.
        let stale = Handle::from_raw(h.to_raw() + (1 << 32));
        assert!(matches!(grid.remove(stale), Err(Error::InvalidHandle(_))));
        assert!(grid.update(stale, Rect::point(0.0, 0.0)).is_err());
        assert!(grid.remove_many(&[h, stale]).is_err());
        assert!(grid
            .query(Rect::point(0.0, 0.0), Some(stale), &mut hits)
            .is_err());
        assert!(grid.overlapping(stale, &mut hits).is_err());
    }
    assert!(grid.remove(Handle::from_raw(0)).is_err());
    assert_eq!(grid.to_bytes(), before, "a refused call changed the grid");
    // A double remove: the second is refused.
    if let Some(&h) = model.keys().next() {
        let mut copy = grid.clone();
        copy.remove(h).unwrap();
        let after = copy.to_bytes();
        assert!(copy.remove(h).is_err());
        assert_eq!(copy.to_bytes(), after);
    }
}

/// A snapshot gives back the same grid; truncated or damaged ones are refused
/// (or, if a damaged one happens to be consistent, give a valid grid).
fn check_snapshot(grid: &LooseGrid) {
    let bytes = grid.to_bytes();
    let copy = LooseGrid::from_bytes(&bytes).unwrap();
    assert_eq!(copy.to_bytes(), bytes);
    assert_eq!(
        copy.iter().collect::<Vec<_>>(),
        grid.iter().collect::<Vec<_>>()
    );
    for cut in [
        0,
        4,
        12,
        bytes.len() / 3,
        bytes.len() / 2,
        bytes.len() - 4,
        bytes.len() - 1,
    ] {
        assert!(
            LooseGrid::from_bytes(&bytes[..cut]).is_err(),
            "cut at {cut}"
        );
    }
    let mut extra = bytes.clone();
    extra.push(0);
    assert!(LooseGrid::from_bytes(&extra).is_err());
    let mut rng = Lcg(bytes.len() as u64);
    for _ in 0..40 {
        let mut damaged = bytes.clone();
        let at = 12 + 4 * rng.below(((damaged.len() - 12) / 4) as u32) as usize;
        let at = at.min(damaged.len() - 4);
        let word = match rng.below(4) {
            0 => u32::MAX,
            1 => rng.next(),
            2 => u32::from_le_bytes(damaged[at..at + 4].try_into().unwrap()) ^ 1,
            _ => 0,
        };
        damaged[at..at + 4].copy_from_slice(&word.to_le_bytes());
        if let Ok(back) = LooseGrid::from_bytes(&damaged) {
            back.validate().unwrap();
        }
    }
}

/// `traverse` shows every loose cell once as a leaf of depth 0 with its count.
fn check_traverse(grid: &LooseGrid) {
    let mut leaves: Vec<NodeInfo> = Vec::new();
    let flow = grid.traverse(
        |_| panic!("a loose grid has no branches"),
        |info| {
            leaves.push(*info);
            ControlFlow::Continue(())
        },
    );
    assert_eq!(flow, ControlFlow::Continue(()));
    assert_eq!(leaves.len(), (grid.columns() * grid.rows()) as usize);
    let total: u32 = leaves.iter().map(|l| l.count).sum();
    assert_eq!(total as usize, grid.len() - grid.big_len());
    for (i, leaf) in leaves.iter().enumerate() {
        assert_eq!((leaf.index, leaf.depth, leaf.is_leaf), (i as u32, 0, true));
        assert!(leaf.rect.is_valid());
    }
    let stats = grid.stats();
    assert_eq!(stats.elements, grid.len());
    assert_eq!(stats.nodes, leaves.len());
    assert_eq!(stats.leaves, leaves.len());
    assert_eq!(
        stats.empty_leaves,
        leaves.iter().filter(|l| l.count == 0).count()
    );
    assert!(stats.element_links >= total as usize);
    assert!(stats.bytes > 0);
}

fn worlds() -> Vec<Rect> {
    vec![
        Rect::new(0.0, 0.0, 1.0, 1.0),
        Rect::new(0.0, 0.0, 4096.0, 4096.0),
        Rect::new(-1e6, -1e6, 1e6, 1e6),
        Rect::new(-3.0, 10.0, 5.0, 10.5),
        Rect::new(1e-30, 1e-30, 3e-29, 7e-30),
        Rect::new(16_777_216.0, 16_777_216.0, 16_777_220.0, 16_777_230.0),
    ]
}

#[test]
fn random_operations_match_brute_force() {
    let mut seed = 1;
    for world in worlds() {
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
        let shapes = Shapes::new(&grid, &mut rng);
        check_queries(&grid, &model, &shapes, &mut rng);
    }
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

#[cfg(feature = "rayon")]
#[test]
fn par_pairs_finds_the_same_pairs() {
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
