//! `flatquad.Quadtree`, `flatquad.Grid`, `flatquad.LooseGrid` and
//! `flatquad.LooseQuadtree`: each only
//! constructs its core structure and shows its parameters; every other method
//! is the base class's (`SpatialIndex`, in `index`), written once over
//! `AnyIndex`, whose `Core` here says which class serves which kind.

use flatquad::{AnyIndex, Error, Kind, SpatialIndex};
use pyo3::prelude::*;
use pyo3::types::PyType;
use pyo3::PyClass;

use crate::convert;
use crate::errors;
use crate::index::Index;
use crate::shared::{self, Core};

/// A subclass of `SpatialIndex` serving one kind of core structure.
trait Subclass: PyClass<BaseType = Index> + Default {
    /// The core structure.
    type Core: SpatialIndex + Into<AnyIndex>;
    /// The core structure inside `index`, if it is of this kind.
    fn core(index: &AnyIndex) -> Option<&Self::Core>;
}

/// A new instance of `T` holding `structure`.
fn instance<T: Subclass>(structure: T::Core) -> PyClassInitializer<T> {
    PyClassInitializer::from(Index::new(structure.into())).add_subclass(T::default())
}

/// Reads the core structure of `slf`, which is always of its class's kind:
/// the constructors, `from_bytes` and `__setstate__` see to that.
fn read<T: Subclass, R>(slf: &Bound<'_, T>, get: impl FnOnce(&T::Core) -> R) -> PyResult<R> {
    let index = slf.as_super().get().read(slf.py())?;
    Ok(get(
        T::core(&index).expect("a structure of its class's kind")
    ))
}

/// The 2D classes' structure: the kind a class serves is the one its
/// snapshots must hold, `None` (any) on `SpatialIndex`.
impl Core for AnyIndex {
    type Kind = Option<Kind>;
    const WORLD: &'static str = "bounds";

    fn kind_of_class(cls: &Bound<'_, PyType>) -> Option<Kind> {
        if cls.is_subclass_of::<Quadtree>().unwrap_or(false) {
            Some(Kind::Quadtree)
        } else if cls.is_subclass_of::<Grid>().unwrap_or(false) {
            Some(Kind::Grid)
        } else if cls.is_subclass_of::<LooseGrid>().unwrap_or(false) {
            Some(Kind::LooseGrid)
        } else if cls.is_subclass_of::<LooseQuadtree>().unwrap_or(false) {
            Some(Kind::LooseQuadtree)
        } else {
            None
        }
    }

    /// The core refuses a snapshot of another kind with `InvalidBytes`.
    fn from_snapshot(kind: Option<Kind>, bytes: &[u8]) -> Result<AnyIndex, Error> {
        match kind {
            None => AnyIndex::from_bytes(bytes),
            Some(Kind::Quadtree) => flatquad::Quadtree::from_bytes(bytes).map(AnyIndex::from),
            Some(Kind::Grid) => flatquad::Grid::from_bytes(bytes).map(AnyIndex::from),
            Some(Kind::LooseGrid) => flatquad::LooseGrid::from_bytes(bytes).map(AnyIndex::from),
            Some(Kind::LooseQuadtree) => {
                flatquad::LooseQuadtree::from_bytes(bytes).map(AnyIndex::from)
            }
            // No 2D class names it (`kind_of_class`); `flatquad.Octree` has its own.
            Some(Kind::Octree) => Err(Error::InvalidBytes("an Octree is not a 2D index".into())),
        }
    }

    /// An instance of the kind's class.
    fn into_object(self, py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
        let class = |index: AnyIndex| PyClassInitializer::from(Index::new(index));
        Ok(match self {
            AnyIndex::Quadtree(_) => Bound::new(py, class(self).add_subclass(Quadtree))?.into_any(),
            AnyIndex::Grid(_) => Bound::new(py, class(self).add_subclass(Grid))?.into_any(),
            AnyIndex::LooseGrid(_) => {
                Bound::new(py, class(self).add_subclass(LooseGrid))?.into_any()
            }
            AnyIndex::LooseQuadtree(_) => {
                Bound::new(py, class(self).add_subclass(LooseQuadtree))?.into_any()
            }
        })
    }

