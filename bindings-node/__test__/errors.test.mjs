// Every bad input, on every class: the right error class, code, index and a
// message naming the bad value, and the index unchanged afterwards (its
// snapshot bytes are equal). Callback exceptions propagate; changing an index
// from its own callback throws; a Rust panic becomes an exception and never
// aborts the process.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Grid, LooseGrid, LooseQuadtree, Quadtree, fromBytes } from 'flatquad'
import { CLASSES, throwsLike } from './helpers.mjs'

const WORLD = { x: 0, y: 0, width: 100, height: 100 }

/** A small index of class `Class` with a few elements and one stale handle. */
function fixture(Class, small) {
  const tree = new Class(WORLD, small)
  const handles = Array.from({ length: 12 }, (_, i) => tree.insert(i * 7, i * 5, i * 7 + 10, i * 5 + 10, i))
  const stale = tree.insert(1, 1, 2, 2)
  tree.remove(stale)
  return { tree, handles, stale }
}

/** Asserts that `fn(tree)` throws like `expected` and leaves the index as it was. */
function refuses({ Class, small }, expected, fn) {
  const { tree, handles, stale } = fixture(Class, small)
  const before = tree.toBytes()
  const error = throwsLike(() => fn(tree, handles, stale), expected)
  assert.deepEqual(tree.toBytes(), before, `the tree changed: ${error.message}`)
  tree.validate()
  return error
}

const TYPE = { type: TypeError, code: 'ERR_INVALID_ARG_TYPE' }
const RANGE = { type: RangeError, code: 'ERR_OUT_OF_RANGE' }
const RECT = { type: RangeError, code: 'ERR_FLATQUAD_INVALID_RECT' }
const HANDLE = { type: Error, code: 'ERR_FLATQUAD_INVALID_HANDLE' }
const LENGTH = { type: RangeError, code: 'ERR_FLATQUAD_BAD_LENGTH' }
const BUSY = { type: Error, code: 'ERR_FLATQUAD_BUSY' }

const WORLD_ERROR = { type: RangeError, code: 'ERR_FLATQUAD_INVALID_WORLD' }
const OPTION = { type: RangeError, code: 'ERR_FLATQUAD_INVALID_OPTION' }

