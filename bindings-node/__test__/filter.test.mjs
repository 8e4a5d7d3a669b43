// Collision filters: pairs, overlapping and overlappingMany follow Box2D's rule
// (each one's category in the other's mask) and the masked queries report only
// the categories in the mask, against a brute-force scan on random data for
// every class and the octree; filters survive toBytes/fromBytes; bad handles
// and bad bits are refused with the index unchanged.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Octree, fromBytes } from 'flatquad'
import { CLASSES, f32, rng, sorted, throwsLike } from './helpers.mjs'

const collides = (a, b) => (a.category & b.mask) !== 0 && (b.category & a.mask) !== 0
const passes = (f, mask) => mask === undefined || (f.category & mask) !== 0
/** Unordered pairs as sorted "a,b" strings. */
const pairKeys = (flat) => {
  const out = []
  for (let i = 0; i < flat.length; i += 2) out.push(flat[i] < flat[i + 1] ? `${flat[i]},${flat[i + 1]}` : `${flat[i + 1]},${flat[i]}`)
  return out.sort()
}

// The 2D classes and the octree through one description: how to make one,
// how many numbers a box has, and closed-box tests.
const KINDS = [
  ...CLASSES.map(({ name, Class, small }) => ({
    name,
    axes: 2,
    make: () => new Class({ x1: 0, y1: 0, x2: 100, y2: 100 }, small),
  })),
  { name: 'Octree', axes: 3, make: () => new Octree({ x1: 0, y1: 0, z1: 0, x2: 100, y2: 100, z2: 100 }, { maxElements: 2, maxDepth: 4 }) },
]
const meets = (a, b, n) => {
  for (let i = 0; i < n; i++) if (a[i] > b[i + n] || b[i] > a[i + n]) return false
  return true
}

/** A random box in or around the world (some degenerate, some outside). */
function randomBox(next, n) {
  const lo = Array.from({ length: n }, () => f32(-20 + next() * 140))
  const degenerate = next() < 0.1
  const hi = lo.map((v) => f32(v + (degenerate ? 0 : next() * 15)))
  return [...lo, ...hi]
}

/** A random filter over 3 category bits; sometimes the default. */
function randomFilter(next) {
  if (next() < 0.2) return { category: 0xffffffff, mask: 0xffffffff }
  return { category: 1 << Math.floor(next() * 3), mask: Math.floor(next() * 8) }
}

