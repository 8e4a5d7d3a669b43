"""Nearest-neighbour queries: flatquad beside shapely's STRtree.query_nearest,
measured in the same run (interleaved, median of --runs).

    make bench-nearest                   # 1,000,000 queries over the static 100k agents
    python bench/nearest.py --queries 100000

The elements are the agents of uniform-100k (AGENTS.md's LCG, as
examples/agents.py draws them: 100,000 squares of side 4 in a 4096 world),
never moved; the queries are uniform random points over the world (float32
values, the core's precision, given to both as float64).

- flatquad nearest_many(points, k=1) and (k=10), each structure in turn
  (Quadtree, Grid, LooseGrid, LooseQuadtree with the Rust demo's parameters):
  one call, the GIL released; the index is built once, outside the timing
  (shapely's tree too).
- shapely STRtree(boxes).query_nearest(points, return_distance=True): every
  element at the smallest distance (all ties). It has no k > 1.

The answers are checked: for k=1, flatquad's distance is shapely's (up to
rounding: GEOS measures to the box's edges, flatquad per axis) and its element
one of shapely's tied nearest ones; for k=10, the first of each row is k=1's
answer and the distances ascend.
"""

import argparse
import os
import pathlib
import platform
import statistics
import sys
import time

import numpy as np

import flatquad

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "examples"))
from agents import Agents, make_index  # noqa: E402  (the workload's agents and parameters)

INDEXES = {"Quadtree": "quadtree", "Grid": "grid", "LooseGrid": "loose-grid"}


def check_k1(offsets, handles, dists, row_of, shapely_rows, shapely_dists):
    """flatquad's k=1 answers against shapely's tied nearest sets."""
    n = len(offsets) - 1
    assert (np.diff(offsets) == 1).all(), "k=1 must find one element per query"
    query, tree_row = shapely_rows
    best = np.full(n, np.inf)
    np.minimum.at(best, query, shapely_dists)
    assert np.allclose(dists, best, rtol=1e-12, atol=1e-9), "nearest distances differ from shapely's"
    ours = row_of(handles)
    # Each query's tied rows from shapely (sorted by query), and ours among them.
    order = np.lexsort((tree_row, query))
    query, tree_row = query[order], tree_row[order]
    first = np.searchsorted(query, np.arange(n))
    last = np.searchsorted(query, np.arange(n), side="right")
    missing = [i for i in range(n) if ours[i] not in tree_row[first[i] : last[i]]]
    assert not missing, f"{len(missing)} answers not among shapely's nearest (first: query {missing[:5]})"


def check_k10(offsets, dists, k1_handles, handles):
    assert (np.diff(offsets) == 10).all()
    assert (handles[offsets[:-1]] == k1_handles).all(), "k=10's first is not k=1's answer"
    rows = dists.reshape(-1, 10)
    assert (np.diff(rows, axis=1) >= 0).all(), "k=10 distances do not ascend"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    n, world, size = 100_000, 4096.0, 4.0
    rects = Agents(n, world, size).rects
    # float32-exact points: the core's precision, so that shapely answers the same question.
    points = np.random.default_rng(7).uniform(0, world, (args.queries, 2)).astype(np.float32).astype(np.float64)
    indexes = {}
    for name, key in INDEXES.items():
        index = make_index(key, world, size)
        index.insert_many(rects, ids=np.arange(n, dtype=np.uint32))
        indexes[name] = index
    tree = flatquad.LooseQuadtree((0, 0, world, world), 16)
    tree.insert_many(rects, ids=np.arange(n, dtype=np.uint32))
    indexes["LooseQuadtree"] = tree

    runs = {}
    for name, index in indexes.items():
        runs[f"flatquad {name} nearest_many k=1"] = (lambda index=index: index.nearest_many(points, k=1))
        runs[f"flatquad {name} nearest_many k=10"] = (lambda index=index: index.nearest_many(points, k=10))
    try:
        import shapely

        boxes = shapely.box(*rects.astype(np.float64).T)
        strtree = shapely.STRtree(boxes)
        geoms = shapely.points(points)
        runs["shapely STRtree.query_nearest (k=1, all ties)"] = lambda: strtree.query_nearest(
            geoms, return_distance=True
        )
    except ImportError:
        print("shapely not installed: skipped (pip install -r requirements-bench.txt)")

    times = {name: [] for name in runs}
    answers = {}
    for _ in range(args.runs):
        for name, run in runs.items():  # interleaved: noise hits everyone alike
            start = time.perf_counter()
            answers[name] = run()
            times[name].append(time.perf_counter() - start)

    shapely_name = "shapely STRtree.query_nearest (k=1, all ties)"
    for name, index in indexes.items():
        # Each element's id is its row: a handle's row by a sorted lookup.
        elements = index.elements()
        order = np.argsort(elements.handles)
        sorted_handles, rows_by_handle = elements.handles[order], elements.ids[order]

        def row_of(handles):
            return rows_by_handle[np.searchsorted(sorted_handles, handles)]

        offsets, k1, d1 = answers[f"flatquad {name} nearest_many k=1"]
        if shapely_name in answers:
            rows, dists = answers[shapely_name]
            check_k1(offsets, k1, d1, row_of, rows, dists)
        offsets10, k10, d10 = answers[f"flatquad {name} nearest_many k=10"]
        check_k10(offsets10, d10, k1, k10)

    print(f"{args.queries:,} nearest queries over the {n:,} static agents of uniform-100k; "
          f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs; median of {args.runs}")
    print("answers checked: k=1 against shapely's tied nearest sets, k=10 against k=1")
    base = statistics.median(times[shapely_name]) if shapely_name in times else None
    print("| implementation | median s | queries/s | shapely / this |\n|---|--:|--:|--:|")
    for name in runs:
        t = statistics.median(times[name])
        ratio = f"{base / t:.1f}" if base else "-"
        print(f"| {name} | {t:.3f} | {args.queries / t:,.0f} | {ratio} |")


if __name__ == "__main__":
    main()
