/*
 * flatquad: spatial indexes (a flat quadtree, a uniform grid, a loose grid)
 * for broad-phase 2D collision detection and region queries over many moving
 * rectangles, exact for float input.
 *
 * Link: pkg-config --cflags --libs flatquad, or in CMake
 * find_package(flatquad CONFIG REQUIRED) and the target flatquad::flatquad
 * (flatquad::flatquad_static for the static library).
 *
 * Structures
 *
 * - One opaque type, qt_tree, holds any structure, and every call works on
 *   every one: make a quadtree with qt_create, a grid with qt_create_grid or
 *   qt_create_grid_cell_size, a loose grid with qt_create_loose_grid or
 *   qt_create_loose_grid_cell_size, any of them with its defaults with
 *   qt_create_default. qt_kind_of says which a tree is; only the parameter
 *   getters are per structure (qt_params, qt_grid_params,
 *   qt_loose_grid_params: QT_WRONG_KIND on another).
 * - The octree (3D) is its own opaque type, qt_octree, over qt_box boxes:
 *   qt_octree_create, and the calls of a qt_tree named qt_octree_*, with the
 *   same conventions and statuses.
 * - A query is a value: a qt_query_desc holds a shape (kind QT_SHAPE_RECT,
 *   QT_SHAPE_POINT, QT_SHAPE_CIRCLE, QT_SHAPE_ELEMENT: what an element
 *   touches, or QT_SHAPE_RECT_D), a collision mask and an element to omit.
 *   qt_query fills a buffer, qt_query_each calls a callback with a void *
 *   context (Box2D's b2DynamicTree_Query), qt_query_many answers an array of
 *   them in compressed rows. The octree's are qt_query3_desc (QT_SHAPE_BOX,
 *   QT_SHAPE_POINT, QT_SHAPE_SPHERE, QT_SHAPE_ELEMENT) and qt_octree_query,
 *   qt_octree_query_each, qt_octree_query_many. The inline helpers at the
 *   end (qt_rect_query, qt_circle_query, ..., qt_sphere_query) make one with
 *   mask QT_MASK_ALL and nothing omitted:
 *
 *       qt_query_desc q = qt_circle_query(50, 50, 10.0);
 *       q.mask = ENEMY;
 *       qt_query(tree, &q, hits, 64, &total);
 *
 * - Collision filters (Box2D's rule): qt_set_filter gives an element a 32-bit
 *   category and mask (both QT_MASK_ALL at first); qt_query_pairs and the
 *   QT_SHAPE_ELEMENT query report two elements only when each one's category
 *   is in the other's mask, and a query reports only the elements whose
 *   category is in its mask.
 * - Searches, each with a mask: qt_nearest (the k nearest, nearest first,
 *   with double distances to the closed boxes), the ray casts qt_ray_cast,
 *   qt_ray_cast_all, qt_ray_cast_each (Box2D's callback convention) and
 *   qt_ray_cast_many (each ray's first hit, a batch on every core), and
 *   the box casts qt_box_cast and qt_box_cast_all. Ordered results come in
 *   ascending (distance, id, handle).
 * - Contact events: a qt_tracker, made from a tree by qt_tracker_create (or
 *   qt_octree_tracker_create), reports at each qt_tracker_update the pairs
 *   that began and ended overlapping since the last one (qt_tracker_began,
 *   qt_tracker_ended: count first, then a buffer that holds them all). A
 *   tracker whose tree was destroyed is refused with QT_TREE_DESTROYED.
 *
 * Conventions
 *
 * - qt_tree is opaque. Functions that do not change the tree take a const
 *   qt_tree *. qt_destroy(NULL) does nothing.
 * - Fallible functions return a qt_status: QT_OK (0) on success. Any other
 *   status means the call changed nothing: neither the tree nor its
 *   out-parameters (out-parameters are written only on QT_OK; the batch
 *   calls' out_bad_index, written only on failure, is the one exception).
 *   qt_status_str() turns a status into a message.
 * - Every pointer argument is checked: NULL gives QT_NULL_ARGUMENT, unless the
 *   function's documentation says NULL is allowed (an array whose length is
 *   0 may always be NULL). Non-NULL pointers must be valid and aligned for
 *   what they point to; a qt_tree * must come from this library and not be
 *   destroyed.
 * - Coordinates are float: queries are exact for float input. The _d calls
 *   (qt_insert_d, qt_move_d) and the query shape QT_SHAPE_RECT_D take
 *   qt_rect_d (double) and round each corner once to the nearest float. Rounding to
 *   nearest is monotone, so no element whose closed rectangle meets the
 *   query in double is ever missed (one the rounding made touch may be added).
 * - Results come into a caller buffer: the call writes the total found to
 *   *out_total and the first min(total, capacity) items to the buffer, as
 *   snprintf does, so a caller can size the buffer and call again. The
 *   tracker's event lists are the exception: all of them, or
 *   QT_BUFFER_TOO_SMALL and nothing written.
 * - Callbacks receive the caller's void *user_data first and return an int:
 *   0 to go on, nonzero to stop the walk (the call then returns QT_STOPPED,
 *   which is not an error). A callback may call functions that take a
 *   const qt_tree * on the same tree, never one that takes a qt_tree *. It
 *   must not throw a C++ exception or longjmp out.
 * - A Rust panic inside flatquad never unwinds into C: the call returns
 *   QT_PANIC, and a tree that was being changed is poisoned (every later call
 *   on it returns QT_POISONED; destroy it).
 *
 * Threads
 *
 * - Any number of threads may call functions taking a const qt_tree * on the
 *   same tree at once (queries keep no scratch state in the tree).
 * - A function taking a qt_tree * (insert, remove, move, cleanup, clear,
 *   destroy) must not run at the same time as any other call on that tree.
 * - qt_tracker_update reads its tree as the const calls do (it may run beside
 *   them, never beside a change to that tree) and changes its tracker, so it
 *   and qt_tracker_reset must run alone on that tracker; the calls taking a
 *   const qt_tracker * may run together.
 * - Different trees are independent; a tree may be handed from thread to
 *   thread. qt_version and qt_status_str may be called at any time.
 * - Big batch calls run on a pool of RAYON_NUM_THREADS threads (else one a
 *   CPU); from a thread outside it the caller waits for the pool's threads.
 *   qt_join_thread_pool makes the calling thread one of them, so that its
 *   calls start on it at once.
 */


#ifndef FLATQUAD_H
#define FLATQUAD_H

/* Generated by cbindgen from ffi-c/src: do not edit by hand, run `make c-header`. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QT_STRINGIFY_(x) #x
#define QT_STRINGIFY(x) QT_STRINGIFY_(x)
/** The header's version as a string, "MAJOR.MINOR.PATCH", made from the numbers below. */
#define QT_VERSION_STRING \
    QT_STRINGIFY(QT_VERSION_MAJOR) "." QT_STRINGIFY(QT_VERSION_MINOR) "." QT_STRINGIFY(QT_VERSION_PATCH)


/**
 * Major version of the header (the `0` of `0.1.0`).
 */
#define QT_VERSION_MAJOR 0

/**
 * Minor version of the header.
 */
#define QT_VERSION_MINOR 1

/**
 * Patch version of the header.
 */
#define QT_VERSION_PATCH 0

/**
 * The header's version as one number, `major * 10000 + minor * 100 + patch`,
 * for `#if QT_VERSION_NUMBER >= ...` tests.
 */
#define QT_VERSION_NUMBER 100

/**
 * The `max_elements` the core's authors measured as best: 8 elements per leaf.
 */
#define QT_DEFAULT_MAX_ELEMENTS 8

/**
 * A default `max_depth`: 256 x 256 cells at the deepest level.
 */
#define QT_DEFAULT_MAX_DEPTH 8

/**
 * The largest `max_depth` `qt_create` accepts.
 */
#define QT_MAX_DEPTH_LIMIT 30

/**
 * The `max_depth` `qt_octree_create` is usually given: 64 x 64 x 64 cells
 * at the deepest level (an octree's nodes multiply by eight a level).
 */
#define QT_OCTREE_DEFAULT_MAX_DEPTH 6

/**
 * Every bit: the filter every element starts with (category and mask), and
 * as a query mask, every element whatever its category.
 */
#define QT_MASK_ALL UINT32_MAX

/**
 * What a call did. `QT_OK` is 0; every other value says why the call did
 * nothing. Values are explicit and never reused: a status added later gets a
 * new number.
 *
 * The errors of the core (`QT_INVALID_RECT` to `QT_INVALID_BYTES`) have the
 * numbers of the core's error kinds, the table every flatquad binding maps
 * from. The core's `LengthMismatch` (14) has no status: every batch call here
 * takes one count for all its arrays, so no C call can produce it, and 14 is
 * never used for anything else.
 *
 * A call that returns anything but `QT_OK` has changed nothing: not the tree,
 * not its out-parameters (the one exception, `out_bad_index` of the batch
 * calls, is written only on failure and says so), but for `QT_PANIC` from a
 * batch of moves, which finished them.
 */
