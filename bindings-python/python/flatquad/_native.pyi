"""Type stubs for flatquad's compiled module (re-exported by ``flatquad``)."""

from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal, Optional, SupportsFloat, SupportsIndex, Tuple, TypeVar, Union

import numpy as np
import numpy.typing as npt

from ._types import Elements, Nodes, RayHit

__version__: str

#: ``(x1, y1, x2, y2)``: any sequence of four real numbers.
RectLike = Union[Sequence[SupportsFloat], npt.NDArray[np.floating[Any]]]
#: The world ``(x1, y1, x2, y2)``, like every other rectangle.
BoundsLike = RectLike
#: Rows ``(x1, y1, x2, y2)``, shape ``(n, 4)``: float32 and float64 are read in
#: place (float64 rounded once to the nearest float32: monotone, so no pair whose
#: boxes meet in float64 is ever missed; a pair the rounding made touch may be added).
RectsLike = npt.ArrayLike
#: Handles, shape ``(n,)``: int64 and uint64 are read in place.
HandlesLike = npt.ArrayLike
#: Ids: None (all 0), one int for all, or shape ``(n,)`` (uint32 is read in place).
IdsLike = Union[None, int, npt.ArrayLike]
#: Filter categories or masks: one int for all, or shape ``(n,)`` (uint32 is read in place).
U32sLike = Union[int, npt.ArrayLike]

BranchCallback = Callable[[int, int, float, float, float, float], Optional[bool]]
LeafCallback = Callable[[int, int, float, float, float, float, int], Optional[bool]]
#: ``branch(index, depth, x1, y1, z1, x2, y2, z2)`` of ``Octree.traverse``.
BranchCallback3 = Callable[[int, int, float, float, float, float, float, float], Optional[bool]]
#: ``leaf(index, depth, x1, y1, z1, x2, y2, z2, count)`` of ``Octree.traverse``.
#: ``filter(handle)`` of ``nearest``: whether the candidate counts.
NearestFilter = Callable[[int], bool]
#: ``callback(hit)`` of ``ray_cast_with``: None/True go on, False stops, a number clips the ray.
RayCallback = Callable[[RayHit], Union[None, bool, float]]
#: Points, shape ``(n, 2)`` (``(n, 3)`` for an ``Octree``), any real dtype.
PointsLike = npt.ArrayLike
#: One radius for all, or shape ``(n,)``.
RadiiLike = Union[SupportsFloat, npt.ArrayLike]
_CSR = Tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]
_NearestRows = Tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64]]
_FirstHits = Tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]
LeafCallback3 = Callable[[int, int, float, float, float, float, float, float, int], Optional[bool]]

_S = TypeVar("_S", bound="SpatialIndex")

