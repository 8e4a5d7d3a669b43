// examples/trigger_zones.mjs, run as a user runs it: every enter and exit it
// prints is the brute-force set difference of the (agent, sensor) overlaps of
// consecutive frames, and its total agrees.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { INDEXES, frames, run } from '../examples/trigger_zones.mjs'

const EXAMPLE = fileURLToPath(new URL('../examples/trigger_zones.mjs', import.meta.url))

/** Brute force: every "agentId,sensor" whose closed boxes meet. */
function inside({ ids, agents, sensors }) {
  const out = new Set()
  for (let i = 0; i < ids.length; i++) {
    const a = agents.subarray(4 * i, 4 * i + 4)
    for (let s = 0; 4 * s < sensors.length; s++) {
      const b = sensors.subarray(4 * s, 4 * s + 4)
      if (a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3]) out.add(`${ids[i]},${s}`)
    }
  }
  return out
}

/** The events the example printed, by frame: { entered, left, inside }. */
function printed(out) {
  const frames = new Map()
  for (const line of out.split('\n')) {
    const match = line.match(/^frame (\d+): inside (\d+) \| (.*)$/)
    if (!match) continue
    const entered = []
    const left = []
    for (const [, agent, verb, sensor] of match[3].matchAll(/agent (\d+) (entered|left) sensor (\d+)/g)) {
      ;(verb === 'entered' ? entered : left).push(`${agent},${sensor}`)
    }
    frames.set(Number(match[1]), { entered: entered.sort(), left: left.sort(), inside: Number(match[2]) })
  }
  return frames
}

const minus = (a, b) => [...a].filter((p) => !b.has(p)).sort()

describe('examples/trigger_zones.mjs', () => {
  for (const index of Object.keys(INDEXES)) {
    it(`prints the brute-force enters and exits (${index})`, () => {
      const [count, agents, sensors, seed] = [40, 400, 3, 5]
      const out = execFileSync(
        process.execPath,
        [EXAMPLE, '--frames', count, '--agents', agents, '--sensors', sensors, '--seed', seed, '--index', index].map(String),
        { encoding: 'utf8' },
      )
      const shown = printed(out)
      let before = new Set()
      let previousIds
      let [entered, left, respawned] = [0, 0, false]
      let frame = 0
      for (const scene of frames(count, agents, sensors, seed)) {
        const now = inside(scene)
        const expect = { entered: minus(now, before), left: minus(before, now), inside: now.size }
        if (expect.entered.length || expect.left.length) {
          assert.deepEqual(shown.get(frame), expect, `frame ${frame}`)
          shown.delete(frame)
        } else {
          assert.ok(!shown.has(frame), `frame ${frame}: events printed, none expected`)
        }
        if (previousIds) {
          // A despawned agent that was inside a sensor leaves it, under its old id.
          const gone = new Set([...previousIds].filter((id, row) => scene.ids[row] !== id).map(String))
          respawned ||= expect.left.some((pair) => gone.has(pair.split(',')[0]))
        }
        entered += expect.entered.length
        left += expect.left.length
        before = now
        previousIds = scene.ids
        frame++
      }
      assert.deepEqual([...shown.keys()], [], 'events printed for frames that do not exist')
      assert.ok(out.includes(`total: ${entered} entered, ${left} left, ${before.size} inside at the end`), out.slice(-200))
      // The scene exercises what it shows: many enters and exits, and a despawn's exit.
      assert.ok(entered > 20 && left > 20, `${entered} entered, ${left} left`)
      assert.ok(respawned, 'no despawned agent left a sensor')
    })
  }

  it('returns what it prints', () => {
    const lines = []
    const log = run({ frames: 12, agents: 300, sensors: 2, seed: 9, quiet: true, print: (line) => lines.push(line) })
    assert.equal(log.length, 12)
    const entered = log.reduce((sum, e) => sum + e.entered.length, 0)
    const left = log.reduce((sum, e) => sum + e.left.length, 0)
    assert.equal(lines.length, 1)
    assert.ok(lines[0].startsWith(`total: ${entered} entered, ${left} left, `), lines[0])
  })
})
