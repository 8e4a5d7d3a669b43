// Model-based test: fast-check runs random command sequences (insert, remove,
// move, cleanup, clear, query, queryPoint, pairs and the batch calls) against
// each class (Quadtree, Grid, LooseGrid) and against a plain-JS model (a Map
// handle -> rectangle), comparing every answer, and checking that refused calls
// change nothing.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { CLASSES, oracle, pairSet, sorted, throwsLike, toF32 } from './helpers.mjs'

const WORLD = { x: 0, y: 0, width: 64, height: 64 }

/** Options for each class: defaults, counts, sizes. */
const count = fc.integer({ min: 1, max: 12 })
const OPTIONS = {
  Quadtree: fc.record({ maxElements: fc.integer({ min: 1, max: 6 }), maxDepth: fc.integer({ min: 0, max: 7 }) }),
  LooseQuadtree: fc.record(
    { maxElements: fc.integer({ min: 1, max: 6 }), maxDepth: fc.integer({ min: 0, max: 7 }), maxExtent: fc.integer({ min: 1, max: 40 }) },
    { requiredKeys: ['maxElements', 'maxDepth'] },
  ),
  Grid: fc.oneof(
    fc.constant(undefined),
    fc.record({ columns: count, rows: count }),
    fc.record({ cellSize: fc.oneof(fc.integer({ min: 1, max: 80 }), fc.tuple(fc.integer({ min: 1, max: 80 }), fc.integer({ min: 1, max: 80 }))) }),
  ),
  LooseGrid: fc.oneof(
    fc.constant(undefined),
    fc
      .tuple(count, count, count, count)
      .map(([columns, rows, a, b]) => ({ columns, rows, tightColumns: 1 + (a % columns), tightRows: 1 + (b % rows) })),
    fc.record({ cellSize: fc.integer({ min: 1, max: 80 }) }),
  ),
}

/** The model: live elements, and handles that went stale. */
class Model {
  constructor() {
    this.elements = new Map() // handle -> [x1, y1, x2, y2] (f32 values)
    this.ids = new Map() // handle -> id
    this.stale = []
  }
  live() {
    return [...this.elements.keys()]
  }
  kill(h) {
    this.elements.delete(h)
    this.ids.delete(h)
    this.stale.push(h)
  }
}

// Coordinates on a coarse grid (halves), so elements touch, overlap and stack;
// a few outside the world.
const coord = fc.integer({ min: -16, max: 144 }).map((v) => v / 2)
const extent = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 24 }).map((v) => v / 2), fc.integer({ min: 0, max: 160 }).map((v) => v / 2))
const rectArb = fc.tuple(coord, coord, extent, extent).map(([x, y, w, h]) => toF32([x, y, x + w, y + h]))
const pick = fc.nat()

const choose = (list, i) => list[i % list.length]
const flat = (rects) => {
  const out = new Float32Array(4 * rects.length)
  rects.forEach((r, i) => out.set(r, 4 * i))
  return out
}

/** After every command: same size, same handles, a valid tree. */
function agree(m, r) {
  assert.equal(r.tree.size, m.elements.size)
  assert.deepEqual(sorted(r.tree.handles()), sorted(m.elements.keys()))
}

class Insert {
  constructor(rect, id) {
    Object.assign(this, { rect, id })
  }
  check = () => true
  run(m, r) {
    const h = r.tree.insert(...this.rect, this.id)
    assert.ok(!m.elements.has(h) && !m.stale.includes(h), 'handles are never reused')
    m.elements.set(h, this.rect)
    m.ids.set(h, this.id ?? 0)
    assert.equal(r.tree.idOf(h), this.id ?? 0)
    agree(m, r)
  }
  toString = () => `insert(${this.rect}, ${this.id})`
}

class InsertMany {
  constructor(rects) {
    this.rects = rects
  }
  check = () => true
  run(m, r) {
    const ids = new Uint32Array(this.rects.map((_, i) => 7 * i))
    const handles = r.tree.insertMany(flat(this.rects), ids)
    assert.equal(handles.length, this.rects.length)
    handles.forEach((h, i) => {
      m.elements.set(h, this.rects[i])
      m.ids.set(h, 7 * i)
    })
    agree(m, r)
  }
  toString = () => `insertMany(${this.rects.length})`
}

