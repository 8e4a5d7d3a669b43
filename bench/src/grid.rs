//! The baseline: a uniform grid rebuilt from scratch every frame by a counting sort,
//! written the way a user would write their own for a game. It is the floor a smart
//! index has to get under on uniform scenarios.

use std::ops::Range;

use rayon::prelude::*;

use crate::flatquad_index::PER_AGENT_BATCH;
use crate::workload::{Aabb, Agents};
use crate::{BenchError, Index, Mode};

/// At most this many levels (cell sides `cell * 2^l`); the last one takes every
/// element too big for the others.
const MAX_LEVELS: usize = 24;

/// One level of the grid: square cells of side `cell * 2^l` over the world, holding
/// the elements whose larger side is at most that (level 0: at most `cell`).
#[derive(Clone, Copy, Debug, Default)]
struct Level {
    inv_cell: f32,
    side: f32,
    cols: usize,
    /// The level's cells are `starts[base..base + cols * cols]`, then its own
    /// sentinel `starts[base + cols * cols]` (the end of its last cell).
    base: usize,
    /// Elements filed in the level this frame.
    count: u32,
    /// How far left of (or below) a query an element of this level can start and
    /// still meet it: the largest side of its elements this frame, padded by more
    /// than the rounding of `q.x1 - reach`.
    reach: f32,
}

impl Level {
    /// The column (or row) of coordinate `v`: monotone in `v`, clamped to the
    /// level (negative values and NaN to 0).
    #[inline(always)]
    fn cell_of(&self, v: f32) -> usize {
        ((v * self.inv_cell) as usize).min(self.cols - 1)
    }
}

/// A uniform grid over the world, rebuilt every frame by a counting sort, each
/// element filed once, in the one cell holding its **min corner**, with a copy of
/// its box laid out in cell order (`[x1, y1, -x2, -y2]`, so that the closed overlap
/// test is four `<=` of one 16-byte load against the query's
/// `[x2, y2, -x1, -y1]`) and its id beside it.
///
/// A query scans, row by row, the cells from `(x1 - reach, y1 - reach)` to
/// `(x2, y2)`, `reach` being the largest element side (an element filed by its min
/// corner can start up to one side before the query); the cells of one row are
/// adjacent in memory, so each row is one contiguous run — with cells of 5 agent
/// sides, 1 or 2 runs of a few boxes. The all-pairs walk takes every element once,
/// scans what follows it in its own row up to the last column it can reach, and
/// the next rows it can reach: each pair once, from the element first in cell
/// order. Exact: closed tests on the `f32` boxes, no rounding of coordinates.
/// A run of up to 8 boxes is tested as one fixed window (the boxes past the run
/// masked out). From `PREFETCH_FROM` agents, the sort fetches the cell of the
/// agent 16 ahead and the slot of the one 8 ahead, and a batch of queries the cell
/// starts of the query 8 ahead and the first boxes of the one 4 ahead; below it
/// nothing is fetched ahead, which is faster while the grid stays in the caches.
///
/// Elements larger than a cell would make `reach`, and so every query, large: they
/// go to coarser levels (cells of `cell * 2^l`, the smallest that holds their
/// larger side), each searched the same way, so that `mixed-100k`'s 1% of big
/// agents costs a few more runs per query rather than a wide scan of the fine
/// level; a uniform scenario has level 0 only. Pairs across levels: each element of
/// a coarser level queries the finer ones.
///
/// No allocation in a warm frame: every buffer is kept between frames. The counts
/// leave the agent itself out of its own query by subtracting the one hit each
/// agent has on itself (its own box, filed and tested exactly as queried); the ids
/// are there for a caller that wants the hits, which the counting modes do not read.
#[derive(Clone, Debug)]
pub struct GridIndex {
    name: &'static str,
    /// Threads of rayon's pool the queries and the pair walk use (the caller
    /// installs the pool); the rebuild stays on the calling thread.
    threads: usize,
    size: f32,
    factor: f32,
    levels: Vec<Level>,
    /// The levels with elements this frame, finest first.
    active: Vec<Level>,
    /// Every level's cell starts (see [`Level::base`]); between frames all zero on
    /// levels without elements.
    starts: Vec<u32>,
    /// Per agent, its cell's index in `starts` (scratch of the sort).
    keys: Vec<u32>,
    /// `[x1, y1, -x2, -y2]` in cell order, level after level.
    boxes: Vec<[f32; 4]>,
    /// The agent id of each box.
    ids: Vec<u32>,
    /// Agents from which the sort and the queries fetch ahead ([`PREFETCH_FROM`];
    /// the tests set it to run both ways).
    prefetch_from: usize,
    /// Whether they do this frame.
    fetch_ahead: bool,
    /// Whether the modes in which flatquad's adapter lists its hits list
    /// theirs too ([`GridIndex::listing_ids`]).
    lists: bool,
    /// Those lists, kept between frames: one a task.
    listed: Vec<Listed>,
}

