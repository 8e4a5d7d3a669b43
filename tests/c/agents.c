/* The agents workload of docs/workload.md in C, on libflatquad: the
 * same agents, frames and checksums as the Rust demo
 * (cargo run --release -p flatquad-bench --bin agents), with the same tree
 * parameters, so the two can be compared line by line.
 *
 *   agents [SCENARIO] [--mode per-agent|all-pairs|both] [--update batch|each]
 *          [--index quadtree|grid|loose-grid]
 *
 * SCENARIO: uniform-100k (default), uniform-20k or uniform-1m. --update batch
 * (default) does what the Rust demo does: one qt_insert_many, one qt_move_many
 * per frame, and per agent a QT_SHAPE_ELEMENT query (its own rectangle, itself
 * left out, found from its own leaves), asked through qt_query_many in the
 * demo's batches: 128 on one thread, else 16,384, which
 * run on rayon's threads (a batch of a quarter of the agents or more, as at
 * uniform-20k, is one pair walk instead, in both). --update each makes one call per
 * agent instead: qt_insert, qt_move, and a QT_SHAPE_RECT qt_query with the
 * agent's rectangle, omitting it. --index picks the
 * structure: the quadtree (default) with the Rust demo's parameters, or a grid
 * or loose grid with its defaults (qt_create_default). Exits 1 when a checksum
 * does not match, 2 on a usage or library error. All arithmetic in float, in
 * the order docs/workload.md gives: build without -ffast-math. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "flatquad.h"

typedef struct scenario {
    const char *name;
    size_t n;
    float world, size;
    int frames;
    uint64_t checksum;
} scenario;

static const scenario SCENARIOS[] = {
    {"uniform-100k", 100000, 4096.0f, 4.0f, 10, 38442},
    {"uniform-1m", 1000000, 12288.0f, 4.0f, 3, 422580},
    {"uniform-20k", 20000, 2048.0f, 4.0f, 10, 6257},
};
#define WARMUP_FRAMES 2
/* Element queries per qt_query_many call: docs/workload.md's batches (the
 * Rust demo's), on many threads and on one. */
#define AGENT_BATCH 16384
#define AGENT_BATCH_ONE_THREAD 128

enum mode { PER_AGENT, ALL_PAIRS };
static const char *const MODE_NAMES[] = {"per-agent", "all-pairs"};

static const struct {
    const char *name;
    qt_kind kind;
} INDEXES[] = {
    {"quadtree", QT_KIND_QUADTREE},
    {"grid", QT_KIND_GRID},
    {"loose-grid", QT_KIND_LOOSE_GRID},
    {"loose-quadtree", QT_KIND_LOOSE_QUADTREE},
};

typedef struct agents {
    size_t n;
    float world, size;
    float *x, *y, *vx, *vy;
    qt_rect *rects;
    qt_handle_t *handles;
} agents;

static uint32_t rng_state;
static float rng_f(void) {
    rng_state = rng_state * 1664525u + 1013904223u;
    return (float)(rng_state >> 8) * (1.0f / 16777216.0f);
}

static void die(const char *what, qt_status status) {
    fprintf(stderr, "agents: %s: %s\n", what, qt_status_str(status));
    exit(2);
}

/* The threads of rayon's global pool, which the library's batch calls use:
 * RAYON_NUM_THREADS, or every core when it is unset or 0 (as the Python and
 * Node scripts read it). */
static long pool_threads(void) {
    const char *env = getenv("RAYON_NUM_THREADS");
    long threads = env != NULL ? strtol(env, NULL, 10) : 0;
    return threads > 0 ? threads : sysconf(_SC_NPROCESSORS_ONLN);
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static void *xmalloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "agents: out of memory\n");
        exit(2);
    }
    return p;
}

/* The Rust demo's tree parameters (bench/src/flatquad_index.rs): 16 per leaf,
 * and the deepest level whose cells are still at least four agent sides. */
#define AGENTS_MAX_ELEMENTS 16
static uint32_t default_max_depth(float world, float size) {
    uint32_t depth = 0;
    float cell = world;
    while (depth < 30 && cell * 0.5f >= 4.0f * size) {
        cell *= 0.5f;
        depth++;
    }
    return depth;
}

