//! Batch queries (`query_many`) and, with the `rayon` feature, the parallel
//! all-pairs walk and batch queries, against single queries and brute force.

use std::collections::BTreeSet;

mod common;

use common::Lcg;
use flatquad::{Error, Handle, Quadtree, Rect, SpatialIndex};

fn sample() -> (Quadtree, Vec<(Handle, Rect)>, Vec<Rect>) {
    let mut rng = Lcg(11);
    let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 256.0, 256.0), 4, 7).unwrap();
    let mut elements = Vec::new();
    for i in 0..4000 {
        let (x, y) = (rng.unit() * 270.0 - 7.0, rng.unit() * 270.0 - 7.0);
        let r = Rect::new(x, y, x + rng.unit() * 5.0, y + rng.unit() * 5.0);
        elements.push((tree.insert(r, i).unwrap(), r));
    }
    let queries = (0..500)
        .map(|_| {
            let (x, y) = (rng.unit() * 270.0 - 7.0, rng.unit() * 270.0 - 7.0);
            Rect::new(x, y, x + rng.unit() * 12.0, y + rng.unit() * 12.0)
        })
        .collect();
    (tree, elements, queries)
}

fn rows(offsets: &[usize], hits: &[Handle]) -> Vec<BTreeSet<Handle>> {
    offsets
        .windows(2)
        .map(|w| hits[w[0]..w[1]].iter().copied().collect())
        .collect()
}

#[test]
fn query_many_matches_brute_force_with_and_without_omit() {
    let (tree, elements, queries) = sample();
    let (mut offsets, mut hits) = (Vec::new(), Vec::new());
    tree.query_many(&queries, None, &mut offsets, &mut hits)
        .unwrap();
    assert_eq!(offsets.len(), queries.len() + 1);
    for (q, row) in queries.iter().zip(rows(&offsets, &hits)) {
        let want: BTreeSet<Handle> = elements
            .iter()
            .filter(|(_, r)| r.intersects(q))
            .map(|(h, _)| *h)
            .collect();
        assert_eq!(row, want);
    }
    // Each element's own rectangle, omitting itself: the per-agent mode.
    let own: Vec<Rect> = elements.iter().map(|(_, r)| *r).collect();
    let omit: Vec<Handle> = elements.iter().map(|(h, _)| *h).collect();
    tree.query_many(&own, Some(&omit), &mut offsets, &mut hits)
        .unwrap();
    let mut near = Vec::new();
    for ((h, _), row) in elements.iter().zip(rows(&offsets, &hits)) {
        tree.overlapping(*h, &mut near).unwrap();
        assert_eq!(row, near.iter().copied().collect::<BTreeSet<_>>());
        assert!(!row.contains(h));
    }
}

#[test]
fn overlapping_many_matches_query_many_with_own_rectangles() {
    let (mut tree, elements, _) = sample();
    let (stale, _) = elements[5];
    tree.remove(stale).unwrap();
    let live: Vec<(Handle, Rect)> = elements
        .iter()
        .copied()
        .filter(|(h, _)| *h != stale)
        .collect();
    let handles: Vec<Handle> = live.iter().map(|(h, _)| *h).collect();
    let own: Vec<Rect> = live.iter().map(|(_, r)| *r).collect();
    let (mut o1, mut h1, mut o2, mut h2) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    tree.query_many(&own, Some(&handles), &mut o1, &mut h1)
        .unwrap();
    tree.overlapping_many(&handles, &mut o2, &mut h2).unwrap();
    assert_eq!(o1, o2);
    assert_eq!(rows(&o1, &h1), rows(&o2, &h2));
    // A stale handle in the batch: refused, nothing written.
    let mut batch = handles.clone();
    batch[17] = stale;
    let e = tree.overlapping_many(&batch, &mut o2, &mut h2).unwrap_err();
    assert!(matches!(e, Error::InBatch { index: 17, .. }), "{e:?}");
    assert_eq!(rows(&o1, &h1), rows(&o2, &h2));
}

