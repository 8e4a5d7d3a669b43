//! One axis of a uniform grid: where its cell borders lie, and which cell owns a
//! coordinate. Shared by the grids so that inserts, moves and queries take the
//! same decisions on the same `f32` values, which is what makes them exact.
//!
//! Border `k` of `n` cells lies at `origin + k · (size / n)`, computed in `f64`
//! and rounded once to `f32` (monotone, so borders stay in order); borders 0 and
//! `n` are -∞ and +∞, so the first and last cells own everything beyond the
//! world. Cell `c` owns the coordinates `v` with `border[c] < v <= border[c + 1]`:
//! every `f32` belongs to exactly one cell, and a closed interval `[a, b]` meets
//! cells `cell(a)..=cell(b)`.

/// The borders of `n` cells along one axis.
#[derive(Clone, Debug)]
pub(crate) struct Axis {
    origin: f64,
    /// Cells per unit of length, for the first guess of a cell.
    scale: f64,
    /// `n + 1` borders, the first -∞ and the last +∞.
    borders: Vec<f32>,
}

impl Axis {
    /// `cells` cells (at least 1) over `[origin, origin + size]` (`size > 0`, finite).
    pub fn new(origin: f32, size: f32, cells: u32) -> Axis {
        let (origin, size) = (origin as f64, size as f64);
        let step = size / cells as f64;
        let borders = (0..=cells)
            .map(|k| match k {
                0 => f32::NEG_INFINITY,
                k if k == cells => f32::INFINITY,
                k => (origin + k as f64 * step) as f32,
            })
            .collect();
        Axis {
            origin,
            scale: cells as f64 / size,
            borders,
        }
    }

    /// Number of cells.
    #[inline]
    pub fn cells(&self) -> u32 {
        (self.borders.len() - 1) as u32
    }

    /// The cell that owns the finite coordinate `v`.
    #[inline]
    pub fn cell(&self, v: f32) -> u32 {
        let last = self.borders.len() - 2;
        // A guess from the arithmetic, then the borders decide: the guess is off
        // by at most one where rounding put `v` on the other side of a border.
        // (`as i64` saturates, so any finite `v` gives a guess in range; a
        // float `clamp` and a cast to `usize` cost three times the instructions.)
        let guess = ((((v as f64 - self.origin) * self.scale) as i64).max(0) as usize).min(last);
        let mut c = guess;
        if v <= self.borders[c] {
            c -= 1;
            while v <= self.borders[c] {
                c -= 1;
            }
        } else {
            while v > self.borders[c + 1] {
                c += 1;
            }
        }
        c as u32
    }

    /// The cells a closed interval `[a, b]` meets, first and last.
    #[inline]
    pub fn span(&self, a: f32, b: f32) -> (u32, u32) {
        let first = self.cell(a);
        // Most intervals are shorter than a cell: two comparisons, no look-up.
        if self.owns(first, b) {
            (first, first)
        } else {
            (first, self.cell(b))
        }
    }

    /// [`span`](Axis::span) without its branch on whether the interval
    /// crosses a border: both ends looked up. Faster where that branch is a
    /// coin toss (the loose grid's queries and boxes, wider than its tight cells).
    #[inline]
    pub fn span_both(&self, a: f32, b: f32) -> (u32, u32) {
        (self.cell(a), self.cell(b))
    }

    /// Border `k` (0 to `cells()`): -∞ for 0, +∞ for `cells()`.
    #[inline]
    pub fn border(&self, k: u32) -> f32 {
        self.borders[k as usize]
    }

    /// Whether cell `c` owns `v`.
    #[inline]
    pub fn owns(&self, c: u32, v: f32) -> bool {
        (self.borders[c as usize] < v) & (v <= self.borders[c as usize + 1])
    }

    /// Cell `c`'s extent in world coordinates, bounded by the world (for drawing).
    pub fn extent(&self, c: u32) -> (f32, f32) {
        let step = 1.0 / self.scale;
        let at = |k: u32| (self.origin + k as f64 * step) as f32;
        (at(c), at(c + 1))
    }

    /// The width of one cell.
    pub fn cell_size(&self) -> f32 {
        (1.0 / self.scale) as f32
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.borders.capacity() * core::mem::size_of::<f32>()
    }
}

#[cfg(test)]
mod tests {
    use super::Axis;

    #[test]
    fn every_value_has_exactly_one_cell_and_cells_are_monotone() {
        for (origin, size, cells) in [
            (0.0f32, 4096.0f32, 256u32),
            (-1e6, 2e6, 1000),
            (1e-30, 3e-29, 7),
            (0.1, 0.3, 3),
            (16_777_216.0, 3.0, 5), // borders that f32 cannot tell apart
            (0.0, 1.0, 1),
        ] {
            let axis = Axis::new(origin, size, cells);
            let mut previous = 0;
            let mut v = -3.0e38f32;
            let probes: Vec<f32> = (0..2000)
                .map(|i| origin + size * (i as f32 / 1000.0 - 0.5))
                .chain([f32::MIN, -1e30, -0.0, 0.0, 1e30, f32::MAX])
                .chain((0..=cells).map(|k| axis.extent(k.min(cells - 1)).0))
                .collect();
            let mut sorted = probes.clone();
            sorted.sort_by(f32::total_cmp);
            for p in sorted {
                let c = axis.cell(p);
                assert!(c < cells);
                assert!(
                    axis.owns(c, p),
                    "{p} in cell {c} of {cells} over {origin}+{size}"
                );
                let owners = (0..cells).filter(|&k| axis.owns(k, p)).count();
                assert_eq!(owners, 1, "{p}");
                if p >= v {
                    assert!(c >= previous, "cells go down at {p}");
                }
                previous = c;
                v = p;
            }
        }
    }

    /// The branch-free span is the span: for every interval, on and around
    /// borders, within one cell and across many.
    #[test]
    fn span_both_is_span() {
        let axis = Axis::new(-10.0, 100.0, 17);
        let mut values: Vec<f32> = (0..=17)
            .map(|k| axis.border(k).clamp(f32::MIN, f32::MAX))
            .flat_map(|b| [b.next_down(), b, b.next_up()])
            .chain((0..300).map(|i| -20.0 + i as f32 * 0.41))
            .filter(|v| v.is_finite())
            .collect();
        values.sort_by(f32::total_cmp);
        for (i, &a) in values.iter().enumerate() {
            for &b in &values[i..] {
                assert_eq!(axis.span_both(a, b), axis.span(a, b), "[{a}, {b}]");
            }
        }
    }
}
