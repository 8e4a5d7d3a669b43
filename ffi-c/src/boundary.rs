//! The two helpers every `extern "C"` function goes through: [`guard`] catches
//! panics at the boundary, and [`non_null`] checks every pointer (the typed
//! helpers below are all built on it). Nothing here asserts on caller input.

use std::ffi::{c_char, CStr};
use std::mem::MaybeUninit;
use std::ops::{ControlFlow, Deref, DerefMut};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::NonNull;

use crate::status::*;
use crate::types::{qt_tree, Held, Shell};

/// The result of a body that returns a status: `Ok` becomes `QT_OK`.
pub(crate) type Status = Result<(), qt_status>;

/// What a function body returns, and what the function returns when the body
/// panicked instead.
pub(crate) trait Boundary {
    /// The C return type.
    type Out;
    /// The C value of a body that returned normally.
    fn finish(self) -> Self::Out;
    /// The C value of a body that panicked.
    fn panicked() -> Self::Out;
}

impl Boundary for Status {
    type Out = qt_status;
    fn finish(self) -> qt_status {
        match self {
            Ok(()) => QT_OK,
            Err(status) => status,
        }
    }
    fn panicked() -> qt_status {
        QT_PANIC
    }
}

impl Boundary for usize {
    type Out = usize;
    fn finish(self) -> usize {
        self
    }
    fn panicked() -> usize {
        0
    }
}

/// `qt_kind_of`: 0, no kind, after a panic.
impl Boundary for u32 {
    type Out = u32;
    fn finish(self) -> u32 {
        self
    }
    fn panicked() -> u32 {
        0
    }
}

impl Boundary for bool {
    type Out = bool;
    fn finish(self) -> bool {
        self
    }
    fn panicked() -> bool {
        false
    }
}

impl Boundary for () {
    type Out = ();
    fn finish(self) {}
    fn panicked() {}
}

/// Static strings: never NULL, even after a panic.
impl Boundary for *const c_char {
    type Out = *const c_char;
    fn finish(self) -> *const c_char {
        self
    }
    fn panicked() -> *const c_char {
        const PANICKED: &CStr = c"(flatquad panicked)";
        PANICKED.as_ptr()
    }
}

/// Runs a function body, turning a panic into the function's panic value
/// (`QT_PANIC` for a status) so that no unwind ever crosses into C.
#[inline(always)]
pub(crate) fn guard<R: Boundary>(body: impl FnOnce() -> R) -> R::Out {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(result) => result.finish(),
        Err(_) => R::panicked(),
    }
}

/// The one null check: `QT_NULL_ARGUMENT` for NULL.
#[inline(always)]
pub(crate) fn non_null<T>(ptr: *const T) -> Result<NonNull<T>, qt_status> {
    NonNull::new(ptr.cast_mut()).ok_or(QT_NULL_ARGUMENT)
}

/// An input passed by pointer.
///
/// # Safety
/// `ptr` is NULL or valid for reads for `'a`.
#[inline(always)]
pub(crate) unsafe fn arg<'a, T>(ptr: *const T) -> Result<&'a T, qt_status> {
    Ok(non_null(ptr)?.as_ref())
}

/// An out-parameter: only ever written, and only when the call succeeds.
pub(crate) struct Out<T>(NonNull<T>);

impl<T> Out<T> {
    /// # Safety
    /// `ptr` is NULL or valid for writes of a `T`.
    #[inline(always)]
    pub(crate) unsafe fn new(ptr: *mut T) -> Result<Out<T>, qt_status> {
        Ok(Out(non_null(ptr)?))
    }

    /// An optional out-parameter: `None` for NULL.
    ///
    /// # Safety
    /// As [`Out::new`].
    #[inline(always)]
    pub(crate) unsafe fn optional(ptr: *mut T) -> Option<Out<T>> {
        Out::new(ptr).ok()
    }

    #[inline(always)]
    pub(crate) fn write(self, value: T) {
        // SAFETY: the pointer is non-null and, by `new`'s contract, writable.
        unsafe { self.0.as_ptr().write(value) }
    }
}

/// Writes each value whose out-pointer is not NULL: the parameter getters,
/// whose out-pointers may each be NULL when that value is not wanted.
///
/// # Safety
/// Each pointer as for [`Out::new`].
pub(crate) unsafe fn write_wanted<T>(outs: impl IntoIterator<Item = (*mut T, T)>) {
    for (out, value) in outs {
        if let Some(out) = Out::optional(out) {
            out.write(value);
        }
    }
}

/// Checks a caller's length: a slice of `len` items of `T` must fit in `isize`.
pub(crate) fn check_len<T>(len: usize) -> Result<(), qt_status> {
    match len.checked_mul(core::mem::size_of::<T>()) {
        Some(bytes) if bytes <= isize::MAX as usize => Ok(()),
        _ => Err(QT_INVALID_PARAMETER),
    }
}

