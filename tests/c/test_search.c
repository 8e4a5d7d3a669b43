/* Collision filters and masked queries, on every 2D structure and the
 * octree, against a brute-force model written here: random boxes (some
 * degenerate, some outside the world) with random filters; pairs,
 * overlapping and masked queries compared with the model; filters carried
 * by qt_clone and the byte snapshot; bad input refused with the state
 * unchanged (the snapshot bytes compared).
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
    return x->t ? qt_overlapping(x->t, h, out, cap, total)
                : qt_octree_overlapping(x->o, h, out, cap, total);
}

static qt_status ix_query_masked(const ix *x, bx b, qt_handle_t omit, uint32_t mask,
                                 qt_handle_t *out, size_t cap, size_t *total) {
    return x->t ? qt_query_masked(x->t, to_rect(b), omit, mask, out, cap, total)
                : qt_octree_query_masked(x->o, to_box(b), omit, mask, out, cap, total);
}

static qt_status ix_query_masked_each(const ix *x, bx b, qt_handle_t omit, uint32_t mask,
                                      qt_visit_fn visit, void *user) {
    return x->t ? qt_query_masked_each(x->t, to_rect(b), omit, mask, visit, user)
                : qt_octree_query_masked_each(x->o, to_box(b), omit, mask, visit, user);
}

static qt_status ix_point_masked(const ix *x, const float *p, qt_handle_t omit, uint32_t mask,
                                 qt_handle_t *out, size_t cap, size_t *total) {
    return x->t ? qt_query_point_masked(x->t, p[0], p[1], omit, mask, out, cap, total)
                : qt_octree_query_point_masked(x->o, p[0], p[1], p[2], omit, mask, out, cap,
                                               total);
}

static qt_status ix_point_masked_each(const ix *x, const float *p, qt_handle_t omit,
                                      uint32_t mask, qt_visit_fn visit, void *user) {
    return x->t ? qt_query_point_masked_each(x->t, p[0], p[1], omit, mask, visit, user)
                : qt_octree_query_point_masked_each(x->o, p[0], p[1], p[2], omit, mask, visit,
                                                    user);
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
        e->b = random_box(x->dims);
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
        ix_destroy(&x);
    }
    check_context = "";
    return check_summary("test_search");
}