class SpatialIndex:
    """The API every structure shares (see ``help(flatquad.SpatialIndex)``); no constructor."""

    @property
    def bounds(self) -> Tuple[float, float, float, float]:
        """The world as ``(x1, y1, x2, y2)``, in float32 precision."""
    @property
    def kind(self) -> Literal["Quadtree", "Grid", "LooseGrid"]:
        """The structure's class name."""

    # One element at a time.
    def insert(self, rect: RectLike, id: Optional[SupportsIndex] = None) -> int:
        """Add a rectangle; return its handle. ``id`` (unsigned 32-bit) defaults to 0."""
    def remove(self, handle: SupportsIndex) -> None:
        """Remove an element; ``KeyError`` if ``handle`` names none."""
    def move(self, handle: SupportsIndex, rect: RectLike) -> None:
        """Give an element a new rectangle."""
    @property
    def margin(self) -> float:
        """Fat bounds: elements filed by their boxes grown by this (0 for none); exact either way."""
    @margin.setter
    def margin(self, value: SupportsFloat) -> None: ...
    def cleanup(self) -> None:
        """The lazy tidying after moves and removals: call it once a frame."""
    def clear(self) -> None:
        """Remove every element; all handles go stale."""
    def id_of(self, handle: SupportsIndex) -> int:
        """The id the element was inserted with."""
    def rect_of(self, handle: SupportsIndex) -> Tuple[float, float, float, float]:
        """The element's rectangle ``(x1, y1, x2, y2)``, as stored (float32)."""

    # Queries.
    def query(
        self, rect: RectLike, omit: Optional[SupportsIndex] = None, mask: Optional[SupportsIndex] = None
    ) -> list[int]:
        """Handles of the elements whose rectangle meets ``rect``, leaving out ``omit`` (0: none);
        with ``mask``, only those whose filter category has a bit in it."""
    def query_point(
        self,
        x: SupportsFloat,
        y: SupportsFloat,
        omit: Optional[SupportsIndex] = None,
        mask: Optional[SupportsIndex] = None,
    ) -> list[int]:
        """Handles of the elements whose rectangle holds the point ``(x, y)``."""
    def pairs(self) -> npt.NDArray[np.int64]:
        """Every overlapping pair of handles once, shape ``(k, 2)`` (filters applied)."""

    # Collision filters (Box2D's rule; every element starts with 0xFFFFFFFF, 0xFFFFFFFF).
    def set_filter(self, handle: SupportsIndex, category: SupportsIndex, mask: SupportsIndex) -> None:
        """Two elements pair only when each one's category has a bit in the other's mask."""
    def filter(self, handle: SupportsIndex) -> Tuple[int, int]:
        """The element's ``(category, mask)``."""
    def set_filters(self, handles: HandlesLike, categories: U32sLike, masks: U32sLike) -> None:
        """``handles[i]`` gets ``(categories[i], masks[i])``; all checked first."""

    # Nearest neighbours, circles and ray casts (distances in float64 to closed boxes).
    def query_circle(
        self, x: SupportsFloat, y: SupportsFloat, radius: SupportsFloat, mask: Optional[SupportsIndex] = None
    ) -> list[int]:
        """Handles of the elements within ``radius`` of ``(x, y)`` (closed)."""
    def query_circle_many(
        self, centers: PointsLike, radii: RadiiLike, mask: Optional[SupportsIndex] = None
    ) -> _CSR:
        """``query_circle`` per row of ``centers``: ``(offsets, hits)``."""
    def nearest(
        self,
        x: SupportsFloat,
        y: SupportsFloat,
        k: SupportsIndex = 1,
        max_distance: Optional[SupportsFloat] = None,
        return_distance: bool = False,
        mask: Optional[SupportsIndex] = None,
        filter: Optional[NearestFilter] = None,
    ) -> Union[list[int], Tuple[list[int], list[float]]]:
        """The ``k`` nearest handles, nearest first; with ``return_distance``, ``(handles, distances)``."""
    def nearest_many(
        self,
        points: PointsLike,
        k: SupportsIndex = 1,
        max_distance: Optional[SupportsFloat] = None,
        mask: Optional[SupportsIndex] = None,
    ) -> _NearestRows:
        """``(offsets, handles, distances)``: point ``i``'s neighbours, nearest first."""
    def ray_cast_many(
        self,
        origins: PointsLike,
        directions: PointsLike,
        max_length: RadiiLike,
        mask: Optional[SupportsIndex] = None,
    ) -> _FirstHits:
        """``(handles, distances)``: ray ``i``'s first hit; 0 and ``inf`` where it hits nothing."""
    def ray_cast(
        self,
        ox: SupportsFloat,
        oy: SupportsFloat,
        dx: SupportsFloat,
        dy: SupportsFloat,
        max_length: SupportsFloat,
        mask: Optional[SupportsIndex] = None,
    ) -> Optional[RayHit]:
        """The first element the segment touches, or None."""
    def box_cast(
        self,
        rect: RectLike,
        dx: SupportsFloat,
        dy: SupportsFloat,
        *,
        mask: Optional[SupportsIndex] = None,
        omit: Optional[SupportsIndex] = None,
    ) -> Optional[RayHit]:
        """The first element ``rect`` touches moving by ``t * (dx, dy)``, ``t`` in [0, 1], or None."""
    def box_cast_all(
        self,
        rect: RectLike,
        dx: SupportsFloat,
        dy: SupportsFloat,
        *,
        mask: Optional[SupportsIndex] = None,
        omit: Optional[SupportsIndex] = None,
    ) -> list[RayHit]:
        """Every element the moving rectangle touches, in ``(fraction, id, handle)`` order."""
    def ray_cast_all(
        self,
        ox: SupportsFloat,
        oy: SupportsFloat,
        dx: SupportsFloat,
        dy: SupportsFloat,
        max_length: SupportsFloat,
        mask: Optional[SupportsIndex] = None,
    ) -> list[RayHit]:
        """Every element the segment touches, in ``(distance, id, handle)`` order."""
    def ray_cast_with(
        self,
        ox: SupportsFloat,
        oy: SupportsFloat,
        dx: SupportsFloat,
        dy: SupportsFloat,
        max_length: SupportsFloat,
        callback: RayCallback,
        mask: Optional[SupportsIndex] = None,
    ) -> None:
        """``callback(hit)`` per hit in order: None/True go on, False stops, a number clips."""

    # Batches on numpy arrays (the GIL is released while the core works).
    def insert_many(self, rects: RectsLike, ids: IdsLike = None) -> npt.NDArray[np.int64]:
        """Insert rows ``(x1, y1, x2, y2)``; return their handles, shape ``(n,)``."""
    def move_many(self, handles: HandlesLike, rects: RectsLike) -> None:
        """``handles[i]`` gets ``rects[i]``; all checked first."""
    def remove_many(self, handles: HandlesLike) -> None:
        """Remove every handle given; all checked first."""
    def query_many(
        self, rects: RectsLike, omit: Optional[HandlesLike] = None
    ) -> Tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """``(offsets, hits)``: query ``i``'s hits are ``hits[offsets[i]:offsets[i + 1]]``."""
    def query_bulk(
        self, bounds: RectsLike, predicate: Optional[Literal["intersects"]] = None, *, sort: bool = False
    ) -> npt.NDArray[np.int64]:
        """``[input_index, handle]`` of every row meeting an element, shape ``(2, k)``."""
    def join(self, other: SpatialIndex, *, sort: bool = False) -> npt.NDArray[np.int64]:
        """``[handle here, handle in other]`` of every meeting pair, each once, shape ``(2, k)``."""
    def overlapping(self, handle: SupportsIndex) -> list[int]:
        """The other elements meeting this one's rectangle, found from where it lies."""
    def overlapping_many(
        self, handles: HandlesLike
    ) -> Tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """``overlapping`` for each handle, as ``(offsets, hits)`` like ``query_many``."""

    # Inspection.
    def traverse(
        self,
        branch: Optional[BranchCallback] = None,
        leaf: Optional[LeafCallback] = None,
    ) -> None:
        """Call ``branch``/``leaf`` on every node (a grid's cells are leaves); ``False`` stops."""
    def nodes(self) -> Nodes:
        """Every node as arrays: ``Nodes(indices, rects, depths, is_leaf, counts)``."""
    def elements(self) -> Elements:
        """Every element as arrays: ``Elements(handles, rects, ids)``."""
    def stats(self) -> dict[str, int]:
        """Sizes: elements, nodes, leaves, empty_leaves, max_depth_reached, element_links, bytes."""
    def __len__(self) -> int: ...
    def __contains__(self, handle: object) -> bool: ...
    def __iter__(self) -> Iterator[int]: ...

    # Snapshots, pickling and copies.
    def to_bytes(self) -> bytes:
        """The whole structure as bytes; ``from_bytes`` gives back an equal one."""
    @classmethod
    def from_bytes(cls: type[_S], data: Union[bytes, bytearray]) -> _S:
        """The structure in ``to_bytes()``'s output (on a subclass: of its kind only)."""
    def __getstate__(self) -> bytes: ...
    def __setstate__(self, state: Union[bytes, bytearray]) -> None: ...
    def __reduce__(self) -> Tuple[type, Tuple[Any, ...], bytes]: ...
    def __reduce_ex__(self, protocol: SupportsIndex) -> Tuple[Any, ...]:
        """Protocol 5+: the snapshot as an out-of-band ``PickleBuffer``."""
    def __copy__(self: _S) -> _S: ...
    def __deepcopy__(self: _S, memo: Any) -> _S: ...
    def _validate(self) -> None:
        """Check every invariant (slow; for tests). ``AssertionError`` if one fails."""

