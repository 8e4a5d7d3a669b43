//! Helpers shared by the integration tests: an independent brute-force oracle,
//! exact snapshots of a structure, checks of `traverse` and `stats` for each
//! structure, and [`per_structure!`], which runs a generic test once per
//! structure.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use flatquad::{
    AnyIndex, Grid, Handle, Kind, LooseGrid, LooseQuadtree, NodeInfo, Quadtree, Query, Rect,
    SpatialIndex, Stats,
};

// ---------------------------------------------------------------------------
// The structures under test

/// How a structure divides the plane, as its constructor was told.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Tree {
        max_elements: u32,
        max_depth: u32,
    },
    Grid {
        columns: u32,
        rows: u32,
    },
    LooseGrid {
        columns: u32,
        rows: u32,
        tight_columns: u32,
        tight_rows: u32,
    },
    LooseTree {
        max_elements: u32,
        max_depth: u32,
        /// The bits of its `max_extent`, if it has one.
        max_extent: Option<u32>,
    },
}

impl Shape {
    pub fn kind(&self) -> Kind {
        match self {
            Shape::Tree { .. } => Kind::Quadtree,
            Shape::Grid { .. } => Kind::Grid,
            Shape::LooseGrid { .. } => Kind::LooseGrid,
            Shape::LooseTree { .. } => Kind::LooseQuadtree,
        }
    }

    /// A grid's cells (its loose cells for a loose grid); 0 for a tree.
    pub fn cells(&self) -> usize {
        match *self {
            Shape::Tree { .. } | Shape::LooseTree { .. } => 0,
            Shape::Grid { columns, rows } | Shape::LooseGrid { columns, rows, .. } => {
                columns as usize * rows as usize
            }
        }
    }

    /// The structure over `world`.
    pub fn build(&self, world: Rect) -> AnyIndex {
        let index: Result<AnyIndex, flatquad::Error> = match *self {
            Shape::Tree {
                max_elements,
                max_depth,
            } => Quadtree::new(world, max_elements, max_depth).map(Into::into),
            Shape::Grid { columns, rows } => Grid::new(world, columns, rows).map(Into::into),
            Shape::LooseGrid {
                columns,
                rows,
                tight_columns,
                tight_rows,
            } => LooseGrid::new(world, columns, rows, tight_columns, tight_rows).map(Into::into),
            Shape::LooseTree {
                max_elements,
                max_depth,
                max_extent: None,
            } => LooseQuadtree::new(world, max_elements, max_depth).map(Into::into),
            Shape::LooseTree {
                max_elements,
                max_depth,
                max_extent: Some(bits),
            } => {
                LooseQuadtree::with_max_extent(world, max_elements, max_depth, f32::from_bits(bits))
                    .map(Into::into)
            }
        };
        let index = index.unwrap_or_else(|e| panic!("{self:?} over {world:?}: {e}"));
        assert_eq!(index.world(), world);
        assert_eq!(index.shape(), *self, "the parameters it was built with");
        index
    }
}

/// A structure under test: any [`SpatialIndex`], with its shape.
pub trait Subject:
    SpatialIndex<Bounds = Rect> + Clone + std::fmt::Debug + Send + Sync + 'static
{
    fn shape(&self) -> Shape;
    /// Elements held apart from the leaves `traverse` shows (a loose
    /// quadtree's elements over its `max_extent`).
    fn held_apart(&self) -> usize {
        0
    }
}

impl Subject for Quadtree {
    fn shape(&self) -> Shape {
        Shape::Tree {
            max_elements: self.max_elements(),
            max_depth: self.max_depth(),
        }
    }
}

impl Subject for Grid {
    fn shape(&self) -> Shape {
        Shape::Grid {
            columns: self.columns(),
            rows: self.rows(),
        }
    }
}

impl Subject for LooseGrid {
    fn shape(&self) -> Shape {
        Shape::LooseGrid {
            columns: self.columns(),
            rows: self.rows(),
            tight_columns: self.tight_columns(),
            tight_rows: self.tight_rows(),
        }
    }
}

impl Subject for LooseQuadtree {
    fn shape(&self) -> Shape {
        Shape::LooseTree {
            max_elements: self.max_elements(),
            max_depth: self.max_depth(),
            max_extent: self.max_extent().map(f32::to_bits),
        }
    }
    fn held_apart(&self) -> usize {
        self.over_bound_len()
    }
}

