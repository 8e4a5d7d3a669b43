"""The named tuples flatquad returns: plain tuples of numpy arrays."""

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

__all__ = ["Elements", "Nodes", "RayHit"]


class Nodes(NamedTuple):
    """Every node of a tree (or cell of a grid), from :meth:`SpatialIndex.nodes`,
    depth-first.

    Draw the cells with, for example::

        nodes = index.nodes()
        for x1, y1, x2, y2 in nodes.rects[nodes.is_leaf]:
            ax.add_patch(matplotlib.patches.Rectangle((x1, y1), x2 - x1, y2 - y1, fill=False))
    """

    indices: "npt.NDArray[np.int64]"
    """The node's index (as ``traverse`` gives it), shape (m,)."""
    rects: "npt.NDArray[np.float32]"
    """The node's cell ``(x1, y1, x2, y2)``, shape (m, 4); an ``Octree``'s
    ``(x1, y1, z1, x2, y2, z2)``, shape (m, 6)."""
    depths: "npt.NDArray[np.int64]"
    """Depth, 0 for the root and for a grid's cells, shape (m,)."""
    is_leaf: "npt.NDArray[np.bool_]"
    """Whether the node is a leaf, shape (m,)."""
    counts: "npt.NDArray[np.int64]"
    """Elements linked in the leaf (0 for a branch), shape (m,)."""


class Elements(NamedTuple):
    """Every element of a structure, from :meth:`SpatialIndex.elements`."""

    handles: "npt.NDArray[np.int64]"
    """The handles, shape (n,)."""
    rects: "npt.NDArray[np.float32]"
    """The rectangles ``(x1, y1, x2, y2)``, shape (n, 4); an ``Octree``'s
    boxes ``(x1, y1, z1, x2, y2, z2)``, shape (n, 6)."""
    ids: "npt.NDArray[np.int64]"
    """The ids, shape (n,)."""


class RayHit(NamedTuple):
    """One element a ray cast hit, from :meth:`SpatialIndex.ray_cast` and its kin."""

    handle: int
    """The element."""
    id: int
    """Its id."""
    distance: float
    """Along the ray, from the origin to where the ray first touches the
    element's closed box (0 when the origin is inside or on it)."""
    fraction: float
    """``distance / max_length`` (0 for a ray of length 0)."""
