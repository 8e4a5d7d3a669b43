//! Random operation sequences against a brute-force model, on every structure
//! (a quadtree, a uniform grid and a loose grid of several shapes each) over
//! the same six worlds.
//!
//! Every operation runs on the structure and on a `BTreeMap` of the live
//! elements; results must agree exactly (closed rectangles, touching counts),
//! refused operations must return the right error and leave the structure
//! bit-for-bit as it was, and `validate()` must pass after every operation.
//! Coordinates are drawn mostly from a small set per world and structure (its
//! edges, the tree's split lines or the grid's cell borders, their ulp
//! neighbours, points well outside the world), so that collisions, touching
//! edges, degenerate rectangles and stacks of elements at one spot are all
//! common.
//!
//! `PROPTEST_CASES=n` (256 by default) sets the number of cases per world:
//! each structure runs `n / 3` of them (see [`config`]). `MODEL_STATS=1`
//! prints the final `stats()` of every case, to see how deep the generated
//! trees get.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::ops::ControlFlow;

use common::{
    brute_neighbours, brute_pairs, brute_point, brute_query, check_fresh_handle, check_traverse,
    is_good, next_down, next_up, pairs_sorted, query_point_sorted, query_sorted, snapshot, Lcg,
    Shape, Subject,
};
use flatquad::{
    AnyIndex, Error, Grid, Handle, Kind, NodeInfo, Quadtree, Query, Rect, SpatialIndex, Stats,
};
use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::{Config, TestRunner};

// ---------------------------------------------------------------------------
// Operations

/// Which handle an operation names, resolved against the model when it runs.
#[derive(Clone, Debug)]
enum Sel {
    /// The `i % len`-th live handle (in handle order); a never-valid one if none.
    Live(usize),
    /// A handle that was removed or cleared (a never-valid one if none yet).
    Dead(usize),
    /// A live handle's slot with the next generation: never issued yet.
    NextGen(usize),
    /// Any raw value.
    Raw(u64),
}

#[derive(Clone, Debug)]
enum Op {
    Insert(Rect, u32),
    /// Items, and `Some(k)` to pass `k` ids instead of one per rectangle.
    InsertMany(Vec<(Rect, u32)>, Option<usize>),
    Remove(Sel),
    RemoveMany(Vec<Sel>),
    Update(Sel, Rect),
    /// Items, and `Some(k)` to pass `k` rectangles instead of one per handle.
    UpdateMany(Vec<(Sel, Rect)>, Option<usize>),
    Cleanup,
    Clear,
    Query(Rect, Option<Sel>),
    QueryPoint(f32, f32, Option<Sel>),
    Pairs,
    Traverse,
    Inspect(Sel),
    /// An update of a live element to a rectangle close to its own: shifted by
    /// `(dx, dy)` world fractions, or one edge moved by one ulp (`edge` 0..4 for
    /// x1, y1, x2, y2; outwards or inwards), to cross split lines or stay put.
    Nudge {
        target: Sel,
        dx: f32,
        dy: f32,
        edge: Option<(u8, bool)>,
    },
    /// `remove_many` of every `stride`-th live handle from `offset` (all of them
    /// for stride 1: big batches take another path), plus maybe one more handle
    /// inserted at some position (stale, forged, or live: then a duplicate).
    RemoveBulk {
        stride: usize,
        offset: usize,
        extra: Option<(usize, Sel)>,
    },
    /// A `side × side` crowd from `(x, y)` with spacing `step`, by `insert_many`:
    /// points, or (`touching`) squares of side `step` that touch their neighbours.
    Crowd {
        x: f32,
        y: f32,
        step: f32,
        side: u8,
        touching: bool,
    },
}

// ---------------------------------------------------------------------------
// Strategies

/// Where a structure divides one axis.
#[derive(Clone, Debug)]
enum Cuts {
    /// A quadtree's halvings.
    Halving,
    /// A grid's cells: each count divides the axis into that many equal cells
    /// (a loose grid's loose and tight cells).
    Cells(Vec<u32>),
}

/// The cuts of `shape` along x and along y.
fn cuts(shape: &Shape) -> (Cuts, Cuts) {
    match *shape {
        Shape::Tree { .. } | Shape::LooseTree { .. } => (Cuts::Halving, Cuts::Halving),
        Shape::Grid { columns, rows } => (Cuts::Cells(vec![columns]), Cuts::Cells(vec![rows])),
        Shape::LooseGrid {
            columns,
            rows,
            tight_columns,
            tight_rows,
        } => (
            Cuts::Cells(vec![columns, tight_columns]),
            Cuts::Cells(vec![rows, tight_rows]),
        ),
    }
}

/// The world and the structure's cuts: what the coordinates are drawn around.
#[derive(Clone, Debug)]
struct Plane {
    world: Rect,
    x: Cuts,
    y: Cuts,
}

/// The discrete coordinates of one axis of the world `[lo, hi]`: fractions of
/// the world from -0.5 to 1.5, ulp neighbours of the edges, both zeros, and the
/// structure's own lines: a tree's possible split lines down to depth 4
/// (computed both by halving in `f32` and in closed form in `f64`, the two ways
/// a quadtree may compute them) with ulp neighbours of the top ones, or a
/// grid's cell borders (computed from the `f32` width and from the `f64` one)
/// with ulp neighbours of the first, middle and last.
fn axis_values(lo: f32, hi: f32, cuts: &Cuts) -> Vec<f32> {
    let (lo64, w64) = (lo as f64, hi as f64 - lo as f64);
    let mut v: Vec<f32> = [
        -0.5, -0.25, -0.01, 0.0, 0.1, 0.25, 0.3, 0.5, 0.7, 0.75, 1.0, 1.01, 1.25, 1.5,
    ]
    .iter()
    .map(|f| (lo64 + f * w64) as f32)
    .collect();
    let w = hi - lo;
    let mut near = vec![lo, hi];
    match cuts {
        Cuts::Halving => {
            let mut half = w * 0.5;
            let mut centres = vec![lo + half];
            for _ in 0..4 {
                v.extend(&centres);
                half *= 0.5;
                centres = centres.iter().flat_map(|&c| [c - half, c + half]).collect();
            }
            for depth in 1..=4 {
                let step = w as f64 / (1u32 << depth) as f64;
                v.extend((1..1u32 << depth).map(|k| (lo64 + k as f64 * step) as f32));
            }
            let cx = lo + w * 0.5;
            near.extend([cx, cx - w * 0.5 * 0.5, cx + w * 0.5 * 0.5]);
        }
        Cuts::Cells(counts) => {
            for &n in counts {
                let border32 = |k: u32| (lo64 + k as f64 * (w as f64 / n as f64)) as f32;
                let border64 = |k: u32| (lo64 + k as f64 * (w64 / n as f64)) as f32;
                v.extend((1..n).flat_map(|k| [border32(k), border64(k)]));
                near.extend(
                    [1, n / 2, n - 1]
                        .into_iter()
                        .filter(|&k| 0 < k && k < n)
                        .map(border32),
                );
            }
        }
    }
    for c in near {
        v.push(next_up(c));
        v.push(next_down(c));
    }
    v.push(0.0);
    v.push(-0.0);
    v
}