impl Subject for AnyIndex {
    fn shape(&self) -> Shape {
        match self {
            AnyIndex::Quadtree(t) => t.shape(),
            AnyIndex::Grid(g) => g.shape(),
            AnyIndex::LooseGrid(g) => g.shape(),
            AnyIndex::LooseQuadtree(t) => t.shape(),
        }
    }
    fn held_apart(&self) -> usize {
        match self {
            AnyIndex::LooseQuadtree(t) => t.held_apart(),
            _ => 0,
        }
    }
}

/// `per_structure! { quadtree: make, grid: make, loose_grid: make,
/// loose_quadtree: make; test, ... }` runs each generic
/// `fn test<T: Subject>(make: fn(Rect) -> T)` once per structure, as the tests
/// `test::quadtree`, `test::grid`, `test::loose_grid` and
/// `test::loose_quadtree`, so a failure names the structure. Each `make` is a
/// closure from the world to the constructor's `Result`.
#[allow(unused_macros)]
macro_rules! per_structure {
    (
        quadtree: $quadtree:expr,
        grid: $grid:expr,
        loose_grid: $loose_grid:expr,
        loose_quadtree: $loose_quadtree:expr;
        $($test:ident),+ $(,)?
    ) => {
        $(
            mod $test {
                use super::*;

                #[test]
                fn quadtree() {
                    super::$test(|world: flatquad::Rect| -> flatquad::Quadtree {
                        ($quadtree)(world).unwrap()
                    })
                }
                #[test]
                fn grid() {
                    super::$test(|world: flatquad::Rect| -> flatquad::Grid {
                        ($grid)(world).unwrap()
                    })
                }
                #[test]
                fn loose_grid() {
                    super::$test(|world: flatquad::Rect| -> flatquad::LooseGrid {
                        ($loose_grid)(world).unwrap()
                    })
                }
                #[test]
                fn loose_quadtree() {
                    super::$test(|world: flatquad::Rect| -> flatquad::LooseQuadtree {
                        ($loose_quadtree)(world).unwrap()
                    })
                }
                /// The same loose quadtree with a `max_extent` of 1/64 of
                /// the world's shorter side: larger elements are kept apart.
                #[test]
                fn loose_quadtree_max_extent() {
                    super::$test(|world: flatquad::Rect| -> flatquad::LooseQuadtree {
                        let plain: flatquad::LooseQuadtree = ($loose_quadtree)(world).unwrap();
                        flatquad::LooseQuadtree::with_max_extent(
                            world,
                            plain.max_elements(),
                            plain.max_depth(),
                            world.width().min(world.height()) / 64.0,
                        )
                        .unwrap()
                    })
                }
            }
        )+
    };
}

// ---------------------------------------------------------------------------
// The oracle

/// Closed-rectangle intersection, written out here so the oracle does not lean
/// on `Rect::intersects` (touching counts).
pub fn meets(a: &Rect, b: &Rect) -> bool {
    a.x1 <= b.x2 && b.x1 <= a.x2 && a.y1 <= b.y2 && b.y1 <= a.y2
}

/// Whether the closed rectangle holds the point (border included).
pub fn holds(r: &Rect, x: f32, y: f32) -> bool {
    r.x1 <= x && x <= r.x2 && r.y1 <= y && y <= r.y2
}

/// The oracle's own notion of a rectangle the tree must accept.
pub fn is_good(r: &Rect) -> bool {
    [r.x1, r.y1, r.x2, r.y2].iter().all(|v| v.is_finite()) && r.x1 <= r.x2 && r.y1 <= r.y2
}

/// The rectangle as bits, so `-0.0`, NaN and every ulp compare exactly.
pub fn bits(r: &Rect) -> [u32; 4] {
    [
        r.x1.to_bits(),
        r.y1.to_bits(),
        r.x2.to_bits(),
        r.y2.to_bits(),
    ]
}

/// One ulp up and down: the harness's (one copy for every test).
#[allow(unused_imports)] // each test binary uses a part of this module
pub use flatquad_testkit::{next_down, next_up};

/// Brute force: every element whose closed rectangle meets `q`, but `omit`; sorted.
pub fn brute_query<'a>(
    elements: impl IntoIterator<Item = (&'a Handle, &'a Rect)>,
    q: &Rect,
    omit: Option<Handle>,
) -> Vec<Handle> {
    let mut hits: Vec<Handle> = elements
        .into_iter()
        .filter(|&(h, r)| Some(*h) != omit && meets(r, q))
        .map(|(h, _)| *h)
        .collect();
    hits.sort_unstable();
    hits
}

