//! The snapshot format every structure shares: a header naming the structure,
//! then the structure's own little-endian `u32` words. Reading checks lengths
//! before reserving memory, so a forged count cannot make us allocate.

use crate::index::Kind;
use crate::{Bounds, Error};

const MAGIC: &[u8; 4] = b"FLQD";
/// 2: the structure's kind follows the version. 3: the slots' collision
/// filters follow the slots. 4: the fat-bounds margin and the tight boxes
/// follow the filters.
const FORMAT_VERSION: u32 = 4;

/// The structure a snapshot tag names, with its article ("a Quadtree", "an Octree").
pub(crate) fn tag_name(tag: u32) -> String {
    match Kind::from_u32(tag) {
        Some(Kind::Octree) => "an Octree".to_string(),
        Some(kind) => format!("a {}", kind.name()),
        None => "an unknown structure".to_string(),
    }
}

/// [`Error::InvalidBytes`] with a reason.
pub(crate) fn invalid(reason: &str) -> Error {
    Error::InvalidBytes(reason.to_string())
}

/// Little-endian words appended to a byte vector.
pub(crate) struct Writer {
    pub out: Vec<u8>,
}

impl Writer {
    /// A snapshot of the structure tagged `tag` (a [`Kind`] value), with room for `words` more words.
    pub fn new(tag: u32, words: usize) -> Writer {
        let mut writer = Writer {
            out: Vec::with_capacity(4 * (words + 3)),
        };
        writer.u32(u32::from_le_bytes(*MAGIC));
        writer.u32(FORMAT_VERSION);
        writer.u32(tag);
        writer
    }

    pub fn u32(&mut self, v: u32) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    pub fn f32(&mut self, v: f32) {
        self.u32(v.to_bits());
    }

    pub fn rect<B: Bounds>(&mut self, r: &B) {
        for &v in bytemuck::cast_slice::<B, f32>(core::slice::from_ref(r)) {
            self.f32(v);
        }
    }
}

/// Reads the words a [`Writer`] wrote.
pub(crate) struct Reader<'a> {
    pub bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    /// The snapshot's structure tag, after checking magic and version.
    pub fn open(bytes: &'a [u8]) -> Result<(Reader<'a>, u32), Error> {
        let mut reader = Reader { bytes };
        if reader.u32()? != u32::from_le_bytes(*MAGIC) {
            return Err(invalid("not a flatquad snapshot"));
        }
        if reader.u32()? != FORMAT_VERSION {
            return Err(invalid("unknown snapshot version"));
        }
        let tag = reader.u32()?;
        if Kind::from_u32(tag).is_none() {
            return Err(invalid("unknown structure"));
        }
        Ok((reader, tag))
    }

    /// The snapshot's body, after checking it is one of the structure tagged `tag`.
    pub fn expect(bytes: &'a [u8], tag: u32) -> Result<Reader<'a>, Error> {
        let (reader, found) = Reader::open(bytes)?;
        if found != tag {
            return Err(invalid(&format!(
                "a snapshot of {}, not of {}",
                tag_name(found),
                tag_name(tag)
            )));
        }
        Ok(reader)
    }

    pub fn u32(&mut self) -> Result<u32, Error> {
        let (head, rest) = self
            .bytes
            .split_first_chunk::<4>()
            .ok_or_else(|| invalid("truncated"))?;
        self.bytes = rest;
        Ok(u32::from_le_bytes(*head))
    }

    pub fn f32(&mut self) -> Result<f32, Error> {
        self.u32().map(f32::from_bits)
    }

    pub fn rect<B: Bounds>(&mut self) -> Result<B, Error> {
        let mut b = B::default();
        for v in bytemuck::cast_slice_mut::<B, f32>(core::slice::from_mut(&mut b)) {
            *v = self.f32()?;
        }
        Ok(b)
    }

    /// A record count, checked against the bytes left so a forged count cannot
    /// make us reserve memory the input does not back.
    pub fn len(&mut self, record_size: usize) -> Result<usize, Error> {
        let count = self.u32()? as usize;
        if count.saturating_mul(record_size) > self.bytes.len() {
            return Err(invalid("truncated"));
        }
        Ok(count)
    }

    /// Fails unless every byte was read.
    pub fn finish(self) -> Result<(), Error> {
        if self.bytes.is_empty() {
            Ok(())
        } else {
            Err(invalid("trailing bytes"))
        }
    }
}