/// One task's ids handed out: the pairs of a band of rows, or the rows of a
/// chunk of queries (`offsets[k]` where query `k`'s ids start in `hits`).
#[derive(Clone, Debug, Default)]
struct Listed {
    pairs: Vec<(u32, u32)>,
    offsets: Vec<u32>,
    hits: Vec<u32>,
}

impl Listed {
    fn clear(&mut self) {
        self.pairs.clear();
        self.offsets.clear();
        self.hits.clear();
    }
}

impl GridIndex {
    /// Cell side in agent sides used by the benchmarks: the fastest of 1, 1.5, 2,
    /// 3, 4, 5 and 6 on `uniform-100k` and `uniform-1m`, both modes (4, 5 and 6
    /// within 5% of each other; 2 is as fast on `uniform-100k`, but at
    /// `uniform-1m` its 2.4 million cells cost the sort twice as much).
    pub const DEFAULT_FACTOR: f32 = 5.0;

    /// A grid whose finest cells have side `factor * size`, `size` being the
    /// (typical) agent side. The world comes from the agents at [`Index::build`].
    pub fn new(size: f32, factor: f32) -> Self {
        GridIndex {
            name: "grid",
            threads: 1,
            size,
            factor,
            levels: Vec::new(),
            active: Vec::new(),
            starts: Vec::new(),
            keys: Vec::new(),
            boxes: Vec::new(),
            ids: Vec::new(),
            prefetch_from: PREFETCH_FROM,
            fetch_ahead: false,
            lists: false,
            listed: Vec::new(),
        }
    }

    /// The same grid handing out the ids of its hits wherever flatquad's
    /// adapter hands out handles (`flatquad_index.rs`), instead of counting
    /// them: the rows of each agent's neighbours (per agent), the pairs on
    /// several threads (`par_pairs`), the rows of the static queries on
    /// several threads (`par_query_many`). Where the adapter counts through a
    /// visitor (the pairs and the static queries on one thread), it counts.
    /// Reported as `grid (ids)` (on threads, name it by
    /// [`with_threads`](Self::with_threads) after this).
    pub fn listing_ids(mut self) -> Self {
        self.lists = true;
        self.name = "grid (ids)";
        self
    }

    /// The same grid answering the queries and walking the pairs on `threads`
    /// threads of the rayon pool the caller installs, reported as `name`.
    pub fn with_threads(mut self, threads: usize, name: &'static str) -> Self {
        self.threads = threads.max(1);
        self.name = name;
        self
    }

    /// The level for an element whose larger side is `w` (more than level 0's
    /// cell): the first whose cell holds it, or the last.
    #[cold]
    fn level_of(levels: &[Level], w: f32) -> usize {
        levels
            .iter()
            .position(|l| w <= l.side)
            .unwrap_or(levels.len() - 1)
    }

    /// The hits of the closed query `q` (`qv = [x2, y2, -x1, -y1]`) among the
    /// elements of level `l`.
    #[inline(always)]
    fn query_level(&self, l: &Level, q: &Aabb, qv: &[f32; 4]) -> u64 {
        let (x0, x1) = (l.cell_of(q.x1 - l.reach), l.cell_of(q.x2));
        let (y0, y1) = (l.cell_of(q.y1 - l.reach), l.cell_of(q.y2));
        let mut hits = 0;
        for cy in y0..=y1 {
            let row = l.base + cy * l.cols;
            let (a, b) = (self.starts[row + x0], self.starts[row + x1 + 1]);
            hits += count_window(&self.boxes, a as usize, b as usize, qv);
        }
        hits
    }

