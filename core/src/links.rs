//! The links that chain elements into cells or leaves (`next`, `element`), in a
//! free-list pool: an element lying in several cells has one link in each.

use core::ops::ControlFlow;

use arrayvec::ArrayVec;

use crate::slots::{SlotPool, SlotRecord, NONE};
use crate::{Bounds, Handle};

/// One element's membership in one leaf: the next link of the leaf and the element's slot.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub(crate) struct Link {
    pub next: u32,
    pub element: u32,
}

#[derive(Clone, Debug)]
pub(crate) struct LinkPool {
    pub links: Vec<Link>,
    pub free: u32,
}

impl LinkPool {
    pub fn new() -> LinkPool {
        LinkPool {
            links: Vec::new(),
            free: NONE,
        }
    }

    pub fn alloc(&mut self, element: u32, next: u32) -> u32 {
        let link = Link { next, element };
        if self.free != NONE {
            let index = self.free;
            self.free = self.links[index as usize].next;
            self.links[index as usize] = link;
            index
        } else {
            let index = self.links.len();
            assert!(index < NONE as usize, "flatquad: more than 2^32 - 1 links");
            self.links.push(link);
            index as u32
        }
    }

    pub fn free(&mut self, index: u32) {
        self.links[index as usize] = Link {
            next: self.free,
            element: NONE,
        };
        self.free = index;
    }

    /// Gives the links' memory back (a [`reset`](LinkPool::reset) that keeps
    /// nothing).
    pub fn release(&mut self) {
        *self = LinkPool::new();
    }

    pub fn reset(&mut self) {
        self.links.clear();
        self.free = NONE;
    }
}

/// Visits every intersecting pair among the elements of one leaf or cell list,
/// each once, reported only where `owns(a, b)` says the pair belongs (the
/// corner rule of the structure).
pub(crate) fn list_pairs<S, O, F>(
    links: &[Link],
    pool: &SlotPool<S>,
    first_link: u32,
    owns: O,
    visit: &mut F,
) -> ControlFlow<()>
where
    S: SlotRecord,
    O: Fn(&S::Bounds, &S::Bounds) -> bool,
    F: FnMut(Handle, Handle) -> ControlFlow<()>,
{
    let slots = &pool.slots;
    // Gather the leaf's rectangles first so the quadratic loop reads one small
    // contiguous array instead of chasing links; big leaves (stacks at
    // max_depth) are walked in place.
    let mut gathered = ArrayVec::<(S::Bounds, u32), GATHER>::new();
    let mut link = first_link;
    while link != NONE {
        let Link { next, element } = links[link as usize];
        if gathered
            .try_push((slots[element as usize].rect(), element))
            .is_err()
        {
            return list_pairs_in_place(links, pool, first_link, owns, visit);
        }
        link = next;
    }
    if gathered.len() <= SWEEP_FROM {
        for (i, (rect_a, a)) in gathered.iter().enumerate() {
            for (rect_b, b) in &gathered[i + 1..] {
                if rect_a.meets(rect_b) && owns(rect_a, rect_b) {
                    visit(pool.handle(*a), pool.handle(*b))?;
                }
            }
        }
        return ControlFlow::Continue(());
    }
    // A crowded leaf (at max_depth): sort by left edge and sweep, so each
    // element meets only those starting before it ends.
    gathered.sort_unstable_by(|(a, _), (b, _)| a.lo(0).total_cmp(&b.lo(0)));
    for (i, (rect_a, a)) in gathered.iter().enumerate() {
        for (rect_b, b) in &gathered[i + 1..] {
            if rect_b.lo(0) > rect_a.hi(0) {
                break;
            }
            if rect_a.meets(rect_b) && owns(rect_a, rect_b) {
                visit(pool.handle(*a), pool.handle(*b))?;
            }
        }
    }
    ControlFlow::Continue(())
}

fn list_pairs_in_place<S, O, F>(
    links: &[Link],
    pool: &SlotPool<S>,
    first_link: u32,
    owns: O,
    visit: &mut F,
) -> ControlFlow<()>
where
    S: SlotRecord,
    O: Fn(&S::Bounds, &S::Bounds) -> bool,
    F: FnMut(Handle, Handle) -> ControlFlow<()>,
{
    let slots = &pool.slots;
    let mut outer = first_link;
    while outer != NONE {
        let Link { next, element: a } = links[outer as usize];
        let rect_a = slots[a as usize].rect();
        let mut inner = next;
        while inner != NONE {
            let Link { next, element: b } = links[inner as usize];
            let rect_b = &slots[b as usize].rect();
            if rect_a.meets(rect_b) && owns(&rect_a, rect_b) {
                visit(pool.handle(a), pool.handle(b))?;
            }
            inner = next;
        }
        outer = next;
    }
    ControlFlow::Continue(())
}

/// Leaves up to this many elements are gathered before their pairs are tested.
const GATHER: usize = 128;

/// Gathered leaves with more elements than this are swept rather than tested
/// pair by pair.
const SWEEP_FROM: usize = 24;