typedef enum qt_status {
    /**
     * Success.
     */
    QT_OK = 0,
    /**
     * Not an error: a callback returned nonzero and the walk stopped early.
     */
    QT_STOPPED = 1,
    /**
     * A pointer that must not be NULL was NULL (or a buffer pointer was NULL
     * with a nonzero length).
     */
    QT_NULL_ARGUMENT = 2,
    /**
     * A rectangle has a NaN or infinite coordinate, or is inverted
     * (`x1 > x2` or `y1 > y2`).
     */
    QT_INVALID_RECT = 3,
    /**
     * A point has a NaN or infinite coordinate.
     */
    QT_INVALID_POINT = 4,
    /**
     * A handle names no element of this tree: never issued by it, removed,
     * or cleared.
     */
    QT_INVALID_HANDLE = 5,
    /**
     * The same handle appears twice in one `qt_remove_many`.
     */
    QT_DUPLICATE_HANDLE = 6,
    /**
     * The world rectangle of a `qt_create*` call is not finite, or has zero
     * or negative width or height.
     */
    QT_INVALID_WORLD = 7,
    /**
     * A number is out of range: a construction parameter the structure
     * refuses (`max_elements` 0, `max_depth` above `QT_MAX_DEPTH_LIMIT`, 0 or
     * too many columns or rows, a cell size that is not positive and finite,
     * a tight grid finer than its loose grid), an unknown `qt_kind`, a
     * search's radius or `max_distance` that is NaN or negative, a ray whose
     * direction is zero or not finite or whose `max_length` is NaN, negative
     * or infinite, or an array length (or a `k`) that is impossibly large.
     */
    QT_INVALID_PARAMETER = 8,
    /**
     * The tree cannot hold more elements (2^32 - 1 at most).
     */
    QT_CAPACITY_EXCEEDED = 9,
    /**
     * The bytes given to `qt_from_bytes` are not a valid snapshot.
     */
    QT_INVALID_BYTES = 10,
    /**
     * flatquad panicked inside the call (a bug: please report it). No unwind
     * crossed into C. If the call was given a `qt_tree *`, that tree is now
     * poisoned, except after a batch of moves (`qt_move_many`,
     * `qt_octree_move_many`): the
     * moves were finished, every element is at its new rectangle, and the
     * tree goes on (the one status that reports a change).
     */
    QT_PANIC = 11,
    /**
     * An earlier call panicked while changing this tree (or this tracker),
     * so it may be inconsistent: every call on it now returns this. Only its
     * destroy call still works.
     */
    QT_POISONED = 12,
    /**
     * `qt_validate` found a broken invariant, or the core reported an error
     * this version of the C ABI does not know (a bug: please report it).
     */
    QT_INTERNAL_ERROR = 13,
    /**
     * The call is for another kind of structure than this tree (asking a
     * grid for `qt_params`, say): `qt_kind_of` tells which it is.
     */
    QT_WRONG_KIND = 15,
    /**
     * The tracker's tree was destroyed: the tracker is refused instead of
     * reading freed memory. Only `qt_tracker_destroy` still works on it.
     */
    QT_TREE_DESTROYED = 16,
    /**
     * The caller's buffer is smaller than the result (`qt_tracker_began`,
     * `qt_tracker_ended`): nothing was written. Ask for the count (capacity
     * 0) and call again with a buffer that holds it.
     */
    QT_BUFFER_TOO_SMALL = 17,
} qt_status;

/**
 * The octree: the quadtree in 3D, over `qt_box` boxes. Opaque: made by
 * `qt_octree_create`, `qt_octree_clone` or `qt_octree_from_bytes`, freed by
 * `qt_octree_destroy`; its calls are the `qt_` calls of a `qt_tree`, named
 * `qt_octree_*`, with the same conventions and statuses.
 */
typedef struct qt_octree qt_octree;

/**
 * Reports the pairs of elements that began and ended overlapping between two
 * updates: the contact events of a game loop, on the closed boxes, with the
 * collision filters applied. Opaque: made from a tree by `qt_tracker_create`
 * (a `qt_tree`, any structure) or `qt_octree_tracker_create` (a
 * `qt_octree`), freed by `qt_tracker_destroy`; every other call works on
 * either.
 *
 * A tracker follows the one tree it was made from. Destroying that tree
 * first is allowed: every call on the tracker but `qt_tracker_destroy` then
 * returns `QT_TREE_DESTROYED`.
 */
typedef struct qt_tracker qt_tracker;

/**
 * Any flatquad structure: a quadtree, a grid or a loose grid (`qt_kind_of`
 * says which). Opaque: made by `qt_create`, `qt_create_grid`,
 * `qt_create_grid_cell_size`, `qt_create_loose_grid`,
 * `qt_create_loose_grid_cell_size`, `qt_create_default`, `qt_clone` or
 * `qt_from_bytes`, freed by `qt_destroy`. Every other call works on every
 * kind, except the parameter getters of one kind (`qt_params`,
 * `qt_grid_params`, `qt_loose_grid_params`).
 */
typedef struct qt_tree qt_tree;

/**
 * A closed axis-aligned rectangle `[x1, x2] x [y1, y2]`: touching counts as
 * overlapping, and a point is a rectangle with `x1 == x2` and `y1 == y2`. The
 * tree accepts it when every coordinate is finite and `x1 <= x2`, `y1 <= y2`.
 */
typedef struct qt_rect {
    /**
     * Left edge (smallest x).
     */
    float x1;
    /**
     * Top edge (smallest y).
     */
    float y1;
    /**
     * Right edge (largest x).
     */
    float x2;
    /**
     * Bottom edge (largest y).
     */
    float y2;
} qt_rect;

/**
 * A closed axis-aligned box `[x1, x2] x [y1, y2] x [z1, z2]`, the octree's
 * `qt_rect`: touching counts as overlapping, and a point is a box with equal
 * corners. The octree accepts it when every coordinate is finite and
 * `x1 <= x2`, `y1 <= y2`, `z1 <= z2`.
 */
typedef struct qt_box {
    /**
     * Smallest x.
     */
    float x1;
    /**
     * Smallest y.
     */
    float y1;
    /**
     * Smallest z.
     */
    float z1;
    /**
     * Largest x.
     */
    float x2;
    /**
     * Largest y.
     */
    float y2;
    /**
     * Largest z.
     */
    float z2;
} qt_box;

/**
 * An element's handle: an opaque nonzero integer below 2^53 (exact in a
 * `double`), valid until the element is removed or the tree cleared. A stale
 * handle is refused with `QT_INVALID_HANDLE`, even after its slot is reused.
 */
typedef uint64_t qt_handle_t;

/**
 * Sizes of a tree, from `qt_stats`. A grid counts its cells as leaves of
 * depth 0 (so `nodes == leaves` and `max_depth_reached == 0`).
 */
typedef struct qt_tree_stats {
    /**
     * Live elements (the same as `qt_len`).
     */
    size_t elements;
    /**
     * Nodes of a quadtree, branches and leaves; cells of a grid.
     */
    size_t nodes;
    /**
     * Leaves (or cells), empty ones included.
     */
    size_t leaves;
    /**
     * Leaves (or cells) holding no element.
     */
    size_t empty_leaves;
    /**
     * Element links: one per element per leaf (or cell) it is listed in.
     */
    size_t element_links;
    /**
     * Bytes the tree holds, spare capacity of its pools included.
     */
    size_t bytes;
    /**
     * Deepest depth any node has (0 when the root is the only node, and for a grid).
     */
    uint32_t max_depth_reached;
} qt_tree_stats;

/**
 * Which shape a query description holds: one of the `QT_SHAPE_*` values, in
 * its `kind` field. A plain integer rather than a C enum, so that any value a
 * caller passes is safe: one the call does not know (0, the kind of a
 * zeroed description, among them) is refused with `QT_INVALID_PARAMETER`.
 */
typedef uint32_t qt_shape_kind;

/**
 * A point in 3D.
 */
typedef struct qt_point3 {
    /**
     * x.
     */
    float x;
    /**
     * y.
     */
    float y;
    /**
     * z.
     */
    float z;
} qt_point3;

/**
 * A closed ball: the centre `(x, y, z)` and a `radius`, as `qt_circle`.
 */
typedef struct qt_sphere {
    /**
     * Centre x.
     */
    float x;
    /**
     * Centre y.
     */
    float y;
    /**
     * Centre z.
     */
    float z;
    /**
     * The radius: an element at distance `<= radius` is found.
     */
    double radius;
} qt_sphere;

/**
 * The shape of a 3D query (the octree's): the member `kind` names is read.
 */
typedef union qt_shape3 {
    /**
     * `QT_SHAPE_BOX`.
     */
    struct qt_box box;
    /**
     * `QT_SHAPE_POINT`.
     */
    struct qt_point3 point;
    /**
     * `QT_SHAPE_SPHERE`.
     */
    struct qt_sphere sphere;
    /**
     * `QT_SHAPE_ELEMENT`: the element's handle.
     */
    qt_handle_t element;
} qt_shape3;

/**
 * A query on a `qt_octree`, as `qt_query_desc` (kinds `QT_SHAPE_BOX`,
 * `QT_SHAPE_POINT`, `QT_SHAPE_SPHERE`, `QT_SHAPE_ELEMENT`): for
 * `qt_octree_query`, `qt_octree_query_each` and `qt_octree_query_many`. Make
 * one with `qt_box_query`, `qt_point3_query`, `qt_sphere_query` or
 * `qt_element3_query`.
 */
typedef struct qt_query3_desc {
    /**
     * Which member of `shape` holds the shape: a `QT_SHAPE_*` value.
     */
    qt_shape_kind kind;
    /**
     * The shape.
     */
    union qt_shape3 shape;
    /**
     * The collision mask, as `qt_query_desc`'s.
     */
    uint32_t mask;
    /**
     * An element to leave out of the answer, or `QT_NO_HANDLE`.
     */
    qt_handle_t omit;
} qt_query3_desc;

/**
 * Called with each element a query finds. Return 0 to go on, nonzero to stop
 * the walk (the query then returns `QT_STOPPED`). `user_data` is the pointer
 * given to the query, passed through untouched.
 */
typedef int (*qt_visit_fn)(void *user_data, qt_handle_t handle);

/**
 * Two elements whose rectangles overlap, as `qt_query_pairs` reports them.
 */
typedef struct qt_pair {
    /**
     * One element.
     */
    qt_handle_t a;
    /**
     * The other element.
     */
    qt_handle_t b;
} qt_pair;

/**
 * Called with each overlapping pair. Return 0 to go on, nonzero to stop.
 */
typedef int (*qt_pair_fn)(void *user_data, qt_handle_t a, qt_handle_t b);

/**
 * Called by `qt_octree_traverse` with each node: its index in the node array
 * (the root is 0), its depth (the root's is 0), its box in world coordinates,
 * and the number of elements linked in it (always 0 for a branch). Return 0
 * to go on, nonzero to stop.
 */
typedef int (*qt_node3_fn)(void *user_data,
                           uint32_t node,
                           uint32_t depth,
                           struct qt_box b,
                           uint32_t count);

/**
 * Called by `qt_nearest_with` with each candidate, nearest first: return
 * nonzero to accept it (it counts towards `k`), 0 to pass over it.
 */
typedef int (*qt_accept_fn)(void *user_data, qt_handle_t handle);

/**
 * A segment to cast in 3D, as `qt_ray`.
 */
typedef struct qt_ray3 {
    /**
     * Origin x.
     */
    float x;
    /**
     * Origin y.
     */
    float y;
    /**
     * Origin z.
     */
    float z;
    /**
     * Direction x.
     */
    float dx;
    /**
     * Direction y.
     */
    float dy;
    /**
     * Direction z.
     */
    float dz;
    /**
     * How far the ray goes, in the units of the coordinates.
     */
    double max_length;
} qt_ray3;

/**
 * One element a ray hit.
 */
typedef struct qt_ray_hit {
    /**
     * The element.
     */
    qt_handle_t handle;
    /**
     * Its id.
     */
    uint32_t id;
    /**
     * The distance along the ray from the origin to where the ray first
     * touches the element's closed box (0 when the origin is in it).
     */
    double distance;
    /**
     * `distance / max_length` (0 when `max_length` is 0).
     */
    double fraction;
} qt_ray_hit;

