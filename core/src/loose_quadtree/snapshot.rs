//! The loose quadtree's snapshot: parameters, nodes and slots, word for word.

use crate::index::snapshot::{invalid, read_slots, write_slots, Reader, Writer};
use crate::index::Kind;
use crate::loose_quadtree::nodes::Node;
use crate::loose_quadtree::{LooseQuadtree, Slot};
use crate::Error;

impl LooseQuadtree {
    pub(crate) fn write_snapshot(&self) -> Vec<u8> {
        let words = 9 + 6 * self.nodes.nodes.len() + 8 * self.slots.slots.len();
        let mut w = Writer::new(Kind::LooseQuadtree as u32, words);
        w.rect(&self.world);
        w.u32(self.max_elements());
        w.u32(self.max_depth());
        w.f32(self.max_extent().unwrap_or(0.0));
        w.u32(self.nodes.nodes.len() as u32);
        w.u32(self.nodes.free_block);
        for node in &self.nodes.nodes {
            w.rect(&node.rect);
            w.u32(node.first);
            w.u32(node.count as u32);
        }
        write_slots(&mut w, &self.slots, |slot, w| {
            w.u32(slot.next);
            w.u32(slot.leaf);
        });
        // The tree of elements over the bound, whole (its own header
        // included), after its length in bytes.
        if let Some(over) = &self.over_bound {
            let inner = over.write_snapshot();
            w.u32(inner.len() as u32);
            w.out.extend_from_slice(&inner);
        }
        w.out
    }

    /// Every invariant is checked ([`check_invariants`](LooseQuadtree::check_invariants)),
    /// so damaged or hostile bytes give an error, never a broken tree.
    pub(crate) fn read_snapshot(bytes: &[u8]) -> Result<LooseQuadtree, Error> {
        let mut r = Reader::expect(bytes, Kind::LooseQuadtree as u32)?;
        let world = r.rect()?;
        let (max_elements, max_depth, max_extent) = (r.u32()?, r.u32()?, r.f32()?);
        // No bound is written as +0.0 exactly: -0.0 would read back as the
        // same tree but write back other bytes, so it goes to the
        // constructor, which refuses it.
        let mut tree = if max_extent.to_bits() == 0 {
            LooseQuadtree::new(world, max_elements, max_depth)
        } else {
            LooseQuadtree::with_max_extent(world, max_elements, max_depth, max_extent)
        }
        .map_err(|e| invalid(&format!("bad parameters: {e}")))?;
        let count = r.len(24)?;
        tree.nodes.free_block = r.u32()?;
        tree.nodes.nodes.clear();
        tree.nodes.nodes.reserve_exact(count);
        for _ in 0..count {
            let rect = r.rect()?;
            let (first, count) = (r.u32()?, r.u32()? as i32);
            tree.nodes.nodes.push(Node { rect, first, count });
        }
        if tree.nodes.nodes.is_empty() {
            return Err(invalid("no root node"));
        }
        tree.slots = read_slots(&mut r, 2, |mut slot: Slot, r| {
            slot.next = r.u32()?;
            slot.leaf = r.u32()?;
            Ok(slot)
        })?;
        if let Some(over) = &mut tree.over_bound {
            let length = r.len(1)?;
            let (inner, rest) = r.bytes.split_at(length);
            r.bytes = rest;
            let inner = LooseQuadtree::read_snapshot(inner)?;
            if inner.max_extent().is_some() {
                return Err(invalid("the tree over the bound has a bound itself"));
            }
            **over = inner;
        }
        r.finish()?;
        tree.check_invariants()
            .map_err(|reason| invalid(&format!("inconsistent snapshot: {reason}")))?;
        tree.rebuild_families();
        Ok(tree)
    }
}
