"""Spatial joins of GeoDataFrames on flatquad (``pip install flatquad[geopandas]``).

:func:`sjoin` and :func:`sjoin_nearest` take every argument
``geopandas.sjoin`` and ``geopandas.sjoin_nearest`` (GeoPandas 1.x) take and
return the same joined frames: the same rows, columns, index and dtypes, the
same errors and warnings. GeoPandas' own test suite (``test_sjoin.py``, as its
wheel ships it) runs on them: ``make test-geopandas-suite``, docs/geopandas.md.

:func:`sjoin` (``predicate=...``):

1. **Candidates**: the geometries' bounding boxes are joined by flatquad
   (:func:`flatquad.join_bounds`: a grid over the right boxes, the left boxes
   queried on every core; for ``"dwithin"`` the left boxes widened by
   ``distance`` and queried in a :class:`flatquad.BoxIndex`). float64 bounds
   are rounded once to float32; that rounding is monotone, so no pair whose
   boxes meet in float64 is lost.
2. **Refinement**: the exact predicate, by shapely's vectorised functions
   (``shapely.intersects(left[i], right[j])`` over all candidate pairs at once),
   in float64 and on prepared geometries as geopandas does it (GEOS' prepared
   predicates; ``"within"`` as the right geometry's prepared ``contains``);
   ``predicate=None`` keeps the pairs whose float64 boxes meet;
   ``"intersects"`` answers a pair of points and rectangles (geometries that
   are exactly their closed box) by their float64 boxes, which is exact, and
   asks shapely only about the other pairs. Geometries
   that were not prepared are prepared for the call only. GEOS' prepared
   geometries must not be used by two threads at once, so a call that runs
   while another is refining prepares private copies of its geometries
   instead (GEOS clones), and concurrent calls refine at once; code of your
   own that uses or prepares the same geometry objects from another thread at
   the same time is not covered by that.
3. **The frame** is assembled from the pairs by :func:`join_frames` (public
   pandas calls), so suffixes, index names and ``how="left"``/``"right"``
   behave as in ``geopandas.sjoin``. ``on_attribute`` keeps the pairs whose
   values in those columns are equal.

:func:`sjoin_nearest`: for every query geometry (left, or right with
``how="right"``) the geometries of the other side at the smallest shapely
distance, all of them when several tie (exactly equal float64 distances, as
shapely's ``STRtree.query_nearest(all_matches=True)`` returns them):

1. **An upper bound** ``U`` of that distance: a vertex of the geometry asks a
   flatquad :class:`flatquad.LooseQuadtree` of the other side's boxes for its
   nearest box (``nearest_many``), and ``U`` is the shapely distance of the
   geometry to that box's geometry (with ``exclusive``, the geometries equal to
   the query do not count: ``k`` grows until one that counts is found, or the
   other side is exhausted). ``max_distance`` lowers ``U``.
2. **Every geometry that can beat or tie it**: a box's distance is a lower
   bound of its geometry's, so any geometry at distance ``<= U`` has a box
   meeting the query's box widened by ``U`` (plus a relative 1e-9 for
   rounding): one :class:`flatquad.BoxIndex` query for all.
3. **Refinement**: shapely distances (GEOS ``GEOSDistance``, the very function
   shapely's tree uses, so ties are the same) of those candidates; the pairs at
   the minimum are kept (and ``<= max_distance``).

Rows whose geometry is missing, empty or has non-finite bounds (``None``,
``POINT EMPTY``, NaN coordinates) never match (geopandas' tree leaves the
first two out); with ``how="left"``/``"right"`` they still appear once,
unmatched.

Row order: :func:`sjoin` gives geopandas' order, by left row and then in the
order geopandas' tree visits the right rows (:func:`tree_ranks` computes it;
by right row for ``"within"``); it can differ only among right rows whose box
centres tie in a sort of more than 16 boxes, where GEOS' ``std::sort`` leaves
equal keys in an unspecified order. :func:`sjoin_nearest` gives its pairs by
(left row, right row); geopandas gives a left row's equidistant right rows in
the order its nearest search met them (the same rows). With ``how="right"``
both sort by (right row, left row).

As in geopandas, the predicate, ``distance``, ``max_distance`` and
``exclusive`` are only checked when the side the tree would be built on holds
a geometry (otherwise nothing can match and nothing is checked).
"""

import os
import threading
import warnings

import numpy as np

import flatquad

try:
    import geopandas
    import pandas as pd
    import shapely
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

#: Every predicate :func:`sjoin` takes: :data:`PREDICATES`, ``"dwithin"``
#: (with ``distance``) and ``None`` (the bounding boxes meet).
VALID_PREDICATES = frozenset(PREDICATES) | {"dwithin", None}

#: The relative widening of a search box beyond an upper bound of the nearest
#: distance: far above the rounding of GEOS' distance and of the box arithmetic.
NEAREST_MARGIN = 1e-9

__all__ = [
    "NEAREST_MARGIN",
    "PREDICATES",
    "VALID_PREDICATES",
    "candidate_pairs",
    "check_crs",
    "join_frames",
    "nearest_pairs",
    "refine",
    "sjoin",
    "sjoin_nearest",
    "tree_ranks",
    "usable_bounds",
]


# ------------------------------------------------------------------ helpers


def check_crs(left, right):
    """Raise ``ValueError`` unless the two frames (or series) share a CRS: a
    strict check for code that wants one (:func:`sjoin`, :func:`sjoin_nearest`
    and :mod:`flatquad.dask` warn on a mismatch and join, as geopandas does)."""
    a, b = left.crs, right.crs
    if (a is None) != (b is None) or (a is not None and not a.equals(b)):
        raise ValueError(
            f"CRS mismatch: left is {a.to_string() if a else None}, right is "
            f"{b.to_string() if b else None}; reproject one side first (right.to_crs(left.crs))"
        )


def _crs_string(crs):
    if not crs:
        return None
    text = crs.to_string()
    return text if len(text) <= 50 else " ".join([text[:50], "..."])


