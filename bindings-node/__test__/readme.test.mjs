// The README's Node example, extracted from between its section markers and run
// as written (as an ES module, from this package's folder so 'flatquad' resolves
// here); and the first example of this package's own README.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const root = new URL('../', import.meta.url)

it("the README's Node example runs as written", () => {
  const readme = readFileSync(new URL('../README.md', root), 'utf8')
  const section = readme.match(/<!-- section:node -->([\s\S]*?)<!-- \/section:node -->/)
  assert.ok(section, 'README.md has no node section')
  const example = section[1].match(/```js\n([\s\S]*?)```/)
  assert.ok(example, 'the node section has no js example')
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', example[1]], {
    cwd: fileURLToPath(root),
    encoding: 'utf8',
  })
  // What the comments in the example say it prints.
  const lines = out.trim().split('\n')
  assert.match(lines[0], /^Float64Array\(1\) \[ \d+ \]$/)
  assert.deepEqual(lines.slice(1), ['1', 'Uint32Array(1) [ 2 ]', 'ERR_FLATQUAD_INVALID_HANDLE'])
})

it("the README's Node 3D example runs as written", () => {
  const readme = readFileSync(new URL('../README.md', root), 'utf8')
  const section = readme.match(/<!-- section:node -->([\s\S]*?)<!-- \/section:node -->/)
  const examples = [...section[1].matchAll(/```js\n([\s\S]*?)```/g)]
  assert.equal(examples.length, 3, 'the node section has a 2D, a 3D and a search example')
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', examples[1][1]], {
    cwd: fileURLToPath(root),
    encoding: 'utf8',
  })
  assert.deepEqual(out.trim().split('\n'), ['1', 'Uint32Array(1) [ 2 ]', '2', '2'])
})

it("the README's Node nearest-neighbour and ray-cast example runs as written", () => {
  const readme = readFileSync(new URL('../README.md', root), 'utf8')
  const section = readme.match(/<!-- section:node -->([\s\S]*?)<!-- \/section:node -->/)
  const example = [...section[1].matchAll(/```js\n([\s\S]*?)```/g)][2][1]
  assert.match(example, /\.nearest\(/)
  assert.match(example, /\.rayCast\(/)
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', example], {
    cwd: fileURLToPath(root),
    encoding: 'utf8',
  })
  assert.deepEqual(out.trim().split('\n'), ['1@5 2@10', '1 30 0.3', 'true'])
})

it("the package README's first example runs as written", () => {
  const readme = readFileSync(new URL('README.md', root), 'utf8')
  const example = readme.match(/```js\n([\s\S]*?)```/)
  assert.ok(example, 'README.md has no js example')
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', example[1]], {
    cwd: fileURLToPath(root),
    encoding: 'utf8',
  })
  assert.deepEqual(out.trim().split('\n'), ['near the player: 2', '0'])
})

it("the package README's example of every class runs as written", () => {
  const readme = readFileSync(new URL('README.md', root), 'utf8')
  const example = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]).find((code) => code.includes('new LooseGrid('))
  assert.ok(example, 'README.md has no example of every class')
  execFileSync(process.execPath, ['--input-type=module', '-e', example], { cwd: fileURLToPath(root), encoding: 'utf8' })
})

it("the package README's frame loop into kept arrays runs as written", () => {
  const readme = readFileSync(new URL('README.md', root), 'utf8')
  const example = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]).find((code) => code.includes('rowsOut'))
  assert.ok(example, 'README.md has no frame loop answering into kept arrays')
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', example], { cwd: fileURLToPath(root), encoding: 'utf8' })
  assert.deepEqual(out.trim().split('\n'), ['999 1998 false', '999 1998 true', '999 1998 true'])
})
