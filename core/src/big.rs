//! Elements too large for a grid's cells, kept apart (the grids write-up's
//! advice for its "dragons", `docs/design.md`): linked into a grid, an element
//! as big as the world would cost a link in every cell; here it costs one
//! entry, and is tested on its own.

use core::ops::ControlFlow;

use crate::{Handle, Rect};

/// The slots of the large elements, in no particular order.
#[derive(Clone, Debug, Default)]
pub(crate) struct BigList {
    pub slots: Vec<u32>,
}

impl BigList {
    pub fn add(&mut self, slot: u32) {
        self.slots.push(slot);
    }

    /// Takes `slot` out; a linear search, for big elements are few.
    pub fn remove(&mut self, slot: u32) {
        if let Some(at) = self.slots.iter().position(|&s| s == slot) {
            self.slots.swap_remove(at);
        } else {
            debug_assert!(false, "slot {slot} is not in the big list");
        }
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn clear(&mut self) {
        self.slots.clear();
    }

    pub fn bytes(&self) -> usize {
        self.slots.capacity() * core::mem::size_of::<u32>()
    }

    /// Visits the big elements whose rectangle meets `query`, but `omit`.
    #[inline]
    pub fn query<F>(
        &self,
        query: &Rect,
        omit: u32,
        rect_at: impl Fn(u32) -> Rect,
        handle_at: impl Fn(u32) -> Handle,
        visit: &mut F,
    ) -> ControlFlow<()>
    where
        F: FnMut(Handle) -> ControlFlow<()>,
    {
        for &slot in &self.slots {
            if slot != omit && rect_at(slot).intersects(query) {
                visit(handle_at(slot))?;
            }
        }
        ControlFlow::Continue(())
    }

    /// Visits every intersecting pair of big elements, each once.
    pub fn pairs<F>(
        &self,
        rect_at: impl Fn(u32) -> Rect,
        handle_at: impl Fn(u32) -> Handle,
        visit: &mut F,
    ) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        for (i, &a) in self.slots.iter().enumerate() {
            let rect_a = rect_at(a);
            for &b in &self.slots[i + 1..] {
                if rect_a.intersects(&rect_at(b)) {
                    visit(handle_at(a), handle_at(b))?;
                }
            }
        }
        ControlFlow::Continue(())
    }
}
