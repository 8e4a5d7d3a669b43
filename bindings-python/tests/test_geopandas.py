"""flatquad.geopandas.sjoin against geopandas.sjoin: identical joined frames
on random polygons and points (rows compared after sorting by the pair, since
geopandas leaves the right rows of one left row in its tree's order); CRS
mismatches warned about and joined; empty frames; missing and empty geometries
skipped."""

import numpy as np
import pandas as pd
import pytest

import geopandas  # noqa: E402
import shapely  # noqa: E402
import flatquad.geopandas as fqg  # noqa: E402


def random_frames(seed, n_polys=300, n_points=500, scale=1e5):
    rng = np.random.default_rng(seed)
    centres = rng.uniform(0, 1000, (n_polys, 2)) + scale
    polys = [
        shapely.Polygon(c + rng.uniform(5, 40) * np.column_stack([np.cos(a), np.sin(a)]))
        for c, a in zip(centres, np.sort(rng.uniform(0, 2 * np.pi, (n_polys, 6)), axis=1))
    ]
    points = shapely.points(rng.uniform(0, 1000, (n_points, 2)) + scale)
    left = geopandas.GeoDataFrame(
        {"name": [f"p{i}" for i in range(n_points)], "value": rng.integers(0, 9, n_points)},
        geometry=points, crs="EPSG:3857", index=rng.permutation(n_points) + 1000,
    )
    right = geopandas.GeoDataFrame(
        {"zone": np.arange(n_polys), "value": rng.uniform(size=n_polys)},
        geometry=polys, crs="EPSG:3857",
    )
    return left, right


def same(ours, theirs, keys):
    assert list(ours.columns) == list(theirs.columns)
    assert type(ours) is type(theirs)
    a = ours.reset_index().sort_values(keys, kind="stable").reset_index(drop=True)
    b = theirs.reset_index().sort_values(keys, kind="stable").reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)
    assert ours.index.names == theirs.index.names


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("how", ["inner", "left", "right"])
def test_points_in_polygons_match_geopandas(seed, how):
    points, polys = random_frames(seed)
    keys = ["index", "index_right"] if how != "right" else ["index", "index_left"]
    same(fqg.sjoin(points, polys, how=how), geopandas.sjoin(points, polys, how=how), keys)


@pytest.mark.parametrize("predicate", ["intersects", "contains", "within", "touches", "overlaps"])
def test_polygons_with_polygons_match_geopandas(predicate):
    _, a = random_frames(2, n_polys=250)
    _, b = random_frames(3, n_polys=250)
    b = b.rename(columns={"zone": "other"})
    ours = fqg.sjoin(a, b, predicate=predicate)
    theirs = geopandas.sjoin(a, b, predicate=predicate)
    same(ours, theirs, ["index", "index_right"])
    if predicate == "intersects":
        assert len(ours) > 50  # the data has real overlaps


def test_crs_mismatch_warns_and_joins_as_geopandas():
    points, polys = random_frames(0, 5, 5)
    for other in (polys.to_crs("EPSG:4326"), polys.set_crs(None, allow_override=True)):
        with pytest.warns(UserWarning, match="CRS mismatch"):
            ours = fqg.sjoin(points, other)
        with pytest.warns(UserWarning, match="CRS mismatch"):
            theirs = geopandas.sjoin(points, other)
        same(ours, theirs, ["index", "index_right"])
    with pytest.raises(ValueError, match="'distance' parameter is required"):
        fqg.sjoin(points, polys, predicate="dwithin")
    with pytest.raises(ValueError, match="how"):
        fqg.sjoin(points, polys, how="outer")


def test_empty_frames():
    points, polys = random_frames(0, 20, 20)
    for left, right in [(points.iloc[:0], polys), (points, polys.iloc[:0]), (points.iloc[:0], polys.iloc[:0])]:
        same(fqg.sjoin(left, right), geopandas.sjoin(left, right), ["index", "index_right"])
        same(fqg.sjoin(left, right, how="left"), geopandas.sjoin(left, right, how="left"),
             ["index", "index_right"])


