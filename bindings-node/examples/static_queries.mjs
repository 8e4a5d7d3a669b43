// Static queries from Node: docs/workload.md's static-1m-queries (the 100,000
// agents of uniform-100k, never moved, then 1,000,000 rectangle queries of
// side 4 and 1,000,000 point queries drawn from the same generator), flatquad
// beside flatbush and rbush in the same run (round-robin, medians of --runs).
//
//   node examples/static_queries.mjs [--runs N] [--batch N]
//   RAYON_NUM_THREADS=1 node examples/static_queries.mjs
//
// Each contender's hit totals must be the workload's checksums (381,145
// rectangle hits, 95,647 point hits); the script exits 1 if one differs. Rows:
// - flatquad Grid (cells of 6 agent sides, as the Rust demo's) and Quadtree
//   (16 a leaf, the demo's depth), built by one insertMany; the queries in
//   queryMany calls of --batch rectangles (a point is the rectangle (x, y, x, y)),
//   and one query / queryPoint call each;
// - flatbush (packed Hilbert R-tree, 16 a node): finish(), then one search()
//   a query, its only form;
// - rbush (bulk load): load(), then one search() a query.
// flatquad's batch calls run on rayon's pool (RAYON_NUM_THREADS, default
// every core); the one-call-a-query rows and the peers on the JavaScript thread.
// Not part of `make test`.

import { cpus, loadavg } from 'node:os'
import { Grid, Quadtree } from 'flatquad'
import { MAX_ELEMENTS, SCENARIOS, defaultMaxDepth, f32, lcg, makeAgents, poolThreads } from './workload.mjs'

const QUERIES = 1_000_000
const QUERY_SIDE = 4
const RECT_HITS = 381_145
const POINT_HITS = 95_647
// The Rust demo's grid cells, in agent sides (AGENTS_GRID_CELL in bench/src/flatquad_index.rs).
const GRID_CELL = 6

function parseArgs(argv) {
  const args = { runs: 5, batch: 100_000 }
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--runs') args.runs = Number(argv[++i])
    else if (argv[i] === '--batch') args.batch = Number(argv[++i])
    else {
      console.error(`unknown argument ${argv[i]} (--runs N, --batch N)`)
      process.exit(2)
    }
  }
  for (const [name, value] of Object.entries(args)) {
    if (!Number.isInteger(value) || value < 1) {
      console.error(`--${name} must be a positive integer, not ${value}`)
      process.exit(2)
    }
  }
  return args
}

// The agents, then the queries from the same generator, as bench/src/workload.rs
// draws them (Queries::draw): each rectangle's x, y, then each point's x, y.
function workload() {
  const scenario = SCENARIOS['uniform-100k']
  const { n, world, size } = scenario
  const next = lcg()
  const agents = makeAgents(scenario, next)
  const boxes = new Float32Array(4 * n)
  for (let i = 0; i < n; i++) boxes.set([agents.x[i], agents.y[i], agents.x[i] + size, agents.y[i] + size], 4 * i)
  const rects = new Float32Array(4 * QUERIES)
  for (let j = 0; j < QUERIES; j++) {
    const x = f32(next() * (world - QUERY_SIDE))
    const y = f32(next() * (world - QUERY_SIDE))
    rects.set([x, y, x + QUERY_SIDE, y + QUERY_SIDE], 4 * j)
  }
  const pointRects = new Float32Array(4 * QUERIES)
  for (let j = 0; j < QUERIES; j++) {
    const x = f32(next() * world)
    const y = f32(next() * world)
    pointRects.set([x, y, x, y], 4 * j)
  }
  return { n, world, size, boxes, rects, pointRects }
}

