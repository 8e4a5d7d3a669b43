// Compiled (not run) by types.test.mjs with `tsc --strict`: the typings accept
// what the README and the docs show, and refuse what the addon would throw on.
import { Quadtree, type Handle, type FlatquadError, type NodeInfo, type Stats } from 'flatquad'

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
tree.clear()
try {
  tree.remove(a)
} catch (e) {
  const error = e as FlatquadError
  const code: 'ERR_FLATQUAD_INVALID_HANDLE' | string = error.code
  const index: number | undefined = error.index
  void [code, index]
}
void [hits, at, pairs, id, x1, y1, x2, y2, live, size, stats, drawn, offsets, many, copy]

// @ts-expect-error: coordinates are numbers
tree.insert('1', 2, 3, 4)
// @ts-expect-error: batch rectangles are typed arrays
tree.insertMany([0, 0, 1, 1])
// @ts-expect-error: handles are a Float64Array
tree.removeMany(new Uint32Array(1))
// @ts-expect-error: the world is { x, y, width, height }
new Quadtree({ x1: 0, y1: 0, x2: 1, y2: 1 })
// @ts-expect-error: no such option
new Quadtree({ x: 0, y: 0, width: 1, height: 1 }, { maxLeaf: 3 })
// @ts-expect-error: the test hooks are not part of the API
tree.__panicForTests(true)
