"""GeoPandas and Dask joins: flatquad beside geopandas.sjoin and
dask-geopandas' sjoin, measured in the same run (interleaved, median of
--runs), the joined rows checked equal in count.

    python bench/geo.py --points 1000000 --polygons 1000000          # GeoPandas
    python bench/geo.py --dask --points 5000000 --polygons 5000000   # Dask, LocalCluster

Data: points uniform in a square world, and small polygons (hexagons of radius
up to --radius) uniform in the same world; left = points, right = polygons,
predicate "intersects".

Dask: a distributed.LocalCluster of --workers processes, one thread each, on
this machine; both sides as dask-geopandas frames of --partitions partitions
(persisted before timing). dask-geopandas' sjoin is given frames whose
spatial_partitions are computed (so it pairs only partitions whose convex
hulls meet) after a Hilbert spatial_shuffle (timed separately: its own
preparation); flatquad.dask.sjoin takes the frames as they are (its spatial
partitioning is inside the timing).
"""

import argparse
import os
import statistics
import time

import numpy as np


def data(n_points, n_polygons, world, radius, seed=0):
    import geopandas
    import shapely

    rng = np.random.default_rng(seed)
    points = geopandas.GeoDataFrame(
        {"pid": np.arange(n_points)}, geometry=shapely.points(rng.uniform(0, world, (n_points, 2))), crs="EPSG:3857"
    )
    angles = np.linspace(0, 2 * np.pi, 7)[:-1]
    ring = np.column_stack([np.cos(angles), np.sin(angles)])
    centres = rng.uniform(0, world, (n_polygons, 2))
    radii = rng.uniform(radius / 4, radius, n_polygons)
    coords = centres[:, None, :] + radii[:, None, None] * ring[None]
    polygons = shapely.polygons(coords)
    zones = geopandas.GeoDataFrame({"zid": np.arange(n_polygons)}, geometry=polygons, crs="EPSG:3857")
    return points, zones


def timed(runs, contenders):
    times = {name: [] for name in contenders}
    rows = {}
    for _ in range(runs):
        for name, run in contenders.items():
            start = time.perf_counter()
            rows[name] = run()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}, rows


def report(title, medians, rows, base):
    print(title)
    print("| implementation | rows | median s | ratio |\n|---|--:|--:|--:|")
    for name, t in medians.items():
        print(f"| {name} | {rows[name]:,} | {t:.3f} | {t / medians[base]:.2f} |")
    if len(set(rows.values())) != 1:
        raise SystemExit(f"row counts differ: {rows}")


def bench_geopandas(args, points, zones):
    import geopandas

    import flatquad.geopandas

    medians, rows = timed(args.runs, {
        "flatquad.geopandas.sjoin": lambda: len(flatquad.geopandas.sjoin(points, zones)),
        "geopandas.sjoin": lambda: len(geopandas.sjoin(points, zones)),
    })
    report(f"GeoPandas: {len(points):,} points x {len(zones):,} polygons, intersects; "
           f"{os.cpu_count()} CPUs, median of {args.runs}", medians, rows, "flatquad.geopandas.sjoin")


def bench_dask(args, points, zones):
    import dask_geopandas
    from distributed import Client, LocalCluster, wait

    import flatquad.dask

    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                      dashboard_address=None, silence_logs=40) as cluster, Client(cluster) as client:
        left = client.persist(dask_geopandas.from_geopandas(points, npartitions=args.partitions))
        right = client.persist(dask_geopandas.from_geopandas(zones, npartitions=args.partitions))
        wait([left, right])
        start = time.perf_counter()
        left_sh = client.persist(left.spatial_shuffle(by="hilbert"))
        right_sh = client.persist(right.spatial_shuffle(by="hilbert"))
        wait([left_sh, right_sh])
        left_sh.calculate_spatial_partitions()
        right_sh.calculate_spatial_partitions()
        shuffle = time.perf_counter() - start
        medians, rows = timed(args.runs, {
            "flatquad.dask.sjoin": lambda: len(flatquad.dask.sjoin(left, right).compute()),
            "dask_geopandas.sjoin (spatially shuffled input)":
                lambda: len(dask_geopandas.sjoin(left_sh, right_sh, predicate="intersects").compute()),
            "dask_geopandas.sjoin (input as given)":
                lambda: len(dask_geopandas.sjoin(left, right, predicate="intersects").compute()),
        } if not args.skip_unshuffled else {
            "flatquad.dask.sjoin": lambda: len(flatquad.dask.sjoin(left, right).compute()),
            "dask_geopandas.sjoin (spatially shuffled input)":
                lambda: len(dask_geopandas.sjoin(left_sh, right_sh, predicate="intersects").compute()),
        })
        report(f"Dask: {len(points):,} points x {len(zones):,} polygons, intersects; LocalCluster of "
               f"{args.workers} worker processes x 1 thread, {args.partitions} partitions a side; "
               f"{os.cpu_count()} CPUs, median of {args.runs}; dask-geopandas' spatial_shuffle + "
               f"calculate_spatial_partitions beforehand took {shuffle:.1f} s (not counted)",
               medians, rows, "flatquad.dask.sjoin")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=1_000_000)
    parser.add_argument("--polygons", type=int, default=1_000_000)
    parser.add_argument("--world", type=float, default=100_000.0)
    parser.add_argument("--radius", type=float, default=50.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dask", action="store_true", help="the Dask joins on a LocalCluster")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--partitions", type=int, default=16)
    parser.add_argument("--skip-unshuffled", action="store_true",
                        help="leave out dask-geopandas on unshuffled input (all partition pairs)")
    args = parser.parse_args()
    points, zones = data(args.points, args.polygons, args.world, args.radius)
    if args.dask:
        bench_dask(args, points, zones)
    else:
        bench_geopandas(args, points, zones)


if __name__ == "__main__":
    main()
