// `make dist`: the npm tarballs laid out the napi-rs way (not shipped).
//
//   node scripts/pack.mjs OUT_DIR ADDON.node
//
// - OUT_DIR/flatquad-VERSION.tgz: the main package (loader, types, install
//   script, the Rust sources it builds from when no prebuilt binary matches),
//   with one optional dependency per platform of package.json's napi.targets;
// - OUT_DIR/flatquad-PLATFORM-VERSION.tgz: the platform package of the addon
//   given (this machine's); the other platforms' come from CI machines of
//   those platforms (`napi artifacts` + `npm publish` of npm/<platform>).
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const [outArg, addonArg] = process.argv.slice(2)
if (!outArg || !addonArg) {
  console.error('usage: node scripts/pack.mjs OUT_DIR ADDON.node')
  process.exit(2)
}
const pkgDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const root = path.resolve(pkgDir, '..')
const out = path.resolve(outArg)
const addon = path.resolve(addonArg)
const stage = path.join(out, 'npm-stage')
const main = path.join(stage, 'flatquad')
const napi = path.join(pkgDir, 'node_modules', '.bin', 'napi')

fs.rmSync(stage, { recursive: true, force: true })
fs.mkdirSync(main, { recursive: true })
const copy = (from, to) => fs.cpSync(from, to, { recursive: true })
for (const f of ['index.js', 'index.mjs', 'native.js', 'index.d.ts', 'README.md', 'scripts/install.js']) {
  copy(path.join(pkgDir, f), path.join(main, f))
}
for (const f of ['LICENSE-MIT', 'LICENSE-APACHE']) copy(path.join(root, f), path.join(main, f))

// rust/: a two-member workspace (the core and the addon crate) with the
// repository's lockfile, so a build from the tarball uses the tested versions.
const rust = path.join(main, 'rust')
const workspace = fs
  .readFileSync(path.join(root, 'Cargo.toml'), 'utf8')
  .replace(/^members = \[.*\]$/m, 'members = ["core", "node"]')
if (!workspace.includes('members = ["core", "node"]')) throw new Error('no members line in Cargo.toml')
fs.mkdirSync(rust)
fs.writeFileSync(path.join(rust, 'Cargo.toml'), workspace)
copy(path.join(root, 'Cargo.lock'), path.join(rust, 'Cargo.lock'))
for (const f of ['Cargo.toml', 'README.md', 'src', 'examples']) copy(path.join(root, 'core', f), path.join(rust, 'core', f))
for (const f of ['Cargo.toml', 'build.rs', 'src']) copy(path.join(pkgDir, f), path.join(rust, 'node', f))

const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'))
delete pkg.devDependencies
delete pkg.overrides
delete pkg['//']
pkg.scripts = { install: pkg.scripts.install }
pkg.files = [...pkg.files.filter((f) => f !== '*.node'), 'rust', 'LICENSE-MIT', 'LICENSE-APACHE']
fs.writeFileSync(path.join(main, 'package.json'), JSON.stringify(pkg, null, 2) + '\n')

// napi-rs writes one package.json per target into npm/<platform>/.
execFileSync(napi, ['create-npm-dirs', '--cwd', main, '--npm-dir', 'npm'], { stdio: 'inherit' })
fs.renameSync(path.join(main, 'npm'), path.join(stage, 'npm'))
const platforms = fs.readdirSync(path.join(stage, 'npm')).sort()
pkg.optionalDependencies = {}
for (const p of platforms) {
  const file = path.join(stage, 'npm', p, 'package.json')
  const sub = JSON.parse(fs.readFileSync(file, 'utf8'))
  for (const k of ['author', 'homepage', 'repository', 'bugs']) sub[k] = pkg[k]
  fs.writeFileSync(file, JSON.stringify(sub, null, 2) + '\n')
  pkg.optionalDependencies[sub.name] = sub.version
}
fs.writeFileSync(path.join(main, 'package.json'), JSON.stringify(pkg, null, 2) + '\n')

// This machine's addon: flatquad.<platform>.node into npm/<platform>/.
const platform = path.basename(addon).replace(/^flatquad\.(.*)\.node$/, '$1')
if (!platforms.includes(platform)) throw new Error(`${addon}: ${platform} is not one of napi.targets (${platforms})`)
copy(addon, path.join(stage, 'npm', platform, path.basename(addon)))

const pack = (dir) => execFileSync('npm', ['pack', '--pack-destination', out], { cwd: dir, encoding: 'utf8' }).trim()
console.log(`${path.join(out, pack(main))}\n${path.join(out, pack(path.join(stage, 'npm', platform)))}`)
