// The typed arrays the API returns: arrays up to 64 KiB are copied into memory V8
// allocates, larger ones handed over from Rust (src/typed.rs). Both kinds must be
// plain typed arrays of their own, with the right values, on either side of the line.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import v8 from 'node:v8'
import vm from 'node:vm'
import { Grid, Quadtree } from 'flatquad'
import { CLASSES, assertOwnArray } from './helpers.mjs'

// Elements on a diagonal, each touching the next: element i meets i - 1 and i + 1.
function diagonal(Class, n) {
  const index = new Class({ x: 0, y: 0, width: n + 1, height: n + 1 })
  const rects = new Float32Array(4 * n)
  const ids = new Uint32Array(n)
  for (let i = 0; i < n; i++) {
    rects.set([i, i, i + 1, i + 1], 4 * i)
    ids[i] = i * 7 + 3
  }
  return { index, handles: index.insertMany(rects, ids), ids }
}

// 8,192 handles are 64 KiB (copied), 8,193 one more (handed over); 16,384 ids are
// 64 KiB of Uint32Array.
const SIZES = [0, 1, 100, 8191, 8192, 8193, 16384, 16385, 20000]

it('handles() and idsOf() on both sides of the copy limit', () => {
  for (const n of SIZES) {
    const { index, handles, ids } = diagonal(Grid, n)
    const listed = index.handles()
    assertOwnArray(listed, Float64Array, n)
    assert.deepEqual(Array.from(listed).sort((a, b) => a - b), Array.from(handles).sort((a, b) => a - b))
    const found = index.idsOf(handles)
    assertOwnArray(found, Uint32Array, n)
    assert.deepEqual(found, ids)
    // The caller owns what it got: writing to it changes nothing in the index.
    found.fill(0)
    listed.fill(-1)
    assert.deepEqual(index.idsOf(handles), ids)
    assert.deepEqual(Array.from(index.handles()).sort((a, b) => a - b), Array.from(handles).sort((a, b) => a - b))
  }
})

it('overlappingMany rows on both sides of the copy limit match single queries', () => {
  for (const n of [1, 2, 5000, 9000, 20000]) {
    const { index, handles } = diagonal(Quadtree, n)
    index.cleanup()
    const { offsets, hits } = index.overlappingMany(handles)
    assertOwnArray(offsets, Uint32Array, n + 1)
    assertOwnArray(hits, Float64Array, offsets[n])
    assert.equal(offsets[0], 0)
    for (let i = 0; i < n; i += Math.max(1, Math.floor(n / 97))) {
      const row = Array.from(hits.subarray(offsets[i], offsets[i + 1])).sort((a, b) => a - b)
      const single = Array.from(index.overlapping(handles[i])).sort((a, b) => a - b)
      assert.deepEqual(row, single, `element ${i} of ${n}`)
      assert.equal(row.length, (i > 0) + (i < n - 1))
    }
  }
})

it('small results stay intact through full collections', async () => {
  v8.setFlagsFromString('--expose-gc')
  const gc = vm.runInNewContext('gc')
  const n = 1000
  const { index, handles } = diagonal(Grid, n)
  // The neighbours of element i on the diagonal: i - 1 and i + 1, where they exist.
  const degree = (i) => (i > 0) + (i < n - 1)
  const kept = []
  for (let round = 0; round < 20000; round++) {
    const at = round % (n - 1)
    const { offsets, hits } = index.overlappingMany(handles.subarray(at, at + 2))
    if (round % 1000 === 0 || (at === n - 2 && round > 15000)) kept.push([at, offsets, hits])
    if (round % 5000 === 0) gc()
  }
  gc()
  await new Promise((resolve) => setImmediate(resolve))
  gc()
  assert.ok(kept.some(([at]) => at === n - 2), 'a pair with the last element is kept')
  for (const [at, offsets, hits] of kept) {
    assert.deepEqual(Array.from(offsets), [0, degree(at), degree(at) + degree(at + 1)])
    assert.ok(hits.subarray(0, offsets[1]).includes(handles[at + 1]))
    assert.ok(hits.subarray(offsets[1]).includes(handles[at]))
  }
})

it('pairs(out) writes into the caller\'s array where the pairs fit, a new array otherwise', () => {
  for (const { name, Class } of CLASSES) {
    for (const n of [0, 1, 2, 9, 9000]) {
      const { index } = diagonal(Class, n)
      const fresh = index.pairs()
      assert.equal(fresh.length, 2 * Math.max(0, n - 1), `${name}, ${n} elements`)
      const sorted = (a) => Array.from(a).sort((x, y) => x - y)
      // An array with room and then some, as a view into a larger buffer: the
      // answer is its start, the rest untouched.
      const backing = new Float64Array(fresh.length + 7).fill(-1)
      const out = backing.subarray(3)
      const written = index.pairs(out)
      assert.equal(written.buffer, backing.buffer, `${name}, ${n}: in the caller's memory`)
      assert.equal(written.byteOffset, out.byteOffset)
      assert.equal(written.length, fresh.length)
      assert.deepEqual(sorted(written), sorted(fresh))
      assert.deepEqual(Array.from(backing.subarray(0, 3)), [-1, -1, -1])
      assert.deepEqual(Array.from(backing.subarray(3 + fresh.length)), [-1, -1, -1, -1])
      // Exactly the room needed.
      const exact = new Float64Array(fresh.length)
      assert.equal(index.pairs(exact).buffer, exact.buffer)
      assert.deepEqual(sorted(exact), sorted(fresh))
      // Too short: a new array, and out as it was.
      if (fresh.length > 0) {
        const short = new Float64Array(fresh.length - 1).fill(-2)
        const answer = index.pairs(short)
        assert.notEqual(answer.buffer, short.buffer)
        assertOwnArray(answer, Float64Array, fresh.length)
        assert.deepEqual(sorted(answer), sorted(fresh))
        assert.ok(short.every((v) => v === -2), 'a short out is left as it was')
      }
      // null and undefined are no out.
      assert.deepEqual(sorted(index.pairs(null)), sorted(fresh))
      assert.deepEqual(sorted(index.pairs(undefined)), sorted(fresh))
    }
  }
})

it('pairs(out) into a detached buffer answers with a new array, even with no pairs', () => {
  for (const n of [1, 5]) {
    const { index } = diagonal(Quadtree, n)
    const out = new Float64Array(16)
    structuredClone(out.buffer, { transfer: [out.buffer] })
    assert.equal(out.length, 0)
    const answer = index.pairs(out)
    assertOwnArray(answer, Float64Array, 2 * (n - 1))
    assert.notEqual(answer.buffer, out.buffer)
  }
})
