//! Batch queries (`query_many`, `overlapping_many`) and, with the `rayon`
//! feature, the parallel all-pairs walk and batch queries, against single
//! queries and brute force, on every structure.

use std::collections::BTreeSet;

#[macro_use]
mod common;

use common::{Lcg, Subject};
use flatquad::{
    Error, Grid, Handle, LooseGrid, LooseQuadtree, Quadtree, Query, QueryColumns, Rect,
};

/// 4,000 small elements, some outside the world, and a few long or huge ones
/// (which a grid keeps apart from its cells); 500 queries.
fn sample<T: Subject>(make: fn(Rect) -> T) -> (T, Vec<(Handle, Rect)>, Vec<Rect>) {
    let mut rng = Lcg(11);
    let mut tree = make(Rect::new(0.0, 0.0, 256.0, 256.0));
    let mut elements = Vec::new();
    for i in 0..4000 {
        let (x, y) = (rng.unit() * 270.0 - 7.0, rng.unit() * 270.0 - 7.0);
        let r = Rect::new(x, y, x + rng.unit() * 5.0, y + rng.unit() * 5.0);
        elements.push((tree.insert(r, i).unwrap(), r));
    }
    for i in 0..8 {
        let at = i as f32 * 37.0;
        for r in [
            Rect::new(at, -10.0, at + 2.0, 300.0),
            Rect::new(-1e7, at, 1e7, at + 0.5),
        ] {
            elements.push((tree.insert(r, 5000 + i).unwrap(), r));
        }
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

fn query_many_matches_brute_force_with_and_without_omit<T: Subject>(make: fn(Rect) -> T) {
    let (tree, elements, queries) = sample(make);
    let (mut offsets, mut hits) = (Vec::new(), Vec::new());
    tree.query_many(
        &Query::of_rects(&queries, None).unwrap(),
        &mut offsets,
        &mut hits,
    )
    .unwrap();
    assert_eq!(offsets.len(), queries.len() + 1);
    for (q, row) in queries.iter().zip(rows(&offsets, &hits)) {
        let want: BTreeSet<Handle> = elements
            .iter()
            .filter(|(_, r)| common::meets(r, q))
            .map(|(h, _)| *h)
            .collect();
        assert_eq!(row, want);
    }
    // Each element's own rectangle, omitting itself: the per-agent mode.
    let own: Vec<Rect> = elements.iter().map(|(_, r)| *r).collect();
    let omit: Vec<Handle> = elements.iter().map(|(h, _)| *h).collect();
    tree.query_many(
        &Query::of_rects(&own, Some(&omit)).unwrap(),
        &mut offsets,
        &mut hits,
    )
    .unwrap();
    let mut near = Vec::new();
    for ((h, _), row) in elements.iter().zip(rows(&offsets, &hits)) {
        tree.query(&Query::element(*h), &mut near).unwrap();
        assert_eq!(row, near.iter().copied().collect::<BTreeSet<_>>());
        assert!(!row.contains(h));
    }
}

fn overlapping_many_matches_query_many_with_own_rectangles<T: Subject>(make: fn(Rect) -> T) {
    let (mut tree, elements, _) = sample(make);
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
    tree.query_many(
        &Query::of_rects(&own, Some(&handles)).unwrap(),
        &mut o1,
        &mut h1,
    )
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

/// A batch of plain element queries is answered as `overlapping_many`: the same
/// rows as one query each, whole batches (one pair walk) and partial ones, on
/// one thread and (with `rayon`) many; a stale handle is refused at its index
/// with nothing written; a mask or an omit anywhere takes the general path,
/// with the same rows.
fn element_batches_match_single_queries<T: Subject>(make: fn(Rect) -> T) {
    let (mut tree, elements, _) = sample(make);
    let (stale, _) = elements[5];
    tree.remove(stale).unwrap();
    let handles: Vec<Handle> = elements
        .iter()
        .map(|(h, _)| *h)
        .filter(|h| *h != stale)
        .collect();
    let single = |batch: &[Query<Rect>]| -> Vec<BTreeSet<Handle>> {
        let mut found = Vec::new();
        batch
            .iter()
            .map(|q| {
                tree.query(q, &mut found).unwrap();
                found.iter().copied().collect()
            })
            .collect()
    };
    let (mut offsets, mut hits) = (Vec::new(), Vec::new());
    for batch in [&handles[..], &handles[..300], &handles[1000..1001]] {
        let mut queries: Vec<Query<Rect>> = batch.iter().map(|&h| Query::element(h)).collect();
        let want = single(&queries);
        tree.query_many(&queries, &mut offsets, &mut hits).unwrap();
        assert_eq!(rows(&offsets, &hits), want, "{} queries", batch.len());
        #[cfg(feature = "rayon")]
        {
            tree.par_query_many(&queries, &mut offsets, &mut hits)
                .unwrap();
            assert_eq!(
                rows(&offsets, &hits),
                want,
                "{} queries on threads",
                batch.len()
            );
        }
        // One query with a mask or an omit: not a plain batch, the same rows.
        if let Some(last) = queries.last_mut() {
            *last = last.omit(batch[0]);
        }
        let want = single(&queries);
        tree.query_many(&queries, &mut offsets, &mut hits).unwrap();
        assert_eq!(
            rows(&offsets, &hits),
            want,
            "{} queries, one omitting",
            batch.len()
        );
    }
    let mut bad: Vec<Query<Rect>> = handles.iter().map(|&h| Query::element(h)).collect();
    bad[17] = Query::element(stale);
    let (mut offsets, mut hits) = (vec![7], vec![handles[0]]);
    let e = tree.query_many(&bad, &mut offsets, &mut hits).unwrap_err();
    assert!(matches!(e, Error::InBatch { index: 17, .. }), "{e:?}");
    #[cfg(feature = "rayon")]
    {
        let e = tree
            .par_query_many(&bad, &mut offsets, &mut hits)
            .unwrap_err();
        assert!(matches!(e, Error::InBatch { index: 17, .. }), "{e:?}");
    }
    assert_eq!((offsets, hits), (vec![7], vec![handles[0]]));
}

fn query_many_refuses_bad_batches_and_writes_nothing<T: Subject>(make: fn(Rect) -> T) {
    let (tree, elements, queries) = sample(make);
    let (mut offsets, mut hits) = (vec![7], vec![elements[0].0]);
    let mut bad = queries.clone();
    bad[3] = Rect::new(f32::NAN, 0.0, 1.0, 1.0);
    let e = tree
        .query_many(
            &Query::of_rects(&bad, None).unwrap(),
            &mut offsets,
            &mut hits,
        )
        .unwrap_err();
    assert!(matches!(e, Error::InBatch { index: 3, .. }), "{e:?}");
    let e = Query::of_rects(&queries, Some(&[elements[0].0])).unwrap_err();
    assert!(matches!(e, Error::LengthMismatch { .. }), "{e:?}");
    let mut omit = vec![elements[1].0; queries.len()];
    omit[9] = Handle::from_raw(u64::MAX);
    let e = tree
        .query_many(
            &Query::of_rects(&queries, Some(&omit)).unwrap(),
            &mut offsets,
            &mut hits,
        )
        .unwrap_err();
    assert!(matches!(e, Error::InBatch { index: 9, .. }), "{e:?}");
    assert_eq!((offsets, hits), (vec![7], vec![elements[0].0]));
}

/// Batches given as columns, longer than the blocks `QueryColumns::answer`
/// builds them in (65,536), give the rows of the whole batch as values, and
/// a bad query in a later block is reported at its place in the batch.
fn columns_answer_as_the_whole_batch<T: Subject>(make: fn(Rect) -> T) {
    let (tree, elements, queries) = sample(make);
    let n = 150_000;
    let rects: Vec<Rect> = queries.iter().copied().cycle().take(n).collect();
    // Every seventh row leaves nothing out (raw handle 0).
    let omit: Vec<Handle> = (0..n)
        .map(|i| match i % 7 {
            0 => Handle::from_raw(0),
            _ => elements[i % elements.len()].0,
        })
        .collect();
    let centers: Vec<[f32; 2]> = rects.iter().map(|r| [r.x1, r.y1]).collect();
    let radii: Vec<f64> = (0..n).map(|i| (i % 9) as f64 * 0.75).collect();
    let (mut want_offsets, mut want_hits) = (Vec::new(), Vec::new());
    let (mut offsets, mut hits) = (Vec::new(), Vec::new());
    for columns in [
        QueryColumns::rects(&rects, None).unwrap(),
        QueryColumns::rects(&rects, Some(&omit)).unwrap(),
        QueryColumns::circles(&centers, &radii, 0x5555_5555).unwrap(),
    ] {
        assert_eq!(columns.len(), n);
        tree.query_many(&columns.to_queries(), &mut want_offsets, &mut want_hits)
            .unwrap();
        columns.answer(&tree, &mut offsets, &mut hits).unwrap();
        assert_eq!(offsets, want_offsets);
        assert_eq!(rows(&offsets, &hits), rows(&want_offsets, &want_hits));
        assert!(hits.len() > n / 2, "the queries must find something");
    }

    let mut bad = rects.clone();
    bad[140_000] = Rect::new(0.0, 0.0, f32::INFINITY, 1.0);
    bad[140_001] = Rect::new(f32::NAN, 0.0, 1.0, 1.0);
    let e = QueryColumns::rects(&bad, None)
        .unwrap()
        .answer(&tree, &mut offsets, &mut hits)
        .unwrap_err();
    assert!(matches!(e, Error::InBatch { index: 140_000, .. }), "{e:?}");
    assert!(offsets.is_empty() && hits.is_empty());
    let mut stale = omit.clone();
    stale[70_000] = Handle::from_raw(u64::MAX);
    let e = QueryColumns::rects(&rects, Some(&stale))
        .unwrap()
        .answer(&tree, &mut offsets, &mut hits)
        .unwrap_err();
    assert!(matches!(e, Error::InBatch { index: 70_000, .. }), "{e:?}");
    let mut negative = radii.clone();
    negative[3] = -1.0;
    let e = QueryColumns::circles(&centers, &negative, u32::MAX)
        .unwrap()
        .answer(&tree, &mut offsets, &mut hits)
        .unwrap_err();
    assert!(matches!(e, Error::InBatch { index: 3, .. }), "{e:?}");
    assert!(offsets.is_empty() && hits.is_empty());
    let e = QueryColumns::rects(&rects, Some(&omit[1..])).unwrap_err();
    assert!(matches!(e, Error::LengthMismatch { .. }), "{e:?}");
    let e = QueryColumns::<Rect>::circles(&centers, &radii[1..], 1).unwrap_err();
    assert!(matches!(e, Error::LengthMismatch { .. }), "{e:?}");
}

#[cfg(feature = "rayon")]
fn normal(pairs: &[(Handle, Handle)]) -> Vec<(Handle, Handle)> {
    common::normal_pairs(pairs)
}

/// 5,000 queries take the parallel path of `par_query_many` (above 1,000);
/// `par_pairs` gives the same pairs as `pairs`.
#[cfg(feature = "rayon")]
fn parallel_queries_agree_with_sequential_ones<T: Subject>(make: fn(Rect) -> T) {
    let (tree, elements, _) = sample(make);
    let queries: Vec<Rect> = elements
        .iter()
        .map(|(_, r)| *r)
        .cycle()
        .take(5000)
        .collect();
    let omit: Vec<Handle> = elements
        .iter()
        .map(|(h, _)| *h)
        .cycle()
        .take(5000)
        .collect();
    let (mut o1, mut h1, mut o2, mut h2) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for omit in [None, Some(&omit[..])] {
        tree.query_many(&Query::of_rects(&queries, omit).unwrap(), &mut o1, &mut h1)
            .unwrap();
        tree.par_query_many(&Query::of_rects(&queries, omit).unwrap(), &mut o2, &mut h2)
            .unwrap();
        assert_eq!(o1, o2);
        assert_eq!(rows(&o1, &h1), rows(&o2, &h2));
    }
    // The lowest bad index is reported, whichever chunk meets its bad query
    // first, and nothing is written: on a pool of 4 threads (16 chunks of 313),
    // so that the batch is cut even on a machine of one core. In the last case
    // the later bad query opens chunk 8, which another thread starts on while
    // the calling thread is still in chunk 0, before the early one's error.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    for (first, bad_at) in [
        (4321, &[4321, 4999][..]),
        (17, &[17, 4321, 4999][..]),
        (312, &[312, 2504][..]),
    ] {
        let mut bad = queries.clone();
        for &at in bad_at {
            bad[at] = if at % 2 == 0 {
                Rect::new(1.0, 1.0, 0.0, 0.0)
            } else {
                Rect::new(f32::NAN, 1.0, 2.0, 2.0)
            };
        }
        let batch = Query::of_rects(&bad, None).unwrap();
        for _ in 0..8 {
            let e = pool
                .install(|| tree.par_query_many(&batch, &mut o2, &mut h2))
                .unwrap_err();
            assert!(
                matches!(e, Error::InBatch { index, .. } if index == first),
                "{e:?}"
            );
            assert_eq!(rows(&o1, &h1), rows(&o2, &h2), "written on error");
        }
    }

    let (mut seq, mut par) = (Vec::new(), Vec::new());
    tree.pairs(&mut seq);
    tree.par_pairs(&mut par);
    assert!(!seq.is_empty());
    assert_eq!(normal(&par), normal(&seq));

    let mut small = make(Rect::new(0.0, 0.0, 1.0, 1.0));
    small.par_pairs(&mut par);
    assert!(par.is_empty());
    let a = small.insert(Rect::new(0.1, 0.1, 0.2, 0.2), 0).unwrap();
    let b = small.insert(Rect::new(0.2, 0.2, 0.3, 0.3), 1).unwrap();
    small.par_pairs(&mut par);
    assert_eq!(normal(&par), vec![(a.min(b), a.max(b))]);
}

/// 260,000 elements: far above every structure's size for its parallel
/// all-pairs walk (10,000; the grid 20,000), and 5,000 parallel queries.
#[cfg(feature = "rayon")]
fn parallel_pairs_agree_with_sequential_ones<T: Subject>(make: fn(Rect) -> T) {
    let mut tree = make(Rect::new(0.0, 0.0, 4096.0, 4096.0));
    let mut rng = Lcg(3);
    let rects: Vec<Rect> = (0..260_000)
        .map(|_| {
            let (x, y) = (rng.unit() * 4096.0, rng.unit() * 4096.0);
            Rect::new(x, y, x + 4.0, y + 4.0)
        })
        .collect();
    let ids = vec![0; rects.len()];
    tree.insert_many(&rects, &ids, &mut Vec::new()).unwrap();
    let queries = &rects[..5000];
    let (mut seq, mut par) = (Vec::new(), Vec::new());
    tree.pairs(&mut seq);
    tree.par_pairs(&mut par);
    assert!(!seq.is_empty());
    // `normal` also checks that no pair is reported twice.
    assert_eq!(normal(&par), normal(&seq));
    for threads in [2, 8] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| tree.par_pairs(&mut par));
        assert!(
            par == seq,
            "{threads} threads: not the one-thread walk's order"
        );
    }

    let (mut o1, mut h1, mut o2, mut h2) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    tree.query_many(&Query::of_rects(queries, None).unwrap(), &mut o1, &mut h1)
        .unwrap();
    tree.par_query_many(&Query::of_rects(queries, None).unwrap(), &mut o2, &mut h2)
        .unwrap();
    assert_eq!(o1, o2);
    assert_eq!(rows(&o1, &h1), rows(&o2, &h2));
}

