//! Walking the loose cells: `traverse` for drawing and debugging, and `stats`.

use core::ops::ControlFlow;

use crate::index::{NodeInfo, SpatialIndex, Stats};
use crate::loose_grid::{LooseCell, LooseGrid, Slot};
use crate::slots::NONE;
use crate::Rect;

impl LooseGrid {
    /// Each loose cell, row by row, as a leaf of depth 0: its box when it holds
    /// elements, else its extent; `branch` is never called.
    pub(crate) fn walk_cells<B, L>(&self, _branch: B, mut leaf: L) -> ControlFlow<()>
    where
        B: FnMut(&NodeInfo) -> ControlFlow<()>,
        L: FnMut(&NodeInfo) -> ControlFlow<()>,
    {
        for (index, cell) in self.cells.iter().enumerate() {
            let index = index as u32;
            let rect = if cell.head == NONE {
                let (x, y) = (index % self.columns, index / self.columns);
                let (x1, x2) = self.loose_x.extent(x);
                let (y1, y2) = self.loose_y.extent(y);
                Rect::new(x1, y1, x2, y2)
            } else {
                cell.rect
            };
            leaf(&NodeInfo {
                index,
                depth: 0,
                rect,
                is_leaf: true,
                count: self.count_in(cell.head),
            })?;
        }
        ControlFlow::Continue(())
    }

    /// Elements in the list starting at `head`.
    fn count_in(&self, head: u32) -> u32 {
        let mut count = 0;
        let mut at = head;
        while at != NONE {
            count += 1;
            at = self.slots.slots[at as usize].next;
        }
        count
    }

    /// Counts cells, elements in cells and tight listings, and the bytes held.
    pub(crate) fn count_cells(&self) -> Stats {
        let (mut in_cells, mut empty) = (0, 0);
        for cell in &self.cells {
            let count = self.count_in(cell.head) as usize;
            in_cells += count;
            empty += (count == 0) as usize;
        }
        let free_links = {
            let mut free = 0;
            let mut link = self.links.free;
            while link != NONE {
                free += 1;
                link = self.links.links[link as usize].next;
            }
            free
        };
        let axes = [&self.loose_x, &self.loose_y, &self.tight_x, &self.tight_y];
        Stats {
            elements: self.len(),
            nodes: self.cells.len(),
            leaves: self.cells.len(),
            empty_leaves: empty,
            max_depth_reached: 0,
            element_links: in_cells + self.links.links.len() - free_links,
            bytes: core::mem::size_of::<LooseGrid>()
                + self.cells.capacity() * core::mem::size_of::<LooseCell>()
                + self.tight.capacity() * core::mem::size_of::<u32>()
                + self.links.bytes()
                + self.slots.slots.capacity() * core::mem::size_of::<Slot>()
                + self.big.bytes()
                + axes.iter().map(|axis| axis.bytes()).sum::<usize>(),
        }
    }
}
