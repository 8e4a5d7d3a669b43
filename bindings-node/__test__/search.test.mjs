// Nearest neighbours, circle (sphere) queries and ray casts against a
// brute-force oracle written here (the distance to a closed box in f64 from the
// f32 coordinates, the slab entry of a ray), on random data with degenerate
// boxes, duplicates and elements outside the world, for every class and the
// octree: ordered results compared in order (ascending distance, then id, then
// handle); bad input refused and throwing callbacks propagated with the index
// unchanged.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { Octree } from 'flatquad'
import { CLASSES, f32, rng, sorted, throwsLike } from './helpers.mjs'

const ALL = 0xffffffff
const KINDS = [
  ...CLASSES.map(({ name, Class, small }) => ({ name, axes: 2, make: (options) => new Class({ x1: 0, y1: 0, x2: 100, y2: 100 }, options ?? small) })),
  {
    name: 'Octree',
    axes: 3,
    make: (options) => new Octree({ x1: 0, y1: 0, z1: 0, x2: 100, y2: 100, z2: 100 }, options ?? { maxElements: 2, maxDepth: 4 }),
  },
]

// ---- The oracle -------------------------------------------------------------

/** Bounds::distance_to_point: f64 from the f32 coordinates, 0 inside. */
function distance(box, p, n) {
  let sum = 0
  for (let i = 0; i < n; i++) {
    const gap = Math.max(box[i] - p[i], p[i] - box[i + n], 0)
    sum += gap * gap
  }
  return Math.sqrt(sum) + 0
}

/** Where the segment first touches the closed box (slab method), or null. */
function rayEntry(box, origin, unit, maxLength, n) {
  let [enter, exit] = [0, maxLength]
  for (let i = 0; i < n; i++) {
    const [o, d, lo, hi] = [origin[i], unit[i], box[i], box[i + n]]
    if (d === 0) {
      if (o < lo || o > hi) return null
      continue
    }
    const [t1, t2] = [(lo - o) / d, (hi - o) / d]
    enter = Math.max(enter, Math.min(t1, t2))
    exit = Math.min(exit, Math.max(t1, t2))
  }
  return enter <= exit ? enter + 0 : null
}

/** The direction scaled to length 1 in f64 (Ray::unit_direction). */
function unitOf(direction) {
  let length = 0
  for (const v of direction) length += v * v
  length = Math.sqrt(length)
  return direction.map((v) => v / length)
}

const byKey = (a, b) => a.distance - b.distance || a.id - b.id || a.handle - b.handle
const passes = (model, h, mask) => mask === ALL || (model.get(h).category & mask) !== 0

/** Every element passing `mask` within `max` of the (f32) point, in order. */
function oracleNearest(model, point, max, mask, n) {
  const p = point.map(f32)
  const out = []
  for (const [handle, e] of model) {
    if (!passes(model, handle, mask)) continue
    const d = distance(e.box, p, n)
    if (d <= max) out.push({ handle, id: e.id, distance: d })
  }
  return out.sort(byKey)
}

function oracleRay(model, origin, direction, maxLength, mask, n) {
  const o = origin.map(f32)
  const unit = unitOf(direction.map(f32))
  const out = []
  for (const [handle, e] of model) {
    if (!passes(model, handle, mask)) continue
    const d = rayEntry(e.box, o, unit, maxLength, n)
    if (d !== null) out.push({ handle, id: e.id, distance: d, fraction: maxLength > 0 ? d / maxLength : 0 })
  }
  return out.sort(byKey)
}

/** The fraction t in [0, 1] at which `moving` moved by t * motion first touches the closed box, or null (f64 from the f32 bounds). */
function sweepEntry(box, moving, motion, n) {
  let [enter, exit] = [0, 1]
  for (let i = 0; i < n; i++) {
    const [d, lo, hi] = [motion[i], box[i] - moving[i + n], box[i + n] - moving[i]]
    if (d === 0) {
      if (lo > 0 || hi < 0) return null
      continue
    }
    const [t1, t2] = [lo / d, hi / d]
    enter = Math.max(enter, Math.min(t1, t2))
    exit = Math.min(exit, Math.max(t1, t2))
  }
  return enter <= exit ? enter + 0 : null
}

