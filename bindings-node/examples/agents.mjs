// The agents workload of docs/workload.md from Node, in batch form:
// one moveMany + cleanup per frame, then one pairs() (all-pairs mode) or
// overlappingMany() in the Rust demo's batches (per-agent mode: each agent's own
// rectangle, itself left out, as the demo queries it; one call of every handle
// would be answered by one pair walk, the all-pairs mode's work), each answering
// into arrays kept between frames, as a game loop would (`out`: no garbage). The
// same RNG, scenarios and f32 arithmetic as bench/src/workload.rs, so the
// checksums match the Rust demo's. The agents move on as many threads as the
// batch calls use, the main thread and workers over shared memory
// (examples/step.mjs), as the Rust demo moves them on its pool.
//
//   node examples/agents.mjs [SCENARIO] [--mode all-pairs|per-agent|both] [--runs N] [--no-peers]
//                            [--rust PATH]
//
// With --rust PATH the Rust demo (cargo build --release -p flatquad-bench --bin
// agents) runs the same modes in the same session, on as many threads as
// flatquad's batch calls use here (RAYON_NUM_THREADS, else every core), and each
// frame is also quoted as a ratio to the demo's.
//
// With --runs N every index runs N times, round-robin, and the medians are shown
// (docs/workload.md: quote medians of several runs, and ratios to a peer of the same run).
//
// flatbush (static: rebuilt every frame, then one search per agent) and rbush
// (dynamic: remove + insert per moved agent, then one search per agent) run in
// the same process when they are installed (they are devDependencies); they only
// do per-agent mode, having no all-pairs call. Exits 1 if a checksum is wrong.

import { spawnSync } from 'node:child_process'

import { Quadtree } from 'flatquad'
import { Stepper, shareAgents, sharedFloats, writeRects } from './step.mjs'
import { MAX_ELEMENTS, SCENARIOS, defaultMaxDepth, makeAgents, poolThreads } from './workload.mjs'

const WARMUP_FRAMES = 2

// Runs one index through the warm-up and measured frames, the agents stepped
// on as many threads as flatquad's batch calls use; `index` has
// build(agents, rects), update(agents, rects) and collide(agents, rects) -> ordered pairs.
async function run(scenario, index) {
  const agents = shareAgents(makeAgents(scenario))
  const rects = sharedFloats(4 * scenario.n)
  writeRects(agents, rects)
  index.build(agents, rects)
  let update = 0
  let collide = 0
  let total = 0
  const stepper = await Stepper.start(agents, rects, poolThreads())
  try {
    for (let frame = 0; frame < WARMUP_FRAMES + scenario.frames; frame++) {
      const t0 = performance.now()
      stepper.step()
      index.update(agents, rects)
      const t1 = performance.now()
      const ordered = index.collide(agents, rects)
      const t2 = performance.now()
      if (frame >= WARMUP_FRAMES) {
        update += t1 - t0
        collide += t2 - t1
        total += ordered
      }
    }
  } finally {
    await stepper.close()
  }
  const frames = scenario.frames
  return {
    update: update / frames,
    collide: collide / frames,
    frame: (update + collide) / frames,
    pairs: Math.floor(total / frames),
  }
}

function flatquad(scenario, mode) {
  let tree
  let handles
  // The answers go here while they fit: no new memory a frame.
  let pairsOut = new Float64Array(0)
  const rowsOut = { offsets: new Uint32Array(agentBatch + 1), hits: new Float64Array(0) }
  return {
    name: 'flatquad',
    build(agents, rects) {
      tree = new Quadtree(
        { x: 0, y: 0, width: agents.world, height: agents.world },
        { maxElements: MAX_ELEMENTS, maxDepth: defaultMaxDepth(scenario.world, scenario.size) },
      )
      const ids = new Uint32Array(agents.n)
      for (let i = 0; i < agents.n; i++) ids[i] = i
      handles = tree.insertMany(rects, ids)
      tree.cleanup()
    },
    update(agents, rects) {
      tree.moveMany(handles, rects)
      tree.cleanup()
    },
    collide(agents, rects) {
      if (mode === 'all-pairs') {
        const pairs = tree.pairs(pairsOut)
        if (pairs.buffer !== pairsOut.buffer) pairsOut = new Float64Array(pairs.length + (pairs.length >> 2))
        return pairs.length // 2 handles per pair
      }
      let hits = 0
      for (let i = 0; i < handles.length; i += agentBatch) {
        const rows = tree.overlappingMany(handles.subarray(i, i + agentBatch), rowsOut)
        if (rows.hits.buffer !== rowsOut.hits.buffer) rowsOut.hits = new Float64Array(rows.hits.length + (rows.hits.length >> 2))
        hits += rows.hits.length
      }
      return hits
    },
  }
}

