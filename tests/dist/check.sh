#!/usr/bin/env bash
# `make dist-check`: each artefact of `make dist` installed the way the README
# says, into a fresh folder, and used.
#
#  1. Python: twine check; the wheel into a fresh venv, imported and queried
#     from outside the checkout; the sdist holds the Rust sources and licences
#  2. Node: both tarballs (main + this platform's) into a fresh folder, used
#     from CommonJS and ESM; the checkout's bindings-node without a prebuilt
#     addon (the install script builds it with cargo); the install script's
#     message when cargo is missing
#  3. C: the tarball unpacked and moved elsewhere (relocatable), the README's
#     example linked with pkg-config's flags and run without LD_LIBRARY_PATH;
#     tests/cmake built against it with find_package and run by ctest
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
: "${DIST_DIR:?}" "${DIST_VERSION:?}" "${DIST_C_NAME:?}" "${TWINE:?}"
PYTHON=${PYTHON:-python3}
NPM=${NPM:-npm}
NODE=${NODE:-node}
CARGO=${CARGO:-cargo}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/flatquad-dist-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'echo "dist-check: FAILED (line $LINENO: $BASH_COMMAND)" >&2' ERR
passed=0
step() { printf '\n== dist-check: %s\n' "$*"; }
pass() {
    passed=$((passed + 1))
    echo "ok - $*"
}
fail() {
    echo "dist-check: FAILED: $*" >&2
    exit 1
}
npm_quiet() { "$NPM" --no-audit --no-fund --loglevel=error "$@"; }

step "Python: sdist and wheel"
sdist="$DIST_DIR/flatquad-$DIST_VERSION.tar.gz"
wheels=("$DIST_DIR"/flatquad-"$DIST_VERSION"-cp39-abi3-manylinux_*.whl)
[ -f "$sdist" ] || fail "no sdist $sdist"
[ -f "${wheels[0]}" ] || fail "no abi3 manylinux wheel in $DIST_DIR"
"$TWINE" check --strict "$sdist" "${wheels[0]}"
listing=$(tar tzf "$sdist")
for f in core/src/lib.rs bindings-python/src/lib.rs pyproject.toml Cargo.lock LICENSE-MIT LICENSE-APACHE; do
    grep -qx "flatquad-$DIST_VERSION/$f" <<<"$listing" || fail "the sdist lacks $f"
done
"$PYTHON" -m venv "$tmp/venv"
"$tmp/venv/bin/python" -m pip install --quiet --disable-pip-version-check "${wheels[0]}"
(cd "$tmp" && "$tmp/venv/bin/python" - <<'EOF')
import flatquad

assert "site-packages" in flatquad.__file__, flatquad.__file__
tree = flatquad.Quadtree((0, 0, 100, 100))
a = tree.insert((1, 1, 5, 5), 7)
tree.insert((50, 50, 60, 60), 8)
assert list(tree.query((0, 0, 2, 2))) == [a], tree.query((0, 0, 2, 2))
print("wheel:", flatquad.__file__)
EOF
pass "twine check; the wheel in a fresh venv: imports and answers a query"

step "Node: the npm tarballs in a fresh folder"
main_tgz="$DIST_DIR/flatquad-$DIST_VERSION.tgz"
platform=$(cd bindings-node && "$NODE" -p "require('./scripts/install.js').platformKey()")
platform_tgz="$DIST_DIR/flatquad-$platform-$DIST_VERSION.tgz"
[ -f "$main_tgz" ] && [ -f "$platform_tgz" ] || fail "no $main_tgz or $platform_tgz"
contents=$(tar tzf "$main_tgz")
grep -q '\.node$' <<<"$contents" && fail "the main package carries an addon (it belongs in the platform packages)"
grep -qx 'package/rust/core/src/lib.rs' <<<"$contents" || fail "the main package lacks the Rust sources"
tar xzOf "$main_tgz" package/package.json | "$NODE" -e '
const p = JSON.parse(require("fs").readFileSync(0, "utf8"))
const deps = Object.keys(p.optionalDependencies || {})
if (!deps.includes(process.argv[1]) || deps.length < 2) throw new Error("optionalDependencies: " + deps)
for (const k of ["repository", "homepage", "bugs", "engines"]) if (!p[k]) throw new Error("package.json lacks " + k)
' "flatquad-$platform"
cat >"$tmp/use.cjs" <<'EOF'
const { Quadtree } = require('flatquad')
const tree = new Quadtree({ x: 0, y: 0, width: 100, height: 100 })
tree.insert(1, 1, 5, 5, 7)
tree.insert(50, 50, 60, 60, 8)
const ids = Array.from(tree.idsOf(tree.query(0, 0, 2, 2)))
if (ids.join() !== '7') throw new Error(`query gave ids ${ids}`)
console.log('node:', require.resolve('flatquad'))
EOF
cat >"$tmp/use.mjs" <<'EOF'
import { Octree } from 'flatquad'
const space = new Octree({ x1: 0, y1: 0, z1: 0, x2: 10, y2: 10, z2: 10 })
space.insert(1, 1, 1, 2, 2, 2, 3)
if (space.queryPoint(1.5, 1.5, 1.5).length !== 1) throw new Error('octree query')
EOF
mkdir "$tmp/npm-tgz"
(cd "$tmp/npm-tgz" && echo '{"private": true}' >package.json && npm_quiet install "$main_tgz" "$platform_tgz" &&
    cp ../use.cjs ../use.mjs . && "$NODE" use.cjs && "$NODE" use.mjs &&
    "$NODE" -e "require.resolve('flatquad-$platform')") || fail "the npm tarballs do not install and run"
