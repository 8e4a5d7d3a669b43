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
    /// Links freed since the lists were last laid out contiguously
    /// ([`pack`](LinkPool::pack)): how far their order has decayed.
    churn: usize,
}

/// A pack in progress ([`LinkPool::pack`]), in place: each list handed to
/// [`list`](Packer::list) takes the next run of positions, in list order.
/// Placing a link at position `p` moves the link that was there to where the
/// placed one came from, and leaves that position in `p`'s `next`: a
/// forward, so that an index read before the move still finds its link.
pub(crate) struct Packer<'a> {
    links: &'a mut [Link],
    /// Positions below are placed; their `next`s hold forwards.
    placed: u32,
}

impl Packer<'_> {
    /// Places the list starting at `head` and returns its new head.
    pub fn list(&mut self, head: u32) -> u32 {
        if head == NONE {
            return NONE;
        }
        let start = self.placed;
        let mut link = head;
        while link != NONE {
            let from = self.position_of(link);
            let to = self.placed as usize;
            let Link { next, element } = self.links[from];
            self.links[from] = self.links[to];
            self.links[to] = Link {
                next: from as u32 | if next == NONE { LAST_IN_LIST } else { 0 },
                element,
            };
            self.placed += 1;
            link = next;
        }
        start
    }

    /// Where the link first at `index` is now. A link not yet placed moves
    /// only when its position is being filled, and then to a higher one, so
    /// the forwards end.
    fn position_of(&self, mut index: u32) -> usize {
        while index < self.placed {
            let forward = self.links[index as usize].next & !LAST_IN_LIST;
            debug_assert!(forward > index, "a link was handed to the packer twice");
            index = forward;
        }
        index as usize
    }
}

/// Marks, during a pack, the last link of each list (in its forward).
const LAST_IN_LIST: u32 = 1 << 31;

impl LinkPool {
    pub fn new() -> LinkPool {
        LinkPool {
            links: Vec::new(),
            free: NONE,
            churn: 0,
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
            crate::huge_pages::push(&mut self.links, link);
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

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.links.capacity() * core::mem::size_of::<Link>()
    }

    /// Whether the lists have decayed enough that a [`pack`](LinkPool::pack)
    /// pays: once a quarter as many links as the pool holds have been freed
    /// since the last. Each relink frees its old links and takes free ones
    /// anywhere in the pool, so a list's links scatter and every walk of it
    /// waits on one miss after another; measured on the agents frames
    /// (`docs/design.md`, "The flat trees' lists, packed").
    pub fn wants_pack(&self) -> bool {
        // A pool past 2^31 links is never packed: a pack marks the last
        // link of each list in the top bit of its forward (`Packer`).
        self.churn > 0
            && self.churn >= self.links.len() / PACK_EVERY
            && self.links.len() <= LAST_IN_LIST as usize
    }

    /// Lays every list out again, contiguous and in its order: `lists` hands
    /// each list's head to the [`Packer`] and stores the new head it returns.
    /// Every list must be handed over: a link left out is lost. The free list
    /// is empty afterwards.
    ///
    /// In place ([`Packer`]), so a pack needs no second buffer and never
    /// allocates: each placement reads and writes two links, about twice a
    /// copy's traffic, and takes two to three times a copy's time.
    pub fn pack(&mut self, lists: impl FnOnce(&mut Packer<'_>)) {
        debug_assert!(
            self.links.len() <= LAST_IN_LIST as usize,
            "a pack marks list ends in bit 31 (`wants_pack` refuses bigger pools)"
        );
        let mut packer = Packer {
            links: &mut self.links,
            placed: 0,
        };
        lists(&mut packer);
        let live = packer.placed as usize;
        debug_assert_eq!(
            self.links
                .iter()
                .filter(|link| link.element != NONE)
                .count(),
            live,
            "a list was not handed to the packer"
        );
        for (at, link) in self.links[..live].iter_mut().enumerate() {
            link.next = if link.next & LAST_IN_LIST != 0 {
                NONE
            } else {
                at as u32 + 1
            };
        }
        self.links.truncate(live);
        self.free = NONE;
        self.churn = 0;
    }
}

/// [`LinkPool::wants_pack`]: a pack once a quarter of the links have been
/// freed, about one frame in three on the agents workload (34 packs in 100
/// frames at uniform-100k; the steadiest of
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

    /// Each link of the list starting at `head`: its index and its element.
    pub(super) fn walk(pool: &LinkPool, head: u32) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        let mut link = head;
        while link != NONE {
            out.push((link, pool.links[link as usize].element));
            link = pool.links[link as usize].next;
        }
        out
    }

