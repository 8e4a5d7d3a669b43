//! The bodies of the calls every tree type has, written once over [`Shell`]:
//! `qt_tree` (any 2D structure, `qt_rect`) and `qt_octree` (`qt_box`). Each C
//! function checks nothing itself: it calls one of these inside `guard` with
//! its own arguments (its coordinates gathered into a point, its ray as the
//! core's), so `qt_X` and `qt_octree_X` differ only in their parameter lists:
//! the octree's are generated from the 2D ones (`octree_calls`).

use std::ffi::c_void;
use std::mem::MaybeUninit;
use std::ops::ControlFlow;

use flatquad_core::{
    Bounds, BoxCast, Error, Filter, Handle, Neighbor, NodeInfo, Query, Ray, RayControl, RayHit,
    SpatialIndex,
};

use crate::boundary::*;
use crate::status::*;
use crate::types::*;

/// The box type of a tree type's core structure.
pub(crate) type BoxOf<W> = <W as Shell>::BoxType;
/// The point type of a tree type's core structure.
pub(crate) type PointOf<W> = <BoxOf<W> as Bounds>::Point;

/// The body of every constructor: checks `out_tree`, makes the structure, and
/// hands it to the caller.
///
/// # Safety
/// `out_tree` is NULL or valid for writing a pointer.
pub(crate) unsafe fn create<W: Shell, T: Into<W::Index>>(
    out_tree: *mut *mut W,
    make: impl FnOnce() -> Result<T, Error>,
) -> Status {
    let out_tree = Out::new(out_tree)?;
    out_tree.write(W::into_raw(make()?));
    Ok(())
}

/// Writes the parameters of a tree made from a world, `max_elements` and
/// `max_depth` (`qt_params`, `qt_loose_quadtree_params`, `qt_octree_params`)
/// to the out-pointers that are not NULL, the world as the C box `C`.
pub(crate) unsafe fn tree_params<B, C: From<B>>(
    (world, max_elements, max_depth): (B, u32, u32),
    out_world: *mut C,
    out_max_elements: *mut u32,
    out_max_depth: *mut u32,
) -> Status {
    write_wanted([(out_world, world.into())]);
    write_wanted([(out_max_elements, max_elements), (out_max_depth, max_depth)]);
    Ok(())
}

pub(crate) unsafe fn destroy<W: Shell>(tree: *mut W) {
    if let Ok(tree) = non_null(tree) {
        let tree = Box::from_raw(tree.as_ptr());
        // Its trackers see this before the memory goes (they keep the flag).
        if let Some(alive) = tree.alive.get() {
            alive.store(false, std::sync::atomic::Ordering::Release);
        }
        drop(tree);
    }
}

pub(crate) unsafe fn clone<W: Shell>(tree: *const W, out_tree: *mut *mut W) -> Status
where
    W::Index: Clone,
{
    let tree = tree_ref(tree)?;
    create(out_tree, || Ok(tree.clone()))
}

pub(crate) unsafe fn insert<W: Shell>(
    tree: *mut W,
    rect: W::CBox,
    id: u32,
    out_handle: *mut qt_handle_t,
) -> Status {
    let mut tree = tree_mut(tree)?;
    let out_handle = Out::new(out_handle)?;
    let handle = tree.tree.insert(rect.into(), id)?;
    out_handle.write(handle.to_raw());
    Ok(())
}

/// Writes the index of the refused item of a batch call, if the caller asked.
pub(crate) unsafe fn batch_error(error: Error, out_bad_index: *mut usize) -> qt_status {
    if let (Some(index), Some(out)) = (error.batch_index(), Out::optional(out_bad_index)) {
        out.write(index);
    }
    error.into()
}

