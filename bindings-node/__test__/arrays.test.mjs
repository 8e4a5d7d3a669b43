// The typed arrays the API returns: arrays up to 64 KiB are copied into memory V8
// allocates, larger ones handed over from Rust (src/typed.rs). Both kinds must be
// plain typed arrays of their own, with the right values, on either side of the line.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import v8 from 'node:v8'
import vm from 'node:vm'
import { Grid, Octree, Quadtree } from 'flatquad'
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

// The rows calls into { offsets, hits } arrays the caller keeps.
const ROWS_CALLS = [
  ['overlappingMany', (index, handles, out) => index.overlappingMany(handles, out)],
  ['queryMany', (index, handles, out, rects) => index.queryMany(rects, handles, out)],
  ['queryCircleMany', (index, handles, out, rects, centers, radii) => index.queryCircleMany(centers, radii, null, out)],
]

it('overlappingMany, queryMany and queryCircleMany write into out arrays where each fits', () => {
  const sortedRows = ({ offsets, hits }) =>
    Array.from({ length: offsets.length - 1 }, (_, i) => Array.from(hits.subarray(offsets[i], offsets[i + 1])).sort((a, b) => a - b))
  for (const { name, Class } of CLASSES) {
    for (const n of [1, 2, 9, 9000]) {
      const { index, handles } = diagonal(Class, n)
      const rects = new Float32Array(4 * n)
      for (let i = 0; i < n; i++) rects.set([i, i, i + 1, i + 1], 4 * i)
      const centers = new Float64Array(2 * n)
      for (let i = 0; i < n; i++) centers.set([i + 0.5, i + 0.5], 2 * i)
      const radii = new Float64Array(n).fill(0.75)
      for (const [call, run] of ROWS_CALLS) {
        const label = `${name}, ${call}, ${n} elements`
        const go = (out) => run(index, handles, out, rects, centers, radii)
        const fresh = go(undefined)
        const want = sortedRows(fresh)
        // Room to spare in both, as views into larger buffers.
        const offsetsBacking = new Uint32Array(n + 4).fill(9)
        const hitsBacking = new Float64Array(fresh.hits.length + 5).fill(-1)
        const out = { offsets: offsetsBacking.subarray(1), hits: hitsBacking.subarray(2) }
        const into = go(out)
        assert.equal(into.offsets.buffer, offsetsBacking.buffer, label)
        assert.equal(into.hits.buffer, hitsBacking.buffer, label)
        assert.equal(into.offsets.byteOffset, 4)
        assert.equal(into.hits.byteOffset, 16)
        assert.deepEqual(sortedRows(into), want, label)
        assert.deepEqual(Array.from(offsetsBacking.subarray(n + 2)), [9, 9], label)
        assert.ok(hitsBacking.subarray(2 + fresh.hits.length).every((v) => v === -1), label)
        // Each array on its own: hits too short, offsets given alone, hits given alone.
        if (fresh.hits.length > 0) {
          const short = { offsets: new Uint32Array(n + 1), hits: new Float64Array(fresh.hits.length - 1).fill(-3) }
          const answer = go(short)
          assert.equal(answer.offsets.buffer, short.offsets.buffer, label)
          assertOwnArray(answer.hits, Float64Array, fresh.hits.length)
          assert.ok(short.hits.every((v) => v === -3), `${label}: a short out.hits is left as it was`)
          assert.deepEqual(sortedRows(answer), want, label)
        }
        const onlyOffsets = { offsets: new Uint32Array(n + 1) }
        const a = go(onlyOffsets)
        assert.equal(a.offsets.buffer, onlyOffsets.offsets.buffer)
        assertOwnArray(a.hits, Float64Array, fresh.hits.length)
        const onlyHits = { hits: new Float64Array(fresh.hits.length) }
        const b = go(onlyHits)
        assertOwnArray(b.offsets, Uint32Array, n + 1)
        assert.equal(b.hits.buffer, onlyHits.hits.buffer)
        assert.deepEqual(sortedRows(a), want)
        assert.deepEqual(sortedRows(b), want)
        // Offsets too short by one: a new offsets array.
        const c = go({ offsets: new Uint32Array(n) })
        assertOwnArray(c.offsets, Uint32Array, n + 1)
        assert.deepEqual(sortedRows(go(null)), want)
        assert.deepEqual(sortedRows(go({})), want)
      }
    }
  }
})

