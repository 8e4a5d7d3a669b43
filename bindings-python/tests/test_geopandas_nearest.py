"""flatquad.geopandas.sjoin_nearest (and sjoin's newer arguments) against
geopandas itself, called in the same test on the same frames: identical joined
frames (after sorting the rows by their pair for how="inner"/"left", where
geopandas leaves equidistant right rows in its tree's visiting order), the same
errors with the same messages, the same warnings.

Frames: random points and polygons, points on an integer lattice (many exact
ties), missing and empty geometries, duplicate and named indexes, clashing
column names."""

import ast
import math
import warnings
import zlib

import numpy as np
import pandas as pd
import pytest

import geopandas
import shapely
import shapely.affinity
import flatquad.geopandas as fqg


def polygons(rng, n, spread=1000.0, offset=0.0):
    centres = rng.uniform(0, spread, (n, 2)) + offset
    angles = np.sort(rng.uniform(0, 2 * np.pi, (n, 6)), axis=1)
    return [
        shapely.Polygon(c + rng.uniform(5, 40) * np.column_stack([np.cos(a), np.sin(a)]))
        for c, a in zip(centres, angles)
    ]


def frame(geoms, rng, prefix, crs="EPSG:3857", index=None):
    n = len(geoms)
    return geopandas.GeoDataFrame(
        {f"{prefix}pos": np.arange(n), "value": rng.integers(0, 5, n)},
        geometry=geopandas.GeoSeries(list(geoms), crs=crs).values, crs=crs,
        index=index if index is not None else rng.permutation(n) + 100,
    )


