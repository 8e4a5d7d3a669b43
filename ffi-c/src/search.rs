//! Searches: nearest neighbours, ray casts and box casts, on
//! every 2D structure and the octree. Each takes a collision `mask` (an
//! element is reported only when its category is in it; `QT_MASK_ALL`: every
//! element). Argument checks and results are the core's: distances are `double`
//! (the distance from the point to an element's closed box, 0 inside), and
//! nearest results and ray hits come in ascending `(distance, id, handle)`.

use std::ffi::c_void;

use crate::boundary::*;
use crate::shared::*;
use crate::status::*;
use crate::types::*;

/// Finds the `k` elements passing `mask` nearest to `(x, y)` (fewer if there
/// are fewer), at most `max_distance` away (`INFINITY`: no limit), nearest
/// first, ties in ascending id, then handle: writes their handles to
/// `out_handles[0..*out_count]` and, when `out_distances` is not NULL, their
/// distances (to the closed rectangle, 0 inside it) to `out_distances`. Both
/// arrays hold `k` items (may be NULL when `k` is 0).
///
/// Returns `QT_INVALID_POINT` for a NaN or infinite coordinate,
/// `QT_INVALID_PARAMETER` for a NaN or negative `max_distance`, or a `k` no
/// array can hold (a negative number passed as `size_t`).
#[no_mangle]
pub unsafe extern "C" fn qt_nearest(
    tree: *const qt_tree,
    x: f32,
    y: f32,
    k: usize,
    max_distance: f64,
    mask: u32,
    out_handles: *mut qt_handle_t,
    out_distances: *mut f64,
    out_count: *mut usize,
) -> qt_status {
    guard(|| {
        nearest(
            tree,
            [x, y],
            k,
            max_distance,
            mask,
            None,
            out_handles,
            out_distances,
            out_count,
        )
    })
}

/// `qt_nearest` with a filter: `accept(user_data, handle)` is called with the
/// candidates in order, each once, and those it returns 0 for do not count
/// towards `k`. Returns `QT_NULL_ARGUMENT` for a NULL `accept`.
#[no_mangle]
pub unsafe extern "C" fn qt_nearest_with(
    tree: *const qt_tree,
    x: f32,
    y: f32,
    k: usize,
    max_distance: f64,
    mask: u32,
    accept: qt_accept_fn,
    user_data: *mut c_void,
    out_handles: *mut qt_handle_t,
    out_distances: *mut f64,
    out_count: *mut usize,
) -> qt_status {
    guard(|| {
        nearest(
            tree,
            [x, y],
            k,
            max_distance,
            mask,
            Some((accept, user_data)),
            out_handles,
            out_distances,
            out_count,
        )
    })
}

/// `qt_nearest` for `count` points at once (point `i` is `(points[2 i],
/// points[2 i + 1])`), in compressed rows as `qt_query_many`: the
/// neighbours of point `i`, nearest first, are `out_handles[out_offsets[i] ..
/// out_offsets[i + 1]]` (and their distances the same range of
/// `out_distances`, which may be NULL). `k` bounds each row, the output's
/// capacity is `capacity`; a `k` that `qt_nearest` refuses is refused here too.
/// Returns as `qt_nearest`, the index of the first bad point written to
/// `*out_bad_index` when that is not NULL. Big batches (from 1,000 points)
/// run on every core, through rayon's global pool, with the same rows.
#[no_mangle]
pub unsafe extern "C" fn qt_nearest_many(
    tree: *const qt_tree,
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
) -> qt_status {
    guard(|| {
        nearest_many(
            tree,
            points,
            count,
            k,
            max_distance,
            mask,
            out_offsets,
            out_handles,
            out_distances,
            capacity,
            out_total,
            out_bad_index,
        )
    })
}

/// Casts `ray` and writes the first element passing `mask` that it hits (the
/// nearest along it; ties in ascending id, then handle) to `*out_hit`, and
/// whether there was one to `*out_found` (`*out_hit` is written only then).
///
/// Returns `QT_INVALID_POINT` for a NaN or infinite origin,
/// `QT_INVALID_PARAMETER` for a zero or non-finite direction or a
/// `max_length` that is NaN, negative or infinite.
#[no_mangle]
pub unsafe extern "C" fn qt_ray_cast(
    tree: *const qt_tree,
    ray: qt_ray,
    mask: u32,
    out_hit: *mut qt_ray_hit,
    out_found: *mut bool,
) -> qt_status {
    guard(|| ray_cast(tree, ray.into(), mask, out_hit, out_found))
}

