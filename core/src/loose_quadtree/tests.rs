//! The loose quadtree against brute force: random operation sequences in
//! awkward worlds, `validate` after every operation, every query kind compared.

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use crate::index::SpatialIndex;
use crate::loose_quadtree::LooseQuadtree;
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
/// often exactly on the trees' borders, of every awkward kind.
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
    fn new(tree: &LooseQuadtree, rng: &mut Lcg) -> Shapes {
        let world = tree.world();
        let levels = 1u32 << tree.max_depth().min(6);
        let counts = [2, 4, levels];
        let xs = borders(world.x1, world.width(), &counts);
        let ys = borders(world.y1, world.height(), &counts);
        let spot = (
            world.x1 + rng.unit() * world.width(),
            world.y1 + rng.unit() * world.height(),
        );
        Shapes {
            world,
            xs,
            ys,
            cell: (
                world.width() / levels as f32,
                world.height() / levels as f32,
            ),
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
            0..=1 => 0.0,                                      // points and segments
            2 => cell * 8.0,                                   // a few cells wide
            3 => world * 0.5 * rng.unit(),                     // up to half the world
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
fn check_queries(tree: &LooseQuadtree, model: &Model, shapes: &Shapes, rng: &mut Lcg) {
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
        tree.query(q, omit, &mut hits).unwrap();
        let expected: Vec<Handle> = model
            .iter()
            .filter(|(h, (r, _))| Some(**h) != omit && meets(r, &q))
            .map(|(h, _)| *h)
            .collect();
        assert_eq!(sorted(hits.clone()), expected, "query {q}");

        let (x, y) = shapes.point(rng);
        tree.query_point(x, y, omit, &mut hits).unwrap();
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
        tree.overlapping(h, &mut hits).unwrap();
        let expected: Vec<Handle> = model
            .iter()
            .filter(|(other, (r, _))| **other != h && meets(r, &rect))
            .map(|(h, _)| *h)
            .collect();
        assert_eq!(sorted(hits.clone()), expected, "overlapping {h:?}");
    }
    let mut pairs = Vec::new();
    tree.pairs(&mut pairs);
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

/// The model's elements and the tree's agree, ids and rectangles bit for bit.
fn check_elements(tree: &LooseQuadtree, model: &Model) {
    assert_eq!(tree.len(), model.len());
    let elements = tree.iter().collect::<Vec<_>>();
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
fn run(tree: LooseQuadtree, seed: u64, steps: usize) {
    let mut tree = tree;
    let mut rng = Lcg(seed);
    let shapes = Shapes::new(&tree, &mut rng);
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
                let h = tree.insert(r, next_id).unwrap();
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
                tree.insert_many(&rects, &ids, &mut handles).unwrap();
                for (i, &h) in handles.iter().enumerate() {
                    model.insert(h, (rects[i], ids[i]));
                }
                next_id += n as u32;
            }
            34..=43 => {
                if let Some(h) = pick(&model, &mut rng) {
                    tree.remove(h).unwrap();
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
                    let before = tree.to_bytes();
                    assert!(matches!(
                        tree.remove_many(&chosen).unwrap_err().root(),
                        Error::DuplicateHandle(_)
                    ));
                    assert_eq!(tree.to_bytes(), before);
                    chosen.pop();
                }
                tree.remove_many(&chosen).unwrap();
                for h in &chosen {
                    model.remove(h);
                }
            }
            47..=76 => {
                if let Some(h) = pick(&model, &mut rng) {
                    let r = shapes.moved(&mut rng, &model[&h].0);
                    tree.update(h, r).unwrap();
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
                tree.update_many(&chosen, &rects).unwrap();
                for (h, r) in chosen.iter().zip(&rects) {
                    model.get_mut(h).unwrap().0 = *r;
                }
            }
            85..=94 => tree.cleanup(),
            95 => {
                if rng.chance(20) {
                    tree.clear();
                    model.clear();
                }
            }
            _ => check_refusals(&mut tree, &model, &mut rng),
        }
        if let Err(reason) = tree.validate() {
            panic!("step {step} (seed {seed}): {reason}\n{tree:?}");
        }
        if step % 8 == 0 || step + 1 == steps {
            check_elements(&tree, &model);
            check_queries(&tree, &model, &shapes, &mut rng);
        }
        if step % 64 == 0 {
            check_snapshot(&tree);
            check_traverse(&tree);
        }
    }
}

/// Bad arguments are refused and change nothing.
fn check_refusals(tree: &mut LooseQuadtree, model: &Model, rng: &mut Lcg) {
    let before = tree.to_bytes();
    let nan = Rect::new(f32::NAN, 0.0, 1.0, 1.0);
    assert!(tree.insert(nan, 0).is_err());
    assert!(tree.insert(Rect::new(1.0, 0.0, 0.0, 1.0), 0).is_err());
    assert!(tree
        .insert(Rect::new(0.0, 0.0, f32::INFINITY, 1.0), 0)
        .is_err());
    let mut hits = Vec::new();
    assert!(tree.query(nan, None, &mut hits).is_err());
    assert!(tree.query_point(f32::NAN, 0.0, None, &mut hits).is_err());
    // A batch with one bad item inserts nothing.
    let mut handles = Vec::new();
    assert!(tree
        .insert_many(&[Rect::point(0.0, 0.0), nan], &[1, 2], &mut handles)
        .is_err());
    if let Some(&h) = model
        .keys()
        .nth(rng.below(model.len().max(1) as u32) as usize)
    {
        assert!(tree.update(h, nan).is_err());
        assert!(tree
            .update_many(&[h, h], &[Rect::point(1.0, 1.0), nan])
            .is_err());
        // A stale handle: the same slot, another generation.
        let stale = Handle::from_raw(h.to_raw() + (1 << 32));
        assert!(matches!(tree.remove(stale), Err(Error::InvalidHandle(_))));
        assert!(tree.update(stale, Rect::point(0.0, 0.0)).is_err());
        assert!(tree.remove_many(&[h, stale]).is_err());
        assert!(tree
            .query(Rect::point(0.0, 0.0), Some(stale), &mut hits)
            .is_err());
        assert!(tree.overlapping(stale, &mut hits).is_err());
    }
    assert!(tree.remove(Handle::from_raw(0)).is_err());
    assert_eq!(tree.to_bytes(), before, "a refused call changed the tree");
    // A double remove: the second is refused.
    if let Some(&h) = model.keys().next() {
        let mut copy = tree.clone();
        copy.remove(h).unwrap();
        let after = copy.to_bytes();
        assert!(copy.remove(h).is_err());
        assert_eq!(copy.to_bytes(), after);
    }
}

/// A snapshot gives back the same tree; truncated or damaged ones are refused
/// (or, if a damaged one happens to be consistent, give a valid tree).
fn check_snapshot(tree: &LooseQuadtree) {
    let bytes = tree.to_bytes();
    let copy = LooseQuadtree::from_bytes(&bytes).unwrap();
    assert_eq!(copy.to_bytes(), bytes);
    assert_eq!(
        copy.iter().collect::<Vec<_>>(),
        tree.iter().collect::<Vec<_>>()
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
            LooseQuadtree::from_bytes(&bytes[..cut]).is_err(),
            "cut at {cut}"
        );
    }
    let mut extra = bytes.clone();
    extra.push(0);
    assert!(LooseQuadtree::from_bytes(&extra).is_err());
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
        if let Ok(back) = LooseQuadtree::from_bytes(&damaged) {
            back.validate().unwrap();
        }
    }
}

