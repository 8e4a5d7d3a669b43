/* Contact events through the C ABI: qt_tracker on every structure and the
 * octree, against a brute-force set difference of consecutive frames over
 * random sequences (moves, inserts, removals, filter changes, cleanup,
 * clear), and every refusal: NULL pointers, buffers too small, a poisoned
 * tree, a destroyed tree (tests/c/run.sh runs this under ASan/UBSan and
 * valgrind, which would see a tracker reading its freed tree). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t next_u32(void) { /* xorshift64*: the same run every time */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32);
}
static float uniform(float lo, float hi) {
    return lo + (hi - lo) * (float)(next_u32() >> 8) * (1.0f / 16777216.0f);
}

/* ------------------------------------------------ one tree type or the other */

/* A tree of either type behind the same calls, so that the random test and the
 * refusals run once for every structure and the octree. Boxes are 3D; a 2D
 * tree ignores z. */
typedef struct subject {
    const char *name;
    qt_kind kind; /* 0: the octree */
    qt_tree *tree;
    qt_octree *octree;
} subject;

static const qt_rect WORLD2 = {0, 0, 100, 100};
static const qt_box WORLD3 = {0, 0, 0, 100, 100, 100};

static subject make_subject(const char *name, qt_kind kind) {
    subject s;
    s.name = name;
    s.kind = kind;
    s.tree = NULL;
    s.octree = NULL;
    if (kind)
        REQUIRE_OK(qt_create_default(kind, WORLD2, &s.tree));
    else
        REQUIRE_OK(qt_octree_create(WORLD3, 4, 5, &s.octree));
    return s;
}

static void destroy_subject(subject *s) {
    qt_destroy(s->tree);
    qt_octree_destroy(s->octree);
    s->tree = NULL;
    s->octree = NULL;
}

static qt_rect flat(qt_box b) {
    qt_rect r;
    r.x1 = b.x1;
    r.y1 = b.y1;
    r.x2 = b.x2;
    r.y2 = b.y2;
    return r;
}

static qt_status s_tracker(subject *s, qt_tracker **out) {
    return s->kind ? qt_tracker_create(s->tree, out) : qt_octree_tracker_create(s->octree, out);
}
static qt_status s_insert(subject *s, qt_box b, uint32_t id, qt_handle_t *out) {
    return s->kind ? qt_insert(s->tree, flat(b), id, out) : qt_octree_insert(s->octree, b, id, out);
}
static qt_status s_move(subject *s, qt_handle_t h, qt_box b) {
    return s->kind ? qt_move(s->tree, h, flat(b)) : qt_octree_move(s->octree, h, b);
}
static qt_status s_remove(subject *s, qt_handle_t h) {
    return s->kind ? qt_remove(s->tree, h) : qt_octree_remove(s->octree, h);
}
static qt_status s_filter(subject *s, qt_handle_t h, uint32_t category, uint32_t mask) {
    return s->kind ? qt_set_filter(s->tree, h, category, mask)
                   : qt_octree_set_filter(s->octree, h, category, mask);
}
static qt_status s_cleanup(subject *s) {
    return s->kind ? qt_cleanup(s->tree) : qt_octree_cleanup(s->octree);
}
static qt_status s_clear(subject *s) {
    return s->kind ? qt_clear(s->tree) : qt_octree_clear(s->octree);
}

/* ---------------------------------------------------------- the brute force */

#define MAX_LIVE 160

typedef struct model {
    int dims;
    size_t n;
    qt_handle_t handle[MAX_LIVE];
    qt_box box[MAX_LIVE];
    uint32_t category[MAX_LIVE], mask[MAX_LIVE];
} model;

typedef struct pairs {
    qt_pair *p;
    size_t n, cap;
} pairs;

static void push_pair(pairs *ps, qt_handle_t a, qt_handle_t b) {
    if (ps->n == ps->cap) {
        ps->cap = ps->cap ? 2 * ps->cap : 256;
        ps->p = (qt_pair *)realloc(ps->p, ps->cap * sizeof *ps->p);
        if (!ps->p) abort();
    }
    ps->p[ps->n].a = a < b ? a : b;
    ps->p[ps->n].b = a < b ? b : a;
    ps->n++;
}

