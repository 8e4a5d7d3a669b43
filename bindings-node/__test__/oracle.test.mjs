// Every query form and every batch call against a brute-force scan, on random
// data at several world scales, with elements inside, across and outside the
// world, for every class.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Grid, LooseGrid, LooseQuadtree, Quadtree, fromBytes } from 'flatquad'
import { CLASSES, f32, oracle, pairSet, rng, sorted, toF32 } from './helpers.mjs'

// Worlds from 0..1 to ±1e6, square and not, with the origin anywhere.
const WORLDS = [
  { name: 'unit', world: { x: 0, y: 0, width: 1, height: 1 } },
  { name: 'game', world: { x: 0, y: 0, width: 1024, height: 768 } },
  { name: 'offset', world: { x: -300.25, y: 1e4, width: 50, height: 400 } },
  { name: 'huge', world: { x: -1e6, y: -1e6, width: 2e6, height: 2e6 } },
]

/** A random rectangle around `world`: mostly small, some points, segments, large or outside ones. */
function randomRect(next, world) {
  const { x, y, width: w, height: h } = world
  const cx = x - 0.25 * w + next() * 1.5 * w
  const cy = y - 0.25 * h + next() * 1.5 * h
  const kind = next()
  let rw, rh
  if (kind < 0.1) [rw, rh] = [0, 0] // a point
  else if (kind < 0.15) [rw, rh] = [0, next() * 0.1 * h] // a segment
  else if (kind < 0.2) [rw, rh] = [next() * 1.2 * w, next() * 1.2 * h] // large
  else [rw, rh] = [next() * 0.04 * w, next() * 0.04 * h]
  return toF32([cx, cy, cx + rw, cy + rh].map((v, i) => (i < 2 ? v : Math.max(v, [cx, cy][i - 2]))))
}

function flat(rects) {
  const out = new Float32Array(4 * rects.length)
  rects.forEach((r, i) => out.set(r, 4 * i))
  return out
}

/** Checks every query form against the oracle over `elements` (Map handle -> rect). */
function checkAll(tree, elements, next, world, label) {
  assert.equal(tree.size, elements.size, `${label}: size`)
  assert.deepEqual(sorted(tree.handles()), sorted(elements.keys()), `${label}: handles()`)
  tree.validate()
  const live = [...elements.keys()]
  // Rectangle queries, with and without omit.
  const queries = []
  for (let k = 0; k < 60; k++) {
    const q = randomRect(next, world)
    const omit = live.length && next() < 0.5 ? live[Math.floor(next() * live.length)] : undefined
    queries.push([q, omit])
    assert.deepEqual(sorted(tree.query(...q, omit)), oracle.query(elements, q, omit), `${label}: query ${q} omit ${omit}`)
    // queryWith sees the same hits, and stops when asked.
    const seen = []
    tree.queryWith(...q, (h) => { seen.push(h) }, omit)
    assert.deepEqual(sorted(seen), oracle.query(elements, q, omit), `${label}: queryWith`)
    if (seen.length > 1) {
      let calls = 0
      tree.queryWith(...q, () => ++calls < 1 ? undefined : false, omit)
      assert.equal(calls, 1, `${label}: queryWith stops on false`)
    }
  }
  // queryMany: the same queries in one call, as Float32Array and Float64Array;
  // with omit, one live handle per query, or 0 (omit nothing) for every third.
  const rects = queries.map(([q]) => q)
  const omits = live.length ? new Float64Array(queries.map((_, i) => i % 3 === 2 ? 0 : live[Math.floor(next() * live.length)])) : null
  for (const array of [flat(rects), new Float64Array(flat(rects))]) {
    if (omits) {
      const { offsets, hits } = tree.queryMany(array, omits)
      assert.equal(offsets.length, rects.length + 1)
      assert.equal(offsets[0], 0)
      rects.forEach((q, i) => {
        assert.deepEqual(sorted(hits.subarray(offsets[i], offsets[i + 1])), oracle.query(elements, q, omits[i]), `${label}: queryMany ${i}`)
      })
    }
    const plain = tree.queryMany(array)
    assert.equal(plain.offsets.length, rects.length + 1)
    rects.forEach((q, i) => {
      assert.deepEqual(sorted(plain.hits.subarray(plain.offsets[i], plain.offsets[i + 1])), oracle.query(elements, q, undefined))
    })
  }
  // overlapping / overlappingMany: each element's own rectangle, itself left out.
  const all = new Float64Array(live)
  const many = tree.overlappingMany(all)
  assert.equal(many.offsets.length, live.length + 1)
  live.forEach((h, i) => {
    const want = oracle.query(elements, elements.get(h), h)
    assert.deepEqual(sorted(tree.overlapping(h)), want, `${label}: overlapping ${h}`)
    assert.deepEqual(sorted(many.hits.subarray(many.offsets[i], many.offsets[i + 1])), want, `${label}: overlappingMany ${i}`)
  })
  // Point queries: at random points and exactly on element corners.
  for (let k = 0; k < 60; k++) {
    let x, y
    if (live.length && k % 2) {
      const r = elements.get(live[Math.floor(next() * live.length)])
      ;[x, y] = [r[next() < 0.5 ? 0 : 2], r[next() < 0.5 ? 1 : 3]]
    } else {
      const r = randomRect(next, world)
      ;[x, y] = [r[0], r[1]]
    }
    const omit = live.length && next() < 0.3 ? live[Math.floor(next() * live.length)] : null
    assert.deepEqual(sorted(tree.queryPoint(x, y, omit)), oracle.point(elements, x, y, omit ?? undefined), `${label}: queryPoint ${x},${y}`)
  }
  // All pairs, each once.
  const pairs = tree.pairs()
  assert.equal(pairs.length % 2, 0)
  assert.deepEqual(pairSet(pairs), oracle.pairs(elements), `${label}: pairs`)
  // Element accessors.
  for (const h of live.slice(0, 50)) {
    const r = tree.rectOf(h)
    assert.deepEqual([r.x1, r.y1, r.x2, r.y2], elements.get(h))
    assert.ok(tree.has(h))
  }
}

