//! Walking the cells: `traverse` for drawing and debugging, and `stats`.

use core::ops::ControlFlow;

use crate::grid::Grid;
use crate::index::{NodeInfo, SpatialIndex, Stats};
use crate::Rect;

impl Grid {
    /// Calls `leaf` with every cell, row by row (see [`SpatialIndex::traverse`]).
    pub(crate) fn walk_cells<L>(&self, mut leaf: L) -> ControlFlow<()>
    where
        L: FnMut(&NodeInfo) -> ControlFlow<()>,
    {
        let lengths = self.list_lengths();
        for cy in 0..self.rows() {
            let (y1, y2) = self.axis_y.extent(cy);
            for cx in 0..self.columns() {
                let (x1, x2) = self.axis_x.extent(cx);
                let index = self.cell_index(cx, cy);
                leaf(&NodeInfo {
                    index: index as u32,
                    depth: 0,
                    rect: Rect::new(x1, y1, x2, y2),
                    is_leaf: true,
                    count: lengths[index],
                })?;
            }
        }
        ControlFlow::Continue(())
    }

    /// Counts cells and links, and the bytes held.
    pub(crate) fn count_cells(&self) -> Stats {
        let mut stats = Stats {
            elements: self.len(),
            nodes: self.cells.len(),
            leaves: self.cells.len(),
            bytes: core::mem::size_of::<Grid>()
                + self.cells.capacity() * core::mem::size_of::<u32>()
                + self.links.bytes()
                + self.slots.bytes()
                + self.packed.bytes()
                + self.big.bytes()
                + self.axis_x.bytes()
                + self.axis_y.bytes(),
            ..Stats::default()
        };
        for length in self.list_lengths() {
            stats.empty_leaves += (length == 0) as usize;
            stats.element_links += length as usize;
        }
        stats
    }
}
