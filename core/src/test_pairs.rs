//! An index's pairs as the crate's unit tests compare them, so that each
//! test does not write its own: each pair with its smaller handle first,
//! the list sorted.

use crate::{Handle, SpatialIndex};

/// Every pair of `index` ([`SpatialIndex::pairs`]), smaller handle first, sorted.
pub(crate) fn sorted_pairs<T: SpatialIndex>(index: &T) -> Vec<(Handle, Handle)> {
    let mut pairs = Vec::new();
    index.pairs(&mut pairs);
    let mut pairs: Vec<_> = pairs
        .into_iter()
        .map(|(a, b)| (a.min(b), a.max(b)))
        .collect();
    pairs.sort_unstable();
    pairs
}