class Remove {
  constructor(i) {
    this.i = i
  }
  check = (m) => m.elements.size > 0
  run(m, r) {
    const h = choose(m.live(), this.i)
    r.tree.remove(h)
    m.kill(h)
    agree(m, r)
  }
  toString = () => `remove(#${this.i})`
}

class RemoveMany {
  constructor(picks) {
    this.picks = picks
  }
  check = (m) => m.elements.size > 0
  run(m, r) {
    const live = m.live()
    const handles = [...new Set(this.picks.map((i) => choose(live, i)))]
    r.tree.removeMany(new Float64Array(handles))
    handles.forEach((h) => m.kill(h))
    agree(m, r)
  }
  toString = () => `removeMany(${this.picks.length})`
}

class Move {
  constructor(i, rect) {
    Object.assign(this, { i, rect })
  }
  check = (m) => m.elements.size > 0
  run(m, r) {
    const h = choose(m.live(), this.i)
    r.tree.move(h, ...this.rect)
    m.elements.set(h, this.rect)
    assert.deepEqual(Object.values(r.tree.rectOf(h)), this.rect)
    agree(m, r)
  }
  toString = () => `move(#${this.i}, ${this.rect})`
}

class MoveMany {
  constructor(moves) {
    this.moves = moves
  }
  check = (m) => m.elements.size > 0
  run(m, r) {
    const live = m.live()
    const handles = this.moves.map(([i]) => choose(live, i))
    r.tree.moveMany(new Float64Array(handles), flat(this.moves.map(([, rect]) => rect)))
    // A handle given twice ends at its last rectangle.
    this.moves.forEach(([, rect], k) => m.elements.set(handles[k], rect))
    agree(m, r)
  }
  toString = () => `moveMany(${this.moves.length})`
}

/** A refused call: a stale handle or a bad rectangle; nothing may change. */
class Refused {
  constructor(kind, i) {
    Object.assign(this, { kind, i })
  }
  check = (m) => this.kind === 'nan' || m.stale.length > 0
  run(m, r) {
    const before = r.tree.toBytes()
    if (this.kind === 'nan') {
      throwsLike(() => r.tree.insert(0, 0, NaN, 1), { type: RangeError, code: 'ERR_FLATQUAD_INVALID_RECT' })
    } else {
      const stale = choose(m.stale, this.i)
      const cases = {
        remove: () => r.tree.remove(stale),
        move: () => r.tree.move(stale, 0, 0, 1, 1),
        removeMany: () => r.tree.removeMany(new Float64Array([...m.live().slice(0, 2), stale])),
        query: () => r.tree.query(0, 0, 1, 1, stale),
      }
      throwsLike(cases[this.kind], { code: 'ERR_FLATQUAD_INVALID_HANDLE' })
      assert.ok(!r.tree.has(stale))
    }
    assert.deepEqual(r.tree.toBytes(), before, 'a refused call changed the tree')
    agree(m, r)
  }
  toString = () => `refused(${this.kind}, #${this.i})`
}

class Cleanup {
  check = () => true
  run(m, r) {
    r.tree.cleanup()
    agree(m, r)
  }
  toString = () => 'cleanup()'
}

class Clear {
  check = () => true
  run(m, r) {
    r.tree.clear()
    m.live().forEach((h) => m.kill(h))
    agree(m, r)
  }
  toString = () => 'clear()'
}

class Query {
  constructor(rect, omit) {
    Object.assign(this, { rect, omit })
  }
  check = () => true
  run(m, r) {
    const live = m.live()
    const omit = this.omit !== null && live.length ? choose(live, this.omit) : undefined
    assert.deepEqual(sorted(r.tree.query(...this.rect, omit)), oracle.query(m.elements, this.rect, omit))
  }
  toString = () => `query(${this.rect}, ${this.omit})`
}

class QueryPoint {
  constructor(x, y) {
    Object.assign(this, { x, y })
  }
  check = () => true
  run(m, r) {
    assert.deepEqual(sorted(r.tree.queryPoint(this.x, this.y)), oracle.point(m.elements, this.x, this.y))
  }
  toString = () => `queryPoint(${this.x}, ${this.y})`
}