async function peers() {
  const found = []
  try {
    const { default: Flatbush } = await import('flatbush')
    found.push(() => {
      let index
      const build = (agents, rects) => {
        index = new Flatbush(agents.n)
        for (let j = 0; j < rects.length; j += 4) index.add(rects[j], rects[j + 1], rects[j + 2], rects[j + 3])
        index.finish()
      }
      return {
        name: 'flatbush (rebuild + search)',
        build,
        update: build,
        collide(agents, rects) {
          let hits = 0
          for (let j = 0; j < rects.length; j += 4) {
            hits += index.search(rects[j], rects[j + 1], rects[j + 2], rects[j + 3]).length - 1
          }
          return hits
        },
      }
    })
  } catch {
    console.log('(flatbush not installed: npm install flatbush to compare)')
  }
  try {
    const { default: RBush } = await import('rbush')
    const search = (tree, items) => {
      let hits = 0
      for (const item of items) hits += tree.search(item).length - 1
      return hits
    }
    const itemsOf = (rects) => {
      const items = []
      for (let j = 0; j < rects.length; j += 4) {
        items.push({ minX: rects[j], minY: rects[j + 1], maxX: rects[j + 2], maxY: rects[j + 3] })
      }
      return items
    }
    found.push(() => {
      let tree
      let items
      return {
        name: 'rbush (remove + insert + search)',
        build(agents, rects) {
          tree = new RBush()
          items = itemsOf(rects)
          for (const item of items) tree.insert(item)
        },
        update(agents, rects) {
          for (let i = 0, j = 0; i < items.length; i++, j += 4) {
            const item = items[i]
            tree.remove(item) // finds the item by its old box, so before changing it
            item.minX = rects[j]
            item.minY = rects[j + 1]
            item.maxX = rects[j + 2]
            item.maxY = rects[j + 3]
            tree.insert(item)
          }
        },
        collide: () => search(tree, items),
      }
    })
    found.push(() => {
      let tree
      let items
      const load = (rects) => {
        tree = new RBush()
        items = itemsOf(rects)
        tree.load(items)
      }
      return {
        name: 'rbush (bulk reload + search)',
        build: (agents, rects) => load(rects),
        update: (agents, rects) => load(rects),
        collide: () => search(tree, items),
      }
    })
  } catch {
    console.log('(rbush not installed: npm install rbush to compare)')
  }
  return found
}

// Handles per overlappingMany call in per-agent mode: docs/workload.md's
// batches, the Rust demo's, each answered query by query.
const agentBatch = poolThreads() > 1 ? 16_384 : 128

// The Rust demo's update, collide and frame ms and pairs for one mode, read off its table.
function runRust(path, name, mode) {
  const args = [name, '--mode', mode, '--index', 'quadtree', '--threads', String(poolThreads())]
  const out = spawnSync(path, args, { encoding: 'utf8' })
  if (out.status !== 0) throw new Error(`the Rust demo failed: ${out.stderr}`)
  for (const line of out.stdout.split('\n')) {
    const fields = line.trim().split(/\s+/)
    if (fields[0] === mode) {
      const [update, collide, frame, pairs] = fields.slice(1, 5).map(Number)
      return { update, collide, frame, pairs }
    }
  }
  throw new Error(`could not read the Rust demo's output:\n${out.stdout}`)
}

