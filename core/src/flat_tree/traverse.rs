//! Walking the nodes: `traverse` for drawing and debugging, and `stats`.

use core::ops::ControlFlow;

use crate::dimension::Dimension;
use crate::flat_tree::nodes::Node;
use crate::flat_tree::FlatTree;
use crate::index::SpatialIndex;
use crate::index::{count_walk, NodeInfo, Stats};
use crate::tree_lines::{Cell, Stack};

impl<D: Dimension> FlatTree<D> {
    /// Visits every node depth-first, parents before children and children in
    /// the order top-left, top-right, bottom-left, bottom-right (in 3D
    /// those four at low z, then at high z), calling
    /// `branch` or `leaf`; either returns [`ControlFlow::Break`] to stop.
    ///
    /// ```
    /// use core::ops::ControlFlow;
    /// use flatquad::{Quadtree, Rect, SpatialIndex};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 8.0, 8.0), 1, 3)?;
    /// tree.insert(Rect::point(1.0, 1.0), 0)?;
    /// tree.insert(Rect::point(7.0, 7.0), 1)?;
    /// let mut leaves = Vec::new();
    /// tree.traverse(|_| ControlFlow::Continue(()), |leaf| {
    ///     leaves.push((leaf.rect, leaf.count));
    ///     ControlFlow::Continue(())
    /// });
    /// assert_eq!(leaves[0], (Rect::new(0.0, 0.0, 4.0, 4.0), 1));
    /// assert_eq!(leaves.len(), 4);
    /// # Ok::<(), flatquad::Error>(())
    /// ```
    pub(crate) fn walk_nodes<B, L>(&self, mut branch: B, mut leaf: L) -> ControlFlow<()>
    where
        B: FnMut(&NodeInfo<D::Bounds>) -> ControlFlow<()>,
        L: FnMut(&NodeInfo<D::Bounds>) -> ControlFlow<()>,
    {
        let mut stack = Stack::<D>::new();
        stack.push(Cell::ROOT);
        while let Some(cell) = stack.pop() {
            let node = self.nodes.nodes[cell.node as usize];
            let info = NodeInfo {
                index: cell.node,
                depth: cell.depth,
                rect: self.lines.rect(&cell),
                is_leaf: !node.is_branch(),
                count: node.count.max(0) as u32,
            };
            if node.is_branch() {
                branch(&info)?;
                for k in (0..D::CHILDREN).rev() {
                    stack.push(cell.child(node.first, k));
                }
            } else {
                leaf(&info)?;
            }
        }
        ControlFlow::Continue(())
    }

    /// Counts nodes, leaves and links, the deepest level reached and the bytes held.
    pub(crate) fn count_nodes(&self) -> Stats {
        let stats = Stats {
            elements: self.len(),
            bytes: core::mem::size_of::<FlatTree<D>>()
                + self.nodes.nodes.capacity() * core::mem::size_of::<Node>()
                + self.links.bytes()
                + self.slots.bytes()
                + self.lines.bytes(),
            ..Stats::default()
        };
        count_walk(self, stats)
    }
}