def _warn_crs_mismatch(left_df, right_df):
    """geopandas' warning, word for word, when the CRSs differ (``==``)."""
    if not left_df.crs == right_df.crs:
        warnings.warn(
            "CRS mismatch between the CRS of left geometries "
            "and the CRS of right geometries.\n"
            "Use `to_crs()` to reproject one of "
            "the input geometries to match the CRS of the other.\n\n"
            f"Left CRS: {_crs_string(left_df.crs)}\n"
            f"Right CRS: {_crs_string(right_df.crs)}\n",
            UserWarning,
            stacklevel=4,
        )


def _warn_geographic(frame):
    crs = frame.crs
    if crs and crs.is_geographic:
        warnings.warn(
            "Geometry is in a geographic CRS. Results from 'sjoin_nearest' are likely "
            "incorrect. Use 'GeoSeries.to_crs()' to re-project geometries to a "
            "projected CRS before this operation.\n",
            UserWarning,
            stacklevel=3,
        )


def _as_list(obj):
    if isinstance(obj, tuple):
        return list(obj)
    if obj is not None and not isinstance(obj, list):
        return [obj]
    return obj


def _basic_checks(left_df, right_df, how, on_attribute=None):
    """geopandas' checks of the frames, ``how`` and ``on_attribute``, with
    its messages, and its CRS mismatch warning."""
    if not isinstance(left_df, geopandas.GeoDataFrame):
        raise ValueError(f"'left_df' should be GeoDataFrame, got {type(left_df)}")
    if not isinstance(right_df, geopandas.GeoDataFrame):
        raise ValueError(f"'right_df' should be GeoDataFrame, got {type(right_df)}")
    allowed = ["left", "right", "inner"]
    if how not in allowed:
        raise ValueError(f'`how` was "{how}" but is expected to be in {allowed}')
    _warn_crs_mismatch(left_df, right_df)
    for attr in on_attribute or ():
        if attr not in left_df and attr not in right_df:
            raise ValueError(f"Expected column {attr} is missing from both of the dataframes.")
        if attr not in left_df:
            raise ValueError(f"Expected column {attr} is missing from the left dataframe.")
        if attr not in right_df:
            raise ValueError(f"Expected column {attr} is missing from the right dataframe.")
        if attr in (left_df.geometry.name, right_df.geometry.name):
            raise ValueError(
                "Active geometry column cannot be used as an input for on_attribute parameter."
            )


def usable_bounds(geometries, bounds=None):
    """``(bounds, rows)``: the float64 ``(n, 4)`` bounds of the geometries
    that can match (not missing, not empty, finite bounds) and their
    positions in ``geometries`` (``bounds``: ``shapely.bounds(geometries)``,
    if known)."""
    if bounds is None:
        bounds = shapely.bounds(np.asarray(geometries))
    finite = np.isfinite(bounds).all(axis=1)
    if finite.all():
        return np.ascontiguousarray(bounds), np.arange(len(bounds))
    rows = np.flatnonzero(finite)
    return np.ascontiguousarray(bounds[rows]), rows


def _has_tree(geometries, usable=None):
    """Whether geopandas' tree over ``geometries`` would hold any (its
    ``bool(sindex)``): some geometry is neither missing nor empty (``usable``:
    the positions of those with finite bounds, which are such, if known)."""
    if usable is not None and len(usable):
        return True
    geoms = np.asarray(geometries)
    return bool(len(geoms)) and bool((~(shapely.is_missing(geoms) | shapely.is_empty(geoms))).any())


def _empty_pairs():
    return np.empty(0, dtype=np.intp), np.empty(0, dtype=np.intp)


def _widened(bounds, by, extent):
    """``bounds`` widened by ``by`` (per row) and clipped to ``extent`` (the
    boxes they are to meet: clipping changes no answer); rows left inverted or
    with a NaN meet nothing and are dropped. ``(boxes, rows)``."""
    lo = np.maximum(bounds[:, :2] - by[:, None], extent[:2])
    hi = np.minimum(bounds[:, 2:] + by[:, None], extent[2:])
    keep = np.flatnonzero((lo <= hi).all(axis=1))
    return np.ascontiguousarray(np.hstack([lo[keep], hi[keep]])), keep


def _extent(bounds):
    return np.array([bounds[:, 0].min(), bounds[:, 1].min(), bounds[:, 2].max(), bounds[:, 3].max()])


# --------------------------------------------------------------- predicates


def tree_ranks(bounds, capacity=10):
    """The position of each box in the order a query of GEOS' ``STRtree``
    over them (shapely's, ``node_capacity=10``) visits its leaves: the boxes
    sorted by centre x, cut into ``ceil(sqrt(ceil(n / capacity)))`` vertical
    slices, each sorted by centre y and cut into nodes of ``capacity``; the
    same for the nodes, level by level; the leaves in depth-first order.

    GEOS sorts with ``std::sort``, which leaves equal keys in an unspecified
    order in ranges of more than 16; here they keep their order (stable
    sorts), so the order is geopandas' exactly when no such range has two
    equal centres. (Computed by the core's ``str_ranks``, without the GIL.)
    """
    bounds = np.ascontiguousarray(bounds, dtype=np.float64).reshape(-1, 4)
    if capacity < 2:
        raise ValueError(f"capacity must be at least 2; got {capacity}")
    return flatquad._native._str_ranks(bounds, capacity).astype(np.intp, copy=False)


