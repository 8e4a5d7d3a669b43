// The ES module entry point: re-exports the CommonJS loader that napi-rs
// generates (index.js), so `import { Quadtree } from 'flatquad'` and
// `require('flatquad')` load the same addon and share one class.
import binding from './index.js'

export const { Quadtree } = binding
export default binding
