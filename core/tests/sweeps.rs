//! Small exhaustive sweeps, on every structure: every size from 0 to 100,
//! removed in forward, reverse and alternating order, re-inserted for several
//! rounds, validated after every operation and compared with brute force after
//! every round.

#[macro_use]
mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::{
    brute_pairs, brute_point, brute_query, check_fresh_handle, check_traverse, pairs_sorted,
    query_point_sorted, query_sorted, Lcg, Subject,
};
use flatquad::{
    Error, Grid, Handle, LooseGrid, LooseQuadtree, Quadtree, Query, Rect, SpatialIndex,
};

const WORLD: Rect = Rect::new(0.0, 0.0, 64.0, 64.0);
const ROUNDS: u32 = 3;

/// A rectangle on a half-unit grid over `[-8, 72]²` (so partly or wholly outside
/// the world now and then), with zero width or height a seventeenth of the time.
fn random_rect(rng: &mut Lcg) -> Rect {
    let x = rng.below(160) as f32 * 0.5 - 8.0;
    let y = rng.below(160) as f32 * 0.5 - 8.0;
    let w = rng.below(17) as f32 * 0.5;
    let h = rng.below(17) as f32 * 0.5;
    Rect::new(x, y, x + w, y + h)
}

#[derive(Clone, Copy, Debug)]
enum Order {
    Forward,
    Reverse,
    Alternating,
    /// Two `remove_many` calls: the first two thirds (in a shuffled order),
    /// then the rest.
    Batch,
}

fn removal_order(order: Order, n: usize) -> Vec<usize> {
    match order {
        Order::Forward | Order::Batch => (0..n).collect(),
        Order::Reverse => (0..n).rev().collect(),
        Order::Alternating => {
            let (mut lo, mut hi) = (0, n);
            let mut out = Vec::with_capacity(n);
            while lo < hi {
                out.push(lo);
                lo += 1;
                if lo < hi {
                    hi -= 1;
                    out.push(hi);
                }
            }
            out
        }
    }
}

fn validate<T: SpatialIndex<Bounds = Rect>>(tree: &T, context: &str) {
    if let Err(e) = tree.validate() {
        panic!("{context}: validate failed: {e}");
    }
}

/// Compares a few queries, point queries and `pairs()` with brute force.
fn compare<T: Subject>(tree: &T, live: &BTreeMap<Handle, Rect>, rng: &mut Lcg, context: &str) {
    assert_eq!(tree.len(), live.len(), "{context}");
    let mut probes = vec![
        WORLD,
        Rect::new(f32::MIN, f32::MIN, f32::MAX, f32::MAX),
        Rect::point(32.0, 32.0),
        Rect::new(32.0, 0.0, 32.0, 64.0),
        Rect::new(-10.0, -10.0, 0.0, 0.0),
        Rect::new(64.0, 64.0, 80.0, 80.0),
    ];
    probes.extend((0..6).map(|_| random_rect(rng)));
    for q in &probes {
        assert_eq!(
            query_sorted(tree, *q, None).unwrap(),
            brute_query(live.iter(), q, None),
            "{context}: query {q:?}"
        );
        assert_eq!(
            query_point_sorted(tree, q.x1, q.y2, None).unwrap(),
            brute_point(live.iter(), q.x1, q.y2, None),
            "{context}: query_point ({}, {})",
            q.x1,
            q.y2
        );
    }
    for (&h, r) in live.iter().take(3) {
        assert_eq!(
            query_sorted(tree, *r, Some(h)).unwrap(),
            brute_query(live.iter(), r, Some(h)),
            "{context}: query {r:?} omitting {h:?}"
        );
    }
    let elements: Vec<(Handle, Rect)> = live.iter().map(|(h, r)| (*h, *r)).collect();
    assert_eq!(
        pairs_sorted(tree),
        brute_pairs(&elements),
        "{context}: pairs"
    );
    check_traverse(tree, true);
}