ls "$tmp/npm-tgz/node_modules/flatquad/"*.node >/dev/null 2>&1 && fail "the install built an addon though the platform package was there"
pass "npm install main + $platform tarballs: CommonJS and ESM run, the addon from flatquad-$platform"

step "Node: npm install of the checkout's bindings-node without a prebuilt addon (built with cargo)"
# In place rather than in a copy: a copy at another path makes cargo rebuild the
# core and the addon (minutes on CI's 2 cores), and the question is the same:
# with no flatquad.<platform>.node (a build artefact, which napi build and this
# install script make alike), does the install build one that loads?
addon="$root/bindings-node/flatquad.$platform.node"
rm -f "$addon"
mkdir "$tmp/npm-src"
(cd "$tmp/npm-src" && echo '{"private": true}' >package.json &&
    CARGO="$CARGO" npm_quiet install --foreground-scripts "$root/bindings-node" &&
    cp ../use.cjs ../use.mjs . && "$NODE" use.cjs && "$NODE" use.mjs) || fail "npm install of the checkout"
[ -f "$addon" ] || fail "the install script built no flatquad.$platform.node"
pass "npm install <checkout>/bindings-node builds the addon with cargo, and it runs"

mkdir "$tmp/nocargo"
tar -C "$tmp/nocargo" -xzf "$main_tgz"
status=0
msg=$(cd "$tmp/nocargo/package" && INIT_CWD=/ CARGO="$tmp/no/cargo" "$NODE" scripts/install.js 2>&1) || status=$?
echo "$msg"
[ "$status" -ne 0 ] && grep -q "cargo was not found" <<<"$msg" || fail "no clear failure without cargo (status $status)"
pass "without a prebuilt addon or cargo, the install fails and says why"

step "C: the tarball, unpacked and moved"
c_tgz="$DIST_DIR/$DIST_C_NAME.tar.gz"
[ -f "$c_tgz" ] || fail "no $c_tgz"
tar -C "$tmp" -xzf "$c_tgz"
mv "$tmp/$DIST_C_NAME" "$tmp/moved" # relocatable: nothing may point at where it was made
prefix="$tmp/moved"
soname=$(objdump -p "$prefix/lib/libflatquad.so" | sed -n 's/^ *SONAME *//p')
for f in include/flatquad.h lib/libflatquad.a lib/libflatquad.so "lib/$soname" "lib/libflatquad.so.$DIST_VERSION" \
    lib/pkgconfig/flatquad.pc lib/cmake/flatquad/flatquadConfig.cmake lib/cmake/flatquad/flatquadConfigVersion.cmake \
    LICENSE-MIT LICENSE-APACHE; do
    [ -e "$prefix/$f" ] || fail "the C tarball lacks $f"
done
[ -L "$prefix/lib/libflatquad.so" ] && [ -L "$prefix/lib/$soname" ] || fail "libflatquad.so and $soname are not symlinks"
grep -rq "$DIST_DIR" "$prefix/lib/pkgconfig" "$prefix/lib/cmake" && fail "the pkg-config or CMake files name the build folder"
awk '/<!-- section:c -->/{s=1} /<!-- \/section:c -->/{s=0} s' README.md >"$tmp/section"
awk '/^```c$/{n++; if (n == 1) {f=1; next}} /^```$/{if (f) exit} f' "$tmp/section" >"$tmp/app.c"
awk '/^```text$/{n++; if (n == 1) {f=1; next}} /^```$/{if (f) exit} f' "$tmp/section" >"$tmp/app.expected"
[ -s "$tmp/app.c" ] && [ -s "$tmp/app.expected" ] || fail "no C example in README.md"
(cd "$tmp" && cc app.c $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs flatquad) -o app)
env -u LD_LIBRARY_PATH "$tmp/app" | diff -u "$tmp/app.expected" - || fail "the README's C example, linked from the tarball"
pass "README C example: cc app.c \$(pkg-config --cflags --libs flatquad) runs without LD_LIBRARY_PATH"
if command -v cmake >/dev/null; then
    cmake -S tests/cmake -B "$tmp/cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >"$tmp/cmake.log" &&
        cmake --build "$tmp/cmake" -j 2 >>"$tmp/cmake.log" || { cat "$tmp/cmake.log"; fail "tests/cmake against the tarball"; }
    (cd "$tmp/cmake" && env -u LD_LIBRARY_PATH ctest --output-on-failure)
    pass "tests/cmake against the tarball: find_package (shared, static) and pkg-config"
else
    echo "cmake not installed: the CMake route is checked by make test-c, which installs it"
fi

echo
echo "dist-check: $passed passed, 0 failed"
