// query, queryPoint, queryCircle and overlapping go through the addon's leaner
// calls (index.js, src/one_query.rs): every call writes its handles into one buffer shared with
// the addon, and the wrapper copies them out. What that could break: answers
// sharing memory, answers longer than the buffer, a receiver of another class
// (the calls check `this` themselves), worker threads (a buffer each), and the
// methods' look. The oracle, error and vector suites cover the answers and
// refusals of these same calls on every class.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import flatquad, { Grid, Octree, Quadtree } from 'flatquad'
import { CLASSES, assertOwnArray, sorted, throwsLike } from './helpers.mjs'

const WORLD = { x: 0, y: 0, width: 100, height: 100 }
const WORLD3 = { x1: 0, y1: 0, z1: 0, x2: 100, y2: 100, z2: 100 }

it('each answer is an array of its own, unchanged by later calls', () => {
  for (const { name, Class, small } of CLASSES) {
    const index = new Class(WORLD, small)
    const a = index.insert(10, 10, 12, 12)
    const b = index.insert(11, 11, 13, 13)
    const c = index.insert(50, 50, 52, 52)
    const first = index.queryPoint(11.5, 11.5)
    const second = index.query(49, 49, 51, 51)
    const empty = index.queryPoint(90, 90)
    const circle = index.queryCircle(51, 51, 0.5)
    const neighbours = index.overlapping(a)
    assert.deepEqual(sorted(first), sorted([a, b]), name)
    assert.deepEqual(Array.from(second), [c], name)
    assert.equal(empty.length, 0, name)
    assert.deepEqual(Array.from(circle), [c], name)
    assert.deepEqual(Array.from(neighbours), [b], name)
    for (const answer of [first, second, empty, circle, neighbours]) assertOwnArray(answer, Float64Array)
    assert.notEqual(first.buffer, second.buffer, name)
    second[0] = -1
    assert.deepEqual(Array.from(index.query(49, 49, 51, 51)), [c], `${name}: an answer written to`)
  }
})

// The shared buffer holds 1,024 handles; more come back as the method's own array.
it('answers on both sides of the shared buffer, in every class', () => {
  for (const n of [1023, 1024, 1025, 3000]) {
    const indexes = CLASSES.map(({ name, Class }) => ({ name, index: new Class(WORLD) }))
    indexes.push({ name: 'Octree', index: new Octree(WORLD3) })
    for (const { name, index } of indexes) {
      const is3d = name === 'Octree'
      const box = is3d ? [20, 20, 20, 21, 21, 21] : [20, 20, 21, 21]
      const handles = index.insertMany(new Float32Array(Array.from({ length: n }, () => box).flat()))
      const point = is3d ? [20.5, 20.5, 20.5] : [20.5, 20.5]
      const found = [index.query(...box), index.queryPoint(...point), index.queryCircle(...point, 1)]
      for (const answer of found) {
        assertOwnArray(answer, Float64Array, n)
        assert.deepEqual(sorted(answer), sorted(handles), `${name}, ${n} stacked`)
      }
      const others = index.overlapping(handles[0])
      assertOwnArray(others, Float64Array, n - 1)
      assert.deepEqual(sorted(others), sorted(handles.subarray(1)), `${name}, ${n} stacked: overlapping`)
      // omit and mask still reach the query (the last arguments an Octree's box takes).
      assert.equal(index.query(...box, handles[0]).length, n - 1, `${name}: omit`)
      // Every element starts in every category: one left in category 2 alone.
      index.setFilter(handles[1], 2, -1)
      assert.equal(index.queryPoint(...point, null, 2).length, n, `${name}: mask 2`)
      assert.equal(index.queryPoint(...point, null, 4).length, n - 1, `${name}: mask 4`)
      assert.equal(index.queryCircle(...point, 1, 4).length, n - 1, `${name}: queryCircle's mask`)
    }
  }
})

it('a receiver of another class, or none, throws and crashes nothing', () => {
  const grid = new Grid(WORLD)
  grid.insert(1, 1, 2, 2)
  const quadtree = new Quadtree(WORLD)
  const octree = new Octree(WORLD3)
  // Wrapped by Node-API with a payload of no class of ours, as another addon's
  // objects are: only the type tag tells it apart.
  const foreign = flatquad.__foreignObjectForTests()
  const calls = [
    () => Grid.prototype.query.call(foreign, 0, 0, 5, 5),
    () => Octree.prototype.queryPoint.call(foreign, 1, 1, 1),
    () => Grid.prototype.query.call(quadtree, 0, 0, 5, 5),
    () => Grid.prototype.queryPoint.call(octree, 1, 1),
    () => Octree.prototype.query.call(grid, 0, 0, 0, 5, 5, 5),
    () => Quadtree.prototype.queryPoint.call({}, 1, 1),
    () => Quadtree.prototype.query.call(Object.create(Quadtree.prototype), 0, 0, 5, 5),
    () => Grid.prototype.query.call(undefined, 0, 0, 5, 5),
    () => Grid.prototype.queryCircle.call(quadtree, 1, 1, 1),
    () => Octree.prototype.overlapping.call(grid, 1),
  ]
  for (const call of calls) throwsLike(call, { type: TypeError, code: 'ERR_INVALID_ARG_TYPE', message: /^Illegal invocation/ })
  // napi-rs's own check of a class argument reads the tag too: a foreign
  // object dressed as a Grid is refused (without the tags it was read as one).
  throwsLike(() => grid.join(Object.setPrototypeOf(flatquad.__foreignObjectForTests(), Grid.prototype)), {
    message: /none of these types/,
  })
  assert.equal(grid.query(0, 0, 5, 5).length, 1)
  // A subclass's instances are the class's.
  class Tagged extends Grid {}
  const tagged = new Tagged(WORLD)
  const h = tagged.insert(1, 1, 2, 2)
  assert.deepEqual(Array.from(tagged.queryPoint(1.5, 1.5)), [h])
})

