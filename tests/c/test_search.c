/* Collision filters, masked queries and the searches (circles, nearest
 * neighbours, ray casts), on every 2D structure and the octree, against a
 * brute-force model written here: random boxes (some degenerate, some outside
 * the world) with random filters; pairs, overlapping and masked queries
 * compared with the model; filters carried by qt_clone and the byte
 * snapshot; nearest results and ray hits compared in order (ascending
 * distance, id, handle) with distances to the bit (the oracle computes them
 * in double the way the core documents); bad input refused with nothing
 * written, no callback called and the state unchanged (the snapshot bytes
 * compared).
 *
 * The 2D and 3D calls are reached through one small dispatch layer (`ix_*`),
 * so every check is written once and runs on all six structures.
 *
 * Built with -Wall -Wextra -Werror -fsanitize=address,undefined by
 * tests/c/run.sh. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define N 300
#define WORLD 100.0f

static const qt_handle_t SENTINEL = 0x5EB71AE15EB71AEull;

/* ---------------------------------------------------------------- model */

/* A box in 2D or 3D (z ignored in 2D). */
typedef struct bx {
    float lo[3], hi[3];
} bx;

typedef struct element {
    qt_handle_t handle;
    uint32_t id;
    bx b;
    uint32_t category, mask;
    int live;
} element;

static element model[N];

/* The agents workload's LCG, for repeatable random layouts. */
static uint32_t rng_state = 777;
static uint32_t rnd_u32(void) {
    rng_state = rng_state * 1664525u + 1013904223u;
    return rng_state;
}
static float rnd(void) { return (float)(rnd_u32() >> 8) * (1.0f / 16777216.0f); }
/* A coordinate on a quarter-unit lattice, so that distances tie often. */
static float lattice(float lo, float hi) { return lo + floorf(rnd() * (hi - lo) * 4.0f) / 4.0f; }

/* Random boxes: mostly inside the world, some outside it, some points, some
 * flat on one axis. */
static bx random_box(int dims) {
    bx b;
    int a, kind = (int)(rnd_u32() % 10);
    memset(&b, 0, sizeof b);
    for (a = 0; a < dims; a++) {
        float lo = kind == 0 ? lattice(-60, 160) : lattice(0, WORLD);
        float size = kind == 1 ? 0.0f : kind == 2 && a == 0 ? 0.0f : lattice(0, 8);
        b.lo[a] = lo;
        b.hi[a] = lo + size;
    }
    return b;
}

static int meets(bx a, bx b, int dims) {
    int k;
    for (k = 0; k < dims; k++)
        if (a.lo[k] > b.hi[k] || b.lo[k] > a.hi[k]) return 0;
    return 1;
}

static int collides(const element *a, const element *b) {
    return (a->category & b->mask) != 0 && (b->category & a->mask) != 0;
}