/// Threads never change a result: with pools of 1, 2 and 8 threads, over
/// 60,000 elements (a few of them big) laid out as after a frame's queries
/// and `cleanup`, `par_pairs`, `par_overlapping_many` and `par_query_many`
/// give what the calls on one thread give, the pairs in the one-thread
/// walk's order.
#[cfg(feature = "rayon")]
fn thread_counts_do_not_change_results<T: Subject>(make: fn(Rect) -> T) {
    let mut tree = make(Rect::new(0.0, 0.0, 2048.0, 2048.0));
    let mut rng = Lcg(11);
    let rects: Vec<Rect> = (0..60_000)
        .map(|i| {
            let (x, y) = (rng.unit() * 2100.0 - 30.0, rng.unit() * 2100.0 - 30.0);
            let side = if i % 5000 == 0 { 700.0 } else { 3.0 };
            Rect::new(x, y, x + side, y + side)
        })
        .collect();
    let ids = vec![0; rects.len()];
    let mut handles = Vec::new();
    tree.insert_many(&rects, &ids, &mut handles).unwrap();
    let moved: Vec<Rect> = rects
        .iter()
        .map(|r| Rect::new(r.x1 + 1.5, r.y1 - 0.5, r.x2 + 1.5, r.y2 - 0.5))
        .collect();
    let before = tree.clone();
    tree.update_many(&handles, &moved).unwrap();
    par_update_many_moves_as_update_many(&before, &tree, &handles, &moved);
    // Once as moved, then as after a frame's queries and `cleanup` (a grid
    // then reads its cells as contiguous runs).
    same_on_every_thread_count(&tree, &handles, &moved);
    let (mut offsets, mut hits) = (Vec::new(), Vec::new());
    tree.query_many(
        &Query::of_rects(&moved, None).unwrap(),
        &mut offsets,
        &mut hits,
    )
    .unwrap();
    tree.cleanup();
    same_on_every_thread_count(&tree, &handles, &moved);
    let mut empty = make(Rect::new(0.0, 0.0, 1.0, 1.0));
    let e = empty
        .par_overlapping_many(&vec![handles[0]; 2000], &mut offsets, &mut hits)
        .unwrap_err();
    assert!(matches!(e, Error::InBatch { index: 0, .. }), "{e:?}");
    let _ = empty.insert(Rect::new(0.0, 0.0, 0.5, 0.5), 0);
}