fn coord(lo: f32, hi: f32, cuts: &Cuts) -> BoxedStrategy<f32> {
    let w = hi as f64 - lo as f64;
    let far = [
        f32::MIN,
        f32::MAX,
        -1e30,
        1e30,
        (lo as f64 - 100.0 * w) as f32,
        (hi as f64 + 100.0 * w) as f32,
    ];
    prop_oneof![
        12 => select(axis_values(lo, hi, cuts)),
        4 => (0.0f64..1.0).prop_map(move |t| (lo as f64 - 0.5 * w + 2.0 * t * w) as f32),
        1 => select(far.to_vec()),
    ]
    .boxed()
}

/// A closed interval of one axis: a single value, a short one (a dyadic
/// fraction of the world, so edges land on split lines and touch often), or
/// one between two coordinates (often long).
fn interval(lo: f32, hi: f32, cuts: &Cuts) -> impl Strategy<Value = (f32, f32)> {
    let w = hi - lo;
    let lengths: Vec<f32> = [1024.0, 256.0, 64.0, 16.0, 8.0, 4.0]
        .iter()
        .map(|d| w / d)
        .collect();
    prop_oneof![
        2 => coord(lo, hi, cuts).prop_map(|a| (a, a)),
        3 => (coord(lo, hi, cuts), select(lengths)).prop_map(|(a, d)| {
            let b = a + d;
            if b.is_finite() { (a, b) } else { (a, a) }
        }),
        2 => (coord(lo, hi, cuts), coord(lo, hi, cuts)).prop_map(|(a, b)| (a.min(b), a.max(b))),
    ]
}

fn good_rect(plane: &Plane) -> BoxedStrategy<Rect> {
    let world = plane.world;
    (
        interval(world.x1, world.x2, &plane.x),
        interval(world.y1, world.y2, &plane.y),
    )
        .prop_map(|((x1, x2), (y1, y2))| Rect::new(x1, y1, x2, y2))
        .boxed()
}

/// A rectangle the tree must refuse: NaN or an infinity in one coordinate, or
/// inverted along one axis.
fn bad_rect(plane: &Plane) -> BoxedStrategy<Rect> {
    (good_rect(plane), 0..6u8, 0..4usize)
        .prop_map(|(r, kind, at)| {
            let mut c: [f32; 4] = r.into();
            match kind {
                0 => c[at] = f32::NAN,
                1 => c[at] = -f32::NAN,
                2 => c[at] = f32::INFINITY,
                3 => c[at] = f32::NEG_INFINITY,
                4 => {
                    // Invert x.
                    c[0] = if c[0] < c[2] { c[2] } else { next_up(c[2]) };
                    c[2] = r.x1.min(r.x2).min(c[0]);
                    if c[0] == c[2] {
                        c[0] = next_up(c[2]);
                    }
                }
                _ => {
                    // Invert y.
                    c[1] = if c[1] < c[3] { c[3] } else { next_up(c[3]) };
                    c[3] = r.y1.min(r.y2).min(c[1]);
                    if c[1] == c[3] {
                        c[1] = next_up(c[3]);
                    }
                }
            }
            Rect::from(c)
        })
        .boxed()
}

fn any_rect(plane: &Plane) -> BoxedStrategy<Rect> {
    prop_oneof![24 => good_rect(plane), 1 => bad_rect(plane)].boxed()
}

fn point_coord(lo: f32, hi: f32, cuts: &Cuts) -> BoxedStrategy<f32> {
    prop_oneof![
        30 => coord(lo, hi, cuts),
        1 => select(vec![f32::NAN, f32::INFINITY, f32::NEG_INFINITY]),
    ]
    .boxed()
}

fn sel() -> BoxedStrategy<Sel> {
    let raws = vec![
        0,
        1,
        u64::MAX,
        1 << 32,
        (1 << 32) | 1,
        (1 << 53) - 1,
        1 << 53,
        (1 << 32) | 999_999,
        ((1 << 21) - 1) << 32,
        1 << 21 << 32,
    ];
    prop_oneof![
        12 => any::<usize>().prop_map(Sel::Live),
        3 => any::<usize>().prop_map(Sel::Dead),
        1 => any::<usize>().prop_map(Sel::NextGen),
        1 => select(raws).prop_map(Sel::Raw),
        1 => any::<u64>().prop_map(Sel::Raw),
    ]
    .boxed()
}

fn op(plane: &Plane) -> BoxedStrategy<Op> {
    let world = plane.world;
    let rect = any_rect(plane);
    let mismatch = prop::option::weighted(0.1, 0..20usize);
    prop_oneof![
        24 => (rect.clone(), any::<u32>()).prop_map(|(r, id)| Op::Insert(r, id)),
        8 => (
            prop::collection::vec((rect.clone(), any::<u32>()), 0..24),
            mismatch.clone()
        )
            .prop_map(|(items, k)| Op::InsertMany(items, k)),
        10 => sel().prop_map(Op::Remove),
        3 => prop::collection::vec(sel(), 0..8).prop_map(Op::RemoveMany),
        16 => (sel(), rect.clone()).prop_map(|(s, r)| Op::Update(s, r)),
        4 => (prop::collection::vec((sel(), rect.clone()), 0..10), mismatch)
            .prop_map(|(items, k)| Op::UpdateMany(items, k)),
        5 => Just(Op::Cleanup),
        1 => Just(Op::Clear),
        16 => (rect, prop::option::of(sel())).prop_map(|(r, s)| Op::Query(r, s)),
        10 => (
            point_coord(world.x1, world.x2, &plane.x),
            point_coord(world.y1, world.y2, &plane.y),
            prop::option::of(sel())
        )
            .prop_map(|(x, y, s)| Op::QueryPoint(x, y, s)),
        5 => Just(Op::Pairs),
        3 => Just(Op::Traverse),
        5 => sel().prop_map(Op::Inspect),
        10 => (
            sel(),
            select(vec![0.0f32, 1.0 / 4096.0, -1.0 / 4096.0, 1.0 / 256.0, -1.0 / 256.0, 1.0 / 16.0]),
            select(vec![0.0f32, 1.0 / 4096.0, -1.0 / 4096.0, 1.0 / 256.0, -1.0 / 256.0, -1.0 / 16.0]),
            prop::option::of((0..4u8, any::<bool>())),
        )
            .prop_map(|(target, dx, dy, edge)| Op::Nudge { target, dx, dy, edge }),
        2 => (
            1..4usize,
            0..4usize,
            prop::option::weighted(0.3, (any::<usize>(), sel()))
        )
            .prop_map(|(stride, offset, extra)| Op::RemoveBulk {
                stride,
                offset,
                extra
            }),
        3 => (
            coord(world.x1, world.x2, &plane.x),
            coord(world.y1, world.y2, &plane.y),
            select((2..=22).map(|k| world.width().min(world.height()) / (1u32 << k) as f32).collect::<Vec<_>>()),
            1..=10u8,
            any::<bool>()
        )
            .prop_map(|(x, y, step, side, touching)| Op::Crowd { x, y, step, side, touching }),
    ]
    .boxed()
}