function oracleBoxCast(model, moving, motion, mask, omit, n) {
  const [m, d] = [moving.map(f32), motion.map(f32)]
  let length = 0
  for (const v of d) length += v * v
  length = Math.sqrt(length)
  const out = []
  for (const [handle, e] of model) {
    if (!passes(model, handle, mask) || handle === omit) continue
    const t = sweepEntry(e.box, m, d, n)
    if (t !== null) out.push({ handle, id: e.id, distance: t * length, fraction: t })
  }
  return out.sort((a, b) => a.fraction - b.fraction || a.id - b.id || a.handle - b.handle)
}

// ---- Random data -------------------------------------------------------------

/** A random box around the world [0, 100]^n: small, degenerate, large, or far outside. */
function randomBox(next, n) {
  const kind = next()
  const far = kind < 0.08
  const lo = Array.from({ length: n }, () => f32(far ? -500 + next() * 1100 : -20 + next() * 140))
  let size
  if (kind < 0.2) size = () => 0 // a point
  else if (kind < 0.25) size = () => (next() < 0.5 ? 0 : next() * 10) // a segment or a flat box
  else if (kind < 0.3) size = () => next() * 120 // large
  else size = () => next() * 8
  return [...lo, ...lo.map((v) => f32(v + size()))]
}

const randomPoint = (next, n) => Array.from({ length: n }, () => -40 + next() * 180)

/** A random direction: often along an axis, sometimes of an odd length. */
function randomDirection(next, n) {
  const pick = next()
  const d = Array.from({ length: n }, () => (pick < 0.3 ? 0 : -1 + next() * 2))
  if (pick < 0.3) d[Math.floor(next() * n)] = next() < 0.5 ? -3 : 0.5
  if (d.every((v) => f32(v) === 0)) d[0] = 1
  return d
}

const MASKS = [ALL, ALL, 1, 2, 3, 6, 0]

/** An index of `kind` with `count` random elements (some duplicated, random ids and categories). */
function build(kind, next, count, options) {
  const n = kind.axes
  const index = kind.make(options)
  const model = new Map()
  let last
  for (let i = 0; i < count; i++) {
    const box = last && next() < 0.1 ? last : randomBox(next, n)
    last = box
    const id = Math.floor(next() * 6)
    const handle = index.insert(...box, id)
    const category = next() < 0.3 ? ALL : 1 << Math.floor(next() * 3)
    if (category !== ALL) index.setFilter(handle, category, ALL)
    model.set(handle, { box, id, category })
  }
  // A few removed, so handles are not all in insertion order.
  for (const h of [...model.keys()].filter(() => next() < 0.05)) {
    index.remove(h)
    model.delete(h)
  }
  return { index, model }
}

const plain = (xs) => xs.map((x) => ({ ...x }))

// ---- The tests ---------------------------------------------------------------

