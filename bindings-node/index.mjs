// The ES module entry point: re-exports the CommonJS loader that napi-rs
// generates (index.js), so `import { Quadtree } from 'flatquad'` and
// `require('flatquad')` load the same addon and share the same classes.
import binding from './index.js'

export const { Quadtree, Grid, LooseGrid, LooseQuadtree, Octree, PairTracker, fromBytes, joinBounds } = binding
export default binding