pub(crate) unsafe fn insert_many<W: Shell>(
    tree: *mut W,
    rects: *const W::CBox,
    ids: *const u32,
    count: usize,
    out_handles: *mut qt_handle_t,
    out_bad_index: *mut usize,
) -> Status {
    let mut tree = tree_mut(tree)?;
    let rects = slice_in(rects.cast::<BoxOf<W>>(), count)?;
    let ids = slice_in(ids, count)?;
    let out_handles = slice_out(out_handles, count)?;
    let Held { tree, scratch, .. } = &mut *tree;
    scratch.clear();
    if let Err(error) = tree.insert_many(rects, ids, scratch) {
        return Err(batch_error(error, out_bad_index));
    }
    for (out, handle) in out_handles.iter_mut().zip(scratch.iter()) {
        out.write(handle.to_raw());
    }
    scratch.clear();
    Ok(())
}

pub(crate) unsafe fn remove<W: Shell>(tree: *mut W, handle: qt_handle_t) -> Status {
    let mut tree = tree_mut(tree)?;
    tree.tree.remove(Handle::from_raw(handle))?;
    Ok(())
}

pub(crate) unsafe fn remove_many<W: Shell>(
    tree: *mut W,
    handles: *const qt_handle_t,
    count: usize,
    out_bad_index: *mut usize,
) -> Status {
    let mut tree = tree_mut(tree)?;
    let handles = Handle::cast_slice(slice_in(handles, count)?);
    tree.tree
        .remove_many(handles)
        .map_err(|error| batch_error(error, out_bad_index))
}

pub(crate) unsafe fn move_to<W: Shell>(tree: *mut W, handle: qt_handle_t, rect: W::CBox) -> Status {
    let mut tree = tree_mut(tree)?;
    tree.tree.update(Handle::from_raw(handle), rect.into())?;
    Ok(())
}

pub(crate) unsafe fn move_many<W: Shell>(
    tree: *mut W,
    handles: *const qt_handle_t,
    rects: *const W::CBox,
    count: usize,
    out_bad_index: *mut usize,
) -> Status {
    // On rayon's threads where the batch is big enough to pay (the global
    // pool: RAYON_NUM_THREADS=1 keeps every call on the caller's thread).
    moves_by(
        tree,
        handles,
        rects,
        count,
        out_bad_index,
        |index, handles, rects| index.par_update_many(handles, rects),
    )
}

/// [`move_many`] whose moves panic after the first `at` (testing only:
/// `qt_test_panic_in_moves`).
pub(crate) unsafe fn move_many_panicking<W: Shell>(
    tree: *mut W,
    handles: *const qt_handle_t,
    rects: *const W::CBox,
    count: usize,
    at: usize,
    on_worker: bool,
) -> Status {
    let out_bad_index = core::ptr::null_mut();
    moves_by(
        tree,
        handles,
        rects,
        count,
        out_bad_index,
        |index, handles, rects| {
            flatquad_core::update_many_panicking_for_tests(index, handles, rects, at, on_worker)
        },
    )
}

/// [`move_many`]'s arguments read, then moved by `moves`; its error, if any,
/// reported as a batch's.
unsafe fn moves_by<W: Shell>(
    tree: *mut W,
    handles: *const qt_handle_t,
    rects: *const W::CBox,
    count: usize,
    out_bad_index: *mut usize,
    moves: impl FnOnce(&mut W::Index, &[Handle], &[BoxOf<W>]) -> Result<(), Error>,
) -> Status {
    let mut tree = tree_mut(tree)?;
    let handles = Handle::cast_slice(slice_in(handles, count)?);
    let rects = slice_in(rects.cast::<BoxOf<W>>(), count)?;
    moves(&mut tree.tree, handles, rects).map_err(|error| batch_error(error, out_bad_index))
}

pub(crate) unsafe fn cleanup<W: Shell>(tree: *mut W) -> Status {
    tree_mut(tree)?.tree.cleanup();
    Ok(())
}

pub(crate) unsafe fn set_margin<W: Shell>(tree: *mut W, margin: f32) -> Status {
    tree_mut(tree)?.tree.set_margin(margin)?;
    Ok(())
}

pub(crate) unsafe fn margin<W: Shell>(tree: *const W, out_margin: *mut f32) -> Status {
    let tree = tree_ref(tree)?;
    let out_margin = Out::new(out_margin)?;
    out_margin.write(tree.margin());
    Ok(())
}

