//! The grid's snapshot: parameters, cells, links, big list and slots (each
//! with the cells it records, two `u16` to a word), word for word.

use crate::grid::{check_dimensions, Grid};
use crate::index::snapshot::{
    invalid, read_links, read_slots, write_links, write_slots, Reader, Writer,
};
use crate::index::Kind;
use crate::Error;

impl Grid {
    pub(crate) fn write_snapshot(&self) -> Vec<u8> {
        if self.lists_stale {
            return self.listed().write_snapshot();
        }
        let words = 12
            + self.cells.len()
            + 2 * self.links.links.len()
            + self.big.len()
            + 8 * self.slots.slots.len();
        let mut w = Writer::new(Kind::Grid as u32, words);
        w.rect(&self.world);
        w.u32(self.columns());
        w.u32(self.rows());
        w.u32(self.cells.len() as u32);
        for &head in &self.cells {
            w.u32(head);
        }
        write_links(&mut w, &self.links);
        w.u32(self.big.len() as u32);
        for &slot in &self.big.slots {
            w.u32(slot);
        }
        write_slots(&mut w, &self.slots, |slot, w| {
            let [x1, y1, x2, y2] = slot.cells.map(u32::from);
            w.u32(x1 | y1 << 16);
            w.u32(x2 | y2 << 16);
        });
        w.out
    }

    /// Every invariant is checked ([`check_invariants`](Grid::check_invariants)),
    /// so damaged or hostile bytes give an error, never a broken grid.
    pub(crate) fn read_snapshot(bytes: &[u8]) -> Result<Grid, Error> {
        let mut r = Reader::expect(bytes, Kind::Grid as u32)?;
        let world = r.rect()?;
        let (columns, rows) = (r.u32()?, r.u32()?);
        let bad = |e: Error| invalid(&format!("bad parameters: {e}"));
        check_dimensions(columns, rows).map_err(bad)?;
        // The cells are checked against the bytes before the grid allocates them.
        let count = r.len(4)?;
        if count != columns as usize * rows as usize {
            return Err(invalid(
                "the cell count does not match the columns and rows",
            ));
        }
        let mut grid = Grid::new(world, columns, rows).map_err(bad)?;
        for head in grid.cells.iter_mut() {
            *head = r.u32()?;
        }
        grid.links = read_links(&mut r)?;
        let count = r.len(4)?;
        grid.big.slots.reserve_exact(count);
        for _ in 0..count {
            grid.big.add(r.u32()?);
        }
        grid.slots = read_slots(&mut r, 2, |mut slot: super::Slot, r| {
            let (x, y) = (r.u32()?, r.u32()?);
            slot.cells = [x as u16, (x >> 16) as u16, y as u16, (y >> 16) as u16];
            Ok(slot)
        })?;
        r.finish()?;
        grid.check_invariants()
            .map_err(|reason| invalid(&format!("inconsistent snapshot: {reason}")))?;
        // Read whole, so laid out as after `cleanup`.
        grid.pack_cells();
        Ok(grid)
    }
}
