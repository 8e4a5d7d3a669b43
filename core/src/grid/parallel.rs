//! The all-pairs walk and the moves on every thread of rayon's pool (cargo
//! feature `rayon`).

use core::ops::Range;

use crate::axis::Axis;
use crate::grid::relocate::{move_record, Move, SLOTS_AHEAD};
use crate::grid::{is_big_among, Grid, Slot};
use crate::index::collect_pairs;
use crate::index::parallel::{
    equal_ranges, on_one_thread, pairs_by_parts, ranges_of_even_work, TASKS_PER_THREAD,
};
use crate::slots::prefetch;
use crate::{Handle, Rect};

/// Below this many moves `par_update_many` moves the records on one thread. Measured on 2 cores:
/// level at 100,000 moves (the records fit in the caches, and each thread
/// reads the whole batch), 1.2x at 600,000 and 1,000,000.
const PAR_MOVES_MIN: usize = 400_000;
/// The same for a batch that leaves the lists behind, which then writes the
/// records and sorts the runs, both split over the threads: its update on 2
/// threads, uniform-20k 0.28 → 0.18 ms, 10,000 of its agents 0.14 → 0.10,
/// uniform-100k 1.37 → 0.93.
const PAR_MOVES_MIN_UNLISTED: usize = 10_000;

impl Grid {
    /// `par_update_many`'s moves, checked. The slot records are cut into one
    /// range per thread; each thread reads the whole batch and moves the
    /// records in its range (so a handle given twice is moved twice, in
    /// order, by one thread), gathering the moves that leave their cells with
    /// their place in the batch. Those few are then relinked on one thread
    /// in batch order, so the lists end exactly as after
    /// [`relocate_batch`](Grid::relocate_batch). The records are where the
    /// time goes (a batch in an order unrelated to memory misses the cache on
    /// each), and those are split; reading the batch is not. A batch that
    /// leaves the lists behind ([`defers_lists`](Grid::defers_lists)) gathers
    /// only the moves into and out of the big list, then lays the runs out
    /// on every thread ([`pack_cells_in`](Grid::pack_cells_in)).
    pub(crate) fn relocate_parallel(&mut self, handles: &[Handle], rects: &[Rect]) {
        let unlisted = self.defers_lists(handles.len());
        let least = if unlisted {
            PAR_MOVES_MIN_UNLISTED
        } else {
            PAR_MOVES_MIN
        };
        if on_one_thread(handles.len(), least) {
            return self.relocate_batch(handles, rects);
        }
        let threads = rayon::current_num_threads();
        if !unlisted {
            self.relist();
        }
        self.packed.stale();
        // Fresh lists: this path runs for hundreds of thousands of moves, next
        // to which an allocation is nothing, and a grid keeps no scratch state.
        let mut part_moves: Vec<Vec<(u32, Move)>> = vec![Vec::new(); threads];
        let records = &mut self.slots.slots[..];
        let per_part = records.len().div_ceil(threads).max(1);
        let axes = (&self.axis_x, &self.axis_y);
        let cells = self.cells.len();
        // Without the lists, only the moves into or out of the big list matter.
        let gathered =
            |m: &Move| !unlisted || is_big_among(cells, &m.from) != is_big_among(cells, &m.to);
        move_parts(
            axes,
            records,
            0,
            per_part,
            handles,
            rects,
            &gathered,
            &mut part_moves,
        );
        // The moves of all parts in batch order (each batch place is in one
        // part only, so the order is exactly the batch's).
        let mut moves = part_moves.concat();
        moves.sort_unstable_by_key(|&(at, _)| at);
        if unlisted {
            for (_, moved) in moves {
                self.follow_big(moved);
            }
            return self.unlist(threads);
        }
        let merged: Vec<Move> = moves.into_iter().map(|(_, m)| m).collect();
        self.relink_moves(&merged);
    }
}