it('an out array that is also an argument: the arguments are read before anything is written', () => {
  const n = 50
  const { index, handles } = diagonal(Quadtree, n)
  const want = index.overlappingMany(handles)
  // A batch of 4 handles read from the array its hits are then written into.
  const batch = handles.slice(0, 4)
  const batchWant = index.overlappingMany(batch)
  const alias = new Float64Array(16)
  alias.set(batch)
  const got = index.overlappingMany(alias.subarray(0, 4), { hits: alias })
  assert.equal(got.hits.buffer, alias.buffer)
  assert.deepEqual(Array.from(got.hits), Array.from(batchWant.hits))
  assert.deepEqual(Array.from(got.offsets), Array.from(batchWant.offsets))
  // queryMany's rectangles (as a Float64Array) as out.hits: read, then overwritten.
  const rects = new Float64Array(4 * n + 8)
  for (let i = 0; i < n; i++) rects.set([i, i, i + 1, i + 1], 4 * i)
  const rows = rects.subarray(0, 4 * n)
  const expected = index.queryMany(new Float64Array(rows))
  const into = index.queryMany(rows, null, { hits: rects })
  assert.equal(into.hits.buffer, rects.buffer)
  assert.deepEqual(Array.from(into.hits), Array.from(expected.hits))
  // queryCircleMany's centers as out.hits.
  const centers = new Float64Array(2 * n + 8)
  for (let i = 0; i < n; i++) centers.set([i + 0.5, i + 0.5], 2 * i)
  const radii = new Float64Array(n).fill(0.25) // each circle meets its own square only
  const circles = index.queryCircleMany(new Float64Array(centers.subarray(0, 2 * n)), radii)
  const circlesInto = index.queryCircleMany(centers.subarray(0, 2 * n), radii, null, { hits: centers })
  assert.equal(circlesInto.hits.buffer, centers.buffer)
  assert.deepEqual(Array.from(circlesInto.hits), Array.from(circles.hits))
  assert.equal(want.offsets.length, n + 1)
})

it('a refused call leaves its out arrays as they were', () => {
  const { index, handles } = diagonal(Quadtree, 10)
  const out = { offsets: new Uint32Array(20).fill(5), hits: new Float64Array(40).fill(-1) }
  const stale = handles[3]
  index.remove(stale)
  assert.throws(() => index.overlappingMany(handles, out), { code: 'ERR_FLATQUAD_INVALID_HANDLE' })
  assert.throws(() => index.queryMany(new Float32Array([2, 0, 0, 1]), null, out), { code: 'ERR_FLATQUAD_INVALID_RECT' })
  assert.throws(() => index.queryCircleMany(new Float64Array([0, 0]), new Float64Array([-1]), null, out), { index: 0 })
  const pairsOut = new Float64Array(40).fill(-1)
  assert.throws(() => index.pairs(new Float32Array(4)), { code: 'ERR_INVALID_ARG_TYPE' })
  assert.ok(pairsOut.every((v) => v === -1))
  assert.ok(out.offsets.every((v) => v === 5) && out.hits.every((v) => v === -1))
})

it('out arrays in one buffer side by side are fine; a getter that detaches a buffer is met with a new array', () => {
  const { index, handles } = diagonal(Quadtree, 10)
  const want = index.overlappingMany(handles)
  const buffer = new ArrayBuffer(1024)
  const out = { offsets: new Uint32Array(buffer, 0, 11), hits: new Float64Array(buffer, 48, 40) }
  const side = index.overlappingMany(handles, out)
  assert.equal(side.offsets.buffer, buffer)
  assert.equal(side.hits.buffer, buffer)
  assert.deepEqual(Array.from(side.offsets), Array.from(want.offsets))
  assert.deepEqual(Array.from(side.hits), Array.from(want.hits))
  // The hits getter runs after offsets was read, and takes its memory away.
  const offsets = new Uint32Array(11)
  const hits = new Float64Array(40)
  const tricky = {
    offsets,
    get hits() {
      structuredClone(offsets.buffer, { transfer: [offsets.buffer] })
      return hits
    },
  }
  const answer = index.overlappingMany(handles, tricky)
  assert.equal(offsets.length, 0)
  assertOwnArray(answer.offsets, Uint32Array, 11)
  assert.equal(answer.hits.buffer, hits.buffer)
  assert.deepEqual(Array.from(answer.offsets), Array.from(want.offsets))
  assert.deepEqual(Array.from(answer.hits), Array.from(want.hits))
})

