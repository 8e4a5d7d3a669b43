//! `flatquad.Octree`: the core's octree behind the same lock. Every method
//! but its constructor and parameters comes from `methods::index_methods!`,
//! given the coordinate names `x, y, z` (boxes are 6-tuples, batches `(n, 6)`
//! arrays); the little the snapshot and copy methods need is its `Core`.

use flatquad::{Error, SpatialIndex};
use numpy::{PyArray1, PyArray2};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple, PyType};

use crate::join;
use crate::lock::IndexLock;
use crate::methods::index_methods;
use crate::shared::{self, Core, Csr};

/// An octree: the quadtree in 3D, over axis-aligned boxes
/// ``(x1, y1, z1, x2, y2, z2)`` (closed: touching counts), stored as float32.
///
/// Parameters
/// ----------
/// world : (x1, y1, z1, x2, y2, z2)
///     Where the tree divides space (``x1 < x2``, ``y1 < y2``, ``z1 < z2``);
///     elements and queries outside it are still stored and found.
/// max_elements : int
///     A leaf splits when it holds more (default 8).
/// max_depth : int
///     The deepest level, at most 30 (default 6: 64**3 cells).
/// margin : float, keyword-only, default 0
///     Fat bounds: each element is filed by its box grown by this much on
///     every side, so moves that stay inside cost no relink (finite, >= 0;
///     the ``margin`` property). Results are as exact with or without.
///
/// Every method is the 2D classes' with 6-number boxes: ``insert``,
/// ``insert_many`` (an ``(n, 6)`` float32 or float64 array, read in place),
/// ``move``, ``move_many``, ``remove``, ``remove_many``, ``cleanup``,
/// ``clear``, ``query``, ``query_many``, ``query_point(x, y, z)``,
/// ``query_circle(x, y, z, radius)`` (a sphere), ``query_circle_many``,
/// ``nearest(x, y, z, k)``, ``nearest_many``, ``ray_cast``, ``ray_cast_all`` and
/// ``ray_cast_with`` (origin ``ox, oy, oz``, direction ``dx, dy, dz``),
/// ``overlapping``, ``overlapping_many``, ``pairs``, ``set_filter``,
/// ``filter``, ``set_filters``, ``id_of``, ``rect_of``,
/// ``stats``, ``traverse``, ``nodes``, ``elements``, ``to_bytes``/``from_bytes``,
/// pickling, ``len``, ``in`` and iteration over the handles.
/// Errors are the same exceptions.
#[pyclass(frozen, weakref, name = "Octree", module = "flatquad")]
pub(crate) struct Octree {
    lock: IndexLock<flatquad::Octree>,
}

impl Octree {
    fn wrap(tree: flatquad::Octree) -> Octree {
        Octree {
            lock: IndexLock::new(tree),
        }
    }

    /// The lock (for a `PairTracker`, which reads it without the GIL).
    pub(crate) fn lock(&self) -> &IndexLock<flatquad::Octree> {
        &self.lock
    }
}

/// One kind of octree: its snapshots need only the core's own checks.
impl Core for flatquad::Octree {
    type Kind = ();
    const WORLD: &'static str = "world";

    fn kind_of_class(_cls: &Bound<'_, PyType>) {}

    fn from_snapshot(_kind: (), bytes: &[u8]) -> Result<Self, Error> {
        flatquad::Octree::from_bytes(bytes)
    }

    fn into_object(self, py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
        Ok(Bound::new(py, Octree::wrap(self))?.into_any())
    }

    fn parameters(&self) -> String {
        format!(
            "max_elements={} max_depth={}",
            self.max_elements(),
            self.max_depth()
        )
    }
}

/// Unpickles an ``Octree`` from its snapshot (pickle protocol 5).
#[pyfunction]
pub(crate) fn _restore_octree<'py>(data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    join::from_buffer::<flatquad::Octree>(data, ())?.into_object(data.py())
}

index_methods!(Octree, flatquad::Octree, "_restore_octree",
    point (x, y, z), origin (ox, oy, oz), direction (dx, dy, dz), [
    #[new]
    #[pyo3(signature = (world, max_elements = 8, max_depth = 6, *, margin = 0.0))]
    fn new(
        py: Python<'_>,
        world: &Bound<'_, PyAny>,
        max_elements: i64,
        max_depth: i64,
        margin: f64,
    ) -> PyResult<Self> {
        let new = flatquad::Octree::new;
        let tree = shared::new_tree(py, world, "world", max_elements, max_depth, margin, new)?;
        Ok(Octree::wrap(tree))
    }

    /// Elements a leaf holds before it splits.
    #[getter]
    fn max_elements(&self, py: Python<'_>) -> PyResult<u32> {
        Ok(self.lock.read(py)?.max_elements())
    }

    /// Depth below which leaves no longer split (the root is depth 0).
    #[getter]
    fn max_depth(&self, py: Python<'_>) -> PyResult<u32> {
        Ok(self.lock.read(py)?.max_depth())
    }
]);