/**
 * Called by `qt_ray_cast_each` with each hit, nearest first. Returns what to
 * do next, as Box2D's ray-cast callbacks do: -1 (any negative value) to go
 * on, 0 (or NaN) to stop (the call then returns `QT_STOPPED`), a fraction
 * between 0 and 1 to clip the ray there (only hits at most that far along
 * it come next; return `hit.fraction` to keep the hits as near as this one,
 * which stops at a hit of fraction 0), 1 (or more) to go on unclipped. The
 * fraction is of the `max_length` the ray was cast with.
 */
typedef double (*qt_ray_fn)(void *user_data, struct qt_ray_hit hit);

/**
 * Which structure a `qt_tree` is: one of the `QT_KIND_*` values, as
 * `qt_kind_of` returns them and `qt_create_default` takes them. A plain
 * integer rather than a C enum, so that any value a caller passes is safe:
 * an unknown one is refused with `QT_INVALID_PARAMETER`. The values are
 * stable (they are the core's, and snapshots carry them).
 */
typedef uint32_t qt_kind;

/**
 * A point in 2D.
 */
typedef struct qt_point {
    /**
     * x.
     */
    float x;
    /**
     * y.
     */
    float y;
} qt_point;

/**
 * A closed disc: the centre `(x, y)` and a `radius` (`>= 0`, `INFINITY`
 * reaches every element) in `double`.
 */
typedef struct qt_circle {
    /**
     * Centre x.
     */
    float x;
    /**
     * Centre y.
     */
    float y;
    /**
     * The radius: an element at distance `<= radius` is found.
     */
    double radius;
} qt_circle;

/**
 * A rectangle in `double`, for `qt_insert_d`, `qt_move_d` and the query shape
 * `QT_SHAPE_RECT_D`. Each corner is rounded once to the
 * nearest `float` (the one conversion every language uses). Rounding to
 * nearest is monotone, so a query never misses an element whose closed
 * rectangle meets the query in `double`; it may add one that the rounding
 * made touch.
 */
typedef struct qt_rect_d {
    /**
     * Left edge (smallest x).
     */
    double x1;
    /**
     * Top edge (smallest y).
     */
    double y1;
    /**
     * Right edge (largest x).
     */
    double x2;
    /**
     * Bottom edge (largest y).
     */
    double y2;
} qt_rect_d;

/**
 * The shape of a 2D query: the member `kind` names is read, the others not.
 */
typedef union qt_shape {
    /**
     * `QT_SHAPE_RECT`.
     */
    struct qt_rect rect;
    /**
     * `QT_SHAPE_POINT`.
     */
    struct qt_point point;
    /**
     * `QT_SHAPE_CIRCLE`.
     */
    struct qt_circle circle;
    /**
     * `QT_SHAPE_ELEMENT`: the element's handle.
     */
    qt_handle_t element;
    /**
     * `QT_SHAPE_RECT_D`.
     */
    struct qt_rect_d rect_d;
} qt_shape;

/**
 * A query on a `qt_tree`: a shape and the options every shape takes, for
 * `qt_query`, `qt_query_each` and (an array of them) `qt_query_many`. Make
 * one with `qt_rect_query`, `qt_point_query`, `qt_circle_query`,
 * `qt_element_query` or `qt_rect_d_query` (mask `QT_MASK_ALL`, nothing
 * omitted), then set `mask` or `omit`; or fill it in yourself. A zeroed
 * description is refused (kind 0), and its mask 0 would find nothing.
 */
typedef struct qt_query_desc {
    /**
     * Which member of `shape` holds the shape: a `QT_SHAPE_*` value (2D:
     * `RECT`, `POINT`, `CIRCLE`, `ELEMENT`, `RECT_D`).
     */
    qt_shape_kind kind;
    /**
     * The shape.
     */
    union qt_shape shape;
    /**
     * Only the elements whose collision category is in `mask` are reported
     * (`category & mask` nonzero): `QT_MASK_ALL` for every element, 0 none.
     */
    uint32_t mask;
    /**
     * An element to leave out of the answer, or `QT_NO_HANDLE`.
     */
    qt_handle_t omit;
} qt_query_desc;

/**
 * Called by `qt_traverse` with each node: its index in the node array (the
 * root is 0), its depth (the root's is 0), its cell `(x1, y1)..(x2, y2)` in
 * world coordinates, and the number of elements linked in it (always 0 for a
 * branch). A grid's cells come as leaves of depth 0, each with its index in the grid (a
 * loose grid's cell rectangle is the box that bounds its elements). Return 0
 * to go on, nonzero to stop.
 */
typedef int (*qt_node_fn)(void *user_data,
                          uint32_t node,
                          uint32_t depth,
                          float x1,
                          float y1,
                          float x2,
                          float y2,
                          uint32_t count);

/**
 * A segment to cast in 2D: from `(x, y)` along `(dx, dy)` (any length but
 * zero; it is normalised in `double`) for `max_length` (finite, `>= 0`; 0
 * hits the elements holding the origin).
 */
typedef struct qt_ray {
    /**
     * Origin x.
     */
    float x;
    /**
     * Origin y.
     */
    float y;
    /**
     * Direction x.
     */
    float dx;
    /**
     * Direction y.
     */
    float dy;
    /**
     * How far the ray goes, in the units of the coordinates.
     */
    double max_length;
} qt_ray;

/**
 * Never a handle: pass it as `omit` to leave nothing out of a query.
 */
#define QT_NO_HANDLE 0

/**
 * The flat quadtree (`qt_create`): adapts its depth to where the elements
 * are; for uneven densities and mixed sizes.
 */
#define QT_KIND_QUADTREE 1

/**
 * The uniform grid (`qt_create_grid`): fixed cells, each a list of the
 * elements it meets; for many elements of similar size spread over the world.
 */
#define QT_KIND_GRID 2

/**
 * The loose/tight double grid (`qt_create_loose_grid`): every element in
 * exactly one loose cell, whose box grows and shrinks around its elements;
 * for elements of similar size that move every frame.
 */
#define QT_KIND_LOOSE_GRID 3

/**
 * The loose quadtree (`qt_create_loose_quadtree`): every element in exactly
 * one leaf, by its centre, the nodes' boxes grown to hold it; large elements
 * cost no more than small ones.
 */
#define QT_KIND_LOOSE_QUADTREE 4

/**
 * A rectangle, `shape.rect` (2D): the elements whose closed rectangle meets it.
 */
#define QT_SHAPE_RECT 1

/**
 * A point, `shape.point`: the elements whose closed box holds it (2D
 * `qt_point`, 3D `qt_point3`).
 */
#define QT_SHAPE_POINT 2

/**
 * A closed disc, `shape.circle` (2D): the elements whose closed rectangle is
 * at most `radius` from the centre.
 */
#define QT_SHAPE_CIRCLE 3

/**
 * A live element, `shape.element`: the other elements meeting its box whose
 * collision filters collide with its own (what it touches in a collision
 * loop); starts from where the element is stored.
 */
#define QT_SHAPE_ELEMENT 4

/**
 * A rectangle in `double`, `shape.rect_d` (2D): each corner rounded once to
 * the nearest `float`, so no element whose rectangle meets it in `double` is
 * missed (one the rounding made touch may be added).
 */
#define QT_SHAPE_RECT_D 5

/**
 * A box, `shape.box` (3D): the elements whose closed box meets it.
 */
#define QT_SHAPE_BOX 6

/**
 * A closed ball, `shape.sphere` (3D): the elements whose closed box is at
 * most `radius` from the centre.
 */
#define QT_SHAPE_SPHERE 7

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

/**
 * The version of the library actually linked, as `"MAJOR.MINOR.PATCH"`: a
 * static string, never NULL, never to be freed. Compare it with the
 * `QT_VERSION_*` macros to catch a header and a library that do not match.
 */
const char *qt_version(void);

/**
 * A short English message for a status: a static string, never NULL, never to
 * be freed. Takes an `int` so that any value is safe to pass; values that are
 * no `qt_status` give "unknown status".
 */
const char *qt_status_str(int status);

/**
 * Makes an empty quadtree over `world` and writes it to `*out_tree`; free it
 * with `qt_destroy`.
 *
 * A leaf splits when it holds more than `max_elements` elements and is
 * shallower than `max_depth` (the root is depth 0). The world only sets where
 * the tree divides the plane: elements and queries partly or wholly outside it
 * are stored and found (they live in the border leaves). Pick `max_depth` so
 * that the deepest cells are a little larger than a typical element, and
 * `max_elements` around `QT_DEFAULT_MAX_ELEMENTS`.
 *
 * Returns `QT_INVALID_WORLD` unless `world` is finite with `x1 < x2` and
 * `y1 < y2`; `QT_INVALID_PARAMETER` if `max_elements` is 0 or `max_depth` is
 * above `QT_MAX_DEPTH_LIMIT`; `QT_NULL_ARGUMENT` if `out_tree` is NULL.
 */
enum qt_status qt_create(struct qt_rect world,
                         uint32_t max_elements,
                         uint32_t max_depth,
                         struct qt_tree **out_tree);

/**
 * Writes the parameters a quadtree was made with (as `qt_create` took them;
 * `qt_create_default` uses `QT_DEFAULT_MAX_ELEMENTS` and
 * `QT_DEFAULT_MAX_DEPTH`). Each out-pointer may be NULL when that value is not
 * wanted. Returns `QT_WRONG_KIND`, writing nothing, for another structure.
 */
enum qt_status qt_params(const struct qt_tree *tree,
                         struct qt_rect *out_world,
                         uint32_t *out_max_elements,
                         uint32_t *out_max_depth);

/**
 * Makes an empty uniform grid dividing `world` into `columns x rows` equal
 * cells and writes it to `*out_tree`; free it with `qt_destroy`.
 *
 * Each cell lists the elements that meet it. The world only sets where the
 * cell borders lie: elements and queries outside it are fine, the border cells
 * own everything beyond it. Cells of about 2 to 4 times a typical element's
 * side work best (`qt_create_grid_cell_size` takes that size directly).
 *
 * Returns `QT_INVALID_WORLD` unless `world` is finite with `x1 < x2` and
 * `y1 < y2`; `QT_INVALID_PARAMETER` if `columns` or `rows` is 0 or the grid
 * would have more cells than the core allows; `QT_NULL_ARGUMENT` if
 * `out_tree` is NULL.
 */
enum qt_status qt_create_grid(struct qt_rect world,
                              uint32_t columns,
                              uint32_t rows,
                              struct qt_tree **out_tree);