    fn parameters(&self) -> String {
        match self {
            AnyIndex::Quadtree(tree) => format!(
                "max_elements={} max_depth={}",
                tree.max_elements(),
                tree.max_depth()
            ),
            AnyIndex::LooseQuadtree(tree) => format!(
                "max_elements={} max_depth={}{}",
                tree.max_elements(),
                tree.max_depth(),
                tree.max_extent()
                    .map(|extent| format!(" max_extent={extent}"))
                    .unwrap_or_default()
            ),
            AnyIndex::Grid(grid) => format!("columns={} rows={}", grid.columns(), grid.rows()),
            AnyIndex::LooseGrid(grid) => format!(
                "columns={} rows={} tight_columns={} tight_rows={}",
                grid.columns(),
                grid.rows(),
                grid.tight_columns(),
                grid.tight_rows()
            ),
        }
    }
}

/// A flat quadtree over moving 2-D rectangles, for broad-phase collision
/// detection and region queries; every method is ``SpatialIndex``'s.
///
/// Parameters
/// ----------
/// bounds : (x1, y1, x2, y2)
///     The world the tree divides, with ``x1 < x2`` and ``y1 < y2``. Elements
///     and queries outside it are fine: they live in the border cells.
/// max_elements : int, default 8
///     A cell splits when it holds more elements than this (>= 1).
/// max_depth : int, default 8
///     Cells stop splitting at this depth (the root is depth 0; at most 30).
///     Pick it so that the smallest cells, ``(x2 - x1) / 2**max_depth``
///     wide, are a little larger than a typical element.
/// margin : float, keyword-only, default 0
///     Fat bounds: each element is filed by its box grown by this much on
///     every side, so moves that stay inside cost no relink (finite, >= 0;
///     the ``margin`` property). Results are as exact with or without.
///
/// Examples
/// --------
/// >>> import flatquad
/// >>> tree = flatquad.Quadtree((0, 0, 100, 100))
/// >>> a = tree.insert((10, 10, 20, 20), id=1)
/// >>> b = tree.insert((20, 20, 30, 30), id=2)
/// >>> tree.query((0, 0, 15, 15)) == [a]
/// True
/// >>> pairs = tree.pairs()  # touching rectangles overlap
/// >>> pairs.shape, sorted(pairs[0].tolist()) == sorted([a, b])
/// ((1, 2), True)
#[pyclass(frozen, extends = Index, name = "Quadtree", module = "flatquad")]
#[derive(Default)]
pub(crate) struct Quadtree;

impl Subclass for Quadtree {
    type Core = flatquad::Quadtree;
    fn core(index: &AnyIndex) -> Option<&Self::Core> {
        match index {
            AnyIndex::Quadtree(tree) => Some(tree),
            _ => None,
        }
    }
}

#[pymethods]
impl Quadtree {
    #[new]
    #[pyo3(signature = (bounds, max_elements = 8, max_depth = 8, *, margin = 0.0))]
    fn new(
        py: Python<'_>,
        bounds: &Bound<'_, PyAny>,
        max_elements: i64,
        max_depth: i64,
        margin: f64,
    ) -> PyResult<PyClassInitializer<Self>> {
        let new = flatquad::Quadtree::new;
        let tree = shared::new_tree(py, bounds, "bounds", max_elements, max_depth, margin, new)?;
        Ok(instance(tree))
    }

    /// Elements a cell holds before it splits.
    #[getter]
    fn max_elements(slf: &Bound<'_, Self>) -> PyResult<u32> {
        read(slf, flatquad::Quadtree::max_elements)
    }

    /// Depth below which cells no longer split (the root is depth 0).
    #[getter]
    fn max_depth(slf: &Bound<'_, Self>) -> PyResult<u32> {
        read(slf, flatquad::Quadtree::max_depth)
    }
}

