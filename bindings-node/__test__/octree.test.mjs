// Octree: every method against a brute-force model of random 3D boxes
// (fast-check), Float32Array and Float64Array batches of 6 numbers per box,
// snapshots, and bad input refused with the 2D classes' errors, the octree
// left as it was.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { Octree, Quadtree } from 'flatquad'
import { throwsLike } from './helpers.mjs'

const WORLD = { x1: 0, y1: 0, z1: 0, x2: 100, y2: 100, z2: 100 }
const f32 = Math.fround

const coord = fc.float({ min: -20, max: 120, noNaN: true }).map(f32)
const side = fc.float({ min: 0, max: 15, noNaN: true }).map(f32)
// Boxes whose corners are exact f32s, so the model's test is the octree's.
const box = fc
  .tuple(coord, coord, coord, side, side, side)
  .map(([x, y, z, w, h, d]) => [x, y, z, f32(x + w), f32(y + h), f32(z + d)])

const meets = (a, b) => [0, 1, 2].every((i) => a[i] <= b[i + 3] && b[i] <= a[i + 3])
const sorted = (xs) => [...xs].sort((a, b) => a - b)
const asBox = (b) => ({ x1: b[0], y1: b[1], z1: b[2], x2: b[3], y2: b[4], z2: b[5] })

test('Octree matches a brute-force model', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(undefined, { maxElements: 1, maxDepth: 5 }, { maxElements: 3, maxDepth: 8 }),
      fc.array(box, { maxLength: 50 }),
      fc.array(box, { maxLength: 20 }),
      fc.array(box, { minLength: 1, maxLength: 6 }),
      fc.array(fc.nat(), { maxLength: 20 }),
      (options, items, moves, queries, picks) => {
        const tree = new Octree(WORLD, options)
        const model = new Map()
        const half = items.length >> 1
        items.slice(0, half).forEach((b, i) => model.set(tree.insert(...b, i), b))
        const rest = items.slice(half)
        const handles = tree.insertMany(new Float64Array(rest.flat()), new Uint32Array(rest.map((_, i) => half + i)))
        rest.forEach((b, i) => model.set(handles[i], b))
        let live = [...model.keys()]
        if (live.length) {
          const batch = moves.map((b, i) => [live[picks[i] % live.length ?? 0] ?? live[0], b])
          batch.slice(0, batch.length >> 1).forEach(([h, b]) => {
            tree.move(h, ...b)
            model.set(h, b)
          })
          const second = batch.slice(batch.length >> 1)
          tree.moveMany(new Float64Array(second.map(([h]) => h)), new Float32Array(second.flatMap(([, b]) => b)))
          second.forEach(([h, b]) => model.set(h, b))
          const gone = [...new Set(picks.map((p) => live[p % live.length]))]
          tree.removeMany(new Float64Array(gone.slice(0, gone.length >> 1)))
          gone.slice(gone.length >> 1).forEach((h) => tree.remove(h))
          gone.forEach((h) => model.delete(h))
          live = [...model.keys()]
        }
        tree.cleanup()
        tree.validate()
        assert.equal(tree.size, model.size)
        for (const [h, b] of model) {
          assert.ok(tree.has(h))
          assert.deepEqual(tree.rectOf(h), asBox(b))
        }
        for (const q of queries) {
          assert.deepEqual(sorted(tree.query(...q)), sorted(live.filter((h) => meets(model.get(h), q))))
          const p = [q[0], q[1], q[2], q[0], q[1], q[2]]
          assert.deepEqual(sorted(tree.queryPoint(q[0], q[1], q[2])), sorted(live.filter((h) => meets(model.get(h), p))))
        }
        const { offsets, hits } = tree.queryMany(new Float32Array(queries.flat()))
        queries.forEach((q, i) => {
          const row = [...hits.subarray(offsets[i], offsets[i + 1])]
          assert.deepEqual(sorted(row), sorted(live.filter((h) => meets(model.get(h), q))))
        })
        for (const h of live) {
          const want = live.filter((o) => o !== h && meets(model.get(o), model.get(h)))
          assert.deepEqual(sorted(tree.overlapping(h)), sorted(want))
        }
        const flat = tree.pairs()
        const got = new Set()
        for (let i = 0; i < flat.length; i += 2) got.add(sorted([flat[i], flat[i + 1]]).join())
        const want = new Set()
        live.forEach((a, i) => live.slice(i + 1).forEach((b) => meets(model.get(a), model.get(b)) && want.add(sorted([a, b]).join())))
        assert.deepEqual(got, want)
        assert.equal(flat.length / 2, want.size)
        // Into a kept array with room: the same pairs, in its memory.
        const out = new Float64Array(flat.length + 3)
        const into = tree.pairs(out)
        assert.equal(into.buffer, out.buffer)
        assert.deepEqual([...into], [...flat])
        const copy = Octree.fromBytes(tree.toBytes())
        assert.deepEqual(Buffer.from(copy.toBytes()), Buffer.from(tree.toBytes()))
        for (const h of live) assert.deepEqual(copy.rectOf(h), tree.rectOf(h))
      },
    ),
    { numRuns: 150 },
  )
})

