//! The tree itself: construction, insert, remove, move, split, cleanup, clear.

use arrayvec::ArrayVec;

use crate::cell::{
    mask, place_in_children, place_of, unpack_place, Cell, Grid, Place, Stack, MAX_DEPTH_LIMIT,
    NO_PLACE,
};
use crate::pool::{Link, LinkPool, Node, NodePool, Slot, SlotPool, MARK, NONE};
use crate::{Error, Handle, Rect};

/// A flat quadtree over `f32` rectangles, for broad-phase collision detection
/// and region queries over many moving elements.
///
/// Nodes are 8 bytes in one `Vec`, four siblings allocated together; a node's
/// rectangle is computed on the way down from the root's. Each element is
/// stored once (rectangle and id); a leaf chains small links to the elements it
/// holds, and an element that straddles leaves has a link in each. Every pool
/// recycles its holes through a free list, so once warm the tree allocates
/// nothing, whatever is inserted, moved or removed.
///
/// Results are exact: a query returns precisely the elements whose closed
/// rectangle intersects the closed query rectangle, for any world and for
/// elements partly or wholly outside it (those live in the border leaves).
///
/// Queries take `&self`, keep no scratch state in the tree, and may run from
/// many threads at once.
///
/// ```
/// use flatquad::{Quadtree, Rect};
///
/// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 100.0, 100.0), 8, 8)?;
/// let a = tree.insert(Rect::new(10.0, 10.0, 20.0, 20.0), 1)?;
/// let b = tree.insert(Rect::new(20.0, 15.0, 30.0, 25.0), 2)?; // touches `a`
/// let mut hits = Vec::new();
/// tree.query(Rect::new(0.0, 0.0, 12.0, 12.0), None, &mut hits)?;
/// assert_eq!(hits, [a]);
/// tree.update(b, Rect::new(50.0, 50.0, 60.0, 60.0))?;
/// let mut pairs = Vec::new();
/// tree.pairs(&mut pairs);
/// assert!(pairs.is_empty());
/// tree.remove(a)?;
/// assert!(tree.remove(a).is_err()); // a stale handle is refused
/// # Ok::<(), flatquad::Error>(())
/// ```
#[derive(Clone)]
pub struct Quadtree {
    world: Rect,
    pub(crate) grid: Grid,
    max_elements: u32,
    max_depth: u32,
    pub(crate) nodes: NodePool,
    pub(crate) links: LinkPool,
    pub(crate) slots: SlotPool,
}

/// How many handles ahead a batch call asks for slots.
pub(crate) const PREFETCH_AHEAD: usize = 32;

/// Batches at least this big are inserted in depth-first order.
const SORTED_BATCH: usize = 256;

pub(crate) fn check_rect(rect: Rect) -> Result<Rect, Error> {
    if rect.is_valid() {
        Ok(rect)
    } else {
        Err(Error::InvalidRect(rect))
    }
}

impl Quadtree {
    /// The leaf capacity the seed measured as best, and ours too.
    pub const DEFAULT_MAX_ELEMENTS: u32 = 8;
    /// A default depth: 256 × 256 cells at the deepest level.
    pub const DEFAULT_MAX_DEPTH: u32 = 8;
    /// The largest `max_depth` accepted.
    pub const MAX_DEPTH_LIMIT: u32 = MAX_DEPTH_LIMIT;

    /// An empty tree over `world`. A leaf splits when it holds more than
    /// `max_elements` and is shallower than `max_depth` (the root is depth 0).
    ///
    /// The world only sets where the tree divides the plane: elements and queries
    /// outside it are fine, they end up in the border leaves. Pick `max_depth` so
    /// that the deepest cells are a little larger than a typical element.
    ///
    /// # Errors
    /// [`Error::InvalidWorld`] unless `world` is finite with a positive, finite
    /// width and height; [`Error::InvalidParameter`] if `max_elements` is 0 or
    /// `max_depth` exceeds [`Quadtree::MAX_DEPTH_LIMIT`].
    pub fn new(world: Rect, max_elements: u32, max_depth: u32) -> Result<Quadtree, Error> {
        let (width, height) = (world.width(), world.height());
        if !(world.is_valid()
            && width > 0.0
            && height > 0.0
            && width.is_finite()
            && height.is_finite())
        {
            return Err(Error::InvalidWorld(world));
        }
        if max_elements == 0 {
            return Err(Error::InvalidParameter {
                name: "max_elements",
                expected: "at least 1",
                found: max_elements.into(),
            });
        }
        if max_depth > MAX_DEPTH_LIMIT {
            return Err(Error::InvalidParameter {
                name: "max_depth",
                expected: "at most 30",
                found: max_depth.into(),
            });
        }
        Ok(Quadtree {
            world,
            grid: Grid::new(&world, max_depth),
            max_elements,
            max_depth,
            nodes: NodePool::new(),
            links: LinkPool::new(),
            slots: SlotPool::new(),
        })
    }