static int cmp_pair(const void *x, const void *y) {
    const qt_pair *p = (const qt_pair *)x, *q = (const qt_pair *)y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    if (p->b != q->b) return p->b < q->b ? -1 : 1;
    return 0;
}

static int meets(const model *m, size_t i, size_t j) {
    const qt_box *a = &m->box[i], *b = &m->box[j];
    /* Closed boxes: touching counts. */
    int xy = a->x1 <= b->x2 && b->x1 <= a->x2 && a->y1 <= b->y2 && b->y1 <= a->y2;
    return xy && (m->dims == 2 || (a->z1 <= b->z2 && b->z1 <= a->z2));
}

/* Every overlapping, colliding pair now, sorted: what the tracker must agree with. */
static void brute_pairs(const model *m, pairs *out) {
    size_t i, j;
    out->n = 0;
    for (i = 0; i < m->n; i++)
        for (j = i + 1; j < m->n; j++)
            if (meets(m, i, j) && (m->category[i] & m->mask[j]) && (m->category[j] & m->mask[i]))
                push_pair(out, m->handle[i], m->handle[j]);
    if (out->n) qsort(out->p, out->n, sizeof *out->p, cmp_pair); /* never qsort(NULL, 0) */
}

/* `out` = sorted `a` minus sorted `b`. */
static void difference(const pairs *a, const pairs *b, pairs *out) {
    size_t i = 0, j = 0;
    out->n = 0;
    for (; i < a->n; i++) {
        while (j < b->n && cmp_pair(&b->p[j], &a->p[i]) < 0) j++;
        if (j == b->n || cmp_pair(&b->p[j], &a->p[i]) != 0) push_pair(out, a->p[i].a, a->p[i].b);
    }
}

/* The tracker's list (began or ended), counted first, then fetched, checked
 * equal to `want` item for item (both sorted). */
typedef qt_status (*list_fn)(const qt_tracker *, qt_pair *, size_t, size_t *);

static int same_list(const qt_tracker *t, list_fn list, size_t count, const pairs *want) {
    size_t total = 12345, again = 12345, i;
    qt_pair *got;
    int ok;
    CHECK_OK(list(t, NULL, 0, &total));
    if (total != count || total != want->n) return 0;
    got = (qt_pair *)malloc((total + 1) * sizeof *got);
    if (!got) abort();
    CHECK_OK(list(t, got, total, &again));
    ok = again == total;
    for (i = 0; ok && i < total; i++) ok = got[i].a == want->p[i].a && got[i].b == want->p[i].b;
    free(got);
    return ok;
}

static qt_box random_box(int dims) {
    qt_box b;
    float w = uniform(0.5f, 12.0f), h = uniform(0.5f, 12.0f), d = uniform(0.5f, 12.0f);
    b.x1 = uniform(0, 100 - w);
    b.y1 = uniform(0, 100 - h);
    b.z1 = dims == 3 ? uniform(0, 100 - d) : 0;
    b.x2 = b.x1 + w;
    b.y2 = b.y1 + h;
    b.z2 = dims == 3 ? b.z1 + d : 0;
    /* Some boxes share an edge exactly with the grid of integers: touching cases. */
    if (next_u32() % 4 == 0) {
        b.x1 = (float)(int)b.x1;
        b.x2 = (float)(int)b.x2;
    }
    return b;
}

static qt_box nudged(qt_box b, int dims) {
    float dx = uniform(-3, 3), dy = uniform(-3, 3), dz = dims == 3 ? uniform(-3, 3) : 0;
    if (b.x1 + dx < 0 || b.x2 + dx > 100) dx = -dx;
    if (b.y1 + dy < 0 || b.y2 + dy > 100) dy = -dy;
    if (b.z1 + dz < 0 || b.z2 + dz > 100) dz = -dz;
    b.x1 += dx, b.x2 += dx, b.y1 += dy, b.y2 += dy, b.z1 += dz, b.z2 += dz;
    return b;
}