/// Every call that takes a handle refuses a stale one, and changes nothing.
fn assert_stale<T: SpatialIndex<Bounds = Rect>>(tree: &mut T, h: Handle, context: &str) {
    let want = format!("{:?}", Error::InvalidHandle(h));
    assert!(!tree.contains(h), "{context}: stale {h:?} still contained");
    assert_eq!(format!("{:?}", tree.id(h).unwrap_err()), want, "{context}");
    assert_eq!(
        format!("{:?}", tree.rect(h).unwrap_err()),
        want,
        "{context}"
    );
    let len = tree.len();
    assert_eq!(
        format!("{:?}", tree.remove(h).unwrap_err()),
        want,
        "{context}"
    );
    let r = Rect::new(1.0, 1.0, 2.0, 2.0);
    assert_eq!(
        format!("{:?}", tree.update(h, r).unwrap_err()),
        want,
        "{context}"
    );
    let mut hits = Vec::new();
    assert_eq!(
        format!(
            "{:?}",
            tree.query(&Query::rect(r).omit(h), &mut hits).unwrap_err()
        ),
        want,
        "{context}"
    );
    assert_eq!(tree.len(), len);
}

fn sweep<T: Subject>(make: fn(Rect) -> T, n: usize, order: Order) {
    let mut rng = Lcg(0x5eed_0000 ^ (n as u32 * 3 + order as u32));
    let mut tree = make(WORLD);
    let mut issued = BTreeSet::new();
    let mut old_rounds: Vec<Handle> = Vec::new();
    let mut slots_used = BTreeSet::new();
    for round in 0..ROUNDS {
        let context = format!("n={n} {order:?} round {round}");
        let mut live = BTreeMap::new();
        let mut handles = Vec::with_capacity(n);
        for i in 0..n {
            let r = random_rect(&mut rng);
            let h = tree.insert(r, round * 1000 + i as u32).unwrap();
            check_fresh_handle(h, &mut issued);
            slots_used.insert(h.to_raw() as u32);
            handles.push(h);
            live.insert(h, r);
            validate(&tree, &context);
        }
        // Slots are reused: never more than n of them, whatever the round.
        assert!(
            slots_used.len() <= n,
            "{context}: {} slots",
            slots_used.len()
        );
        for (i, &h) in handles.iter().enumerate() {
            assert_eq!(tree.id(h).unwrap(), round * 1000 + i as u32);
            assert_eq!(tree.rect(h).unwrap(), live[&h]);
        }
        compare(&tree, &live, &mut rng, &context);
        for &h in &old_rounds {
            assert_stale(&mut tree, h, &context);
        }
        validate(&tree, &context);

        let sequence = removal_order(order, n);
        if let Order::Batch = order {
            let cut = (2 * n).div_ceil(3);
            let mut first: Vec<Handle> = handles[..cut].to_vec();
            for i in (1..first.len()).rev() {
                first.swap(i, rng.below(i as u32 + 1) as usize);
            }
            tree.remove_many(&first).unwrap();
            validate(&tree, &context);
            for h in &first {
                live.remove(h);
            }
            compare(&tree, &live, &mut rng, &format!("{context}, batch removed"));
            for &h in &first {
                assert_stale(&mut tree, h, &context);
            }
            tree.remove_many(&handles[cut..]).unwrap();
            validate(&tree, &context);
            live.clear();
        }
        for (k, &i) in sequence.iter().enumerate() {
            if let Order::Batch = order {
                break;
            }
            let h = handles[i];
            tree.remove(h).unwrap();
            live.remove(&h);
            validate(&tree, &context);
            assert_stale(&mut tree, h, &context);
            if k == n / 2 {
                compare(&tree, &live, &mut rng, &format!("{context}, half removed"));
                if round == 1 {
                    tree.cleanup();
                    validate(&tree, &context);
                    compare(&tree, &live, &mut rng, &format!("{context}, cleaned up"));
                }
            }
        }
        assert!(tree.is_empty());
        compare(&tree, &live, &mut rng, &format!("{context}, all removed"));
        // Round 1 leaves the empty branches (or a loose grid's boxes) for
        // round 2 to fill again.
        if round != 1 {
            common::cleanup_fully(&mut tree);
            common::assert_emptied(&tree, &format!("{context}, cleaned up"));
        }
        old_rounds.extend(handles);
    }

    // A last round ended by clear(): every handle of every round is stale.
    let mut handles = Vec::new();
    let rects: Vec<Rect> = (0..n).map(|_| random_rect(&mut rng)).collect();
    let ids: Vec<u32> = (0..n as u32).collect();
    tree.insert_many(&rects, &ids, &mut handles).unwrap();
    for &h in &handles {
        check_fresh_handle(h, &mut issued);
    }
    validate(&tree, "insert_many");
    let live: BTreeMap<Handle, Rect> = handles.iter().copied().zip(rects).collect();
    compare(&tree, &live, &mut rng, &format!("n={n} {order:?} batch"));
    tree.clear();
    validate(&tree, "clear");
    common::assert_emptied(&tree, "clear");
    for &h in old_rounds.iter().chain(&handles) {
        assert_stale(&mut tree, h, &format!("n={n} {order:?} after clear"));
    }
}