/// Brute force: every element whose closed rectangle holds `(x, y)`, but `omit`; sorted.
pub fn brute_point<'a>(
    elements: impl IntoIterator<Item = (&'a Handle, &'a Rect)>,
    x: f32,
    y: f32,
    omit: Option<Handle>,
) -> Vec<Handle> {
    let mut hits: Vec<Handle> = elements
        .into_iter()
        .filter(|&(h, r)| Some(*h) != omit && holds(r, x, y))
        .map(|(h, _)| *h)
        .collect();
    hits.sort_unstable();
    hits
}

/// Brute force: every unordered intersecting pair as `(smaller, larger)`, sorted.
pub fn brute_pairs(elements: &[(Handle, Rect)]) -> Vec<(Handle, Handle)> {
    let mut pairs = Vec::new();
    for (i, (a, ra)) in elements.iter().enumerate() {
        for (b, rb) in &elements[i + 1..] {
            if meets(ra, rb) {
                pairs.push(((*a).min(*b), (*a).max(*b)));
            }
        }
    }
    pairs.sort_unstable();
    pairs
}

/// Brute force: for each element (sorted by handle), the handles of the others
/// whose closed rectangles meet its own, sorted. Every pair whose x intervals
/// overlap is tested (a sweep over the elements sorted by `x1`: the others
/// are too far right once their `x1` passes this one's `x2`).
pub fn brute_neighbours(elements: &[(Handle, Rect)]) -> Vec<Vec<Handle>> {
    let mut sorted: Vec<(Handle, Rect)> = elements.to_vec();
    sorted.sort_unstable_by_key(|e| e.0);
    let mut by_x1: Vec<usize> = (0..sorted.len()).collect();
    by_x1.sort_unstable_by(|&a, &b| sorted[a].1.x1.partial_cmp(&sorted[b].1.x1).unwrap());
    let mut near = vec![Vec::new(); sorted.len()];
    for (k, &i) in by_x1.iter().enumerate() {
        let ri = &sorted[i].1;
        for &j in &by_x1[k + 1..] {
            let rj = &sorted[j].1;
            if rj.x1 > ri.x2 {
                break;
            }
            if meets(ri, rj) {
                near[i].push(sorted[j].0);
                near[j].push(sorted[i].0);
            }
        }
    }
    for list in &mut near {
        list.sort_unstable();
    }
    near
}

/// Asserts a sorted list has no repeated entry.
pub fn assert_no_duplicates<T: Ord + std::fmt::Debug>(sorted: &[T], what: &str) {
    if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
        panic!("{what}: {:?} reported twice", w[0]);
    }
}

/// `index.query`, checked to report each handle once, returned sorted. On
/// error the hit list must be left empty (it is filled with junk beforehand).
pub fn query_sorted<T: SpatialIndex<Bounds = Rect>>(
    index: &T,
    rect: Rect,
    omit: Option<Handle>,
) -> Result<Vec<Handle>, flatquad::Error> {
    let mut hits = vec![Handle::from_raw(u64::MAX); 3];
    let result = index.query(
        &Query {
            omit,
            ..Query::rect(rect)
        },
        &mut hits,
    );
    if let Err(e) = result {
        assert!(
            hits.is_empty(),
            "query {rect:?} failed ({e}) but left hits {hits:?}"
        );
        return Err(e);
    }
    hits.sort_unstable();
    assert_no_duplicates(&hits, &format!("query {rect:?}"));
    Ok(hits)
}

/// `index.query_point`, checked like [`query_sorted`].
pub fn query_point_sorted<T: SpatialIndex<Bounds = Rect>>(
    index: &T,
    x: f32,
    y: f32,
    omit: Option<Handle>,
) -> Result<Vec<Handle>, flatquad::Error> {
    let mut hits = vec![Handle::from_raw(u64::MAX); 3];
    let result = index.query(
        &Query {
            omit,
            ..Query::point([x, y])
        },
        &mut hits,
    );
    if let Err(e) = result {
        assert!(hits.is_empty(), "query_point failed ({e}) but left hits");
        return Err(e);
    }
    hits.sort_unstable();
    assert_no_duplicates(&hits, &format!("query_point ({x:?}, {y:?})"));
    Ok(hits)
}

