"""Static queries from Python: docs/workload.md's static-1m-queries (the 100,000
agents of uniform-100k, never moved, then 1,000,000 rectangle queries of side 4
and 1,000,000 point queries from the same generator), flatquad beside shapely's
STRtree and geoindex-rs, in the same run (interleaved, medians of --runs).

    make bench-static-python             # RAYON_NUM_THREADS=1, then 2
    python bench/static_queries.py --runs 5

Every contender answers the same question, and its hit totals must be the
workload's checksums (381,145 rectangle hits, 95,647 point hits) or the script
exits with 1. The boxes and queries are float32 values; the float64 peers get
them exactly. Each row times the build once and each kind of query once:

- flatquad Grid (cells of 6 agent sides, as the Rust demo's) and Quadtree (16 a
  leaf, the demo's depth): one ``insert_many`` of the agents; the queries in one
  ``query_many`` (per-query rows) and, separately, one ``query_bulk`` (the
  ``(2, k)`` pairs shapely returns). A point is the query ``(x, y, x, y)``.
- shapely ``STRtree(boxes)``; ``tree.query(geometries)``, predicate None (the
  boxes' envelopes are the boxes): box polygons and points made beforehand, not
  timed, as a GeoPandas user holds them.
- geoindex-rs: a packed Hilbert R-tree (``RTreeBuilder``, float32 like ours);
  the queries as a second tree and ``tree_join`` (its batch form, that build
  timed), and ``search`` one query a call (its only per-query form), timed on
  --search-queries queries and scaled to the million.

flatquad's batch calls run on rayon's pool (``RAYON_NUM_THREADS``, default every
core); shapely and geoindex-rs answer on one thread.
"""

import argparse
import importlib.util
import os
import platform
import statistics
import sys
import time

import numpy as np

import flatquad


def _agents_example():
    """examples/agents.py, whose generator and Rust-demo parameters this uses."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "agents.py")
    spec = importlib.util.spec_from_file_location("agents_example", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_agents = _agents_example()
GRID_CELL, MAX_ELEMENTS = _agents.GRID_CELL, _agents.MAX_ELEMENTS
cpu_model, default_max_depth = _agents.cpu_model, _agents.default_max_depth
lcg_draws, pool_threads = _agents.lcg_draws, _agents.pool_threads

AGENTS, WORLD, SIZE = 100_000, np.float32(4096.0), np.float32(4.0)
QUERIES, QUERY_SIDE = 1_000_000, np.float32(4.0)
RECT_HITS, POINT_HITS = 381_145, 95_647


def workload(queries=QUERIES):
    """``(agents, rects, points)`` as float32 arrays, drawn as bench/src/workload.rs
    draws them: the agents' x, y, vx, vy each, then each rectangle query's x, y,
    then each point's x, y, from one generator."""
    d = lcg_draws(4 * AGENTS + 4 * queries)
    a = d[: 4 * AGENTS].reshape(AGENTS, 4)
    x, y = a[:, 0] * (WORLD - SIZE), a[:, 1] * (WORLD - SIZE)
    agents = np.column_stack([x, y, x + SIZE, y + SIZE])
    q = d[4 * AGENTS : 4 * AGENTS + 2 * queries].reshape(queries, 2) * (WORLD - QUERY_SIDE)
    rects = np.column_stack([q[:, 0], q[:, 1], q[:, 0] + QUERY_SIDE, q[:, 1] + QUERY_SIDE])
    points = d[4 * AGENTS + 2 * queries :].reshape(queries, 2) * WORLD
    return agents, rects, points


def both_kinds(name, call, run_of, queries):
    """The rows ``(name, "<kind> queries: <call>")`` of ``run_of(q)`` for the
    rectangle and the point queries, ``queries`` being ``(rects, point_rects)``."""
    return {(name, f"{kind} queries: {call}"): run_of(q) for kind, q in zip(("rect", "point"), queries)}


def flatquad_rows(name, make, agents, rects, points):
    """The build, then the queries through ``query_many`` and ``query_bulk``."""
    point_rects = np.ascontiguousarray(np.hstack([points, points]))
    ids = np.arange(len(agents), dtype=np.uint32)
    built = {}

    def build():
        built["index"] = make()
        built["index"].insert_many(agents, ids=ids)
        return len(built["index"])

    def many(queries):
        return lambda: len(built["index"].query_many(queries)[1])

    def bulk(queries):
        return lambda: built["index"].query_bulk(queries).shape[1]

    both = (rects, point_rects)
    return {(name, "build"): build, **both_kinds(name, "query_many", many, both), **both_kinds(name, "query_bulk", bulk, both)}


def shapely_rows(agents, rects, points):
    import shapely

    boxes = shapely.box(*agents.T.astype(np.float64))
    query_boxes = shapely.box(*rects.T.astype(np.float64))
    query_points = shapely.points(points.astype(np.float64))
    built = {}
    name = f"shapely {shapely.__version__} STRtree"

    def build():
        built["tree"] = shapely.STRtree(boxes)
        return len(built["tree"])

    def query(geometries):
        return lambda: built["tree"].query(geometries).shape[1]

    return {(name, "build"): build, **both_kinds(name, "query", query, (query_boxes, query_points))}


