// Trigger zones: a few moving sensor boxes and many moving agents; every frame
// prints which agents entered and which left each sensor, from the contact
// events of a PairTracker.
//
//   node examples/trigger_zones.mjs [--frames 30] [--agents 2000] [--sensors 4]
//                                   [--seed 1] [--index grid|quadtree|loose-grid|loose-quadtree]
//                                   [--quiet]
//
// Sensors and agents live in one index and are told apart by collision
// filters: a sensor (category SENSOR) collides only with agents, an agent
// (category AGENT) only with sensors. So agents never pair with each other, and
// every event the tracker reports is an agent entering or leaving a sensor.
// Every few frames sensor 0 collects the agent nearest its centre: it
// despawns, and a new one (a new id) spawns elsewhere. The old one's contacts
// end under the handle it had, and the index reuses its slot.
//
// Output, one line per frame with events, then a total:
//
//   frame 3: inside 41 | agent 812 entered sensor 2; agent 77 left sensor 0
//   total: 1234 entered, 1193 left, 41 inside at the end

import { pathToFileURL } from 'node:url'
import { Grid, LooseGrid, LooseQuadtree, PairTracker, Quadtree } from 'flatquad'

/** Filter categories: each kind collides only with the other. */
export const SENSOR = 1
export const AGENT = 2
export const WORLD = 512
export const AGENT_SIDE = 3
export const SENSOR_SIDE = 60
/** Every this many frames, one agent is collected and a new one spawns. */
export const RESPAWN_EVERY = 3

const world = { x1: 0, y1: 0, x2: WORLD, y2: WORLD }
export const INDEXES = {
  grid: () => new Grid(world, { cellSize: 8 }),
  quadtree: () => new Quadtree(world),
  'loose-grid': () => new LooseGrid(world),
  'loose-quadtree': () => new LooseQuadtree(world),
}

