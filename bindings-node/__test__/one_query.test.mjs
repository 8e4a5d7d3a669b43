// query, queryPoint, queryCircle, overlapping, nearest, rayCast, rayCastAll,
// boxCast and boxCastAll, the one-element calls insert, move, remove, idOf,
// has and rectOf, and the getters size and margin go through the addon's
// leaner calls (index.js, src/one_query.rs): every call writes the
// numbers of its answer into one buffer shared with the addon, and the wrapper
// builds the answer from them. What that could break: answers sharing memory,
// answers longer than the buffer, the answers' shape, a `nearest` filter that
// calls again or detaches the buffer, a receiver of another class (the calls
// check `this` themselves), worker threads (a buffer each), and the methods'
// look. The oracle, error and vector suites cover the answers and refusals of
// these same calls on every class.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import flatquad, { Grid, Octree, Quadtree } from 'flatquad'
import { CLASSES, assertOwnArray, sorted, throwsLike } from './helpers.mjs'

/** Every call that goes the lean way. */
const LEAN_CALLS = ['query', 'queryPoint', 'queryCircle', 'overlapping', 'nearest', 'rayCast', 'rayCastAll', 'boxCast', 'boxCastAll', 'insert', 'move', 'remove', 'idOf', 'has', 'rectOf']

/** The getters that go the lean way. */
const LEAN_GETTERS = ['size', 'margin']

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

/** Every class, the Octree too, each with the point and ray of its dimension. */
function everyClass() {
  const indexes = CLASSES.map(({ name, Class }) => ({ name, index: new Class(WORLD), is3d: false }))
  indexes.push({ name: 'Octree', index: new Octree(WORLD3), is3d: true })
  return indexes
}

/** `nearestMany`'s row for one point, as `nearest` answers it. */
function nearestRow(index, point, k) {
  const { offsets, handles, ids, distances } = index.nearestMany(new Float64Array(point), k)
  return Array.from({ length: offsets[1] }, (_, i) => ({ handle: handles[i], id: ids[i], distance: distances[i] }))
}

// 3 numbers a neighbour: 341 fit in the shared buffer's 1,024, 342 come back
// as the method's own answer; both must look the same.
it('nearest answers plain objects, on both sides of the shared buffer, in every class', () => {
  for (const { name, index, is3d } of everyClass()) {
    const box = is3d ? [20, 20, 20, 21, 21, 21] : [20, 20, 21, 21]
    const n = 500
    index.insertMany(new Float32Array(Array.from({ length: n }, (_, i) => box.map((v) => v + (i % 7))).flat()), new Uint32Array(n).map((_, i) => i))
    const point = is3d ? [24.5, 23, 22] : [24.5, 23]
    for (const k of [1, 2, 340, 341, 342, 600]) {
      const found = index.nearest(...point, k)
      assert.ok(Array.isArray(found), `${name}, k ${k}`)
      assert.equal(found.length, Math.min(k, n), `${name}, k ${k}`)
      for (const neighbour of found) {
        assert.equal(Object.getPrototypeOf(neighbour), Object.prototype)
        assert.deepEqual(Object.keys(neighbour), ['handle', 'id', 'distance'], `${name}, k ${k}`)
      }
      assert.deepEqual(found, nearestRow(index, point, k), `${name}, k ${k}`)
    }
    // An answer is its own: a later call leaves it as it was.
    const first = index.nearest(...point, 2)
    const kept = structuredClone(first)
    index.nearest(...point.map((v) => v + 3), 2)
    assert.deepEqual(first, kept, name)
    assert.deepEqual(index.nearest(...point, 3, { maxDistance: 0 }), [], `${name}: none that near`)
  }
})

