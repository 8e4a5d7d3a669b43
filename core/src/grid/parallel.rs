//! The all-pairs walk and the moves on every thread of rayon's pool (cargo
//! feature `rayon`).

use core::ops::Range;

use crate::axis::Axis;
use crate::grid::packed::{CountChanges, FilingRule};
use crate::grid::relocate::{move_range, move_record, Move};
use crate::grid::unlisted::follow_big;
use crate::grid::{is_big_among, Grid, Slot};
use crate::index::collect_pairs;
use crate::index::parallel::{
    equal_ranges, on_one_thread, pairs_by_parts, ranges_of_even_work, TASKS_PER_THREAD,
};
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
        // Without the lists, the last sort's counts are kept through the
        // moves when they can be (each thread keeps its range's).
        let mut kept = None;
        if unlisted {
            kept = self.keep_counts(threads);
        } else {
            self.relist();
            self.packed.stale();
        }
        let rule = self.filing_rule();
        // Fresh lists: this path runs for hundreds of thousands of moves, next
        // to which an allocation is nothing, and a grid keeps no scratch state.
        let mut parts: Vec<Part<'_>> = (0..threads).map(|_| Part::default()).collect();
        if kept.is_some() {
            let counts = core::iter::once(&mut self.packed.starts)
                .chain(&mut self.packed.part_starts[..threads - 1]);
            for (part, counts) in parts.iter_mut().zip(counts) {
                part.counts = Some(counts);
            }
        }
        let records = &mut self.slots.slots[..];
        let per_part = Grid::part_len(records.len(), threads);
        let axes = (&self.axis_x, &self.axis_y);
        let cells = self.cells.len();
        // Without the lists, only the moves into or out of the big list matter.
        let gathered =
            |m: &Move| !unlisted || is_big_among(cells, &m.from) != is_big_among(cells, &m.to);
        let movers = Movers {
            axes,
            rule,
            handles,
            rects,
            gathered: &gathered,
        };
        move_parts(&movers, records, 0, per_part, &mut parts);
        if parts.iter().any(|part| part.broken) {
            kept = None;
        }
        // The moves of all parts in batch order (each batch place is in one
        // part only, so the order is exactly the batch's).
        let mut moves: Vec<(u32, Move)> = parts.into_iter().flat_map(|part| part.moves).collect();
        moves.sort_unstable_by_key(|&(at, _)| at);
        if unlisted {
            for (_, moved) in moves {
                follow_big(&mut self.big, cells, moved);
            }
            return self.unlist(threads, kept);
        }
        let merged: Vec<Move> = moves.into_iter().map(|(_, m)| m).collect();
        self.relink_moves(&merged);
    }
}

/// What every thread of a batch of moves reads.
struct Movers<'a, G> {
    axes: (&'a Axis, &'a Axis),
    rule: FilingRule,
    handles: &'a [Handle],
    rects: &'a [Rect],
    /// Which moves a part gathers.
    gathered: &'a G,
}

/// One thread's range of slot records in a batch of moves.
#[derive(Default)]
struct Part<'a> {
    /// Its moves that `gathered` keeps, with their place in the batch.
    moves: Vec<(u32, Move)>,
    /// Its counts per cell in the last sort, kept through its moves
    /// ([`Grid::keep_counts`]), if they are kept.
    counts: Option<&'a mut [u32]>,
    /// Whether a move changed what an element is to the sort.
    broken: bool,
}

/// Moves, for each handle of the batch whose slot is in `first..first +
/// records.len()`, its record (`records[slot - first]`), in ranges of
/// `per_part` records, one for each of `parts`, halving on rayon's threads.
fn move_parts<G: Fn(&Move) -> bool + Sync>(
    movers: &Movers<'_, G>,
    records: &mut [Slot],
    first: usize,
    per_part: usize,
    parts: &mut [Part<'_>],
) {
    if parts.len() > 1 {
        let half = parts.len() / 2;
        let split = (half * per_part).min(records.len());
        let (low, high) = records.split_at_mut(split);
        let (low_parts, high_parts) = parts.split_at_mut(half);
        rayon::join(
            || move_parts(movers, low, first, per_part, low_parts),
            || move_parts(movers, high, first + split, per_part, high_parts),
        );
        return;
    }
    let part = &mut parts[0];
    let Movers {
        axes,
        rule,
        handles,
        rects,
        gathered,
    } = *movers;
    let moves = &mut part.moves;
    let gather = |at, m: Move| {
        if gathered(&m) {
            moves.push((at, m));
        }
    };
    // A loop for each kind of move, neither paying the other's check.
    match part.counts.as_deref_mut() {
        Some(counts) => {
            let mut changes = CountChanges::default();
            let mover = |record: &mut Slot, slot, rect| {
                rule.move_record(axes, record, slot, rect, &mut changes)
            };
            move_range(records, first, handles, rects, mover, gather);
            if !changes.broken {
                changes.apply(counts);
            }
            part.broken = changes.broken;
        }
        None => {
            let mover = |record: &mut Slot, slot, rect| move_record(axes, record, slot, rect);
            move_range(records, first, handles, rects, mover, gather);
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