for (const { name: className, Class, options } of CLASSES) {
  for (const { name, world } of WORLDS) {
    describe(`oracle: ${className}, ${name} world`, () => {
      for (const seed of [1, 2, 3]) {
        it(`seed ${seed}: insert, insertMany, move, moveMany, remove, removeMany, cleanup, clear`, () => {
          const next = rng(seed * 7919 + name.length)
          // The world as corners or as { x, y, width, height }: the same rectangle.
          const { x, y, width, height } = world
          const given = seed % 2 ? world : { x1: x, y1: y, x2: x + width, y2: y + height }
          const tree = new Class(given, options(next, width, height))
          assert.deepEqual(tree.world, { x1: f32(x), y1: f32(y), x2: f32(x + width), y2: f32(y + height) })
          const elements = new Map()
          const ids = new Map()
          // Single inserts with ids, then a batch with ids.
          for (let i = 0; i < 150; i++) {
            const r = randomRect(next, world)
            const h = tree.insert(...r, i)
            elements.set(h, r)
            ids.set(h, i)
          }
          const batch = Array.from({ length: 250 }, () => randomRect(next, world))
          const batchIds = new Uint32Array(batch.map((_, i) => 1000 + i))
          const handles = tree.insertMany(next() < 0.5 ? flat(batch) : new Float64Array(flat(batch)), batchIds)
          assert.equal(handles.length, batch.length)
          handles.forEach((h, i) => {
            elements.set(h, batch[i])
            ids.set(h, 1000 + i)
          })
          // A few duplicates of one rectangle: a pile no split can separate.
          const pile = randomRect(next, world)
          for (const h of tree.insertMany(flat(Array(20).fill(pile)))) {
            elements.set(h, pile)
            ids.set(h, 0) // ids left out are 0
          }
          checkAll(tree, elements, next, world, 'after inserts')
          const all = [...elements.keys()]
          assert.deepEqual(Array.from(tree.idsOf(new Float64Array(all))), all.map((h) => ids.get(h)))
          for (const h of all.slice(0, 30)) assert.equal(tree.idOf(h), ids.get(h))

          // Moves: single and batched, small steps and jumps.
          for (let frame = 0; frame < 3; frame++) {
            const live = [...elements.keys()]
            for (const h of live.slice(0, 40)) {
              const r = randomRect(next, world)
              tree.move(h, ...r)
              elements.set(h, r)
            }
            const moving = live.filter(() => next() < 0.6)
            const targets = moving.map(() => randomRect(next, world))
            tree.moveMany(new Float64Array(moving), frame % 2 ? flat(targets) : new Float64Array(flat(targets)))
            moving.forEach((h, i) => elements.set(h, targets[i]))
            tree.cleanup()
            checkAll(tree, elements, next, world, `after moves ${frame}`)
          }
          // Removals: single and batched; cleanup merges bottom-up over calls.
          const live = [...elements.keys()]
          for (const h of live.slice(0, 50)) {
            tree.remove(h)
            elements.delete(h)
            assert.ok(!tree.has(h))
          }
          const gone = live.slice(50).filter(() => next() < 0.5)
          tree.removeMany(new Float64Array(gone))
          for (const h of gone) elements.delete(h)
          for (let k = 0; k < 15; k++) tree.cleanup()
          checkAll(tree, elements, next, world, 'after removals')
          // Reinserting reuses slots, with fresh handles.
          for (let i = 0; i < 50; i++) {
            const r = randomRect(next, world)
            const h = tree.insert(...r)
            assert.ok(!live.includes(h) || elements.has(h), 'a stale handle was issued again')
            elements.set(h, r)
          }
          checkAll(tree, elements, next, world, 'after reinserts')
          // A snapshot gives an equal index, through the class and the module.
          const copy = Class.fromBytes(tree.toBytes())
          assert.ok(copy instanceof Class)
          checkAll(copy, elements, next, world, 'snapshot')
          const any = fromBytes(tree.toBytes())
          assert.ok(any instanceof Class)
          assert.equal(any.kind, className)
          assert.deepEqual(any.toBytes(), tree.toBytes())
          // clear: everything goes, handles stale.
          tree.clear()
          assert.equal(tree.size, 0)
          assert.equal(tree.pairs().length, 0)
          assert.ok(![...elements.keys()].some((h) => tree.has(h)))
          checkAll(tree, new Map(), next, world, 'after clear')
        })
      }
    })
  }
}