/// `index.pairs`, normalised to `(smaller, larger)`, sorted, checked for
/// self-pairs and for a pair reported twice (in either order).
pub fn pairs_sorted<T: SpatialIndex<Bounds = Rect>>(index: &T) -> Vec<(Handle, Handle)> {
    let mut pairs = vec![(Handle::from_raw(1), Handle::from_raw(2))];
    index.pairs(&mut pairs);
    normal_pairs(&pairs)
}

/// Pairs normalised to `(smaller, larger)` and sorted, checked for self-pairs
/// and for a pair reported twice (in either order).
pub fn normal_pairs(pairs: &[(Handle, Handle)]) -> Vec<(Handle, Handle)> {
    for &(a, b) in pairs {
        assert_ne!(a, b, "an element paired with itself");
    }
    let mut pairs: Vec<_> = pairs.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect();
    pairs.sort_unstable();
    assert_no_duplicates(&pairs, "pairs()");
    pairs
}

/// Every node (or cell) `traverse` shows, in visiting order.
pub fn nodes<T: SpatialIndex<Bounds = Rect>>(index: &T) -> Vec<NodeInfo> {
    let infos = std::cell::RefCell::new(Vec::new());
    let flow = index.traverse(
        |b| {
            assert!(!b.is_leaf, "a branch shown as a leaf: {b:?}");
            infos.borrow_mut().push(*b);
            ControlFlow::Continue(())
        },
        |l| {
            assert!(l.is_leaf, "a leaf shown as a branch: {l:?}");
            infos.borrow_mut().push(*l);
            ControlFlow::Continue(())
        },
    );
    let infos = infos.into_inner();
    assert_eq!(flow, ControlFlow::Continue(()));
    infos
}

/// Checks `traverse` against `stats` and the structure's shape (see
/// [`check_tree`] and [`check_cells`]); returns what `traverse` showed.
pub fn check_traverse<T: Subject>(index: &T, exact_cells: bool) -> Vec<NodeInfo> {
    match index.shape() {
        Shape::Tree { max_depth, .. } => check_tree(index, max_depth, exact_cells, false),
        Shape::LooseTree { max_depth, .. } => {
            let infos = check_tree(index, max_depth, exact_cells, true);
            let links: u32 = infos.iter().map(|n| n.count).sum();
            assert_eq!(
                links as usize + index.held_apart(),
                index.len(),
                "a loose tree holds each element once, in a leaf or apart"
            );
            infos
        }
        shape => check_cells(index, shape, exact_cells),
    }
}