/// `traverse` shows the tree in pre-order, each leaf with its count, and
/// `stats` agrees.
fn check_traverse(tree: &LooseQuadtree) {
    let infos = std::cell::RefCell::new(Vec::<NodeInfo>::new());
    let flow = tree.traverse(
        |info| {
            assert!(!info.is_leaf);
            infos.borrow_mut().push(*info);
            ControlFlow::Continue(())
        },
        |info| {
            assert!(info.is_leaf);
            infos.borrow_mut().push(*info);
            ControlFlow::Continue(())
        },
    );
    let infos = infos.into_inner();
    assert_eq!(flow, ControlFlow::Continue(()));
    assert_eq!((infos[0].index, infos[0].depth), (0, 0));
    let leaves: Vec<&NodeInfo> = infos.iter().filter(|n| n.is_leaf).collect();
    let total: u32 = leaves.iter().map(|l| l.count).sum();
    assert_eq!(total as usize, tree.len());
    for info in &infos {
        assert!(info.rect.is_valid(), "{info:?}");
        assert!(info.depth <= tree.max_depth());
    }
    let stats = tree.stats();
    assert_eq!(stats.elements, tree.len());
    assert_eq!(stats.nodes, infos.len());
    assert_eq!(stats.leaves, leaves.len());
    assert_eq!(
        stats.empty_leaves,
        leaves.iter().filter(|l| l.count == 0).count()
    );
    assert_eq!(stats.element_links, tree.len());
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
        for (max_elements, max_depth) in [(1, 0), (1, 3), (2, 5), (3, 12), (1, 30)] {
            let tree = LooseQuadtree::new(world, max_elements, max_depth).unwrap();
            run(tree, seed, 400);
            seed += 1;
        }
        run(LooseQuadtree::for_world(world).unwrap(), seed, 150);
        seed += 1;
    }
}