    /// The world rectangle the tree was made with.
    pub fn world(&self) -> Rect {
        self.world
    }

    /// Elements a leaf holds before it splits.
    pub fn max_elements(&self) -> u32 {
        self.max_elements
    }

    /// Depth below which leaves no longer split (the root is depth 0).
    pub fn max_depth(&self) -> u32 {
        self.max_depth
    }

    /// Number of elements in the tree.
    pub fn len(&self) -> usize {
        self.slots.live
    }

    /// Whether the tree holds no element.
    pub fn is_empty(&self) -> bool {
        self.slots.live == 0
    }

    /// Whether `handle` names an element of this tree now.
    pub fn contains(&self, handle: Handle) -> bool {
        self.slots.lookup(handle).is_ok()
    }

    /// The id the element was inserted with.
    ///
    /// # Errors
    /// [`Error::InvalidHandle`] if `handle` is not live.
    pub fn id(&self, handle: Handle) -> Result<u32, Error> {
        let slot = self.slots.lookup(handle)?;
        Ok(self.slots.slots[slot as usize].id)
    }

    /// The element's current rectangle.
    ///
    /// # Errors
    /// [`Error::InvalidHandle`] if `handle` is not live.
    pub fn rect(&self, handle: Handle) -> Result<Rect, Error> {
        let slot = self.slots.lookup(handle)?;
        Ok(self.slots.slots[slot as usize].rect)
    }

