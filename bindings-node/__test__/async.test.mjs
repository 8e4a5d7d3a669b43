// The `...Async` batch calls: answered on a worker thread, each resolves to
// what its twin returns (checked on every class, the octree included, with
// batches big enough for the core's threads); a change made while a promise
// is pending throws ERR_FLATQUAD_BUSY and changes nothing; the arguments are
// read as the call is made; a refused call rejects (never throws) with its
// twin's error; the promise settles only after the call returns.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Octree } from 'flatquad'
import { CLASSES, rng } from './helpers.mjs'

const WORLD = { x1: 0, y1: 0, x2: 1000, y2: 1000 }
const WORLD3 = { x1: 0, y1: 0, z1: 0, x2: 1000, y2: 1000, z2: 1000 }

/** `n` random boxes of `axes` dimensions, some outside the world, some stacked at one spot. */
function boxes(next, n, axes) {
  const out = new Float64Array(2 * axes * n)
  for (let i = 0; i < n; i++) {
    const stacked = i % 50 === 0
    for (let a = 0; a < axes; a++) {
      const lo = stacked ? 500 : -50 + next() * 1100
      out[2 * axes * i + a] = lo
      out[2 * axes * i + axes + a] = lo + (stacked ? 0 : next() * 30)
    }
  }
  return out
}

/** Random points (`axes` numbers each). */
function points(next, n, axes) {
  return Float64Array.from({ length: axes * n }, () => -50 + next() * 1100)
}

const SUBJECTS = [
  ...CLASSES.map(({ name, Class }) => ({ name, axes: 2, make: () => new Class(WORLD) })),
  { name: 'Octree', axes: 3, make: () => new Octree(WORLD3) },
]

/** Asserts that `promise` rejects with an error of class `type` with `code` (and `index`). */
async function rejectsLike(promise, { type = Error, code, index, message }) {
  assert.ok(promise instanceof Promise, 'an ...Async call returns a Promise, even when refused')
  const error = await promise.then(
    () => assert.fail('expected a rejection'),
    (e) => e,
  )
  assert.ok(error instanceof type, `expected a ${type.name}, got ${error?.constructor?.name}: ${error?.message}`)
  if (code !== undefined) assert.equal(error.code, code, error.message)
  if (index !== undefined) assert.equal(error.index, index, error.message)
  if (message !== undefined) assert.match(error.message, message)
  return error
}