    /// The pairs of level `active[j]` counted from its rows `rows`: each of their
    /// elements against the boxes after it in its row up to the last column it
    /// can reach, the next rows it can reach, and the finer levels.
    fn pairs_in_rows(&self, j: usize, rows: Range<usize>) -> u64 {
        let l = &self.active[j];
        let cols = l.cols;
        let mut pairs = 0;
        for cy in rows {
            let row = l.base + cy * cols;
            let (first, last) = (self.starts[row] as usize, self.starts[row + cols] as usize);
            for p in first..last {
                let a = self.boxes[p];
                let qv = [-a[2], -a[3], -a[0], -a[1]];
                let x0 = l.cell_of(a[0] - l.reach);
                let (x1, y1) = (l.cell_of(-a[2]), l.cell_of(-a[3]));
                // This row: the boxes after this one, up to column x1.
                let end = (self.starts[row + x1 + 1] as usize).max(p + 1);
                pairs += count_window(&self.boxes, p + 1, end, &qv);
                // The rows above it can reach: columns x0..=x1.
                for cy2 in cy + 1..=y1 {
                    let row2 = l.base + cy2 * cols;
                    let (s, e) = (self.starts[row2 + x0], self.starts[row2 + x1 + 1]);
                    pairs += count_window(&self.boxes, s as usize, e as usize, &qv);
                }
                // Finer levels: this element queries them.
                if j > 0 {
                    let q = Aabb {
                        x1: a[0],
                        y1: a[1],
                        x2: -a[2],
                        y2: -a[3],
                    };
                    for finer in &self.active[..j] {
                        pairs += self.query_level(finer, &q, &qv);
                    }
                }
            }
        }
        pairs
    }

    /// The hits of `q` on every level.
    #[inline(always)]
    fn query(&self, q: &Aabb) -> u64 {
        let qv = [q.x2, q.y2, -q.x1, -q.y1];
        self.active
            .iter()
            .map(|l| self.query_level(l, q, &qv))
            .sum()
    }

    /// The total hits of the queries `query(0..n)`, each answered in turn.
    fn count_queries(&self, n: usize, query: impl Fn(usize) -> Aabb + Sync) -> u64 {
        if self.threads <= 1 {
            return self.count_range(0..n, &query);
        }
        // Chunks of queries, several a thread.
        let chunk = n.div_ceil(self.threads * 16).max(1024);
        (0..n.div_ceil(chunk))
            .into_par_iter()
            .map(|c| self.count_range(c * chunk..((c + 1) * chunk).min(n), &query))
            .sum()
    }

    /// [`GridIndex::count_queries`] of the queries `range`, on this thread. On a
    /// grid of [`PREFETCH_FROM`] agents or more, the memory of later queries is
    /// fetched ahead: the cell starts of query `i + 8` and the first boxes of
    /// query `i + 4`, so that the misses of several queries overlap.
    fn count_range(&self, range: Range<usize>, query: &impl Fn(usize) -> Aabb) -> u64 {
        if !self.fetch_ahead {
            return range.map(|i| self.query(&query(i))).sum();
        }
        let n = range.end;
        let mut hits = 0;
        for i in range {
            self.fetch_ahead_of::<false>(i, n, query);
            hits += self.query(&query(i));
        }
        hits
    }
}

/// The listing twins of the counting walks above, kept apart so that the
/// counting grid, the baseline every figure is quoted against, runs the code
/// it was measured with.
impl GridIndex {
    /// [`query_level`](Self::query_level)'s hits, each one's id to `hit`.
    #[inline(always)]
    fn ids_in_level(&self, l: &Level, q: &Aabb, qv: &[f32; 4], hit: &mut impl FnMut(u32)) {
        let (x0, x1) = (l.cell_of(q.x1 - l.reach), l.cell_of(q.x2));
        let (y0, y1) = (l.cell_of(q.y1 - l.reach), l.cell_of(q.y2));
        for cy in y0..=y1 {
            let row = l.base + cy * l.cols;
            let (a, b) = (self.starts[row + x0], self.starts[row + x1 + 1]);
            each_in_window(
                &self.boxes,
                a as usize,
                b as usize,
                qv,
                |p| hit(self.ids[p]),
            );
        }
    }

    /// [`pairs_in_rows`](Self::pairs_in_rows)'s pairs, each added to `out`
    /// (the querying box's id first).
    fn list_pairs_in_rows(&self, j: usize, rows: Range<usize>, out: &mut Vec<(u32, u32)>) {
        let l = &self.active[j];
        let cols = l.cols;
        for cy in rows {
            let row = l.base + cy * cols;
            let (first, last) = (self.starts[row] as usize, self.starts[row + cols] as usize);
            for p in first..last {
                let (a, id) = (self.boxes[p], self.ids[p]);
                let qv = [-a[2], -a[3], -a[0], -a[1]];
                let x0 = l.cell_of(a[0] - l.reach);
                let (x1, y1) = (l.cell_of(-a[2]), l.cell_of(-a[3]));
                let mut pair = |other: usize| out.push((id, self.ids[other]));
                let end = (self.starts[row + x1 + 1] as usize).max(p + 1);
                each_in_window(&self.boxes, p + 1, end, &qv, &mut pair);
                for cy2 in cy + 1..=y1 {
                    let row2 = l.base + cy2 * cols;
                    let (s, e) = (self.starts[row2 + x0], self.starts[row2 + x1 + 1]);
                    each_in_window(&self.boxes, s as usize, e as usize, &qv, &mut pair);
                }
                if j > 0 {
                    let q = Aabb {
                        x1: a[0],
                        y1: a[1],
                        x2: -a[2],
                        y2: -a[3],
                    };
                    for finer in &self.active[..j] {
                        self.ids_in_level(finer, &q, &qv, &mut |other| out.push((id, other)));
                    }
                }
            }
        }
    }

