#!/usr/bin/env bash
# `make bench-c [SCENARIO=uniform-100k] [RUNS=5]`: the agents workload through the
# C ABI (tests/c/agents.c, -O2, release libflatquad.a) beside the Rust demo
# (flatquad-bench's `agents`), run alternately RUNS times each in the same
# session; prints the median update, collide and frame ms of each and the
# C/Rust ratio of the medians (ratios drift far less than absolute times on a
# shared machine). The library's batch calls run on rayon's global pool, of
# RAYON_NUM_THREADS threads (default: every core); the Rust demo runs with
# --threads of the same number, so that both frames use the same threads.
set -euo pipefail
cd "$(dirname "$0")/../.."
CARGO=${CARGO:-cargo}
CC=${CC:-cc}
scenario=${1:-uniform-100k}
runs=${RUNS:-5}
threads=${RAYON_NUM_THREADS:-0}
# 0 is rayon's "every core" too; the demo wants the number.
[ "$threads" -gt 0 ] || threads=$(nproc)
export RAYON_NUM_THREADS=$threads
tmp=$(mktemp -d "${TMPDIR:-/tmp}/flatquad-bench-c.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

"$CARGO" build --release -q -p flatquad-ffi
"$CARGO" build --release -q -p flatquad-bench --bin agents
target=${CARGO_TARGET_DIR:-$PWD/target}/release
"$CC" -std=c99 -D_POSIX_C_SOURCE=199309L -O2 -Wall -Wextra -Werror -Iinclude tests/c/agents.c \
    "$target/libflatquad.a" -lpthread -ldl -lm -o "$tmp/agents_c"

echo "$scenario, $runs runs each, alternating, $threads thread(s); $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
for ((i = 1; i <= runs; i++)); do
    "$target/agents" "$scenario" --threads "$threads" | awk '/^(per-agent|all-pairs) /{print "rust", $1, $2, $3, $4, $5}' >>"$tmp/results"
    "$tmp/agents_c" "$scenario" | awk '/^(per-agent|all-pairs) /{print "c", $1, $2, $3, $4, $5}' >>"$tmp/results"
done
if grep -qv " $(awk '{print $6}' "$tmp/results" | head -n1)\$" "$tmp/results"; then
    echo "the runs disagree on the pair count:" >&2
    cat "$tmp/results" >&2
    exit 1
fi

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
printf '\n%-10s %-5s %10s %11s %9s\n' mode impl "update ms" "collide ms" "frame ms"
for mode in per-agent all-pairs; do
    for impl in rust c; do
        for col in 3 4 5; do
            awk -v i="$impl" -v m="$mode" -v c="$col" '$1 == i && $2 == m {print $c}' "$tmp/results" | median >"$tmp/m.$impl.$mode.$col"
        done
        printf '%-10s %-5s %10.3f %11.3f %9.3f\n' "$mode" "$impl" "$(cat "$tmp/m.$impl.$mode.3")" \
            "$(cat "$tmp/m.$impl.$mode.4")" "$(cat "$tmp/m.$impl.$mode.5")"
    done
    awk -v m="$mode" -v c="$(cat "$tmp/m.c.$mode.5")" -v r="$(cat "$tmp/m.rust.$mode.5")" \
        'BEGIN {printf "%-10s C/Rust frame time: %.3f\n", m, c / r}'
done