fn sweep_forward_removal<T: Subject>(make: fn(Rect) -> T) {
    for n in 0..=100 {
        sweep(make, n, Order::Forward);
    }
}

fn sweep_reverse_removal<T: Subject>(make: fn(Rect) -> T) {
    for n in 0..=100 {
        sweep(make, n, Order::Reverse);
    }
}

fn sweep_alternating_removal<T: Subject>(make: fn(Rect) -> T) {
    for n in 0..=100 {
        sweep(make, n, Order::Alternating);
    }
}

fn sweep_batch_removal<T: Subject>(make: fn(Rect) -> T) {
    for n in 0..=100 {
        sweep(make, n, Order::Batch);
    }
}

#[test]
fn removal_orders_cover_every_index_once() {
    for n in 0..20 {
        for order in [
            Order::Forward,
            Order::Reverse,
            Order::Alternating,
            Order::Batch,
        ] {
            let mut seq = removal_order(order, n);
            seq.sort_unstable();
            assert_eq!(seq, (0..n).collect::<Vec<_>>());
        }
    }
    assert_eq!(removal_order(Order::Alternating, 5), [0, 4, 1, 3, 2]);
}

/// One slot reused until its generation runs out: every handle it gave is
/// distinct, nonzero and below 2^53, and the slot is then retired for good.
fn a_slot_is_retired_after_its_last_generation<T: Subject>(make: fn(Rect) -> T) {
    const MAX_GENERATION: u64 = (1 << 21) - 1;
    let mut tree = make(WORLD);
    let keep = tree.insert(Rect::new(1.0, 1.0, 2.0, 2.0), 0).unwrap();
    assert_eq!(keep.to_raw(), 1 << 32, "slot 0, generation 1");
    let r = Rect::new(10.0, 10.0, 20.0, 20.0);
    let mut last = 0;
    for generation in 1..=MAX_GENERATION {
        let h = tree.insert(r, 1).unwrap();
        let raw = h.to_raw();
        assert_eq!(
            raw,
            generation << 32 | 1,
            "slot 1 reused with the next generation"
        );
        tree.remove(h).unwrap();
        last = raw;
    }
    assert!(last < 1 << 53);
    assert!(!tree.contains(Handle::from_raw(last)));
    assert!(!tree.contains(Handle::from_raw(1 << 32 | 1)));
    validate(&tree, "after retiring slot 1");
    // Slot 1 is retired: the next element gets a fresh slot.
    let h = tree.insert(r, 2).unwrap();
    assert_eq!(h.to_raw(), 1 << 32 | 2);
    // A handle past the last generation is refused, not wrapped.
    let beyond = Handle::from_raw((MAX_GENERATION + 1) << 32 | 1);
    assert!(!tree.contains(beyond));
    assert!(tree.remove(beyond).is_err());
    // clear() keeps the slot retired.
    tree.clear();
    let mut handles = Vec::new();
    tree.insert_many(&[r, r, r], &[0, 1, 2], &mut handles)
        .unwrap();
    for h in &handles {
        assert_ne!(h.to_raw() as u32, 1, "retired slot reused: {h:?}");
        assert!(h.to_raw() != 0 && h.to_raw() < 1 << 53);
    }
    assert!(!tree.contains(keep) && !tree.contains(h));
    validate(&tree, "after clear");
    assert_eq!(tree.len(), 3);
}

// Elements are 0 to 8 units a side in a 64-unit world: 16-unit grid cells hold
// a few, and the tree splits to depth 5.
per_structure! {
    quadtree: |world| Quadtree::new(world, 4, 5),
    grid: |world| Grid::new(world, 4, 4),
    loose_grid: |world| LooseGrid::new(world, 8, 8, 4, 4),
    loose_quadtree: |world| LooseQuadtree::new(world, 4, 5);
    sweep_forward_removal,
    sweep_reverse_removal,
    sweep_alternating_removal,
    sweep_batch_removal,
    a_slot_is_retired_after_its_last_generation,
}