    /// The elements of the list starting at `head`, in order.
    pub(super) fn elements(pool: &LinkPool, head: u32) -> Vec<u32> {
        walk(pool, head)
            .into_iter()
            .map(|(_, element)| element)
            .collect()
    }

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
        // Unlink the second of each list, twice.
        for head in [a, b, a, b] {
            let second = pool.links[head as usize].next;
            pool.links[head as usize].next = pool.links[second as usize].next;
            pool.free_counted(second);
        }
        assert!(pool.wants_pack());
        let (before_a, before_b) = (elements(&pool, a), elements(&pool, b));
        pool.pack(|packer| {
            b = packer.list(b);
            a = packer.list(a);
            assert_eq!(packer.list(NONE), NONE);
        });
        assert_eq!(elements(&pool, a), before_a);
        assert_eq!(elements(&pool, b), before_b);
        // b first, then a, each at consecutive indices; nothing free.
        let at = |l: Vec<(u32, u32)>| l.into_iter().map(|(i, _)| i).collect::<Vec<_>>();
        assert_eq!(at(walk(&pool, b)), [0, 1, 2]);
        assert_eq!(at(walk(&pool, a)), [3, 4, 5]);
        assert_eq!(pool.links.len(), 6);
        assert_eq!(pool.free, NONE);
        assert!(!pool.wants_pack());
        // In place: the pool keeps its buffer.
        assert!(pool.links.capacity() >= 10);
    }
}

#[cfg(test)]
mod pack_properties {
    use proptest::prelude::*;

    use super::tests::elements;
    use super::*;

    /// Links pushed onto and unlinked from a few lists, in any order, so the
    /// pool holds lists scattered among free links; then a pack that hands
    /// the lists over in any order, twice with more changes between.
    #[derive(Clone, Debug)]
    enum Change {
        Push { list: usize },
        Unlink { list: usize, nth: usize },
    }

    fn change() -> impl Strategy<Value = Change> {
        prop_oneof![
            3 => (0..LISTS).prop_map(|list| Change::Push { list }),
            2 => (0..LISTS, 0..8usize).prop_map(|(list, nth)| Change::Unlink { list, nth }),
        ]
    }

    const LISTS: usize = 5;

    fn apply(pool: &mut LinkPool, heads: &mut [u32; LISTS], changes: &[Change], next: &mut u32) {
        for change in changes {
            match *change {
                Change::Push { list } => {
                    heads[list] = pool.alloc(*next, heads[list]);
                    *next += 1;
                }
                Change::Unlink { list, nth } => {
                    let (mut before, mut link) = (NONE, heads[list]);
                    for _ in 0..nth {
                        if link == NONE {
                            break;
                        }
                        before = link;
                        link = pool.links[link as usize].next;
                    }
                    if link == NONE {
                        continue;
                    }
                    let after = pool.links[link as usize].next;
                    if before == NONE {
                        heads[list] = after;
                    } else {
                        pool.links[before as usize].next = after;
                    }
                    pool.free_counted(link);
                }
            }
        }
    }

    proptest! {
        #[test]
        fn a_pack_keeps_every_list_and_lays_them_out_in_the_order_handed(
            first in proptest::collection::vec(change(), 0..120),
            second in proptest::collection::vec(change(), 0..60),
            order in Just((0..LISTS).collect::<Vec<_>>()).prop_shuffle(),
        ) {
            let mut pool = LinkPool::new();
            let mut heads = [NONE; LISTS];
            let mut next = 0;
            for changes in [&first, &second] {
                apply(&mut pool, &mut heads, changes, &mut next);
                let before: Vec<_> = heads.iter().map(|&head| elements(&pool, head)).collect();
                let capacity = pool.links.capacity();
                pool.pack(|packer| {
                    for &list in &order {
                        heads[list] = packer.list(heads[list]);
                    }
                });
                let mut expected_at = 0;
                for &list in &order {
                    prop_assert_eq!(&elements(&pool, heads[list]), &before[list]);
                    if before[list].is_empty() {
                        prop_assert_eq!(heads[list], NONE);
                    } else {
                        prop_assert_eq!(heads[list], expected_at);
                    }
                    expected_at += before[list].len() as u32;
                }
                prop_assert_eq!(pool.links.len() as u32, expected_at);
                // Contiguous: each link's next is the following position, but
                // at the end of its list.
                let ends: Vec<u32> = order
                    .iter()
                    .scan(0, |at, &list| {
                        *at += before[list].len() as u32;
                        Some(*at)
                    })
                    .filter(|&end| end > 0)
                    .map(|end| end - 1)
                    .collect();
                for (at, link) in pool.links.iter().enumerate() {
                    let at = at as u32;
                    let wanted = if ends.contains(&at) { NONE } else { at + 1 };
                    prop_assert_eq!(link.next, wanted);
                }
                prop_assert_eq!(pool.free, NONE);
                prop_assert_eq!(pool.links.capacity(), capacity);
            }
        }
    }
}
