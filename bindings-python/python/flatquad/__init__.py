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

Results are exact for float32 input, and the same for every structure: a
query finds precisely the elements whose closed rectangle meets the closed
query rectangle.
"""

from ._native import Grid, LooseGrid, LooseQuadtree, Quadtree, SpatialIndex, __version__
from ._types import Elements, Nodes

__all__ = [
    "Elements",
    "Grid",
    "LooseGrid",
    "LooseQuadtree",
    "Nodes",
    "Quadtree",
    "SpatialIndex",
    "__version__",
]
