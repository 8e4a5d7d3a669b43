"""Distributed spatial joins on Dask (``pip install flatquad[dask]``).

:func:`sjoin` joins two dask-geopandas GeoDataFrames (``how="inner"``, any
predicate of :data:`flatquad.geopandas.PREDICATES`) and :func:`join_bounds`
two dask arrays of bounds (shape ``(n, 4)``), on whatever scheduler Dask uses:
the threads of one machine, a ``distributed.LocalCluster``, or a cluster of
many machines (``distributed.Client("tcp://scheduler:8786")``: the same code).

How it runs:

1. **Summary pass** (one small task per input partition): its row count, the
   extent of its boxes, and a sample of their centres. Bad bounds (NaN, inverted)
   of an array raise ``ValueError`` naming the global row here.
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

Rows whose geometry is missing, empty or has non-finite bounds never match
(as in :mod:`flatquad.geopandas`). Left index labels are kept; the right
frame's label is ``index_right`` (``index_{rsuffix}``), as in geopandas.

At 10^9 rows: persist the inputs first (the summary pass reads them once
more); raise ``cells`` so that a cell's boxes fit a worker's memory with room
for replication (about 10^6-10^7 boxes a cell; replication grows with the box
size over the cell size); the result of :func:`join_bounds` is a dask array:
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

__all__ = ["join_bounds", "sjoin", "Cells"]

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


def _frame_bounds32(frame):
    """Float32 bounds of the rows that can match, and those rows' positions."""
    bounds, rows = _fqg.usable_bounds(frame.geometry.values)
    return _f32(bounds), rows


def _frame_summary(frame, seed):
    return _summary(_frame_bounds32(frame)[0], seed)


def _array_pieces(block, cells, offset):
    """``{cell: (global rows, float32 bounds)}`` of one array partition."""
    bounds32 = _f32(block)
    return {c: (rows + offset, bounds32[rows]) for c, rows in cells.assign(bounds32).items()}


def _frame_pieces(frame, cells):
    """``{cell: rows of the frame}`` of one frame partition (usable rows only)."""
    bounds32, usable = _frame_bounds32(frame)
    return {c: frame.iloc[usable[rows]] for c, rows in cells.assign(bounds32).items()}


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
    right = pd.concat(pieces) if len(pieces) > 1 else pieces[0]
    # Pieces hold only rows that can match: their bounds are all usable.
    return flatquad.BoxIndex(_frame_bounds32(right)[0]), right


def _frame_join(extent, tree_right, predicate, lsuffix, rsuffix, *pieces):
    tree, right = tree_right
    left = pd.concat(pieces) if len(pieces) > 1 else pieces[0]
    bounds32, _ = _frame_bounds32(left)
    pairs = tree.query_bulk(bounds32, owner=extent, sort=True)
    l, r = _fqg.refine(left.geometry.values, right.geometry.values, pairs[0], pairs[1], predicate)
    joined, _ = _fqg.join_frames(left, right, l, r, "inner", lsuffix, rsuffix)
    return joined


# --------------------------------------------------------------------- plans


def _default_cells(left_parts, right_parts):
    return max(1, min(64, math.ceil(math.sqrt(max(left_parts, right_parts)))))


def _plan(left_summaries, right_summaries, cells):
    """The grid from the samples, and for each cell the left and right
    partitions whose extents meet it (cells lacking either side are left out)."""
    samples = [s["sample"] for s in left_summaries + right_summaries if s["n"]]
    grid = Cells.from_sample(np.concatenate(samples) if samples else np.empty((0, 2)), cells)
    lefts, rights = {}, {}
    for by_cell, summaries in ((lefts, left_summaries), (rights, right_summaries)):
        for p, s in enumerate(summaries):
            if s["n"]:
                for c in grid.meets(s["extent"]):
                    by_cell.setdefault(c, []).append(p)
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


def sjoin(left, right, how="inner", predicate="intersects", lsuffix="left", rsuffix="right", *, cells=None):
    """``geopandas.sjoin(left, right, how="inner", predicate)`` over two
    dask-geopandas GeoDataFrames, distributed (see the module's text).

    Parameters
    ----------
    left, right : dask_geopandas.GeoDataFrame
        The same CRS (or both none).
    how : "inner"
        The only join kind distributed here.
    predicate : str
        One of ``flatquad.geopandas.PREDICATES``.
    cells : int, optional
        Cells a side of the spatial grid.

    Returns
    -------
    dask_geopandas.GeoDataFrame
        One partition per cell; the rows ``flatquad.geopandas.sjoin`` (and
        ``geopandas.sjoin``) give on the whole frames, each once.

    Raises
    ------
    ValueError
        A CRS mismatch, ``how`` other than ``"inner"``, an unsupported predicate.
    """
    if how != "inner":
        raise ValueError(f'how was "{how}": flatquad.dask.sjoin joins how="inner" only')
    if predicate not in _fqg.PREDICATES:
        raise ValueError(f"predicate {predicate!r} is not supported; expected one of {_fqg.PREDICATES}")
    for name, frame in (("left", left), ("right", right)):
        if not isinstance(frame, dd.DataFrame) or not hasattr(frame, "crs"):
            raise ValueError(f"{name} must be a dask_geopandas.GeoDataFrame, got {type(frame).__name__}")
    _fqg.check_crs(left, right)
    meta = _fqg.sjoin(left._meta, right._meta, predicate=predicate, lsuffix=lsuffix, rsuffix=rsuffix)
    blocks = [list(left.to_delayed()), list(right.to_delayed())]
    summaries = dask.compute(*[[delayed(_frame_summary)(b, seed) for seed, b in enumerate(bs)] for bs in blocks])
    grid, plan = _plan(list(summaries[0]), list(summaries[1]), cells or _default_cells(*map(len, blocks)))
    pieces = [[delayed(_frame_pieces)(b, grid) for b in bs] for bs in blocks]
    empties = (left._meta, right._meta)
    parts = []
    for cell, (lps, rps) in plan.items():
        take = lambda side, ps: [delayed(_piece)(pieces[side][p], cell, empties[side]) for p in ps]  # noqa: E731
        tree = delayed(_frame_tree)(*take(1, rps))
        parts.append(delayed(_frame_join)(grid.extent(cell), tree, predicate, lsuffix, rsuffix, *take(0, lps)))
    if not parts:
        return dd.from_pandas(meta, npartitions=1)
    return dd.from_delayed(parts, meta=meta, verify_meta=False)