it('rayCast answers a plain object or null, as rayCastMany, in every class', () => {
  for (const { name, index, is3d } of everyClass()) {
    const box = is3d ? [20, 20, 20, 21, 21, 21] : [20, 20, 21, 21]
    const handle = index.insert(...box, 7)
    const other = index.insert(...box.map((v) => v + 40), 8)
    // A hit, a miss (backwards), a miss (too short), and a hit of the other element.
    const rays = is3d
      ? [[0, 20.5, 20.5, 1, 0, 0, 100], [0, 20.5, 20.5, -1, 0, 0, 100], [0, 20.5, 20.5, 1, 0, 0, 19], [0, 60.5, 60.5, 1, 0, 0, 100]]
      : [[0, 20.5, 1, 0, 100], [0, 20.5, -1, 0, 100], [0, 20.5, 1, 0, 19], [0, 60.5, 1, 0, 100]]
    const axes = is3d ? 3 : 2
    const hits = rays.map((ray) => index.rayCast(...ray))
    assert.deepEqual(hits.map((hit) => hit?.handle ?? null), [handle, null, null, other], name)
    rays.forEach((ray, i) => {
      const hit = hits[i]
      const many = index.rayCastMany(new Float64Array(ray.slice(0, axes)), new Float64Array(ray.slice(axes, 2 * axes)), ray[2 * axes])
      if (hit === null) {
        assert.equal(many.handles[0], 0, `${name}: a miss`)
        return
      }
      assert.equal(Object.getPrototypeOf(hit), Object.prototype)
      assert.deepEqual(Object.keys(hit), ['handle', 'id', 'distance', 'fraction'], name)
      const distance = many.distances[0]
      assert.deepEqual(hit, { handle: many.handles[0], id: many.ids[0], distance, fraction: distance / ray[2 * axes] }, name)
    })
    // An answer is its own: the hit of the other element, cast later, leaves the first as it was.
    assert.deepEqual(hits[0], { handle, id: 7, distance: 20, fraction: 0.2 }, `${name}: a hit is its own`)
  }
})

// The one-element calls return what their methods did: a handle, nothing, an
// id, a boolean, and the box as a plain object with the corners' keys in
// order (32-bit floats). Their refusals (the errors suite checks every code)
// leave the index as it was.
it('the one-element calls answer as the methods did, in every class', () => {
  for (const { name, index, is3d } of everyClass()) {
    const keys = is3d ? ['x1', 'y1', 'z1', 'x2', 'y2', 'z2'] : ['x1', 'y1', 'x2', 'y2']
    const box = is3d ? [0.1, 2, 3, 4.1, 5, 6] : [0.1, 2, 4.1, 5]
    const handle = index.insert(...box, 42)
    assert.equal(typeof handle, 'number', name)
    assert.equal(index.idOf(handle), 42, name)
    assert.equal(index.has(handle), true, name)
    assert.equal(index.has(handle + 1), false, name)
    const rect = index.rectOf(handle)
    assert.equal(Object.getPrototypeOf(rect), Object.prototype, name)
    assert.deepEqual(Object.keys(rect), keys, name)
    assert.deepEqual(Object.values(rect), box.map(Math.fround), name)
    assert.notEqual(index.rectOf(handle), rect, `${name}: a box of its own`)
    const moved = box.map((v) => v + 10)
    assert.equal(index.move(handle, ...moved), undefined, name)
    assert.deepEqual(Object.values(index.rectOf(handle)), moved.map(Math.fround), `${name}: moved`)
    assert.deepEqual(Object.values(rect), box.map(Math.fround), `${name}: the first answer kept`)
    throwsLike(() => index.move(handle, ...moved.map(() => NaN)), { type: RangeError, code: 'ERR_FLATQUAD_INVALID_RECT' })
    assert.deepEqual(Object.values(index.rectOf(handle)), moved.map(Math.fround), `${name}: a refused move`)
    assert.equal(index.remove(handle), undefined, name)
    assert.equal(index.has(handle), false, name)
    for (const call of [() => index.idOf(handle), () => index.rectOf(handle), () => index.remove(handle)]) {
      throwsLike(call, { code: 'ERR_FLATQUAD_INVALID_HANDLE' })
    }
    assert.equal(index.size, 0, name)
  }
})