class Quadtree(SpatialIndex):
    """A flat quadtree over moving 2-D rectangles (see ``help(flatquad.Quadtree)``)."""

    def __init__(
        self,
        bounds: BoundsLike,
        max_elements: SupportsIndex = 8,
        max_depth: SupportsIndex = 8,
        *,
        margin: SupportsFloat = 0.0,
    ) -> None: ...
    @property
    def max_elements(self) -> int:
        """Elements a cell holds before it splits."""
    @property
    def max_depth(self) -> int:
        """Depth below which cells no longer split (the root is depth 0)."""

class LooseQuadtree(SpatialIndex):
    """A loose quadtree: each element in one leaf, by its centre (see ``help(flatquad.LooseQuadtree)``)."""

    def __init__(
        self,
        bounds: BoundsLike,
        max_elements: SupportsIndex = 8,
        max_depth: SupportsIndex = 8,
        max_extent: Optional[SupportsFloat] = None,
        *,
        margin: SupportsFloat = 0.0,
    ) -> None: ...
    @property
    def max_extent(self) -> Optional[float]:
        """Elements wider or taller than this are kept apart; ``None`` without a bound."""
    @property
    def max_elements(self) -> int:
        """Elements a leaf holds before it splits."""
    @property
    def max_depth(self) -> int:
        """Depth below which leaves no longer split (the root is depth 0)."""