/// `max_elements`, `max_depth` and the operations of one case.
/// The shapes a case of `kind` is built with: a tree's `max_elements` and
/// `max_depth`; a grid's columns and rows, one cell to 64 × 64, square or not;
/// a loose grid's loose and tight cells, the tight ones as fine as the loose
/// ones or coarser.
fn shape(kind: Kind, world: Rect) -> BoxedStrategy<Shape> {
    match kind {
        Kind::Quadtree => (select(vec![1u32, 2, 8]), select(vec![0u32, 1, 3, 8, 30]))
            .prop_map(|(max_elements, max_depth)| Shape::Tree {
                max_elements,
                max_depth,
            })
            .boxed(),
        Kind::Grid => select(vec![(1, 1), (2, 2), (7, 3), (1, 5), (16, 16), (64, 64)])
            .prop_map(|(columns, rows)| Shape::Grid { columns, rows })
            .boxed(),
        Kind::LooseGrid => select(vec![
            (1, 1, 1, 1),
            (2, 2, 1, 1),
            (2, 2, 2, 2),
            (7, 3, 4, 2),
            (5, 9, 5, 1),
            (16, 16, 8, 8),
            (64, 64, 32, 32),
        ])
        .prop_map(
            |(columns, rows, tight_columns, tight_rows)| Shape::LooseGrid {
                columns,
                rows,
                tight_columns,
                tight_rows,
            },
        )
        .boxed(),
        // Without a bound, or one that keeps elements over 1/2, 1/16 or
        // 1/256 of the world's shorter side apart.
        Kind::LooseQuadtree => (
            select(vec![1u32, 2, 8]),
            select(vec![0u32, 1, 3, 8, 30]),
            select(vec![0.0f32, 2.0, 16.0, 256.0]),
        )
            .prop_map(move |(max_elements, max_depth, divisor)| Shape::LooseTree {
                max_elements,
                max_depth,
                max_extent: (divisor > 0.0)
                    .then(|| (world.width().min(world.height()) / divisor).to_bits()),
            })
            .boxed(),
        Kind::Octree => unreachable!("a 2D model: tests/octree.rs has the Octree's"),
    }
}

/// The shape and the operations of one case.
fn case(world: Rect, kind: Kind) -> impl Strategy<Value = (Shape, Vec<Op>)> {
    shape(kind, world).prop_flat_map(move |shape| {
        let (x, y) = cuts(&shape);
        let plane = Plane { world, x, y };
        (Just(shape), prop::collection::vec(op(&plane), 1..120))
    })
}

/// The cases per world of each structure: a third of `PROPTEST_CASES` (256 by
/// default; at least one). The three together then cost about what the
/// quadtree alone did with all of them (a grid's case costs up to twice a
/// tree's: its cells, up to 64 × 64, are validated, walked and snapshotted
/// after every operation), which keeps `make test` (1,024) well under a
/// minute on two busy cores.
///
/// (The `proptest!` macro would let `PROPTEST_CASES` override any share, so
/// the model runs its own [`TestRunner`].)
fn config() -> Config {
    let per_world: u32 = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(256);
    Config {
        cases: (per_world / 3).max(1),
        // Failures print the minimal sequence; no regression files in the tree.
        failure_persistence: None,
        ..Config::default()
    }
}

/// The property test of one structure over one world: [`config`]'s cases of
/// [`case`], each [`run`]; a failure is shrunk and shown with its shape and
/// operations.
fn check_model(world: Rect, kind: Kind) {
    let mut runner = TestRunner::new(config());
    let result = runner.run(&case(world, kind), |(shape, ops)| {
        run(world, true, shape, &ops);
        Ok(())
    });
    if let Err(error) = result {
        panic!("{kind:?} over {world:?}: {error}\n{runner}");
    }
}

// ---------------------------------------------------------------------------
// The harness

struct Harness {
    index: AnyIndex,
    shape: Shape,
    model: BTreeMap<Handle, (Rect, u32)>,
    /// Handles removed or cleared, in order.
    dead: Vec<Handle>,
    issued: BTreeSet<u64>,
    /// The most elements the structure held at once.
    peak_len: usize,
    /// Elements placed (inserted or moved) so far.
    placements: usize,
    /// `stats().bytes` of the empty structure.
    empty_bytes: usize,
    /// Whether node rectangles are computed without rounding, so every cell
    /// must lie inside the root's (the world, for a grid).
    exact_cells: bool,
}

/// Bytes a grid may hold per element it held at most: a slot, an entry in a
/// list of big elements, links into as many cells as a grid links an element
/// into (a uniform grid at most `Grid::MAX_CELLS_PER_ELEMENT` (32 × 32) and at
/// most a quarter of its cells, a loose grid one), and pools grown to twice
/// that, with room to spare. An element linked into every cell of a 256 × 256
/// grid would cost 512 KiB.
fn bytes_per_element(shape: &Shape) -> usize {
    match *shape {
        Shape::Grid { .. } => {
            // Per cell an element meets: a link (8 bytes) and, once the cells
            // are laid out, a copy in the runs if it is wider than a cell (20
            // bytes), with room for the pools' growth.
            let quarter = (shape.cells() / 4).max(1);
            512 + 48 * quarter.min(Grid::MAX_CELLS_PER_ELEMENT as usize)
        }
        _ => 1024,
    }
}

/// Bytes a loose grid may hold per element placed (inserted or moved): moving
/// an element into a loose cell grows the cell's box, which may list it in
/// more tight cells, and those listings stay until the next cleanup.
const LOOSE_BYTES_PER_PLACEMENT: usize = 256;

fn same_error(got: &Error, want: &Error) {
    // Debug text compares NaN payload-insensitively but every other value exactly.
    assert_eq!(format!("{got:?}"), format!("{want:?}"));
}

impl Harness {
    fn new(world: Rect, shape: Shape, exact_cells: bool) -> Harness {
        let index = shape.build(world);
        assert_eq!(index.kind(), shape.kind());
        if let AnyIndex::Quadtree(tree) = &index {
            assert_eq!(tree.shape(), shape);
        }
        Harness {
            empty_bytes: index.stats().bytes,
            index,
            shape,
            model: BTreeMap::new(),
            dead: Vec::new(),
            issued: BTreeSet::new(),
            peak_len: 0,
            placements: 0,
            exact_cells,
        }
    }

    fn live(&self, h: Handle) -> bool {
        self.model.contains_key(&h)
    }

    fn resolve(&self, s: &Sel) -> Handle {
        match *s {
            Sel::Live(i) if !self.model.is_empty() => {
                *self.model.keys().nth(i % self.model.len()).unwrap()
            }
            Sel::Dead(i) if !self.dead.is_empty() => self.dead[i % self.dead.len()],
            Sel::NextGen(i) if !self.model.is_empty() => {
                let h = *self.model.keys().nth(i % self.model.len()).unwrap();
                Handle::from_raw(h.to_raw() + (1 << 32))
            }
            Sel::Raw(raw) => Handle::from_raw(raw),
            _ => Handle::from_raw(u64::MAX),
        }
    }

    fn elements(&self) -> impl Iterator<Item = (&Handle, &Rect)> {
        self.model.iter().map(|(h, (r, _))| (h, r))
    }

    /// Checks a refused call: the right error, and the structure exactly as before.
    fn refused<T: std::fmt::Debug>(
        &mut self,
        want: Error,
        call: impl FnOnce(&mut AnyIndex) -> Result<T, Error>,
    ) {
        let before = snapshot(&self.index);
        let got = call(&mut self.index).expect_err("a bad call was accepted");
        same_error(&got, &want);
        assert!(!got.to_string().is_empty());
        assert_eq!(
            snapshot(&self.index),
            before,
            "a refused call changed the structure"
        );
    }

