"""Distributed spatial joins on Dask (``pip install flatquad[dask]``).

:func:`sjoin` joins two dask-geopandas GeoDataFrames (``how="inner"``,
``"left"`` or ``"right"``; any predicate of :data:`flatquad.geopandas.PREDICATES`
or ``"dwithin"`` with ``distance``), :func:`sjoin_nearest` finds each row's
nearest rows of the other frame, and :func:`join_bounds` joins two dask arrays
of bounds (shape ``(n, 4)``), on whatever scheduler Dask uses: the threads of
one machine, a ``distributed.LocalCluster``, or a cluster of many machines
(``distributed.Client("tcp://scheduler:8786")``: the same code). Frames read by
``dask_geopandas.read_parquet`` are read by the workers; nothing but the small
summaries below passes through the client.

How it runs:

1. **Summary pass** (one small task per input partition): its row count, the
   extent of its boxes, and a sample of their centres. Bad bounds (NaN, inverted)
   of an array raise ``ValueError`` naming the global row here. For frames the
   task also keeps the partition's geometry bounds on its worker (persisted):
   every later task reads them there instead of asking GEOS again.
2. **Spatial partitioning**: a grid of ``cells × cells`` half-open cells
   ``[x_k, x_{k+1}) × [y_l, y_{l+1})`` whose borders are quantiles of the
   sampled centres (so each cell gets about as many boxes, however clustered),
   the outer cells reaching to infinity. Every box goes, by its float32 bounds,
   to every cell it meets (replication).
3. **Pairing**: a cell gets a task only if some left partition and some right
   partition have extents that meet it; it receives only the pieces of those
   partitions. One task builds a flatquad index over the cell's right boxes;
   it travels to the joining task by pickle (protocol 5, the snapshot as an
   out-of-band buffer, nothing rebuilt) when that runs on another worker.
4. **Join and de-duplication**: the cell's left boxes query the index and keep
   only the pairs the cell *owns*: a pair belongs to the cell whose half-open
   extent holds the top-left corner ``(max x1, max y1)`` of the pair's box
   intersection (``BoxIndex.query_bulk(..., owner=cell)``). That corner lies in
   both boxes, so it is in a cell both were sent to: every pair is found
   exactly once, with no global de-duplication step. For frames, the exact
   predicate is then applied by shapely on the worker and the joined rows made
   there, as ``geopandas.sjoin`` makes them.

All decisions (cells, replication, the corner) use the float32 bounds the index
stores, so the answer equals the single-machine one exactly: the same pairs as
``flatquad.join_bounds`` (arrays) or ``flatquad.geopandas.sjoin`` (frames).

``how="left"`` (``"right"``): the cells' tasks also return which rows of that
side they matched (positions, by partition: small), and one task per
partition of that side emits its rows no cell matched, with missing values for
the other side's columns. ``predicate="dwithin"``: the left boxes are widened
by the distance (one, or one per left row) and clipped to the right side's
extent before they are sent to cells; a pair is owned by the cell holding the
top-left corner of the widened box's intersection with the right box.

Rows whose geometry is missing, empty or has non-finite bounds never match
(as in :mod:`flatquad.geopandas`; with ``how="left"``/``"right"`` they appear
once, unmatched). Left index labels are kept; the right frame's label is
``index_right`` (``index_{rsuffix}``), as in geopandas. The rows are
``geopandas.sjoin``'s on the whole frames, in another order (by cell, then
the unmatched rows by partition); sort them if the order matters. The meta's
dtypes are those of a join in which every row matched; computed, the other
side's columns widen as in geopandas when some row is unmatched.

At 10^9 rows: the summary pass persists the inputs (``persist=True``, the
default), so the workers' memory must hold both inputs (plus the replicated
pieces while a cell is joined, and the frames' bounds: 40 bytes a row); with
``persist=False`` they are read twice instead (the bounds are kept); raise
``cells`` so that a cell's boxes fit a worker's memory with room for
replication (about 10^6-10^7 boxes a cell; replication grows with the box size
over the cell size); the result of :func:`join_bounds` is a dask array:
write it out (``to_zarr``) rather than ``compute()`` it into one process.
Positions are int64 throughout.
"""

import math

import numpy as np

import flatquad

try:
    import dask
    import dask.array as da
    import dask.dataframe as dd
    import pandas as pd
    from dask import delayed

    from . import geopandas as _fqg
except ImportError as error:  # pragma: no cover - the extra is missing
    raise ImportError(
        "flatquad.dask needs dask[dataframe,distributed] and dask-geopandas: pip install flatquad[dask]"
    ) from error

__all__ = ["join_bounds", "sjoin", "sjoin_nearest", "Cells"]

#: Centres sampled from each partition to place the cell borders.
SAMPLE_PER_PARTITION = 1000