pub(crate) unsafe fn clear<W: Shell>(tree: *mut W) -> Status {
    tree_mut(tree)?.tree.clear();
    Ok(())
}

pub(crate) unsafe fn to_bytes<W: Shell>(
    tree: *const W,
    out_bytes: *mut u8,
    capacity: usize,
    out_total: *mut usize,
) -> Status {
    let tree = tree_ref(tree)?;
    fill_buffer(out_bytes, capacity, out_total, |found| {
        found.extend(&tree.to_bytes());
        Ok(())
    })
}

pub(crate) unsafe fn from_bytes<W: Shell>(
    bytes: *const u8,
    len: usize,
    out_tree: *mut *mut W,
) -> Status {
    let bytes = slice_in(bytes, len)?;
    create(out_tree, || W::Index::from_bytes(bytes))
}

pub(crate) unsafe fn len<W: Shell>(tree: *const W) -> usize {
    tree_ref(tree).map_or(0, |tree| tree.len())
}

pub(crate) unsafe fn contains<W: Shell>(tree: *const W, handle: qt_handle_t) -> bool {
    tree_ref(tree).is_ok_and(|tree| tree.contains(Handle::from_raw(handle)))
}

pub(crate) unsafe fn element_id<W: Shell>(
    tree: *const W,
    handle: qt_handle_t,
    out_id: *mut u32,
) -> Status {
    let tree = tree_ref(tree)?;
    let out_id = Out::new(out_id)?;
    out_id.write(tree.id(Handle::from_raw(handle))?);
    Ok(())
}

pub(crate) unsafe fn element_box<W: Shell>(
    tree: *const W,
    handle: qt_handle_t,
    out_box: *mut W::CBox,
) -> Status {
    let tree = tree_ref(tree)?;
    let out_box = Out::new(out_box)?;
    out_box.write(tree.rect(Handle::from_raw(handle))?.into());
    Ok(())
}

pub(crate) unsafe fn elements<W: Shell>(
    tree: *const W,
    out_handles: *mut qt_handle_t,
    capacity: usize,
    out_total: *mut usize,
) -> Status {
    let tree = tree_ref(tree)?;
    let out = slice_out(out_handles, capacity)?;
    let out_total = Out::new(out_total)?;
    for (slot, (handle, _, _)) in out.iter_mut().zip(tree.iter()) {
        slot.write(handle.to_raw());
    }
    out_total.write(tree.len());
    Ok(())
}

/// The structure's stats, its C wrapper's bytes included.
pub(crate) unsafe fn stats<W: Shell>(tree: *const W, out_stats: *mut qt_tree_stats) -> Status {
    let wrapper = arg(tree)?;
    let core = tree_ref(tree)?;
    let out_stats = Out::new(out_stats)?;
    let mut stats = qt_tree_stats::from(core.stats());
    stats.bytes += core::mem::size_of::<W>() - core::mem::size_of::<W::Index>()
        + wrapper.scratch.capacity() * core::mem::size_of::<Handle>();
    out_stats.write(stats);
    Ok(())
}

pub(crate) unsafe fn validate<W: Shell>(tree: *const W) -> Status {
    tree_ref(tree)?.validate().map_err(|_| QT_INTERNAL_ERROR)
}

/// Fills a caller's buffer and counts every item, including those past its end.
struct Collector<'a, T> {
    out: &'a mut [MaybeUninit<T>],
    total: usize,
}

impl<T> Collector<'_, T> {
    #[inline(always)]
    fn push(&mut self, item: T) -> ControlFlow<()> {
        if let Some(slot) = self.out.get_mut(self.total) {
            slot.write(item);
        }
        self.total += 1;
        ControlFlow::Continue(())
    }

    /// `push` for each of `items`, copied as one block.
    fn extend(&mut self, items: &[T])
    where
        T: Copy,
    {
        let free = self.out.get_mut(self.total..).unwrap_or_default();
        for (slot, &item) in free.iter_mut().zip(items) {
            slot.write(item);
        }
        self.total += items.len();
    }
}

