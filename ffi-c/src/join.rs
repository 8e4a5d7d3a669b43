//! Bulk queries, joins, and the `double` entry points.
//!
//! `qt_query_bulk` runs many rectangle queries in one call and gives
//! `(row, handle)` pairs, rows as `size_t` positions in the caller's array;
//! `qt_join` pairs the elements of two trees. The `_d` functions take
//! `qt_rect_d` (four `double`s), round each corner once by the core's rule
//! (`Rect::from_f64`) and do what the `float` function of the same name does.

use std::mem::MaybeUninit;

use flatquad_core::{join, Rect};

use crate::boundary::*;
use crate::query::qt_query;
use crate::shared::batch_error;
use crate::status::*;
use crate::tree::{qt_insert, qt_move};
use crate::types::*;

/// `qt_insert` with a `double` rectangle (rounded once to `float`).
#[no_mangle]
pub unsafe extern "C" fn qt_insert_d(
    tree: *mut qt_tree,
    rect: qt_rect_d,
    id: u32,
    out_handle: *mut qt_handle_t,
) -> qt_status {
    qt_insert(tree, rect.into(), id, out_handle)
}

/// `qt_move` with a `double` rectangle (rounded once to `float`).
#[no_mangle]
pub unsafe extern "C" fn qt_move_d(
    tree: *mut qt_tree,
    handle: qt_handle_t,
    rect: qt_rect_d,
) -> qt_status {
    qt_move(tree, handle, rect.into())
}

/// `qt_query` with a `double` rectangle (rounded once to `float`): finds every
/// element whose rectangle meets the query in `double`, and perhaps one the
/// rounding made touch.
#[no_mangle]
pub unsafe extern "C" fn qt_query_d(
    tree: *const qt_tree,
    rect: qt_rect_d,
    omit: qt_handle_t,
    out_handles: *mut qt_handle_t,
    capacity: usize,
    out_total: *mut usize,
) -> qt_status {
    qt_query(tree, rect.into(), omit, out_handles, capacity, out_total)
}

fn write_prefix<T: Copy>(out: &mut [MaybeUninit<T>], items: &[T]) {
    for (slot, &item) in out.iter_mut().zip(items) {
        slot.write(item);
    }
}

/// Runs one query per rectangle of `rects[0..count]` and gives every pair
/// `(row, handle)` such that `rects[row]` meets the element `handle`: writes
/// the number of pairs to `*out_total` and the first min(total, capacity) to
/// `out_rows` and `out_handles` (`size_t` positions in `rects`, and handles).
/// Rows increase; when `sorted` is true, the handles of each row increase too.
/// The output arrays may be NULL when
/// `capacity` is 0 (to learn the total).
///
/// Returns `QT_INVALID_RECT` for a bad rectangle, whose index is written to
/// `*out_bad_index` when that is not NULL; nothing else is written then.
#[no_mangle]
pub unsafe extern "C" fn qt_query_bulk(
    tree: *const qt_tree,
    rects: *const qt_rect,
    count: usize,
    sorted: bool,
    out_rows: *mut usize,
    out_handles: *mut qt_handle_t,
    capacity: usize,
    out_total: *mut usize,
    out_bad_index: *mut usize,
) -> qt_status {
    guard(|| {
        let tree = tree_ref(tree)?;
        let rects = slice_in(rects.cast::<Rect>(), count)?;
        let rows_out = slice_out(out_rows, capacity)?;
        let handles_out = slice_out(out_handles, capacity)?;
        let out_total = Out::new(out_total)?;
        let (mut rows, mut hits) = (Vec::new(), Vec::new());
        join::query_bulk(tree, rects, sorted, &mut rows, &mut hits)
            .map_err(|error| batch_error(error, out_bad_index))?;
        write_prefix(rows_out, &rows);
        write_prefix(
            handles_out,
            &hits.iter().map(|h| h.to_raw()).collect::<Vec<_>>(),
        );
        out_total.write(rows.len());
        Ok(())
    })
}

/// `qt_query_bulk` with `double` rectangles, each corner rounded once to
/// `float`: no pair whose rectangles meet in `double` is missed (a pair the
/// rounding made touch may be added).
#[no_mangle]
pub unsafe extern "C" fn qt_query_bulk_d(
    tree: *const qt_tree,
    rects: *const qt_rect_d,
    count: usize,
    sorted: bool,
    out_rows: *mut usize,
    out_handles: *mut qt_handle_t,
    capacity: usize,
    out_total: *mut usize,
    out_bad_index: *mut usize,
) -> qt_status {
    guard(|| {
        let flat = slice_in(
            rects.cast::<f64>(),
            count.checked_mul(4).ok_or(QT_INVALID_PARAMETER)?,
        )?;
        let mut rounded = Vec::new();
        Rect::round_f64s(flat, &mut rounded);
        match qt_query_bulk(
            tree,
            rounded.as_ptr().cast::<qt_rect>(),
            rounded.len(),
            sorted,
            out_rows,
            out_handles,
            capacity,
            out_total,
            out_bad_index,
        ) {
            QT_OK => Ok(()),
            status => Err(status),
        }
    })
}

/// Every pair of an element of `left` and an element of `right` whose closed
/// rectangles meet, each pair once (`a` from `left`, `b` from `right`; the two
/// may be different kinds, or the same tree): writes the number of pairs to
/// `*out_total` and the first min(total, capacity) to `out_pairs`. When
/// `sorted` is true the pairs come in increasing `(a, b)` order. `out_pairs`
/// may be NULL when `capacity` is 0.
#[no_mangle]
pub unsafe extern "C" fn qt_join(
    left: *const qt_tree,
    right: *const qt_tree,
    sorted: bool,
    out_pairs: *mut qt_pair,
    capacity: usize,
    out_total: *mut usize,
) -> qt_status {
    guard(|| {
        let (left, right) = (tree_ref(left)?, tree_ref(right)?);
        let out = slice_out(out_pairs, capacity)?;
        let out_total = Out::new(out_total)?;
        let (mut lefts, mut rights) = (Vec::new(), Vec::new());
        join::join(left, right, sorted, &mut lefts, &mut rights);
        let pairs: Vec<qt_pair> = lefts
            .iter()
            .zip(&rights)
            .map(|(a, b)| qt_pair {
                a: a.to_raw(),
                b: b.to_raw(),
            })
            .collect();
        write_prefix(out, &pairs);
        out_total.write(pairs.len());
        Ok(())
    })
}
