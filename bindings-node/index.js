// The package's entry point: the addon as napi-rs's generated loader
// (native.js) finds it, with each class's one-query calls (`query`,
// `queryPoint`, `queryCircle`, `overlapping`) replaced by the addon's leaner
// twins (src/one_query.rs). Those answer without napi-rs's per-call borrow of
// the object and write the handles they find into `scratch`, a buffer shared
// with the addon, returning how many (or, when more than it holds, a
// Float64Array of their own); the copy made here lives in V8's own heap, where
// the methods' arrays were allocated outside it. The wrappers are methods as
// napi-rs defines them (writable, configurable, not enumerable, length 0), and
// return the same arrays as the methods they replace.
'use strict'

const binding = require('./native.js')

// Taken at load, so that JavaScript replacing them later cannot run between
// the addon's write into `scratch` and the copy.
const Float64ArrayOfOurs = Float64Array
const { apply } = Reflect

/** The class method `name` answering through `native` (see above). */
function oneQuery(name, native, scratch) {
  // Eight parameters: the most a call takes (an Octree's box, omit, mask);
  // the addon reads the ones its call takes, as the methods did.
  const method = {
    [name](a, b, c, d, e, f, g, h) {
      const found = apply(native, this, [a, b, c, d, e, f, g, h])
      if (typeof found !== 'number') return found
      const handles = new Float64ArrayOfOurs(found)
      for (let i = 0; i < found; i++) handles[i] = scratch[i]
      return handles
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
    for (const [name, native] of Object.entries(methods)) {
      const described = Object.getOwnPropertyDescriptor(prototype, name)
      Object.defineProperty(prototype, name, { ...described, value: oneQuery(name, native, scratch) })
    }
  }
}

module.exports = binding