    fn apply(&mut self, op: &Op) {
        match op {
            Op::Insert(r, id) => {
                if is_good(r) {
                    let h = self.index.insert(*r, *id).unwrap();
                    check_fresh_handle(h, &mut self.issued);
                    self.model.insert(h, (*r, *id));
                    self.placements += 1;
                } else {
                    self.refused(Error::InvalidRect(*r), |t| t.insert(*r, *id));
                }
            }
            Op::Crowd {
                x,
                y,
                step,
                side,
                touching,
            } => {
                let mut items = Vec::new();
                for i in 0..*side {
                    for j in 0..*side {
                        let (x1, y1) = (x + i as f32 * step, y + j as f32 * step);
                        let r = if *touching {
                            Rect::new(x1, y1, x1 + step, y1 + step)
                        } else {
                            Rect::point(x1, y1)
                        };
                        items.push((r, items.len() as u32));
                    }
                }
                self.apply(&Op::InsertMany(items, None));
            }
            Op::InsertMany(items, ids_len) => {
                let rects: Vec<Rect> = items.iter().map(|x| x.0).collect();
                let mut ids: Vec<u32> = items.iter().map(|x| x.1).collect();
                if let Some(k) = *ids_len {
                    ids.resize(k, 7);
                }
                let want = if ids.len() != rects.len() {
                    Some(Error::LengthMismatch {
                        expected: rects.len(),
                        found: ids.len(),
                    })
                } else {
                    rects
                        .iter()
                        .position(|r| !is_good(r))
                        .map(|i| Error::InBatch {
                            index: i,
                            error: Box::new(Error::InvalidRect(rects[i])),
                        })
                };
                let sentinel = Handle::from_raw(12345);
                match want {
                    Some(want) => self.refused(want, |t| {
                        let mut handles = vec![sentinel];
                        let r = t.insert_many(&rects, &ids, &mut handles);
                        assert_eq!(handles, [sentinel], "a refused batch added handles");
                        r
                    }),
                    None => {
                        let mut handles = vec![sentinel];
                        self.index.insert_many(&rects, &ids, &mut handles).unwrap();
                        assert_eq!(handles.len(), rects.len() + 1);
                        assert_eq!(handles[0], sentinel);
                        for (i, &h) in handles[1..].iter().enumerate() {
                            check_fresh_handle(h, &mut self.issued);
                            self.model.insert(h, (rects[i], ids[i]));
                        }
                        self.placements += rects.len();
                    }
                }
            }
            Op::Remove(s) => {
                let h = self.resolve(s);
                if self.live(h) {
                    self.index.remove(h).unwrap();
                    self.model.remove(&h);
                    self.dead.push(h);
                } else {
                    self.refused(Error::InvalidHandle(h), |t| t.remove(h));
                }
            }
            Op::RemoveMany(sels) => {
                let handles: Vec<Handle> = sels.iter().map(|s| self.resolve(s)).collect();
                self.remove_many(handles);
            }
            Op::RemoveBulk {
                stride,
                offset,
                extra,
            } => {
                let mut handles: Vec<Handle> = self
                    .model
                    .keys()
                    .enumerate()
                    .filter(|(i, _)| i % stride == offset % stride)
                    .map(|(_, h)| *h)
                    .collect();
                if let Some((at, s)) = extra {
                    let h = self.resolve(s);
                    handles.insert(at % (handles.len() + 1), h);
                }
                self.remove_many(handles);
            }
            Op::Nudge {
                target,
                dx,
                dy,
                edge,
            } => {
                let h = self.resolve(target);
                let r = match self.model.get(&h) {
                    Some(&(r, _)) => r,
                    None => Rect::new(0.0, 0.0, 0.0, 0.0),
                };
                let world = self.index.world();
                let (dx, dy) = (dx * world.width(), dy * world.height());
                let mut c = [r.x1 + dx, r.y1 + dy, r.x2 + dx, r.y2 + dy];
                if let Some((at, outwards)) = *edge {
                    let at = at as usize;
                    // Edges 0 and 1 grow downwards, 2 and 3 upwards.
                    c[at] = if (at >= 2) == outwards {
                        common::next_up(c[at])
                    } else {
                        common::next_down(c[at])
                    };
                }
                self.apply(&Op::Update(target.clone(), Rect::from(c)));
            }
            Op::Update(s, r) => {
                let h = self.resolve(s);
                if !is_good(r) {
                    self.refused(Error::InvalidRect(*r), |t| t.update(h, *r));
                } else if !self.live(h) {
                    self.refused(Error::InvalidHandle(h), |t| t.update(h, *r));
                } else {
                    self.index.update(h, *r).unwrap();
                    self.model.get_mut(&h).unwrap().0 = *r;
                    self.placements += 1;
                }
            }
            Op::UpdateMany(items, rects_len) => {
                let handles: Vec<Handle> = items.iter().map(|(s, _)| self.resolve(s)).collect();
                let mut rects: Vec<Rect> = items.iter().map(|x| x.1).collect();
                if let Some(k) = *rects_len {
                    rects.resize(k, Rect::new(0.0, 0.0, 0.0, 0.0));
                }
                let want = if handles.len() != rects.len() {
                    Some(Error::LengthMismatch {
                        expected: handles.len(),
                        found: rects.len(),
                    })
                } else {
                    handles
                        .iter()
                        .zip(&rects)
                        .enumerate()
                        .find_map(|(index, (&h, r))| {
                            let error = if !is_good(r) {
                                Error::InvalidRect(*r)
                            } else if !self.live(h) {
                                Error::InvalidHandle(h)
                            } else {
                                return None;
                            };
                            Some(Error::InBatch {
                                index,
                                error: Box::new(error),
                            })
                        })
                };
                match want {
                    Some(want) => self.refused(want, |t| t.update_many(&handles, &rects)),
                    None => {
                        self.index.update_many(&handles, &rects).unwrap();
                        for (h, r) in handles.iter().zip(&rects) {
                            self.model.get_mut(h).unwrap().0 = *r;
                        }
                        self.placements += rects.len();
                    }
                }
            }
            Op::Cleanup => {
                let before = self.index.stats();
                self.index.cleanup();
                let after = self.index.stats();
                match self.shape {
                    // A tree merges leaves, never splits; links stay.
                    Shape::Tree { .. } | Shape::LooseTree { .. } => {
                        assert!(after.nodes >= 1 && after.nodes <= before.nodes);
                        assert!(after.max_depth_reached <= before.max_depth_reached);
                        assert_eq!(after.element_links, before.element_links);
                    }
                    // A grid's cells never change, nor its links; it may
                    // take memory to lay its cells out contiguously.
                    Shape::Grid { .. } => {
                        assert_eq!(Stats { bytes: 0, ..after }, Stats { bytes: 0, ..before });
                        assert!(after.bytes >= before.bytes);
                    }
                    // A loose grid's boxes shrink: fewer tight listings, if any.
                    Shape::LooseGrid { .. } => {
                        assert_eq!(after.nodes, before.nodes);
                        assert!(after.element_links <= before.element_links);
                    }
                }
            }
            Op::Clear => {
                self.index.clear();
                common::assert_emptied(&self.index, "clear()");
                let old: Vec<Handle> = self.model.keys().copied().collect();
                self.model.clear();
                for &h in &old {
                    assert!(!self.index.contains(h), "{h:?} survived clear()");
                    same_error(&self.index.id(h).unwrap_err(), &Error::InvalidHandle(h));
                    same_error(&self.index.rect(h).unwrap_err(), &Error::InvalidHandle(h));
                    let r = Rect::new(0.0, 0.0, 1.0, 1.0);
                    same_error(
                        &self.index.update(h, r).unwrap_err(),
                        &Error::InvalidHandle(h),
                    );
                }
                if let Some(&h) = old.first() {
                    self.refused(Error::InvalidHandle(h), |t| t.remove(h));
                }
                self.dead.extend(old);
            }
            Op::Query(r, omit) => {
                let omit = omit.as_ref().map(|s| self.resolve(s));
                let got = query_sorted(&self.index, *r, omit);
                if !is_good(r) {
                    same_error(&got.unwrap_err(), &Error::InvalidRect(*r));
                } else if let Some(h) = omit.filter(|&h| !self.live(h)) {
                    same_error(&got.unwrap_err(), &Error::InvalidHandle(h));
                } else {
                    let want = brute_query(self.elements(), r, omit);
                    assert_eq!(got.unwrap(), want, "query {r:?} omitting {omit:?}");
                    // Stopping early stops at once, on a real hit.
                    let mut visits = Vec::new();
                    let flow = self
                        .index
                        .visit(
                            &Query {
                                omit,
                                ..Query::rect(*r)
                            },
                            |h| {
                                visits.push(h);
                                ControlFlow::Break(())
                            },
                        )
                        .unwrap();
                    assert_eq!(flow.is_break(), !want.is_empty());
                    assert!(visits.len() <= 1 && visits.iter().all(|h| want.contains(h)));
                }
            }
            Op::QueryPoint(x, y, omit) => {
                let omit = omit.as_ref().map(|s| self.resolve(s));
                let got = query_point_sorted(&self.index, *x, *y, omit);
                if !(x.is_finite() && y.is_finite()) {
                    same_error(&got.unwrap_err(), &Error::InvalidPoint { x: *x, y: *y });
                } else if let Some(h) = omit.filter(|&h| !self.live(h)) {
                    same_error(&got.unwrap_err(), &Error::InvalidHandle(h));
                } else {
                    let want = brute_point(self.elements(), *x, *y, omit);
                    assert_eq!(
                        got.unwrap(),
                        want,
                        "query_point ({x:?}, {y:?}) omitting {omit:?}"
                    );
                    let as_rect = query_sorted(&self.index, Rect::point(*x, *y), omit).unwrap();
                    assert_eq!(as_rect, want, "query of the point rectangle");
                }
            }
            Op::Pairs => {
                let elements: Vec<(Handle, Rect)> =
                    self.model.iter().map(|(h, (r, _))| (*h, *r)).collect();
                let want = brute_pairs(&elements);
                assert_eq!(pairs_sorted(&self.index), want);
                let mut visits = 0;
                let flow = self.index.pairs_with(|_, _| {
                    visits += 1;
                    ControlFlow::Break(())
                });
                assert_eq!(flow.is_break(), !want.is_empty());
                assert!(visits <= 1);
            }
            Op::Traverse => {
                let infos = check_traverse(&self.index, self.exact_cells);
                self.check_cells(&infos);
            }
            Op::Inspect(s) => {
                let h = self.resolve(s);
                assert_eq!(self.index.contains(h), self.live(h));
                match self.model.get(&h) {
                    Some(&(r, id)) => {
                        assert_eq!(self.index.id(h).unwrap(), id);
                        assert_eq!(common::bits(&self.index.rect(h).unwrap()), common::bits(&r));
                    }
                    None => {
                        same_error(&self.index.id(h).unwrap_err(), &Error::InvalidHandle(h));
                        same_error(&self.index.rect(h).unwrap_err(), &Error::InvalidHandle(h));
                    }
                }
            }
        }
    }