def test_missing_and_empty_geometries_never_match():
    points, polys = random_frames(4, 60, 80)
    geoms = points.geometry.values.copy()
    geoms[::7] = None
    geoms[3::11] = shapely.Point()  # POINT EMPTY
    points = points.set_geometry(geopandas.GeoSeries(geoms, index=points.index, crs=points.crs))
    pgeoms = polys.geometry.values.copy()
    pgeoms[::5] = shapely.Polygon()
    polys = polys.set_geometry(geopandas.GeoSeries(pgeoms, index=polys.index, crs=polys.crs))
    for how in ["inner", "left"]:
        same(fqg.sjoin(points, polys, how=how), geopandas.sjoin(points, polys, how=how),
             ["index", "index_right"])


@pytest.mark.parametrize("how", ["left", "right"])
def test_join_frames_can_leave_out_the_unmatched_rows(how):
    # flatquad.dask joins the pairs of a cell with how's index and geometry,
    # and adds the rows no cell matched elsewhere.
    points, polys = random_frames(5, 200, 400)
    l, r = shapely.STRtree(polys.geometry.values).query(points.geometry.values, predicate="intersects")
    full, _ = fqg.join_frames(points, polys, l, r, how)
    pairs, _ = fqg.join_frames(points, polys, l, r, how, add_unmatched=False)
    other = "index_right" if how == "left" else "index_left"
    assert full[other].isna().any() and len(pairs) == len(l)
    pd.testing.assert_frame_equal(pairs, full[full[other].notna()].astype(pairs.dtypes.to_dict()))


# intersects is answered by the float64 boxes where both geometries are
# exactly their boxes (points, rectangles): these must be the answers of GEOS'
# prepared intersects, which geopandas runs, on every pair.


def _rectangle(x1, y1, x2, y2, start=0, clockwise=False):
    """The box's ring from corner ``start``, either way round (z optional)."""
    corners = [(x1, y1), (x2, y1), (x2, y2), (x1, y2)]
    if clockwise:
        corners = corners[::-1]
    ring = corners[start:] + corners[:start]
    return shapely.Polygon(ring + ring[:1])


def _edge_cases():
    """Rectangles in every ring order, touching, nested, a float64 step
    apart; degenerate boxes; points on corners, edges, inside, outside; and
    shapes the box test must not claim (5-coordinate non-rectangles, a hole,
    a collinear vertex, a multipolygon, a line along an edge, 3D)."""
    step = np.nextafter(2.0, 3.0)
    shaped = [_rectangle(0, 0, 2, 2, start, cw) for start in range(4) for cw in (False, True)]
    shaped += [
        shapely.box(2, 0, 4, 2), shapely.box(2, 2, 3, 3), shapely.box(step, 0, 4, 1),
        shapely.box(0.5, 0.5, 1.5, 1.5), shapely.box(-1, -1, 5, 5), shapely.box(0, step, 2, 3),
        shapely.Point(0, 0), shapely.Point(2, 1), shapely.Point(1, 1), shapely.Point(step, 1),
        shapely.Point(2, 2), shapely.Point(1, 1, 7), shapely.Polygon([(0, 0, 1), (2, 0, 1), (2, 2, 1), (0, 2, 1)]),
    ]
    other = [
        shapely.box(1, 1, 1, 1), shapely.box(0, 0, 0, 2), shapely.box(2, 0, 3, 0),
        shapely.Polygon([(0, 0), (2, 2), (2, 0), (0, 2), (0, 0)]),  # a bow tie over the box's corners
        shapely.Polygon([(0, 0), (2, 0), (2, 2), (2, 2), (0, 0)]),  # a triangle, one vertex twice
        shapely.Polygon([(0, 0), (2, 0), (0, 0), (0, 2), (0, 0)]),  # two spikes
        shapely.Polygon([(0, 0), (1, 0), (2, 0), (2, 2), (0, 2)]),  # a collinear vertex
        shapely.box(-1, -1, 3, 3).difference(shapely.box(0, 0, 2, 2)),  # a hole
        shapely.MultiPolygon([shapely.box(0, 0, 1, 1)]),
        shapely.LineString([(0, 2), (2, 2)]), shapely.Point(), None,
    ]
    return shaped, other