def geoindex_rows(agents, rects, points, search_queries):
    from importlib.metadata import version

    from geoindex_rs import rtree

    def tree_of(b):
        builder = rtree.RTreeBuilder(len(b), coord_type="float32")
        builder.add(np.ascontiguousarray(b))
        return builder.finish()

    point_rects = np.ascontiguousarray(np.hstack([points, points]))
    built = {}
    name = f"geoindex-rs {version('geoindex-rs')} RTree"

    def build():
        built["tree"] = tree_of(agents)
        return len(agents)

    def join(queries):
        return lambda: rtree.tree_join(tree_of(queries), built["tree"]).num_rows

    def search(queries):
        # One call a query: timed on the first `search_queries`, scaled to the
        # million (the count is scaled too, so it is checked only when all run).
        part = queries[:search_queries].astype(np.float64).tolist()

        def run():
            tree, hits = built["tree"], 0
            for x1, y1, x2, y2 in part:
                hits += len(rtree.search(tree, x1, y1, x2, y2))
            return hits

        return run

    both = (rects, point_rects)
    return {(name, "build"): build, **both_kinds(name, "tree_join", join, both), **both_kinds(name, "search", search, both)}


def measure(runs, repeats):
    """Each run's median time and its answer, the runs interleaved ``repeats`` times."""
    times = {key: [] for key in runs}
    answers = {}
    for _ in range(repeats):
        for key, run in runs.items():  # in order: each build before its queries
            start = time.perf_counter()
            answers[key] = run()
            times[key].append(time.perf_counter() - start)
    return {key: statistics.median(t) for key, t in times.items()}, answers


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of every row, interleaved; medians reported")
    parser.add_argument("--search-queries", type=int, default=100_000,
                        help="queries geoindex-rs's per-call search is timed on (then scaled to the million)")
    args = parser.parse_args(argv)

    agents, rects, points = workload()
    bounds = (0.0, 0.0, float(WORLD), float(WORLD))
    runs = {}
    runs.update(flatquad_rows("flatquad Grid", lambda: flatquad.Grid(bounds, cell_size=GRID_CELL * SIZE),
                              agents, rects, points))
    runs.update(flatquad_rows(
        "flatquad Quadtree",
        lambda: flatquad.Quadtree(bounds, MAX_ELEMENTS, default_max_depth(WORLD, SIZE)),
        agents, rects, points))
    for peer in (shapely_rows, lambda a, r, p: geoindex_rows(a, r, p, args.search_queries)):
        try:
            runs.update(peer(agents, rects, points))
        except ImportError as e:
            print(f"({e.name} is not installed: pip install -r requirements-bench.txt to measure it)")

    print(f"static-1m-queries from Python: {AGENTS:,} agents of side {SIZE:g} in {WORLD:g}^2, "
          f"{QUERIES:,} rectangle queries of side {QUERY_SIDE:g}, {QUERIES:,} point queries; "
          f"medians of {args.runs} interleaved runs")
    print(f"machine: {os.cpu_count()} cpus, {cpu_model()}; Python {platform.python_version()}, "
          f"numpy {np.__version__}, flatquad {flatquad.__version__} on {pool_threads()} thread(s) "
          f"(RAYON_NUM_THREADS); load average {os.getloadavg()[0]:.1f}")
    medians, answers = measure(runs, args.runs)

    ok = True
    scale = QUERIES / args.search_queries
    best = {}
    print("\n| implementation | what | ms | hits | check |\n|---|---|--:|--:|---|")
    for (name, what), seconds in medians.items():
        scaled = what.endswith(": search")
        ms = 1e3 * seconds * (scale if scaled else 1)
        hits = answers[(name, what)]
        if what == "build":
            check, shown = ("OK" if hits == AGENTS else "MISMATCH"), f"{hits:,} boxes"
        else:
            expected = RECT_HITS if what.startswith("rect") else POINT_HITS
            check = "OK" if hits == expected else "MISMATCH"
            if scaled and args.search_queries < QUERIES:
                check = f"{hits:,} in the first {args.search_queries:,}"
            kind = what.split(":")[0]
            best.setdefault(kind, {})
            peer = "flatquad" if name.startswith("flatquad") else name
            best[kind][peer] = min(best[kind].get(peer, float("inf")), ms)
            shown = f"{hits:,}"
        ok &= check != "MISMATCH"
        print(f"| {name} | {what}{' (x' + format(scale, 'g') + ')' if scaled else ''} | {ms:.1f} | {shown} | {check} |")

    print("\nflatquad's best call against each peer's best (queries only, builds apart; above 1: flatquad faster)")
    for kind, by_peer in best.items():
        ours = by_peer.pop("flatquad")
        print(f"  {kind}: " + ", ".join(f"{theirs / ours:.2f}x {peer}" for peer, theirs in by_peer.items()))
    if not ok:
        print("\nhit totals differ from the workload's checksums", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
