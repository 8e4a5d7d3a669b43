"""flatquad.dask on a real distributed.LocalCluster (worker processes): the
distributed joins give exactly the single-machine answer (the same pairs, none
missing, none twice), with empty partitions, after a worker holding
intermediate results is lost, and when a worker process dies mid-join; indexes travel between processes by pickle with
out-of-band buffers."""

import pickle

import dask.array as da
import dask_geopandas
import geopandas
import numpy as np
import pandas as pd
import pytest
import shapely
from distributed import Client, LocalCluster

import flatquad
import flatquad.dask as fqd
import flatquad.geopandas as fqg


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=3, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=40) as cluster, Client(cluster) as client:
        yield client


def boxes(rng, n, world=1000.0, side=25.0):
    xy = rng.uniform(0, world, (n, 2))
    return np.hstack([xy, xy + rng.uniform(0, side, (n, 2))])


def pair_list(pairs):
    got = list(zip(pairs[0].tolist(), pairs[1].tolist()))
    assert len(set(got)) == len(got), "a pair twice"
    return sorted(got)


def frames(seed, n_points=600, n_polys=250):
    rng = np.random.default_rng(seed)
    centres = rng.uniform(0, 1000, (n_polys, 2))
    polys = [shapely.Point(c).buffer(rng.uniform(5, 40), quad_segs=3) for c in centres]
    points = geopandas.GeoDataFrame(
        {"name": [f"p{i}" for i in range(n_points)], "w": rng.integers(0, 5, n_points)},
        geometry=shapely.points(rng.uniform(0, 1000, (n_points, 2))), crs="EPSG:3857",
    )
    zones = geopandas.GeoDataFrame({"zone": np.arange(n_polys)}, geometry=polys, crs="EPSG:3857")
    return points, zones


def sorted_rows(frame, keys):
    return frame.reset_index().sort_values(keys, kind="stable").reset_index(drop=True)


def test_bounds_join_equals_the_single_machine_answer(client):
    rng = np.random.default_rng(1)
    left, right = boxes(rng, 4000), boxes(rng, 3000)
    right[:50] *= 1e-3  # a cluster near the origin: uneven cells
    want = pair_list(flatquad.join_bounds(left, right))
    for cells in [None, 1, 4]:
        got = fqd.join_bounds(da.from_array(left, chunks=(900, 4)), da.from_array(right, chunks=(700, 4)),
                              cells=cells).compute()
        assert got.dtype == np.int64
        assert pair_list(got) == want


def test_bad_bounds_are_named_by_global_row(client):
    rng = np.random.default_rng(2)
    left = boxes(rng, 100)
    left[57, 0] = np.nan
    with pytest.raises(ValueError, match=r"left\[57\]"):
        fqd.join_bounds(da.from_array(left, chunks=(30, 4)), boxes(rng, 10))


def test_frames_join_equals_geopandas(client):
    points, zones = frames(3)
    left = dask_geopandas.from_geopandas(points, npartitions=4)
    right = dask_geopandas.from_geopandas(zones, npartitions=3)
    # The same frames on one machine (dask turns object strings into its string dtype).
    points, zones = left.compute(), right.compute()
    want = geopandas.sjoin(points, zones)
    got = fqd.sjoin(left, right, cells=3).compute()
    assert list(got.columns) == list(want.columns)
    keys = ["index", "index_right"]
    pd.testing.assert_frame_equal(sorted_rows(got, keys), sorted_rows(want, keys))
    # Polygons with polygons, another predicate.
    got = fqd.sjoin(right, right, predicate="overlaps").compute()
    want = fqg.sjoin(zones, zones, predicate="overlaps")
    pd.testing.assert_frame_equal(sorted_rows(got, keys), sorted_rows(want, keys))


