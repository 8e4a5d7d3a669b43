//! The pair walk: the pairs within each leaf, then the pairs across each two
//! leaves whose boxes meet, each two leaves taken once (from the one with the
//! smaller node index).

use core::ops::ControlFlow;

use arrayvec::ArrayVec;

use crate::loose_quadtree::LooseQuadtree;
use crate::rect::meets;
use crate::slots::NONE;
use crate::tree_lines::MAX_DEPTH_LIMIT;
use crate::{Handle, Rect};

impl LooseQuadtree {
    /// Every intersecting pair, each once: one walk over pairs of nodes,
    /// starting from (root, root), each pair either opened into pairs of
    /// their children ([`open`](Self::open)) or, a leaf with itself or two
    /// leaves, giving its element pairs. Two leaves are met as a pair at most
    /// once, so each pair of elements is tested once, with no descent from
    /// the root per leaf.
    pub(crate) fn all_pairs<F>(&self, mut visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        self.pairs_in_tree(&mut visit)?;
        self.pairs_over_bound(&mut visit)
    }

    /// The pairs of the tree's own elements (those over the bound left out).
    pub(crate) fn pairs_in_tree<F>(&self, mut visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        self.pairs_from(ROOT_PAIR, &mut visit)
    }

    /// The pairs the walk finds from one pair of nodes: its own, if it is a
    /// leaf or two leaves, and those of the pairs it opens into.
    pub(super) fn pairs_from<F>(&self, start: NodePair, visit: &mut F) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        let mut stack = PairStack::new();
        stack.push(start);
        while let Some(pair) = stack.pop() {
            if !self.open(pair, |next| stack.push(next)) {
                self.leaf_pairs(pair, visit)?;
            }
        }
        ControlFlow::Continue(())
    }

    /// Pushes the pairs of nodes `pair` opens into, the walk's next steps,
    /// and says whether it opened: it does not when it is a leaf with
    /// itself or two leaves, whose elements
    /// [`leaf_pairs`](Self::leaf_pairs) pairs. A node with itself gives its
    /// children with themselves and each two siblings whose boxes meet; two
    /// different nodes give the children of the one that is a branch (the
    /// shallower, when both are) that meet the other.
    pub(super) fn open(&self, pair: NodePair, mut push: impl FnMut(NodePair)) -> bool {
        let nodes = &self.nodes.nodes;
        let (a, b, depth_a, depth_b) = pair;
        let (node_a, node_b) = (&nodes[a as usize], &nodes[b as usize]);
        if a == b {
            if !node_a.is_branch() {
                return false;
            }
            let first = node_a.first;
            for i in first..first + 4 {
                let box_i = &nodes[i as usize].rect;
                for j in i + 1..first + 4 {
                    if meets(box_i, &nodes[j as usize].rect) {
                        push((i, j, depth_a + 1, depth_a + 1));
                    }
                }
                push((i, i, depth_a + 1, depth_a + 1));
            }
            return true;
        }
        if !node_a.is_branch() && !node_b.is_branch() {
            return false;
        }
        // Open the shallower branch, so both sides shrink in turn.
        let open_a = node_a.is_branch() && (depth_a <= depth_b || !node_b.is_branch());
        let (open, open_depth, other, other_depth) = if open_a {
            (node_a, depth_a, b, depth_b)
        } else {
            (node_b, depth_b, a, depth_a)
        };
        let other_box = &nodes[other as usize].rect;
        for child in open.first..open.first + 4 {
            if meets(&nodes[child as usize].rect, other_box) {
                push((child, other, open_depth + 1, other_depth));
            }
        }
        true
    }

    /// The element pairs of a pair of nodes that does not
    /// [`open`](Self::open): within a leaf, or across two leaves.
    fn leaf_pairs<F>(&self, (a, b, _, _): NodePair, visit: &mut F) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        if a != b {
            return self.pairs_across(a, b, visit);
        }
        let leaf = &self.nodes.nodes[a as usize];
        if leaf.count > 1 {
            self.pairs_within(leaf.first, visit)?;
        }
        ControlFlow::Continue(())
    }

    /// The pairs among one leaf's list, a chunk at a time: each chunk of up
    /// to [`CHUNK`] elements is gathered into a contiguous array, its own
    /// pairs tested, then the rest of the list is walked once against it. The
    /// inner loops read the array rather than following the list, whose next
    /// link each step would wait for (a crowded leaf at `max_depth` holds
    /// hundreds of elements).
    fn pairs_within<F>(&self, first: u32, visit: &mut F) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        let mut chunk = Chunk::new();
        let mut start = first;
        while start != NONE {
            let rest = self.gather(start, &mut chunk);
            for (i, (rect_a, a)) in chunk.iter().enumerate() {
                for (rect_b, b) in &chunk[i + 1..] {
                    if meets(rect_a, rect_b) {
                        visit(*a, *b)?;
                    }
                }
            }
            self.list_against_chunk(rest, &chunk, |_| true, visit)?;
            start = rest;
        }
        ControlFlow::Continue(())
    }

    /// The pairs of a gathered chunk and the elements of the list from `start`
    /// that `keep` lets through (each list element read once, the chunk's
    /// rectangles from the contiguous array).
    fn list_against_chunk<K, F>(
        &self,
        start: u32,
        chunk: &Chunk,
        keep: K,
        visit: &mut F,
    ) -> ControlFlow<()>
    where
        K: Fn(&Rect) -> bool,
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        let slots = &self.slots.slots;
        let mut b = start;
        while b != NONE {
            let slot_b = &slots[b as usize];
            if keep(&slot_b.rect) {
                let handle_b = self.slots.handle(b);
                for (rect_a, a) in chunk {
                    if meets(rect_a, &slot_b.rect) {
                        visit(*a, handle_b)?;
                    }
                }
            }
            b = slot_b.next;
        }
        ControlFlow::Continue(())
    }

    /// The pairs of an element of leaf `one` and one of leaf `other`: the
    /// elements of `one` meeting `other`'s box are gathered a chunk at a time
    /// (as in [`pairs_within`](Self::pairs_within)), and only the elements of
    /// `other` meeting `one`'s box are tested against them.
    fn pairs_across<F>(&self, one: u32, other: u32, visit: &mut F) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        let (one, other) = (
            self.nodes.nodes[one as usize],
            self.nodes.nodes[other as usize],
        );
        let mut chunk = Chunk::new();
        let mut start = one.first;
        while start != NONE {
            // Only the elements of `one` meeting `other`'s box can pair across:
            // often none, and then `other`'s list is not read at all.
            let rest = self.gather_meeting(start, &other.rect, &mut chunk);
            if chunk.is_empty() {
                break;
            }
            self.list_against_chunk(other.first, &chunk, |rect| meets(rect, &one.rect), visit)?;
            start = rest;
        }
        ControlFlow::Continue(())
    }

    /// [`gather`](Self::gather), keeping only the elements meeting `bound`;
    /// the chunk is empty only at the end of the list.
    #[inline]
    fn gather_meeting(&self, start: u32, bound: &Rect, chunk: &mut Chunk) -> u32 {
        let slots = &self.slots.slots;
        chunk.clear();
        let mut at = start;
        while at != NONE && !chunk.is_full() {
            let slot = &slots[at as usize];
            if meets(&slot.rect, bound) {
                chunk.push((slot.rect, self.slots.handle(at)));
            }
            at = slot.next;
        }
        at
    }

    /// Fills `chunk` (cleared first) with the rectangles and handles of up to
    /// [`CHUNK`] elements of a leaf's list from `start`; returns the slot
    /// after them ([`NONE`] at the end of the list).
    #[inline]
    fn gather(&self, start: u32, chunk: &mut Chunk) -> u32 {
        let slots = &self.slots.slots;
        chunk.clear();
        let mut at = start;
        while at != NONE && !chunk.is_full() {
            let slot = &slots[at as usize];
            chunk.push((slot.rect, self.slots.handle(at)));
            at = slot.next;
        }
        at
    }
}

/// Elements of a leaf gathered at a time by the pair walk.
const CHUNK: usize = 64;

/// A gathered run of a leaf's list: rectangles and handles (each element's
/// stamp read once per chunk, not once per pair).
type Chunk = ArrayVec<(Rect, Handle), CHUNK>;

/// Two nodes the pair walk pairs (the same node twice for the pairs within
/// it), with their depths.
pub(super) type NodePair = (u32, u32, u32, u32);

/// The root with itself, where the walk starts.
pub(super) const ROOT_PAIR: NodePair = (0, 0, 0, 0);

/// The pairs of nodes a pair walk has still to look at.
/// Each level of the walk leaves at most 9 pairs behind (4 self pairs and 6
/// sibling pairs, one taken), and a walk of two different nodes 3 per level
/// of either side.
type PairStack = ArrayVec<NodePair, { 16 * (MAX_DEPTH_LIMIT as usize + 2) }>;