it('the methods look as napi-rs defines them, and nothing else is exported', () => {
  assert.ok(!('__oneQueryCalls' in flatquad))
  for (const Class of [...CLASSES.map((c) => c.Class), Octree]) {
    const reference = Object.getOwnPropertyDescriptor(Class.prototype, 'queryMany')
    for (const name of ['query', 'queryPoint', 'queryCircle', 'overlapping']) {
      const { value, ...attributes } = Object.getOwnPropertyDescriptor(Class.prototype, name)
      const { value: _, ...expected } = reference
      assert.deepEqual(attributes, expected, `${Class.name}.${name}`)
      assert.equal(typeof value, 'function')
      assert.equal(value.name, name)
      assert.equal(value.length, reference.value.length, `${Class.name}.${name}.length`)
    }
  }
})

const ENTRY = fileURLToPath(new URL('../index.js', import.meta.url))
const NATIVE = fileURLToPath(new URL('../native.js', import.meta.url))

/** Runs `source` (CommonJS) on a worker thread and resolves to what it posts. */
function onWorker(source, workerData) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData: { ENTRY, NATIVE, ...workerData } })
    worker.once('message', resolve)
    worker.once('error', reject)
  })
}

// Each worker loads the addon again, with a buffer of its own: answers from
// threads querying at once stay each thread's own (each thread's handles
// differ, its fillers issued first).
it('worker threads answer with buffers of their own', async () => {
  const source = `
    const { parentPort, workerData } = require('node:worker_threads')
    const { Grid } = require(workerData.ENTRY)
    const grid = new Grid({ x: 0, y: 0, width: 100, height: 100 })
    grid.insertMany(new Float32Array(Array.from({ length: workerData.fillers }, () => [90, 90, 91, 91]).flat()))
    const mine = Array.from(grid.insertMany(new Float32Array([5, 5, 6, 6, 5, 5, 6, 6]))).join()
    let wrong = 0
    for (let i = 0; i < 3000; i++) if (Array.from(grid.queryPoint(5.5, 5.5)).sort((a, b) => a - b).join() !== mine) wrong++
    parentPort.postMessage(wrong)
  `
  const workers = [1, 7, 40].map((fillers) => onWorker(source, { fillers }))
  const grid = new Grid(WORLD)
  const mine = sorted(grid.insertMany(new Float32Array([5, 5, 6, 6, 5, 5, 6, 6, 5, 5, 6, 6]))).join()
  let wrong = 0
  for (let i = 0; i < 3000; i++) if (sorted(grid.queryPoint(5.5, 5.5)).join() !== mine) wrong++
  assert.deepEqual(await Promise.all(workers), [0, 0, 0])
  assert.equal(wrong, 0)
})

// A module registry reset (Jest's, between test files) runs index.js again
// over the cached addon: it must load, and the calls still answer.
it('index.js runs a second time over the same addon', async () => {
  const answers = await onWorker(`
    const { parentPort, workerData } = require('node:worker_threads')
    const first = require(workerData.ENTRY)
    delete require.cache[workerData.ENTRY]
    const second = require(workerData.ENTRY)
    const grid = new second.Grid({ x: 0, y: 0, width: 10, height: 10 })
    const h = grid.insert(1, 1, 2, 2)
    parentPort.postMessage([first === second, Array.from(grid.query(0, 0, 3, 3)), [h]])
  `)
  assert.deepEqual(answers[1], answers[2])
  assert.equal(answers[0], true)
})

// The shared buffer is reachable by loading native.js first; detaching it
// (a transfer) must not let the addon write into memory it moved to: the
// answers come back in arrays of their own.
it('a detached shared buffer leaves the answers right', async () => {
  const answers = await onWorker(`
    const { parentPort, workerData } = require('node:worker_threads')
    const { scratch } = require(workerData.NATIVE).__oneQueryCalls
    const moved = structuredClone(scratch.buffer, { transfer: [scratch.buffer] })
    const { Grid } = require(workerData.ENTRY)
    const grid = new Grid({ x: 0, y: 0, width: 10, height: 10 })
    const handles = Array.from(grid.insertMany(new Float32Array([1, 1, 2, 2, 1, 1, 2, 2])))
    const found = Array.from(grid.queryPoint(1.5, 1.5)).sort((a, b) => a - b)
    parentPort.postMessage([found, handles, scratch.byteLength, Array.from(new Float64Array(moved).subarray(0, 2))])
  `)
  const [found, handles, left, written] = answers
  assert.deepEqual(found, handles.sort((a, b) => a - b))
  assert.equal(left, 0)
  assert.deepEqual(written, [0, 0], 'the moved memory was written')
})