class Grid(SpatialIndex):
    """A uniform grid: ``columns`` and ``rows``, or ``cell_size``, or neither (defaults)."""

    def __init__(
        self,
        bounds: BoundsLike,
        columns: Optional[SupportsIndex] = None,
        rows: Optional[SupportsIndex] = None,
        cell_size: Union[None, SupportsFloat, Tuple[SupportsFloat, SupportsFloat]] = None,
        *,
        margin: SupportsFloat = 0.0,
    ) -> None: ...
    @property
    def columns(self) -> int:
        """The number of columns of cells."""
    @property
    def rows(self) -> int:
        """The number of rows of cells."""
    @property
    def cell_width(self) -> float:
        """The width of a cell (float32)."""
    @property
    def cell_height(self) -> float:
        """The height of a cell (float32)."""

class LooseGrid(SpatialIndex):
    """The loose/tight double grid: the four counts, or ``cell_size``, or neither (defaults)."""

    def __init__(
        self,
        bounds: BoundsLike,
        columns: Optional[SupportsIndex] = None,
        rows: Optional[SupportsIndex] = None,
        tight_columns: Optional[SupportsIndex] = None,
        tight_rows: Optional[SupportsIndex] = None,
        cell_size: Optional[SupportsFloat] = None,
        *,
        margin: SupportsFloat = 0.0,
    ) -> None: ...
    @property
    def columns(self) -> int:
        """The number of columns of loose cells."""
    @property
    def rows(self) -> int:
        """The number of rows of loose cells."""
    @property
    def tight_columns(self) -> int:
        """The number of columns of tight cells."""
    @property
    def tight_rows(self) -> int:
        """The number of rows of tight cells."""

#: ``(x1, y1, z1, x2, y2, z2)``: any sequence of six real numbers.
BoxLike = Union[Sequence[SupportsFloat], npt.NDArray[np.floating[Any]]]
#: Rows ``(x1, y1, z1, x2, y2, z2)``, shape ``(n, 6)``: float32 and float64 are
#: read in place (float64 rounded once to the nearest float32, as for 2D).
BoxesLike = npt.ArrayLike

