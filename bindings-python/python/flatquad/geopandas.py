"""Spatial joins of GeoDataFrames on flatquad (``pip install flatquad[geopandas]``).

:func:`sjoin` does what ``geopandas.sjoin(left, right, how, predicate)`` does and
returns the same joined frame (the same rows, columns, index and dtypes; pairs
in increasing (left row, right row) order):

1. **Candidates**: the geometries' bounding boxes are joined by flatquad
   (:func:`flatquad.join_bounds`: a grid over the right boxes, the left boxes
   queried on every core). float64 bounds are rounded once to float32; that
   rounding is monotone, so no pair whose boxes meet in float64 is lost.
2. **Refinement**: the exact predicate, by shapely's vectorised functions
   (``shapely.intersects(left[i], right[j])`` over all candidate pairs at once),
   in float64 as geopandas does it.
3. **The frame** is assembled by geopandas' own join of the two frames on the
   pairs (``geopandas.tools.sjoin._frame_join``), so suffixes, index names and
   ``how="left"``/``"right"`` behave exactly as in ``geopandas.sjoin``.

Rules (documented differences from ``geopandas.sjoin``):

- **CRS**: both frames must have the same CRS (or both none); a mismatch raises
  ``ValueError`` (geopandas only warns). Reproject one side first (``to_crs``).
- **Missing, empty and non-finite geometries** (``None``, ``POINT EMPTY``, a
  geometry whose bounds are NaN or infinite) never match anything: their rows
  are skipped as candidates (like geopandas, whose tree leaves them out); with
  ``how="left"`` they still appear once, unmatched.
- Empty frames give an empty join with the right columns.
- Predicates: every predicate that implies the boxes meet (``intersects``,
  ``contains``, ``within``, ``covers``, ``covered_by``, ``contains_properly``,
  ``overlaps``, ``crosses``, ``touches``); ``dwithin`` is refused.
"""

import importlib

import numpy as np

import flatquad

try:
    import geopandas
    import shapely

    # The module (geopandas.tools.sjoin is also the name of the function).
    _geopandas_sjoin = importlib.import_module("geopandas.tools.sjoin")
except ImportError as error:  # pragma: no cover - the extra is missing
    raise ImportError(
        "flatquad.geopandas needs geopandas and shapely: pip install flatquad[geopandas]"
    ) from error

#: Predicates whose truth implies that the two bounding boxes meet.
PREDICATES = (
    "intersects",
    "contains",
    "within",
    "covers",
    "covered_by",
    "contains_properly",
    "overlaps",
    "crosses",
    "touches",
)

__all__ = ["PREDICATES", "candidate_pairs", "check_crs", "refine", "sjoin", "usable_bounds"]


def check_crs(left, right):
    """Raise ``ValueError`` unless the two frames (or series) share a CRS."""
    a, b = left.crs, right.crs
    if (a is None) != (b is None) or (a is not None and not a.equals(b)):
        raise ValueError(
            f"CRS mismatch: left is {a.to_string() if a else None}, right is "
            f"{b.to_string() if b else None}; reproject one side first (right.to_crs(left.crs))"
        )


def usable_bounds(geometries):
    """``(bounds, rows)``: the float64 ``(n, 4)`` bounds of the geometries
    that can match (not missing, not empty, finite bounds) and their
    positions in ``geometries``."""
    bounds = shapely.bounds(np.asarray(geometries))
    rows = np.flatnonzero(np.isfinite(bounds).all(axis=1))
    return np.ascontiguousarray(bounds[rows]), rows


def candidate_pairs(left_geoms, right_geoms, *, index="grid"):
    """``(l, r)`` positions of every pair whose bounding boxes meet, sorted,
    skipping geometries that cannot match."""
    lb, lrows = usable_bounds(left_geoms)
    rb, rrows = usable_bounds(right_geoms)
    pairs = flatquad.join_bounds(lb, rb, sort=True, index=index)
    return lrows[pairs[0]], rrows[pairs[1]]


def refine(left_geoms, right_geoms, l, r, predicate):
    """The candidate pairs ``(l, r)`` for which ``predicate(left[l], right[r])``
    holds, by one vectorised shapely call."""
    if predicate not in PREDICATES:
        raise ValueError(f"predicate {predicate!r} is not supported; expected one of {PREDICATES}")
    if len(l) == 0:
        return l, r
    keep = getattr(shapely, predicate)(np.asarray(left_geoms)[l], np.asarray(right_geoms)[r])
    return l[keep], r[keep]


def sjoin(left_df, right_df, how="inner", predicate="intersects", lsuffix="left", rsuffix="right",
          *, index="grid"):
    """``geopandas.sjoin(left_df, right_df, how, predicate, lsuffix, rsuffix)``
    on flatquad: bounding-box candidates from flatquad, exact refinement by
    shapely, the frame assembled as geopandas does.

    Parameters
    ----------
    left_df, right_df : geopandas.GeoDataFrame
        With the same CRS (or both without one).
    how : "inner", "left" or "right"
    predicate : str
        One of :data:`PREDICATES` (``"intersects"`` by default).
    lsuffix, rsuffix : str
        As for ``geopandas.sjoin``.
    index : str
        The flatquad structure over the right boxes (see ``flatquad.BoxIndex``).

    Returns
    -------
    geopandas.GeoDataFrame
        The rows ``geopandas.sjoin`` returns; pairs in increasing (left row,
        right row) order.

    Raises
    ------
    ValueError
        For a CRS mismatch, an unsupported ``how`` or ``predicate``.

    Examples
    --------
    >>> import geopandas, shapely, flatquad.geopandas
    >>> parcels = geopandas.GeoDataFrame({"parcel": ["a", "b"]},
    ...     geometry=[shapely.box(0, 0, 2, 2), shapely.box(5, 5, 6, 6)])
    >>> trees = geopandas.GeoDataFrame({"tree": [1, 2]},
    ...     geometry=[shapely.Point(1, 1), shapely.Point(9, 9)])
    >>> flatquad.geopandas.sjoin(trees, parcels)[["tree", "parcel", "index_right"]]
       tree parcel  index_right
    0     1      a            0
    """
    for name, frame in (("left_df", left_df), ("right_df", right_df)):
        if not isinstance(frame, geopandas.GeoDataFrame):
            raise ValueError(f"{name} must be a GeoDataFrame, got {type(frame).__name__}")
    if how not in ("inner", "left", "right"):
        raise ValueError(f'how was "{how}"; expected "inner", "left" or "right"')
    if predicate not in PREDICATES:
        raise ValueError(f"predicate {predicate!r} is not supported; expected one of {PREDICATES}")
    check_crs(left_df, right_df)
    left_geoms, right_geoms = left_df.geometry.values, right_df.geometry.values
    l, r = candidate_pairs(left_geoms, right_geoms, index=index)
    l, r = refine(left_geoms, right_geoms, l, r, predicate)
    joined, _ = _geopandas_sjoin._frame_join(
        left_df, right_df, (l.astype(np.intp), r.astype(np.intp)), None, how, lsuffix, rsuffix, predicate
    )
    return joined
