// Fat bounds (the `margin` option): fast-check runs random sequences of small
// moves (inside the fat boxes), far moves, batch moves with a handle twice,
// inserts, removals and margin changes on every class with a margin, and
// checks every query, point query, pair and element box against brute force
// on the elements' own boxes. Then the property, snapshots and the refusals.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { Octree } from 'flatquad'
import { CLASSES, oracle, pairSet, sorted, throwsLike } from './helpers.mjs'

const f32 = Math.fround
const WORLD = { x1: 0, y1: 0, x2: 64, y2: 64 }

const coord = fc.oneof(fc.integer({ min: -4, max: 68 }), fc.float({ min: -10, max: 74, noNaN: true }))
const size = fc.oneof(fc.constantFrom(0, 1, 3), fc.float({ min: 0, max: 10, noNaN: true }))
const rectArb = fc.tuple(coord, coord, size, size).map(([x, y, w, h]) => [f32(x), f32(y), f32(f32(x) + w), f32(f32(y) + h)])
const step = fc.constantFrom(0.25, -0.5, 1, -3, 20)
const opArb = fc.oneof(
  fc.tuple(fc.constant('insert'), rectArb),
  fc.tuple(fc.constant('remove'), fc.nat()),
  { arbitrary: fc.tuple(fc.constant('nudge'), fc.nat(), step), weight: 3 },
  fc.tuple(fc.constant('nudgeMany'), fc.array(fc.tuple(fc.nat(), step), { maxLength: 8 })),
  fc.tuple(fc.constant('move'), fc.nat(), rectArb),
  fc.constant(['cleanup']),
  fc.tuple(fc.constant('margin'), fc.constantFrom(0, 0.5, 2, 9)),
)
const nudged = (r, d) => r.map((v) => f32(v + d))

describe('margin: every answer on the own boxes', () => {
  for (const { name, Class, small } of CLASSES) {
    it(`${name} matches brute force through moves inside and outside the fat boxes`, () => {
      fc.assert(
        fc.property(fc.constantFrom(0.125, 1, 4), fc.array(opArb, { minLength: 1, maxLength: 25 }), fc.tuple(rectArb, coord, coord), (margin, ops, [q, px, py]) => {
          const index = new Class(WORLD, { ...small, margin })
          assert.equal(index.margin, margin)
          const elements = new Map()
          const handleAt = (k) => [...elements.keys()][k % elements.size]
          for (const op of ops) {
            if (op[0] === 'insert') elements.set(index.insert(...op[1]), op[1])
            else if (elements.size === 0) continue
            else if (op[0] === 'remove') {
              const h = handleAt(op[1])
              index.remove(h)
              elements.delete(h)
            } else if (op[0] === 'nudge' || op[0] === 'move') {
              const h = handleAt(op[1])
              const r = op[0] === 'nudge' ? nudged(elements.get(h), op[2]) : op[2]
              index.move(h, ...r)
              elements.set(h, r)
            } else if (op[0] === 'nudgeMany' && op[1].length > 0) {
              // A handle may come twice: the batch ends at its last box.
              const handles = []
              const rects = []
              for (const [k, d] of op[1]) {
                const h = handleAt(k)
                const r = nudged(elements.get(h), d)
                elements.set(h, r)
                handles.push(h)
                rects.push(...r)
              }
              index.moveMany(Float64Array.from(handles), Float64Array.from(rects))
            } else if (op[0] === 'cleanup') index.cleanup()
            else if (op[0] === 'margin') {
              index.margin = op[1]
              assert.equal(index.margin, op[1])
            }
          }
          assert.deepEqual(sorted(index.query(...q)), oracle.query(elements, q))
          assert.deepEqual(sorted(index.queryPoint(f32(px), f32(py))), oracle.point(elements, f32(px), f32(py)))
          assert.deepEqual(pairSet(index.pairs()), oracle.pairs(elements))
          for (const [h, r] of elements) {
            const got = index.rectOf(h)
            assert.deepEqual([got.x1, got.y1, got.x2, got.y2], r)
          }
        }),
        { numRuns: 60 },
      )
    })
  }
})

describe('margin: the property, snapshots and refusals', () => {
  const make = [
    ...CLASSES.map(({ name, Class }) => ({ name, make: (options) => new Class(WORLD, options), axes: 2 })),
    { name: 'Octree', make: (options) => new Octree({ x1: 0, y1: 0, z1: 0, x2: 64, y2: 64, z2: 64 }, options), axes: 3 },
  ]
  for (const { name, make: build, axes } of make) {
    it(`${name}`, () => {
      const index = build({ margin: 2.5 })
      assert.equal(index.margin, 2.5)
      const cube = (lo, hi) => [...Array(axes).fill(lo), ...Array(axes).fill(hi)]
      const a = index.insert(...cube(10, 11))
      index.insert(...cube(12.5, 13.5))
      assert.equal(index.pairs().length, 0, 'the fat boxes meet, the boxes do not')
      index.move(a, ...cube(11.5, 12.5))
      assert.equal(index.pairs().length, 2)
      const copy = index.constructor.fromBytes(index.toBytes())
      assert.equal(copy.margin, 2.5)
      assert.equal(copy.pairs().length, 2)
      const before = index.toBytes()
      for (const bad of [NaN, -1, Infinity, -Infinity, 1e300]) {
        throwsLike(() => {
          index.margin = bad
        }, { type: RangeError, message: /margin/ })
        throwsLike(() => build({ margin: bad }), { type: RangeError, message: /margin/ })
      }
      throwsLike(() => {
        index.margin = 'wide'
      }, { type: TypeError, message: /margin/ })
      throwsLike(() => build({ margin: 'wide' }), { type: TypeError, message: /margin/ })
      assert.deepEqual(index.toBytes(), before)
      assert.equal(index.margin, 2.5)
      index.margin = 0
      assert.equal(index.margin, 0)
      assert.equal(index.pairs().length, 2)
    })
  }
})
