// `import` from ES modules: named and default exports, and the same classes as
// `require` gives (one addon, loaded once). Also: the typings match the classes.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'
import flatquad, { Grid, LooseGrid, LooseQuadtree, PairTracker, Quadtree, fromBytes } from 'flatquad'

const require = createRequire(import.meta.url)
const CLASSES = { Quadtree, Grid, LooseGrid, LooseQuadtree }

it('named and default imports give the classes', () => {
  for (const [name, Class] of Object.entries(CLASSES)) {
    assert.equal(typeof Class, 'function')
    assert.equal(flatquad[name], Class)
    const index = new Class({ x: 0, y: 0, width: 10, height: 10 })
    assert.ok(index instanceof Class)
    assert.equal(index.size, 0)
  }
  assert.equal(flatquad.fromBytes, fromBytes)
  assert.equal(flatquad.PairTracker, PairTracker)
})

it('import and require load the same addon', () => {
  for (const [name, Class] of Object.entries(CLASSES)) {
    assert.equal(require('flatquad')[name], Class)
    const index = new (require('flatquad')[name])({ x1: 0, y1: 0, x2: 1, y2: 1 })
    assert.ok(index instanceof Class)
  }
  assert.equal(require('flatquad').fromBytes, fromBytes)
  assert.equal(require('flatquad').PairTracker, PairTracker)
})

it('package.json points at files that exist', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
  const entry = pkg.exports['.']
  for (const file of [pkg.main, pkg.types, entry.import, entry.require, entry.types]) {
    assert.ok(readFileSync(new URL(`../${file}`, import.meta.url)).length > 0, file)
  }
})

it('index.d.ts declares every method and getter of each class, and nothing it lacks', () => {
  const dts = readFileSync(new URL('../index.d.ts', import.meta.url), 'utf8')
  const shared = {}
  for (const [name, Class] of Object.entries(CLASSES)) {
    const body = dts.match(new RegExp(`export declare class ${name} \\{([\\s\\S]*?)\\n\\}`))[1]
    const declared = new Set([...body.matchAll(/^ {2}(?:static |get )?(\w+)\(/gm)].map((m) => m[1]))
    declared.delete('constructor')
    const runtime = new Set(
      [...Object.getOwnPropertyNames(Class.prototype), ...Object.getOwnPropertyNames(Class)]
        .filter((key) => !['constructor', 'length', 'name', 'prototype', 'arguments', 'caller'].includes(key) && !key.startsWith('__')),
    )
    assert.deepEqual([...declared].sort(), [...runtime].sort(), name)
    assert.match(body, new RegExp(`get kind\\(\\): '${name}'`))
    assert.match(body, new RegExp(`static fromBytes\\(bytes: Uint8Array\\): ${name}$`, 'm'))
    shared[name] = declared
  }
  // The shared API is the same on every class: each adds only its parameters.
  const common = [...shared.Quadtree].filter((key) => shared.Grid.has(key) && shared.LooseGrid.has(key))
  const SHARED = 'kind size world margin insert remove move cleanup clear query queryPoint queryWith pairs overlapping overlappingMany setFilter filter setFilters queryCircle queryCircleMany nearest nearestMany rayCast rayCastAll rayCastMany rayCastWith boxCast boxCastAll queryMany queryBulk join pairsAsync overlappingManyAsync queryManyAsync queryCircleManyAsync nearestManyAsync rayCastManyAsync queryBulkAsync idOf rectOf has handles idsOf stats traverse nodes insertMany moveMany removeMany validate toBytes fromBytes'
  assert.deepEqual(common.sort(), SHARED.split(' ').sort())
  assert.deepEqual([...shared.Quadtree].filter((k) => !common.includes(k)).sort(), ['maxDepth', 'maxElements'])
  assert.deepEqual([...shared.LooseQuadtree].filter((k) => !common.includes(k)).sort(), ['maxDepth', 'maxElements', 'maxExtent'])
  assert.deepEqual([...shared.Grid].filter((k) => !common.includes(k)).sort(), ['cellHeight', 'cellWidth', 'columns', 'rows'])
  assert.deepEqual([...shared.LooseGrid].filter((k) => !common.includes(k)).sort(), ['columns', 'rows', 'tightColumns', 'tightRows'])
  assert.match(dts, /export declare function fromBytes\(bytes: Uint8Array\): Quadtree \| Grid \| LooseGrid \| LooseQuadtree/)
  assert.match(dts, /export type Handle = number/)
  // PairTracker: its members, declared and at run time.
  const body = dts.match(/export declare class PairTracker \{([\s\S]*?)\n\}/)[1]
  const declared = [...body.matchAll(/^ {2}(?:get )?(\w+)\(/gm)].map((m) => m[1]).filter((k) => k !== 'constructor')
  // The test hooks (`__...`) are not part of the API.
  const runtime = Object.getOwnPropertyNames(PairTracker.prototype).filter((k) => k !== 'constructor' && !k.startsWith('__'))
  assert.deepEqual(declared.sort(), runtime.sort())
  assert.deepEqual(runtime.sort(), ['index', 'pairCount', 'reset', 'update'])
  assert.match(body, /constructor\(index: Quadtree \| Grid \| LooseGrid \| LooseQuadtree \| Octree\)/)
})
