#!/usr/bin/env python3
"""The agents workload of docs/workload.md from Python, in batch form.

Every frame moves all agents with numpy (float32, in the order docs/workload.md states),
tells the structure (``--index quadtree|grid|loose-grid``, with the Rust demo's
parameters) with one ``move_many``, calls ``cleanup``, and collides with one
``pairs()`` (all-pairs mode) or ``overlapping_many`` in the Rust demo's batches
(per-agent mode: each agent's own rectangle, itself left out, as the demo
queries it; one call of every handle would be answered by one pair walk, the
all-pairs mode's work). The pair counts must reproduce the docs/workload.md checksums; the script exits
with 1 if they do not.

When shapely is installed, its STRtree runs the same frames in the same run
(rebuilt each frame, then one bulk ``query(boxes, predicate="intersects")``),
and with ``--rust PATH`` the Rust demo (``cargo build --release -p
flatquad-bench --bin agents``) too, so that the figures come with their peers::

    python examples/agents.py uniform-100k --index grid --rust target/release/agents
"""

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

import flatquad

# name: (agents, world side, agent side, measured frames, checksum)
SCENARIOS = {
    "uniform-100k": (100_000, 4096.0, 4.0, 10, 38442),
    "uniform-1m": (1_000_000, 12288.0, 4.0, 3, 422_580),
    "uniform-20k": (20_000, 2048.0, 4.0, 10, 6257),
}
WARMUP_FRAMES = 2
MODES = ("all-pairs", "per-agent")
# The structures by the Rust demo's names for them (its --index).
INDEXES = ("quadtree", "grid", "loose-grid")


def lcg_draws(count, seed=12345):
    """The first ``count`` draws of docs/workload.md's LCG, as float32.

    ``state = state * 1664525 + 1013904223 (mod 2**32)``, advanced before each
    draw; a draw is ``(state >> 8) * 2**-24``. Computed in blocks: ``block``
    steps at once is again an LCG step, with multiplier ``a**block`` and
    increment ``c * (a**(block-1) + ... + 1)``, all mod 2**32.
    """
    a, c, mask = 1664525, 1013904223, 0xFFFFFFFF
    block = 4096
    states = np.empty(max(count, block), dtype=np.uint64)
    s = seed
    for i in range(block):
        s = (s * a + c) & mask
        states[i] = s
    a_block, c_block = 1, 0
    for _ in range(block):
        a_block, c_block = (a_block * a) & mask, (c_block * a + c) & mask
    a_block, c_block = np.uint64(a_block), np.uint64(c_block)
    for start in range(block, count, block):
        end = min(start + block, count)
        prev = states[start - block : end - block]
        # uint64 products wrap mod 2**64; the low 32 bits are the mod-2**32 result.
        states[start:end] = (prev * a_block + c_block) & np.uint64(mask)
    return (states[:count] >> np.uint64(8)).astype(np.float32) * np.float32(1.0 / 16777216.0)


class Agents:
    """The uniform layout: agent i draws x, y, vx, vy in that order."""

    def __init__(self, n, world, size):
        d = lcg_draws(4 * n).reshape(n, 4)
        self.world, self.size = np.float32(world), np.float32(size)
        self.limit = self.world - self.size
        self.x = d[:, 0] * self.limit
        self.y = d[:, 1] * self.limit
        self.vx = d[:, 2] * np.float32(2.0) - np.float32(1.0)
        self.vy = d[:, 3] * np.float32(2.0) - np.float32(1.0)
        self.rects = np.empty((n, 4), dtype=np.float32)
        self._fill_rects()

    def _fill_rects(self):
        r = self.rects
        r[:, 0] = self.x
        r[:, 1] = self.y
        np.add(self.x, self.size, out=r[:, 2])
        np.add(self.y, self.size, out=r[:, 3])

    def step(self):
        """One frame's movement. Each agent's arithmetic is independent of the
        others', so numpy's element-wise float32 steps give exactly the
        sequential results."""
        for p, v in ((self.x, self.vx), (self.y, self.vy)):
            np.add(p, v, out=p)
            low = p < 0
            p[low] = 0
            np.negative(v, out=v, where=low)
            high = p > self.limit
            p[high] = self.limit
            np.negative(v, out=v, where=high)
        self._fill_rects()