/**
 * Makes an empty uniform grid over `world` with cells of about
 * `cell_width x cell_height`: as many columns as it takes to cover the width
 * (rounded up, at least 1) and as many rows for the height, the cells then
 * stretched a little to fill the world exactly (`qt_grid_params` gives the
 * result). See `qt_create_grid`.
 *
 * Returns `QT_INVALID_PARAMETER` if a cell size is not positive and finite,
 * or so small that the grid would have too many cells; otherwise as
 * `qt_create_grid`.
 */
enum qt_status qt_create_grid_cell_size(struct qt_rect world,
                                        float cell_width,
                                        float cell_height,
                                        struct qt_tree **out_tree);

/**
 * Writes a uniform grid's parameters: its world, its columns and rows, and the
 * size of a cell. Each out-pointer may be NULL when that value is not wanted.
 * Returns `QT_WRONG_KIND`, writing nothing, for another structure.
 */
enum qt_status qt_grid_params(const struct qt_tree *tree,
                              struct qt_rect *out_world,
                              uint32_t *out_columns,
                              uint32_t *out_rows,
                              float *out_cell_width,
                              float *out_cell_height);

/**
 * Makes an empty loose/tight double grid over `world` and writes it to
 * `*out_tree`; free it with `qt_destroy`.
 *
 * `columns x rows` loose cells each hold the elements whose centre they own,
 * and keep a box bounding them that grows as elements move out and shrinks to
 * fit at `qt_cleanup`; a coarser grid of `tight_columns x tight_rows` tight
 * cells lists the loose cells whose box meets it, for queries. Elements much
 * larger than a loose cell are kept in a list of their own. Loose cells of
 * about 8 element sides and tight cells of 2 x 2 loose ones are a good start
 * (`qt_create_loose_grid_cell_size` makes those from one size).
 *
 * Returns `QT_INVALID_WORLD` unless `world` is finite with `x1 < x2` and
 * `y1 < y2`; `QT_INVALID_PARAMETER` if a count is 0, if the tight grid has
 * more columns or rows than the loose one, or if there would be more cells
 * than the core allows; `QT_NULL_ARGUMENT` if `out_tree` is NULL.
 */
enum qt_status qt_create_loose_grid(struct qt_rect world,
                                    uint32_t columns,
                                    uint32_t rows,
                                    uint32_t tight_columns,
                                    uint32_t tight_rows,
                                    struct qt_tree **out_tree);

/**
 * Makes an empty loose grid over `world` with loose cells of side at most
 * `cell_size` (the world's width and height each divided into a whole number
 * of cells, rounded up) and tight cells of about 2 x 2 loose ones
 * (`qt_loose_grid_params` gives the result). See `qt_create_loose_grid`.
 *
 * Returns `QT_INVALID_PARAMETER` if `cell_size` is not positive and finite,
 * or so small that the grid would have too many cells; otherwise as
 * `qt_create_loose_grid`.
 */
enum qt_status qt_create_loose_grid_cell_size(struct qt_rect world,
                                              float cell_size,
                                              struct qt_tree **out_tree);

/**
 * Writes a loose grid's parameters (as `qt_create_loose_grid` takes them).
 * Each out-pointer may be NULL when that value is not wanted. Returns
 * `QT_WRONG_KIND`, writing nothing, for another structure.
 */
enum qt_status qt_loose_grid_params(const struct qt_tree *tree,
                                    struct qt_rect *out_world,
                                    uint32_t *out_columns,
                                    uint32_t *out_rows,
                                    uint32_t *out_tight_columns,
                                    uint32_t *out_tight_rows);

/**
 * Makes an empty loose quadtree over `world` and writes it to `*out_tree`;
 * free it with `qt_destroy`. Every element lives in exactly one leaf, the one
 * its centre descends to, and the nodes' boxes grow to hold it.
 *
 * The parameters mean what they mean for `qt_create`. Returns
 * `QT_INVALID_WORLD` unless `world` is finite with `x1 < x2` and `y1 < y2`;
 * `QT_INVALID_PARAMETER` if `max_elements` is 0 or `max_depth` is above
 * `QT_MAX_DEPTH_LIMIT`; `QT_NULL_ARGUMENT` if `out_tree` is NULL.
 */
enum qt_status qt_create_loose_quadtree(struct qt_rect world,
                                        uint32_t max_elements,
                                        uint32_t max_depth,
                                        struct qt_tree **out_tree);

/**
 * Makes an empty loose quadtree like `qt_create_loose_quadtree`, for
 * elements mostly no wider and no taller than `max_extent`: the elements
 * over it (a few large ones among many small) are kept apart, in a loose
 * quadtree of their own, so that they do not widen the boxes the small ones
 * share. Any size is accepted either way, and results are as exact.
 *
 * Returns `QT_INVALID_PARAMETER` unless `max_extent` is positive and finite;
 * otherwise as `qt_create_loose_quadtree`.
 */
enum qt_status qt_create_loose_quadtree_max_extent(struct qt_rect world,
                                                   uint32_t max_elements,
                                                   uint32_t max_depth,
                                                   float max_extent,
                                                   struct qt_tree **out_tree);

/**
 * Writes a loose quadtree's `max_extent` to `*out_max_extent`: the bound it
 * was made with by `qt_create_loose_quadtree_max_extent`, or 0 if it has
 * none. Returns `QT_WRONG_KIND`, writing nothing, for another structure;
 * `QT_NULL_ARGUMENT` if a pointer is NULL.
 */
enum qt_status qt_loose_quadtree_max_extent(const struct qt_tree *tree, float *out_max_extent);

/**
 * Writes the parameters a loose quadtree was made with. Each out-pointer may
 * be NULL when that value is not wanted. Returns `QT_WRONG_KIND`, writing
 * nothing, for another structure.
 */
enum qt_status qt_loose_quadtree_params(const struct qt_tree *tree,
                                        struct qt_rect *out_world,
                                        uint32_t *out_max_elements,
                                        uint32_t *out_max_depth);

/**
 * Makes an empty octree over `world` and writes it to `*out_tree`; free it
 * with `qt_octree_destroy`. The parameters mean what they mean for
 * `qt_create` (`QT_DEFAULT_MAX_ELEMENTS` and `QT_OCTREE_DEFAULT_MAX_DEPTH`
 * suit elements of about 1/100 of the world's side).
 *
 * Returns `QT_INVALID_WORLD` unless `world` is finite with `x1 < x2`,
 * `y1 < y2` and `z1 < z2`; `QT_INVALID_PARAMETER` if `max_elements` is 0 or
 * `max_depth` is above `QT_MAX_DEPTH_LIMIT`; `QT_NULL_ARGUMENT` if `out_tree`
 * is NULL.
 */
enum qt_status qt_octree_create(struct qt_box world,
                                uint32_t max_elements,
                                uint32_t max_depth,
                                struct qt_octree **out_tree);

/**
 * Writes the parameters the octree was made with; each out-pointer may be
 * NULL when that value is not wanted.
 */
enum qt_status qt_octree_params(const struct qt_octree *tree,
                                struct qt_box *out_world,
                                uint32_t *out_max_elements,
                                uint32_t *out_max_depth);

/**
 * `qt_destroy` on a `qt_octree`.
 */
void qt_octree_destroy(struct qt_octree *tree);

/**
 * `qt_clone` on a `qt_octree`.
 */
enum qt_status qt_octree_clone(const struct qt_octree *tree, struct qt_octree **out_tree);

/**
 * `qt_insert` on a `qt_octree`, with `qt_box` for `qt_rect` and `b` for
 * `rect`.
 */
enum qt_status qt_octree_insert(struct qt_octree *tree,
                                struct qt_box b,
                                uint32_t id,
                                qt_handle_t *out_handle);

/**
 * `qt_insert_many` on a `qt_octree`, with `qt_box` for `qt_rect` and `boxes`
 * for `rects`.
 */
enum qt_status qt_octree_insert_many(struct qt_octree *tree,
                                     const struct qt_box *boxes,
                                     const uint32_t *ids,
                                     size_t count,
                                     qt_handle_t *out_handles,
                                     size_t *out_bad_index);

/**
 * `qt_remove` on a `qt_octree`.
 */
enum qt_status qt_octree_remove(struct qt_octree *tree, qt_handle_t handle);

/**
 * `qt_remove_many` on a `qt_octree`.
 */
enum qt_status qt_octree_remove_many(struct qt_octree *tree,
                                     const qt_handle_t *handles,
                                     size_t count,
                                     size_t *out_bad_index);

/**
 * `qt_move` on a `qt_octree`, with `qt_box` for `qt_rect` and `b` for `rect`.
 */
enum qt_status qt_octree_move(struct qt_octree *tree, qt_handle_t handle, struct qt_box b);

/**
 * `qt_move_many` on a `qt_octree`, with `qt_box` for `qt_rect` and `boxes` for
 * `rects`.
 */
enum qt_status qt_octree_move_many(struct qt_octree *tree,
                                   const qt_handle_t *handles,
                                   const struct qt_box *boxes,
                                   size_t count,
                                   size_t *out_bad_index);

/**
 * `qt_cleanup` on a `qt_octree`. It merges, one level per call, every branch
 * whose eight children are empty leaves, and lays the leaves' lists out
 * contiguously again once moves have scattered them.
 */
enum qt_status qt_octree_cleanup(struct qt_octree *tree);

/**
 * `qt_set_margin` on a `qt_octree`.
 */
enum qt_status qt_octree_set_margin(struct qt_octree *tree, float margin);

/**
 * `qt_get_margin` on a `qt_octree`.
 */
enum qt_status qt_octree_get_margin(const struct qt_octree *tree, float *out_margin);

/**
 * `qt_clear` on a `qt_octree`.
 */
enum qt_status qt_octree_clear(struct qt_octree *tree);

/**
 * `qt_to_bytes` on a `qt_octree`.
 */
enum qt_status qt_octree_to_bytes(const struct qt_octree *tree,
                                  uint8_t *out_bytes,
                                  size_t capacity,
                                  size_t *out_total);

/**
 * `qt_from_bytes` on a `qt_octree`. A 2D structure's snapshot is refused with
 * `QT_INVALID_BYTES`.
 */
enum qt_status qt_octree_from_bytes(const uint8_t *bytes, size_t len, struct qt_octree **out_tree);

/**
 * `qt_len` on a `qt_octree`.
 */
size_t qt_octree_len(const struct qt_octree *tree);

/**
 * `qt_contains` on a `qt_octree`.
 */
bool qt_octree_contains(const struct qt_octree *tree, qt_handle_t handle);

/**
 * `qt_element_id` on a `qt_octree`.
 */
enum qt_status qt_octree_element_id(const struct qt_octree *tree,
                                    qt_handle_t handle,
                                    uint32_t *out_id);

