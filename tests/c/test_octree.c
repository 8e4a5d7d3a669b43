/* The octree's C calls (qt_octree_*): every one against a brute-force model
 * of random boxes, and every bad input refused with the status the qt_tree
 * call gives, the octree left as it was (length, snapshot bytes).
 *
 * Built with -Wall -Wextra -Werror -fsanitize=address,undefined by
 * tests/c/run.sh, and run under valgrind. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define N 400

static const qt_handle_t SENTINEL = 0x5EB71AE15EB71AEull;

static qt_box box(float x1, float y1, float z1, float x2, float y2, float z2) {
    qt_box b;
    b.x1 = x1;
    b.y1 = y1;
    b.z1 = z1;
    b.x2 = x2;
    b.y2 = y2;
    b.z2 = z2;
    return b;
}

static uint32_t rng_state = 4242;
static float rnd(void) {
    rng_state = rng_state * 1664525u + 1013904223u;
    return (float)(rng_state >> 8) * (1.0f / 16777216.0f);
}

/* A random box in [-10, 110]^3 (some outside the world), up to 12 a side. */
static qt_box random_box(void) {
    float x = rnd() * 120.0f - 10.0f, y = rnd() * 120.0f - 10.0f, z = rnd() * 120.0f - 10.0f;
    return box(x, y, z, x + rnd() * 12.0f, y + rnd() * 12.0f, z + rnd() * 12.0f);
}