for (const kind of KINDS) {
  const n = kind.axes
  describe(`${kind.name} searches`, () => {
    // On one core, or with RAYON_NUM_THREADS=1, this checks the serial path.
    it('a big nearestMany batch (on every core) has the single searches\' rows', () => {
      const next = rng(7919 + n)
      const { index } = build(kind, next, 300)
      const points = []
      for (let q = 0; q < 2500; q++) points.push(randomPoint(next, n))
      const { offsets, handles, distances } = index.nearestMany(new Float64Array(points.flat()), 3)
      assert.equal(offsets.length, points.length + 1)
      for (let i = 0; i < points.length; i += 7) {
        const want = index.nearest(...points[i], 3)
        const row = []
        for (let j = offsets[i]; j < offsets[i + 1]; j++) row.push({ handle: handles[j], distance: distances[j] })
        assert.deepEqual(row, want.map(({ handle, distance }) => ({ handle, distance })), `nearestMany ${i}`)
      }
    })

    // From 1,000 rays the batch runs on every core (one core: the serial path).
    it('rayCastMany gives each ray\'s first hit, as rayCast does', () => {
      const next = rng(6151 + n)
      const { index } = build(kind, next, 300)
      const origins = []
      const directions = []
      const lengths = []
      for (let q = 0; q < 2500; q++) {
        origins.push(randomPoint(next, n))
        directions.push(randomDirection(next, n))
        lengths.push([0, 3, 40, 300][q % 4])
      }
      const flat = (rows) => new Float64Array(rows.flat())
      for (const [maxLength, mask] of [[new Float64Array(lengths), undefined], [25, 5]]) {
        const { handles, ids, distances } = index.rayCastMany(flat(origins), flat(directions), maxLength, mask)
        assert.equal(handles.length, origins.length)
        let hit = 0
        for (let i = 0; i < origins.length; i += 5) {
          const length = typeof maxLength === 'number' ? maxLength : maxLength[i]
          const want = index.rayCast(...origins[i], ...directions[i], length, mask)
          const got = { handle: handles[i], id: ids[i], distance: distances[i] }
          if (want === null) assert.deepEqual(got, { handle: 0, id: 0, distance: Infinity }, `ray ${i}`)
          else assert.deepEqual(got, { handle: want.handle, id: want.id, distance: want.distance }, `ray ${i}`)
          if (want !== null) hit++
        }
        assert.ok(hit > 0, 'some rays hit')
      }
      const bad = directions.map((d) => [...d])
      bad[1234] = bad[1234].map(() => 0)
      throwsLike(() => index.rayCastMany(flat(origins), flat(bad), 10), { type: RangeError, index: 1234, message: /direction/ })
      throwsLike(() => index.rayCastMany(flat(origins), flat(directions.slice(3)), 10), { type: RangeError, code: 'ERR_FLATQUAD_BAD_LENGTH', message: /directions/ })
      throwsLike(() => index.rayCastMany(flat(origins), flat(directions), new Float64Array(3)), { type: RangeError, code: 'ERR_FLATQUAD_BAD_LENGTH', message: /maxLength/ })
      throwsLike(() => index.rayCastMany(flat(origins), flat(directions), 'far'), { type: TypeError })
      const empty = index.rayCastMany(new Float64Array(0), new Float64Array(0), 1)
      assert.deepEqual([empty.handles.length, empty.ids.length, empty.distances.length], [0, 0, 0])
    })

    it('nearest and nearestMany match the oracle, in order', () => {
      for (let seed = 1; seed <= 5; seed++) {
        const next = rng(seed * 104729 + n)
        const { index, model } = build(kind, next, 150, seed === 5 ? {} : undefined)
        const points = []
        for (let q = 0; q < 60; q++) {
          const point = randomPoint(next, n)
          const k = [0, 1, 1, 3, 10, model.size + 5][q % 6]
          const max = [undefined, undefined, 0, next() * 30, Infinity][q % 5]
          const mask = MASKS[q % MASKS.length]
          const options = { ...(max === undefined ? {} : { maxDistance: max }), ...(mask === ALL ? {} : { mask }) }
          const want = oracleNearest(model, point, max ?? Infinity, mask, n).slice(0, k)
          const got = index.nearest(...point, k, options)
          assert.deepEqual(plain(got), want, `seed ${seed}: nearest ${point} k ${k} max ${max} mask ${mask}`)
          if (k === 1 && max === undefined && mask === ALL) {
            assert.deepEqual(plain(index.nearest(...point)), want, 'k defaults to 1')
            points.push(point)
          }
        }
        // The batch, from a Float64Array (rounded to f32 as single coordinates are) and a Float32Array.
        for (const k of [1, 4]) {
          for (const array of [new Float64Array(points.flat()), new Float32Array(points.flat())]) {
            const { offsets, handles, ids, distances } = index.nearestMany(array, k, { maxDistance: 40, mask: 3 })
            assert.equal(offsets.length, points.length + 1)
            points.forEach((point, i) => {
              const want = oracleNearest(model, point, 40, 3, n).slice(0, k)
              const row = []
              for (let j = offsets[i]; j < offsets[i + 1]; j++) row.push({ handle: handles[j], id: ids[j], distance: distances[j] })
              assert.deepEqual(row, want, `seed ${seed}: nearestMany ${i}`)
            })
          }
        }
      }
    })

    it("nearest's filter is called nearest first, each candidate once, and rejected ones do not count", () => {
      const next = rng(77 + n)
      const { index, model } = build(kind, next, 120)
      for (let q = 0; q < 30; q++) {
        const point = randomPoint(next, n)
        const k = 1 + (q % 4)
        const candidates = oracleNearest(model, point, Infinity, ALL, n)
        const keep = (h) => model.get(h).id % 2 === 0
        const calls = []
        const got = index.nearest(...point, k, {
          filter: (h) => {
            calls.push(h)
            return keep(h) ? 1 : '' // truthy / falsy, as Array.prototype.filter reads them
          },
        })
        const want = []
        const expectedCalls = []
        for (const c of candidates) {
          if (want.length === k) break
          expectedCalls.push(c.handle)
          if (keep(c.handle)) want.push(c)
        }
        assert.deepEqual(plain(got), want)
        assert.deepEqual(calls, expectedCalls)
      }
    })

    it('queryCircle and queryCircleMany match the oracle', () => {
      for (let seed = 1; seed <= 4; seed++) {
        const next = rng(seed * 31337 + n)
        const { index, model } = build(kind, next, 150)
        const circles = []
        for (let q = 0; q < 50; q++) {
          const center = randomPoint(next, n)
          const radius = [0, next() * 5, next() * 40, Infinity, next() * 200][q % 5]
          const mask = MASKS[q % MASKS.length]
          const want = sorted(oracleNearest(model, center, radius, mask, n).map((x) => x.handle))
          assert.deepEqual(sorted(index.queryCircle(...center, radius, mask === ALL ? undefined : mask)), want, `seed ${seed}: circle ${center} r ${radius}`)
          if (mask === ALL) circles.push([center, radius])
        }
        const centers = new Float64Array(circles.flatMap(([c]) => c))
        // Into out arrays with room to spare too (the answer then views them).
        const out = { offsets: new Uint32Array(circles.length + 1), hits: new Float64Array(200 * circles.length) }
        for (const radii of [new Float64Array(circles.map(([, r]) => r)), new Float32Array(circles.map(([, r]) => r))]) {
          for (const into of [undefined, out]) {
            const { offsets, hits } = index.queryCircleMany(centers, radii, null, into)
            if (into) assert.ok(offsets.buffer === out.offsets.buffer && hits.buffer === out.hits.buffer)
            circles.forEach(([center], i) => {
              const want = sorted(oracleNearest(model, center, radii[i], ALL, n).map((x) => x.handle))
              assert.deepEqual(sorted(hits.subarray(offsets[i], offsets[i + 1])), want)
            })
          }
        }
        const masked = index.queryCircleMany(new Float32Array(centers), new Float64Array(circles.map(([, r]) => r)), 2)
        circles.forEach(([center, radius], i) => {
          const want = sorted(oracleNearest(model, center, radius, 2, n).map((x) => x.handle))
          assert.deepEqual(sorted(masked.hits.subarray(masked.offsets[i], masked.offsets[i + 1])), want)
        })
      }
    })

    it('rayCast, rayCastAll and rayCastWith match the oracle, in order', () => {
      for (let seed = 1; seed <= 5; seed++) {
        const next = rng(seed * 7727 + n)
        const { index, model } = build(kind, next, 150)
        for (let q = 0; q < 60; q++) {
          const origin = q % 7 === 0 ? [...model.values()][q % model.size].box.slice(0, n) : randomPoint(next, n)
          const direction = randomDirection(next, n)
          const maxLength = [0, next() * 50, next() * 400, 1e4][q % 4]
          const mask = MASKS[q % MASKS.length]
          const m = mask === ALL ? undefined : mask
          const want = oracleRay(model, origin, direction, maxLength, mask, n)
          const label = `seed ${seed}: ray ${origin} ${direction} ${maxLength} mask ${mask}`
          assert.deepEqual(plain(index.rayCastAll(...origin, ...direction, maxLength, m)), want, label)
          const first = index.rayCast(...origin, ...direction, maxLength, m)
          assert.deepEqual(first === null ? null : { ...first }, want[0] ?? null, label)
          // Going on sees every hit; false stops at once.
          const seen = []
          index.rayCastWith(...origin, ...direction, maxLength, (hit) => { seen.push({ ...hit }) }, m)
          assert.deepEqual(seen, want, label)
          let calls = 0
          index.rayCastWith(...origin, ...direction, maxLength, () => { calls++; return false }, m)
          assert.equal(calls, Math.min(1, want.length))
          // Clipping at each hit's distance keeps the nearest (and its ties).
          const nearest = []
          index.rayCastWith(...origin, ...direction, maxLength, (hit) => { nearest.push({ ...hit }); return hit.distance }, m)
          assert.deepEqual(nearest, want.filter((h) => h.distance <= want[0].distance), label)
          // Clipping to a length from the first hit on.
          if (want.length) {
            const clip = want[0].distance + (want[want.length - 1].distance - want[0].distance) / 2
            const clipped = []
            index.rayCastWith(...origin, ...direction, maxLength, (hit) => { clipped.push({ ...hit }); return clip }, m)
            assert.deepEqual(clipped, want.filter((h, i) => i === 0 || h.distance <= clip), label)
          }
        }
      }
    })

    it('boxCast and boxCastAll match the oracle, in order', () => {
      for (let seed = 1; seed <= 5; seed++) {
        const next = rng(seed * 6151 + n)
        const { index, model } = build(kind, next, 150)
        const handles = [...model.keys()]
        for (let q = 0; q < 60; q++) {
          const moving = randomBox(next, n)
          const reach = [0, 1, 7.5, 60, 300][q % 5]
          const motion = Array.from({ length: n }, () => (next() < 0.3 ? 0 : (-1 + 2 * next()) * reach))
          const mask = MASKS[q % MASKS.length]
          const m = mask === ALL ? undefined : mask
          const omit = q % 3 === 0 ? handles[q % handles.length] : undefined
          const want = oracleBoxCast(model, moving, motion, mask, omit, n)
          const label = `seed ${seed}: box ${moving} by ${motion} mask ${mask} omit ${omit}`
          assert.deepEqual(plain(index.boxCastAll(...moving, ...motion, m, omit)), want, label)
          const first = index.boxCast(...moving, ...motion, m, omit)
          assert.deepEqual(first === null ? null : { ...first }, want[0] ?? null, label)
        }
      }
    })

    it('boxCast refuses bad boxes, motions and handles, changing nothing', () => {
      const index = kind.make()
      const box = n === 2 ? [10, 10, 20, 20] : [10, 10, 10, 20, 20, 20]
      const a = index.insert(...box, 1)
      const wall = index.insert(...(n === 2 ? [50, 0, 55, 100] : [50, 0, 0, 55, 100, 100]), 2)
      const motion = n === 2 ? [40, 0] : [40, 0, 0]
      const hit = index.boxCast(...box, ...motion, undefined, a)
      assert.deepEqual([hit.handle, hit.fraction, hit.distance], [wall, 0.75, 30])
      assert.deepEqual(index.boxCastAll(...box, ...motion).map((h) => h.handle), [a, wall])
      const nan = [...box]
      nan[0] = NaN
      const inverted = [...box]
      inverted[0] = 99
      for (const [b, d] of [[nan, motion], [inverted, motion], [box, motion.map((v, i) => (i === 0 ? Infinity : v))], [box, motion.map(() => NaN)]]) {
        assert.throws(() => index.boxCast(...b, ...d), RangeError)
        assert.throws(() => index.boxCastAll(...b, ...d), RangeError)
      }
      index.remove(a)
      assert.throws(() => index.boxCast(...box, ...motion, undefined, a))
      assert.equal(index.size, 1)
      assert.equal(index.boxCast(...box, ...motion).handle, wall)
    })

    it('fast-check: nearest and rayCastAll on small random sets', () => {
      const coord = fc.integer({ min: -30, max: 130 })
      const side = fc.constantFrom(0, 0, 1, 2.5, 10)
      const box = fc.tuple(fc.array(coord, { minLength: n, maxLength: n }), fc.array(side, { minLength: n, maxLength: n }), fc.nat(3))
      fc.assert(
        fc.property(
          fc.array(box, { maxLength: 30 }),
          fc.array(fc.integer({ min: -40, max: 140 }), { minLength: n, maxLength: n }),
          fc.array(fc.integer({ min: -2, max: 2 }), { minLength: n, maxLength: n }),
          fc.nat(6),
          (boxes, point, direction, k) => {
            const index = kind.make()
            const model = new Map()
            for (const [lo, size, id] of boxes) {
              const b = [...lo, ...lo.map((v, i) => v + size[i])]
              model.set(index.insert(...b, id), { box: b, id, category: ALL })
            }
            assert.deepEqual(plain(index.nearest(...point, k)), oracleNearest(model, point, Infinity, ALL, n).slice(0, k))
            if (direction.some((v) => v !== 0)) {
              assert.deepEqual(plain(index.rayCastAll(...point, ...direction, 150)), oracleRay(model, point, direction, 150, ALL, n))
            }
          },
        ),
        { numRuns: 60, seed: 42 + n },
      )
    })

    it('bad input is refused with the index unchanged', () => {
      const next = rng(5 + n)
      const { index } = build(kind, next, 40)
      const before = Buffer.from(index.toBytes())
      const p = Array(n).fill(1)
      const nan = [NaN, ...Array(n - 1).fill(1)]
      const d = [1, ...Array(n - 1).fill(0)]
      const zero = Array(n).fill(0)
      const range = { type: RangeError }
      const point = { ...range, code: 'ERR_FLATQUAD_INVALID_POINT' }
      const param = { ...range, code: 'ERR_FLATQUAD_INVALID_OPTION' }
      const outOfRange = { ...range, code: 'ERR_OUT_OF_RANGE' }
      const type = { type: TypeError, code: 'ERR_INVALID_ARG_TYPE' }
      throwsLike(() => index.nearest(...nan), point)
      throwsLike(() => index.nearest(...p.slice(0, n - 1), Infinity), point)
      throwsLike(() => index.nearest(...p, -1), { ...outOfRange, message: /k must be/ })
      throwsLike(() => index.nearest(...p, 1.5), outOfRange)
      throwsLike(() => index.nearest(...p, NaN), outOfRange)
      throwsLike(() => index.nearest(...p, 1, { maxDistance: -1 }), { ...param, message: /max_distance/ })
      throwsLike(() => index.nearest(...p, 1, { maxDistance: NaN }), param)
      throwsLike(() => index.nearest(...p, 1, { mask: 2 ** 32 }), outOfRange)
      throwsLike(() => index.nearest(...p, 1, { filter: 3 }), { ...type, message: /options.filter/ })
      throwsLike(() => index.nearest(...p, 1, 5), type)
      throwsLike(() => index.nearest(...p, '1'), type)
      throwsLike(() => index.queryCircle(...p, -1), { ...param, message: /radius/ })
      throwsLike(() => index.queryCircle(...p, NaN), param)
      throwsLike(() => index.queryCircle(...nan, 1), point)
      throwsLike(() => index.queryCircle(...p, 1, -(2 ** 31) - 1), outOfRange)
      throwsLike(() => index.rayCast(...p, ...zero, 10), { ...param, message: /direction/ })
      throwsLike(() => index.rayCast(...p, ...[1e-50, ...zero.slice(1)], 10), { ...param, message: /direction/ }) // rounds to 0 in f32
      throwsLike(() => index.rayCastAll(...p, ...[NaN, ...zero.slice(1)], 10), param)
      throwsLike(() => index.rayCastAll(...p, ...d, -1), { ...param, message: /max_length/ })
      throwsLike(() => index.rayCast(...p, ...d, Infinity), param)
      throwsLike(() => index.rayCast(...p, ...d, NaN), param)
      throwsLike(() => index.rayCast(...nan, ...d, 1), point)
      throwsLike(() => index.rayCastWith(...p, ...zero, 10, () => {}), param)
      throwsLike(() => index.rayCastWith(...p, ...d, 10, 'no'), type)
      throwsLike(() => index.rayCast(...p, ...d), type)
      // Batches: the bad item's index; lengths.
      const points = new Float64Array([...p, ...p, ...nan])
      throwsLike(() => index.nearestMany(points), { ...point, index: 2 })
      throwsLike(() => index.nearestMany(new Float64Array(n + 1)), { ...range, code: 'ERR_FLATQUAD_BAD_LENGTH' })
      throwsLike(() => index.nearestMany(new Float64Array(n), -1), outOfRange)
      throwsLike(() => index.nearestMany(new Float64Array(n), 1, { maxDistance: -1 }), param)
      throwsLike(() => index.nearestMany(new Float64Array(n), 1, { filter: () => true }), { ...type, message: /no filter/ })
      throwsLike(() => index.nearestMany([1, 2]), type)
      throwsLike(() => index.queryCircleMany(points, new Float64Array([1, 1, 1])), { ...point, index: 2 })
      throwsLike(() => index.queryCircleMany(new Float64Array(2 * n), new Float64Array([1, -1])), { ...param, index: 1 })
      throwsLike(() => index.queryCircleMany(new Float64Array(2 * n), new Float64Array([1])), { ...range, code: 'ERR_FLATQUAD_BAD_LENGTH' })
      throwsLike(() => index.queryCircleMany(new Float64Array(2 * n), new Uint32Array([1, 1])), { ...type, message: /radii/ })
      assert.deepEqual(Buffer.from(index.toBytes()), before)
      index.validate()
    })

    it('a callback that throws propagates its error with the index unchanged', () => {
      const next = rng(9 + n)
      const { index, model } = build(kind, next, 60)
      const before = Buffer.from(index.toBytes())
      const p = Array(n).fill(50)
      const d = [1, ...Array(n - 1).fill(0)]
      const boom = new Error('boom')
      let calls = 0
      assert.throws(() => index.nearest(...p, 5, { filter: () => { calls++; throw boom } }), (e) => e === boom)
      assert.equal(calls, 1, 'no call after the throw')
      // Not only Error objects: whatever was thrown.
      assert.throws(() => index.nearest(...p, 5, { filter: () => { throw 'text' } }), (e) => e === 'text')
      const [h] = model.keys()
      const start = model.get(h).box.slice(0, n)
      calls = 0
      assert.throws(() => index.rayCastWith(...start, ...d, 100, () => { calls++; throw boom }), (e) => e === boom)
      assert.equal(calls, 1)
      // A callback may read the index, not change it.
      assert.throws(() => index.rayCastWith(...start, ...d, 100, () => { index.remove(h) }), { code: 'ERR_FLATQUAD_BUSY' })
      assert.throws(() => index.nearest(...p, 1, { filter: () => index.clear() }), { code: 'ERR_FLATQUAD_BUSY' })
      let read = 0
      index.rayCastWith(...start, ...d, 100, (hit) => { read += index.nearest(...p, 1).length + index.idOf(hit.handle) * 0; return false })
      assert.equal(read, 1)
      assert.deepEqual(Buffer.from(index.toBytes()), before)
      assert.deepEqual(plain(index.nearest(...p, 3)), oracleNearest(model, p, Infinity, ALL, n).slice(0, 3), 'usable after')
    })
  })
}