/**
 * `qt_element_rect` on a `qt_octree`, with `qt_box` for `qt_rect` and
 * `out_box` for `out_rect`.
 */
enum qt_status qt_octree_element_box(const struct qt_octree *tree,
                                     qt_handle_t handle,
                                     struct qt_box *out_box);

/**
 * `qt_elements` on a `qt_octree`.
 */
enum qt_status qt_octree_elements(const struct qt_octree *tree,
                                  qt_handle_t *out_handles,
                                  size_t capacity,
                                  size_t *out_total);

/**
 * `qt_stats` on a `qt_octree`.
 */
enum qt_status qt_octree_stats(const struct qt_octree *tree, struct qt_tree_stats *out_stats);

/**
 * `qt_validate` on a `qt_octree`.
 */
enum qt_status qt_octree_validate(const struct qt_octree *tree);

/**
 * `qt_query` on a `qt_octree`, with `qt_query3_desc` for `qt_query_desc`.
 * Shapes: `QT_SHAPE_BOX`, `QT_SHAPE_POINT`, `QT_SHAPE_SPHERE`,
 * `QT_SHAPE_ELEMENT`.
 */
enum qt_status qt_octree_query(const struct qt_octree *tree,
                               const struct qt_query3_desc *query,
                               qt_handle_t *out_handles,
                               size_t capacity,
                               size_t *out_total);

/**
 * `qt_query_each` on a `qt_octree`, with `qt_query3_desc` for `qt_query_desc`.
 */
enum qt_status qt_octree_query_each(const struct qt_octree *tree,
                                    const struct qt_query3_desc *query,
                                    qt_visit_fn visit,
                                    void *user_data);

/**
 * `qt_query_many` on a `qt_octree`, with `qt_query3_desc` for `qt_query_desc`.
 */
enum qt_status qt_octree_query_many(const struct qt_octree *tree,
                                    const struct qt_query3_desc *queries,
                                    size_t count,
                                    size_t *out_offsets,
                                    qt_handle_t *out_handles,
                                    size_t capacity,
                                    size_t *out_total,
                                    size_t *out_bad_index);

/**
 * `qt_query_pairs` on a `qt_octree`.
 */
enum qt_status qt_octree_query_pairs(const struct qt_octree *tree,
                                     struct qt_pair *out_pairs,
                                     size_t capacity,
                                     size_t *out_total);

/**
 * `qt_query_pairs_each` on a `qt_octree`.
 */
enum qt_status qt_octree_query_pairs_each(const struct qt_octree *tree,
                                          qt_pair_fn visit,
                                          void *user_data);

/**
 * `qt_traverse` on a `qt_octree`, with `qt_node3_fn` for `qt_node_fn`. Each
 * node comes with its index, depth, box and element count.
 */
enum qt_status qt_octree_traverse(const struct qt_octree *tree,
                                  qt_node3_fn branch,
                                  qt_node3_fn leaf,
                                  void *user_data);

/**
 * `qt_set_filter` on a `qt_octree`.
 */
enum qt_status qt_octree_set_filter(struct qt_octree *tree,
                                    qt_handle_t handle,
                                    uint32_t category,
                                    uint32_t mask);

/**
 * `qt_get_filter` on a `qt_octree`.
 */
enum qt_status qt_octree_get_filter(const struct qt_octree *tree,
                                    qt_handle_t handle,
                                    uint32_t *out_category,
                                    uint32_t *out_mask);

/**
 * `qt_set_filters` on a `qt_octree`.
 */
enum qt_status qt_octree_set_filters(struct qt_octree *tree,
                                     const qt_handle_t *handles,
                                     const uint32_t *categories,
                                     const uint32_t *masks,
                                     size_t count,
                                     size_t *out_bad_index);

/**
 * `qt_nearest` on a `qt_octree`, with `z` after `y`.
 */
enum qt_status qt_octree_nearest(const struct qt_octree *tree,
                                 float x,
                                 float y,
                                 float z,
                                 size_t k,
                                 double max_distance,
                                 uint32_t mask,
                                 qt_handle_t *out_handles,
                                 double *out_distances,
                                 size_t *out_count);

/**
 * `qt_nearest_with` on a `qt_octree`, with `z` after `y`.
 */
enum qt_status qt_octree_nearest_with(const struct qt_octree *tree,
                                      float x,
                                      float y,
                                      float z,
                                      size_t k,
                                      double max_distance,
                                      uint32_t mask,
                                      qt_accept_fn accept,
                                      void *user_data,
                                      qt_handle_t *out_handles,
                                      double *out_distances,
                                      size_t *out_count);

/**
 * `qt_nearest_many` on a `qt_octree`. Point `i` is
 * `(points[3*i], points[3*i+1], points[3*i+2])`.
 */
enum qt_status qt_octree_nearest_many(const struct qt_octree *tree,
                                      const float *points,
                                      size_t count,
                                      size_t k,
                                      double max_distance,
                                      uint32_t mask,
                                      size_t *out_offsets,
                                      qt_handle_t *out_handles,
                                      double *out_distances,
                                      size_t capacity,
                                      size_t *out_total,
                                      size_t *out_bad_index);

/**
 * `qt_ray_cast` on a `qt_octree`, with `qt_ray3` for `qt_ray`.
 */
enum qt_status qt_octree_ray_cast(const struct qt_octree *tree,
                                  struct qt_ray3 ray,
                                  uint32_t mask,
                                  struct qt_ray_hit *out_hit,
                                  bool *out_found);

/**
 * `qt_ray_cast_many` on a `qt_octree`, with `qt_ray3` for `qt_ray`.
 */
enum qt_status qt_octree_ray_cast_many(const struct qt_octree *tree,
                                       const struct qt_ray3 *rays,
                                       size_t count,
                                       uint32_t mask,
                                       struct qt_ray_hit *out_hits,
                                       size_t *out_bad_index);

/**
 * `qt_box_cast` on a `qt_octree`, with `qt_box` for `qt_rect`, `b` for `rect`
 * and `dz` after `dy`.
 */
enum qt_status qt_octree_box_cast(const struct qt_octree *tree,
                                  struct qt_box b,
                                  float dx,
                                  float dy,
                                  float dz,
                                  uint32_t mask,
                                  qt_handle_t omit,
                                  struct qt_ray_hit *out_hit,
                                  bool *out_found);

/**
 * `qt_box_cast_all` on a `qt_octree`, with `qt_box` for `qt_rect`, `b` for
 * `rect` and `dz` after `dy`.
 */
enum qt_status qt_octree_box_cast_all(const struct qt_octree *tree,
                                      struct qt_box b,
                                      float dx,
                                      float dy,
                                      float dz,
                                      uint32_t mask,
                                      qt_handle_t omit,
                                      struct qt_ray_hit *out_hits,
                                      size_t capacity,
                                      size_t *out_total);

/**
 * `qt_ray_cast_all` on a `qt_octree`, with `qt_ray3` for `qt_ray`.
 */
enum qt_status qt_octree_ray_cast_all(const struct qt_octree *tree,
                                      struct qt_ray3 ray,
                                      uint32_t mask,
                                      struct qt_ray_hit *out_hits,
                                      size_t capacity,
                                      size_t *out_total);

/**
 * `qt_ray_cast_each` on a `qt_octree`, with `qt_ray3` for `qt_ray`.
 */
enum qt_status qt_octree_ray_cast_each(const struct qt_octree *tree,
                                       struct qt_ray3 ray,
                                       uint32_t mask,
                                       qt_ray_fn visit,
                                       void *user_data);

/**
 * `qt_tracker_create` on a `qt_octree`. The tracker is a `qt_tracker`, whose
 * calls work the same on either tree.
 */
enum qt_status qt_octree_tracker_create(const struct qt_octree *tree,
                                        struct qt_tracker **out_tracker);

/**
 * Makes an empty structure of the kind `kind` over `world` with that
 * structure's defaults, and writes it to `*out_tree`; free it with
 * `qt_destroy`. The defaults suit elements of about 1/1000 of the world's side
 * (a quadtree gets `QT_DEFAULT_MAX_ELEMENTS` and `QT_DEFAULT_MAX_DEPTH`; the
 * parameter getters say what each structure got).
 *
 * Returns `QT_INVALID_PARAMETER` for a `kind` that is no `QT_KIND_*` value,
 * `QT_INVALID_WORLD` as `qt_create`, `QT_NULL_ARGUMENT` if `out_tree` is NULL.
 */
enum qt_status qt_create_default(qt_kind kind, struct qt_rect world, struct qt_tree **out_tree);

/**
 * Frees a tree and everything in it. `qt_destroy(NULL)` does nothing. The
 * tree must not be used afterwards, nor destroyed twice.
 */
void qt_destroy(struct qt_tree *tree);

/**
 * Makes an independent copy of a tree (of the same kind), with the same
 * elements under the same handles, and writes it to `*out_tree`; free it with
 * `qt_destroy`.
 */
enum qt_status qt_clone(const struct qt_tree *tree, struct qt_tree **out_tree);

/**
 * Adds an element with the rectangle `rect` and your `id` (any value; ids
 * need not be unique), and writes its new handle to `*out_handle`.
 *
 * Returns `QT_INVALID_RECT` for a NaN or infinite coordinate or an inverted
 * rectangle, `QT_CAPACITY_EXCEEDED` when the tree is full.
 */
enum qt_status qt_insert(struct qt_tree *tree,
                         struct qt_rect rect,
                         uint32_t id,
                         qt_handle_t *out_handle);

/**
 * Adds `count` elements: `rects[i]` with id `ids[i]`, writing their handles to
 * `out_handles[0..count]` in order. Checks every item first: if one is
 * refused, nothing is inserted and, when `out_bad_index` is not NULL, the
 * index of the first refused item is written there (the only out-parameter
 * written on failure). The arrays may be NULL when `count` is 0.
 */
enum qt_status qt_insert_many(struct qt_tree *tree,
                              const struct qt_rect *rects,
                              const uint32_t *ids,
                              size_t count,
                              qt_handle_t *out_handles,
                              size_t *out_bad_index);

/**
 * Removes an element; its handle goes stale. Only unlinks: `qt_cleanup`
 * tidies up after it (a quadtree merges the leaves this empties).
 *
 * Returns `QT_INVALID_HANDLE` for a handle that is not live (never issued,
 * already removed, or cleared).
 */
enum qt_status qt_remove(struct qt_tree *tree, qt_handle_t handle);

/**
 * Removes the `count` elements of `handles`. Checks them all first: if one is
 * not live (`QT_INVALID_HANDLE`) or appears twice (`QT_DUPLICATE_HANDLE`),
 * nothing is removed and the index of the first bad one is written to
 * `*out_bad_index` (when not NULL). `handles` may be NULL when `count` is 0.
 */
