//! The primitives each structure implements, already-checked and crate-private:
//! [`SpatialIndex`](crate::SpatialIndex) checks every argument once and then calls
//! these. The traits are public only in name (this module is private), which seals
//! `SpatialIndex`: other crates use it but cannot implement it.

use core::ops::ControlFlow;

use crate::slots::{SlotPool, SlotRecord, NONE};
use crate::{Bounds, Error, Filter, Handle};

/// How many handles ahead a batch call asks for slots.
pub(crate) const PREFETCH_AHEAD: usize = 32;

/// A structure that keeps its elements in a [`SlotPool`].
pub trait HasSlots {
    /// The structure's slot: rectangle, id, stamp and its own fields.
    type Slot: SlotRecord;
    /// The pool.
    fn slot_pool(&self) -> &SlotPool<Self::Slot>;
    /// The pool, to change.
    fn slot_pool_mut(&mut self) -> &mut SlotPool<Self::Slot>;
}

/// The slot operations the checked calls need, whatever the slot type.
pub trait Slots {
    /// The elements' box: [`Rect`](crate::Rect) for the 2D structures, [`Box3`](crate::Box3) for the octree.
    type Bounds: Bounds;
    /// The slot a live handle names, or [`Error::InvalidHandle`].
    fn lookup(&self, handle: Handle) -> Result<u32, Error>;
    /// The handle of a live slot.
    fn handle_at(&self, slot: u32) -> Handle;
    /// The box of a live slot: the element's own box, also under a margin.
    fn rect_at(&self, slot: u32) -> Self::Bounds;
    /// The id of a live slot.
    fn id_at(&self, slot: u32) -> u32;
    /// Live elements.
    fn live(&self) -> usize;
    /// Room for `additional` more elements, or [`Error::CapacityExceeded`].
    fn check_room(&self, additional: usize) -> Result<(), Error>;
    /// Whether the batch mark of a live slot is set.
    fn is_marked(&self, slot: u32) -> bool;
    /// Sets or clears the batch mark of a live slot.
    fn set_mark(&mut self, slot: u32, on: bool);
    /// Starts loading a handle's slot into the cache (a hint; any value is fine).
    fn prefetch_slot(&self, handle: Handle);
    /// Starts loading a handle's stamp, what [`lookup`](Slots::lookup) reads.
    fn prefetch_stamp(&self, handle: Handle);
    /// Slots in the pool, live or not: the bound of [`element_at`](Slots::element_at).
    fn slot_count(&self) -> usize;
    /// A value that changes whenever an element is added or removed, and
    /// that no other index shares unless it is a clone holding the same
    /// elements in the same slots.
    fn membership(&self) -> u64;
    /// The element in slot `slot` as `(handle, rectangle, id)`, if it is live.
    fn element_at(&self, slot: u32) -> Option<(Handle, Self::Bounds, u32)>;
    /// Calls `visit` with every slot of `slots` (within the pool) in order
    /// and its live element's `(handle, box, filter)`, or `None`: one pass
    /// for code that compares every slot (the pair tracker), dispatched once.
    fn for_each_slot<F>(&self, slots: core::ops::Range<u32>, visit: F)
    where
        F: FnMut(u32, Option<(Handle, Self::Bounds, Filter)>);
    /// Whether any element may have a filter other than the default.
    fn filtered(&self) -> bool;
    /// The fat-bounds margin (`0` for none).
    fn fat_margin(&self) -> f32;
    /// The collision filter of a live slot.
    fn filter_at(&self, slot: u32) -> Filter;
    /// Sets the collision filter of a live slot.
    fn set_filter_at(&mut self, slot: u32, filter: Filter);
    /// Whether a live slot's element is reported to a query with collision
    /// mask `mask` (its category `& mask != 0`, or `mask` is [`Filter::ALL`]).
    #[inline]
    fn passes_mask(&self, slot: u32, mask: u32) -> bool {
        if self.filtered() {
            self.filter_at(slot).passes(mask)
        } else {
            Filter::DEFAULT.passes(mask)
        }
    }
    /// Whether two live elements' filters let them collide (Box2D's rule).
    #[inline]
    fn collide(&self, a: Handle, b: Handle) -> bool {
        self.filter_at(a.slot()).collides(self.filter_at(b.slot()))
    }
}

