/* Every exported function of libflatquad, and every bad input the C ABI must
 * refuse: each refusal is checked for its status, for out-parameters left
 * untouched, and for a tree left exactly as it was (length, stats, a query over
 * the whole plane, and the byte snapshot of its whole state). The tests of the
 * shared calls run once for each structure (quadtree, grid, loose grid); the
 * constructors, parameters and walks of each structure have tests of their own.
 *
 * Built with -Wall -Wextra -Werror -fsanitize=address,undefined by
 * tests/c/run.sh. EXPECTED_VERSION is Cargo.toml's version, passed by it. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#ifndef EXPECTED_VERSION
#error "compile with -DEXPECTED_VERSION=\"x.y.z\" (Cargo.toml's version)"
#endif

/* ---------------------------------------------------------------- helpers */

static const qt_rect EVERYWHERE = {-FLT_MAX, -FLT_MAX, FLT_MAX, FLT_MAX};
static const qt_handle_t SENTINEL = 0x5EB71AE15EB71AEull;

static qt_rect rect(float x1, float y1, float x2, float y2) {
    qt_rect r;
    r.x1 = x1;
    r.y1 = y1;
    r.x2 = x2;
    r.y2 = y2;
    return r;
}

/* The agents workload's LCG, for repeatable random layouts. */
static uint32_t rng_state = 12345;
static float rnd(void) {
    rng_state = rng_state * 1664525u + 1013904223u;
    return (float)(rng_state >> 8) * (1.0f / 16777216.0f);
}

