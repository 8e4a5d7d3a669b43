// The package's entry point: the addon as napi-rs's generated loader
// (native.js) finds it, with each class's one-query calls (`query`,
// `queryPoint`, `queryCircle`, `overlapping`, `nearest`, `rayCast`,
// `rayCastAll`, `boxCast`, `boxCastAll`), one-element calls (`insert`, `move`,
// `remove`, `idOf`, `has`, `rectOf`) and the `size` and `margin` accessors
// replaced by the addon's leaner twins (src/one_query.rs). Those answer
// without napi-rs's per-call borrow of the object. The ones answering a
// number, a boolean or nothing return it and are installed as they are; the
// others write the numbers of their answer into `scratch`, a buffer shared
// with the addon, returning how many handles, neighbours, hits or
// coordinates (or, when more than it holds, the method's own answer), and a
// wrapper here builds the answer in V8's own heap, where the methods' arrays
// were allocated outside it and their objects built through Node-API. The
// methods keep napi-rs's attributes (writable, configurable, not enumerable,
// length 0), the accessors theirs, and all return the same answers as the
// napi-rs code they replace; a wrong receiver throws V8's TypeError
// ("Illegal invocation"), the getters and setter included.
'use strict'

const binding = require('./native.js')

// The main thread's batch calls start on it at once, as thread 0 of the pool
// they run on, instead of each waking a sleeping worker (src/lib.rs,
// `__joinThreadPool`); a worker_threads thread leaves the pool to it.
if (require('node:worker_threads').isMainThread) binding.__joinThreadPool()

// Taken at load, so that JavaScript replacing them later cannot run between
// the addon's write into `scratch` and the copy.
const Float64ArrayOfOurs = Float64Array
const { apply } = Reflect

/** The first `count` numbers of `scratch` (a query's handles), in an array of their own. */
function numbersOf(count, scratch) {
  const numbers = new Float64ArrayOfOurs(count)
  for (let i = 0; i < count; i++) numbers[i] = scratch[i]
  return numbers
}

/** The neighbours of `found` triples (handle, id, distance) of `scratch`. */
function neighboursOf(found, scratch) {
  // Copied out first: no code of anyone's runs until the copy is whole,
  // whatever building the objects calls.
  const numbers = numbersOf(3 * found, scratch)
  const neighbours = []
  for (let i = 0; i < found; i++) {
    neighbours[i] = { handle: numbers[3 * i], id: numbers[3 * i + 1], distance: numbers[3 * i + 2] }
  }
  return neighbours
}

/** The hit in `scratch` (handle, id, distance, fraction) if `found` is 1, else null. */
function hitOf(found, scratch) {
  if (found === 0) return null
  const handle = scratch[0]
  const id = scratch[1]
  const distance = scratch[2]
  const fraction = scratch[3]
  return { handle, id, distance, fraction }
}

/** The box of `count` corner coordinates in `numbers` (low corner, then high), as the methods return it. */
function boxOf(count, numbers) {
  if (count === 4) return { x1: numbers[0], y1: numbers[1], x2: numbers[2], y2: numbers[3] }
  return { x1: numbers[0], y1: numbers[1], z1: numbers[2], x2: numbers[3], y2: numbers[4], z2: numbers[5] }
}

/** The hits of `found` quadruples (handle, id, distance, fraction) of `scratch`. */
function hitsOf(found, scratch) {
  // Copied out first, as the neighbours are.
  const numbers = numbersOf(4 * found, scratch)
  const hits = []
  for (let i = 0; i < found; i++) {
    hits[i] = { handle: numbers[4 * i], id: numbers[4 * i + 1], distance: numbers[4 * i + 2], fraction: numbers[4 * i + 3] }
  }
  return hits
}

/** How each call's count in `scratch` becomes its answer, by the call's name. */
const ANSWERS = { __proto__: null, nearest: neighboursOf, rayCast: hitOf, boxCast: hitOf, rayCastAll: hitsOf, boxCastAll: hitsOf }

/** How a call's own answer (past the buffer, or with it detached) becomes the method's, where it differs. */
const OWN = { __proto__: null, boxCast: (hits) => hits[0] ?? null }

/** The calls whose twin returns the answer itself: installed as they are. */
const DIRECT = new Set(['insert', 'move', 'remove', 'idOf', 'has'])

/** The class method `name` answering through `native` (see above). */
function oneQuery(name, native, scratch) {
  if (DIRECT.has(name)) return native
  if (name === 'rectOf') {
    // A box's corners: in `scratch`, or in an array of their own when
    // JavaScript detached it.
    const rectOf = {
      rectOf(handle) {
        const found = apply(native, this, [handle])
        return typeof found === 'number' ? boxOf(found, scratch) : boxOf(found.length, found)
      },
    }.rectOf
    Object.defineProperty(rectOf, 'length', { value: 0 })
    return rectOf
  }
  const answerOf = ANSWERS[name] ?? numbersOf
  const ownOf = OWN[name]
  if (ownOf !== undefined) {
    // Eleven parameters: an Octree's box cast (box, motion, mask and omit).
    const method = {
      [name](a, b, c, d, e, f, g, h, i, j, k) {
        const found = apply(native, this, [a, b, c, d, e, f, g, h, i, j, k])
        return typeof found === 'number' ? answerOf(found, scratch) : ownOf(found)
      },
    }[name]
    Object.defineProperty(method, 'length', { value: 0 })
    return method
  }
  // Eight parameters: the most the other calls take (an Octree's box, omit
  // and mask, or its ray, maxLength and mask), but `boxCastAll`'s eleven;
  // the addon reads the ones its call takes, as the methods did.
  const method =
    name === 'boxCastAll'
      ? {
          [name](a, b, c, d, e, f, g, h, i, j, k) {
            const found = apply(native, this, [a, b, c, d, e, f, g, h, i, j, k])
            return typeof found === 'number' ? answerOf(found, scratch) : found
          },
        }[name]
      : {
          [name](a, b, c, d, e, f, g, h) {
            const found = apply(native, this, [a, b, c, d, e, f, g, h])
            return typeof found === 'number' ? answerOf(found, scratch) : found
          },
        }[name]
  Object.defineProperty(method, 'length', { value: 0 })
  return method
}

// The hidden export is there the first time this file runs in an environment
// (it deletes it); a second run (a module registry reset, as Jest's) finds
// the classes already set up.
const calls = binding.__oneQueryCalls
if (calls !== undefined) {
  delete binding.__oneQueryCalls
  const { scratch, ...classes } = calls
  for (const [className, methods] of Object.entries(classes)) {
    const prototype = binding[className].prototype
    for (const [call, native] of Object.entries(methods)) {
      // `name=` is the setter of `name`; a getter's name is a property with a getter.
      const name = call.endsWith('=') ? call.slice(0, -1) : call
      const described = Object.getOwnPropertyDescriptor(prototype, name)
      let replaced
      if (call !== name) replaced = { set: native }
      else if (described.get !== undefined) replaced = { get: native }
      else replaced = { value: oneQuery(name, native, scratch) }
      Object.defineProperty(prototype, name, { ...described, ...replaced })
    }
  }
}

module.exports = binding
