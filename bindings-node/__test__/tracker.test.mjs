// PairTracker: fast-check runs random sequences of every change an index
// takes (moves, batch moves, inserts, removals whose slots are reused, filter
// changes, cleanup, clear, reset) on every class and the Octree, and checks
// each update against the brute-force set difference of the pair sets. Then
// the refusals, the reference the tracker keeps, and a poisoned index.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import v8 from 'node:v8'
import vm from 'node:vm'
import fc from 'fast-check'
import { Grid, Octree, PairTracker, Quadtree } from 'flatquad'
import { CLASSES, pairSet, rng, throwsLike } from './helpers.mjs'

const f32 = Math.fround
const WORLD2 = { x1: 0, y1: 0, x2: 64, y2: 64 }
const WORLD3 = { x1: 0, y1: 0, z1: 0, x2: 64, y2: 64, z2: 64 }

/** Every class with its small options (many nodes or cells) and its defaults, and the octree. */
const SUBJECTS = [
  ...CLASSES.flatMap(({ name, Class, small }) => [
    { name: `${name} ${JSON.stringify(small)}`, make: () => new Class(WORLD2, small), axes: 2 },
    { name: `${name} defaults`, make: () => new Class(WORLD2), axes: 2 },
    // Fat bounds: the events stay those of the own boxes.
    { name: `${name} margin 1.5`, make: () => new Class(WORLD2, { ...small, margin: 1.5 }), axes: 2 },
  ]),
  { name: 'Octree { maxElements: 2, maxDepth: 5 }', make: () => new Octree(WORLD3, { maxElements: 2, maxDepth: 5 }), axes: 3 },
  { name: 'Octree defaults', make: () => new Octree(WORLD3), axes: 3 },
  { name: 'Octree margin 1.5', make: () => new Octree(WORLD3, { maxElements: 2, margin: 1.5 }), axes: 3 },
]

// Corners on a coarse grid (edges touch often) or anywhere, in and around the world.
const coord = fc.oneof(fc.integer({ min: -4, max: 68 }), fc.float({ min: -10, max: 74, noNaN: true }))
const size = fc.oneof(fc.constantFrom(0, 1, 3, 8), fc.float({ min: 0, max: 20, noNaN: true }))
const boxArb = (axes) =>
  fc.tuple(fc.array(coord, { minLength: axes, maxLength: axes }), fc.array(size, { minLength: axes, maxLength: axes })).map(([lo, s]) => {
    const low = lo.map(f32)
    return [...low, ...low.map((v, i) => f32(v + s[i]))]
  })
const pick = fc.nat()
// Few filter bits, so that pairs start and stop colliding often.
const bits = fc.integer({ min: 0, max: 3 })

const opArb = (axes) => {
  const box = boxArb(axes)
  return fc.oneof(
    fc.tuple(fc.constant('insert'), box),
    fc.tuple(fc.constant('insertMany'), fc.array(box, { maxLength: 6 })),
    fc.tuple(fc.constant('remove'), pick),
    fc.tuple(fc.constant('removeMany'), fc.array(pick, { maxLength: 4 })),
    fc.tuple(fc.constant('move'), pick, box),
    fc.tuple(fc.constant('moveMany'), fc.array(fc.tuple(pick, box), { maxLength: 8 })),
    fc.tuple(fc.constant('setFilter'), pick, bits, bits),
    fc.tuple(fc.constant('setFilters'), fc.array(fc.tuple(pick, bits, bits), { maxLength: 4 })),
    fc.constant(['cleanup']),
    fc.constant(['clear']),
    fc.constant(['reset']),
    // Updates often, so that most updates see a few changes.
    { arbitrary: fc.constant(['update']), weight: 3 },
  )
}