describe('constructors', () => {
  // The world, read the same way by every class.
  const worlds = [
    ['no world', [], TYPE, /world must be an object \{ x1, y1, x2, y2 \} or \{ x, y, width, height \}, received undefined/],
    ['world null', [null], TYPE, /received null/],
    ['world a number', [5], TYPE, /received the number 5/],
    ['world an empty object', [{}], TYPE, /an object with neither x1 nor x/],
    ['world in both forms', [{ x1: 0, y1: 0, x2: 1, y2: 1, x: 0 }], TYPE, /world has both x1 and x/],
    ['world.width missing', [{ x: 0, y: 0, height: 1 }], TYPE, /world.width must be a number, received undefined/],
    ['world.y2 missing', [{ x1: 0, y1: 0, x2: 1 }], TYPE, /world.y2 must be a number, received undefined/],
    ['world.x a string', [{ x: '0', y: 0, width: 1, height: 1 }], TYPE, /world.x must be a number, received a string/],
    ['world.x1 a string', [{ x1: '0', y1: 0, x2: 1, y2: 1 }], TYPE, /world.x1 must be a number, received a string/],
    ['zero width', [{ x: 0, y: 0, width: 0, height: 1 }], WORLD_ERROR, /^world \{ x: 0, y: 0, width: 0, height: 1 \}: invalid world \(0, 0, 0, 1\)/],
    ['negative height', [{ x: 0, y: 0, width: 1, height: -1 }], WORLD_ERROR, /height: -1/],
    ['NaN x', [{ x: NaN, y: 0, width: 1, height: 1 }], WORLD_ERROR, /x: NaN/],
    ['infinite width', [{ x: 0, y: 0, width: Infinity, height: 1 }], WORLD_ERROR, /width: Infinity/],
    ['width beyond f32', [{ x: 0, y: 0, width: 1e39, height: 1 }], WORLD_ERROR, /width: 1e\+39.*\(0, 0, inf, 1\)/],
    ['corners inverted', [{ x1: 1, y1: 0, x2: 0, y2: 1 }], WORLD_ERROR, /^world \{ x1: 1, y1: 0, x2: 0, y2: 1 \}: invalid world/],
    ['corners equal', [{ x1: 0, y1: 5, x2: 1, y2: 5 }], WORLD_ERROR, /y2: 5/],
    ['options a string', [WORLD, 'fast'], TYPE, /options must be an object/],
    ['options an array', [WORLD, [8]], TYPE, /options must be an object.*received an Array/],
  ]
  // What each class's options refuse; nonsense values the core refuses are below.
  const options = {
    Quadtree: [
      ['maxElements 0', [WORLD, { maxElements: 0 }], OPTION, /^options.maxElements: invalid parameter max_elements = 0: expected at least 1$/],
      ['maxElements 1.5', [WORLD, { maxElements: 1.5 }], RANGE, /options.maxElements must be an integer.*received 1.5/],
      ['maxElements a string', [WORLD, { maxElements: '8' }], TYPE, /options.maxElements must be a number/],
      ['maxDepth 31', [WORLD, { maxDepth: 31 }], OPTION, /^options.maxDepth: invalid parameter max_depth = 31: expected at most 30$/],
      ['maxDepth -1', [WORLD, { maxDepth: -1 }], RANGE, /received -1/],
    ],
    Grid: [
      ['columns without rows', [WORLD, { columns: 3 }], TYPE, /options.rows must be a number, received undefined \(columns, rows go together\)/],
      ['columns 1.5', [WORLD, { columns: 1.5, rows: 2 }], RANGE, /options.columns must be an integer.*received 1.5/],
      ['rows -1', [WORLD, { columns: 1, rows: -1 }], RANGE, /options.rows must be an integer.*received -1/],
      ['columns a string', [WORLD, { columns: '3', rows: 2 }], TYPE, /options.columns must be a number, received a string/],
      ['cellSize a string', [WORLD, { cellSize: 'big' }], TYPE, /options.cellSize must be a number or an array \[width, height\] of two numbers, received a string/],
      ['cellSize [1]', [WORLD, { cellSize: [1] }], TYPE, /options.cellSize must be a number or an array/],
      ['cellSize [1, "a"]', [WORLD, { cellSize: [1, 'a'] }], TYPE, /options.cellSize.1 must be a number, received a string/],
      ['both forms', [WORLD, { columns: 2, rows: 2, cellSize: 1 }], TYPE, /options must be one of \{ columns, rows \} or \{ cellSize \}, not both/],
    ],
    LooseGrid: [
      ['loose without tight', [WORLD, { columns: 2, rows: 2 }], TYPE, /options.tightColumns must be a number, received undefined/],
      ['tightRows a string', [WORLD, { columns: 2, rows: 2, tightColumns: 1, tightRows: '1' }], TYPE, /options.tightRows must be a number/],
      ['tightColumns 2^32', [WORLD, { columns: 2, rows: 2, tightColumns: 2 ** 32, tightRows: 1 }], RANGE, /options.tightColumns must be an integer from 0 to 4294967295/],
      ['cellSize [1, 2]', [WORLD, { cellSize: [1, 2] }], TYPE, /options.cellSize must be a number, received an Array/],
      ['both forms', [WORLD, { columns: 2, rows: 2, tightColumns: 1, tightRows: 1, cellSize: 1 }], TYPE, /not both/],
    ],
  }
  options.LooseQuadtree = [
    ...options.Quadtree, // the same options and checks, and maxExtent
    ['maxExtent a string', [WORLD, { maxExtent: '4' }], TYPE, /options.maxExtent must be a number, received/],
    ['maxExtent NaN', [WORLD, { maxExtent: NaN }], OPTION, /^options.maxExtent: invalid parameter max_extent = NaN: expected positive and finite$/],
  ]
  // Values only the core can judge: a RangeError with the core's message when
  // refused. (The placeholder grids accept everything; the real ones refuse these.)
  const nonsense = {
    Quadtree: [{ maxElements: 0 }, { maxDepth: 99 }],
    LooseQuadtree: [{ maxElements: 0 }, { maxDepth: 99 }, { maxExtent: 0 }, { maxExtent: -1 }, { maxExtent: Infinity }, { maxExtent: -Infinity }],
    Grid: [{ columns: 0, rows: 4 }, { columns: 4, rows: 0 }, { cellSize: 0 }, { cellSize: -1 }, { cellSize: NaN }, { cellSize: [1, Infinity] }],
    LooseGrid: [{ columns: 0, rows: 4, tightColumns: 1, tightRows: 1 }, { columns: 4, rows: 4, tightColumns: 0, tightRows: 1 }, { cellSize: 0 }, { cellSize: NaN }],
  }
  for (const { name, Class } of CLASSES) {
    describe(name, () => {
      for (const [label, args, expected, message] of [...worlds, ...options[name]]) {
        it(label, () => {
          throwsLike(() => new Class(...args), { ...expected, message })
        })
      }
      it('nonsense options: the core refuses them with a RangeError naming the option', () => {
        for (const given of nonsense[name]) {
          let error
          try {
            new Class(WORLD, given)
          } catch (e) {
            error = e
          }
          if (error === undefined) continue
          throwsLike(() => { throw error }, { ...OPTION, message: /^options\.\w+: invalid parameter \w+ = / })
        }
      })
      it('calling without new throws, and attaches nothing to the global object', () => {
        throwsLike(() => Class(WORLD), { ...TYPE, message: new RegExp(`Class constructor ${name} cannot be invoked without 'new'`) })
        throwsLike(() => Class(WORLD), { ...TYPE, message: /cannot be invoked without 'new'/ })
        assert.equal(globalThis.size, undefined)
      })
      it('options left out, null, undefined or {}: the defaults for the world', () => {
        const bytes = new Class(WORLD).toBytes()
        for (const options of [undefined, null, {}]) assert.deepEqual(new Class(WORLD, options).toBytes(), bytes)
      })
    })
  }
})

