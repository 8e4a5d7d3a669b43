//! flat_spatial's `AABBGrid`: a sparse (hashed) grid of cells, each listing the
//! rectangles that touch it.

use flat_spatial::aabbgrid::AABBGridHandle;
use flat_spatial::AABBGrid;

use crate::workload::{Aabb, Agents};
use crate::{BenchError, Index, Mode};

/// The rectangle type stored in the grid.
#[derive(Clone, Copy, Debug)]
struct Rect(Aabb);

impl flat_spatial::AABB for Rect {
    type V2 = [f32; 2];

    fn ll(&self) -> [f32; 2] {
        [self.0.x1, self.0.y1]
    }

    fn ur(&self) -> [f32; 2] {
        [self.0.x2, self.0.y2]
    }
}

/// flat_spatial's `AABBGrid` under the agents workload, per-agent only: update is
/// `set_aabb` for every agent. flat_spatial's own overlap test compares
/// `|(a.x1 + a.x2) - (b.x1 + b.x2)| <= (a.x2 - a.x1) + (b.x2 - b.x1)` in `f32`, which
/// rounding makes inexact: it can drop pairs that touch or add pairs a hair apart.
/// So the queries use `query_broad_visitor` (every rectangle sharing a cell with the
/// query, each once) and apply the exact closed test to those candidates; the same
/// for the static scenarios' queries, a point being a zero-size rectangle. (A query
/// inside one cell that holds nothing makes `query_broad_visitor` panic: such
/// queries are answered 0 before calling it, an extra hash lookup.)
pub struct FlatSpatialIndex {
    cell: i32,
    grid: AABBGrid<u32, Rect>,
    handles: Vec<AABBGridHandle>,
}

impl FlatSpatialIndex {
    /// Cell side in agent sides used by the benchmarks: the fastest of 1, 2, 4, 8 and 16
    /// on `uniform-100k` (8).
    pub const DEFAULT_FACTOR: f32 = 8.0;

    /// An adapter with integer cells of side `factor * size` (at least 1).
    pub fn new(size: f32, factor: f32) -> Self {
        let cell = ((size * factor).round() as i32).max(1);
        FlatSpatialIndex {
            cell,
            grid: AABBGrid::new(cell),
            handles: Vec::new(),
        }
    }

    /// The total hits of `queries` (a point being a zero-size rectangle).
    fn count_hits(&self, queries: impl IntoIterator<Item = Aabb>) -> Result<u64, BenchError> {
        let grid = &self.grid;
        let storage = grid.storage();
        let mut hits = 0u64;
        for q in queries {
            // A query inside one cell that no agent ever entered: the library's
            // one-cell path unwraps that cell (a panic), so answer 0 here.
            let cell = storage.cell_id([q.x1, q.y1]);
            if cell == storage.cell_id([q.x2, q.y2]) && storage.cell(cell).is_none() {
                continue;
            }
            grid.query_broad_visitor(Rect(q), |other| {
                if let Some(o) = grid.get(other) {
                    if o.aabb.0.overlaps(&q) {
                        hits += 1;
                    }
                }
            });
        }
        Ok(hits)
    }
}

impl Index for FlatSpatialIndex {
    fn name(&self) -> &'static str {
        "flat_spatial"
    }

    fn supports(&self, mode: Mode) -> bool {
        !matches!(mode, Mode::AllPairs | Mode::Events)
    }

    fn build(&mut self, agents: &Agents) -> Result<(), BenchError> {
        self.grid = AABBGrid::new(self.cell);
        self.handles = agents
            .rects()
            .enumerate()
            .map(|(id, r)| self.grid.insert(Rect(r), id as u32))
            .collect();
        Ok(())
    }

    fn update(&mut self, agents: &Agents) -> Result<(), BenchError> {
        for (&handle, r) in self.handles.iter().zip(agents.rects()) {
            self.grid.set_aabb(handle, Rect(r));
        }
        Ok(())
    }

    fn per_agent(&mut self, agents: &Agents) -> Result<u64, BenchError> {
        let grid = &self.grid;
        let mut hits = 0u64;
        for (&handle, q) in self.handles.iter().zip(agents.rects()) {
            grid.query_broad_visitor(Rect(q), |other| {
                if other != handle {
                    if let Some(o) = grid.get(other) {
                        if o.aabb.0.overlaps(&q) {
                            hits += 1;
                        }
                    }
                }
            });
        }
        Ok(hits)
    }

    fn rect_queries(&mut self, queries: &[Aabb]) -> Result<u64, BenchError> {
        self.count_hits(queries.iter().copied())
    }

    fn point_queries(&mut self, points: &[[f32; 2]]) -> Result<u64, BenchError> {
        self.count_hits(points.iter().map(|&[x, y]| Aabb::point(x, y)))
    }
}