def kinds(rng, kind, n=300, m=300):
    """Left and right geometries of one kind of data."""
    if kind == "points-points":
        return shapely.points(rng.uniform(0, 1000, (n, 2))), shapely.points(rng.uniform(0, 1000, (m, 2)))
    if kind == "points-polygons":
        return shapely.points(rng.uniform(0, 1000, (n, 2))), polygons(rng, m // 3)
    if kind == "polygons-points":
        return polygons(rng, n // 3), shapely.points(rng.uniform(0, 1000, (m, 2)))
    if kind == "polygons-polygons":
        return polygons(rng, n // 3), polygons(rng, m // 3, offset=500.0)
    if kind == "lattice":
        # Integer points, repeated: exact ties of distance, equal geometries.
        return (shapely.points(rng.integers(0, 12, (n, 2)).astype(float)),
                shapely.points(rng.integers(0, 12, (m // 2, 2)).astype(float) + rng.choice([0, 0.5], (m // 2, 1))))
    if kind == "lines-boxes":
        starts = rng.uniform(0, 1000, (n // 3, 2))
        lines = shapely.linestrings(np.stack([starts, starts + rng.uniform(-30, 30, starts.shape)], axis=1))
        corners = rng.integers(0, 100, (m // 3, 2)) * 10.0
        return lines, shapely.box(corners[:, 0], corners[:, 1], corners[:, 0] + 10, corners[:, 1] + 10)
    raise ValueError(kind)


def call(name, *args, **kwargs):
    """``(result or exception, warnings)`` of ``name`` in flatquad.geopandas
    and in geopandas."""
    out = []
    for module in (fqg, geopandas):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = getattr(module, name)(*args, **kwargs)
            except Exception as error:  # noqa: BLE001 - compared below
                result = error
        out.append((result, [(w.category, str(w.message)) for w in caught]))
    return out


def sort_rows(joined, keys):
    return joined.reset_index().sort_values(keys, kind="stable").reset_index(drop=True)


def message(error):
    """An error's message, a set in it (geopandas prints its set of
    predicates, in the process's hash order) as a sorted list."""
    text = str(error)
    if "{" in text and text.endswith("}"):
        head, _, tail = text.partition("{")
        return head, sorted(ast.literal_eval("{" + tail), key=repr)
    return text


def assert_same(name, *args, sort=None, **kwargs):
    """flatquad's and geopandas' ``name(*args, **kwargs)``: the same frame
    (rows sorted by ``sort`` first, if given), or the same error; the same
    warnings. Returns flatquad's frame."""
    (ours, our_warnings), (theirs, their_warnings) = call(name, *args, **kwargs)
    assert our_warnings == their_warnings
    if isinstance(theirs, Exception):
        assert type(ours) is type(theirs), ours
        assert message(ours) == message(theirs)
        return ours
    assert not isinstance(ours, Exception), ours
    assert type(ours) is type(theirs)
    assert list(ours.columns) == list(theirs.columns)
    assert ours.index.names == theirs.index.names
    assert ours.crs == theirs.crs
    assert ours.geometry.name == theirs.geometry.name
    if sort:
        pd.testing.assert_frame_equal(sort_rows(ours, sort), sort_rows(theirs, sort))
    else:
        pd.testing.assert_frame_equal(ours, theirs)
    return ours


KINDS = ["points-points", "points-polygons", "polygons-points", "polygons-polygons", "lattice", "lines-boxes"]
OPTIONS = [
    {},
    {"distance_col": "dist"},
    {"max_distance": 15.0, "distance_col": "dist"},
    {"exclusive": True, "distance_col": "dist"},
    {"max_distance": 2.0, "exclusive": True},
]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("how", ["inner", "left", "right"])
@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: "-".join(o) or "plain")
def test_sjoin_nearest_matches_geopandas(kind, how, options):
    rng = np.random.default_rng(zlib.crc32(repr((kind, how, sorted(options.items()))).encode()))
    a, b = kinds(rng, kind)
    left, right = frame(a, rng, "l"), frame(b, rng, "r")
    # how="right" rows are in geopandas' order exactly; the ties of one left
    # row otherwise come in its tree's visiting order.
    sort = None if how == "right" else ["lpos", "rpos"]
    ours = assert_same("sjoin_nearest", left, right, how=how, sort=sort, **options)
    if how == "inner" and "max_distance" not in options:
        assert ours["lpos"].nunique() == len(left)  # every left row has a nearest


@pytest.mark.parametrize("how", ["inner", "left", "right"])
def test_sjoin_nearest_self_join_exclusive(how):
    # Each point's nearest other point, duplicates of itself excluded: many
    # equal geometries at distance 0 that must not count, and ties.
    rng = np.random.default_rng(5)
    points = frame(shapely.points(rng.integers(0, 6, (120, 2)).astype(float)), rng, "l")
    other = points.rename(columns={"lpos": "rpos"})
    sort = None if how == "right" else ["lpos", "rpos"]
    for options in ({"exclusive": True}, {"exclusive": True, "max_distance": 1.0, "distance_col": "d"},
                    {"exclusive": False, "distance_col": "d"}):
        assert_same("sjoin_nearest", points, other, how=how, sort=sort, **options)


def test_sjoin_nearest_all_ties_come_back():
    # A point at the centre of a ring of 12 points at the same distance: all 12.
    angles = np.arange(12) * (2 * np.pi / 12)
    ring = shapely.points(np.column_stack([np.round(np.cos(angles) * 4), np.round(np.sin(angles) * 4)]))
    d = shapely.distance(shapely.Point(0, 0), ring)
    rng = np.random.default_rng(0)
    right = frame(ring, rng, "r")
    left = frame([shapely.Point(0, 0)], rng, "l")
    ours = assert_same("sjoin_nearest", left, right, distance_col="d", sort=["lpos", "rpos"])
    assert len(ours) == (d == d.min()).sum() >= 4


@pytest.mark.parametrize("how", ["inner", "left", "right"])
def test_sjoin_nearest_missing_and_empty_geometries(how):
    rng = np.random.default_rng(3)
    a, b = kinds(rng, "points-polygons", 80, 90)
    a, b = np.array(a, dtype=object), np.array(b, dtype=object)
    a[::7] = None
    a[3::11] = shapely.Point()
    b[::5] = shapely.Polygon()
    b[2::6] = None
    left, right = frame(a, rng, "l"), frame(b, rng, "r")
    sort = None if how == "right" else ["lpos", "rpos"]
    assert_same("sjoin_nearest", left, right, how=how, distance_col="d", sort=sort)
    # A side with no usable geometry at all.
    nothing = frame(np.array([None, shapely.Point()], dtype=object), rng, "r")
    assert_same("sjoin_nearest", left, nothing, how=how, distance_col="d", sort=sort)
    assert_same("sjoin_nearest", nothing.rename(columns={"rpos": "lpos"}), right, how=how, sort=sort)


@pytest.mark.parametrize("how", ["inner", "left", "right"])
def test_sjoin_nearest_empty_frames(how):
    rng = np.random.default_rng(4)
    a, b = kinds(rng, "points-points", 20, 20)
    left, right = frame(a, rng, "l"), frame(b, rng, "r")
    for x, y in [(left.iloc[:0], right), (left, right.iloc[:0]), (left.iloc[:0], right.iloc[:0])]:
        assert_same("sjoin_nearest", x, y, how=how, distance_col="d")


@pytest.mark.parametrize("how", ["inner", "left", "right"])
def test_sjoin_nearest_duplicate_and_named_indexes(how):
    rng = np.random.default_rng(6)
    a, b = kinds(rng, "lattice", 60, 60)
    sort = None if how == "right" else ["lpos", "rpos"]
    left = frame(a, rng, "l", index=rng.integers(0, 5, len(a)))
    right = frame(b, rng, "r", index=rng.integers(0, 5, len(b)))
    assert_same("sjoin_nearest", left, right, how=how, distance_col="d", sort=sort)
    left.index.name, right.index.name = "li", "ri"
    assert_same("sjoin_nearest", left, right, how=how, sort=sort)
    left.index = pd.MultiIndex.from_arrays([left.index, np.arange(len(left)) % 3])
    right.index = pd.MultiIndex.from_arrays([right.index, np.arange(len(right)) % 2], names=[None, None])
    assert_same("sjoin_nearest", left, right, how=how, sort=sort)


@pytest.mark.parametrize("how", ["inner", "left", "right"])
def test_column_clashes_and_suffixes(how):
    rng = np.random.default_rng(7)
    a, b = kinds(rng, "points-points", 30, 30)
    left, right = frame(a, rng, "l"), frame(b, rng, "r")
    left["shared"], right["shared"] = 1, 2
    sort = None if how == "right" else ["lpos", "rpos"]
    for suffixes in ({}, {"lsuffix": "L", "rsuffix": "R"}, {"lsuffix": "", "rsuffix": "x"}):
        assert_same("sjoin_nearest", left, right, how=how, sort=sort, **suffixes)
        assert_same("sjoin", left, right.set_geometry(right.buffer(30)), how=how, sort=sort, **suffixes)
    # Suffixes that make duplicates (a FutureWarning), or none for a clash (an error).
    right["shared_left"] = 3
    assert_same("sjoin_nearest", left, right, how=how, sort=sort)
    assert_same("sjoin_nearest", left, right, how=how, lsuffix="", rsuffix="")
    # The index column's name already taken.
    assert_same("sjoin_nearest", left.assign(index_right=1), right, how=how)
    assert_same("sjoin", left.assign(index_left=1), right, how=how)
    # distance_col naming an existing column: overwritten.
    assert_same("sjoin_nearest", left, right, how=how, distance_col="value", sort=sort)


def test_bad_arguments_fail_as_in_geopandas():
    rng = np.random.default_rng(8)
    a, b = kinds(rng, "points-points", 10, 10)
    left, right = frame(a, rng, "l"), frame(b, rng, "r")
    for kwargs in ({"max_distance": 0}, {"max_distance": -1.0}, {"max_distance": [1.0, 2.0]},
                   {"exclusive": "yes"}, {"exclusive": [True]}, {"how": "outer"}):
        assert isinstance(assert_same("sjoin_nearest", left, right, **kwargs), ValueError)
    assert isinstance(assert_same("sjoin_nearest", left.geometry, right), ValueError)
    assert isinstance(assert_same("sjoin_nearest", left, right.geometry), ValueError)
    # Nothing to search: geopandas' tree checks nothing, nor does flatquad.
    assert_same("sjoin_nearest", left, right.iloc[:0], max_distance=-1.0)
    for kwargs in ({"predicate": "spandex"}, {"predicate": "dwithin"}, {"distance": 1.0},
                   {"predicate": "dwithin", "distance": [1.0, 2.0]},
                   {"predicate": "dwithin", "distance": np.ones((10, 1))},
                   {"on_attribute": "missing"}, {"on_attribute": "geometry"}, {"extra": 1}):
        assert isinstance(assert_same("sjoin", left, right, **kwargs), (ValueError, TypeError))


@pytest.mark.parametrize("crs", [("EPSG:3857", "EPSG:4326"), ("EPSG:4326", "EPSG:4326"), ("EPSG:3857", None)])
def test_crs_warnings(crs):
    rng = np.random.default_rng(9)
    a, b = kinds(rng, "points-points", 20, 20)
    left = frame(a, rng, "l", crs=crs[0])
    right = frame(b, rng, "r", crs=crs[1])
    assert_same("sjoin_nearest", left, right, sort=["lpos", "rpos"])
    right = right.set_geometry(shapely.buffer(right.geometry.values, 50))
    assert_same("sjoin", left, right, sort=["lpos", "rpos"])


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("how", ["inner", "left", "right"])
@pytest.mark.parametrize("predicate", ["intersects", "contains", "touches", "covered_by", None])
def test_sjoin_rows_in_geopandas_order(seed, how, predicate):
    # Not sorted: flatquad gives the rows in geopandas' order (its tree's
    # visiting order, emulated by tree_ranks) when no box centres tie.
    rng = np.random.default_rng(seed)
    a, b = kinds(rng, "polygons-polygons", 600, 600)
    assert_same("sjoin", frame(a, rng, "l"), frame(b, rng, "r"), how=how, predicate=predicate)


@pytest.mark.parametrize("how", ["inner", "left", "right"])
def test_sjoin_dwithin_and_on_attribute(how):
    rng = np.random.default_rng(10)
    a, b = kinds(rng, "points-polygons", 300, 300)
    left, right = frame(a, rng, "l"), frame(b, rng, "r")
    assert_same("sjoin", left, right, how=how, predicate="dwithin", distance=12.5)
    per_row = rng.uniform(-5, 40, len(left))
    per_row[::9] = np.nan
    assert_same("sjoin", left, right, how=how, predicate="dwithin", distance=per_row)
    assert_same("sjoin", left, right, how=how, predicate="dwithin", distance=math.inf)
    right = right.set_geometry(right.buffer(60))
    assert_same("sjoin", left, right, how=how, on_attribute="value")
    left["other"], right["other"] = rng.integers(0, 2, len(left)), rng.integers(0, 2, len(right))
    assert_same("sjoin", left, right, how=how, on_attribute=("value", "other"))


@pytest.mark.parametrize("predicate", ["intersects", "within", "overlaps", "dwithin"])
def test_refine_split_over_threads(monkeypatch, predicate):
    # Big refines run on several threads, cut by geometry object: here from
    # 3 pairs a thread on 3 threads, with one polygon object in many rows
    # (each object must stay with one thread, which prepares it).
    monkeypatch.setattr(fqg, "_PAIRS_PER_THREAD", 3)
    monkeypatch.setattr(fqg, "_threads", lambda: 3)
    rng = np.random.default_rng(23)
    a, b = kinds(rng, "polygons-polygons", 600, 600)
    shared = a[0]
    a = [shared if i % 4 == 0 else g for i, g in enumerate(a)]
    a = [shapely.affinity.translate(g, 500.0, 500.0) if i % 2 else g for i, g in enumerate(a)]
    if predicate == "within":  # small enough to lie inside others
        a = [shapely.affinity.scale(g, 0.05, 0.05) if i % 4 else g for i, g in enumerate(a)]
    left, right = frame(a, rng, "l"), frame(b, rng, "r")
    options = {"distance": 20.0} if predicate == "dwithin" else {}
    joined = assert_same("sjoin", left, right, predicate=predicate, **options)
    assert len(joined) > 10
    called = []
    real = fqg._prepared_alone
    monkeypatch.setattr(fqg, "_prepared_alone", lambda *args: called.append(1) or real(*args))
    assert_same("sjoin", left, right, predicate=predicate, **options)
    assert len(called) == 3


def test_tree_ranks_are_shapely_strtree_order():
    rng = np.random.default_rng(11)
    for n in [1, 2, 9, 10, 11, 101, 1000, 5000]:
        boxes = shapely.box(*rng.uniform(0, 100, (2, n)), *rng.uniform(100, 120, (2, n)))
        visited = shapely.STRtree(boxes).query(shapely.box(-1, -1, 500, 500))
        want = np.empty(n, dtype=np.intp)
        want[visited] = np.arange(n)
        np.testing.assert_array_equal(fqg.tree_ranks(shapely.bounds(boxes)), want)


def test_nearest_pairs_against_brute_force():
    # Every query's minimum and all its ties, from all pairs' distances; also
    # far from the origin, where float32 (the index) merges points a float64
    # metre apart (its spacing at 1e7 is 1).
    rng = np.random.default_rng(12)
    far = [shapely.points(rng.uniform(0, 3, (90, 2)) + 1e7), shapely.points(rng.uniform(0, 3, (90, 2)) + 1e7)]
    far_lines = [shapely.buffer(far[0], 0.1), far[1]]
    for kind in KINDS + ["far", "far-polygons"]:
        if kind.startswith("far"):
            a, b = far if kind == "far" else far_lines
        else:
            a, b = kinds(rng, kind, 90, 90)
        a, b = np.asarray(a), np.asarray(b)
        q, t, d = fqg.nearest_pairs(a, b)
        all_d = shapely.distance(a[:, None], b[None, :])
        best = all_d.min(axis=1)
        want_q, want_t = np.nonzero(all_d == best[:, None])
        np.testing.assert_array_equal(q, want_q)
        np.testing.assert_array_equal(t, want_t)
        np.testing.assert_array_equal(d, all_d[want_q, want_t])


# Small frames drawn by hypothesis: integer coordinates, so ties of distance
# and equal geometries are frequent; points, boxes and segments mixed.
from hypothesis import example, given, strategies as st  # noqa: E402

coordinate = st.integers(0, 6).map(float)
point = st.tuples(coordinate, coordinate).map(lambda p: shapely.Point(p))
box = st.tuples(coordinate, coordinate, st.integers(0, 3), st.integers(0, 3)).map(
    lambda b: shapely.box(b[0], b[1], b[0] + b[2], b[1] + b[3]))
segment = st.tuples(coordinate, coordinate, coordinate, coordinate).map(
    lambda s: shapely.LineString([(s[0], s[1]), (s[2], s[3])]))
geometry = st.one_of(point, point, box, segment, st.just(None), st.just(shapely.Point()))

#: A zero-size box polygon: GEOS 3.11 (shapely 2.0's wheels) gives NaN for its
#: distance to a point and leaves numpy a floating-point flag in dwithin.
DOT = shapely.box(0.0, 1.0, 0.0, 1.0)


@given(
    st.lists(geometry, max_size=12), st.lists(geometry, max_size=12),
    st.sampled_from(["inner", "left", "right"]),
    st.sampled_from([None, 0.5, 1.0, 2.5]), st.booleans(),
)
@example([shapely.Point(0.0, 0.0)], [DOT], "inner", None, False)
def test_sjoin_nearest_small_frames(a, b, how, max_distance, exclusive):
    rng = np.random.default_rng(0)
    left = frame(np.array(a, dtype=object), rng, "l")
    right = frame(np.array(b, dtype=object), rng, "r")
    sort = None if how == "right" else ["lpos", "rpos"]
    assert_same("sjoin_nearest", left, right, how=how, max_distance=max_distance, exclusive=exclusive,
                distance_col="d", sort=sort)


@given(
    st.lists(geometry, max_size=12), st.lists(geometry, max_size=12),
    st.sampled_from(["inner", "left", "right"]),
    st.sampled_from([None, "intersects", "contains", "within", "touches", "covers", "dwithin"]),
)
@example([shapely.Point(0.0, 0.0)], [DOT], "inner", "dwithin")
def test_sjoin_small_frames(a, b, how, predicate):
    rng = np.random.default_rng(0)
    left = frame(np.array(a, dtype=object), rng, "l")
    right = frame(np.array(b, dtype=object), rng, "r")
    distance = 1.5 if predicate == "dwithin" else None
    # Unsorted: up to 12 right geometries, a tree of 2 leaves at most, whose
    # sorts (of at most 16) GEOS makes stable: geopandas' order exactly.
    assert_same("sjoin", left, right, how=how, predicate=predicate, distance=distance)


def test_prepared_geometries_are_left_as_they_were_even_from_threads():
    # sjoin prepares the geometries it tests (as geopandas' tree query does)
    # for the call only; the user's prepared ones stay prepared; calls from
    # several threads on shared frames give the answers of one thread. GEOS'
    # prepared geometries corrupt the heap when two threads use one at once
    # (a third of the runs of one round crashed before the calls took turns):
    # a few rounds make a regression likely to show.
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(13)
    a, b = kinds(rng, "polygons-points", 900, 900)
    left, right = frame(a, rng, "l"), frame(b, rng, "r")
    predicates = ["intersects", "contains", "covers", "within"]
    want = [fqg.sjoin(left, right, predicate=p) for p in predicates]
    shapely.prepare(left.geometry.values[:5])
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda i: fqg.sjoin(left, right, predicate=predicates[i % 4]), range(64)))
    for i, joined in enumerate(got):
        pd.testing.assert_frame_equal(joined, want[i % 4])
    assert shapely.is_prepared(left.geometry.values[:5]).all()
    assert not shapely.is_prepared(left.geometry.values[5:]).any()
    assert not shapely.is_prepared(right.geometry.values).any()


@pytest.mark.parametrize("predicate", ["intersects", "contains", "covers", "within", "touches", "dwithin"])
def test_overlapping_calls_refine_on_prepared_copies(monkeypatch, predicate):
    # A call that starts while another refines prepares GEOS clones of its
    # geometries (which no other thread can reach) instead of the geometries:
    # forced here by counting one call as running. The clones are prepared
    # too: a line meets a zero-size polygon on it only by the prepared
    # intersects (GEOS 3.11 to 3.14), and geopandas prepares.
    rng = np.random.default_rng(14)
    a, b = kinds(rng, "polygons-points", 600, 600)
    line = shapely.from_wkt("LINESTRING (0 0, 2 2)")
    dot = shapely.box(1, 1, 1, 1)
    plain = shapely.intersects(line, dot)
    shapely.prepare(line)
    assert shapely.intersects(line, dot) != plain
    shapely.destroy_prepared(line)
    left = frame(np.r_[np.asarray(a, dtype=object), [line]], rng, "l")
    right = frame(np.r_[b, [dot]], rng, "r")
    if predicate == "within":
        left, right = right, left
    shapely.prepare(left.geometry.values[:3])
    monkeypatch.setattr(fqg, "_running", 1)
    distance = 5.0 if predicate == "dwithin" else None
    assert_same("sjoin", left, right, predicate=predicate, distance=distance, sort=["lpos", "rpos"])
    assert fqg._running == 1
    assert shapely.is_prepared(left.geometry.values[:3]).all()
    assert not shapely.is_prepared(left.geometry.values[3:]).any()
    assert not shapely.is_prepared(right.geometry.values).any()
