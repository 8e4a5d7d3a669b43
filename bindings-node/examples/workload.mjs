// The agents of docs/workload.md, shared by the Node examples: the scenarios,
// the workload's 32-bit LCG and the initial agents, in f32 as
// bench/src/workload.rs draws them.

import { availableParallelism } from 'node:os'

export const SCENARIOS = {
  'uniform-100k': { layout: 'uniform', n: 100_000, world: 4096, size: 4, frames: 10, checksum: 38442 },
  'uniform-1m': { layout: 'uniform', n: 1_000_000, world: 12288, size: 4, frames: 3, checksum: 422580 },
  'uniform-20k': { layout: 'uniform', n: 20_000, world: 2048, size: 4, frames: 10, checksum: 6257 },
  'clustered-100k': { layout: 'clustered', n: 100_000, world: 4096, size: 4, frames: 10, checksum: null },
  'mixed-100k': { layout: 'mixed', n: 100_000, world: 4096, size: 4, frames: 10, checksum: null },
}
const CLUSTER_DISCS = 8
const CLUSTER_RADIUS = 128

export const f32 = Math.fround

// The threads of rayon's global pool, which flatquad's batch calls use:
// RAYON_NUM_THREADS as rayon reads it (a positive integer; anything else
// leaves every core).
export function poolThreads() {
  const value = process.env.RAYON_NUM_THREADS ?? ''
  return (/^\d+$/.test(value) && Number(value)) || availableParallelism()
}

// The workload's 32-bit LCG; one draw is (state >> 8) / 2^24, exact in f32.
export function lcg(seed = 12345) {
  let state = seed
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return (state >>> 8) * (1 / 16777216)
  }
}

// The initial agents: x, y, vx, vy and side, in f32, as workload.rs draws them,
// from `f` (a fresh generator unless given: a static scenario draws its queries
// from where the agents' draws end).
export function makeAgents({ layout, n, world, size }, f = lcg()) {
  const a = {
    n,
    world,
    x: new Float32Array(n),
    y: new Float32Array(n),
    vx: new Float32Array(n),
    vy: new Float32Array(n),
    side: new Float32Array(n),
  }
  const uniform = (i, s) => {
    a.x[i] = f32(f() * f32(world - s))
    a.y[i] = f32(f() * f32(world - s))
    a.vx[i] = f32(f32(f() * 2) - 1)
    a.vy[i] = f32(f32(f() * 2) - 1)
    a.side[i] = s
  }
  if (layout === 'uniform') {
    for (let i = 0; i < n; i++) uniform(i, size)
  } else if (layout === 'mixed') {
    for (let i = 0; i < n; i++) {
      const s = i % 100 === 0 ? f32(size * f32(32 + f32(f() * 32))) : size
      uniform(i, s)
    }
  } else {
    const r = CLUSTER_RADIUS
    const span = f32(f32(world - size) - 2 * r)
    const centres = []
    for (let k = 0; k < CLUSTER_DISCS; k++) {
      const cx = f32(r + f32(f() * span))
      const cy = f32(r + f32(f() * span))
      centres.push([cx, cy])
    }
    for (let i = 0; i < n; i++) {
      const m = i % 100
      if (m === 0) {
        a.x[i] = centres[0][0]
        a.y[i] = centres[0][1]
        a.vx[i] = 0
        a.vy[i] = 0
        a.side[i] = size
      } else if (m < 90) {
        const [cx, cy] = centres[i % CLUSTER_DISCS]
        let dx, dy
        do {
          dx = f32(f32(f() * 2) - 1)
          dy = f32(f32(f() * 2) - 1)
        } while (f32(f32(dx * dx) + f32(dy * dy)) > 1)
        a.vx[i] = f32(f32(f() * 2) - 1)
        a.vy[i] = f32(f32(f() * 2) - 1)
        a.x[i] = f32(cx + f32(dx * r))
        a.y[i] = f32(cy + f32(dy * r))
        a.side[i] = size
      } else {
        uniform(i, size)
      }
    }
  }
  return a
}

// The Rust demo's tree parameters (bench/src/flatquad_index.rs), chosen by
// measurement: 16 per leaf, and the deepest level whose cells are still at
// least four agent sides.
export const MAX_ELEMENTS = 16

export function defaultMaxDepth(world, size) {
  let depth = 0
  let cell = world
  while (depth < 30 && cell * 0.5 >= 4 * size) {
    cell *= 0.5
    depth++
  }
  return depth
}
