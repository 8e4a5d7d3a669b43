/* The thread rules of flatquad.h, exercised with pthreads:
 * - many threads query one tree through a const qt_tree * at once, and every
 *   one of them gets exactly the single-threaded answers;
 * - threads that each own a tree change them at the same time, independently;
 * - each reader makes its own qt_tracker of the shared tree (the trees' first
 *   trackers made from several threads at once) and updates it beside the
 *   other readers: all its pairs begin once, then nothing changes;
 * - all of it with the main thread as thread 0 of the batch calls' pool
 *   (qt_join_thread_pool), which the other threads cannot join: their batch
 *   calls are answered by the pool's other thread while the main thread waits
 *   outside the pool.
 * Built with -fsanitize=address,undefined by tests/c/run.sh. */
/* setenv */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define THREADS 4
#define ELEMENTS 20000
#define QUERIES 3000

static uint32_t rng_state = 12345;
static float rnd(void) {
    rng_state = rng_state * 1664525u + 1013904223u;
    return (float)(rng_state >> 8) * (1.0f / 16777216.0f);
}

static qt_rect rect(float x1, float y1, float x2, float y2) {
    qt_rect r;
    r.x1 = x1;
    r.y1 = y1;
    r.x2 = x2;
    r.y2 = y2;
    return r;
}

/* What one query found, order-independent: the count and a sum of mixed handles. */
typedef struct answer {
    size_t count;
    uint64_t mix;
} answer;

