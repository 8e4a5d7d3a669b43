//! The leaf order of a sort-tile-recursive (STR) packed R-tree, the one GEOS'
//! `STRtree` (shapely's, so GeoPandas') builds: a drop-in join gives its rows
//! in the order that tree's query visits them.

/// The position of each box of `bounds` (`[x1, y1, x2, y2]`, finite) in the
/// order a query of an STR tree of node capacity `capacity` over them visits
/// its leaves:
/// - the boxes sorted by centre x and cut into `ceil(sqrt(ceil(n / capacity)))`
///   vertical slices of `ceil(n / slices)`;
/// - each slice sorted by centre y and cut into nodes of `capacity` boxes;
/// - the same for the nodes' bounding boxes, level by level, up to one root;
/// - the leaves numbered depth first.
///
/// Every sort is stable: boxes with equal centres keep their order. (GEOS
/// sorts with `std::sort`, which leaves equal keys of a range of more than 16
/// in an unspecified order: there the two may differ.) A `capacity` below 2
/// counts as 2.
///
/// ```
/// use flatquad::join::str_ranks;
/// // Two slices of two: the left pair bottom to top, then the right pair.
/// let boxes = [[2.0, 0.0, 3.0, 1.0], [0.0, 2.0, 1.0, 3.0], [0.0, 0.0, 1.0, 1.0], [2.0, 2.0, 3.0, 3.0]];
/// assert_eq!(str_ranks(&boxes, 2), vec![2, 1, 0, 3]);
/// ```
pub fn str_ranks(bounds: &[[f64; 4]], capacity: usize) -> Vec<usize> {
    let capacity = capacity.max(2);
    // Bottom up: each level's nodes in their new order (`order`), each one's
    // parent (by position in that order) and the leaves below each.
    let mut levels: Vec<Level> = Vec::new();
    let mut nodes = bounds.to_vec();
    let mut leaves = vec![1usize; bounds.len()];
    while nodes.len() > 1 {
        let number = nodes.len();
        let slices = (number.div_ceil(capacity) as f64).sqrt().ceil() as usize;
        let per_slice = number.div_ceil(slices);
        let mut order = stable_order(&nodes, |b| b[0] + b[2], 0..number as u32);
        for slice in order.chunks_mut(per_slice) {
            let by_y = stable_order(&nodes, |b| b[1] + b[3], slice.iter().copied());
            slice.copy_from_slice(&by_y);
        }
        // A parent for every `capacity` nodes of a slice.
        let mut parent = Vec::with_capacity(number);
        let mut parents: Vec<[f64; 4]> = Vec::new();
        let mut below: Vec<usize> = Vec::new();
        for (i, &node) in order.iter().enumerate() {
            let (b, count) = (nodes[node as usize], leaves[node as usize]);
            if i % per_slice % capacity == 0 {
                parents.push(b);
                below.push(0);
            } else {
                let p = parents.last_mut().expect("a group starts at 0");
                *p = [
                    p[0].min(b[0]),
                    p[1].min(b[1]),
                    p[2].max(b[2]),
                    p[3].max(b[3]),
                ];
            }
            *below.last_mut().expect("a group starts at 0") += count;
            parent.push(parents.len() as u32 - 1);
        }
        let moved = order.iter().map(|&node| leaves[node as usize]).collect();
        levels.push(Level {
            order,
            parent,
            moved,
        });
        (nodes, leaves) = (parents, below);
    }
    // Top down: a node's leaves start where its parent's do, after those of
    // the siblings before it.
    let mut start = vec![0usize; bounds.len().min(1)];
    for level in levels.iter().rev() {
        let mut start_at = vec![0usize; level.order.len()];
        let (mut previous, mut offset) = (u32::MAX, 0usize);
        for ((&node, &parent), &moved) in level.order.iter().zip(&level.parent).zip(&level.moved) {
            if parent != previous {
                (previous, offset) = (parent, start[parent as usize]);
            }
            start_at[node as usize] = offset;
            offset += moved;
        }
        start = start_at;
    }
    start
}

/// One level of the tree, bottom up.
struct Level {
    /// The level's nodes (positions in the level below's order) in tree order.
    order: Vec<u32>,
    /// The parent of each, by position in the next level's order.
    parent: Vec<u32>,
    /// The leaves below each.
    moved: Vec<usize>,
}

/// `among` sorted by `key` of their node, stably: by one unstable sort of
/// (key, position) words, which are unique.
fn stable_order(
    nodes: &[[f64; 4]],
    key: impl Fn(&[f64; 4]) -> f64,
    among: impl Iterator<Item = u32>,
) -> Vec<u32> {
    let mut keyed: Vec<(u64, u32, u32)> = among
        .enumerate()
        .map(|(position, node)| {
            (
                ordered_bits(key(&nodes[node as usize])),
                position as u32,
                node,
            )
        })
        .collect();
    keyed.sort_unstable_by_key(|&(key, position, _)| (key, position));
    keyed.into_iter().map(|(_, _, node)| node).collect()
}

/// `value`'s bits as an integer in the order of the (non-NaN) floats, -0.0
/// equal to 0.0.
fn ordered_bits(value: f64) -> u64 {
    let bits = (value + 0.0).to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_box_and_none() {
        assert_eq!(str_ranks(&[], 10), Vec::<usize>::new());
        assert_eq!(str_ranks(&[[0.0, 0.0, 1.0, 1.0]], 10), vec![0]);
    }

    #[test]
    fn ranks_are_a_permutation_with_slices_left_to_right() {
        let boxes: Vec<[f64; 4]> = (0..1000)
            .map(|i| {
                let (x, y) = ((i * 7919 % 1000) as f64, (i * 104_729 % 997) as f64);
                [x, y, x + 1.0, y + 1.0]
            })
            .collect();
        let ranks = str_ranks(&boxes, 10);
        let mut seen = ranks.clone();
        seen.sort_unstable();
        assert_eq!(seen, (0..1000).collect::<Vec<_>>());
        // The first leaf is in the leftmost slice, at its bottom.
        let first = ranks.iter().position(|&r| r == 0).unwrap();
        assert!(boxes[first][0] < 100.0, "{:?}", boxes[first]);
    }

    #[test]
    fn equal_keys_and_signed_zeros_keep_their_order() {
        let boxes = [
            [-0.0, 0.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, 0.0],
            [0.0, -0.0, 0.0, 0.0],
        ];
        assert_eq!(str_ranks(&boxes, 2), vec![0, 1, 2]);
    }
}