describe('nodes() and traverse()', () => {
  it('describe the same tree, ready to draw', () => {
    const world = { x: -10, y: 20, width: 80, height: 40 }
    const tree = new Quadtree(world, { maxElements: 2, maxDepth: 5 })
    const next = rng(99)
    const rects = Array.from({ length: 300 }, () => randomRect(next, world))
    tree.insertMany(flat(rects))
    const visited = []
    tree.traverse((node) => {
      visited.push(node)
    })
    const { rects: cells, depths, isLeaf, counts } = tree.nodes()
    assert.ok(cells instanceof Float32Array && depths instanceof Uint8Array)
    assert.ok(isLeaf instanceof Uint8Array && counts instanceof Uint32Array)
    assert.equal(cells.length, 4 * visited.length)
    visited.forEach((node, i) => {
      assert.deepEqual([node.x1, node.y1, node.x2, node.y2], Array.from(cells.subarray(4 * i, 4 * i + 4)))
      assert.equal(node.depth, depths[i])
      assert.equal(node.isLeaf ? 1 : 0, isLeaf[i])
      assert.equal(node.count, counts[i])
      if (!node.isLeaf) assert.equal(node.count, 0)
    })
    // The root is the world; the leaves tile it; the links add up.
    assert.deepEqual([visited[0].x1, visited[0].y1, visited[0].x2, visited[0].y2], toF32([-10, 20, 70, 60]))
    assert.equal(visited[0].depth, 0)
    let area = 0
    let links = 0
    visited.filter((n) => n.isLeaf).forEach((n) => {
      area += (n.x2 - n.x1) * (n.y2 - n.y1)
      links += n.count
    })
    assert.ok(Math.abs(area - 80 * 40) < 1e-6 * 3200)
    const stats = tree.stats()
    assert.equal(stats.nodes, visited.length)
    assert.equal(stats.leaves, visited.filter((n) => n.isLeaf).length)
    assert.equal(stats.elementLinks, links)
    assert.equal(stats.elements, 300)
    assert.ok(stats.maxDepthReached <= 5 && stats.bytes > 0)
    // Returning false stops the walk.
    let calls = 0
    tree.traverse(() => (++calls === 3 ? false : true))
    assert.equal(calls, 3)
  })

  it('world, options and defaults', () => {
    const tree = new Quadtree({ x: 1.5, y: -2, width: 10, height: 3 })
    assert.deepEqual(tree.world, { x1: 1.5, y1: -2, x2: 11.5, y2: 1 })
    assert.equal(tree.maxElements, 8)
    assert.equal(tree.maxDepth, 8)
    const tuned = new Quadtree({ x1: 0, y1: 0, x2: 1, y2: 1 }, { maxElements: 3, maxDepth: 30 })
    assert.equal(tuned.maxElements, 3)
    assert.equal(tuned.maxDepth, 30)
    assert.equal(new Quadtree(tree.world, { maxDepth: 2 }).maxElements, 8) // one left out: its default
    const coords = tree.insert(0.1, 0.2, 0.30000001, 0.4)
    assert.deepEqual(Object.values(tree.rectOf(coords)), [0.1, 0.2, 0.30000001, 0.4].map(f32))
  })
})