/// A uniform grid over moving 2-D rectangles, for many elements of similar
/// size; every method is ``SpatialIndex``'s.
///
/// Parameters
/// ----------
/// bounds : (x1, y1, x2, y2)
///     The world the grid divides into equal cells, with ``x1 < x2`` and
///     ``y1 < y2``. Elements and queries outside it are fine: the border
///     cells own everything beyond it.
/// columns, rows : int, optional
///     The number of cells across and down (give both).
/// cell_size : float or (width, height), optional
///     Instead of ``columns`` and ``rows``: cells of about this size (the
///     world divided into whole numbers of cells, rounded up).
/// margin : float, keyword-only, default 0
///     Fat bounds: each element is filed by its box grown by this much on
///     every side, so moves that stay inside cost no relink (finite, >= 0;
///     the ``margin`` property). Results are as exact with or without.
///
/// With neither, the grid has the core's default cells for the world
/// (``Grid.for_world`` in Rust). Cells about 2 to 4 times a typical element's
/// side suit collision detection best.
///
/// Examples
/// --------
/// >>> import flatquad
/// >>> grid = flatquad.Grid((0, 0, 100, 100), columns=10, rows=10)
/// >>> a = grid.insert((10, 10, 20, 20))
/// >>> grid.query_point(15, 15) == [a]
/// True
#[pyclass(frozen, extends = Index, name = "Grid", module = "flatquad")]
#[derive(Default)]
pub(crate) struct Grid;

impl Subclass for Grid {
    type Core = flatquad::Grid;
    fn core(index: &AnyIndex) -> Option<&Self::Core> {
        match index {
            AnyIndex::Grid(grid) => Some(grid),
            _ => None,
        }
    }
}

#[pymethods]
impl Grid {
    #[new]
    #[pyo3(signature = (bounds, columns = None, rows = None, cell_size = None, *, margin = 0.0))]
    fn new(
        py: Python<'_>,
        bounds: &Bound<'_, PyAny>,
        columns: Option<i64>,
        rows: Option<i64>,
        cell_size: Option<&Bound<'_, PyAny>>,
        margin: f64,
    ) -> PyResult<PyClassInitializer<Self>> {
        let world = convert::rect(bounds, "bounds")?;
        let cell_size = cell_size.filter(|size| !size.is_none());
        let grid = match (columns, rows, cell_size) {
            (None, None, None) => flatquad::Grid::for_world(world),
            (Some(columns), Some(rows), None) => flatquad::Grid::new(
                world,
                convert::count(py, columns, "columns")?,
                convert::count(py, rows, "rows")?,
            ),
            (None, None, Some(size)) => {
                let (width, height) = convert::cell_size(size, "cell_size")?;
                flatquad::Grid::with_cell_size(world, width, height)
            }
            _ => {
                return Err(errors::invalid_parameter(
                    py,
                    "Grid takes columns and rows (both), or cell_size, or neither for the \
                     defaults; not a mix"
                        .to_string(),
                ))
            }
        };
        Ok(instance(shared::with_margin(py, grid, margin)?))
    }

    /// The number of columns of cells.
    #[getter]
    fn columns(slf: &Bound<'_, Self>) -> PyResult<u32> {
        read(slf, flatquad::Grid::columns)
    }

    /// The number of rows of cells.
    #[getter]
    fn rows(slf: &Bound<'_, Self>) -> PyResult<u32> {
        read(slf, flatquad::Grid::rows)
    }

    /// The width of a cell (the world's width over the columns), float32.
    #[getter]
    fn cell_width(slf: &Bound<'_, Self>) -> PyResult<f32> {
        read(slf, flatquad::Grid::cell_width)
    }

    /// The height of a cell (the world's height over the rows), float32.
    #[getter]
    fn cell_height(slf: &Bound<'_, Self>) -> PyResult<f32> {
        read(slf, flatquad::Grid::cell_height)
    }
}