class Cells:
    """The half-open grid of a distributed join: interior borders ``xs`` and
    ``ys`` (float32 values, increasing), the outer cells reaching to infinity.
    Cell ``(i, j)`` is ``[x_i, x_{i+1}) × [y_j, y_{j+1})`` with ``x_0 = -inf``
    and the last border ``+inf``; it is numbered ``j * columns + i``."""

    def __init__(self, xs, ys):
        self.xs = np.unique(np.asarray(xs, dtype=np.float32))
        self.ys = np.unique(np.asarray(ys, dtype=np.float32))

    @classmethod
    def from_sample(cls, centres, cells):
        """Borders at the quantiles of sampled box centres, ``cells`` a side."""
        if len(centres) == 0 or cells <= 1:
            return cls([], [])
        q = np.linspace(0, 1, cells + 1)[1:-1]
        return cls(np.quantile(centres[:, 0], q), np.quantile(centres[:, 1], q))

    @property
    def columns(self):
        return len(self.xs) + 1

    @property
    def rows(self):
        return len(self.ys) + 1

    def __len__(self):
        return self.columns * self.rows

    def extent(self, cell):
        """Cell ``cell`` as ``(x1, y1, x2, y2)``, half-open, maybe infinite."""
        i, j = cell % self.columns, cell // self.columns
        ex = np.concatenate([[-np.inf], self.xs.astype(np.float64), [np.inf]])
        ey = np.concatenate([[-np.inf], self.ys.astype(np.float64), [np.inf]])
        return (ex[i], ey[j], ex[i + 1], ey[j + 1])

    def spans(self, bounds32):
        """The columns ``c0..c1`` and rows ``r0..r1`` of the cells each closed
        box meets (``bounds32``: float32 ``(n, 4)``)."""
        c0 = np.searchsorted(self.xs, bounds32[:, 0], side="right")
        c1 = np.searchsorted(self.xs, bounds32[:, 2], side="right")
        r0 = np.searchsorted(self.ys, bounds32[:, 1], side="right")
        r1 = np.searchsorted(self.ys, bounds32[:, 3], side="right")
        return c0, c1, r0, r1

    def meets(self, extent32):
        """The cells a closed box ``(x1, y1, x2, y2)`` meets, as a list."""
        c0, c1, r0, r1 = (int(v[0]) for v in self.spans(np.asarray([extent32], dtype=np.float32)))
        return [r * self.columns + c for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)]

    def assign(self, bounds32):
        """``{cell: rows}``: the rows of ``bounds32`` meeting each cell (a box
        meeting several cells is in each)."""
        c0, c1, r0, r1 = self.spans(bounds32)
        widths, heights = c1 - c0 + 1, r1 - r0 + 1
        counts = widths * heights
        rows = np.repeat(np.arange(len(bounds32)), counts)
        # The k-th cell of a row: column c0 + k % width, row r0 + k // width.
        k = np.arange(len(rows)) - np.repeat(np.cumsum(counts) - counts, counts)
        w = widths[rows]
        cells = (r0[rows] + k // w) * self.columns + c0[rows] + k % w
        order = np.argsort(cells, kind="stable")
        cells, rows = cells[order], rows[order]
        starts = np.flatnonzero(np.r_[True, cells[1:] != cells[:-1]]) if len(cells) else []
        ends = list(starts[1:]) + [len(cells)]
        return {int(cells[s]): rows[s:e] for s, e in zip(starts, ends)}


# --------------------------------------------------------------------- tasks


def _f32(bounds):
    return np.ascontiguousarray(np.asarray(bounds, dtype=np.float64).astype(np.float32))


def _check_bounds(bounds, side, offset):
    """Bad rows of an array of bounds, refused by the core's own check."""
    try:
        flatquad.join_bounds(bounds, np.empty((0, 4), dtype=np.float32))
    except ValueError as error:
        raise ValueError(f"{side}[{offset + error.index}]: {error}") from None


def _summary(bounds32, seed):
    """Row count, extent and a sample of centres of one partition's boxes."""
    n = len(bounds32)
    if n == 0:
        return {"n": 0, "extent": None, "sample": np.empty((0, 2))}
    take = np.random.default_rng(seed).choice(n, min(n, SAMPLE_PER_PARTITION), replace=False)
    b = bounds32[take].astype(np.float64)
    extent = (bounds32[:, 0].min(), bounds32[:, 1].min(), bounds32[:, 2].max(), bounds32[:, 3].max())
    return {"n": n, "extent": extent, "sample": np.column_stack([(b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2])}


def _array_summary(block, side, seed, offset):
    """`_summary` of an array partition whose first row is global row `offset`
    (None when the chunk sizes are unknown: bad rows are then named by their
    partition and local row)."""
    bounds32 = _f32(block)
    _check_bounds(bounds32, side if offset is not None else f"{side} partition {seed}, row", offset or 0)
    return _summary(bounds32, seed)


#: Sampled geometries of each partition of the side searched by
#: :func:`sjoin_nearest`: a first upper bound of a far query's distance.
GEOMETRY_SAMPLE_PER_PARTITION = 64


class _Bounds:
    """One frame partition's usable rows: their positions ``rows`` and float64
    boxes ``bounds`` (``flatquad.geopandas.usable_bounds``), and the
    partition's ``summary``. Made once per partition and persisted: the
    summary pass, the pieces and the unmatched rows all read it, and GEOS'
    bounds of every geometry cost more than the rest of a piece's making."""

    __slots__ = ("bounds", "rows", "summary")

    def __init__(self, bounds, rows, summary):
        self.bounds, self.rows, self.summary = bounds, rows, summary


def _frame_bounds(frame, seed, widen=0.0, geometries=False):
    """The :class:`_Bounds` of a frame partition. Its summary: ``rows`` (all
    of them), ``n`` (those that can match), the extent of their float32 boxes
    (widened by ``widen`` for ``dwithin``), their float64 extent ``extent64``,
    a sample of their centres, and (``geometries``) a few of their geometries."""
    bounds, rows = _fqg.usable_bounds(frame.geometry.values)
    out = _summary(_f32(bounds), seed)
    out["rows"] = len(frame)
    out["extent64"] = _fqg._extent(bounds) if len(bounds) else None
    if widen and len(bounds):
        w = _f32(np.hstack([bounds[:, :2] - widen, bounds[:, 2:] + widen]))
        out["extent"] = (w[:, 0].min(), w[:, 1].min(), w[:, 2].max(), w[:, 3].max())
    if geometries:
        take = np.random.default_rng(seed + 1).choice(
            len(rows), min(len(rows), GEOMETRY_SAMPLE_PER_PARTITION), replace=False)
        out["geometries"] = np.asarray(frame.geometry.values)[rows[take]]
    return _Bounds(bounds, rows, out)


def _summary_of(bounds):
    return bounds.summary


def _partition_bounds(blocks, widen=0.0, geometries=False):
    """``(bounds, summaries)``: the :class:`_Bounds` of every partition of
    both sides, persisted (delayed objects), and their summaries, computed.
    ``widen`` applies to the left side's extents, ``geometries`` (a sample of
    them) to the right side's."""
    tasks = [
        [delayed(_frame_bounds)(b, seed, widen if side == 0 else 0.0, geometries and side == 1)
         for seed, b in enumerate(bs)]
        for side, bs in enumerate(blocks)
    ]
    done = dask.persist(*tasks[0], *tasks[1])
    bounds = [list(done[:len(tasks[0])]), list(done[len(tasks[0]):])]
    summaries = dask.compute(*[[delayed(_summary_of)(b) for b in side] for side in bounds])
    return bounds, [list(s) for s in summaries]


def _array_pieces(block, cells, offset):
    """``{cell: (global rows, float32 bounds)}`` of one array partition."""
    bounds32 = _f32(block)
    return {c: (rows + offset, bounds32[rows]) for c, rows in cells.assign(bounds32).items()}


class _Piece:
    """Rows of one partition sent to one cell: the rows (a frame), their
    partition and positions in it (their identity: labels may repeat), their
    float32 boxes (widened for ``dwithin``; float64 boxes for the queries of
    :func:`sjoin_nearest`) and their ``dwithin`` distances."""

    __slots__ = ("frame", "part", "pos", "bounds32", "distance")

    def __init__(self, frame, part, pos, bounds32, distance=None):
        self.frame, self.part, self.pos, self.bounds32, self.distance = frame, part, pos, bounds32, distance

    def __len__(self):
        return len(self.pos)


def _concat(pieces):
    """One piece of several (their rows in order)."""
    if len(pieces) == 1:
        return pieces[0]
    distance = None if pieces[0].distance is None else np.concatenate([p.distance for p in pieces])
    return _Piece(
        pd.concat([p.frame for p in pieces]),
        np.concatenate([p.part for p in pieces]),
        np.concatenate([p.pos for p in pieces]),
        np.concatenate([p.bounds32 for p in pieces]),
        distance,
    )


def _empty_piece(meta, distance=False, dtype=np.float32):
    return _Piece(meta, np.empty(0, np.int64), np.empty(0, np.int64), np.empty((0, 4), dtype),
                  np.empty(0) if distance else None)


def _usable(part_bounds, distance, clip):
    """``(bounds32, rows, distances)`` of the rows that can match: for
    ``dwithin`` (``distance`` given, one per row) the boxes widened by it and
    clipped to ``clip`` (the right side's float64 extent: no answer changes),
    rows left inverted or NaN dropped, as flatquad.geopandas does."""
    bounds, rows = part_bounds.bounds, part_bounds.rows
    if distance is None:
        return _f32(bounds), rows, None
    distance = np.broadcast_to(np.asarray(distance, dtype=np.float64), (part_bounds.summary["rows"],))
    if clip is None or not len(rows):
        return np.empty((0, 4), np.float32), rows[:0], np.empty(0)
    boxes, kept = _fqg._widened(bounds, distance[rows], np.asarray(clip, dtype=np.float64))
    return _f32(boxes), rows[kept], distance[rows[kept]]


def _frame_pieces(frame, part_bounds, cells, part, distance=None, clip=None):
    """``{cell: piece}`` of one frame partition (usable rows only), each box
    in every cell it meets."""
    bounds32, usable, dist = _usable(part_bounds, distance, clip)
    out = {}
    for c, rows in cells.assign(bounds32).items():
        at = usable[rows]
        out[c] = _Piece(frame.iloc[at], np.full(len(at), part, np.int64), at, bounds32[rows],
                        None if dist is None else dist[rows])
    return out


def _home_pieces(frame, part_bounds, cells, part):
    """``{cell: piece}`` of one partition of :func:`sjoin_nearest`'s query
    side: each usable row in one cell only, the cell of its box's centre."""
    bounds, usable = part_bounds.bounds, part_bounds.rows
    centres = _f32(np.column_stack([(bounds[:, 0] + bounds[:, 2]) / 2, (bounds[:, 1] + bounds[:, 3]) / 2]))
    home = cells.assign(np.ascontiguousarray(np.hstack([centres, centres])))
    # The float64 bounds (the search box must hold the float64 box widened:
    # float32 rounding could shrink it by more than the margin).
    return {c: _Piece(frame.iloc[usable[rows]], np.full(len(rows), part, np.int64), usable[rows],
                      np.ascontiguousarray(bounds[rows])) for c, rows in home.items()}


def _piece(pieces, cell, empty):
    return pieces.get(cell, empty)


def _array_tree(*pieces):
    """The flatquad index over a cell's right boxes, and their global rows."""
    rows = np.concatenate([p[0] for p in pieces])
    bounds = np.concatenate([p[1] for p in pieces])
    return flatquad.BoxIndex(bounds), rows


def _array_join(extent, tree_rows, *pieces):
    tree, right_rows = tree_rows
    left_rows = np.concatenate([p[0] for p in pieces])
    bounds = np.concatenate([p[1] for p in pieces])
    pairs = tree.query_bulk(bounds, owner=extent)
    return np.vstack([left_rows[pairs[0]], right_rows[pairs[1]]]).astype(np.int64)


def _frame_tree(*pieces):
    right = _concat(pieces)
    return flatquad.BoxIndex(right.bounds32), right


def _matched_ids(piece, rows):
    """``{partition: sorted positions}`` of the piece's rows ``rows``."""
    ids = np.unique(np.column_stack([piece.part[rows], piece.pos[rows]]), axis=0)
    parts = np.unique(ids[:, 0])
    return {int(p): ids[ids[:, 0] == p, 1] for p in parts}


def _frame_join(extent, tree_right, predicate, how, lsuffix, rsuffix, on_attribute, *pieces):
    """One cell's joined rows (the pairs it owns), and for ``how="left"``
    (``"right"``) the left (right) rows matched here, by partition."""
    tree, right = tree_right
    left = _concat(pieces)
    pairs = tree.query_bulk(left.bounds32, owner=extent, sort=True)
    # The attributes first: comparing values is cheaper than GEOS' predicates,
    # and keeping the pairs that pass both is the same in either order.
    l, r = _fqg._same_attributes(left.frame, right.frame, pairs[0], pairs[1], on_attribute)
    lg, rg = left.frame.geometry.values, right.frame.geometry.values
    l, r = _fqg.refine(lg, rg, l, r, predicate, left.distance)
    # The pairs only: the partitions' tasks add the rows no cell matched.
    joined, _ = _fqg.join_frames(left.frame, right.frame, l, r, how, lsuffix, rsuffix, on_attribute=on_attribute,
                                 add_unmatched=False)
    matched = None
    if how == "left":
        matched = _matched_ids(left, l)
    elif how == "right":
        matched = _matched_ids(right, r)
    return joined, matched


def _first(result):
    return result[0]


def _matched_of(result, part):
    return (result[1] or {}).get(part, np.empty(0, np.int64))


def _unmatched(frame, other_meta, how, lsuffix, rsuffix, on_attribute, *matched):
    """The rows of one partition of the ``how`` side that no cell matched,
    with missing values for the other side's columns."""
    hit = np.zeros(len(frame), dtype=bool)
    for m in matched:
        hit[m] = True
    rows = frame.iloc[np.flatnonzero(~hit)]
    none = np.empty(0, dtype=np.intp)
    if how == "left":
        joined, _ = _fqg.join_frames(rows, other_meta, none, none, "left", lsuffix, rsuffix,
                                     on_attribute=on_attribute)
    else:
        joined, _ = _fqg.join_frames(other_meta, rows, none, none, "right", lsuffix, rsuffix,
                                     on_attribute=on_attribute)
    return joined


# --------------------------------------------------------------------- plans


def _default_cells(left_parts, right_parts):
    return max(1, min(64, math.ceil(math.sqrt(max(left_parts, right_parts)))))


def _reaches(grid, summaries):
    """For each cell, the partitions (of one side) whose extents meet it."""
    by_cell = {}
    for p, s in enumerate(summaries):
        if s["n"]:
            for c in grid.meets(s["extent"]):
                by_cell.setdefault(c, []).append(p)
    return by_cell


def _plan(left_summaries, right_summaries, cells):
    """The grid from the samples, and for each cell the left and right
    partitions whose extents meet it (cells lacking either side are left out)."""
    samples = [s["sample"] for s in left_summaries + right_summaries if s["n"]]
    grid = Cells.from_sample(np.concatenate(samples) if samples else np.empty((0, 2)), cells)
    lefts, rights = _reaches(grid, left_summaries), _reaches(grid, right_summaries)
    return grid, {c: (lefts[c], rights[c]) for c in sorted(lefts) if c in rights}


def join_bounds(left, right, *, cells=None):
    """Every ``(i, j)`` such that box ``left[i]`` meets box ``right[j]``
    (closed boxes), distributed over Dask.

    Parameters
    ----------
    left, right : dask.array.Array or array_like, shape (n, 4)
        Rows ``(x1, y1, x2, y2)``, float32 or float64 (rounded once to float32:
        no float64 pair is lost). Chunked along rows only (re-chunked if not).
    cells : int, optional
        Cells a side of the spatial grid (default: about ``sqrt(partitions)``,
        at most 64).

    Returns
    -------
    dask.array.Array
        int64, shape ``(2, nan)``: ``[left_index, right_index]`` (global
        positions), each pair once, in no particular order. The summary pass
        has already run; ``compute()`` runs the join.

    Raises
    ------
    ValueError
        A bad row (NaN, infinite, inverted), named by its global position.
    """
    sides = []
    for name, arr in (("left", left), ("right", right)):
        arr = da.asarray(arr)
        if arr.ndim != 2 or arr.shape[1] != 4:
            raise ValueError(f"{name} must have shape (n, 4), got {arr.shape}")
        sides.append(arr.rechunk({1: 4}))
    blocks = [list(a.to_delayed().ravel()) for a in sides]
    starts = [
        [None] * len(a.chunks[0]) if any(math.isnan(c) for c in a.chunks[0])
        else [int(o) for o in np.cumsum((0,) + a.chunks[0])[:-1]]
        for a in sides
    ]
    summaries = dask.compute(*[
        [delayed(_array_summary)(b, name, seed, o) for seed, (b, o) in enumerate(zip(bs, os))]
        for name, bs, os in zip(("left", "right"), blocks, starts)
    ])
    summaries = [list(s) for s in summaries]
    # Global positions: bad rows are named by them.
    offsets = [np.cumsum([0] + [s["n"] for s in side])[:-1] for side in summaries]
    grid, plan = _plan(summaries[0], summaries[1], cells or _default_cells(*map(len, blocks)))
    pieces = [
        [delayed(_array_pieces)(b, grid, int(o)) for b, o in zip(bs, offs)]
        for bs, offs in zip(blocks, offsets)
    ]
    empty = (np.empty(0, dtype=np.int64), np.empty((0, 4), dtype=np.float32))
    parts = []
    for cell, (lps, rps) in plan.items():
        take = lambda side, ps: [delayed(_piece)(pieces[side][p], cell, empty) for p in ps]  # noqa: E731
        tree = delayed(_array_tree)(*take(1, rps))
        joined = delayed(_array_join)(grid.extent(cell), tree, *take(0, lps))
        parts.append(da.from_delayed(joined, shape=(2, np.nan), dtype=np.int64))
    if not parts:
        return da.zeros((2, 0), dtype=np.int64)
    return da.concatenate(parts, axis=1)


_HOWS = ("inner", "left", "right")


def _check_frames(left, right, how):
    for name, frame in (("left", left), ("right", right)):
        if not isinstance(frame, dd.DataFrame) or not hasattr(frame, "crs"):
            raise ValueError(f"{name} must be a dask_geopandas.GeoDataFrame, got {type(frame).__name__}")
    if how not in _HOWS:
        raise ValueError(f'`how` was "{how}" but is expected to be in {list(_HOWS)}')
    _fqg._warn_crs_mismatch(left, right)


def _blocks(left, right, persist):
    """The partitions of both frames as delayed objects; persisted (read once,
    kept in the workers' memory while the join's result is alive) or not (read
    by the summary pass and again by the join)."""
    blocks = [list(left.to_delayed()), list(right.to_delayed())]
    if not persist:
        return blocks
    done = dask.persist(*blocks[0], *blocks[1])
    return [list(done[:len(blocks[0])]), list(done[len(blocks[0]):])]


def _meta(frame):
    """The empty frame of a dask frame, without its ``attrs`` (dask-geopandas
    keeps ``spatial_partitions``, a GeoSeries, there; pandas' concat then
    fails comparing two frames' ``attrs``)."""
    meta = frame._meta.copy()
    meta.attrs = {}
    return meta


def _quiet(function, *args, **kwargs):
    """``function(*args, **kwargs)`` without its warnings (the meta of a join,
    whose warnings the call has already given)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def _dwithin_distance(distance):
    """``distance`` checked as geopandas checks it: a scalar, or one value per
    left row (a 1-d array; its length is checked after the summary pass)."""
    if distance is None:
        raise ValueError("'distance' parameter is required for 'dwithin' predicate")
    if isinstance(distance, (dd.DataFrame, dd.Series, da.Array)):
        raise TypeError("distance: a number or a numpy array (one per left row), not a dask collection;"
                        " compute it first, or join with the largest distance and filter")
    d = np.asarray(distance, dtype=np.float64)
    if d.ndim > 1:
        raise ValueError("Distance array should be one dimensional")
    return d


def _widest(d):
    """The widening of the left extents in the summary pass: the largest
    distance (NaN and negative distances widen nothing)."""
    d = d[~np.isnan(d)] if d.ndim else (d[None] if not np.isnan(d) else np.empty(0))
    return max(0.0, float(d.max())) if len(d) else 0.0


def sjoin(left, right, how="inner", predicate="intersects", lsuffix="left", rsuffix="right", distance=None,
          on_attribute=None, *, cells=None, persist=True):
    """``geopandas.sjoin(left, right, how, predicate, lsuffix, rsuffix,
    distance, on_attribute)`` over two dask-geopandas GeoDataFrames,
    distributed (see the module's text).

    Parameters
    ----------
    left, right : dask_geopandas.GeoDataFrame
        Any partitions (``dask_geopandas.read_parquet`` frames are read by the
        workers). A CRS mismatch warns (as in geopandas) and joins.
    how : "inner", "left" or "right"
        ``"left"`` (``"right"``): every left (right) row, the unmatched ones once
        with missing values for the other side's columns.
    predicate : str
        One of ``flatquad.geopandas.PREDICATES`` or ``"dwithin"``.
    distance : float or array_like, optional
        For ``"dwithin"`` only: one distance, or a numpy array of one per left
        row (in the order of ``left``'s partitions).
    on_attribute : str, list or tuple, optional
        Columns of both frames whose values must also be equal; they appear
        once in the result (the left frame's), as in geopandas.
    cells : int, optional
        Cells a side of the spatial grid.
    persist : bool
        Whether the inputs' partitions are persisted by the summary pass, so
        that they are read (from GeoParquet, ...) once, and stay in the
        workers' memory while the result is alive (``False``: read twice).

    Returns
    -------
    dask_geopandas.GeoDataFrame
        One partition per cell, then (``"left"``/``"right"``) one per partition
        of that side with its unmatched rows: the rows ``geopandas.sjoin`` gives
        on the whole frames, each once, in another order. The meta's dtypes are
        those of a join where every row matched; computed, the columns of the
        other side widen (int to float, ...) when some row is unmatched, as in
        geopandas.

    Raises
    ------
    ValueError
        A bad ``how``, ``predicate``, ``distance`` or ``on_attribute`` (as geopandas).
    """
    _check_frames(left, right, how)
    if predicate not in _fqg.PREDICATES and predicate != "dwithin":
        raise ValueError(
            f"predicate {predicate!r} is not supported; expected one of {_fqg.PREDICATES + ('dwithin',)}")
    if predicate != "dwithin" and distance is not None:
        raise ValueError("'distance' parameter is only supported in combination with 'dwithin' predicate")
    on_attribute = _fqg._as_list(on_attribute)
    # The meta's join also makes geopandas' checks of on_attribute (on the empty frames).
    meta = _quiet(_fqg.sjoin, _meta(left), _meta(right), how=how, lsuffix=lsuffix, rsuffix=rsuffix,
                  on_attribute=on_attribute)
    blocks = _blocks(left, right, persist)
    widen = 0.0
    if predicate == "dwithin":
        distance = _dwithin_distance(distance)
        widen = _widest(distance)
    bounds, summaries = _partition_bounds(blocks, widen)
    if predicate == "dwithin" and distance.ndim == 1 and len(distance) != sum(s["rows"] for s in summaries[0]):
        raise ValueError("Could not broadcast distance to match geometry")
    grid, plan = _plan(summaries[0], summaries[1], cells or _default_cells(*map(len, blocks)))
    left_args = [{} for _ in blocks[0]]
    if predicate == "dwithin":
        extents = [s["extent64"] for s in summaries[1] if s["n"]]
        clip = (min(e[0] for e in extents), min(e[1] for e in extents),
                max(e[2] for e in extents), max(e[3] for e in extents)) if extents else None
        starts = np.cumsum([0] + [s["rows"] for s in summaries[0]])
        for p, a in enumerate(left_args):
            a["distance"] = distance if distance.ndim == 0 else distance[starts[p]:starts[p + 1]]
            a["clip"] = clip
    pieces = [
        [delayed(_frame_pieces)(b, bounds[0][p], grid, p, **left_args[p]) for p, b in enumerate(blocks[0])],
        [delayed(_frame_pieces)(b, bounds[1][p], grid, p) for p, b in enumerate(blocks[1])],
    ]
    empties = (_empty_piece(_meta(left), predicate == "dwithin"), _empty_piece(_meta(right)))
    parts, results = [], {}
    for cell, (lps, rps) in plan.items():
        take = lambda side, ps: [delayed(_piece)(pieces[side][p], cell, empties[side]) for p in ps]  # noqa: E731
        tree = delayed(_frame_tree)(*take(1, rps))
        result = delayed(_frame_join)(grid.extent(cell), tree, predicate, how, lsuffix, rsuffix, on_attribute,
                                      *take(0, lps))
        results[cell] = result
        parts.append(delayed(_first)(result))
    if how != "inner":
        side = 0 if how == "left" else 1
        other_meta = (_meta(right), _meta(left))[side]
        for p, b in enumerate(blocks[side]):
            matched = [delayed(_matched_of)(results[c], p) for c, lr in plan.items() if p in lr[side]]
            parts.append(delayed(_unmatched)(b, other_meta, how, lsuffix, rsuffix, on_attribute, *matched))
    if not parts:
        return dd.from_pandas(meta, npartitions=1)
    return dd.from_delayed(parts, meta=meta, verify_meta=False)


# ------------------------------------------------------------------ nearest


def _nearest_frame(query, tree, q, t, d, how, lsuffix, rsuffix, distance_col):
    """The joined rows of the queries ``query`` (all final), their pairs ``(q,
    t)`` sorted by ``(q, t)`` and distances ``d``."""
    if how == "right":
        joined, d = _fqg.join_frames(tree, query, t, q, "right", lsuffix, rsuffix, distances=d)
    else:
        joined, d = _fqg.join_frames(query, tree, q, t, how, lsuffix, rsuffix, distances=d)
    if distance_col is not None:
        joined[distance_col] = d
    return joined


def _needed_cells(grid, bounds64, reach):
    """``(c0, c1, r0, r1)`` of the cells a box widened by ``reach`` (per
    row) meets, in float32 as the boxes were sent to cells: every geometry
    within ``reach`` of the query has a box that was sent to one of them."""
    reach = _fqg._reach(bounds64, reach)
    wide = np.hstack([bounds64[:, :2] - reach[:, None], bounds64[:, 2:] + reach[:, None]])
    with np.errstate(invalid="ignore", over="ignore"):
        return grid.spans(wide.astype(np.float32))


def _nearest_home(cell, grid, samples, max_distance, exclusive, how, lsuffix, rsuffix, distance_col,
                  n_left, *pieces):
    """Round 1 of :func:`sjoin_nearest` in one cell: the queries at home here
    (``pieces[:n_left]``) against the geometries of the other side sent here.
    A query's answer at distance ``d`` is final when its box widened by ``d``
    stays in this cell; the others get the cells they must search (their
    ``d``, or a bound from ``samples``, or ``max_distance``, or all).
    Returns ``{"frame", "pending", "cells"}``."""
    query, tree = _concat(pieces[:n_left]), _concat(pieces[n_left:])
    qg, tg = np.asarray(query.frame.geometry.values), np.asarray(tree.frame.geometry.values)
    q, t, d = _fqg.nearest_pairs(qg, tg, max_distance, exclusive)
    n = len(query)
    best = _fqg._group_min(q, d, n)
    bound = best.copy()
    far = np.flatnonzero(np.isinf(bound))
    if len(far) and samples is not None and len(samples):
        sq, _, sd = _fqg.nearest_pairs(qg[far], samples, None, exclusive)
        bound[far] = _fqg._group_min(sq, sd, len(far))
    if max_distance is not None:
        bound = np.minimum(bound, max_distance)
    c0, c1, r0, r1 = _needed_cells(grid, query.bounds32, bound)  # float64 for query pieces
    col, row = cell % grid.columns, cell // grid.columns
    final = np.isfinite(bound) & (c0 == col) & (c1 == col) & (r0 == row) & (r1 == row)
    # Nothing to find anywhere: final too (no geometry on the other side).
    if len(grid) == 1:
        final[:] = True
    keep = final[q]
    done = np.flatnonzero(final)
    frame = _nearest_frame(query.frame.iloc[done], tree.frame, np.searchsorted(done, q[keep]), t[keep], d[keep],
                           how, lsuffix, rsuffix, distance_col)
    rest = np.flatnonzero(~final)
    needed = None
    if len(rest):
        whole = ~np.isfinite(bound[rest])
        lo_c = np.where(whole, 0, c0[rest]).min()
        hi_c = np.where(whole, grid.columns - 1, c1[rest]).max()
        lo_r = np.where(whole, 0, r0[rest]).min()
        hi_r = np.where(whole, grid.rows - 1, r1[rest]).max()
        needed = (int(lo_c), int(hi_c), int(lo_r), int(hi_r))
    pending = _Piece(query.frame.iloc[rest], query.part[rest], query.pos[rest], query.bounds32[rest])
    return {"frame": frame, "pending": pending, "cells": needed}


def _nearest_frame_of(result):
    return result["frame"]


def _nearest_cells_of(result):
    return result["cells"]


def _nearest_wide(home, max_distance, exclusive, how, lsuffix, rsuffix, distance_col, *pieces):
    """Round 2: the queries a cell could not settle against every geometry of
    the other side sent to the cells they need (each once)."""
    query = home["pending"]
    tree = _concat(pieces)
    ids = tree.part * (np.int64(1) << 40) + tree.pos
    _, first = np.unique(ids, return_index=True)
    first = np.sort(first)
    tframe = tree.frame.iloc[first]
    q, t, d = _fqg.nearest_pairs(np.asarray(query.frame.geometry.values), np.asarray(tframe.geometry.values),
                                 max_distance, exclusive)
    return _nearest_frame(query.frame, tframe, q, t, d, how, lsuffix, rsuffix, distance_col)


def _nearest_unusable(frame, part_bounds, other_meta, how, lsuffix, rsuffix, distance_col):
    """The rows of a query partition whose geometry cannot match, unmatched."""
    mask = np.ones(len(frame), dtype=bool)
    mask[part_bounds.rows] = False
    none = np.empty(0, dtype=np.intp)
    return _nearest_frame(frame.iloc[np.flatnonzero(mask)], other_meta, none, none, np.empty(0), how,
                          lsuffix, rsuffix, distance_col)


def sjoin_nearest(left, right, how="inner", max_distance=None, lsuffix="left", rsuffix="right",
                  distance_col=None, exclusive=False, *, cells=None, persist=True):
    """``geopandas.sjoin_nearest`` over two dask-geopandas GeoDataFrames,
    distributed: each left row (each right row with ``how="right"``) joined to
    the rows of the other side at the smallest distance, all of them when
    several tie; the rows ``flatquad.geopandas.sjoin_nearest`` gives on the
    whole frames.

    How: the query side (left, or right with ``how="right"``) sends each row
    to one cell (its box's centre), the other side each box to every cell it
    meets. **Round 1**, one task a cell: the nearest among the geometries sent
    to that cell (``flatquad.geopandas.nearest_pairs``). An answer at distance
    ``d`` is final when the query's box widened by ``d`` stays inside the
    cell (every geometry that could beat or tie it was sent there). **Round
    2**: the other queries search every cell their box widened by ``d`` meets
    (a query with nothing in its cell takes ``d`` from a sample of the other
    side's geometries, or ``max_distance``; with ``exclusive`` and no such
    bound, all cells); what they find there is final. Round 1 runs (persisted)
    before this returns, to know the cells round 2 needs.

    Parameters
    ----------
    left, right : dask_geopandas.GeoDataFrame
    how : "inner", "left" or "right"
    max_distance : float, optional
        Greater than 0.
    distance_col : str, optional
    exclusive : bool
    cells : int, optional
        Cells a side of the spatial grid.
    persist : bool
        As for :func:`sjoin`.

    Returns
    -------
    dask_geopandas.GeoDataFrame
        One partition per cell of each round (and for ``"left"``/``"right"``
        one per query partition with its rows whose geometry is missing or
        empty); the rows in another order than geopandas'.
    """
    _check_frames(left, right, how)
    _fqg._warn_geographic(left)
    _fqg._warn_geographic(right)
    _fqg._check_nearest_arguments(max_distance, exclusive)
    meta = _quiet(_fqg.sjoin_nearest, _meta(left), _meta(right), how=how, lsuffix=lsuffix, rsuffix=rsuffix,
                  distance_col=distance_col)
    query, tree = (right, left) if how == "right" else (left, right)
    blocks = _blocks(query, tree, persist)
    bounds, summaries = _partition_bounds(blocks, geometries=True)
    grid, _ = _plan(summaries[0], summaries[1], cells or _default_cells(*map(len, blocks)))
    samples = [s["geometries"] for s in summaries[1] if s["n"]]
    samples = delayed(np.concatenate(samples) if samples else np.empty(0, dtype=object))
    # The cells each partition sends rows to (by extent: a superset).
    reaches = [_reaches(grid, summaries[0]), _reaches(grid, summaries[1])]
    home = [delayed(_home_pieces)(b, bounds[0][p], grid, p) for p, b in enumerate(blocks[0])]
    sent = [delayed(_frame_pieces)(b, bounds[1][p], grid, p) for p, b in enumerate(blocks[1])]
    empties = (_empty_piece(_meta(query), dtype=np.float64), _empty_piece(_meta(tree)))
    args = (max_distance, exclusive, how, lsuffix, rsuffix, distance_col)

    def tree_pieces(cell):
        return [delayed(_piece)(sent[p], cell, empties[1]) for p in reaches[1].get(cell, [])] or [empties[1]]

    rounds = {}
    for cell, ps in sorted(reaches[0].items()):
        qs = [delayed(_piece)(home[p], cell, empties[0]) for p in ps]
        rounds[cell] = delayed(_nearest_home)(cell, grid, samples, *args, len(qs), *qs, *tree_pieces(cell))
    # Round 1 now (its results stay on the workers): the cells round 2 needs.
    cells_of = list(rounds)
    persisted = dask.persist(*[rounds[c] for c in cells_of], *sent)
    rounds = dict(zip(cells_of, persisted[:len(cells_of)]))
    sent = list(persisted[len(cells_of):])
    needed = dask.compute(*[delayed(_nearest_cells_of)(rounds[c]) for c in cells_of])
    parts = [delayed(_nearest_frame_of)(rounds[c]) for c in cells_of]
    for cell, need in zip(cells_of, needed):
        if need is None:
            continue
        c0, c1, r0, r1 = need
        wanted = [r * grid.columns + c for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)]
        pieces = [pc for w in wanted for pc in tree_pieces(w)]
        parts.append(delayed(_nearest_wide)(rounds[cell], *args, *pieces))
    if how != "inner":
        other_meta = _meta(tree)
        for b, pb in zip(blocks[0], bounds[0]):
            parts.append(delayed(_nearest_unusable)(b, pb, other_meta, how, lsuffix, rsuffix, distance_col))
    if not parts:
        return dd.from_pandas(meta, npartitions=1)
    return dd.from_delayed(parts, meta=meta, verify_meta=False)
