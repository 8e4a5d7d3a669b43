//! The baseline: a uniform grid rebuilt from scratch every frame by a counting sort.
//! It is the floor a smart index has to get under on uniform scenarios.

use crate::workload::{Aabb, Agents};
use crate::{BenchError, Index, Mode};

/// One grid entry: a copy of the rectangle, so that a cell's scan reads one array.
#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    rect: Aabb,
    id: u32,
}

/// A uniform grid over the world with square cells of `factor * size`. Every agent
/// goes into every cell its closed rectangle touches; update re-sorts all agents into
/// the cells with a two-pass counting sort. A pair is counted only in the cell that
/// holds the lower-left corner of the two rectangles' intersection, so each is
/// counted once although both rectangles may share several cells; a rectangle query
/// counts a hit by the same rule, a point query looks in the point's one cell.
#[derive(Clone, Debug)]
pub struct GridIndex {
    size: f32,
    factor: f32,
    inv_cell: f32,
    cols: usize,
    /// `starts[c]..starts[c + 1]` are cell `c`'s entries (`c = cy * cols + cx`).
    starts: Vec<u32>,
    /// Scratch for the counting sort: the next free slot of each cell.
    cursor: Vec<u32>,
    entries: Vec<Entry>,
}

impl GridIndex {
    /// Cell side in agent sides used by the benchmarks: the fastest of 1, 2, 4, 8 and 16
    /// on `uniform-100k` (4).
    pub const DEFAULT_FACTOR: f32 = 4.0;

    /// A grid whose cells have side `factor * size`, `size` being the (typical)
    /// agent side. The world comes from the agents at [`Index::build`].
    pub fn new(size: f32, factor: f32) -> Self {
        GridIndex {
            size,
            factor,
            inv_cell: 1.0,
            cols: 1,
            starts: Vec::new(),
            cursor: Vec::new(),
            entries: Vec::new(),
        }
    }

    /// The column (or row) of coordinate `v`: monotone in `v`, clamped to the grid.
    #[inline]
    fn cell_of(&self, v: f32) -> usize {
        ((v * self.inv_cell) as usize).min(self.cols - 1)
    }

    /// The cells `(cx1, cy1, cx2, cy2)` a rectangle touches, inclusive.
    #[inline]
    fn cells(&self, r: &Aabb) -> (usize, usize, usize, usize) {
        (
            self.cell_of(r.x1),
            self.cell_of(r.y1),
            self.cell_of(r.x2),
            self.cell_of(r.y2),
        )
    }

    /// Whether the pair `(a, b)`, known to overlap, is to be counted in cell
    /// `(cx, cy)`: the one holding the lower-left corner of their intersection.
    #[inline]
    fn owns(&self, a: &Aabb, b: &Aabb, cx: usize, cy: usize) -> bool {
        self.cell_of(a.x1.max(b.x1)) == cx && self.cell_of(a.y1.max(b.y1)) == cy
    }

    fn cell(&self, c: usize) -> &[Entry] {
        &self.entries[self.starts[c] as usize..self.starts[c + 1] as usize]
    }
}

impl Index for GridIndex {
    fn name(&self) -> &'static str {
        "grid"
    }

    fn supports(&self, _mode: Mode) -> bool {
        true
    }

    fn build(&mut self, agents: &Agents) -> Result<(), BenchError> {
        let cell = self.size * self.factor;
        if cell.is_nan() || cell <= 0.0 {
            return Err(BenchError::new("grid: the cell side must be positive"));
        }
        self.inv_cell = 1.0 / cell;
        self.cols = ((agents.world / cell).ceil() as usize).max(1);
        let cells = self.cols * self.cols;
        self.starts = vec![0; cells + 1];
        self.cursor = vec![0; cells];
        self.update(agents)
    }

    fn update(&mut self, agents: &Agents) -> Result<(), BenchError> {
        let cols = self.cols;
        self.starts.fill(0);
        for r in agents.rects() {
            let (x1, y1, x2, y2) = self.cells(&r);
            for cy in y1..=y2 {
                for cx in x1..=x2 {
                    self.starts[cy * cols + cx] += 1;
                }
            }
        }
        // Exclusive prefix sum: counts become start offsets; `starts[cells]` the total.
        let mut sum = 0u32;
        for (start, cursor) in self.starts.iter_mut().zip(self.cursor.iter_mut()) {
            let count = *start;
            *start = sum;
            *cursor = sum;
            sum += count;
        }
        *self.starts.last_mut().expect("starts is never empty") = sum;
        self.entries.clear();
        self.entries.resize(sum as usize, Entry::default());
        for (id, rect) in agents.rects().enumerate() {
            let (x1, y1, x2, y2) = self.cells(&rect);
            for cy in y1..=y2 {
                for cx in x1..=x2 {
                    let slot = &mut self.cursor[cy * cols + cx];
                    self.entries[*slot as usize] = Entry {
                        rect,
                        id: id as u32,
                    };
                    *slot += 1;
                }
            }
        }
        Ok(())
    }

    fn per_agent(&mut self, agents: &Agents) -> Result<u64, BenchError> {
        let mut hits = 0u64;
        for (id, q) in agents.rects().enumerate() {
            let (x1, y1, x2, y2) = self.cells(&q);
            for cy in y1..=y2 {
                for cx in x1..=x2 {
                    for e in self.cell(cy * self.cols + cx) {
                        if e.id as usize != id
                            && q.overlaps(&e.rect)
                            && self.owns(&q, &e.rect, cx, cy)
                        {
                            hits += 1;
                        }
                    }
                }
            }
        }
        Ok(hits)
    }

    fn all_pairs(&mut self, _agents: &Agents) -> Result<u64, BenchError> {
        let mut pairs = 0u64;
        for cy in 0..self.cols {
            for cx in 0..self.cols {
                let cell = self.cell(cy * self.cols + cx);
                for (i, a) in cell.iter().enumerate() {
                    for b in &cell[i + 1..] {
                        if a.rect.overlaps(&b.rect) && self.owns(&a.rect, &b.rect, cx, cy) {
                            pairs += 1;
                        }
                    }
                }
            }
        }
        Ok(pairs)
    }

    fn rect_queries(&mut self, queries: &[Aabb]) -> Result<u64, BenchError> {
        let mut hits = 0u64;
        for q in queries {
            let (x1, y1, x2, y2) = self.cells(q);
            for cy in y1..=y2 {
                for cx in x1..=x2 {
                    for e in self.cell(cy * self.cols + cx) {
                        if q.overlaps(&e.rect) && self.owns(q, &e.rect, cx, cy) {
                            hits += 1;
                        }
                    }
                }
            }
        }
        Ok(hits)
    }

    fn point_queries(&mut self, points: &[[f32; 2]]) -> Result<u64, BenchError> {
        // A point lies in one cell, and every rectangle holding it is listed there.
        let mut hits = 0u64;
        for &[x, y] in points {
            let q = Aabb {
                x1: x,
                y1: y,
                x2: x,
                y2: y,
            };
            let c = self.cell_of(y) * self.cols + self.cell_of(x);
            hits += self.cell(c).iter().filter(|e| e.rect.overlaps(&q)).count() as u64;
        }
        Ok(hits)
    }

    fn bytes(&self) -> Option<usize> {
        Some(
            self.entries.capacity() * std::mem::size_of::<Entry>()
                + (self.starts.capacity() + self.cursor.capacity()) * 4,
        )
    }
}