static void make_agents(agents *a, const scenario *s) {
    size_t i;
    a->n = s->n;
    a->world = s->world;
    a->size = s->size;
    a->x = (float *)xmalloc(s->n * sizeof(float));
    a->y = (float *)xmalloc(s->n * sizeof(float));
    a->vx = (float *)xmalloc(s->n * sizeof(float));
    a->vy = (float *)xmalloc(s->n * sizeof(float));
    a->rects = (qt_rect *)xmalloc(s->n * sizeof(qt_rect));
    a->handles = (qt_handle_t *)xmalloc(s->n * sizeof(qt_handle_t));
    rng_state = 12345;
    for (i = 0; i < s->n; i++) {
        a->x[i] = rng_f() * (s->world - s->size);
        a->y[i] = rng_f() * (s->world - s->size);
        a->vx[i] = rng_f() * 2.0f - 1.0f;
        a->vy[i] = rng_f() * 2.0f - 1.0f;
    }
}

static void free_agents(agents *a) {
    free(a->x);
    free(a->y);
    free(a->vx);
    free(a->vy);
    free(a->rects);
    free(a->handles);
}

static qt_rect agent_rect(const agents *a, size_t i) {
    qt_rect r;
    r.x1 = a->x[i];
    r.y1 = a->y[i];
    r.x2 = a->x[i] + a->size;
    r.y2 = a->y[i] + a->size;
    return r;
}

/* One agent's step of the update: move, bounce off the world's edges. */
static void step_agent(agents *a, size_t i) {
    float limit = a->world - a->size;
    float x = a->x[i] + a->vx[i], y = a->y[i] + a->vy[i];
    if (x < 0.0f) {
        x = 0.0f;
        a->vx[i] = -a->vx[i];
    }
    if (x > limit) {
        x = limit;
        a->vx[i] = -a->vx[i];
    }
    if (y < 0.0f) {
        y = 0.0f;
        a->vy[i] = -a->vy[i];
    }
    if (y > limit) {
        y = limit;
        a->vy[i] = -a->vy[i];
    }
    a->x[i] = x;
    a->y[i] = y;
}

typedef struct report {
    double update_ms, collide_ms;
    uint64_t pairs_per_frame;
    qt_tree_stats stats;
} report;

