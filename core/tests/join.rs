//! Bulk queries and joins (`flatquad::join`) against brute force, on every
//! structure; and the `f64` guarantee: boxes given in `f64` and rounded by
//! `Rect::from_f64` never lose a pair whose closed boxes meet in `f64`, at
//! world scales up to ±1e7 with sub-metre boxes.

use std::collections::BTreeSet;

use flatquad::join::{self, Boxes};
use flatquad::{AnyIndex, Kind, Query, Rect, SpatialIndex};
use proptest::prelude::*;

/// A box in `f64`: `(x1, y1, x2, y2)`.
type Box64 = [f64; 4];

fn meets64(a: &Box64, b: &Box64) -> bool {
    a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3]
}

fn round(b: &Box64) -> Rect {
    Rect::from_f64(b[0], b[1], b[2], b[3])
}

/// Boxes around `centre` (a world scale up to 1e7), each `size` or less on a
/// side (sub-metre when `size` < 1), spread over `spread`.
fn boxes(scale: f64, spread: f64, size: f64, n: usize) -> impl Strategy<Value = Vec<Box64>> {
    prop::collection::vec(
        (-1.0f64..1.0, -1.0f64..1.0, 0.0f64..1.0, 0.0f64..1.0, 0u8..4),
        0..n,
    )
    .prop_map(move |raw| {
        raw.into_iter()
            .map(|(x, y, w, h, snap)| {
                let (x1, y1) = (scale + x * spread, -scale + y * spread);
                // Some boxes exactly touch a neighbour's edge in f64.
                let (w, h) = if snap == 0 {
                    (0.0, 0.0)
                } else {
                    (w * size, h * size)
                };
                [x1, y1, x1 + w, y1 + h]
            })
            .collect()
    })
}

/// Every `(i, j)` whose `f64` boxes meet.
fn exact64(left: &[Box64], right: &[Box64]) -> BTreeSet<(usize, usize)> {
    let mut out = BTreeSet::new();
    for (i, a) in left.iter().enumerate() {
        for (j, b) in right.iter().enumerate() {
            if meets64(a, b) {
                out.insert((i, j));
            }
        }
    }
    out
}

/// Every `(i, j)` whose rounded (`f32`) boxes meet: what flatquad must return exactly.
fn exact32(left: &[Rect], right: &[Rect]) -> BTreeSet<(usize, usize)> {
    let mut out = BTreeSet::new();
    for (i, a) in left.iter().enumerate() {
        for (j, b) in right.iter().enumerate() {
            if a.intersects(b) {
                out.insert((i, j));
            }
        }
    }
    out
}

