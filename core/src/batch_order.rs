//! The order a big insert batch goes in (each structure's key: the loose
//! grid's cell, or the Z-order of the tree), and the out-of-order insertion
//! that follows. Written once for the structures that sort a batch (the grid
//! takes the batch's own order, see `grid/insert.rs`).

use crate::slots::prefetch;
use crate::Handle;

/// How many positions ahead [`insert_by_key`] loads.
const AHEAD: usize = 16;

/// Batches at least this big go into a structure in its key's order (the
/// order and its prefetching pay from about this size); smaller ones one by one.
pub(crate) const SORTED_BATCH: usize = 256;

/// The positions of `keys` by key, then by position: by counting sort when
/// there are no more than 4 possible keys (`key_count`) a position, else by
/// one sort of (key, position) words.
pub(crate) fn order_by_key(keys: &[u32], key_count: u64) -> Vec<u32> {
    if key_count > 4 * keys.len() as u64 {
        let mut keyed: Vec<u64> = keys
            .iter()
            .enumerate()
            .map(|(position, &key)| u64::from(key) << 32 | position as u64)
            .collect();
        keyed.sort_unstable();
        return keyed.into_iter().map(|word| word as u32).collect();
    }
    let mut ends = vec![0u32; key_count as usize];
    for &key in keys {
        ends[key as usize] += 1;
    }
    running_sums(&mut ends);
    // Filled from the end, the positions in reverse: each key's positions
    // then come in increasing order.
    let mut order = vec![0u32; keys.len()];
    for (position, &key) in keys.iter().enumerate().rev() {
        let end = &mut ends[key as usize];
        *end -= 1;
        order[*end as usize] = position as u32;
    }
    order
}

/// Counts per key into running sums, for a counting sort: `counts[k]`
/// becomes the end of key `k`'s run (a last entry counting nothing becomes
/// the total).
pub(crate) fn running_sums(counts: &mut [u32]) {
    let mut sum = 0u32;
    for count in counts.iter_mut() {
        sum += *count;
        *count = sum;
    }
}

/// Inserts the batch `rects`, `ids` in the order of `keys` (one a position,
/// below `key_count`: [`order_by_key`]), appending each position's handle to
/// `handles` at that position; returns the order. `insert(position, rect,
/// id)` does the structure's work. The batch is read out of order, which
/// misses the cache at every position: the rectangle, id and handle a few
/// positions ahead are loaded meanwhile, and `load(position)` loads what else
/// `insert` will read there.
pub(crate) fn insert_by_key<B: Copy>(
    keys: &[u32],
    key_count: u64,
    (rects, ids): (&[B], &[u32]),
    handles: &mut Vec<Handle>,
    load: impl Fn(usize),
    mut insert: impl FnMut(usize, B, u32) -> Handle,
) -> Vec<u32> {
    let order = order_by_key(keys, key_count);
    let start = handles.len();
    handles.resize(start + rects.len(), Handle::from_raw(0));
    let handles = &mut handles[start..];
    for (at, &position) in order.iter().enumerate() {
        if let Some(&ahead) = order.get(at + AHEAD) {
            let ahead = ahead as usize;
            prefetch(&rects[ahead]);
            prefetch(&ids[ahead]);
            prefetch(&handles[ahead]);
            load(ahead);
        }
        let position = position as usize;
        handles[position] = insert(position, rects[position], ids[position]);
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counting_and_sorting_give_one_order() {
        let mut rng = crate::test_lcg::Lcg32::new(7);
        let keys: Vec<u32> = (0..5000).map(|_| (rng.next_state() >> 20) % 300).collect();
        let by_counting = order_by_key(&keys, 300);
        assert_eq!(by_counting, order_by_key(&keys, 1 << 32));
        assert!(by_counting
            .windows(2)
            .all(|w| (keys[w[0] as usize], w[0]) < (keys[w[1] as usize], w[1])));
    }

    #[test]
    fn every_position_is_inserted_once_in_order() {
        let keys = [3, 1, 2, 1, 0, 3];
        let rects = [10u8, 11, 12, 13, 14, 15];
        let ids = [20, 21, 22, 23, 24, 25];
        let mut handles = vec![Handle::from_raw(7)];
        let mut seen = Vec::new();
        let order = insert_by_key(
            &keys,
            4,
            (&rects, &ids),
            &mut handles,
            |_| {},
            |p, rect, id| {
                seen.push((p, rect, id));
                Handle::from_raw(100 + seen.len() as u64)
            },
        );
        assert_eq!(order, [4, 1, 3, 2, 0, 5]);
        assert_eq!(seen[0], (4, 14, 24));
        assert_eq!(
            seen.iter().map(|s| s.0).collect::<Vec<_>>(),
            order.iter().map(|&p| p as usize).collect::<Vec<_>>()
        );
        // Appended after what was there, each at its position.
        assert_eq!(handles[0], Handle::from_raw(7));
        assert_eq!(handles[1 + 4], Handle::from_raw(101));
        assert_eq!(handles[1 + 5], Handle::from_raw(106));
    }
}
