//! The workload's 32-bit LCG (`docs/workload.md`) for the crate's unit tests,
//! so that they need no dependency and each does not write its own.

/// `state = state * 1664525 + 1013904223 (mod 2^32)`, advanced before each draw.
pub(crate) struct Lcg32(u32);

impl Lcg32 {
    pub(crate) fn new(seed: u32) -> Lcg32 {
        Lcg32(seed)
    }

    /// The next state.
    pub(crate) fn next_state(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        self.0
    }

    /// A draw in `[0, 1)`: the state's top 24 bits, exact in `f32`.
    pub(crate) fn unit(&mut self) -> f32 {
        (self.next_state() >> 8) as f32 / 16_777_216.0
    }
}