it('one out reused as answers grow, shrink and grow again; the next call overwrites the last view', () => {
  for (const Class of [Quadtree, Grid]) {
    const { index, handles } = diagonal(Class, 40)
    const out = { offsets: new Uint32Array(41), hits: new Float64Array(60) }
    const pairsOut = new Float64Array(100)
    for (const count of [40, 5, 1, 30, 40, 2]) {
      const batch = handles.subarray(0, count)
      const rows = index.overlappingMany(batch, out)
      const want = index.overlappingMany(batch)
      assert.deepEqual(Array.from(rows.offsets), Array.from(want.offsets))
      assert.deepEqual(Array.from(rows.hits), Array.from(want.hits))
      assert.equal(rows.offsets.buffer, out.offsets.buffer)
      assert.equal(rows.hits.buffer === out.hits.buffer, want.hits.length <= 60, `${count}: hits in place when they fit`)
    }
    const first = index.pairs(pairsOut)
    assert.equal(first.buffer, pairsOut.buffer)
    index.move(handles[0], 1000, 1000, 1001, 1001)
    const second = index.pairs(pairsOut)
    assert.equal(second.length, first.length - 2)
    assert.deepEqual(Array.from(first.subarray(0, second.length)), Array.from(second), 'the first view sees the second answer')
  }
})

it('out over a SharedArrayBuffer is refused; over a resizable buffer shrunk below it, a new array', () => {
  const { index, handles } = diagonal(Quadtree, 6)
  const shared = new Float64Array(new SharedArrayBuffer(128))
  assert.throws(() => index.pairs(shared), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE', message: /out must be over an ArrayBuffer, not a SharedArrayBuffer/ })
  assert.throws(() => index.overlappingMany(handles, { hits: shared }), { code: 'ERR_INVALID_ARG_TYPE', message: /out.hits must be over an ArrayBuffer/ })
  assert.ok(shared.every((v) => v === 0))
  const resizable = new ArrayBuffer(256, { maxByteLength: 512 })
  const tracking = new Float64Array(resizable, 64)
  const grown = index.pairs(tracking)
  assert.equal(grown.buffer, resizable, 'in place while it holds them')
  const pairs = Array.from(grown).sort()
  resizable.resize(16) // the array now lies past the buffer's end
  const answer = index.pairs(tracking)
  assertOwnArray(answer, Float64Array, 10)
  assert.deepEqual(Array.from(answer).sort(), pairs)
  // No pairs at all: still a new (empty) array, not a view past the buffer's end.
  const { index: lone } = diagonal(Quadtree, 1)
  assertOwnArray(lone.pairs(tracking), Float64Array, 0)
})

it("the octree's row calls answer into out arrays too", () => {
  const octree = new Octree({ x1: 0, y1: 0, z1: 0, x2: 64, y2: 64, z2: 64 })
  const boxes = new Float32Array(6 * 20)
  for (let i = 0; i < 20; i++) boxes.set([i, i, i, i + 1, i + 1, i + 1], 6 * i)
  const handles = octree.insertMany(boxes)
  const want = octree.overlappingMany(handles)
  const out = { offsets: new Uint32Array(21), hits: new Float64Array(64) }
  for (const rows of [octree.overlappingMany(handles, out), octree.queryMany(boxes, handles, out)]) {
    assert.equal(rows.offsets.buffer, out.offsets.buffer)
    assert.equal(rows.hits.buffer, out.hits.buffer)
    assert.deepEqual(Array.from(rows.offsets), Array.from(want.offsets))
    assert.deepEqual(Array.from(rows.hits).sort(), Array.from(want.hits).sort())
  }
  const centers = new Float64Array(3 * 20)
  for (let i = 0; i < 20; i++) centers.set([i + 0.5, i + 0.5, i + 0.5], 3 * i)
  const circles = octree.queryCircleMany(centers, new Float64Array(20).fill(0.1), null, out)
  assert.equal(circles.hits.buffer, out.hits.buffer)
  assert.deepEqual(Array.from(circles.hits), Array.from(handles))
})