    /// The pairs on several threads, each band's in a list of its own (kept
    /// in [`listed`](Self::listed)); returns how many.
    fn list_pairs(&mut self) -> u64 {
        let mut listed = std::mem::take(&mut self.listed);
        let (mut pairs, mut bands) = (0, 0);
        for j in 0..self.active.len() {
            let cols = self.active[j].cols;
            // Bands as the counting walk's.
            let band = cols.div_ceil(self.threads * 8).max(1);
            let count = cols.div_ceil(band);
            listed.resize_with(bands + count, Listed::default);
            pairs += listed[bands..]
                .par_iter_mut()
                .enumerate()
                .map(|(b, out)| {
                    out.clear();
                    let rows = b * band..((b + 1) * band).min(cols);
                    self.list_pairs_in_rows(j, rows, &mut out.pairs);
                    out.pairs.len() as u64
                })
                .sum::<u64>();
            bands += count;
        }
        self.listed = listed;
        pairs
    }

    /// The fetches ahead before query `i` of a range ending at `end`: the cell
    /// starts of query `i + 8`, and the first boxes of query `i + 4` (with
    /// `IDS`, their ids too, for the listing queries).
    #[inline(always)]
    fn fetch_ahead_of<const IDS: bool>(
        &self,
        i: usize,
        end: usize,
        query: &impl Fn(usize) -> Aabb,
    ) {
        const AHEAD: usize = 8;
        if i + AHEAD < end {
            let q = query(i + AHEAD);
            for l in &self.active {
                let x0 = l.cell_of(q.x1 - l.reach);
                for cy in l.cell_of(q.y1 - l.reach)..=l.cell_of(q.y2) {
                    prefetch(&self.starts[l.base + cy * l.cols + x0]);
                }
            }
        }
        if i + AHEAD / 2 < end {
            let q = query(i + AHEAD / 2);
            for l in &self.active {
                let x0 = l.cell_of(q.x1 - l.reach);
                for cy in l.cell_of(q.y1 - l.reach)..=l.cell_of(q.y2) {
                    let a = self.starts[l.base + cy * l.cols + x0] as usize;
                    if let Some(b) = self.boxes.get(a) {
                        prefetch(b);
                    }
                    if let (true, Some(id)) = (IDS, self.ids.get(a)) {
                        prefetch(id);
                    }
                }
            }
        }
    }

    /// The queries `query(0..n)`, each one's hits handed out as a row of ids
    /// (all but `omit(i)`), in tasks of [`count_queries`](Self::count_queries)'s
    /// chunks on several threads, else in batches of `batch` (one list,
    /// holding the last batch's rows); returns how many ids were handed out.
    fn list_queries(
        &mut self,
        n: usize,
        batch: usize,
        query: impl Fn(usize) -> Aabb + Sync,
        omit: impl Fn(usize) -> u32 + Sync,
    ) -> u64 {
        let mut listed = std::mem::take(&mut self.listed);
        // `fetched`: where the fetches ahead stop, the end of the task's
        // range (as `count_range`'s), on one thread the end of all the queries.
        let answer = |range: Range<usize>, fetched: usize, rows: &mut Listed| {
            rows.clear();
            for i in range {
                if self.fetch_ahead {
                    self.fetch_ahead_of::<true>(i, fetched, &query);
                }
                rows.offsets.push(rows.hits.len() as u32);
                let (q, skip) = (query(i), omit(i));
                let qv = [q.x2, q.y2, -q.x1, -q.y1];
                for l in &self.active {
                    self.ids_in_level(l, &q, &qv, &mut |id| {
                        if id != skip {
                            rows.hits.push(id);
                        }
                    });
                }
            }
            rows.offsets.push(rows.hits.len() as u32);
            rows.hits.len() as u64
        };
        let hits = if self.threads > 1 {
            let chunk = n.div_ceil(self.threads * 16).max(1024);
            listed.resize_with(n.div_ceil(chunk), Listed::default);
            listed
                .par_iter_mut()
                .enumerate()
                .map(|(c, rows)| {
                    let range = c * chunk..((c + 1) * chunk).min(n);
                    let end = range.end;
                    answer(range, end, rows)
                })
                .sum()
        } else {
            listed.resize_with(1, Listed::default);
            (0..n.div_ceil(batch))
                .map(|c| answer(c * batch..((c + 1) * batch).min(n), n, &mut listed[0]))
                .sum()
        };
        self.listed = listed;
        hits
    }
}

