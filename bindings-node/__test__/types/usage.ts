// Compiled (not run) by types.test.mjs with `tsc --strict`: the typings accept
// what the README and the docs show, and refuse what the addon would throw on.
import {
  Grid,
  LooseGrid,
  LooseQuadtree,
  Octree,
  PairTracker,
  Quadtree,
  fromBytes,
  type PairEvents,
  type Filter,
  type Neighbor,
  type RayHit,
  type Handle,
  type FlatquadError,
  type NodeInfo,
  type Rectangle,
  type SpatialIndex,
  type Stats,
  type BulkResult,
  type NearestManyResult,
  type QueryManyResult,
  type RayCastManyResult,
} from 'flatquad'

const tree = new Quadtree({ x: 0, y: 0, width: 100, height: 100 }, { maxElements: 8, maxDepth: 6 })
const a: Handle = tree.insert(1, 2, 3, 4, 5)
const b: number = tree.insert(1, 2, 3, 4)
tree.move(a, 0, 0, 1, 1)
const hits: Float64Array = tree.query(0, 0, 10, 10, b)
const at: Float64Array = tree.queryPoint(1, 1, null)
tree.queryWith(0, 0, 10, 10, (h: Handle) => h !== a)
tree.queryWith(0, 0, 10, 10, () => {})
const pairs: Float64Array = tree.pairs()
const id: number = tree.idOf(a)
const { x1, y1, x2, y2 } = tree.rectOf(a)
const live: boolean = tree.has(a)
const size: number = tree.size
const stats: Stats = tree.stats()
tree.traverse((node: NodeInfo) => (node.isLeaf ? undefined : node.depth < 3))
const { rects, depths, isLeaf, counts } = tree.nodes()
const drawn: [Float32Array, Uint8Array, Uint8Array, Uint32Array] = [rects, depths, isLeaf, counts]
const handles: Float64Array = tree.insertMany(new Float32Array(8), new Uint32Array(2))
tree.insertMany(new Float64Array(4))
tree.moveMany(handles, new Float64Array(8))
const { offsets, hits: many }: { offsets: Uint32Array; hits: Float64Array } = tree.queryMany(new Float32Array(8), handles)
tree.removeMany(handles)
tree.cleanup()
const copy: Quadtree = Quadtree.fromBytes(tree.toBytes())
const world: Rectangle = tree.world
const kind: 'Quadtree' = tree.kind
const depth: number = tree.maxDepth + tree.maxElements
tree.clear()
try {
  tree.remove(a)
} catch (e) {
  const error = e as FlatquadError
  const code: 'ERR_FLATQUAD_INVALID_HANDLE' | string = error.code
  const index: number | undefined = error.index
  void [code, index]
}
void [hits, at, pairs, id, x1, y1, x2, y2, live, size, stats, drawn, offsets, many, copy, world, kind, depth]

// Every class: the same methods, its own options and getters.
const corners = { x1: 0, y1: 0, x2: 100, y2: 100 }
const grids = [
  new Grid(corners),
  new Grid(corners, { columns: 8, rows: 4 }),
  new Grid({ x: 0, y: 0, width: 100, height: 100 }, { cellSize: 4 }),
  new Grid(corners, { cellSize: [4, 2] }),
]
const cells: number = grids[0].columns * grids[0].rows * grids[0].cellWidth * grids[0].cellHeight
const loose = [new LooseGrid(corners), new LooseGrid(corners, { columns: 8, rows: 8, tightColumns: 4, tightRows: 4 }), new LooseGrid(corners, { cellSize: 8 })]
const tight: number = loose[0].tightColumns * loose[0].tightRows * loose[0].columns * loose[0].rows
const all: SpatialIndex[] = [tree, ...grids, ...loose]
for (const index of all) {
  const g: Handle = index.insert(0, 0, 1, 1, 2)
  const near: Float64Array = index.overlapping(g)
  const batch: { offsets: Uint32Array; hits: Float64Array } = index.queryMany(new Float64Array(4), new Float64Array([g]))
  void [near, batch]
}
const gridCopy: Grid = Grid.fromBytes(grids[1].toBytes())
const looseCopy: LooseGrid = LooseGrid.fromBytes(loose[1].toBytes())
const any: SpatialIndex = fromBytes(grids[1].toBytes())
if (any.kind === 'Grid') {
  const narrowed: number = any.cellWidth // the kind tells which class it is
  void narrowed
}
void [cells, tight, gridCopy, looseCopy]

// Collision filters: one element, a batch, and a mask on the queries.
const h0: Handle = grids[0].insert(0, 0, 1, 1)
grids[0].setFilter(h0, 1 << 0, ~(1 << 1))
const filter: Filter = grids[0].filter(h0)
const bits: number = filter.category | filter.mask
grids[0].setFilters(new Float64Array([h0]), new Uint32Array([1]), new Uint32Array([2]))
const masked: Float64Array = grids[0].query(0, 0, 1, 1, null, 1)
grids[0].queryPoint(0, 0, undefined, 1)
grids[0].queryWith(0, 0, 1, 1, () => {}, null, 1)
void [bits, masked]