    /// What `traverse` shows of a grid's cells, against the model. A uniform
    /// grid's cell (index `cy * columns + cx`, the border cells owning the
    /// plane beyond the world) holds no more elements than meet it, and no
    /// element covering the world when there are two cells or more: such an
    /// element meets more than a quarter of the cells, so it is kept apart. A
    /// loose grid holds each element in one cell at most, and none more than
    /// 16 of its cells wide or tall (it keeps apart those wider than a few,
    /// whose cell's box would be listed in many tight cells).
    fn check_cells(&self, infos: &[NodeInfo]) {
        let world = self.index.world();
        match self.shape {
            Shape::Tree { .. } | Shape::LooseTree { .. } => {}
            Shape::Grid { columns, rows } => {
                let covers = |r: &Rect| {
                    r.x1 <= world.x1 && world.x2 <= r.x2 && r.y1 <= world.y1 && world.y2 <= r.y2
                };
                let apart = |r: &Rect| columns * rows >= 2 && covers(r);
                for n in infos {
                    let (cx, cy) = (n.index % columns, n.index / columns);
                    // The cell's extent, an ulp wider (its borders are rounded
                    // to f32 once), the border cells reaching to infinity.
                    let edge = |at: bool, v: f32, beyond: f32| if at { beyond } else { v };
                    let extent = Rect::new(
                        edge(cx == 0, next_down(n.rect.x1), f32::NEG_INFINITY),
                        edge(cy == 0, next_down(n.rect.y1), f32::NEG_INFINITY),
                        edge(cx == columns - 1, next_up(n.rect.x2), f32::INFINITY),
                        edge(cy == rows - 1, next_up(n.rect.y2), f32::INFINITY),
                    );
                    let could = self
                        .model
                        .values()
                        .filter(|(r, _)| common::meets(r, &extent) && !apart(r))
                        .count();
                    assert!(
                        n.count as usize <= could,
                        "cell {n:?} holds {} elements, {could} meet it (none covering the world)",
                        n.count
                    );
                }
            }
            Shape::LooseGrid { columns, rows, .. } => {
                let (cell_w, cell_h) = (
                    world.width() as f64 / columns as f64,
                    world.height() as f64 / rows as f64,
                );
                let too_big = |r: &Rect| {
                    r.width() as f64 > 16.001 * cell_w || r.height() as f64 > 16.001 * cell_h
                };
                let small = self.model.values().filter(|(r, _)| !too_big(r)).count();
                let held: usize = infos.iter().map(|n| n.count as usize).sum();
                assert!(
                    held <= small,
                    "{held} elements in cells, {small} no more than 16 cells wide and tall"
                );
            }
        }
    }

    /// `remove_many`, with the error the model expects, if any.
    fn remove_many(&mut self, handles: Vec<Handle>) {
        let mut seen = BTreeSet::new();
        let mut want = None;
        for (index, &h) in handles.iter().enumerate() {
            let error = if !self.live(h) {
                Error::InvalidHandle(h)
            } else if !seen.insert(h) {
                Error::DuplicateHandle(h)
            } else {
                continue;
            };
            want = Some(Error::InBatch {
                index,
                error: Box::new(error),
            });
            break;
        }
        match want {
            Some(want) => self.refused(want, |t| t.remove_many(&handles)),
            None => {
                self.index.remove_many(&handles).unwrap();
                for h in handles {
                    self.model.remove(&h);
                    self.dead.push(h);
                }
            }
        }
    }

