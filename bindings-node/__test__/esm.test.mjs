// `import` from ES modules: named and default exports, and the same class as
// `require` gives (one addon, loaded once). Also: the typings match the class.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'
import flatquad, { Quadtree } from 'flatquad'

const require = createRequire(import.meta.url)

it('named and default imports give the class', () => {
  assert.equal(typeof Quadtree, 'function')
  assert.equal(flatquad.Quadtree, Quadtree)
  const tree = new Quadtree({ x: 0, y: 0, width: 10, height: 10 })
  assert.ok(tree instanceof Quadtree)
  assert.equal(tree.size, 0)
})

it('import and require load the same addon', () => {
  assert.equal(require('flatquad').Quadtree, Quadtree)
  const tree = new (require('flatquad').Quadtree)({ x: 0, y: 0, width: 1, height: 1 })
  assert.ok(tree instanceof Quadtree)
})

it('package.json points at files that exist', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
  const entry = pkg.exports['.']
  for (const file of [pkg.main, pkg.types, entry.import, entry.require, entry.types]) {
    assert.ok(readFileSync(new URL(`../${file}`, import.meta.url)).length > 0, file)
  }
})

it('index.d.ts declares every method and getter of the class, and nothing it lacks', () => {
  const dts = readFileSync(new URL('../index.d.ts', import.meta.url), 'utf8')
  const body = dts.match(/export declare class Quadtree \{([\s\S]*?)\n\}/)[1]
  const declared = new Set([...body.matchAll(/^ {2}(?:static |get )?(\w+)\(/gm)].map((m) => m[1]))
  declared.delete('constructor')
  const runtime = new Set(
    [...Object.getOwnPropertyNames(Quadtree.prototype), ...Object.getOwnPropertyNames(Quadtree)]
      .filter((name) => !['constructor', 'length', 'name', 'prototype', 'arguments', 'caller'].includes(name) && !name.startsWith('__')),
  )
  assert.deepEqual([...declared].sort(), [...runtime].sort())
  assert.match(dts, /export type Handle = number/)
})
