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


def three_workers(client):
    """Back to the fixture's 3 workers after a test killed or restarted one. The
    nanny normally restarts a dead worker, but distributed sometimes closes that
    nanny as well (seen once in CI: "Only 2/3 workers arrived after 60"), so the
    cluster is asked for 3 again before waiting."""
    client.cluster.scale(3)
    client.wait_for_workers(3, timeout=120)


def restart(client, worker):
    """Restart ``worker``, losing what it holds, then wait for the fixture's 3
    workers. distributed sometimes closes the worker's nanny instead of starting
    the worker again (seen in CI: "1 have not returned" after 120 s), so a
    restart that does not come back is not this test's failure: the worker and
    its data are gone either way, and ``three_workers`` asks for a new one."""
    client.restart_workers([worker], timeout=60, raise_for_error=False)
    three_workers(client)


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


def test_bad_arguments_and_a_crs_mismatch():
    points, zones = frames(5, 10, 10)
    left = dask_geopandas.from_geopandas(points, npartitions=1)
    right = dask_geopandas.from_geopandas(zones, npartitions=1)
    with pytest.raises(ValueError, match="how"):
        fqd.sjoin(left, right, how="outer")
    with pytest.raises(ValueError, match="how"):
        fqd.sjoin_nearest(left, right, how="cross")
    with pytest.raises(ValueError, match="predicate"):
        fqd.sjoin(left, right, predicate="equals_exact")
    with pytest.raises(ValueError, match="required"):
        fqd.sjoin(left, right, predicate="dwithin")
    with pytest.raises(ValueError, match="only supported"):
        fqd.sjoin(left, right, distance=3.0)
    with pytest.raises(ValueError, match="greater than 0"):
        fqd.sjoin_nearest(left, right, max_distance=-1.0)
    with pytest.raises(ValueError, match="broadcast"):
        fqd.sjoin(left, right, predicate="dwithin", distance=np.ones(3))
    with pytest.raises(ValueError, match="GeoDataFrame"):
        fqd.sjoin(points, right)
    # A CRS mismatch warns, as in geopandas, and joins the coordinates as they are.
    other = dask_geopandas.from_geopandas(zones.set_crs("EPSG:4326", allow_override=True), npartitions=1)
    with pytest.warns(UserWarning, match="CRS mismatch"):
        got = fqd.sjoin(left, other).compute()
    with pytest.warns(UserWarning, match="CRS mismatch"):
        want = geopandas.sjoin(left.compute(), other.compute())
    keys = ["index", "index_right"]
    pd.testing.assert_frame_equal(sorted_rows(got, keys), sorted_rows(want, keys))


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
    restart(client, victim)
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


def _die_at(block, directory, at):
    """The identity, except that the call numbered ``at`` (counted across
    processes by files created exclusively) kills its worker process."""
    import os

    from distributed import get_worker

    get_worker()
    k = 0
    while True:
        try:
            os.close(os.open(os.path.join(directory, f"call-{k}"), os.O_CREAT | os.O_EXCL))
            break
        except FileExistsError:
            k += 1
    if k == at:
        open(os.path.join(directory, "died"), "w").close()
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
    three_workers(client)


def test_indexes_travel_by_pickle_out_of_band():
    from distributed.protocol import deserialize, serialize

    tree = flatquad.BoxIndex(boxes(np.random.default_rng(7), 1000))
    header, frames_ = serialize(tree, serializers=["pickle"])
    assert len(frames_) >= 2  # the snapshot as its own frame, not inside the pickle
    copy = deserialize(header, frames_)
    assert copy.to_bytes() == tree.to_bytes()
    assert pickle.loads(pickle.dumps(tree, protocol=5)).to_bytes() == tree.to_bytes()


# ------------------------------------------------------- left, right, dwithin, nearest