# The Rust demo's parameters (bench/src/flatquad_index.rs), chosen by measurement:
# elements per quadtree leaf, and grid cell sides in agent sides
# (AGENTS_GRID_CELL, AGENTS_LOOSE_CELL).
MAX_ELEMENTS = 16
GRID_CELL = 6.0
LOOSE_CELL = 11.0


def default_max_depth(world, size):
    """The deepest level whose cells are still at least four agents wide (as the
    Rust demo picks it, with 16 elements per leaf)."""
    depth, cell = 0, np.float32(world)
    while depth < 30 and cell * np.float32(0.5) >= np.float32(4.0) * np.float32(size):
        cell *= np.float32(0.5)
        depth += 1
    return depth


def make_index(index, world, size):
    """The structure named ``index`` over the world ``(0, 0, world, world)``,
    with the Rust demo's parameters for agents of side ``size``."""
    bounds = (0.0, 0.0, world, world)
    if index == "grid":
        return flatquad.Grid(bounds, cell_size=GRID_CELL * size)
    if index == "loose-grid":
        return flatquad.LooseGrid(bounds, cell_size=LOOSE_CELL * size)
    return flatquad.Quadtree(bounds, MAX_ELEMENTS, default_max_depth(world, size))


def run_flatquad(name, mode, index="quadtree"):
    n, world, size, frames, _ = SCENARIOS[name]
    agents = Agents(n, world, size)
    tree = make_index(index, world, size)
    handles = tree.insert_many(agents.rects, ids=np.arange(n, dtype=np.uint32))
    tree.cleanup()
    update = collide = 0.0
    total = 0
    for frame in range(WARMUP_FRAMES + frames):
        t0 = time.perf_counter()
        agents.step()
        tree.move_many(handles, agents.rects)
        tree.cleanup()
        t1 = time.perf_counter()
        if mode == "all-pairs":
            ordered = 2 * len(tree.pairs())
        else:
            ordered = 0
            batch = agent_batch()
            for i in range(0, n, batch):
                offsets, _hits = tree.overlapping_many(handles[i : i + batch])
                ordered += int(offsets[-1])
        t2 = time.perf_counter()
        if frame >= WARMUP_FRAMES:
            update += t1 - t0
            collide += t2 - t1
            total += ordered
    return 1e3 * update / frames, 1e3 * collide / frames, total // frames, tree.stats()["bytes"] / n


def run_shapely(name):
    import shapely

    n, world, size, frames, _ = SCENARIOS[name]
    agents = Agents(n, world, size)
    update = collide = 0.0
    total = 0
    for frame in range(WARMUP_FRAMES + frames):
        t0 = time.perf_counter()
        agents.step()
        r = agents.rects
        boxes = shapely.box(r[:, 0], r[:, 1], r[:, 2], r[:, 3])
        index = shapely.STRtree(boxes)
        t1 = time.perf_counter()
        found = index.query(boxes, predicate="intersects")
        ordered = found.shape[1] - n  # every box meets itself
        t2 = time.perf_counter()
        if frame >= WARMUP_FRAMES:
            update += t1 - t0
            collide += t2 - t1
            total += ordered
    return 1e3 * update / frames, 1e3 * collide / frames, total // frames


def pool_threads():
    """The threads of rayon's global pool, which flatquad's batch calls use."""
    return int(os.environ.get("RAYON_NUM_THREADS") or 0) or len(os.sched_getaffinity(0))


def agent_batch():
    """Handles per ``overlapping_many`` call in per-agent mode: docs/workload.md's
    batches, the Rust demo's, each answered query by query."""
    return 16_384 if pool_threads() > 1 else 128


