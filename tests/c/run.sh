#!/usr/bin/env bash
# `make test-c`: every check of the C ABI, on a fresh machine.
#
#  1. tools: cbindgen pinned into .tools/ (cargo install --locked); cmake,
#     pkg-config, valgrind, jansson (the vectors' JSON reader) and a C/C++
#     compiler from apt only when missing
#  2. the library, built once (cargo build --release -p flatquad-ffi), and the
#     crate's own Rust tests
#  3. ffi-c/src/octree_calls.rs (ffi-c/codegen --check) and include/flatquad.h
#     regenerated to a temporary file: any difference fails
#  4. versions: Cargo.toml = header macros = qt_version(); every function of
#     the header is called by tests/c/test_api.c (the octree's: test_octree.c;
#     filters and searches, 2D and 3D: test_search.c; the trackers: test_events.c)
#  5. the header alone, included twice, as C (c99, c11, c17) and C++ (c++11..20)
#  6. tests/c/*.c (test_octree.c and test_events.c among them) and the C++ test with -Wall -Wextra -Werror
#     and ASan/UBSan, linked with the static library; test_api, test_octree, test_search and test_events
#     also under valgrind; the shared test vectors (tests/vectors/*.json) replayed on every structure they
#     list; the trigger-zone example, its events balanced against a brute-force count
#  7. make install into a temporary prefix (and a DESTDIR staging install), then
#     the README's C example built with pkg-config, and tests/cmake built against
#     the installed copy (find_package and pkg-config) and run by ctest
#  8. the agents workload in C: both checksums of docs/workload.md in both modes (-O2)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
CARGO=${CARGO:-cargo}
MAKE=${MAKE:-make}
CC=${CC:-cc}
CXX=${CXX:-c++}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/flatquad-test-c.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'echo "test-c: FAILED (line $LINENO: $BASH_COMMAND)" >&2' ERR

passed=0
step() { printf '\n== test-c: %s\n' "$*"; }
pass() {
    passed=$((passed + 1))
    echo "ok - $*"
}
fail() {
    echo "test-c: FAILED: $*" >&2
    echo "test-c: $passed passed, 1 failed"
    exit 1
}

