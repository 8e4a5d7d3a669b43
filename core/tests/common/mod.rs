//! Helpers shared by the model, sweep and bad-input tests: an independent
//! brute-force oracle, exact snapshots of a tree, and checks of `traverse`.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use flatquad::{Handle, NodeInfo, Quadtree, Rect, Stats, SpatialIndex};

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

/// The next `f32` above `x` (written out: `f32::next_up` is newer than the MSRV).
pub fn next_up(x: f32) -> f32 {
    if x.is_nan() || x == f32::INFINITY {
        x
    } else if x == 0.0 {
        f32::from_bits(1)
    } else if x > 0.0 {
        f32::from_bits(x.to_bits() + 1)
    } else {
        f32::from_bits(x.to_bits() - 1)
    }
}

/// The next `f32` below `x`.
pub fn next_down(x: f32) -> f32 {
    -next_up(-x)
}

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

/// Asserts a sorted list has no repeated entry.
pub fn assert_no_duplicates<T: Ord + std::fmt::Debug>(sorted: &[T], what: &str) {
    if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
        panic!("{what}: {:?} reported twice", w[0]);
    }
}

/// `tree.query`, checked to report each handle once, returned sorted. On error
/// the hit list must be left empty (it is filled with junk beforehand).
pub fn query_sorted(
    tree: &Quadtree,
    rect: Rect,
    omit: Option<Handle>,
) -> Result<Vec<Handle>, flatquad::Error> {
    let mut hits = vec![Handle::from_raw(u64::MAX); 3];
    let result = tree.query(rect, omit, &mut hits);
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

/// `tree.query_point`, checked like [`query_sorted`].
pub fn query_point_sorted(
    tree: &Quadtree,
    x: f32,
    y: f32,
    omit: Option<Handle>,
) -> Result<Vec<Handle>, flatquad::Error> {
    let mut hits = vec![Handle::from_raw(u64::MAX); 3];
    let result = tree.query_point(x, y, omit, &mut hits);
    if let Err(e) = result {
        assert!(hits.is_empty(), "query_point failed ({e}) but left hits");
        return Err(e);
    }
    hits.sort_unstable();
    assert_no_duplicates(&hits, &format!("query_point ({x:?}, {y:?})"));
    Ok(hits)
}

/// `tree.pairs`, normalised to `(smaller, larger)`, sorted, checked for
/// self-pairs and for a pair reported twice (in either order).
pub fn pairs_sorted(tree: &Quadtree) -> Vec<(Handle, Handle)> {
    let mut pairs = vec![(Handle::from_raw(1), Handle::from_raw(2))];
    tree.pairs(&mut pairs);
    for &(a, b) in &pairs {
        assert_ne!(a, b, "pairs() reported an element with itself");
    }
    let mut pairs: Vec<_> = pairs
        .into_iter()
        .map(|(a, b)| (a.min(b), a.max(b)))
        .collect();
    pairs.sort_unstable();
    assert_no_duplicates(&pairs, "pairs()");
    pairs
}

/// Every node `traverse` shows, in visiting order.
pub fn nodes(tree: &Quadtree) -> Vec<NodeInfo> {
    let infos = std::cell::RefCell::new(Vec::new());
    let flow = tree.traverse(
        |b| {
            infos.borrow_mut().push(*b);
            ControlFlow::Continue(())
        },
        |l| {
            infos.borrow_mut().push(*l);
            ControlFlow::Continue(())
        },
    );
    let infos = infos.into_inner();
    assert_eq!(flow, ControlFlow::Continue(()));
    infos
}

/// Checks `traverse` against `stats` and the tree's shape: the root comes first,
/// parents come before their four children (pre-order), depths stay within
/// `max_depth`, branches are shallower than `max_depth`, indices are unique,
/// leaf counts add up to `element_links`, and (when `exact_cells`) every node's
/// rectangle lies inside the root's.
pub fn check_traverse(tree: &Quadtree, exact_cells: bool) -> Vec<NodeInfo> {
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
    parse(&infos, &mut at, 0, tree.max_depth());
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
    assert!(stats.max_depth_reached <= tree.max_depth());
    assert_eq!(stats.elements, tree.len());
    assert!(
        links >= tree.len(),
        "{links} links for {} elements",
        tree.len()
    );
    if exact_cells {
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

/// Everything observable about a tree, plus its exact bytes: equal snapshots
/// mean the tree is exactly as it was.
#[derive(Debug, PartialEq)]
pub struct Snapshot {
    pub bytes: Vec<u8>,
    pub elements: Vec<(Handle, [u32; 4], u32)>,
    pub len: usize,
    pub is_empty: bool,
    pub stats: Stats,
    pub nodes: Vec<(u32, u32, [u32; 4], bool, u32)>,
    /// Hits of a query over the whole plane, in the order the tree reports them.
    pub everything: Vec<Handle>,
    /// Pairs in the order the tree reports them.
    pub pairs: Vec<(Handle, Handle)>,
}

/// A snapshot of a tree; also asserts that it validates.
pub fn snapshot(tree: &Quadtree) -> Snapshot {
    if let Err(e) = tree.validate() {
        panic!("validate failed: {e}");
    }
    let mut everything = Vec::new();
    tree.query(
        Rect::new(f32::MIN, f32::MIN, f32::MAX, f32::MAX),
        None,
        &mut everything,
    )
    .unwrap();
    let mut pairs = Vec::new();
    tree.pairs(&mut pairs);
    Snapshot {
        bytes: tree.to_bytes(),
        elements: tree.iter().map(|(h, r, id)| (h, bits(&r), id)).collect(),
        len: tree.len(),
        is_empty: tree.is_empty(),
        stats: tree.stats(),
        nodes: nodes(tree)
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
