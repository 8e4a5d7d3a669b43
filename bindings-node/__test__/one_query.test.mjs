// query and queryPoint go through the addon's leaner calls (index.js,
// src/one_query.rs): every call writes its handles into one buffer shared with
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
import { CLASSES, sorted } from './helpers.mjs'

const WORLD = { x: 0, y: 0, width: 100, height: 100 }
const WORLD3 = { x1: 0, y1: 0, z1: 0, x2: 100, y2: 100, z2: 100 }

function assertOwnArray(array) {
  assert.ok(array instanceof Float64Array)
  assert.equal(array.byteOffset, 0)
  assert.equal(array.buffer.byteLength, array.byteLength)
}

it('each answer is an array of its own, unchanged by later calls', () => {
  for (const { name, Class, small } of CLASSES) {
    const index = new Class(WORLD, small)
    const a = index.insert(10, 10, 12, 12)
    const b = index.insert(11, 11, 13, 13)
    const c = index.insert(50, 50, 52, 52)
    const first = index.queryPoint(11.5, 11.5)
    const second = index.query(49, 49, 51, 51)
    const empty = index.queryPoint(90, 90)
    assert.deepEqual(sorted(first), sorted([a, b]), name)
    assert.deepEqual(Array.from(second), [c], name)
    assert.equal(empty.length, 0, name)
    for (const answer of [first, second, empty]) assertOwnArray(answer)
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
      const found = [index.query(...box), index.queryPoint(...point)]
      for (const answer of found) {
        assertOwnArray(answer)
        assert.deepEqual(sorted(answer), sorted(handles), `${name}, ${n} stacked`)
      }
      // omit and mask still reach the query (the last arguments an Octree's box takes).
      assert.equal(index.query(...box, handles[0]).length, n - 1, `${name}: omit`)
      // Every element starts in every category: one left in category 2 alone.
      index.setFilter(handles[1], 2, -1)
      assert.equal(index.queryPoint(...point, null, 2).length, n, `${name}: mask 2`)
      assert.equal(index.queryPoint(...point, null, 4).length, n - 1, `${name}: mask 4`)
    }
  }
})

it('a receiver of another class, or none, throws and crashes nothing', () => {
  const grid = new Grid(WORLD)
  grid.insert(1, 1, 2, 2)
  const quadtree = new Quadtree(WORLD)
  const octree = new Octree(WORLD3)
  const calls = [
    () => Grid.prototype.query.call(quadtree, 0, 0, 5, 5),
    () => Grid.prototype.queryPoint.call(octree, 1, 1),
    () => Octree.prototype.query.call(grid, 0, 0, 0, 5, 5, 5),
    () => Quadtree.prototype.queryPoint.call({}, 1, 1),
    () => Quadtree.prototype.query.call(Object.create(Quadtree.prototype), 0, 0, 5, 5),
    () => Grid.prototype.query.call(undefined, 0, 0, 5, 5),
  ]
  for (const call of calls) assert.throws(call, Error)
  assert.equal(grid.query(0, 0, 5, 5).length, 1)
})

it('the methods look as napi-rs defines them, and nothing else is exported', () => {
  assert.ok(!('__oneQueryCalls' in flatquad))
  for (const Class of [...CLASSES.map((c) => c.Class), Octree]) {
    const reference = Object.getOwnPropertyDescriptor(Class.prototype, 'queryCircle')
    for (const name of ['query', 'queryPoint']) {
      const { value, ...attributes } = Object.getOwnPropertyDescriptor(Class.prototype, name)
      const { value: _, ...expected } = reference
      assert.deepEqual(attributes, expected, `${Class.name}.${name}`)
      assert.equal(typeof value, 'function')
      assert.equal(value.name, name)
    }
  }
})

// Each worker loads the addon again, with a buffer of its own: answers from
// threads querying at once stay each thread's own.
it('worker threads answer with buffers of their own', async () => {
  const entry = fileURLToPath(new URL('../index.js', import.meta.url))
  const source = `
    const { parentPort, workerData } = require('node:worker_threads')
    const { Grid } = require(workerData.entry)
    const grid = new Grid({ x: 0, y: 0, width: 100, height: 100 })
    const mine = grid.insertMany(new Float32Array(Array.from({ length: workerData.n }, () => [5, 5, 6, 6]).flat()))
    let wrong = 0
    for (let i = 0; i < 2000; i++) if (grid.queryPoint(5.5, 5.5).length !== mine.length) wrong++
    parentPort.postMessage(wrong)
  `
  const run = (n) =>
    new Promise((resolve, reject) => {
      const worker = new Worker(source, { eval: true, workerData: { entry, n } })
      worker.once('message', resolve)
      worker.once('error', reject)
    })
  const grid = new Grid(WORLD)
  grid.insertMany(new Float32Array([5, 5, 6, 6, 5, 5, 6, 6, 5, 5, 6, 6]))
  const workers = [run(1), run(2), run(5)]
  let wrong = 0
  for (let i = 0; i < 2000; i++) if (grid.queryPoint(5.5, 5.5).length !== 3) wrong++
  assert.deepEqual(await Promise.all(workers), [0, 0, 0])
  assert.equal(wrong, 0)
})