/// Casts each of the `count` rays of `rays` as `qt_ray_cast` does and writes
/// ray `i`'s first hit to `out_hits[i]` (an array of `count`); a ray that hits
/// nothing gets `handle` `QT_NO_HANDLE`, `id` 0 and an infinite `distance`
/// and `fraction`. For a scan of many rays (a lidar sweep, a line of sight per
/// agent) in one call: big batches (from 1,000 rays) run on every core,
/// through rayon's global pool, with the same hits.
///
/// Returns as `qt_ray_cast`, the index of the first bad ray written to
/// `*out_bad_index` when that is not NULL; nothing is written to `out_hits`
/// then.
#[no_mangle]
pub unsafe extern "C" fn qt_ray_cast_many(
    tree: *const qt_tree,
    rays: *const qt_ray,
    count: usize,
    mask: u32,
    out_hits: *mut qt_ray_hit,
    out_bad_index: *mut usize,
) -> qt_status {
    guard(|| ray_cast_many(tree, rays, count, mask, out_hits, out_bad_index))
}

/// Moves the closed rectangle `rect` by `t·(dx, dy)` for `t` from 0 to 1 and
/// writes the first element passing `mask` it touches (the smallest `t`;
/// ties in ascending id, then handle), leaving out `omit` (`QT_NO_HANDLE` for
/// none: pass the moving element's own handle to ask where it can go), to
/// `*out_hit`, and whether there was one to `*out_found`. The hit's
/// `fraction` is `t`, its `distance` `t` times the motion's length.
///
/// Returns `QT_INVALID_RECT` for a bad `rect`, `QT_INVALID_PARAMETER` for a
/// NaN or infinite motion, `QT_INVALID_HANDLE` for an `omit` that is not live.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn qt_box_cast(
    tree: *const qt_tree,
    rect: qt_rect,
    dx: f32,
    dy: f32,
    mask: u32,
    omit: qt_handle_t,
    out_hit: *mut qt_ray_hit,
    out_found: *mut bool,
) -> qt_status {
    guard(|| box_cast(tree, rect, [dx, dy], mask, omit, out_hit, out_found))
}

/// Every element passing `mask` that the rectangle of `qt_box_cast` touches,
/// in ascending `(fraction, id, handle)`: writes the number of hits to
/// `*out_total` and the first min(total, capacity) to `out_hits` (may be NULL
/// when `capacity` is 0). Returns as `qt_box_cast`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn qt_box_cast_all(
    tree: *const qt_tree,
    rect: qt_rect,
    dx: f32,
    dy: f32,
    mask: u32,
    omit: qt_handle_t,
    out_hits: *mut qt_ray_hit,
    capacity: usize,
    out_total: *mut usize,
) -> qt_status {
    guard(|| {
        box_cast_all(
            tree,
            rect,
            [dx, dy],
            mask,
            omit,
            out_hits,
            capacity,
            out_total,
        )
    })
}

/// Every element passing `mask` that `ray` hits, in ascending `(distance, id,
/// handle)`: writes the number of hits to `*out_total` and the first
/// min(total, capacity) to `out_hits` (may be NULL when `capacity` is 0).
/// Returns as `qt_ray_cast`.
#[no_mangle]
pub unsafe extern "C" fn qt_ray_cast_all(
    tree: *const qt_tree,
    ray: qt_ray,
    mask: u32,
    out_hits: *mut qt_ray_hit,
    capacity: usize,
    out_total: *mut usize,
) -> qt_status {
    guard(|| ray_cast_all(tree, ray.into(), mask, out_hits, capacity, out_total))
}

/// Calls `visit(user_data, hit)` with each hit of `qt_ray_cast_all`, in that
/// order; `visit` says whether to go on, stop or clip the ray (`qt_ray_fn`).
/// Returns `QT_OK`, or `QT_STOPPED` when `visit` returned 0, and (without
/// calling `visit`) the statuses of `qt_ray_cast` or `QT_NULL_ARGUMENT` for
/// a NULL `visit`.
#[no_mangle]
pub unsafe extern "C" fn qt_ray_cast_each(
    tree: *const qt_tree,
    ray: qt_ray,
    mask: u32,
    visit: qt_ray_fn,
    user_data: *mut c_void,
) -> qt_status {
    guard(|| ray_cast_each(tree, ray.into(), mask, visit, user_data))
}
