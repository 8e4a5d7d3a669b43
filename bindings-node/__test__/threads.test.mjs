// Where the batch calls run: the main thread is thread 0 of the pool they run
// on (index.js joins it as it loads), so its calls start on it at once. A
// worker_threads thread cannot join, and its big batches are answered by the
// pool's other threads, with the main thread's answers, while the main thread
// waits outside the pool; the `...Async` calls run on a pool of their own.
import assert from 'node:assert/strict'
import { it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import flatquad, { Grid, Quadtree } from 'flatquad'

const ENTRY = fileURLToPath(new URL('../index.js', import.meta.url))

/** 30,000 boxes of a seeded random world, as the worker builds them too. */
const SOURCE_OF_BOXES = `
  function boxesOf(n) {
    let state = 12345
    const next = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648)
    const out = new Float32Array(4 * n)
    for (let i = 0; i < n; i++) {
      const x = next() * 1000, y = next() * 1000
      out.set([x, y, x + next() * 6, y + next() * 6], 4 * i)
    }
    return out
  }
`
const boxesOf = new Function(`${SOURCE_OF_BOXES}; return boxesOf`)()

/** Each class's pairs and per-element rows over the boxes, and the pairs after a batch of moves. */
function answers({ Grid, Quadtree }, boxes) {
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

it('the main thread is thread 0 of the batch calls\' pool', () => {
  assert.equal(flatquad.__joinThreadPool(), true)
})

it('a worker thread\'s big batches are answered, as the main thread\'s', async () => {
  const boxes = boxesOf(30_000)
  const expected = answers({ Grid, Quadtree }, boxes)
  assert.ok(expected.Grid.pairs.length > 0)
  const source = `
    const { parentPort, workerData } = require('node:worker_threads')
    const flatquad = require(workerData.ENTRY)
    ${SOURCE_OF_BOXES}
    ${answers.toString()}
    parentPort.postMessage({ joined: flatquad.__joinThreadPool(), answers: answers(flatquad, boxesOf(30_000)) })
  `
  const got = await new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData: { ENTRY } })
    worker.once('message', resolve)
    worker.once('error', reject)
  })
  assert.equal(got.joined, false)
  assert.deepEqual(got.answers, expected)
})

it('the ...Async calls answer while the main thread waits', async () => {
  const index = new Grid({ x: 0, y: 0, width: 1000, height: 1000 })
  const handles = index.insertMany(boxesOf(30_000))
  assert.deepEqual(await index.pairsAsync(), index.pairs())
  assert.deepEqual(await index.overlappingManyAsync(handles), index.overlappingMany(handles))
})