/** What the index holds: handle -> { box (f32 values), category, mask }. */
class Model {
  constructor(axes) {
    this.axes = axes
    this.elements = new Map()
  }
  add(handle, box) {
    assert.ok(!this.elements.has(handle), 'a live handle issued twice')
    this.elements.set(handle, { box, category: 0xffffffff, mask: 0xffffffff })
  }
  /** The live handle number `i` (modulo the count), or undefined. */
  pick(i) {
    const live = [...this.elements.keys()].sort((a, b) => a - b)
    return live.length ? live[i % live.length] : undefined
  }
  /** Every overlapping pair whose filters collide, as "lower,higher". */
  pairs() {
    const list = [...this.elements].sort((a, b) => a[0] - b[0])
    const n = this.axes
    const out = new Set()
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        const [a, p] = list[i]
        const [b, q] = list[j]
        const meet = [...Array(n).keys()].every((k) => p.box[k] <= q.box[k + n] && q.box[k] <= p.box[k + n])
        const collide = (p.category & q.mask) !== 0 && (q.category & p.mask) !== 0
        if (meet && collide) out.add(`${a},${b}`)
      }
    }
    return out
  }
}

/** An update's flat array as "a,b" strings, after checking its form: a
 * Float64Array, 2 handles a pair, each pair ascending, pairs sorted and distinct. */
function asPairs(flat) {
  assert.ok(flat instanceof Float64Array)
  assert.equal(flat.length % 2, 0)
  const out = []
  for (let i = 0; i < flat.length; i += 2) {
    assert.ok(flat[i] < flat[i + 1], `pair ${i / 2} not in ascending order`)
    if (i > 0) {
      const [a0, b0, a1, b1] = [flat[i - 2], flat[i - 1], flat[i], flat[i + 1]]
      assert.ok(a0 < a1 || (a0 === a1 && b0 < b1), `pairs ${i / 2 - 1} and ${i / 2} not sorted or equal`)
    }
    out.push(`${flat[i]},${flat[i + 1]}`)
  }
  return out
}

const minus = (a, b) => [...a].filter((p) => !b.has(p)).sort()

/** Makes the change on the index and in the model. */
function apply(index, model, op) {
  const n = 2 * model.axes
  switch (op[0]) {
    case 'insert':
      model.add(index.insert(...op[1]), op[1])
      break
    case 'insertMany': {
      const handles = index.insertMany(new Float64Array(op[1].flat()))
      op[1].forEach((box, i) => model.add(handles[i], box))
      break
    }
    case 'remove': {
      const h = model.pick(op[1])
      if (h !== undefined) {
        index.remove(h)
        model.elements.delete(h)
      }
      break
    }
    case 'removeMany': {
      const handles = [...new Set(op[1].map((i) => model.pick(i)))].filter((h) => h !== undefined)
      index.removeMany(new Float64Array(handles))
      handles.forEach((h) => model.elements.delete(h))
      break
    }
    case 'move': {
      const h = model.pick(op[1])
      if (h !== undefined) {
        index.move(h, ...op[2])
        model.elements.get(h).box = op[2]
      }
      break
    }
    case 'moveMany': {
      const moves = new Map() // one move per handle: the last drawn
      for (const [i, box] of op[1]) {
        const h = model.pick(i)
        if (h !== undefined) moves.set(h, box)
      }
      const boxes = new Float32Array(n * moves.size)
      ;[...moves.values()].forEach((box, i) => boxes.set(box, n * i))
      index.moveMany(new Float64Array(moves.keys()), boxes)
      for (const [h, box] of moves) model.elements.get(h).box = box
      break
    }
    case 'setFilter': {
      const h = model.pick(op[1])
      if (h !== undefined) {
        index.setFilter(h, op[2], op[3])
        Object.assign(model.elements.get(h), { category: op[2], mask: op[3] })
      }
      break
    }
    case 'setFilters': {
      const filters = new Map()
      for (const [i, category, mask] of op[1]) {
        const h = model.pick(i)
        if (h !== undefined) filters.set(h, { category, mask })
      }
      const values = [...filters.values()]
      index.setFilters(
        new Float64Array(filters.keys()),
        new Uint32Array(values.map((f) => f.category)),
        new Uint32Array(values.map((f) => f.mask)),
      )
      for (const [h, f] of filters) Object.assign(model.elements.get(h), f)
      break
    }
    case 'cleanup':
      index.cleanup()
      break
    case 'clear':
      index.clear()
      model.elements.clear()
      break
    default:
      throw new Error(`unknown op ${op[0]}`)
  }
}