    /// Checks run after every operation.
    fn check(&mut self) {
        self.peak_len = self.peak_len.max(self.model.len());
        if let Err(e) = self.index.validate() {
            panic!("validate failed: {e}");
        }
        assert_eq!(self.index.len(), self.model.len());
        assert_eq!(self.index.is_empty(), self.model.is_empty());
        let mut got: Vec<(Handle, [u32; 4], u32)> = self
            .index
            .iter()
            .map(|(h, r, id)| (h, common::bits(&r), id))
            .collect();
        got.sort_unstable();
        let want: Vec<(Handle, [u32; 4], u32)> = self
            .model
            .iter()
            .map(|(h, (r, id))| (*h, common::bits(r), *id))
            .collect();
        assert_eq!(got, want, "iter() disagrees with the model");
        let elements: Vec<(Handle, Rect)> = self.model.iter().map(|(h, (r, _))| (*h, *r)).collect();
        let mut near = Vec::new();
        for ((&h, &(r, id)), want) in self.model.iter().zip(brute_neighbours(&elements)) {
            assert!(self.index.contains(h));
            assert_eq!(self.index.id(h).unwrap(), id);
            assert_eq!(common::bits(&self.index.rect(h).unwrap()), common::bits(&r));
            // An element's neighbours, found from its own leaves or cells.
            self.index.query(&Query::element(h), &mut near).unwrap();
            near.sort_unstable();
            assert_eq!(near, want, "overlapping({h:?})");
        }
        let stats = self.index.stats();
        match self.shape {
            Shape::Tree { max_depth, .. } | Shape::LooseTree { max_depth, .. } => {
                assert!(
                    stats.max_depth_reached <= max_depth,
                    "depth past max_depth: {stats:?}"
                );
                // Splits must separate elements: a split costs four nodes, a
                // leaf splits only past max_elements, so a bounded number of
                // splits per element per level is plenty. Copying elements down
                // without separating them blows this (and, at depth 30, memory) up.
                let budget = 1 + 16 * (self.peak_len + 1) * (max_depth as usize + 1);
                assert!(stats.nodes <= budget, "the tree blew up: {stats:?}");
            }
            // Memory is O(elements + cells): an element as big as the world, or
            // far bigger, must not be linked into every cell it covers.
            Shape::Grid { .. } | Shape::LooseGrid { .. } => {
                let mut budget =
                    self.empty_bytes + bytes_per_element(&self.shape) * (self.peak_len + 1);
                match self.shape {
                    Shape::LooseGrid { .. } => {
                        budget += LOOSE_BYTES_PER_PLACEMENT * self.placements;
                    }
                    // The runs' starts (two `u32` a cell), made at the first
                    // layout: O(cells), as the lists' heads.
                    _ => budget += 16 * (self.shape.cells() + 1) + 256,
                }
                assert!(
                    stats.bytes <= budget,
                    "{:?} blew up: {stats:?} for at most {} elements, {} placed ({} bytes empty)",
                    self.shape,
                    self.peak_len,
                    self.placements,
                    self.empty_bytes
                );
                assert_eq!(stats.nodes, self.shape.cells(), "{stats:?}");
                assert_eq!(stats.max_depth_reached, 0, "{stats:?}");
            }
        }
    }

    /// Removes everything, then cleans up: a tree must get at least one level
    /// shallower with each call, down to the root alone, which stays; a grid
    /// must be back to empty cells and no links.
    fn finish(&mut self) {
        let handles: Vec<Handle> = self.model.keys().copied().collect();
        self.index.remove_many(&handles).unwrap();
        self.model.clear();
        self.check();
        if let Shape::Tree { max_depth, .. } | Shape::LooseTree { max_depth, .. } = self.shape {
            for _ in 0..=max_depth {
                let before = self.index.stats();
                if before.nodes == 1 {
                    break;
                }
                self.index.cleanup();
                self.check();
                let after = self.index.stats();
                assert!(
                    after.max_depth_reached < before.max_depth_reached,
                    "cleanup of an empty tree did not collapse a level: {before:?} -> {after:?}"
                );
            }
            let stats = self.index.stats();
            assert_eq!((stats.nodes, stats.leaves, stats.empty_leaves), (1, 1, 1));
        }
        self.index.cleanup();
        self.check();
        common::assert_emptied(&self.index, "removed all, cleaned up");
        check_traverse(&self.index, self.exact_cells);
        // Still usable.
        let r = Rect::new(0.0, 0.0, 0.0, 0.0);
        let h = self.index.insert(r, 1).unwrap();
        check_fresh_handle(h, &mut self.issued);
        assert_eq!(query_sorted(&self.index, r, None).unwrap(), [h]);
        self.index.validate().unwrap();
    }
}

fn run(world: Rect, exact_cells: bool, shape: Shape, ops: &[Op]) {
    let mut h = Harness::new(world, shape, exact_cells);
    for op in ops {
        h.apply(op);
        h.check();
    }
    h.apply(&Op::Pairs);
    h.apply(&Op::Traverse);
    if std::env::var("MODEL_STATS").is_ok() {
        eprintln!("STATS {shape:?} {:?}", h.index.stats());
    }
    h.finish();
}

const UNIT: Rect = Rect::new(0.0, 0.0, 1.0, 1.0);
const PIXELS: Rect = Rect::new(0.0, 0.0, 4096.0, 4096.0);
const HUGE: Rect = Rect::new(-1e6, -1e6, 1e6, 1e6);
const FLAT: Rect = Rect::new(-3.0, 10.0, 5.0, 10.5);
const TINY: Rect = Rect::new(1e-30, 1e-30, 1e-29, 1e-29);
/// A world at the edge of `f32` resolution: 2^24 has an ulp of 2, so the
/// quarter lines round onto the world's edges and deeper cells are empty.
const COARSE: Rect = Rect::new(16_777_216.0, -2.0, 16_777_224.0, 6.0);

/// `model_worlds! { name: WORLD, ... }`: for each world a module `name` with
/// one property test per structure (`name::quadtree`, `name::grid`,
/// `name::loose_grid`).
macro_rules! model_worlds {
    ($($name:ident: $world:expr),+ $(,)?) => {
        $(
            mod $name {
                use super::*;

                #[test]
                fn quadtree() {
                    check_model($world, Kind::Quadtree);
                }

                #[test]
                fn grid() {
                    check_model($world, Kind::Grid);
                }

                #[test]
                fn loose_grid() {
                    check_model($world, Kind::LooseGrid);
                }

                #[test]
                fn loose_quadtree() {
                    check_model($world, Kind::LooseQuadtree);
                }
            }
        )+
    };
}

model_worlds! {
    model_unit_world: UNIT,
    model_4096_world: PIXELS,
    model_million_world: HUGE,
    model_flat_offset_world: FLAT,
    model_tiny_world: TINY,
    model_coarse_world: COARSE,
}

// ---------------------------------------------------------------------------
// Fixed stress cases

/// Checks every query kind and `pairs()` of `tree` against brute force over
/// `elements`, at the given probe rectangles and points.
fn check_exact<T: SpatialIndex<Bounds = Rect>>(
    tree: &T,
    elements: &[(Handle, Rect)],
    probes: &[Rect],
) {
    tree.validate().unwrap();
    let map: BTreeMap<Handle, Rect> = elements.iter().copied().collect();
    for q in probes {
        assert_eq!(
            query_sorted(tree, *q, None).unwrap(),
            brute_query(map.iter(), q, None),
            "query {q:?}"
        );
        for (x, y) in [(q.x1, q.y1), (q.x2, q.y2), (q.x1, q.y2)] {
            assert_eq!(
                query_point_sorted(tree, x, y, None).unwrap(),
                brute_point(map.iter(), x, y, None),
                "query_point ({x}, {y})"
            );
        }
    }
    if let Some(&(h, r)) = elements.first() {
        assert_eq!(
            query_sorted(tree, r, Some(h)).unwrap(),
            brute_query(map.iter(), &r, Some(h))
        );
    }
    assert_eq!(pairs_sorted(tree), brute_pairs(elements));
}

