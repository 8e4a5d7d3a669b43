"""Distributed point-in-polygon join from GeoParquet on disk: flatquad.dask.sjoin
beside dask-geopandas' sjoin, in the same run, on a distributed.LocalCluster.

    make bench-dask-join                                  # 10,000,000 points x 1,000,000 polygons
    python bench/dask_join.py --points 2000000 --polygons 200000 --workers 1 2

The data are written once (reused when present) as GeoParquet partitions under
--data, each partition made by its own seeded generator, so the client never
holds more than one partition: --points random points and --polygons random
hexagons (radius up to --radius) in a square world of side --world.

Contenders, each a whole run from the files on disk to a joined frame on the
workers (its row count and a checksum of the pairs are reduced there; nothing
is gathered):

- flatquad.dask.sjoin on the files as written (no shuffle: it makes its own
  cells from a sample);
- dask-geopandas, shuffle counted: spatial_shuffle() of both sides (Hilbert),
  then dask_geopandas.sjoin, which joins only the partitions whose extents meet
  (what a user must run: without it dask-geopandas joins every partition with
  every other);
- dask-geopandas on pre-shuffled input: the shuffled frames written to
  GeoParquet beforehand (not counted) and read back with their spatial
  partitions.

For each number of workers (each worker gets all the machine's cores divided
among the workers as threads, and its share of the memory): the contenders
interleaved, median of --runs. Rows and checksums must agree.
"""

import argparse
import os
import platform
import statistics
import time
from pathlib import Path

import numpy as np


def write_data(data, n_points, n_polygons, parts_points, parts_polygons, world, radius):
    """GeoParquet partitions, one generator call each (written once)."""
    import geopandas
    import shapely

    data = Path(data)
    done = data / "done"
    if done.exists():
        return
    (data / "points").mkdir(parents=True, exist_ok=True)
    (data / "polygons").mkdir(parents=True, exist_ok=True)
    start = 0
    for p, n in enumerate(np.diff(np.linspace(0, n_points, parts_points + 1).astype(np.int64))):
        rng = np.random.default_rng(1000 + p)
        frame = geopandas.GeoDataFrame(
            {"pid": np.arange(start, start + n, dtype=np.int64)},
            geometry=shapely.points(rng.uniform(0, world, (n, 2))),
            crs="EPSG:3857",
        )
        frame.to_parquet(data / "points" / f"part.{p}.parquet", index=False)
        start += n
    start = 0
    angles = np.linspace(0, 2 * np.pi, 7)[:-1]
    for p, n in enumerate(np.diff(np.linspace(0, n_polygons, parts_polygons + 1).astype(np.int64))):
        rng = np.random.default_rng(2000 + p)
        centres = rng.uniform(0, world, (n, 2))
        r = rng.uniform(radius / 4, radius, (n, 1))
        ring = np.stack([centres[:, :1] + r * np.cos(angles), centres[:, 1:] + r * np.sin(angles)], axis=-1)
        ring = np.concatenate([ring, ring[:, :1]], axis=1)
        frame = geopandas.GeoDataFrame(
            {"zid": np.arange(start, start + n, dtype=np.int64)},
            geometry=shapely.polygons(ring),
            crs="EPSG:3857",
        )
        frame.to_parquet(data / "polygons" / f"part.{p}.parquet", index=False)
        start += n
    done.touch()


def write_shuffled(data):
    """The peer's pre-shuffled input: spatial_shuffle() of each side, written
    (with its spatial partitions) once."""
    import dask_geopandas

    for side in ("points", "polygons"):
        out = Path(data) / f"{side}-shuffled"
        if not (out / "done").exists():
            dask_geopandas.read_parquet(str(Path(data) / side)).spatial_shuffle().to_parquet(str(out))
            (out / "done").touch()


def summary(joined):
    """``(rows, checksum)`` of a joined dask frame, reduced on the workers."""
    import dask

    def part(frame):
        return np.array([len(frame), int((frame["pid"].to_numpy() * 7 + frame["zid"].to_numpy()).sum())])

    parts = [dask.delayed(part)(d) for d in joined.to_delayed()]
    total = dask.delayed(lambda xs: np.sum(xs, axis=0))(parts).compute()
    return f"{int(total[0]):,} rows, {int(total[1]):,}"


def _no_attrs(frame):
    frame = frame.copy(deep=False)
    frame.attrs = {}
    return frame


