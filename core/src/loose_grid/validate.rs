//! A full structural check of the grid, for tests, for debugging a binding, and
//! for snapshots read back: it bounds-checks every index, so it never panics,
//! whatever the state.

use crate::loose_grid::{holds, is_empty_box, LooseGrid};
use crate::slots::NONE;

impl LooseGrid {
    /// Checks every invariant of the grid and says which one fails first.
    ///
    /// Each live small element is in exactly the loose cell owning its centre,
    /// once, each cell's list in slot order; each cell's box holds its elements' rectangles (not necessarily
    /// tightly between cleanups) and is finite or [`EMPTY`](super::EMPTY); each
    /// loose cell with a box is listed in exactly the tight cells the box
    /// covers, once each, and a cell without one nowhere; the big elements are
    /// exactly those in the big list, once each; every link and slot is in use
    /// or free, exactly once.
    pub(crate) fn check_invariants(&self) -> Result<(), String> {
        let columns = self.columns as usize;
        let tight_columns = self.tight_columns as usize;
        if self.cells.len() != columns * self.rows() as usize {
            return Err(format!(
                "{} loose cells, not columns × rows",
                self.cells.len()
            ));
        }
        if self.tight.len() != tight_columns * self.tight_rows() as usize {
            return Err(format!(
                "{} tight cells, not columns × rows",
                self.tight.len()
            ));
        }
        self.slots.validate()?;
        let slots = &self.slots.slots;
        let mut placed = vec![false; slots.len()];
        for (index, cell) in self.cells.iter().enumerate() {
            let b = &cell.rect;
            if !is_empty_box(b) && !b.is_valid() {
                return Err(format!("loose cell {index} has the bad box {b}"));
            }
            let (mut at, mut previous) = (cell.head, NONE);
            while at != NONE {
                let slot = at as usize;
                if at < previous && previous != NONE {
                    return Err(format!(
                        "loose cell {index}: slot {at} after slot {previous}"
                    ));
                }
                previous = at;
                if slot >= slots.len() || placed[slot] || !self.slots.is_live(at) {
                    return Err(format!(
                        "loose cell {index}: slot {slot} out of range, dead or reached twice"
                    ));
                }
                placed[slot] = true;
                let rect = slots[slot].rect;
                if self.is_big(&rect) {
                    return Err(format!("big slot {slot} {rect} in loose cell {index}"));
                }
                let home = self.home(&rect);
                if home as usize != index {
                    return Err(format!(
                        "slot {slot} {rect} in loose cell {index}, should be in {home}"
                    ));
                }
                if !holds(b, &rect) {
                    return Err(format!(
                        "loose cell {index}: box {b} does not hold slot {slot} {rect}"
                    ));
                }
                at = slots[slot].next;
            }
        }
        for &slot in &self.big.slots {
            let at = slot as usize;
            if at >= slots.len() || placed[at] || !self.slots.is_live(slot) {
                return Err(format!(
                    "big list: slot {at} out of range, dead or reached twice"
                ));
            }
            placed[at] = true;
            if !self.is_big(&slots[at].rect) {
                return Err(format!(
                    "small slot {at} {} in the big list",
                    slots[at].rect
                ));
            }
        }
        if let Some(lost) =
            (0..slots.len()).find(|&at| self.slots.is_live(at as u32) && !placed[at])
        {
            return Err(format!("live slot {lost} is in no cell and not big"));
        }

        let links = &self.links.links;
        let mut link_seen = vec![false; links.len()];
        let mut listings = vec![0u64; self.cells.len()];
        let mut last_listed = vec![usize::MAX; self.cells.len()];
        for (tight, &head) in self.tight.iter().enumerate() {
            let (tx, ty) = (
                (tight % tight_columns) as u32,
                (tight / tight_columns) as u32,
            );
            let mut link = head;
            while link != NONE {
                let at = link as usize;
                if at >= links.len() || link_seen[at] {
                    return Err(format!(
                        "tight cell {tight}: link {at} out of range or shared"
                    ));
                }
                link_seen[at] = true;
                let cell = links[at].element as usize;
                if cell >= self.cells.len() {
                    return Err(format!(
                        "tight cell {tight} lists loose cell {cell}, out of range"
                    ));
                }
                if last_listed[cell] == tight {
                    return Err(format!("tight cell {tight} lists loose cell {cell} twice"));
                }
                last_listed[cell] = tight;
                let b = &self.cells[cell].rect;
                if is_empty_box(b) || !self.span(b).contains(tx, ty) {
                    return Err(format!(
                        "tight cell {tight} lists loose cell {cell}, whose box {b} does not cover it"
                    ));
                }
                listings[cell] += 1;
                link = links[at].next;
            }
        }
        for (cell, loose) in self.cells.iter().enumerate() {
            let b = &loose.rect;
            let expected = if is_empty_box(b) {
                0
            } else {
                self.span(b).area()
            };
            if listings[cell] != expected {
                return Err(format!(
                    "loose cell {cell} with box {b} listed in {} tight cells, should be in {expected}",
                    listings[cell]
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
            return Err(format!("link {lost} neither listed nor free"));
        }
        Ok(())
    }
}
