// `require` from CommonJS, with node:test's CommonJS API.
const { it } = require('node:test')
const assert = require('node:assert/strict')

it('require gives the class', () => {
  const flatquad = require('flatquad')
  const { Quadtree } = flatquad
  assert.equal(typeof Quadtree, 'function')
  const tree = new Quadtree({ x: 0, y: 0, width: 100, height: 100 })
  const h = tree.insert(1, 2, 3, 4, 5)
  assert.equal(tree.idOf(h), 5)
  assert.deepEqual(tree.rectOf(h), { x1: 1, y1: 2, x2: 3, y2: 4 })
  assert.equal(require.resolve('flatquad'), require.resolve('../index.js'))
})