def peer_input(frame):
    """The frame with a meta without ``attrs``: dask_geopandas.read_parquet
    puts the partitions' extents (a GeoSeries) in its meta's ``attrs``, and
    dask_geopandas.sjoin's ``geopandas.sjoin(left._meta, right._meta)`` then
    fails in pandas 3.1's concat (comparing two frames' ``attrs``). The
    spatial partitions are kept."""
    parts = frame.spatial_partitions
    out = frame.map_partitions(_no_attrs, meta=_no_attrs(frame._meta))
    out.spatial_partitions = parts
    return out


def contenders(data):
    import dask_geopandas

    import flatquad.dask as fqd

    def read(side):
        return dask_geopandas.read_parquet(str(Path(data) / side))

    def flatquad_run():
        return summary(fqd.sjoin(read("points"), read("polygons"), predicate="intersects"))

    def peer_shuffled():
        points = peer_input(read("points")).spatial_shuffle()
        polygons = peer_input(read("polygons")).spatial_shuffle()
        return summary(dask_geopandas.sjoin(points, polygons, predicate="intersects"))

    def peer_preshuffled():
        points, polygons = peer_input(read("points-shuffled")), peer_input(read("polygons-shuffled"))
        assert points.spatial_partitions is not None and polygons.spatial_partitions is not None
        return summary(dask_geopandas.sjoin(points, polygons, predicate="intersects"))

    return {
        "flatquad.dask.sjoin": flatquad_run,
        "dask-geopandas sjoin, spatial_shuffle counted": peer_shuffled,
        "dask-geopandas sjoin, pre-shuffled input": peer_preshuffled,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=10_000_000)
    parser.add_argument("--polygons", type=int, default=1_000_000)
    parser.add_argument("--point-partitions", type=int, default=None, help="default: one per 500,000 points")
    parser.add_argument("--polygon-partitions", type=int, default=None, help="default: one per 250,000 polygons")
    parser.add_argument("--world", type=float, default=100_000.0)
    parser.add_argument("--radius", type=float, default=60.0, help="largest hexagon radius")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", nargs="*", default=None, help="contenders whose name contains one of these")
    parser.add_argument("--data", default=None, help="directory of the GeoParquet files (default: in the target dir)")
    args = parser.parse_args()
    data = args.data or os.path.join(
        os.environ.get("CARGO_TARGET_DIR", "target"), f"bench-dask-join-{args.points}x{args.polygons}")
    pp = args.point_partitions or max(1, -(-args.points // 500_000))
    qp = args.polygon_partitions or max(1, -(-args.polygons // 250_000))
    start = time.perf_counter()
    write_data(data, args.points, args.polygons, pp, qp, args.world, args.radius)
    print(f"data in {data} ({pp} + {qp} partitions): {time.perf_counter() - start:.1f} s")

    from distributed import Client, LocalCluster

    cores = os.cpu_count() or 1
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    runs = contenders(data)
    if args.only:
        runs = {k: v for k, v in runs.items() if any(o in k for o in args.only)}
    machine = f"{platform.processor() or platform.machine()}, {cores} CPUs, {memory / 2**30:.0f} GiB"
    for workers in args.workers:
        threads = max(1, cores // workers)
        with LocalCluster(n_workers=workers, threads_per_worker=threads, processes=True,
                          memory_limit=int(memory * 0.85 / workers), dashboard_address=None,
                          silence_logs=40) as cluster, Client(cluster):
            if any("pre-shuffled" in k for k in runs):
                start = time.perf_counter()
                write_shuffled(data)
                print(f"pre-shuffled input written: {time.perf_counter() - start:.1f} s")
            times = {k: [] for k in runs}
            answers = {}
            for _ in range(args.runs):
                for name, run in runs.items():
                    start = time.perf_counter()
                    answers[name] = run()
                    times[name].append(time.perf_counter() - start)
                    print(f"  {name}: {times[name][-1]:.1f} s ({answers[name]})", flush=True)
        base = statistics.median(times["flatquad.dask.sjoin"]) if "flatquad.dask.sjoin" in times else None
        print(f"\n{args.points:,} points x {args.polygons:,} polygons from GeoParquet, {workers} worker(s) x "
              f"{threads} thread(s); {machine}; median of {args.runs}, load average "
              f"{os.getloadavg()[0]:.1f}")
        print("| implementation | rows, checksum | median s | runs s | ratio to flatquad |\n|---|--:|--:|--:|--:|")
        for name, t in times.items():
            m = statistics.median(t)
            ratio = f"{m / base:.2f}" if base else ""
            print(f"| {name} | {answers[name]} | {m:.1f} | {', '.join(f'{x:.1f}' for x in t)} | {ratio} |")
        if len(set(answers.values())) != 1:
            raise SystemExit(f"the answers differ: {answers}")


if __name__ == "__main__":
    main()