/// Every list into a caller's buffer, `snprintf`'s way: `find` pushes what it
/// finds, the first `capacity` items are written and `*out_total` counts them
/// all. Both pointers are checked before `find` runs.
unsafe fn fill_buffer<T>(
    out: *mut T,
    capacity: usize,
    out_total: *mut usize,
    find: impl FnOnce(&mut Collector<T>) -> Status,
) -> Status {
    let out = slice_out(out, capacity)?;
    let out_total = Out::new(out_total)?;
    let mut found = Collector { out, total: 0 };
    find(&mut found)?;
    out_total.write(found.total);
    Ok(())
}

/// A query into a caller buffer: `walk` visits every handle found (through
/// the core's `*_with` call); the total and the first `capacity` handles are
/// written.
pub(crate) unsafe fn collect<W: Shell>(
    tree: *const W,
    out_handles: *mut qt_handle_t,
    capacity: usize,
    out_total: *mut usize,
    walk: impl FnOnce(&W::Index, &mut dyn FnMut(Handle) -> ControlFlow<()>) -> Result<(), Error>,
) -> Status {
    let tree = tree_ref(tree)?;
    fill_buffer(out_handles, capacity, out_total, |found| {
        walk(tree, &mut |h| found.push(h.to_raw()))?;
        Ok(())
    })
}

/// A query through a callback: `QT_STOPPED` when `visit` returned nonzero.
pub(crate) unsafe fn each<W: Shell>(
    tree: *const W,
    visit: qt_visit_fn,
    user_data: *mut c_void,
    walk: impl FnOnce(
        &W::Index,
        &mut dyn FnMut(Handle) -> ControlFlow<()>,
    ) -> Result<ControlFlow<()>, Error>,
) -> Status {
    let tree = tree_ref(tree)?;
    let visit = visit.ok_or(QT_NULL_ARGUMENT)?;
    walked(walk(tree, &mut |h| flow(visit(user_data, h.to_raw())))?)
}

/// The one conversion of a C query description into the core's [`Query`]:
/// `QT_NULL_ARGUMENT` for NULL, `QT_INVALID_PARAMETER` for a kind the tree's
/// dimension does not have. The shape's own checks (boxes, points, radius,
/// live handles) are the core's, when the query runs.
pub(crate) fn to_query<D: Describe>(desc: &D) -> Result<Query<D::BoxType>, qt_status> {
    let (mask, omit) = desc.options();
    Ok(Query {
        shape: desc.shape().ok_or(QT_INVALID_PARAMETER)?,
        mask,
        omit: Handle::optional(omit),
    })
}

pub(crate) unsafe fn query<W: Shell>(
    tree: *const W,
    desc: *const W::Desc,
    out_handles: *mut qt_handle_t,
    capacity: usize,
    out_total: *mut usize,
) -> Status {
    let query = to_query(arg(desc)?)?;
    collect(tree, out_handles, capacity, out_total, |tree, push| {
        tree.visit(&query, push).map(drop)
    })
}

pub(crate) unsafe fn query_each<W: Shell>(
    tree: *const W,
    desc: *const W::Desc,
    visit: qt_visit_fn,
    user_data: *mut c_void,
) -> Status {
    let query = to_query(arg(desc)?)?;
    each(tree, visit, user_data, |tree, visit| {
        tree.visit(&query, visit)
    })
}

