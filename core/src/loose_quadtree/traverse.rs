//! Walking the nodes: `traverse` for drawing and debugging, and `stats`.

use core::ops::ControlFlow;

use crate::index::SpatialIndex;
use crate::index::{count_walk, NodeInfo, Stats};
use crate::loose_quadtree::nodes::Node;
use crate::loose_quadtree::LooseQuadtree;
use crate::rect::is_empty_box;
use crate::tree_lines::{Cell, Stack};

impl LooseQuadtree {
    /// Visits every node depth-first, parents before children and children in
    /// the order top-left, top-right, bottom-left, bottom-right, calling
    /// `branch` or `leaf` with the node's box (its cell, bounded by the world,
    /// when nothing lies below it); either returns [`ControlFlow::Break`] to
    /// stop.
    ///
    /// ```
    /// use core::ops::ControlFlow;
    /// use flatquad::{LooseQuadtree, Rect, SpatialIndex};
    /// let mut tree = LooseQuadtree::new(Rect::new(0.0, 0.0, 8.0, 8.0), 1, 3)?;
    /// tree.insert(Rect::new(1.0, 1.0, 5.0, 2.0), 0)?; // centre (3, 1.5)
    /// tree.insert(Rect::point(7.0, 7.0), 1)?;
    /// let mut leaves = Vec::new();
    /// tree.traverse(|_| ControlFlow::Continue(()), |leaf| {
    ///     leaves.push((leaf.rect, leaf.count));
    ///     ControlFlow::Continue(())
    /// });
    /// assert_eq!(leaves.len(), 4);
    /// // The top-left leaf's box reaches past its cell.
    /// assert_eq!(leaves[0], (Rect::new(1.0, 1.0, 5.0, 2.0), 1));
    /// assert_eq!(leaves[1], (Rect::new(4.0, 0.0, 8.0, 4.0), 0)); // empty: its cell
    /// # Ok::<(), flatquad::Error>(())
    /// ```
    pub(crate) fn walk_nodes<B, L>(&self, mut branch: B, mut leaf: L) -> ControlFlow<()>
    where
        B: FnMut(&NodeInfo) -> ControlFlow<()>,
        L: FnMut(&NodeInfo) -> ControlFlow<()>,
    {
        let mut stack = Stack::new();
        stack.push(Cell::ROOT);
        while let Some(cell) = stack.pop() {
            let node = self.nodes.nodes[cell.node as usize];
            let info = NodeInfo {
                index: cell.node,
                depth: cell.depth,
                rect: if is_empty_box(&node.rect) {
                    self.lines.rect(&cell)
                } else {
                    node.rect
                },
                is_leaf: !node.is_branch(),
                count: node.count.max(0) as u32,
            };
            if node.is_branch() {
                branch(&info)?;
                for k in (0..4).rev() {
                    stack.push(cell.child(node.first, k));
                }
            } else {
                leaf(&info)?;
            }
        }
        ControlFlow::Continue(())
    }

    /// Counts nodes and leaves, the deepest level reached and the bytes held.
    pub(crate) fn count_nodes(&self) -> Stats {
        let stats = Stats {
            elements: self.len(),
            bytes: core::mem::size_of::<LooseQuadtree>()
                + self.nodes.nodes.capacity() * core::mem::size_of::<Node>()
                + self.families.bytes()
                + self
                    .over_bound
                    .as_ref()
                    .map_or(0, |over| over.stats().bytes)
                + self.slots.bytes()
                + self.lines.bytes(),
            ..Stats::default()
        };
        count_walk(self, stats)
    }
}
