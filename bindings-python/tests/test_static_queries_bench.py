"""bench/static_queries.py draws docs/workload.md's static-1m-queries: its queries
give the workload's checksums (the hit totals `make bench-static-python` checks every
contender against), and its rows agree with brute force on a sample."""

import importlib.util
import pathlib

import numpy as np
import pytest

import flatquad


@pytest.fixture(scope="module")
def bench():
    path = pathlib.Path(__file__).resolve().parents[1] / "bench" / "static_queries.py"
    spec = importlib.util.spec_from_file_location("static_queries_bench", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def grid(bench):
    agents, _, _ = bench.workload(queries=1)
    index = flatquad.Grid((0.0, 0.0, float(bench.WORLD), float(bench.WORLD)), cell_size=24.0)
    index.insert_many(agents, ids=np.arange(len(agents), dtype=np.uint32))
    return index


def test_the_workload_gives_the_checksums(bench, grid):
    agents, rects, points = bench.workload()
    assert agents.dtype == rects.dtype == points.dtype == np.float32
    assert (len(agents), len(rects), len(points)) == (bench.AGENTS, bench.QUERIES, bench.QUERIES)
    assert len(grid.query_many(rects)[1]) == bench.RECT_HITS
    assert len(grid.query_many(np.hstack([points, points]))[1]) == bench.POINT_HITS


def test_rows_match_brute_force(bench, grid):
    agents, rects, points = bench.workload(queries=3000)
    ids = grid.elements().ids
    handles = grid.elements().handles
    id_of = dict(zip(handles.tolist(), ids.tolist()))
    for queries in (rects, np.hstack([points, points])):
        offsets, hits = grid.query_many(queries)
        for i, q in enumerate(queries):
            meets = (agents[:, 0] <= q[2]) & (q[0] <= agents[:, 2]) & (agents[:, 1] <= q[3]) & (q[1] <= agents[:, 3])
            got = sorted(id_of[h] for h in hits[offsets[i] : offsets[i + 1]].tolist())
            assert got == np.flatnonzero(meets).tolist(), i