def run_rust(path, name, mode, index="quadtree"):
    """The Rust demo's (update, collide, frame) ms for one mode, read off its
    table, on as many threads as flatquad's batch calls use here."""
    command = [path, name, "--mode", mode, "--index", index, "--threads", str(pool_threads())]
    out = subprocess.run(command, capture_output=True, text=True, check=False).stdout
    for line in out.splitlines():
        fields = line.split()
        if fields and fields[0] == mode:
            return tuple(float(v) for v in fields[1:4])
    raise RuntimeError(f"could not read the Rust demo's output:\n{out}")


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenario", nargs="?", default="uniform-100k", choices=sorted(SCENARIOS))
    parser.add_argument("--mode", choices=MODES + ("both",), default="both")
    parser.add_argument("--index", choices=INDEXES, default="quadtree", help="the flatquad structure")
    parser.add_argument("--runs", type=int, default=3, help="runs of each index (interleaved); medians are reported")
    parser.add_argument("--rust", metavar="PATH", help="the Rust demo binary, run in the same session")
    parser.add_argument("--no-shapely", action="store_true", help="skip shapely even if installed")
    args = parser.parse_args(argv)

    name = args.scenario
    n, world, size, frames, expected = SCENARIOS[name]
    modes = MODES if args.mode == "both" else (args.mode,)
    print(
        f"{name}: {n} agents of side {size:g} in a {world:g}x{world:g} world, "
        f"{WARMUP_FRAMES} warm-up + {frames} measured frames, median of {args.runs} run(s)"
    )
    print(
        f"machine: {os.cpu_count()} cpus, {cpu_model()}; Python {platform.python_version()}, "
        f"numpy {np.__version__}, flatquad {flatquad.__version__}; "
        f"{pool_threads()} thread(s) (RAYON_NUM_THREADS), the Rust demo too"
    )
    print(f"flatquad: {make_index(args.index, world, size)!r}\n")
    def median(rows):
        return tuple(statistics.median(col) for col in zip(*rows))

    shapely_version = None
    if not args.no_shapely:
        try:
            import shapely

            shapely_version = shapely.__version__
        except ImportError:
            print("(shapely is not installed: pip install shapely to measure it beside flatquad)")

    header = f"{'index':<18} {'mode':<10} {'update ms':>10} {'collide ms':>11} {'frame ms':>9} {'pairs/frame':>12} {'check':>8}"
    print(header)

    # Runs interleave the indexes, so that load from elsewhere on the machine
    # falls on all of them alike; the medians are compared.
    measured = {}
    for _ in range(args.runs):
        for mode in modes:
            measured.setdefault(("python", mode), []).append(run_flatquad(name, mode, args.index))
            if args.rust:
                measured.setdefault(("rust", mode), []).append(run_rust(args.rust, name, mode, args.index))
        if shapely_version:
            measured.setdefault(("shapely", None), []).append(run_shapely(name))

    ok = True
    results, peers = {}, {}
    for mode in modes:
        runs = measured[("python", mode)]
        update, collide = median([r[:2] for r in runs])
        counts = {r[2] for r in runs}
        good = counts == {expected}
        ok &= good
        results[mode] = update + collide
        print(
            f"{'flatquad (python)':<18} {mode:<10} {update:>10.3f} {collide:>11.3f} "
            f"{update + collide:>9.3f} {runs[0][2]:>12} {'OK' if good else 'MISMATCH':>8}"
            f"   {runs[0][3]:.1f} bytes/agent"
        )
    for mode in modes if args.rust else ():
        update, collide, frame = median(measured[("rust", mode)])
        peers[("rust", mode)] = frame
        print(f"{'flatquad (rust)':<18} {mode:<10} {update:>10.3f} {collide:>11.3f} {frame:>9.3f}")
    if shapely_version:
        runs = measured[("shapely", None)]
        update, collide = median([r[:2] for r in runs])
        count = runs[0][2]
        good = all(r[2] == expected for r in runs)
        peers[("shapely", None)] = update + collide
        print(
            f"{'shapely ' + shapely_version:<18} {'bulk':<10} {update:>10.3f} {collide:>11.3f} "
            f"{update + collide:>9.3f} {count:>12} {'OK' if good else 'MISMATCH':>8}"
        )
    if peers:
        print()
        for mode, frame in results.items():
            parts = []
            if ("rust", mode) in peers:
                parts.append(f"{frame / peers[('rust', mode)]:.2f}x the Rust demo's frame time")
            if ("shapely", None) in peers:
                parts.append(f"{peers[('shapely', None)] / frame:.1f}x faster than shapely")
            print(f"python {mode}: " + ", ".join(parts))
    if not ok:
        print(f"\nchecksum mismatch: expected {expected} ordered pairs per frame", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