for (const { name, Class, small } of CLASSES) {
  describe(name, () => {
    describe('single calls', () => {
      const cases = [
        ['insert NaN', (t) => t.insert(NaN, 0, 1, 1), RECT, /NaN/],
        ['insert Infinity', (t) => t.insert(0, 0, Infinity, 1), RECT, /inf/],
        ['insert -Infinity', (t) => t.insert(-Infinity, 0, 1, 1), RECT, /inf/],
        ['insert inverted x', (t) => t.insert(5, 0, 4, 1), RECT, /\(5, 0, 4, 1\)/],
        ['insert inverted y', (t) => t.insert(0, 5, 1, 4), RECT, /x1 <= x2 and y1 <= y2/],
        ['insert beyond f32', (t) => t.insert(0, 0, 1e39, 1), RECT, /invalid rectangle \(0, 0, inf, 1\)/],
        ['insert a string', (t) => t.insert('1', 0, 2, 2), TYPE, /x1 must be a number, received a string/],
        ['insert missing y2', (t) => t.insert(0, 0, 1), TYPE, /y2 must be a number, received undefined/],
        ['insert a bigint', (t) => t.insert(0n, 0, 1, 1), TYPE, /x1 must be a number/],
        ['insert id -1', (t) => t.insert(0, 0, 1, 1, -1), RANGE, /id must be an integer from 0 to 4294967295, received -1/],
        ['insert id 2^32', (t) => t.insert(0, 0, 1, 1, 2 ** 32), RANGE, /received 4294967296/],
        ['insert id 1.5', (t) => t.insert(0, 0, 1, 1, 1.5), RANGE, /received 1.5/],
        ['insert id a string', (t) => t.insert(0, 0, 1, 1, '7'), TYPE, /id must be a number/],
        ['remove stale', (t, h, s) => t.remove(s), HANDLE, /names no element of this index/],
        ['remove never issued', (t) => t.remove(123456789), HANDLE, /handle 123456789/],
        ['remove 0', (t) => t.remove(0), HANDLE, /handle 0/],
        ['remove 1.5', (t) => t.remove(1.5), RANGE, /a handle is an integer.*received 1.5/],
        ['remove -1', (t) => t.remove(-1), RANGE, /received -1/],
        ['remove 2^53', (t) => t.remove(2 ** 53), RANGE, /received 9007199254740992/],
        ['remove NaN', (t) => t.remove(NaN), RANGE, /received NaN/],
        ['remove a string', (t, h) => t.remove(String(h[0])), TYPE, /handle must be a number, received a string/],
        ['remove undefined', (t) => t.remove(), TYPE, /received undefined/],
        ['move stale', (t, h, s) => t.move(s, 0, 0, 1, 1), HANDLE, /names no element/],
        ['move inverted', (t, h) => t.move(h[0], 1, 1, 0, 0), RECT, /invalid rectangle/],
        ['move NaN', (t, h) => t.move(h[0], 0, NaN, 1, 1), RECT, /NaN/],
        ['query NaN', (t) => t.query(0, 0, NaN, 1), RECT, /NaN/],
        ['query inverted', (t) => t.query(0, 2, 1, 1), RECT, /invalid rectangle/],
        ['query stale omit', (t, h, s) => t.query(0, 0, 1, 1, s), HANDLE, /names no element/],
        ['query omit a string', (t) => t.query(0, 0, 1, 1, 'a'), TYPE, /omit must be a number/],
        ['queryPoint NaN', (t) => t.queryPoint(NaN, 0), { type: RangeError, code: 'ERR_FLATQUAD_INVALID_POINT' }, /NaN/],
        ['queryPoint Infinity', (t) => t.queryPoint(0, Infinity), { type: RangeError, code: 'ERR_FLATQUAD_INVALID_POINT' }, /inf/],
        ['queryPoint stale omit', (t, h, s) => t.queryPoint(0, 0, s), HANDLE],
        ['idOf stale', (t, h, s) => t.idOf(s), HANDLE],
        ['rectOf stale', (t, h, s) => t.rectOf(s), HANDLE],
        ['has a string', (t) => t.has('1'), TYPE],
        ['queryWith no callback', (t) => t.queryWith(0, 0, 1, 1), TYPE, /callback must be a function, received undefined/],
        ['traverse an object', (t) => t.traverse({}), TYPE, /callback must be a function, received an object/],
        ['fromBytes garbage', () => Class.fromBytes(Buffer.from('not a tree')), { type: Error, code: 'ERR_FLATQUAD_INVALID_BYTES' }, /invalid snapshot bytes/],
        ['fromBytes a string', () => Class.fromBytes('bytes'), TYPE, /bytes must be a Uint8Array/],
        ['fromBytes of another class', () => Class.fromBytes(new (Class === Grid ? LooseGrid : Grid)(WORLD).toBytes()), { type: Error, code: 'ERR_FLATQUAD_INVALID_BYTES' }, new RegExp(`invalid snapshot bytes: a snapshot of a \\w+, not of a ${name}`)],
        ['module fromBytes garbage', () => fromBytes(new Uint8Array(3)), { type: Error, code: 'ERR_FLATQUAD_INVALID_BYTES' }, /invalid snapshot bytes/],
      ]
      for (const [name, fn, expected, message] of cases) {
        it(name, () => {
          refuses({ Class, small }, { ...expected, message }, fn)
        })
      }
      it('has() is false for numbers that are not live handles', () => {
        const { tree, handles, stale } = fixture(Class, small)
        for (const n of [0, -1, 1.5, NaN, Infinity, 2 ** 53, stale]) assert.equal(tree.has(n), false)
        assert.equal(tree.has(handles[0]), true)
      })
      it('a stale handle stays stale after its slot is reused', () => {
        const { tree, stale } = fixture(Class, small)
        const fresh = tree.insert(1, 1, 2, 2)
        assert.notEqual(fresh, stale)
        assert.equal(tree.has(stale), false)
        throwsLike(() => tree.remove(stale), HANDLE)
        assert.equal(tree.has(fresh), true)
      })
      it('removing twice is refused the second time', () => {
        const { tree, handles } = fixture(Class, small)
        tree.remove(handles[3])
        const before = tree.toBytes()
        throwsLike(() => tree.remove(handles[3]), HANDLE)
        assert.deepEqual(tree.toBytes(), before)
      })
      it('clear makes every handle stale', () => {
        const { tree, handles } = fixture(Class, small)
        tree.clear()
        for (const h of handles) throwsLike(() => tree.move(h, 0, 0, 1, 1), HANDLE)
      })
    })

    describe('batch calls', () => {
      const f32 = (...v) => new Float32Array(v)
      const cases = [
        ['insertMany an Array', (t) => t.insertMany([0, 0, 1, 1]), TYPE, /rects must be a Float32Array or Float64Array.*received an Array/],
        ['insertMany an Int32Array', (t) => t.insertMany(new Int32Array(4)), TYPE, /received a Int32Array/],
        ['insertMany nothing', (t) => t.insertMany(), TYPE, /received undefined/],
        ['insertMany length 7', (t) => t.insertMany(new Float32Array(7)), LENGTH, /length 7 is not a multiple of 4/],
        ['insertMany bad rect at 2', (t) => t.insertMany(f32(0, 0, 1, 1, 0, 0, 1, 1, 5, 5, 4, 4, 0, 0, 1, 1)), { ...RECT, index: 2 }, /item 2 of the batch: invalid rectangle \(5, 5, 4, 4\)/],
        ['insertMany NaN at 1 (Float64Array)', (t) => t.insertMany(new Float64Array([0, 0, 1, 1, NaN, 0, 1, 1])), { ...RECT, index: 1 }, /item 1/],
        ['insertMany beyond f32 (Float64Array)', (t) => t.insertMany(new Float64Array([0, 0, 1e39, 1])), { ...RECT, index: 0 }, /inf/],
        ['insertMany ids an Array', (t) => t.insertMany(f32(0, 0, 1, 1), [1]), TYPE, /ids must be a Uint32Array.*received an Array/],
        ['insertMany ids an Int32Array', (t) => t.insertMany(f32(0, 0, 1, 1), new Int32Array(1)), TYPE, /ids must be a Uint32Array/],
        ['insertMany ids too short', (t) => t.insertMany(f32(0, 0, 1, 1, 0, 0, 1, 1), new Uint32Array(1)), LENGTH, /ids holds 1 ids but rects holds 2 rectangles/],
        ['moveMany handles an Array', (t, h) => t.moveMany([h[0]], f32(0, 0, 1, 1)), TYPE, /handles must be a Float64Array.*received an Array/],
        ['moveMany handles a Uint32Array', (t) => t.moveMany(new Uint32Array(1), f32(0, 0, 1, 1)), TYPE, /received a Uint32Array/],
        ['moveMany rects a plain array', (t, h) => t.moveMany(new Float64Array([h[0]]), [0, 0, 1, 1]), TYPE, /rects must be/],
        ['moveMany length mismatch', (t, h) => t.moveMany(new Float64Array([h[0], h[1]]), f32(0, 0, 1, 1)), LENGTH, /handles holds 2 handles but rects holds 1 rectangles/],
        ['moveMany stale at 1', (t, h, s) => t.moveMany(new Float64Array([h[0], s, h[2]]), new Float32Array(12)), { ...HANDLE, index: 1 }, /item 1 of the batch: handle/],
        ['moveMany bad rect at 2', (t, h) => t.moveMany(new Float64Array(h.slice(0, 3)), f32(0, 0, 1, 1, 0, 0, 1, 1, 0, 0, -1, 1)), { ...RECT, index: 2 }, /item 2/],
        ['moveMany handle 1.5 at 1', (t, h) => t.moveMany(new Float64Array([h[0], 1.5]), new Float32Array(8)), { ...RANGE, index: 1 }, /handles\[1\]: a handle is an integer.*received 1.5/],
        ['moveMany handle NaN at 1', (t, h) => t.moveMany(new Float64Array([h[0], NaN]), new Float32Array(8)), { ...RANGE, index: 1 }, /handles\[1\]: .*received NaN/],
        ['moveMany handle Infinity at 1', (t, h) => t.moveMany(new Float64Array([h[0], Infinity]), new Float32Array(8)), { ...RANGE, index: 1 }, /handles\[1\]: .*received Infinity/],
        ['moveMany handle 2^53 at 1', (t, h) => t.moveMany(new Float64Array([h[0], 2 ** 53]), new Float32Array(8)), { ...RANGE, index: 1 }, /handles\[1\]: .*received 9007199254740992/],
        ['moveMany handle 2^64 at 1', (t, h) => t.moveMany(new Float64Array([h[0], 2 ** 64]), new Float32Array(8)), { ...RANGE, index: 1 }, /handles\[1\]: .*received 18446744073709552000/],
        ['moveMany handle -1 at 1', (t, h) => t.moveMany(new Float64Array([h[0], -1]), new Float32Array(8)), { ...RANGE, index: 1 }, /handles\[1\]: .*received -1/],
        ['moveMany handle -0 at 1 (handle 0, never issued)', (t, h) => t.moveMany(new Float64Array([h[0], -0]), new Float32Array(8)), { ...HANDLE, index: 1 }, /item 1 of the batch: handle 0/],
        // Handles read in the vector unit below 2^52 and one by one above it: both
        // sides of the border, integers (never issued) and not.
        ['moveMany handle 2^52 - 0.5 at 1', (t, h) => t.moveMany(new Float64Array([h[0], 2 ** 52 - 0.5]), new Float32Array(8)), { ...RANGE, index: 1 }, /handles\[1\]: .*received 4503599627370495.5/],
        ['moveMany handle 2^52 - 1 at 1 (never issued)', (t, h) => t.moveMany(new Float64Array([h[0], 2 ** 52 - 1]), new Float32Array(8)), { ...HANDLE, index: 1 }, /item 1 of the batch: handle 4503599627370495/],
        ['moveMany handle 2^52 at 1 (never issued)', (t, h) => t.moveMany(new Float64Array([h[0], 2 ** 52]), new Float32Array(8)), { ...HANDLE, index: 1 }, /item 1 of the batch: handle 4503599627370496/],
        ['moveMany handle 2^52 + 1 at 1 (never issued)', (t, h) => t.moveMany(new Float64Array([h[0], 2 ** 52 + 1, h[1]]), new Float32Array(12)), { ...HANDLE, index: 1 }, /item 1 of the batch: handle 4503599627370497/],
        ['moveMany handle 2^53 - 1 at 2 (never issued)', (t, h) => t.moveMany(new Float64Array([h[0], h[1], 2 ** 53 - 1]), new Float32Array(12)), { ...HANDLE, index: 2 }, /item 2 of the batch: handle 9007199254740991/],
        ['moveMany handle 1.5 after 2^52 + 1', (t, h) => t.moveMany(new Float64Array([h[0], 2 ** 52 + 1, 1.5]), new Float32Array(12)), { ...RANGE, index: 2 }, /handles\[2\]: .*received 1.5/],
        ['moveMany handle -0.5 at 1', (t, h) => t.moveMany(new Float64Array([h[0], -0.5]), new Float32Array(8)), { ...RANGE, index: 1 }, /handles\[1\]: .*received -0.5/],
        ['removeMany an Array', (t, h) => t.removeMany([h[0]]), TYPE, /handles must be a Float64Array/],
        ['removeMany stale at 2', (t, h, s) => t.removeMany(new Float64Array([h[0], h[1], s])), { ...HANDLE, index: 2 }, /item 2 of the batch/],
        ['overlapping stale', (t, h, s) => t.overlapping(s), HANDLE, /names no element/],
        ['overlappingMany an Array', (t, h) => t.overlappingMany([h[0]]), TYPE, /handles must be a Float64Array/],
        ['overlappingMany stale at 1', (t, h, s) => t.overlappingMany(new Float64Array([h[0], s])), { ...HANDLE, index: 1 }, /item 1 of the batch/],
        ['removeMany duplicate at 2', (t, h) => t.removeMany(new Float64Array([h[0], h[1], h[0]])), { type: Error, code: 'ERR_FLATQUAD_DUPLICATE_HANDLE', index: 2 }, /appears twice/],
        ['removeMany -1 at 0', (t) => t.removeMany(new Float64Array([-1])), { ...RANGE, index: 0 }, /handles\[0\]/],
        ['pairs out an Array', (t) => t.pairs([0, 0]), TYPE, /out must be a Float64Array \(room for 2 handles per pair\), received an Array/],
        ['pairs out a Float32Array', (t) => t.pairs(new Float32Array(8)), TYPE, /out must be a Float64Array.*received a Float32Array/],
        ['pairs out a number', (t) => t.pairs(8), TYPE, /out must be a Float64Array.*received the number 8/],
        ['overlappingMany out a Float64Array', (t, h) => t.overlappingMany(new Float64Array([h[0]]), new Float64Array(8)), TYPE, /out must be an object \{ offsets\?: Uint32Array, hits\?: Float64Array \} to answer into, received a Float64Array/],
        ['overlappingMany out an Array', (t, h) => t.overlappingMany(new Float64Array([h[0]]), []), TYPE, /out must be an object.*received an Array/],
        ['overlappingMany out a number', (t, h) => t.overlappingMany(new Float64Array([h[0]]), 3), TYPE, /out must be an object.*received the number 3/],
        ['overlappingMany out.offsets a Float64Array', (t, h) => t.overlappingMany(new Float64Array([h[0]]), { offsets: new Float64Array(2) }), TYPE, /out.offsets must be a Uint32Array.*received a Float64Array/],
        ['overlappingMany out.hits a Float32Array', (t, h) => t.overlappingMany(new Float64Array([h[0]]), { hits: new Float32Array(2) }), TYPE, /out.hits must be a Float64Array.*received a Float32Array/],
        ['overlappingMany out arrays sharing memory', (t, h) => { const b = new ArrayBuffer(64); return t.overlappingMany(new Float64Array([h[0]]), { offsets: new Uint32Array(b, 0, 4), hits: new Float64Array(b, 8, 4) }) }, { type: TypeError, code: 'ERR_INVALID_ARG_VALUE' }, /out.offsets and out.hits share memory/],
        ['queryMany out a string', (t) => t.queryMany(f32(0, 0, 1, 1), null, 'rows'), TYPE, /out must be an object.*received a string/],
        ['queryCircleMany out.hits an Array', (t) => t.queryCircleMany(new Float64Array([0, 0]), new Float64Array([1]), null, { hits: [] }), TYPE, /out.hits must be a Float64Array.*received an Array/],
        ['queryMany an Array', (t) => t.queryMany([0, 0, 1, 1]), TYPE, /rects must be/],
        ['queryMany length 5', (t) => t.queryMany(new Float64Array(5)), LENGTH, /length 5/],
        ['queryMany bad rect at 1', (t) => t.queryMany(f32(0, 0, 1, 1, 2, 2, 1, 1)), { ...RECT, index: 1 }, /item 1 of the batch/],
        ['queryMany omit length', (t, h) => t.queryMany(f32(0, 0, 1, 1), new Float64Array([h[0], h[1]])), LENGTH, /omit holds 2 handles but rects holds 1 rectangles/],
        ['queryMany omit stale at 1', (t, h, s) => t.queryMany(f32(0, 0, 1, 1, 0, 0, 1, 1), new Float64Array([h[0], s])), { ...HANDLE, index: 1 }, /item 1/],
        ['queryMany omit a Float32Array', (t) => t.queryMany(f32(0, 0, 1, 1), new Float32Array(1)), TYPE, /omit must be a Float64Array/],
        ['idsOf stale at 1', (t, h, s) => t.idsOf(new Float64Array([h[0], s])), { ...HANDLE, index: 1 }],
        ['idsOf an Array', (t, h) => t.idsOf([h[0]]), TYPE],
      ]
      for (const [name, fn, expected, message] of cases) {
        it(name, () => {
          refuses({ Class, small }, { ...expected, message }, fn)
        })
      }
      it('insertMany refuses all or nothing: a bad item inserts none', () => {
        const { tree } = fixture(Class, small)
        const size = tree.size
        throwsLike(() => tree.insertMany(new Float32Array([0, 0, 1, 1, 0, 0, 1, 1, NaN, 0, 0, 0])), { ...RECT, index: 2 })
        assert.equal(tree.size, size)
      })
      it('empty batches are fine', () => {
        const { tree } = fixture(Class, small)
        assert.equal(tree.insertMany(new Float32Array(0)).length, 0)
        tree.moveMany(new Float64Array(0), new Float32Array(0))
        tree.removeMany(new Float64Array(0))
        const { offsets, hits } = tree.queryMany(new Float32Array(0))
        assert.deepEqual([offsets.length, hits.length], [1, 0])
      })
      it('typed arrays that are views into a larger buffer are read at their offset', () => {
        const { tree } = fixture(Class, small)
        const buffer = new Float32Array([9, 9, 9, 9, 200, 200, 201, 201, 9, 9])
        const [h] = tree.insertMany(buffer.subarray(4, 8))
        assert.deepEqual(Object.values(tree.rectOf(h)), [200, 200, 201, 201])
        const handles = new Float64Array([0, h, 0])
        tree.moveMany(handles.subarray(1, 2), new Float64Array([7, 7, 300, 300, 300, 300]).subarray(2, 6))
        assert.deepEqual(Object.values(tree.rectOf(h)), [300, 300, 300, 300])
      })
    })

    describe('callbacks', () => {
      // Both walks that call back into JavaScript; a structure that shows no
      // nodes (the placeholder grids) makes traverse() call nothing: skipped then.
      const WALKS = {
        traverse: (tree, cb) => tree.traverse(cb),
        queryWith: (tree, cb) => tree.queryWith(0, 0, 100, 100, cb),
      }
      const calls = (tree, walk) => {
        let n = 0
        WALKS[walk](tree, () => { n++ })
        return n
      }
      for (const walk of Object.keys(WALKS)) {
        it(`an exception thrown in a ${walk}() callback propagates, the very object`, (t) => {
          const { tree } = fixture(Class, small)
          if (!calls(tree, walk)) return t.skip(`${name}.${walk}() calls back nothing yet`)
          const mine = new TypeError('mine')
          assert.throws(() => WALKS[walk](tree, () => { throw mine }), (e) => e === mine)
          const notAnError = { reason: 'plain object' }
          assert.throws(() => WALKS[walk](tree, () => { throw notAnError }), (e) => e === notAnError)
          tree.validate() // and the index works on
          assert.equal(tree.size, 12)
        })
        it(`the ${walk}() callback stops at its first exception`, (t) => {
          const { tree } = fixture(Class, small)
          if (calls(tree, walk) < 2) return t.skip(`${name}.${walk}() calls back fewer than 2 times`)
          let n = 0
          assert.throws(() => WALKS[walk](tree, () => { n++; throw new Error('stop') }))
          assert.equal(n, 1)
        })
        it(`reading the index inside its own ${walk}() callback works`, (t) => {
          const { tree, handles } = fixture(Class, small)
          if (!calls(tree, walk)) return t.skip(`${name}.${walk}() calls back nothing yet`)
          let reads = 0
          WALKS[walk](tree, () => {
            reads += tree.query(0, 0, 100, 100).length
            reads += tree.queryMany(new Float32Array([0, 0, 5, 5])).hits.length
            tree.idOf(handles[0])
            tree.queryWith(0, 0, 1, 1, () => false) // nested walks are reads too
            tree.traverse(() => false)
          })
          assert.ok(reads > 0)
        })
      }
      const mutations = {
        insert: (t) => t.insert(0, 0, 1, 1),
        remove: (t, h) => t.remove(h[0]),
        move: (t, h) => t.move(h[0], 0, 0, 1, 1),
        cleanup: (t) => t.cleanup(),
        clear: (t) => t.clear(),
        insertMany: (t) => t.insertMany(new Float32Array(4)),
        moveMany: (t, h) => t.moveMany(new Float64Array([h[0]]), new Float32Array(4)),
        removeMany: (t, h) => t.removeMany(new Float64Array([h[0]])),
      }
      for (const [call, mutate] of Object.entries(mutations)) {
        for (const walk of Object.keys(WALKS)) {
          it(`${call}() inside ${walk}() throws ERR_FLATQUAD_BUSY and changes nothing`, (t) => {
            const { tree, handles } = fixture(Class, small)
            if (!calls(tree, walk)) return t.skip(`${name}.${walk}() calls back nothing yet`)
            const before = tree.toBytes()
            const run = (cb) => WALKS[walk](tree, cb)
            // Thrown out of the callback, it propagates out of the walk.
            throwsLike(() => run(() => mutate(tree, handles)), { ...BUSY, message: new RegExp(`${call}\\(\\) cannot change this ${name} from inside`) })
            // Caught inside the callback, the walk goes on.
            let caught = 0
            run(() => {
              try {
                mutate(tree, handles)
              } catch (e) {
                if (e.code === 'ERR_FLATQUAD_BUSY') caught++
              }
            })
            assert.ok(caught > 0)
            assert.deepEqual(tree.toBytes(), before)
            // After the walk, the same call works.
            mutate(tree, handles)
          })
        }
      }
      it('another tree can be changed inside a callback', () => {
        const { tree } = fixture(Class, small)
        const other = new Class(WORLD)
        tree.queryWith(0, 0, 100, 100, (h) => {
          other.insert(...Object.values(tree.rectOf(h)), tree.idOf(h))
        })
        assert.equal(other.size, tree.query(0, 0, 100, 100).length)
      })
    })
  })
}