    /// Every live element as `(handle, rectangle, id)`, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = (Handle, Rect, u32)> + '_ {
        self.slots
            .slots
            .iter()
            .enumerate()
            .filter(|(_, slot)| slot.is_live())
            .map(|(index, slot)| (self.slots.handle(index as u32), slot.rect, slot.id))
    }

    /// Adds an element and returns its handle.
    ///
    /// # Errors
    /// [`Error::InvalidRect`] for NaN or infinite coordinates or an inverted
    /// rectangle; [`Error::CapacityExceeded`] when 2^32 - 1 slots are in use.
    pub fn insert(&mut self, rect: Rect, id: u32) -> Result<Handle, Error> {
        check_rect(rect)?;
        self.slots.check_room(1)?;
        let slot = self.slots.alloc(rect, id);
        self.link(slot, &rect);
        Ok(self.slots.handle(slot))
    }

    /// Adds `rects[i]` with id `ids[i]` for every `i`, appending the handles to
    /// `handles` in order. Checks every item first: on error nothing is inserted.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] if the slices differ in length; otherwise the
    /// first item's error from [`insert`](Quadtree::insert), inside [`Error::InBatch`].
    pub fn insert_many(
        &mut self,
        rects: &[Rect],
        ids: &[u32],
        handles: &mut Vec<Handle>,
    ) -> Result<(), Error> {
        if ids.len() != rects.len() {
            return Err(Error::LengthMismatch {
                expected: rects.len(),
                found: ids.len(),
            });
        }
        for (index, &rect) in rects.iter().enumerate() {
            check_rect(rect).map_err(|e| e.in_batch(index))?;
        }
        self.slots.check_room(rects.len())?;
        let fresh = rects
            .len()
            .saturating_sub(self.slots.slots.len() - self.slots.live);
        self.slots.slots.reserve_exact(fresh);
        handles.reserve(rects.len());
        if rects.len() < SORTED_BATCH {
            for (&rect, &id) in rects.iter().zip(ids) {
                let slot = self.slots.alloc(rect, id);
                self.link(slot, &rect);
                handles.push(self.slots.handle(slot));
            }
            return Ok(());
        }
        // Insert in the order a depth-first walk meets the elements, so that
        // elements close in space get slots close in memory: walks over the
        // leaves (pairs, queries) then read the slot array nearly in order.
        let mut order: Vec<(u32, u32)> = rects
            .iter()
            .enumerate()
            .map(|(index, rect)| (self.grid.z_order(rect), index as u32))
            .collect();
        order.sort_unstable();
        let start = handles.len();
        handles.resize(start + rects.len(), Handle::from_raw(0));
        for (_, index) in order {
            let (rect, id) = (rects[index as usize], ids[index as usize]);
            let slot = self.slots.alloc(rect, id);
            self.link(slot, &rect);
            handles[start + index as usize] = self.slots.handle(slot);
        }
        Ok(())
    }

    /// Removes an element; its handle, and every copy of it, goes stale.
    ///
    /// Only unlinks: emptied leaves are merged by [`cleanup`](Quadtree::cleanup).
    ///
    /// # Errors
    /// [`Error::InvalidHandle`] if `handle` is not live (never issued, already
    /// removed, or cleared).
    pub fn remove(&mut self, handle: Handle) -> Result<(), Error> {
        let slot = self.slots.lookup(handle)?;
        self.remove_slot(slot);
        Ok(())
    }

    /// Removes every element of `handles`. Checks them all first: on error
    /// nothing is removed.
    ///
    /// # Errors
    /// The first item's [`Error::InvalidHandle`] or [`Error::DuplicateHandle`],
    /// inside [`Error::InBatch`].
    pub fn remove_many(&mut self, handles: &[Handle]) -> Result<(), Error> {
        // Mark each slot while checking, so a handle given twice is caught without
        // allocating.
        let mut failure = None;
        let mut marked = 0;
        for (index, &handle) in handles.iter().enumerate() {
            match self.slots.lookup(handle) {
                Ok(slot) if self.slots.slots[slot as usize].stamp & MARK != 0 => {
                    failure = Some(Error::DuplicateHandle(handle).in_batch(index));
                }
                Ok(slot) => {
                    self.slots.slots[slot as usize].stamp |= MARK;
                    marked = index + 1;
                }
                Err(error) => failure = Some(error.in_batch(index)),
            }
            if failure.is_some() {
                break;
            }
        }
        if let Some(error) = failure {
            for &handle in &handles[..marked] {
                self.slots.slots[handle.slot() as usize].stamp &= !MARK;
            }
            return Err(error);
        }
        if handles.len() >= 64 && handles.len() * 8 >= self.slots.live {
            // A big batch: one sweep over every leaf drops the marked elements'
            // links, instead of searching each leaf's list once per element
            // (quadratic for many elements stacked in one leaf).
            self.unlink_marked();
            for &handle in handles {
                self.slots.free(handle.slot());
            }
        } else {
            for &handle in handles {
                self.slots.slots[handle.slot() as usize].stamp &= !MARK;
                self.remove_slot(handle.slot());
            }
        }
        Ok(())
    }

    /// Unlinks every element whose slot is marked from every leaf.
    fn unlink_marked(&mut self) {
        for leaf in 0..self.nodes.nodes.len() {
            if self.nodes.nodes[leaf].count <= 0 {
                continue; // a branch, a free node or an empty leaf
            }
            let mut previous = NONE;
            let mut link = self.nodes.nodes[leaf].first;
            while link != NONE {
                let Link { next, element } = self.links.links[link as usize];
                if self.slots.slots[element as usize].stamp & MARK != 0 {
                    if previous == NONE {
                        self.nodes.nodes[leaf].first = next;
                    } else {
                        self.links.links[previous as usize].next = next;
                    }
                    self.nodes.nodes[leaf].count -= 1;
                    self.links.free(link);
                } else {
                    previous = link;
                }
                link = next;
            }
        }
    }

    /// Gives an element a new rectangle (the "move" of a collision loop).
    ///
    /// When the new rectangle lies in exactly the leaves the old one did, only the
    /// rectangle changes; otherwise the element is unlinked and linked again.
    ///
    /// # Errors
    /// [`Error::InvalidRect`] or [`Error::InvalidHandle`]; the tree is unchanged.
    pub fn update(&mut self, handle: Handle, rect: Rect) -> Result<(), Error> {
        check_rect(rect)?;
        let slot = self.slots.lookup(handle)?;
        self.relocate(slot, rect);
        Ok(())
    }

    /// [`update`](Quadtree::update)s `handles[i]` to `rects[i]` for every `i`, in
    /// order (a handle given twice ends at its last rectangle). Checks every item
    /// first: on error nothing moves.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`], or the first item's error inside [`Error::InBatch`].
    pub fn update_many(&mut self, handles: &[Handle], rects: &[Rect]) -> Result<(), Error> {
        if rects.len() != handles.len() {
            return Err(Error::LengthMismatch {
                expected: handles.len(),
                found: rects.len(),
            });
        }
        // Each handle's slot is one cache miss when handles come in an order
        // unrelated to memory; asking for slots a few handles ahead overlaps them.
        for (index, (&handle, &rect)) in handles.iter().zip(rects).enumerate() {
            if let Some(ahead) = handles.get(index + PREFETCH_AHEAD) {
                self.slots.prefetch(*ahead);
            }
            check_rect(rect)
                .and_then(|_| self.slots.lookup(handle))
                .map_err(|e| e.in_batch(index))?;
        }
        for (index, (&handle, &rect)) in handles.iter().zip(rects).enumerate() {
            if let Some(ahead) = handles.get(index + PREFETCH_AHEAD) {
                self.slots.prefetch(*ahead);
            }
            self.relocate(handle.slot(), rect);
        }
        Ok(())
    }

    /// Merges, bottom-up, every branch whose four children are empty leaves into
    /// one empty leaf. Lazy, as the seed has it: one level per call, so call it
    /// once a frame; an element that leaves a cell is often replaced in the same
    /// frame, and nodes are not churned for nothing. The root always stays.
    pub fn cleanup(&mut self) {
        let nodes = &mut self.nodes;
        if !nodes.nodes[0].is_branch() {
            return;
        }
        let mut branches = arrayvec::ArrayVec::<u32, { crate::cell::STACK_CAPACITY }>::new();
        branches.push(0);
        while let Some(branch) = branches.pop() {
            let first = nodes.nodes[branch as usize].first;
            let mut empty_leaves = 0;
            for child in first..first + 4 {
                let node = nodes.nodes[child as usize];
                if node.count == 0 {
                    empty_leaves += 1;
                } else if node.is_branch() {
                    branches.push(child);
                }
            }
            if empty_leaves == 4 {
                nodes.free_block(first);
                nodes.nodes[branch as usize] = Node::EMPTY_LEAF;
            }
        }
    }

    /// Removes every element (all handles go stale) and every node but the root;
    /// keeps the memory for reuse.
    pub fn clear(&mut self) {
        self.nodes.reset();
        self.links.reset();
        self.slots.free_all();
    }

    fn remove_slot(&mut self, slot: u32) {
        let rect = self.slots.slots[slot as usize].rect;
        self.unlink(slot, &rect);
        self.slots.free(slot);
    }

    fn relocate(&mut self, slot: u32, rect: Rect) {
        let current = self.slots.slots[slot as usize];
        if current.place != NO_PLACE {
            // The common case, without a descent: still inside the same leaves.
            if self.grid.still_in(current.place, &rect) {
                self.slots.slots[slot as usize].rect = rect;
                return;
            }
        } else if let Some((place, home)) = self.same_leaves(&current.rect, &rect) {
            let slot = &mut self.slots.slots[slot as usize];
            slot.rect = rect;
            slot.place = place;
            slot.home = home;
            return;
        }
        // Down together while both rectangles pick the same one child; the old
        // links and the new ones are all below where the two walks part.
        let mut cell = Cell::ROOT;
        loop {
            let node = self.nodes.nodes[cell.node as usize];
            if !node.is_branch() {
                break;
            }
            let (cx, cy) = self.grid.split(&cell);
            let mask = mask(cx, cy, &current.rect);
            if mask != self::mask(cx, cy, &rect) || !mask.is_power_of_two() {
                break;
            }
            cell = cell.child(node.first, mask.trailing_zeros());
        }
        self.unlink_from(cell, slot, &current.rect);
        self.slots.slots[slot as usize].rect = rect;
        self.link_from(cell, slot, &rect);
    }

    /// The children of branch `cell` that `rect` meets.
    #[inline(always)]
    pub(crate) fn mask_at(&self, cell: &Cell, rect: &Rect) -> u32 {
        let (cx, cy) = self.grid.split(cell);
        mask(cx, cy, rect)
    }

    /// Pushes the children of `cell` (whose first child is `first`) named by `mask`.
    #[inline]
    pub(crate) fn push_children(&self, stack: &mut Stack, cell: &Cell, first: u32, mask: u32) {
        let mut mask = mask;
        while mask != 0 {
            let k = mask.trailing_zeros();
            mask &= mask - 1;
            stack.push(cell.child(first, k));
        }
    }

    /// If two rectangles lie in exactly the same leaves — they pick the same
    /// children at every branch on the way down — the place of those leaves.
    fn same_leaves(&self, a: &Rect, b: &Rect) -> Option<(Place, u32)> {
        let mut leaves = LeafSet::default();
        let mut stack = Stack::new();
        stack.push(Cell::ROOT);
        while let Some(cell) = stack.pop() {
            let node = self.nodes.nodes[cell.node as usize];
            if node.is_branch() {
                let (cx, cy) = self.grid.split(&cell);
                let mask = mask(cx, cy, a);
                if mask != self::mask(cx, cy, b) {
                    return None;
                }
                self.push_children(&mut stack, &cell, node.first, mask);
            } else {
                leaves.add(cell);
            }
        }
        let place = leaves.place();
        let home = match leaves.cells.as_slice() {
            [leaf] if place != NO_PLACE => leaf.node,
            _ => NONE,
        };
        Some((place, home))
    }

    /// Links the element in `slot` into every leaf `rect` meets, splitting leaves
    /// that grow past `max_elements`, and records the element's place.
    fn link(&mut self, slot: u32, rect: &Rect) {
        self.link_from(Cell::ROOT, slot, rect);
    }

    /// [`link`](Quadtree::link) below `start`, which holds all the leaves `rect` meets.
    fn link_from(&mut self, start: Cell, slot: u32, rect: &Rect) {
        let (cell, node, mask) = self.descend_from(start, rect);
        if mask == 0 {
            // Set before linking: a split of the leaf moves the place down.
            let slot_ref = &mut self.slots.slots[slot as usize];
            slot_ref.place = place_of(&[cell]);
            slot_ref.home = if slot_ref.place == NO_PLACE {
                NONE
            } else {
                cell.node
            };
            self.add_to_leaf(cell, slot);
            return;
        }
        let mut stack = Stack::new();
        self.push_children(&mut stack, &cell, node.first, mask);
        // The rectangle straddles a split: link it in every leaf below. If one of
        // them splits, the place is left void; the next move that stays finds it.
        self.slots.slots[slot as usize].place = NO_PLACE;
        self.slots.slots[slot as usize].home = NONE;
        let mut leaves = LeafSet::default();
        let mut split = false;
        while let Some(cell) = stack.pop() {
            let node = self.nodes.nodes[cell.node as usize];
            if node.is_branch() {
                self.push_children(&mut stack, &cell, node.first, self.mask_at(&cell, rect));
            } else {
                leaves.add(cell);
                split |= self.add_to_leaf(cell, slot);
            }
        }
        if !split {
            let place = leaves.place();
            // Leaves one level below where the walk parted are that node's children.
            let siblings = leaves.cells.iter().all(|leaf| leaf.depth == cell.depth + 1);
            let slot = &mut self.slots.slots[slot as usize];
            slot.place = place;
            slot.home = if place != NO_PLACE && siblings {
                cell.node
            } else {
                NONE
            };
        }
    }

    /// Links the element into a leaf; whether the leaf split.
    fn add_to_leaf(&mut self, cell: Cell, slot: u32) -> bool {
        let node = self.nodes.nodes[cell.node as usize];
        let link = self.links.alloc(slot, node.first);
        let count = node.count + 1;
        self.nodes.nodes[cell.node as usize] = Node { first: link, count };
        // A leaf that would not split (see `split_pays`) is asked again only when
        // its count doubles, so piling n elements on one spot stays O(n log n).
        let over = count as u32 > self.max_elements;
        if over
            && cell.depth < self.max_depth
            && (count as u32 == self.max_elements + 1 || (count as u32).is_power_of_two())
        {
            self.split(cell)
        } else {
            false
        }
    }

    /// Walks down from the root while `rect` picks one child at each branch.
    /// Returns the cell where it stops, its node, and the children `rect` meets
    /// there: 0 if the cell is a leaf, several bits if it is a branch.
    #[inline]
    pub(crate) fn descend(&self, rect: &Rect) -> (Cell, Node, u32) {
        self.descend_from(Cell::ROOT, rect)
    }

    /// [`descend`](Quadtree::descend) from `cell` instead of the root.
    #[inline]
    fn descend_from(&self, mut cell: Cell, rect: &Rect) -> (Cell, Node, u32) {
        loop {
            let node = self.nodes.nodes[cell.node as usize];
            if !node.is_branch() {
                return (cell, node, 0);
            }
            let mask = self.mask_at(&cell, rect);
            if !mask.is_power_of_two() {
                return (cell, node, mask);
            }
            cell = cell.child(node.first, mask.trailing_zeros());
        }
    }

    /// Unlinks the element in `slot` from every leaf `rect` (its current
    /// rectangle) meets.
    fn unlink(&mut self, slot: u32, rect: &Rect) {
        self.unlink_from(Cell::ROOT, slot, rect);
    }

    /// [`unlink`](Quadtree::unlink) below `start`, which holds all its leaves.
    fn unlink_from(&mut self, start: Cell, slot: u32, rect: &Rect) {
        let Slot { place, home, .. } = self.slots.slots[slot as usize];
        if home != NONE {
            // The element's leaves are known: no descent.
            for leaf in home_leaves(place, home, &self.nodes.nodes) {
                self.unlink_from_leaf(leaf, slot);
            }
            return;
        }
        let (cell, node, mask) = self.descend_from(start, rect);
        if mask == 0 {
            self.unlink_from_leaf(cell.node, slot);
            return;
        }
        let mut stack = Stack::new();
        self.push_children(&mut stack, &cell, node.first, mask);
        while let Some(cell) = stack.pop() {
            let node = self.nodes.nodes[cell.node as usize];
            if node.is_branch() {
                self.push_children(&mut stack, &cell, node.first, self.mask_at(&cell, rect));
            } else {
                self.unlink_from_leaf(cell.node, slot);
            }
        }
    }

    fn unlink_from_leaf(&mut self, leaf: u32, slot: u32) {
        let mut previous = NONE;
        let mut link = self.nodes.nodes[leaf as usize].first;
        while link != NONE {
            let Link { next, element } = self.links.links[link as usize];
            if element == slot {
                if previous == NONE {
                    self.nodes.nodes[leaf as usize].first = next;
                } else {
                    self.links.links[previous as usize].next = next;
                }
                self.nodes.nodes[leaf as usize].count -= 1;
                self.links.free(link);
                return;
            }
            previous = link;
            link = next;
        }
        debug_assert!(false, "element {slot} missing from leaf {leaf}");
    }

    /// Whether splitting the leaf would separate its elements. Only elements that
    /// fit in a child cell count: a bigger one lies in most children anyway, and
    /// separating big ones along their edges would take 2^depth leaves (two long
    /// edges a hair apart). And the small ones must not all share a point, for
    /// the leaf owning that point would hold them all at any depth (a stack of
    /// elements at one spot).
    fn split_pays(&self, cell: &Cell, leaf: Node) -> bool {
        let (child_w, child_h) = self.grid.cell_size(cell.depth + 1);
        let mut small = 0;
        let mut common = Rect::new(f32::MIN, f32::MIN, f32::MAX, f32::MAX);
        let mut link = leaf.first;
        while link != NONE {
            let Link { next, element } = self.links.links[link as usize];
            let r = &self.slots.slots[element as usize].rect;
            if r.width() <= child_w && r.height() <= child_h {
                small += 1;
                common = Rect::new(
                    common.x1.max(r.x1),
                    common.y1.max(r.y1),
                    common.x2.min(r.x2),
                    common.y2.min(r.y2),
                );
            }
            link = next;
        }
        small > self.max_elements && (common.x1 > common.x2 || common.y1 > common.y2)
    }

    /// Turns an over-full leaf into a branch with four leaves and deals its
    /// elements out to them, then splits those that are still over-full.
    /// Returns whether the leaf split.
    fn split(&mut self, cell: Cell) -> bool {
        let mut split = false;
        let mut pending = Stack::new();
        pending.push(cell);
        while let Some(cell) = pending.pop() {
            let leaf = self.nodes.nodes[cell.node as usize];
            if !self.split_pays(&cell, leaf) {
                continue;
            }
            split = true;
            let first = self.nodes.alloc_block();
            self.nodes.nodes[cell.node as usize] = Node {
                first,
                count: Node::BRANCH,
            };
            let alone_here = place_of(&[cell]);
            let (cx, cy) = self.grid.split(&cell);
            let mut link = leaf.first;
            while link != NONE {
                let Link { next, element } = self.links.links[link as usize];
                let slot = &mut self.slots.slots[element as usize];
                let mut mask = mask(cx, cy, &slot.rect);
                // An element that lay in this leaf alone now lies in the new
                // leaves its mask names; any other place involved this leaf as a
                // leaf and is void now.
                (slot.place, slot.home) = if slot.place == alone_here && alone_here != NO_PLACE {
                    let home = if mask.is_power_of_two() {
                        first + mask.trailing_zeros()
                    } else {
                        cell.node
                    };
                    match place_in_children(&cell, mask) {
                        NO_PLACE => (NO_PLACE, NONE),
                        place => (place, home),
                    }
                } else {
                    (NO_PLACE, NONE)
                };
                // The element's link in this leaf moves to its first child; the
                // other children it meets get new links.
                let mut reuse = Some(link);
                while mask != 0 {
                    let child = (first + mask.trailing_zeros()) as usize;
                    mask &= mask - 1;
                    let head = self.nodes.nodes[child].first;
                    let moved = match reuse.take() {
                        Some(link) => {
                            self.links.links[link as usize].next = head;
                            link
                        }
                        None => self.links.alloc(element, head),
                    };
                    self.nodes.nodes[child].first = moved;
                    self.nodes.nodes[child].count += 1;
                }
                link = next;
            }
            if cell.depth + 1 < self.max_depth {
                for k in 0..4 {
                    if self.nodes.nodes[(first + k) as usize].count as u32 > self.max_elements {
                        pending.push(cell.child(first, k));
                    }
                }
            }
        }
        split
    }
}