/// `count` queries in compressed rows. The descriptions are converted first,
/// then the core checks and answers them all (on rayon's threads when the
/// batch is big; a big batch of plain rectangles in spatial order, see
/// [`Batch`]; a batch of plain element queries, the per-agent queries of a
/// collision loop, straight to the core's `overlapping_many`: a 16,384-query
/// batch's 48-byte queries cost the C per-agent frame 10–15%);
/// `out_bad_index` gets the first refused, whether for an unknown kind or for
/// its shape.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn query_many<W: Shell>(
    tree: *const W,
    descs: *const W::Desc,
    count: usize,
    out_offsets: *mut usize,
    out_handles: *mut qt_handle_t,
    capacity: usize,
    out_total: *mut usize,
    out_bad_index: *mut usize,
) -> Status {
    let tree = tree_ref(tree)?;
    let descs = slice_in(descs, count)?;
    let out = CsrOut {
        offsets: out_offsets,
        handles: out_handles,
        distances: std::ptr::null_mut(),
        capacity,
        total: out_total,
    };
    out.fill(
        count,
        |offsets, hits| {
            if let Some(done) = tree.bulk(descs, offsets, hits) {
                return done.map_err(|error| batch_error(error, out_bad_index));
            }
            if let Some(handles) = plain_elements(descs) {
                // A collision loop's per-agent queries: their handles alone,
                // not 48-byte queries the core would take the handles from again.
                return tree
                    .par_overlapping_many(&handles, offsets, hits)
                    .map_err(|error| batch_error(error, out_bad_index));
            }
            let mut queries = Vec::with_capacity(descs.len());
            for (at, desc) in descs.iter().enumerate() {
                match to_query(desc) {
                    Ok(query) => queries.push(query),
                    Err(status) => {
                        // The first refusal in order: a bad shape before
                        // this one, if the core finds one there.
                        let (mut rows, mut found) = (Vec::new(), Vec::new());
                        tree.query_many(&queries, &mut rows, &mut found)
                            .map_err(|error| batch_error(error, out_bad_index))?;
                        if let Some(out) = Out::optional(out_bad_index) {
                            out.write(at);
                        }
                        return Err(status);
                    }
                }
            }
            tree.par_query_many(&queries, offsets, hits)
                .map_err(|error| batch_error(error, out_bad_index))
        },
        |&h| h,
        |_| 0.0,
    )
}

/// The handles of a batch of plain element queries (the core's
/// [`Query::plain_element`], each description read as a query on the stack),
/// the form `overlapping_many` answers (an empty batch's none: it answers one
/// row offset, as the core's batch query does); `None` for any other batch,
/// bad descriptions included (the batch query then refuses them).
fn plain_elements<D: Describe>(descs: &[D]) -> Option<Vec<Handle>> {
    descs
        .iter()
        .map(|desc| to_query(desc).ok()?.plain_element())
        .collect()
}

pub(crate) unsafe fn pairs<W: Shell>(
    tree: *const W,
    out_pairs: *mut qt_pair,
    capacity: usize,
    out_total: *mut usize,
) -> Status {
    let tree = tree_ref(tree)?;
    fill_buffer(out_pairs, capacity, out_total, |found| {
        let _ = tree.par_pairs_with(|a, b| {
            found.push(qt_pair {
                a: a.to_raw(),
                b: b.to_raw(),
            })
        });
        Ok(())
    })
}

pub(crate) unsafe fn pairs_each<W: Shell>(
    tree: *const W,
    visit: qt_pair_fn,
    user_data: *mut c_void,
) -> Status {
    let tree = tree_ref(tree)?;
    let visit = visit.ok_or(QT_NULL_ARGUMENT)?;
    walked(tree.par_pairs_with(|a, b| flow(visit(user_data, a.to_raw(), b.to_raw()))))
}

/// The body of `qt_traverse` and `qt_octree_traverse`: `branch` and `leaf`
/// (either may be NULL) get each node in their C callback's own form.
pub(crate) unsafe fn traverse<W: Shell, F: NodeFn<BoxOf<W>>>(
    tree: *const W,
    branch: Option<F>,
    leaf: Option<F>,
    user_data: *mut c_void,
) -> Status {
    let tree = tree_ref(tree)?;
    let visit = |callback: Option<F>, info: &NodeInfo<BoxOf<W>>| match callback {
        Some(f) => flow(f.call(user_data, info)),
        None => ControlFlow::Continue(()),
    };
    walked(tree.traverse(|info| visit(branch, info), |info| visit(leaf, info)))
}

pub(crate) unsafe fn set_filter<W: Shell>(
    tree: *mut W,
    handle: qt_handle_t,
    category: u32,
    mask: u32,
) -> Status {
    let mut tree = tree_mut(tree)?;
    tree.tree
        .set_filter(Handle::from_raw(handle), Filter::new(category, mask))?;
    Ok(())
}