def _tree_order(l, r, right_geoms, right_bounds, rank=None):
    """The pairs (sorted by left row) with each left row's right rows in the
    order geopandas' tree over the right geometries visits them (``rank``:
    :func:`tree_ranks` of the right side's ``usable_bounds``, if known)."""
    shared = np.flatnonzero(l[1:] == l[:-1])
    if not len(shared):
        return l, r  # no left row with two pairs: nothing to order
    rows = right_bounds[1]
    ranks = tree_ranks(right_bounds[0]) if rank is None else rank
    rank_of = np.zeros(len(right_geoms), dtype=np.int64)
    rank_of[rows] = ranks
    row_at = np.empty(len(rows), dtype=r.dtype)
    row_at[ranks] = rows
    # Only the pairs of left rows with several (the rest stay in place), by
    # one sort of unique integer keys, left row * n + rank, from which the
    # rank and so the right row come back.
    several = np.zeros(len(l), dtype=bool)
    several[shared] = several[shared + 1] = True
    at = np.flatnonzero(several)
    r = r.copy()
    keys = np.sort(l[at].astype(np.int64) * len(rows) + rank_of[r[at]])
    r[at] = row_at[keys % len(rows)]
    return l, r


def candidate_pairs(left_geoms, right_geoms, *, index="grid", right_bounds=None, left_bounds=None, sort=True):
    """``(l, r)`` positions of every pair whose bounding boxes meet, sorted
    (with ``sort=False``, by ``l`` only), skipping geometries that cannot
    match (``left_bounds``, ``right_bounds``: the sides' ``usable_bounds``,
    if known)."""
    lb, lrows = left_bounds if left_bounds is not None else usable_bounds(left_geoms)
    rb, rrows = right_bounds if right_bounds is not None else usable_bounds(right_geoms)
    if not len(lrows) or not len(rrows):
        return _empty_pairs()
    pairs = flatquad.join_bounds(lb, rb, sort=sort, index=index)
    return lrows[pairs[0]], rrows[pairs[1]]


def _box_meets(left_geoms, right_geoms, l, r):
    """Whether the float64 bounding boxes of the pairs meet (closed boxes,
    as GEOS' envelopes)."""
    return _meet(shapely.bounds(np.asarray(left_geoms)[l]), shapely.bounds(np.asarray(right_geoms)[r]))


def _box_shaped(geoms, rows, bounds):
    """Whether each geometry (filled at ``rows``, positions in increasing
    order; ``False`` elsewhere) is, as a point set, exactly its closed float64
    bounding box (``bounds``: ``shapely.bounds(geoms)``, at least at
    ``rows``). Only two kinds are claimed: a point with finite coordinates,
    and a polygon without holes whose ring is the four corners of a box of
    positive width and height in turn (5 coordinates, edges alternately
    vertical and horizontal: what ``shapely.box`` makes). Everything else is
    ``False``. In pieces of ``_SHAPE_PIECE`` rows, whose coordinates reuse
    memory (a million boxes' coordinates are 80 MB)."""
    geoms = np.asarray(geoms)
    shaped = np.zeros(len(geoms), dtype=bool)
    whole = len(rows) == len(geoms)
    for start in range(0, len(rows), _SHAPE_PIECE):
        at = rows[start:start + _SHAPE_PIECE]
        piece = geoms[start:start + _SHAPE_PIECE] if whole else geoms[at]
        box = _piece_box_shaped(piece)
        shaped[at] = box & np.isfinite(bounds[at]).all(axis=1)
    return shaped


#: Rows of a piece of :func:`_box_shaped`.
_SHAPE_PIECE = 1 << 16