describe('every class: traverse() and nodes() agree, parameters read back', () => {
  for (const { name, Class, small } of CLASSES) {
    it(name, () => {
      const world = { x: -10, y: 20, width: 80, height: 40 }
      const index = new Class(world, small)
      assert.equal(index.kind, name)
      const next = rng(7)
      index.insertMany(flat(Array.from({ length: 200 }, () => randomRect(next, world))))
      const visited = []
      index.traverse((node) => {
        visited.push(node)
      })
      const { rects: cells, depths, isLeaf, counts } = index.nodes()
      assert.equal(cells.length, 4 * visited.length)
      visited.forEach((node, i) => {
        assert.deepEqual([node.x1, node.y1, node.x2, node.y2], Array.from(cells.subarray(4 * i, 4 * i + 4)))
        assert.deepEqual([node.depth, node.isLeaf ? 1 : 0, node.count], [depths[i], isLeaf[i], counts[i]])
      })
      const stats = index.stats()
      for (const key of ['elements', 'nodes', 'leaves', 'emptyLeaves', 'maxDepthReached', 'elementLinks', 'bytes']) {
        assert.equal(typeof stats[key], 'number', key)
      }
      // The getters of each class's parameters are numbers (what the core chose).
      const getters = { Quadtree: ['maxElements', 'maxDepth'], LooseQuadtree: ['maxElements', 'maxDepth'], Grid: ['columns', 'rows', 'cellWidth', 'cellHeight'], LooseGrid: ['columns', 'rows', 'tightColumns', 'tightRows'] }
      for (const getter of getters[name]) assert.equal(typeof index[getter], 'number', getter)
      // The same world in both forms gives the same index; the world reads back as corners.
      const corners = new Class({ x1: -10, y1: 20, x2: 70, y2: 60 }, small)
      assert.deepEqual(corners.world, index.world)
      assert.deepEqual(index.world, { x1: -10, y1: 20, x2: 70, y2: 60 })
      assert.deepEqual(new Class(index.world).toBytes(), new Class(world).toBytes()) // defaults: the same choice
    })
  }
})

describe('LooseQuadtree maxExtent', () => {
  it('keeps elements over the bound apart and answers as without it', () => {
    const world = { x1: 0, y1: 0, x2: 100, y2: 100 }
    const plain = new LooseQuadtree(world)
    const bounded = new LooseQuadtree(world, { maxExtent: 2 })
    assert.equal(plain.maxExtent, null)
    assert.equal(bounded.maxExtent, 2)
    const rects = new Float32Array([1, 1, 2, 2, 0, 0, 60, 3, 1.5, 1.5, 1.5, 1.5, 50, 2, 90, 90])
    const pairIds = (tree) => {
      tree.insertMany(rects)
      const pairs = tree.pairs()
      const list = []
      for (let i = 0; i < pairs.length; i += 2) list.push([tree.idOf(pairs[i]), tree.idOf(pairs[i + 1])].sort().join())
      return list.sort()
    }
    assert.deepEqual(pairIds(bounded), pairIds(plain))
    assert.equal(LooseQuadtree.fromBytes(bounded.toBytes()).maxExtent, 2)
    bounded.validate()
  })
})