/** mulberry32: a small seeded PRNG, so a run can be replayed. */
function rng(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Squares with these lower corners (x, y pairs) as 4 numbers each. */
function boxes(corners, side) {
  const out = new Float32Array(2 * corners.length)
  for (let i = 0; i < corners.length; i += 2) out.set([corners[i], corners[i + 1], corners[i] + side, corners[i + 1] + side], 2 * i)
  return out
}

/**
 * The scene, frame by frame: yields `{ ids, agents, sensors }`, frame 0 first
 * (`agents` and `sensors` as 4 numbers a box). Agents move fast, sensors
 * slowly; both bounce off the world's edges. `ids[i]` is the id of the agent
 * in row `i`: a new id when one respawns there.
 */
export function* frames(count, agents, sensors, seed) {
  const next = rng(seed)
  const uniform = (n, lo, hi) => Float64Array.from({ length: n }, () => lo + (hi - lo) * next())
  const pos = uniform(2 * agents, 0, WORLD - AGENT_SIDE)
  const vel = uniform(2 * agents, -4, 4)
  const spos = uniform(2 * sensors, 0, WORLD - SENSOR_SIDE)
  const svel = uniform(2 * sensors, -1, 1)
  const ids = Uint32Array.from({ length: agents }, (_, i) => i)
  let nextId = agents
  for (let frame = 0; frame < count; frame++) {
    if (frame && frame % RESPAWN_EVERY === 0) {
      // Sensor 0 collects the agent nearest its centre (most often inside it).
      let [row, best] = [0, Infinity]
      for (let i = 0; i < agents; i++) {
        const dx = pos[2 * i] + AGENT_SIDE / 2 - (spos[0] + SENSOR_SIDE / 2)
        const dy = pos[2 * i + 1] + AGENT_SIDE / 2 - (spos[1] + SENSOR_SIDE / 2)
        if (dx * dx + dy * dy < best) [row, best] = [i, dx * dx + dy * dy]
      }
      ids[row] = nextId++
      pos.set(uniform(2, 0, WORLD - AGENT_SIDE), 2 * row)
    }
    yield { ids: ids.slice(), agents: boxes(pos, AGENT_SIDE), sensors: boxes(spos, SENSOR_SIDE) }
    for (const [p, v, side] of [[pos, vel, AGENT_SIDE], [spos, svel, SENSOR_SIDE]]) {
      for (let i = 0; i < p.length; i++) {
        p[i] += v[i]
        if (p[i] < 0 || p[i] > WORLD - side) v[i] = -v[i]
        p[i] = Math.min(Math.max(p[i], 0), WORLD - side)
      }
    }
  }
}

/**
 * Runs the scene; returns per frame `{ entered, left }`, lists of
 * `[agentId, sensor]` in the order printed.
 */
export function run({ frames: count = 30, agents = 2000, sensors = 4, seed = 1, index = 'grid', quiet = false, print = console.log } = {}) {
  const grid = INDEXES[index]()
  const who = new Map() // handle -> ['agent', id] or ['sensor', number]; kept after removal
  const tracker = new PairTracker(grid)
  let agentHandles, sensorHandles, agentIds
  const log = []
  // A pair of handles as [agentId, sensor]: the filters admit no other pair.
  const contact = (a, b) => {
    const [[kindA, x], [kindB, y]] = [who.get(a), who.get(b)]
    if (kindA === kindB) throw new Error(`a ${kindA}-${kindB} pair: the filters should exclude it`)
    return kindA === 'agent' ? [x, y] : [y, x]
  }
  const contacts = (flat) => {
    const out = []
    for (let i = 0; i < flat.length; i += 2) out.push(contact(flat[i], flat[i + 1]))
    return out
  }
  let frame = 0
  for (const scene of frames(count, agents, sensors, seed)) {
    if (frame === 0) {
      sensorHandles = grid.insertMany(scene.sensors, Uint32Array.from({ length: sensors }, (_, s) => s))
      grid.setFilters(sensorHandles, new Uint32Array(sensors).fill(SENSOR), new Uint32Array(sensors).fill(AGENT))
      agentHandles = grid.insertMany(scene.agents, scene.ids)
      grid.setFilters(agentHandles, new Uint32Array(agents).fill(AGENT), new Uint32Array(agents).fill(SENSOR))
      sensorHandles.forEach((h, s) => who.set(h, ['sensor', s]))
      agentHandles.forEach((h, i) => who.set(h, ['agent', scene.ids[i]]))
    } else {
      for (let row = 0; row < agents; row++) {
        if (scene.ids[row] === agentIds[row]) continue
        // A respawn: the old agent goes, a new one comes (likely in its slot).
        grid.remove(agentHandles[row])
        const handle = grid.insert(...scene.agents.subarray(4 * row, 4 * row + 4), scene.ids[row])
        grid.setFilter(handle, AGENT, SENSOR)
        agentHandles[row] = handle
        who.set(handle, ['agent', scene.ids[row]])
      }
      grid.moveMany(agentHandles, scene.agents)
      grid.moveMany(sensorHandles, scene.sensors)
    }
    agentIds = scene.ids
    grid.cleanup()
    const { began, ended } = tracker.update()
    const events = { entered: contacts(began), left: contacts(ended) }
    log.push(events)
    if (!quiet && (events.entered.length || events.left.length)) {
      const shown = [
        ...events.entered.map(([a, s]) => `agent ${a} entered sensor ${s}`),
        ...events.left.map(([a, s]) => `agent ${a} left sensor ${s}`),
      ]
      print(`frame ${frame}: inside ${tracker.pairCount} | ${shown.join('; ')}`)
    }
    frame++
  }
  const entered = log.reduce((sum, e) => sum + e.entered.length, 0)
  const left = log.reduce((sum, e) => sum + e.left.length, 0)
  print(`total: ${entered} entered, ${left} left, ${tracker.pairCount} inside at the end`)
  return log
}

function parseArgs(argv) {
  const options = {}
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]
    if (flag === '--quiet') options.quiet = true
    else if (flag === '--index') {
      options.index = argv[++i]
      if (!(options.index in INDEXES)) throw new Error(`--index: one of ${Object.keys(INDEXES).join(', ')}`)
    } else if (['--frames', '--agents', '--sensors', '--seed'].includes(flag)) {
      const value = Number(argv[++i])
      if (!Number.isInteger(value) || value < 0) throw new Error(`${flag}: a non-negative integer`)
      options[flag.slice(2)] = value
    } else throw new Error(`unknown argument ${flag}`)
  }
  return options
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) run(parseArgs(process.argv.slice(2)))