impl<T: HasSlots> Slots for T {
    type Bounds = <T::Slot as SlotRecord>::Bounds;
    #[inline]
    fn lookup(&self, handle: Handle) -> Result<u32, Error> {
        self.slot_pool().lookup(handle)
    }
    #[inline]
    fn handle_at(&self, slot: u32) -> Handle {
        self.slot_pool().handle(slot)
    }
    #[inline]
    fn rect_at(&self, slot: u32) -> Self::Bounds {
        self.slot_pool().tight_box(slot)
    }
    #[inline]
    fn id_at(&self, slot: u32) -> u32 {
        self.slot_pool().slots[slot as usize].id()
    }
    #[inline]
    fn live(&self) -> usize {
        self.slot_pool().live
    }
    fn check_room(&self, additional: usize) -> Result<(), Error> {
        self.slot_pool().check_room(additional)
    }
    #[inline]
    fn is_marked(&self, slot: u32) -> bool {
        self.slot_pool().is_marked(slot)
    }
    #[inline]
    fn set_mark(&mut self, slot: u32, on: bool) {
        self.slot_pool_mut().set_mark(slot, on)
    }
    #[inline]
    fn prefetch_slot(&self, handle: Handle) {
        self.slot_pool().prefetch(handle)
    }
    #[inline]
    fn prefetch_stamp(&self, handle: Handle) {
        self.slot_pool().prefetch_stamp(handle)
    }
    #[inline]
    fn slot_count(&self) -> usize {
        self.slot_pool().slots.len()
    }
    #[inline]
    fn membership(&self) -> u64 {
        self.slot_pool().membership()
    }
    #[inline]
    fn element_at(&self, slot: u32) -> Option<(Handle, Self::Bounds, u32)> {
        let pool = self.slot_pool();
        let s = pool.slots.get(slot as usize)?;
        pool.is_live(slot)
            .then(|| (pool.handle(slot), pool.tight_box(slot), s.id()))
    }
    fn for_each_slot<F>(&self, slots: core::ops::Range<u32>, mut visit: F)
    where
        F: FnMut(u32, Option<(Handle, Self::Bounds, Filter)>),
    {
        let pool = self.slot_pool();
        let filtered = pool.filtered();
        for slot in slots {
            let filter = || {
                if filtered {
                    pool.filter(slot)
                } else {
                    Filter::DEFAULT
                }
            };
            let element = pool
                .is_live(slot)
                .then(|| (pool.handle(slot), pool.tight_box(slot), filter()));
            visit(slot, element);
        }
    }
    #[inline]
    fn filtered(&self) -> bool {
        self.slot_pool().filtered()
    }
    #[inline]
    fn fat_margin(&self) -> f32 {
        self.slot_pool().margin
    }
    #[inline]
    fn filter_at(&self, slot: u32) -> Filter {
        self.slot_pool().filter(slot)
    }
    fn set_filter_at(&mut self, slot: u32, filter: Filter) {
        self.slot_pool_mut().set_filter(slot, filter)
    }
}

/// What a structure hands the best-first search (`index::search`): a node to
/// expand later, or an element.
#[derive(Clone, Copy, Debug)]
pub enum SearchItem<B> {
    /// A node (tree node, cell, range of cells) under an id only its structure
    /// reads back, and a closed box holding every point of its elements that
    /// the node stands for (see [`Structure::search_roots`]).
    Node(u128, B),
    /// A live element's slot. The same element may be handed over more than
    /// once (an element listed in several leaves); the search reports it once.
    Element(u32),
}