const median = (values) => {
  const s = [...values].sort((a, b) => a - b)
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

// One call a query: the hits `call(x1, y1, x2, y2)` counts, summed over `queries`.
const oneACall = (queries, call) => () => {
  let hits = 0
  for (let j = 0; j < QUERIES; j++) hits += call(queries[4 * j], queries[4 * j + 1], queries[4 * j + 2], queries[4 * j + 3])
  return hits
}

// flatquad's rows: the build, then both kinds of query in batches and one call each.
function flatquadRows(name, make, w, batch) {
  const built = {}
  const many = (queries) => () => {
    let hits = 0
    for (let start = 0; start < QUERIES; start += batch) {
      hits += built.index.queryMany(queries.subarray(4 * start, 4 * Math.min(QUERIES, start + batch))).hits.length
    }
    return hits
  }
  return [
    { name, what: 'build', run: () => { built.index = make(); built.index.insertMany(w.boxes); return built.index.size } },
    { name, what: `rect queries: queryMany (${batch} a call)`, kind: 'rect', run: many(w.rects) },
    { name, what: `point queries: queryMany (${batch} a call)`, kind: 'point', run: many(w.pointRects) },
    { name, what: 'rect queries: query (one a call)', kind: 'rect', run: oneACall(w.rects, (x1, y1, x2, y2) => built.index.query(x1, y1, x2, y2).length) },
    { name, what: 'point queries: queryPoint (one a call)', kind: 'point', run: oneACall(w.pointRects, (x, y) => built.index.queryPoint(x, y).length) },
  ]
}

// A peer's rows: its build, then one search a query of each kind.
function peerRows(name, build, search, w) {
  const built = {}
  const each = (queries) => oneACall(queries, (x1, y1, x2, y2) => search(built.index, x1, y1, x2, y2))
  return [
    { name, what: 'build', run: () => { built.index = build(); return w.n } },
    { name, what: 'rect queries: search (one a call)', kind: 'rect', run: each(w.rects) },
    { name, what: 'point queries: search (one a call)', kind: 'point', run: each(w.pointRects) },
  ]
}

async function peers(w) {
  const rows = []
  try {
    const { default: Flatbush } = await import('flatbush')
    rows.push(...peerRows('flatbush', () => {
      const index = new Flatbush(w.n)
      for (let i = 0; i < w.n; i++) index.add(w.boxes[4 * i], w.boxes[4 * i + 1], w.boxes[4 * i + 2], w.boxes[4 * i + 3])
      index.finish()
      return index
    }, (index, x1, y1, x2, y2) => index.search(x1, y1, x2, y2).length, w))
  } catch {
    console.log('(flatbush not installed: npm install flatbush to compare)')
  }
  try {
    const { default: RBush } = await import('rbush')
    const items = []
    for (let i = 0; i < w.n; i++) items.push({ minX: w.boxes[4 * i], minY: w.boxes[4 * i + 1], maxX: w.boxes[4 * i + 2], maxY: w.boxes[4 * i + 3], i })
    rows.push(...peerRows('rbush', () => new RBush().load(items),
      (index, minX, minY, maxX, maxY) => index.search({ minX, minY, maxX, maxY }).length, w))
  } catch {
    console.log('(rbush not installed: npm install rbush to compare)')
  }
  return rows
}

async function main() {
  const args = parseArgs(process.argv.slice(2))
  const w = workload()
  const world = { x: 0, y: 0, width: w.world, height: w.world }
  const rows = [
    ...flatquadRows('flatquad Grid', () => new Grid(world, { cellSize: GRID_CELL * w.size }), w, args.batch),
    ...flatquadRows('flatquad Quadtree', () => new Quadtree(world, { maxElements: MAX_ELEMENTS, maxDepth: defaultMaxDepth(w.world, w.size) }), w, args.batch),
    ...(await peers(w)),
  ]
  const threads = poolThreads()
  console.log(`static-1m-queries from Node: ${w.n} agents of side ${w.size} in ${w.world}^2, ${QUERIES} rectangle queries of side ${QUERY_SIDE}, ${QUERIES} point queries; medians of ${args.runs} round-robin runs`)
  console.log(`machine: ${cpus().length} cpus, ${cpus()[0]?.model ?? '?'}; node ${process.version}; flatquad's batches on ${threads} thread(s) (RAYON_NUM_THREADS); load average ${loadavg()[0].toFixed(1)}`)
  const times = rows.map(() => [])
  const answers = rows.map(() => null)
  for (let r = 0; r < args.runs; r++) {
    rows.forEach((row, j) => {
      const t0 = performance.now()
      answers[j] = row.run() // each build runs before its queries
      times[j].push(performance.now() - t0)
    })
  }
  let ok = true
  const best = { rect: {}, point: {} }
  console.log('\n| implementation | what | ms | hits | check |\n|---|---|--:|--:|---|')
  rows.forEach((row, j) => {
    const ms = median(times[j])
    const expected = row.kind === 'rect' ? RECT_HITS : row.kind === 'point' ? POINT_HITS : w.n
    const good = answers[j] === expected
    ok &&= good
    if (row.kind) {
      const who = row.name.startsWith('flatquad') ? 'flatquad' : row.name
      best[row.kind][who] = Math.min(best[row.kind][who] ?? Infinity, ms)
    }
    console.log(`| ${row.name} | ${row.what} | ${ms.toFixed(1)} | ${answers[j].toLocaleString('en')} | ${good ? 'OK' : 'MISMATCH'} |`)
  })
  console.log("\nflatquad's best call against each peer's (queries only; above 1: flatquad faster)")
  for (const [kind, byPeer] of Object.entries(best)) {
    const { flatquad: ours, ...others } = byPeer
    console.log(`  ${kind} queries: ` + Object.entries(others).map(([peer, theirs]) => `${(theirs / ours).toFixed(2)}x ${peer}`).join(', '))
  }
  if (!ok) {
    console.error('\nhit totals differ from the workload\'s checksums')
    process.exit(1)
  }
}

main()