SAN=(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
WARN=(-Wall -Wextra -Werror)
export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=0:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export RUST_BACKTRACE=0 # the panic test's expected panics print one line each

step "tools"
missing=()
command -v cmake >/dev/null || missing+=(cmake)
command -v pkg-config >/dev/null || missing+=(pkg-config)
command -v valgrind >/dev/null || missing+=(valgrind)
command -v "$CC" >/dev/null || missing+=(gcc)
command -v "$CXX" >/dev/null || missing+=(g++)
# The vectors' JSON reader: jansson, a small C library every distribution packages.
pkg-config --exists jansson 2>/dev/null || missing+=(libjansson-dev)
if ((${#missing[@]})); then
    echo "installing ${missing[*]} with apt-get"
    if [ "$(id -u)" -ne 0 ]; then
        fail "need ${missing[*]}: install them (apt-get install -y ${missing[*]}) or run as root"
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
"$MAKE" --no-print-directory -s c-cbindgen CARGO="$CARGO"
CBINDGEN="$root/.tools/bin/cbindgen"
echo "$("$CBINDGEN" --version), $(cmake --version | head -n1), pkg-config $(pkg-config --version)"
echo "$("$CC" --version | head -n1); $(valgrind --version); jansson $(pkg-config --modversion jansson)"

step "build the library (release, once) and run the crate's Rust tests"
"$CARGO" build --release -p flatquad-ffi
"$CARGO" test --release -p flatquad-ffi -q
target=${CARGO_TARGET_DIR:-$root/target}/release
lib_a="$target/libflatquad.a"
static_libs=(-lpthread -ldl -lm)
pass "cargo build and test -p flatquad-ffi"

step "the octree's calls are what ffi-c/codegen makes of the 2D calls"
"$CARGO" run -q --release -p flatquad-ffi-codegen -- --check ||
    fail "ffi-c/src/octree_calls.rs is stale: run 'make c-generated' and commit it with the header"
pass "ffi-c/src/octree_calls.rs is up to date"

step "the committed header is what cbindgen generates"
"$CBINDGEN" --quiet --config ffi-c/cbindgen.toml --crate flatquad-ffi --output "$tmp/flatquad.h" ffi-c
if ! diff -u include/flatquad.h "$tmp/flatquad.h"; then
    fail "include/flatquad.h differs from the generated header: run 'make c-header' and commit it"
fi
pass "include/flatquad.h is up to date"

step "versions agree: Cargo.toml, header macros, qt_version()"
pkgid=$("$CARGO" pkgid -p flatquad-ffi)
cargo_version=${pkgid##*[#@]}
header_version=$(sed -n 's/^#define QT_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' include/flatquad.h | paste -sd.)
echo "Cargo.toml: $cargo_version, header: $header_version"
[ "$cargo_version" = "$header_version" ] || fail "header version $header_version is not Cargo.toml's $cargo_version"
pass "header version = Cargo.toml version ($cargo_version)"

step "every function the header declares is exercised by test_api.c, test_octree.c, test_search.c or test_events.c"
functions=$(sed -n 's/^[a-z].* \**\(qt_[a-z_]*\)(.*/\1/p' include/flatquad.h)
[ "$(wc -w <<<"$functions")" -ge 41 ] || fail "found only $(wc -w <<<"$functions") functions in the header"
for f in $functions; do
    grep -q "\b$f(" tests/c/test_api.c tests/c/test_octree.c tests/c/test_search.c tests/c/test_events.c ||
        fail "tests/c/test_api.c, test_octree.c, test_search.c or test_events.c never calls $f"
done
pass "test_api.c, test_octree.c, test_search.c and test_events.c call all $(wc -w <<<"$functions") functions of flatquad.h"

step "the header alone, included twice, as C and C++"
for std in c99 c11 c17; do
    "$CC" -std=$std -pedantic "${WARN[@]}" -Wstrict-prototypes -Wmissing-prototypes -Iinclude \
        -c tests/c/header_twice.c -o "$tmp/header_$std.o"
    pass "header as $std"
done
for std in c++11 c++14 c++17 c++20; do
    "$CXX" -x c++ -std=$std -pedantic "${WARN[@]}" -Wmissing-declarations -Iinclude \
        -c tests/c/header_twice.c -o "$tmp/header_$std.o"
    pass "header as $std"
done

step "C and C++ tests with ASan and UBSan"
"$CC" -std=c99 -g -O1 "${WARN[@]}" "${SAN[@]}" -Iinclude -DEXPECTED_VERSION="\"$cargo_version\"" \
    tests/c/test_api.c "$lib_a" "${static_libs[@]}" -o "$tmp/test_api"
"$tmp/test_api"
pass "test_api (sanitizers)"
"$CC" -std=c99 -g -O1 "${WARN[@]}" "${SAN[@]}" -Iinclude \
    tests/c/test_octree.c "$lib_a" "${static_libs[@]}" -o "$tmp/test_octree"
"$tmp/test_octree"
pass "test_octree (sanitizers)"
"$CC" -std=c99 -g -O1 "${WARN[@]}" "${SAN[@]}" -Iinclude \
    tests/c/test_search.c "$lib_a" "${static_libs[@]}" -o "$tmp/test_search"
"$tmp/test_search"
pass "test_search: filters and searches on every structure and the octree (sanitizers)"
"$CC" -std=c99 -g -O1 "${WARN[@]}" "${SAN[@]}" -Iinclude \
    tests/c/test_events.c "$lib_a" "${static_libs[@]}" -o "$tmp/test_events"
"$tmp/test_events"
pass "test_events: trackers on every structure and the octree against the brute force, refusals (sanitizers)"
"$CC" -std=c99 -g -O1 "${WARN[@]}" "${SAN[@]}" -pthread -Iinclude \
    tests/c/test_threads.c "$lib_a" "${static_libs[@]}" -o "$tmp/test_threads"
"$tmp/test_threads"
pass "test_threads (sanitizers, pthreads)"
"$CXX" -std=c++17 -g -O1 -pedantic "${WARN[@]}" "${SAN[@]}" -Iinclude \
    tests/c/test_cpp.cpp "$lib_a" "${static_libs[@]}" -o "$tmp/test_cpp"
"$tmp/test_cpp"
pass "test_cpp (sanitizers)"
"$CC" -std=c99 -D_POSIX_C_SOURCE=199309L -g -O1 "${WARN[@]}" "${SAN[@]}" -Iinclude \
    tests/c/agents.c "$lib_a" "${static_libs[@]}" -o "$tmp/agents_san"
"$tmp/agents_san" uniform-20k >/dev/null
"$tmp/agents_san" uniform-20k --update each >/dev/null
pass "agents uniform-20k (sanitizers): checksums in both modes, both update forms"

step "the shared test vectors, replayed on every structure they list (sanitizers)"
vectors=(tests/vectors/*.json)
[ -e "${vectors[0]}" ] || fail "no test vectors in tests/vectors/ (the C replay needs them)"
"$CC" -std=c99 -g -O1 "${WARN[@]}" "${SAN[@]}" -Iinclude $(pkg-config --cflags jansson) \
    tests/c/test_vectors.c "$lib_a" $(pkg-config --libs jansson) "${static_libs[@]}" \
    -o "$tmp/test_vectors"
"$tmp/test_vectors" "${vectors[@]}"
pass "test_vectors: ${#vectors[@]} files"

step "the trigger-zone example (ffi-c/examples/trigger_zones.c, sanitizers): its events balance"
"$CC" -std=c99 -g -O1 "${WARN[@]}" "${SAN[@]}" -Iinclude ffi-c/examples/trigger_zones.c "$lib_a" \
    "${static_libs[@]}" -o "$tmp/trigger_zones"
# The example itself fails when enters - exits differs from its brute-force
# count of agents inside sensors at any frame; here its printed lines must add
# up to its totals, and both kinds of event must have happened.
"$tmp/trigger_zones" 80 >"$tmp/trigger_zones.out"
read -r enters exits inside < <(sed -n 's/^total: \([0-9]*\) enters, \([0-9]*\) exits, \([0-9]*\) inside.*/\1 \2 \3/p' "$tmp/trigger_zones.out")
[ -n "${inside:-}" ] || fail "trigger_zones printed no total line"
[ "$(grep -c '^frame [0-9]*: agent [0-9]* enters sensor [0-9]*$' "$tmp/trigger_zones.out")" = "$enters" ] ||
    fail "trigger_zones: the enter lines do not add up to its total"
[ "$(grep -c '^frame [0-9]*: agent [0-9]* exits sensor [0-9]*\( (removed)\)\?$' "$tmp/trigger_zones.out")" = "$exits" ] ||
    fail "trigger_zones: the exit lines do not add up to its total"
[ "$enters" -gt 0 ] && [ "$exits" -gt 0 ] && [ $((enters - exits)) = "$inside" ] ||
    fail "trigger_zones: $enters enters, $exits exits, $inside inside"
pass "trigger_zones: $enters enters, $exits exits over 80 frames, $inside inside = the brute-force count"

step "test_api under valgrind (sees the Rust side too, which ASan does not instrument)"
"$CC" -std=c99 -g -O1 "${WARN[@]}" -Iinclude -DEXPECTED_VERSION="\"$cargo_version\"" \
    tests/c/test_api.c "$lib_a" "${static_libs[@]}" -o "$tmp/test_api_plain"
valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
    --show-leak-kinds=definite "$tmp/test_api_plain"
pass "test_api (valgrind memcheck)"
"$CC" -std=c99 -g -O1 "${WARN[@]}" -Iinclude tests/c/test_octree.c "$lib_a" "${static_libs[@]}" \
    -o "$tmp/test_octree_plain"
valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
    --show-leak-kinds=definite "$tmp/test_octree_plain"
pass "test_octree (valgrind memcheck)"
"$CC" -std=c99 -g -O1 "${WARN[@]}" -Iinclude tests/c/test_search.c "$lib_a" "${static_libs[@]}" \
    -o "$tmp/test_search_plain"
valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
    --show-leak-kinds=definite "$tmp/test_search_plain"
pass "test_search (valgrind memcheck)"
"$CC" -std=c99 -g -O1 "${WARN[@]}" -Iinclude tests/c/test_events.c "$lib_a" "${static_libs[@]}" \
    -o "$tmp/test_events_plain"
valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
    --show-leak-kinds=definite "$tmp/test_events_plain" >/dev/null
pass "test_events (valgrind memcheck: no tracker reads its destroyed tree)"

step "make install into a temporary prefix"
prefix="$tmp/prefix"
"$MAKE" --no-print-directory -s install PREFIX="$prefix" CARGO="$CARGO"
for f in include/flatquad.h lib/libflatquad.a lib/libflatquad.so "lib/libflatquad.so.$cargo_version" \
    lib/pkgconfig/flatquad.pc lib/cmake/flatquad/flatquadConfig.cmake \
    lib/cmake/flatquad/flatquadConfigVersion.cmake; do
    [ -e "$prefix/$f" ] || fail "make install did not install $f"
done
cmp include/flatquad.h "$prefix/include/flatquad.h"
soname=$(objdump -p "$prefix/lib/libflatquad.so" | sed -n 's/^ *SONAME *//p')
[ -e "$prefix/lib/$soname" ] || fail "no $soname beside the installed library"
"$MAKE" --no-print-directory -s install PREFIX=/opt/flatquad DESTDIR="$tmp/stage" CARGO="$CARGO"
[ -e "$tmp/stage/opt/flatquad/lib/libflatquad.a" ] || fail "DESTDIR install missed the library"
grep -qx 'prefix=/opt/flatquad' "$tmp/stage/opt/flatquad/lib/pkgconfig/flatquad.pc" ||
    fail "DESTDIR leaked into flatquad.pc"
"$MAKE" --no-print-directory -s uninstall PREFIX=/opt/flatquad DESTDIR="$tmp/stage"
[ -z "$(find "$tmp/stage" -type f -o -type l)" ] || fail "make uninstall left files behind"
pass "install (soname $soname), DESTDIR staging, uninstall"

step "the README's C example, built with pkg-config against the installed copy"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
[ "$(pkg-config --modversion flatquad)" = "$cargo_version" ] || fail "flatquad.pc has the wrong version"
section=$(awk '/<!-- section:c -->/{s=1} /<!-- \/section:c -->/{s=0} s' README.md)
# Each ```c example is followed by the ```text it prints (the 2D one, the octree's, the searches').
examples=$(grep -c '^```c$' <<<"$section")
[ "$examples" -ge 3 ] || fail "expected the 2D, the octree and the searches' C examples in README.md"
for k in $(seq 1 "$examples"); do
    awk -v k="$k" '/^```c$/{n++; if (n == k) {f=1; next}} /^```$/{if (f) exit} f' <<<"$section" >"$tmp/example.c"
    awk -v k="$k" '/^```text$/{n++; if (n == k) {f=1; next}} /^```$/{if (f) exit} f' <<<"$section" >"$tmp/example.expected"
    [ -s "$tmp/example.c" ] && [ -s "$tmp/example.expected" ] || fail "no C example $k and its output in README.md"
    (cd "$tmp" && cc example.c $(pkg-config --cflags --libs flatquad) -o example) # as the README says
    # No LD_LIBRARY_PATH: the rpath in flatquad.pc's Libs finds the installed library.
    env -u LD_LIBRARY_PATH "$tmp/example" >"$tmp/example.out"
    diff -u "$tmp/example.expected" "$tmp/example.out" || fail "README C example $k's output differs from README.md"
    # grep reads all of ldd's output: with -q it may exit first, and pipefail sees ldd's SIGPIPE.
    env -u LD_LIBRARY_PATH ldd "$tmp/example" | grep "=> $prefix/lib/$soname" >/dev/null || fail "the example did not load the installed library"
    "$CC" -std=c99 -pedantic "${WARN[@]}" "${SAN[@]}" $(pkg-config --cflags flatquad) "$tmp/example.c" \
        $(pkg-config --libs flatquad) -o "$tmp/example_strict"
    "$tmp/example_strict" | diff -u "$tmp/example.expected" -
    pass "README C example $k: builds as written, prints what README.md says, clean under -Werror and sanitizers"
done

step "tests/cmake against the installed copy (find_package and pkg-config; shared and static)"
cmake -S tests/cmake -B "$tmp/cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >"$tmp/cmake.log" ||
    { cat "$tmp/cmake.log"; fail "cmake configure"; }
cmake --build "$tmp/cmake" -j 2 >>"$tmp/cmake.log" || { cat "$tmp/cmake.log"; fail "cmake build"; }
(cd "$tmp/cmake" && ctest --output-on-failure)
pass "CMake project: shared, static and pkg-config consumers"

step "the agents workload in C (-O2, release library): checksums of docs/workload.md"
"$CC" -std=c99 -D_POSIX_C_SOURCE=199309L -O2 "${WARN[@]}" -Iinclude tests/c/agents.c "$lib_a" \
    "${static_libs[@]}" -o "$tmp/agents"
"$tmp/agents" uniform-20k
pass "agents uniform-20k: 6257 in both modes"
"$tmp/agents" uniform-100k
pass "agents uniform-100k: 38442 in both modes"

echo
echo "test-c: $passed passed, 0 failed"
