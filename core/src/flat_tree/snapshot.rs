//! The quadtree's snapshot: parameters, nodes, links and slots, word for word.

use crate::dimension::Dimension;
use crate::flat_tree::nodes::Node;
use crate::flat_tree::FlatTree;
use crate::index::snapshot::{
    invalid, read_links, read_slots, write_links, write_slots, Reader, Writer,
};
use crate::Error;

impl<D: Dimension> FlatTree<D> {
    pub(crate) fn write_snapshot(&self) -> Vec<u8> {
        let words = 8
            + 2 * self.nodes.nodes.len()
            + 2 * self.links.links.len()
            + (2 * D::AXES + 4) * self.slots.slots.len();
        let mut w = Writer::new(D::TAG, words);
        w.rect(&self.world);
        w.u32(self.max_elements());
        w.u32(self.max_depth());
        w.u32(self.nodes.nodes.len() as u32);
        w.u32(self.nodes.free_block);
        for node in &self.nodes.nodes {
            w.u32(node.first);
            w.u32(node.count as u32);
        }
        write_links(&mut w, &self.links);
        write_slots(&mut w, &self.slots, |slot, w| {
            w.u32(slot.place);
            w.u32(slot.home);
        });
        w.out
    }

    /// Every invariant is checked ([`check_invariants`](FlatTree::check_invariants)),
    /// so damaged or hostile bytes give an error, never a broken tree.
    pub(crate) fn read_snapshot(bytes: &[u8]) -> Result<FlatTree<D>, Error> {
        let mut r = Reader::expect(bytes, D::TAG)?;
        let world = r.rect::<D::Bounds>()?;
        let (max_elements, max_depth) = (r.u32()?, r.u32()?);
        let mut tree = FlatTree::new(world, max_elements, max_depth)
            .map_err(|e| invalid(&format!("bad parameters: {e}")))?;
        let count = r.len(8)?;
        tree.nodes.free_block = r.u32()?;
        tree.nodes.nodes.clear();
        for _ in 0..count {
            let (first, count) = (r.u32()?, r.u32()? as i32);
            tree.nodes.nodes.push(Node { first, count });
        }
        if tree.nodes.nodes.is_empty() {
            return Err(invalid("no root node"));
        }
        tree.links = read_links(&mut r)?;
        tree.slots = read_slots(&mut r, 2, |mut slot: super::Slot<D>, r| {
            slot.place = r.u32()?;
            slot.home = r.u32()?;
            Ok(slot)
        })?;
        r.finish()?;
        tree.check_invariants()
            .map_err(|reason| invalid(&format!("inconsistent snapshot: {reason}")))?;
        Ok(tree)
    }
}