test('Octree constructor, options and getters', () => {
  const tree = new Octree(WORLD)
  assert.equal(tree.kind, 'Octree')
  assert.deepEqual(tree.world, WORLD)
  assert.equal(tree.maxElements, 8)
  assert.equal(tree.maxDepth, 6)
  const other = new Octree(WORLD, { maxElements: 2, maxDepth: 9 })
  assert.equal(other.maxElements, 2)
  assert.equal(other.maxDepth, 9)
  assert.equal(other.stats().elements, 0)
  for (const world of [{ ...WORLD, z2: 0 }, { ...WORLD, x1: NaN }, { ...WORLD, y2: Infinity }]) {
    throwsLike(() => new Octree(world), { type: RangeError, code: 'ERR_FLATQUAD_INVALID_WORLD' })
  }
  throwsLike(() => new Octree({ x1: 0, y1: 0, x2: 1, y2: 1 }), { type: TypeError })
  throwsLike(() => new Octree(WORLD, { maxElements: 0 }), { type: RangeError })
  throwsLike(() => new Octree(WORLD, { maxDepth: 31 }), { type: RangeError })
  throwsLike(() => Octree(WORLD), { type: TypeError })
})

test('Octree refuses bad input and changes nothing', () => {
  const tree = new Octree(WORLD)
  const a = tree.insert(1, 1, 1, 2, 2, 2, 5)
  const b = tree.insert(3, 3, 3, 4, 4, 4)
  tree.remove(b)
  const before = Buffer.from(tree.toBytes())
  for (const bad of [[0, 0, 0, 1, 1, NaN], [0, 0, 1, 1, 1, 0], [0, 0, 0, Infinity, 1, 1]]) {
    throwsLike(() => tree.insert(...bad), { type: RangeError, code: 'ERR_FLATQUAD_INVALID_RECT' })
    throwsLike(() => tree.move(a, ...bad), { type: RangeError, code: 'ERR_FLATQUAD_INVALID_RECT' })
    throwsLike(() => tree.query(...bad), { type: RangeError, code: 'ERR_FLATQUAD_INVALID_RECT' })
  }
  throwsLike(() => tree.insert(0, 0, 0, 1, 1, 'x'), { type: TypeError })
  throwsLike(() => tree.queryPoint(0, 0, NaN), { type: RangeError, code: 'ERR_FLATQUAD_INVALID_POINT' })
  for (const stale of [b, 0, 12345]) {
    throwsLike(() => tree.remove(stale), { code: 'ERR_FLATQUAD_INVALID_HANDLE' })
    throwsLike(() => tree.idOf(stale), { code: 'ERR_FLATQUAD_INVALID_HANDLE' })
    throwsLike(() => tree.rectOf(stale), { code: 'ERR_FLATQUAD_INVALID_HANDLE' })
  }
  assert.equal(tree.has(b), false)
  throwsLike(() => tree.insertMany(new Float32Array([0, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 0])), {
    type: RangeError,
    code: 'ERR_FLATQUAD_INVALID_RECT',
    index: 1,
  })
  throwsLike(() => tree.insertMany(new Float32Array(8)), { type: RangeError, code: 'ERR_FLATQUAD_BAD_LENGTH' })
  throwsLike(() => tree.insertMany([0, 0, 0, 1, 1, 1]), { type: TypeError })
  throwsLike(() => tree.insertMany(new Float32Array(12), new Uint32Array(1)), { type: RangeError, code: 'ERR_FLATQUAD_BAD_LENGTH' })
  throwsLike(() => tree.moveMany(new Float64Array([a, b]), new Float32Array(12)), { code: 'ERR_FLATQUAD_INVALID_HANDLE', index: 1 })
  throwsLike(() => tree.removeMany(new Float64Array([a, a])), { code: 'ERR_FLATQUAD_DUPLICATE_HANDLE', index: 1 })
  throwsLike(() => Octree.fromBytes(new Uint8Array([1, 2, 3])), { code: 'ERR_FLATQUAD_INVALID_BYTES' })
  throwsLike(() => Octree.fromBytes(new Quadtree({ x1: 0, y1: 0, x2: 1, y2: 1 }).toBytes()), { code: 'ERR_FLATQUAD_INVALID_BYTES' })
  throwsLike(() => Quadtree.fromBytes(tree.toBytes()), { code: 'ERR_FLATQUAD_INVALID_BYTES' })
  assert.deepEqual(Buffer.from(tree.toBytes()), before)
  assert.equal(tree.size, 1)
  assert.equal(tree.idOf(a), 5)
  assert.deepEqual([...tree.idsOf(new Float64Array([a]))], [5])
  assert.deepEqual([...tree.handles()], [a])
})