class Octree:
    """An octree over moving 3-D boxes ``(x1, y1, z1, x2, y2, z2)``: the 2D
    classes' methods, with 6-number boxes and ``(n, 6)`` batches."""

    def __init__(
        self,
        world: BoxLike,
        max_elements: SupportsIndex = 8,
        max_depth: SupportsIndex = 6,
        *,
        margin: SupportsFloat = 0.0,
    ) -> None: ...
    @property
    def bounds(self) -> Tuple[float, float, float, float, float, float]:
        """The world ``(x1, y1, z1, x2, y2, z2)``, in float32 precision."""
    @property
    def kind(self) -> Literal["Octree"]:
        """``"Octree"``."""
    @property
    def max_elements(self) -> int:
        """Elements a leaf holds before it splits."""
    @property
    def max_depth(self) -> int:
        """Depth below which leaves no longer split (the root is depth 0)."""
    def insert(self, rect: BoxLike, id: Optional[SupportsIndex] = None) -> int:
        """Add a box; return its handle (``ValueError`` for a bad box)."""
    def remove(self, handle: SupportsIndex) -> None:
        """Remove an element (``KeyError`` for a stale handle)."""
    def move(self, handle: SupportsIndex, rect: BoxLike) -> None:
        """Give an element a new box."""
    @property
    def margin(self) -> float:
        """Fat bounds: elements filed by their boxes grown by this (0 for none); exact either way."""
    @margin.setter
    def margin(self, value: SupportsFloat) -> None: ...
    def cleanup(self) -> None:
        """Merge emptied branches, one level per call."""
    def clear(self) -> None:
        """Remove every element (all handles go stale)."""
    def id_of(self, handle: SupportsIndex) -> int:
        """The id the element was inserted with."""
    def rect_of(self, handle: SupportsIndex) -> Tuple[float, float, float, float, float, float]:
        """The element's box, as stored (float32)."""
    def query(
        self, rect: BoxLike, omit: Optional[SupportsIndex] = None, mask: Optional[SupportsIndex] = None
    ) -> list[int]:
        """The handles whose box meets ``rect`` (closed), leaving out ``omit``; ``mask`` as in 2D."""
    def query_point(
        self,
        x: SupportsFloat,
        y: SupportsFloat,
        z: SupportsFloat,
        omit: Optional[SupportsIndex] = None,
        mask: Optional[SupportsIndex] = None,
    ) -> list[int]:
        """The handles whose box holds ``(x, y, z)``, leaving out ``omit``."""
    def pairs(self) -> npt.NDArray[np.int64]:
        """Every pair of meeting elements once, int64 of shape ``(k, 2)`` (filters applied)."""
    def set_filter(self, handle: SupportsIndex, category: SupportsIndex, mask: SupportsIndex) -> None:
        """The element's collision filter, as in 2D."""
    def filter(self, handle: SupportsIndex) -> Tuple[int, int]:
        """The element's ``(category, mask)``."""
    def set_filters(self, handles: HandlesLike, categories: U32sLike, masks: U32sLike) -> None:
        """``handles[i]`` gets ``(categories[i], masks[i])``; all checked first."""
    def query_circle(
        self,
        x: SupportsFloat,
        y: SupportsFloat,
        z: SupportsFloat,
        radius: SupportsFloat,
        mask: Optional[SupportsIndex] = None,
    ) -> list[int]:
        """Handles of the elements within ``radius`` of ``(x, y, z)`` (a closed sphere)."""
    def query_circle_many(
        self, centers: PointsLike, radii: RadiiLike, mask: Optional[SupportsIndex] = None
    ) -> _CSR:
        """``query_circle`` per row of ``centers`` (shape ``(n, 3)``): ``(offsets, hits)``."""
    def nearest(
        self,
        x: SupportsFloat,
        y: SupportsFloat,
        z: SupportsFloat,
        k: SupportsIndex = 1,
        max_distance: Optional[SupportsFloat] = None,
        return_distance: bool = False,
        mask: Optional[SupportsIndex] = None,
        filter: Optional[NearestFilter] = None,
    ) -> Union[list[int], Tuple[list[int], list[float]]]:
        """The ``k`` nearest handles, nearest first; with ``return_distance``, ``(handles, distances)``."""
    def nearest_many(
        self,
        points: PointsLike,
        k: SupportsIndex = 1,
        max_distance: Optional[SupportsFloat] = None,
        mask: Optional[SupportsIndex] = None,
    ) -> _NearestRows:
        """``(offsets, handles, distances)`` for points of shape ``(n, 3)``."""
    def ray_cast_many(
        self,
        origins: PointsLike,
        directions: PointsLike,
        max_length: RadiiLike,
        mask: Optional[SupportsIndex] = None,
    ) -> _FirstHits:
        """``(handles, distances)`` for rays of shape ``(n, 3)``."""
    def ray_cast(
        self,
        ox: SupportsFloat,
        oy: SupportsFloat,
        oz: SupportsFloat,
        dx: SupportsFloat,
        dy: SupportsFloat,
        dz: SupportsFloat,
        max_length: SupportsFloat,
        mask: Optional[SupportsIndex] = None,
    ) -> Optional[RayHit]:
        """The first box the segment touches, or None."""
    def box_cast(
        self,
        rect: BoxLike,
        dx: SupportsFloat,
        dy: SupportsFloat,
        dz: SupportsFloat,
        *,
        mask: Optional[SupportsIndex] = None,
        omit: Optional[SupportsIndex] = None,
    ) -> Optional[RayHit]:
        """The first box ``rect`` touches moving by ``t * (dx, dy, dz)``, ``t`` in [0, 1], or None."""
    def box_cast_all(
        self,
        rect: BoxLike,
        dx: SupportsFloat,
        dy: SupportsFloat,
        dz: SupportsFloat,
        *,
        mask: Optional[SupportsIndex] = None,
        omit: Optional[SupportsIndex] = None,
    ) -> list[RayHit]:
        """Every box the moving box touches, in ``(fraction, id, handle)`` order."""
    def ray_cast_all(
        self,
        ox: SupportsFloat,
        oy: SupportsFloat,
        oz: SupportsFloat,
        dx: SupportsFloat,
        dy: SupportsFloat,
        dz: SupportsFloat,
        max_length: SupportsFloat,
        mask: Optional[SupportsIndex] = None,
    ) -> list[RayHit]:
        """Every box the segment touches, in ``(distance, id, handle)`` order."""
    def ray_cast_with(
        self,
        ox: SupportsFloat,
        oy: SupportsFloat,
        oz: SupportsFloat,
        dx: SupportsFloat,
        dy: SupportsFloat,
        dz: SupportsFloat,
        max_length: SupportsFloat,
        callback: RayCallback,
        mask: Optional[SupportsIndex] = None,
    ) -> None:
        """``callback(hit)`` per hit in order: None/True go on, False stops, a number clips."""
    def insert_many(self, rects: BoxesLike, ids: IdsLike = None) -> npt.NDArray[np.int64]:
        """Insert the rows of an ``(n, 6)`` array; their handles, in row order."""
    def move_many(self, handles: HandlesLike, rects: BoxesLike) -> None:
        """``handles[i]`` gets ``rects[i]``; all or nothing."""
    def remove_many(self, handles: HandlesLike) -> None:
        """Remove many elements; all or nothing."""
    def query_many(
        self, rects: BoxesLike, omit: Optional[HandlesLike] = None
    ) -> Tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """One query per row: ``(offsets, hits)`` in CSR layout."""
    def overlapping(self, handle: SupportsIndex) -> list[int]:
        """The other elements whose box meets this element's."""
    def overlapping_many(
        self, handles: HandlesLike
    ) -> Tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """``overlapping`` of each handle: ``(offsets, hits)`` in CSR layout."""
    def stats(self) -> dict[str, int]:
        """Sizes of the tree (as the 2D classes' ``stats``)."""
    def traverse(
        self,
        branch: Optional[BranchCallback3] = None,
        leaf: Optional[LeafCallback3] = None,
    ) -> None:
        """Call ``branch``/``leaf`` on every node with its 6-number box; ``False`` stops."""
    def nodes(self) -> Nodes:
        """Every node as arrays: ``Nodes(indices, rects, depths, is_leaf, counts)``, ``rects`` (m, 6)."""
    def elements(self) -> Elements:
        """Every element as arrays: ``Elements(handles, rects, ids)``, ``rects`` (n, 6)."""
    def __len__(self) -> int: ...
    def __contains__(self, handle: object) -> bool: ...
    def __iter__(self) -> Iterator[int]: ...
    def to_bytes(self) -> bytes:
        """The whole tree as bytes; ``Octree.from_bytes`` gives it back."""
    @classmethod
    def from_bytes(cls, data: Union[bytes, bytearray]) -> Octree:
        """An octree from ``to_bytes()``'s output (``ValueError`` otherwise)."""
    def __getstate__(self) -> bytes: ...
    def __setstate__(self, state: Union[bytes, bytearray]) -> None: ...
    def __reduce__(self) -> Tuple[type, Tuple[Any, ...], bytes]: ...
    def __reduce_ex__(self, protocol: SupportsIndex) -> Tuple[Any, ...]: ...
    def __copy__(self) -> Octree: ...
    def __deepcopy__(self, memo: Any) -> Octree: ...
    def _validate(self) -> None:
        """Check every invariant (slow; for tests). ``AssertionError`` if one fails."""

