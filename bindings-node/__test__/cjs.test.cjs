// `require` from CommonJS, with node:test's CommonJS API.
const { it } = require('node:test')
const assert = require('node:assert/strict')

it('require gives every class and fromBytes', () => {
  const flatquad = require('flatquad')
  for (const name of ['Quadtree', 'Grid', 'LooseGrid', 'LooseQuadtree']) {
    const Class = flatquad[name]
    assert.equal(typeof Class, 'function', name)
    const index = new Class({ x: 0, y: 0, width: 100, height: 100 })
    const h = index.insert(1, 2, 3, 4, 5)
    assert.equal(index.idOf(h), 5)
    assert.deepEqual(index.rectOf(h), { x1: 1, y1: 2, x2: 3, y2: 4 })
    assert.equal(index.kind, name)
    assert.ok(flatquad.fromBytes(index.toBytes()) instanceof Class)
  }
  assert.equal(require.resolve('flatquad'), require.resolve('../index.js'))
})
