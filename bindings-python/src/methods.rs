//! `index_methods!`: the `#[pymethods]` every structure class shares, the 2D
//! ones (`SpatialIndex` and its subclasses) and `Octree`. Each method is its
//! Python signature, its docstring and one call into `shared`, where the body
//! is written once over the core structure the class locks.

/// `index_methods!(Class, Core, "_restore_function", point (x, y), origin (ox, oy),
/// direction (dx, dy), [own methods])`: the `#[pymethods]` of a class whose
/// field `lock` is a [`crate::lock::IndexLock`] of the `Core` structure: its
/// own methods, then every method all classes share, each one call into
/// `shared`, and the pickle protocol (`_restore_function` unpickles protocol
/// 5's out-of-band snapshot).
///
/// The dimension is only in the parameter names: a point's coordinates, a
/// ray's origin and a ray's (or a moving box's) direction, one name per axis.
/// Their values reach `shared` as slices of 2 or 3 numbers.
macro_rules! index_methods {
    (
        $class:ident,
        $core:ty,
        $restore:literal,
        point ($($p:ident),+),
        origin ($($o:ident),+),
        direction ($($d:ident),+),
        [$($own:tt)*]
    ) => {
        #[pymethods]
        impl $class {
            $($own)*

            /// The world as ``(x1, y1, x2, y2)`` (``(x1, y1, z1, x2, y2, z2)``
            /// for an ``Octree``), in float32 precision.
            #[getter]
            fn bounds<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
                shared::bounds(&self.lock, py)
            }

            /// The structure's class name: ``"Quadtree"``, ``"Grid"``,
            /// ``"LooseGrid"``, ``"LooseQuadtree"`` or ``"Octree"``.
            #[getter]
            fn kind(&self, py: Python<'_>) -> PyResult<&'static str> {
                shared::kind(&self.lock, py)
            }

            /// ``(class, (bounds,), state)``: an index of the class over the same
            /// world, then the snapshot in place of its contents.
            fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
                let py = slf.py();
                let this = slf.get();
                let args = (this.bounds(py)?,).into_pyobject(py)?;
                PyTuple::new(
                    py,
                    [
                        slf.get_type().into_any(),
                        args.into_any(),
                        this.__getstate__(py)?.into_any(),
                    ],
                )
            }

            /// Pickle protocol 5 and later: the snapshot as an out-of-band buffer
            /// (no copy in a pickler that takes buffers; nothing is rebuilt on
            /// loading, only checked); earlier protocols: ``__reduce__``.
            fn __reduce_ex__<'py>(slf: &Bound<'py, Self>, protocol: i64) -> PyResult<Bound<'py, PyTuple>> {
                let py = slf.py();
                let snapshot = slf
                    .get()
                    .lock
                    .read_with_gil_released(py, |index| index.to_bytes())?;
                match crate::join::reduce_out_of_band(py, $restore, snapshot, protocol)? {
                    Some(reduced) => Ok(reduced),
                    None => Self::__reduce__(slf),
                }
            }

            /// Add a rectangle and return its handle.
            ///
            /// Parameters
            /// ----------
            /// rect : (x1, y1, x2, y2)
            ///     Or ``(x1, y1, z1, x2, y2, z2)`` for an ``Octree``.
            ///     Finite numbers with ``x1 <= x2`` and ``y1 <= y2`` (a point or a
            ///     segment is fine). Stored as float32.
            /// id : int, optional
            ///     Your unsigned 32-bit value for the element, returned by ``id_of``;
            ///     0 when omitted.
            ///
            /// Returns
            /// -------
            /// int
            ///     The handle, never 0 and below 2**53.
            ///
            /// Raises
            /// ------
            /// ValueError
            ///     For NaN or infinite coordinates, an inverted rectangle, or an id
            ///     out of range.
            #[pyo3(signature = (rect, id = None))]
            fn insert(&self, py: Python<'_>, rect: &Bound<'_, PyAny>, id: Option<i64>) -> PyResult<u64> {
                shared::insert(&self.lock, py, rect, id)
            }

            /// Remove an element. Its handle goes stale for good.
            ///
            /// Raises
            /// ------
            /// KeyError
            ///     If ``handle`` names no element of this structure (never issued,
            ///     already removed, or cleared).
            fn remove(&self, py: Python<'_>, handle: &Bound<'_, PyAny>) -> PyResult<()> {
                shared::remove(&self.lock, py, handle)
            }

            /// Give an element a new rectangle (the "move" of a collision loop).
            ///
            /// Raises
            /// ------
            /// KeyError
            ///     If ``handle`` names no element.
            /// ValueError
            ///     For a bad rectangle.
            #[pyo3(name = "move")]
            fn move_(
                &self,
                py: Python<'_>,
                handle: &Bound<'_, PyAny>,
                rect: &Bound<'_, PyAny>,
            ) -> PyResult<()> {
                shared::move_to(&self.lock, py, handle, rect)
            }

            /// The fat-bounds margin, in world units (float32; 0 for none; the
            /// constructors' ``margin=``). Each element is filed by its box grown
            /// by the margin on every side, so a move that stays inside that fat
            /// box costs no relink. Every query, pair, search and contact event
            /// still answers on the elements' own boxes: the margin changes
            /// speed, never a result. Setting it refiles every element.
            ///
            /// Raises
            /// ------
            /// ValueError
            ///     When set to a NaN, negative or infinite value (nothing changes).
            #[getter]
            fn get_margin(&self, py: Python<'_>) -> PyResult<f64> {
                shared::margin(&self.lock, py)
            }

            #[setter]
            fn set_margin(&self, py: Python<'_>, margin: f64) -> PyResult<()> {
                shared::set_margin(&self.lock, py, margin)
            }

            /// The lazy tidying after moves and removals (a quadtree merges emptied
            /// cells, one level per call; a loose grid shrinks its cells' boxes): call
            /// it once a frame, after the moves.
            fn cleanup(&self, py: Python<'_>) -> PyResult<()> {
                shared::cleanup(&self.lock, py)
            }

            /// Remove every element (all handles go stale); the memory is kept for reuse.
            fn clear(&self, py: Python<'_>) -> PyResult<()> {
                shared::clear(&self.lock, py)
            }

            /// The handles of the elements whose rectangle meets ``rect``.
            ///
            /// Parameters
            /// ----------
            /// rect : (x1, y1, x2, y2)
            ///     Or ``(x1, y1, z1, x2, y2, z2)`` for an ``Octree``.
            ///     The closed query rectangle: elements that only touch it are found.
            /// omit : int, optional
            ///     A handle to leave out, typically the querying element's own;
            ///     None or 0 (never a handle) leave out nothing.
            /// mask : int, optional
            ///     Report only the elements whose filter category has a bit in
            ///     ``mask`` (see ``set_filter``); None (or ``0xFFFFFFFF``): every
            ///     element.
            ///
            /// Returns
            /// -------
            /// list of int
            ///     Each matching handle once, in no particular order.
            ///
            /// Raises
            /// ------
            /// ValueError
            ///     For a bad rectangle or a mask out of range.
            /// KeyError
            ///     If ``omit`` names no element.
            #[pyo3(signature = (rect, omit = None, mask = None))]
            fn query(
                &self,
                py: Python<'_>,
                rect: &Bound<'_, PyAny>,
                omit: Option<&Bound<'_, PyAny>>,
                mask: Option<&Bound<'_, PyAny>>,
            ) -> PyResult<Vec<u64>> {
                shared::query(&self.lock, py, rect, omit, mask)
            }

            // The methods that take coordinates one by one: their parameter
            // lists are the macro's `point`, `origin` and `direction`.

            /// The handles of the elements whose rectangle holds the point ``(x, y)``
            /// (``(x, y, z)`` for an ``Octree``; its border included), leaving out
            /// ``omit``; with ``mask``, only those whose filter category has a bit
            /// in it (as for ``query``).
            ///
            /// Raises
            /// ------
            /// ValueError
            ///     For a NaN or infinite coordinate, or a mask out of range.
            /// KeyError
            ///     If ``omit`` names no element.
            #[pyo3(signature = ($($p),+, omit = None, mask = None))]
            fn query_point(
                &self,
                py: Python<'_>,
                $($p: f64,)+
                omit: Option<&Bound<'_, PyAny>>,
                mask: Option<&Bound<'_, PyAny>>,
            ) -> PyResult<Vec<u64>> {
                shared::query_point(&self.lock, py, &[$($p),+], omit, mask)
            }

            /// The handles of the elements whose rectangle is within ``radius`` of
            /// ``(x, y)`` (a sphere around ``(x, y, z)`` for an ``Octree``; closed:
            /// at distance ``<= radius`` from the rectangle; 0 for a rectangle
            /// holding the point), in no particular order; with ``mask``, only
            /// those whose filter category has a bit in it.
            ///
            /// Raises
            /// ------
            /// ValueError
            ///     For a NaN or infinite coordinate, a NaN or negative radius (``inf``
            ///     is fine: every element), or a mask out of range.
            #[pyo3(signature = ($($p),+, radius, mask = None))]
            fn query_circle(
                &self,
                py: Python<'_>,
                $($p: f64,)+
                radius: f64,
                mask: Option<&Bound<'_, PyAny>>,
            ) -> PyResult<Vec<u64>> {
                shared::query_circle(&self.lock, py, &[$($p),+], radius, mask)
            }

            /// The ``k`` elements nearest to ``(x, y)`` (``(x, y, z)`` for an
            /// ``Octree``; fewer if there are fewer), nearest first. The distance
            /// is to the element's closed rectangle, in float64 (0 when the
            /// rectangle holds the point); ties go to the smaller id, then the
            /// smaller handle, the order of a brute-force sort. The search is
            /// best-first: it reads only what can beat the ``k``-th result.
            ///
            /// Parameters
            /// ----------
            /// x, y : float
            ///     And ``z`` for an ``Octree``.
            /// k : int
            ///     How many, ``>= 0`` (default 1).
            /// max_distance : float, optional
            ///     Only elements at most this far (closed).
            /// return_distance : bool
            ///     Also return the distances.
            /// mask : int, optional
            ///     Only elements whose filter category has a bit in it.
            /// filter : callable, optional
            ///     ``filter(handle) -> bool``, called on candidates in ascending order,
            ///     each once; the ones it rejects do not count towards ``k``. An
            ///     exception it raises propagates; it cannot modify the structure
            ///     (``RuntimeError``).
            ///
            /// Returns
            /// -------
            /// list of int, or (list of int, list of float)
            ///     The handles, and with ``return_distance`` their distances.
            ///
            /// Raises
            /// ------
            /// ValueError
            ///     For a NaN or infinite coordinate, a negative ``k``, a NaN or negative
            ///     ``max_distance``, or a mask out of range.
            #[allow(clippy::too_many_arguments)]
            #[pyo3(signature = ($($p),+, k = 1, max_distance = None, return_distance = false, mask = None, filter = None))]
            fn nearest<'py>(
                &self,
                py: Python<'py>,
                $($p: f64,)+
                k: i64,
                max_distance: Option<f64>,
                return_distance: bool,
                mask: Option<&Bound<'py, PyAny>>,
                filter: Option<&Bound<'py, PyAny>>,
            ) -> PyResult<Bound<'py, PyAny>> {
                let point = [$($p),+];
                shared::nearest(&self.lock, py, &point, k, max_distance, return_distance, mask, filter)
            }

            /// The first element the segment from ``(ox, oy)`` along ``(dx, dy)`` for
            /// ``max_length`` touches, or None: the first of ``ray_cast_all``. An
            /// ``Octree`` takes ``ox, oy, oz`` and ``dx, dy, dz``.
            ///
            /// Returns
            /// -------
            /// RayHit or None
            ///     ``RayHit(handle, id, distance, fraction)``: ``distance`` along the ray
            ///     to where it first touches the element's closed rectangle (0 when the
            ///     origin is in it), ``fraction`` that over ``max_length``.
            ///
            /// Raises
            /// ------
            /// ValueError
            ///     For a NaN or infinite origin, a zero or non-finite direction, a NaN,
            ///     negative or infinite ``max_length``, or a mask out of range.
            #[allow(clippy::too_many_arguments)]
            #[pyo3(signature = ($($o),+, $($d),+, max_length, mask = None))]
            fn ray_cast<'py>(
                &self,
                py: Python<'py>,
                $($o: f64,)+
                $($d: f64,)+
                max_length: f64,
                mask: Option<&Bound<'py, PyAny>>,
            ) -> PyResult<Option<Bound<'py, PyAny>>> {
                let (origin, direction) = ([$($o),+], [$($d),+]);
                let hits = shared::ray_cast(&self.lock, py, &origin, &direction, max_length, mask, false)?;
                Ok(hits.into_iter().next())
            }

            /// Every element the segment from ``(ox, oy)`` along ``(dx, dy)`` (any
            /// length but 0) for ``max_length`` touches, as ``RayHit``s in ascending
            /// ``(distance, id, handle)`` order (an ``Octree`` takes ``ox, oy, oz``
            /// and ``dx, dy, dz``). Rectangles are closed: grazing a corner or
            /// running along an edge hits, and a ray of length 0 hits the
            /// rectangles holding its origin. Exact for rays parallel to an axis.
            ///
            /// Raises
            /// ------
            /// ValueError
            ///     As ``ray_cast``.
            #[allow(clippy::too_many_arguments)]
            #[pyo3(signature = ($($o),+, $($d),+, max_length, mask = None))]
            fn ray_cast_all<'py>(
                &self,
                py: Python<'py>,
                $($o: f64,)+
                $($d: f64,)+
                max_length: f64,
                mask: Option<&Bound<'py, PyAny>>,
            ) -> PyResult<Vec<Bound<'py, PyAny>>> {
                let (origin, direction) = ([$($o),+], [$($d),+]);
                shared::ray_cast(&self.lock, py, &origin, &direction, max_length, mask, true)
            }

            /// Calls ``callback(hit)`` with each hit of ``ray_cast_all``, in that order.
            /// It returns None or True to go on, False to stop, or a number to clip the
            /// ray to that length (kept if longer than the current one; a hit at exactly
            /// that distance is still visited; NaN or negative stops): return
            /// ``hit.distance`` to keep only the hits as near as this one. An exception
            /// it raises stops the cast and propagates; it cannot modify the structure
            /// (``RuntimeError``).
            ///
            /// Raises
            /// ------
            /// ValueError
            ///     As ``ray_cast`` (``callback`` is then never called).
            /// TypeError
            ///     If ``callback`` is not callable or returns anything else.
            #[allow(clippy::too_many_arguments)]
            #[pyo3(signature = ($($o),+, $($d),+, max_length, callback, mask = None))]
            fn ray_cast_with(
                &self,
                py: Python<'_>,
                $($o: f64,)+
                $($d: f64,)+
                max_length: f64,
                callback: &Bound<'_, PyAny>,
                mask: Option<&Bound<'_, PyAny>>,
            ) -> PyResult<()> {
                let (origin, direction) = ([$($o),+], [$($d),+]);
                shared::ray_cast_with(&self.lock, py, &origin, &direction, max_length, callback, mask)
            }

            /// The first element the rectangle ``rect`` touches when it moves by
            /// ``t * (dx, dy)`` (``t * (dx, dy, dz)`` for an ``Octree``'s box) for
            /// ``t`` from 0 to 1, or None: the first of ``box_cast_all``. Pass
            /// ``omit=`` the moving element's own handle to ask where it can go.
            ///
            /// Returns
            /// -------
            /// RayHit or None
            ///     ``fraction`` is ``t`` at the first contact of the closed rectangles,
            ///     ``distance`` that times the motion's length.
            ///
            /// Raises
            /// ------
            /// ValueError
            ///     For a NaN, infinite or inverted ``rect``, a NaN or infinite motion,
            ///     or a mask out of range.
            /// KeyError
            ///     ``omit`` is not a live handle.
            #[pyo3(signature = (rect, $($d),+, *, mask = None, omit = None))]
            #[allow(clippy::too_many_arguments)]
            fn box_cast<'py>(
                &self,
                py: Python<'py>,
                rect: &Bound<'py, PyAny>,
                $($d: f64,)+
                mask: Option<&Bound<'py, PyAny>>,
                omit: Option<&Bound<'py, PyAny>>,
            ) -> PyResult<Option<Bound<'py, PyAny>>> {
                let hits = shared::box_cast(&self.lock, py, rect, &[$($d),+], mask, omit, false)?;
                Ok(hits.into_iter().next())
            }

            /// Every element the moving rectangle of ``box_cast`` touches, as
            /// ``RayHit``s in ascending ``(fraction, id, handle)`` order; one it
            /// touches where it starts is hit at fraction 0.
            ///
            /// Raises
            /// ------
            /// ValueError
            ///     As ``box_cast``.
            #[pyo3(signature = (rect, $($d),+, *, mask = None, omit = None))]
            #[allow(clippy::too_many_arguments)]
            fn box_cast_all<'py>(
                &self,
                py: Python<'py>,
                rect: &Bound<'py, PyAny>,
                $($d: f64,)+
                mask: Option<&Bound<'py, PyAny>>,
                omit: Option<&Bound<'py, PyAny>>,
            ) -> PyResult<Vec<Bound<'py, PyAny>>> {
                shared::box_cast(&self.lock, py, rect, &[$($d),+], mask, omit, true)
            }

            /// Give an element a collision filter (Box2D's rule): ``pairs``,
            /// ``overlapping`` and ``overlapping_many`` report two elements only
            /// when each one's ``category`` has a bit in the other's ``mask``, and a
            /// query with ``mask=m`` reports an element only when its category has a
            /// bit in ``m``. Every element starts with category and mask
            /// ``0xFFFFFFFF`` (everything collides). Filters are kept by ``move``,
            /// snapshots, pickling and copies.
            ///
            /// Parameters
            /// ----------
            /// handle : int
            /// category : int
            ///     The categories the element belongs to (unsigned 32-bit bits).
            /// mask : int
            ///     The categories it collides with (unsigned 32-bit bits).
            ///
            /// Raises
            /// ------
            /// KeyError
            ///     If ``handle`` names no element.
            /// ValueError
            ///     For a category or mask out of range.
            fn set_filter(
                &self,
                py: Python<'_>,
                handle: &Bound<'_, PyAny>,
                category: &Bound<'_, PyAny>,
                mask: &Bound<'_, PyAny>,
            ) -> PyResult<()> {
                shared::set_filter(&self.lock, py, handle, category, mask)
            }

            /// The element's collision filter ``(category, mask)``
            /// (``(0xFFFFFFFF, 0xFFFFFFFF)`` unless set).
            ///
            /// Raises
            /// ------
            /// KeyError
            ///     If ``handle`` names no element.
            fn filter(&self, py: Python<'_>, handle: &Bound<'_, PyAny>) -> PyResult<(u32, u32)> {
                shared::filter(&self.lock, py, handle)
            }

            /// ``set_filter`` for many elements at once: ``handles[i]`` gets
            /// ``(categories[i], masks[i])``.
            ///
            /// Parameters
            /// ----------
            /// handles : array_like of int, shape (n,)
            ///     As for ``move_many``.
            /// categories, masks : int or array_like of int, shape (n,)
            ///     Unsigned 32-bit values, one per handle or one int for all (uint32
            ///     arrays are read in place).
            ///
            /// Raises
            /// ------
            /// KeyError
            ///     For a handle that names no element (``err.index`` is its position).
            /// ValueError
            ///     For a value out of range or arrays of different lengths. Every
            ///     item is checked first: on error no filter changes.
            fn set_filters(
                &self,
                py: Python<'_>,
                handles: &Bound<'_, PyAny>,
                categories: &Bound<'_, PyAny>,
                masks: &Bound<'_, PyAny>,
            ) -> PyResult<()> {
                shared::set_filters(&self.lock, py, handles, categories, masks)
            }

            /// Every pair of elements whose rectangles overlap, each pair once.
            ///
            /// Returns
            /// -------
            /// numpy.ndarray
            ///     int64 handles, shape ``(k, 2)``, in the structure's walk order: the
            ///     same order on every call and any number of threads, until the index
            ///     changes. Releases the GIL while it works.
            fn pairs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<i64>>> {
                shared::pairs(&self.lock, py)
            }

            /// Insert many rectangles at once; return their handles.
            ///
            /// Parameters
            /// ----------
            /// rects : array_like, shape (n, 4)
            ///     Or ``(n, 6)`` for an ``Octree``.
            ///     Rows ``(x1, y1, x2, y2)``. A C-contiguous float32 array is read in
            ///     place; float64 (or integer) arrays and nested sequences are
            ///     converted first.
            /// ids : None, int or array_like of shape (n,), optional
            ///     Unsigned 32-bit ids: one per row, one for all rows, or 0 for all
            ///     (the default).
            ///
            /// Returns
            /// -------
            /// numpy.ndarray
            ///     The handles, int64, shape ``(n,)``, in row order.
            ///
            /// Raises
            /// ------
            /// TypeError, ValueError
            ///     For arrays of the wrong dtype or shape; ``ValueError`` for a bad
            ///     row (the message names it, ``err.index`` is its position). Every
            ///     row is checked first: on error nothing is inserted.
            #[pyo3(signature = (rects, ids = None))]
            fn insert_many<'py>(
                &self,
                py: Python<'py>,
                rects: &Bound<'py, PyAny>,
                ids: Option<&Bound<'py, PyAny>>,
            ) -> PyResult<Bound<'py, PyArray1<i64>>> {
                shared::insert_many(&self.lock, py, rects, ids)
            }

            /// Move many elements at once: ``handles[i]`` gets ``rects[i]``.
            ///
            /// Parameters
            /// ----------
            /// handles : array_like of int, shape (n,)
            ///     int64 or uint64 arrays are read in place.
            /// rects : array_like, shape (n, 4)
            ///     Or ``(n, 6)`` for an ``Octree``.
            ///     As for ``insert_many``.
            ///
            /// Raises
            /// ------
            /// KeyError
            ///     For a handle that names no element (``err.index`` is its position).
            /// ValueError
            ///     For a bad row or different lengths. Every item is checked first:
            ///     on error nothing moves.
            fn move_many(
                &self,
                py: Python<'_>,
                handles: &Bound<'_, PyAny>,
                rects: &Bound<'_, PyAny>,
            ) -> PyResult<()> {
                shared::move_many(&self.lock, py, handles, rects)
            }

            /// Remove many elements at once.
            ///
            /// Raises
            /// ------
            /// KeyError
            ///     For a handle that names no element or appears twice
            ///     (``err.index`` is its position). On error nothing is removed.
            fn remove_many(&self, py: Python<'_>, handles: &Bound<'_, PyAny>) -> PyResult<()> {
                shared::remove_many(&self.lock, py, handles)
            }

            /// Query many rectangles at once.
            ///
            /// Parameters
            /// ----------
            /// rects : array_like, shape (n, 4)
            ///     Or ``(n, 6)`` for an ``Octree``.
            ///     As for ``insert_many``.
            /// omit : array_like of int, shape (n,), optional
            ///     ``omit[i]`` is left out of query ``i`` (typically the querying
            ///     element's own handle); each must name an element.
            ///
            /// Returns
            /// -------
            /// offsets : numpy.ndarray
            ///     int64, shape ``(n + 1,)``: the hits of query ``i`` are
            ///     ``hits[offsets[i]:offsets[i + 1]]`` (CSR layout).
            /// hits : numpy.ndarray
            ///     int64 handles, shape ``(offsets[-1],)``.
            ///
            /// Releases the GIL while it works.
            #[pyo3(signature = (rects, omit = None))]
            fn query_many<'py>(
                &self,
                py: Python<'py>,
                rects: &Bound<'py, PyAny>,
                omit: Option<&Bound<'py, PyAny>>,
            ) -> PyResult<Csr<'py>> {
                shared::query_many(&self.lock, py, rects, omit)
            }

            /// ``query_circle`` for many circles at once (spheres for an ``Octree``).
            ///
            /// Parameters
            /// ----------
            /// centers : array_like, shape (n, 2)
            ///     Or ``(n, 3)`` for an ``Octree``; any real dtype.
            /// radii : float or array_like, shape (n,)
            ///     One radius for all, or one per center.
            /// mask : int, optional
            ///     As for ``query``.
            ///
            /// Returns
            /// -------
            /// (offsets, hits)
            ///     As ``query_many`` gives them: circle ``i`` holds
            ///     ``hits[offsets[i]:offsets[i + 1]]``.
            ///
            /// Raises
            /// ------
            /// ValueError
            ///     For a bad center or radius (``err.index`` is its row) or different
            ///     lengths; nothing is returned then.
            ///
            /// Releases the GIL while it works.
            #[pyo3(signature = (centers, radii, mask = None))]
            fn query_circle_many<'py>(
                &self,
                py: Python<'py>,
                centers: &Bound<'py, PyAny>,
                radii: &Bound<'py, PyAny>,
                mask: Option<&Bound<'py, PyAny>>,
            ) -> PyResult<Csr<'py>> {
                shared::query_circle_many(&self.lock, py, centers, radii, mask)
            }

            /// ``nearest`` for many points at once (no ``filter``: the GIL is
            /// released while it works, on every core for big batches).
            ///
            /// Parameters
            /// ----------
            /// points : array_like, shape (n, 2)
            ///     Or ``(n, 3)`` for an ``Octree``; any real dtype.
            /// k, max_distance, mask
            ///     As for ``nearest``.
            ///
            /// Returns
            /// -------
            /// offsets : numpy.ndarray
            ///     int64, shape ``(n + 1,)``: the neighbours of ``points[i]`` are
            ///     ``handles[offsets[i]:offsets[i + 1]]``, nearest first.
            /// handles : numpy.ndarray
            ///     int64.
            /// distances : numpy.ndarray
            ///     float64, the distance of each of ``handles``.
            ///
            /// Raises
            /// ------
            /// ValueError
            ///     For a bad point (``err.index`` is its row), a negative ``k`` or a
            ///     bad ``max_distance``.
            #[pyo3(signature = (points, k = 1, max_distance = None, mask = None))]
            fn nearest_many<'py>(
                &self,
                py: Python<'py>,
                points: &Bound<'py, PyAny>,
                k: i64,
                max_distance: Option<f64>,
                mask: Option<&Bound<'py, PyAny>>,
            ) -> PyResult<shared::NearestRows<'py>> {
                shared::nearest_many(&self.lock, py, points, k, max_distance, mask)
            }

            /// ``ray_cast`` for many rays at once: each ray's first hit (a lidar
            /// sweep, a line of sight per agent), on every core for big batches.
            ///
            /// Parameters
            /// ----------
            /// origins, directions : array_like, shape (n, 2)
            ///     Or ``(n, 3)`` for an ``Octree``; any real dtype. Ray ``i`` starts at
            ///     ``origins[i]`` and goes along ``directions[i]`` (any length but 0).
            /// max_length : float or array_like, shape (n,)
            ///     How far every ray goes, or each its own.
            /// mask : int, optional
            ///     As for ``ray_cast``.
            ///
            /// Returns
            /// -------
            /// handles : numpy.ndarray
            ///     int64, shape ``(n,)``: the element ray ``i`` touches first (ties as
            ///     ``ray_cast`` breaks them), 0 where it touches nothing.
            /// distances : numpy.ndarray
            ///     float64, shape ``(n,)``: how far along ray ``i`` that is (0 from
            ///     inside), ``inf`` where it touches nothing.
            ///
            /// Raises
            /// ------
            /// ValueError
            ///     For a bad ray (``err.index`` is its row: as ``ray_cast`` refuses
            ///     it) or arrays of different lengths; nothing is returned then.
            ///
            /// Releases the GIL while it works.
            #[pyo3(signature = (origins, directions, max_length, mask = None))]
            fn ray_cast_many<'py>(
                &self,
                py: Python<'py>,
                origins: &Bound<'py, PyAny>,
                directions: &Bound<'py, PyAny>,
                max_length: &Bound<'py, PyAny>,
                mask: Option<&Bound<'py, PyAny>>,
            ) -> PyResult<shared::FirstHits<'py>> {
                shared::ray_cast_many(&self.lock, py, origins, directions, max_length, mask)
            }

            /// The handles of the other elements whose rectangle meets this element's
            /// (touching counts): ``query(rect_of(handle), omit=handle)``, but found
            /// from where the element lies, without a search from the top.
            ///
            /// Raises
            /// ------
            /// KeyError
            ///     If ``handle`` names no element.
            fn overlapping(&self, py: Python<'_>, handle: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
                shared::overlapping(&self.lock, py, handle)
            }

            /// ``overlapping`` for many elements at once: the per-agent query of a
            /// collision loop in one call.
            ///
            /// Parameters
            /// ----------
            /// handles : array_like of int, shape (n,)
            ///     As for ``move_many``.
            ///
            /// Returns
            /// -------
            /// (offsets, hits)
            ///     As ``query_many`` gives them: the neighbours of ``handles[i]`` are
            ///     ``hits[offsets[i]:offsets[i + 1]]``.
            ///
            /// Raises
            /// ------
            /// KeyError
            ///     For a handle that names no element (``err.index`` is its position).
            ///
            /// Releases the GIL while it works.
            fn overlapping_many<'py>(
                &self,
                py: Python<'py>,
                handles: &Bound<'py, PyAny>,
            ) -> PyResult<Csr<'py>> {
                shared::overlapping_many(&self.lock, py, handles)
            }

            /// The id the element was inserted with.
            ///
            /// Raises
            /// ------
            /// KeyError
            ///     If ``handle`` names no element.
            fn id_of(&self, py: Python<'_>, handle: &Bound<'_, PyAny>) -> PyResult<u32> {
                shared::id_of(&self.lock, py, handle)
            }

            /// The element's rectangle ``(x1, y1, x2, y2)`` (an ``Octree``'s box
            /// ``(x1, y1, z1, x2, y2, z2)``), as stored (float32).
            ///
            /// Raises
            /// ------
            /// KeyError
            ///     If ``handle`` names no element.
            fn rect_of<'py>(
                &self,
                py: Python<'py>,
                handle: &Bound<'_, PyAny>,
            ) -> PyResult<Bound<'py, PyTuple>> {
                shared::rect_of(&self.lock, py, handle)
            }

            fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
                Ok(self.lock.read(py)?.len())
            }

            fn __contains__(&self, py: Python<'_>, handle: &Bound<'_, PyAny>) -> PyResult<bool> {
                shared::contains(&self.lock, py, handle)
            }

            /// Iterate over the live handles (a snapshot taken when iteration starts).
            fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                shared::iter(&self.lock, py)
            }

            /// Every element, as arrays: ``Elements(handles, rects, ids)``.
            ///
            /// Returns
            /// -------
            /// Elements
            ///     A named tuple of ``handles`` (int64, shape (n,)), ``rects``
            ///     (float32, shape (n, 4), or (n, 6) for an ``Octree``) and ``ids``
            ///     (int64, shape (n,)), in storage order.
            fn elements<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                shared::elements(&self.lock, py)
            }

            /// Every node (of a tree) or cell (of a grid), as arrays ready to plot.
            ///
            /// Returns
            /// -------
            /// Nodes
            ///     A named tuple of ``indices`` (int64, the node's index, as
            ///     ``traverse`` gives it), ``rects`` (float32, shape (m, 4), or
            ///     (m, 6) for an ``Octree``: the box of each), ``depths`` (int64),
            ///     ``is_leaf`` (bool) and ``counts`` (int64, elements linked in each
            ///     leaf, 0 for branches), in depth-first order, parents before
            ///     children.
            fn nodes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                shared::nodes(&self.lock, py)
            }

            /// Walk the nodes depth-first, parents before children, calling
            /// ``branch(index, depth, x1, y1, x2, y2)`` for each branch and
            /// ``leaf(index, depth, x1, y1, x2, y2, count)`` for each leaf (``count``:
            /// the elements linked in it; an ``Octree`` passes its 6 numbers
            /// ``x1, y1, z1, x2, y2, z2``). Either may be None. A grid shows its
            /// cells as leaves of depth 0 (a loose grid's cell rectangle is the box
            /// around its elements).
            ///
            /// A callback that returns ``False`` (exactly) stops the walk; an exception
            /// it raises stops the walk and propagates. The structure cannot be modified
            /// from inside a callback: that raises ``RuntimeError``. Queries are fine.
            #[pyo3(signature = (branch = None, leaf = None))]
            fn traverse(
                &self,
                py: Python<'_>,
                branch: Option<Bound<'_, PyAny>>,
                leaf: Option<Bound<'_, PyAny>>,
            ) -> PyResult<()> {
                shared::traverse(&self.lock, py, branch, leaf)
            }

            /// Sizes of the structure, as a dict: ``elements``, ``nodes``, ``leaves``,
            /// ``empty_leaves``, ``max_depth_reached``, ``element_links`` (one per
            /// element per leaf it lies in) and ``bytes`` (memory held, capacity
            /// included).
            fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
                shared::stats(&self.lock, py)
            }

            /// The whole structure as bytes (versioned, little-endian, tagged with the
            /// structure's kind); ``from_bytes`` gives back an equal structure, the
            /// same handles valid.
            fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
                shared::to_bytes(&self.lock, py)
            }

            fn __getstate__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
                self.to_bytes(py)
            }

            /// A structure from ``to_bytes()``'s output. On ``SpatialIndex``, it is
            /// whichever structure the snapshot holds; on a subclass, or on
            /// ``Octree``, the snapshot must be of that class's kind.
            ///
            /// Raises
            /// ------
            /// ValueError
            ///     If the bytes are not a consistent snapshot (every invariant is
            ///     checked), or hold another kind of structure than the class's.
            #[classmethod]
            fn from_bytes<'py>(
                cls: &Bound<'py, PyType>,
                data: std::borrow::Cow<'_, [u8]>,
            ) -> PyResult<Bound<'py, PyAny>> {
                shared::from_bytes::<$core>(cls, &data)
            }

            /// Replaces the whole structure with a snapshot of the same kind.
            fn __setstate__(
                slf: &Bound<'_, Self>,
                state: std::borrow::Cow<'_, [u8]>,
            ) -> PyResult<()> {
                shared::set_state(&slf.get().lock, &slf.get_type(), &state)
            }

            fn __copy__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                shared::copy(&self.lock, py)
            }

            fn __deepcopy__<'py>(
                &self,
                py: Python<'py>,
                _memo: &Bound<'_, PyAny>,
            ) -> PyResult<Bound<'py, PyAny>> {
                shared::copy(&self.lock, py)
            }

            fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
                shared::repr(&self.lock, py)
            }

            /// Check every invariant of the structure (slow; for tests).
            ///
            /// Raises
            /// ------
            /// AssertionError
            ///     Naming the first broken invariant.
            fn _validate(&self, py: Python<'_>) -> PyResult<()> {
                shared::validate(&self.lock, py)
            }
        }
    };
}
pub(crate) use index_methods;