fn scenario() -> impl Strategy<Value = (Vec<Box64>, Vec<Box64>)> {
    (
        prop_oneof![Just(0.0), Just(1e3), Just(1e5), Just(1e7), Just(-1e7)],
        prop_oneof![Just(2.0), Just(50.0)],
    )
        .prop_flat_map(|(scale, spread)| {
            (boxes(scale, spread, 0.9, 60), boxes(scale, spread, 0.9, 60))
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// `Boxes::query_bulk` on rounded `f64` boxes: exactly the `f32` answer,
    /// which holds every `f64` pair, on every structure; sorted and not.
    #[test]
    fn f64_pairs_are_never_lost((left, right) in scenario()) {
        let (l32, r32): (Vec<Rect>, Vec<Rect>) =
            (left.iter().map(round).collect(), right.iter().map(round).collect());
        let want = exact32(&l32, &r32);
        let truth = exact64(&left, &right);
        prop_assert!(truth.is_subset(&want), "rounding lost a pair");
        for kind in Kind::ALL_2D {
            let boxes = Boxes::new(&r32, kind).unwrap();
            for sorted in [false, true] {
                let (mut rows, mut positions) = (Vec::new(), Vec::new());
                boxes.query_bulk(&l32, sorted, &mut rows, &mut positions).unwrap();
                let got: Vec<(usize, usize)> = rows.iter().copied().zip(positions.iter().copied()).collect();
                let set: BTreeSet<_> = got.iter().copied().collect();
                prop_assert_eq!(set.len(), got.len(), "{:?}: a pair twice", kind);
                prop_assert_eq!(&set, &want, "{:?}", kind);
                prop_assert!(got.windows(2).all(|w| w[0].0 <= w[1].0), "rows out of order");
                if sorted {
                    prop_assert!(got.windows(2).all(|w| w[0] < w[1]), "not sorted");
                }
            }
        }
    }

    /// `join::join` and `join::query_bulk` on two live structures (elements
    /// removed and moved first) agree with brute force, each pair once.
    #[test]
    fn index_joins_match_brute_force((left, right) in scenario(), kinds in (0usize..4, 0usize..4)) {
        let (l32, r32): (Vec<Rect>, Vec<Rect>) =
            (left.iter().map(round).collect(), right.iter().map(round).collect());
        let world = |rects: &[Rect]| rects.first().map_or(Rect::new(0.0, 0.0, 1.0, 1.0), |r| {
            Rect::from_f64(f64::from(r.x1) - 10.0, f64::from(r.y1) - 10.0, f64::from(r.x1) + 10.0, f64::from(r.y1) + 10.0)
        });
        let build = |kind: Kind, rects: &[Rect]| {
            let mut index = AnyIndex::for_world(kind, world(rects)).unwrap();
            let ids: Vec<u32> = (0..rects.len() as u32).collect();
            let mut handles = Vec::new();
            index.insert_many(rects, &ids, &mut handles).unwrap();
            // Stale slots in the middle: the answers must skip them.
            let gone: Vec<_> = handles.iter().copied().step_by(5).collect();
            index.remove_many(&gone).unwrap();
            index.cleanup();
            index
        };
        let (a, b) = (build(Kind::ALL_2D[kinds.0], &l32), build(Kind::ALL_2D[kinds.1], &r32));
        let live = |index: &AnyIndex| index.iter().map(|(_, r, id)| (id as usize, r)).collect::<Vec<_>>();
        let (la, lb) = (live(&a), live(&b));
        let mut want = BTreeSet::new();
        for &(i, ra) in &la {
            for &(j, rb) in &lb {
                if ra.intersects(&rb) {
                    want.insert((i, j));
                }
            }
        }
        for sorted in [false, true] {
            let (mut lefts, mut rights) = (Vec::new(), Vec::new());
            join::join(&a, &b, sorted, &mut lefts, &mut rights);
            let got: Vec<(usize, usize)> = lefts.iter().zip(&rights)
                .map(|(&x, &y)| (a.id(x).unwrap() as usize, b.id(y).unwrap() as usize)).collect();
            let set: BTreeSet<_> = got.iter().copied().collect();
            prop_assert_eq!(set.len(), got.len());
            prop_assert_eq!(&set, &want);
            if sorted {
                let raw: Vec<_> = lefts.iter().zip(&rights).map(|(x, y)| (*x, *y)).collect();
                prop_assert!(raw.windows(2).all(|w| w[0] < w[1]));
            }
            let queries: Vec<Rect> = la.iter().map(|&(_, r)| r).collect();
            let (mut rows, mut hits) = (Vec::new(), Vec::new());
            join::query_bulk(&b, &queries, sorted, &mut rows, &mut hits).unwrap();
            let got: BTreeSet<(usize, usize)> = rows.iter().zip(&hits)
                .map(|(&row, &h)| (la[row].0, b.id(h).unwrap() as usize)).collect();
            prop_assert_eq!(got.len(), rows.len());
            prop_assert_eq!(&got, &want);
        }
    }
}

/// Bad input is refused with the item's position, and nothing is written.
#[test]
fn bad_boxes_are_refused() {
    let good = Rect::new(0.0, 0.0, 1.0, 1.0);
    let bad = Rect::new(f32::NAN, 0.0, 1.0, 1.0);
    let err = Boxes::new(&[good, bad], Kind::Grid).unwrap_err();
    assert_eq!(err.batch_index(), Some(1));
    let boxes = Boxes::new(&[good], Kind::Quadtree).unwrap();
    let (mut rows, mut positions) = (vec![7], vec![7]);
    let err = boxes
        .query_bulk(
            &[good, good, Rect::new(2.0, 0.0, 1.0, 1.0)],
            false,
            &mut rows,
            &mut positions,
        )
        .unwrap_err();
    assert_eq!(err.batch_index(), Some(2));
    assert!(rows.is_empty() && positions.is_empty());
}

/// Empty sides, a single point, and every box at one spot.
#[test]
fn degenerate_inputs() {
    for kind in Kind::ALL_2D {
        let (mut rows, mut positions) = (Vec::new(), Vec::new());
        let none = Boxes::new(&[], kind).unwrap();
        assert!(none.is_empty());
        none.query_bulk(
            &[Rect::new(0.0, 0.0, 1.0, 1.0)],
            true,
            &mut rows,
            &mut positions,
        )
        .unwrap();
        assert!(rows.is_empty());
        let point = Rect::point(1e7, -1e7);
        let stack = Boxes::new(&[point; 5], kind).unwrap();
        stack
            .query_bulk(
                &[point, Rect::point(0.0, 0.0)],
                true,
                &mut rows,
                &mut positions,
            )
            .unwrap();
        assert_eq!(rows, [0; 5]);
        assert_eq!(positions, [0, 1, 2, 3, 4]);
        stack
            .query_bulk(&[], true, &mut rows, &mut positions)
            .unwrap();
        assert!(rows.is_empty());
        // Boxes as wide as f32 allows (their widths overflow to infinity):
        // the structure is still sized to something finite, and exact.
        let huge = [
            Rect::new(-3e38, -3e38, 3e38, 3e38),
            Rect::new(0.0, 0.0, 1.0, 1.0),
            Rect::new(f32::MAX, f32::MAX, f32::MAX, f32::MAX),
        ];
        let wide = Boxes::new(&huge, kind).unwrap();
        wide.query_bulk(
            &[Rect::point(0.5, 0.5), Rect::point(f32::MAX, f32::MAX)],
            true,
            &mut rows,
            &mut positions,
        )
        .unwrap();
        assert_eq!(
            (&rows[..], &positions[..]),
            (&[0, 0, 1][..], &[0, 1, 2][..]),
            "{kind:?}"
        );
    }
}

/// Whether closed box `r` meets the half-open piece `[x1, x2) × [y1, y2)`.
fn meets_piece(r: &Rect, piece: &Rect) -> bool {
    r.x1 < piece.x2 && piece.x1 <= r.x2 && r.y1 < piece.y2 && piece.y1 <= r.y2
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// A join cut into half-open pieces (each piece joining every box that
    /// meets it, as a distributed join's cells do) and filtered by the corner
    /// rule (`query_bulk_owned`) finds every pair exactly once.
    #[test]
    fn pieces_with_the_corner_rule_find_each_pair_once(
        (left, right) in scenario(),
        xs in prop::collection::vec(-1.0f64..1.0, 0..4),
        ys in prop::collection::vec(-1.0f64..1.0, 0..4),
    ) {
        let (l32, r32): (Vec<Rect>, Vec<Rect>) =
            (left.iter().map(round).collect(), right.iter().map(round).collect());
        let centre = l32.first().map_or((0.0, 0.0), |r| (f64::from(r.x1), f64::from(r.y1)));
        // Borders near the data (some exactly on a box's edge), infinite ends.
        let borders = |cuts: &[f64], at: f64, on: Option<f32>| {
            let mut b: Vec<f32> = cuts.iter().map(|c| (at + c * 30.0) as f32).collect();
            b.extend(on);
            b.sort_by(f32::total_cmp);
            b.dedup();
            let mut all = vec![f32::NEG_INFINITY];
            all.extend(b);
            all.push(f32::INFINITY);
            all
        };
        let bx = borders(&xs, centre.0, r32.first().map(|r| r.x2));
        let by = borders(&ys, centre.1, l32.get(1).map(|r| r.y1));
        let mut found = Vec::new();
        for cx in bx.windows(2) {
            for cy in by.windows(2) {
                let piece = Rect::new(cx[0], cy[0], cx[1], cy[1]);
                let (lp, lpos): (Vec<Rect>, Vec<usize>) = l32.iter().enumerate()
                    .filter(|(_, r)| meets_piece(r, &piece)).map(|(i, r)| (*r, i)).unzip();
                let (rp, rpos): (Vec<Rect>, Vec<usize>) = r32.iter().enumerate()
                    .filter(|(_, r)| meets_piece(r, &piece)).map(|(i, r)| (*r, i)).unzip();
                let boxes = Boxes::new(&rp, Kind::Grid).unwrap();
                let (mut rows, mut positions) = (Vec::new(), Vec::new());
                boxes.query_bulk_owned(&lp, Some(piece), true, &mut rows, &mut positions).unwrap();
                found.extend(rows.iter().zip(&positions).map(|(&i, &j)| (lpos[i], rpos[j])));
            }
        }
        let set: BTreeSet<_> = found.iter().copied().collect();
        prop_assert_eq!(set.len(), found.len(), "a pair in two pieces");
        prop_assert_eq!(set, exact32(&l32, &r32));
    }
}

#[test]
fn a_nan_owner_is_refused() {
    let boxes = Boxes::new(&[Rect::new(0.0, 0.0, 1.0, 1.0)], Kind::Grid).unwrap();
    let (mut rows, mut positions) = (Vec::new(), Vec::new());
    let owner = Rect::new(f32::NAN, 0.0, 1.0, 1.0);
    assert!(boxes
        .query_bulk_owned(
            &[Rect::new(0.0, 0.0, 1.0, 1.0)],
            Some(owner),
            false,
            &mut rows,
            &mut positions
        )
        .is_err());
}

/// Big batches go through the spatially ordered path: the rows must come back
/// in the caller's order, each with exactly one query's hits, on every structure
/// (queries partly outside the world included) but the grid, which orders
/// bulk queries only over many more elements (the crate's unit tests take it
/// through the ordered path). 70,000 queries are answered in two blocks
/// (`QueryColumns`); the bad rectangle is in the second.
#[test]
fn big_batches_in_spatial_order_keep_their_rows() {
    let mut seed = 99u64;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 40) as f32 / (1u64 << 24) as f32
    };
    let mut boxes = |n: usize, reach: f32| -> Vec<Rect> {
        (0..n)
            .map(|_| {
                let (x, y) = (next() * reach - 50.0, next() * reach - 50.0);
                Rect::new(x, y, x + next() * 8.0, y + next() * 8.0)
            })
            .collect()
    };
    let right = boxes(6000, 1000.0);
    let left = boxes(70_000, 1100.0);
    for kind in Kind::ALL_2D {
        let tree = Boxes::new(&right, kind).unwrap();
        let (mut rows, mut positions) = (Vec::new(), Vec::new());
        tree.query_bulk(&left, true, &mut rows, &mut positions)
            .unwrap();
        let mut want = Vec::new();
        let mut hits = Vec::new();
        for (i, q) in left.iter().enumerate() {
            tree.index().query(&Query::rect(*q), &mut hits).unwrap();
            let mut row: Vec<usize> = hits
                .iter()
                .map(|&h| tree.index().id(h).unwrap() as usize)
                .collect();
            row.sort_unstable();
            want.extend(row.into_iter().map(|j| (i, j)));
        }
        let got: Vec<(usize, usize)> = rows.into_iter().zip(positions.iter().copied()).collect();
        assert!(want.len() > 5_000, "{kind:?}: too few pairs to test");
        assert_eq!(got, want, "{kind:?}");
        // The generic call on a live structure too.
        let (mut rows, mut handles) = (Vec::new(), Vec::new());
        join::query_bulk(tree.index(), &left, true, &mut rows, &mut handles).unwrap();
        assert_eq!(rows.len(), want.len());
        assert!(rows.windows(2).all(|w| w[0] <= w[1]));
        let bad = {
            let mut l = left.clone();
            l[68_000] = Rect::new(1.0, 0.0, 0.0, 1.0);
            l
        };
        let err = join::query_bulk(tree.index(), &bad, true, &mut rows, &mut handles).unwrap_err();
        assert_eq!(err.batch_index(), Some(68_000));
        assert!(rows.is_empty() && handles.is_empty());
    }
}