class BoxIndex:
    """A static index of boxes answering in positions, like shapely's ``STRtree``."""

    def __init__(self, bounds: RectsLike, *, index: str = "grid") -> None: ...
    @property
    def kind(self) -> Literal["Quadtree", "Grid", "LooseGrid", "LooseQuadtree"]:
        """The structure the boxes are in."""
    def query_bulk(
        self,
        bounds: RectsLike,
        predicate: Optional[Literal["intersects"]] = None,
        *,
        sort: bool = False,
        owner: Optional[RectLike] = None,
    ) -> npt.NDArray[np.int64]:
        """``[input_index, tree_index]`` of every pair of meeting boxes, shape ``(2, k)``;
        with ``owner``, only the pairs whose intersection's top-left corner it holds (half-open)."""
    def to_bytes(self) -> bytes:
        """A snapshot; ``BoxIndex.from_bytes`` gives the index back."""
    @staticmethod
    def from_bytes(data: Any) -> BoxIndex:
        """The index in ``to_bytes()``'s output (any buffer)."""
    def __len__(self) -> int: ...
    def __reduce_ex__(self, protocol: SupportsIndex) -> Tuple[Any, ...]: ...

class PairTracker:
    """The pairs of an index's elements that began and ended overlapping since
    the last ``update()``: contact events, filters applied, closed boxes."""

    def __init__(self, index: Union[SpatialIndex, Octree]) -> None:
        """A tracker that has seen nothing; it keeps ``index`` alive.
        ``TypeError`` for anything but a flatquad structure."""
    def update(self) -> Tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """``(began, ended)``: int64 handles of shape ``(k, 2)``, each row in
        ascending order, rows sorted. Releases the GIL."""
    @property
    def pair_count(self) -> int:
        """How many pairs overlapped at the last ``update`` (0 before the first)."""
    def reset(self) -> None:
        """Forget everything seen: the next ``update`` reports every pair as began."""
    @property
    def index(self) -> Union[SpatialIndex, Octree]:
        """The index the tracker follows."""

def join_bounds(
    left: RectsLike, right: RectsLike, *, sort: bool = False, index: str = "grid"
) -> npt.NDArray[np.int64]:
    """``[left_index, right_index]`` of every pair of meeting boxes, shape ``(2, k)``."""

__all__ = [
    "BoxIndex",
    "Grid",
    "LooseGrid",
    "LooseQuadtree",
    "Octree",
    "PairTracker",
    "Quadtree",
    "SpatialIndex",
    "__version__",
    "join_bounds",
]