test('Octree: touching counts, a point, omit, clear', () => {
  const tree = new Octree(WORLD, { maxElements: 1 })
  const a = tree.insert(1, 1, 1, 2, 2, 2)
  const b = tree.insert(2, 2, 2, 3, 3, 3) // a corner
  const c = tree.insert(1, 1, 2.5, 2, 2, 3) // apart from a in z only; meets b
  assert.deepEqual([...tree.overlapping(a)], [b])
  assert.deepEqual(sorted(tree.queryPoint(2, 2, 2)), sorted([a, b]))
  assert.deepEqual([...tree.queryPoint(2, 2, 2, a)], [b])
  assert.deepEqual(sorted(tree.query(0, 0, 0, 10, 10, 10)), sorted([a, b, c]))
  const { offsets, hits } = tree.overlappingMany(new Float64Array([a, c]))
  assert.deepEqual([...offsets], [0, 1, 2])
  assert.deepEqual([...hits], [b, b])
  tree.clear()
  assert.equal(tree.size, 0)
  assert.equal(tree.has(a), false)
})

test('Octree queryWith visits what query returns, stops on false, rethrows', () => {
  const tree = new Octree(WORLD, { maxElements: 2, maxDepth: 6 })
  const boxes = []
  for (let i = 0; i < 200; i++) {
    const x = (i * 37) % 90, y = (i * 53) % 90, z = (i * 71) % 90
    boxes.push([x, y, z, x + (i % 9), y + (i % 7), z + (i % 5)])
  }
  const handles = boxes.map((b) => tree.insert(...b))
  const q = [10, 20, 5, 60, 70, 50]
  const seen = []
  tree.queryWith(...q, (h) => { seen.push(h) })
  assert.deepEqual(sorted(seen), sorted(tree.query(...q)))
  const want = handles.filter((h, i) => meets(boxes[i], q))
  assert.deepEqual(sorted(seen), sorted(want))
  const omitted = []
  tree.queryWith(...q, (h) => { omitted.push(h) }, want[0])
  assert.deepEqual(sorted(omitted), sorted(want.slice(1)))
  let calls = 0
  tree.queryWith(...q, () => { calls++; return false })
  assert.equal(calls, 1)
  assert.throws(() => tree.queryWith(...q, () => { throw new Error('boom') }), /boom/)
  throwsLike(() => tree.queryWith(...q, () => { tree.remove(want[0]) }), { code: 'ERR_FLATQUAD_BUSY' })
  assert.equal(tree.size, 200)
})

test('Octree traverse and nodes: 6-number boxes that hold their elements', () => {
  const tree = new Octree(WORLD, { maxElements: 3, maxDepth: 6 })
  const boxes = []
  for (let i = 0; i < 150; i++) {
    const x = (i * 41) % 95, y = (i * 29) % 95, z = (i * 13) % 95
    boxes.push([x, y, z, x + 1 + (i % 4), y + 1 + (i % 3), z + 1 + (i % 2)])
  }
  for (const b of boxes) tree.insert(...b)
  const walked = []
  tree.traverse((node) => { walked.push(node) })
  const nodes = tree.nodes()
  const m = walked.length
  assert.ok(m > 1)
  assert.equal(nodes.rects.length, 6 * m)
  assert.deepEqual({ ...walked[0], index: 0 }, { index: 0, depth: 0, ...WORLD, isLeaf: false, count: 0 })
  let links = 0
  walked.forEach((n, i) => {
    assert.deepEqual([n.x1, n.y1, n.z1, n.x2, n.y2, n.z2], [...nodes.rects.subarray(6 * i, 6 * i + 6)])
    assert.equal(n.depth, nodes.depths[i])
    assert.equal(n.isLeaf, nodes.isLeaf[i] === 1)
    assert.equal(n.count, nodes.counts[i])
    if (n.isLeaf) links += n.count
    else assert.equal(n.count, 0)
  })
  assert.equal(links, tree.stats().elementLinks)
  // Children lie in their parent's box, one level deeper.
  const stack = []
  for (const n of walked) {
    stack.length = n.depth
    const b = [n.x1, n.y1, n.z1, n.x2, n.y2, n.z2]
    if (stack.length) {
      const p = stack[stack.length - 1]
      assert.ok([0, 1, 2].every((a) => p[a] <= b[a] && b[a + 3] <= p[a + 3]))
    }
    stack.push(b)
  }
  // Each element meets some leaf's box.
  const leaves = walked.filter((n) => n.isLeaf).map((n) => [n.x1, n.y1, n.z1, n.x2, n.y2, n.z2])
  for (const b of boxes) assert.ok(leaves.some((l) => meets(b, l)))
  let calls = 0
  tree.traverse(() => { calls++; return false })
  assert.equal(calls, 1)
  assert.throws(() => tree.traverse(() => { throw new Error('boom') }), /boom/)
  throwsLike(() => tree.traverse(() => { tree.clear() }), { code: 'ERR_FLATQUAD_BUSY' })
  throwsLike(() => tree.traverse(3), { type: TypeError })
})