/// An input array; NULL is allowed when `len` is 0.
///
/// # Safety
/// `ptr` is NULL or valid for reads of `len` items for `'a`.
#[inline(always)]
pub(crate) unsafe fn slice_in<'a, T>(ptr: *const T, len: usize) -> Result<&'a [T], qt_status> {
    if len == 0 {
        return Ok(&[]);
    }
    let ptr = non_null(ptr)?;
    check_len::<T>(len)?;
    Ok(std::slice::from_raw_parts(ptr.as_ptr(), len))
}

/// An output array of `capacity` items, possibly uninitialised; NULL is
/// allowed when `capacity` is 0.
///
/// # Safety
/// `ptr` is NULL or valid for writes of `capacity` items for `'a`, and nothing
/// else reads or writes them meanwhile.
#[inline(always)]
pub(crate) unsafe fn slice_out<'a, T>(
    ptr: *mut T,
    capacity: usize,
) -> Result<&'a mut [MaybeUninit<T>], qt_status> {
    if capacity == 0 {
        return Ok(&mut []);
    }
    let ptr = non_null(ptr)?;
    check_len::<T>(capacity)?;
    Ok(std::slice::from_raw_parts_mut(
        ptr.as_ptr().cast::<MaybeUninit<T>>(),
        capacity,
    ))
}

/// A tree (a `qt_tree` or a `qt_octree`) for reading. Refuses a poisoned tree.
///
/// # Safety
/// `tree` is NULL or a live tree from this library, not being changed by
/// anyone for `'a`.
#[inline(always)]
pub(crate) unsafe fn tree_ref<'a, W: Shell>(tree: *const W) -> Result<&'a W::Index, qt_status> {
    let tree = arg(tree)?;
    if tree.poisoned {
        return Err(QT_POISONED);
    }
    Ok(&tree.tree)
}

/// A tree being changed: it counts as poisoned until the change returns, so a
/// panic in the middle leaves it poisoned (the way a `Mutex` is).
pub(crate) struct TreeMut<'a, W: Shell>(&'a mut W);

/// A tree for changing. Refuses a poisoned tree.
///
/// # Safety
/// `tree` is NULL or a live tree from this library, used by no one else for `'a`.
#[inline(always)]
pub(crate) unsafe fn tree_mut<'a, W: Shell>(tree: *mut W) -> Result<TreeMut<'a, W>, qt_status> {
    let tree = &mut *non_null(tree)?.as_ptr();
    if tree.poisoned {
        return Err(QT_POISONED);
    }
    tree.poisoned = true;
    Ok(TreeMut(tree))
}

impl<W: Shell> Drop for TreeMut<'_, W> {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            self.0.poisoned = false;
        }
    }
}

impl<W: Shell> Deref for TreeMut<'_, W> {
    type Target = Held<W::Index>;
    fn deref(&self) -> &Held<W::Index> {
        self.0
    }
}

impl<W: Shell> DerefMut for TreeMut<'_, W> {
    fn deref_mut(&mut self) -> &mut Held<W::Index> {
        self.0
    }
}

/// `QT_STOPPED` when a callback stopped the walk.
#[inline(always)]
pub(crate) fn walked(flow: ControlFlow<()>) -> Status {
    match flow {
        ControlFlow::Continue(()) => Ok(()),
        ControlFlow::Break(()) => Err(QT_STOPPED),
    }
}

/// Maps a C callback's return value: nonzero stops the walk.
#[inline(always)]
pub(crate) fn flow(returned: std::ffi::c_int) -> ControlFlow<()> {
    if returned == 0 {
        ControlFlow::Continue(())
    } else {
        ControlFlow::Break(())
    }
}

/// **Testing only**: panics inside the boundary, to prove that a Rust panic
/// comes back as `QT_PANIC` and never unwinds into C. With a tree, the panic
/// happens while the tree is being changed, so the tree is left poisoned and
/// every later call on it returns `QT_POISONED`. Prints the panic message to
/// stderr. Never call it in a program that means to keep its tree.
#[no_mangle]
pub unsafe extern "C" fn qt_test_panic(tree: *mut qt_tree) -> qt_status {
    guard(|| -> Status {
        if !tree.is_null() {
            let _changing = tree_mut::<qt_tree>(tree)?;
            panic!("qt_test_panic: a deliberate panic while changing a tree (testing only)");
        }
        panic!("qt_test_panic: a deliberate panic (testing only)");
    })
}

/// **Testing only**: [`qt_test_panic`] with the panic on a worker thread of
/// the pool the batch calls run on (rayon's), which hands it back to the
/// calling thread as it would a batch call's: `QT_PANIC` all the same, and a
/// tree given is left poisoned. Returns `QT_OK`, without panicking, if the
/// work ran on the calling thread instead (so a test can tell).
#[no_mangle]
pub unsafe extern "C" fn qt_test_panic_on_worker(tree: *mut qt_tree) -> qt_status {
    guard(|| -> Status {
        // Held across the panic, as a batch call holds it: it poisons the tree.
        let _changing = if tree.is_null() {
            None
        } else {
            Some(tree_mut::<qt_tree>(tree)?)
        };
        flatquad_core::panic_on_a_worker_for_tests();
        Ok(())
    })
}