def _piece_box_shaped(geoms):
    """:func:`_box_shaped` of each of ``geoms``, but for finite bounds."""
    kind = shapely.get_type_id(geoms)
    box = kind == 0
    polygons = np.flatnonzero(kind == 3)
    if len(polygons):
        poly = geoms if len(polygons) == len(geoms) else geoms[polygons]
        # 5 coordinates: a shell of 5 and no hole (GEOS' rings have 0 or at
        # least 3 coordinates, and an empty shell has no holes).
        simple = shapely.get_num_coordinates(poly) == 5
        if not simple.all():
            polygons, poly = polygons[simple], poly[simple]
        xy = shapely.get_coordinates(poly).reshape(-1, 5, 2)
        x0, y0, x1, y1, x2, y2, x3, y3 = (xy[:, i // 2, i % 2] for i in range(8))
        # (x0, y0), (x1, y1), ... go round the corners of {x0, x2} x {y0, y2}.
        box[polygons] = (x0 != x2) & (y0 != y2) & (
            ((x0 == x1) & (y1 == y2) & (x2 == x3) & (y3 == y0))
            | ((y0 == y1) & (x1 == x2) & (y2 == y3) & (x3 == x0))
        )
    return box


def _used(n, rows):
    """The distinct positions among ``rows`` (below ``n``), increasing."""
    mark = np.zeros(n, dtype=bool)
    mark[rows] = True
    return np.flatnonzero(mark)


def _meet(a, b):
    """Whether the closed boxes (rows of ``a`` and ``b``, float64) meet."""
    return (a[:, 0] <= b[:, 2]) & (b[:, 0] <= a[:, 2]) & (a[:, 1] <= b[:, 3]) & (b[:, 1] <= a[:, 3])


def _intersects(left_geoms, right_geoms, l, r, bounds=(None, None), shaped=(None, None), met=False):
    """``intersects`` of the pairs as GEOS' prepared predicate answers it, by
    the boxes where both geometries are exactly their boxes (points and
    rectangles, :func:`_box_shaped`: two closed boxes intersect exactly when
    they meet, and the float64 comparisons are exact), by shapely for the
    other pairs. ``bounds``, ``shaped``: the sides' ``shapely.bounds`` and
    ``_box_shaped``, if known; ``met``: the pairs' float64 boxes are known
    to meet."""
    left_bounds, right_bounds = bounds
    if left_bounds is None:
        left_bounds = shapely.bounds(np.asarray(left_geoms))
    if right_bounds is None:
        right_bounds = shapely.bounds(np.asarray(right_geoms))
    left_shaped, right_shaped = shaped
    if left_shaped is None:
        left_shaped = _box_shaped(left_geoms, _used(len(left_geoms), l), left_bounds)
    if right_shaped is None:
        right_shaped = _box_shaped(right_geoms, _used(len(right_geoms), r), right_bounds)
    by_box = left_shaped[l] & right_shaped[r]
    keep = np.empty(len(l), dtype=bool)
    if by_box.all():
        keep[:] = True if met else _meet(left_bounds[l], right_bounds[r])
        return keep
    boxed = np.flatnonzero(by_box)
    keep[boxed] = True if met else _meet(left_bounds[l[boxed]], right_bounds[r[boxed]])
    rest = np.flatnonzero(~by_box)
    keep[rest] = _prepared(shapely.intersects, np.asarray(left_geoms), l[rest], np.asarray(right_geoms)[r[rest]])
    return keep


def refine(left_geoms, right_geoms, l, r, predicate, distance=None):
    """The candidate pairs ``(l, r)`` for which ``predicate(left[l], right[r])``
    holds, by one vectorised shapely call (``None``: the float64 boxes meet;
    ``"dwithin"``: within ``distance``, one float64 per left row;
    ``"intersects"``: by the boxes where both geometries are points or
    rectangles)."""
    return _refine(left_geoms, right_geoms, l, r, predicate, distance)


def _refine(left_geoms, right_geoms, l, r, predicate, distance=None, bounds=(None, None), shaped=(None, None),
            met=False):
    """:func:`refine`, with what :func:`_intersects` can be told."""
    if predicate is not None and predicate not in VALID_PREDICATES:
        raise ValueError(f"predicate {predicate!r} is not supported; expected one of {PREDICATES}")
    if len(l) == 0:
        return l, r
    # Older GEOS (3.11, in shapely 2.0's wheels) leaves an invalid-value flag on
    # some degenerate polygons, which numpy would report as a warning after the
    # call; geopandas' tree query runs the same GEOS predicates and warns of none.
    with np.errstate(invalid="ignore"):
        if predicate == "dwithin":
            keep = _prepared(shapely.dwithin, np.asarray(left_geoms), l, np.asarray(right_geoms)[r], distance[l])
        elif predicate is None:
            keep = _box_meets(left_geoms, right_geoms, l, r)
        elif predicate == "intersects":
            keep = _intersects(left_geoms, right_geoms, l, r, bounds, shaped, met)
        elif predicate == "within":
            # geopandas asks its tree over the left geometries which contain each
            # right one: GEOS' prepared contains, whose answers on invalid or
            # degenerate geometries can differ from the plain within's.
            keep = _prepared(shapely.contains, np.asarray(right_geoms), r, np.asarray(left_geoms)[l])
        else:
            keep = _prepared(getattr(shapely, predicate), np.asarray(left_geoms), l, np.asarray(right_geoms)[r])
    return l[keep], r[keep]


#: GEOS' prepared geometries are not safe to use from two threads at once
#: (they build their indexes lazily: libgeos/geos#825), shapely keeps a
#: geometry's prepared form on the geometry object, and dask's threads join
#: pieces that share geometry objects. So only a call that starts while no
#: other runs prepares the geometries themselves (as geopandas does, and
#: without a copy); a call that overlaps one prepares private copies, which no
#: other thread can reach. At most one call at a time is the first kind, so no
#: two threads ever use or change one geometry's prepared form, and the calls
#: refine at once (the predicates release the GIL).
_RUNNING_LOCK = threading.Lock()
_running = 0


def _prepared(function, geoms, rows, others, *args):
    """``function(geoms[rows], others, *args)`` with ``geoms`` prepared, as
    geopandas' tree query prepares its input geometries (GEOS' prepared
    predicates). Alone, geometries prepared before stay so and the others are
    prepared for the call only, and a big call runs on every core
    (:func:`_by_geometry`); concurrent with another call, on prepared GEOS
    clones (see ``_running``)."""
    global _running
    with _RUNNING_LOCK:
        alone = _running == 0
        _running += 1
    try:
        if not alone:
            # set_srid clones the geometry (GEOSGeom_clone), keeping its SRID.
            used = _used(len(geoms), rows)
            mine = geoms[used]
            copies = shapely.set_srid(mine, shapely.get_srid(mine))
            shapely.prepare(copies)
            return function(copies[np.searchsorted(used, rows)], others, *args)
        return _by_geometry(_prepared_alone, function, geoms, rows, others, *args)
    finally:
        with _RUNNING_LOCK:
            _running -= 1


def _prepared_alone(function, geoms, rows, others, *args):
    """``function(geoms[rows], others, *args)``, the geometries of ``rows`` not
    yet prepared prepared for the call only."""
    fresh = geoms[_used(len(geoms), rows)]
    fresh = fresh[~shapely.is_prepared(fresh)]
    shapely.prepare(fresh)
    try:
        return function(geoms[rows], others, *args)
    finally:
        shapely.destroy_prepared(fresh)


#: Refines of at least this many pairs a thread are split over the threads
#: (shapely's predicates release the GIL).
_PAIRS_PER_THREAD = 50_000


def _threads():
    """The threads a refine may use: the cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _by_geometry(call, function, geoms, rows, others, *args):
    """``call(function, geoms, rows, others, *args)`` (``args``: one value
    per pair) on every core for a big call: the pairs cut by the identity of
    their geometry of ``geoms`` (at quantiles), so that each geometry object
    is used, and prepared, by one thread only, even where a frame holds one
    object in several rows."""
    parts = min(_threads(), len(rows) // _PAIRS_PER_THREAD)
    if parts < 2:
        return call(function, geoms, rows, others, *args)
    identity = np.fromiter(map(id, geoms[rows]), dtype=np.uintp, count=len(rows))
    quantiles = [len(rows) * k // parts for k in range(1, parts)]
    cuts = np.partition(identity, quantiles)[quantiles]
    piece = np.searchsorted(cuts, identity, side="right")
    members = [np.flatnonzero(piece == k) for k in range(parts)]
    out = [None] * parts

    def run(k):
        at = members[k]
        try:
            out[k] = (True, call(function, geoms, rows[at], others[at], *(a[at] for a in args)))
        except BaseException as error:  # noqa: BLE001 - raised below, in the caller's thread
            out[k] = (False, error)

    threads = [threading.Thread(target=run, args=(k,), name="flatquad-sjoin-refine") for k in range(1, parts)]
    for thread in threads:
        thread.start()
    run(0)
    for thread in threads:
        thread.join()
    keep = np.empty(len(rows), dtype=bool)
    for at, (ok, value) in zip(members, out):
        if not ok:
            raise value
        keep[at] = value
    return keep


def _dwithin_pairs(left_geoms, right_geoms, distance, right_bounds):
    """``(l, r)`` of the pairs within ``distance`` (per left row), sorted."""
    distance = np.asarray(distance, dtype="float64")
    if distance.ndim > 1:
        raise ValueError("Distance array should be one dimensional")
    try:
        distance = np.broadcast_to(distance, (len(left_geoms),))
    except ValueError:
        raise ValueError("Could not broadcast distance to match geometry") from None
    lb, lrows = usable_bounds(left_geoms)
    rb, rrows = right_bounds
    if not len(lrows) or not len(rrows):
        return _empty_pairs()
    boxes, kept = _widened(lb, distance[lrows], _extent(rb))
    if not len(kept):
        return _empty_pairs()
    pairs = flatquad.BoxIndex(rb).query_bulk(boxes, sort=True)
    return refine(left_geoms, right_geoms, lrows[kept[pairs[0]]], rrows[pairs[1]], "dwithin", distance)


def _predicate_pairs(left_df, right_df, predicate, distance, index, right_bounds, right_all):
    """geopandas' ``_geom_predicate_query`` on flatquad: the checks its tree
    makes (only when the tree would hold a geometry), then the pairs."""
    left_geoms, right_geoms = left_df.geometry.values, right_df.geometry.values
    tree_side = left_geoms if predicate == "within" else right_geoms
    if not _has_tree(tree_side, None if predicate == "within" else right_bounds[1]):
        return _empty_pairs() + (None,)
    if predicate not in VALID_PREDICATES:
        raise ValueError(
            f"Got predicate='{predicate}'; `predicate` must be one of {set(VALID_PREDICATES)}"
        )
    if predicate == "dwithin":
        if distance is None:
            raise ValueError("'distance' parameter is required for 'dwithin' predicate")
        return _dwithin_pairs(left_geoms, right_geoms, distance, right_bounds) + (None,)
    if distance is not None:
        raise ValueError(
            "'distance' parameter is only supported in combination with 'dwithin' predicate"
        )
    left_all = shapely.bounds(np.asarray(left_geoms))
    left_bounds = usable_bounds(left_geoms, left_all)
    # flatquad joins the boxes, and ranks the right boxes in geopandas' tree
    # order, without the GIL, each in a thread of its own. Until the join is
    # done, this thread works out, for every usable row, the shapes
    # intersects refines by (each side); what the join's end finds not done
    # is done after, for the rows in pairs only. The pairs come by left row;
    # only "within" keeps them by right row (the others are put in tree
    # order after).
    big = len(left_bounds[1]) + len(right_bounds[1]) >= _MEANWHILE_ROWS
    pairs, joined = _meanwhile(big, candidate_pairs, left_geoms, right_geoms, index=index,
                               right_bounds=right_bounds, left_bounds=left_bounds, sort=predicate == "within")
    # The ranks are native and free the GIL: they run in a thread of their own.
    ranks, _ = _meanwhile(big and predicate != "within", tree_ranks, right_bounds[0])
    shaped, met = [None, None], False
    if predicate == "intersects":
        # float32 boxes (flatquad's) that are the float64 ones: the
        # candidates are exactly the pairs whose float64 boxes meet.
        met = _float32_exact(left_bounds[0]) and _float32_exact(right_bounds[0])
        for side, (geoms, (_, rows), all_bounds) in enumerate(
                [(left_geoms, left_bounds, left_all), (right_geoms, right_bounds, right_all)]):
            if not joined():
                shaped[side] = _box_shaped(geoms, rows, all_bounds)
    l, r = pairs()
    l, r = _refine(left_geoms, right_geoms, l, r, predicate, bounds=(left_all, right_all), shaped=shaped, met=met)
    return l, r, ranks() if big and predicate != "within" else None


def _float32_exact(bounds):
    """Whether every value of ``bounds`` is a float32 (so flatquad's
    rounding to float32 keeps it)."""
    with np.errstate(over="ignore"):
        return bool((bounds.astype(np.float32) == bounds).all())


#: Joins of fewer rows (both sides) run the box join in the calling thread.
_MEANWHILE_ROWS = 300_000


def _meanwhile(background, function, *args, **kwargs):
    """``(result, done)``: ``result()`` gives ``function(*args, **kwargs)``,
    run in another thread from now (``background``), else when called (an
    error is raised by ``result()``); ``done()``: whether it has finished
    (true at once when not in the background)."""
    if not background:
        return (lambda: function(*args, **kwargs)), (lambda: True)
    out = {}

    def run():
        try:
            out["value"] = function(*args, **kwargs)
        except BaseException as error:  # noqa: BLE001 - raised by the call below
            out["error"] = error

    thread = threading.Thread(target=run, name="flatquad-sjoin-boxes", daemon=True)
    thread.start()

    def result():
        thread.join()
        if "error" in out:
            raise out["error"]
        return out["value"]

    return result, lambda: not thread.is_alive()


def _sjoin_pairs(left_df, right_df, predicate, distance, index):
    """The pairs in geopandas' order: by left row, then (``"within"``) by
    right row or (the other predicates) in its tree's order."""
    right_geoms = right_df.geometry.values
    right_all = shapely.bounds(np.asarray(right_geoms))
    right_bounds = usable_bounds(right_geoms, right_all)
    l, r, rank = _predicate_pairs(left_df, right_df, predicate, distance, index, right_bounds, right_all)
    if predicate == "within":
        return l, r
    return _tree_order(l, r, right_geoms, right_bounds, rank)


def _same_attributes(left_df, right_df, l, r, on_attribute):
    """The pairs ``(l, r)`` whose values are equal in every column of
    ``on_attribute`` (geopandas compares the values with ``==``)."""
    for attr in on_attribute or ():
        keep = left_df[attr].iloc[l].values == right_df[attr].iloc[r].values
        l, r = l[keep], r[keep]
    return l, r


# ------------------------------------------------------------------- frames


def _reset_index_with_suffix(df, suffix, other):
    """``df.reset_index()``, the unnamed index levels named ``index_{suffix}``
    (``index_{suffix}{i}`` for a MultiIndex's level ``i``)."""
    names = df.index.names
    reset = df.reset_index()
    columns = reset.columns.to_numpy(copy=True)
    for i, label in enumerate(names):
        if label is None:
            new = columns[i]
            if "level" in new:
                new = f"index_{suffix}{new.split('_')[1]}"
            else:
                new = f"index_{suffix}"
            if new in df.columns or new in other.columns:
                raise ValueError(f"'{new}' cannot be a column name in the frames being joined")
            columns[i] = new
    return reset, pd.Index(columns)


def _suffixed(left, right, lsuffix, rsuffix, left_geometry, right_geometry):
    """The column labels with the suffixes on those both sides have (the
    geometry columns aside), as pandas' merge does it."""
    overlap = left.intersection(right)
    if len(overlap) == 0:
        return left, right
    if not lsuffix and not rsuffix:
        raise ValueError(f"columns overlap but no suffix specified: {overlap}")

    def rename(labels, suffix, geometry):
        return pd.Index(
            [f"{x}_{suffix}" if x in overlap and x != geometry and suffix is not None else x for x in labels]
        )

    left_new = rename(left, lsuffix, left_geometry)
    right_new = rename(right, rsuffix, right_geometry)
    dups = []
    if not left_new.is_unique:
        dups = left_new[left_new.duplicated() & ~left.duplicated()].tolist()
    if not right_new.is_unique:
        dups.extend(right_new[right_new.duplicated() & ~right.duplicated()].tolist())
    if dups:
        warnings.warn(
            f"Passing 'suffixes' which cause duplicate columns {set(dups)} in the "
            f"result is deprecated and will raise a MergeError in a future version.",
            FutureWarning,
            stacklevel=5,
        )
    return left_new, right_new


def _ordered(l, r, distances, length, how, add_unmatched):
    """The pairs in the order of ``how``'s side (by right row, then left row,
    for ``"right"``); with ``add_unmatched``, each row of that side without a
    pair gets one with ``-1`` on the other side (and a NaN distance), in its
    place."""
    if how == "inner":
        return l, r, distances
    if how == "right":
        order = np.lexsort((l, r))
        l, r = r[order], l[order]
        if distances is not None:
            distances = distances[order]
    if add_unmatched:
        missing = np.flatnonzero(~np.isin(np.arange(length), l))
        at = np.searchsorted(l, missing)
        l = np.insert(l, at, missing)
        r = np.insert(r, at, -1)
        if distances is not None:
            distances = np.insert(distances, at, np.nan)
    if how == "right":
        l, r = r, l
    return l, r, distances


def _rows(frame, positions):
    """The rows at ``positions`` (``-1``: a row of missing values), on a
    fresh RangeIndex; dtypes widen only where a row is missing."""
    out = frame.reindex(positions)
    out.index = pd.RangeIndex(len(positions))
    return out


def _geometry_name(frame):
    """The active geometry column's name, None without one."""
    return frame.active_geometry_name if isinstance(frame, geopandas.GeoDataFrame) else None


def _restore_index(joined, index_columns, original_names):
    joined = joined.set_index(list(index_columns))
    names = list(joined.index.names)
    for i, label in enumerate(original_names):
        if label is None:
            names[i] = None
    joined.index.names = names
    return joined


def join_frames(left_df, right_df, l, r, how="inner", lsuffix="left", rsuffix="right",
                distances=None, on_attribute=None, add_unmatched=True):
    """The joined frame of the pairs ``(left_df.iloc[l[i]], right_df.iloc[r[i]])``
    (positions, in increasing left order), as ``geopandas.sjoin`` makes it:
    the index and geometry are ``how``'s side's (the left's for ``"inner"``),
    the other frame's index becomes ``index_{suffix}`` columns, shared column
    names get the suffixes; ``how="left"``/``"right"`` add the unmatched rows
    of that side in place unless ``add_unmatched`` is false (a part of a
    join whose unmatched rows are found elsewhere: ``flatquad.dask``).

    Returns ``(joined, distances)``: ``distances`` (if given) follows the rows.
    Only public pandas and GeoPandas calls.
    """
    l = np.asarray(l, dtype=np.intp)
    r = np.asarray(r, dtype=np.intp)
    if on_attribute:
        right_df = right_df.drop(on_attribute, axis=1)
    if how in ("inner", "left"):
        right_df = right_df.drop(right_df.geometry.name, axis=1)
    else:
        left_df = left_df.drop(left_df.geometry.name, axis=1)
    left_nlevels, left_names = left_df.index.nlevels, left_df.index.names
    right_nlevels, right_names = right_df.index.nlevels, right_df.index.names
    left_reset, left_columns = _reset_index_with_suffix(left_df, lsuffix, right_df)
    right_reset, right_columns = _reset_index_with_suffix(right_df, rsuffix, left_reset)
    left_columns, right_columns = _suffixed(
        left_columns, right_columns, lsuffix, rsuffix,
        _geometry_name(left_reset), _geometry_name(right_reset),
    )
    left_reset.columns = left_columns
    right_reset.columns = right_columns
    left_index = left_reset.columns[:left_nlevels]
    right_index = right_reset.columns[:right_nlevels]
    length = len(right_reset) if how == "right" else len(left_reset)
    l, r, distances = _ordered(l, r, distances, length, how, add_unmatched)
    joined = pd.concat([_rows(left_reset, l), _rows(right_reset, r)], axis=1)
    if how in ("inner", "left"):
        joined = _restore_index(joined, left_index, left_names)
    else:
        joined = joined.set_geometry(right_reset.geometry.name)
        joined = _restore_index(joined, right_index, right_names)
    return joined, distances


# --------------------------------------------------------------------- sjoin


def sjoin(left_df, right_df, how="inner", predicate="intersects", lsuffix="left", rsuffix="right",
          distance=None, on_attribute=None, *, index="grid", **kwargs):
    """``geopandas.sjoin`` on flatquad: bounding-box candidates from flatquad,
    exact refinement by shapely, the frame assembled as geopandas does.

    Parameters
    ----------
    left_df, right_df : geopandas.GeoDataFrame
        A CRS mismatch warns (as in geopandas) and joins the coordinates as they are.
    how : "inner", "left" or "right"
    predicate : str or None
        One of :data:`PREDICATES`, ``"dwithin"`` (with ``distance``) or
        ``None`` (the bounding boxes meet); ``"intersects"`` by default.
    lsuffix, rsuffix : str
        As for ``geopandas.sjoin``.
    distance : float or array_like, optional
        For ``predicate="dwithin"`` only: one distance, or one per left row.
    on_attribute : str, list or tuple, optional
        Columns of both frames whose values must also be equal.
    index : str
        The flatquad structure over the right boxes (see ``flatquad.BoxIndex``).

    Returns
    -------
    geopandas.GeoDataFrame
        The rows ``geopandas.sjoin`` returns, in its order (see the module's
        notes on row order).

    Raises
    ------
    TypeError
        For an unknown keyword argument.
    ValueError
        As geopandas: a frame that is not a GeoDataFrame, a bad ``how``,
        ``predicate``, ``distance`` or ``on_attribute``, clashing index columns.

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
    if kwargs:
        raise TypeError(f"sjoin() got an unexpected keyword argument '{next(iter(kwargs))}'")
    on_attribute = _as_list(on_attribute)
    _basic_checks(left_df, right_df, how, on_attribute)
    l, r = _sjoin_pairs(left_df, right_df, predicate, distance, index)
    l, r = _same_attributes(left_df, right_df, l, r, on_attribute)
    joined, _ = join_frames(left_df, right_df, l, r, how, lsuffix, rsuffix, on_attribute=on_attribute)
    return joined


# ------------------------------------------------------------------ nearest


def _first_points(geometries, bounds):
    """A point of each geometry (its first vertex; the centre of its box if
    it has none), shape ``(n, 2)``."""
    coords, which = shapely.get_coordinates(geometries, return_index=True)
    points = np.column_stack([(bounds[:, 0] + bounds[:, 2]) / 2, (bounds[:, 1] + bounds[:, 3]) / 2])
    if len(which):
        starts = np.flatnonzero(np.r_[True, which[1:] != which[:-1]])
        points[which[starts]] = coords[starts]
    return np.ascontiguousarray(points)


def _morton_order(points, bits=16):
    """The order of the points along a Z-order curve over their extent."""
    if len(points) < 2:
        return np.arange(len(points))
    lo = points.min(axis=0)
    span = np.maximum(points.max(axis=0) - lo, np.finfo(np.float64).tiny)
    cells = ((points - lo) / span * (2**bits - 1)).astype(np.uint64)

    def spread(v):
        v = (v | (v << np.uint64(8))) & np.uint64(0x00FF00FF)
        v = (v | (v << np.uint64(4))) & np.uint64(0x0F0F0F0F)
        v = (v | (v << np.uint64(2))) & np.uint64(0x33333333)
        return (v | (v << np.uint64(1))) & np.uint64(0x55555555)

    return np.argsort(spread(cells[:, 0]) | (spread(cells[:, 1]) << np.uint64(1)), kind="stable")


def _group_min(groups, values, n):
    """The minimum of ``values`` per group (``groups`` sorted), inf for empty groups."""
    out = np.full(n, np.inf)
    if len(groups):
        starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
        out[groups[starts]] = np.minimum.reduceat(values, starts)
    return out


def _distances(query, tree, q, t, exclusive):
    """Shapely distances of the pairs; inf where ``exclusive`` drops the pair
    (the geometries are equal, which needs distance 0) or GEOS gave NaN."""
    # Older GEOS (3.11, in shapely 2.0's wheels) gives NaN for some degenerate
    # polygons, and numpy warns of it; geopandas' nearest search does not.
    with np.errstate(invalid="ignore"):
        d = shapely.distance(query[q], tree[t])
    d = np.where(np.isnan(d), np.inf, d)
    if exclusive:
        zero = np.flatnonzero(d == 0)
        if len(zero):
            d[zero[shapely.equals(query[q[zero]], tree[t[zero]])]] = np.inf
    return d


def _reach(bounds, upper):
    """How far beyond its box ``bounds`` (float64 rows) a query must search to
    meet every box within ``upper`` of it: ``upper`` plus the margin that covers
    the float32 rounding of the stored boxes. ``flatquad.dask`` decides which
    answers are final with the same formula, so it lives here once."""
    return upper + NEAREST_MARGIN * (upper + np.abs(bounds).max(axis=1))


def nearest_pairs(query_geoms, tree_geoms, max_distance=None, exclusive=False):
    """For each query geometry, the tree geometries at the smallest shapely
    distance (all that tie; none beyond ``max_distance``; with ``exclusive``,
    none equal to the query geometry).

    Returns ``(q, t, d)``: positions in ``query_geoms`` and ``tree_geoms`` and
    the distances, sorted by ``(q, t)``: what shapely's
    ``STRtree(tree_geoms).query_nearest(query_geoms, max_distance, True, exclusive,
    all_matches=True)`` returns, sorted.
    """
    query_geoms, tree_geoms = np.asarray(query_geoms), np.asarray(tree_geoms)
    qb, qrows = usable_bounds(query_geoms)
    tb, trows = usable_bounds(tree_geoms)
    if not len(qrows) or not len(trows):
        return _empty_pairs() + (np.empty(0, dtype=np.float64),)
    query, tree = query_geoms[qrows], tree_geoms[trows]
    n, m = len(qrows), len(trows)

    # 1. An upper bound of each nearest distance: the geometry of the box
    #    nearest to one of the query's points (more while exclusive drops them).
    #    The queries in Morton order, so that neighbouring searches share
    #    memory (the index lays a big batch out in Z-order itself).
    extent = _extent(tb)
    world = (extent[0], extent[1], max(extent[2], extent[0] + 1.0), max(extent[3], extent[1] + 1.0))
    boxes = flatquad.LooseQuadtree(world, 8, 12)
    handles = boxes.insert_many(tb)
    by_handle = np.argsort(handles, kind="stable")

    def tree_rows(found):
        return by_handle[np.searchsorted(handles[by_handle], found)]

    points = _first_points(query, qb)
    query_order = _morton_order(points)
    points = np.ascontiguousarray(points[query_order])
    upper = np.full(n, np.inf)  # by query_order
    pending = np.arange(n)
    k = 2 if exclusive else 1
    # A tree of points: the distance to the nearest stored (float32) point,
    # plus that rounding, bounds the distance to the real point from above.
    points_only = not exclusive and bool((shapely.get_type_id(tree) == 0).all())
    rounding = 2.0**-23 * float(np.abs(extent).max())
    while len(pending):
        kk = min(k, m)
        offsets, found, box_d = boxes.nearest_many(points[pending], k=kk)
        at = np.repeat(np.arange(len(pending)), np.diff(offsets))
        if points_only:
            d = box_d * (1 + 1e-12) + rounding
        else:
            d = _distances(query, tree, query_order[pending[at]], tree_rows(found), exclusive)
        upper[pending] = np.minimum(upper[pending], _group_min(at, d, len(pending)))
        if kk >= m:
            break
        pending = pending[np.isinf(upper[pending])]
        k *= 8
    upper[query_order] = upper.copy()
    if max_distance is not None:
        upper = np.minimum(upper, max_distance)

    # 2. Every tree geometry whose box is within that bound of the query's box.
    rows = np.flatnonzero(np.isfinite(upper))
    if not len(rows):
        return _empty_pairs() + (np.empty(0, dtype=np.float64),)
    qrb = qb[rows]
    reach = _reach(qrb, upper[rows])
    search, kept = _widened(qrb, reach, extent)
    pairs = flatquad.BoxIndex(tb).query_bulk(search, sort=True)
    q, t = rows[kept[pairs[0]]], pairs[1]

    # 3. The exact distances; the pairs at each query's minimum.
    d = _distances(query, tree, q, t, exclusive)
    if max_distance is not None:
        d[d > max_distance] = np.inf
    best = _group_min(q, d, n)
    keep = np.isfinite(d) & (d == best[q])
    return qrows[q[keep]], trows[t[keep]], d[keep]


def _check_nearest_arguments(max_distance, exclusive):
    """shapely's checks of ``STRtree.query_nearest``, with its messages."""
    if max_distance is not None:
        if not np.isscalar(max_distance):
            raise ValueError("max_distance parameter only accepts scalar values")
        if max_distance <= 0:
            raise ValueError("max_distance must be greater than 0")
    if not np.isscalar(exclusive):
        raise ValueError("exclusive parameter only accepts scalar values")
    if exclusive not in {True, False}:
        raise ValueError("exclusive parameter must be boolean")


def sjoin_nearest(left_df, right_df, how="inner", max_distance=None, lsuffix="left", rsuffix="right",
                  distance_col=None, exclusive=False):
    """``geopandas.sjoin_nearest`` on flatquad: each left row joined to the
    right rows at the smallest distance (with ``how="right"``, each right row
    to the nearest left rows), all of them when several tie.

    Parameters
    ----------
    left_df, right_df : geopandas.GeoDataFrame
        A CRS mismatch warns and joins; a geographic CRS warns (as in geopandas).
    how : "inner", "left" or "right"
    max_distance : float, optional
        Greater than 0: no pair farther apart.
    lsuffix, rsuffix : str
        As for ``geopandas.sjoin``.
    distance_col : str, optional
        A column of this name gets each pair's distance (NaN for unmatched rows).
    exclusive : bool
        Whether geometries equal to the query geometry are left out.

    Returns
    -------
    geopandas.GeoDataFrame
        The rows ``geopandas.sjoin_nearest`` returns; a left row's equidistant
        right rows by right row.

    Examples
    --------
    >>> import geopandas, shapely, flatquad.geopandas
    >>> shops = geopandas.GeoDataFrame({"shop": ["a", "b"]},
    ...     geometry=[shapely.Point(0, 0), shapely.Point(10, 0)])
    >>> homes = geopandas.GeoDataFrame({"home": [1, 2, 3]},
    ...     geometry=[shapely.Point(1, 1), shapely.Point(9, 0), shapely.Point(5, 0)])
    >>> flatquad.geopandas.sjoin_nearest(homes, shops, distance_col="d")[["home", "shop", "d"]]
       home shop         d
    0     1    a  1.414214
    1     2    b  1.000000
    2     3    a  5.000000
    2     3    b  5.000000
    """
    _basic_checks(left_df, right_df, how)
    _warn_geographic(left_df)
    _warn_geographic(right_df)
    left_geoms, right_geoms = left_df.geometry.values, right_df.geometry.values
    query, tree = (right_geoms, left_geoms) if how == "right" else (left_geoms, right_geoms)
    if _has_tree(tree):
        _check_nearest_arguments(max_distance, exclusive)
        q, t, d = nearest_pairs(query, tree, max_distance, exclusive)
    else:
        q, t = _empty_pairs()
        d = np.empty(0, dtype=np.float64)
    # join_frames orders the rows (by right row for how="right").
    l, r = (t, q) if how == "right" else (q, t)
    joined, d = join_frames(left_df, right_df, l, r, how, lsuffix, rsuffix, distances=d)
    if distance_col is not None:
        joined[distance_col] = d
    return joined