#[test]
fn many_elements_at_one_point_respect_max_depth() {
    for (world, spots) in [
        (UNIT, vec![(0.5, 0.5), (0.3, 0.7), (1.0, 1.0), (-0.25, 1.5)]),
        (HUGE, vec![(0.0, 0.0), (123.456, -0.001), (2e6, 2e6)]),
        (FLAT, vec![(1.0, 10.25), (4.999, 10.0)]),
    ] {
        for &(x, y) in &spots {
            for max_depth in [8, 30] {
                let mut tree = Quadtree::new(world, 1, max_depth).unwrap();
                let n = 300;
                let mut elements = Vec::new();
                for i in 0..n {
                    let r = Rect::point(x, y);
                    elements.push((tree.insert(r, i).unwrap(), r));
                    if i % 50 == 0 {
                        tree.validate().unwrap();
                    }
                }
                let stats = tree.stats();
                assert!(stats.max_depth_reached <= max_depth, "{stats:?}");
                assert!(stats.nodes <= 4 * max_depth as usize + 1, "{stats:?}");
                check_traverse(&tree, true);
                let pairs = pairs_sorted(&tree);
                assert_eq!(pairs.len(), (n * (n - 1) / 2) as usize);
                let probes = [
                    Rect::point(x, y),
                    Rect::new(x, y, x, y + 1.0),
                    Rect::new(next_up(x), y, next_up(x) + 1.0, y),
                    Rect::new(x - 1.0, next_down(y) - 1.0, x, next_down(y)),
                    Rect::new(f32::MIN, f32::MIN, f32::MAX, f32::MAX),
                ];
                check_exact(&tree, &elements, &probes);
                // One more element an ulp away: still exact.
                let r = Rect::point(next_up(x), y);
                elements.push((tree.insert(r, 999).unwrap(), r));
                check_exact(&tree, &elements, &probes);
            }
        }
    }
}

#[test]
fn elements_covering_the_world_do_not_blow_up() {
    for (world, max_depth) in [(UNIT, 8), (PIXELS, 30), (FLAT, 30), (TINY, 8)] {
        let (w, h) = (world.width(), world.height());
        let mut tree = Quadtree::new(world, 1, max_depth).unwrap();
        let mut elements = Vec::new();
        for i in 0..200 {
            let grow = (i % 7) as f32 * 0.25;
            let r = Rect::new(
                world.x1 - grow * w,
                world.y1 - grow * h,
                world.x2 + grow * w,
                world.y2 + grow * h,
            );
            elements.push((tree.insert(r, i).unwrap(), r));
        }
        tree.validate().unwrap();
        let stats = tree.stats();
        assert!(stats.nodes < 100, "{stats:?}");
        assert!(stats.element_links < 100 * 200, "{stats:?}");
        let probes = [
            world,
            Rect::point(world.x1, world.y1),
            Rect::point(world.x1 + w * 0.5, world.y1 + h * 0.5),
            Rect::new(
                world.x2 + w,
                world.y2 + h,
                world.x2 + 2.0 * w,
                world.y2 + 2.0 * h,
            ),
        ];
        check_exact(&tree, &elements, &probes);

        // Move them around: they still cover the centre, so nothing splits much.
        let handles: Vec<Handle> = elements.iter().map(|e| e.0).collect();
        for (i, e) in elements.iter_mut().enumerate() {
            let s = 1.0 + (i % 3) as f32;
            e.1 = Rect::new(world.x1 - s * w, world.y1, world.x2, world.y2 + s * h);
        }
        let rects: Vec<Rect> = elements.iter().map(|e| e.1).collect();
        tree.update_many(&handles, &rects).unwrap();
        tree.validate().unwrap();
        assert!(tree.stats().nodes < 100, "{:?}", tree.stats());
        check_exact(&tree, &elements, &probes);

        // A few small ones in a corner split only their own path.
        for i in 0..3 {
            let r = Rect::point(world.x1 + w * 0.1 * i as f32, world.y1);
            elements.push((tree.insert(r, 1000 + i).unwrap(), r));
        }
        tree.validate().unwrap();
        // Each small one may split its own path down to max_depth.
        assert!(
            tree.stats().nodes <= 3 * 4 * max_depth as usize + 1,
            "{:?}",
            tree.stats()
        );
        check_exact(&tree, &elements, &probes);
    }
}

/// The grid shapes of the fixed cases: one cell, non-square cells, many cells.
fn grid_shapes() -> [Shape; 6] {
    [
        Shape::Grid {
            columns: 1,
            rows: 1,
        },
        Shape::Grid {
            columns: 7,
            rows: 3,
        },
        Shape::Grid {
            columns: 64,
            rows: 64,
        },
        Shape::LooseGrid {
            columns: 1,
            rows: 1,
            tight_columns: 1,
            tight_rows: 1,
        },
        Shape::LooseGrid {
            columns: 7,
            rows: 3,
            tight_columns: 4,
            tight_rows: 2,
        },
        Shape::LooseGrid {
            columns: 64,
            rows: 64,
            tight_columns: 32,
            tight_rows: 32,
        },
    ]
}

/// A grid's `stats().bytes` within the empty grid's plus
/// [`bytes_per_element`] per element it held at most (`peak`; pools keep
/// their capacity).
fn assert_grid_memory(index: &AnyIndex, empty_bytes: usize, peak: usize, context: &str) {
    let stats = index.stats();
    let peak = peak.max(index.len());
    let budget = empty_bytes + bytes_per_element(&index.shape()) * (peak + 1);
    assert!(
        stats.bytes <= budget,
        "{context}: {:?} blew up: {stats:?} for at most {peak} elements ({empty_bytes} bytes empty)",
        index.shape(),
    );
}

#[test]
fn many_elements_at_one_point_in_a_grid_are_exact() {
    // Cell borders of the 7 × 3 grids of the unit world.
    let (x7, y3) = ((3.0f64 / 7.0) as f32, (1.0f64 / 3.0) as f32);
    for (world, spots) in [
        (
            UNIT,
            vec![(0.5, 0.5), (x7, y3), (0.3, 0.7), (1.0, 1.0), (-0.25, 1.5)],
        ),
        (HUGE, vec![(0.0, 0.0), (123.456, -0.001), (2e6, 2e6)]),
        (FLAT, vec![(1.0, 10.25), (4.999, 10.0)]),
        (COARSE, vec![(16_777_218.0, 2.0), (16_777_224.0, 6.0)]),
    ] {
        for &(x, y) in &spots {
            for shape in grid_shapes() {
                let mut index = shape.build(world);
                let empty_bytes = index.stats().bytes;
                let n = 300;
                let mut elements = Vec::new();
                for i in 0..n {
                    let r = Rect::point(x, y);
                    elements.push((index.insert(r, i).unwrap(), r));
                    if i % 50 == 0 {
                        index.validate().unwrap();
                    }
                }
                check_traverse(&index, true);
                assert_grid_memory(&index, empty_bytes, 0, "a stack at one point");
                let pairs = pairs_sorted(&index);
                assert_eq!(pairs.len(), (n * (n - 1) / 2) as usize);
                let probes = [
                    Rect::point(x, y),
                    Rect::new(x, y, x, y + 1.0),
                    Rect::new(next_up(x), y, next_up(x) + 1.0, y),
                    Rect::new(x - 1.0, next_down(y) - 1.0, x, next_down(y)),
                    Rect::new(f32::MIN, f32::MIN, f32::MAX, f32::MAX),
                ];
                check_exact(&index, &elements, &probes);
                // One more element an ulp away, on the other side of a border
                // if the stack is on one: still exact.
                let r = Rect::point(next_up(x), y);
                elements.push((index.insert(r, 999).unwrap(), r));
                check_exact(&index, &elements, &probes);
            }
        }
    }
}