/// `par_update_many` leaves `before` as `update_many` left `after`, on pools
/// of 2 and 8 threads, for the batch and the batch reversed (its checks run
/// in parallel; the grid's parallel moves, from 400,000, are held to the
/// serial lists in the grid's unit tests); a bad item at the end of the batch
/// is the one reported and moves nothing.
#[cfg(feature = "rayon")]
fn par_update_many_moves_as_update_many<T: Subject>(
    before: &T,
    after: &T,
    handles: &[Handle],
    rects: &[Rect],
) {
    let mut expected = Vec::new();
    after.pairs(&mut expected);
    let reversed: (Vec<Handle>, Vec<Rect>) = handles.iter().zip(rects).rev().unzip();
    for threads in [2, 8] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut moved = before.clone();
        pool.install(|| moved.par_update_many(handles, rects))
            .unwrap();
        moved.validate().unwrap();
        let mut pairs = Vec::new();
        moved.pairs(&mut pairs);
        assert_eq!(pairs, expected, "{threads} threads: the lists differ");
        assert_eq!(moved.stats().elements, after.stats().elements);
        for (&h, &r) in handles.iter().zip(rects).step_by(97) {
            assert_eq!(moved.rect(h), Ok(r));
        }
        let mut moved = before.clone();
        pool.install(|| moved.par_update_many(&reversed.0, &reversed.1))
            .unwrap();
        moved.validate().unwrap();
        moved.pairs(&mut pairs);
        assert_eq!(
            normal(&pairs),
            normal(&expected),
            "{threads} threads, reversed"
        );
        // A bad rectangle last: reported at its index, nothing moved.
        let mut bad = rects.to_vec();
        let last = bad.len() - 1;
        bad[last] = Rect::new(f32::NAN, 0.0, 1.0, 1.0);
        let mut unmoved = before.clone();
        let e = pool
            .install(|| unmoved.par_update_many(handles, &bad))
            .unwrap_err();
        assert!(
            matches!(e, Error::InBatch { index, .. } if index == last),
            "{e:?}"
        );
        unmoved.pairs(&mut pairs);
        // On a copy: a walk counts towards a grid's runs, and the next
        // thread count's copies of `before` must take the lists, as `after` did.
        let mut unchanged = Vec::new();
        before.clone().pairs(&mut unchanged);
        assert_eq!(pairs, unchanged, "{threads} threads: a refused batch moved");
    }
}