enum qt_status qt_remove_many(struct qt_tree *tree,
                              const qt_handle_t *handles,
                              size_t count,
                              size_t *out_bad_index);

/**
 * Gives an element a new rectangle (the "move" of a collision loop). When the
 * new rectangle lies in exactly the leaves (or cells) the old one did, only
 * the rectangle is written; otherwise the element is relinked.
 *
 * Returns `QT_INVALID_RECT` or `QT_INVALID_HANDLE`.
 */
enum qt_status qt_move(struct qt_tree *tree, qt_handle_t handle, struct qt_rect rect);

/**
 * Moves `handles[i]` to `rects[i]` for every `i < count`, in order (a handle
 * given twice ends at its last rectangle). Checks every item first: if one is
 * refused, nothing moves and its index is written to `*out_bad_index` (when
 * not NULL). The arrays may be NULL when `count` is 0. Batches of 1,000 moves
 * or more run on rayon's global pool (from a thread outside it, the caller
 * waiting; see `qt_join_thread_pool`): their checks on every core, and a
 * grid's moves too from 400,000. Set `RAYON_NUM_THREADS=1` to keep them on
 * the calling thread. `QT_PANIC`: a bug in flatquad panicked halfway through
 * the moves (on any thread); they were finished, every element is at its new
 * rectangle, and the tree goes on (not poisoned).
 */
enum qt_status qt_move_many(struct qt_tree *tree,
                            const qt_handle_t *handles,
                            const struct qt_rect *rects,
                            size_t count,
                            size_t *out_bad_index);

/**
 * **Testing only**: [`qt_move_many`] whose moves panic after the first `at`
 * of the `count` are made, on a worker thread of the batch calls' pool if
 * `on_worker`, as a bug in flatquad would. The moves are then finished, as
 * after any panic in a move: `QT_PANIC`, every element at its new
 * rectangle, and the tree is not poisoned.
 */
enum qt_status qt_test_panic_in_moves(struct qt_tree *tree,
                                      const qt_handle_t *handles,
                                      const struct qt_rect *rects,
                                      size_t count,
                                      size_t at,
                                      bool on_worker);

/**
 * The structure's lazy tidying, once a frame after the moves: a quadtree
 * merges, one level per call, every branch whose four children are empty
 * leaves, and lays its leaves' lists out contiguously again once moves have
 * scattered them; a loose grid shrinks its cells' boxes to fit their elements; a grid
 * has nothing to do.
 */
enum qt_status qt_cleanup(struct qt_tree *tree);

/**
 * Sets the fat-bounds margin, in world units (0, the default, for none):
 * each element is filed by its box grown by `margin` on every side, so a
 * `qt_move` that stays inside that fat box costs no relink. Every query,
 * pair, search and event still answers on the elements' own boxes: the
 * margin changes speed, never a result. Setting it refiles every element.
 *
 * Returns `QT_INVALID_PARAMETER` for a NaN, negative or infinite margin
 * (nothing changes).
 */
enum qt_status qt_set_margin(struct qt_tree *tree, float margin);

/**
 * Writes the fat-bounds margin (`qt_set_margin`; 0 for none) to `*out_margin`.
 */
enum qt_status qt_get_margin(const struct qt_tree *tree, float *out_margin);

/**
 * Removes every element (all handles go stale) and, from a quadtree, every
 * node but the root, keeping the memory for reuse.
 */
enum qt_status qt_clear(struct qt_tree *tree);

/**
 * Writes the tree's exact state (little-endian, versioned, tagged with the
 * kind; handles included)
 * to `out_bytes`, for saving or sending it: `*out_total` is the snapshot's
 * size, and the first min(total, capacity) bytes are written. A buffer
 * shorter than the total gives a truncated snapshot, which `qt_from_bytes`
 * refuses: size the buffer from `*out_total` and call again. `out_bytes` may
 * be NULL when `capacity` is 0.
 */
enum qt_status qt_to_bytes(const struct qt_tree *tree,
                           uint8_t *out_bytes,
                           size_t capacity,
                           size_t *out_total);

/**
 * Makes a tree from `qt_to_bytes`'s snapshot of any kind of structure and
 * writes it to `*out_tree`: an equal tree of the same kind, the same handles
 * valid and the same ones stale. Every invariant is checked, so damaged or
 * hostile bytes give `QT_INVALID_BYTES`, never a broken tree. `bytes` may be
 * NULL when `len` is 0.
 */
enum qt_status qt_from_bytes(const uint8_t *bytes, size_t len, struct qt_tree **out_tree);

/**
 * Number of elements in the tree; 0 for NULL or a poisoned tree.
 */
size_t qt_len(const struct qt_tree *tree);

/**
 * Which structure the tree is: `QT_KIND_QUADTREE`, `QT_KIND_GRID`,
 * `QT_KIND_LOOSE_GRID` or `QT_KIND_LOOSE_QUADTREE`; 0 for NULL or a poisoned
 * tree.
 */
qt_kind qt_kind_of(const struct qt_tree *tree);

/**
 * Whether `handle` names an element of the tree now; false for NULL or a
 * poisoned tree.
 */
bool qt_contains(const struct qt_tree *tree, qt_handle_t handle);

/**
 * Writes the id the element was inserted with to `*out_id`.
 * Returns `QT_INVALID_HANDLE` if `handle` is not live.
 */
enum qt_status qt_element_id(const struct qt_tree *tree, qt_handle_t handle, uint32_t *out_id);

/**
 * Writes the element's current rectangle to `*out_rect`.
 * Returns `QT_INVALID_HANDLE` if `handle` is not live.
 */
enum qt_status qt_element_rect(const struct qt_tree *tree,
                               qt_handle_t handle,
                               struct qt_rect *out_rect);

/**
 * Lists the handle of every element: `*out_total` is the number of elements,
 * and the first min(total, capacity) handles are written to `out_handles`.
 * `out_handles` may be NULL when `capacity` is 0 (to learn the total).
 */
enum qt_status qt_elements(const struct qt_tree *tree,
                           qt_handle_t *out_handles,
                           size_t capacity,
                           size_t *out_total);

/**
 * Writes the tree's sizes to `*out_stats`: elements, nodes (or cells),
 * leaves, links, the deepest level reached, and the bytes it holds. Walks
 * every node or cell: meant for tuning and debugging, not for every frame.
 */
enum qt_status qt_stats(const struct qt_tree *tree, struct qt_tree_stats *out_stats);

/**
 * Checks every invariant of the tree: `QT_OK`, or `QT_INTERNAL_ERROR` if one is
 * broken (a flatquad bug: please report it). Costs O(size) time and
 * allocates: for tests and for debugging.
 */
enum qt_status qt_validate(const struct qt_tree *tree);

/**
 * Finds the elements `query` describes (see `qt_query_desc`: a rectangle,
 * a point, a circle, an element's neighbours, a `double` rectangle), each
 * once, leaving out `query->omit` and those whose category is not in
 * `query->mask`: writes the number found to `*out_total` and the first
 * min(total, capacity) handles to `out_handles`, in no particular order.
 * `out_handles` may be NULL when `capacity` is 0 (to count, or to learn the
 * size a buffer needs).
 *
 * Returns `QT_INVALID_PARAMETER` for an unknown `query->kind` or a NaN or
 * negative radius, `QT_INVALID_RECT` for a bad rectangle,
 * `QT_INVALID_POINT` for a NaN or infinite point or centre,
 * `QT_INVALID_HANDLE` for an element or `omit` that is not live,
 * `QT_NULL_ARGUMENT` for a NULL `query`; nothing is written then.
 */
enum qt_status qt_query(const struct qt_tree *tree,
                        const struct qt_query_desc *query,
                        qt_handle_t *out_handles,
                        size_t capacity,
                        size_t *out_total);

/**
 * Calls `visit(user_data, handle)` with each element `qt_query` finds.
 * Returns `QT_OK` when every element was visited, `QT_STOPPED` when `visit`
 * returned nonzero, and (without calling `visit`) `qt_query`'s refusals or
 * `QT_NULL_ARGUMENT` for a NULL `visit`.
 */
enum qt_status qt_query_each(const struct qt_tree *tree,
                             const struct qt_query_desc *query,
                             qt_visit_fn visit,
                             void *user_data);

/**
 * Runs the `count` queries of `queries` (any mix of kinds, each with its own
 * mask and omit) in compressed rows: the hits of `queries[i]` are
 * `out_handles[out_offsets[i] .. out_offsets[i + 1]]`, in no particular
 * order. `out_offsets` holds `count + 1` items and is always filled;
 * `*out_total` is the number of hits (`out_offsets[count]`), and the first
 * min(total, capacity) are written (size the buffer and call again).
 * `out_handles` may be NULL when `capacity` is 0, `queries` when `count` is
 * 0. Big batches run on every core, through rayon's global pool; a batch of
 * element queries alone (no mask, nothing omitted: each agent's in a
 * collision loop) naming a quarter of the elements or more is answered by
 * one pair walk instead.
 *
 * Checks every query first: for the first one refused (as `qt_query`
 * refuses it), its index is written to `*out_bad_index` when that is not
 * NULL, and nothing else is written.
 */
enum qt_status qt_query_many(const struct qt_tree *tree,
                             const struct qt_query_desc *queries,
                             size_t count,
                             size_t *out_offsets,
                             qt_handle_t *out_handles,
                             size_t capacity,
                             size_t *out_total,
                             size_t *out_bad_index);

/**
 * Finds every pair of elements whose closed rectangles intersect, each
 * unordered pair once (in the structure's walk order, the same on every call
 * until the tree changes; either element first): writes the number of pairs
 * to `*out_total` and the first min(total, capacity) to `out_pairs`. Walks
 * the leaves (or cells), testing the elements of each against each other:
 * far faster than one query per element. Big structures (a grid from 20,000
 * elements, the other structures from 10,000) are walked on every core,
 * through rayon's global pool, with the same pairs in the same order.
 * `out_pairs` may be NULL when `capacity` is 0.
 */
enum qt_status qt_query_pairs(const struct qt_tree *tree,
                              struct qt_pair *out_pairs,
                              size_t capacity,
                              size_t *out_total);

/**
 * Calls `visit(user_data, a, b)` with every pair of intersecting elements,
 * each unordered pair once, in `qt_query_pairs`' order, always on the calling
 * thread. Where `qt_query_pairs` walks on every core, the walk runs first
 * and `visit` then reads its list, so stopping early saves none of the walk.
 * Returns `QT_OK`, or `QT_STOPPED` when `visit` returned nonzero.
 */