/// A link pool's words: the number of links, the free head, then each
/// link's next and element.
pub(crate) fn write_links(w: &mut Writer, pool: &crate::links::LinkPool) {
    w.u32(pool.links.len() as u32);
    w.u32(pool.free);
    for link in &pool.links {
        w.u32(link.next);
        w.u32(link.element);
    }
}

/// The link pool [`write_links`] wrote (its links checked by the structure's
/// `validate`, as the snapshot's other words are).
pub(crate) fn read_links(r: &mut Reader<'_>) -> Result<crate::links::LinkPool, Error> {
    let count = r.len(8)?;
    let mut pool = crate::links::LinkPool::new();
    pool.free = r.u32()?;
    crate::huge_pages::reserve_exact(&mut pool.links, count);
    for _ in 0..count {
        let (next, element) = (r.u32()?, r.u32()?);
        pool.links.push(crate::links::Link { next, element });
    }
    Ok(pool)
}

/// A slot pool's words: the free head, then each slot's rectangle, id, stamp and
/// `extra` words; then the number of filters (0 while every element has the
/// default) and each slot's category and mask; then the margin and the number
/// of tight boxes (0 without a margin) and each slot's tight box.
pub(crate) fn write_slots<S: crate::slots::SlotRecord>(
    w: &mut Writer,
    pool: &crate::slots::SlotPool<S>,
    extra: impl Fn(&S, &mut Writer),
) {
    w.u32(pool.slots.len() as u32);
    w.u32(pool.free);
    for (slot, &stamp) in pool.slots.iter().zip(&pool.stamps) {
        w.rect(&slot.rect());
        w.u32(slot.id());
        w.u32(stamp);
        extra(slot, w);
    }
    w.u32(pool.filters.len() as u32);
    for filter in &pool.filters {
        w.u32(filter.category);
        w.u32(filter.mask);
    }
    w.f32(pool.margin);
    w.u32(pool.tight.len() as u32);
    for tight in &pool.tight {
        w.rect(tight);
    }
}

/// The slot pool [`write_slots`] wrote; `extra_words` per slot are read by
/// `finish` into the slot made of rectangle, id and stamp.
pub(crate) fn read_slots<S: crate::slots::SlotRecord>(
    r: &mut Reader<'_>,
    extra_words: usize,
    finish: impl Fn(S, &mut Reader<'_>) -> Result<S, Error>,
) -> Result<crate::slots::SlotPool<S>, Error> {
    let count = r.len(4 * (2 * S::Bounds::AXES + 2 + extra_words))?;
    let mut pool = crate::slots::SlotPool::new();
    pool.free = r.u32()?;
    pool.reserve(count);
    for _ in 0..count {
        let rect = r.rect()?;
        let (id, stamp) = (r.u32()?, r.u32()?);
        let slot = finish(S::fresh(rect, id), r)?;
        pool.push(slot, stamp);
    }
    let filters = r.len(8)?;
    if filters != 0 && filters != count {
        return Err(invalid("filters and slots differ in number"));
    }
    crate::huge_pages::reserve_exact(&mut pool.filters, filters);
    for _ in 0..filters {
        let (category, mask) = (r.u32()?, r.u32()?);
        pool.filters.push(crate::Filter::new(category, mask));
    }
    pool.margin = r.f32()?;
    let tight = r.len(4 * 2 * S::Bounds::AXES)?;
    crate::huge_pages::reserve_exact(&mut pool.tight, tight);
    for _ in 0..tight {
        pool.tight.push(r.rect()?);
    }
    pool.validate()
        .map_err(|reason| invalid(&format!("inconsistent snapshot: {reason}")))?;
    Ok(pool)
}
