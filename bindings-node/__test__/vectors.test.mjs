// The shared test vectors (../tests/vectors/*.json, see their README): every
// operation sequence replayed on every structure each file lists, with the
// answers, errors (as codes) and batch indexes the vectors expect, so that Node
// cannot drift from the core, C and Python. Fails when there are no vectors.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import * as flatquad from 'flatquad'

const DIR = new URL('../../tests/vectors/', import.meta.url)
const FILES = readdirSync(DIR)
  .filter((file) => file.endsWith('.json'))
  .sort()

/** The core's error kind names (`ErrorKind::name`) and the codes Node throws for them. */
const CODES = {
  InvalidRect: 'ERR_FLATQUAD_INVALID_RECT',
  InvalidPoint: 'ERR_FLATQUAD_INVALID_POINT',
  InvalidHandle: 'ERR_FLATQUAD_INVALID_HANDLE',
  DuplicateHandle: 'ERR_FLATQUAD_DUPLICATE_HANDLE',
  LengthMismatch: 'ERR_FLATQUAD_BAD_LENGTH',
  InvalidWorld: 'ERR_FLATQUAD_INVALID_WORLD',
  InvalidParameter: 'ERR_FLATQUAD_INVALID_OPTION',
  CapacityExceeded: 'ERR_FLATQUAD_CAPACITY',
  InvalidBytes: 'ERR_FLATQUAD_INVALID_BYTES',
}

/** The handle no structure issued: slot 999999, generation 1. */
const NEVER = 2 ** 32 + 999999

/** A number of the vectors: a JSON number, or "nan", "inf", "-inf". */
const num = (v) => ({ nan: NaN, inf: Infinity, '-inf': -Infinity })[v] ?? v
const nums = (list) => list.map(num)

/** `max_elements` as `maxElements`: the constructors' parameters as options. */
const camel = (name) => name.replace(/_(\w)/g, (_, c) => c.toUpperCase())
const options = (params) => (params === null ? undefined : Object.fromEntries(Object.entries(params).map(([k, v]) => [camel(k), v])))

/** Batch rectangles as a flat typed array (Float32Array and Float64Array in turn). */
const flat = (rects, step) => {
  const out = new (step % 2 ? Float64Array : Float32Array)(4 * rects.length)
  rects.forEach((r, i) => out.set(nums(r), 4 * i))
  return out
}

const byName = (a, b) => (a < b ? -1 : a > b ? 1 : 0)

/** Replays `vector.ops` on a fresh `structure` over the vector's world. */
function replay(vector, structure) {
  const Class = flatquad[structure.kind]
  assert.equal(typeof Class, 'function', `no class ${structure.kind}`)
  const [x1, y1, x2, y2] = nums(vector.world)
  const index = new Class({ x1, y1, x2, y2 }, options(structure.params))
  assert.equal(index.kind, structure.kind)
  // One tracker per replay, made with the structure (the `events` op).
  const tracker = new flatquad.PairTracker(index)
  const handles = new Map([['never', NEVER]]) // variable -> handle
  const names = new Map() // handle -> variable
  const handle = (name) => {
    assert.ok(handles.has(name), `unknown variable ${name}`)
    return handles.get(name)
  }
  const named = (list) => Array.from(list, (h) => names.get(h) ?? `?${h}`).sort(byName)
  // Flat handle pairs as sorted name pairs (a removed handle keeps its name).
  const namedPairs = (flatPairs) => {
    const pairs = []
    for (let i = 0; i < flatPairs.length; i += 2) pairs.push(named([flatPairs[i], flatPairs[i + 1]]))
    return pairs.sort((a, b) => byName(a[0], b[0]) || byName(a[1], b[1]))
  }
  const bind = (name, h) => {
    handles.set(name, h)
    names.set(h, name)
  }

  vector.ops.forEach((op, step) => {
    const where = `${vector.name} / ${structure.kind} ${JSON.stringify(structure.params)} / op ${step} ${JSON.stringify(op)}`
    const run = {
      insert: () => bind(op.as, index.insert(...nums(op.rect), op.id)),
      insert_many: () => index.insertMany(flat(op.rects, step), new Uint32Array(op.ids)).forEach((h, i) => bind(op.as[i], h)),
      remove: () => index.remove(handle(op.handle)),
      remove_many: () => index.removeMany(new Float64Array(op.handles.map(handle))),
      move: () => index.move(handle(op.handle), ...nums(op.rect)),
      move_many: () => index.moveMany(new Float64Array(op.handles.map(handle)), flat(op.rects, step)),
      cleanup: () => index.cleanup(),
      clear: () => index.clear(),
      query: () => named(index.query(...nums(op.rect), op.omit === null ? null : handle(op.omit))),
      query_point: () => named(index.queryPoint(...nums(op.point), op.omit === null ? null : handle(op.omit))),
      overlapping: () => named(index.overlapping(handle(op.handle))),
      pairs: () => namedPairs(index.pairs()),
      events: () => {
        const { began, ended } = tracker.update()
        return { began: namedPairs(began), ended: namedPairs(ended) }
      },
      len: () => index.size,
      contains: () => index.has(handle(op.handle)),
      id: () => index.idOf(handle(op.handle)),
      rect: () => Object.values(index.rectOf(handle(op.handle))),
    }[op.op]
    assert.ok(run, `${where}: unknown op`)
    if (op.error !== undefined) {
      const code = CODES[op.error]
      assert.ok(code, `${where}: unknown error kind ${op.error}`)
      const before = index.toBytes()
      assert.throws(run, (e) => {
        assert.equal(e.code, code, `${where}: ${e.message}`)
        assert.equal(e.index, op.index, `${where}: index (${e.message})`)
        return true
      }, where)
      assert.deepEqual(index.toBytes(), before, `${where}: a refused call changed the index`)
    } else {
      const result = run()
      if (op.expect !== undefined) {
        const expect = op.op === 'rect' ? nums(op.expect) : op.expect
        assert.deepEqual(result, expect, where)
      } else if (op.op === 'events') {
        assert.deepEqual(result, { began: op.began, ended: op.ended }, where)
      }
    }
    index.validate()
  })
  // The final state survives a snapshot.
  assert.deepEqual(Class.fromBytes(index.toBytes()).toBytes(), index.toBytes())
}

it('the shared vectors exist', () => {
  assert.ok(FILES.length > 0, `no *.json in ${DIR.pathname}: the shared vectors are missing`)
})

for (const file of FILES) {
  const vector = JSON.parse(readFileSync(new URL(file, DIR), 'utf8'))
  describe(`vectors: ${file}`, () => {
    assert.ok(vector.structures.length > 0, `${file} lists no structure`)
    vector.structures.forEach((structure, i) => {
      it(`${i}: ${structure.kind} ${JSON.stringify(structure.params)}`, () => replay(vector, structure))
    })
  })
}