static void insert_one(subject *s, model *m) {
    qt_handle_t h = QT_NO_HANDLE;
    qt_box b = random_box(m->dims);
    REQUIRE_OK(s_insert(s, b, (uint32_t)m->n, &h));
    m->handle[m->n] = h;
    m->box[m->n] = b;
    m->category[m->n] = QT_MASK_ALL;
    m->mask[m->n] = QT_MASK_ALL;
    m->n++;
}

/* Three categories: each element collides with its own and some others, so a
 * filter change can end or begin pairs without any box moving. */
static void random_filter(subject *s, model *m, size_t i) {
    uint32_t category = 1u << (next_u32() % 3), mask = (next_u32() % 7) + 1;
    if (next_u32() % 5 == 0) category = mask = QT_MASK_ALL;
    REQUIRE_OK(s_filter(s, m->handle[i], category, mask));
    m->category[i] = category;
    m->mask[i] = mask;
}

/* One frame of random changes: `moving` out of 16 elements move; a few
 * inserts, removals, filter changes; sometimes cleanup, rarely a clear. */
static void random_frame(subject *s, model *m, unsigned moving) {
    size_t i, k;
    for (i = 0; i < m->n; i++)
        if (next_u32() % 16 < moving) {
            m->box[i] = nudged(m->box[i], m->dims);
            REQUIRE_OK(s_move(s, m->handle[i], m->box[i]));
        }
    /* More inserts while few are left (after a clear). */
    for (k = next_u32() % 4 + (m->n < 40 ? 6 : 0); k > 0 && m->n < MAX_LIVE; k--) insert_one(s, m);
    for (k = next_u32() % 4; k > 0 && m->n > 0; k--) {
        i = next_u32() % m->n;
        REQUIRE_OK(s_remove(s, m->handle[i]));
        m->n--;
        m->handle[i] = m->handle[m->n];
        m->box[i] = m->box[m->n];
        m->category[i] = m->category[m->n];
        m->mask[i] = m->mask[m->n];
    }
    for (k = next_u32() % 3; k > 0 && m->n > 0; k--) random_filter(s, m, next_u32() % m->n);
    if (next_u32() % 3 == 0) REQUIRE_OK(s_cleanup(s));
    if (next_u32() % 60 == 0) {
        REQUIRE_OK(s_clear(s));
        m->n = 0;
    }
}

/* ------------------------------------------------------- random sequences */

static void test_random(const char *name, qt_kind kind) {
    subject s = make_subject(name, kind);
    model m;
    pairs before = {NULL, 0, 0}, now = {NULL, 0, 0}, began = {NULL, 0, 0}, ended = {NULL, 0, 0};
    qt_tracker *t = NULL, *late = NULL;
    size_t frame, nb, ne, count, events = 0, late_began = 0;
    /* How many of 16 elements move a frame: none, a few, half, all (both of
     * the tracker's ways: the changed elements' queries, the pair walk). */
    static const unsigned MOVING[] = {0, 1, 8, 16};

    memset(&m, 0, sizeof m);
    m.dims = kind ? 2 : 3;
    for (frame = 0; frame < 60; frame++) insert_one(&s, &m);
    REQUIRE_OK(s_tracker(&s, &t));
    for (frame = 0; frame < 240; frame++) {
        int ok_b, ok_e;
        if (frame > 0) random_frame(&s, &m, MOVING[(frame / 20) % 4]);
        if (frame == 100) REQUIRE_OK(s_tracker(&s, &late)); /* a second tracker, its own history */
        brute_pairs(&m, &now);
        difference(&now, &before, &began);
        difference(&before, &now, &ended);
        nb = ne = 999999;
        CHECK_OK(qt_tracker_update(t, &nb, &ne));
        ok_b = same_list(t, qt_tracker_began, nb, &began);
        ok_e = same_list(t, qt_tracker_ended, ne, &ended);
        if (!ok_b || !ok_e)
            fprintf(stderr, "[%s] frame %zu: tracker %zu began, %zu ended; brute force %zu, %zu\n",
                    name, frame, nb, ne, began.n, ended.n);
        CHECK(ok_b && ok_e);
        CHECK_OK(qt_tracker_pair_count(t, &count));
        CHECK(count == now.n);
        if (late) { /* made at frame 100: every pair then begins for it, then the same events */
            static const pairs nothing = {NULL, 0, 0};
            CHECK_OK(qt_tracker_update(late, &nb, &ne));
            CHECK(same_list(late, qt_tracker_began, nb, frame == 100 ? &now : &began));
            CHECK(same_list(late, qt_tracker_ended, ne, frame == 100 ? &nothing : &ended));
            if (frame == 100) late_began = nb;
        }
        events += began.n + ended.n;
        { /* swap: this frame's pairs are the next one's "before" */
            pairs tmp = before;
            before = now;
            now = tmp;
        }
    }
    /* The test means something only if events happened, of both kinds. */
    CHECK(events > 200 && late_began > 0);
    qt_tracker_destroy(t);
    qt_tracker_destroy(late);
    destroy_subject(&s);
    free(before.p);
    free(now.p);
    free(began.p);
    free(ended.p);
    printf("[%s] 240 frames, %zu events checked against the brute force\n", name, events);
}

