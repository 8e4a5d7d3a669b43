//! An exact snapshot of a tree as bytes, handles included, for pickling and
//! sending trees between processes.

use crate::pool::{Link, Node, Slot};
use crate::{Error, Quadtree, Rect};

const MAGIC: &[u8; 4] = b"FLQD";
const FORMAT_VERSION: u32 = 1;

impl Quadtree {
    /// The tree's whole state as bytes (little-endian, versioned): loading them
    /// with [`from_bytes`](Quadtree::from_bytes) gives a tree equal in every
    /// respect, the same handles valid and the same ones stale.
    ///
    /// ```
    /// use flatquad::{Quadtree, Rect};
    /// let mut tree = Quadtree::new(Rect::new(0.0, 0.0, 10.0, 10.0), 8, 4)?;
    /// let h = tree.insert(Rect::new(1.0, 1.0, 2.0, 2.0), 7)?;
    /// let copy = Quadtree::from_bytes(&tree.to_bytes())?;
    /// assert_eq!(copy.id(h)?, 7);
    /// # Ok::<(), flatquad::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(
            48 + 8 * self.nodes.nodes.len()
                + 8 * self.links.links.len()
                + 32 * self.slots.slots.len(),
        );
        let mut put = |v: u32| out.extend_from_slice(&v.to_le_bytes());
        put(u32::from_le_bytes(*MAGIC));
        put(FORMAT_VERSION);
        let world = self.world();
        for v in [world.x1, world.y1, world.x2, world.y2] {
            put(v.to_bits());
        }
        put(self.max_elements());
        put(self.max_depth());
        put(self.nodes.nodes.len() as u32);
        put(self.nodes.free_block);
        for node in &self.nodes.nodes {
            put(node.first);
            put(node.count as u32);
        }
        put(self.links.links.len() as u32);
        put(self.links.free);
        for link in &self.links.links {
            put(link.next);
            put(link.element);
        }
        put(self.slots.slots.len() as u32);
        put(self.slots.free);
        for slot in &self.slots.slots {
            for v in [slot.rect.x1, slot.rect.y1, slot.rect.x2, slot.rect.y2] {
                put(v.to_bits());
            }
            put(slot.id);
            put(slot.stamp);
            put(slot.place);
            put(slot.home);
        }
        out
    }

    /// A tree from [`to_bytes`](Quadtree::to_bytes)'s output. Every invariant is
    /// checked ([`validate`](Quadtree::validate)), so damaged or hostile bytes give
    /// an error, never a broken tree.
    ///
    /// # Errors
    /// [`Error::InvalidBytes`] saying what is wrong.
    pub fn from_bytes(bytes: &[u8]) -> Result<Quadtree, Error> {
        let mut reader = Reader { bytes };
        if reader.u32()? != u32::from_le_bytes(*MAGIC) {
            return Err(invalid("not a flatquad snapshot"));
        }
        if reader.u32()? != FORMAT_VERSION {
            return Err(invalid("unknown snapshot version"));
        }
        let world = Rect::new(reader.f32()?, reader.f32()?, reader.f32()?, reader.f32()?);
        let (max_elements, max_depth) = (reader.u32()?, reader.u32()?);
        let mut tree = Quadtree::new(world, max_elements, max_depth)
            .map_err(|e| invalid(&format!("bad parameters: {e}")))?;

        let count = reader.len(8)?;
        tree.nodes.free_block = reader.u32()?;
        tree.nodes.nodes.clear();
        for _ in 0..count {
            let (first, count) = (reader.u32()?, reader.u32()? as i32);
            tree.nodes.nodes.push(Node { first, count });
        }
        if tree.nodes.nodes.is_empty() {
            return Err(invalid("no root node"));
        }
        let count = reader.len(8)?;
        tree.links.free = reader.u32()?;
        for _ in 0..count {
            let (next, element) = (reader.u32()?, reader.u32()?);
            tree.links.links.push(Link { next, element });
        }
        let count = reader.len(32)?;
        tree.slots.free = reader.u32()?;
        for _ in 0..count {
            let rect = Rect::new(reader.f32()?, reader.f32()?, reader.f32()?, reader.f32()?);
            let (id, stamp) = (reader.u32()?, reader.u32()?);
            let (place, home) = (reader.u32()?, reader.u32()?);
            let slot = Slot {
                rect,
                id,
                stamp,
                place,
                home,
            };
            if slot.is_live() && !rect.is_valid() {
                return Err(invalid("an element has an invalid rectangle"));
            }
            tree.slots.live += slot.is_live() as usize;
            tree.slots.slots.push(slot);
        }
        if !reader.bytes.is_empty() {
            return Err(invalid("trailing bytes"));
        }
        tree.validate()
            .map_err(|reason| invalid(&format!("inconsistent snapshot: {reason}")))?;
        Ok(tree)
    }
}

fn invalid(reason: &str) -> Error {
    Error::InvalidBytes(reason.to_string())
}

struct Reader<'a> {
    bytes: &'a [u8],
}

impl Reader<'_> {
    fn u32(&mut self) -> Result<u32, Error> {
        let (head, rest) = self
            .bytes
            .split_first_chunk::<4>()
            .ok_or_else(|| invalid("truncated"))?;
        self.bytes = rest;
        Ok(u32::from_le_bytes(*head))
    }

    fn f32(&mut self) -> Result<f32, Error> {
        self.u32().map(f32::from_bits)
    }

    /// A record count, checked against the bytes left so a forged count cannot
    /// make us reserve memory the input does not back.
    fn len(&mut self, record_size: usize) -> Result<usize, Error> {
        let count = self.u32()? as usize;
        if count.saturating_mul(record_size) > self.bytes.len() {
            return Err(invalid("truncated"));
        }
        Ok(count)
    }
}