/// How a structure looks for the first hit of a ray or a box cast by
/// rectangle queries over pieces of its path ([`Structure::ray_pieces`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pieces {
    /// The length of a piece.
    pub length: f64,
    /// The most pieces a path is cut into: a longer path takes the descent.
    pub most: f64,
    /// The most pieces queried before the search gives up and takes the
    /// descent.
    pub queried: u32,
    /// The most elements the pieces meet before the search gives up and
    /// takes the descent (`usize::MAX`: never).
    pub met: usize,
    /// Whether a piece that met nothing gives way to one twice as long.
    pub grow: bool,
}

impl Pieces {
    /// A grid's: a cell long, up to [`MOST_CELL_PIECES`] of them, however
    /// many elements they meet (an empty cell costs next to nothing). The
    /// count of pieces queried only backs that limit up (rounding may add a
    /// sliver of a last piece).
    pub(crate) fn cells(length: f64) -> Pieces {
        Pieces {
            length,
            most: MOST_CELL_PIECES,
            queried: MOST_CELL_PIECES as u32 + 2,
            met: usize::MAX,
            grow: false,
        }
    }

    /// A tree's: as long as the mean spacing of `live` elements over `world`
    /// (the side of the square, or cube, holding one at the world's mean
    /// density) at first and twice as long after one that met nothing (a
    /// query skips an empty subtree at once), of any number, but the search
    /// gives up after
    /// [`TREE_PIECES_QUERIED`] of them or more than [`TREE_PIECES_MET`]
    /// elements met. A
    /// query descends to the few leaves about its piece; past those limits (a
    /// long way through an empty region, a crowd) the descent, which skips
    /// or orders whole subtrees, is the better search.
    pub(crate) fn tree<B: Bounds>(world: B, live: usize) -> Option<Pieces> {
        mean_side(world, live, 1).map(|length| Pieces {
            length,
            most: f64::INFINITY,
            queried: TREE_PIECES_QUERIED,
            met: TREE_PIECES_MET,
            grow: true,
        })
    }
}

/// The side of the square (cube) of `world` that holds `k` of its `live`
/// elements at their mean density; `None` for no elements or a world of no
/// finite area (volume).
pub(crate) fn mean_side<B: Bounds>(world: B, live: usize, k: usize) -> Option<f64> {
    let volume = (0..B::AXES).fold(1.0, |v, axis| {
        v * (f64::from(world.hi(axis)) - f64::from(world.lo(axis)))
    });
    let side = side_of(volume * k as f64 / live as f64, B::AXES);
    (live > 0 && side > 0.0 && side.is_finite()).then_some(side)
}

/// The side of a square (`axes` 2) or cube (3) of area (volume) `v`: a
/// square or cube root, cheaper than the `powf` it replaces (6.5% of a 3D
/// nearest search's profile, called for the pieces or squares and for each
/// square widened).
pub(crate) fn side_of(v: f64, axes: usize) -> f64 {
    match axes {
        2 => v.sqrt(),
        3 => v.cbrt(),
        _ => v.powf(1.0 / axes as f64),
    }
}

/// The most pieces a grid cuts a path into ([`Pieces::cells`]).
const MOST_CELL_PIECES: f64 = 1024.0;
/// The most pieces a tree's search queries ([`Pieces::tree`]).
const TREE_PIECES_QUERIED: u32 = 16;
/// The most elements a tree's pieces meet ([`Pieces::tree`]).
const TREE_PIECES_MET: usize = 256;

/// The operations a structure implements on checked arguments: slots that are
/// live, rectangles that are valid, room that was checked.
pub trait Structure: Slots {
    /// Adds an element (room checked, `rect` valid) and returns its handle.
    fn insert_checked(&mut self, rect: Self::Bounds, id: u32) -> Handle;

    /// Adds a checked batch, appending the handles in order. The default inserts
    /// one by one; a structure may reorder the work (the quadtree inserts big
    /// batches in Z-order so that neighbours get neighbouring slots).
    fn insert_many_checked(
        &mut self,
        rects: &[Self::Bounds],
        ids: &[u32],
        handles: &mut Vec<Handle>,
    ) {
        handles.reserve(rects.len());
        for (&rect, &id) in rects.iter().zip(ids) {
            handles.push(self.insert_checked(rect, id));
        }
    }