function parseArgs(argv) {
  const args = { name: 'uniform-100k', modes: ['all-pairs', 'per-agent'], peers: true, runs: 1, rust: null }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--no-peers') args.peers = false
    else if (arg === '--rust') args.rust = argv[++i]
    else if (arg === '--runs') {
      args.runs = Number(argv[++i])
      if (!Number.isInteger(args.runs) || args.runs < 1) throw new Error('--runs needs a positive integer')
    }
    else if (arg === '--mode') {
      const mode = argv[++i]
      if (mode === 'both') args.modes = ['all-pairs', 'per-agent']
      else if (mode === 'all-pairs' || mode === 'per-agent') args.modes = [mode]
      else throw new Error(`--mode: unknown mode ${mode}`)
    } else if (arg === '-h' || arg === '--help') {
      console.log('usage: node examples/agents.mjs [SCENARIO] [--mode all-pairs|per-agent|both] [--runs N] [--no-peers] [--rust PATH]')
      console.log(`SCENARIO: one of ${Object.keys(SCENARIOS).join(', ')} (default uniform-100k)`)
      process.exit(0)
    } else if (arg.startsWith('-')) throw new Error(`unknown option ${arg}`)
    else args.name = arg
  }
  if (!SCENARIOS[args.name]) throw new Error(`unknown scenario ${args.name}; one of ${Object.keys(SCENARIOS).join(', ')}`)
  return args
}

const args = parseArgs(process.argv.slice(2))
const scenario = SCENARIOS[args.name]
console.log(
  `agents ${args.name}: ${scenario.n} agents, world ${scenario.world}, size ${scenario.size}, ` +
    `${scenario.frames} measured frames after ${WARMUP_FRAMES} warm-up (node ${process.version}), ` +
    `${poolThreads()} thread(s) (RAYON_NUM_THREADS)${args.rust ? ', the Rust demo too' : ''}`,
)
const fmt = (ms) => ms.toFixed(2).padStart(8)
const header = `${'index'.padEnd(34)} ${'mode'.padEnd(10)} ${'update ms'.padStart(10)} ${'collide ms'.padStart(10)} ${'frame ms'.padStart(10)}  pairs/frame`
console.log(header)
let expected = scenario.checksum
let ok = true
const rows = []
const report = (name, mode, r) => {
  let verdict
  if (expected === null) {
    expected = r.pairs // no stated checksum: every index must agree with the first
    verdict = '(reference for this run)'
  } else {
    verdict = r.pairs === expected ? 'ok' : `WRONG (expected ${expected})`
    if (r.pairs !== expected) ok = false
  }
  rows.push({ name, mode, ...r })
  console.log(
    `${name.padEnd(34)} ${mode.padEnd(10)} ${fmt(r.update)}   ${fmt(r.collide)}   ${fmt(r.frame)}  ${r.pairs} ${verdict}`,
  )
}
const entries = args.modes.map((mode) => ({ name: 'flatquad (batch)', mode, make: () => flatquad(scenario, mode) }))
if (args.rust) {
  for (const mode of args.modes) entries.push({ name: 'flatquad (rust demo)', mode, rust: true })
}
if (args.peers) {
  for (const make of await peers()) entries.push({ name: make().name, mode: 'per-agent', make })
}
// Round-robin over the runs, so a slow spell of a shared machine hits every index.
const results = entries.map(() => [])
for (let run_ = 0; run_ < args.runs; run_++) {
  for (const [i, entry] of entries.entries()) {
    results[i].push(entry.rust ? runRust(args.rust, args.name, entry.mode) : await run(scenario, entry.make()))
  }
}
const median = (values) => {
  const v = [...values].sort((a, b) => a - b)
  const mid = v.length >> 1
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2
}
entries.forEach((entry, i) => {
  const rs = results[i]
  const wrong = rs.find((r) => r.pairs !== rs[0].pairs)
  const r = {
    update: median(rs.map((x) => x.update)),
    collide: median(rs.map((x) => x.collide)),
    frame: median(rs.map((x) => x.frame)),
    pairs: wrong ? wrong.pairs : rs[0].pairs,
  }
  report(entry.name, entry.mode, r)
})
const ours = rows.filter((r) => r.name === 'flatquad (batch)')
for (const r of ours) {
  const rust = rows.find((x) => x.name === 'flatquad (rust demo)' && x.mode === r.mode)
  if (rust) console.log(`node ${r.mode}: ${(r.frame / rust.frame).toFixed(2)}x the Rust demo's frame time`)
}
for (const peer of rows.filter((r) => r.name !== 'flatquad (batch)' && r.name !== 'flatquad (rust demo)')) {
  const line = ours.map((r) => `${(peer.frame / r.frame).toFixed(1)}x (${r.mode})`).join(', ')
  console.log(`${peer.name}: flatquad is faster by ${line}`)
}
if (args.runs > 1) console.log(`(medians of ${args.runs} runs)`)
if (!ok) {
  console.error('checksum mismatch')
  process.exit(1)
}