for (const { name, axes, make } of SUBJECTS) {
  describe(`${name}: batch calls on a worker`, () => {
    const next = rng(0x5eed + axes)
    const index = make()
    const handles = index.insertMany(boxes(next, 6000, axes))
    const rects = boxes(next, 2500, axes)
    const omit = Float64Array.from({ length: 2500 }, (_, i) => handles[(i * 7) % handles.length])
    const centers = points(next, 2500, axes)
    const radii = Float64Array.from({ length: 2500 }, () => next() * 40)
    const directions = Float64Array.from({ length: axes * 2500 }, () => next() - 0.5)

    it('each resolves to what its twin returns', async () => {
      assert.deepEqual(await index.pairsAsync(), index.pairs())
      assert.deepEqual(await index.overlappingManyAsync(handles), index.overlappingMany(handles))
      assert.deepEqual(await index.queryManyAsync(rects), index.queryMany(rects))
      assert.deepEqual(await index.queryManyAsync(rects, omit), index.queryMany(rects, omit))
      assert.deepEqual(await index.queryCircleManyAsync(centers, radii, 0xff), index.queryCircleMany(centers, radii, 0xff))
      assert.deepEqual(await index.nearestManyAsync(centers, 3, { maxDistance: 60 }), index.nearestMany(centers, 3, { maxDistance: 60 }))
      assert.deepEqual(await index.rayCastManyAsync(centers, directions, 200), index.rayCastMany(centers, directions, 200))
      if (axes === 2) assert.deepEqual(await index.queryBulkAsync(rects, true), index.queryBulk(rects, true))
      // Non-trivial answers, so equality says something.
      assert.ok(index.pairs().length > 0 && index.queryMany(rects).hits.length > 0)
    })

    it('many pending at once, each its own answer', async () => {
      const batches = [0, 1, 2, 3, 4, 5].map((k) => rects.subarray(k * 2 * axes * 400, (k + 1) * 2 * axes * 400))
      const answers = await Promise.all(batches.map((batch) => index.queryManyAsync(batch)))
      answers.forEach((answer, k) => assert.deepEqual(answer, index.queryMany(batches[k])))
    })

    it('a change while a promise is pending throws ERR_FLATQUAD_BUSY and changes nothing; reads go on', async () => {
      const bytes = index.toBytes()
      const pending = index.pairsAsync()
      const box = Array.from(rects.subarray(0, 2 * axes))
      for (const change of [
        () => index.insert(...box, 7),
        () => index.insertMany(rects.subarray(0, 2 * axes)),
        () => index.move(handles[0], ...box),
        () => index.moveMany(handles.subarray(0, 1), rects.subarray(0, 2 * axes)),
        () => index.remove(handles[1]),
        () => index.removeMany(handles.subarray(1, 2)),
        () => index.setFilter(handles[0], 1, 1),
        () => index.setFilters(handles.subarray(0, 1), new Uint32Array([1]), new Uint32Array([1])),
        () => {
          index.margin = 1
        },
        () => index.clear(),
        () => index.cleanup(),
      ]) {
        assert.throws(change, (e) => e.code === 'ERR_FLATQUAD_BUSY' && /await them first/.test(e.message))
      }
      // Reads, and more reads on workers, go on meanwhile.
      assert.equal(index.size, 6000)
      const more = index.overlappingManyAsync(handles.subarray(0, 100))
      assert.deepEqual(await pending, index.pairs())
      await more
      assert.deepEqual(index.toBytes(), bytes)
      // Settled: changes go through again.
      index.move(handles[0], ...box)
      index.validate()
    })

    it('a change in the promise\'s own then goes through; a batch from inside a walk is answered', async () => {
      const box = Array.from(rects.subarray(0, 2 * axes))
      const moved = await index.pairsAsync().then(() => {
        index.move(handles[2], ...box)
        return index.rectOf(handles[2])
      })
      assert.ok(moved)
      let inside
      index.traverse(() => {
        if (inside === undefined) inside = index.queryManyAsync(rects.subarray(0, 2 * axes * 10))
        return false
      })
      assert.deepEqual(await inside, index.queryMany(rects.subarray(0, 2 * axes * 10)))
    })

    it('reads Float32Array arguments as Float64Array ones', async () => {
      const f32 = Float32Array.from(rects)
      assert.deepEqual(await index.queryManyAsync(f32), index.queryMany(f32))
      assert.deepEqual(await index.nearestManyAsync(Float32Array.from(centers), 2), index.nearestMany(centers.map(Math.fround), 2))
    })

    it('reads its arguments as the call is made', async () => {
      const copy = rects.slice(0, 2 * axes * 1200)
      const expected = index.queryMany(copy)
      const pending = index.queryManyAsync(copy)
      copy.fill(0)
      assert.deepEqual(await pending, expected)
      const some = handles.slice(0, 500)
      const neighbours = index.overlappingManyAsync(some)
      const expectedNeighbours = index.overlappingMany(some)
      some.reverse()
      assert.deepEqual(await neighbours, expectedNeighbours)
      const near = centers.slice(0, axes * 300)
      const nearest = index.nearestManyAsync(near, 2)
      const expectedNearest = index.nearestMany(near, 2)
      near.fill(3)
      assert.deepEqual(await nearest, expectedNearest)
    })

    it('a refused call rejects with its twin\'s error, and leaves the index free to change', async () => {
      const bad = rects.slice(0, 2 * axes * 1200)
      bad[2 * axes * 777] = NaN
      await rejectsLike(index.queryManyAsync(bad), { type: RangeError, code: 'ERR_FLATQUAD_INVALID_RECT', index: 777 })
      await rejectsLike(index.queryManyAsync([1, 2, 3, 4]), { type: TypeError, code: 'ERR_INVALID_ARG_TYPE' })
      await rejectsLike(index.queryManyAsync(rects, omit.subarray(1)), { type: RangeError, code: 'ERR_FLATQUAD_BAD_LENGTH' })
      const stale = handles.slice(0, 300)
      stale[123] = 2 ** 52
      await rejectsLike(index.overlappingManyAsync(stale), { code: 'ERR_FLATQUAD_INVALID_HANDLE', index: 123 })
      await rejectsLike(index.queryCircleManyAsync(centers, radii.map((r, i) => (i === 9 ? -1 : r))), { type: RangeError, index: 9 })
      await rejectsLike(index.nearestManyAsync(centers, 1.5), { type: RangeError, code: 'ERR_OUT_OF_RANGE' })
      await rejectsLike(index.rayCastManyAsync(centers, directions.subarray(axes), 10), { type: RangeError, code: 'ERR_FLATQUAD_BAD_LENGTH', message: /directions/ })
      // A getter that throws while the options are read: the promise rejects
      // with the very object thrown, and the call itself throws nothing.
      const thrown = new Error('from a getter')
      const options = {
        get maxDistance() {
          throw thrown
        },
      }
      assert.equal(await index.nearestManyAsync(centers, 1, options).catch((e) => e), thrown)
      // Any value thrown, not only an Error: the very value, never coerced.
      const symbol = Symbol('thrown')
      const cause = new Error('with a cause that throws')
      Object.defineProperty(cause, 'cause', {
        get() {
          throw new Error('read the cause')
        },
      })
      for (const value of ['boom', 42, undefined, null, symbol, cause]) {
        const throwing = {
          get maxDistance() {
            throw value
          },
        }
        let call
        assert.doesNotThrow(() => {
          call = index.nearestManyAsync(centers, 1, throwing)
        })
        assert.equal(await call.then(() => 'resolved', (e) => e), value)
      }
      // Nothing is left pending: the index changes again.
      const handle = index.insert(...Array.from(rects.subarray(0, 2 * axes)), 1)
      index.remove(handle)
    })

    it('answers later: the promise is still pending after the microtasks of the call', async () => {
      let settled = false
      const pending = index.queryManyAsync(rects).then((answer) => {
        settled = true
        return answer
      })
      // A promise settled as the call returned would have run `then` by now.
      for (let i = 0; i < 10; i++) await null
      assert.equal(settled, false)
      assert.deepEqual(await pending, index.queryMany(rects))
    })
  })
}

it('a poisoned index rejects every ...Async call with ERR_FLATQUAD_POISONED', async () => {
  const { Class } = CLASSES[0]
  const index = new Class(WORLD)
  index.insertMany(new Float64Array([1, 1, 2, 2, 3, 3, 4, 4]))
  assert.throws(() => index.__panicForTests(true), (e) => e.code === 'ERR_FLATQUAD_PANIC')
  await rejectsLike(index.pairsAsync(), { code: 'ERR_FLATQUAD_POISONED' })
  await rejectsLike(index.queryManyAsync(new Float64Array([0, 0, 5, 5])), { code: 'ERR_FLATQUAD_POISONED' })
})