describe('PairTracker against the brute-force set difference', () => {
  for (const { name, make, axes } of SUBJECTS) {
    it(name, () => {
      fc.assert(
        fc.property(fc.array(boxArb(axes), { maxLength: 12 }), fc.array(opArb(axes), { minLength: 1, maxLength: 40 }), (initial, ops) => {
          const index = make()
          const model = new Model(axes)
          // Some elements before the tracker exists: its first update reports their pairs.
          initial.forEach((box) => model.add(index.insert(...box), box))
          const tracker = new PairTracker(index)
          assert.equal(tracker.pairCount, 0)
          let seen = new Set()
          for (const op of [...ops, ['update']]) {
            if (op[0] === 'reset') {
              tracker.reset()
              seen = new Set()
            } else if (op[0] === 'update') {
              const { began, ended } = tracker.update()
              const now = model.pairs()
              assert.deepEqual(asPairs(began).sort(), minus(now, seen), 'began')
              assert.deepEqual(asPairs(ended).sort(), minus(seen, now), 'ended')
              assert.equal(tracker.pairCount, now.size)
              seen = now
            } else {
              apply(index, model, op)
            }
          }
        }),
        { numRuns: 150 },
      )
    })
  }
})

describe('PairTracker', () => {
  it('ends a removed element’s pairs under its handle, and begins those of the element reusing its slot', () => {
    for (const { name, make, axes } of SUBJECTS) {
      const index = make()
      const box = [...Array(axes).fill(0), ...Array(axes).fill(4)]
      const a = index.insert(...box)
      const b = index.insert(...box)
      const tracker = new PairTracker(index)
      assert.deepEqual(tracker.update(), { began: new Float64Array([a, b]), ended: new Float64Array() }, name)
      index.remove(b)
      const c = index.insert(...box)
      assert.notEqual(c, b, name)
      const { began, ended } = tracker.update()
      assert.deepEqual(began, new Float64Array([Math.min(a, c), Math.max(a, c)]), name)
      assert.deepEqual(ended, new Float64Array([a, b]), name)
      assert.equal(tracker.pairCount, 1, name)
    }
  })

  it('large frames with none, a few or all moving: the difference of consecutive pairs()', () => {
    // All moving takes the tracker's (parallel) pair walk, a few moving its
    // per-element queries; pairs() is itself checked against brute force elsewhere.
    for (const { name, make, axes } of SUBJECTS.filter((s) => s.name.endsWith('defaults'))) {
      const next = rng(3)
      const [n, side, n2] = [3000, 1.5, 2 * axes]
      const index = make()
      const corners = Float64Array.from({ length: n * axes }, () => next() * 62)
      const boxesOf = (rows) => {
        const out = new Float32Array(rows.length * n2)
        rows.forEach((row, k) => {
          for (let a = 0; a < axes; a++) {
            out[k * n2 + a] = corners[row * axes + a]
            out[k * n2 + axes + a] = corners[row * axes + a] + side
          }
        })
        return out
      }
      const all = [...Array(n).keys()]
      const handles = index.insertMany(boxesOf(all))
      const tracker = new PairTracker(index)
      let before = new Set()
      for (const share of [1, 0, 0.02, 1, 0.3, 0.7, 0.001, 1]) {
        const moving = all.filter(() => next() < share)
        for (const row of moving) {
          for (let a = 0; a < axes; a++) {
            const v = corners[row * axes + a] + 2 * next() - 1
            corners[row * axes + a] = Math.min(Math.max(v, 0), 62)
          }
        }
        index.moveMany(Float64Array.from(moving, (row) => handles[row]), boxesOf(moving))
        index.cleanup()
        const now = new Set(pairSet(index.pairs()))
        const { began, ended } = tracker.update()
        assert.deepEqual(asPairs(began).sort(), minus(now, before), `${name} ${share}: began`)
        assert.deepEqual(asPairs(ended).sort(), minus(before, now), `${name} ${share}: ended`)
        assert.equal(tracker.pairCount, now.size)
        assert.ok(now.size > 0)
        before = now
      }
    }
  })

  it('applies filters, counts touching boxes, and reset reports every pair again', () => {
    const index = new Quadtree(WORLD2)
    const a = index.insert(0, 0, 1, 1)
    const b = index.insert(1, 1, 2, 2) // touches a at a corner: a pair
    const tracker = new PairTracker(index)
    assert.deepEqual(Array.from(tracker.update().began), [a, b])
    index.setFilter(b, 4, 0xffffffff)
    index.setFilter(a, 1, 2) // a collides only with category 2: b is 4
    assert.deepEqual(tracker.update(), { began: new Float64Array(), ended: new Float64Array([a, b]) })
    assert.equal(tracker.pairCount, 0)
    index.setFilter(b, 2, 1)
    assert.deepEqual(Array.from(tracker.update().began), [a, b])
    tracker.reset()
    assert.equal(tracker.pairCount, 0)
    assert.deepEqual(tracker.update(), { began: new Float64Array([a, b]), ended: new Float64Array() })
  })

  it('refuses anything but an index with a TypeError', () => {
    const grid = new Grid(WORLD2)
    const bad = [undefined, null, 1, 'grid', {}, [], Grid, Object.create(Grid.prototype), new Float64Array(4), new PairTracker(grid)]
    for (const value of bad) {
      throwsLike(() => new PairTracker(value), {
        type: TypeError,
        code: 'ERR_INVALID_ARG_TYPE',
        message: /^PairTracker\(index\): index must be a Quadtree, Grid, LooseGrid, LooseQuadtree or Octree; received /,
      })
    }
    throwsLike(() => PairTracker(grid), { type: TypeError, message: /without 'new'/ })
  })

  it('keeps its index: the index getter gives the same object', () => {
    for (const { name, make } of SUBJECTS) {
      const index = make()
      assert.equal(new PairTracker(index).index, index, name)
    }
  })

  it('keeps its index from the garbage collector, and lets it go with itself', async () => {
    v8.setFlagsFromString('--expose-gc')
    const gc = vm.runInNewContext('gc')
    const tick = () => new Promise((resolve) => setImmediate(resolve))
    /** Full collections until `done()`, at most 50. Each one in a job of its
     * own: `deref()` keeps a target alive until its job ends, and finalizers
     * (the tracker's reference dropped) run between jobs. */
    const collect = async (done = () => false) => {
      for (let i = 0; i < 50; i++) {
        await tick()
        gc()
        await tick()
        if (done()) break
      }
    }
    const world = { x1: 0, y1: 0, x2: 10, y2: 10 }
    // The control: an index nothing holds is collected, so the check below means something.
    const loose = new WeakRef(new Grid(world))
    await collect(() => loose.deref() === undefined)
    assert.equal(loose.deref(), undefined)

    let tracker
    const held = (() => {
      const index = new Grid(world)
      index.insert(0, 0, 1, 1)
      index.insert(1, 1, 2, 2)
      tracker = new PairTracker(index)
      return new WeakRef(index)
    })()
    await collect()
    assert.notEqual(held.deref(), undefined, 'the index was collected while its tracker lives')
    assert.equal(tracker.update().began.length, 2)
    tracker = undefined
    await collect(() => held.deref() === undefined)
    assert.equal(held.deref(), undefined, 'the tracker keeps its index after it is gone')
  })

  it('reads its index inside the index’s own traverse callback', () => {
    const index = new Quadtree(WORLD2)
    const a = index.insert(0, 0, 2, 2)
    const b = index.insert(1, 1, 3, 3)
    const tracker = new PairTracker(index)
    const seen = []
    index.traverse(() => {
      seen.push(Array.from(tracker.update().began))
    })
    assert.deepEqual(seen, [[a, b]])
  })

  it('throws ERR_FLATQUAD_POISONED over an index a panic left unusable', () => {
    const index = new Grid(WORLD2)
    index.insert(0, 0, 1, 1)
    const tracker = new PairTracker(index)
    tracker.update()
    throwsLike(() => index.__panicForTests(true), { code: 'ERR_FLATQUAD_PANIC' })
    throwsLike(() => tracker.update(), { code: 'ERR_FLATQUAD_POISONED', message: /unusable/ })
    assert.equal(tracker.pairCount, 0)
  })
})
