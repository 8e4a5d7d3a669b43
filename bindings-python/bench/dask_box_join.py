"""The largest box join that fits this machine's memory, distributed:
flatquad.dask.join_bounds over boxes made on the workers, on a LocalCluster.

    make bench-dask-box-join      # 2M (with the peer), 10M, 30M and 100M boxes a side
    python bench/dask_box_join.py --sizes 1000000 4000000

Each side is N random boxes (sides up to --side, in a square world grown with
N so that a box meets about one other), float64 (n, 4) dask arrays of chunks of
--chunk rows, each chunk made on a worker by its own seeded generator (the
client holds none). The pairs are counted on the workers (and a checksum of
them reduced there); nothing is gathered. Sizes run in turn, smallest first,
one run each (the sizes are what is measured); a size that fails (a worker
out of memory) ends the run. For the smallest size, dask-geopandas joins the
same boxes as box polygons (made on the workers from the same chunks), its
spatial_shuffle counted, for the same count.
"""

import argparse
import math
import os
import platform
import time

import numpy as np


def boxes(n, chunk, world, side, seed):
    """A dask array of ``n`` random boxes, each chunk made by its own generator."""
    import dask
    import dask.array as da

    def make(rows, part):
        rng = np.random.default_rng(seed * 1_000_003 + part)
        corner = rng.uniform(0, world, (rows, 2))
        size = rng.uniform(0, side, (rows, 2))
        # float32 numbers, so that flatquad's float32 boxes are these exactly
        # and both contenders count the same pairs.
        return np.hstack([corner, corner + size]).astype(np.float32).astype(np.float64)

    sizes = [min(chunk, n - start) for start in range(0, n, chunk)]
    parts = [da.from_delayed(dask.delayed(make)(rows, p), shape=(rows, 4), dtype=np.float64)
             for p, rows in enumerate(sizes)]
    return da.concatenate(parts, axis=0)


def count(pairs):
    """``(pairs, checksum)`` of a ``(2, k)`` dask array, reduced on the workers."""
    import dask

    def part(block):
        return np.array([block.shape[1], int((block[0] * 7 + block[1]).sum())], dtype=np.int64)

    parts = [dask.delayed(part)(d) for d in pairs.to_delayed().ravel()]
    total = dask.delayed(lambda xs: np.sum(xs, axis=0))(parts).compute()
    return int(total[0]), int(total[1])


def peer_count(left, right):
    """dask-geopandas' sjoin of the same boxes as polygons, shuffle counted."""
    import dask
    import dask.dataframe as dd
    import dask_geopandas
    import geopandas
    import shapely

    def frame(block, start, name):
        return geopandas.GeoDataFrame({name: np.arange(start, start + len(block))},
                                      geometry=shapely.box(*block.T))

    def side(arr, name):
        starts = np.cumsum((0,) + arr.chunks[0])[:-1]
        meta = geopandas.GeoDataFrame({name: np.array([], dtype=np.int64)}, geometry=[])
        parts = [dask.delayed(frame)(d, int(s), name) for d, s in zip(arr.to_delayed().ravel(), starts)]
        return dask_geopandas.from_dask_dataframe(dd.from_delayed(parts, meta=meta)).spatial_shuffle()

    joined = dask_geopandas.sjoin(side(left, "l"), side(right, "r"), predicate="intersects")

    def part(f):
        return np.array([len(f), int((f["l"].to_numpy() * 7 + f["r"].to_numpy()).sum())], dtype=np.int64)

    parts = [dask.delayed(part)(d) for d in joined.to_delayed()]
    total = dask.delayed(lambda xs: np.sum(xs, axis=0))(parts).compute()
    return int(total[0]), int(total[1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2_000_000, 10_000_000, 30_000_000, 100_000_000])
    parser.add_argument("--chunk", type=int, default=2_000_000)
    parser.add_argument("--side", type=float, default=100.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--no-peer", action="store_true")
    args = parser.parse_args()

    from distributed import Client, LocalCluster

    import flatquad.dask as fqd

    cores = os.cpu_count() or 1
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    threads = max(1, cores // args.workers)
    machine = f"{platform.processor() or platform.machine()}, {cores} CPUs, {memory / 2**30:.0f} GiB"
    rows = []
    with LocalCluster(n_workers=args.workers, threads_per_worker=threads, processes=True,
                      memory_limit=int(memory * 0.85 / args.workers), dashboard_address=None,
                      silence_logs=50) as cluster, Client(cluster):
        for k, n in enumerate(args.sizes):
            # About one other box meeting each: world area ~ n * (2 * mean side)^2.
            world = math.sqrt(n) * args.side
            left, right = boxes(n, args.chunk, world, args.side, 1), boxes(n, args.chunk, world, args.side, 2)
            start = time.perf_counter()
            try:
                pairs, checksum = count(fqd.join_bounds(left, right))
            except Exception as error:  # noqa: BLE001 - reported: the size did not fit
                print(f"{n:,} x {n:,}: failed after {time.perf_counter() - start:.1f} s: {error!r}")
                break
            took = time.perf_counter() - start
            print(f"  flatquad.dask.join_bounds {n:,} x {n:,}: {took:.1f} s, {pairs:,} pairs", flush=True)
            rows.append((f"flatquad.dask.join_bounds, {n:,} x {n:,}", pairs, checksum, took))
            if k == 0 and not args.no_peer:
                start = time.perf_counter()
                peer = peer_count(left, right)
                took = time.perf_counter() - start
                print(f"  dask-geopandas sjoin (box polygons, spatial_shuffle counted): {took:.1f} s", flush=True)
                rows.append((f"dask-geopandas sjoin of box polygons, spatial_shuffle counted, {n:,} x {n:,}",
                             peer[0], peer[1], took))
                if peer != (pairs, checksum):
                    raise SystemExit(f"the answers differ: {peer} against {(pairs, checksum)}")
    print(f"\nBox joins on a LocalCluster of {args.workers} worker(s) x {threads} thread(s); {machine}; one run each")
    print("| join | pairs | checksum | s |\n|---|--:|--:|--:|")
    for name, pairs, checksum, took in rows:
        print(f"| {name} | {pairs:,} | {checksum:,} | {took:.1f} |")


if __name__ == "__main__":
    main()
