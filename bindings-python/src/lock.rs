//! The lock around a structure: many readers or one writer, taken so that
//! Python threads never deadlock on it and a structure's own callback cannot
//! mutate it.
//!
//! Rules that keep it deadlock-free:
//! - whoever might *wait* for the lock waits with the GIL released, so the
//!   thread holding the lock can always get the GIL back to finish;
//! - Python code runs under a held lock only in `traverse`'s callbacks, under a
//!   *read* lock. A thread that already reads a structure reads it again without
//!   queueing (`read_recursive`), and its attempts to write it fail at once with
//!   a `RuntimeError` instead of waiting for itself.
//!
//! A panic inside flatquad (a bug, never bad input) while a call was changing
//! the structure leaves it poisoned: it may be half-changed, so every later
//! call on it raises a `RuntimeError` (`kind` `"Poisoned"`) instead of
//! answering from it, as the C and Node bindings refuse a poisoned index. A
//! panic in a read-only call changes nothing and poisons nothing.

use std::cell::RefCell;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};

use flatquad::{AnyIndex, Octree};
use parking_lot::{RwLock, RwLockReadGuard, RwLockWriteGuard};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

thread_local! {
    /// The structures (by address) this thread holds a read lock on, innermost last.
    static READING: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// What a lock can hold: a core structure with a name for messages (the
/// 2D classes hold an `AnyIndex`, `Octree` an `Octree`).
pub(crate) trait Lockable: Send + Sync + 'static {
    /// The structure's class name.
    fn class_name(&self) -> &'static str;
}

impl Lockable for AnyIndex {
    fn class_name(&self) -> &'static str {
        self.kind().name()
    }
}

impl Lockable for Octree {
    fn class_name(&self) -> &'static str {
        "Octree"
    }
}

/// The error of every call on a poisoned `what` (a structure's class, or
/// `PairTracker`): a `RuntimeError` whose `kind` is `"Poisoned"`.
pub(crate) fn poisoned(what: &str) -> PyResult<PyErr> {
    let err = PyRuntimeError::new_err(format!(
        "this {what} can no longer be used: a panic inside flatquad (a bug; please \
         report it) stopped an earlier call while it was changing the {what}, which \
         may be half-changed. Build a new one"
    ));
    Python::attach(|py| err.value(py).setattr("kind", "Poisoned"))?;
    Ok(err)
}

/// A structure behind a reader-writer lock.
pub(crate) struct IndexLock<T = AnyIndex> {
    index: RwLock<T>,
    /// Set when a panic unwound through a write lock: the structure may be
    /// half-changed, and is never used again.
    poisoned: AtomicBool,
}

/// A write lock that poisons the structure if a panic unwinds through it.
pub(crate) struct Writing<'a, T = AnyIndex> {
    guard: RwLockWriteGuard<'a, T>,
    poisoned: &'a AtomicBool,
}

impl<T> Deref for Writing<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T> DerefMut for Writing<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.guard
    }
}

impl<T> Drop for Writing<'_, T> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.poisoned.store(true, Ordering::Relaxed);
        }
    }
}

/// A read lock on a structure, registered as held by this thread until dropped (so it
/// must be dropped on the thread that took it: it is not `Send`).
pub(crate) struct Reading<'a, T = AnyIndex> {
    guard: RwLockReadGuard<'a, T>,
    key: usize,
    _this_thread: PhantomData<*const ()>,
}

impl<T> Deref for Reading<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T> Drop for Reading<'_, T> {
    fn drop(&mut self) {
        READING.with(|held| {
            let mut held = held.borrow_mut();
            if let Some(at) = held.iter().rposition(|&k| k == self.key) {
                held.remove(at);
            }
        });
    }
}

impl<T: Lockable> IndexLock<T> {
    pub(crate) fn new(index: T) -> Self {
        IndexLock {
            index: RwLock::new(index),
            poisoned: AtomicBool::new(false),
        }
    }

    /// Refuses every call on a poisoned structure. Asked with the lock held
    /// (`index` is the locked structure), so that a call that waited for the
    /// writer that panicked sees the mark: the writer's guard sets it before
    /// it lets the lock go.
    fn check_usable(&self, index: &T) -> PyResult<()> {
        if !self.poisoned.load(Ordering::Relaxed) {
            return Ok(());
        }
        Err(poisoned(index.class_name())?)
    }

    fn writing<'a>(&'a self, guard: RwLockWriteGuard<'a, T>) -> Writing<'a, T> {
        Writing {
            guard,
            poisoned: &self.poisoned,
        }
    }