static uint64_t mix(uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

static const qt_tree *shared_tree;
static qt_rect queries[QUERIES];
static qt_handle_t omits[QUERIES];
static answer rect_answers[QUERIES], point_answers[QUERIES];
static size_t pairs_total, links_total;
static qt_tree_stats shared_stats;

static answer rect_answer(const qt_tree *tree, size_t q, qt_handle_t *buf, size_t cap) {
    answer a = {0, 0};
    size_t i, total = 0;
    if (qt_query(tree, QRECT(queries[q], omits[q], QT_MASK_ALL), buf, cap, &total) != QT_OK || total > cap) {
        a.count = (size_t)-1;
        return a;
    }
    for (i = 0; i < total; i++) a.mix += mix(buf[i]);
    a.count = total;
    return a;
}

static answer point_answer(const qt_tree *tree, size_t q, qt_handle_t *buf, size_t cap) {
    answer a = {0, 0};
    size_t i, total = 0;
    if (qt_query(tree, QPOINT(queries[q].x1, queries[q].y1, omits[q], QT_MASK_ALL), buf, cap, &total) != QT_OK ||
        total > cap) {
        a.count = (size_t)-1;
        return a;
    }
    for (i = 0; i < total; i++) a.mix += mix(buf[i]);
    a.count = total;
    return a;
}

static int add_visit(void *user_data, qt_handle_t handle) {
    answer *a = (answer *)user_data;
    a->count++;
    a->mix += mix(handle);
    return 0;
}

static int count_pair(void *user_data, qt_handle_t a, qt_handle_t b) {
    (void)a;
    (void)b;
    ++*(size_t *)user_data;
    return 0;
}

static int add_links(void *user_data, uint32_t node, uint32_t depth, float x1, float y1, float x2,
                     float y2, uint32_t count) {
    (void)node, (void)depth, (void)x1, (void)y1, (void)x2, (void)y2;
    *(size_t *)user_data += count;
    return 0;
}

/* The pairs qt_query_pairs_each gives, in order. */
typedef struct pair_list {
    qt_pair *pairs;
    size_t n, cap;
} pair_list;

static int keep_pair(void *user_data, qt_handle_t a, qt_handle_t b) {
    pair_list *list = (pair_list *)user_data;
    if (list->n < list->cap) {
        list->pairs[list->n].a = a;
        list->pairs[list->n].b = b;
    }
    list->n++;
    return 0;
}

static int stop_at_third(void *user_data, qt_handle_t a, qt_handle_t b) {
    (void)a, (void)b;
    return ++*(size_t *)user_data == 3;
}

/* A grid of 30,000 elements, past the 20,000 from which its pair walk runs on
 * every core (through rayon's global pool; on one core, the calling thread's
 * walk): qt_query_pairs and qt_query_pairs_each give the same pairs in the
 * same order, the same on a second call, each pair once, and as many as the
 * element queries find (each pair twice); a visitor that stops is not called
 * again. */
static void check_parallel_pairs(void) {
    enum { N = 30000 };
    qt_tree *grid = NULL;
    qt_rect *rects = (qt_rect *)malloc(N * sizeof *rects);
    uint32_t *ids = (uint32_t *)calloc(N, sizeof *ids);
    qt_handle_t *handles = (qt_handle_t *)malloc(N * sizeof *handles);
    qt_handle_t *hits = (qt_handle_t *)malloc(N * sizeof *hits);
    size_t i, total = 0, again = 0, stopped = 0, twice = 0, hit_total;
    qt_pair *first, *second;
    pair_list each = {NULL, 0, 0};
    REQUIRE_OK(qt_create_grid(rect(0, 0, 1000, 1000), 128, 128, &grid));
    for (i = 0; i < N; i++) {
        float x = rnd() * 1000, y = rnd() * 1000, s = 1 + rnd() * 6;
        rects[i] = rect(x, y, x + s, y + s);
    }
    REQUIRE_OK(qt_insert_many(grid, rects, ids, N, handles, NULL));
    REQUIRE_OK(qt_query_pairs(grid, NULL, 0, &total));
    CHECK(total > 1000);
    first = (qt_pair *)malloc(total * sizeof *first);
    second = (qt_pair *)malloc(total * sizeof *second);
    each.pairs = (qt_pair *)malloc(total * sizeof *each.pairs);
    each.cap = total;
    CHECK_OK(qt_query_pairs(grid, first, total, &again));
    CHECK(again == total);
    CHECK_OK(qt_query_pairs(grid, second, total, &again));
    CHECK(again == total && memcmp(first, second, total * sizeof *first) == 0);
    CHECK_OK(qt_query_pairs_each(grid, keep_pair, &each));
    CHECK(each.n == total && memcmp(first, each.pairs, total * sizeof *first) == 0);
    CHECK(qt_query_pairs_each(grid, stop_at_third, &stopped) == QT_STOPPED && stopped == 3);
    for (i = 0; i < N; i++) {
        qt_query_desc q = qt_element_query(handles[i]);
        REQUIRE_OK(qt_query(grid, &q, hits, N, &hit_total));
        twice += hit_total;
    }
    CHECK(twice == 2 * total);
    for (i = 0; i < total; i++) {
        qt_rect a, b;
        REQUIRE_OK(qt_element_rect(grid, first[i].a, &a));
        REQUIRE_OK(qt_element_rect(grid, first[i].b, &b));
        CHECK(first[i].a != first[i].b && a.x1 <= b.x2 && b.x1 <= a.x2 && a.y1 <= b.y2 && b.y1 <= a.y2);
    }
    qt_destroy(grid);
    free(rects), free(ids), free(handles), free(hits), free(first), free(second), free(each.pairs);
}

typedef struct reader {
    size_t start, mismatches, calls;
} reader;

static void *read_shared(void *arg) {
    reader *r = (reader *)arg;
    qt_handle_t *buf = (qt_handle_t *)malloc(ELEMENTS * sizeof *buf);
    qt_tracker *tracker = NULL;
    size_t round, k, updates = 0;
    r->mismatches += qt_tracker_create(shared_tree, &tracker) != QT_OK;
    for (round = 0; round < 2; round++) {
        for (k = 0; k < QUERIES; k++) {
            size_t q = (r->start + k) % QUERIES;
            answer a = rect_answer(shared_tree, q, buf, ELEMENTS), b = {0, 0};
            r->mismatches += a.count != rect_answers[q].count || a.mix != rect_answers[q].mix;
            if (qt_query_each(shared_tree, QRECT(queries[q], omits[q], QT_MASK_ALL), add_visit, &b) != QT_OK ||
                b.count != rect_answers[q].count || b.mix != rect_answers[q].mix)
                r->mismatches++;
            a = point_answer(shared_tree, q, buf, ELEMENTS);
            r->mismatches += a.count != point_answers[q].count || a.mix != point_answers[q].mix;
            if (omits[q] != QT_NO_HANDLE) {
                uint32_t id = 0;
                r->mismatches += !qt_contains(shared_tree, omits[q]);
                r->mismatches += qt_element_id(shared_tree, omits[q], &id) != QT_OK;
            }
            r->calls += 4;
            if (k % 500 == 0) {
                size_t pairs = 0, links = 0;
                qt_tree_stats stats;
                r->mismatches += qt_query_pairs(shared_tree, NULL, 0, &pairs) != QT_OK;
                r->mismatches += pairs != pairs_total;
                pairs = 0;
                r->mismatches += qt_query_pairs_each(shared_tree, count_pair, &pairs) != QT_OK;
                r->mismatches += pairs != pairs_total;
                r->mismatches += qt_traverse(shared_tree, NULL, add_links, &links) != QT_OK;
                r->mismatches += links != links_total;
                r->mismatches += qt_stats(shared_tree, &stats) != QT_OK;
                r->mismatches += stats.nodes != shared_stats.nodes ||
                                 stats.element_links != shared_stats.element_links;
                r->mismatches += qt_len(shared_tree) != ELEMENTS;
                { /* the tracker: every pair began at its first update, none since */
                    size_t began = 0, ended = 0, count = 0;
                    r->mismatches += qt_tracker_update(tracker, &began, &ended) != QT_OK;
                    r->mismatches += began != (updates++ == 0 ? pairs_total : 0) || ended != 0;
                    r->mismatches += qt_tracker_pair_count(tracker, &count) != QT_OK;
                    r->mismatches += count != pairs_total;
                }
                r->calls += 8;
            }
        }
    }
    r->mismatches += updates == 0;
    qt_tracker_destroy(tracker);
    free(buf);
    return NULL;
}

/* A thread that owns its tree: builds, moves, removes, cleans up, checks. */
static void *own_tree(void *arg) {
    reader *r = (reader *)arg;
    qt_tree *tree = NULL;
    qt_handle_t handles[2000];
    uint32_t seed = 777u + (uint32_t)r->start;
    size_t i, frame, total = 0;
    if (qt_create(rect(0, 0, 256, 256), 8, 6, &tree) != QT_OK) {
        r->mismatches++;
        return NULL;
    }
    for (i = 0; i < 2000; i++) {
        float x, y;
        seed = seed * 1664525u + 1013904223u;
        x = (float)(seed >> 16 & 255);
        seed = seed * 1664525u + 1013904223u;
        y = (float)(seed >> 16 & 255);
        r->mismatches += qt_insert(tree, rect(x, y, x + 2, y + 2), (uint32_t)i, &handles[i]) != QT_OK;
    }
    for (frame = 0; frame < 20; frame++) {
        for (i = 0; i < 2000; i++) {
            qt_rect now;
            r->mismatches += qt_element_rect(tree, handles[i], &now) != QT_OK;
            now.x1 += 1, now.x2 += 1;
            if (now.x1 > 256) now.x1 -= 256, now.x2 -= 256;
            r->mismatches += qt_move(tree, handles[i], now) != QT_OK;
        }
        r->mismatches += qt_cleanup(tree) != QT_OK;
        r->mismatches += qt_query_pairs(tree, NULL, 0, &total) != QT_OK;
        r->calls += 2003;
    }
    r->mismatches += qt_remove_many(tree, handles, 1000, NULL) != QT_OK;
    r->mismatches += qt_len(tree) != 1000;
    r->mismatches += qt_validate(tree) != QT_OK;
    qt_destroy(tree);
    return NULL;
}

/* Another thread asks to join: NULL when refused. */
static void *join_elsewhere(void *unused) {
    (void)unused;
    return qt_join_thread_pool() ? (void *)1 : NULL;
}

int main(void) {
    qt_tree *tree = NULL;
    qt_handle_t *handles = (qt_handle_t *)malloc(ELEMENTS * sizeof *handles);
    qt_handle_t *buf = (qt_handle_t *)malloc(ELEMENTS * sizeof *buf);
    pthread_t threads[THREADS];
    reader readers[THREADS];
    size_t i, calls = 0;

    /* Two pool threads even on one CPU: this one and one worker. */
    setenv("RAYON_NUM_THREADS", "2", 1);
    CHECK(qt_join_thread_pool());
    CHECK(qt_join_thread_pool());
    {
        pthread_t other;
        void *joined = NULL;
        CHECK(pthread_create(&other, NULL, join_elsewhere, NULL) == 0);
        CHECK(pthread_join(other, &joined) == 0);
        CHECK(joined == NULL);
    }

    REQUIRE_OK(qt_create(rect(0, 0, 1000, 1000), 8, 8, &tree));
    for (i = 0; i < ELEMENTS; i++) {
        float x = rnd() * 1000, y = rnd() * 1000, s = 1 + rnd() * 8;
        REQUIRE_OK(qt_insert(tree, rect(x, y, x + s, y + s), (uint32_t)i, &handles[i]));
    }
    for (i = 0; i < QUERIES; i++) {
        float x = rnd() * 1000, y = rnd() * 1000, s = rnd() * 40;
        queries[i] = rect(x, y, x + s, y + s);
        omits[i] = i % 3 == 0 ? handles[(i * 7) % ELEMENTS] : QT_NO_HANDLE;
    }
    /* The single-threaded answers. */
    shared_tree = tree;
    for (i = 0; i < QUERIES; i++) {
        rect_answers[i] = rect_answer(tree, i, buf, ELEMENTS);
        point_answers[i] = point_answer(tree, i, buf, ELEMENTS);
    }
    REQUIRE_OK(qt_query_pairs(tree, NULL, 0, &pairs_total));
    REQUIRE_OK(qt_traverse(tree, NULL, add_links, &links_total));
    REQUIRE_OK(qt_stats(tree, &shared_stats));
    CHECK(pairs_total > 0 && links_total >= ELEMENTS);

    /* Readers of one tree, all at once. */
    for (i = 0; i < THREADS; i++) {
        readers[i].start = i * (QUERIES / THREADS);
        readers[i].mismatches = readers[i].calls = 0;
        CHECK(pthread_create(&threads[i], NULL, read_shared, &readers[i]) == 0);
    }
    for (i = 0; i < THREADS; i++) {
        CHECK(pthread_join(threads[i], NULL) == 0);
        CHECK(readers[i].mismatches == 0);
        calls += readers[i].calls;
    }
    /* Writers of their own trees, all at once, beside a reader of the shared one. */
    for (i = 0; i < THREADS; i++) {
        readers[i].start = i;
        readers[i].mismatches = readers[i].calls = 0;
        CHECK(pthread_create(&threads[i], NULL, i == 0 ? read_shared : own_tree, &readers[i]) == 0);
    }
    for (i = 0; i < THREADS; i++) {
        CHECK(pthread_join(threads[i], NULL) == 0);
        CHECK(readers[i].mismatches == 0);
        calls += readers[i].calls;
    }
    CHECK_OK(qt_validate(tree));
    check_parallel_pairs();
    printf("test_threads: %d threads made %zu calls\n", THREADS, calls);
    qt_destroy(tree);
    free(handles);
    free(buf);
    return check_summary("test_threads");
}
