// Where the batch calls run: the main thread is thread 0 of the pool they run
// on (index.js joins it as it loads), so its calls start on it at once. A
// worker_threads thread cannot join, and its big batches are answered by the
// pool's other thread, with the main thread's answers, while the main thread
// waits outside the pool; the `...Async` calls are answered (on a pool of
// their own, which this test does not tell apart), and a panic on another
// thread of that pool rejects the promise and leaves the index usable. In a
// process of its own with two pool threads, whatever the machine.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { it } from 'node:test'
import { fileURLToPath } from 'node:url'

const ENTRY = fileURLToPath(new URL('../index.js', import.meta.url))

const CHILD = `
const assert = require('node:assert/strict')
const { Worker } = require('node:worker_threads')
const flatquad = require(${JSON.stringify(ENTRY)})

/** 30,000 boxes of a seeded random world: big enough for the threads. */
function boxesOf(n) {
  let state = 12345
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648
  const out = new Float32Array(4 * n)
  for (let i = 0; i < n; i++) {
    const x = next() * 1000, y = next() * 1000
    out.set([x, y, x + next() * 6, y + next() * 6], 4 * i)
  }
  return out
}

/** Each class's pairs and per-element rows, and the pairs after a batch of moves. */
function answers({ Grid, Quadtree }) {
  const boxes = boxesOf(30000)
  const out = {}
  for (const [name, Class] of [['Grid', Grid], ['Quadtree', Quadtree]]) {
    const index = new Class({ x: 0, y: 0, width: 1000, height: 1000 })
    const handles = index.insertMany(boxes)
    const pairs = Array.from(index.pairs())
    const { offsets, hits } = index.overlappingMany(handles)
    index.moveMany(handles, boxes.map((v, i) => v + (i % 4 < 2 ? 0.5 : 1.5)))
    out[name] = { pairs, offsets: Array.from(offsets), hits: Array.from(hits), moved: Array.from(index.pairs()) }
  }
  return out
}

async function main() {
  // Big calls first: had index.js not joined, they would start the pool
  // without this thread, and it could not join any more.
  const expected = answers(flatquad)
  assert.equal(flatquad.__joinThreadPool(), true)
  assert.ok(expected.Grid.pairs.length > 0)
  const source = 'const { parentPort } = require("node:worker_threads");' +
    'const flatquad = require(' + JSON.stringify(${JSON.stringify(ENTRY)}) + ');' +
    boxesOf.toString() + answers.toString() +
    'parentPort.postMessage({ joined: flatquad.__joinThreadPool(), answers: answers(flatquad) })'
  const got = await new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true })
    worker.once('message', resolve)
    worker.once('error', reject)
  })
  assert.deepEqual(got, { joined: false, answers: expected })

  const index = new flatquad.Grid({ x: 0, y: 0, width: 1000, height: 1000 })
  const handles = index.insertMany(boxesOf(30000))
  assert.deepEqual(await index.pairsAsync(), index.pairs())
  assert.deepEqual(await index.overlappingManyAsync(handles), index.overlappingMany(handles))

  // A panic on another thread of the pool answering an ...Async call rejects
  // its promise; the index, only read, is neither poisoned nor left busy.
  await assert.rejects(index.__panicAsyncForTests(true), (e) =>
    e.code === 'ERR_FLATQUAD_PANIC' && /on a worker thread/.test(e.message))
  await assert.rejects(index.__panicAsyncForTests(false), (e) =>
    e.code === 'ERR_FLATQUAD_PANIC' && /deliberate test panic$/.test(e.message))
  index.remove(index.insert(1, 1, 2, 2))
  assert.deepEqual(await index.pairsAsync(), index.pairs())
  console.log('ok')
}
main().catch((error) => {
  console.error(error)
  process.exit(1)
})
`

it("the main thread is thread 0 of the batch calls' pool; worker threads and async calls are answered; an async call's panic on a worker rejects", () => {
  const done = spawnSync(process.execPath, ['-e', CHILD], {
    env: { ...process.env, RAYON_NUM_THREADS: '2' },
    encoding: 'utf8',
    timeout: 120_000,
  })
  assert.equal(done.status, 0, done.stderr)
  assert.equal(done.stdout.trim(), 'ok')
})