#[test]
fn query_many_refuses_bad_batches_and_writes_nothing() {
    let (tree, elements, queries) = sample();
    let (mut offsets, mut hits) = (vec![7], vec![elements[0].0]);
    let mut bad = queries.clone();
    bad[3] = Rect::new(f32::NAN, 0.0, 1.0, 1.0);
    let e = tree
        .query_many(&bad, None, &mut offsets, &mut hits)
        .unwrap_err();
    assert!(matches!(e, Error::InBatch { index: 3, .. }), "{e:?}");
    let e = tree
        .query_many(&queries, Some(&[elements[0].0]), &mut offsets, &mut hits)
        .unwrap_err();
    assert!(matches!(e, Error::LengthMismatch { .. }), "{e:?}");
    let mut omit = vec![elements[1].0; queries.len()];
    omit[9] = Handle::from_raw(u64::MAX);
    let e = tree
        .query_many(&queries, Some(&omit), &mut offsets, &mut hits)
        .unwrap_err();
    assert!(matches!(e, Error::InBatch { index: 9, .. }), "{e:?}");
    assert_eq!((offsets, hits), (vec![7], vec![elements[0].0]));
}

#[cfg(feature = "rayon")]
#[test]
fn parallel_pairs_and_queries_agree_with_sequential_ones() {
    // Big enough to take the parallel paths (250,000 elements, 1,000 queries).
    let mut rng = Lcg(3);
    let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 4096.0, 4096.0), 16, 8).unwrap();
    let rects: Vec<Rect> = (0..260_000)
        .map(|_| {
            let (x, y) = (rng.unit() * 4096.0, rng.unit() * 4096.0);
            Rect::new(x, y, x + 4.0, y + 4.0)
        })
        .collect();
    let ids = vec![0; rects.len()];
    tree.insert_many(&rects, &ids, &mut Vec::new()).unwrap();
    let queries = &rects[..5000];
    let normal = |pairs: &[(Handle, Handle)]| -> Vec<(Handle, Handle)> {
        let mut v: Vec<_> = pairs.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect();
        v.sort_unstable();
        v
    };
    let (mut seq, mut par) = (Vec::new(), Vec::new());
    tree.pairs(&mut seq);
    tree.par_pairs(&mut par);
    assert!(!seq.is_empty());
    let par_normal = normal(&par);
    assert_eq!(par_normal, normal(&seq));
    assert!(
        par_normal.windows(2).all(|w| w[0] != w[1]),
        "a pair reported twice"
    );

    let (mut o1, mut h1, mut o2, mut h2) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    tree.query_many(queries, None, &mut o1, &mut h1).unwrap();
    tree.par_query_many(queries, None, &mut o2, &mut h2)
        .unwrap();
    assert_eq!(o1, o2);
    assert_eq!(rows(&o1, &h1), rows(&o2, &h2));

    let mut small = Quadtree::new(Rect::new(0.0, 0.0, 1.0, 1.0), 8, 3).unwrap();
    small.par_pairs(&mut par);
    assert!(par.is_empty());
    let a = small.insert(Rect::new(0.1, 0.1, 0.2, 0.2), 0).unwrap();
    let b = small.insert(Rect::new(0.2, 0.2, 0.3, 0.3), 1).unwrap();
    small.par_pairs(&mut par);
    assert_eq!(normal(&par), vec![(a.min(b), a.max(b))]);
}

/// One leaf holding everything (max_depth 0): the pair-by-pair test (few
/// elements), the sorted sweep (dozens) and the in-place walk (hundreds) must
/// all find exactly the brute-force pairs, touching edges and degenerate
/// rectangles included.
#[test]
fn every_leaf_pair_strategy_matches_brute_force() {
    for n in [2, 20, 24, 25, 60, 128, 129, 400] {
        let mut rng = Lcg(n);
        let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 16.0, 16.0), 8, 0).unwrap();
        let mut elements = Vec::new();
        for i in 0..n {
            // Coordinates on a coarse lattice, so edges touch and rectangles repeat.
            let x = (rng.unit() * 16.0).floor();
            let y = (rng.unit() * 16.0).floor();
            let (w, h) = ((rng.unit() * 3.0).floor(), (rng.unit() * 3.0).floor());
            let r = Rect::new(x, y, x + w, y + h);
            elements.push((tree.insert(r, i).unwrap(), r));
        }
        let mut want = BTreeSet::new();
        for (i, (a, ra)) in elements.iter().enumerate() {
            for (b, rb) in &elements[i + 1..] {
                if ra.intersects(rb) {
                    want.insert((*a.min(b), *a.max(b)));
                }
            }
        }
        let mut pairs = Vec::new();
        tree.pairs(&mut pairs);
        let got: BTreeSet<(Handle, Handle)> =
            pairs.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect();
        assert_eq!(got.len(), pairs.len(), "n = {n}: a pair reported twice");
        assert_eq!(got, want, "n = {n}");
    }
}