enum qt_status qt_query_pairs_each(const struct qt_tree *tree, qt_pair_fn visit, void *user_data);

/**
 * Visits every node depth-first, parents before children, children in the
 * order top-left, top-right, bottom-left, bottom-right (y grows downwards):
 * calls `branch` for each branch and `leaf` for each leaf, either of which may
 * be NULL to skip those nodes. A grid has no branches: its cells come as
 * leaves of depth 0, so drawing code written for a quadtree draws a grid too.
 * For drawing and for debugging. Returns `QT_OK`, or `QT_STOPPED` when a
 * callback returned nonzero.
 */
enum qt_status qt_traverse(const struct qt_tree *tree,
                           qt_node_fn branch,
                           qt_node_fn leaf,
                           void *user_data);

/**
 * `qt_insert` with a `double` rectangle (rounded once to `float`).
 */
enum qt_status qt_insert_d(struct qt_tree *tree,
                           struct qt_rect_d rect,
                           uint32_t id,
                           qt_handle_t *out_handle);

/**
 * `qt_move` with a `double` rectangle (rounded once to `float`).
 */
enum qt_status qt_move_d(struct qt_tree *tree, qt_handle_t handle, struct qt_rect_d rect);

/**
 * Every pair of an element of `left` and an element of `right` whose closed
 * rectangles meet, each pair once (`a` from `left`, `b` from `right`; the two
 * may be different kinds, or the same tree): writes the number of pairs to
 * `*out_total` and the first min(total, capacity) to `out_pairs`. When
 * `sorted` is true the pairs come in increasing `(a, b)` order. `out_pairs`
 * may be NULL when `capacity` is 0.
 */
enum qt_status qt_join(const struct qt_tree *left,
                       const struct qt_tree *right,
                       bool sorted,
                       struct qt_pair *out_pairs,
                       size_t capacity,
                       size_t *out_total);

/**
 * Sets an element's collision filter: from now on `qt_query_pairs` and a
 * `QT_SHAPE_ELEMENT` query report it with another element only when each
 * one's `category` is in the other's `mask` (`a.category & b.mask` and
 * `b.category & a.mask` both nonzero), and a query or search reports it only
 * when `category & mask` of the query is nonzero. Every element starts with
 * `QT_MASK_ALL` for both; removing it (or `qt_clear`) resets its filter.
 *
 * Returns `QT_INVALID_HANDLE` if `handle` is not live.
 */
enum qt_status qt_set_filter(struct qt_tree *tree,
                             qt_handle_t handle,
                             uint32_t category,
                             uint32_t mask);

/**
 * Writes an element's collision filter to `*out_category` and `*out_mask`
 * (both `QT_MASK_ALL` unless set). Returns `QT_INVALID_HANDLE` if `handle` is
 * not live, `QT_NULL_ARGUMENT` if an out-pointer is NULL.
 */
enum qt_status qt_get_filter(const struct qt_tree *tree,
                             qt_handle_t handle,
                             uint32_t *out_category,
                             uint32_t *out_mask);

/**
 * Sets the filter of `handles[i]` to `categories[i]` and `masks[i]` for every
 * `i < count` (a handle given twice keeps its last filter). Checks every
 * handle first: if one is not live, nothing changes and its index is written
 * to `*out_bad_index` (when not NULL). The arrays may be NULL when `count` is 0.
 */
enum qt_status qt_set_filters(struct qt_tree *tree,
                              const qt_handle_t *handles,
                              const uint32_t *categories,
                              const uint32_t *masks,
                              size_t count,
                              size_t *out_bad_index);

/**
 * Finds the `k` elements passing `mask` nearest to `(x, y)` (fewer if there
 * are fewer), at most `max_distance` away (`INFINITY`: no limit), nearest
 * first, ties in ascending id, then handle: writes their handles to
 * `out_handles[0..*out_count]` and, when `out_distances` is not NULL, their
 * distances (to the closed rectangle, 0 inside it) to `out_distances`. Both
 * arrays hold `k` items (may be NULL when `k` is 0).
 *
 * Returns `QT_INVALID_POINT` for a NaN or infinite coordinate,
 * `QT_INVALID_PARAMETER` for a NaN or negative `max_distance`, or a `k` no
 * array can hold (a negative number passed as `size_t`).
 */
enum qt_status qt_nearest(const struct qt_tree *tree,
                          float x,
                          float y,
                          size_t k,
                          double max_distance,
                          uint32_t mask,
                          qt_handle_t *out_handles,
                          double *out_distances,
                          size_t *out_count);

/**
 * `qt_nearest` with a filter: `accept(user_data, handle)` is called with the
 * candidates in order, each once, and those it returns 0 for do not count
 * towards `k`. Returns `QT_NULL_ARGUMENT` for a NULL `accept`.
 */
enum qt_status qt_nearest_with(const struct qt_tree *tree,
                               float x,
                               float y,
                               size_t k,
                               double max_distance,
                               uint32_t mask,
                               qt_accept_fn accept,
                               void *user_data,
                               qt_handle_t *out_handles,
                               double *out_distances,
                               size_t *out_count);

/**
 * `qt_nearest` for `count` points at once (point `i` is `(points[2 i],
 * points[2 i + 1])`), in compressed rows as `qt_query_many`: the
 * neighbours of point `i`, nearest first, are `out_handles[out_offsets[i] ..
 * out_offsets[i + 1]]` (and their distances the same range of
 * `out_distances`, which may be NULL). `k` bounds each row, the output's
 * capacity is `capacity`; a `k` that `qt_nearest` refuses is refused here too.
 * Returns as `qt_nearest`, the index of the first bad point written to
 * `*out_bad_index` when that is not NULL. Big batches (from 1,000 points)
 * run on every core, through rayon's global pool, with the same rows.
 */
enum qt_status qt_nearest_many(const struct qt_tree *tree,
                               const float *points,
                               size_t count,
                               size_t k,
                               double max_distance,
                               uint32_t mask,
                               size_t *out_offsets,
                               qt_handle_t *out_handles,
                               double *out_distances,
                               size_t capacity,
                               size_t *out_total,
                               size_t *out_bad_index);

/**
 * Casts `ray` and writes the first element passing `mask` that it hits (the
 * nearest along it; ties in ascending id, then handle) to `*out_hit`, and
 * whether there was one to `*out_found` (`*out_hit` is written only then).
 *
 * Returns `QT_INVALID_POINT` for a NaN or infinite origin,
 * `QT_INVALID_PARAMETER` for a zero or non-finite direction or a
 * `max_length` that is NaN, negative or infinite.
 */
enum qt_status qt_ray_cast(const struct qt_tree *tree,
                           struct qt_ray ray,
                           uint32_t mask,
                           struct qt_ray_hit *out_hit,
                           bool *out_found);

/**
 * Casts each of the `count` rays of `rays` as `qt_ray_cast` does and writes
 * ray `i`'s first hit to `out_hits[i]` (an array of `count`); a ray that hits
 * nothing gets `handle` `QT_NO_HANDLE`, `id` 0 and an infinite `distance`
 * and `fraction`. For a scan of many rays (a lidar sweep, a line of sight per
 * agent) in one call: big batches (from 1,000 rays) run on every core,
 * through rayon's global pool, with the same hits.
 *
 * Returns as `qt_ray_cast`, the index of the first bad ray written to
 * `*out_bad_index` when that is not NULL; nothing is written to `out_hits`
 * then.
 */
enum qt_status qt_ray_cast_many(const struct qt_tree *tree,
                                const struct qt_ray *rays,
                                size_t count,
                                uint32_t mask,
                                struct qt_ray_hit *out_hits,
                                size_t *out_bad_index);

/**
 * Moves the closed rectangle `rect` by `t·(dx, dy)` for `t` from 0 to 1 and
 * writes the first element passing `mask` it touches (the smallest `t`;
 * ties in ascending id, then handle), leaving out `omit` (`QT_NO_HANDLE` for
 * none: pass the moving element's own handle to ask where it can go), to
 * `*out_hit`, and whether there was one to `*out_found`. The hit's
 * `fraction` is `t`, its `distance` `t` times the motion's length.
 *
 * Returns `QT_INVALID_RECT` for a bad `rect`, `QT_INVALID_PARAMETER` for a
 * NaN or infinite motion, `QT_INVALID_HANDLE` for an `omit` that is not live.
 */
enum qt_status qt_box_cast(const struct qt_tree *tree,
                           struct qt_rect rect,
                           float dx,
                           float dy,
                           uint32_t mask,
                           qt_handle_t omit,
                           struct qt_ray_hit *out_hit,
                           bool *out_found);

/**
 * Every element passing `mask` that the rectangle of `qt_box_cast` touches,
 * in ascending `(fraction, id, handle)`: writes the number of hits to
 * `*out_total` and the first min(total, capacity) to `out_hits` (may be NULL
 * when `capacity` is 0). Returns as `qt_box_cast`.
 */
enum qt_status qt_box_cast_all(const struct qt_tree *tree,
                               struct qt_rect rect,
                               float dx,
                               float dy,
                               uint32_t mask,
                               qt_handle_t omit,
                               struct qt_ray_hit *out_hits,
                               size_t capacity,
                               size_t *out_total);

/**
 * Every element passing `mask` that `ray` hits, in ascending `(distance, id,
 * handle)`: writes the number of hits to `*out_total` and the first
 * min(total, capacity) to `out_hits` (may be NULL when `capacity` is 0).
 * Returns as `qt_ray_cast`.
 */
enum qt_status qt_ray_cast_all(const struct qt_tree *tree,
                               struct qt_ray ray,
                               uint32_t mask,
                               struct qt_ray_hit *out_hits,
                               size_t capacity,
                               size_t *out_total);

/**
 * Calls `visit(user_data, hit)` with each hit of `qt_ray_cast_all`, in that
 * order; `visit` says whether to go on, stop or clip the ray (`qt_ray_fn`).
 * Returns `QT_OK`, or `QT_STOPPED` when `visit` returned 0, and (without
 * calling `visit`) the statuses of `qt_ray_cast` or `QT_NULL_ARGUMENT` for
 * a NULL `visit`.
 */
enum qt_status qt_ray_cast_each(const struct qt_tree *tree,
                                struct qt_ray ray,
                                uint32_t mask,
                                qt_ray_fn visit,
                                void *user_data);

/**
 * Makes a tracker of the contact events of `tree` (any structure) and writes
 * it to `*out_tracker`; free it with `qt_tracker_destroy`. It has seen
 * nothing yet: its first `qt_tracker_update` reports every overlapping pair
 * as began. A tree may have any number of trackers, each with its own
 * history.
 *
 * Returns `QT_NULL_ARGUMENT` if `tree` or `out_tracker` is NULL,
 * `QT_POISONED` for a poisoned tree.
 */