def test_intersects_of_boxes_and_points_is_geos_prepared_intersects():
    shaped, other = _edge_cases()
    geoms = np.array(shaped + other, dtype=object)
    bounds = shapely.bounds(geoms)
    rows = np.flatnonzero(~shapely.is_missing(geoms))
    claimed = fqg._box_shaped(geoms, rows, bounds)
    np.testing.assert_array_equal(claimed, np.arange(len(geoms)) < len(shaped))
    # Every pair, both ways, against GEOS' prepared intersects.
    l, r = np.divmod(np.arange(len(geoms) ** 2), len(geoms))
    # (GEOS 3.11 leaves numpy an invalid-value flag on the zero-size boxes.)
    with np.errstate(invalid="ignore"):
        shapely.prepare(geoms)
        want = np.array([a is not None and b is not None and shapely.intersects(a, b)
                         for a, b in zip(geoms[l], geoms[r])])
        shapely.destroy_prepared(geoms)
        keep = fqg._intersects(geoms, geoms, l, r)
    np.testing.assert_array_equal(keep, want)
    # And the whole join (sorted: many equal box centres in a tree of more
    # than 16, whose order GEOS' std::sort leaves unspecified).
    frame = geopandas.GeoDataFrame({"k": np.arange(len(geoms))}, geometry=list(geoms))
    same(fqg.sjoin(frame, frame), geopandas.sjoin(frame, frame), ["index", "index_right"])


from hypothesis import given, strategies as st  # noqa: E402

_coordinate = st.integers(0, 5).map(float)
_ring = st.tuples(_coordinate, _coordinate, st.integers(0, 3), st.integers(0, 3), st.integers(0, 3), st.booleans()).map(
    lambda b: _rectangle(b[0], b[1], b[0] + b[2], b[1] + b[3], b[4], b[5]))