    /// Removes the element of a live slot; its handle goes stale.
    fn remove_checked(&mut self, slot: u32);

    /// Removes every element of `handles`: live, distinct and marked (the mark is
    /// cleared as each slot is freed). The default removes one by one.
    fn remove_marked(&mut self, handles: &[Handle]) {
        for &handle in handles {
            self.remove_checked(handle.slot());
        }
    }

    /// Gives a live slot's element the valid rectangle `rect`.
    fn relocate(&mut self, slot: u32, rect: Self::Bounds);

    /// Sets the fat-bounds margin (finite, `>= 0`) and refiles every element
    /// (`index::fat_bounds`).
    fn set_margin_checked(&mut self, margin: f32);

    /// Finishes moves of `handles` (live) to `rects` that a panic stopped
    /// halfway: each record takes its last box, and the structure, whatever
    /// state the panic left it in, is rebuilt around the records
    /// (`index::finish_moves`).
    fn finish_moves(&mut self, handles: &[Handle], rects: &[Self::Bounds]);

    /// The top of the structure for the best-first search: its root nodes
    /// and any elements kept apart from them (a grid's big elements).
    ///
    /// The search is exact only if each structure meets this condition: for
    /// every live element `e` and every point `q` of `e`, some chain of nodes
    /// from a root (each handed over by [`search_expand`](Structure::search_expand)
    /// of the one before) down to a node that hands over `e` has boxes that
    /// all contain `q`. Tight structures meet it because an element is listed
    /// in every leaf or cell it meets (node boxes closed, reaching to ±∞ on
    /// the world's outer sides, as the border cells and leaves own what lies
    /// beyond); loose ones because their node boxes hold their elements whole.
    /// Empty nodes may be left out; nodes with an inverted box are ignored.
    fn search_roots(&self, push: &mut impl FnMut(SearchItem<Self::Bounds>));

    /// The children of a node [`search_roots`](Structure::search_roots) or an
    /// earlier expansion handed over: nodes, elements, or both.
    fn search_expand(&self, node: u128, push: &mut impl FnMut(SearchItem<Self::Bounds>));

    /// [`relocate`](Structure::relocate)s each live handle's slot to its
    /// valid rectangle, in order (`update_many` after its checks). The default
    /// moves one by one, with [`prefetch_relocate`](Structure::prefetch_relocate)
    /// hints; a structure may reorder the work if the result is the same.
    fn relocate_many(&mut self, handles: &[Handle], rects: &[Self::Bounds]) {
        for (index, (&handle, &rect)) in handles.iter().zip(rects).enumerate() {
            self.prefetch_relocate(handles, rects, index);
            self.relocate(handle.slot(), rect);
        }
    }

    /// [`relocate_many`](Structure::relocate_many) on rayon's threads where
    /// the structure can split the moves, with the same result.
    #[cfg(feature = "rayon")]
    fn par_relocate_many(&mut self, handles: &[Handle], rects: &[Self::Bounds]) {
        self.relocate_many(handles, rects);
    }

