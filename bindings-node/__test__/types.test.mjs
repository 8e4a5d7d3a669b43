// The typings (index.d.ts) compile under `tsc --strict` and describe the API:
// __test__/types/usage.ts uses every call and expects errors where the addon throws.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const root = fileURLToPath(new URL('..', import.meta.url))

it('index.d.ts type-checks the documented usage', () => {
  const tsc = require.resolve('typescript/bin/tsc')
  const args = [
    tsc, '--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext',
    '--moduleResolution', 'nodenext', '--skipLibCheck', 'false',
    '__test__/types/usage.ts', 'index.d.ts',
  ]
  const result = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' })
  assert.equal(result.status, 0, `tsc failed:\n${result.stdout}${result.stderr}`)
})