// 4 numbers a hit: 256 fit in the shared buffer, more come back as the
// method's own objects; both must look the same, and boxCast answers the
// first of boxCastAll.
it('the casts answer plain objects, on both sides of the shared buffer, in every class', () => {
  const keys = ['handle', 'id', 'distance', 'fraction']
  for (const n of [1, 255, 256, 257, 300]) {
    for (const { name, index, is3d } of everyClass()) {
      const box = is3d ? [20, 20, 20, 21, 21, 21] : [20, 20, 21, 21]
      const handles = Array.from(index.insertMany(new Float32Array(Array.from({ length: n }, () => box).flat())))
      index.insert(...box.map((v) => v + 40), 9)
      const ray = is3d ? [0, 20.5, 20.5, 1, 0, 0, 100] : [0, 20.5, 1, 0, 100]
      const mover = is3d ? [0, 20, 20, 1, 21, 21, 50, 0, 0] : [0, 20, 1, 21, 50, 0]
      const answers = [index.rayCastAll(...ray), index.boxCastAll(...mover)]
      for (const [i, hits] of answers.entries()) {
        const what = `${name}, ${n} stacked, ${['rayCastAll', 'boxCastAll'][i]}`
        assert.ok(Array.isArray(hits), what)
        assert.equal(hits.length, n, what)
        // Equal distances and ids: in handle order.
        assert.deepEqual(hits.map((hit) => hit.handle), [...handles].sort((a, b) => a - b), what)
        for (const hit of hits) {
          assert.equal(Object.getPrototypeOf(hit), Object.prototype, what)
          assert.deepEqual(Object.keys(hit), keys, what)
        }
        assert.deepEqual(hits[0], { ...hits[0], id: 0, distance: i === 0 ? 20 : 19, fraction: i === 0 ? 0.2 : 0.38 }, what)
      }
      assert.deepEqual(index.boxCast(...mover), answers[1][0], `${name}: boxCast`)
      const miss = is3d ? [0, 90, 90, 1, 91, 91, 50, 0, 0] : [0, 90, 1, 91, 50, 0]
      assert.equal(index.boxCast(...miss), null, `${name}: a missed boxCast`)
      assert.deepEqual(index.boxCastAll(...miss), [], `${name}: a missed boxCastAll`)
      // omit and mask reach the box casts (the last arguments an Octree's takes).
      assert.equal(index.boxCastAll(...mover, null, handles[0]).length, n - 1, `${name}: omit`)
      assert.equal(index.boxCast(...mover, 0), null, `${name}: mask 0`)
      assert.equal(index.size, n + 1, `${name}: size`)
      index.margin = 0.5
      assert.equal(index.margin, 0.5, `${name}: margin`)
      throwsLike(() => { index.margin = -1 }, { type: RangeError })
      assert.equal(index.margin, 0.5, `${name}: a refused margin`)
    }
  }
})

