// Nearest-neighbour queries over the static agents of docs/workload.md (the
// initial positions of a scenario, uniform-100k by default), from Node, beside
// flatbush's neighbors(x, y, maxResults) in the same run: QUERIES random points
// (f32, in the world), k = 1 and k = 10.
//
//   node examples/nearest.mjs [SCENARIO] [--queries N] [--runs N] [--batch N]
//
// flatquad answers in batches (nearestMany, `--batch` points a call) and, for
// k = 1, also one nearest() call per point. Before timing, every answer of
// flatquad is checked against flatbush's: the distances of each point's
// neighbours, nearest first, must be equal (ties may name other elements);
// flatbush's are computed here in f64 from the boxes, as the core measures
// them. Each index runs `--runs` times round-robin; the medians and the ratio
// to flatbush are printed. Exits 1 if an answer differs. Not part of `make test`.

import { Quadtree } from 'flatquad'
import { MAX_ELEMENTS, SCENARIOS, defaultMaxDepth, lcg, makeAgents } from './workload.mjs'

function parseArgs(argv) {
  const args = { scenario: 'uniform-100k', queries: 1_000_000, runs: 3, batch: 100_000 }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--queries') args.queries = Number(argv[++i])
    else if (a === '--runs') args.runs = Number(argv[++i])
    else if (a === '--batch') args.batch = Number(argv[++i])
    else if (a in SCENARIOS) args.scenario = a
    else {
      console.error(`unknown argument ${a}; scenarios: ${Object.keys(SCENARIOS).join(', ')}`)
      process.exit(2)
    }
  }
  return args
}

/** The distance from (x, y) to box `i` of `boxes` (4 numbers each), as the core computes it. */
function distance(boxes, i, x, y) {
  const gx = Math.max(boxes[4 * i] - x, x - boxes[4 * i + 2], 0)
  const gy = Math.max(boxes[4 * i + 1] - y, y - boxes[4 * i + 3], 0)
  return Math.sqrt(gx * gx + gy * gy) + 0
}

const median = (values) => {
  const s = [...values].sort((a, b) => a - b)
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

async function main() {
  const args = parseArgs(process.argv.slice(2))
  const scenario = SCENARIOS[args.scenario]
  const agents = makeAgents(scenario)
  const { n, world } = agents
  const boxes = new Float32Array(4 * n)
  for (let i = 0; i < n; i++) boxes.set([agents.x[i], agents.y[i], agents.x[i] + agents.side[i], agents.y[i] + agents.side[i]], 4 * i)
  const next = lcg(987654321)
  const points = new Float32Array(2 * args.queries)
  for (let i = 0; i < points.length; i++) points[i] = next() * world

  const tree = new Quadtree({ x: 0, y: 0, width: world, height: world }, { maxElements: MAX_ELEMENTS, maxDepth: defaultMaxDepth(world, scenario.size) })
  const ids = new Uint32Array(n)
  for (let i = 0; i < n; i++) ids[i] = i
  tree.insertMany(boxes, ids)
  tree.cleanup()

  let Flatbush
  try {
    ;({ default: Flatbush } = await import('flatbush'))
  } catch {
    console.error('flatbush is not installed (npm ci installs the devDependencies)')
    process.exit(2)
  }
  const fb = new Flatbush(n)
  for (let i = 0; i < n; i++) fb.add(boxes[4 * i], boxes[4 * i + 1], boxes[4 * i + 2], boxes[4 * i + 3])
  fb.finish()

  const q = args.queries
  // Each contender fills `out` (k ids per point, nearest first) and, for flatquad, `dist`.
  const contenders = (k) => [
    {
      name: `flatquad nearestMany (batches of ${args.batch})`,
      run(out, dist) {
        for (let start = 0; start < q; start += args.batch) {
          const end = Math.min(q, start + args.batch)
          const r = tree.nearestMany(points.subarray(2 * start, 2 * end), k)
          out.set(r.ids, start * k)
          dist.set(r.distances, start * k)
        }
      },
    },
    ...(k === 1
      ? [
          {
            name: 'flatquad nearest (one call per point)',
            run(out, dist) {
              for (let i = 0; i < q; i++) {
                const [m] = tree.nearest(points[2 * i], points[2 * i + 1])
                out[i] = m.id
                dist[i] = m.distance
              }
            },
          },
        ]
      : []),
    {
      name: 'flatbush neighbors',
      peer: true,
      run(out) {
        for (let i = 0; i < q; i++) out.set(fb.neighbors(points[2 * i], points[2 * i + 1], k), i * k)
      },
    },
  ]

  console.log(`nearest ${args.scenario}: ${n} static agents, ${q} query points, medians of ${args.runs} runs (node ${process.version})`)
  console.log(`${'index'.padEnd(46)} ${'k'.padStart(3)} ${'ms'.padStart(9)} ${'µs/query'.padStart(9)} ${'flatbush ms / ms'.padStart(17)}`)
  let ok = true
  for (const k of [1, 10]) {
    const list = contenders(k)
    const times = list.map(() => [])
    const outs = list.map(() => new Uint32Array(q * k))
    const dists = list.map(() => new Float64Array(q * k))
    for (let r = 0; r < args.runs; r++) {
      list.forEach((c, j) => {
        const t0 = performance.now()
        c.run(outs[j], dists[j])
        times[j].push(performance.now() - t0)
      })
    }
    // flatbush's distances, measured here, against each flatquad form's.
    const peer = list.findIndex((c) => c.peer)
    const peerDist = dists[peer]
    for (let i = 0; i < q * k; i++) peerDist[i] = distance(boxes, outs[peer][i], points[2 * (i / k | 0)], points[2 * (i / k | 0) + 1])
    list.forEach((c, j) => {
      if (j === peer) return
      for (let i = 0; i < q * k; i++) {
        if (dists[j][i] !== peerDist[i] || distance(boxes, outs[j][i], points[2 * (i / k | 0)], points[2 * (i / k | 0) + 1]) !== dists[j][i]) {
          console.log(`MISMATCH ${c.name} k ${k}: point ${i / k | 0}, rank ${i % k}: ${dists[j][i]} vs flatbush ${peerDist[i]}`)
          ok = false
          break
        }
      }
    })
    const peerMs = median(times[peer])
    list.forEach((c, j) => {
      const ms = median(times[j])
      const ratio = j === peer ? '' : (peerMs / ms).toFixed(2)
      console.log(`${c.name.padEnd(46)} ${String(k).padStart(3)} ${ms.toFixed(1).padStart(9)} ${((ms * 1000) / q).toFixed(3).padStart(9)} ${ratio.padStart(17)}`)
    })
  }
  console.log(ok ? 'answers equal (distances, nearest first)' : 'ANSWERS DIFFER')
  process.exit(ok ? 0 : 1)
}

main()
