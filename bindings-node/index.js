// The package's entry point: the addon as napi-rs's generated loader
// (native.js) finds it, with each class's `query` and `queryPoint` replaced by
// the addon's leaner twins (src/one_query.rs). Those answer one query without
// napi-rs's per-call borrow of the object and write the handles they find into
// `scratch`, a buffer shared with the addon, returning how many (or, when more
// than it holds, a Float64Array of their own); the copy made here lives in
// V8's own heap, where the methods' arrays were allocated outside it. The
// wrappers are methods as napi-rs defines them (writable, configurable,
// not enumerable), and return the same arrays as the methods they replace.
'use strict'

const binding = require('./native.js')

const { scratch, ...classes } = binding.__oneQueryCalls
delete binding.__oneQueryCalls

/** The class method `name` answering through `native` (see above). */
function oneQuery(name, native) {
  // Eight parameters: the most a call takes (an Octree's box, omit, mask);
  // the addon reads the ones its class takes, as the methods did.
  const method = {
    [name](a, b, c, d, e, f, g, h) {
      const found = native.call(this, a, b, c, d, e, f, g, h)
      if (typeof found !== 'number') return found
      const handles = new Float64Array(found)
      for (let i = 0; i < found; i++) handles[i] = scratch[i]
      return handles
    },
  }[name]
  return method
}

for (const [className, calls] of Object.entries(classes)) {
  const prototype = binding[className].prototype
  for (const [name, native] of Object.entries(calls)) {
    const described = Object.getOwnPropertyDescriptor(prototype, name)
    Object.defineProperty(prototype, name, { ...described, value: oneQuery(name, native) })
  }
}

module.exports = binding