/// The loose/tight double grid over moving 2-D rectangles: every element in
/// exactly one *loose* cell, whose box grows and shrinks around its elements,
/// and a coarser *tight* grid listing the loose cells that reach into each of
/// its cells. Every method is ``SpatialIndex``'s.
///
/// Parameters
/// ----------
/// bounds : (x1, y1, x2, y2)
///     The world the grids divide, with ``x1 < x2`` and ``y1 < y2``.
///     Elements and queries outside it are fine.
/// columns, rows, tight_columns, tight_rows : int, optional
///     The loose cells across and down, and the tight cells across and down
///     (give all four; the tight grid is not finer than the loose one).
/// cell_size : float, optional
///     Instead of the counts: square loose cells of about this side, the
///     core's tight cells for them.
/// margin : float, keyword-only, default 0
///     Fat bounds: each element is filed by its box grown by this much on
///     every side, so moves that stay inside cost no relink (finite, >= 0;
///     the ``margin`` property). Results are as exact with or without.
///
/// With neither, the grid has the core's defaults for the world
/// (``LooseGrid.for_world`` in Rust).
///
/// Examples
/// --------
/// >>> import flatquad
/// >>> grid = flatquad.LooseGrid((0, 0, 100, 100), cell_size=10)
/// >>> a = grid.insert((10, 10, 20, 20))
/// >>> grid.query((0, 0, 12, 12)) == [a]
/// True
#[pyclass(frozen, extends = Index, name = "LooseGrid", module = "flatquad")]
#[derive(Default)]
pub(crate) struct LooseGrid;

impl Subclass for LooseGrid {
    type Core = flatquad::LooseGrid;
    fn core(index: &AnyIndex) -> Option<&Self::Core> {
        match index {
            AnyIndex::LooseGrid(grid) => Some(grid),
            _ => None,
        }
    }
}

#[pymethods]
impl LooseGrid {
    #[new]
    #[pyo3(signature = (
        bounds,
        columns = None,
        rows = None,
        tight_columns = None,
        tight_rows = None,
        cell_size = None,
        *,
        margin = 0.0
    ))]
    #[allow(clippy::too_many_arguments)] // the constructor's keywords
    fn new(
        py: Python<'_>,
        bounds: &Bound<'_, PyAny>,
        columns: Option<i64>,
        rows: Option<i64>,
        tight_columns: Option<i64>,
        tight_rows: Option<i64>,
        cell_size: Option<&Bound<'_, PyAny>>,
        margin: f64,
    ) -> PyResult<PyClassInitializer<Self>> {
        let world = convert::rect(bounds, "bounds")?;
        let cell_size = cell_size.filter(|size| !size.is_none());
        let grid = match (columns, rows, tight_columns, tight_rows, cell_size) {
            (None, None, None, None, None) => flatquad::LooseGrid::for_world(world),
            (Some(columns), Some(rows), Some(tight_columns), Some(tight_rows), None) => {
                flatquad::LooseGrid::new(
                    world,
                    convert::count(py, columns, "columns")?,
                    convert::count(py, rows, "rows")?,
                    convert::count(py, tight_columns, "tight_columns")?,
                    convert::count(py, tight_rows, "tight_rows")?,
                )
            }
            (None, None, None, None, Some(size)) => {
                flatquad::LooseGrid::with_cell_size(world, convert::cell_side(size, "cell_size")?)
            }
            _ => {
                return Err(errors::invalid_parameter(
                    py,
                    "LooseGrid takes columns, rows, tight_columns and tight_rows (all four), \
                     or cell_size, or neither for the defaults; not a mix"
                        .to_string(),
                ))
            }
        };
        Ok(instance(shared::with_margin(py, grid, margin)?))
    }

    /// The number of columns of loose cells.
    #[getter]
    fn columns(slf: &Bound<'_, Self>) -> PyResult<u32> {
        read(slf, flatquad::LooseGrid::columns)
    }

    /// The number of rows of loose cells.
    #[getter]
    fn rows(slf: &Bound<'_, Self>) -> PyResult<u32> {
        read(slf, flatquad::LooseGrid::rows)
    }

    /// The number of columns of tight cells.
    #[getter]
    fn tight_columns(slf: &Bound<'_, Self>) -> PyResult<u32> {
        read(slf, flatquad::LooseGrid::tight_columns)
    }

    /// The number of rows of tight cells.
    #[getter]
    fn tight_rows(slf: &Bound<'_, Self>) -> PyResult<u32> {
        read(slf, flatquad::LooseGrid::tight_rows)
    }
}