/* --------------------------------------------------------------- refusals */

#define SENTINEL ((size_t)777)

static void test_refusals(const char *name, qt_kind kind) {
    subject s = make_subject(name, kind), other = make_subject(name, kind);
    model m;
    static char sentinel;
    qt_tracker *t = NULL, *t2 = NULL, *none = (qt_tracker *)&sentinel; /* never written over */
    qt_pair buf[4], keep;
    pairs before = {NULL, 0, 0}, now = {NULL, 0, 0}, began = {NULL, 0, 0}, ended = {NULL, 0, 0};
    size_t nb = SENTINEL, ne = SENTINEL, total = SENTINEL, count = SENTINEL, i;
    qt_box b0 = {10, 10, 10, 20, 20, 20}, b1 = {20, 10, 10, 30, 20, 20}, b2 = {25, 10, 10, 35, 20, 20};

    memset(&m, 0, sizeof m);
    m.dims = kind ? 2 : 3;
    /* Three boxes in a row, each touching the next: two pairs. */
    m.box[0] = b0, m.box[1] = b1, m.box[2] = b2;
    for (i = 0; i < 3; i++) {
        REQUIRE_OK(s_insert(&s, m.box[i], (uint32_t)i, &m.handle[i]));
        m.category[i] = m.mask[i] = QT_MASK_ALL;
    }
    m.n = 3;

    /* NULL pointers: a status, nothing written. */
    CHECK_STATUS(qt_tracker_create(NULL, &none), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_octree_tracker_create(NULL, &none), QT_NULL_ARGUMENT);
    CHECK(none == (qt_tracker *)&sentinel);
    if (kind)
        CHECK_STATUS(qt_tracker_create(s.tree, NULL), QT_NULL_ARGUMENT);
    else
        CHECK_STATUS(qt_octree_tracker_create(s.octree, NULL), QT_NULL_ARGUMENT);
    REQUIRE_OK(s_tracker(&s, &t));
    CHECK_STATUS(qt_tracker_update(NULL, &nb, &ne), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_tracker_update(t, NULL, &ne), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_tracker_update(t, &nb, NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_tracker_began(NULL, buf, 4, &total), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_tracker_ended(NULL, buf, 4, &total), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_tracker_began(t, buf, 4, NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_tracker_began(t, NULL, 4, &total), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_tracker_ended(t, NULL, 1, &total), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_tracker_began(t, buf, SIZE_MAX, &total), QT_INVALID_PARAMETER);
    CHECK_STATUS(qt_tracker_pair_count(NULL, &count), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_tracker_pair_count(t, NULL), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_tracker_reset(NULL), QT_NULL_ARGUMENT);
    qt_tracker_destroy(NULL);
    CHECK(nb == SENTINEL && ne == SENTINEL && total == SENTINEL && count == SENTINEL);
    /* None of that was an update: the tracker has seen nothing yet. */
    CHECK_OK(qt_tracker_pair_count(t, &count));
    CHECK(count == 0);

    /* The first update: both pairs begin. */
    CHECK_OK(qt_tracker_update(t, &nb, &ne));
    CHECK(nb == 2 && ne == 0);
    brute_pairs(&m, &before);
    CHECK(same_list(t, qt_tracker_began, nb, &before));

    /* A buffer too small: refused, nothing written; big enough: all of it. */
    keep.a = keep.b = 4242;
    buf[0] = buf[1] = buf[2] = buf[3] = keep;
    total = SENTINEL;
    CHECK_STATUS(qt_tracker_began(t, buf, 1, &total), QT_BUFFER_TOO_SMALL);
    CHECK(total == SENTINEL && buf[0].a == 4242 && buf[0].b == 4242 && buf[1].a == 4242);
    CHECK_OK(qt_tracker_began(t, buf, 4, &total)); /* more room than needed is fine */
    CHECK(total == 2 && cmp_pair(&buf[0], &before.p[0]) == 0 && buf[2].a == 4242);
    CHECK_OK(qt_tracker_ended(t, NULL, 0, &total));
    CHECK(total == 0);
    CHECK_OK(qt_tracker_ended(t, buf, 4, &total)); /* nothing to write: fine */
    CHECK(total == 0);

    /* Refused updates in the middle of changes: the next successful update
     * still reports the whole difference since the last successful one. */
    m.box[1].x1 += 40, m.box[1].x2 += 40; /* 1 leaves both */
    REQUIRE_OK(s_move(&s, m.handle[1], m.box[1]));
    CHECK_STATUS(qt_tracker_update(t, NULL, &ne), QT_NULL_ARGUMENT);
    CHECK_STATUS(qt_tracker_began(t, buf, 1, &total), QT_BUFFER_TOO_SMALL);
    REQUIRE_OK(s_filter(&s, m.handle[0], 2, 0)); /* 0 collides with nothing now... */
    m.category[0] = 2;
    m.mask[0] = 0;
    m.box[2].x1 = 18, m.box[2].x2 = 19; /* ...which now overlaps it */
    REQUIRE_OK(s_move(&s, m.handle[2], m.box[2]));
    CHECK_STATUS(qt_tracker_update(t, &nb, NULL), QT_NULL_ARGUMENT);
    brute_pairs(&m, &now);
    difference(&now, &before, &began);
    difference(&before, &now, &ended);
    CHECK_OK(qt_tracker_update(t, &nb, &ne));
    CHECK(nb == 0 && ne == 2 && now.n == 0);
    CHECK(same_list(t, qt_tracker_began, nb, &began) && same_list(t, qt_tracker_ended, ne, &ended));
    /* The filter back: 0 and 2 begin; nothing else changed. */
    REQUIRE_OK(s_filter(&s, m.handle[0], QT_MASK_ALL, QT_MASK_ALL));
    CHECK_OK(qt_tracker_update(t, &nb, &ne));
    CHECK(nb == 1 && ne == 0);
    CHECK_OK(qt_tracker_began(t, buf, 1, &total));
    CHECK(total == 1 && buf[0].a == (m.handle[0] < m.handle[2] ? m.handle[0] : m.handle[2]));

    /* A removed element ends its pairs under its old handle; reset forgets all. */
    REQUIRE_OK(s_remove(&s, m.handle[2]));
    CHECK_OK(qt_tracker_update(t, &nb, &ne));
    CHECK(nb == 0 && ne == 1);
    CHECK_OK(qt_tracker_ended(t, buf, 1, &total));
    CHECK(buf[0].a == (m.handle[0] < m.handle[2] ? m.handle[0] : m.handle[2]) &&
          buf[0].b == (m.handle[0] < m.handle[2] ? m.handle[2] : m.handle[0]));
    m.box[1] = b1;
    REQUIRE_OK(s_move(&s, m.handle[1], m.box[1]));
    CHECK_OK(qt_tracker_update(t, &nb, &ne));
    CHECK(nb == 1 && ne == 0);
    CHECK_OK(qt_tracker_reset(t));
    CHECK_OK(qt_tracker_pair_count(t, &count));
    CHECK_OK(qt_tracker_began(t, NULL, 0, &total));
    CHECK(count == 0 && total == 0);
    CHECK_OK(qt_tracker_update(t, &nb, &ne));
    CHECK(nb == 1 && ne == 0); /* the pair 0-1 again, as began */

    /* A poisoned tree: the tracker is refused and unchanged; a tracker of
     * another tree is not affected. */
    REQUIRE_OK(s_tracker(&other, &t2));
    if (kind) {
        CHECK_STATUS(qt_test_panic(s.tree), QT_PANIC);
        CHECK_STATUS(qt_tracker_create(s.tree, &none), QT_POISONED);
        CHECK(none == (qt_tracker *)&sentinel);
        nb = ne = SENTINEL;
        CHECK_STATUS(qt_tracker_update(t, &nb, &ne), QT_POISONED);
        CHECK(nb == SENTINEL && ne == SENTINEL);
        CHECK_OK(qt_tracker_began(t, buf, 1, &total)); /* the last update's, still there */
        CHECK(total == 1);
        CHECK_OK(qt_tracker_update(t2, &nb, &ne));
    }

    /* A destroyed tree: every call on its tracker but destroy is refused, and
     * none of them reads the freed tree (ASan and valgrind watch). Another
     * tree made now may land at the same address: still refused. */
    destroy_subject(&s);
    s = make_subject(name, kind);
    nb = ne = total = count = SENTINEL;
    CHECK_STATUS(qt_tracker_update(t, &nb, &ne), QT_TREE_DESTROYED);
    CHECK_STATUS(qt_tracker_update(t, &nb, &ne), QT_TREE_DESTROYED);
    CHECK_STATUS(qt_tracker_began(t, buf, 4, &total), QT_TREE_DESTROYED);
    CHECK_STATUS(qt_tracker_ended(t, NULL, 0, &total), QT_TREE_DESTROYED);
    CHECK_STATUS(qt_tracker_pair_count(t, &count), QT_TREE_DESTROYED);
    CHECK_STATUS(qt_tracker_reset(t), QT_TREE_DESTROYED);
    CHECK(nb == SENTINEL && ne == SENTINEL && total == SENTINEL && count == SENTINEL);
    qt_tracker_destroy(t); /* after its tree: fine */
    CHECK_OK(qt_tracker_update(t2, &nb, &ne)); /* the other tree's tracker still works */
    CHECK(nb == 0 && ne == 0);
    qt_tracker_destroy(t2); /* before its tree: fine */
    destroy_subject(&other);
    destroy_subject(&s);
    free(before.p);
    free(now.p);
    free(began.p);
    free(ended.p);
}

int main(void) {
    static const struct {
        const char *name;
        qt_kind kind;
    } SUBJECTS[] = {
        {"quadtree", QT_KIND_QUADTREE}, {"grid", QT_KIND_GRID},
        {"loose grid", QT_KIND_LOOSE_GRID}, {"loose quadtree", QT_KIND_LOOSE_QUADTREE},
        {"octree", 0},
    };
    size_t k;
    for (k = 0; k < sizeof SUBJECTS / sizeof SUBJECTS[0]; k++) {
        static char context[32];
        snprintf(context, sizeof context, "[%s] ", SUBJECTS[k].name);
        check_context = context;
        test_random(SUBJECTS[k].name, SUBJECTS[k].kind);
        test_refusals(SUBJECTS[k].name, SUBJECTS[k].kind);
    }
    check_context = "";
    return check_summary("test_events");
}