// Nearest neighbours, circles and rays.
const near: Neighbor[] = grids[0].nearest(1, 1)
const within: Neighbor[] = grids[0].nearest(1, 1, 3, { maxDistance: 5, mask: 1, filter: (h: Handle) => h !== h0 })
const { handle: nh, id: nid, distance: nd } = near[0]
const batchNear: { offsets: Uint32Array; handles: Float64Array; ids: Uint32Array; distances: Float64Array } = grids[0].nearestMany(new Float32Array(4), 2, { maxDistance: 1 })
const circle: Float64Array = grids[0].queryCircle(1, 1, 2, 1)
const circles: { offsets: Uint32Array; hits: Float64Array } = grids[0].queryCircleMany(new Float64Array(4), new Float64Array(2))
const hit: RayHit | null = grids[0].rayCast(0, 0, 1, 0, 10)
const hitAll: RayHit[] = grids[0].rayCastAll(0, 0, 1, 0, 10, 1)
grids[0].rayCastWith(0, 0, 1, 0, 10, (h: RayHit) => h.distance)
grids[0].rayCastWith(0, 0, 1, 0, 10, (h: RayHit) => h.fraction < 0.5)
grids[0].rayCastWith(0, 0, 1, 0, 10, () => {})
void [within, nh, nid, nd, batchNear, circle, circles, hit, hitAll]
const octree = new Octree({ x1: 0, y1: 0, z1: 0, x2: 1, y2: 1, z2: 1 })
const near3: Neighbor[] = octree.nearest(0, 0, 0, 2, { maxDistance: 1 })
const sphere: Float64Array = octree.queryCircle(0, 0, 0, 1)
const hit3: RayHit | null = octree.rayCast(0, 0, 0, 1, 1, 1, 2, 1)
octree.rayCastWith(0, 0, 0, 1, 0, 0, 2, () => false)
void [near3, sphere, hit3, octree.nearestMany(new Float64Array(3)), octree.queryCircleMany(new Float64Array(3), new Float64Array(1))]

// The batch calls answered on a worker: promises of their twins' results.
async function onAWorker(): Promise<void> {
  const pairsLater: Float64Array = await grids[0].pairsAsync()
  const rowsLater: { offsets: Uint32Array; hits: Float64Array } = await tree.queryManyAsync(new Float32Array(8), handles)
  const neighboursLater: QueryManyResult = await tree.overlappingManyAsync(handles)
  const nearLater: NearestManyResult = await octree.nearestManyAsync(new Float64Array(3), 2, { maxDistance: 1 })
  const raysLater: RayCastManyResult = await octree.rayCastManyAsync(new Float64Array(3), new Float64Array([1, 0, 0]), 5)
  const circlesLater: QueryManyResult = await grids[0].queryCircleManyAsync(new Float64Array(2), new Float64Array(1), 1)
  const bulkLater: BulkResult = await tree.queryBulkAsync(new Float64Array(4), true)
  void [pairsLater, rowsLater, neighboursLater, nearLater, raysLater, circlesLater, bulkLater]
}
void onAWorker
// @ts-expect-error: the answer is a promise
const notYet: Float64Array = tree.pairsAsync()
void notYet
// Into an array kept between frames; null is no array.
const kept = new Float64Array(64)
const into: Float64Array = tree.pairs(kept)
void [into, octree.pairs(null)]
// @ts-expect-error: handles are 64-bit floats
tree.pairs(new Float32Array(64))
// Rows into kept arrays, either left out.
const rowsOut = { offsets: new Uint32Array(8), hits: new Float64Array(64) }
const rowsInto: QueryManyResult = tree.overlappingMany(new Float64Array(1), rowsOut)
void [rowsInto, tree.queryMany(new Float32Array(4), null, { hits: rowsOut.hits }), octree.queryCircleMany(new Float64Array(3), new Float64Array(1), null, rowsOut)]
// @ts-expect-error: offsets are a Uint32Array
tree.overlappingMany(new Float64Array(1), { offsets: new Float64Array(8) })

// Contact events over any class, the octree included.
const tracker = new PairTracker(tree)
const events: PairEvents = tracker.update()
const began: Float64Array = events.began
const ended: Float64Array = new PairTracker(octree).update().ended
const tracked: Quadtree | Grid | LooseGrid | LooseQuadtree | Octree = tracker.index
const pairCount: number = tracker.pairCount
tracker.reset()
void [began, ended, tracked, pairCount]
// @ts-expect-error: a tracker follows an index
new PairTracker({ x1: 0, y1: 0, x2: 1, y2: 1 })
// @ts-expect-error: the events are read-only results, not a method's arguments
tracker.update(tree)

// @ts-expect-error: coordinates are numbers
tree.insert('1', 2, 3, 4)
// @ts-expect-error: batch rectangles are typed arrays
tree.insertMany([0, 0, 1, 1])
// @ts-expect-error: handles are a Float64Array
tree.removeMany(new Uint32Array(1))
// @ts-expect-error: the world is { x1, y1, x2, y2 } or { x, y, width, height }
new Quadtree({ x1: 0, y1: 0, x2: 1 })
// @ts-expect-error: a grid's options are { columns, rows } or { cellSize }
new Grid(corners, { columns: 8 })
// @ts-expect-error: a loose grid's cells are square
new LooseGrid(corners, { cellSize: [4, 2] })
// @ts-expect-error: each class has its own options
new Grid(corners, { maxDepth: 3 })
// @ts-expect-error: no such option
new Quadtree({ x: 0, y: 0, width: 1, height: 1 }, { maxLeaf: 3 })
// @ts-expect-error: a batch's filter bits are a Uint32Array
tree.setFilters(new Float64Array(1), [1], new Uint32Array(1))
// @ts-expect-error: the batch takes no filter callback
tree.nearestMany(new Float64Array(2), 1, { filter: () => true })
// @ts-expect-error: a ray has a length
tree.rayCast(0, 0, 1, 0)
// @ts-expect-error: the test hooks are not part of the API
tree.__panicForTests(true)
// @ts-expect-error: the test hooks are not part of the API
tree.__panicAsyncForTests(true)
