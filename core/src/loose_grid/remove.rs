//! Removing elements: unlinking from their loose cell (whose box shrinks at the
//! next cleanup) or from the big list, one by one or in a sweep.

use crate::loose_grid::LooseGrid;
use crate::slots::{MARK, NONE};
use crate::Handle;

impl LooseGrid {
    pub(crate) fn remove_slot(&mut self, slot: u32) {
        let rect = self.slots.slots[slot as usize].rect;
        if self.is_big(&rect) {
            self.big.remove(slot);
        } else {
            self.unlink(self.home(&rect), slot);
        }
        self.slots.free(slot);
    }

    /// Removes marked, live, distinct elements: a big batch in one sweep over
    /// every cell's list instead of searching a list once per element
    /// (quadratic for many elements stacked in one cell).
    pub(crate) fn remove_batch(&mut self, handles: &[Handle]) {
        if handles.len() >= 64 && handles.len() * 8 >= self.slots.live {
            self.unlink_marked();
            for &handle in handles {
                self.slots.free(handle.slot());
            }
        } else {
            for &handle in handles {
                self.remove_slot(handle.slot());
            }
        }
    }

    /// Unlinks every element whose slot is marked from its cell or the big list.
    fn unlink_marked(&mut self) {
        let (slots, stamps) = (&mut self.slots.slots, &self.slots.stamps);
        for cell in &mut self.cells {
            let mut previous = NONE;
            let mut at = cell.head;
            while at != NONE {
                let next = slots[at as usize].next;
                if stamps[at as usize] & MARK != 0 {
                    if previous == NONE {
                        cell.head = next;
                    } else {
                        slots[previous as usize].next = next;
                    }
                } else {
                    previous = at;
                }
                at = next;
            }
        }
        self.big
            .slots
            .retain(|&slot| stamps[slot as usize] & MARK == 0);
    }

    /// Takes a slot out of a loose cell's list.
    pub(crate) fn unlink(&mut self, cell: u32, slot: u32) {
        let slots = &mut self.slots.slots;
        let next = slots[slot as usize].next;
        let head = &mut self.cells[cell as usize].head;
        if *head == slot {
            *head = next;
            return;
        }
        let mut at = *head;
        while at != NONE {
            let after = slots[at as usize].next;
            if after == slot {
                slots[at as usize].next = next;
                return;
            }
            at = after;
        }
        debug_assert!(false, "slot {slot} missing from loose cell {cell}");
    }
}