pub(crate) unsafe fn get_filter<W: Shell>(
    tree: *const W,
    handle: qt_handle_t,
    out_category: *mut u32,
    out_mask: *mut u32,
) -> Status {
    let tree = tree_ref(tree)?;
    let out_category = Out::new(out_category)?;
    let out_mask = Out::new(out_mask)?;
    let filter = tree.filter(Handle::from_raw(handle))?;
    out_category.write(filter.category);
    out_mask.write(filter.mask);
    Ok(())
}

pub(crate) unsafe fn set_filters<W: Shell>(
    tree: *mut W,
    handles: *const qt_handle_t,
    categories: *const u32,
    masks: *const u32,
    count: usize,
    out_bad_index: *mut usize,
) -> Status {
    let mut tree = tree_mut(tree)?;
    let handles = Handle::cast_slice(slice_in(handles, count)?);
    let categories = slice_in(categories, count)?;
    let masks = slice_in(masks, count)?;
    // C passes the two halves as separate arrays (the layout a caller's
    // struct-of-arrays already has); the core takes `Filter`s.
    let filters: Vec<Filter> = categories
        .iter()
        .zip(masks)
        .map(|(&category, &mask)| Filter::new(category, mask))
        .collect();
    tree.tree
        .set_filter_many(handles, &filters)
        .map_err(|error| batch_error(error, out_bad_index))
}

/// The output of a batch search in compressed rows, as the caller passed it:
/// `count + 1` offsets, and handles (and distances, when not NULL) with a
/// capacity and the total.
struct CsrOut {
    offsets: *mut usize,
    handles: *mut qt_handle_t,
    distances: *mut f64,
    capacity: usize,
    total: *mut usize,
}

impl CsrOut {
    /// Checks every pointer first, then runs `search` (the core's batch call,
    /// which writes `out_bad_index` itself on error) and writes what it found.
    unsafe fn fill<T>(
        self,
        count: usize,
        search: impl FnOnce(&mut Vec<usize>, &mut Vec<T>) -> Status,
        handle: impl Fn(&T) -> Handle,
        distance: impl Fn(&T) -> f64,
    ) -> Status {
        let rows = count.checked_add(1).ok_or(QT_INVALID_PARAMETER)?;
        let offsets_out = slice_out(self.offsets, rows)?;
        let handles_out = slice_out(self.handles, self.capacity)?;
        let distances_out = match self.distances.is_null() {
            true => None,
            false => Some(slice_out(self.distances, self.capacity)?),
        };
        let total = Out::new(self.total)?;
        let (mut offsets, mut found) = (Vec::new(), Vec::new());
        search(&mut offsets, &mut found)?;
        for (slot, &offset) in offsets_out.iter_mut().zip(&offsets) {
            slot.write(offset);
        }
        for (slot, item) in handles_out.iter_mut().zip(&found) {
            slot.write(handle(item).to_raw());
        }
        if let Some(out) = distances_out {
            for (slot, item) in out.iter_mut().zip(&found) {
                slot.write(distance(item));
            }
        }
        total.write(found.len());
        Ok(())
    }
}

/// The body of `qt_nearest` (`filter` `None`) and `qt_nearest_with`
/// (`filter` the caller's `accept` and `user_data`; a NULL `accept` is
/// refused). `max_distance` is `INFINITY` for no limit.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn nearest<W: Shell>(
    tree: *const W,
    point: PointOf<W>,
    k: usize,
    max_distance: f64,
    mask: u32,
    filter: Option<(qt_accept_fn, *mut c_void)>,
    out_handles: *mut qt_handle_t,
    out_distances: *mut f64,
    out_count: *mut usize,
) -> Status {
    let filter = match filter {
        Some((accept, user_data)) => Some((accept.ok_or(QT_NULL_ARGUMENT)?, user_data)),
        None => None,
    };
    let tree = tree_ref(tree)?;
    // The arrays hold `k` items: a `k` no array can hold (-1 as `size_t`)
    // is refused here with `QT_INVALID_PARAMETER`.
    let handles_out = slice_out(out_handles, k)?;
    let distances_out = match out_distances.is_null() {
        true => None,
        false => Some(slice_out(out_distances, k)?),
    };
    let count = Out::new(out_count)?;
    let mut found = Vec::new();
    let max_distance = Some(max_distance);
    match filter {
        Some((accept, user_data)) => tree.nearest_with(
            point,
            k,
            max_distance,
            mask,
            |h| accept(user_data, h.to_raw()) != 0,
            &mut found,
        )?,
        None => tree.nearest(point, k, max_distance, mask, &mut found)?,
    }
    for (slot, n) in handles_out.iter_mut().zip(&found) {
        slot.write(n.handle.to_raw());
    }
    if let Some(distances_out) = distances_out {
        for (slot, n) in distances_out.iter_mut().zip(&found) {
            slot.write(n.distance);
        }
    }
    count.write(found.len());
    Ok(())
}

