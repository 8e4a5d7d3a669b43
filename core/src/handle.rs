//! Handles: a slot index and the slot's generation, so a handle outlives nothing.

/// Bits of the generation kept in a handle; with 32 index bits a raw handle stays
/// below 2^53, so it is exact as a JavaScript number or an `f64`.
pub(crate) const GENERATION_BITS: u32 = 21;
/// The largest generation a slot reaches; a slot freed at this generation is
/// retired for good instead of being reused, so no handle value is ever issued twice.
pub(crate) const MAX_GENERATION: u32 = (1 << GENERATION_BITS) - 1;

/// Names one element of one [`Quadtree`](crate::Quadtree) for as long as it is in the tree.
///
/// A handle packs the element's slot index (low 32 bits) with the slot's
/// generation (the next 21 bits). Removing an element bumps its slot's
/// generation, so the old handle is rejected even after the slot holds a new
/// element; a slot whose generation would wrap is retired instead. Hence every
/// handle value is issued at most once per tree, and a raw handle is never 0 and
/// always below 2^53.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct Handle(u64);

// SAFETY: `Handle` is `repr(transparent)` over `u64`; every bit pattern is a valid
// `Handle` value (validity is checked by the tree, not by the type).
unsafe impl bytemuck::Zeroable for Handle {}
// SAFETY: see above.
unsafe impl bytemuck::Pod for Handle {}

impl Handle {
    pub(crate) const fn new(slot: u32, generation: u32) -> Handle {
        Handle(((generation as u64) << 32) | slot as u64)
    }

    /// The handle as a plain integer, for storing or passing across a language boundary.
    pub const fn to_raw(self) -> u64 {
        self.0
    }

    /// A handle from [`to_raw`](Handle::to_raw)'s integer. Any value is accepted
    /// here; the tree rejects values it did not issue or that are no longer live.
    pub const fn from_raw(raw: u64) -> Handle {
        Handle(raw)
    }

    /// The optional handle a binding's raw integer names: 0 is "none" (no
    /// handle is ever 0), anything else a handle for the structure to check.
    /// One rule for the `omit` arguments of C, Python and Node.
    ///
    /// ```
    /// use flatquad::Handle;
    /// assert_eq!(Handle::optional(0), None);
    /// assert_eq!(Handle::optional(5).map(Handle::to_raw), Some(5));
    /// ```
    pub const fn optional(raw: u64) -> Option<Handle> {
        if raw == 0 {
            None
        } else {
            Some(Handle(raw))
        }
    }

    /// Views raw handles as handles, without copying.
    pub fn cast_slice(raw: &[u64]) -> &[Handle] {
        bytemuck::cast_slice(raw)
    }

    /// Views handles as raw integers, without copying.
    pub fn as_raw_slice(handles: &[Handle]) -> &[u64] {
        bytemuck::cast_slice(handles)
    }

    pub(crate) const fn slot(self) -> u32 {
        self.0 as u32
    }

    /// The generation bits, or `None` when the value has bits no handle ever has.
    pub(crate) const fn generation(self) -> Option<u32> {
        let generation = self.0 >> 32;
        if generation == 0 || generation > MAX_GENERATION as u64 {
            None
        } else {
            Some(generation as u32)
        }
    }
}

impl core::fmt::Debug for Handle {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Handle({}v{})", self.0 as u32, self.0 >> 32)
    }
}

impl core::fmt::Display for Handle {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}", self.0)
    }
}