/// The positions of the boxes of `boxes[start..end]` that meet the query
/// `qv`, in order, to `hit`: [`count_window`]'s tests, then each set bit of
/// the window's mask.
#[inline(always)]
fn each_in_window(
    boxes: &[[f32; 4]],
    start: usize,
    end: usize,
    qv: &[f32; 4],
    mut hit: impl FnMut(usize),
) {
    let meets =
        |b: &[f32; 4]| (b[0] <= qv[0]) & (b[1] <= qv[1]) & (b[2] <= qv[2]) & (b[3] <= qv[3]);
    let len = end.saturating_sub(start);
    if len <= WINDOW {
        if let Some(window) = boxes.get(start..start + WINDOW) {
            let mut mask = 0u32;
            for (k, b) in window.iter().enumerate() {
                mask |= (((k < len) & meets(b)) as u32) << k;
            }
            while mask != 0 {
                hit(start + mask.trailing_zeros() as usize);
                mask &= mask - 1;
            }
            return;
        }
    }
    for (k, b) in boxes[start..end].iter().enumerate() {
        if meets(b) {
            hit(start + k);
        }
    }
}

/// How many agents ahead the update fetches the cells.
const PREFETCH_AHEAD: usize = 16;

/// Agents from which the sort and the queries fetch ahead. Measured on this
/// machine (2026-11-27, `peers --only grid`, alternating builds): at uniform-1m
/// fetching ahead saves 5% of the sort (14.0 against 14.8 ms) and half the
/// per-agent queries (47–59 against 80–114 ms); at 100,000 agents, whose grid
/// stays in the caches, it made the sort 12% slower (0.91 against 0.81), the
/// per-agent queries 43% (4.0 against 2.8), static rect queries 37% (37.0
/// against 27.1) and point queries 23% (30.3 against 24.7). Nothing was measured
/// between the two sizes: this is a point between them.
const PREFETCH_FROM: usize = 500_000;