/// `nearest` for `count` points (`points` is C's flat array of coordinates),
/// in compressed rows.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn nearest_many<W: Shell>(
    tree: *const W,
    points: *const f32,
    count: usize,
    k: usize,
    max_distance: f64,
    mask: u32,
    out_offsets: *mut usize,
    out_handles: *mut qt_handle_t,
    out_distances: *mut f64,
    capacity: usize,
    out_total: *mut usize,
    out_bad_index: *mut usize,
) -> Status {
    let tree = tree_ref(tree)?;
    let points = slice_in(points.cast::<PointOf<W>>(), count)?;
    // The `k` rule of `nearest`, whose arrays hold `k` items: -1 as `size_t`
    // is refused, not read as "every element".
    check_len::<qt_handle_t>(k)?;
    let out = CsrOut {
        offsets: out_offsets,
        handles: out_handles,
        distances: out_distances,
        capacity,
        total: out_total,
    };
    out.fill(
        count,
        |offsets, found| {
            tree.par_nearest_many(points, k, Some(max_distance), mask, offsets, found)
                .map_err(|error| batch_error(error, out_bad_index))
        },
        |n: &Neighbor| n.handle,
        |n: &Neighbor| n.distance,
    )
}

pub(crate) unsafe fn ray_cast<W: Shell>(
    tree: *const W,
    ray: Ray<PointOf<W>>,
    mask: u32,
    out_hit: *mut qt_ray_hit,
    out_found: *mut bool,
) -> Status {
    let tree = tree_ref(tree)?;
    first_hit(out_hit, out_found, || tree.ray_cast(&ray, mask))
}

/// The body of `qt_ray_cast_many` and `qt_octree_ray_cast_many`: every ray
/// checked first (the first bad one's index to `*out_bad_index`, nothing
/// written), then each ray's first hit to `out_hits[i]`, a miss as
/// `QT_NO_HANDLE` with id 0 and an infinite distance and fraction.
pub(crate) unsafe fn ray_cast_many<W: Shell, R: Copy + Into<Ray<PointOf<W>>>>(
    tree: *const W,
    rays: *const R,
    count: usize,
    mask: u32,
    out_hits: *mut qt_ray_hit,
    out_bad_index: *mut usize,
) -> Status {
    let tree = tree_ref(tree)?;
    let rays: Vec<Ray<PointOf<W>>> = slice_in(rays, count)?.iter().map(|&r| r.into()).collect();
    let out = slice_out(out_hits, count)?;
    let mut hits = Vec::new();
    tree.par_ray_cast_many(&rays, mask, &mut hits)
        .map_err(|error| batch_error(error, out_bad_index))?;
    const MISS: qt_ray_hit = qt_ray_hit {
        handle: QT_NO_HANDLE,
        id: 0,
        distance: f64::INFINITY,
        fraction: f64::INFINITY,
    };
    for (out, hit) in out.iter_mut().zip(&hits) {
        out.write(hit.as_ref().map_or(MISS, qt_ray_hit::from));
    }
    Ok(())
}