static report run(const scenario *s, qt_kind kind, enum mode mode, int batch) {
    agents a;
    qt_tree *tree = NULL;
    qt_status status;
    size_t i, total, hits_cap = 64, pairs_cap = 1024;
    qt_handle_t *hits = (qt_handle_t *)xmalloc(hits_cap * sizeof *hits);
    size_t agent_batch = pool_threads() > 1 ? AGENT_BATCH : AGENT_BATCH_ONE_THREAD;
    size_t *offsets = (size_t *)xmalloc((AGENT_BATCH + 1) * sizeof *offsets);
    qt_query_desc *queries = NULL;
    qt_pair *pairs = (qt_pair *)xmalloc(pairs_cap * sizeof *pairs);
    uint64_t sum = 0;
    int frame;
    report rep;
    qt_rect world;

    memset(&rep, 0, sizeof rep);
    make_agents(&a, s);
    world.x1 = 0.0f;
    world.y1 = 0.0f;
    world.x2 = s->world;
    world.y2 = s->world;
    if (kind == QT_KIND_QUADTREE) {
        status = qt_create(world, AGENTS_MAX_ELEMENTS, default_max_depth(s->world, s->size), &tree);
    } else {
        status = qt_create_default(kind, world, &tree);
    }
    if (status != QT_OK) die("qt_create", status);
    if (batch) {
        uint32_t *ids = (uint32_t *)xmalloc(a.n * sizeof *ids);
        for (i = 0; i < a.n; i++) {
            a.rects[i] = agent_rect(&a, i);
            ids[i] = (uint32_t)i;
        }
        status = qt_insert_many(tree, a.rects, ids, a.n, a.handles, NULL);
        if (status != QT_OK) die("qt_insert_many", status);
        free(ids);
        /* The per-agent queries never change: each agent's element query. */
        queries = (qt_query_desc *)xmalloc(a.n * sizeof *queries);
        for (i = 0; i < a.n; i++) queries[i] = qt_element_query(a.handles[i]);
    } else {
        for (i = 0; i < a.n; i++) {
            status = qt_insert(tree, agent_rect(&a, i), (uint32_t)i, &a.handles[i]);
            if (status != QT_OK) die("qt_insert", status);
        }
    }
    if ((status = qt_cleanup(tree)) != QT_OK) die("qt_cleanup", status);

    for (frame = 0; frame < WARMUP_FRAMES + s->frames; frame++) {
        uint64_t ordered = 0;
        double t0 = now_ms(), t1, t2;
        if (batch) {
            for (i = 0; i < a.n; i++) {
                step_agent(&a, i);
                a.rects[i] = agent_rect(&a, i);
            }
            status = qt_move_many(tree, a.handles, a.rects, a.n, NULL);
            if (status != QT_OK) die("qt_move_many", status);
        } else {
            for (i = 0; i < a.n; i++) {
                step_agent(&a, i);
                status = qt_move(tree, a.handles[i], agent_rect(&a, i));
                if (status != QT_OK) die("qt_move", status);
            }
        }
        if ((status = qt_cleanup(tree)) != QT_OK) die("qt_cleanup", status);
        t1 = now_ms();
        if (mode == PER_AGENT && batch) {
            for (i = 0; i < a.n; i += agent_batch) {
                size_t count = a.n - i < agent_batch ? a.n - i : agent_batch;
                status = qt_query_many(tree, queries + i, count, offsets, hits, hits_cap, &total, NULL);
                if (status != QT_OK) die("qt_query_many", status);
                if (total > hits_cap) { /* grow and ask again: the buffer convention */
                    free(hits);
                    hits_cap = total * 2;
                    hits = (qt_handle_t *)xmalloc(hits_cap * sizeof *hits);
                    status = qt_query_many(tree, queries + i, count, offsets, hits, hits_cap, &total, NULL);
                    if (status != QT_OK) die("qt_query_many", status);
                }
                ordered += total;
            }
        } else if (mode == PER_AGENT) {
            for (i = 0; i < a.n; i++) {
                /* What the agent touches: a rectangle query of its own
                 * rectangle, omitting it. */
                qt_query_desc q = qt_rect_query(agent_rect(&a, i));
                q.omit = a.handles[i];
                status = qt_query(tree, &q, hits, hits_cap, &total);
                if (status != QT_OK) die("qt_query", status);
                if (total > hits_cap) { /* grow and ask again: the buffer convention */
                    free(hits);
                    hits_cap = total * 2;
                    hits = (qt_handle_t *)xmalloc(hits_cap * sizeof *hits);
                    status = qt_query(tree, &q, hits, hits_cap, &total);
                    if (status != QT_OK) die("qt_query", status);
                }
                ordered += total;
            }
        } else {
            status = qt_query_pairs(tree, pairs, pairs_cap, &total);
            if (status != QT_OK) die("qt_query_pairs", status);
            if (total > pairs_cap) {
                free(pairs);
                pairs_cap = total * 2;
                pairs = (qt_pair *)xmalloc(pairs_cap * sizeof *pairs);
                status = qt_query_pairs(tree, pairs, pairs_cap, &total);
                if (status != QT_OK) die("qt_query_pairs", status);
            }
            ordered = 2 * (uint64_t)total;
        }
        t2 = now_ms();
        if (frame >= WARMUP_FRAMES) {
            rep.update_ms += t1 - t0;
            rep.collide_ms += t2 - t1;
            sum += ordered;
        }
    }
    rep.update_ms /= s->frames;
    rep.collide_ms /= s->frames;
    rep.pairs_per_frame = sum / (uint64_t)s->frames;
    if ((status = qt_stats(tree, &rep.stats)) != QT_OK) die("qt_stats", status);
    qt_destroy(tree);
    free(hits);
    free(pairs);
    free(offsets);
    free(queries);
    free_agents(&a);
    return rep;
}