for (const kind of KINDS) {
  const n = kind.axes
  describe(`${kind.name} collision filters`, () => {
    it('pairs, overlapping and masked queries match a brute-force scan', () => {
      for (let seed = 1; seed <= 6; seed++) {
        const next = rng(seed * 7919)
        const index = kind.make()
        const boxes = new Map()
        const filters = new Map()
        for (let i = 0; i < 80; i++) {
          const b = randomBox(next, n)
          const h = index.insert(...b, i)
          boxes.set(h, b)
          filters.set(h, { category: 0xffffffff, mask: 0xffffffff })
        }
        const live = [...boxes.keys()]
        // Half one by one, half in one batch.
        const batch = []
        for (const h of live) {
          const f = randomFilter(next)
          filters.set(h, f)
          if (next() < 0.5) index.setFilter(h, f.category, f.mask)
          else batch.push(h)
        }
        index.setFilters(
          new Float64Array(batch),
          new Uint32Array(batch.map((h) => filters.get(h).category)),
          new Uint32Array(batch.map((h) => filters.get(h).mask)),
        )
        for (const h of live) assert.deepEqual(index.filter(h), filters.get(h))
        index.validate()

        const expected = []
        for (let i = 0; i < live.length; i++) {
          for (let j = i + 1; j < live.length; j++) {
            const [a, b] = [live[i], live[j]]
            if (meets(boxes.get(a), boxes.get(b), n) && collides(filters.get(a), filters.get(b))) expected.push(a < b ? `${a},${b}` : `${b},${a}`)
          }
        }
        assert.deepEqual(pairKeys(index.pairs()), expected.sort(), `seed ${seed}: pairs`)

        const near = (h) => sorted(live.filter((o) => o !== h && meets(boxes.get(h), boxes.get(o), n) && collides(filters.get(h), filters.get(o))))
        for (const h of live) assert.deepEqual(sorted(index.overlapping(h)), near(h), `seed ${seed}: overlapping`)
        const { offsets, hits } = index.overlappingMany(new Float64Array(live))
        live.forEach((h, i) => assert.deepEqual(sorted(hits.subarray(offsets[i], offsets[i + 1])), near(h)))

        for (let q = 0; q < 40; q++) {
          const box = randomBox(next, n)
          const mask = [undefined, null, 0, 1, 2, 5, 0xffffffff, ~1][q % 8]
          const m = mask === null ? undefined : mask === undefined ? undefined : mask >>> 0
          const want = sorted(live.filter((h) => meets(boxes.get(h), box, n) && passes(filters.get(h), m)))
          assert.deepEqual(sorted(index.query(...box, null, mask)), want, `seed ${seed}: query mask ${mask}`)
          const seen = []
          index.queryWith(...box, (h) => { seen.push(h) }, undefined, mask)
          assert.deepEqual(sorted(seen), want, `seed ${seed}: queryWith mask ${mask}`)
          const point = box.slice(0, n)
          const at = sorted(live.filter((h) => meets(boxes.get(h), [...point, ...point], n) && passes(filters.get(h), m)))
          assert.deepEqual(sorted(index.queryPoint(...point, undefined, mask)), at, `seed ${seed}: queryPoint mask ${mask}`)
        }
        // omit and mask together.
        const omit = live[0]
        const all = [...Array(2 * n)].map((_, i) => (i < n ? -1e6 : 1e6))
        assert.deepEqual(sorted(index.query(...all, omit, 1)), sorted(live.filter((h) => h !== omit && passes(filters.get(h), 1))))

        // Snapshots carry the filters.
        const copies = [index.constructor.fromBytes(index.toBytes())]
        if (n === 2) copies.push(fromBytes(index.toBytes()))
        for (const copy of copies) {
          for (const h of live) assert.deepEqual(copy.filter(h), filters.get(h))
          assert.deepEqual(pairKeys(copy.pairs()), expected.sort())
        }
      }
    })

    it('negative bits (from ~) are read as unsigned; removal resets the filter', () => {
      const index = kind.make()
      const box = Array.from({ length: 2 * n }, (_, i) => (i < n ? 1 : 2))
      const [a, b] = [index.insert(...box), index.insert(...box)]
      index.setFilter(a, 1, ~1)
      assert.deepEqual(index.filter(a), { category: 1, mask: 0xfffffffe })
      index.setFilter(b, 1, -1)
      assert.deepEqual(index.filter(b), { category: 1, mask: 0xffffffff })
      assert.equal(index.pairs().length, 0) // b is not in a's mask
      assert.deepEqual(Array.from(index.query(...box, null, ~1)), [])
      assert.deepEqual(sorted(index.query(...box, null, -1)), sorted([a, b]))
      index.remove(b)
      const c = index.insert(...box)
      assert.deepEqual(index.filter(c), { category: 0xffffffff, mask: 0xffffffff })
    })

    it('bad handles and bad bits are refused with the index unchanged', () => {
      const index = kind.make()
      const box = Array.from({ length: 2 * n }, (_, i) => (i < n ? 1 : 2))
      const [a, b] = [index.insert(...box), index.insert(...box)]
      index.setFilter(a, 2, 2)
      const gone = index.insert(...box)
      index.remove(gone)
      const before = Buffer.from(index.toBytes())
      const unchanged = () => assert.deepEqual(Buffer.from(index.toBytes()), before)

      throwsLike(() => index.setFilter(gone, 1, 1), { code: 'ERR_FLATQUAD_INVALID_HANDLE' })
      throwsLike(() => index.filter(gone), { code: 'ERR_FLATQUAD_INVALID_HANDLE' })
      throwsLike(() => index.setFilter(1.5, 1, 1), { type: RangeError, code: 'ERR_OUT_OF_RANGE' })
      for (const bad of [2 ** 32, -(2 ** 31) - 1, 0.5, NaN, Infinity]) {
        throwsLike(() => index.setFilter(a, bad, 1), { type: RangeError, code: 'ERR_OUT_OF_RANGE', message: /category/ })
        throwsLike(() => index.setFilter(a, 1, bad), { type: RangeError, code: 'ERR_OUT_OF_RANGE', message: /mask/ })
        throwsLike(() => index.query(...box, null, bad), { type: RangeError, code: 'ERR_OUT_OF_RANGE', message: /mask/ })
      }
      throwsLike(() => index.setFilter(a, '1', 1), { type: TypeError, code: 'ERR_INVALID_ARG_TYPE' })
      throwsLike(() => index.queryPoint(...box.slice(0, n), null, '1'), { type: TypeError, code: 'ERR_INVALID_ARG_TYPE' })
      // A stale handle in the middle of a batch: nothing is set, index says which.
      throwsLike(
        () => index.setFilters(new Float64Array([b, gone, a]), new Uint32Array([4, 4, 4]), new Uint32Array([4, 4, 4])),
        { code: 'ERR_FLATQUAD_INVALID_HANDLE', index: 1 },
      )
      throwsLike(
        () => index.setFilters(new Float64Array([b, a]), new Uint32Array([4, 4]), new Uint32Array([4])),
        { type: RangeError, code: 'ERR_FLATQUAD_BAD_LENGTH' },
      )
      throwsLike(
        () => index.setFilters(new Float64Array([b, a]), new Uint32Array([4]), new Uint32Array([4])),
        { type: RangeError, code: 'ERR_FLATQUAD_BAD_LENGTH' },
      )
      throwsLike(
        () => index.setFilters(new Float64Array([b]), new Int32Array([4]), new Uint32Array([4])),
        { type: TypeError, code: 'ERR_INVALID_ARG_TYPE', message: /categories/ },
      )
      unchanged()
      assert.deepEqual(index.filter(a), { category: 2, mask: 2 })
      assert.deepEqual(index.filter(b), { category: 0xffffffff, mask: 0xffffffff })
    })
  })
}
