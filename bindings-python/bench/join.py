"""Bulk bounding-box joins: flatquad beside shapely's STRtree and geoindex-rs,
measured in the same run (interleaved, median of --runs), on N x N random boxes.

    make bench-join                      # 1,000,000 x 1,000,000
    python bench/join.py --n 200000      # smaller

Every contender answers the same question: every (i, j) whose closed boxes
meet. The boxes are float32-representable, so float64 peers and flatquad's
float32 core give the same pairs (checked: the counts must agree).

- flatquad join_bounds: float64 (n, 4) arrays in, a grid built over `right`,
  `left` queried on every core; (2, k) int64 positions out. Build included.
- flatquad BoxIndex + query_bulk, float32 input: the same, float32 read in place.
- shapely STRtree(right).query(left, predicate="intersects"): build + query.
  Making the shapely box geometries is not counted (GeoPandas users have them).
- geoindex-rs: two packed Hilbert R-trees (RTreeBuilder ... finish) and
  rtree.tree_join; both builds included.

Then the GeoDataFrame joins (--frames N, 0 to skip), flatquad.geopandas beside
geopandas itself in the same run, interleaved, the same frames, whole calls
(frames in, joined frame out; the GeoDataFrames are made beforehand, the
right one copied in each call so that geopandas builds its tree as a first
join on a frame does):

- sjoin: N box polygons (the boxes above) with N box polygons, intersects.
- sjoin_nearest: N random points with N random points, distance_col, all ties.

Row counts must agree (and the pairs: a checksum of the index columns).
"""

import argparse
import os
import platform
import statistics
import time

import numpy as np

import flatquad


def boxes(rng, n, world, side):
    xy = rng.uniform(0, world, (n, 2))
    wh = rng.uniform(0, side, (n, 2))
    out = np.hstack([xy, xy + wh]).astype(np.float32).astype(np.float64)
    return np.ascontiguousarray(out)


def contenders(left, right):
    out = {}

    def flatquad_f64():
        return flatquad.join_bounds(left, right).shape[1]

    left32, right32 = left.astype(np.float32), right.astype(np.float32)

    def flatquad_f32():
        return flatquad.BoxIndex(right32).query_bulk(left32).shape[1]

    out["flatquad join_bounds (f64 in)"] = flatquad_f64
    out["flatquad BoxIndex + query_bulk (f32 in)"] = flatquad_f32
    try:
        import shapely

        lg, rg = shapely.box(*left.T), shapely.box(*right.T)

        def shapely_strtree():
            tree = shapely.STRtree(rg)
            return tree.query(lg, predicate="intersects").shape[1]

        out["shapely STRtree.query(intersects)"] = shapely_strtree
    except ImportError:
        print("shapely not installed: skipped")
    try:
        from geoindex_rs import rtree

        def build(b):
            builder = rtree.RTreeBuilder(len(b))
            builder.add(b)
            return builder.finish()

        def geoindex():
            return rtree.tree_join(build(left), build(right)).num_rows

        out["geoindex-rs tree_join (2 builds)"] = geoindex
    except ImportError:
        print("geoindex-rs not installed: skipped (pip install -r requirements-bench.txt)")
    return out


def frame_contenders(n, world, side, rng):
    """flatquad.geopandas and geopandas on the same GeoDataFrames."""
    try:
        import geopandas
        import shapely

        import flatquad.geopandas as fqg
    except ImportError:
        print("geopandas not installed: frame joins skipped (pip install flatquad[geopandas])")
        return {}
    a, b = boxes(rng, n, world, side), boxes(rng, n, world, side)
    polys_l = geopandas.GeoDataFrame({"a": np.arange(n)}, geometry=shapely.box(*a.T))
    polys_r = geopandas.GeoDataFrame({"b": np.arange(n)}, geometry=shapely.box(*b.T))
    points_l = geopandas.GeoDataFrame({"a": np.arange(n)}, geometry=shapely.points(rng.uniform(0, world, (n, 2))))
    points_r = geopandas.GeoDataFrame({"b": np.arange(n)}, geometry=shapely.points(rng.uniform(0, world, (n, 2))))

    def rows(joined):
        return f"{len(joined):,} rows, {int(joined['a'].sum() * 3 + joined['index_right'].sum()):,}"

    # A fresh copy of the right frame per call, for both: geopandas caches its
    # tree on a frame (frame.sindex), and a join builds it once per frame.
    return {
        "flatquad.geopandas.sjoin (intersects)": lambda: rows(fqg.sjoin(polys_l, polys_r.copy())),
        "geopandas.sjoin (intersects)": lambda: rows(geopandas.sjoin(polys_l, polys_r.copy())),
        "flatquad.geopandas.sjoin_nearest":
            lambda: rows(fqg.sjoin_nearest(points_l, points_r.copy(), distance_col="d")),
        "geopandas.sjoin_nearest": lambda: rows(geopandas.sjoin_nearest(points_l, points_r.copy(), distance_col="d")),
    }


