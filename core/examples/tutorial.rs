//! The agents tutorial of the documentation site (docs/guide/agents.md): the
//! agents workload's uniform-100k on a grid, all pairs every frame. Prints the
//! workload's checksum, 38442 ordered pairs a frame.
//!
//! cargo run --release -p flatquad --example tutorial

use std::ops::ControlFlow;

use flatquad::{Grid, Handle, Rect, SpatialIndex};

/// The workload's generator: a 32-bit LCG, one draw in [0, 1).
struct Lcg(u32);
impl Lcg {
    fn f(&mut self) -> f32 {
        self.0 = self.0.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (self.0 >> 8) as f32 * (1.0 / 16_777_216.0)
    }
}

fn main() -> Result<(), flatquad::Error> {
    let (n, world, size) = (100_000, 4096.0_f32, 4.0_f32);
    let mut rng = Lcg(12345);
    let mut agents: Vec<[f32; 4]> = (0..n)
        .map(|_| {
            let x = rng.f() * (world - size);
            let y = rng.f() * (world - size);
            [x, y, rng.f() * 2.0 - 1.0, rng.f() * 2.0 - 1.0] // x, y, vx, vy
        })
        .collect();
    let rect = |a: &[f32; 4]| Rect::new(a[0], a[1], a[0] + size, a[1] + size);

    // Cells of about 6 agent sides; any other structure works the same way.
    let mut index = Grid::with_cell_size(Rect::new(0.0, 0.0, world, world), 24.0, 24.0)?;
    let rects: Vec<Rect> = agents.iter().map(rect).collect();
    let ids: Vec<u32> = (0..n as u32).collect();
    let mut handles: Vec<Handle> = Vec::new();
    index.insert_many(&rects, &ids, &mut handles)?; // handles[i] names agent i

    let mut rects = rects; // reused every frame: no allocation in steady state
    let mut counted = 0u64;
    for frame in 0..12 {
        // 1. Move: bounce off the world's edges, then tell the index.
        for (a, r) in agents.iter_mut().zip(rects.iter_mut()) {
            a[0] += a[2];
            a[1] += a[3];
            if a[0] < 0.0 {
                a[0] = 0.0;
                a[2] = -a[2];
            }
            if a[0] > world - size {
                a[0] = world - size;
                a[2] = -a[2];
            }
            if a[1] < 0.0 {
                a[1] = 0.0;
                a[3] = -a[3];
            }
            if a[1] > world - size {
                a[1] = world - size;
                a[3] = -a[3];
            }
            *r = rect(a);
        }
        index.update_many(&handles, &rects)?;
        // 2. Clean up once a frame.
        index.cleanup();
        // 3. Collide: every overlapping pair once.
        let mut pairs = 0u64;
        let _ = index.pairs_with(|_, _| {
            pairs += 1;
            ControlFlow::Continue(())
        });
        if frame >= 2 {
            counted += 2 * pairs; // ordered pairs, frames 0 and 1 being warm-up
        }
    }
    println!("{} ordered pairs a frame", counted / 10);
    assert_eq!(counted / 10, 38442, "the workload's checksum");
    Ok(())
}