    fn key(&self) -> usize {
        self as *const IndexLock<T> as usize
    }

    /// Whether this thread holds a read lock on the structure (it is inside a callback
    /// of its own `traverse`).
    fn read_by_this_thread(&self) -> bool {
        let key = self.key();
        READING.with(|held| held.borrow().contains(&key))
    }

    fn register<'a>(&'a self, guard: RwLockReadGuard<'a, T>) -> Reading<'a, T> {
        let key = self.key();
        READING.with(|held| held.borrow_mut().push(key));
        Reading {
            guard,
            key,
            _this_thread: PhantomData,
        }
    }

    /// A read lock, taken without releasing the GIL when no writer is at work
    /// (the common case: a short query pays no GIL round trip).
    pub(crate) fn read(&self, py: Python<'_>) -> PyResult<Reading<'_, T>> {
        let guard = if self.read_by_this_thread() {
            // Cannot block: this thread holds a read lock already.
            self.index.read_recursive()
        } else if let Some(guard) = self.index.try_read() {
            guard
        } else {
            py.detach(|| self.index.read())
        };
        self.check_usable(&guard)?;
        Ok(self.register(guard))
    }

    /// A read lock for a call that runs with the GIL released (the caller is
    /// inside `py.detach`): blocks as long as a writer is at work.
    pub(crate) fn read_detached(&self) -> PyResult<Reading<'_, T>> {
        let guard = if self.read_by_this_thread() {
            self.index.read_recursive()
        } else {
            self.index.read()
        };
        self.check_usable(&guard)?;
        Ok(self.register(guard))
    }

    /// Refuses to write from inside one of the structure's own callbacks.
    fn check_writable(&self) -> PyResult<()> {
        if self.read_by_this_thread() {
            // Cannot block: this thread holds a read lock already.
            let name = self.index.read_recursive().class_name();
            Err(PyRuntimeError::new_err(format!(
                "cannot modify a {name} from inside one of its own traverse() callbacks; \
                 collect the changes and apply them after traverse() returns",
            )))
        } else {
            Ok(())
        }
    }

    /// A write lock for a short call made with the GIL held: taken at once when
    /// the structure is free, else waited for with the GIL released.
    pub(crate) fn write(&self, py: Python<'_>) -> PyResult<Writing<'_, T>> {
        self.check_writable()?;
        let guard = match self.index.try_write() {
            Some(guard) => guard,
            None => py.detach(|| self.index.write()),
        };
        self.check_usable(&guard)?;
        Ok(self.writing(guard))
    }

    /// Runs `op` on the structure under a write lock with the GIL released, for the
    /// long calls (batches, cleanup, clear).
    pub(crate) fn write_detached<R, F>(&self, py: Python<'_>, op: F) -> PyResult<R>
    where
        F: FnOnce(&mut T) -> R + Send,
        R: Send,
    {
        self.check_writable()?;
        py.detach(|| {
            let guard = self.index.write();
            self.check_usable(&guard)?;
            Ok(op(&mut self.writing(guard)))
        })
    }

    /// Runs `op` on the structure under a read lock with the GIL released, for the
    /// long read-only calls (batch queries, pairs, snapshots).
    pub(crate) fn read_with_gil_released<R, F>(&self, py: Python<'_>, op: F) -> PyResult<R>
    where
        F: FnOnce(&T) -> R + Send,
        R: Send,
    {
        py.detach(|| {
            let index = self.read_detached()?;
            Ok(op(&index))
        })
    }

    /// [`write_detached`](Self::write_detached) for a call that may take the
    /// batch calls' threads: on Python's main thread, joins their pool first
    /// ([`crate::join_pool_from_main_thread`]).
    pub(crate) fn write_on_threads<R, F>(&self, py: Python<'_>, op: F) -> PyResult<R>
    where
        F: FnOnce(&mut T) -> R + Send,
        R: Send,
    {
        crate::join_pool_from_main_thread();
        self.write_detached(py, op)
    }

    /// [`read_with_gil_released`](Self::read_with_gil_released) for a call
    /// that may take the batch calls' threads, as
    /// [`write_on_threads`](Self::write_on_threads).
    pub(crate) fn read_on_threads<R, F>(&self, py: Python<'_>, op: F) -> PyResult<R>
    where
        F: FnOnce(&T) -> R + Send,
        R: Send,
    {
        crate::join_pool_from_main_thread();
        self.read_with_gil_released(py, op)
    }
}