/// A loose quadtree over moving 2-D rectangles: each element lives in exactly
/// one leaf, chosen by its centre, and the nodes' boxes grow to hold it, so
/// large elements cost no more than small ones; every method is
/// ``SpatialIndex``'s.
///
/// Parameters
/// ----------
/// bounds : (x1, y1, x2, y2)
///     The world the tree divides, with ``x1 < x2`` and ``y1 < y2``. Elements
///     and queries outside it are fine.
/// max_elements : int, default 8
///     A leaf splits when it holds more elements than this (>= 1).
/// max_depth : int, default 8
///     Leaves stop splitting at this depth (the root is depth 0; at most 30).
/// max_extent : float, optional
///     For many small elements among a few large ones: elements wider or
///     taller than this are kept apart, in a loose quadtree of their own, so
///     that they do not widen the boxes the small ones share (positive and
///     finite). Any size is fine either way, and results are as exact.
/// margin : float, keyword-only, default 0
///     Fat bounds: each element is filed by its box grown by this much on
///     every side, so moves that stay inside cost no relink (finite, >= 0;
///     the ``margin`` property). Results are as exact with or without.
///
/// Examples
/// --------
/// >>> import flatquad
/// >>> tree = flatquad.LooseQuadtree((0, 0, 100, 100))
/// >>> a = tree.insert((10, 10, 20, 20))
/// >>> big = tree.insert((-50, -50, 150, 150))
/// >>> sorted(tree.query_point(15, 15)) == sorted([a, big])
/// True
/// >>> bounded = flatquad.LooseQuadtree((0, 0, 100, 100), max_extent=4)
/// >>> bounded.max_extent
/// 4.0
#[pyclass(frozen, extends = Index, name = "LooseQuadtree", module = "flatquad")]
#[derive(Default)]
pub(crate) struct LooseQuadtree;

impl Subclass for LooseQuadtree {
    type Core = flatquad::LooseQuadtree;
    fn core(index: &AnyIndex) -> Option<&Self::Core> {
        match index {
            AnyIndex::LooseQuadtree(tree) => Some(tree),
            _ => None,
        }
    }
}

#[pymethods]
impl LooseQuadtree {
    #[new]
    #[pyo3(signature = (bounds, max_elements = 8, max_depth = 8, max_extent = None, *, margin = 0.0))]
    fn new(
        py: Python<'_>,
        bounds: &Bound<'_, PyAny>,
        max_elements: i64,
        max_depth: i64,
        max_extent: Option<&Bound<'_, PyAny>>,
        margin: f64,
    ) -> PyResult<PyClassInitializer<Self>> {
        use flatquad::LooseQuadtree as Tree;
        let max_extent = max_extent
            .filter(|extent| !extent.is_none())
            .map(|extent| convert::cell_side(extent, "max_extent"))
            .transpose()?;
        let new = |world, max_elements, max_depth| match max_extent {
            Some(extent) => Tree::with_max_extent(world, max_elements, max_depth, extent),
            None => Tree::new(world, max_elements, max_depth),
        };
        let tree = shared::new_tree(py, bounds, "bounds", max_elements, max_depth, margin, new)?;
        Ok(instance(tree))
    }

    /// Elements wider or taller than this are kept apart; ``None`` without a bound.
    #[getter]
    fn max_extent(slf: &Bound<'_, Self>) -> PyResult<Option<f32>> {
        read(slf, flatquad::LooseQuadtree::max_extent)
    }

    /// Elements a leaf holds before it splits.
    #[getter]
    fn max_elements(slf: &Bound<'_, Self>) -> PyResult<u32> {
        read(slf, flatquad::LooseQuadtree::max_elements)
    }

    /// Depth below which leaves no longer split (the root is depth 0).
    #[getter]
    fn max_depth(slf: &Bound<'_, Self>) -> PyResult<u32> {
        read(slf, flatquad::LooseQuadtree::max_depth)
    }
}
