// Bulk queries and joins (queryBulk, join, joinBounds) against brute force, and
// the f64 guarantee: Float64Array boxes at world scales up to ±1e7 with
// sub-metre sides never lose a pair whose boxes meet in f64.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Grid, Quadtree, joinBounds } from 'flatquad'
import { CLASSES, intersects, rng, throwsLike } from './helpers.mjs'

/** n random f64 boxes near `scale`, sides under `size`; box 1 starts where box 0 ends. */
function boxes(next, n, scale, size) {
  const out = new Float64Array(4 * n)
  for (let i = 0; i < n; i++) {
    const x = scale + (next() * 2 - 1) * 20
    const y = -scale + (next() * 2 - 1) * 20
    out.set([x, y, x + next() * size, y + next() * size], 4 * i)
  }
  if (n > 1) {
    out[4] = out[2]
    out[6] = Math.max(out[6], out[4])
  }
  return out
}

const box = (a, i) => [a[4 * i], a[4 * i + 1], a[4 * i + 2], a[4 * i + 3]]

function brute(left, right, round) {
  const want = new Set()
  const r = (b) => (round ? b.map(Math.fround) : b)
  for (let i = 0; i < left.length / 4; i++) {
    for (let j = 0; j < right.length / 4; j++) {
      if (intersects(r(box(left, i)), r(box(right, j)))) want.add(`${i},${j}`)
    }
  }
  return want
}

function pairSet(a, b) {
  const out = new Set()
  for (let k = 0; k < a.length; k++) out.add(`${a[k]},${b[k]}`)
  assert.equal(out.size, a.length, 'a pair twice')
  return out
}

describe('joinBounds', () => {
  it('never loses an f64 pair and equals the f32 answer, at scales to 1e7', () => {
    const next = rng(11)
    for (const scale of [0, 1e3, 1e5, 1e7, -1e7]) {
      for (let round = 0; round < 20; round++) {
        const left = boxes(next, 1 + Math.floor(next() * 40), scale, 0.9)
        const right = boxes(next, Math.floor(next() * 40), scale, 0.9)
        const truth = brute(left, right, false)
        const want = brute(left, right, true)
        for (const p of truth) assert.ok(want.has(p))
        const { rows, hits } = joinBounds(left, right, true)
        assert.deepEqual(pairSet(rows, hits), want)
        for (let k = 1; k < rows.length; k++) {
          assert.ok(rows[k - 1] < rows[k] || (rows[k - 1] === rows[k] && hits[k - 1] < hits[k]))
        }
        assert.deepEqual(pairSet(...Object.values(joinBounds(new Float32Array(left), new Float32Array(right)))), want)
      }
    }
  })

  it('refuses bad boxes naming the side and the item', () => {
    const good = new Float64Array([0, 0, 1, 1])
    throwsLike(() => joinBounds(good, new Float64Array([0, 0, 1, 1, NaN, 0, 1, 1])), {
      type: RangeError,
      code: 'ERR_FLATQUAD_INVALID_RECT',
      index: 1,
      message: /^right/,
    })
    throwsLike(() => joinBounds(new Float64Array([2, 0, 1, 1]), good), { type: RangeError, code: 'ERR_FLATQUAD_INVALID_RECT', index: 0, message: /^left/ })
    throwsLike(() => joinBounds([0, 0, 1, 1], good), { type: TypeError })
    const empty = joinBounds(new Float64Array(0), new Float64Array(0))
    assert.equal(empty.rows.length, 0)
  })
})

describe('queryBulk and join', () => {
  for (const { name, Class } of CLASSES) {
    it(`${name}: against brute force, each pair once`, () => {
      const next = rng(5)
      const world = { x: 0, y: 0, width: 100, height: 100 }
      const a = new Class(world)
      const b = new Grid(world, { columns: 9, rows: 4 })
      const ra = boxes(next, 150, 50, 8).map((v) => v) // f64 values
      const rb = boxes(next, 150, 50, 8)
      const ha = a.insertMany(ra, new Uint32Array(150).map((_, i) => i))
      const hb = b.insertMany(rb, new Uint32Array(150).map((_, i) => i))
      a.remove(ha[0])
      const want = new Set([...brute(ra, rb, true)].filter((p) => !p.startsWith('0,')))
      const { left, right } = a.join(b, true)
      assert.deepEqual(pairSet(a.idsOf(left), b.idsOf(right)), want)
      const { rows, hits } = b.queryBulk(ra, true)
      assert.deepEqual(pairSet(rows, b.idsOf(hits)), brute(ra, rb, true))
      throwsLike(() => b.queryBulk(new Float64Array([1, 0, 0, 0])), { type: RangeError, code: 'ERR_FLATQUAD_INVALID_RECT', index: 0 })
      throwsLike(() => a.join({}), { type: Error })
      assert.equal(new Quadtree(world).join(a).left.length, 0)
    })
  }
})
