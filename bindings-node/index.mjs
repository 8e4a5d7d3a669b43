// The ES module entry point: re-exports the CommonJS entry point (index.js:
// napi-rs's generated loader, native.js, with its one-query calls), so `import { Quadtree } from 'flatquad'` and
// `require('flatquad')` load the same addon and share the same classes.
import binding from './index.js'

export const { Quadtree, Grid, LooseGrid, LooseQuadtree, Octree, PairTracker, fromBytes, joinBounds } = binding
export default binding
