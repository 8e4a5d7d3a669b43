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
    /// starting from (root, root). A node paired with itself gives its
    /// children paired with themselves and each two siblings whose boxes
    /// meet; two different nodes whose boxes meet give the children of the
    /// one that is a branch (the shallower, when both are) paired with the
    /// other; two leaves give the pairs across them. Two leaves are met as a pair at most once, so each pair of
    /// elements is tested once, with no descent from the root per leaf.
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
        let nodes = &self.nodes.nodes;
        let mut stack = PairStack::new();
        stack.push((0, 0, 0, 0));
        while let Some((a, b, depth_a, depth_b)) = stack.pop() {
            let (node_a, node_b) = (&nodes[a as usize], &nodes[b as usize]);
            if a == b {
                if !node_a.is_branch() {
                    if node_a.count > 1 {
                        self.pairs_within(node_a.first, &mut visit)?;
                    }
                    continue;
                }
                let first = node_a.first;
                for i in first..first + 4 {
                    let box_i = &nodes[i as usize].rect;
                    for j in i + 1..first + 4 {
                        if meets(box_i, &nodes[j as usize].rect) {
                            stack.push((i, j, depth_a + 1, depth_a + 1));
                        }
                    }
                    stack.push((i, i, depth_a + 1, depth_a + 1));
                }
                continue;
            }
            if !node_a.is_branch() && !node_b.is_branch() {
                self.pairs_across(a, b, &mut visit)?;
                continue;
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
                    stack.push((child, other, open_depth + 1, other_depth));
                }
            }
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

/// The pairs of nodes a pair walk has still to look at, with their depths.
/// Each level of the walk leaves at most 9 pairs behind (4 self pairs and 6
/// sibling pairs, one taken), and a walk of two different nodes 3 per level
/// of either side.
type PairStack = ArrayVec<(u32, u32, u32, u32), { 16 * (MAX_DEPTH_LIMIT as usize + 2) }>;