_point = st.tuples(_coordinate, _coordinate).map(shapely.Point)
_box_geometry = st.one_of(_ring, _point, st.permutations([(0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (0.0, 2.0)]).map(
    lambda corners: shapely.Polygon(list(corners) + [corners[0]])))


@given(st.lists(_box_geometry, max_size=14), st.lists(_box_geometry, max_size=14),
       st.sampled_from(["inner", "left", "right"]))
def test_sjoin_of_boxes_and_points_small_frames(a, b, how):
    # Rings from any corner, either way round, zero-size ones; the four
    # corners of a box in any order (bow ties among them); points.
    left = geopandas.GeoDataFrame({"a": np.arange(len(a))}, geometry=geopandas.GeoSeries(a).values)
    right = geopandas.GeoDataFrame({"b": np.arange(len(b))}, geometry=geopandas.GeoSeries(b).values)
    pd.testing.assert_frame_equal(fqg.sjoin(left, right, how=how), geopandas.sjoin(left, right, how=how))


@pytest.mark.parametrize("predicate", ["intersects", "contains", "within", None])
@pytest.mark.parametrize("meanwhile", ["all", "some", "none"])
def test_mixed_shapes_in_geopandas_order(monkeypatch, predicate, meanwhile):
    # Boxes (some float32-exact, some not), points and hexagons on both
    # sides, unsorted: the rows in geopandas' order. The box join in its own
    # thread as for big frames ("all": everything that can be worked out
    # meanwhile is, whenever the join ends; "some": as it comes) or not.
    monkeypatch.setattr(fqg, "_MEANWHILE_ROWS", 10**9 if meanwhile == "none" else 0)
    if meanwhile == "all":
        background = fqg._meanwhile

        def never_done(*args, **kwargs):
            result, _ = background(*args, **kwargs)
            return result, lambda: False

        monkeypatch.setattr(fqg, "_meanwhile", never_done)
    rng = np.random.default_rng(21)

    def shapes(n):
        corner = rng.uniform(0, 1000, (n, 2))
        side = rng.uniform(1, 30, (n, 2))
        side[: n // 3] = np.round(side[: n // 3])
        corner[: n // 3] = np.round(corner[: n // 3])
        boxes = shapely.box(*corner.T, *(corner + side).T)
        points = shapely.points(rng.uniform(0, 1000, (n, 2)))
        hexagons = shapely.buffer(shapely.points(rng.uniform(0, 1000, (n // 2, 2))), 12, quad_segs=1)
        geoms = np.concatenate([boxes, points, hexagons])
        return geoms[rng.permutation(len(geoms))]

    a, b = shapes(900), shapes(900)
    left = geopandas.GeoDataFrame({"a": np.arange(len(a))}, geometry=a, crs="EPSG:3857")
    right = geopandas.GeoDataFrame({"b": np.arange(len(b))}, geometry=b, crs="EPSG:3857")
    pd.testing.assert_frame_equal(fqg.sjoin(left, right, predicate=predicate),
                                  geopandas.sjoin(left, right, predicate=predicate))


def _str_ranks_reference(bounds, capacity):
    """tree_ranks' definition written plainly: numpy's stable argsorts,
    the tree built bottom up and numbered depth first."""
    nodes, members = bounds, [[i] for i in range(len(bounds))]
    while len(nodes) > 1:
        number = len(nodes)
        per_slice = int(np.ceil(number / int(np.ceil(np.sqrt(np.ceil(number / capacity))))))
        by_x = np.argsort(nodes[:, 0] + nodes[:, 2], kind="stable")
        parents, below = [], []
        for start in range(0, number, per_slice):
            piece = by_x[start:start + per_slice]
            piece = piece[np.argsort(nodes[piece, 1] + nodes[piece, 3], kind="stable")]
            for group in range(0, len(piece), capacity):
                children = piece[group:group + capacity]
                parents.append([nodes[children, 0].min(), nodes[children, 1].min(),
                                nodes[children, 2].max(), nodes[children, 3].max()])
                below.append([leaf for child in children for leaf in members[child]])
        nodes, members = np.array(parents), below
    ranks = np.empty(len(bounds), dtype=np.intp)
    ranks[members[0]] = np.arange(len(bounds))
    return ranks


def test_tree_ranks_keep_the_order_of_equal_centres():
    # Ties (rounded values), -0.0 beside 0.0, tiny and huge values, and
    # centres that differ only in their last bits, against the definition.
    rng = np.random.default_rng(22)
    near = 1.0 + np.arange(300)[::-1] * np.finfo(float).eps
    for centres in [np.round(rng.normal(size=(2, 500)), 1), rng.uniform(0, 2e5, (2, 400)).astype(np.float32),
                    np.array([[0.0, -0.0, 1.0, -0.0, 0.0, -1.0]] * 2), rng.uniform(-1, 1, (2, 99)) * 1e-300,
                    rng.uniform(-1, 1, (2, 99)) * 1e300, np.array([near, near[::-1]]), np.zeros((2, 1))]:
        bounds = np.column_stack([centres[0], centres[1], centres[0], centres[1]]).astype(float)
        for capacity in [2, 3, 10]:
            np.testing.assert_array_equal(fqg.tree_ranks(bounds, capacity), _str_ranks_reference(bounds, capacity))
    with pytest.raises(ValueError, match="capacity"):
        fqg.tree_ranks(bounds, 1)