/// A tree: the root comes first, parents come before their four children
/// (pre-order), depths stay within `max_depth`, branches are shallower than
/// `max_depth`, indices are unique, leaf counts add up to `element_links`, and
/// (when `exact_cells`) every node's rectangle lies inside the root's. A loose
/// tree shows boxes, each holding everything below it (a node with nothing
/// below shows its cell instead): there, each leaf holding elements must show
/// a box inside the root's, and every rectangle must be valid.
fn check_tree<T: SpatialIndex<Bounds = Rect>>(
    tree: &T,
    max_depth: u32,
    exact_cells: bool,
    loose: bool,
) -> Vec<NodeInfo> {
    let infos = nodes(tree);
    let stats = tree.stats();
    assert!(!infos.is_empty(), "traverse visited nothing");
    let root = infos[0];
    assert_eq!((root.index, root.depth), (0, 0), "root not visited first");

    fn parse(infos: &[NodeInfo], at: &mut usize, depth: u32, max_depth: u32) {
        let node = infos
            .get(*at)
            .unwrap_or_else(|| panic!("traverse ended early at node {}", *at));
        assert_eq!(node.depth, depth, "node {node:?} at the wrong depth");
        assert!(
            node.depth <= max_depth,
            "node {node:?} deeper than max_depth"
        );
        *at += 1;
        if !node.is_leaf {
            assert!(node.depth < max_depth, "branch at max_depth: {node:?}");
            assert_eq!(node.count, 0, "branch with a count: {node:?}");
            for _ in 0..4 {
                parse(infos, at, depth + 1, max_depth);
            }
        }
    }
    let mut at = 0;
    parse(&infos, &mut at, 0, max_depth);
    assert_eq!(
        at,
        infos.len(),
        "traverse visited nodes outside the root's subtree"
    );

    let indices: BTreeSet<u32> = infos.iter().map(|n| n.index).collect();
    assert_eq!(indices.len(), infos.len(), "a node index visited twice");

    let leaves: Vec<&NodeInfo> = infos.iter().filter(|n| n.is_leaf).collect();
    let links: usize = leaves.iter().map(|n| n.count as usize).sum();
    assert_eq!(
        links, stats.element_links,
        "leaf counts vs stats().element_links"
    );
    assert_eq!(leaves.len(), stats.leaves);
    assert_eq!(infos.len(), stats.nodes);
    assert_eq!(
        leaves.iter().filter(|n| n.count == 0).count(),
        stats.empty_leaves
    );
    assert_eq!(
        infos.iter().map(|n| n.depth).max().unwrap(),
        stats.max_depth_reached
    );
    assert!(stats.max_depth_reached <= max_depth);
    assert_eq!(stats.elements, tree.len());
    assert!(
        loose || links >= tree.len(),
        "{links} links for {} elements",
        tree.len()
    );
    if loose {
        let r = root.rect;
        for n in &infos {
            let c = n.rect;
            assert!(c.is_valid(), "bad node rect {n:?}");
            if exact_cells && n.is_leaf && n.count > 0 {
                assert!(
                    r.x1 <= c.x1 && c.x2 <= r.x2 && r.y1 <= c.y1 && c.y2 <= r.y2,
                    "leaf {n:?} sticks out of the root {r:?}"
                );
            }
        }
    } else if exact_cells {
        let r = root.rect;
        for n in &infos {
            let c = n.rect;
            assert!(
                r.x1 <= c.x1 && c.x2 <= r.x2 && r.y1 <= c.y1 && c.y2 <= r.y2,
                "node {n:?} sticks out of the root {r:?}"
            );
            assert!(c.x1 <= c.x2 && c.y1 <= c.y2, "inverted node rect {n:?}");
        }
    }
    infos
}

/// A grid: every cell once, as a leaf of depth 0 (`branch` never called), the
/// indices exactly `0..cells`; `stats` counts the cells as nodes and leaves,
/// the empty ones as empty leaves, and depth 0. A uniform grid's counts add up
/// to `element_links` and its cells lie inside the world (when `exact_cells`);
/// a loose grid holds each element in at most one cell (big ones in none), so
/// its counts add up to at most the elements and the links, and an empty
/// cell shows its extent, inside the world.
fn check_cells<T: SpatialIndex<Bounds = Rect>>(
    index: &T,
    shape: Shape,
    exact_cells: bool,
) -> Vec<NodeInfo> {
    let infos = nodes(index);
    let stats = index.stats();
    let cells = shape.cells();
    assert_eq!(infos.len(), cells, "cells shown by traverse ({shape:?})");
    for n in &infos {
        assert!(n.is_leaf && n.depth == 0, "{shape:?}: cell {n:?}");
        let c = n.rect;
        assert!(c.x1 <= c.x2 && c.y1 <= c.y2, "inverted cell rect {n:?}");
        assert!(n.count as usize <= index.len(), "{n:?}");
    }
    let indices: BTreeSet<u32> = infos.iter().map(|n| n.index).collect();
    assert_eq!(
        indices,
        (0..cells as u32).collect(),
        "cell indices are not 0..{cells}"
    );
    assert_eq!((stats.nodes, stats.leaves), (cells, cells), "{stats:?}");
    assert_eq!(
        infos.iter().filter(|n| n.count == 0).count(),
        stats.empty_leaves,
        "{stats:?}"
    );
    assert_eq!(stats.max_depth_reached, 0);
    assert_eq!(stats.elements, index.len());
    let counts: usize = infos.iter().map(|n| n.count as usize).sum();
    let world = index.world();
    let inside =
        |c: &Rect| world.x1 <= c.x1 && c.x2 <= world.x2 && world.y1 <= c.y1 && c.y2 <= world.y2;
    match shape {
        Shape::Grid { .. } => {
            assert_eq!(
                counts, stats.element_links,
                "cell counts vs stats().element_links"
            );
            if exact_cells {
                for n in &infos {
                    assert!(
                        inside(&n.rect),
                        "cell {n:?} sticks out of the world {world:?}"
                    );
                }
            }
        }
        _ => {
            assert!(
                counts <= index.len() && counts <= stats.element_links,
                "{counts} elements in cells, {} elements: {stats:?}",
                index.len()
            );
            if exact_cells {
                for n in infos.iter().filter(|n| n.count == 0) {
                    assert!(
                        inside(&n.rect),
                        "empty cell {n:?} outside the world {world:?}"
                    );
                }
            }
        }
    }
    infos
}

