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

#[derive(Debug)]
pub(crate) struct LinkPool {
    pub links: Vec<Link>,
    pub free: u32,
    /// Links freed since the lists were last laid out contiguously
    /// ([`pack`](LinkPool::pack)): how far their order has decayed.
    churn: usize,
    /// The buffer a [`pack`](LinkPool::pack) writes into, then swaps with
    /// `links`: kept, so that packing in a warm frame allocates nothing.
    spare: Vec<Link>,
}

impl Clone for LinkPool {
    /// The lists and the free list; not the spare buffer, which holds nothing.
    fn clone(&self) -> LinkPool {
        LinkPool {
            links: self.links.clone(),
            free: self.free,
            churn: self.churn,
            spare: Vec::new(),
        }
    }
}

/// A pack in progress: each list handed to [`list`](Packer::list) is copied
/// to the end of the new buffer, its links contiguous and in list order.
pub(crate) struct Packer<'a> {
    old: &'a [Link],
    new: &'a mut Vec<Link>,
}

impl Packer<'_> {
    /// Copies the list starting at `head` and returns its new head.
    pub fn list(&mut self, head: u32) -> u32 {
        if head == NONE {
            return NONE;
        }
        let start = self.new.len() as u32;
        let mut link = head;
        while link != NONE {
            let Link { next, element } = self.old[link as usize];
            let at = self.new.len() as u32;
            self.new.push(Link {
                next: at + 1,
                element,
            });
            link = next;
        }
        if let Some(last) = self.new.last_mut() {
            last.next = NONE;
        }
        start
    }
}

impl LinkPool {
    pub fn new() -> LinkPool {
        LinkPool {
            links: Vec::new(),
            free: NONE,
            churn: 0,
            spare: Vec::new(),
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
            if index == self.links.capacity() {
                // Half more, not twice: a pack keeps a second buffer
                // as big (`pack`), so doubling would cost up to four times
                // the links.
                self.links.reserve_exact(index / 2 + 64);
            }
            self.links.push(link);
            index as u32
        }
    }

    /// [`free`](LinkPool::free), counted towards the next
    /// [`pack`](LinkPool::pack): for the structures that pack (the flat
    /// trees), so that the others pay nothing for it.
    pub fn free_counted(&mut self, index: u32) {
        // Saturating: a 32-bit count must not overflow in a long run.
        self.churn = self.churn.saturating_add(1);
        self.free(index);
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
        self.churn = 0;
    }

    /// Bytes held, both buffers counted.
    pub fn bytes(&self) -> usize {
        (self.links.capacity() + self.spare.capacity()) * core::mem::size_of::<Link>()
    }

    /// Whether the lists have decayed enough that a [`pack`](LinkPool::pack)
    /// pays: once a quarter as many links as the pool holds have been freed
    /// since the last. Each relink frees its old links and takes free ones
    /// anywhere in the pool, so a list's links scatter and every walk of it
    /// waits on one miss after another; measured on the agents frames
    /// (`docs/design.md`, "The flat trees' lists, packed").
    pub fn wants_pack(&self) -> bool {
        self.churn > 0 && self.churn >= self.links.len() / PACK_EVERY
    }

    /// Lays every list out again, contiguous and in its order: `lists` hands
    /// each list's head to the [`Packer`] and stores the new head it returns.
    /// Lists not handed over are lost, so `lists` must hand over every one.
    /// The free list is empty afterwards.
    pub fn pack(&mut self, lists: impl FnOnce(&mut Packer<'_>)) {
        // Both buffers keep the pool's capacity, which only grows (by
        // halves, `alloc`), as it did before packing: so a pack never
        // allocates once the pool is warm, whatever the link count does.
        let capacity = self.links.capacity();
        let mut new = core::mem::take(&mut self.spare);
        new.clear();
        new.reserve_exact(capacity);
        lists(&mut Packer {
            old: &self.links,
            new: &mut new,
        });
        self.spare = core::mem::replace(&mut self.links, new);
        self.free = NONE;
        self.churn = 0;
    }
}

/// [`LinkPool::wants_pack`]: a pack once a quarter of the links have been
/// freed, about every other frame on the agents workload (the steadiest of
/// an eighth, a quarter and a half in `docs/design.md`'s runs).
const PACK_EVERY: usize = 4;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_keeps_every_list_in_order_and_makes_it_contiguous() {
        let mut pool = LinkPool::new();
        // Two interleaved lists (heads a and b), then holes freed in each.
        let (mut a, mut b) = (NONE, NONE);
        for element in 0..10 {
            if element % 2 == 0 {
                a = pool.alloc(element, a);
            } else {
                b = pool.alloc(element, b);
            }
        }
        let walk = |pool: &LinkPool, head: u32| {
            let mut out = Vec::new();
            let mut link = head;
            while link != NONE {
                out.push((link, pool.links[link as usize].element));
                link = pool.links[link as usize].next;
            }
            out
        };
        // Unlink the second of each list, twice.
        for head in [a, b, a, b] {
            let second = pool.links[head as usize].next;
            pool.links[head as usize].next = pool.links[second as usize].next;
            pool.free_counted(second);
        }
        assert!(pool.wants_pack());
        let elements = |l: Vec<(u32, u32)>| l.into_iter().map(|(_, e)| e).collect::<Vec<_>>();
        let (before_a, before_b) = (elements(walk(&pool, a)), elements(walk(&pool, b)));
        pool.pack(|packer| {
            b = packer.list(b);
            a = packer.list(a);
            assert_eq!(packer.list(NONE), NONE);
        });
        assert_eq!(elements(walk(&pool, a)), before_a);
        assert_eq!(elements(walk(&pool, b)), before_b);
        // b first, then a, each at consecutive indices; nothing free.
        let at = |l: Vec<(u32, u32)>| l.into_iter().map(|(i, _)| i).collect::<Vec<_>>();
        assert_eq!(at(walk(&pool, b)), [0, 1, 2]);
        assert_eq!(at(walk(&pool, a)), [3, 4, 5]);
        assert_eq!(pool.links.len(), 6);
        assert_eq!(pool.free, NONE);
        assert!(!pool.wants_pack());
        // The old buffer is kept for the next pack, as big as the pool.
        assert_eq!(pool.spare.capacity(), pool.links.capacity());
        assert!(pool.spare.capacity() >= 10);
    }
}