#[cfg(feature = "rayon")]
fn same_on_every_thread_count<T: Subject>(tree: &T, handles: &[Handle], rects: &[Rect]) {
    let mut seq = Vec::new();
    tree.pairs(&mut seq);
    assert!(!seq.is_empty());
    let (mut o1, mut h1) = (Vec::new(), Vec::new());
    tree.overlapping_many(&handles[..20_000], &mut o1, &mut h1)
        .unwrap();
    let (mut q1, mut qh1) = (Vec::new(), Vec::new());
    tree.query_many(
        &Query::of_rects(&rects[..5000], None).unwrap(),
        &mut q1,
        &mut qh1,
    )
    .unwrap();
    for threads in [1, 2, 8] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut par = Vec::new();
            tree.par_pairs(&mut par);
            assert_eq!(normal(&par), normal(&seq), "{threads} threads");
            assert!(
                par == seq,
                "{threads} threads: not the one-thread walk's order"
            );
            let (mut o2, mut h2) = (Vec::new(), Vec::new());
            tree.par_overlapping_many(&handles[..20_000], &mut o2, &mut h2)
                .unwrap();
            assert_eq!(o1, o2, "{threads} threads");
            assert_eq!(rows(&o1, &h1), rows(&o2, &h2), "{threads} threads");
            tree.par_query_many(
                &Query::of_rects(&rects[..5000], None).unwrap(),
                &mut o2,
                &mut h2,
            )
            .unwrap();
            assert_eq!(q1, o2, "{threads} threads");
            assert_eq!(rows(&q1, &qh1), rows(&o2, &h2), "{threads} threads");
        });
    }
}

