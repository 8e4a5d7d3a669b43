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