def test_empty_partitions_and_frames(client):
    points, zones = frames(4)
    points = points.sort_values("name", key=lambda s: points.geometry.x)  # partitions by x
    left = dask_geopandas.from_geopandas(points, npartitions=4, sort=False)
    left = left[left.geometry.x > 600]  # the first partitions keep no rows at all
    assert 0 in left.map_partitions(len).compute().tolist()
    right = dask_geopandas.from_geopandas(zones, npartitions=2)
    want = geopandas.sjoin(left.compute(), right.compute())
    keys = ["index", "index_right"]
    got = fqd.sjoin(left, right).compute()
    pd.testing.assert_frame_equal(sorted_rows(got, keys), sorted_rows(want, keys))
    nothing = fqd.sjoin(left[left.w > 99], right).compute()
    assert len(nothing) == 0 and list(nothing.columns) == list(want.columns)
    empty = fqd.join_bounds(da.zeros((0, 4), chunks=(1, 4)), da.from_array(boxes(np.random.default_rng(0), 5))).compute()
    assert empty.shape == (2, 0)


def test_crs_mismatch_and_how_are_refused():
    points, zones = frames(5, 10, 10)
    left = dask_geopandas.from_geopandas(points, npartitions=1)
    with pytest.raises(ValueError, match="CRS mismatch"):
        fqd.sjoin(left, dask_geopandas.from_geopandas(zones.to_crs("EPSG:4326"), npartitions=1))
    with pytest.raises(ValueError, match="inner"):
        fqd.sjoin(left, left, how="left")


def test_a_lost_worker_changes_nothing(client):
    """Intermediate results (pieces, trees, joined cells) are persisted, the
    worker holding most of them is restarted (its data lost), and the join is
    computed: the scheduler recomputes what was lost, and the answer is exact."""
    rng = np.random.default_rng(6)
    left, right = boxes(rng, 3000), boxes(rng, 3000)
    want = pair_list(flatquad.join_bounds(left, right))
    pairs = fqd.join_bounds(da.from_array(left, chunks=(500, 4)), da.from_array(right, chunks=(500, 4)), cells=4)
    pairs = client.persist(pairs)
    from distributed import wait

    wait(pairs)
    holders = {}
    for key, workers in client.who_has(pairs).items():
        for w in workers:
            holders[w] = holders.get(w, 0) + 1
    victim = max(holders, key=holders.get)
    client.restart_workers([victim])
    assert pair_list(pairs.compute()) == want


def _die_once(block, marker):
    """The identity, except that the first call anywhere kills its worker
    process (as a crash or an OOM kill would), leaving a marker so that the
    retry lives."""
    import os

    from distributed import get_worker

    get_worker()  # raises outside a worker: never kill the test's own process
    if not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(1)
    return block


def test_a_worker_dying_mid_join_changes_nothing(client, tmp_path):
    """A worker process dies while it runs a task of the join's graph: the
    nanny starts a new one, the scheduler runs the task again, and the answer
    is still exact."""
    rng = np.random.default_rng(7)
    left, right = boxes(rng, 3000), boxes(rng, 3000)
    want = pair_list(flatquad.join_bounds(left, right))
    marker = str(tmp_path / "died")
    dying = da.from_array(left, chunks=(500, 4)).map_blocks(_die_once, marker, meta=np.empty((0, 4), left.dtype))
    got = fqd.join_bounds(dying, da.from_array(right, chunks=(500, 4)), cells=4).compute()
    assert (tmp_path / "died").exists(), "no worker died: the test tested nothing"
    assert pair_list(got) == want
    client.wait_for_workers(3, timeout=60)


def test_indexes_travel_by_pickle_out_of_band():
    from distributed.protocol import deserialize, serialize

    tree = flatquad.BoxIndex(boxes(np.random.default_rng(7), 1000))
    header, frames_ = serialize(tree, serializers=["pickle"])
    assert len(frames_) >= 2  # the snapshot as its own frame, not inside the pickle
    copy = deserialize(header, frames_)
    assert copy.to_bytes() == tree.to_bytes()
    assert pickle.loads(pickle.dumps(tree, protocol=5)).to_bytes() == tree.to_bytes()
