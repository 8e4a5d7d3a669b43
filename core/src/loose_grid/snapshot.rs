//! The loose grid's snapshot: parameters, loose cells, tight heads, links, big
//! list and slots, word for word.

use crate::index::snapshot::{
    invalid, read_links, read_slots, write_links, write_slots, Reader, Writer,
};
use crate::index::Kind;
use crate::loose_grid::{LooseCell, LooseGrid, Slot};
use crate::Error;

impl LooseGrid {
    pub(crate) fn write_snapshot(&self) -> Vec<u8> {
        let words = 16
            + 5 * self.cells.len()
            + self.tight.len()
            + 2 * self.links.links.len()
            + self.big.slots.len()
            + 7 * self.slots.slots.len();
        let mut w = Writer::new(Kind::LooseGrid as u32, words);
        w.rect(&self.world);
        for count in [
            self.columns(),
            self.rows(),
            self.tight_columns(),
            self.tight_rows(),
        ] {
            w.u32(count);
        }
        w.u32(self.cells.len() as u32);
        for cell in &self.cells {
            w.rect(&cell.rect);
            w.u32(cell.head);
        }
        w.u32(self.tight.len() as u32);
        for &head in &self.tight {
            w.u32(head);
        }
        write_links(&mut w, &self.links);
        w.u32(self.big.slots.len() as u32);
        for &slot in &self.big.slots {
            w.u32(slot);
        }
        write_slots(&mut w, &self.slots, |slot, w| w.u32(slot.next));
        w.out
    }

    /// Every invariant is checked ([`check_invariants`](LooseGrid::check_invariants)),
    /// so damaged or hostile bytes give an error, never a broken grid.
    pub(crate) fn read_snapshot(bytes: &[u8]) -> Result<LooseGrid, Error> {
        let mut r = Reader::expect(bytes, Kind::LooseGrid as u32)?;
        let world = r.rect()?;
        let (columns, rows) = (r.u32()?, r.u32()?);
        let (tight_columns, tight_rows) = (r.u32()?, r.u32()?);
        // The cells are in the bytes: checked before `new` reserves them, so a
        // forged size cannot make us allocate what the input does not back.
        let count = r.len(20)?;
        if count as u64 != columns as u64 * rows as u64 {
            return Err(invalid("loose cells do not match columns × rows"));
        }
        let mut grid = LooseGrid::new(world, columns, rows, tight_columns, tight_rows)
            .map_err(|e| invalid(&format!("bad parameters: {e}")))?;
        for cell in &mut grid.cells {
            *cell = LooseCell {
                rect: r.rect()?,
                head: r.u32()?,
            };
        }
        if r.len(4)? != grid.tight.len() {
            return Err(invalid("tight cells do not match columns × rows"));
        }
        for head in &mut grid.tight {
            *head = r.u32()?;
        }
        grid.links = read_links(&mut r)?;
        let count = r.len(4)?;
        grid.big.slots.reserve_exact(count);
        for _ in 0..count {
            grid.big.slots.push(r.u32()?);
        }
        grid.slots = read_slots(&mut r, 1, |mut slot: Slot, r| {
            slot.next = r.u32()?;
            Ok(slot)
        })?;
        r.finish()?;
        grid.check_invariants()
            .map_err(|reason| invalid(&format!("inconsistent snapshot: {reason}")))?;
        Ok(grid)
    }
}