def measure(runs, repeats, times=None, cpu=None):
    """``(medians, answers)`` of the runs, interleaved ``repeats`` times
    (``times``, ``cpu``: dicts that get every run's time, and the process's
    CPU time in it, all threads, by name)."""
    times = {} if times is None else times
    cpu = {} if cpu is None else cpu
    times.update({name: [] for name in runs})
    cpu.update({name: [] for name in runs})
    answers = {}
    for _ in range(repeats):
        for name, run in runs.items():  # interleaved: noise hits everyone alike
            start, start_cpu = time.perf_counter(), time.process_time()
            answers[name] = run()
            times[name].append(time.perf_counter() - start)
            cpu[name].append(time.process_time() - start_cpu)
    return {name: statistics.median(times[name]) for name in runs}, answers


def load():
    """The 1-minute load average (the machine's other work), or "?"."""
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "?"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="boxes on each side")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--world", type=float, default=100_000.0, help="side of the square world")
    parser.add_argument("--side", type=float, default=100.0, help="largest box side")
    parser.add_argument("--frames", type=int, default=None,
                        help="rows of each GeoDataFrame in the frame joins (default --n; 0 skips them)")
    args = parser.parse_args()
    rng = np.random.default_rng(42)
    machine = f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs; median of {args.runs}"
    if args.n:
        left, right = boxes(rng, args.n, args.world, args.side), boxes(rng, args.n, args.world, args.side)
        medians, counts = measure(contenders(left, right), args.runs)
        print(f"{args.n:,} x {args.n:,} boxes, sides up to {args.side} in a {args.world:g} world; {machine}")
        base = medians["flatquad join_bounds (f64 in)"]
        print("| implementation | pairs | median s | ratio |\n|---|--:|--:|--:|")
        for name, t in medians.items():
            print(f"| {name} | {counts[name]:,} | {t:.3f} | {t / base:.2f} |")
        if len(set(counts.values())) != 1:
            raise SystemExit(f"pair counts differ: {counts}")
    frames = args.n if args.frames is None else args.frames
    runs = frame_contenders(frames, args.world, args.side, rng) if frames else {}
    if runs:
        before, times, cpu = load(), {}, {}
        medians, answers = measure(runs, args.runs, times, cpu)
        print(f"\nGeoDataFrame joins, {frames:,} x {frames:,} rows; {machine}; "
              f"load average {before} before, {load()} after")
        print("| join | implementation | rows, checksum | median s | runs s | ratio to geopandas "
              "| CPU s (median) | CPU ratio |\n|---|---|--:|--:|--:|--:|--:|--:|")
        for join in ("sjoin (intersects)", "sjoin_nearest"):
            ours, theirs = f"flatquad.geopandas.{join}", f"geopandas.{join}"
            for name in (ours, theirs):
                print(f"| {join} | {name.split('.' + join)[0]} | {answers[name]} | {medians[name]:.3f} "
                      f"| {', '.join(f'{t:.2f}' for t in times[name])} | {medians[name] / medians[theirs]:.2f} "
                      f"| {statistics.median(cpu[name]):.2f} "
                      f"| {statistics.median(cpu[name]) / statistics.median(cpu[theirs]):.2f} |")
            if answers[ours] != answers[theirs]:
                raise SystemExit(f"{join}: the answers differ: {answers[ours]} != {answers[theirs]}")


if __name__ == "__main__":
    main()
