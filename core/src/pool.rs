//! The three free-list pools the tree is made of: nodes (four at a time), the
//! links that chain elements into leaves, and the element slots themselves.
//!
//! Each pool is one `Vec` plus the head of a free list threaded through its
//! unused entries, so removing leaves a hole the next insert reuses in O(1),
//! indices stay valid, and nothing is allocated once the pools are warm.

use crate::cell::{Place, NO_PLACE};
use crate::handle::{Handle, MAX_GENERATION};
use crate::{Error, Rect};

/// Asks the CPU to start loading the cache line of `value`; does nothing else.
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint: it never faults and changes no state the
    // program can see; the pointer comes from a live reference.
    unsafe {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// The "no index" value of every `u32` link.
pub(crate) const NONE: u32 = u32::MAX;

/// A quadtree node in 8 bytes. A leaf holds the head of its element links and
/// their count; a branch holds the index of the first of its four contiguous
/// children and `count == BRANCH`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub(crate) struct Node {
    pub first: u32,
    pub count: i32,
}

impl Node {
    pub const BRANCH: i32 = -1;
    /// Marks the nodes of a freed block (only for validation and debugging).
    pub const FREE: i32 = -2;
    pub const EMPTY_LEAF: Node = Node {
        first: NONE,
        count: 0,
    };

    #[inline]
    pub fn is_branch(self) -> bool {
        self.count == Node::BRANCH
    }
}

/// Nodes, allocated and freed four at a time; node 0 is the root and never freed.
#[derive(Clone, Debug)]
pub(crate) struct NodePool {
    pub nodes: Vec<Node>,
    /// First node of the first free block; the block's first node links the next.
    pub free_block: u32,
}

impl NodePool {
    pub fn new() -> NodePool {
        NodePool {
            nodes: vec![Node::EMPTY_LEAF],
            free_block: NONE,
        }
    }

    /// Four empty leaves; returns the index of the first.
    pub fn alloc_block(&mut self) -> u32 {
        if self.free_block != NONE {
            let first = self.free_block;
            self.free_block = self.nodes[first as usize].first;
            self.nodes[first as usize..first as usize + 4].fill(Node::EMPTY_LEAF);
            first
        } else {
            let first = self.nodes.len();
            assert!(
                first + 4 < NONE as usize,
                "flatquad: more than 2^32 - 1 nodes"
            );
            self.nodes.extend_from_slice(&[Node::EMPTY_LEAF; 4]);
            first as u32
        }
    }

    pub fn free_block(&mut self, first: u32) {
        let block = &mut self.nodes[first as usize..first as usize + 4];
        block.fill(Node {
            first: NONE,
            count: Node::FREE,
        });
        block[0].first = self.free_block;
        self.free_block = first;
    }

    pub fn reset(&mut self) {
        self.nodes.truncate(1);
        self.nodes[0] = Node::EMPTY_LEAF;
        self.free_block = NONE;
    }
}

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

    pub fn reset(&mut self) {
        self.links.clear();
        self.free = NONE;
    }
}

/// Slot stamp bit: the slot holds a live element.
pub(crate) const LIVE: u32 = 1 << 31;
/// Slot stamp bit: set for a moment while a batch call checks for duplicates.
pub(crate) const MARK: u32 = 1 << 30;
const GENERATION_MASK: u32 = MAX_GENERATION;
/// Stamp of a retired slot: generation 0, which no handle carries.
pub(crate) const RETIRED: u32 = 0;

/// Where an element's rectangle and id live. A free slot keeps the generation its
/// next element will get and links the next free slot through `id`. 32 bytes,
/// aligned, so a slot never straddles two cache lines.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(32))]
pub(crate) struct Slot {
    pub rect: Rect,
    pub id: u32,
    pub stamp: u32,
    /// Where the element lies, for moves that stay put (see [`Place`]).
    pub place: Place,
    /// The node holding the place's leaves: the leaf itself for a one-leaf
    /// place, their parent when the place's leaves are siblings; else [`NONE`].
    /// Lets removals and queries around the element skip the descent.
    pub home: u32,
}

impl Slot {
    #[inline]
    pub fn is_live(&self) -> bool {
        self.stamp & LIVE != 0
    }

    #[inline]
    pub fn generation(&self) -> u32 {
        self.stamp & GENERATION_MASK
    }
}

#[derive(Clone, Debug)]
pub(crate) struct SlotPool {
    pub slots: Vec<Slot>,
    pub free: u32,
    pub live: usize,
}

impl SlotPool {
    pub fn new() -> SlotPool {
        SlotPool {
            slots: Vec::new(),
            free: NONE,
            live: 0,
        }
    }

    /// Room for `additional` more elements, or `CapacityExceeded`; on success
    /// that many `alloc`s cannot fail.
    pub fn check_room(&self, additional: usize) -> Result<(), Error> {
        let free_slots_bound = self.slots.len() - self.live;
        let fresh_needed = additional.saturating_sub(free_slots_bound);
        if self.slots.len() + fresh_needed >= NONE as usize {
            Err(Error::CapacityExceeded)
        } else {
            Ok(())
        }
    }

    /// A live slot for the element; the caller checked room.
    pub fn alloc(&mut self, rect: Rect, id: u32) -> u32 {
        self.live += 1;
        if self.free != NONE {
            let index = self.free;
            let slot = &mut self.slots[index as usize];
            self.free = slot.id;
            slot.rect = rect;
            slot.id = id;
            slot.stamp = LIVE | slot.generation();
            slot.place = NO_PLACE;
            slot.home = NONE;
            index
        } else {
            let index = self.slots.len() as u32;
            self.slots.push(Slot {
                rect,
                id,
                stamp: LIVE | 1,
                place: NO_PLACE,
                home: NONE,
            });
            index
        }
    }

    /// Frees a live slot: bumps its generation so its handle goes stale, and
    /// retires it instead when the generation is used up.
    pub fn free(&mut self, index: u32) {
        self.live -= 1;
        let slot = &mut self.slots[index as usize];
        let generation = slot.generation();
        if generation == MAX_GENERATION {
            slot.stamp = RETIRED;
            slot.id = NONE;
        } else {
            slot.stamp = generation + 1;
            slot.id = self.free;
            self.free = index;
        }
    }

    /// The slot index a handle names, if it is live.
    #[inline]
    pub fn lookup(&self, handle: Handle) -> Result<u32, Error> {
        let generation = handle.generation().ok_or(Error::InvalidHandle(handle))?;
        match self.slots.get(handle.slot() as usize) {
            Some(slot) if slot.stamp & !MARK == LIVE | generation => Ok(handle.slot()),
            _ => Err(Error::InvalidHandle(handle)),
        }
    }

    /// Asks the CPU to start loading a handle's slot; does nothing else, and
    /// nothing at all for a handle out of range.
    #[inline]
    pub fn prefetch(&self, handle: Handle) {
        if let Some(slot) = self.slots.get(handle.slot() as usize) {
            prefetch(slot);
        }
    }

    #[inline]
    pub fn handle(&self, index: u32) -> Handle {
        Handle::new(index, self.slots[index as usize].generation())
    }

    /// Frees every live slot (handles go stale) and keeps the capacity.
    pub fn free_all(&mut self) {
        for index in (0..self.slots.len() as u32).rev() {
            if self.slots[index as usize].is_live() {
                self.free(index);
            }
        }
    }
}
