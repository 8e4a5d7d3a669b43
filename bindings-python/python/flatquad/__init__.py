"""flatquad: exact 2-D spatial indexes for broad-phase collision detection.

Four structures with one API, :class:`SpatialIndex` (their base class):
:class:`Quadtree`, :class:`Grid` (a uniform grid, for elements of similar
size), :class:`LooseGrid` (the loose/tight double grid) and
:class:`LooseQuadtree` (each element in one leaf, by its centre). They differ only
in their constructors; each has numpy batch calls for whole frames of moving
rectangles::

    import numpy as np
    import flatquad

    index = flatquad.Quadtree((0, 0, 1024, 1024))   # the world (x1, y1, x2, y2)
    handles = index.insert_many(rects)               # rects: float32 (n, 4)
    index.move_many(handles, new_rects)              # each frame ...
    index.cleanup()
    pairs = index.pairs()                            # (k, 2) int64 handles

Contact events instead of every pair: :class:`PairTracker` (``tracker =
flatquad.PairTracker(index)``; each frame ``began, ended = tracker.update()``,
the pairs that started and stopped overlapping since the last update).

Results are exact for float32 input, and the same for every structure: a
query finds precisely the elements whose closed rectangle meets the closed
query rectangle. float64 input (numpy arrays are read in place) is rounded once
to the nearest float32; that rounding is monotone, so no pair whose closed boxes
meet in float64 is ever missed (a pair the rounding made touch may be added).

Bulk queries and joins, in shapely's ``(2, k)`` shape: ``index.query_bulk(bounds)``
(``[input_index, handle]``), ``index.join(other)`` (handles, each pair once),
:class:`BoxIndex` (a static index answering in positions, like ``STRtree``) and
:func:`join_bounds`. GeoPandas and Dask joins: :mod:`flatquad.geopandas`
(``pip install flatquad[geopandas]``) and :mod:`flatquad.dask`
(``pip install flatquad[dask]``).
"""

from ._native import (
    BoxIndex,
    Grid,
    LooseGrid,
    LooseQuadtree,
    Octree,
    PairTracker,
    Quadtree,
    SpatialIndex,
    __version__,
    join_bounds,
)
from ._types import Elements, Nodes, RayHit

__all__ = [
    "BoxIndex",
    "Elements",
    "Grid",
    "LooseGrid",
    "LooseQuadtree",
    "Nodes",
    "Octree",
    "PairTracker",
    "Quadtree",
    "RayHit",
    "SpatialIndex",
    "__version__",
    "join_bounds",
]