/// One leaf or cell holding everything (a tree of max_depth 0, a grid of one
/// cell): the pair-by-pair test (few elements), the sorted sweep (dozens) and
/// the in-place walk (hundreds) must all find exactly the brute-force pairs,
/// touching edges and degenerate rectangles included.
fn every_leaf_pair_strategy_matches_brute_force<T: Subject>(make: fn(Rect) -> T) {
    for n in [2, 20, 24, 25, 60, 128, 129, 400] {
        let mut rng = Lcg(n);
        let mut tree = make(Rect::new(0.0, 0.0, 16.0, 16.0));
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
                if common::meets(ra, rb) {
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

per_structure! {
    quadtree: |world| Quadtree::new(world, 4, 7),
    grid: |world| Grid::new(world, 64, 64),
    loose_grid: |world| LooseGrid::new(world, 32, 32, 16, 16),
    loose_quadtree: |world| LooseQuadtree::new(world, 4, 7);
    query_many_matches_brute_force_with_and_without_omit,
    overlapping_many_matches_query_many_with_own_rectangles,
    element_batches_match_single_queries,
    query_many_refuses_bad_batches_and_writes_nothing,
    columns_answer_as_the_whole_batch,
}

#[cfg(feature = "rayon")]
per_structure! {
    quadtree: |world| Quadtree::new(world, 16, 8),
    grid: |world| Grid::new(world, 512, 512),
    loose_grid: |world| LooseGrid::new(world, 256, 256, 128, 128),
    loose_quadtree: |world| LooseQuadtree::new(world, 16, 8);
    parallel_queries_agree_with_sequential_ones,
    parallel_pairs_agree_with_sequential_ones,
    thread_counts_do_not_change_results,
}

per_structure! {
    quadtree: |world| Quadtree::new(world, 8, 0),
    grid: |world| Grid::new(world, 1, 1),
    loose_grid: |world| LooseGrid::new(world, 1, 1, 1, 1),
    loose_quadtree: |world| LooseQuadtree::new(world, 8, 0);
    every_leaf_pair_strategy_matches_brute_force,
}
