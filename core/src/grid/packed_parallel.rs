//! The runs laid out on every thread of rayon's pool (cargo feature `rayon`):
//! the counting sort of [`Grid::pack_cells`] split by slot ranges.
//!
//! Each thread counts its range's small elements per cell, the counts are
//! summed cell by cell in thread order (so thread `t`'s part of a cell's run
//! follows those of the threads before it), and each thread fills its parts
//! from their ends with its slots in reverse: every run then holds its slots
//! in ascending order, exactly as the serial sort lays them. The threads
//! write the one `entries` array at positions no other thread writes. A grid
//! with medium elements is laid out by the serial sort.

use rayon::prelude::*;

use crate::grid::packed::{is_small, next_up, Entry, NOTHING, WINDOW};
use crate::grid::{is_big_among, Grid, Span};

/// Below this many slots the runs are laid out on the calling thread (a
/// guess: the sort of 100,000 slots gains 0.2 ms on two threads, and each
/// thread starts with a count per cell to clear).
const PAR_PACK_MIN: usize = if cfg!(test) { 16 } else { 32_768 };

/// The entries array, written by many threads at disjoint positions.
struct Disjoint(*mut Entry);

// SAFETY: every position is written by one thread only (see `fill_part`), and
// the array outlives the threads (they are joined before it is read).
unsafe impl Sync for Disjoint {}

impl Grid {
    /// [`unlist`](Grid::unlist) with the runs laid out on rayon's threads.
    pub(crate) fn unlist_on_threads(&mut self) {
        self.lists_stale = true;
        self.pack_cells_parallel();
    }

    /// [`pack_cells`](Grid::pack_cells) on rayon's threads: the same runs.
    pub(crate) fn pack_cells_parallel(&mut self) {
        let threads = rayon::current_num_threads();
        let slots = self.slots.slots.len();
        if self.packed.fresh || threads == 1 || slots < PAR_PACK_MIN {
            return self.pack_cells();
        }
        let cells = self.cells.len();
        let columns = self.columns() as usize;
        let small_side = [self.cell_width(), self.cell_height()];
        let per_part = slots.div_ceil(threads);
        let mut parts = core::mem::take(&mut self.packed.part_counts);
        parts.resize_with(threads, Vec::new);
        // Each part's counts per cell of its small elements; its widest ones;
        // whether it has any medium element.
        let counted: Vec<([f32; 2], bool)> = parts
            .par_iter_mut()
            .enumerate()
            .map(|(part, counts)| {
                counts.clear();
                counts.resize(cells, 0);
                let mut reach = [0f32; 2];
                let mut mid = false;
                for slot in part * per_part..((part + 1) * per_part).min(slots) {
                    let Some((span, r)) = self.packed_span(slot as u32) else {
                        continue;
                    };
                    if is_small(&small_side, &r) {
                        counts[span.y1 as usize * columns + span.x1 as usize] += 1;
                        reach = [reach[0].max(r.x2 - r.x1), reach[1].max(r.y2 - r.y1)];
                    } else {
                        mid = true;
                    }
                }
                (reach, mid)
            })
            .collect();
        if counted.iter().any(|&(_, mid)| mid) {
            self.packed.part_counts = parts;
            return self.pack_cells();
        }
        // Cell by cell, each part's end of its share of the run (its counts
        // become those ends), and each run's start.
        let packed = &mut self.packed;
        packed.starts.clear();
        packed.starts.resize(cells + 1, 0);
        let mut end = 0u32;
        for cell in 0..cells {
            packed.starts[cell] = end;
            for counts in parts.iter_mut() {
                end += counts[cell];
                counts[cell] = end;
            }
        }
        packed.starts[cells] = end;
        let small = end as usize;
        packed.entries.resize(small + WINDOW, NOTHING);
        packed.entries[small..].fill(NOTHING);
        let reach = counted
            .iter()
            .fold([0f32; 2], |r, &(p, _)| [r[0].max(p[0]), r[1].max(p[1])]);
        packed.reach = [next_up(reach[0]), next_up(reach[1])];
        packed.small = small_side;
        packed.has_mid = false;
        let out = Disjoint(packed.entries.as_mut_ptr());
        let out = &out;
        let this = &*self;
        parts.par_iter_mut().enumerate().for_each(|(part, ends)| {
            let range = part * per_part..((part + 1) * per_part).min(slots);
            for slot in range.rev() {
                let slot = slot as u32;
                let Some((span, r)) = this.packed_span(slot) else {
                    continue;
                };
                let end = &mut ends[span.y1 as usize * columns + span.x1 as usize];
                *end -= 1;
                let entry = Entry {
                    b: [r.x1, r.y1, -r.x2, -r.y2],
                    handle: this.slots.handle(slot),
                };
                debug_assert!((*end as usize) < small);
                // SAFETY: `*end` lies in this part's share of the cell's run
                // (its end, less one per slot of this part in that cell, down
                // to the share's start), which no other part writes, and below
                // `small`, within the array.
                unsafe { out.0.add(*end as usize).write(entry) };
            }
        });
        self.packed.part_counts = parts;
        self.packed.fresh = true;
    }

    /// The cells and box of a live slot's element in the runs (not big).
    #[inline(always)]
    fn packed_span(&self, slot: u32) -> Option<(Span, crate::Rect)> {
        if !self.slots.is_live(slot) {
            return None;
        }
        let record = &self.slots.slots[slot as usize];
        let span = Span::unpack(record.cells);
        (!is_big_among(self.cells.len(), &span)).then_some((span, record.rect))
    }
}

#[cfg(test)]
mod tests {
    use crate::{Grid, Rect, SpatialIndex};

    /// The runs laid out on 2, 3 and 8 threads are the serial sort's, entry
    /// for entry: small elements only (the parallel sort), with removed slots
    /// among them, and with a medium element (the serial one, through it).
    #[test]
    fn parallel_runs_are_the_serial_runs() {
        let mut state = 99u32;
        let mut unit = move || {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (state >> 8) as f32 / 16_777_216.0
        };
        for medium in [false, true] {
            let mut grid = Grid::new(Rect::new(0.0, 0.0, 100.0, 100.0), 20, 20).unwrap();
            let mut handles = Vec::new();
            for i in 0..3000 {
                let (x, y) = (unit() * 104.0 - 2.0, unit() * 104.0 - 2.0);
                let side = unit() * 4.0;
                handles.push(grid.insert(Rect::new(x, y, x + side, y + side), i).unwrap());
            }
            for h in handles.iter().step_by(7) {
                grid.remove(*h).unwrap();
            }
            if medium {
                grid.insert(Rect::new(10.0, 10.0, 22.0, 13.0), 9999)
                    .unwrap();
            }
            let mut serial = grid.clone();
            serial.pack_cells();
            assert!(!serial.packed.has_mid || medium);
            for threads in [2, 3, 8] {
                let mut parallel = grid.clone();
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                pool.install(|| parallel.pack_cells_parallel());
                assert!(parallel.packed.fresh);
                assert_eq!(parallel.packed.starts, serial.packed.starts);
                assert_eq!(parallel.packed.entries, serial.packed.entries);
                assert_eq!(parallel.packed.reach, serial.packed.reach);
                assert_eq!(parallel.packed.has_mid, serial.packed.has_mid);
                parallel.validate().unwrap();
            }
        }
    }
}