/// Cleans up as often as the structure may need to undo everything a removal
/// left (a tree one level per call), validating after each call.
pub fn cleanup_fully<T: Subject>(index: &mut T) {
    let calls = match index.shape() {
        Shape::Tree { max_depth, .. } | Shape::LooseTree { max_depth, .. } => max_depth + 1,
        _ => 2,
    };
    for _ in 0..calls {
        index.cleanup();
        if let Err(e) = index.validate() {
            panic!("validate failed after cleanup: {e}");
        }
    }
}

/// Checks that an empty structure, fully cleaned up (or cleared), is back to
/// its empty shape: a tree to its root alone, a grid to empty cells and no
/// links.
pub fn assert_emptied<T: Subject>(index: &T, context: &str) {
    assert!(index.is_empty(), "{context}");
    let shape = index.shape();
    let stats = index.stats();
    match shape {
        Shape::Tree { .. } | Shape::LooseTree { .. } => assert_eq!(
            (
                stats.nodes,
                stats.leaves,
                stats.empty_leaves,
                stats.element_links
            ),
            (1, 1, 1, 0),
            "{context}: {stats:?}"
        ),
        _ => {
            let cells = shape.cells();
            assert_eq!(
                (
                    stats.nodes,
                    stats.leaves,
                    stats.empty_leaves,
                    stats.element_links
                ),
                (cells, cells, cells, 0),
                "{context}: {stats:?}"
            );
        }
    }
    assert_eq!(stats.elements, 0, "{context}: {stats:?}");
}

/// Everything observable about a structure, plus its exact bytes: equal
/// snapshots mean the structure is exactly as it was.
#[derive(Debug, PartialEq)]
pub struct Snapshot {
    pub bytes: Vec<u8>,
    pub elements: Vec<(Handle, [u32; 4], u32)>,
    pub len: usize,
    pub is_empty: bool,
    pub stats: Stats,
    pub nodes: Vec<(u32, u32, [u32; 4], bool, u32)>,
    /// Hits of a query over the whole plane, in the order reported.
    pub everything: Vec<Handle>,
    /// Pairs in the order reported.
    pub pairs: Vec<(Handle, Handle)>,
}

/// A snapshot of a structure; also asserts that it validates.
pub fn snapshot<T: SpatialIndex<Bounds = Rect>>(index: &T) -> Snapshot {
    if let Err(e) = index.validate() {
        panic!("validate failed: {e}");
    }
    let mut everything = Vec::new();
    index
        .query(
            &Query::rect(Rect::new(f32::MIN, f32::MIN, f32::MAX, f32::MAX)),
            &mut everything,
        )
        .unwrap();
    let mut pairs = Vec::new();
    index.pairs(&mut pairs);
    Snapshot {
        bytes: index.to_bytes(),
        elements: index.iter().map(|(h, r, id)| (h, bits(&r), id)).collect(),
        len: index.len(),
        is_empty: index.is_empty(),
        stats: index.stats(),
        nodes: nodes(index)
            .iter()
            .map(|n| (n.index, n.depth, bits(&n.rect), n.is_leaf, n.count))
            .collect(),
        everything,
        pairs,
    }
}

/// Checks handle hygiene: never 0, below 2^53, and never issued twice.
pub fn check_fresh_handle(h: Handle, issued: &mut BTreeSet<u64>) {
    let raw = h.to_raw();
    assert_ne!(raw, 0, "handle 0 issued");
    assert!(raw < 1 << 53, "handle {raw} not below 2^53");
    assert!(issued.insert(raw), "handle {h:?} issued twice");
}

/// A small deterministic generator (numerical-recipes LCG).
pub struct Lcg(pub u32);

impl Lcg {
    pub fn next_u32(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        self.0
    }

    /// A float in `[0, 1)` with 24 random bits.
    pub fn unit(&mut self) -> f32 {
        (self.next_u32() >> 8) as f32 * (1.0 / 16_777_216.0)
    }

    /// An integer in `0..n` (n > 0).
    pub fn below(&mut self, n: u32) -> u32 {
        (((self.next_u32() >> 8) as u64 * n as u64) >> 24) as u32
    }
}