static int passes(const element *e, uint32_t mask) {
    return mask == QT_MASK_ALL || (e->category & mask) != 0;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* A pair with the smaller handle first, for sorting and comparing. */
static qt_pair ordered(qt_handle_t a, qt_handle_t b) {
    qt_pair p;
    p.a = a < b ? a : b;
    p.b = a < b ? b : a;
    return p;
}

static int cmp_pair(const void *x, const void *y) {
    const qt_pair *p = (const qt_pair *)x, *q = (const qt_pair *)y;
    if (p->a != q->a) return (p->a > q->a) - (p->a < q->a);
    return (p->b > q->b) - (p->b < q->b);
}

/* ---------------------------------------------------------------- dispatch */

/* One index of any structure: a qt_tree (dims 2) or a qt_octree (dims 3). */
typedef struct ix {
    const char *name;
    int dims;
    qt_tree *t;
    qt_octree *o;
} ix;

static qt_rect to_rect(bx b) {
    qt_rect r;
    r.x1 = b.lo[0];
    r.y1 = b.lo[1];
    r.x2 = b.hi[0];
    r.y2 = b.hi[1];
    return r;
}

static qt_box to_box(bx b) {
    qt_box r;
    r.x1 = b.lo[0];
    r.y1 = b.lo[1];
    r.z1 = b.lo[2];
    r.x2 = b.hi[0];
    r.y2 = b.hi[1];
    r.z2 = b.hi[2];
    return r;
}

static ix make_index(int which) {
    ix x;
    qt_rect world = {0, 0, WORLD, WORLD};
    qt_box world3 = {0, 0, 0, WORLD, WORLD, WORLD};
    memset(&x, 0, sizeof x);
    x.dims = 2;
    switch (which) {
    case 0: x.name = "quadtree"; REQUIRE_OK(qt_create(world, 4, 6, &x.t)); break;
    case 1: x.name = "grid"; REQUIRE_OK(qt_create_grid(world, 16, 16, &x.t)); break;
    case 2: x.name = "loose grid"; REQUIRE_OK(qt_create_loose_grid(world, 16, 16, 8, 8, &x.t)); break;
    case 3: x.name = "loose quadtree"; REQUIRE_OK(qt_create_loose_quadtree(world, 4, 6, &x.t)); break;
    case 4:
        x.name = "loose quadtree max_extent";
        REQUIRE_OK(qt_create_loose_quadtree_max_extent(world, 4, 6, WORLD / 16, &x.t));
        break;
    default:
        x.name = "octree";
        x.dims = 3;
        REQUIRE_OK(qt_octree_create(world3, 4, 5, &x.o));
        break;
    }
    return x;
}
#define N_INDEXES 6

static void ix_destroy(ix *x) {
    if (x->t) qt_destroy(x->t);
    if (x->o) qt_octree_destroy(x->o);
}

static qt_status ix_insert(ix *x, bx b, uint32_t id, qt_handle_t *out) {
    return x->t ? qt_insert(x->t, to_rect(b), id, out) : qt_octree_insert(x->o, to_box(b), id, out);
}

static qt_status ix_remove(ix *x, qt_handle_t h) {
    return x->t ? qt_remove(x->t, h) : qt_octree_remove(x->o, h);
}

static qt_status ix_set_filter(ix *x, qt_handle_t h, uint32_t category, uint32_t mask) {
    return x->t ? qt_set_filter(x->t, h, category, mask)
                : qt_octree_set_filter(x->o, h, category, mask);
}

static qt_status ix_get_filter(const ix *x, qt_handle_t h, uint32_t *category, uint32_t *mask) {
    return x->t ? qt_get_filter(x->t, h, category, mask)
                : qt_octree_get_filter(x->o, h, category, mask);
}

static qt_status ix_set_filters(ix *x, const qt_handle_t *h, const uint32_t *categories,
                                const uint32_t *masks, size_t n, size_t *bad) {
    return x->t ? qt_set_filters(x->t, h, categories, masks, n, bad)
                : qt_octree_set_filters(x->o, h, categories, masks, n, bad);
}

static qt_status ix_pairs(const ix *x, qt_pair *out, size_t cap, size_t *total) {
    return x->t ? qt_query_pairs(x->t, out, cap, total) : qt_octree_query_pairs(x->o, out, cap, total);
}

static qt_status ix_overlapping(const ix *x, qt_handle_t h, qt_handle_t *out, size_t cap,
                                size_t *total) {
    return x->t ? qt_query(x->t, QELEM(h), out, cap, total)
                : qt_octree_query(x->o, QELEM3(h), out, cap, total);
}

static qt_status ix_query_masked(const ix *x, bx b, qt_handle_t omit, uint32_t mask,
                                 qt_handle_t *out, size_t cap, size_t *total) {
    return x->t ? qt_query(x->t, QRECT(to_rect(b), omit, mask), out, cap, total)
                : qt_octree_query(x->o, QBOX(to_box(b), omit, mask), out, cap, total);
}

static qt_status ix_query_masked_each(const ix *x, bx b, qt_handle_t omit, uint32_t mask,
                                      qt_visit_fn visit, void *user) {
    return x->t ? qt_query_each(x->t, QRECT(to_rect(b), omit, mask), visit, user)
                : qt_octree_query_each(x->o, QBOX(to_box(b), omit, mask), visit, user);
}

static qt_status ix_point_masked(const ix *x, const float *p, qt_handle_t omit, uint32_t mask,
                                 qt_handle_t *out, size_t cap, size_t *total) {
    return x->t ? qt_query(x->t, QPOINT(p[0], p[1], omit, mask), out, cap, total)
                : qt_octree_query(x->o, QPOINT3(p[0], p[1], p[2], omit, mask), out, cap, total);
}

static qt_status ix_point_masked_each(const ix *x, const float *p, qt_handle_t omit,
                                      uint32_t mask, qt_visit_fn visit, void *user) {
    return x->t ? qt_query_each(x->t, QPOINT(p[0], p[1], omit, mask), visit, user)
                : qt_octree_query_each(x->o, QPOINT3(p[0], p[1], p[2], omit, mask), visit, user);
}

/* The snapshot bytes: a refused call must leave them as they were. */
typedef struct bytes {
    unsigned char *data;
    size_t len;
} bytes;

static bytes ix_bytes(const ix *x) {
    bytes b = {NULL, 0};
    if (x->t) {
        REQUIRE_OK(qt_to_bytes(x->t, NULL, 0, &b.len));
        b.data = (unsigned char *)malloc(b.len);
        REQUIRE_OK(qt_to_bytes(x->t, b.data, b.len, &b.len));
    } else {
        REQUIRE_OK(qt_octree_to_bytes(x->o, NULL, 0, &b.len));
        b.data = (unsigned char *)malloc(b.len);
        REQUIRE_OK(qt_octree_to_bytes(x->o, b.data, b.len, &b.len));
    }
    return b;
}

static int unchanged(const ix *x, const bytes *before) {
    bytes now = ix_bytes(x);
    int same = now.len == before->len && memcmp(now.data, before->data, now.len) == 0;
    free(now.data);
    return same;
}

/* A copy through the byte snapshot, or through qt_clone. */
static ix ix_copy(const ix *x, int through_bytes) {
    ix c = *x;
    c.t = NULL;
    c.o = NULL;
    if (through_bytes) {
        bytes b = ix_bytes(x);
        if (x->t) REQUIRE_OK(qt_from_bytes(b.data, b.len, &c.t));
        else REQUIRE_OK(qt_octree_from_bytes(b.data, b.len, &c.o));
        free(b.data);
    } else if (x->t) {
        REQUIRE_OK(qt_clone(x->t, &c.t));
    } else {
        REQUIRE_OK(qt_octree_clone(x->o, &c.o));
    }
    return c;
}

/* ---------------------------------------------------------------- callbacks */

typedef struct gathered {
    qt_handle_t handles[N];
    size_t n;
} gathered;

static int gather(void *user_data, qt_handle_t handle) {
    gathered *g = (gathered *)user_data;
    if (g->n < N) g->handles[g->n] = handle;
    g->n++;
    return 0;
}

static int stop_at_first(void *user_data, qt_handle_t handle) {
    (void)handle;
    ++*(size_t *)user_data;
    return 1;
}

static int never_called(void *user_data, qt_handle_t handle) {
    (void)user_data;
    (void)handle;
    CHECK(!"a refused query called its callback");
    return 0;
}

/* ---------------------------------------------------------------- building */

/* Fills the index with N random elements and random filters: half set one by
 * one, the rest in one qt_set_filters call, a few left at the default. */
static void build(ix *x) {
    static qt_handle_t batch[N];
    static uint32_t categories[N], masks[N];
    size_t i, n = 0;
    for (i = 0; i < N; i++) {
        element *e = &model[i];
        /* Every 11th a copy of the one before: exact ties in every search. */
        e->b = i % 11 == 10 ? model[i - 1].b : random_box(x->dims);
        e->id = (uint32_t)(rnd_u32() % 50); /* repeated ids: ties are broken by handle */
        REQUIRE_OK(ix_insert(x, e->b, e->id, &e->handle));
        e->live = 1;
        e->category = QT_MASK_ALL;
        e->mask = QT_MASK_ALL;
        if (i % 7 == 0) continue; /* default filter */
        if (i % 2) {
            e->category = 1u << (rnd_u32() % 4);
            e->mask = rnd_u32() | (rnd_u32() % 3 == 0 ? QT_MASK_ALL : 0);
            CHECK_OK(ix_set_filter(x, e->handle, e->category, e->mask));
        } else {
            batch[n] = e->handle;
            categories[n] = e->category = (1u << (rnd_u32() % 4)) | (rnd_u32() % 5 == 0 ? 16u : 0u);
            masks[n] = e->mask = rnd_u32() & 0x1Fu;
            n++;
        }
    }
    CHECK_OK(ix_set_filters(x, batch, categories, masks, n, NULL));
    /* A few removals, so that some slots are stale. */
    for (i = 5; i < N; i += 37) {
        REQUIRE_OK(ix_remove(x, model[i].handle));
        model[i].live = 0;
    }
}

/* ---------------------------------------------------------------- filter checks */

static void check_filters_read_back(const ix *x) {
    size_t i;
    for (i = 0; i < N; i++) {
        uint32_t category = 0, mask = 0;
        if (!model[i].live) continue;
        CHECK_OK(ix_get_filter(x, model[i].handle, &category, &mask));
        CHECK(category == model[i].category && mask == model[i].mask);
    }
}

static void check_pairs(const ix *x) {
    static qt_pair want[N * N / 2], got[N * N / 2];
    static qt_handle_t hits[N], expect[N];
    size_t i, j, n = 0, total = 0;
    for (i = 0; i < N; i++)
        for (j = i + 1; j < N; j++)
            if (model[i].live && model[j].live && meets(model[i].b, model[j].b, x->dims) &&
                collides(&model[i], &model[j]))
                want[n++] = ordered(model[i].handle, model[j].handle);
    qsort(want, n, sizeof *want, cmp_pair);
    CHECK_OK(ix_pairs(x, got, N * N / 2, &total));
    CHECK(total == n);
    if (total > n) total = n;
    for (i = 0; i < total; i++) got[i] = ordered(got[i].a, got[i].b);
    qsort(got, total, sizeof *got, cmp_pair);
    CHECK(memcmp(got, want, total * sizeof *got) == 0);
    /* Some pairs were left out by the filters: the test means something. */
    CHECK(n > 0);
    for (i = 0; i < N; i++) {
        size_t m = 0;
        if (!model[i].live) continue;
        for (j = 0; j < N; j++)
            if (j != i && model[j].live && meets(model[i].b, model[j].b, x->dims) &&
                collides(&model[i], &model[j]))
                expect[m++] = model[j].handle;
        qsort(expect, m, sizeof *expect, cmp_u64);
        CHECK_OK(ix_overlapping(x, model[i].handle, hits, N, &total));
        CHECK(total == m);
        qsort(hits, total, sizeof *hits, cmp_u64);
        CHECK(total == m && memcmp(hits, expect, m * sizeof *hits) == 0);
    }
}

static size_t brute_masked(bx q, qt_handle_t omit, uint32_t mask, int dims, qt_handle_t *out) {
    size_t i, n = 0;
    for (i = 0; i < N; i++)
        if (model[i].live && model[i].handle != omit && meets(model[i].b, q, dims) &&
            passes(&model[i], mask))
            out[n++] = model[i].handle;
    qsort(out, n, sizeof *out, cmp_u64);
    return n;
}

static void check_masked_queries(const ix *x) {
    static qt_handle_t want[N], got[N];
    const uint32_t masks[] = {QT_MASK_ALL, 0, 1, 2, 4 | 8, 16, 0x7FFFFFFFu, 1u << 31};
    size_t k, m;
    for (k = 0; k < 40; k++) {
        bx q = random_box(x->dims), point;
        qt_handle_t omit = k % 3 == 0 && model[k].live ? model[k].handle : QT_NO_HANDLE;
        int a;
        for (a = 0; a < 3; a++) q.hi[a] += 15; /* larger than the elements */
        point = q;
        for (a = 0; a < 3; a++) point.hi[a] = point.lo[a];
        for (m = 0; m < sizeof masks / sizeof *masks; m++) {
            size_t n = brute_masked(q, omit, masks[m], x->dims, want), total = 0;
            gathered g;
            CHECK_OK(ix_query_masked(x, q, omit, masks[m], got, N, &total));
            qsort(got, total, sizeof *got, cmp_u64);
            CHECK(total == n && memcmp(got, want, n * sizeof *got) == 0);
            g.n = 0;
            CHECK_OK(ix_query_masked_each(x, q, omit, masks[m], gather, &g));
            qsort(g.handles, g.n, sizeof *g.handles, cmp_u64);
            CHECK(g.n == n && memcmp(g.handles, want, n * sizeof *got) == 0);
            if (masks[m] == 0) CHECK(n == 0);
            n = brute_masked(point, omit, masks[m], x->dims, want);
            CHECK_OK(ix_point_masked(x, point.lo, omit, masks[m], got, N, &total));
            qsort(got, total, sizeof *got, cmp_u64);
            CHECK(total == n && memcmp(got, want, n * sizeof *got) == 0);
            g.n = 0;
            CHECK_OK(ix_point_masked_each(x, point.lo, omit, masks[m], gather, &g));
            qsort(g.handles, g.n, sizeof *g.handles, cmp_u64);
            CHECK(g.n == n && memcmp(g.handles, want, n * sizeof *got) == 0);
        }
    }
    {
        /* The whole plane, stopped by the callback after one element. */
        bx all;
        size_t calls = 0;
        int a;
        for (a = 0; a < 3; a++) {
            all.lo[a] = -FLT_MAX;
            all.hi[a] = FLT_MAX;
        }
        CHECK_STATUS(ix_query_masked_each(x, all, QT_NO_HANDLE, 1, stop_at_first, &calls),
                     QT_STOPPED);
        CHECK(calls == 1);
    }
}

static void check_filters_survive_copies(const ix *x) {
    int through_bytes;
    for (through_bytes = 0; through_bytes < 2; through_bytes++) {
        ix copy = ix_copy(x, through_bytes);
        check_filters_read_back(&copy);
        check_pairs(&copy);
        ix_destroy(&copy);
    }
}

static void check_filter_refusals(ix *x) {
    static qt_handle_t handles[4];
    static uint32_t categories[4] = {1, 2, 3, 4}, masks[4] = {1, 2, 3, 4};
    bytes before = ix_bytes(x);
    qt_handle_t stale = model[5].handle; /* removed by build() */
    qt_handle_t live = model[1].handle;
    uint32_t category = 0xABCDu, mask = 0x1234u;
    size_t bad = 99, total = 77;
    qt_handle_t out[4] = {SENTINEL, SENTINEL, SENTINEL, SENTINEL};
    bx bad_box, q;
    float nan_point[3] = {NAN, 0, 0};
    int a;
    CHECK(!model[5].live && model[1].live);
    CHECK_STATUS(ix_set_filter(x, stale, 1, 1), QT_INVALID_HANDLE);
    CHECK_STATUS(ix_set_filter(x, 0, 1, 1), QT_INVALID_HANDLE);
    CHECK_STATUS(ix_set_filter(x, (qt_handle_t)1 << 52, 1, 1), QT_INVALID_HANDLE);
    CHECK_STATUS(ix_get_filter(x, stale, &category, &mask), QT_INVALID_HANDLE);
    CHECK(category == 0xABCDu && mask == 0x1234u);
    CHECK_STATUS(ix_get_filter(x, live, NULL, &mask), QT_NULL_ARGUMENT);
    CHECK_STATUS(ix_get_filter(x, live, &category, NULL), QT_NULL_ARGUMENT);
    CHECK(category == 0xABCDu && mask == 0x1234u);
    /* The batch: all or nothing, the first bad index reported. */
    handles[0] = model[1].handle;
    handles[1] = model[2].handle;
    handles[2] = stale;
    handles[3] = model[3].handle;
    CHECK_STATUS(ix_set_filters(x, handles, categories, masks, 4, &bad), QT_INVALID_HANDLE);
    CHECK(bad == 2);
    CHECK_STATUS(ix_set_filters(x, handles, NULL, masks, 4, &bad), QT_NULL_ARGUMENT);
    CHECK_STATUS(ix_set_filters(x, handles, categories, NULL, 4, NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(ix_set_filters(x, NULL, categories, masks, 4, NULL), QT_NULL_ARGUMENT);
    CHECK_OK(ix_set_filters(x, NULL, NULL, NULL, 0, NULL));
    /* Masked queries refuse what the plain ones refuse. */
    memset(&bad_box, 0, sizeof bad_box);
    bad_box.lo[0] = 2;
    bad_box.hi[0] = 1; /* inverted */
    CHECK_STATUS(ix_query_masked(x, bad_box, QT_NO_HANDLE, 1, out, 4, &total), QT_INVALID_RECT);
    CHECK_STATUS(ix_query_masked_each(x, bad_box, QT_NO_HANDLE, 1, never_called, NULL),
                 QT_INVALID_RECT);
    memset(&q, 0, sizeof q);
    for (a = 0; a < 3; a++) q.hi[a] = WORLD;
    CHECK_STATUS(ix_query_masked(x, q, stale, 1, out, 4, &total), QT_INVALID_HANDLE);
    CHECK_STATUS(ix_query_masked(x, q, QT_NO_HANDLE, 1, out, 4, NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(ix_query_masked(x, q, QT_NO_HANDLE, 1, NULL, 4, &total), QT_NULL_ARGUMENT);
    CHECK_STATUS(ix_query_masked_each(x, q, QT_NO_HANDLE, 1, NULL, NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(ix_point_masked(x, nan_point, QT_NO_HANDLE, 1, out, 4, &total), QT_INVALID_POINT);
    CHECK_STATUS(ix_point_masked_each(x, nan_point, QT_NO_HANDLE, 1, never_called, NULL),
                 QT_INVALID_POINT);
    CHECK_STATUS(ix_point_masked_each(x, q.lo, stale, 1, never_called, NULL), QT_INVALID_HANDLE);
    CHECK(total == 77 && out[0] == SENTINEL);
    CHECK(unchanged(x, &before));
    check_filters_read_back(x);
    free(before.data);
    /* NULL trees. */
    if (x->t) {
        CHECK_STATUS(qt_set_filter(NULL, live, 1, 1), QT_NULL_ARGUMENT);
        CHECK_STATUS(qt_get_filter(NULL, live, &category, &mask), QT_NULL_ARGUMENT);
        CHECK_STATUS(qt_set_filters(NULL, NULL, NULL, NULL, 0, NULL), QT_NULL_ARGUMENT);
    } else {
        CHECK_STATUS(qt_octree_set_filter(NULL, live, 1, 1), QT_NULL_ARGUMENT);
        CHECK_STATUS(qt_octree_get_filter(NULL, live, &category, &mask), QT_NULL_ARGUMENT);
        CHECK_STATUS(qt_octree_set_filters(NULL, NULL, NULL, NULL, 0, NULL), QT_NULL_ARGUMENT);
    }
}

/* A removed element's slot comes back with the default filter. */
static void check_reuse_resets(ix *x) {
    qt_handle_t h = 0;
    uint32_t category = 0, mask = 0;
    bx b = model[1].b;
    REQUIRE_OK(ix_remove(x, model[1].handle));
    model[1].live = 0;
    REQUIRE_OK(ix_insert(x, b, 9, &h));
    CHECK_OK(ix_get_filter(x, h, &category, &mask));
    CHECK(category == QT_MASK_ALL && mask == QT_MASK_ALL);
    model[1].handle = h;
    model[1].id = 9;
    model[1].category = model[1].mask = QT_MASK_ALL;
    model[1].live = 1;
}

/* ---------------------------------------------------------------- searches: oracle */

/* The distance from a point to a closed box, in double, the core's way
 * (per-axis gap, squares summed in axis order, one square root). */
static double distance_to(bx b, const float *p, int dims) {
    double sum = 0.0;
    int a;
    for (a = 0; a < dims; a++) {
        double v = (double)p[a], gap = (double)b.lo[a] - v, above = v - (double)b.hi[a];
        if (above > gap) gap = above;
        if (gap < 0.0) gap = 0.0;
        sum += gap * gap;
    }
    return sqrt(sum) + 0.0;
}

/* The direction scaled to length 1 in double. */
static void unit(const float *d, int dims, double *u) {
    double length = 0.0;
    int a;
    for (a = 0; a < dims; a++) length += (double)d[a] * (double)d[a];
    length = sqrt(length);
    for (a = 0; a < dims; a++) u[a] = (double)d[a] / length;
}

/* Where the segment first touches the closed box (the slab method in
 * double): 1 and *t, or 0 for a miss. */
static int ray_entry(bx b, const float *origin, const double *u, double max_length, int dims,
                     double *t) {
    double enter = 0.0, exit = max_length;
    int a;
    for (a = 0; a < dims; a++) {
        double o = (double)origin[a], lo = (double)b.lo[a], hi = (double)b.hi[a], t1, t2;
        if (u[a] == 0.0) {
            if (o < lo || o > hi) return 0;
            continue;
        }
        t1 = (lo - o) / u[a];
        t2 = (hi - o) / u[a];
        if (t1 > t2) {
            double s = t1;
            t1 = t2;
            t2 = s;
        }
        if (t1 > enter) enter = t1;
        if (t2 < exit) exit = t2;
    }
    if (!(enter <= exit)) return 0;
    *t = enter + 0.0;
    return 1;
}

typedef struct found {
    qt_handle_t handle;
    uint32_t id;
    double distance;
} found;

/* The documented order: ascending distance, then id, then handle. */
static int cmp_found(const void *x, const void *y) {
    const found *p = (const found *)x, *q = (const found *)y;
    if (p->distance != q->distance) return (p->distance > q->distance) - (p->distance < q->distance);
    if (p->id != q->id) return (p->id > q->id) - (p->id < q->id);
    return (p->handle > q->handle) - (p->handle < q->handle);
}

/* Every live element passing `mask` (and `keep`, when not NULL) by distance
 * to `p`, at most `max_distance`, sorted. */
static size_t brute_nearest(const float *p, double max_distance, uint32_t mask, int dims,
                            int (*keep)(qt_handle_t), found *out) {
    size_t i, n = 0;
    for (i = 0; i < N; i++) {
        double d;
        if (!model[i].live || !passes(&model[i], mask)) continue;
        if (keep && !keep(model[i].handle)) continue;
        d = distance_to(model[i].b, p, dims);
        if (d <= max_distance) {
            out[n].handle = model[i].handle;
            out[n].id = model[i].id;
            out[n].distance = d;
            n++;
        }
    }
    qsort(out, n, sizeof *out, cmp_found);
    return n;
}

static size_t brute_ray(const float *origin, const float *direction, double max_length,
                        uint32_t mask, int dims, found *out) {
    double u[3] = {0, 0, 0}, t;
    size_t i, n = 0;
    unit(direction, dims, u);
    for (i = 0; i < N; i++) {
        if (!model[i].live || !passes(&model[i], mask)) continue;
        if (ray_entry(model[i].b, origin, u, max_length, dims, &t)) {
            out[n].handle = model[i].handle;
            out[n].id = model[i].id;
            out[n].distance = t;
            n++;
        }
    }
    qsort(out, n, sizeof *out, cmp_found);
    return n;
}

/* Where `moving` moved by t * motion first touches `b`, t in [0, 1] (the
 * core's sweep: per axis, t * d between b.lo - moving.hi and b.hi - moving.lo). */
static int sweep_entry(bx b, bx moving, const float *motion, int dims, double *t) {
    double enter = 0.0, exit = 1.0;
    int a;
    for (a = 0; a < dims; a++) {
        double d = (double)motion[a];
        double lo = (double)b.lo[a] - (double)moving.hi[a], hi = (double)b.hi[a] - (double)moving.lo[a];
        double t1, t2;
        if (d == 0.0) {
            if (lo > 0.0 || hi < 0.0) return 0;
            continue;
        }
        t1 = lo / d;
        t2 = hi / d;
        if (t1 > t2) {
            double s = t1;
            t1 = t2;
            t2 = s;
        }
        if (t1 > enter) enter = t1;
        if (t2 < exit) exit = t2;
    }
    if (!(enter <= exit)) return 0;
    *t = enter + 0.0;
    return 1;
}

static size_t brute_box_cast(bx moving, const float *motion, uint32_t mask, qt_handle_t omit,
                             int dims, found *out) {
    double t;
    size_t i, n = 0;
    for (i = 0; i < N; i++) {
        if (!model[i].live || !passes(&model[i], mask) || model[i].handle == omit) continue;
        if (sweep_entry(model[i].b, moving, motion, dims, &t)) {
            out[n].handle = model[i].handle;
            out[n].id = model[i].id;
            out[n].distance = t; /* the fraction */
            n++;
        }
    }
    qsort(out, n, sizeof *out, cmp_found);
    return n;
}

/* ---------------------------------------------------------------- searches: dispatch */

static size_t ix_len(const ix *x) { return x->t ? qt_len(x->t) : qt_octree_len(x->o); }

static qt_status ix_circle(const ix *x, const float *p, double r, uint32_t mask, qt_handle_t *out,
                           size_t cap, size_t *total) {
    return x->t ? qt_query(x->t, QCIRCLE(p[0], p[1], r, mask), out, cap, total)
                : qt_octree_query(x->o, QSPHERE(p[0], p[1], p[2], r, mask), out, cap, total);
}

static qt_status ix_circle_each(const ix *x, const float *p, double r, uint32_t mask,
                                qt_visit_fn visit, void *user) {
    return x->t ? qt_query_each(x->t, QCIRCLE(p[0], p[1], r, mask), visit, user)
                : qt_octree_query_each(x->o, QSPHERE(p[0], p[1], p[2], r, mask), visit, user);
}

/* A batch of circle (sphere) queries: one description each, in compressed
 * rows by qt_query_many. NULL centers give NULL descriptions. */
static qt_status ix_circle_many(const ix *x, const float *centers, const double *radii,
                                size_t count, uint32_t mask, size_t *offsets, qt_handle_t *out,
                                size_t cap, size_t *total, size_t *bad) {
    static qt_query_desc q2[64];
    static qt_query3_desc q3[64];
    size_t i;
    if (count > 64) return QT_INVALID_PARAMETER;
    for (i = 0; centers && i < count; i++) {
        const float *c = centers + i * (size_t)x->dims;
        if (x->t) {
            q2[i] = qt_circle_query(c[0], c[1], radii[i]);
            q2[i].mask = mask;
        } else {
            q3[i] = qt_sphere_query(c[0], c[1], c[2], radii[i]);
            q3[i].mask = mask;
        }
    }
    return x->t ? qt_query_many(x->t, centers ? q2 : NULL, count, offsets, out, cap, total, bad)
                : qt_octree_query_many(x->o, centers ? q3 : NULL, count, offsets, out, cap, total,
                                       bad);
}

static qt_status ix_nearest(const ix *x, const float *p, size_t k, double max_distance,
                            uint32_t mask, qt_handle_t *out, double *distances, size_t *count) {
    return x->t ? qt_nearest(x->t, p[0], p[1], k, max_distance, mask, out, distances, count)
                : qt_octree_nearest(x->o, p[0], p[1], p[2], k, max_distance, mask, out, distances,
                                    count);
}

static qt_status ix_nearest_with(const ix *x, const float *p, size_t k, double max_distance,
                                 uint32_t mask, qt_accept_fn accept, void *user, qt_handle_t *out,
                                 double *distances, size_t *count) {
    return x->t ? qt_nearest_with(x->t, p[0], p[1], k, max_distance, mask, accept, user, out,
                                  distances, count)
                : qt_octree_nearest_with(x->o, p[0], p[1], p[2], k, max_distance, mask, accept,
                                         user, out, distances, count);
}

static qt_status ix_nearest_many(const ix *x, const float *points, size_t count, size_t k,
                                 double max_distance, uint32_t mask, size_t *offsets,
                                 qt_handle_t *out, double *distances, size_t cap, size_t *total,
                                 size_t *bad) {
    return x->t ? qt_nearest_many(x->t, points, count, k, max_distance, mask, offsets, out,
                                  distances, cap, total, bad)
                : qt_octree_nearest_many(x->o, points, count, k, max_distance, mask, offsets, out,
                                         distances, cap, total, bad);
}

static qt_ray ray2(const float *o, const float *d, double max_length) {
    qt_ray r;
    r.x = o[0];
    r.y = o[1];
    r.dx = d[0];
    r.dy = d[1];
    r.max_length = max_length;
    return r;
}

static qt_ray3 ray3(const float *o, const float *d, double max_length) {
    qt_ray3 r;
    r.x = o[0];
    r.y = o[1];
    r.z = o[2];
    r.dx = d[0];
    r.dy = d[1];
    r.dz = d[2];
    r.max_length = max_length;
    return r;
}

static qt_status ix_ray(const ix *x, const float *o, const float *d, double max_length,
                        uint32_t mask, qt_ray_hit *hit, bool *hit_found) {
    return x->t ? qt_ray_cast(x->t, ray2(o, d, max_length), mask, hit, hit_found)
                : qt_octree_ray_cast(x->o, ray3(o, d, max_length), mask, hit, hit_found);
}

static qt_status ix_ray_all(const ix *x, const float *o, const float *d, double max_length,
                            uint32_t mask, qt_ray_hit *hits, size_t cap, size_t *total) {
    return x->t ? qt_ray_cast_all(x->t, ray2(o, d, max_length), mask, hits, cap, total)
                : qt_octree_ray_cast_all(x->o, ray3(o, d, max_length), mask, hits, cap, total);
}

static qt_status ix_ray_each(const ix *x, const float *o, const float *d, double max_length,
                             uint32_t mask, qt_ray_fn visit, void *user) {
    return x->t ? qt_ray_cast_each(x->t, ray2(o, d, max_length), mask, visit, user)
                : qt_octree_ray_cast_each(x->o, ray3(o, d, max_length), mask, visit, user);
}

/* The batch: rays2 (2D) or rays3 (3D) of `count`, by the index's dimension. */
static qt_status ix_ray_many(const ix *x, const qt_ray *rays2, const qt_ray3 *rays3, size_t count,
                             uint32_t mask, qt_ray_hit *hits, size_t *bad) {
    return x->t ? qt_ray_cast_many(x->t, rays2, count, mask, hits, bad)
                : qt_octree_ray_cast_many(x->o, rays3, count, mask, hits, bad);
}

static qt_status ix_box_cast(const ix *x, bx b, const float *m, uint32_t mask, qt_handle_t omit,
                             qt_ray_hit *hit, bool *hit_found) {
    return x->t ? qt_box_cast(x->t, to_rect(b), m[0], m[1], mask, omit, hit, hit_found)
                : qt_octree_box_cast(x->o, to_box(b), m[0], m[1], m[2], mask, omit, hit, hit_found);
}

static qt_status ix_box_cast_all(const ix *x, bx b, const float *m, uint32_t mask,
                                 qt_handle_t omit, qt_ray_hit *hits, size_t cap, size_t *total) {
    return x->t ? qt_box_cast_all(x->t, to_rect(b), m[0], m[1], mask, omit, hits, cap, total)
                : qt_octree_box_cast_all(x->o, to_box(b), m[0], m[1], m[2], mask, omit, hits, cap,
                                         total);
}

/* ---------------------------------------------------------------- searches: callbacks */

static int even_handle(qt_handle_t h) { return (int)(h % 2 == 0); }

/* Accepts even handles, and records the order it was asked in. */
typedef struct asked {
    found seen[N];
    size_t n;
    int (*keep)(qt_handle_t);
} asked;

static int accept_even(void *user_data, qt_handle_t handle) {
    asked *a = (asked *)user_data;
    if (a->n < N) a->seen[a->n].handle = handle;
    a->n++;
    return even_handle(handle);
}

static int accept_never_called(void *user_data, qt_handle_t handle) {
    (void)user_data;
    (void)handle;
    CHECK(!"a refused nearest search called its filter");
    return 1;
}

/* What a ray callback returns: `first` for the first hit, `rest` after. A
 * `first` of 2 (no such fraction) means "the hit's own fraction". */
typedef struct steer {
    double first, rest;
    qt_ray_hit hits[N];
    size_t n;
} steer;

static double steer_ray(void *user_data, qt_ray_hit hit) {
    steer *s = (steer *)user_data;
    if (s->n < N) s->hits[s->n] = hit;
    s->n++;
    if (s->n > 1) return s->rest;
    return s->first == 2.0 ? hit.fraction : s->first;
}

static double ray_never_called(void *user_data, qt_ray_hit hit) {
    (void)user_data;
    (void)hit;
    CHECK(!"a refused ray cast called its callback");
    return 1.0;
}

/* ---------------------------------------------------------------- searches: checks */

static const uint32_t SEARCH_MASKS[] = {QT_MASK_ALL, 1, 2 | 4, 16, 0};
#define N_SEARCH_MASKS (sizeof SEARCH_MASKS / sizeof *SEARCH_MASKS)

static void random_point(int dims, float *p) {
    int a;
    p[0] = p[1] = p[2] = 0;
    for (a = 0; a < dims; a++) p[a] = rnd_u32() % 3 ? lattice(-20, 120) : rnd() * 140 - 20;
}

/* How many compared results tied with the one before (equal distances): the
 * order's tie-breaks were exercised when this is not 0. */
static size_t ties_seen;

static int same_found(const found *want, size_t n, const qt_handle_t *handles,
                      const double *distances) {
    size_t i;
    for (i = 1; i < n; i++) ties_seen += want[i].distance == want[i - 1].distance;
    for (i = 0; i < n; i++)
        if (want[i].handle != handles[i] || (distances && want[i].distance != distances[i]))
            return 0;
    return 1;
}

static void check_circles(const ix *x) {
    static qt_handle_t got[N], expect[N];
    static float centers[40 * 3];
    static double radii[40];
    static size_t offsets[41];
    static qt_handle_t rows[40 * N];
    size_t q, m, i, total, bad;
    for (m = 0; m < N_SEARCH_MASKS; m++) {
        uint32_t mask = SEARCH_MASKS[m];
        for (q = 0; q < 40; q++) {
            float *p = centers + q * (size_t)x->dims;
            double r = q == 0 ? INFINITY : q == 1 ? 0.0 : q % 5 == 0 ? (double)lattice(0, 10)
                                                                      : rnd() * 30.0;
            size_t n = 0;
            gathered g;
            random_point(x->dims, p);
            radii[q] = r;
            for (i = 0; i < N; i++)
                if (model[i].live && passes(&model[i], mask) &&
                    distance_to(model[i].b, p, x->dims) <= r)
                    expect[n++] = model[i].handle;
            qsort(expect, n, sizeof *expect, cmp_u64);
            CHECK_OK(ix_circle(x, p, r, mask, got, N, &total));
            qsort(got, total < N ? total : N, sizeof *got, cmp_u64);
            CHECK(total == n && memcmp(got, expect, n * sizeof *got) == 0);
            g.n = 0;
            CHECK_OK(ix_circle_each(x, p, r, mask, gather, &g));
            qsort(g.handles, g.n, sizeof *g.handles, cmp_u64);
            CHECK(g.n == n && memcmp(g.handles, expect, n * sizeof *got) == 0);
        }
        /* The batch, in compressed rows: each row the single query's. */
        CHECK_OK(ix_circle_many(x, centers, radii, 40, mask, offsets, rows, 40 * N, &total, NULL));
        CHECK(offsets[0] == 0 && offsets[40] == total);
        for (q = 0; q < 40; q++) {
            size_t n = offsets[q + 1] - offsets[q];
            CHECK_OK(ix_circle(x, centers + q * (size_t)x->dims, radii[q], mask, got, N, &total));
            qsort(got, total, sizeof *got, cmp_u64);
            qsort(rows + offsets[q], n, sizeof *rows, cmp_u64);
            CHECK(n == total && memcmp(rows + offsets[q], got, n * sizeof *got) == 0);
        }
        /* Counting first (capacity 0), then a buffer too small. */
        {
            size_t all = offsets[40];
            CHECK_OK(ix_circle_many(x, centers, radii, 40, mask, offsets, NULL, 0, &total, NULL));
            CHECK(total == all);
        }
    }
    /* A bad radius or center in the batch: its index, nothing written. */
    {
        size_t offsets_before = offsets[3] = 777;
        radii[3] = -1.0;
        bad = 99;
        CHECK_STATUS(ix_circle_many(x, centers, radii, 40, 1, offsets, rows, 40 * N, &total, &bad),
                     QT_INVALID_PARAMETER);
        CHECK(bad == 3 && offsets[3] == offsets_before);
        radii[3] = 1.0;
        centers[5 * (size_t)x->dims + 1] = NAN;
        CHECK_STATUS(ix_circle_many(x, centers, radii, 40, 1, offsets, rows, 40 * N, &total, &bad),
                     QT_INVALID_POINT);
        CHECK(bad == 5 && offsets[3] == offsets_before);
        CHECK_STATUS(ix_circle_many(x, centers, radii, 40, 1, NULL, rows, 40 * N, &total, &bad),
                     QT_NULL_ARGUMENT);
        CHECK_STATUS(ix_circle_many(x, centers, radii, 0, 1, NULL, NULL, 0, &total, NULL),
                     QT_NULL_ARGUMENT); /* offsets hold count + 1 = 1 item */
        CHECK_OK(ix_circle_many(x, NULL, NULL, 0, 1, offsets, NULL, 0, &total, NULL));
        CHECK(offsets[0] == 0 && total == 0);
    }
}

static void check_nearest(const ix *x) {
    static found want[N];
    static qt_handle_t got[N], rows[30 * 12];
    static double distances[N], row_distances[30 * 12];
    static float points[30 * 3];
    static size_t offsets[31];
    const size_t ks[] = {1, 3, 12, 0, N + 5};
    size_t q, m, total, count;
    for (m = 0; m < N_SEARCH_MASKS; m++) {
        uint32_t mask = SEARCH_MASKS[m];
        for (q = 0; q < 30; q++) {
            float *p = points + q * (size_t)x->dims;
            size_t k = ks[q % 5];
            double max_distance = q % 3 == 0 ? INFINITY : q % 3 == 1 ? 12.5 : 0.0;
            size_t n;
            asked a;
            random_point(x->dims, p);
            n = brute_nearest(p, max_distance, mask, x->dims, NULL, want);
            if (n > k) n = k;
            count = 12345;
            CHECK_OK(ix_nearest(x, p, k, max_distance, mask, got, distances, &count));
            CHECK(count == n && same_found(want, n, got, distances));
            CHECK_OK(ix_nearest(x, p, k, max_distance, mask, got, NULL, &count));
            CHECK(count == n && same_found(want, n, got, NULL));
            /* The filter: only even handles count towards k, asked in order. */
            n = brute_nearest(p, max_distance, mask, x->dims, even_handle, want);
            if (n > k) n = k;
            a.n = 0;
            CHECK_OK(ix_nearest_with(x, p, k, max_distance, mask, accept_even, &a, got, distances,
                                     &count));
            CHECK(count == n && same_found(want, n, got, distances));
            if (n == k && n > 0) CHECK(a.n >= n && a.seen[a.n - 1].handle == got[n - 1]);
        }
        /* The batch: each row is the single search's. */
        CHECK_OK(ix_nearest_many(x, points, 30, 12, 40.0, mask, offsets, rows, row_distances,
                                 30 * 12, &total, NULL));
        CHECK(offsets[0] == 0 && offsets[30] == total);
        for (q = 0; q < 30; q++) {
            size_t n = offsets[q + 1] - offsets[q];
            CHECK_OK(ix_nearest(x, points + q * (size_t)x->dims, 12, 40.0, mask, got, distances,
                                &count));
            CHECK(n == count && memcmp(rows + offsets[q], got, n * sizeof *got) == 0 &&
                  memcmp(row_distances + offsets[q], distances, n * sizeof *distances) == 0);
        }
    }
    {
        size_t bad = 99;
        float keep = points[4 * (size_t)x->dims];
        offsets[0] = 777;
        points[4 * (size_t)x->dims] = INFINITY;
        CHECK_STATUS(ix_nearest_many(x, points, 30, 2, INFINITY, QT_MASK_ALL, offsets, rows, NULL,
                                     30 * 12, &total, &bad),
                     QT_INVALID_POINT);
        CHECK(bad == 4 && offsets[0] == 777);
        points[4 * (size_t)x->dims] = keep;
        bad = 99;
        CHECK_STATUS(ix_nearest_many(x, points, 30, 2, NAN, QT_MASK_ALL, offsets, rows, NULL,
                                     30 * 12, &total, &bad),
                     QT_INVALID_PARAMETER);
        CHECK(bad == 99 && offsets[0] == 777);
        CHECK_STATUS(ix_nearest_many(x, points, 30, 2, -1.0, QT_MASK_ALL, offsets, rows, NULL,
                                     30 * 12, &total, NULL),
                     QT_INVALID_PARAMETER);
        /* Rows past the capacity are counted, not written. */
        CHECK_OK(ix_nearest_many(x, points, 30, 2, INFINITY, QT_MASK_ALL, offsets, rows, NULL, 3,
                                 &total, NULL));
        CHECK(total == offsets[30] && total > 3);
    }
}

/* qt_ray_cast_many: each ray's first hit as qt_ray_cast gives it, a miss as
 * QT_NO_HANDLE with infinite distance; 1,500 rays, so on every core (one
 * core: the serial path); a bad ray refused at its index, nothing written. */
#define RAY_BATCH 1500
static void check_ray_batch(const ix *x) {
    static qt_ray rays2[RAY_BATCH];
    static qt_ray3 rays3[RAY_BATCH];
    static float origins[RAY_BATCH][3], directions[RAY_BATCH][3];
    static double lengths[RAY_BATCH];
    static qt_ray_hit hits[RAY_BATCH];
    size_t i, bad = 0, hit = 0;
    uint32_t mask = SEARCH_MASKS[1];
    int a;
    for (i = 0; i < RAY_BATCH; i++) {
        random_point(x->dims, origins[i]);
        for (a = 0; a < 3; a++) directions[i][a] = a < x->dims ? rnd() * 2 - 1 : 0.0f;
        directions[i][0] += 0.01f;
        lengths[i] = i % 5 == 0 ? 0.0 : rnd() * 120.0;
        rays2[i] = ray2(origins[i], directions[i], lengths[i]);
        rays3[i] = ray3(origins[i], directions[i], lengths[i]);
    }
    CHECK_OK(ix_ray_many(x, rays2, rays3, RAY_BATCH, mask, hits, &bad));
    for (i = 0; i < RAY_BATCH; i++) {
        qt_ray_hit first;
        bool found = false;
        CHECK_OK(ix_ray(x, origins[i], directions[i], lengths[i], mask, &first, &found));
        if (found) {
            hit++;
            CHECK(hits[i].handle == first.handle && hits[i].id == first.id &&
                  hits[i].distance == first.distance && hits[i].fraction == first.fraction);
        } else {
            CHECK(hits[i].handle == QT_NO_HANDLE && hits[i].id == 0 &&
                  isinf(hits[i].distance) && isinf(hits[i].fraction));
        }
    }
    CHECK(hit > 0 && hit < RAY_BATCH);
    /* A zero direction at 777: refused there, the hits as they were. */
    rays2[777].dx = rays2[777].dy = 0.0f;
    rays3[777].dx = rays3[777].dy = rays3[777].dz = 0.0f;
    hits[0].handle = 12345;
    CHECK_STATUS(ix_ray_many(x, rays2, rays3, RAY_BATCH, mask, hits, &bad),
                 QT_INVALID_PARAMETER);
    CHECK(bad == 777 && hits[0].handle == 12345);
    CHECK_STATUS(ix_ray_many(x, NULL, NULL, 3, mask, hits, NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(ix_ray_many(x, rays2, rays3, 3, mask, NULL, NULL), QT_NULL_ARGUMENT);
    CHECK_OK(ix_ray_many(x, NULL, NULL, 0, mask, NULL, NULL));
}

static void check_rays(const ix *x) {
    static found want[N];
    static qt_ray_hit hits[N];
    size_t q, m, i, total;
    for (m = 0; m < N_SEARCH_MASKS; m++) {
        uint32_t mask = SEARCH_MASKS[m];
        for (q = 0; q < 60; q++) {
            float o[3], d[3] = {0, 0, 0};
            double max_length = q % 7 == 0 ? 0.0 : q % 2 ? 200.0 : rnd() * 80.0;
            size_t n;
            qt_ray_hit first;
            bool hit_found = false;
            steer s;
            int a;
            random_point(x->dims, o);
            if (q % 10 == 3 && model[q].live) /* from inside an element */
                for (a = 0; a < x->dims; a++) o[a] = model[q].b.lo[a];
            if (q % 4 == 0) { /* along an axis (exact, and often along edges) */
                d[rnd_u32() % (uint32_t)x->dims] = rnd_u32() % 2 ? 1.0f : -3.0f;
            } else if (q % 4 == 1) { /* a diagonal */
                for (a = 0; a < x->dims; a++) d[a] = rnd_u32() % 2 ? 1.0f : -1.0f;
            } else {
                for (a = 0; a < x->dims; a++) d[a] = rnd() * 2 - 1;
                d[0] += 0.01f;
            }
            n = brute_ray(o, d, max_length, mask, x->dims, want);
            CHECK_OK(ix_ray_all(x, o, d, max_length, mask, hits, N, &total));
            CHECK(total == n);
            for (i = 0; i < n && i < total; i++) {
                ties_seen += i > 0 && want[i].distance == want[i - 1].distance;
                CHECK(hits[i].handle == want[i].handle && hits[i].id == want[i].id &&
                      hits[i].distance == want[i].distance &&
                      hits[i].fraction == (max_length > 0 ? want[i].distance / max_length : 0.0));
            }
            CHECK_OK(ix_ray(x, o, d, max_length, mask, &first, &hit_found));
            CHECK(hit_found == (n > 0));
            if (n > 0) CHECK(first.handle == want[0].handle && first.distance == want[0].distance);
            /* The callback: go on (1 and -1), stop (0), clip at the first hit. */
            s.first = 1.0, s.rest = 1.0, s.n = 0;
            CHECK_OK(ix_ray_each(x, o, d, max_length, mask, steer_ray, &s));
            CHECK(s.n == n);
            for (i = 0; i < n; i++) CHECK(s.hits[i].handle == want[i].handle);
            s.first = -1.0, s.rest = -1.0, s.n = 0;
            CHECK_OK(ix_ray_each(x, o, d, max_length, mask, steer_ray, &s));
            CHECK(s.n == n);
            s.first = 0.0, s.n = 0;
            CHECK_STATUS(ix_ray_each(x, o, d, max_length, mask, steer_ray, &s),
                         n > 0 ? QT_STOPPED : QT_OK);
            CHECK(s.n == (n > 0));
            if (n > 0) {
                size_t expect = 1;
                /* Clip at the hit: its ties still come. A hit at fraction 0
                 * returns 0, which stops (Box2D's convention). */
                s.first = 2.0, s.rest = 1.0, s.n = 0;
                if (want[0].distance > 0 && max_length > 0) {
                    CHECK_OK(ix_ray_each(x, o, d, max_length, mask, steer_ray, &s));
                    while (expect < n && want[expect].distance <= want[0].distance) expect++;
                } else {
                    CHECK_STATUS(ix_ray_each(x, o, d, max_length, mask, steer_ray, &s), QT_STOPPED);
                }
                CHECK(s.n == expect);
                if (max_length > 0) {
                    double length = 0.5 * max_length;
                    s.first = 0.5, s.n = 0; /* clip halfway */
                    CHECK_OK(ix_ray_each(x, o, d, max_length, mask, steer_ray, &s));
                    expect = 1;
                    while (expect < n && want[expect].distance <= length) expect++;
                    CHECK(s.n == expect);
                }
            }
        }
    }
}

static void check_box_casts(const ix *x) {
    static found want[N];
    static qt_ray_hit hits[N];
    size_t q, m, i, total, n;
    for (m = 0; m < N_SEARCH_MASKS; m++) {
        uint32_t mask = SEARCH_MASKS[m];
        for (q = 0; q < 60; q++) {
            float motion[3] = {0, 0, 0};
            double length = 0.0;
            qt_ray_hit first;
            bool hit_found = false;
            qt_handle_t omit = q % 3 == 0 && model[q].live ? model[q].handle : QT_NO_HANDLE;
            bx moving = q % 5 == 0 && model[q].live ? model[q].b : random_box(x->dims);
            int a;
            for (a = 0; a < x->dims; a++) {
                float reach = q % 4 == 0 ? 0.0f : q % 4 == 1 ? 7.5f : q % 4 == 2 ? 60.0f : 300.0f;
                motion[a] = rnd_u32() % 3 ? (rnd() * 2 - 1) * reach : 0.0f;
                length += (double)motion[a] * (double)motion[a];
            }
            length = sqrt(length);
            n = brute_box_cast(moving, motion, mask, omit, x->dims, want);
            CHECK_OK(ix_box_cast_all(x, moving, motion, mask, omit, hits, N, &total));
            CHECK(total == n);
            for (i = 0; i < n && i < total; i++) {
                ties_seen += i > 0 && want[i].distance == want[i - 1].distance;
                CHECK(hits[i].handle == want[i].handle && hits[i].id == want[i].id &&
                      hits[i].fraction == want[i].distance &&
                      hits[i].distance == want[i].distance * length);
            }
            CHECK_OK(ix_box_cast(x, moving, motion, mask, omit, &first, &hit_found));
            CHECK(hit_found == (n > 0));
            if (n > 0) CHECK(first.handle == want[0].handle && first.fraction == want[0].distance);
            /* Counting first: a NULL buffer of capacity 0. */
            CHECK_OK(ix_box_cast_all(x, moving, motion, mask, omit, NULL, 0, &total));
            CHECK(total == n);
        }
    }
}

static void check_box_cast_refusals(const ix *x) {
    qt_ray_hit hit, hits[4];
    bool hit_found = true;
    size_t total = 99;
    bx good = {{1, 1, 1}, {2, 2, 2}}, inverted = {{5, 5, 5}, {1, 1, 1}}, nan_box = good;
    float motion[3] = {1, 0, 0}, inf_motion[3] = {INFINITY, 0, 0}, nan_motion[3] = {0, NAN, 0};
    nan_box.lo[0] = NAN;
    CHECK_STATUS(ix_box_cast(x, inverted, motion, QT_MASK_ALL, QT_NO_HANDLE, &hit, &hit_found),
                 QT_INVALID_RECT);
    CHECK_STATUS(ix_box_cast_all(x, nan_box, motion, QT_MASK_ALL, QT_NO_HANDLE, hits, 4, &total),
                 QT_INVALID_RECT);
    CHECK_STATUS(ix_box_cast(x, good, inf_motion, QT_MASK_ALL, QT_NO_HANDLE, &hit, &hit_found),
                 QT_INVALID_PARAMETER);
    CHECK_STATUS(ix_box_cast_all(x, good, nan_motion, QT_MASK_ALL, QT_NO_HANDLE, hits, 4, &total),
                 QT_INVALID_PARAMETER);
    CHECK_STATUS(ix_box_cast(x, good, motion, QT_MASK_ALL, SENTINEL, &hit, &hit_found),
                 QT_INVALID_HANDLE);
    CHECK(hit_found == true && total == 99); /* nothing written */
    CHECK_STATUS(x->t ? qt_box_cast(x->t, to_rect(good), 1, 0, QT_MASK_ALL, QT_NO_HANDLE, NULL,
                                    &hit_found)
                      : qt_octree_box_cast(x->o, to_box(good), 1, 0, 0, QT_MASK_ALL, QT_NO_HANDLE,
                                           NULL, &hit_found),
                 QT_NULL_ARGUMENT);
    CHECK_STATUS(x->t ? qt_box_cast(NULL, to_rect(good), 1, 0, QT_MASK_ALL, QT_NO_HANDLE, &hit,
                                    &hit_found)
                      : qt_octree_box_cast(NULL, to_box(good), 1, 0, 0, QT_MASK_ALL, QT_NO_HANDLE,
                                           &hit, &hit_found),
                 QT_NULL_ARGUMENT);
}

static void check_search_refusals(const ix *x) {
    bytes before = ix_bytes(x);
    float p[3] = {50, 50, 50}, nan_p[3] = {50, NAN, 50}, inf_p[3] = {INFINITY, 0, 0};
    float d[3] = {1, 0, 0}, zero[3] = {0, 0, 0}, nan_d[3] = {1, NAN, 0}, inf_d[3] = {0, -INFINITY, 0};
    qt_handle_t out[4] = {SENTINEL, SENTINEL, SENTINEL, SENTINEL};
    double distances[4] = {-7, -7, -7, -7};
    size_t total = 77, count = 77, offsets[2] = {77, 77};
    qt_ray_hit hit;
    bool hit_found = true;
    asked a;
    memset(&hit, 0xAB, sizeof hit);
    a.n = 0;
    /* Circles. */
    CHECK_STATUS(ix_circle(x, nan_p, 1, QT_MASK_ALL, out, 4, &total), QT_INVALID_POINT);
    CHECK_STATUS(ix_circle(x, inf_p, 1, QT_MASK_ALL, out, 4, &total), QT_INVALID_POINT);
    CHECK_STATUS(ix_circle(x, p, NAN, QT_MASK_ALL, out, 4, &total), QT_INVALID_PARAMETER);
    CHECK_STATUS(ix_circle(x, p, -1, QT_MASK_ALL, out, 4, &total), QT_INVALID_PARAMETER);
    CHECK_STATUS(ix_circle(x, p, 1, QT_MASK_ALL, out, 4, NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(ix_circle(x, p, 1, QT_MASK_ALL, NULL, 4, &total), QT_NULL_ARGUMENT);
    CHECK_STATUS(ix_circle_each(x, p, -0.5, QT_MASK_ALL, never_called, NULL), QT_INVALID_PARAMETER);
    CHECK_STATUS(ix_circle_each(x, p, 1, QT_MASK_ALL, NULL, NULL), QT_NULL_ARGUMENT);
    {
        float c[3] = {1, 2, 3};
        double r = NAN;
        size_t bad = 99;
        CHECK_STATUS(ix_circle_many(x, c, &r, 1, QT_MASK_ALL, offsets, out, 4, &total, &bad),
                     QT_INVALID_PARAMETER);
        CHECK(bad == 0);
        CHECK_STATUS(ix_circle_many(x, NULL, &r, 1, QT_MASK_ALL, offsets, out, 4, &total, NULL),
                     QT_NULL_ARGUMENT);
    }
    /* Nearest. */
    CHECK_STATUS(ix_nearest(x, nan_p, 1, INFINITY, QT_MASK_ALL, out, distances, &count),
                 QT_INVALID_POINT);
    CHECK_STATUS(ix_nearest(x, p, 1, NAN, QT_MASK_ALL, out, distances, &count),
                 QT_INVALID_PARAMETER);
    CHECK_STATUS(ix_nearest(x, p, 1, -2, QT_MASK_ALL, out, distances, &count),
                 QT_INVALID_PARAMETER);
    CHECK_STATUS(ix_nearest(x, p, (size_t)-1, INFINITY, QT_MASK_ALL, out, distances, &count),
                 QT_INVALID_PARAMETER); /* k = -1 */
    CHECK_STATUS(ix_nearest(x, p, 2, INFINITY, QT_MASK_ALL, NULL, distances, &count),
                 QT_NULL_ARGUMENT);
    CHECK_STATUS(ix_nearest(x, p, 2, INFINITY, QT_MASK_ALL, out, distances, NULL),
                 QT_NULL_ARGUMENT);
    CHECK_STATUS(ix_nearest_with(x, p, 2, INFINITY, QT_MASK_ALL, NULL, NULL, out, distances, &count),
                 QT_NULL_ARGUMENT);
    CHECK_STATUS(ix_nearest_with(x, p, 2, -1, QT_MASK_ALL, accept_never_called, &a, out, distances,
                                 &count),
                 QT_INVALID_PARAMETER);
    CHECK_STATUS(ix_nearest_with(x, inf_p, 2, 1, QT_MASK_ALL, accept_never_called, &a, out,
                                 distances, &count),
                 QT_INVALID_POINT);
    CHECK_OK(ix_nearest(x, p, 0, INFINITY, QT_MASK_ALL, NULL, NULL, &count));
    CHECK(count == 0);
    count = 77;
    CHECK_STATUS(ix_nearest_many(x, p, 1, (size_t)-1, INFINITY, QT_MASK_ALL, offsets, out, NULL,
                                 4, &total, NULL),
                 QT_INVALID_PARAMETER); /* k = -1, as qt_nearest */
    CHECK_STATUS(ix_nearest_many(x, p, 1, N + 5, INFINITY, QT_MASK_ALL, offsets, out, NULL, 4,
                                 &total, NULL),
                 QT_OK); /* k only bounds a row: the output has its own capacity */
    CHECK(offsets[0] == 0 && offsets[1] == total && total == ix_len(x));
    offsets[0] = offsets[1] = total = 77;
    out[0] = out[1] = out[2] = out[3] = SENTINEL;
    /* Rays. */
    CHECK_STATUS(ix_ray(x, nan_p, d, 10, QT_MASK_ALL, &hit, &hit_found), QT_INVALID_POINT);
    CHECK_STATUS(ix_ray(x, p, zero, 10, QT_MASK_ALL, &hit, &hit_found), QT_INVALID_PARAMETER);
    CHECK_STATUS(ix_ray(x, p, nan_d, 10, QT_MASK_ALL, &hit, &hit_found), QT_INVALID_PARAMETER);
    CHECK_STATUS(ix_ray(x, p, inf_d, 10, QT_MASK_ALL, &hit, &hit_found), QT_INVALID_PARAMETER);
    CHECK_STATUS(ix_ray(x, p, d, -1, QT_MASK_ALL, &hit, &hit_found), QT_INVALID_PARAMETER);
    CHECK_STATUS(ix_ray(x, p, d, NAN, QT_MASK_ALL, &hit, &hit_found), QT_INVALID_PARAMETER);
    CHECK_STATUS(ix_ray(x, p, d, INFINITY, QT_MASK_ALL, &hit, &hit_found), QT_INVALID_PARAMETER);
    CHECK_STATUS(ix_ray(x, p, d, 10, QT_MASK_ALL, NULL, &hit_found), QT_NULL_ARGUMENT);
    CHECK_STATUS(ix_ray(x, p, d, 10, QT_MASK_ALL, &hit, NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(ix_ray_all(x, p, zero, 10, QT_MASK_ALL, (qt_ray_hit *)&hit, 1, &total),
                 QT_INVALID_PARAMETER);
    CHECK_STATUS(ix_ray_all(x, p, d, 10, QT_MASK_ALL, NULL, 1, &total), QT_NULL_ARGUMENT);
    CHECK_STATUS(ix_ray_each(x, p, zero, 10, QT_MASK_ALL, ray_never_called, NULL),
                 QT_INVALID_PARAMETER);
    CHECK_STATUS(ix_ray_each(x, p, d, -3, QT_MASK_ALL, ray_never_called, NULL),
                 QT_INVALID_PARAMETER);
    CHECK_STATUS(ix_ray_each(x, p, d, 10, QT_MASK_ALL, NULL, NULL), QT_NULL_ARGUMENT);
    /* Nothing written, nothing called, nothing changed. */
    CHECK(out[0] == SENTINEL && distances[0] == -7 && total == 77 && count == 77);
    CHECK(offsets[0] == 77 && offsets[1] == 77 && hit_found && hit.id == 0xABABABABu);
    CHECK(a.n == 0);
    CHECK(unchanged(x, &before));
    free(before.data);
}

/* ---------------------------------------------------------------- main */

int main(void) {
    int which;
    static char context[48];
    for (which = 0; which < N_INDEXES; which++) {
        ix x = make_index(which);
        snprintf(context, sizeof context, "[%s] ", x.name);
        check_context = context;
        build(&x);
        check_filters_read_back(&x);
        check_pairs(&x);
        check_masked_queries(&x);
        check_filters_survive_copies(&x);
        check_filter_refusals(&x);
        check_reuse_resets(&x);
        check_pairs(&x);
        ties_seen = 0;
        check_circles(&x);
        check_nearest(&x);
        check_rays(&x);
        check_ray_batch(&x);
        check_box_casts(&x);
        CHECK(ties_seen > 0); /* the tie-breaks were exercised */
        check_box_cast_refusals(&x);
        check_search_refusals(&x);
        ix_destroy(&x);
    }
    check_context = "";
    return check_summary("test_search");
}