static int meets(qt_box a, qt_box b) {
    return a.x1 <= b.x2 && b.x1 <= a.x2 && a.y1 <= b.y2 && b.y1 <= a.y2 && a.z1 <= b.z2 &&
           b.z1 <= a.z2;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The model: what the octree should hold. */
static qt_handle_t handles[N];
static qt_box boxes[N];
static int live[N];

static size_t brute(qt_box q, qt_handle_t omit, qt_handle_t *out) {
    size_t n = 0, i;
    for (i = 0; i < N; i++)
        if (live[i] && handles[i] != omit && meets(boxes[i], q)) out[n++] = handles[i];
    qsort(out, n, sizeof *out, cmp_u64);
    return n;
}

static int count_visit(void *user_data, qt_handle_t handle) {
    (void)handle;
    ++*(size_t *)user_data;
    return 0;
}

static int stop_visit(void *user_data, qt_handle_t handle) {
    (void)handle;
    ++*(size_t *)user_data;
    return 1;
}

static int count_pair(void *user_data, qt_handle_t a, qt_handle_t b) {
    CHECK(a != b);
    ++*(size_t *)user_data;
    return 0;
}

/* The snapshot bytes, to show that a refused call changed nothing. */
typedef struct bytes {
    uint8_t *data;
    size_t len;
} bytes;

static bytes snapshot(const qt_octree *tree) {
    bytes b = {NULL, 0};
    REQUIRE_OK(qt_octree_to_bytes(tree, NULL, 0, &b.len));
    b.data = (uint8_t *)malloc(b.len);
    REQUIRE_OK(qt_octree_to_bytes(tree, b.data, b.len, &b.len));
    return b;
}

static int unchanged(const qt_octree *tree, const bytes *before) {
    bytes now = snapshot(tree);
    int same = now.len == before->len && memcmp(now.data, before->data, now.len) == 0;
    free(now.data);
    return same;
}

static void check_all_queries(const qt_octree *tree) {
    static qt_handle_t want[N], got[N];
    size_t i, k, total, visited;
    for (k = 0; k < 60; k++) {
        qt_box q = k == 0 ? box(-FLT_MAX, -FLT_MAX, -FLT_MAX, FLT_MAX, FLT_MAX, FLT_MAX)
                          : random_box();
        qt_handle_t omit = (k % 3 == 0 && live[k]) ? handles[k] : QT_NO_HANDLE;
        size_t n = brute(q, omit, want);
        CHECK_OK(qt_octree_query(tree, QBOX(q, omit, QT_MASK_ALL), got, N, &total));
        CHECK(total == n);
        qsort(got, total, sizeof *got, cmp_u64);
        CHECK(memcmp(got, want, n * sizeof *got) == 0);
        visited = 0;
        CHECK_OK(qt_octree_query_each(tree, QBOX(q, omit, QT_MASK_ALL), count_visit, &visited));
        CHECK(visited == n);
        /* A point: the box's low corner. */
        n = brute(box(q.x1, q.y1, q.z1, q.x1, q.y1, q.z1), omit, want);
        CHECK_OK(qt_octree_query(tree, QPOINT3(q.x1, q.y1, q.z1, omit, QT_MASK_ALL), got, N, &total));
        CHECK(total == n);
        qsort(got, total, sizeof *got, cmp_u64);
        CHECK(memcmp(got, want, n * sizeof *got) == 0);
        visited = 0;
        CHECK_OK(qt_octree_query_each(tree, QPOINT3(q.x1, q.y1, q.z1, omit, QT_MASK_ALL), count_visit, &visited));
        CHECK(visited == n);
    }
    for (i = 0; i < N; i++) {
        size_t n;
        if (!live[i]) continue;
        n = brute(boxes[i], handles[i], want);
        CHECK_OK(qt_octree_query(tree, QELEM3(handles[i]), got, N, &total));
        CHECK(total == n);
        qsort(got, total, sizeof *got, cmp_u64);
        CHECK(memcmp(got, want, n * sizeof *got) == 0);
        visited = 0;
        CHECK_OK(qt_octree_query_each(tree, QELEM3(handles[i]), count_visit, &visited));
        CHECK(visited == n);
    }
    {
        size_t expected = 0, j, found = 0;
        qt_pair *pairs;
        for (i = 0; i < N; i++)
            for (j = i + 1; j < N; j++)
                if (live[i] && live[j] && meets(boxes[i], boxes[j])) expected++;
        CHECK_OK(qt_octree_query_pairs(tree, NULL, 0, &total));
        CHECK(total == expected);
        pairs = (qt_pair *)malloc((total + 1) * sizeof *pairs);
        CHECK_OK(qt_octree_query_pairs(tree, pairs, total, &total));
        for (j = 0; j < total; j++) {
            qt_box a, b;
            CHECK_OK(qt_octree_element_box(tree, pairs[j].a, &a));
            CHECK_OK(qt_octree_element_box(tree, pairs[j].b, &b));
            CHECK(meets(a, b));
        }
        free(pairs);
        CHECK_OK(qt_octree_query_pairs_each(tree, count_pair, &found));
        CHECK(found == expected);
    }
    CHECK_OK(qt_octree_validate(tree));
}

static void test_create(void) {
    qt_octree *tree = (qt_octree *)&SENTINEL;
    qt_box world = box(0, 0, 0, 100, 100, 100), got;
    uint32_t max_elements = 0, max_depth = 0;
    const qt_box bad_worlds[] = {
        box(0, 0, 0, 0, 1, 1),           box(0, 0, 1, 1, 1, 1),
        box(0, 0, 0, 1, 1, NAN),         box(0, 0, 0, 1, INFINITY, 1),
        box(0, 0, 2, 1, 1, 1),
    };
    size_t k;
    for (k = 0; k < sizeof bad_worlds / sizeof *bad_worlds; k++) {
        CHECK_STATUS(qt_octree_create(bad_worlds[k], 8, 6, &tree), QT_INVALID_WORLD);
        CHECK(tree == (qt_octree *)&SENTINEL);
    }
    CHECK_STATUS(qt_octree_create(world, 0, 6, &tree), QT_INVALID_PARAMETER);
    CHECK_STATUS(qt_octree_create(world, 8, QT_MAX_DEPTH_LIMIT + 1, &tree), QT_INVALID_PARAMETER);
    CHECK_STATUS(qt_octree_create(world, 8, 6, NULL), QT_NULL_ARGUMENT);
    CHECK(tree == (qt_octree *)&SENTINEL);
    REQUIRE_OK(qt_octree_create(world, 5, QT_OCTREE_DEFAULT_MAX_DEPTH, &tree));
    CHECK_OK(qt_octree_params(tree, &got, &max_elements, &max_depth));
    CHECK(memcmp(&got, &world, sizeof got) == 0);
    CHECK(max_elements == 5 && max_depth == QT_OCTREE_DEFAULT_MAX_DEPTH);
    CHECK_OK(qt_octree_params(tree, NULL, NULL, NULL));
    CHECK_STATUS(qt_octree_params(NULL, NULL, NULL, NULL), QT_NULL_ARGUMENT);
    CHECK(qt_octree_len(tree) == 0);
    CHECK(qt_octree_len(NULL) == 0);
    CHECK(!qt_octree_contains(NULL, 1));
    qt_octree_destroy(tree);
    qt_octree_destroy(NULL);
}

static void test_model(void) {
    qt_octree *tree = NULL, *copy = NULL, *back = NULL;
    static uint32_t ids[N];
    static qt_handle_t moved[N / 2];
    static qt_box moved_to[N / 2];
    size_t i, total;
    REQUIRE_OK(qt_octree_create(box(0, 0, 0, 100, 100, 100), 4, 6, &tree));
    /* Half one by one, half in one batch. */
    for (i = 0; i < N / 2; i++) {
        uint32_t id = 0;
        boxes[i] = random_box();
        REQUIRE_OK(qt_octree_insert(tree, boxes[i], (uint32_t)i, &handles[i]));
        live[i] = 1;
        CHECK_OK(qt_octree_element_id(tree, handles[i], &id));
        CHECK(id == i);
    }
    for (i = N / 2; i < N; i++) {
        boxes[i] = random_box();
        ids[i] = (uint32_t)i;
        live[i] = 1;
    }
    REQUIRE_OK(qt_octree_insert_many(tree, boxes + N / 2, ids + N / 2, N / 2, handles + N / 2, NULL));
    CHECK(qt_octree_len(tree) == N);
    check_all_queries(tree);
    /* Moves: one by one, then a batch. */
    for (i = 0; i < N / 4; i++) {
        boxes[i] = random_box();
        CHECK_OK(qt_octree_move(tree, handles[i], boxes[i]));
    }
    for (i = 0; i < N / 2; i++) {
        size_t at = N / 2 + i;
        boxes[at] = random_box();
        moved[i] = handles[at];
        moved_to[i] = boxes[at];
    }
    CHECK_OK(qt_octree_move_many(tree, moved, moved_to, N / 2, NULL));
    check_all_queries(tree);
    /* Removes: one by one, then a batch. */
    for (i = 0; i < N / 8; i++) {
        CHECK_OK(qt_octree_remove(tree, handles[i]));
        live[i] = 0;
        CHECK(!qt_octree_contains(tree, handles[i]));
    }
    CHECK_OK(qt_octree_remove_many(tree, handles + N / 8, N / 8, NULL));
    for (i = N / 8; i < N / 4; i++) live[i] = 0;
    CHECK(qt_octree_len(tree) == N - N / 4);
    CHECK_OK(qt_octree_cleanup(tree));
    check_all_queries(tree);
    {
        qt_handle_t *all = (qt_handle_t *)malloc(N * sizeof *all);
        CHECK_OK(qt_octree_elements(tree, all, N, &total));
        CHECK(total == N - N / 4);
        free(all);
    }
    {
        qt_tree_stats stats;
        CHECK_OK(qt_octree_stats(tree, &stats));
        CHECK(stats.elements == N - N / 4);
        CHECK(stats.leaves >= 1 && stats.nodes >= stats.leaves && stats.bytes > 0);
        CHECK(stats.max_depth_reached <= 6);
    }
    /* Clone and snapshot: equal trees, the same handles. */
    REQUIRE_OK(qt_octree_clone(tree, &copy));
    {
        bytes b = snapshot(tree);
        CHECK(unchanged(copy, &b));
        REQUIRE_OK(qt_octree_from_bytes(b.data, b.len, &back));
        CHECK(unchanged(back, &b));
        CHECK(qt_octree_len(back) == N - N / 4);
        check_all_queries(back);
        /* Truncated, damaged and 2D snapshots are refused. */
        {
            qt_octree *bad = (qt_octree *)&SENTINEL;
            qt_tree *flat = NULL;
            uint8_t flat_bytes[512];
            size_t flat_len = 0;
            qt_rect world2 = {0, 0, 1, 1};
            CHECK_STATUS(qt_octree_from_bytes(b.data, b.len - 1, &bad), QT_INVALID_BYTES);
            CHECK_STATUS(qt_octree_from_bytes(NULL, 0, &bad), QT_INVALID_BYTES);
            CHECK_STATUS(qt_octree_from_bytes(NULL, 5, &bad), QT_NULL_ARGUMENT);
            REQUIRE_OK(qt_create(world2, 8, 4, &flat));
            REQUIRE_OK(qt_to_bytes(flat, flat_bytes, sizeof flat_bytes, &flat_len));
            CHECK(flat_len <= sizeof flat_bytes);
            CHECK_STATUS(qt_octree_from_bytes(flat_bytes, flat_len, &bad), QT_INVALID_BYTES);
            CHECK(bad == (qt_octree *)&SENTINEL);
            qt_destroy(flat);
        }
        free(b.data);
    }
    CHECK_OK(qt_octree_clear(copy));
    CHECK(qt_octree_len(copy) == 0);
    CHECK(qt_octree_len(tree) == N - N / 4); /* the clone is independent */
    CHECK_OK(qt_octree_validate(copy));
    qt_octree_destroy(copy);
    qt_octree_destroy(back);
    qt_octree_destroy(tree);
}

static void test_refusals(void) {
    qt_octree *tree = NULL;
    qt_handle_t h = SENTINEL, a = 0, b = 0, batch[3];
    qt_box bad[] = {box(0, 0, 0, 1, 1, NAN), box(0, 0, 1, 1, 1, 0), box(0, 0, 0, INFINITY, 1, 1)};
    qt_box good = box(1, 1, 1, 2, 2, 2), three[3];
    uint32_t ids[3] = {7, 8, 9}, id = 99;
    size_t bad_index = 77, total = 55, k, visited = 0;
    qt_handle_t out[4] = {SENTINEL, SENTINEL, SENTINEL, SENTINEL};
    bytes before;
    REQUIRE_OK(qt_octree_create(box(0, 0, 0, 10, 10, 10), 8, 4, &tree));
    REQUIRE_OK(qt_octree_insert(tree, good, 1, &a));
    REQUIRE_OK(qt_octree_insert(tree, box(1.5f, 1.5f, 1.5f, 3, 3, 3), 2, &b));
    CHECK_OK(qt_octree_remove(tree, b));
    before = snapshot(tree);
    for (k = 0; k < 3; k++) {
        CHECK_STATUS(qt_octree_insert(tree, bad[k], 1, &h), QT_INVALID_RECT);
        CHECK_STATUS(qt_octree_move(tree, a, bad[k]), QT_INVALID_RECT);
        CHECK_STATUS(qt_octree_query(tree, QBOX(bad[k], QT_NO_HANDLE, QT_MASK_ALL), out, 4, &total), QT_INVALID_RECT);
        CHECK_STATUS(qt_octree_query_each(tree, QBOX(bad[k], QT_NO_HANDLE, QT_MASK_ALL), count_visit, &visited),
                     QT_INVALID_RECT);
    }
    CHECK(h == SENTINEL && total == 55 && visited == 0 && out[0] == SENTINEL);
    CHECK_STATUS(qt_octree_query(tree, QPOINT3(NAN, 0, 0, QT_NO_HANDLE, QT_MASK_ALL), out, 4, &total),
                 QT_INVALID_POINT);
    CHECK_STATUS(qt_octree_query_each(tree, QPOINT3(0, 0, INFINITY, QT_NO_HANDLE, QT_MASK_ALL), count_visit, &visited),
                 QT_INVALID_POINT);
    /* Stale handles: removed, never issued, 0. */
    CHECK_STATUS(qt_octree_remove(tree, b), QT_INVALID_HANDLE);
    CHECK_STATUS(qt_octree_move(tree, b, good), QT_INVALID_HANDLE);
    CHECK_STATUS(qt_octree_element_id(tree, b, &id), QT_INVALID_HANDLE);
    CHECK_STATUS(qt_octree_element_box(tree, 0, &good), QT_INVALID_HANDLE);
    CHECK_STATUS(qt_octree_query(tree, QELEM3(b), out, 4, &total), QT_INVALID_HANDLE);
    CHECK_STATUS(qt_octree_query_each(tree, QELEM3(b), count_visit, &visited), QT_INVALID_HANDLE);
    CHECK_STATUS(qt_octree_query(tree, QBOX(good, b, QT_MASK_ALL), out, 4, &total), QT_INVALID_HANDLE);
    CHECK(!qt_octree_contains(tree, b));
    CHECK(id == 99 && total == 55 && visited == 0);
    /* Batches: all or nothing, the first bad index. */
    three[0] = good;
    three[1] = good;
    three[2] = bad[1];
    CHECK_STATUS(qt_octree_insert_many(tree, three, ids, 3, batch, &bad_index), QT_INVALID_RECT);
    CHECK(bad_index == 2);
    batch[0] = a;
    batch[1] = b;
    CHECK_STATUS(qt_octree_move_many(tree, batch, three, 2, &bad_index), QT_INVALID_HANDLE);
    CHECK(bad_index == 1);
    CHECK_STATUS(qt_octree_remove_many(tree, batch, 2, &bad_index), QT_INVALID_HANDLE);
    CHECK(bad_index == 1);
    batch[1] = a;
    CHECK_STATUS(qt_octree_remove_many(tree, batch, 2, &bad_index), QT_DUPLICATE_HANDLE);
    CHECK(bad_index == 1);
    /* NULL pointers. */
    CHECK_STATUS(qt_octree_insert(NULL, good, 1, &h), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_octree_insert(tree, good, 1, NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_octree_insert_many(tree, NULL, ids, 2, batch, NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_octree_move_many(tree, batch, NULL, 1, NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_octree_remove_many(tree, NULL, 1, NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_octree_query(tree, QBOX(good, QT_NO_HANDLE, QT_MASK_ALL), NULL, 4, &total), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_octree_query(tree, QBOX(good, QT_NO_HANDLE, QT_MASK_ALL), out, 4, NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_octree_query_each(tree, QBOX(good, QT_NO_HANDLE, QT_MASK_ALL), NULL, NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_octree_query_pairs_each(tree, NULL, NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_octree_query_pairs(tree, NULL, 0, NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_octree_stats(tree, NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_octree_validate(NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_octree_cleanup(NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_octree_clear(NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_octree_clone(tree, NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_octree_to_bytes(tree, NULL, 0, NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_octree_elements(tree, NULL, 0, NULL), QT_NULL_ARGUMENT);
    CHECK(unchanged(tree, &before));
    CHECK(qt_octree_len(tree) == 1);
    /* Empty batches may pass NULL; a stopping callback gives QT_STOPPED. */
    CHECK_OK(qt_octree_insert_many(tree, NULL, NULL, 0, NULL, NULL));
    CHECK_OK(qt_octree_move_many(tree, NULL, NULL, 0, NULL));
    CHECK_OK(qt_octree_remove_many(tree, NULL, 0, NULL));
    CHECK(unchanged(tree, &before));
    CHECK_STATUS(qt_octree_query_each(tree, QBOX(good, QT_NO_HANDLE, QT_MASK_ALL), stop_visit, &visited), QT_STOPPED);
    CHECK(visited == 1);
    /* Touching counts: a face, an edge, a corner. */
    CHECK_OK(qt_octree_query(tree, QBOX(box(2, 0, 0, 3, 10, 10), QT_NO_HANDLE, QT_MASK_ALL), out, 4, &total));
    CHECK(total == 1 && out[0] == a);
    CHECK_OK(qt_octree_query(tree, QPOINT3(2, 2, 2, QT_NO_HANDLE, QT_MASK_ALL), out, 4, &total));
    CHECK(total == 1);
    CHECK_OK(qt_octree_query(tree, QPOINT3(2, 2, 2.0001f, QT_NO_HANDLE, QT_MASK_ALL), out, 4, &total));
    CHECK(total == 0);
    free(before.data);
    qt_octree_destroy(tree);
}

/* ------------------------------------------------------------ traverse */

#define MAX_NODES 4096

typedef struct {
    size_t n, calls, stop_after;
    uint32_t index[MAX_NODES], depth[MAX_NODES], count[MAX_NODES];
    int leaf[MAX_NODES];
    qt_box b[MAX_NODES];
} walk3;

static int record3(walk3 *w, uint32_t node, uint32_t depth, qt_box b, uint32_t count, int leaf) {
    w->calls++;
    if (w->n < MAX_NODES) {
        w->index[w->n] = node;
        w->depth[w->n] = depth;
        w->b[w->n] = b;
        w->count[w->n] = count;
        w->leaf[w->n] = leaf;
        w->n++;
    }
    return w->stop_after != 0 && w->calls >= w->stop_after;
}

static int on_branch3(void *user, uint32_t node, uint32_t depth, qt_box b, uint32_t count) {
    return record3((walk3 *)user, node, depth, b, count, 0);
}

static int on_leaf3(void *user, uint32_t node, uint32_t depth, qt_box b, uint32_t count) {
    return record3((walk3 *)user, node, depth, b, count, 1);
}

static int inside(qt_box inner, qt_box outer) {
    return outer.x1 <= inner.x1 && outer.y1 <= inner.y1 && outer.z1 <= inner.z1 &&
           inner.x2 <= outer.x2 && inner.y2 <= outer.y2 && inner.z2 <= outer.z2;
}

static void test_traverse(void) {
    static walk3 w;
    qt_octree *tree = NULL;
    qt_box world = box(0, 0, 0, 100, 100, 100), stack[64];
    qt_tree_stats stats;
    size_t i, links = 0, leaves = 0;
    REQUIRE_OK(qt_octree_create(world, 3, 6, &tree));
    for (i = 0; i < 200; i++) {
        float x = rnd() * 90.0f, y = rnd() * 90.0f, z = rnd() * 90.0f;
        qt_handle_t h;
        CHECK_OK(qt_octree_insert(tree, box(x, y, z, x + rnd() * 8.0f, y + rnd() * 8.0f, z + rnd() * 8.0f),
                                  (uint32_t)i, &h));
    }
    memset(&w, 0, sizeof w);
    CHECK_OK(qt_octree_traverse(tree, on_branch3, on_leaf3, &w));
    CHECK_OK(qt_octree_stats(tree, &stats));
    CHECK(w.n > 1 && w.n < MAX_NODES && w.n == w.calls);
    CHECK(w.index[0] == 0 && w.depth[0] == 0 && !w.leaf[0]);
    CHECK(memcmp(&w.b[0], &world, sizeof world) == 0);
    for (i = 0; i < w.n; i++) {
        CHECK(w.depth[i] < 64);
        if (w.depth[i] >= 64) break;
        if (i > 0) {
            CHECK(w.depth[i] >= 1 && w.depth[i] <= w.depth[i - 1] + 1);
            /* Inside its parent, the last node one level up. */
            CHECK(inside(w.b[i], stack[w.depth[i] - 1]));
        }
        stack[w.depth[i]] = w.b[i];
        if (w.leaf[i]) {
            leaves++;
            links += w.count[i];
        } else {
            CHECK(w.count[i] == 0);
        }
    }
    CHECK(leaves == stats.leaves);
    CHECK(w.n == stats.nodes);
    CHECK(links == stats.element_links);
    /* NULL callbacks skip; nonzero stops. */
    memset(&w, 0, sizeof w);
    CHECK_OK(qt_octree_traverse(tree, NULL, on_leaf3, &w));
    CHECK(w.n == leaves);
    memset(&w, 0, sizeof w);
    CHECK_OK(qt_octree_traverse(tree, NULL, NULL, &w));
    CHECK(w.n == 0);
    w.stop_after = 2;
    CHECK_STATUS(qt_octree_traverse(tree, on_branch3, on_leaf3, &w), QT_STOPPED);
    CHECK(w.calls == 2);
    CHECK_STATUS(qt_octree_traverse(NULL, on_branch3, on_leaf3, &w), QT_NULL_ARGUMENT);
    qt_octree_destroy(tree);
}

/* The octree's descriptions: the inline helpers, a batch mixing every 3D
 * kind (each row the single query's), and the refusals: a 2D or unknown
 * kind, a NULL description or array, bad shapes in a batch. */
static size_t sorted3(const qt_octree *tree, const qt_query3_desc *q, qt_handle_t *out) {
    size_t total = 0;
    REQUIRE_OK(qt_octree_query(tree, q, out, N, &total));
    qsort(out, total, sizeof *out, cmp_u64);
    return total;
}

static void test_descriptions(void) {
    qt_octree *tree = NULL;
    static qt_handle_t hs[60], rows[6 * N], one[N];
    static qt_query3_desc batch[6];
    const qt_shape_kind unknown[] = {0, QT_SHAPE_RECT, QT_SHAPE_CIRCLE, QT_SHAPE_RECT_D, 8, 99};
    size_t offsets[7], total = 0, bad_index = 0, visited = 0, i;
    qt_query3_desc q, zeroed;
    bytes before;
    REQUIRE_OK(qt_octree_create(box(0, 0, 0, 100, 100, 100), 4, 5, &tree));
    for (i = 0; i < 60; i++) REQUIRE_OK(qt_octree_insert(tree, random_box(), (uint32_t)i, &hs[i]));
    REQUIRE_OK(qt_octree_remove(tree, hs[59]));

    batch[0] = qt_box_query(box(10, 10, 10, 60, 60, 60));
    CHECK(batch[0].kind == QT_SHAPE_BOX && batch[0].mask == QT_MASK_ALL &&
          batch[0].omit == QT_NO_HANDLE && batch[0].shape.box.z2 == 60);
    batch[1] = qt_point3_query(30, 30, 30);
    CHECK(batch[1].kind == QT_SHAPE_POINT && batch[1].shape.point.z == 30);
    batch[2] = qt_sphere_query(50, 50, 50, 20.0);
    CHECK(batch[2].kind == QT_SHAPE_SPHERE && batch[2].shape.sphere.radius == 20.0);
    batch[3] = qt_element3_query(hs[4]);
    CHECK(batch[3].kind == QT_SHAPE_ELEMENT && batch[3].shape.element == hs[4]);
    batch[4] = qt_sphere_query(0, 0, 0, INFINITY);
    batch[4].omit = hs[0];
    batch[5] = qt_box_query(box(-1, -1, -1, 101, 101, 101));
    batch[5].mask = 0;
    CHECK_OK(qt_octree_query_many(tree, batch, 6, offsets, rows, 6 * N, &total, &bad_index));
    CHECK(offsets[0] == 0 && offsets[6] == total);
    for (i = 0; i < 6; i++) {
        size_t n = offsets[i + 1] - offsets[i];
        CHECK(n == sorted3(tree, &batch[i], one));
        qsort(rows + offsets[i], n, sizeof *rows, cmp_u64);
        CHECK(memcmp(rows + offsets[i], one, n * sizeof *one) == 0);
    }
    CHECK(offsets[5] - offsets[4] == 58 && offsets[6] == offsets[5]);
    /* A batch of element queries alone (each agent's in a collision loop,
     * answered as overlapping_many), each row the single query's; then a stale
     * handle in it, refused with its index. */
    {
        static qt_query3_desc elems[58];
        static size_t elem_offsets[59];
        for (i = 0; i < 58; i++) elems[i] = qt_element3_query(hs[i]);
        CHECK_OK(qt_octree_query_many(tree, elems, 58, elem_offsets, rows, 6 * N, &total, NULL));
        CHECK(elem_offsets[0] == 0 && elem_offsets[58] == total && total <= 6 * N);
        for (i = 0; i < 58; i++) {
            size_t n = elem_offsets[i + 1] - elem_offsets[i];
            CHECK(n == sorted3(tree, &elems[i], one));
            qsort(rows + elem_offsets[i], n, sizeof *rows, cmp_u64);
            CHECK(memcmp(rows + elem_offsets[i], one, n * sizeof *one) == 0);
        }
        elems[9] = qt_element3_query(hs[59]);
        bad_index = 99;
        CHECK_STATUS(qt_octree_query_many(tree, elems, 58, elem_offsets, rows, 6 * N, &total,
                                          &bad_index),
                     QT_INVALID_HANDLE);
        CHECK(bad_index == 9);
    }
    CHECK_OK(qt_octree_query_many(tree, NULL, 0, offsets, NULL, 0, &total, NULL));
    CHECK(offsets[0] == 0 && total == 0);

    before = snapshot(tree);
    memset(&zeroed, 0, sizeof zeroed);
    CHECK_STATUS(qt_octree_query(tree, &zeroed, one, N, &total), QT_INVALID_PARAMETER);
    for (i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        q = qt_box_query(box(0, 0, 0, 100, 100, 100));
        q.kind = unknown[i];
        total = 777;
        CHECK_STATUS(qt_octree_query(tree, &q, one, N, &total), QT_INVALID_PARAMETER);
        CHECK_STATUS(qt_octree_query_each(tree, &q, count_visit, &visited), QT_INVALID_PARAMETER);
        CHECK(total == 777 && visited == 0);
        batch[2] = q;
        bad_index = 99;
        offsets[0] = 777;
        CHECK_STATUS(qt_octree_query_many(tree, batch, 6, offsets, rows, 6 * N, &total, &bad_index),
                     QT_INVALID_PARAMETER);
        CHECK(bad_index == 2 && offsets[0] == 777 && total == 777);
    }
    batch[2] = qt_sphere_query(50, 50, 50, 20.0);
    CHECK_STATUS(qt_octree_query(tree, NULL, one, N, &total), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_octree_query_each(tree, NULL, count_visit, &visited), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_octree_query_many(tree, NULL, 2, offsets, rows, 6 * N, &total, &bad_index),
                 QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_octree_query_many(tree, batch, 2, NULL, rows, 6 * N, &total, &bad_index),
                 QT_NULL_ARGUMENT);
    {
        struct {
            qt_query3_desc q;
            qt_status status;
        } bad[6];
        size_t nbad = 0;
        bad[nbad].q = qt_box_query(box(0, 0, 1, 1, 1, 0));
        bad[nbad++].status = QT_INVALID_RECT;
        bad[nbad].q = qt_point3_query(0, NAN, 0);
        bad[nbad++].status = QT_INVALID_POINT;
        bad[nbad].q = qt_sphere_query(1, 1, 1, -0.5);
        bad[nbad++].status = QT_INVALID_PARAMETER;
        bad[nbad].q = qt_sphere_query(1, 1, INFINITY, 1.0);
        bad[nbad++].status = QT_INVALID_POINT;
        bad[nbad].q = qt_element3_query(hs[59]);
        bad[nbad++].status = QT_INVALID_HANDLE;
        bad[nbad].q = qt_point3_query(1, 1, 1);
        bad[nbad].q.omit = hs[59];
        bad[nbad++].status = QT_INVALID_HANDLE;
        for (i = 0; i < nbad; i++) {
            total = 777;
            CHECK_STATUS(qt_octree_query(tree, &bad[i].q, one, N, &total), bad[i].status);
            CHECK(total == 777);
            batch[4] = bad[i].q;
            bad_index = 99;
            CHECK_STATUS(qt_octree_query_many(tree, batch, 6, offsets, rows, 6 * N, &total,
                                              &bad_index),
                         bad[i].status);
            CHECK(bad_index == 4 && total == 777);
        }
    }
    CHECK(unchanged(tree, &before));
    CHECK_OK(qt_octree_validate(tree));
    free(before.data);
    qt_octree_destroy(tree);
}

/* Fat bounds on the octree: after small moves (inside the fat boxes) and
 * far ones every query still matches brute force on the own boxes; bad
 * margins are refused. */
static void test_margin(void) {
    qt_octree *tree = NULL;
    size_t i, round;
    float margin = -1;
    REQUIRE_OK(qt_octree_create(box(0, 0, 0, 100, 100, 100), 4, 6, &tree));
    CHECK_OK(qt_octree_set_margin(tree, 2.0f));
    CHECK_OK(qt_octree_get_margin(tree, &margin));
    CHECK(margin == 2.0f);
    for (i = 0; i < N; i++) {
        boxes[i] = random_box();
        REQUIRE_OK(qt_octree_insert(tree, boxes[i], (uint32_t)i, &handles[i]));
        live[i] = 1;
    }
    check_all_queries(tree);
    for (round = 0; round < 3; round++) {
        for (i = 0; i < N; i++) {
            float step = i % 8 == 0 ? 30.0f : 1.5f;
            qt_box b = boxes[i];
            float dx = (rnd() - 0.5f) * step, dy = (rnd() - 0.5f) * step, dz = (rnd() - 0.5f) * step;
            boxes[i] = box(b.x1 + dx, b.y1 + dy, b.z1 + dz, b.x2 + dx, b.y2 + dy, b.z2 + dz);
            CHECK_OK(qt_octree_move(tree, handles[i], boxes[i]));
        }
        CHECK_OK(qt_octree_validate(tree));
        check_all_queries(tree);
    }
    CHECK_STATUS(qt_octree_set_margin(tree, NAN), QT_INVALID_PARAMETER);
    CHECK_STATUS(qt_octree_set_margin(tree, -2.0f), QT_INVALID_PARAMETER);
    CHECK_STATUS(qt_octree_set_margin(NULL, 2.0f), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_octree_get_margin(tree, NULL), QT_NULL_ARGUMENT);
    CHECK_OK(qt_octree_get_margin(tree, &margin));
    CHECK(margin == 2.0f);
    qt_octree_destroy(tree);
}

int main(void) {
    test_create();
    test_model();
    test_refusals();
    test_descriptions();
    test_margin();
    test_traverse();
    return check_summary("test_octree");
}