def awkward(seed, n_points=500, n_polys=200):
    """Points and polygons with missing and empty geometries, duplicate index
    labels, and partitions of which some are empty after a filter; unique
    columns ``name`` and ``zone`` to sort the joined rows by."""
    points, zones = frames(seed, n_points, n_polys)
    # Partitions by x: a filter then empties the first ones.
    points = points.iloc[np.argsort(shapely.get_x(points.geometry.values), kind="stable")]
    points["rank"] = np.arange(n_points)
    g = points.geometry.values.copy()
    g[::37] = None
    g[5::41] = shapely.Point()
    points = points.set_geometry(geopandas.GeoSeries(g, crs=points.crs))
    points.index = np.arange(n_points) // 3  # duplicate labels
    zg = zones.geometry.values.copy()
    zg[::29] = None
    zg[3::31] = shapely.Polygon()
    zones = zones.set_geometry(geopandas.GeoSeries(zg, crs=zones.crs))
    zones.index = np.arange(n_polys) // 2
    left = dask_geopandas.from_geopandas(points, npartitions=5, sort=False)
    left = left[(left.w < 4) & (left["rank"] > n_points // 2)]
    right = dask_geopandas.from_geopandas(zones, npartitions=3, sort=False)
    return left, right


def same_rows(got, want, keys):
    """The same rows, columns and dtypes, whatever the row order."""
    assert list(got.columns) == list(want.columns)
    assert len(got) == len(want)
    pd.testing.assert_frame_equal(sorted_rows(got, keys), sorted_rows(want, keys))


def test_left_and_right_joins_equal_geopandas(client):
    left, right = awkward(10)
    lf, rf = left.compute(), right.compute()
    assert 0 in left.map_partitions(len).compute().tolist()
    for how, predicate in (("left", "intersects"), ("right", "intersects"), ("left", "within"), ("inner", "within")):
        want = geopandas.sjoin(lf, rf, how=how, predicate=predicate)
        got = fqd.sjoin(left, right, how=how, predicate=predicate, cells=3).compute()
        assert got.geometry.name == want.geometry.name
        same_rows(got, want, ["name", "zone"])
    # Polygons with polygons, the right side's rows kept; no row matched at all.
    want = geopandas.sjoin(rf, rf, how="right", predicate="overlaps")
    got = fqd.sjoin(right, right, how="right", predicate="overlaps").compute()
    same_rows(got, want, ["zone_left", "zone_right"])
    far = right.map_partitions(lambda f: f.set_geometry(f.geometry.translate(1e6, 1e6)), meta=right._meta)
    want = geopandas.sjoin(lf, far.compute(), how="left")
    got = fqd.sjoin(left, far, how="left").compute()
    same_rows(got, want, ["name", "zone"])
    assert want["zone"].isna().all() and want["zone"].dtype == got["zone"].dtype == np.float64


def test_every_row_matched_keeps_dtypes(client):
    points, zones = frames(11, 50, 1)
    zones = geopandas.GeoDataFrame({"zone": [7]}, geometry=[shapely.box(-1, -1, 1001, 1001)], crs=points.crs)
    left = dask_geopandas.from_geopandas(points, npartitions=3)
    right = dask_geopandas.from_geopandas(zones, npartitions=1)
    want = geopandas.sjoin(left.compute(), zones, how="left")
    got = fqd.sjoin(left, right, how="left").compute()
    assert want["zone"].dtype == got["zone"].dtype == np.int64
    same_rows(got, want, ["name"])


def test_dwithin_equals_geopandas(client):
    left, right = awkward(12)
    lf, rf = left.compute(), right.compute()
    for how in ("inner", "left", "right"):
        want = geopandas.sjoin(lf, rf, how=how, predicate="dwithin", distance=15.0)
        got = fqd.sjoin(left, right, how=how, predicate="dwithin", distance=15.0, cells=3).compute()
        same_rows(got, want, ["name", "zone"])
    # One distance per left row: NaN, negative and infinite among them.
    rng = np.random.default_rng(3)
    d = rng.uniform(0, 30, len(lf))
    d[::11], d[1::13], d[2::97] = np.nan, -5.0, np.inf
    want = geopandas.sjoin(lf, rf, how="left", predicate="dwithin", distance=d)
    got = fqd.sjoin(left, right, how="left", predicate="dwithin", distance=d).compute()
    same_rows(got, want, ["name", "zone"])
    assert len(want) > len(lf)  # the infinite distances reach every polygon


def test_on_attribute_equals_geopandas(client):
    """Pairs must also have equal values in the named columns, which appear
    once in the result (the left frame's values), as in geopandas; with
    ``how="right"`` an unmatched right row has missing values there."""
    left, right = awkward(17)
    # Attributes on both sides: a number and a string (a few of each value).
    right = right.assign(w=right.zone % 5, kind=(right.zone % 3).astype(str))
    left = left.assign(kind=(left["rank"] % 3).astype(str))
    lf, rf = left.compute(), right.compute()
    plain = geopandas.sjoin(lf, rf)
    for how in ("inner", "left", "right"):
        for on_attribute in ("w", ["w", "kind"]):
            want = geopandas.sjoin(lf, rf, how=how, on_attribute=on_attribute)
            got = fqd.sjoin(left, right, how=how, on_attribute=on_attribute, cells=3).compute()
            assert list(got.columns).count("w") == 1 and "w_left" not in got.columns
            same_rows(got, want, ["name", "zone"])
    # The attributes removed pairs, and left some.
    inner = geopandas.sjoin(lf, rf, on_attribute=["w", "kind"])
    assert 0 < len(inner) < len(plain)
    want = geopandas.sjoin(lf, rf, predicate="dwithin", distance=20.0, on_attribute=("w",))
    got = fqd.sjoin(left, right, predicate="dwithin", distance=20.0, on_attribute=("w",)).compute()
    same_rows(got, want, ["name", "zone"])
    with pytest.raises(ValueError, match="missing from the right dataframe"):
        fqd.sjoin(left, right.drop(columns="kind"), on_attribute=["w", "kind"])
    with pytest.raises(ValueError, match="Active geometry column"):
        fqd.sjoin(left, right, on_attribute="geometry")


def test_bounds_are_computed_once_per_partition(client, monkeypatch):
    """GEOS' bounds of a partition are computed by one task (persisted) and
    read by the summary, the pieces and the unmatched rows: the rows whose
    bounds flatquad.dask asks for, counted in this process with dask's
    synchronous scheduler, are each input row once (the cells' own nearest
    searches, in flatquad.geopandas, are not counted)."""
    import sys

    import dask

    left, right = awkward(18)
    lf, rf = left.compute(), right.compute()
    rows = []
    usable_bounds = fqg.usable_bounds

    def counted(geometries, *bounds):
        if sys._getframe(1).f_globals["__name__"] == "flatquad.dask":
            rows.append(len(geometries))
        return usable_bounds(geometries, *bounds)

    monkeypatch.setattr(fqg, "usable_bounds", counted)
    with dask.config.set(scheduler="sync"):
        got = fqd.sjoin(left, right, how="left", cells=3).compute()
        assert sum(rows) == len(lf) + len(rf)
        rows.clear()
        near = fqd.sjoin_nearest(left, right, how="left", distance_col="d", cells=3).compute()
        assert sum(rows) == len(lf) + len(rf)
    monkeypatch.undo()
    same_rows(got, geopandas.sjoin(lf, rf, how="left"), ["name", "zone"])
    same_rows(near, geopandas.sjoin_nearest(lf, rf, how="left", distance_col="d"), ["name", "zone"])


def nearest_frames(seed):
    """Polygons clustered in one corner, points everywhere (most queries must
    search beyond their cell), on an integer grid (exact ties); no CRS
    (unpickling one costs 25 ms, and a test moves hundreds of pieces)."""
    rng = np.random.default_rng(seed)
    n = 400
    xy = rng.integers(0, 100, (n, 2)).astype(float) * 10
    g = shapely.points(xy)
    g[::53] = None
    g[7::59] = shapely.Point()
    points = geopandas.GeoDataFrame({"name": [f"p{i}" for i in range(n)]}, geometry=g, crs=None,
                                    index=np.arange(n) // 4)
    c = rng.integers(0, 30, (60, 2)).astype(float) * 10
    polys = shapely.box(c[:, 0], c[:, 1], c[:, 0] + rng.integers(0, 3, 60) * 10, c[:, 1] + 10)
    polys[::17] = None
    zones = geopandas.GeoDataFrame({"zone": np.arange(60)}, geometry=polys, crs=None,
                                   index=np.arange(60) % 7)
    left = dask_geopandas.from_geopandas(points, npartitions=4, sort=False)
    right = dask_geopandas.from_geopandas(zones, npartitions=3, sort=False)
    return left, right


def test_sjoin_nearest_equals_geopandas(client):
    left, right = nearest_frames(13)
    lf, rf = left.compute(), right.compute()
    cases = [
        dict(how="left", distance_col="d"),
        dict(how="right", distance_col="d"),
        dict(how="left", max_distance=45.0, distance_col="d"),
        dict(how="inner", exclusive=True),
    ]
    for kwargs in cases:
        want = geopandas.sjoin_nearest(lf, rf, **kwargs)
        assert_same = fqg.sjoin_nearest(lf, rf, **kwargs)
        got = fqd.sjoin_nearest(left, right, cells=4, **kwargs).compute()
        same_rows(got, want, ["name", "zone"])
        same_rows(got, assert_same, ["name", "zone"])
    # Points with points, exclusive: equal points are skipped, ties all kept.
    want = geopandas.sjoin_nearest(lf, lf, how="left", exclusive=True, distance_col="d")
    got = fqd.sjoin_nearest(left, left, how="left", exclusive=True, distance_col="d", cells=5).compute()
    same_rows(got, want, ["name_left", "name_right"])


def test_geoparquet_input(client, tmp_path):
    """Frames read by the workers from GeoParquet files on disk (several
    partitions a side), joined both ways."""
    nl, nr = nearest_frames(15)
    nl.to_parquet(str(tmp_path / "points"))
    nr.to_parquet(str(tmp_path / "zones"))
    points = dask_geopandas.read_parquet(str(tmp_path / "points"))
    zones = dask_geopandas.read_parquet(str(tmp_path / "zones"))
    assert points.npartitions > 1 and zones.npartitions > 1
    lf, rf = points.compute(), zones.compute()
    want = geopandas.sjoin(lf, rf, how="left", predicate="dwithin", distance=25.0)
    got = fqd.sjoin(points, zones, how="left", predicate="dwithin", distance=25.0).compute()
    same_rows(got, want, ["name", "zone"])
    want = geopandas.sjoin_nearest(lf, rf, how="left", distance_col="d")
    got = fqd.sjoin_nearest(points, zones, how="left", distance_col="d", cells=3).compute()
    same_rows(got, want, ["name", "zone"])


def test_a_worker_dying_mid_frame_join_changes_nothing(client, tmp_path):
    """Unpersisted inputs (persist=False): the summary pass reads the 5
    partitions (calls 0-4), the join reads them again, and the worker running
    the 7th read dies mid-join. Then persisted inputs (the default): the worker
    holding most of them is restarted between the summary pass and the join."""
    left, right = awkward(16)
    want = geopandas.sjoin(left.compute(), right.compute(), how="left")
    dying = left.map_partitions(_die_at, str(tmp_path), 6, meta=left._meta)
    got = fqd.sjoin(dying, right, how="left", cells=3, persist=False).compute()
    assert (tmp_path / "died").exists(), "no worker died: the test tested nothing"
    same_rows(got, want, ["name", "zone"])
    three_workers(client)
    joined = fqd.sjoin(left, right, how="left", cells=3)
    held = client.has_what()
    victim = max(held, key=lambda w: len(held[w]))
    assert held[victim], "nothing persisted: the test tested nothing"
    restart(client, victim)
    same_rows(joined.compute(), want, ["name", "zone"])
    three_workers(client)