/** Runs `script` in a child Node (so an abort would show as its exit status) and checks it exited normally. */
function runChild(script) {
  const child = spawnSync(process.execPath, ['-e', script], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    env: { ...process.env, RUST_BACKTRACE: '0' },
    encoding: 'utf8',
  })
  assert.equal(child.status, 0, `child exited with ${child.status} ${child.signal}: ${child.stderr}`)
  return child
}

describe('panics', () => {
  it('that stop moves halfway finish them: ERR_FLATQUAD_PANIC, every element at its new box, the index not poisoned', () => {
    const script = `
      const flatquad = require('flatquad')
      const out = []
      for (const name of ['Quadtree', 'Grid', 'LooseGrid', 'LooseQuadtree']) {
        for (const onWorker of [false, true]) {
          const t = new flatquad[name]({ x: 0, y: 0, width: 100, height: 100 })
          const n = 2000
          const boxes = new Float64Array(4 * n)
          for (let i = 0; i < n; i++) {
            const x = (i * 37) % 100, y = (i * 53) % 100
            boxes.set([x, y, x + 1, y + 1], 4 * i)
          }
          const handles = t.insertMany(boxes)
          const moved = new Float64Array(4 * n)
          for (let i = 0; i < n; i++) {
            const x = (i * 41 + 13) % 110 - 5, y = (i * 29 + 7) % 110 - 5
            moved.set([x, y, x + 2, y + 2], 4 * i)
          }
          try { t.__panicInMovesForTests(handles, moved, n / 2, onWorker); out.push('no error') } catch (e) { out.push(e.code, /the move was finished/.test(e.message)) }
          let same = 0
          for (let i = 0; i < n; i++) {
            const r = t.rectOf(handles[i])
            if (r.x1 === Math.fround(moved[4 * i]) && r.y2 === Math.fround(moved[4 * i + 3])) same++
          }
          out.push(same === n, t.size, t.query(moved[0], moved[1], moved[2], moved[3]).includes(handles[0]))
          t.moveMany(handles, boxes)
          out.push(t.rectOf(handles[1]).x1 === boxes[4])
        }
      }
      console.log(JSON.stringify(out))
    `
    const child = runChild(script)
    assert.match(child.stderr, /deliberate test panic on a worker thread/)
    const once = ['ERR_FLATQUAD_PANIC', true, true, 2000, true, true]
    assert.deepEqual(JSON.parse(child.stdout), Array(8).fill(once).flat())
  })

  it('become exceptions and never abort the process, on the calling thread or a worker; a panic while changing an index poisons it', () => {
    // In a child process, so an abort would show as its exit status.
    const script = `
      const flatquad = require('flatquad')
      const out = []
      try { flatquad.__panicInExportForTests() } catch (e) { out.push(['export', e instanceof Error, e.message]) }
      for (const name of ['Quadtree', 'Grid', 'LooseGrid', 'LooseQuadtree']) {
        const t = new flatquad[name]({ x: 0, y: 0, width: 10, height: 10 })
        const h = t.insert(1, 1, 2, 2)
        try { t.__panicForTests(false) } catch (e) { out.push(['read', e.code]) }
        out.push(['after read panic', t.size, t.query(0, 0, 10, 10).length])
        try { t.__panicForTests(true) } catch (e) { out.push(['write', e.code]) }
        for (const call of [() => t.size, () => t.query(0, 0, 1, 1), () => t.insert(0, 0, 1, 1), () => t.remove(h)]) {
          try { call(); out.push(['poisoned', 'no error']) } catch (e) { out.push(['poisoned', e.code, e.message.startsWith('this ' + name + ' is unusable')]) }
        }
        const fresh = new flatquad[name]({ x: 0, y: 0, width: 10, height: 10 })
        fresh.insert(0, 0, 1, 1)
        out.push(['fresh', fresh.size])
        // The same on a worker thread of the batch calls' pool.
        const w = new flatquad[name]({ x: 0, y: 0, width: 10, height: 10 })
        w.insert(1, 1, 2, 2)
        try { w.__panicForTests(false, true) } catch (e) { out.push(['worker read', e.code]) }
        out.push(['after worker read panic', w.size, w.query(0, 0, 10, 10).length])
        try { w.__panicForTests(true, true) } catch (e) { out.push(['worker write', e.code]) }
        try { w.size; out.push(['worker poisoned', 'no error']) } catch (e) { out.push(['worker poisoned', e.code]) }
      }
      console.log(JSON.stringify(out))
    `
    const child = runChild(script)
    assert.match(child.stderr, /deliberate test panic/) // Rust's panic message, on stderr
    // The worker-thread panics did happen on a worker (the hook says where it ran).
    assert.match(child.stderr, /deliberate test panic on a worker thread/)
    assert.doesNotMatch(child.stderr, /on the calling thread/)
    const perClass = [
      ['read', 'ERR_FLATQUAD_PANIC'],
      ['after read panic', 1, 1],
      ['write', 'ERR_FLATQUAD_PANIC'],
      ['poisoned', 'ERR_FLATQUAD_POISONED', true],
      ['poisoned', 'ERR_FLATQUAD_POISONED', true],
      ['poisoned', 'ERR_FLATQUAD_POISONED', true],
      ['poisoned', 'ERR_FLATQUAD_POISONED', true],
      ['fresh', 1],
      ['worker read', 'ERR_FLATQUAD_PANIC'],
      ['after worker read panic', 1, 1],
      ['worker write', 'ERR_FLATQUAD_PANIC'],
      ['worker poisoned', 'ERR_FLATQUAD_POISONED'],
    ]
    assert.deepEqual(JSON.parse(child.stdout), [
      ['export', true, 'deliberate test panic outside any guard'],
      ...perClass,
      ...perClass,
      ...perClass,
      ...perClass,
    ])
  })

  it('a panic while a PairTracker updates poisons the tracker, not its index or another tracker', () => {
    const script = `
      const { Grid, Octree, PairTracker } = require('flatquad')
      const out = []
      for (const [index, box] of [
        [new Grid({ x: 0, y: 0, width: 10, height: 10 }), [1, 1, 3, 3]],
        [new Octree({ x1: 0, y1: 0, z1: 0, x2: 10, y2: 10, z2: 10 }), [1, 1, 1, 3, 3, 3]],
      ]) {
        index.insert(...box)
        index.insert(...box)
        for (const onWorker of [false, true]) {
          const tracker = new PairTracker(index)
          const other = new PairTracker(index)
          out.push(['began', tracker.update().began.length])
          try { tracker.__panicForTests(onWorker) } catch (e) { out.push(['panic', e.code]) }
          for (const call of [() => tracker.update(), () => tracker.reset(), () => tracker.pairCount]) {
            try { call(); out.push(['poisoned', 'no error']) } catch (e) { out.push(['poisoned', e.code, /PairTracker is unusable/.test(e.message)]) }
          }
          out.push(['other', other.update().began.length, other.pairCount, index.pairs().length])
        }
      }
      console.log(JSON.stringify(out))
    `
    const child = runChild(script)
    // Both kinds of panic happened: on this thread and on a worker (the hook
    // says where it ran; a worker's names itself).
    assert.equal(child.stderr.match(/deliberate test panic on a worker thread/g)?.length, 2)
    assert.equal(child.stderr.match(/deliberate test panic\n/g)?.length, 2)
    const once = [
      ['began', 2],
      ['panic', 'ERR_FLATQUAD_PANIC'],
      ['poisoned', 'ERR_FLATQUAD_POISONED', true],
      ['poisoned', 'ERR_FLATQUAD_POISONED', true],
      ['poisoned', 'ERR_FLATQUAD_POISONED', true],
      ['other', 2, 1, 2],
    ]
    assert.deepEqual(JSON.parse(child.stdout), [...once, ...once, ...once, ...once])
  })
})
