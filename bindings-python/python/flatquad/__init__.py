"""flatquad: a flat, cache-friendly quadtree for broad-phase 2D collision detection.

One class, :class:`Quadtree`, with numpy batch calls for whole frames of
moving rectangles::

    import numpy as np
    import flatquad

    tree = flatquad.Quadtree((0, 0, 1024, 1024))   # (x, y, width, height)
    handles = tree.insert_many(rects)               # rects: float32 (n, 4)
    tree.move_many(handles, new_rects)              # each frame ...
    tree.cleanup()
    pairs = tree.pairs()                            # (k, 2) int64 handles

Results are exact for float32 input: a query finds precisely the elements
whose closed rectangle meets the closed query rectangle.
"""

from ._native import Quadtree, __version__
from ._types import Elements, Nodes

__all__ = ["Elements", "Nodes", "Quadtree", "__version__"]