/// The end of `ray_cast` and `box_cast`: both pointers are checked before
/// `cast` runs, `*out_hit` is written only when there was a hit.
unsafe fn first_hit(
    out_hit: *mut qt_ray_hit,
    out_found: *mut bool,
    cast: impl FnOnce() -> Result<Option<RayHit>, Error>,
) -> Status {
    let out_hit = Out::new(out_hit)?;
    let out_found = Out::new(out_found)?;
    let hit = cast()?;
    if let Some(hit) = &hit {
        out_hit.write(hit.into());
    }
    out_found.write(hit.is_some());
    Ok(())
}

pub(crate) unsafe fn ray_cast_all<W: Shell>(
    tree: *const W,
    ray: Ray<PointOf<W>>,
    mask: u32,
    out_hits: *mut qt_ray_hit,
    capacity: usize,
    out_total: *mut usize,
) -> Status {
    let tree = tree_ref(tree)?;
    fill_buffer(out_hits, capacity, out_total, |found| {
        tree.ray_cast_with(&ray, mask, |hit| {
            let _ = found.push(hit.into());
            RayControl::Continue
        })?;
        Ok(())
    })
}

/// The core's box cast of C's arguments (`omit` is `QT_NO_HANDLE` for none).
fn box_cast_of<B: Bounds>(rect: B, motion: B::Point, mask: u32, omit: qt_handle_t) -> BoxCast<B> {
    BoxCast {
        omit: Handle::optional(omit),
        ..BoxCast::new(rect, motion).mask(mask)
    }
}

/// The first hit of the box cast of `rect` by `motion`, as `ray_cast`'s.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn box_cast<W: Shell>(
    tree: *const W,
    rect: W::CBox,
    motion: PointOf<W>,
    mask: u32,
    omit: qt_handle_t,
    out_hit: *mut qt_ray_hit,
    out_found: *mut bool,
) -> Status {
    let tree = tree_ref(tree)?;
    let cast = box_cast_of(rect.into(), motion, mask, omit);
    first_hit(out_hit, out_found, || tree.box_cast(&cast))
}

/// Every hit of the box cast, as `ray_cast_all`'s: the total, and the first
/// `capacity` hits.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn box_cast_all<W: Shell>(
    tree: *const W,
    rect: W::CBox,
    motion: PointOf<W>,
    mask: u32,
    omit: qt_handle_t,
    out_hits: *mut qt_ray_hit,
    capacity: usize,
    out_total: *mut usize,
) -> Status {
    let tree = tree_ref(tree)?;
    let cast = box_cast_of(rect.into(), motion, mask, omit);
    fill_buffer(out_hits, capacity, out_total, |found| {
        let mut hits = Vec::new();
        tree.box_cast_all(&cast, &mut hits)?;
        for hit in &hits {
            let _ = found.push(hit.into());
        }
        Ok(())
    })
}

/// What a `qt_ray_fn`'s return value (Box2D's convention) asks the core for.
fn ray_control(returned: f64, hit: &RayHit, max_length: f64) -> RayControl {
    if returned.is_nan() || returned == 0.0 {
        RayControl::Stop
    } else if (0.0..1.0).contains(&returned) {
        // The hit's own fraction clips at its exact distance: the product
        // could round below it and lose the hits tied with this one.
        RayControl::Clip(if returned == hit.fraction {
            hit.distance
        } else {
            returned * max_length
        })
    } else {
        RayControl::Continue // negative: ignore this hit; 1 or more: unclipped
    }
}

pub(crate) unsafe fn ray_cast_each<W: Shell>(
    tree: *const W,
    ray: Ray<PointOf<W>>,
    mask: u32,
    visit: qt_ray_fn,
    user_data: *mut c_void,
) -> Status {
    let tree = tree_ref(tree)?;
    let visit = visit.ok_or(QT_NULL_ARGUMENT)?;
    let mut stopped = false;
    tree.ray_cast_with(&ray, mask, |hit| {
        let control = ray_control(visit(user_data, hit.into()), hit, ray.max_length);
        stopped = control == RayControl::Stop;
        control
    })?;
    walked(match stopped {
        true => ControlFlow::Break(()),
        false => ControlFlow::Continue(()),
    })
}