enum qt_status qt_tracker_create(const struct qt_tree *tree, struct qt_tracker **out_tracker);

/**
 * Frees a tracker (before or after its tree: either order is fine).
 * `qt_tracker_destroy(NULL)` does nothing. The tracker must not be used
 * afterwards, nor destroyed twice.
 */
void qt_tracker_destroy(struct qt_tracker *tracker);

/**
 * Looks at the tree again, after the frame's moves, inserts, removals,
 * filter changes and cleanup, and finds the pairs that began and ended
 * overlapping since the last successful update (or since the tracker was
 * made or reset). Writes how many of each to `*out_began` and `*out_ended`;
 * `qt_tracker_began` and `qt_tracker_ended` then give the pairs, and keep
 * giving them until the next update.
 *
 * Pairs are of closed boxes with the collision filters applied (as
 * `qt_query_pairs`). A removed element's pairs end under the handle it had;
 * a pair whose filters stop colliding ends; a pair whose slot was reused by
 * a new element ends and the new element's begins. The work follows the
 * change: unchanged pairs are not tested again.
 *
 * Reads the tree as the calls taking a `const qt_tree *` do: it may run
 * beside them, never beside a change to the tree. A tracker of 65,536 slots
 * or more looks for the changed elements on every core, and when most
 * elements changed it walks the pairs on every core; such an update runs on
 * rayon's global pool, as `qt_move_many`
 * (`RAYON_NUM_THREADS=1` keeps it on the calling thread). The events are the
 * same either way.
 *
 * Returns `QT_NULL_ARGUMENT` if a pointer is NULL, `QT_TREE_DESTROYED` if
 * the tree was destroyed, `QT_POISONED` if the tree or the tracker is. A
 * refused update changes nothing: the next one still reports the whole
 * difference since the last successful one.
 */
enum qt_status qt_tracker_update(struct qt_tracker *tracker, size_t *out_began, size_t *out_ended);

/**
 * The pairs that began overlapping at the last update, each as
 * `{lower, higher}` handle, sorted by `a` then `b`. Count first, then fill:
 * with `capacity` 0 (`out_pairs` may then be NULL) only the count is
 * written to `*out_total`; otherwise the buffer must hold every pair, and
 * all of them and the count are written.
 *
 * Unlike the queries' buffers, a buffer that is too small is refused with
 * `QT_BUFFER_TOO_SMALL` and nothing written: the count is known (from
 * `qt_tracker_update`), and a list cut short would lose events (an enter
 * without its exit). Also returns `QT_NULL_ARGUMENT`, `QT_TREE_DESTROYED`
 * and `QT_POISONED`.
 */
enum qt_status qt_tracker_began(const struct qt_tracker *tracker,
                                struct qt_pair *out_pairs,
                                size_t capacity,
                                size_t *out_total);

/**
 * The pairs that ended at the last update, as `qt_tracker_began` gives the
 * began ones. An ended pair may name elements that are gone (their old
 * handles, now stale).
 */
enum qt_status qt_tracker_ended(const struct qt_tracker *tracker,
                                struct qt_pair *out_pairs,
                                size_t capacity,
                                size_t *out_total);

/**
 * Writes how many pairs overlapped at the last update to `*out_count` (0
 * before the first).
 *
 * Returns `QT_NULL_ARGUMENT`, `QT_TREE_DESTROYED` or `QT_POISONED`.
 */
enum qt_status qt_tracker_pair_count(const struct qt_tracker *tracker, size_t *out_count);

/**
 * Forgets everything the tracker saw: the began and ended lists are
 * emptied, and the next update reports every overlapping pair as began.
 *
 * Returns `QT_NULL_ARGUMENT`, `QT_TREE_DESTROYED` or `QT_POISONED`.
 */
enum qt_status qt_tracker_reset(struct qt_tracker *tracker);

/**
 * Makes the calling thread thread 0 of the pool the batch calls run on,
 * beside n - 1 other threads, n being `RAYON_NUM_THREADS`, else the number of
 * CPUs. A big batch call from it then starts on it at once while the others
 * take parts of it; a call from a thread outside the pool hands its work over
 * and waits, and a pool thread asleep between two calls takes 47-80 µs to
 * wake.
 *
 * Call it first thing, before any batch call has started the pool, from the
 * thread that makes most calls (a game loop's), and keep that thread alive
 * while flatquad is used. Other threads' calls are answered by the pool's
 * other threads, and by thread 0 while it waits inside a call of its own,
 * which may then finish such a call before its own returns.
 *
 * Returns true if the calling thread is thread 0, by this call or an earlier
 * one. Returns false if the pool was started already, another thread joined
 * it first, or n is 1 (`RAYON_NUM_THREADS=1`, or one CPU: every call stays on
 * its caller); and if the pool's threads could not be started, after which
 * the calling thread answers its own calls alone and other threads' big
 * batch calls return `QT_PANIC`, as they would have anyway. Any thread may
 * call it.
 */
bool qt_join_thread_pool(void);

/**
 * **Testing only**: panics inside the boundary, to prove that a Rust panic
 * comes back as `QT_PANIC` and never unwinds into C. With a tree, the panic
 * happens while the tree is being changed, so the tree is left poisoned and
 * every later call on it returns `QT_POISONED`. Prints the panic message to
 * stderr. Never call it in a program that means to keep its tree.
 */
enum qt_status qt_test_panic(struct qt_tree *tree);

/**
 * **Testing only**: [`qt_test_panic`] with the panic on a worker thread of
 * the pool the batch calls run on (rayon's), which hands it back to the
 * calling thread as it would a batch call's: `QT_PANIC` all the same, and a
 * tree given is left poisoned. Returns `QT_OK`, without panicking, if the
 * work ran on the calling thread instead (so a test can tell).
 */
enum qt_status qt_test_panic_on_worker(struct qt_tree *tree);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  /* FLATQUAD_H */

#ifndef FLATQUAD_QUERY_HELPERS_H
#define FLATQUAD_QUERY_HELPERS_H

/*
 * Query descriptions, made inline: the shape, mask QT_MASK_ALL (every
 * element) and nothing omitted; set .mask or .omit afterwards as needed.
 * Only the union member the kind names is written.
 */

/** A qt_query_desc for the elements whose closed rectangle meets `rect`. */
static inline qt_query_desc qt_rect_query(qt_rect rect);

/** A qt_query_desc for a double rectangle, each corner rounded once to float. */
static inline qt_query_desc qt_rect_d_query(qt_rect_d rect);

/** A qt_query_desc for the elements whose closed rectangle holds (x, y). */
static inline qt_query_desc qt_point_query(float x, float y);

/** A qt_query_desc for the elements at most `radius` from (x, y). */
static inline qt_query_desc qt_circle_query(float x, float y, double radius);

/** A qt_query_desc for what the element `handle` touches (filters applied). */
static inline qt_query_desc qt_element_query(qt_handle_t handle);

/** A qt_query3_desc for the elements whose closed box meets `b`. */
static inline qt_query3_desc qt_box_query(qt_box b);

/** A qt_query3_desc for the elements whose closed box holds (x, y, z). */
static inline qt_query3_desc qt_point3_query(float x, float y, float z);

/** A qt_query3_desc for the elements at most `radius` from (x, y, z). */
static inline qt_query3_desc qt_sphere_query(float x, float y, float z, double radius);

/** A qt_query3_desc for what the octree element `handle` touches. */
static inline qt_query3_desc qt_element3_query(qt_handle_t handle);

/* The helpers' bodies. */

static inline qt_query_desc qt_rect_query(qt_rect rect) {
    qt_query_desc q;
    q.kind = QT_SHAPE_RECT;
    q.shape.rect = rect;
    q.mask = QT_MASK_ALL;
    q.omit = QT_NO_HANDLE;
    return q;
}

static inline qt_query_desc qt_rect_d_query(qt_rect_d rect) {
    qt_query_desc q;
    q.kind = QT_SHAPE_RECT_D;
    q.shape.rect_d = rect;
    q.mask = QT_MASK_ALL;
    q.omit = QT_NO_HANDLE;
    return q;
}

static inline qt_query_desc qt_point_query(float x, float y) {
    qt_query_desc q;
    q.kind = QT_SHAPE_POINT;
    q.shape.point.x = x;
    q.shape.point.y = y;
    q.mask = QT_MASK_ALL;
    q.omit = QT_NO_HANDLE;
    return q;
}

static inline qt_query_desc qt_circle_query(float x, float y, double radius) {
    qt_query_desc q;
    q.kind = QT_SHAPE_CIRCLE;
    q.shape.circle.x = x;
    q.shape.circle.y = y;
    q.shape.circle.radius = radius;
    q.mask = QT_MASK_ALL;
    q.omit = QT_NO_HANDLE;
    return q;
}

static inline qt_query_desc qt_element_query(qt_handle_t handle) {
    qt_query_desc q;
    q.kind = QT_SHAPE_ELEMENT;
    q.shape.element = handle;
    q.mask = QT_MASK_ALL;
    q.omit = QT_NO_HANDLE;
    return q;
}

static inline qt_query3_desc qt_box_query(qt_box b) {
    qt_query3_desc q;
    q.kind = QT_SHAPE_BOX;
    q.shape.box = b;
    q.mask = QT_MASK_ALL;
    q.omit = QT_NO_HANDLE;
    return q;
}

static inline qt_query3_desc qt_point3_query(float x, float y, float z) {
    qt_query3_desc q;
    q.kind = QT_SHAPE_POINT;
    q.shape.point.x = x;
    q.shape.point.y = y;
    q.shape.point.z = z;
    q.mask = QT_MASK_ALL;
    q.omit = QT_NO_HANDLE;
    return q;
}

static inline qt_query3_desc qt_sphere_query(float x, float y, float z, double radius) {
    qt_query3_desc q;
    q.kind = QT_SHAPE_SPHERE;
    q.shape.sphere.x = x;
    q.shape.sphere.y = y;
    q.shape.sphere.z = z;
    q.shape.sphere.radius = radius;
    q.mask = QT_MASK_ALL;
    q.omit = QT_NO_HANDLE;
    return q;
}

static inline qt_query3_desc qt_element3_query(qt_handle_t handle) {
    qt_query3_desc q;
    q.kind = QT_SHAPE_ELEMENT;
    q.shape.element = handle;
    q.mask = QT_MASK_ALL;
    q.omit = QT_NO_HANDLE;
    return q;
}

#endif  /* FLATQUAD_QUERY_HELPERS_H */
