//! Joins, and the `double` entry points.
//!
//! `qt_join` pairs the elements of two trees. The `_d` functions take
//! `qt_rect_d` (four `double`s), round each corner once by the core's rule
//! (`Rect::from_f64`) and do what the `float` function of the same name does;
//! a query takes a `double` rectangle as the shape `QT_SHAPE_RECT_D`.

use std::mem::MaybeUninit;

use flatquad_core::join;

use crate::boundary::*;
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

fn write_prefix<T: Copy>(out: &mut [MaybeUninit<T>], items: &[T]) {
    for (slot, &item) in out.iter_mut().zip(items) {
        slot.write(item);
    }
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