impl core::fmt::Debug for Quadtree {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Quadtree")
            .field("world", &self.world)
            .field("len", &self.len())
            .field("max_elements", &self.max_elements)
            .field("max_depth", &self.max_depth)
            .field("nodes", &self.nodes.nodes.len())
            .finish_non_exhaustive()
    }
}

/// The leaves a descent reached, kept while they may still form a place.
#[derive(Default)]
struct LeafSet {
    cells: ArrayVec<Cell, 4>,
    overflow: bool,
}

impl LeafSet {
    fn add(&mut self, cell: Cell) {
        self.overflow |= self.cells.try_push(cell).is_err();
    }

    fn place(&self) -> Place {
        if self.overflow {
            NO_PLACE
        } else {
            place_of(&self.cells)
        }
    }
}

/// The leaves an element with a known `home` lies in: `home` itself for a
/// one-leaf place, else the children of `home` its place names.
pub(crate) fn home_leaves(place: Place, home: u32, nodes: &[Node]) -> HomeLeaves {
    let (_, x0, y0, wx, wy) = unpack_place(place);
    if wx == 1 && wy == 1 {
        return HomeLeaves {
            first: home,
            mask: 1,
        };
    }
    let mut mask = 0;
    for x in x0..x0 + wx {
        for y in y0..y0 + wy {
            mask |= 1 << ((x & 1) + 2 * (y & 1));
        }
    }
    HomeLeaves {
        first: nodes[home as usize].first,
        mask,
    }
}

/// Iterator of [`home_leaves`]: node indices `first + k` for the bits `k` of `mask`.
pub(crate) struct HomeLeaves {
    first: u32,
    mask: u32,
}

impl Iterator for HomeLeaves {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        if self.mask == 0 {
            return None;
        }
        let k = self.mask.trailing_zeros();
        self.mask &= self.mask - 1;
        Some(self.first + k)
    }
}