// A filter runs JavaScript in the middle of a nearest call: its own calls
// write the shared buffer before the answer is written, never after.
it('a nearest filter that queries again leaves the answer right', () => {
  for (const { name, index, is3d } of everyClass()) {
    const boxes = is3d
      ? [1, 1, 1, 2, 2, 2, 5, 5, 5, 6, 6, 6, 9, 9, 9, 10, 10, 10]
      : [1, 1, 2, 2, 5, 5, 6, 6, 9, 9, 10, 10]
    const handles = index.insertMany(new Float32Array(boxes))
    const point = is3d ? [0, 0, 0] : [0, 0]
    const plain = index.nearest(...point, 3)
    const filter = (h) => {
      index.query(...boxes.slice(0, is3d ? 6 : 4))
      index.nearest(...point.map((v) => v + 50), 2)
      index.rayCast(...point, ...point.map((_, i) => (i === 0 ? 1 : 0)), 100)
      return h !== handles[1]
    }
    const filtered = index.nearest(...point, 3, { filter })
    assert.deepEqual(filtered, plain.filter((n) => n.handle !== handles[1]), name)
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
    () => Grid.prototype.nearest.call(quadtree, 1, 1),
    () => Quadtree.prototype.nearest.call(foreign, 1, 1),
    () => Octree.prototype.rayCast.call(grid, 0, 0, 0, 1, 0, 0, 5),
    () => Grid.prototype.rayCast.call(undefined, 0, 0, 1, 0, 5),
    () => Grid.prototype.insert.call(quadtree, 0, 0, 1, 1),
    () => Octree.prototype.insert.call(foreign, 0, 0, 0, 1, 1, 1),
    () => Grid.prototype.move.call(octree, 1, 0, 0, 1, 1),
    () => Quadtree.prototype.remove.call({}, 1),
    () => Grid.prototype.idOf.call(foreign, 1),
    () => Octree.prototype.has.call(grid, 1),
    () => Grid.prototype.rectOf.call(undefined, 1),
    () => Quadtree.prototype.rectOf.call(Object.create(Quadtree.prototype), 1),
    () => Grid.prototype.rayCastAll.call(quadtree, 0, 0, 1, 0, 5),
    () => Octree.prototype.boxCast.call(grid, 0, 0, 0, 1, 1, 1, 1, 0, 0),
    () => Grid.prototype.boxCastAll.call(foreign, 0, 0, 1, 1, 1, 0),
    () => Object.getOwnPropertyDescriptor(Grid.prototype, 'size').get.call(quadtree),
    () => Object.getOwnPropertyDescriptor(Octree.prototype, 'size').get.call(foreign),
    () => Object.getOwnPropertyDescriptor(Quadtree.prototype, 'size').get.call(undefined),
    () => Object.getOwnPropertyDescriptor(Octree.prototype, 'margin').get.call({}),
    () => Object.getOwnPropertyDescriptor(Grid.prototype, 'margin').set.call(quadtree, 1),
    () => Object.getOwnPropertyDescriptor(Grid.prototype, 'margin').set.call(foreign, 1),
    () => Grid.prototype.size,
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
    for (const name of LEAN_CALLS) {
      const { value, ...attributes } = Object.getOwnPropertyDescriptor(Class.prototype, name)
      const { value: _, ...expected } = reference
      assert.deepEqual(attributes, expected, `${Class.name}.${name}`)
      assert.equal(typeof value, 'function')
      assert.equal(value.name, name)
      assert.equal(value.length, reference.value.length, `${Class.name}.${name}.length`)
    }
    // The getters keep napi-rs's attributes, and `margin` its setter.
    const stats = Object.getOwnPropertyDescriptor(Class.prototype, 'kind')
    for (const name of LEAN_GETTERS) {
      const { get, set, ...attributes } = Object.getOwnPropertyDescriptor(Class.prototype, name)
      const { get: _, set: __, ...expected } = stats
      assert.deepEqual(attributes, expected, `${Class.name}.${name}`)
      assert.equal(typeof get, 'function', `${Class.name}.${name}`)
      assert.equal(typeof set, name === 'margin' ? 'function' : 'undefined', `${Class.name}.${name}'s setter`)
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

// Building the neighbours' array can run JavaScript (a setter on
// Array.prototype), which may call again and write the shared buffer: the
// wrapper copies the numbers out before it builds anything.
it('code run while nearest builds its answer leaves it right', async () => {
  const answers = await onWorker(`
    const { parentPort, workerData } = require('node:worker_threads')
    const { Grid } = require(workerData.ENTRY)
    const grid = new Grid({ x: 0, y: 0, width: 100, height: 100 })
    grid.insertMany(new Float32Array([1, 1, 2, 2, 5, 5, 6, 6, 9, 9, 10, 10, 60, 60, 61, 61, 70, 70, 71, 71]))
    const before = grid.nearest(0, 0, 3)
    let inner = false
    Object.defineProperty(Array.prototype, '1', {
      set(value) {
        if (!inner) {
          inner = true
          grid.nearest(80, 80, 3)
        }
        Object.defineProperty(this, '1', { value, writable: true, enumerable: true, configurable: true })
      },
      configurable: true,
    })
    const during = grid.nearest(0, 0, 3)
    delete Array.prototype[1]
    parentPort.postMessage([before, during])
  `)
  assert.deepEqual(answers[1], answers[0])
})

// The same for the casts' hits (the inner call writes more numbers than the
// outer answer holds, so every hit read after it would be wrong).
it('code run while rayCastAll builds its answer leaves it right', async () => {
  const answers = await onWorker(`
    const { parentPort, workerData } = require('node:worker_threads')
    const { Grid } = require(workerData.ENTRY)
    const grid = new Grid({ x: 0, y: 0, width: 100, height: 100 })
    grid.insertMany(new Float32Array([1, 1, 2, 2, 5, 1, 6, 2, 9, 1, 10, 2, 50, 60, 51, 61, 70, 60, 71, 61, 80, 60, 81, 61, 90, 60, 91, 61]))
    const before = grid.rayCastAll(0, 1.5, 1, 0, 20)
    let inner = false
    Object.defineProperty(Array.prototype, '1', {
      set(value) {
        if (!inner) {
          inner = true
          grid.rayCastAll(0, 60.5, 1, 0, 100)
        }
        Object.defineProperty(this, '1', { value, writable: true, enumerable: true, configurable: true })
      },
      configurable: true,
    })
    const during = grid.rayCastAll(0, 1.5, 1, 0, 20)
    delete Array.prototype[1]
    parentPort.postMessage([before, during, inner])
  `)
  assert.equal(answers[0].length, 3)
  assert.equal(answers[2], true, 'the setter ran')
  assert.deepEqual(answers[1], answers[0])
})

// Past the shared buffer (more than 341 neighbours) the answer is napi-rs's,
// whose array is filled through Node-API: a setter on Array.prototype runs
// then, after the call has let the index go, so it may change the index.
it('a setter that changes the index while a long nearest answer is built', async () => {
  const answers = await onWorker(`
    const { parentPort, workerData } = require('node:worker_threads')
    const { Grid } = require(workerData.ENTRY)
    const grid = new Grid({ x: 0, y: 0, width: 100, height: 100 })
    grid.insertMany(new Float32Array(Array.from({ length: 400 }, () => [5, 5, 6, 6]).flat()))
    let added = null
    Object.defineProperty(Array.prototype, '0', {
      set(value) {
        added ??= grid.insert(50, 50, 51, 51)
        Object.defineProperty(this, '0', { value, writable: true, enumerable: true, configurable: true })
      },
      configurable: true,
    })
    let error = null
    let found = []
    try {
      found = grid.nearest(0, 0, 400)
    } catch (e) {
      error = e.code
    }
    delete Array.prototype[0]
    parentPort.postMessage([error, found.length, added !== null, grid.size])
  `)
  assert.deepEqual(answers, [null, 400, true, 401])
})

// The shared buffer is reachable by loading native.js first; detaching it
// (a transfer) must not let the addon write into memory it moved to: the
// answers come back as the methods' own. Detached by a nearest filter, in the
// middle of the call, too.
it('a detached shared buffer leaves the answers right', async () => {
  const answers = await onWorker(`
    const { parentPort, workerData } = require('node:worker_threads')
    const { scratch } = require(workerData.NATIVE).__oneQueryCalls
    const { Grid, Octree } = require(workerData.ENTRY)
    const grid = new Grid({ x: 0, y: 0, width: 10, height: 10 })
    const handles = Array.from(grid.insertMany(new Float32Array([1, 1, 2, 2, 1, 1, 2, 2])))
    let moved
    const filter = () => {
      moved ??= structuredClone(scratch.buffer, { transfer: [scratch.buffer] })
      return true
    }
    const near = grid.nearest(0, 0, 2, { filter }).map((n) => n.handle).sort((a, b) => a - b)
    const found = Array.from(grid.queryPoint(1.5, 1.5)).sort((a, b) => a - b)
    const hit = grid.rayCast(0, 1.5, 1, 0, 10)
    const hitLook = [hit.handle === handles[0], hit.id, Object.getPrototypeOf(hit) === Object.prototype, Object.keys(hit)]
    const nearest = grid.nearest(0, 0, 2).map((n) => [n.handle, n.distance])
    const rect = grid.rectOf(handles[1])
    const casts = [grid.boxCast(0, 1, 0.5, 2, 5, 0), grid.boxCast(0, 5, 0.5, 6, 5, 0), grid.rayCastAll(0, 1.5, 1, 0, 10), grid.boxCastAll(0, 1, 0.5, 2, 5, 0)]
    const octree = new Octree({ x1: 0, y1: 0, z1: 0, x2: 10, y2: 10, z2: 10 })
    const cube = octree.insert(1, 2, 3, 4, 5, 6, 9)
    const octreeAnswers = [octree.rectOf(cube), octree.boxCast(0, 2, 3, 0.5, 5, 6, 5, 0, 0), octree.rayCastAll(0, 3, 4, 1, 0, 0, 10)]
    parentPort.postMessage([near, found, handles, [hit.distance, hit.fraction, ...hitLook], nearest, scratch.byteLength, Array.from(new Float64Array(moved).subarray(0, 8)), rect, casts, [cube, octreeAnswers]])
  `)
  const [near, found, handles, hit, nearest, left, written, rect, casts, [cube, octreeAnswers]] = answers
  assert.deepEqual(octreeAnswers, [
    { x1: 1, y1: 2, z1: 3, x2: 4, y2: 5, z2: 6 },
    { handle: cube, id: 9, distance: 0.5, fraction: 0.1 },
    [{ handle: cube, id: 9, distance: 1, fraction: 0.1 }],
  ], "an Octree's answers from their own arrays")
  const [low, high] = handles
  assert.deepEqual(casts, [
    { handle: low, id: 0, distance: 0.5, fraction: 0.1 },
    null,
    [low, high].map((handle) => ({ handle, id: 0, distance: 1, fraction: 0.1 })),
    [low, high].map((handle) => ({ handle, id: 0, distance: 0.5, fraction: 0.1 })),
  ], 'the casts from their own arrays')
  assert.deepEqual(rect, { x1: 1, y1: 1, x2: 2, y2: 2 }, 'rectOf from its own array')
  const sortedHandles = handles.sort((a, b) => a - b)
  assert.deepEqual(near, sortedHandles)
  assert.deepEqual(found, sortedHandles)
  // Both elements are hit at 1; the tie goes to the smaller handle (their ids are 0).
  assert.deepEqual(hit, [1, 0.1, true, 0, true, ['handle', 'id', 'distance', 'fraction']])
  assert.deepEqual(nearest, sortedHandles.map((h) => [h, Math.SQRT2]))
  assert.equal(left, 0)
  assert.deepEqual(written, [0, 0, 0, 0, 0, 0, 0, 0], 'the moved memory was written')
})
