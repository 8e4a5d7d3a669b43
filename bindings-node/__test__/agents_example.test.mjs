// examples/agents.mjs and its step on threads (examples/step.mjs): the agents
// stepped on workers end as the serial step leaves them, bit for bit, and the
// example's checksums hold on two threads.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

import { Stepper, shareAgents, sharedFloats, stepRange, writeRects } from '../examples/step.mjs'
import { makeAgents } from '../examples/workload.mjs'

const EXAMPLE = fileURLToPath(new URL('../examples/agents.mjs', import.meta.url))

// A small world, so that many agents bounce off its edges.
const SCENE = { layout: 'mixed', n: 5_003, world: 96, size: 4 }
const FRAMES = 40

function fresh() {
  const agents = shareAgents(makeAgents(SCENE))
  const rects = sharedFloats(4 * SCENE.n)
  writeRects(agents, rects)
  return { agents, rects }
}

const bits = (floats) => Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength)

describe('examples/step.mjs', () => {
  for (const threads of [1, 2, 3]) {
    it(`steps on ${threads} thread(s) as the serial loop does`, async () => {
      const serial = fresh()
      const start = bits(serial.agents.x).toString('hex')
      const stepped = fresh()
      const stepper = await Stepper.start(stepped.agents, stepped.rects, threads)
      try {
        for (let frame = 0; frame < FRAMES; frame++) {
          stepRange(serial.agents, serial.rects, 0, SCENE.n)
          stepper.step()
        }
      } finally {
        await stepper.close()
      }
      for (const key of ['x', 'y', 'vx', 'vy']) {
        assert.ok(bits(stepped.agents[key]).equals(bits(serial.agents[key])), `${key} differs`)
      }
      assert.ok(bits(stepped.rects).equals(bits(serial.rects)), 'rects differ')
      assert.notEqual(bits(serial.agents.x).toString('hex'), start, 'the agents did not move')
    })
  }

  it('refuses arrays that workers could not share', async () => {
    const agents = makeAgents(SCENE)
    const rects = new Float32Array(4 * SCENE.n)
    await assert.rejects(Stepper.start(agents, rects, 2), TypeError)
    await assert.rejects(Stepper.start(fresh().agents, rects, 2), /out must be over a SharedArrayBuffer/)
    // One thread steps any arrays in place.
    const stepper = await Stepper.start(agents, rects, 1)
    stepper.step()
    await stepper.close()
    assert.notEqual(rects[0], 0)
  })

  it('throws promptly when a worker throws, and close() throws its error', async () => {
    // One agent on three threads: the main thread's range and the last
    // worker's are empty, the first worker's step throws (a BigInt world).
    const agents = { ...shareAgents(makeAgents({ ...SCENE, n: 1 })), world: 10n }
    const stepper = await Stepper.start(agents, sharedFloats(4), 3)
    // Not the timeout's error: the step saw the worker's flag.
    assert.throws(() => stepper.step(), /a step worker threw/)
    await assert.rejects(stepper.close(), /BigInt/)
  })

  it('refuses a thread count that is not a positive integer', async () => {
    const { agents, rects } = fresh()
    for (const threads of [0, -1, 1.5, NaN]) {
      await assert.rejects(Stepper.start(agents, rects, threads), RangeError)
    }
  })
})

describe('examples/agents.mjs', () => {
  it('matches the checksums with the agents stepped on two threads', () => {
    const out = execFileSync(process.execPath, [EXAMPLE, 'uniform-20k', '--no-peers'], {
      encoding: 'utf8',
      env: { ...process.env, RAYON_NUM_THREADS: '2' },
    })
    assert.match(out, /2 thread\(s\)/)
    const rows = out.split('\n').filter((line) => line.startsWith('flatquad (batch)'))
    assert.equal(rows.length, 2, out)
    for (const row of rows) assert.match(row, / 6257 ok$/)
  })
})