static int usage(FILE *to) {
    fprintf(to, "usage: agents [SCENARIO] [--mode per-agent|all-pairs|both] [--update batch|each]\n"
                "              [--index quadtree|grid|loose-grid]\n"
                "SCENARIO: uniform-100k (default), uniform-20k, uniform-1m\n");
    return 2;
}

int main(int argc, char **argv) {
    const scenario *s = NULL;
    const char *name = "uniform-100k";
    int modes[2] = {1, 1}, batch = 1, mismatch = 0, m, i, index = 0;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--mode") == 0 && i + 1 < argc) {
            const char *v = argv[++i];
            modes[PER_AGENT] = strcmp(v, "per-agent") == 0 || strcmp(v, "both") == 0;
            modes[ALL_PAIRS] = strcmp(v, "all-pairs") == 0 || strcmp(v, "both") == 0;
            if (!modes[PER_AGENT] && !modes[ALL_PAIRS]) return usage(stderr);
        } else if (strcmp(argv[i], "--update") == 0 && i + 1 < argc) {
            const char *v = argv[++i];
            if (strcmp(v, "each") == 0) {
                batch = 0;
            } else if (strcmp(v, "batch") != 0) {
                return usage(stderr);
            }
        } else if (strcmp(argv[i], "--index") == 0 && i + 1 < argc) {
            const char *v = argv[++i];
            for (index = 0; index < (int)(sizeof INDEXES / sizeof INDEXES[0]); index++)
                if (strcmp(v, INDEXES[index].name) == 0) break;
            if (index == (int)(sizeof INDEXES / sizeof INDEXES[0])) return usage(stderr);
        } else if (argv[i][0] == '-') {
            return usage(stderr);
        } else {
            name = argv[i];
        }
    }
    /* This thread makes every call: as thread 0 of the batch calls' pool its
     * big batches start on it at once, not on a worker woken for each. */
    qt_join_thread_pool();
    for (i = 0; i < (int)(sizeof SCENARIOS / sizeof SCENARIOS[0]); i++)
        if (strcmp(SCENARIOS[i].name, name) == 0) s = &SCENARIOS[i];
    if (!s) {
        fprintf(stderr, "agents: unknown scenario %s\n", name);
        return usage(stderr);
    }

    printf("%s: %zu agents of side %g in a %gx%g world, %d warm-up + %d measured frames\n",
           s->name, s->n, (double)s->size, (double)s->world, (double)s->world, WARMUP_FRAMES,
           s->frames);
    if (INDEXES[index].kind == QT_KIND_QUADTREE) {
        printf("flatquad %s through the C ABI: quadtree, max_elements %d, max_depth %u",
               qt_version(), AGENTS_MAX_ELEMENTS, default_max_depth(s->world, s->size));
    } else {
        printf("flatquad %s through the C ABI: %s with its defaults", qt_version(),
               INDEXES[index].name);
    }
    printf(", calls: %s\n\n", batch ? "qt_insert_many, qt_move_many, qt_query_many (element)"
                                     : "qt_insert, qt_move, qt_query (rect) per agent");
    printf("%-10s %10s %11s %9s %12s %9s %8s %12s\n", "mode", "update ms", "collide ms",
           "frame ms", "pairs/frame", "expected", "check", "bytes/agent");
    for (m = PER_AGENT; m <= ALL_PAIRS; m++) {
        report r;
        int ok;
        if (!modes[m]) continue;
        r = run(s, INDEXES[index].kind, (enum mode)m, batch);
        ok = r.pairs_per_frame == s->checksum;
        mismatch |= !ok;
        printf("%-10s %10.3f %11.3f %9.3f %12llu %9llu %8s %12.1f\n", MODE_NAMES[m], r.update_ms,
               r.collide_ms, r.update_ms + r.collide_ms, (unsigned long long)r.pairs_per_frame,
               (unsigned long long)s->checksum, ok ? "OK" : "MISMATCH",
               (double)r.stats.bytes / (double)s->n);
        fflush(stdout);
    }
    if (mismatch) {
        fprintf(stderr, "agents: checksum MISMATCH\n");
        return 1;
    }
    return 0;
}
