//! A full structural check of the grid, for tests, debugging a binding, and
//! snapshots read from untrusted bytes: it never panics, whatever the indices.

use crate::grid::Grid;
use crate::slots::{SlotRecord, NONE};

impl Grid {
    /// Checks every invariant of the grid and says which one fails first.
    ///
    /// Each live element records the cells its rectangle meets and is linked
    /// once in exactly those, or, if big, is in the big list once and in no
    /// cell; every link is
    /// in exactly one cell's list or on the free list; no dead slot is linked;
    /// the slot pool is consistent. Costs O(size) time and allocates.
    ///
    /// # Errors
    /// A description of the first broken invariant.
    pub(crate) fn check_invariants(&self) -> Result<(), String> {
        if self.lists_stale {
            // The runs are the truth: they must be fresh, and the lists rebuilt
            // from the slots must hold, as must the runs against them.
            if !self.packed.fresh {
                return Err("the lists are stale and so are the runs".into());
            }
            return self.listed().check_invariants();
        }
        // First the slots: the rectangles of live ones must be valid before
        // their cells are computed.
        self.slots.validate()?;
        let (columns, rows) = (self.columns(), self.rows());
        if self.cells.len() != columns as usize * rows as usize {
            return Err(format!("{} cells for {columns} × {rows}", self.cells.len()));
        }
        let links = &self.links.links;
        let slots = &self.slots.slots;
        let mut link_seen = vec![false; links.len()];
        // Per slot: the links found, and the last cell one was found in (cells
        // are walked in increasing order, so a repeat is a double link).
        let mut linked = vec![0u64; slots.len()];
        let mut last_cell = vec![usize::MAX; slots.len()];
        for cy in 0..rows {
            for cx in 0..columns {
                let cell = self.cell_index(cx, cy);
                let mut link = self.cells[cell];
                while link != NONE {
                    let at = link as usize;
                    if at >= links.len() || link_seen[at] {
                        return Err(format!("cell {cell}: link {at} out of range or shared"));
                    }
                    link_seen[at] = true;
                    let element = links[at].element as usize;
                    if element >= slots.len() || !self.slots.is_live(element as u32) {
                        return Err(format!("cell {cell} links dead slot {element}"));
                    }
                    if last_cell[element] == cell {
                        return Err(format!("cell {cell} links slot {element} twice"));
                    }
                    last_cell[element] = cell;
                    let span = self.span(&slots[element].rect());
                    if self.is_big(&span) || !span.contains(cx, cy) {
                        return Err(format!(
                            "cell {cell} links slot {element} {}, which is big or not in the cell",
                            slots[element].rect()
                        ));
                    }
                    linked[element] += 1;
                    link = links[at].next;
                }
            }
        }

        let mut in_big = vec![false; slots.len()];
        for &slot in &self.big.slots {
            let at = slot as usize;
            if at >= slots.len() || !self.slots.is_live(slot) || in_big[at] {
                return Err(format!(
                    "big list: slot {at} out of range, dead or listed twice"
                ));
            }
            in_big[at] = true;
        }

        for (index, slot) in slots.iter().enumerate() {
            if !self.slots.is_live(index as u32) {
                continue; // dead slots were refused above, in cells and the big list
            }
            let span = self.span(&slot.rect());
            if slot.cells != span.pack() {
                return Err(format!(
                    "slot {index} {} records cells {:?}, meets {span:?}",
                    slot.rect(),
                    slot.cells
                ));
            }
            if self.is_big(&span) {
                if !in_big[index] || linked[index] != 0 {
                    return Err(format!(
                        "big slot {index} {} is not in the big list alone",
                        slot.rect()
                    ));
                }
            } else if in_big[index] || linked[index] != span.cells() {
                return Err(format!(
                    "slot {index} {} is linked in {} cells (big list: {}), should be in {}",
                    slot.rect(),
                    linked[index],
                    in_big[index],
                    span.cells()
                ));
            }
        }

        let mut link = self.links.free;
        while link != NONE {
            let at = link as usize;
            if at >= links.len() || link_seen[at] || links[at].element != NONE {
                return Err(format!(
                    "free link {at} out of range, in use or reached twice"
                ));
            }
            link_seen[at] = true;
            link = links[at].next;
        }
        if let Some(lost) = link_seen.iter().position(|seen| !seen) {
            return Err(format!("link {lost} neither in a cell nor free"));
        }
        self.check_packed()
    }
}