#[test]
fn parameters_are_checked() {
    let world = Rect::new(0.0, 0.0, 100.0, 100.0);
    let refused = |r: Result<LooseQuadtree, Error>| {
        assert!(matches!(r, Err(Error::InvalidParameter { .. })), "{r:?}")
    };
    refused(LooseQuadtree::new(world, 0, 4));
    refused(LooseQuadtree::new(world, 4, 31));
    assert!(LooseQuadtree::new(world, 1, 30).is_ok());
    assert!(matches!(
        LooseQuadtree::new(Rect::new(0.0, 0.0, 0.0, 1.0), 1, 1),
        Err(Error::InvalidWorld(_))
    ));
    assert!(LooseQuadtree::for_world(Rect::new(f32::MIN, 0.0, f32::MAX, 1.0)).is_err());
    let tree = LooseQuadtree::for_world(world).unwrap();
    assert_eq!((tree.max_elements(), tree.max_depth()), (8, 8));
}

#[test]
fn each_element_is_in_one_leaf_and_boxes_shrink_at_cleanup() {
    let world = Rect::new(0.0, 0.0, 100.0, 100.0);
    let mut tree = LooseQuadtree::new(world, 1, 4).unwrap();
    // A wide element whose centre is in the top-left quadrant.
    let wide = tree.insert(Rect::new(1.0, 1.0, 90.0, 2.0), 0).unwrap();
    let small = tree.insert(Rect::new(80.0, 1.0, 81.0, 2.0), 1).unwrap();
    let stats = tree.stats();
    assert_eq!(stats.element_links, 2);
    assert_eq!(stats.max_depth_reached, 1);
    let mut hits = Vec::new();
    tree.query_point(85.0, 1.5, None, &mut hits).unwrap();
    assert_eq!(hits, [wide]);
    tree.update(wide, Rect::new(1.0, 1.0, 2.0, 2.0)).unwrap();
    let box_of_first_leaf = |t: &LooseQuadtree| {
        let mut found = None;
        let _ = t.traverse(
            |_| ControlFlow::Continue(()),
            |leaf| {
                found.get_or_insert(leaf.rect);
                ControlFlow::Continue(())
            },
        );
        found.unwrap()
    };
    assert_eq!(box_of_first_leaf(&tree), Rect::new(1.0, 1.0, 90.0, 2.0));
    tree.cleanup();
    assert_eq!(box_of_first_leaf(&tree), Rect::new(1.0, 1.0, 2.0, 2.0));
    tree.query_point(85.0, 1.5, None, &mut hits).unwrap();
    assert!(hits.is_empty());
    tree.remove(wide).unwrap();
    tree.remove(small).unwrap();
    for _ in 0..5 {
        tree.cleanup();
        tree.validate().unwrap();
    }
    let stats = tree.stats();
    assert_eq!((stats.nodes, stats.leaves, stats.empty_leaves), (1, 1, 1));
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
    let shapes = Shapes::new(&tree, &mut rng);
    check_queries(&tree, &model, &shapes, &mut rng);
    // A big batch removal sweeps the stack.
    let handles: Vec<Handle> = model.keys().copied().take(300).collect();
    tree.remove_many(&handles).unwrap();
    for h in &handles {
        model.remove(h);
    }
    tree.validate().unwrap();
    check_queries(&tree, &model, &shapes, &mut rng);
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
        let shapes = Shapes::new(&tree, &mut rng);
        check_queries(&tree, &model, &shapes, &mut rng);
    }
}

#[test]
fn snapshots_of_other_structures_are_refused() {
    let world = Rect::new(0.0, 0.0, 10.0, 10.0);
    let quadtree = crate::Quadtree::for_world(world).unwrap();
    assert!(matches!(
        LooseQuadtree::from_bytes(&quadtree.to_bytes()),
        Err(Error::InvalidBytes(_))
    ));
    let tree = LooseQuadtree::for_world(world).unwrap();
    assert!(matches!(
        crate::Quadtree::from_bytes(&tree.to_bytes()),
        Err(Error::InvalidBytes(_))
    ));
    // A forged node count is refused before anything is reserved.
    let mut bytes = tree.to_bytes();
    bytes[36..40].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(
        LooseQuadtree::from_bytes(&bytes),
        Err(Error::InvalidBytes(_))
    ));
}