static int intersects(qt_rect a, qt_rect b) {
    return a.x1 <= b.x2 && b.x1 <= a.x2 && a.y1 <= b.y2 && b.y1 <= a.y2;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_pair(const void *a, const void *b) {
    const qt_pair *p = (const qt_pair *)a, *q = (const qt_pair *)b;
    if (p->a != q->a) return (p->a > q->a) - (p->a < q->a);
    return (p->b > q->b) - (p->b < q->b);
}

/* ---------------------------------------------------------------- structures */

typedef struct structure {
    const char *name;
    qt_kind kind;
    /* A loose quadtree made with a max_extent of 1/16 of the world's shorter
     * side (qt_create_loose_quadtree_max_extent). */
    int bounded;
} structure;

static const structure STRUCTURES[] = {
    {"quadtree", QT_KIND_QUADTREE, 0},
    {"grid", QT_KIND_GRID, 0},
    {"loose grid", QT_KIND_LOOSE_GRID, 0},
    {"loose quadtree", QT_KIND_LOOSE_QUADTREE, 0},
    {"loose quadtree max_extent", QT_KIND_LOOSE_QUADTREE, 1},
};
#define N_STRUCTURES (sizeof STRUCTURES / sizeof STRUCTURES[0])

/* The structure the shared tests are running on. */
static const structure *current = &STRUCTURES[0];

/* real[kind]: whether that structure keeps the parameters it is made with.
 * While the core's Grid and LooseGrid are placeholders they do not (they
 * accept and ignore any counts, and have no cells to walk), so the tests of
 * their parameter checks, stats and walks wait for the real structures; main()
 * says so when it skips them. */
static int real[5];

static int keeps_parameters(qt_kind kind) {
    qt_tree *tree = NULL;
    uint32_t a = 0, b = 0, c = 0, d = 0;
    int kept;
    switch (kind) {
    case QT_KIND_QUADTREE:
        REQUIRE_OK(qt_create(rect(0, 0, 1, 1), 3, 5, &tree));
        REQUIRE_OK(qt_params(tree, NULL, &a, &b));
        kept = a == 3 && b == 5;
        break;
    case QT_KIND_GRID:
        REQUIRE_OK(qt_create_grid(rect(0, 0, 70, 30), 7, 3, &tree));
        REQUIRE_OK(qt_grid_params(tree, NULL, &a, &b, NULL, NULL));
        kept = a == 7 && b == 3;
        break;
    case QT_KIND_LOOSE_QUADTREE:
        REQUIRE_OK(qt_create_loose_quadtree(rect(0, 0, 1, 1), 3, 5, &tree));
        REQUIRE_OK(qt_loose_quadtree_params(tree, NULL, &a, &b));
        kept = a == 3 && b == 5;
        break;
    default:
        REQUIRE_OK(qt_create_loose_grid(rect(0, 0, 80, 60), 8, 6, 4, 3, &tree));
        REQUIRE_OK(qt_loose_grid_params(tree, NULL, &a, &b, &c, &d));
        kept = a == 8 && b == 6 && c == 4 && d == 3;
        break;
    }
    qt_destroy(tree);
    return kept;
}

/* A tree of the current structure over `world`, given as a quadtree's
 * parameters: a grid gets the quadtree's deepest cells (2^max_depth a side,
 * at most 128), a loose grid those as loose cells and tight cells twice their
 * side. */
static qt_tree *make_tree(qt_rect world, uint32_t max_elements, uint32_t max_depth) {
    qt_tree *tree = NULL;
    uint32_t cells = 1u << (max_depth < 7 ? max_depth : 7);
    switch (current->kind) {
    case QT_KIND_QUADTREE: REQUIRE_OK(qt_create(world, max_elements, max_depth, &tree)); break;
    case QT_KIND_GRID: REQUIRE_OK(qt_create_grid(world, cells, cells, &tree)); break;
    case QT_KIND_LOOSE_QUADTREE:
        if (current->bounded) {
            float side = world.x2 - world.x1 < world.y2 - world.y1 ? world.x2 - world.x1
                                                                  : world.y2 - world.y1;
            REQUIRE_OK(qt_create_loose_quadtree_max_extent(world, max_elements, max_depth,
                                                           side / 16, &tree));
        } else {
            REQUIRE_OK(qt_create_loose_quadtree(world, max_elements, max_depth, &tree));
        }
        break;
    default:
        REQUIRE_OK(qt_create_loose_grid(world, cells, cells, (cells + 1) / 2, (cells + 1) / 2,
                                        &tree));
        break;
    }
    CHECK(qt_kind_of(tree) == current->kind);
    return tree;
}

/* Everything observable about a tree, to prove a refused call changed nothing. */
typedef struct snapshot {
    size_t len;
    qt_tree_stats stats;
    unsigned char *bytes;
    size_t nbytes;
    qt_handle_t *hits;
    size_t nhits;
} snapshot;

static snapshot take(const qt_tree *tree) {
    snapshot s;
    size_t total = 0;
    memset(&s, 0, sizeof s);
    s.len = qt_len(tree);
    REQUIRE_OK(qt_stats(tree, &s.stats));
    REQUIRE_OK(qt_to_bytes(tree, NULL, 0, &s.nbytes));
    s.bytes = (unsigned char *)malloc(s.nbytes);
    REQUIRE_OK(qt_to_bytes(tree, s.bytes, s.nbytes, &total));
    REQUIRE_OK(qt_query(tree, QRECT(EVERYWHERE, QT_NO_HANDLE, QT_MASK_ALL), NULL, 0, &s.nhits));
    s.hits = (qt_handle_t *)malloc((s.nhits + 1) * sizeof *s.hits);
    REQUIRE_OK(qt_query(tree, QRECT(EVERYWHERE, QT_NO_HANDLE, QT_MASK_ALL), s.hits, s.nhits, &total));
    qsort(s.hits, s.nhits, sizeof *s.hits, cmp_u64);
    return s;
}

static int same_stats(const qt_tree_stats *a, const qt_tree_stats *b) {
    return a->elements == b->elements && a->nodes == b->nodes && a->leaves == b->leaves &&
           a->empty_leaves == b->empty_leaves && a->element_links == b->element_links &&
           a->max_depth_reached == b->max_depth_reached;
}

/* The same elements, handles and structure; memory held may differ (a copy
 * holds no spare capacity). */
static int same_content(const snapshot *a, const snapshot *b) {
    return a->len == b->len && same_stats(&a->stats, &b->stats) && a->nbytes == b->nbytes &&
           memcmp(a->bytes, b->bytes, a->nbytes) == 0 && a->nhits == b->nhits &&
           memcmp(a->hits, b->hits, a->nhits * sizeof *a->hits) == 0;
}

/* Exactly the same tree, down to the memory it holds. */
static int same_snapshot(const snapshot *a, const snapshot *b) {
    return same_content(a, b) && a->stats.bytes == b->stats.bytes;
}

static void drop_snapshot(snapshot *s) {
    free(s->bytes);
    free(s->hits);
}

#define CHECK_UNCHANGED(tree, before)                \
    do {                                             \
        snapshot after_ = take(tree);                \
        CHECK(same_snapshot(&(before), &after_));    \
        CHECK_OK(qt_validate(tree));                 \
        drop_snapshot(&after_);                      \
    } while (0)

/* Rectangles every call must refuse: NaN and infinite coordinates, inverted in
 * x only and in y only. */
#define N_BAD_RECTS 14
static qt_rect bad_rects[N_BAD_RECTS];
static void init_bad_rects(void) {
    int i = 0;
    bad_rects[i++] = rect(NAN, 0, 1, 1);
    bad_rects[i++] = rect(0, NAN, 1, 1);
    bad_rects[i++] = rect(0, 0, NAN, 1);
    bad_rects[i++] = rect(0, 0, 1, NAN);
    bad_rects[i++] = rect(NAN, NAN, NAN, NAN);
    bad_rects[i++] = rect(INFINITY, 0, INFINITY, 1);
    bad_rects[i++] = rect(-INFINITY, 0, 1, 1);
    bad_rects[i++] = rect(0, -INFINITY, 1, 1);
    bad_rects[i++] = rect(0, 0, INFINITY, 1);
    bad_rects[i++] = rect(0, 0, 1, INFINITY);
    bad_rects[i++] = rect(-INFINITY, -INFINITY, INFINITY, INFINITY);
    bad_rects[i++] = rect(2, 0, 1, 1);            /* inverted in x only */
    bad_rects[i++] = rect(0, 2, 1, 1);            /* inverted in y only */
    bad_rects[i++] = rect(5, 5, 4.999999f, 6);    /* inverted by one ulp-ish */
}

/* A populated tree to refuse things on: 300 small rectangles, some outside
 * the world, a few removed so that stale handles exist. */
typedef struct fixture {
    qt_tree *tree;
    qt_handle_t live[300];
    size_t nlive;
    qt_handle_t stale[20];
} fixture;

static fixture make_fixture(void) {
    fixture f;
    size_t i;
    memset(&f, 0, sizeof f);
    f.tree = make_tree(rect(0, 0, 100, 100), 4, 6);
    for (i = 0; i < 320; i++) {
        float x = rnd() * 120 - 10, y = rnd() * 120 - 10, s = rnd() * 5;
        qt_handle_t h = 0;
        REQUIRE_OK(qt_insert(f.tree, rect(x, y, x + s, y + s), (uint32_t)i, &h));
        if (i < 20) {
            f.stale[i] = h;
        } else {
            f.live[f.nlive++] = h;
        }
    }
    for (i = 0; i < 20; i++) REQUIRE_OK(qt_remove(f.tree, f.stale[i]));
    REQUIRE_OK(qt_cleanup(f.tree));
    return f;
}

/* Handles that were never issued by the fixture's tree. */
static qt_handle_t never_issued(const fixture *f, int k) {
    switch (k) {
    case 0: return QT_NO_HANDLE;
    case 1: return 1;                          /* slot 0, generation 0: never valid */
    case 2: return UINT64_MAX;
    case 3: return ((uint64_t)1 << 53);        /* past every handle */
    case 4: return ((uint64_t)1 << 32) | 5000; /* a slot the tree never had */
    default: return f->live[0] + ((uint64_t)7 << 32); /* a live slot, wrong generation */
    }
}
#define N_NEVER_ISSUED 6

/* Counting callbacks with an early stop after `stop_after` calls (0: never). */
typedef struct counter {
    size_t calls;
    size_t stop_after;
    qt_handle_t last;
} counter;

static int count_visit(void *user_data, qt_handle_t handle) {
    counter *c = (counter *)user_data;
    c->calls++;
    c->last = handle;
    return c->stop_after != 0 && c->calls >= c->stop_after;
}

static int count_pair(void *user_data, qt_handle_t a, qt_handle_t b) {
    counter *c = (counter *)user_data;
    (void)b;
    c->calls++;
    c->last = a;
    return c->stop_after != 0 && c->calls >= c->stop_after;
}

static int never_called(void *user_data, qt_handle_t handle) {
    (void)handle;
    ((counter *)user_data)->calls++;
    return 0;
}

/* ---------------------------------------------------------------- version */

static void test_version(void) {
    char from_macros[64];
    CHECK(qt_version() != NULL);
    CHECK(strcmp(qt_version(), QT_VERSION_STRING) == 0);
    CHECK(strcmp(qt_version(), EXPECTED_VERSION) == 0);
    snprintf(from_macros, sizeof from_macros, "%d.%d.%d", QT_VERSION_MAJOR, QT_VERSION_MINOR,
             QT_VERSION_PATCH);
    CHECK(strcmp(qt_version(), from_macros) == 0);
    CHECK(QT_VERSION_NUMBER == QT_VERSION_MAJOR * 10000 + QT_VERSION_MINOR * 100 + QT_VERSION_PATCH);
}

static void test_status_str(void) {
    static const qt_status all[] = {
        QT_OK, QT_STOPPED, QT_NULL_ARGUMENT, QT_INVALID_RECT, QT_INVALID_POINT,
        QT_INVALID_HANDLE, QT_DUPLICATE_HANDLE, QT_INVALID_WORLD, QT_INVALID_PARAMETER,
        QT_CAPACITY_EXCEEDED, QT_INVALID_BYTES, QT_PANIC, QT_POISONED, QT_INTERNAL_ERROR,
        QT_WRONG_KIND, QT_TREE_DESTROYED, QT_BUFFER_TOO_SMALL,
    };
    size_t a, b;
    /* Every status has its own non-empty message; unknown values are safe. */
    for (a = 0; a < sizeof all / sizeof all[0]; a++) {
        CHECK(qt_status_str(all[a]) != NULL && qt_status_str(all[a])[0] != '\0');
        CHECK(strcmp(qt_status_str(all[a]), "unknown status") != 0);
        for (b = 0; b < a; b++) CHECK(strcmp(qt_status_str(all[a]), qt_status_str(all[b])) != 0);
    }
    CHECK(strcmp(qt_status_str(-1), "unknown status") == 0);
    CHECK(strcmp(qt_status_str(14), "unknown status") == 0); /* the core's LengthMismatch */
    CHECK(strcmp(qt_status_str(QT_BUFFER_TOO_SMALL + 1), "unknown status") == 0);
    CHECK(strcmp(qt_status_str(1 << 30), "unknown status") == 0);
    /* The values are part of the ABI; the core's errors keep the numbers of its
     * error kinds (InvalidRect = 3 ... InvalidBytes = 10). */
    CHECK(QT_OK == 0 && QT_STOPPED == 1 && QT_NULL_ARGUMENT == 2 && QT_INVALID_RECT == 3 &&
          QT_INVALID_POINT == 4 && QT_INVALID_HANDLE == 5 && QT_DUPLICATE_HANDLE == 6 &&
          QT_INVALID_WORLD == 7 && QT_INVALID_PARAMETER == 8 && QT_CAPACITY_EXCEEDED == 9 &&
          QT_INVALID_BYTES == 10 && QT_PANIC == 11 && QT_POISONED == 12 &&
          QT_INTERNAL_ERROR == 13 && QT_WRONG_KIND == 15 && QT_TREE_DESTROYED == 16 &&
          QT_BUFFER_TOO_SMALL == 17);
    CHECK(QT_KIND_QUADTREE == 1 && QT_KIND_GRID == 2 && QT_KIND_LOOSE_GRID == 3 &&
          QT_KIND_LOOSE_QUADTREE == 4);
}

/* ---------------------------------------------------------------- create */

static void test_create_destroy(void) {
    qt_tree *tree = NULL, *const untouched = (qt_tree *)&tree;
    qt_rect world;
    uint32_t max_elements = 0, max_depth = 0;
    size_t i;
    qt_rect bad_worlds[] = {
        {NAN, 0, 1, 1}, {0, NAN, 1, 1}, {0, 0, NAN, 1}, {0, 0, 1, NAN},
        {-INFINITY, 0, 1, 1}, {0, 0, INFINITY, 1}, {0, -INFINITY, 1, 1}, {0, 0, 1, INFINITY},
        {1, 0, 0, 1},       /* inverted in x only */
        {0, 1, 1, 0},       /* inverted in y only */
        {0, 0, 0, 1},       /* zero width */
        {0, 0, 1, 0},       /* zero height */
        {-FLT_MAX, 0, FLT_MAX, 1}, /* width overflows to infinity */
    };

    qt_destroy(NULL); /* a no-op */

    CHECK_OK(qt_create(rect(-5, -10, 20, 30), 8, 5, &tree));
    CHECK(tree != NULL);
    CHECK(qt_len(tree) == 0);
    CHECK_OK(qt_params(tree, &world, &max_elements, &max_depth));
    CHECK(world.x1 == -5 && world.y1 == -10 && world.x2 == 20 && world.y2 == 30);
    CHECK(max_elements == 8 && max_depth == 5);
    CHECK(qt_kind_of(tree) == QT_KIND_QUADTREE);
    CHECK_OK(qt_validate(tree));
    qt_destroy(tree);

    /* Limits that are accepted. */
    tree = NULL;
    CHECK_OK(qt_create(rect(0, 0, 1, 1), 1, QT_MAX_DEPTH_LIMIT, &tree));
    qt_destroy(tree);
    tree = NULL;
    CHECK_OK(qt_create(rect(0, 0, 1, 1), UINT32_MAX, 0, &tree));
    qt_destroy(tree);
    tree = NULL;
    CHECK_OK(qt_create(rect(-1e6f, -1e6f, 1e6f, 1e6f), QT_DEFAULT_MAX_ELEMENTS,
                       QT_DEFAULT_MAX_DEPTH, &tree));
    qt_destroy(tree);

    /* Refusals leave *out_tree alone. */
    for (i = 0; i < sizeof bad_worlds / sizeof bad_worlds[0]; i++) {
        tree = untouched;
        CHECK_STATUS(qt_create(bad_worlds[i], 8, 8, &tree), QT_INVALID_WORLD);
        CHECK(tree == untouched);
    }
    tree = untouched;
    CHECK_STATUS(qt_create(rect(0, 0, 1, 1), 0, 8, &tree), QT_INVALID_PARAMETER);
    CHECK(tree == untouched);
    CHECK_STATUS(qt_create(rect(0, 0, 1, 1), 8, QT_MAX_DEPTH_LIMIT + 1, &tree),
                 QT_INVALID_PARAMETER);
    CHECK_STATUS(qt_create(rect(0, 0, 1, 1), 8, UINT32_MAX, &tree), QT_INVALID_PARAMETER);
    CHECK(tree == untouched);
    CHECK_STATUS(qt_create(rect(0, 0, 1, 1), 8, 8, NULL), QT_NULL_ARGUMENT);
}

/* The worlds every constructor refuses with QT_INVALID_WORLD. */
static const qt_rect BAD_WORLDS[] = {
    {NAN, 0, 1, 1}, {0, NAN, 1, 1}, {0, 0, NAN, 1}, {0, 0, 1, NAN},
    {-INFINITY, 0, 1, 1}, {0, 0, INFINITY, 1}, {0, -INFINITY, 1, 1}, {0, 0, 1, INFINITY},
    {1, 0, 0, 1}, {0, 1, 1, 0}, {0, 0, 0, 1}, {0, 0, 1, 0}, {-FLT_MAX, 0, FLT_MAX, 1},
};
#define N_BAD_WORLDS (sizeof BAD_WORLDS / sizeof BAD_WORLDS[0])

/* The loose quadtree's max_extent: refused unless positive and finite (the
 * out-pointer untouched), read back (0 without one), kept by snapshots, and
 * elements over it found like the others. */
static void test_create_loose_quadtree_max_extent(void) {
    qt_tree *tree = NULL, *copy = NULL, *const untouched = (qt_tree *)&tree;
    float bad[] = {0.0f, -0.0f, -1.0f, NAN, INFINITY, -INFINITY}, extent = 99;
    qt_handle_t small = 0, big = 0, hits[4];
    qt_pair pairs[4];
    size_t i, total = 0;
    uint8_t bytes[4096];
    size_t len = 0;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tree = untouched;
        CHECK_STATUS(qt_create_loose_quadtree_max_extent(rect(0, 0, 100, 100), 8, 6, bad[i], &tree),
                     QT_INVALID_PARAMETER);
        CHECK(tree == untouched);
    }
    tree = untouched;
    CHECK_STATUS(qt_create_loose_quadtree_max_extent(BAD_WORLDS[0], 8, 6, 4, &tree),
                 QT_INVALID_WORLD);
    CHECK_STATUS(qt_create_loose_quadtree_max_extent(rect(0, 0, 100, 100), 0, 6, 4, &tree),
                 QT_INVALID_PARAMETER);
    CHECK(tree == untouched);
    CHECK_STATUS(qt_create_loose_quadtree_max_extent(rect(0, 0, 100, 100), 8, 6, 4, NULL),
                 QT_NULL_ARGUMENT);

    tree = NULL;
    REQUIRE_OK(qt_create_loose_quadtree(rect(0, 0, 100, 100), 8, 6, &tree));
    CHECK_OK(qt_loose_quadtree_max_extent(tree, &extent));
    CHECK(extent == 0);
    qt_destroy(tree);

    tree = NULL;
    REQUIRE_OK(qt_create_loose_quadtree_max_extent(rect(0, 0, 100, 100), 8, 6, 4, &tree));
    CHECK(qt_kind_of(tree) == QT_KIND_LOOSE_QUADTREE);
    CHECK_OK(qt_loose_quadtree_max_extent(tree, &extent));
    CHECK(extent == 4);
    CHECK_STATUS(qt_loose_quadtree_max_extent(tree, NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_loose_quadtree_max_extent(NULL, &extent), QT_NULL_ARGUMENT);
    CHECK_OK(qt_insert(tree, rect(10, 10, 12, 12), 1, &small));
    CHECK_OK(qt_insert(tree, rect(0, 0, 50, 11), 2, &big)); /* over the bound */
    CHECK_OK(qt_query_pairs(tree, pairs, 4, &total));
    CHECK(total == 1);
    CHECK_OK(qt_query(tree, QRECT(rect(40, 5, 41, 6), 0, QT_MASK_ALL), hits, 4, &total));
    CHECK(total == 1 && hits[0] == big);
    CHECK_OK(qt_validate(tree));
    CHECK_OK(qt_to_bytes(tree, bytes, sizeof bytes, &len));
    CHECK(len <= sizeof bytes);
    CHECK_OK(qt_from_bytes(bytes, len, &copy));
    extent = 99;
    CHECK_OK(qt_loose_quadtree_max_extent(copy, &extent));
    CHECK(extent == 4 && qt_len(copy) == 2);
    qt_destroy(copy);
    qt_destroy(tree);
}

/* Every parameter getter on a tree of another kind: QT_WRONG_KIND, nothing written. */
static void check_other_getters_refuse(const qt_tree *tree) {
    qt_rect world = rect(9, 9, 9, 9);
    uint32_t a = 99, b = 99, c = 99, d = 99;
    float w = 99, h = 99;
    qt_kind kind = qt_kind_of(tree);
    if (kind != QT_KIND_QUADTREE) CHECK_STATUS(qt_params(tree, &world, &a, &b), QT_WRONG_KIND);
    if (kind != QT_KIND_GRID)
        CHECK_STATUS(qt_grid_params(tree, &world, &a, &b, &w, &h), QT_WRONG_KIND);
    if (kind != QT_KIND_LOOSE_GRID)
        CHECK_STATUS(qt_loose_grid_params(tree, &world, &a, &b, &c, &d), QT_WRONG_KIND);
    if (kind != QT_KIND_LOOSE_QUADTREE) {
        CHECK_STATUS(qt_loose_quadtree_params(tree, &world, &a, &b), QT_WRONG_KIND);
        CHECK_STATUS(qt_loose_quadtree_max_extent(tree, &w), QT_WRONG_KIND);
    }
    CHECK(world.x1 == 9 && world.x2 == 9 && a == 99 && b == 99 && c == 99 && d == 99 &&
          w == 99 && h == 99);
}

static void test_create_grids(void) {
    qt_tree *tree = NULL, *const untouched = (qt_tree *)&tree;
    qt_rect world = rect(9, 9, 9, 9), w100 = rect(0, 0, 100, 50);
    uint32_t columns = 0, rows = 0, tight_columns = 0, tight_rows = 0;
    float cell_width = 0, cell_height = 0;
    size_t i;
    static const uint32_t bad_counts[][2] = {{0, 4}, {4, 0}, {0, 0}, {1u << 17, 1},
                                             {1, UINT32_MAX}, {1u << 14, 1u << 14}};
    static const uint32_t bad_loose[][4] = {
        {0, 4, 1, 1}, {4, 0, 1, 1}, {4, 4, 0, 1}, {4, 4, 1, 0},
        {4, 4, 5, 2}, /* tight finer than loose, in x */
        {4, 4, 2, 5}, /* and in y */
        {1u << 17, 1, 1, 1}, {1u << 14, 1u << 14, 1, 1},
    };
    const float bad_sizes[] = {0.0f, -1.0f, NAN, INFINITY, -INFINITY, 1e-30f};

    /* A grid: its kind, its parameters, the other kinds' getters refused. */
    CHECK_OK(qt_create_grid(w100, 10, 5, &tree));
    CHECK(qt_kind_of(tree) == QT_KIND_GRID && qt_len(tree) == 0);
    CHECK_OK(qt_grid_params(tree, &world, &columns, &rows, &cell_width, &cell_height));
    CHECK(world.x1 == 0 && world.y1 == 0 && world.x2 == 100 && world.y2 == 50);
    if (real[QT_KIND_GRID])
        CHECK(columns == 10 && rows == 5 && cell_width == 10 && cell_height == 10);
    CHECK_OK(qt_grid_params(tree, NULL, NULL, NULL, NULL, NULL)); /* every out-pointer optional */
    check_other_getters_refuse(tree);
    CHECK_OK(qt_validate(tree));
    qt_destroy(tree);

    /* By cell size: columns and rows rounded up, cells stretched to fit. */
    tree = NULL;
    CHECK_OK(qt_create_grid_cell_size(w100, 16, 16, &tree));
    CHECK(qt_kind_of(tree) == QT_KIND_GRID);
    CHECK_OK(qt_grid_params(tree, NULL, &columns, &rows, &cell_width, &cell_height));
    if (real[QT_KIND_GRID]) CHECK(columns == 7 && rows == 4 && cell_height == 12.5f);
    qt_destroy(tree);

    /* A loose grid, made both ways. */
    tree = NULL;
    CHECK_OK(qt_create_loose_grid(w100, 8, 6, 4, 3, &tree));
    CHECK(qt_kind_of(tree) == QT_KIND_LOOSE_GRID);
    world = rect(9, 9, 9, 9);
    CHECK_OK(qt_loose_grid_params(tree, &world, &columns, &rows, &tight_columns, &tight_rows));
    CHECK(world.x1 == 0 && world.y1 == 0 && world.x2 == 100 && world.y2 == 50);
    if (real[QT_KIND_LOOSE_GRID])
        CHECK(columns == 8 && rows == 6 && tight_columns == 4 && tight_rows == 3);
    CHECK_OK(qt_loose_grid_params(tree, NULL, NULL, NULL, NULL, NULL));
    check_other_getters_refuse(tree);
    CHECK_OK(qt_validate(tree));
    qt_destroy(tree);
    tree = NULL;
    CHECK_OK(qt_create_loose_grid_cell_size(w100, 10, &tree));
    CHECK(qt_kind_of(tree) == QT_KIND_LOOSE_GRID);
    CHECK_OK(qt_loose_grid_params(tree, NULL, &columns, &rows, &tight_columns, &tight_rows));
    if (real[QT_KIND_LOOSE_GRID])
        CHECK(columns == 10 && rows == 5 && tight_columns >= 1 && tight_columns <= columns &&
              tight_rows >= 1 && tight_rows <= rows);
    qt_destroy(tree);

    /* Bad worlds, NULL out-pointers: refused by every constructor, *out_tree untouched. */
    for (i = 0; i < N_BAD_WORLDS; i++) {
        tree = untouched;
        CHECK_STATUS(qt_create_grid(BAD_WORLDS[i], 4, 4, &tree), QT_INVALID_WORLD);
        CHECK_STATUS(qt_create_grid_cell_size(BAD_WORLDS[i], 1, 1, &tree), QT_INVALID_WORLD);
        CHECK_STATUS(qt_create_loose_grid(BAD_WORLDS[i], 4, 4, 2, 2, &tree), QT_INVALID_WORLD);
        CHECK_STATUS(qt_create_loose_grid_cell_size(BAD_WORLDS[i], 1, &tree), QT_INVALID_WORLD);
        CHECK(tree == untouched);
    }
    CHECK_STATUS(qt_create_grid(w100, 4, 4, NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_create_grid_cell_size(w100, 1, 1, NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_create_loose_grid(w100, 4, 4, 2, 2, NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_create_loose_grid_cell_size(w100, 1, NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_grid_params(NULL, &world, &columns, &rows, &cell_width, &cell_height),
                 QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_loose_grid_params(NULL, &world, &columns, &rows, &tight_columns,
                                      &tight_rows),
                 QT_NULL_ARGUMENT);

    /* Bad parameters: QT_INVALID_PARAMETER, *out_tree untouched; and the
     * extremes that are accepted. */
    tree = untouched;
    if (real[QT_KIND_GRID]) {
        for (i = 0; i < sizeof bad_counts / sizeof bad_counts[0]; i++)
            CHECK_STATUS(qt_create_grid(w100, bad_counts[i][0], bad_counts[i][1], &tree),
                         QT_INVALID_PARAMETER);
        for (i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++) {
            CHECK_STATUS(qt_create_grid_cell_size(w100, bad_sizes[i], 1, &tree),
                         QT_INVALID_PARAMETER);
            CHECK_STATUS(qt_create_grid_cell_size(w100, 1, bad_sizes[i], &tree),
                         QT_INVALID_PARAMETER);
        }
        CHECK(tree == untouched);
        tree = NULL;
        CHECK_OK(qt_create_grid(w100, 1, 1, &tree));
        qt_destroy(tree);
        tree = untouched;
    }
    if (real[QT_KIND_LOOSE_GRID]) {
        for (i = 0; i < sizeof bad_loose / sizeof bad_loose[0]; i++)
            CHECK_STATUS(qt_create_loose_grid(w100, bad_loose[i][0], bad_loose[i][1],
                                              bad_loose[i][2], bad_loose[i][3], &tree),
                         QT_INVALID_PARAMETER);
        for (i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++)
            CHECK_STATUS(qt_create_loose_grid_cell_size(w100, bad_sizes[i], &tree),
                         QT_INVALID_PARAMETER);
        CHECK(tree == untouched);
        tree = NULL;
        CHECK_OK(qt_create_loose_grid(w100, 3, 2, 3, 2, &tree)); /* tight as coarse as loose */
        qt_destroy(tree);
    }
}

static void test_create_default(void) {
    qt_tree *tree = NULL, *const untouched = (qt_tree *)&tree;
    qt_rect world = rect(-50, 0, 4046, 2048);
    qt_kind bad_kinds[] = {0, 5, 15, UINT32_MAX};
    uint32_t a = 0, b = 0, c = 0, d = 0;
    size_t i;

    for (i = 0; i < N_STRUCTURES; i++) {
        qt_rect got = rect(9, 9, 9, 9);
        tree = NULL;
        CHECK_OK(qt_create_default(STRUCTURES[i].kind, world, &tree));
        CHECK(qt_kind_of(tree) == STRUCTURES[i].kind && qt_len(tree) == 0);
        switch (STRUCTURES[i].kind) {
        case QT_KIND_QUADTREE:
            CHECK_OK(qt_params(tree, &got, &a, &b));
            CHECK(a == QT_DEFAULT_MAX_ELEMENTS && b == QT_DEFAULT_MAX_DEPTH);
            break;
        case QT_KIND_GRID: CHECK_OK(qt_grid_params(tree, &got, &a, &b, NULL, NULL)); break;
        case QT_KIND_LOOSE_QUADTREE:
            CHECK_OK(qt_loose_quadtree_params(tree, &got, &a, &b));
            CHECK(a == QT_DEFAULT_MAX_ELEMENTS && b == QT_DEFAULT_MAX_DEPTH);
            break;
        default: CHECK_OK(qt_loose_grid_params(tree, &got, &a, &b, &c, &d)); break;
        }
        CHECK(got.x1 == world.x1 && got.y1 == world.y1 && got.x2 == world.x2 &&
              got.y2 == world.y2);
        check_other_getters_refuse(tree);
        CHECK_OK(qt_validate(tree));
        qt_destroy(tree);
        tree = untouched;
        CHECK_STATUS(qt_create_default(STRUCTURES[i].kind, BAD_WORLDS[i], &tree),
                     QT_INVALID_WORLD);
        CHECK_STATUS(qt_create_default(STRUCTURES[i].kind, world, NULL), QT_NULL_ARGUMENT);
        CHECK(tree == untouched);
    }
    for (i = 0; i < sizeof bad_kinds / sizeof bad_kinds[0]; i++) {
        tree = untouched;
        CHECK_STATUS(qt_create_default(bad_kinds[i], world, &tree), QT_INVALID_PARAMETER);
        CHECK(tree == untouched);
    }
    CHECK(qt_kind_of(NULL) == 0);
}

/* ---------------------------------------------------------------- insert, accessors */

static void test_insert_and_accessors(void) {
    qt_tree *tree = make_tree(rect(0, 0, 64, 64), 2, 4);
    qt_handle_t a = 0, b = 0, c = 0, h;
    qt_rect r;
    uint32_t id;
    size_t i, total;
    snapshot before;

    CHECK_OK(qt_insert(tree, rect(1, 2, 3, 4), 7, &a));
    CHECK_OK(qt_insert(tree, rect(10, 10, 10, 10), 8, &b)); /* a point */
    CHECK_OK(qt_insert(tree, rect(-50, 70, -40, 90), 7, &c)); /* outside the world */
    CHECK(a != QT_NO_HANDLE && b != QT_NO_HANDLE && c != QT_NO_HANDLE);
    CHECK(a != b && b != c && a != c);
    CHECK(a < ((uint64_t)1 << 53) && b < ((uint64_t)1 << 53) && c < ((uint64_t)1 << 53));
    CHECK(qt_len(tree) == 3);
    CHECK(qt_contains(tree, a) && qt_contains(tree, b) && qt_contains(tree, c));
    CHECK_OK(qt_element_id(tree, b, &id));
    CHECK(id == 8);
    CHECK_OK(qt_element_rect(tree, c, &r));
    CHECK(r.x1 == -50 && r.y1 == 70 && r.x2 == -40 && r.y2 == 90);
    /* Elements outside the world are found. */
    CHECK_OK(qt_query(tree, QRECT(rect(-45, 80, -45, 80), QT_NO_HANDLE, QT_MASK_ALL), &h, 1, &total));
    CHECK(total == 1 && h == c);
    CHECK_OK(qt_validate(tree));

    /* Bad rectangles: refused, nothing changed, no handle written. */
    before = take(tree);
    for (i = 0; i < N_BAD_RECTS; i++) {
        h = SENTINEL;
        CHECK_STATUS(qt_insert(tree, bad_rects[i], 1, &h), QT_INVALID_RECT);
        CHECK(h == SENTINEL);
    }
    CHECK_UNCHANGED(tree, before);
    /* NULL tree, NULL out-pointer. */
    h = SENTINEL;
    CHECK_STATUS(qt_insert(NULL, rect(0, 0, 1, 1), 1, &h), QT_NULL_ARGUMENT);
    CHECK(h == SENTINEL);
    CHECK_STATUS(qt_insert(tree, rect(0, 0, 1, 1), 1, NULL), QT_NULL_ARGUMENT);
    CHECK_UNCHANGED(tree, before);

    /* Accessors: NULLs and handles that name nothing. */
    id = 12345;
    r = rect(1, 1, 1, 1);
    CHECK_STATUS(qt_element_id(NULL, a, &id), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_element_id(tree, a, NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_element_rect(NULL, a, &r), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_element_rect(tree, a, NULL), QT_NULL_ARGUMENT);
    CHECK(qt_len(NULL) == 0);
    CHECK(!qt_contains(NULL, a));
    {
        fixture f = make_fixture();
        for (i = 0; i < N_NEVER_ISSUED; i++) {
            qt_handle_t bad = never_issued(&f, (int)i);
            CHECK(!qt_contains(f.tree, bad));
            CHECK_STATUS(qt_element_id(f.tree, bad, &id), QT_INVALID_HANDLE);
            CHECK_STATUS(qt_element_rect(f.tree, bad, &r), QT_INVALID_HANDLE);
        }
        for (i = 0; i < 20; i++) {
            CHECK(!qt_contains(f.tree, f.stale[i]));
            CHECK_STATUS(qt_element_id(f.tree, f.stale[i], &id), QT_INVALID_HANDLE);
            CHECK_STATUS(qt_element_rect(f.tree, f.stale[i], &r), QT_INVALID_HANDLE);
        }
        qt_destroy(f.tree);
    }
    CHECK(id == 12345);
    CHECK(r.x1 == 1 && r.y1 == 1 && r.x2 == 1 && r.y2 == 1);
    CHECK_UNCHANGED(tree, before);
    drop_snapshot(&before);
    qt_destroy(tree);
}

/* ---------------------------------------------------------------- remove */

static void test_remove(void) {
    fixture f = make_fixture();
    snapshot before;
    qt_handle_t again = 0;
    size_t i, len = qt_len(f.tree);

    CHECK(len == 300);
    CHECK_OK(qt_remove(f.tree, f.live[0]));
    CHECK(qt_len(f.tree) == len - 1);
    CHECK(!qt_contains(f.tree, f.live[0]));
    CHECK_OK(qt_validate(f.tree));

    before = take(f.tree);
    /* Removing twice, stale handles, never-issued handles, NULL tree. */
    CHECK_STATUS(qt_remove(f.tree, f.live[0]), QT_INVALID_HANDLE);
    for (i = 0; i < 20; i++) CHECK_STATUS(qt_remove(f.tree, f.stale[i]), QT_INVALID_HANDLE);
    for (i = 0; i < N_NEVER_ISSUED; i++)
        CHECK_STATUS(qt_remove(f.tree, never_issued(&f, (int)i)), QT_INVALID_HANDLE);
    CHECK_STATUS(qt_remove(NULL, f.live[1]), QT_NULL_ARGUMENT);
    CHECK_UNCHANGED(f.tree, before);
    drop_snapshot(&before);

    /* A reused slot gets a new handle; the old one stays stale. */
    CHECK_OK(qt_insert(f.tree, rect(1, 1, 2, 2), 99, &again));
    CHECK(again != f.live[0]);
    CHECK(qt_contains(f.tree, again) && !qt_contains(f.tree, f.live[0]));
    before = take(f.tree);
    CHECK_STATUS(qt_remove(f.tree, f.live[0]), QT_INVALID_HANDLE);
    CHECK_UNCHANGED(f.tree, before);
    drop_snapshot(&before);
    CHECK_OK(qt_remove(f.tree, again));
    CHECK_STATUS(qt_remove(f.tree, again), QT_INVALID_HANDLE);
    CHECK_OK(qt_validate(f.tree));
    qt_destroy(f.tree);
}

/* ---------------------------------------------------------------- move */

static void test_move(void) {
    fixture f = make_fixture();
    snapshot before;
    qt_handle_t h = f.live[3], hit = 0;
    qt_rect r;
    size_t i, total = 0;

    CHECK_OK(qt_move(f.tree, h, rect(200, 200, 201, 201)));
    CHECK_OK(qt_element_rect(f.tree, h, &r));
    CHECK(r.x1 == 200 && r.y2 == 201);
    CHECK_OK(qt_query(f.tree, QRECT(rect(200.5f, 200.5f, 300, 300), QT_NO_HANDLE, QT_MASK_ALL), &hit, 1, &total));
    CHECK(total == 1 && hit == h);
    CHECK_OK(qt_move(f.tree, h, rect(200.25f, 200, 201.25f, 201))); /* stays in its leaf */
    CHECK_OK(qt_validate(f.tree));

    before = take(f.tree);
    for (i = 0; i < N_BAD_RECTS; i++)
        CHECK_STATUS(qt_move(f.tree, h, bad_rects[i]), QT_INVALID_RECT);
    for (i = 0; i < 20; i++)
        CHECK_STATUS(qt_move(f.tree, f.stale[i], rect(1, 1, 2, 2)), QT_INVALID_HANDLE);
    for (i = 0; i < N_NEVER_ISSUED; i++)
        CHECK_STATUS(qt_move(f.tree, never_issued(&f, (int)i), rect(1, 1, 2, 2)),
                     QT_INVALID_HANDLE);
    /* Both wrong: refused all the same. */
    CHECK(qt_move(f.tree, f.stale[0], bad_rects[0]) != QT_OK);
    CHECK_STATUS(qt_move(NULL, h, rect(1, 1, 2, 2)), QT_NULL_ARGUMENT);
    CHECK_UNCHANGED(f.tree, before);
    drop_snapshot(&before);
    qt_destroy(f.tree);
}

/* ---------------------------------------------------------------- batches */

static void test_insert_many(void) {
    fixture f = make_fixture();
    qt_rect rects[50];
    uint32_t ids[50];
    qt_handle_t out[50];
    size_t i, bad_index, len = qt_len(f.tree);
    snapshot before;

    for (i = 0; i < 50; i++) {
        rects[i] = rect((float)i, 0, (float)i + 0.5f, 0.5f);
        ids[i] = (uint32_t)(1000 + i);
        out[i] = SENTINEL;
    }
    CHECK_OK(qt_insert_many(f.tree, rects, ids, 50, out, NULL));
    CHECK(qt_len(f.tree) == len + 50);
    for (i = 0; i < 50; i++) {
        uint32_t id = 0;
        qt_rect r;
        CHECK_OK(qt_element_id(f.tree, out[i], &id));
        CHECK(id == 1000 + i);
        CHECK_OK(qt_element_rect(f.tree, out[i], &r));
        CHECK(r.x1 == (float)i);
    }
    CHECK_OK(qt_validate(f.tree));
    /* Zero items: NULL arrays are fine. */
    CHECK_OK(qt_insert_many(f.tree, NULL, NULL, 0, NULL, NULL));

    /* One bad item anywhere: nothing inserted, its index reported, no handle written. */
    before = take(f.tree);
    for (i = 0; i < N_BAD_RECTS; i++) {
        size_t k, at = (i * 7) % 50;
        qt_rect good = rects[at];
        rects[at] = bad_rects[i];
        for (k = 0; k < 50; k++) out[k] = SENTINEL;
        bad_index = 9999;
        CHECK_STATUS(qt_insert_many(f.tree, rects, ids, 50, out, &bad_index), QT_INVALID_RECT);
        CHECK(bad_index == at);
        for (k = 0; k < 50; k++) CHECK(out[k] == SENTINEL);
        /* out_bad_index may be NULL. */
        CHECK_STATUS(qt_insert_many(f.tree, rects, ids, 50, out, NULL), QT_INVALID_RECT);
        rects[at] = good;
    }
    /* NULL tree or arrays with a nonzero count. */
    bad_index = 9999;
    CHECK_STATUS(qt_insert_many(NULL, rects, ids, 50, out, &bad_index), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_insert_many(f.tree, NULL, ids, 50, out, &bad_index), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_insert_many(f.tree, rects, NULL, 50, out, &bad_index), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_insert_many(f.tree, rects, ids, 50, NULL, &bad_index), QT_NULL_ARGUMENT);
    CHECK(bad_index == 9999);
    /* A count no buffer can have. */
    CHECK_STATUS(qt_insert_many(f.tree, rects, ids, SIZE_MAX, out, &bad_index),
                 QT_INVALID_PARAMETER);
    CHECK(out[0] == SENTINEL && bad_index == 9999);
    CHECK_UNCHANGED(f.tree, before);
    drop_snapshot(&before);
    qt_destroy(f.tree);
}

static void test_move_many(void) {
    fixture f = make_fixture();
    qt_handle_t handles[40];
    qt_rect rects[40], r;
    size_t i, bad_index;
    snapshot before;

    for (i = 0; i < 40; i++) {
        handles[i] = f.live[i];
        rects[i] = rect(50 + (float)i, 50, 51 + (float)i, 51);
    }
    /* A handle given twice ends at its last rectangle. */
    handles[39] = handles[0];
    rects[39] = rect(-7, -7, -6, -6);
    CHECK_OK(qt_move_many(f.tree, handles, rects, 40, NULL));
    CHECK_OK(qt_element_rect(f.tree, handles[5], &r));
    CHECK(r.x1 == 55 && r.y1 == 50);
    CHECK_OK(qt_element_rect(f.tree, handles[0], &r));
    CHECK(r.x1 == -7 && r.y1 == -7);
    CHECK_OK(qt_validate(f.tree));
    CHECK_OK(qt_move_many(f.tree, NULL, NULL, 0, NULL));

    before = take(f.tree);
    for (i = 0; i < N_BAD_RECTS; i++) {
        size_t at = (i * 5) % 40;
        qt_rect good = rects[at];
        rects[at] = bad_rects[i];
        bad_index = 9999;
        CHECK_STATUS(qt_move_many(f.tree, handles, rects, 40, &bad_index), QT_INVALID_RECT);
        CHECK(bad_index == at);
        rects[at] = good;
    }
    for (i = 0; i < 20; i++) {
        size_t at = (i * 3) % 40;
        qt_handle_t good = handles[at];
        handles[at] = f.stale[i];
        bad_index = 9999;
        CHECK_STATUS(qt_move_many(f.tree, handles, rects, 40, &bad_index), QT_INVALID_HANDLE);
        CHECK(bad_index == at);
        handles[at] = never_issued(&f, (int)(i % N_NEVER_ISSUED));
        CHECK_STATUS(qt_move_many(f.tree, handles, rects, 40, NULL), QT_INVALID_HANDLE);
        handles[at] = good;
    }
    bad_index = 9999;
    CHECK_STATUS(qt_move_many(NULL, handles, rects, 40, &bad_index), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_move_many(f.tree, NULL, rects, 40, &bad_index), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_move_many(f.tree, handles, NULL, 40, &bad_index), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_move_many(f.tree, handles, rects, SIZE_MAX / 2, &bad_index),
                 QT_INVALID_PARAMETER);
    CHECK(bad_index == 9999);
    CHECK_UNCHANGED(f.tree, before);
    drop_snapshot(&before);
    qt_destroy(f.tree);
}

static void test_remove_many(void) {
    fixture f = make_fixture();
    qt_handle_t handles[30];
    size_t i, bad_index, len = qt_len(f.tree);
    snapshot before;

    for (i = 0; i < 30; i++) handles[i] = f.live[100 + i];
    before = take(f.tree);
    /* A duplicate, a stale handle, a never-issued one: nothing removed. */
    for (i = 1; i < 30; i += 4) {
        qt_handle_t good = handles[i];
        handles[i] = handles[i - 1];
        bad_index = 9999;
        CHECK_STATUS(qt_remove_many(f.tree, handles, 30, &bad_index), QT_DUPLICATE_HANDLE);
        CHECK(bad_index == i);
        handles[i] = f.stale[i % 20];
        CHECK_STATUS(qt_remove_many(f.tree, handles, 30, &bad_index), QT_INVALID_HANDLE);
        CHECK(bad_index == i);
        handles[i] = never_issued(&f, (int)(i % N_NEVER_ISSUED));
        CHECK_STATUS(qt_remove_many(f.tree, handles, 30, NULL), QT_INVALID_HANDLE);
        handles[i] = good;
    }
    bad_index = 9999;
    CHECK_STATUS(qt_remove_many(NULL, handles, 30, &bad_index), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_remove_many(f.tree, NULL, 30, &bad_index), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_remove_many(f.tree, handles, SIZE_MAX, &bad_index), QT_INVALID_PARAMETER);
    CHECK(bad_index == 9999);
    CHECK_UNCHANGED(f.tree, before);
    drop_snapshot(&before);

    CHECK_OK(qt_remove_many(f.tree, NULL, 0, NULL));
    CHECK_OK(qt_remove_many(f.tree, handles, 30, NULL));
    CHECK(qt_len(f.tree) == len - 30);
    for (i = 0; i < 30; i++) CHECK(!qt_contains(f.tree, handles[i]));
    CHECK_STATUS(qt_remove_many(f.tree, handles, 30, &bad_index), QT_INVALID_HANDLE);
    CHECK(bad_index == 0);
    CHECK_OK(qt_validate(f.tree));
    qt_destroy(f.tree);
}

/* ---------------------------------------------------------------- queries against brute force */

#define MODEL_N 1500
typedef struct model {
    qt_tree *tree;
    qt_handle_t handle[MODEL_N];
    qt_rect rect[MODEL_N];
    int live[MODEL_N];
} model;

/* A tree of MODEL_N elements over `world` (some outside it), then a third
 * moved and a fifth removed, so the brute-force model has holes to get wrong.
 * max_elements 0 makes the structure with its defaults. */
static model *make_model(qt_rect world, uint32_t max_elements, uint32_t max_depth) {
    model *m = (model *)calloc(1, sizeof *m);
    float w = world.x2 - world.x1, h = world.y2 - world.y1;
    size_t i;
    if (max_elements == 0) {
        REQUIRE_OK(qt_create_default(current->kind, world, &m->tree));
    } else {
        m->tree = make_tree(world, max_elements, max_depth);
    }
    for (i = 0; i < MODEL_N; i++) {
        float x = world.x1 + (rnd() * 1.2f - 0.1f) * w, y = world.y1 + (rnd() * 1.2f - 0.1f) * h;
        float sx = rnd() * w * 0.03f, sy = rnd() * h * 0.03f;
        m->rect[i] = rect(x, y, x + sx, y + sy);
        REQUIRE_OK(qt_insert(m->tree, m->rect[i], (uint32_t)i, &m->handle[i]));
        m->live[i] = 1;
    }
    for (i = 0; i < MODEL_N; i += 3) {
        float dx = (rnd() - 0.5f) * w * 0.1f, dy = (rnd() - 0.5f) * h * 0.1f;
        qt_rect r = m->rect[i];
        m->rect[i] = rect(r.x1 + dx, r.y1 + dy, r.x2 + dx, r.y2 + dy);
        REQUIRE_OK(qt_move(m->tree, m->handle[i], m->rect[i]));
    }
    for (i = 1; i < MODEL_N; i += 5) {
        REQUIRE_OK(qt_remove(m->tree, m->handle[i]));
        m->live[i] = 0;
    }
    REQUIRE_OK(qt_cleanup(m->tree));
    return m;
}

static void free_model(model *m) {
    qt_destroy(m->tree);
    free(m);
}

static size_t brute_query(const model *m, qt_rect q, qt_handle_t omit, qt_handle_t *out) {
    size_t i, n = 0;
    for (i = 0; i < MODEL_N; i++)
        if (m->live[i] && m->handle[i] != omit && intersects(m->rect[i], q)) out[n++] = m->handle[i];
    qsort(out, n, sizeof *out, cmp_u64);
    return n;
}

static void check_queries(const model *m, qt_rect world) {
    static qt_handle_t got[MODEL_N], want[MODEL_N];
    static qt_pair got_pairs[MODEL_N * 40], want_pairs[MODEL_N * 40];
    float w = world.x2 - world.x1, h = world.y2 - world.y1;
    size_t q, i, j, total, nwant, ok = 1;

    for (q = 0; q < 300; q++) {
        float x = world.x1 + (rnd() * 1.4f - 0.2f) * w, y = world.y1 + (rnd() * 1.4f - 0.2f) * h;
        qt_rect r = rect(x, y, x + rnd() * w * 0.2f, y + rnd() * h * 0.2f);
        qt_handle_t omit = QT_NO_HANDLE;
        counter c = {0, 0, 0};
        if (q % 4 == 0) { /* query an element's own rectangle, as a collision loop does */
            size_t k = (q * 13) % MODEL_N;
            if (m->live[k]) {
                counter oc = {0, 0, 0};
                r = m->rect[k];
                omit = m->handle[k];
                /* The same through qt_overlapping, which starts from the element. */
                nwant = brute_query(m, r, omit, want);
                CHECK_OK(qt_query(m->tree, QELEM(omit), got, MODEL_N, &total));
                qsort(got, total, sizeof *got, cmp_u64);
                ok &= total == nwant && memcmp(got, want, nwant * sizeof *got) == 0;
                CHECK_OK(qt_query_each(m->tree, QELEM(omit), count_visit, &oc));
                ok &= oc.calls == nwant;
            }
        }
        if (q % 7 == 0) r = rect(x, y, x, y); /* a point as a rectangle */
        nwant = brute_query(m, r, omit, want);
        CHECK_OK(qt_query(m->tree, QRECT(r, omit, QT_MASK_ALL), got, MODEL_N, &total));
        qsort(got, total, sizeof *got, cmp_u64);
        ok &= total == nwant && memcmp(got, want, nwant * sizeof *got) == 0;
        CHECK_OK(qt_query_each(m->tree, QRECT(r, omit, QT_MASK_ALL), count_visit, &c));
        ok &= c.calls == nwant;
        /* The same through the point query. */
        if (q % 2 == 0) {
            counter pc = {0, 0, 0};
            nwant = brute_query(m, rect(x, y, x, y), omit, want);
            CHECK_OK(qt_query(m->tree, QPOINT(x, y, omit, QT_MASK_ALL), got, MODEL_N, &total));
            qsort(got, total, sizeof *got, cmp_u64);
            ok &= total == nwant && memcmp(got, want, nwant * sizeof *got) == 0;
            CHECK_OK(qt_query_each(m->tree, QPOINT(x, y, omit, QT_MASK_ALL), count_visit, &pc));
            ok &= pc.calls == nwant;
        }
    }
    CHECK(ok);

    /* Every overlapping pair, once. */
    nwant = 0;
    for (i = 0; i < MODEL_N; i++)
        for (j = i + 1; j < MODEL_N; j++)
            if (m->live[i] && m->live[j] && intersects(m->rect[i], m->rect[j])) {
                qt_handle_t a = m->handle[i], b = m->handle[j];
                want_pairs[nwant].a = a < b ? a : b;
                want_pairs[nwant].b = a < b ? b : a;
                nwant++;
            }
    qsort(want_pairs, nwant, sizeof *want_pairs, cmp_pair);
    CHECK_OK(qt_query_pairs(m->tree, got_pairs, MODEL_N * 40, &total));
    CHECK(total == nwant);
    for (i = 0; i < total && i < MODEL_N * 40; i++) {
        qt_handle_t a = got_pairs[i].a, b = got_pairs[i].b;
        got_pairs[i].a = a < b ? a : b;
        got_pairs[i].b = a < b ? b : a;
    }
    qsort(got_pairs, total, sizeof *got_pairs, cmp_pair);
    CHECK(total == nwant && memcmp(got_pairs, want_pairs, nwant * sizeof *got_pairs) == 0);
    {
        counter c = {0, 0, 0};
        CHECK_OK(qt_query_pairs_each(m->tree, count_pair, &c));
        CHECK(c.calls == nwant);
    }
}

static void test_queries_exact(void) {
    /* Several worlds: unit, large and offset, non-square; the last with the
     * structure's defaults (qt_create_default). */
    qt_rect worlds[] = {{0, 0, 1, 1}, {-1e6f, -1e6f, 1e6f, 1e6f}, {-300, 40, 700, 90},
                        {-300, 40, 700, 90}};
    uint32_t params[][2] = {{4, 8}, {8, 6}, {1, 10}, {0, 0}};
    size_t k;
    for (k = 0; k < 4; k++) {
        model *m = make_model(worlds[k], params[k][0], params[k][1]);
        check_queries(m, worlds[k]);
        CHECK_OK(qt_validate(m->tree));
        free_model(m);
    }
}

/* Fat bounds: with a margin the answers stay those of brute force on the
 * elements' own boxes, through small moves (inside the fat boxes), far moves
 * and a snapshot; bad margins are refused and change nothing. */
static void test_margin(void) {
    qt_rect world = {0, 0, 1000, 1000};
    model *m = make_model(world, 4, 8);
    qt_tree *copy = NULL;
    snapshot before;
    float margin = -1;
    size_t i, round, size = 0;
    uint8_t *bytes;

    CHECK_OK(qt_get_margin(m->tree, &margin));
    CHECK(margin == 0);
    CHECK_OK(qt_set_margin(m->tree, 5.0f));
    CHECK_OK(qt_get_margin(m->tree, &margin));
    CHECK(margin == 5.0f);
    CHECK_OK(qt_validate(m->tree));
    check_queries(m, world);
    for (round = 0; round < 3; round++) {
        for (i = 0; i < MODEL_N; i++) {
            float step = i % 10 == 0 ? 60.0f : 3.0f; /* most stay inside their fat box */
            float dx = (rnd() - 0.5f) * step, dy = (rnd() - 0.5f) * step;
            qt_rect r = m->rect[i];
            if (!m->live[i]) continue;
            m->rect[i] = rect(r.x1 + dx, r.y1 + dy, r.x2 + dx, r.y2 + dy);
            CHECK_OK(qt_move(m->tree, m->handle[i], m->rect[i]));
        }
        CHECK_OK(qt_cleanup(m->tree));
        CHECK_OK(qt_validate(m->tree));
        check_queries(m, world);
    }
    /* A snapshot keeps the margin and the own boxes. */
    CHECK_OK(qt_to_bytes(m->tree, NULL, 0, &size));
    bytes = (uint8_t *)malloc(size);
    CHECK_OK(qt_to_bytes(m->tree, bytes, size, &size));
    CHECK_OK(qt_from_bytes(bytes, size, &copy));
    margin = 0;
    CHECK_OK(qt_get_margin(copy, &margin));
    CHECK(margin == 5.0f);
    for (i = 0; i < MODEL_N; i++) {
        qt_rect r;
        if (!m->live[i]) continue;
        CHECK_OK(qt_element_rect(copy, m->handle[i], &r));
        CHECK(memcmp(&r, &m->rect[i], sizeof r) == 0);
    }
    qt_destroy(copy);
    free(bytes);

    before = take(m->tree);
    CHECK_STATUS(qt_set_margin(m->tree, NAN), QT_INVALID_PARAMETER);
    CHECK_STATUS(qt_set_margin(m->tree, -1.0f), QT_INVALID_PARAMETER);
    CHECK_STATUS(qt_set_margin(m->tree, INFINITY), QT_INVALID_PARAMETER);
    CHECK_STATUS(qt_set_margin(NULL, 1.0f), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_get_margin(NULL, &margin), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_get_margin(m->tree, NULL), QT_NULL_ARGUMENT);
    CHECK_UNCHANGED(m->tree, before);
    drop_snapshot(&before);
    /* Cleared again: the same answers without a margin. */
    CHECK_OK(qt_set_margin(m->tree, 0.0f));
    CHECK_OK(qt_validate(m->tree));
    check_queries(m, world);
    free_model(m);
}

/* ---------------------------------------------------------------- query contracts */

static void test_query_contracts(void) {
    fixture f = make_fixture();
    qt_handle_t buf[400], all[400];
    qt_pair pairs[400];
    size_t i, total, all_total, npairs;
    counter c;
    snapshot before = take(f.tree);

    CHECK_OK(qt_query(f.tree, QRECT(EVERYWHERE, QT_NO_HANDLE, QT_MASK_ALL), all, 400, &all_total));
    CHECK(all_total == 300);

    /* Zero capacity: counts, writes nothing, NULL buffer allowed. */
    total = 0;
    CHECK_OK(qt_query(f.tree, QRECT(EVERYWHERE, QT_NO_HANDLE, QT_MASK_ALL), NULL, 0, &total));
    CHECK(total == 300);
    buf[0] = SENTINEL;
    CHECK_OK(qt_query(f.tree, QRECT(EVERYWHERE, QT_NO_HANDLE, QT_MASK_ALL), buf, 0, &total));
    CHECK(total == 300 && buf[0] == SENTINEL);
    /* A short buffer: min(total, capacity) written, nothing past it. */
    for (i = 0; i < 400; i++) buf[i] = SENTINEL;
    CHECK_OK(qt_query(f.tree, QRECT(EVERYWHERE, QT_NO_HANDLE, QT_MASK_ALL), buf, 17, &total));
    CHECK(total == 300);
    for (i = 0; i < 17; i++) CHECK(qt_contains(f.tree, buf[i]));
    CHECK(buf[17] == SENTINEL);
    /* omit leaves exactly one out. */
    CHECK_OK(qt_query(f.tree, QRECT(EVERYWHERE, f.live[9], QT_MASK_ALL), buf, 400, &total));
    CHECK(total == 299);
    for (i = 0; i < total; i++) CHECK(buf[i] != f.live[9]);

    /* Bad rectangles, bad omits, NULLs: refused; nothing written. */
    for (i = 0; i < N_BAD_RECTS; i++) {
        total = 777;
        buf[0] = SENTINEL;
        CHECK_STATUS(qt_query(f.tree, QRECT(bad_rects[i], QT_NO_HANDLE, QT_MASK_ALL), buf, 400, &total),
                     QT_INVALID_RECT);
        CHECK(total == 777 && buf[0] == SENTINEL);
        c.calls = 0;
        CHECK_STATUS(qt_query_each(f.tree, QRECT(bad_rects[i], QT_NO_HANDLE, QT_MASK_ALL), never_called, &c),
                     QT_INVALID_RECT);
        CHECK(c.calls == 0);
    }
    for (i = 0; i < 20; i++) {
        total = 777;
        c.calls = 0;
        CHECK_STATUS(qt_query(f.tree, QRECT(EVERYWHERE, f.stale[i], QT_MASK_ALL), buf, 400, &total),
                     QT_INVALID_HANDLE);
        CHECK_STATUS(qt_query_each(f.tree, QRECT(EVERYWHERE, f.stale[i], QT_MASK_ALL), never_called, &c),
                     QT_INVALID_HANDLE);
        CHECK_STATUS(qt_query(f.tree, QPOINT(1, 1, f.stale[i], QT_MASK_ALL), buf, 400, &total),
                     QT_INVALID_HANDLE);
        CHECK_STATUS(qt_query_each(f.tree, QPOINT(1, 1, f.stale[i], QT_MASK_ALL), never_called, &c),
                     QT_INVALID_HANDLE);
        CHECK(total == 777 && c.calls == 0 && buf[0] == SENTINEL);
    }
    for (i = 1; i < N_NEVER_ISSUED; i++) {
        CHECK_STATUS(qt_query(f.tree, QRECT(EVERYWHERE, never_issued(&f, (int)i), QT_MASK_ALL), buf, 400, &total),
                     QT_INVALID_HANDLE);
        CHECK_STATUS(qt_query(f.tree, QELEM(never_issued(&f, (int)i)), buf, 400, &total),
                     QT_INVALID_HANDLE);
    }
    /* qt_overlapping: stale, removed and never-issued handles, NULLs; nothing written. */
    for (i = 0; i < 20; i++) {
        total = 777;
        c.calls = 0;
        CHECK_STATUS(qt_query(f.tree, QELEM(f.stale[i]), buf, 400, &total), QT_INVALID_HANDLE);
        CHECK_STATUS(qt_query_each(f.tree, QELEM(f.stale[i]), never_called, &c), QT_INVALID_HANDLE);
        CHECK(total == 777 && c.calls == 0 && buf[0] == SENTINEL);
    }
    CHECK_STATUS(qt_query(f.tree, QELEM(QT_NO_HANDLE), buf, 400, &total), QT_INVALID_HANDLE);
    CHECK_STATUS(qt_query(NULL, QELEM(f.live[0]), buf, 400, &total), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_query(f.tree, QELEM(f.live[0]), NULL, 400, &total), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_query(f.tree, QELEM(f.live[0]), buf, 400, NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_query_each(NULL, QELEM(f.live[0]), count_visit, &c), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_query_each(f.tree, QELEM(f.live[0]), NULL, &c), QT_NULL_ARGUMENT);
    CHECK(total == 777 && buf[0] == SENTINEL);
    /* Counting without a buffer, then filling one: what qt_query finds with the
     * element's own rectangle, omitting it. */
    {
        qt_rect own;
        size_t want_total;
        CHECK_OK(qt_element_rect(f.tree, f.live[9], &own));
        CHECK_OK(qt_query(f.tree, QRECT(own, f.live[9], QT_MASK_ALL), NULL, 0, &want_total));
        CHECK_OK(qt_query(f.tree, QELEM(f.live[9]), NULL, 0, &total));
        CHECK(total == want_total);
        CHECK_OK(qt_query(f.tree, QELEM(f.live[9]), buf, 400, &total));
        CHECK(total == want_total);
        for (i = 0; i < total && i < 400; i++) CHECK(buf[i] != f.live[9]);
    }
    buf[0] = SENTINEL;
    total = 777;
    CHECK_STATUS(qt_query(NULL, QRECT(EVERYWHERE, QT_NO_HANDLE, QT_MASK_ALL), buf, 400, &total), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_query(f.tree, QRECT(EVERYWHERE, QT_NO_HANDLE, QT_MASK_ALL), NULL, 400, &total), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_query(f.tree, QRECT(EVERYWHERE, QT_NO_HANDLE, QT_MASK_ALL), buf, 400, NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_query(f.tree, QRECT(EVERYWHERE, QT_NO_HANDLE, QT_MASK_ALL), buf, SIZE_MAX, &total),
                 QT_INVALID_PARAMETER);
    CHECK_STATUS(qt_query_each(NULL, QRECT(EVERYWHERE, QT_NO_HANDLE, QT_MASK_ALL), count_visit, &c), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_query_each(f.tree, QRECT(EVERYWHERE, QT_NO_HANDLE, QT_MASK_ALL), NULL, &c), QT_NULL_ARGUMENT);
    CHECK(total == 777 && buf[0] == SENTINEL);

    /* Callbacks: user_data passes through; nonzero stops at once. */
    c.calls = 0;
    c.stop_after = 0;
    CHECK_OK(qt_query_each(f.tree, QRECT(EVERYWHERE, QT_NO_HANDLE, QT_MASK_ALL), count_visit, &c));
    CHECK(c.calls == 300);
    c.calls = 0;
    c.stop_after = 5;
    CHECK_STATUS(qt_query_each(f.tree, QRECT(EVERYWHERE, QT_NO_HANDLE, QT_MASK_ALL), count_visit, &c), QT_STOPPED);
    CHECK(c.calls == 5);
    c.calls = 0;
    c.stop_after = 1;
    CHECK_STATUS(qt_query_each(f.tree, QRECT(EVERYWHERE, QT_NO_HANDLE, QT_MASK_ALL), count_visit, &c), QT_STOPPED);
    CHECK(c.calls == 1 && qt_contains(f.tree, c.last));

    /* Points: NaN and infinities refused. */
    {
        float bad[][2] = {{NAN, 0}, {0, NAN}, {NAN, NAN}, {INFINITY, 0}, {0, -INFINITY}};
        qt_rect r;
        float x, y;
        for (i = 0; i < 5; i++) {
            total = 777;
            c.calls = 0;
            CHECK_STATUS(qt_query(f.tree, QPOINT(bad[i][0], bad[i][1], QT_NO_HANDLE, QT_MASK_ALL), buf, 400, &total),
                         QT_INVALID_POINT);
            CHECK_STATUS(qt_query_each(f.tree, QPOINT(bad[i][0], bad[i][1], QT_NO_HANDLE, QT_MASK_ALL), never_called, &c),
                         QT_INVALID_POINT);
            CHECK(total == 777 && c.calls == 0);
        }
        CHECK_OK(qt_element_rect(f.tree, f.live[42], &r));
        x = (r.x1 + r.x2) / 2;
        y = (r.y1 + r.y2) / 2;
        CHECK_OK(qt_query(f.tree, QPOINT(x, y, QT_NO_HANDLE, QT_MASK_ALL), NULL, 0, &total));
        CHECK(total >= 1);
        CHECK_OK(qt_query(f.tree, QPOINT(x, y, f.live[42], QT_MASK_ALL), buf, 400, &all_total));
        CHECK(all_total == total - 1);
        c.calls = 0;
        c.stop_after = 1;
        CHECK_STATUS(qt_query_each(f.tree, QPOINT(x, y, QT_NO_HANDLE, QT_MASK_ALL), count_visit, &c),
                     QT_STOPPED);
        CHECK(c.calls == 1);
        CHECK_STATUS(qt_query(NULL, QPOINT(x, y, QT_NO_HANDLE, QT_MASK_ALL), buf, 400, &total), QT_NULL_ARGUMENT);
        CHECK_STATUS(qt_query(f.tree, QPOINT(x, y, QT_NO_HANDLE, QT_MASK_ALL), NULL, 4, &total),
                     QT_NULL_ARGUMENT);
        CHECK_STATUS(qt_query(f.tree, QPOINT(x, y, QT_NO_HANDLE, QT_MASK_ALL), buf, 4, NULL), QT_NULL_ARGUMENT);
        CHECK_STATUS(qt_query_each(NULL, QPOINT(x, y, QT_NO_HANDLE, QT_MASK_ALL), count_visit, &c),
                     QT_NULL_ARGUMENT);
        CHECK_STATUS(qt_query_each(f.tree, QPOINT(x, y, QT_NO_HANDLE, QT_MASK_ALL), NULL, &c), QT_NULL_ARGUMENT);
    }

    /* Pairs: the same buffer rules, and early stops. */
    CHECK_OK(qt_query_pairs(f.tree, NULL, 0, &npairs));
    CHECK(npairs > 10);
    for (i = 0; i < 400; i++) pairs[i].a = pairs[i].b = SENTINEL;
    CHECK_OK(qt_query_pairs(f.tree, pairs, 3, &total));
    CHECK(total == npairs);
    CHECK(qt_contains(f.tree, pairs[2].a) && qt_contains(f.tree, pairs[2].b));
    CHECK(pairs[3].a == SENTINEL && pairs[3].b == SENTINEL);
    c.calls = 0;
    c.stop_after = 4;
    CHECK_STATUS(qt_query_pairs_each(f.tree, count_pair, &c), QT_STOPPED);
    CHECK(c.calls == 4);
    total = 777;
    CHECK_STATUS(qt_query_pairs(NULL, pairs, 400, &total), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_query_pairs(f.tree, NULL, 400, &total), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_query_pairs(f.tree, pairs, 400, NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_query_pairs(f.tree, pairs, SIZE_MAX / 8, &total), QT_INVALID_PARAMETER);
    CHECK_STATUS(qt_query_pairs_each(NULL, count_pair, &c), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_query_pairs_each(f.tree, NULL, &c), QT_NULL_ARGUMENT);
    CHECK(total == 777);

    CHECK_UNCHANGED(f.tree, before);
    drop_snapshot(&before);
    qt_destroy(f.tree);
}

/* ---------------------------------------------------------------- traverse, stats, cleanup */

typedef struct walk {
    size_t branches, leaves, links, stop_at;
    uint32_t max_depth;
    int root_ok, cells_ok;
    qt_rect world;
} walk;

static int on_node(walk *w, uint32_t node, uint32_t depth, float x1, float y1, float x2, float y2) {
    if (node == 0) {
        w->root_ok = depth == 0 && x1 == w->world.x1 && y1 == w->world.y1 && x2 == w->world.x2 &&
                     y2 == w->world.y2;
    }
    /* A cell at depth d is the world's size over 2^d, inside the world. */
    if (!(x1 >= w->world.x1 && x2 <= w->world.x2 && y1 >= w->world.y1 && y2 <= w->world.y2 &&
          x2 - x1 == (w->world.x2 - w->world.x1) / (float)(1u << depth)))
        w->cells_ok = 0;
    if (depth > w->max_depth) w->max_depth = depth;
    return w->stop_at != 0 && w->branches + w->leaves >= w->stop_at;
}

static int on_branch(void *user_data, uint32_t node, uint32_t depth, float x1, float y1, float x2,
                     float y2, uint32_t count) {
    walk *w = (walk *)user_data;
    w->branches++;
    if (count != 0) w->cells_ok = 0;
    return on_node(w, node, depth, x1, y1, x2, y2);
}

static int on_leaf(void *user_data, uint32_t node, uint32_t depth, float x1, float y1, float x2,
                   float y2, uint32_t count) {
    walk *w = (walk *)user_data;
    w->leaves++;
    w->links += count;
    return on_node(w, node, depth, x1, y1, x2, y2);
}

static void test_traverse_stats_cleanup(void) {
    fixture f = make_fixture();
    qt_tree_stats stats, untouched;
    walk w;
    size_t i;
    snapshot before;

    CHECK_OK(qt_stats(f.tree, &stats));
    CHECK(stats.elements == 300 && stats.nodes > stats.leaves);
    CHECK(stats.nodes >= 5 && stats.leaves >= 4 && stats.element_links >= 300 &&
          stats.max_depth_reached >= 1 && stats.max_depth_reached <= 6 && stats.bytes > 0);
    CHECK((stats.nodes - 1) % 4 == 0); /* children come in fours */

    memset(&w, 0, sizeof w);
    w.world = rect(0, 0, 100, 100);
    w.cells_ok = 1;
    CHECK_OK(qt_traverse(f.tree, on_branch, on_leaf, &w));
    CHECK(w.root_ok && w.cells_ok);
    CHECK(w.branches + w.leaves == stats.nodes);
    CHECK(w.leaves == stats.leaves);
    CHECK(w.links == stats.element_links);
    CHECK(w.max_depth == stats.max_depth_reached);
    /* Either callback may be NULL; both NULL walks nothing. */
    memset(&w, 0, sizeof w);
    w.world = rect(0, 0, 100, 100);
    w.cells_ok = 1;
    CHECK_OK(qt_traverse(f.tree, NULL, on_leaf, &w));
    CHECK(w.branches == 0 && w.leaves == stats.leaves);
    memset(&w, 0, sizeof w);
    w.world = rect(0, 0, 100, 100);
    CHECK_OK(qt_traverse(f.tree, on_branch, NULL, &w));
    CHECK(w.leaves == 0 && w.branches == stats.nodes - stats.leaves);
    CHECK_OK(qt_traverse(f.tree, NULL, NULL, NULL));
    /* Stops: from a branch callback (the root is first) and from a leaf one. */
    memset(&w, 0, sizeof w);
    w.world = rect(0, 0, 100, 100);
    w.stop_at = 1;
    CHECK_STATUS(qt_traverse(f.tree, on_branch, on_leaf, &w), QT_STOPPED);
    CHECK(w.branches == 1 && w.leaves == 0);
    memset(&w, 0, sizeof w);
    w.world = rect(0, 0, 100, 100);
    w.stop_at = 3;
    CHECK_STATUS(qt_traverse(f.tree, NULL, on_leaf, &w), QT_STOPPED);
    CHECK(w.leaves == 3);
    CHECK_STATUS(qt_traverse(NULL, on_branch, on_leaf, &w), QT_NULL_ARGUMENT);

    /* stats: NULLs. */
    memset(&untouched, 0xAB, sizeof untouched);
    stats = untouched;
    CHECK_STATUS(qt_stats(NULL, &stats), QT_NULL_ARGUMENT);
    CHECK(memcmp(&stats, &untouched, sizeof stats) == 0);
    CHECK_STATUS(qt_stats(f.tree, NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_validate(NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_cleanup(NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_clear(NULL), QT_NULL_ARGUMENT);

    /* Cleanup: lazy, a level per call, until only the root is left. */
    for (i = 0; i < f.nlive; i++) CHECK_OK(qt_remove(f.tree, f.live[i]));
    CHECK(qt_len(f.tree) == 0);
    for (i = 0; i < 10; i++) CHECK_OK(qt_cleanup(f.tree));
    CHECK_OK(qt_stats(f.tree, &stats));
    CHECK(stats.nodes == 1 && stats.leaves == 1 && stats.empty_leaves == 1 &&
          stats.element_links == 0 && stats.max_depth_reached == 0);
    before = take(f.tree);
    CHECK_OK(qt_cleanup(f.tree)); /* nothing left to merge */
    CHECK_UNCHANGED(f.tree, before);
    drop_snapshot(&before);
    CHECK_OK(qt_validate(f.tree));
    qt_destroy(f.tree);
}

/* A grid's walk: its cells as leaves of depth 0, agreeing with qt_stats. */
static void test_grid_walk_stats(void) {
    fixture f = make_fixture();
    qt_tree_stats stats;
    walk w;
    size_t i;

    CHECK_OK(qt_stats(f.tree, &stats));
    CHECK(stats.elements == 300 && stats.bytes > 0);
    CHECK(stats.nodes == stats.leaves && stats.leaves >= 1 && stats.max_depth_reached == 0 &&
          stats.empty_leaves <= stats.leaves);
    memset(&w, 0, sizeof w);
    w.world = rect(0, 0, 100, 100);
    CHECK_OK(qt_traverse(f.tree, on_branch, on_leaf, &w));
    CHECK(w.branches == 0 && w.leaves == stats.leaves && w.max_depth == 0);
    if (current->kind == QT_KIND_GRID) {
        CHECK(w.links == stats.element_links); /* a cell's count is its links */
    } else {
        CHECK(w.links <= stats.elements); /* each in one loose cell, or none when big */
    }
    memset(&w, 0, sizeof w);
    w.world = rect(0, 0, 100, 100);
    w.stop_at = 1;
    CHECK_STATUS(qt_traverse(f.tree, NULL, on_leaf, &w), QT_STOPPED);
    CHECK(w.leaves == 1);
    CHECK_OK(qt_traverse(f.tree, NULL, NULL, NULL));

    /* Emptied and tidied: no links left, the cells still there. */
    for (i = 0; i < f.nlive; i++) CHECK_OK(qt_remove(f.tree, f.live[i]));
    CHECK_OK(qt_cleanup(f.tree));
    CHECK_OK(qt_stats(f.tree, &stats));
    CHECK(stats.elements == 0 && stats.element_links == 0 && stats.empty_leaves == stats.leaves);
    CHECK_OK(qt_validate(f.tree));
    qt_destroy(f.tree);
}

/* ---------------------------------------------------------------- clear, elements, params */

static void test_clear_elements_params(void) {
    fixture f = make_fixture();
    qt_handle_t buf[400];
    size_t i, total;
    qt_rect world = rect(9, 9, 9, 9);
    uint32_t max_elements = 99, max_depth = 99;
    qt_tree_stats stats;

    CHECK_OK(qt_elements(f.tree, NULL, 0, &total));
    CHECK(total == 300);
    for (i = 0; i < 400; i++) buf[i] = SENTINEL;
    CHECK_OK(qt_elements(f.tree, buf, 400, &total));
    CHECK(total == 300 && buf[300] == SENTINEL);
    qsort(buf, 300, sizeof *buf, cmp_u64);
    {
        qt_handle_t sorted[300];
        memcpy(sorted, f.live, sizeof sorted);
        qsort(sorted, 300, sizeof *sorted, cmp_u64);
        CHECK(memcmp(sorted, buf, sizeof sorted) == 0);
    }
    buf[5] = SENTINEL;
    CHECK_OK(qt_elements(f.tree, buf, 5, &total));
    CHECK(total == 300 && buf[5] == SENTINEL);
    total = 777;
    CHECK_STATUS(qt_elements(NULL, buf, 400, &total), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_elements(f.tree, NULL, 400, &total), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_elements(f.tree, buf, 400, NULL), QT_NULL_ARGUMENT);
    CHECK(total == 777);

    /* params: each out-pointer optional; the other kinds' getters refused. */
    if (current->kind == QT_KIND_LOOSE_QUADTREE) {
        CHECK_OK(qt_loose_quadtree_params(f.tree, NULL, NULL, NULL));
        CHECK_OK(qt_loose_quadtree_params(f.tree, &world, &max_elements, &max_depth));
        CHECK(max_elements == 4 && max_depth == 6 && world.x1 == 0 && world.x2 == 100);
        world = rect(9, 9, 9, 9), max_elements = 4, max_depth = 99;
    }
    CHECK_STATUS(qt_loose_quadtree_params(NULL, &world, &max_elements, &max_depth),
                 QT_NULL_ARGUMENT);
    if (current->kind == QT_KIND_QUADTREE) {
        CHECK_OK(qt_params(f.tree, NULL, NULL, NULL));
        CHECK_OK(qt_params(f.tree, NULL, &max_elements, NULL));
        CHECK(max_elements == 4 && max_depth == 99 && world.x1 == 9);
        CHECK_OK(qt_params(f.tree, &world, NULL, &max_depth));
        CHECK(max_depth == 6 && world.x1 == 0 && world.x2 == 100);
    }
    check_other_getters_refuse(f.tree);
    CHECK_STATUS(qt_params(NULL, &world, &max_elements, &max_depth), QT_NULL_ARGUMENT);

    /* clear: everything goes, every handle stale, the tree usable again. */
    CHECK_OK(qt_clear(f.tree));
    CHECK(qt_len(f.tree) == 0);
    for (i = 0; i < f.nlive; i++) CHECK(!qt_contains(f.tree, f.live[i]));
    CHECK_STATUS(qt_remove(f.tree, f.live[0]), QT_INVALID_HANDLE);
    CHECK_OK(qt_stats(f.tree, &stats));
    CHECK(stats.elements == 0 && stats.element_links == 0);
    if (current->kind == QT_KIND_QUADTREE) CHECK(stats.nodes == 1);
    CHECK_OK(qt_elements(f.tree, buf, 400, &total));
    CHECK(total == 0);
    CHECK_OK(qt_insert(f.tree, rect(1, 1, 2, 2), 1, &buf[0]));
    for (i = 0; i < f.nlive; i++) CHECK(buf[0] != f.live[i]);
    CHECK_OK(qt_validate(f.tree));
    qt_destroy(f.tree);
}

/* ---------------------------------------------------------------- clone, bytes */

static void test_clone_and_bytes(void) {
    fixture f = make_fixture();
    qt_tree *copy = NULL, *loaded = NULL, *const untouched = (qt_tree *)&copy;
    unsigned char *bytes, *again;
    size_t n, total, i;
    snapshot before = take(f.tree), other;

    /* A clone: equal in every respect, then independent. */
    CHECK_OK(qt_clone(f.tree, &copy));
    other = take(copy);
    CHECK(same_content(&before, &other));
    drop_snapshot(&other);
    CHECK_OK(qt_remove(copy, f.live[0]));
    CHECK(qt_contains(f.tree, f.live[0]) && !qt_contains(copy, f.live[0]));
    CHECK_UNCHANGED(f.tree, before);
    qt_destroy(copy);
    loaded = untouched;
    CHECK_STATUS(qt_clone(NULL, &loaded), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_clone(f.tree, NULL), QT_NULL_ARGUMENT);
    CHECK(loaded == untouched);

    /* Bytes: the same snapshot loads into an equal tree, same handles. */
    CHECK_OK(qt_to_bytes(f.tree, NULL, 0, &n));
    CHECK(n > 300 * 24);
    bytes = (unsigned char *)malloc(n + 8);
    memset(bytes, 0xEE, n + 8);
    CHECK_OK(qt_to_bytes(f.tree, bytes, n + 8, &total));
    CHECK(total == n && bytes[n] == 0xEE);
    loaded = NULL;
    CHECK_OK(qt_from_bytes(bytes, n, &loaded));
    other = take(loaded);
    CHECK(same_content(&before, &other));
    drop_snapshot(&other);
    for (i = 0; i < f.nlive; i++) CHECK(qt_contains(loaded, f.live[i]));
    for (i = 0; i < 20; i++) CHECK(!qt_contains(loaded, f.stale[i]));
    CHECK_OK(qt_validate(loaded));
    qt_destroy(loaded);

    /* A short buffer gets a prefix; a truncated or damaged snapshot is refused. */
    again = (unsigned char *)malloc(n);
    memset(again, 0xEE, n);
    CHECK_OK(qt_to_bytes(f.tree, again, 10, &total));
    CHECK(total == n && memcmp(again, bytes, 10) == 0 && again[10] == 0xEE);
    free(again);
    for (i = 0; i < 6; i++) {
        size_t cut[] = {0, 1, 4, 8, n / 2, n - 1};
        loaded = untouched;
        CHECK_STATUS(qt_from_bytes(cut[i] ? bytes : NULL, cut[i], &loaded), QT_INVALID_BYTES);
        CHECK(loaded == untouched);
    }
    bytes[0] ^= 0xFF; /* wrong magic */
    CHECK_STATUS(qt_from_bytes(bytes, n, &loaded), QT_INVALID_BYTES);
    bytes[0] ^= 0xFF;
    for (i = 60; i < n; i += n / 7) { /* damage deep inside: refused, never a broken tree */
        qt_status s;
        bytes[i] ^= 0x5A;
        loaded = NULL;
        s = qt_from_bytes(bytes, n, &loaded);
        CHECK(s == QT_INVALID_BYTES || s == QT_OK);
        if (s == QT_OK) {
            CHECK_OK(qt_validate(loaded));
            qt_destroy(loaded);
        }
        bytes[i] ^= 0x5A;
    }
    loaded = untouched;
    CHECK_STATUS(qt_from_bytes(NULL, n, &loaded), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_from_bytes(bytes, n, NULL), QT_NULL_ARGUMENT);
    CHECK(loaded == untouched);
    total = 777;
    CHECK_STATUS(qt_to_bytes(NULL, bytes, n, &total), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_to_bytes(f.tree, NULL, n, &total), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_to_bytes(f.tree, bytes, n, NULL), QT_NULL_ARGUMENT);
    CHECK(total == 777);
    free(bytes);
    CHECK_UNCHANGED(f.tree, before);
    drop_snapshot(&before);
    qt_destroy(f.tree);
}

/* Snapshots carry their kind: qt_from_bytes gives back the same structure,
 * whichever it is; relabelled or unknown kinds are refused or load whole. */
static void test_snapshots_across_kinds(void) {
    size_t k, j, n, total;
    for (k = 0; k < N_STRUCTURES; k++) {
        fixture f;
        unsigned char *bytes;
        qt_tree *loaded = NULL, *const untouched = (qt_tree *)&loaded;
        snapshot before, other;
        static const uint32_t unknown[] = {0, 5, 0xFFFFFFFFu};
        current = &STRUCTURES[k];
        f = make_fixture();
        before = take(f.tree);
        REQUIRE_OK(qt_to_bytes(f.tree, NULL, 0, &n));
        bytes = (unsigned char *)malloc(n);
        REQUIRE_OK(qt_to_bytes(f.tree, bytes, n, &total));
        CHECK_OK(qt_from_bytes(bytes, n, &loaded));
        CHECK(qt_kind_of(loaded) == current->kind);
        other = take(loaded);
        CHECK(same_content(&before, &other));
        drop_snapshot(&other);
        qt_destroy(loaded);
        /* The kind is the third little-endian word of the snapshot. */
        CHECK(n > 12 && bytes[8] == current->kind && bytes[9] == 0 && bytes[10] == 0 &&
              bytes[11] == 0);
        for (j = 0; j < N_STRUCTURES; j++) { /* another kind's label on this body */
            qt_status s;
            if (STRUCTURES[j].kind == current->kind) continue;
            bytes[8] = (unsigned char)STRUCTURES[j].kind;
            loaded = NULL;
            s = qt_from_bytes(bytes, n, &loaded);
            CHECK(s == QT_INVALID_BYTES || s == QT_OK);
            if (s == QT_OK) {
                CHECK(qt_kind_of(loaded) == STRUCTURES[j].kind);
                CHECK_OK(qt_validate(loaded));
                qt_destroy(loaded);
            }
        }
        for (j = 0; j < sizeof unknown / sizeof unknown[0]; j++) {
            memcpy(bytes + 8, &unknown[j], 4); /* the same in either byte order */
            loaded = untouched;
            CHECK_STATUS(qt_from_bytes(bytes, n, &loaded), QT_INVALID_BYTES);
            CHECK(loaded == untouched);
        }
        free(bytes);
        /* An empty structure of each kind round-trips too. */
        loaded = make_tree(rect(0, 0, 10, 10), 4, 3);
        REQUIRE_OK(qt_to_bytes(loaded, NULL, 0, &n));
        bytes = (unsigned char *)malloc(n);
        REQUIRE_OK(qt_to_bytes(loaded, bytes, n, &total));
        qt_destroy(loaded);
        loaded = NULL;
        CHECK_OK(qt_from_bytes(bytes, n, &loaded));
        CHECK(qt_kind_of(loaded) == current->kind && qt_len(loaded) == 0);
        qt_destroy(loaded);
        free(bytes);
        drop_snapshot(&before);
        qt_destroy(f.tree);
    }
}

/* ---------------------------------------------------------------- panics */

static void test_panic_boundary(void) {
    fixture f = make_fixture();
    qt_handle_t h = SENTINEL, buf[4];
    size_t total = 777;
    qt_tree_stats stats;
    qt_tree *copy = NULL;
    counter c = {0, 0, 0};

    /* A panic comes back as a status: the process is still here to check it. */
    CHECK_STATUS(qt_test_panic(NULL), QT_PANIC);
    CHECK_STATUS(qt_test_panic(NULL), QT_PANIC);

    /* A panic while a tree is being changed poisons that tree, and only it. */
    CHECK_STATUS(qt_test_panic(f.tree), QT_PANIC);
    CHECK_STATUS(qt_test_panic(f.tree), QT_POISONED);
    CHECK_STATUS(qt_insert(f.tree, rect(0, 0, 1, 1), 1, &h), QT_POISONED);
    CHECK_STATUS(qt_remove(f.tree, f.live[0]), QT_POISONED);
    CHECK_STATUS(qt_move(f.tree, f.live[0], rect(0, 0, 1, 1)), QT_POISONED);
    CHECK_STATUS(qt_cleanup(f.tree), QT_POISONED);
    CHECK_STATUS(qt_clear(f.tree), QT_POISONED);
    CHECK_STATUS(qt_query(f.tree, QRECT(EVERYWHERE, QT_NO_HANDLE, QT_MASK_ALL), buf, 4, &total), QT_POISONED);
    CHECK_STATUS(qt_query_each(f.tree, QRECT(EVERYWHERE, QT_NO_HANDLE, QT_MASK_ALL), count_visit, &c), QT_POISONED);
    CHECK_STATUS(qt_query_pairs(f.tree, NULL, 0, &total), QT_POISONED);
    CHECK_STATUS(qt_stats(f.tree, &stats), QT_POISONED);
    CHECK_STATUS(qt_clone(f.tree, &copy), QT_POISONED);
    CHECK_STATUS(qt_to_bytes(f.tree, NULL, 0, &total), QT_POISONED);
    CHECK_STATUS(qt_validate(f.tree), QT_POISONED);
    CHECK_STATUS(qt_params(f.tree, NULL, NULL, NULL), QT_POISONED);
    CHECK_STATUS(qt_grid_params(f.tree, NULL, NULL, NULL, NULL, NULL), QT_POISONED);
    CHECK_STATUS(qt_loose_grid_params(f.tree, NULL, NULL, NULL, NULL, NULL), QT_POISONED);
    CHECK(qt_len(f.tree) == 0 && !qt_contains(f.tree, f.live[0]) && qt_kind_of(f.tree) == 0);
    CHECK(h == SENTINEL && total == 777 && c.calls == 0 && copy == NULL);
    qt_destroy(f.tree); /* still freed: the leak checker would say otherwise */

    /* The same from a worker thread of the batch calls' pool (QT_OK would
     * mean the panic never left the calling thread). */
    fixture g = make_fixture();
    CHECK_STATUS(qt_test_panic_on_worker(NULL), QT_PANIC);
    CHECK(qt_len(g.tree) == g.nlive);
    CHECK_STATUS(qt_test_panic_on_worker(g.tree), QT_PANIC);
    CHECK_STATUS(qt_test_panic_on_worker(g.tree), QT_POISONED);
    CHECK_STATUS(qt_move(g.tree, g.live[0], rect(0, 0, 1, 1)), QT_POISONED);
    CHECK(qt_len(g.tree) == 0);
    qt_destroy(g.tree);
}

/* A panic that stops a batch of moves halfway (a bug in flatquad; the hook
 * breaks the batch after half its moves, on the calling thread, then on a
 * worker) finishes the moves: QT_PANIC, every element at its new rectangle,
 * the tree whole and not poisoned. */
static void test_panic_in_moves(void) {
    int on_worker;
    for (on_worker = 0; on_worker < 2; on_worker++) {
        fixture f = make_fixture();
        static qt_rect to[300];
        qt_rect got;
        qt_handle_t buf[4];
        size_t i, total = 0, n = f.nlive;
        for (i = 0; i < n; i++) {
            float x = rnd() * 120 - 10, y = rnd() * 120 - 10, s = rnd() * 5;
            to[i] = rect(x, y, x + s, y + s);
        }
        CHECK_STATUS(qt_test_panic_in_moves(f.tree, f.live, to, n, n / 2, on_worker != 0), QT_PANIC);
        CHECK_OK(qt_validate(f.tree));
        CHECK(qt_len(f.tree) == n);
        for (i = 0; i < n; i++) {
            CHECK_OK(qt_element_rect(f.tree, f.live[i], &got));
            CHECK(memcmp(&got, &to[i], sizeof got) == 0);
        }
        /* It answers from the new rectangles, and goes on moving. */
        CHECK_OK(qt_query(f.tree, QRECT(to[n - 1], QT_NO_HANDLE, QT_MASK_ALL), buf, 4, &total));
        CHECK(total >= 1);
        CHECK_OK(qt_move(f.tree, f.live[0], rect(1, 1, 2, 2)));
        CHECK_OK(qt_validate(f.tree));
        /* A bad batch is still refused before the hook, changing nothing. */
        CHECK_STATUS(qt_test_panic_in_moves(f.tree, f.stale, to, 20, 10, false), QT_INVALID_HANDLE);
        CHECK_OK(qt_element_rect(f.tree, f.live[0], &got));
        CHECK(got.x1 == 1 && got.y2 == 2);
        qt_destroy(f.tree);
    }
}

/* ------------------------------------------------- query descriptions */

/* The sorted hits of one description, for comparing a batch's rows with. */
static size_t sorted_hits(const qt_tree *tree, const qt_query_desc *q, qt_handle_t *out, size_t cap) {
    size_t total = 0;
    REQUIRE_OK(qt_query(tree, q, out, cap, &total));
    CHECK(total <= cap);
    qsort(out, total, sizeof *out, cmp_u64);
    return total;
}

/* Whether each of `count` rows of a qt_query_many answer is its single
 * query's hits (the rows are sorted in place). */
static void check_rows_as_single(const qt_tree *tree, const qt_query_desc *descs, size_t count,
                                 const size_t *offsets, qt_handle_t *rows) {
    static qt_handle_t one[400];
    size_t k;
    for (k = 0; k < count; k++) {
        size_t n = offsets[k + 1] - offsets[k];
        CHECK(n == sorted_hits(tree, &descs[k], one, 400));
        qsort(rows + offsets[k], n, sizeof *rows, cmp_u64);
        CHECK(memcmp(rows + offsets[k], one, n * sizeof *one) == 0);
    }
}

/* A batch of element queries big enough for the threads (at least the
 * core's 1,000) and under a quarter of the elements (so not one pair walk):
 * each row the single query's, then a stale handle in the middle refused with
 * its index and nothing written. */
static void test_element_batch_on_threads(void) {
    enum { ELEMENTS = 6000, BATCH = 1200 };
    qt_tree *tree = make_tree(rect(0, 0, 1000, 1000), 8, 7);
    qt_handle_t *handles = (qt_handle_t *)malloc(ELEMENTS * sizeof *handles);
    qt_query_desc *descs = (qt_query_desc *)malloc(BATCH * sizeof *descs);
    size_t *offsets = (size_t *)malloc((BATCH + 1) * sizeof *offsets);
    qt_handle_t *rows = NULL, stale = 0;
    size_t k, all = 0, total = 0, bad_index = 99;
    for (k = 0; k < ELEMENTS; k++) {
        float x = rnd() * 1000, y = rnd() * 1000, side = rnd() * 8;
        REQUIRE_OK(qt_insert(tree, rect(x, y, x + side, y + side), (uint32_t)k, &handles[k]));
    }
    REQUIRE_OK(qt_insert(tree, rect(1, 1, 2, 2), 0, &stale));
    REQUIRE_OK(qt_remove(tree, stale));
    REQUIRE_OK(qt_cleanup(tree));
    for (k = 0; k < BATCH; k++) descs[k] = qt_element_query(handles[(k * 7) % ELEMENTS]);
    CHECK_OK(qt_query_many(tree, descs, BATCH, offsets, NULL, 0, &all, NULL));
    rows = (qt_handle_t *)malloc((all + 1) * sizeof *rows);
    CHECK_OK(qt_query_many(tree, descs, BATCH, offsets, rows, all, &total, NULL));
    CHECK(total == all && offsets[0] == 0 && offsets[BATCH] == all);
    check_rows_as_single(tree, descs, BATCH, offsets, rows);
    descs[777] = qt_element_query(stale);
    offsets[0] = 12345;
    CHECK_STATUS(qt_query_many(tree, descs, BATCH, offsets, rows, all, &total, &bad_index),
                 QT_INVALID_HANDLE);
    CHECK(bad_index == 777 && offsets[0] == 12345 && total == all);
    free(rows);
    free(offsets);
    free(descs);
    free(handles);
    qt_destroy(tree);
}

/* The inline helpers, a batch mixing every kind, and the refusals of a bad
 * description: an unknown kind (a zeroed description's 0, a 3D kind, any
 * other number), a NULL description or array, bad shapes in a batch. Each
 * refusal leaves the tree and the out-parameters as they were. */
static void test_query_descriptions(void) {
    fixture f = make_fixture();
    static qt_handle_t buf[400], rows[4000], one[400];
    static qt_query_desc batch[8];
    size_t offsets[9], total = 0, bad_index = 0, i;
    counter c;
    qt_query_desc q, zeroed;
    const qt_shape_kind unknown[] = {0, QT_SHAPE_BOX, QT_SHAPE_SPHERE, 8, 99, UINT32_MAX};
    snapshot before;
    qt_rect_d where_d = {10, 10, 30, 30};
    uint32_t category = 0, mask = 0;

    /* The helpers: mask QT_MASK_ALL, nothing omitted, the member of their kind. */
    q = qt_rect_query(rect(10, 10, 30, 30));
    CHECK(q.kind == QT_SHAPE_RECT && q.mask == QT_MASK_ALL && q.omit == QT_NO_HANDLE);
    CHECK(q.shape.rect.x1 == 10 && q.shape.rect.y2 == 30);
    batch[0] = q;
    batch[1] = qt_rect_d_query(where_d);
    CHECK(batch[1].kind == QT_SHAPE_RECT_D && batch[1].shape.rect_d.x2 == 30);
    batch[2] = qt_point_query(20, 20);
    CHECK(batch[2].kind == QT_SHAPE_POINT && batch[2].shape.point.y == 20);
    batch[3] = qt_circle_query(50, 50, 8.0);
    CHECK(batch[3].kind == QT_SHAPE_CIRCLE && batch[3].shape.circle.radius == 8.0);
    batch[4] = qt_element_query(f.live[7]);
    CHECK(batch[4].kind == QT_SHAPE_ELEMENT && batch[4].shape.element == f.live[7]);
    batch[5] = qt_rect_query(EVERYWHERE);
    batch[5].omit = f.live[3];
    batch[6] = qt_rect_query(EVERYWHERE);
    batch[6].mask = 0; /* nothing passes */
    batch[7] = qt_circle_query(0, 0, INFINITY);
    /* The same rect as float and as double: the same hits. */
    {
        size_t n = sorted_hits(f.tree, &batch[0], buf, 400);
        CHECK(n > 0 && n == sorted_hits(f.tree, &batch[1], one, 400));
        CHECK(memcmp(buf, one, n * sizeof *buf) == 0);
    }
    /* A mask: only the elements whose category is in it (every other
     * element keeps the category QT_MASK_ALL). */
    CHECK_OK(qt_set_filter(f.tree, f.live[5], 2, QT_MASK_ALL));
    CHECK_OK(qt_get_filter(f.tree, f.live[5], &category, &mask));
    CHECK(category == 2 && mask == QT_MASK_ALL);
    q = qt_rect_query(EVERYWHERE);
    q.mask = 4;
    CHECK_OK(qt_query(f.tree, &q, buf, 400, &total));
    CHECK(total == f.nlive - 1);
    for (i = 0; i < total; i++) CHECK(buf[i] != f.live[5]);
    q.mask = 2;
    CHECK_OK(qt_query(f.tree, &q, buf, 400, &total));
    CHECK(total == f.nlive);

    /* The batch, each row the single query's. */
    CHECK_OK(qt_query_many(f.tree, batch, 8, offsets, rows, 4000, &total, &bad_index));
    CHECK(offsets[0] == 0 && offsets[8] == total && total <= 4000);
    check_rows_as_single(f.tree, batch, 8, offsets, rows);
    CHECK(offsets[6] == offsets[7]);         /* mask 0: an empty row */
    CHECK(offsets[8] - offsets[7] == f.nlive); /* the infinite circle: everything */
    CHECK(offsets[6] - offsets[5] == f.nlive - 1);
    CHECK_OK(qt_query_many(f.tree, NULL, 0, offsets, NULL, 0, &total, NULL));
    CHECK(offsets[0] == 0 && total == 0);

    /* Refusals: nothing written, the tree unchanged, the callback never called. */
    before = take(f.tree);
    memset(&zeroed, 0, sizeof zeroed);
    CHECK_STATUS(qt_query(f.tree, &zeroed, buf, 400, &total), QT_INVALID_PARAMETER);
    for (i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        q = qt_rect_query(EVERYWHERE);
        q.kind = unknown[i];
        total = 777;
        memset(&c, 0, sizeof c);
        CHECK_STATUS(qt_query(f.tree, &q, buf, 400, &total), QT_INVALID_PARAMETER);
        CHECK_STATUS(qt_query_each(f.tree, &q, never_called, &c), QT_INVALID_PARAMETER);
        CHECK(total == 777 && c.calls == 0);
        batch[5] = q;
        offsets[0] = 777;
        bad_index = 99;
        CHECK_STATUS(qt_query_many(f.tree, batch, 8, offsets, rows, 4000, &total, &bad_index),
                     QT_INVALID_PARAMETER);
        CHECK(bad_index == 5 && offsets[0] == 777 && total == 777);
    }
    batch[5] = qt_rect_query(EVERYWHERE);
    /* NULL descriptions and arrays. */
    CHECK_STATUS(qt_query(f.tree, NULL, buf, 400, &total), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_query_each(f.tree, NULL, never_called, &c), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_query_many(f.tree, NULL, 3, offsets, rows, 4000, &total, &bad_index),
                 QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_query_many(NULL, batch, 3, offsets, rows, 4000, &total, &bad_index),
                 QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_query_many(f.tree, batch, 3, NULL, rows, 4000, &total, &bad_index),
                 QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_query_many(f.tree, batch, 3, offsets, NULL, 4000, &total, &bad_index),
                 QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_query_many(f.tree, batch, 3, offsets, rows, 4000, NULL, &bad_index),
                 QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_query_many(f.tree, batch, SIZE_MAX, offsets, rows, 4000, &total, NULL),
                 QT_INVALID_PARAMETER);
    /* Bad shapes in a batch: the first one's index and the core's status. */
    {
        struct {
            qt_query_desc q;
            qt_status status;
        } bad[7];
        size_t nbad = 0;
        bad[nbad].q = qt_rect_query(bad_rects[0]);
        bad[nbad++].status = QT_INVALID_RECT;
        bad[nbad].q = qt_rect_query(rect(2, 0, 1, 1));
        bad[nbad++].status = QT_INVALID_RECT;
        bad[nbad].q = qt_point_query(NAN, 1);
        bad[nbad++].status = QT_INVALID_POINT;
        bad[nbad].q = qt_circle_query(1, 1, -1.0);
        bad[nbad++].status = QT_INVALID_PARAMETER;
        bad[nbad].q = qt_circle_query(1, 1, NAN);
        bad[nbad++].status = QT_INVALID_PARAMETER;
        bad[nbad].q = qt_element_query(f.stale[0]);
        bad[nbad++].status = QT_INVALID_HANDLE;
        bad[nbad].q = qt_point_query(1, 1);
        bad[nbad].q.omit = f.stale[1];
        bad[nbad++].status = QT_INVALID_HANDLE;
        for (i = 0; i < nbad; i++) {
            total = 777;
            CHECK_STATUS(qt_query(f.tree, &bad[i].q, buf, 400, &total), bad[i].status);
            CHECK(total == 777);
            batch[6] = bad[i].q;
            bad_index = 99;
            offsets[0] = 777;
            CHECK_STATUS(qt_query_many(f.tree, batch, 8, offsets, rows, 4000, &total, &bad_index),
                         bad[i].status);
            CHECK(bad_index == 6 && offsets[0] == 777 && total == 777);
        }
    }
    /* A big batch of plain rectangles (answered in spatial order and put
     * back): each row the single query's. */
    {
        enum { BIG = 5000 };
        qt_query_desc *big = (qt_query_desc *)malloc(BIG * sizeof *big);
        size_t *big_offsets = (size_t *)malloc((BIG + 1) * sizeof *big_offsets), k, all = 0;
        qt_handle_t *big_rows = NULL;
        for (k = 0; k < BIG; k++) {
            float x = rnd() * 110 - 5, y = rnd() * 110 - 5, side = rnd() * 12;
            big[k] = qt_rect_query(rect(x, y, x + side, y + side));
        }
        CHECK_OK(qt_query_many(f.tree, big, BIG, big_offsets, NULL, 0, &all, NULL));
        big_rows = (qt_handle_t *)malloc((all + 1) * sizeof *big_rows);
        CHECK_OK(qt_query_many(f.tree, big, BIG, big_offsets, big_rows, all, &total, NULL));
        CHECK(total == all && big_offsets[0] == 0 && big_offsets[BIG] == all);
        check_rows_as_single(f.tree, big, BIG, big_offsets, big_rows);
        big[4321] = qt_rect_query(rect(3, 0, 1, 1));
        bad_index = 99;
        CHECK_STATUS(qt_query_many(f.tree, big, BIG, big_offsets, big_rows, all, &total, &bad_index),
                     QT_INVALID_RECT);
        CHECK(bad_index == 4321 && total == all);
        big[4321].kind = 77;
        CHECK_STATUS(qt_query_many(f.tree, big, BIG, big_offsets, big_rows, all, &total, &bad_index),
                     QT_INVALID_PARAMETER);
        CHECK(bad_index == 4321);
        free(big);
        free(big_offsets);
        free(big_rows);
    }
    /* A batch of plain element queries (each agent's in a collision loop,
     * answered as the core's overlapping_many): every live element (one pair
     * walk: the fixture's 300 are at least the core's PAIRS_FROM, 256), then
     * the same with one twice (a query each), each row the single query's;
     * then a stale handle in it. */
    {
        size_t n = f.nlive + 1, k, all = 0, len;
        qt_query_desc *elems = (qt_query_desc *)malloc(n * sizeof *elems);
        size_t *elem_offsets = (size_t *)malloc((n + 1) * sizeof *elem_offsets);
        qt_handle_t *elem_rows = NULL;
        for (k = 0; k < f.nlive; k++) elems[k] = qt_element_query(f.live[k]);
        elems[f.nlive] = qt_element_query(f.live[0]);
        for (len = f.nlive; len <= n; len++) {
            CHECK_OK(qt_query_many(f.tree, elems, len, elem_offsets, NULL, 0, &all, NULL));
            free(elem_rows);
            elem_rows = (qt_handle_t *)malloc((all + 1) * sizeof *elem_rows);
            CHECK_OK(qt_query_many(f.tree, elems, len, elem_offsets, elem_rows, all, &total, NULL));
            CHECK(total == all && elem_offsets[0] == 0 && elem_offsets[len] == all);
            check_rows_as_single(f.tree, elems, len, elem_offsets, elem_rows);
        }
        elems[3] = qt_element_query(f.stale[0]);
        bad_index = 99;
        elem_offsets[0] = 777;
        CHECK_STATUS(qt_query_many(f.tree, elems, n, elem_offsets, elem_rows, all, &total, &bad_index),
                     QT_INVALID_HANDLE);
        CHECK(bad_index == 3 && elem_offsets[0] == 777 && total == all);
        /* Element queries each leaving out a neighbour it meets (and one with
         * a mask that lets nothing through): not plain, so not answered as
         * overlapping_many, and the rows must show it. */
        {
            size_t omitted = 0;
            qt_handle_t first, met = QT_NO_HANDLE;
            for (k = 0; k < f.nlive; k++) {
                elems[k] = qt_element_query(f.live[k]);
                CHECK_OK(qt_query(f.tree, &elems[k], &first, 1, &total));
                if (total > 0) {
                    elems[k].omit = first;
                    met = f.live[k];
                    omitted++;
                }
            }
            /* An element that meets another, asked with a mask of no bits. */
            elems[f.nlive] = qt_element_query(met);
            elems[f.nlive].mask = 0;
            CHECK(omitted > 0);
            CHECK_OK(qt_query_many(f.tree, elems, n, elem_offsets, NULL, 0, &all, NULL));
            free(elem_rows);
            elem_rows = (qt_handle_t *)malloc((all + 1) * sizeof *elem_rows);
            CHECK_OK(qt_query_many(f.tree, elems, n, elem_offsets, elem_rows, all, &total, NULL));
            CHECK(elem_offsets[n] == all && elem_offsets[n - 1] == all);
            check_rows_as_single(f.tree, elems, n, elem_offsets, elem_rows);
            /* Every element query masked, nothing left out: still not plain,
             * so every row is empty, as its single query's. */
            for (k = 0; k < f.nlive; k++) {
                elems[k] = qt_element_query(f.live[k]);
                elems[k].mask = 0;
            }
            CHECK_OK(qt_query_many(f.tree, elems, f.nlive, elem_offsets, elem_rows, all, &total, NULL));
            CHECK(total == 0 && elem_offsets[f.nlive] == 0);
        }
        free(elems);
        free(elem_offsets);
        free(elem_rows);
    }
    /* Both an unknown kind and a bad shape: the first in order is reported. */
    batch[6] = qt_rect_query(rect(2, 0, 1, 1));
    batch[3].kind = 99;
    CHECK_STATUS(qt_query_many(f.tree, batch, 8, offsets, rows, 4000, &total, &bad_index),
                 QT_INVALID_PARAMETER);
    CHECK(bad_index == 3);
    batch[3] = qt_circle_query(50, 50, 8.0);
    batch[1].kind = 0;
    batch[0] = qt_point_query(INFINITY, 0);
    CHECK_STATUS(qt_query_many(f.tree, batch, 8, offsets, rows, 4000, &total, &bad_index),
                 QT_INVALID_POINT);
    CHECK(bad_index == 0);
    CHECK_UNCHANGED(f.tree, before);
    drop_snapshot(&before);
    qt_destroy(f.tree);
}

/* ------------------------------------------------- double input, bulk, join */

/* The double entry points and the double query shape round once to float, and
 * the batch query and the join agree with one query per rectangle: a box at 1e7 with sub-metre sides that
 * touches another in double still meets it. */
static void test_double_bulk_join(void) {
    qt_tree *a = make_tree(rect(-2e7f, -2e7f, 2e7f, 2e7f), 4, 8);
    qt_tree *b = make_tree(rect(-2e7f, -2e7f, 2e7f, 2e7f), 2, 6);
    qt_rect_d near = {1e7 + 0.25, -1e7 + 0.5, 1e7 + 0.75, -1e7 + 0.9};
    qt_rect_d touching = {1e7 + 0.75, -1e7 + 0.1, 1e7 + 0.8, -1e7 + 0.5}; /* meets `near` in double */
    qt_rect_d queries[3] = {{1e7 + 0.75, -1e7 + 0.5, 1e7 + 0.75, -1e7 + 0.5}, {0, 0, 1, 1}, {1e7, -1e7, 1e7 + 1, -1e7 + 1}};
    qt_rect_d bad[2] = {{0, 0, 1, 1}, {2, 0, 1, 1}};
    qt_rect fq[2] = {{-1, -1, 1, 1}, {5e6f, 5e6f, 5e6f, 5e6f}};
    qt_handle_t h1 = 0, h2 = 0, hits[8] = {0}, g = 0;
    size_t offsets[4] = {0}, total = 0, bad_index = 99;
    qt_pair pairs[8];
    qt_rect r;

    CHECK_OK(qt_insert_d(a, near, 1, &h1));
    CHECK_OK(qt_insert_d(a, touching, 2, &h2));
    CHECK_OK(qt_element_rect(a, h1, &r));
    CHECK(r.x1 == (float)near.x1 && r.y2 == (float)near.y2);
    CHECK_OK(qt_query(a, QRECT_D(touching, h2), hits, 8, &total));
    CHECK(total == 1 && hits[0] == h1);
    {
        /* The double rectangles as a batch: rows 0 and 2 hit both elements. */
        qt_query_desc qd[3], bq[2], fd[2];
        size_t i;
        for (i = 0; i < 3; i++) qd[i] = qt_rect_d_query(queries[i]);
        for (i = 0; i < 2; i++) bq[i] = qt_rect_d_query(bad[i]);
        for (i = 0; i < 2; i++) fd[i] = qt_rect_query(fq[i]);
        CHECK_OK(qt_query_many(a, qd, 3, offsets, hits, 8, &total, &bad_index));
        CHECK(total == 4 && offsets[0] == 0 && offsets[1] == 2 && offsets[2] == 2 && offsets[3] == 4);
        CHECK(hits[0] != hits[1] && hits[2] != hits[3]);
        CHECK_OK(qt_query_many(a, qd, 3, offsets, NULL, 0, &total, NULL));
        CHECK(total == 4);
        CHECK_STATUS(qt_query_many(a, bq, 2, offsets, hits, 8, &total, &bad_index), QT_INVALID_RECT);
        CHECK(bad_index == 1);
        CHECK_STATUS(qt_query_many(a, NULL, 1, offsets, hits, 8, &total, NULL), QT_NULL_ARGUMENT);
        CHECK_OK(qt_query_many(a, fd, 2, offsets, hits, 8, &total, NULL));
        CHECK(total == 0);
    }
    CHECK_OK(qt_move_d(a, h2, near));
    CHECK_OK(qt_insert_d(b, touching, 3, &g));
    CHECK_OK(qt_join(a, b, true, pairs, 8, &total));
    CHECK(total == 2 && pairs[0].b == g && pairs[1].b == g && pairs[0].a < pairs[1].a);
    CHECK_OK(qt_join(b, b, false, NULL, 0, &total));
    CHECK(total == 1); /* the one element with itself */
    CHECK_STATUS(qt_join(a, NULL, false, pairs, 8, &total), QT_NULL_ARGUMENT);
    qt_destroy(a);
    qt_destroy(b);
}

int main(void) {
    size_t k;
    /* First, before any batch call starts the pool: this thread becomes its
     * thread 0 (where it has two threads or more), so the panic test below
     * also sees a worker's panic come back to a pool thread. */
    bool joined = qt_join_thread_pool();
    CHECK(qt_join_thread_pool() == joined);
    init_bad_rects();
    for (k = 0; k < N_STRUCTURES; k++) {
        real[STRUCTURES[k].kind] = keeps_parameters(STRUCTURES[k].kind);
        if (!real[STRUCTURES[k].kind])
            printf("test_api: NOTE: the core's %s is a placeholder (it ignores its parameters): "
                   "its parameter checks, stats and walk are not tested\n",
                   STRUCTURES[k].name);
    }
    CHECK(real[QT_KIND_QUADTREE]);
    test_version();
    test_status_str();
    test_create_destroy();
    test_create_grids();
    test_create_default();
    test_create_loose_quadtree_max_extent();
    /* The shared calls, on each structure. */
    for (k = 0; k < N_STRUCTURES; k++) {
        static char context[32];
        current = &STRUCTURES[k];
        snprintf(context, sizeof context, "[%s] ", current->name);
        check_context = context;
        test_insert_and_accessors();
        test_remove();
        test_move();
        test_insert_many();
        test_move_many();
        test_remove_many();
        test_queries_exact();
        test_margin();
        test_query_contracts();
        test_query_descriptions();
        test_element_batch_on_threads();
        test_clear_elements_params();
        test_clone_and_bytes();
        test_panic_boundary();
        test_panic_in_moves();
        test_double_bulk_join();
        /* The walks' shapes: the quadtree's cells, the grids' depth-0 cells; the
         * loose quadtree's boxes are checked by the core's own tests. */
        if (current->kind == QT_KIND_QUADTREE) {
            test_traverse_stats_cleanup();
        } else if (real[current->kind] && current->kind != QT_KIND_LOOSE_QUADTREE) {
            test_grid_walk_stats();
        }
    }
    check_context = "";
    test_snapshots_across_kinds();
    return check_summary("test_api");
}