/// A hint to fetch the cache line of `v` (no-op off x86-64).
#[inline(always)]
fn prefetch<T>(v: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing and cannot fault; SSE is part of x86-64.
    #[allow(unused_unsafe)]
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(v as *const T as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = v;
}

/// How many boxes of `run` meet the query `qv` (closed): `b[k] <= qv[k]` on all
/// four lanes.
#[inline(always)]
fn count_window(boxes: &[[f32; 4]], start: usize, end: usize, qv: &[f32; 4]) -> u64 {
    let len = end.saturating_sub(start);
    if len <= WINDOW {
        // A short run (nearly all of them): a fixed window, the boxes past the run
        // masked out, no branch on its length.
        if let Some(window) = boxes.get(start..start + WINDOW) {
            let mut n = 0u32;
            for (k, b) in window.iter().enumerate() {
                n += ((k < len)
                    & (b[0] <= qv[0])
                    & (b[1] <= qv[1])
                    & (b[2] <= qv[2])
                    & (b[3] <= qv[3])) as u32;
            }
            return n as u64;
        }
    }
    count_run(&boxes[start..end], qv)
}

/// The boxes [`count_window`] tests at once; `boxes` has that many more at the end.
const WINDOW: usize = 8;

#[inline(always)]
fn count_run(run: &[[f32; 4]], qv: &[f32; 4]) -> u64 {
    let mut n = 0u32;
    for b in run {
        n += ((b[0] <= qv[0]) & (b[1] <= qv[1]) & (b[2] <= qv[2]) & (b[3] <= qv[3])) as u32;
    }
    n as u64
}

impl Index for GridIndex {
    fn name(&self) -> &'static str {
        self.name
    }

    fn threads(&self) -> usize {
        self.threads
    }

    fn supports(&self, mode: Mode) -> bool {
        mode != Mode::Events
    }

    fn build(&mut self, agents: &Agents) -> Result<(), BenchError> {
        let cell = self.size * self.factor;
        if cell.is_nan() || cell <= 0.0 {
            return Err(BenchError::new("grid: the cell side must be positive"));
        }
        self.levels.clear();
        let mut base = 0;
        let mut side = cell;
        while self.levels.len() < MAX_LEVELS {
            let cols = ((agents.world / side).ceil() as usize).max(1);
            self.levels.push(Level {
                inv_cell: 1.0 / side,
                side,
                cols,
                base,
                count: 0,
                reach: 0.0,
            });
            base += cols * cols + 1;
            if cols == 1 {
                break;
            }
            side *= 2.0;
        }
        self.starts = vec![0; base];
        self.active = Vec::with_capacity(self.levels.len());
        self.keys.clear();
        self.update(agents)
    }

    fn update(&mut self, agents: &Agents) -> Result<(), BenchError> {
        let n = agents.len();
        if self.keys.len() != n {
            self.keys.resize(n, 0);
            // Padded for the windows of `count_window`.
            self.boxes.resize(n + WINDOW, [f32::INFINITY; 4]);
            self.ids.resize(n, 0);
        }
        // Back to all-zero counts on the levels the last frame used.
        for l in &mut self.levels {
            if l.count > 0 {
                self.starts[l.base..=l.base + l.cols * l.cols].fill(0);
                l.count = 0;
                l.reach = 0.0;
            }
        }
        // Count: each agent's cell (by its min corner) and level, the largest side
        // of each level, and the largest coordinate (for the padding of `reach`).
        let l0 = self.levels[0];
        let (mut count0, mut reach0) = (0u32, 0f32);
        let mut top = 0f32;
        let xs = &agents.x[..n];
        let ys = &agents.y[..n];
        let sides = &agents.side[..n];
        for (i, key) in self.keys.iter_mut().enumerate() {
            // The workload's rectangle, the same arithmetic as `Agents::rect`.
            let (x, y, s) = (xs[i], ys[i], sides[i]);
            let (x2, y2) = (x + s, y + s);
            let w = (x2 - x).max(y2 - y);
            top = top.max(x2).max(y2);
            let k = if w <= l0.side {
                count0 += 1;
                reach0 = reach0.max(w);
                l0.base + l0.cell_of(y) * l0.cols + l0.cell_of(x)
            } else {
                let at = Self::level_of(&self.levels, w);
                let l = &mut self.levels[at];
                l.count += 1;
                l.reach = l.reach.max(w);
                l.base + l.cell_of(y) * l.cols + l.cell_of(x)
            };
            *key = k as u32;
        }
        // The counts, the cells of later agents fetched ahead (the cells are
        // visited in agent order, that is at random) on a large grid.
        let fetch = n >= self.prefetch_from;
        self.fetch_ahead = fetch;
        for (i, &k) in self.keys.iter().enumerate() {
            if fetch {
                if let Some(&ahead) = self.keys.get(i + PREFETCH_AHEAD) {
                    prefetch(&self.starts[ahead as usize]);
                }
            }
            self.starts[k as usize] += 1;
        }
        self.levels[0].count += count0;
        self.levels[0].reach = self.levels[0].reach.max(reach0);
        // Inclusive prefix sums, level after level; the scatter below takes each
        // cell's end down to its start. `reach` padded: for an element meeting a
        // query, `|q.x1| <= top`, so `q.x1 - reach` is rounded by less than
        // `(top + reach) * 2^-24`, and an element's side `x2 - x1` was rounded by
        // less than `reach * 2^-24`.
        self.active.clear();
        let mut sum = 0u32;
        for l in &mut self.levels {
            if l.count == 0 {
                continue;
            }
            let cells = l.cols * l.cols;
            for s in &mut self.starts[l.base..l.base + cells] {
                sum += *s;
                *s = sum;
            }
            self.starts[l.base + cells] = sum;
            l.reach += (l.reach + top.abs()) * (1.0 / 1048576.0);
            self.active.push(*l);
        }
        for (i, &k) in self.keys.iter().enumerate() {
            // Fetched ahead on a large grid: the cells of later agents, then
            // the slots they go to.
            if fetch {
                if let Some(&ahead) = self.keys.get(i + PREFETCH_AHEAD) {
                    prefetch(&self.starts[ahead as usize]);
                }
                if let Some(&ahead) = self.keys.get(i + PREFETCH_AHEAD / 2) {
                    let p = (self.starts[ahead as usize] as usize).saturating_sub(1);
                    prefetch(&self.boxes[p]);
                    prefetch(&self.ids[p]);
                }
            }
            let (x, y, s) = (xs[i], ys[i], sides[i]);
            let slot = &mut self.starts[k as usize];
            *slot -= 1;
            let p = *slot as usize;
            self.boxes[p] = [x, y, -(x + s), -(y + s)];
            self.ids[p] = i as u32;
        }
        Ok(())
    }

    fn per_agent(&mut self, agents: &Agents) -> Result<u64, BenchError> {
        if self.lists {
            // Each agent's row of ids, itself left out (in the adapter's
            // batches on one thread).
            let n = agents.len();
            return Ok(self.list_queries(n, PER_AGENT_BATCH, |i| agents.rect(i), |i| i as u32));
        }
        let hits = self.count_queries(agents.len(), |i| agents.rect(i));
        // Each agent met itself once.
        Ok(hits.saturating_sub(agents.len() as u64))
    }

    fn all_pairs(&mut self, _agents: &Agents) -> Result<u64, BenchError> {
        if self.lists && self.threads > 1 {
            return Ok(self.list_pairs());
        }
        let mut pairs = 0u64;
        for j in 0..self.active.len() {
            let cols = self.active[j].cols;
            if self.threads > 1 {
                // Bands of rows, several a thread so that a band of dense rows
                // does not hold the others up.
                let band = cols.div_ceil(self.threads * 8).max(1);
                pairs += (0..cols.div_ceil(band))
                    .into_par_iter()
                    .map(|b| self.pairs_in_rows(j, b * band..((b + 1) * band).min(cols)))
                    .sum::<u64>();
            } else {
                pairs += self.pairs_in_rows(j, 0..cols);
            }
        }
        Ok(pairs)
    }

    fn rect_queries(&mut self, queries: &[Aabb]) -> Result<u64, BenchError> {
        if self.lists && self.threads > 1 {
            let n = queries.len();
            return Ok(self.list_queries(n, n, |i| queries[i], |_| u32::MAX));
        }
        Ok(self.count_queries(queries.len(), |i| queries[i]))
    }

    fn point_queries(&mut self, points: &[[f32; 2]]) -> Result<u64, BenchError> {
        let point = |i: usize| {
            let [x, y] = points[i];
            Aabb::point(x, y)
        };
        if self.lists && self.threads > 1 {
            let n = points.len();
            return Ok(self.list_queries(n, n, point, |_| u32::MAX));
        }
        Ok(self.count_queries(points.len(), point))
    }

    fn bytes(&self) -> Option<usize> {
        Some(
            self.boxes.capacity() * std::mem::size_of::<[f32; 4]>()
                + (self.ids.capacity() + self.keys.capacity() + self.starts.capacity()) * 4,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Lcg;

    /// Agents of every size from 0 to wider than the world, some outside it,
    /// some stacked, in a world of `world`.
    fn odd_agents(world: f32, n: usize) -> Agents {
        let mut rng = Lcg::new();
        let mut agents = Agents {
            x: Vec::new(),
            y: Vec::new(),
            vx: Vec::new(),
            vy: Vec::new(),
            z: Vec::new(),
            vz: Vec::new(),
            side: Vec::new(),
            world,
        };
        for i in 0..n {
            let side = match i % 7 {
                0 => 0.0,
                1 => 4.0 * (1.0 + 60.0 * rng.f()),
                2 => world * 1.5 * rng.f(),
                3 => 1.0 / 3.0,
                _ => 4.0,
            };
            let (x, y) = if i % 11 == 0 {
                (world * 0.5, world * 0.5)
            } else {
                (world * (1.4 * rng.f() - 0.2), world * (1.4 * rng.f() - 0.2))
            };
            agents.x.push(x);
            agents.y.push(y);
            agents.vx.push(0.0);
            agents.vy.push(0.0);
            agents.side.push(side);
        }
        agents
    }

    /// The rows the last listed queries handed out, in query order.
    fn rows(grid: &GridIndex) -> Vec<&[u32]> {
        grid.listed
            .iter()
            .flat_map(|l| {
                l.offsets
                    .windows(2)
                    .map(|w| &l.hits[w[0] as usize..w[1] as usize])
            })
            .collect()
    }

    /// Asserts that `rows` holds, for each of the `queries`, the ids of the
    /// `rects` it meets.
    fn assert_rows(rows: &[&[u32]], rects: &[Aabb], queries: &[Aabb], what: &str) {
        assert_eq!(rows.len(), queries.len(), "{what}");
        for (q, row) in queries.iter().zip(rows) {
            let mut row = row.to_vec();
            row.sort_unstable();
            let met: Vec<u32> = (0..rects.len() as u32)
                .filter(|&i| rects[i as usize].overlaps(q))
                .collect();
            assert_eq!(row, met, "{what}: a query's row");
        }
    }

    fn brute(rects: &[Aabb], q: &Aabb) -> u64 {
        rects.iter().filter(|r| r.overlaps(q)).count() as u64
    }

    #[test]
    fn exact_on_odd_agents() {
        let world = 1000.0;
        let agents = odd_agents(world, 3000);
        let rects: Vec<Aabb> = agents.rects().collect();
        let pairs = crate::oracle::count_pairs(&rects);
        let mut rng = Lcg::new();
        let queries: Vec<Aabb> = (0..500)
            .map(|i| {
                let (x, y) = (world * (1.6 * rng.f() - 0.3), world * (1.6 * rng.f() - 0.3));
                let side = [0.0, 3.0, 50.0, 2000.0][i % 4];
                Aabb {
                    x1: x,
                    y1: y,
                    x2: x + side,
                    y2: y + side,
                }
            })
            .collect();
        let expected: u64 = queries.iter().map(|q| brute(&rects, q)).sum();
        let points: Vec<[f32; 2]> = queries.iter().map(|q| [q.x1, q.y1]).collect();
        let expected_points: u64 = points
            .iter()
            .map(|&[x, y]| brute(&rects, &Aabb::point(x, y)))
            .sum();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let configs = [
            (0.25, 1),
            (1.0, 1),
            (4.0, 1),
            (1000.0, 1),
            (1.0, 2),
            (4.0, 3),
        ];
        let keys = crate::oracle::agent_pair_keys(&agents);
        let key = crate::oracle::pair_key;
        // Each with and without fetching ahead (which takes 500,000 agents),
        // counting and listing.
        for (((factor, threads), prefetch_from), lists) in configs
            .into_iter()
            .flat_map(|config| [(config, PREFETCH_FROM), (config, 0)])
            .flat_map(|config| [(config, false), (config, true)])
        {
            let mut grid = GridIndex::new(4.0, factor);
            if lists {
                grid = grid.listing_ids();
            }
            let mut grid = grid.with_threads(threads, "grid (threads)");
            grid.prefetch_from = prefetch_from;
            grid.build(&agents).unwrap();
            // Twice: the second frame reuses the first one's buffers.
            pool.install(|| {
                for _ in 0..2 {
                    grid.update(&agents).unwrap();
                    let what =
                        format!("factor {factor}, {threads} threads, {prefetch_from}, {lists}");
                    let listed = lists && threads > 1;
                    assert_eq!(grid.all_pairs(&agents).unwrap(), pairs, "{what}");
                    if listed {
                        let mut got: Vec<u64> = grid
                            .listed
                            .iter()
                            .flat_map(|l| &l.pairs)
                            .map(|&(a, b)| key(a, b))
                            .collect();
                        got.sort_unstable();
                        assert_eq!(got, keys, "{what}: the pairs listed");
                    }
                    assert_eq!(grid.per_agent(&agents).unwrap(), 2 * pairs, "{what}");
                    if lists {
                        if threads == 1 {
                            // Its list holds the last batch's rows: all the
                            // agents' rows in one batch instead.
                            let n = agents.len();
                            grid.list_queries(n, n, |i| agents.rect(i), |i| i as u32);
                        }
                        // Each pair once from each of its agents.
                        let rows = rows(&grid);
                        assert_eq!(rows.len(), agents.len(), "{what}");
                        let mut got: Vec<u64> = rows
                            .iter()
                            .enumerate()
                            .flat_map(|(i, row)| row.iter().map(move |&id| key(i as u32, id)))
                            .collect();
                        got.sort_unstable();
                        let twice: Vec<u64> = keys.iter().flat_map(|&k| [k, k]).collect();
                        assert_eq!(got, twice, "{what}: the agents' rows");
                    }
                    assert_eq!(grid.rect_queries(&queries).unwrap(), expected, "{what}");
                    if listed {
                        assert_rows(&rows(&grid), &rects, &queries, &what);
                    }
                    let hits = grid.point_queries(&points).unwrap();
                    assert_eq!(hits, expected_points, "{what}");
                    if listed {
                        let points: Vec<Aabb> =
                            points.iter().map(|&[x, y]| Aabb::point(x, y)).collect();
                        assert_rows(&rows(&grid), &rects, &points, &what);
                    }
                }
            });
        }
    }
}