/// Elements as big as the world and far bigger are not linked into every cell
/// they cover: memory stays within a per-element budget of the empty grid's,
/// and every query stays exact.
#[test]
fn elements_covering_the_world_do_not_blow_up_a_grid() {
    let shapes = [
        Shape::Grid {
            columns: 256,
            rows: 256,
        },
        Shape::Grid {
            columns: 7,
            rows: 3,
        },
        Shape::LooseGrid {
            columns: 256,
            rows: 256,
            tight_columns: 128,
            tight_rows: 128,
        },
        Shape::LooseGrid {
            columns: 256,
            rows: 256,
            tight_columns: 256,
            tight_rows: 256,
        },
    ];
    for world in [UNIT, PIXELS, HUGE, FLAT, TINY, COARSE] {
        for shape in shapes {
            let (w, h) = (world.width(), world.height());
            let mut index = shape.build(world);
            let empty_bytes = index.stats().bytes;
            let mut elements = Vec::new();
            for i in 0..200 {
                let grow = (i % 7) as f32 * 0.25;
                let r = Rect::new(
                    world.x1 - grow * w,
                    world.y1 - grow * h,
                    world.x2 + grow * w,
                    world.y2 + grow * h,
                );
                elements.push((index.insert(r, i).unwrap(), r));
            }
            index.validate().unwrap();
            assert_grid_memory(&index, empty_bytes, 0, "inserted");
            let probes = [
                world,
                Rect::point(world.x1, world.y1),
                Rect::point(world.x1 + w * 0.5, world.y1 + h * 0.5),
                Rect::new(
                    world.x2 + w,
                    world.y2 + h,
                    world.x2 + 2.0 * w,
                    world.y2 + 2.0 * h,
                ),
            ];
            check_exact(&index, &elements, &probes);

            // Move them around, still huge.
            let handles: Vec<Handle> = elements.iter().map(|e| e.0).collect();
            for (i, e) in elements.iter_mut().enumerate() {
                let s = 1.0 + (i % 3) as f32;
                e.1 = Rect::new(world.x1 - s * w, world.y1, world.x2, world.y2 + s * h);
            }
            let rects: Vec<Rect> = elements.iter().map(|e| e.1).collect();
            index.update_many(&handles, &rects).unwrap();
            index.cleanup();
            index.validate().unwrap();
            assert_grid_memory(&index, empty_bytes, 0, "moved");
            check_exact(&index, &elements, &probes);

            // A few small ones in a corner, and the whole plane.
            for i in 0..3 {
                let r = Rect::point(world.x1 + w * 0.1 * i as f32, world.y1);
                elements.push((index.insert(r, 1000 + i).unwrap(), r));
            }
            let r = Rect::new(f32::MIN, f32::MIN, f32::MAX, f32::MAX);
            elements.push((index.insert(r, 2000).unwrap(), r));
            index.validate().unwrap();
            assert_grid_memory(&index, empty_bytes, 0, "small ones added");
            check_exact(&index, &elements, &probes);
            check_traverse(&index, true);

            // Gone again: back to the empty grid's shape.
            let peak = index.len();
            index.remove_many(&handles).unwrap();
            common::cleanup_fully(&mut index);
            assert_grid_memory(&index, empty_bytes, peak, "removed");
            check_exact(&index, &elements[200..], &probes);
        }
    }
}

#[test]
fn cleanup_collapses_to_the_root_and_keeps_it() {
    for (world, max_elements, max_depth) in [
        (UNIT, 1, 8),
        (PIXELS, 2, 30),
        (HUGE, 1, 30),
        (FLAT, 8, 3),
        (TINY, 1, 30),
        (COARSE, 1, 30),
    ] {
        let mut tree = Quadtree::new(world, max_elements, max_depth).unwrap();
        let (w, h) = (world.width(), world.height());
        let mut rng = Lcg(7);
        let mut handles = Vec::new();
        for i in 0..400 {
            let (x, y) = (
                world.x1 + (rng.unit() * 1.5 - 0.25) * w,
                world.y1 + (rng.unit() * 1.5 - 0.25) * h,
            );
            let r = Rect::new(x, y, x + rng.unit() * w * 0.01, y + rng.unit() * h * 0.01);
            handles.push(tree.insert(r, i).unwrap());
        }
        let deep = tree.stats();
        assert!(deep.nodes > 1);
        // Cleanup with everything still there merges nothing.
        tree.cleanup();
        assert_eq!(tree.stats().nodes, deep.nodes);
        // Remove everything in two halves, cleaning up in between.
        let (first, second) = handles.split_at(handles.len() / 2);
        tree.remove_many(first).unwrap();
        tree.cleanup();
        tree.validate().unwrap();
        for &h in second {
            tree.remove(h).unwrap();
        }
        let mut calls = 0;
        while tree.stats().nodes > 1 {
            let before = tree.stats().max_depth_reached;
            tree.cleanup();
            calls += 1;
            tree.validate().unwrap();
            assert!(tree.stats().max_depth_reached < before);
            assert!(calls <= max_depth + 1, "cleanup does not converge");
        }
        for _ in 0..3 {
            tree.cleanup();
            assert_eq!(tree.stats().nodes, 1);
            tree.validate().unwrap();
        }
        let traversed = check_traverse(&tree, true);
        assert_eq!(traversed.len(), 1);
        assert!(traversed[0].is_leaf);
        let h = tree.insert(world, 5).unwrap();
        assert_eq!(query_sorted(&tree, world, None).unwrap(), [h]);
    }
}

/// Elements that a deeper split would separate must not pile up in one leaf
/// just because they all lie in one quadrant of it: a crowd in a corner of a
/// big world is the common case of a world chosen too large.
#[test]
fn two_points_in_one_quadrant_are_separated() {
    let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 16.0, 16.0), 1, 4).unwrap();
    tree.insert(Rect::point(1.0, 1.0), 0).unwrap();
    tree.insert(Rect::point(3.0, 3.0), 1).unwrap();
    tree.validate().unwrap();
    let stats = tree.stats();
    assert!(
        stats.max_depth_reached >= 2,
        "two points 2 apart in a 16-wide world with max_elements 1 share the root leaf: {stats:?}"
    );
}

#[test]
fn a_crowd_in_one_corner_of_the_world_still_splits() {
    let mut tree = Quadtree::new(PIXELS, 8, 8).unwrap();
    let mut rng = Lcg(3);
    let mut elements = Vec::new();
    for i in 0..1000 {
        let (x, y) = (rng.unit() * 1000.0, rng.unit() * 1000.0);
        let r = Rect::new(x, y, x + 2.0, y + 2.0);
        elements.push((tree.insert(r, i).unwrap(), r));
    }
    tree.validate().unwrap();
    let fullest = check_traverse(&tree, true)
        .iter()
        .map(|n| n.count)
        .max()
        .unwrap();
    assert!(
        fullest <= 64,
        "1000 small elements spread over [0, 1000]² of a 4096 world: a leaf holds {fullest} ({:?})",
        tree.stats()
    );
    check_exact(&tree, &elements, &[Rect::new(0.0, 0.0, 500.0, 500.0)]);
}