/// Moves, for each handle of the batch whose slot is in `first..first +
/// records.len()`, its record (`records[slot - first]`), in ranges of
/// `per_part` records, one for each list of `moves`, halving on rayon's
/// threads; each list gathers its range's moves that `gathered` keeps, with
/// their place in the batch.
#[allow(clippy::too_many_arguments)]
fn move_parts(
    axes: (&Axis, &Axis),
    records: &mut [Slot],
    first: usize,
    per_part: usize,
    handles: &[Handle],
    rects: &[Rect],
    gathered: &(impl Fn(&Move) -> bool + Sync),
    moves: &mut [Vec<(u32, Move)>],
) {
    if moves.len() > 1 {
        let half = moves.len() / 2;
        let split = (half * per_part).min(records.len());
        let (low, high) = records.split_at_mut(split);
        let (low_moves, high_moves) = moves.split_at_mut(half);
        rayon::join(
            || {
                move_parts(
                    axes, low, first, per_part, handles, rects, gathered, low_moves,
                )
            },
            || {
                move_parts(
                    axes,
                    high,
                    first + split,
                    per_part,
                    handles,
                    rects,
                    gathered,
                    high_moves,
                )
            },
        );
        return;
    }
    let moves = &mut moves[0];
    let Some(last) = records.len().checked_sub(1) else {
        return;
    };
    for (at, (&handle, &rect)) in handles.iter().zip(rects).enumerate() {
        // Whether a handle is this range's is a coin toss for the branch
        // predictor, and each miss would throw away the loads in flight: the
        // records ahead are asked for without a branch (another range's
        // handle asks for a record of this range, harmlessly).
        if let Some(ahead) = handles.get(at + SLOTS_AHEAD) {
            let index = (ahead.slot() as usize).wrapping_sub(first).min(last);
            prefetch(&records[index]);
        }
        let slot = handle.slot();
        if let Some(record) = records.get_mut((slot as usize).wrapping_sub(first)) {
            if let Some(moved) = move_record(axes, record, slot, rect) {
                if gathered(&moved) {
                    moves.push((at as u32, moved));
                }
            }
        }
    }
}

impl Grid {
    /// From this many elements [`pairs_parallel`](Grid::pairs_parallel)
    /// takes the threads.
    pub(crate) const PAR_PAIRS_FROM: usize = 20_000;

    /// The pairs on all of rayon's threads, in the order of the walk on one
    /// thread: a pair of elements in cells belongs to the one cell owning the
    /// corner of its intersection, so bands of rows are walked independently
    /// (from the runs while they are fresh, else the lists) and their pairs
    /// concatenated in row order; the big elements' pairs follow, found on
    /// one thread.
    pub(crate) fn pairs_parallel(&self, pairs: &mut Vec<(Handle, Handle)>) {
        self.note_pair_walk();
        let bands = self.pair_bands(rayon::current_num_threads() * TASKS_PER_THREAD);
        pairs_by_parts(bands, pairs, |rows, found| {
            let _ = self.cell_pairs(rows, &mut collect_pairs(found));
        });
        let _ = self.big_pairs(&mut collect_pairs(pairs));
    }

    /// The rows cut into at most `bands` bands of even work for the pair
    /// walk's tasks. From the runs, a row costs its cells' small elements
    /// (the runs' counts; medium copies are not weighed), each cell its count
    /// squared (the boxes its elements test one another against) plus its
    /// count, and one for the row itself so that empty rows spread: in crowds a
    /// band of equal rows may hold most of the work, and one thread then walks
    /// it while the other waits. While the lists are the truth (no counts at
    /// hand), bands of equal rows.
    pub(super) fn pair_bands(&self, bands: usize) -> Vec<Range<u32>> {
        let rows = self.rows();
        if !self.packed.fresh {
            return equal_ranges(rows, bands);
        }
        let starts = &self.packed.starts;
        let columns = self.columns() as usize;
        ranges_of_even_work(rows, bands, |cy| {
            let row = self.cell_index(0, cy);
            let counts = starts[row..=row + columns].windows(2);
            1 + counts
                .map(|w| u64::from(w[1] - w[0]))
                .map(|n| n * n + n)
                .sum::<u64>()
        })
    }
}