    /// Visits every pair of intersecting elements once, whatever their
    /// filters, until `visit` breaks.
    fn pairs_checked<F>(&self, visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>;

    /// Whether [`par_pairs_checked`](Structure::par_pairs_checked) takes
    /// rayon's threads now (the structure can split its walk, and its size and
    /// the pool's pay): otherwise it walks on the calling thread.
    #[cfg(feature = "rayon")]
    fn pairs_in_parallel(&self) -> bool {
        false
    }

    /// [`pairs_checked`](Structure::pairs_checked) into `pairs` (cleared
    /// first), on rayon's threads where the structure can split its walk.
    #[cfg(feature = "rayon")]
    fn par_pairs_checked(&self, pairs: &mut Vec<(Handle, Handle)>) {
        super::pairs_into(self, pairs)
    }

    /// Visits each element whose closed rectangle meets the valid `rect`, once,
    /// leaving out slot `omit` ([`NONE`](crate::slots::NONE) for none).
    fn query_checked<F>(&self, rect: Self::Bounds, omit: u32, visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>;

    /// Visits each element whose closed rectangle holds the finite point.
    fn query_point_checked<F>(
        &self,
        point: <Self::Bounds as Bounds>::Point,
        omit: u32,
        visit: F,
    ) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        self.query_checked(Self::Bounds::point_box(point), omit, visit)
    }

    /// Visits each other element meeting a live slot's rectangle; structures
    /// that know where an element lies start there instead of descending.
    fn overlapping_checked<F>(&self, slot: u32, visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        self.query_checked(self.rect_at(slot), slot, visit)
    }

    /// A hint before [`overlapping_checked`](Structure::overlapping_checked) of
    /// `handles[index]`: start loading what later items of the batch will read.
    #[inline]
    fn prefetch_overlapping(&self, handles: &[Handle], index: usize) {
        if let Some(&ahead) = handles.get(index + PREFETCH_AHEAD) {
            self.prefetch_slot(ahead);
        }
    }

    /// A hint before [`relocate`](Structure::relocate) of `handles[index]` in
    /// a batch: start loading what later items of the batch will touch (by
    /// default the slot of a handle ahead; a grid adds the cell a rectangle
    /// ahead moves into).
    #[inline]
    fn prefetch_relocate(&self, handles: &[Handle], rects: &[Self::Bounds], index: usize) {
        let _ = rects;
        if let Some(&ahead) = handles.get(index + PREFETCH_AHEAD) {
            self.prefetch_slot(ahead);
        }
    }

    /// The slot of an optional omitted handle ([`NONE`] for none).
    fn omit_slot(&self, omit: Option<Handle>) -> Result<u32, Error> {
        match omit {
            Some(handle) => self.lookup(handle),
            None => Ok(NONE),
        }
    }

    /// How a ray cast's or a box cast's first hit is looked for by rectangle
    /// queries, one a piece in order along the path
    /// ([`search::ray_first`](crate::index::search::ray_first),
    /// [`search::box_cast_first`](crate::index::search::box_cast_first)), or
    /// `None` (the default) for the descent alone (the depth-first
    /// [`bounded`](crate::index::search::bounded) search).
    #[inline]
    fn ray_pieces(&self) -> Option<Pieces> {
        None
    }

    /// Whether a search for the `k` nearest tries rectangle queries over
    /// squares about the point before the descent
    /// ([`search::nearest_bounded`](crate::index::search::nearest_bounded)):
    /// `false` (the default) for the descent alone. A structure whose
    /// rectangle queries about a point measured faster at that `k` says so.
    #[inline]
    fn nearest_squares(&self, _k: usize) -> bool {
        false
    }

    /// Told how many queries a call is about to answer, before it answers
    /// them (a grid counts them to decide whether to lay its cells out at the
    /// next `cleanup`). Once per batch, so that threads do not fight over a count.
    #[inline]
    fn count_queries(&self, queries: usize) {
        let _ = queries;
    }

    /// The size from which the structure's bulk queries
    /// ([`join`](super::join)) pay for being answered in the spatial order
    /// of their rectangles (a serial sort and two passes out of order,
    /// about 30 ms a million): 0, every big batch, unless the structure
    /// says otherwise.
    fn spatial_order_from(&self) -> usize {
        0
    }
}

/// `impl HasSlots` and `impl Structure` for a structure whose slots are in a
/// `slots` field and whose inherent methods have the house names — `insert_one`,
/// `insert_batch`, `remove_slot`, `remove_batch`, `move_element`, `refile_all`, `query_rect`,
/// `query_at`, `search_top`, `search_below` — plus the optional hooks it names after a `;`
/// (`overlapping_checked => neighbours`, `prefetch_overlapping => ...`,
/// `prefetch_relocate => ...`, `relocate_many => ...`, `par_relocate_many => ...`,
/// `par_pairs_checked => ...` (with the structure's `PAR_PAIRS_FROM`),
/// `ray_pieces => ...`, `nearest_squares => ...`, `count_queries => ...`,
/// `spatial_order_from => ...`);
/// every structure has an `all_pairs` walk. One line per structure instead of a copy of
/// the same delegations in each.
macro_rules! impl_structure {
    ($t:ident $(; $($hook:ident => $method:ident),+ $(,)?)?) => {
        $crate::index::raw::impl_structure!(impl[] $t, Slot $(; $($hook => $method),+)?);
    };
    (impl[$($g:tt)*] $t:ty, $slot:ty $(; $($hook:ident => $method:ident),+ $(,)?)?) => {
        impl<$($g)*> $crate::index::raw::HasSlots for $t {
            type Slot = $slot;
            #[inline]
            fn slot_pool(&self) -> &$crate::slots::SlotPool<$slot> {
                &self.slots
            }
            #[inline]
            fn slot_pool_mut(&mut self) -> &mut $crate::slots::SlotPool<$slot> {
                &mut self.slots
            }
        }

        impl<$($g)*> $crate::index::raw::Structure for $t {
            fn insert_checked(&mut self, rect: Self::Bounds, id: u32) -> $crate::Handle {
                $crate::index::fat_bounds::insert(self, rect, |s, rect| s.insert_one(rect, id))
            }
            fn insert_many_checked(
                &mut self,
                rects: &[Self::Bounds],
                ids: &[u32],
                handles: &mut Vec<$crate::Handle>,
            ) {
                $crate::index::fat_bounds::insert_many(self, rects, handles, |s, rects, handles| {
                    s.insert_batch(rects, ids, handles)
                })
            }
            fn remove_checked(&mut self, slot: u32) {
                self.remove_slot(slot)
            }
            fn remove_marked(&mut self, handles: &[$crate::Handle]) {
                self.remove_batch(handles)
            }
            fn relocate(&mut self, slot: u32, rect: Self::Bounds) {
                $crate::index::fat_bounds::relocate(self, slot, rect, <$t>::move_element)
            }
            fn set_margin_checked(&mut self, margin: f32) {
                $crate::index::fat_bounds::set_margin(self, margin, <$t>::move_element)
            }
            fn finish_moves(&mut self, handles: &[$crate::Handle], rects: &[Self::Bounds]) {
                $crate::index::finish_moves::finish(self, handles, rects, <$t>::refile_all)
            }
            fn pairs_checked<F>(&self, visit: F) -> core::ops::ControlFlow<()>
            where
                F: FnMut($crate::Handle, $crate::Handle) -> core::ops::ControlFlow<()>,
            {
                if self.slots.is_fat() {
                    self.all_pairs($crate::index::fat_bounds::pairs_meeting(&self.slots, visit))
                } else {
                    self.all_pairs(visit)
                }
            }
            fn search_roots(
                &self,
                push: &mut impl FnMut($crate::index::raw::SearchItem<Self::Bounds>),
            ) {
                self.search_top(push)
            }
            fn search_expand(
                &self,
                node: u128,
                push: &mut impl FnMut($crate::index::raw::SearchItem<Self::Bounds>),
            ) {
                self.search_below(node, push)
            }
            fn query_checked<F>(
                &self,
                rect: Self::Bounds,
                omit: u32,
                visit: F,
            ) -> core::ops::ControlFlow<()>
            where
                F: FnMut($crate::Handle) -> core::ops::ControlFlow<()>,
            {
                if self.slots.is_fat() {
                    let visit = $crate::index::fat_bounds::meeting(&self.slots, rect, visit);
                    self.query_rect(rect, omit, visit)
                } else {
                    self.query_rect(rect, omit, visit)
                }
            }
            fn query_point_checked<F>(
                &self,
                point: <Self::Bounds as $crate::Bounds>::Point,
                omit: u32,
                visit: F,
            ) -> core::ops::ControlFlow<()>
            where
                F: FnMut($crate::Handle) -> core::ops::ControlFlow<()>,
            {
                if self.slots.is_fat() {
                    let visit = $crate::index::fat_bounds::holding(&self.slots, point, visit);
                    self.query_at(point, omit, visit)
                } else {
                    self.query_at(point, omit, visit)
                }
            }
            $($($crate::index::raw::structure_hook!($hook => $method);)+)?
        }
    };
}
pub(crate) use impl_structure;

/// One optional hook of [`impl_structure!`], delegating to `$method`.
macro_rules! structure_hook {
    (overlapping_checked => $method:ident) => {
        fn overlapping_checked<F>(&self, slot: u32, visit: F) -> core::ops::ControlFlow<()>
        where
            F: FnMut($crate::Handle) -> core::ops::ControlFlow<()>,
        {
            if self.slots.is_fat() {
                let own = self.slots.tight_box(slot);
                self.$method(
                    slot,
                    $crate::index::fat_bounds::meeting(&self.slots, own, visit),
                )
            } else {
                self.$method(slot, visit)
            }
        }
    };
    // The structure's parallel walk (`$method`) from its `PAR_PAIRS_FROM`
    // elements on a pool of more than one thread; the one-thread walk
    // otherwise, whose pairs are filtered for fat bounds already.
    (par_pairs_checked => $method:ident) => {
        #[cfg(feature = "rayon")]
        fn pairs_in_parallel(&self) -> bool {
            !$crate::index::parallel::on_one_thread(
                $crate::index::SpatialIndex::len(self),
                Self::PAR_PAIRS_FROM,
            )
        }
        #[cfg(feature = "rayon")]
        fn par_pairs_checked(&self, pairs: &mut Vec<($crate::Handle, $crate::Handle)>) {
            if !self.pairs_in_parallel() {
                return $crate::index::pairs_into(self, pairs);
            }
            self.$method(pairs);
            $crate::index::fat_bounds::retain_meeting(&self.slots, pairs);
        }
    };
    (prefetch_overlapping => $method:ident) => {
        #[inline]
        fn prefetch_overlapping(&self, handles: &[$crate::Handle], index: usize) {
            self.$method(handles, index)
        }
    };
    (nearest_squares => $method:ident) => {
        #[inline]
        fn nearest_squares(&self, k: usize) -> bool {
            self.$method(k)
        }
    };
    (ray_pieces => $method:ident) => {
        #[inline]
        fn ray_pieces(&self) -> Option<$crate::index::raw::Pieces> {
            self.$method()
        }
    };
    (spatial_order_from => $method:ident) => {
        #[inline]
        fn spatial_order_from(&self) -> usize {
            self.$method()
        }
    };
    (count_queries => $method:ident) => {
        #[inline]
        fn count_queries(&self, queries: usize) {
            self.$method(queries)
        }
    };
    (par_relocate_many => $method:ident) => {
        #[cfg(feature = "rayon")]
        fn par_relocate_many(&mut self, handles: &[$crate::Handle], rects: &[Self::Bounds]) {
            $crate::index::fat_bounds::relocate_many(
                self,
                handles,
                rects,
                Self::$method,
                Self::move_element,
            )
        }
    };
    (relocate_many => $method:ident) => {
        fn relocate_many(&mut self, handles: &[$crate::Handle], rects: &[Self::Bounds]) {
            $crate::index::fat_bounds::relocate_many(
                self,
                handles,
                rects,
                Self::$method,
                Self::move_element,
            )
        }
    };
    (prefetch_relocate => $method:ident) => {
        #[inline]
        fn prefetch_relocate(
            &self,
            handles: &[$crate::Handle],
            rects: &[Self::Bounds],
            index: usize,
        ) {
            self.$method(handles, rects, index)
        }
    };
}
pub(crate) use structure_hook;