// queryMany, and queryMany into `out` arrays of `room` numbers each, filled with a
// marker first: an answer array that fits is the start of its out array, the rest
// keeping the marker; one that does not is new, its out array untouched.
class QueryMany {
  constructor(rects, room) {
    this.rects = rects
    this.room = room
  }
  check = () => true
  run(m, r) {
    const fresh = r.tree.queryMany(flat(this.rects))
    const out = { offsets: new Uint32Array(this.room).fill(7), hits: new Float64Array(this.room).fill(-1) }
    const into = r.tree.queryMany(flat(this.rects), null, out)
    for (const { offsets, hits } of [fresh, into]) {
      this.rects.forEach((q, i) => {
        assert.deepEqual(sorted(hits.subarray(offsets[i], offsets[i + 1])), oracle.query(m.elements, q))
      })
    }
    for (const [name, marker] of [['offsets', 7], ['hits', -1]]) {
      const fits = fresh[name].length <= this.room
      assert.equal(into[name].buffer === out[name].buffer, fits, `${name} in place`)
      assert.ok(out[name].subarray(fits ? fresh[name].length : 0).every((v) => v === marker), `${name} past the answer`)
    }
  }
  toString = () => `queryMany(${this.rects.length}, out of ${this.room})`
}

// pairs(), and pairs(out) into an array of `room` numbers, filled with a marker
// first: where the pairs fit they are its start and the rest keeps the marker;
// where not, a new array comes back and out keeps the marker throughout.
class Pairs {
  constructor(room) {
    this.room = room
  }
  check = () => true
  run(m, r) {
    const fresh = r.tree.pairs()
    assert.deepEqual(pairSet(fresh), oracle.pairs(m.elements))
    const out = new Float64Array(this.room).fill(-1)
    const answer = r.tree.pairs(out)
    assert.deepEqual(pairSet(answer), oracle.pairs(m.elements))
    const fits = fresh.length <= this.room
    assert.equal(answer.buffer === out.buffer, fits)
    assert.ok(out.subarray(fits ? fresh.length : 0).every((v) => v === -1))
    r.tree.validate()
  }
  toString = () => `pairs(out of ${this.room})`
}

const commands = [
  fc.tuple(rectArb, fc.option(fc.nat({ max: 0xffffffff }), { nil: undefined })).map(([rect, id]) => new Insert(rect, id)),
  fc.array(rectArb, { minLength: 0, maxLength: 12 }).map((rects) => new InsertMany(rects)),
  pick.map((i) => new Remove(i)),
  fc.array(pick, { minLength: 1, maxLength: 5 }).map((p) => new RemoveMany(p)),
  fc.tuple(pick, rectArb).map(([i, rect]) => new Move(i, rect)),
  fc.array(fc.tuple(pick, rectArb), { minLength: 0, maxLength: 10 }).map((moves) => new MoveMany(moves)),
  fc.tuple(fc.constantFrom('nan', 'remove', 'move', 'removeMany', 'query'), pick).map(([k, i]) => new Refused(k, i)),
  fc.constant(new Cleanup()),
  fc.constant(new Clear()),
  fc.tuple(rectArb, fc.option(pick, { nil: null })).map(([rect, omit]) => new Query(rect, omit)),
  fc.tuple(coord, coord).map(([x, y]) => new QueryPoint(x, y)),
  fc.tuple(fc.array(rectArb, { minLength: 0, maxLength: 6 }), fc.nat({ max: 12 })).map(([rects, room]) => new QueryMany(rects, room)),
  fc.nat({ max: 40 }).map((room) => new Pairs(room)),
]

for (const { name, Class } of CLASSES) {
  describe(name, () => {
    it('random command sequences agree with a plain-JS model', () => {
      fc.assert(
        fc.property(OPTIONS[name], fc.commands(commands, { maxCommands: 150, size: 'max' }), (options, cmds) => {
          const setup = () => ({
            model: new Model(),
            real: { tree: new Class(WORLD, options) },
          })
          fc.modelRun(setup, cmds)
        }),
        { numRuns: 1500 },
      )
    })
  })
}
