//! Every overlapping pair: leaf by leaf, each pair in the one leaf that owns
//! the low (top-left) corner of its intersection.

use core::ops::ControlFlow;

use crate::dimension::Dimension;
use crate::flat_tree::FlatTree;
use crate::links::list_pairs;
use crate::tree_lines::{Cell, Stack};
use crate::Handle;

impl<D: Dimension> FlatTree<D> {
    /// Walks the leaves and tests the elements of each leaf against each other
    /// (no query per element, no hash set): a pair is reported only in the
    /// leaf that owns the low (top-left) corner of the two boxes' intersection.
    pub(crate) fn all_pairs<F>(&self, visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        self.pairs_below(Cell::ROOT, visit)
    }

    /// The pairs reported in the leaves below `top` (each pair has one leaf).
    pub(crate) fn pairs_below<F>(&self, top: Cell<D>, mut visit: F) -> ControlFlow<()>
    where
        F: FnMut(Handle, Handle) -> ControlFlow<()>,
    {
        let mut stack = Stack::<D>::new();
        stack.push(top);
        while let Some(cell) = stack.pop() {
            let node = self.nodes.nodes[cell.node as usize];
            if node.is_branch() {
                self.push_children(&mut stack, &cell, node.first, (1 << D::CHILDREN) - 1);
            } else if node.count >= 2 {
                let region = self.lines.region(&cell);
                list_pairs(
                    &self.links.links,
                    &self.slots,
                    node.first,
                    |a, b| region.owns_intersection(a, b),
                    &mut visit,
                )?;
            }
        }
        ControlFlow::Continue(())
    }
}
