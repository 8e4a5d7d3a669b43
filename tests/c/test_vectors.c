/* Replays the shared test vectors (the JSON files of tests/vectors, format in
 * tests/vectors/README.md) through the C ABI: each file's operations on a
 * fresh tree of every structure the file lists, each result compared with the
 * file's, each refusal checked by the number of its error kind (qt_status has
 * the numbers of the core's ErrorKind) and for a tree left byte for byte as it
 * was. Every tree is validated after every operation. One qt_tracker per
 * replay, made with the tree, answers the `events` ops.
 *
 *   test_vectors FILE.json...      (tests/c/run.sh passes every tests/vectors file)
 *
 * Fails when given no file: the vectors are part of the test suite. The JSON
 * is read with jansson (libjansson-dev), which tests/c/run.sh installs. Calls
 * the C ABI cannot express are skipped and counted: batch calls with arrays of
 * different lengths (the core's LengthMismatch), as every C batch call takes
 * one count for all its arrays. */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* The README's handle that was never issued: slot 999999, generation 1. */
#define NEVER_ISSUED (((uint64_t)1 << 32) | 999999u)

/* The core's error kinds by name (flatquad::ErrorKind::name) and number. */
static const struct {
    const char *name;
    int number;
} ERROR_KINDS[] = {
    {"InvalidRect", 3},      {"InvalidPoint", 4},     {"InvalidHandle", 5},
    {"DuplicateHandle", 6},  {"InvalidWorld", 7},     {"InvalidParameter", 8},
    {"CapacityExceeded", 9}, {"InvalidBytes", 10},    {"LengthMismatch", 14},
};
#define LENGTH_MISMATCH 14

/* ---------------------------------------------------------------- one replay */

typedef struct var {
    char *name;
    qt_handle_t handle;
} var;

typedef struct replay {
    qt_tree *tree;
    qt_tracker *tracker; /* made with the tree: the `events` ops' history */
    var *vars;
    size_t nvars, cap;
    int broken;     /* the file says something this runner cannot read */
    size_t skipped; /* operations the C ABI cannot express */
} replay;

static char context[256];

/* A vector this runner cannot read: a failure, and the replay stops. */
static void malformed(replay *r, const char *what) {
    check_failed++;
    fprintf(stderr, "%smalformed vector: %s\n", context, what);
    r->broken = 1;
}

static void bind(replay *r, const char *name, qt_handle_t handle) {
    size_t i;
    for (i = 0; i < r->nvars; i++) {
        if (strcmp(r->vars[i].name, name) == 0) {
            r->vars[i].handle = handle;
            return;
        }
    }
    if (r->nvars == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->vars = (var *)realloc(r->vars, r->cap * sizeof *r->vars);
        if (!r->vars) abort();
    }
    r->vars[r->nvars].name = (char *)malloc(strlen(name) + 1);
    if (!r->vars[r->nvars].name) abort();
    strcpy(r->vars[r->nvars].name, name);
    r->vars[r->nvars].handle = handle;
    r->nvars++;
}

/* The handle a JSON name stands for; `null` is QT_NO_HANDLE where allowed. */
static qt_handle_t handle_of(replay *r, const json_t *name, int null_ok) {
    size_t i;
    if (null_ok && json_is_null(name)) return QT_NO_HANDLE;
    if (!json_is_string(name)) {
        malformed(r, "a handle is not a name");
        return QT_NO_HANDLE;
    }
    if (strcmp(json_string_value(name), "never") == 0) return NEVER_ISSUED;
    for (i = 0; i < r->nvars; i++)
        if (strcmp(r->vars[i].name, json_string_value(name)) == 0) return r->vars[i].handle;
    malformed(r, "a handle names no variable");
    return QT_NO_HANDLE;
}

/* The variable holding a handle, or NULL. */
static const char *name_of(const replay *r, qt_handle_t handle) {
    size_t i;
    for (i = 0; i < r->nvars; i++)
        if (r->vars[i].handle == handle) return r->vars[i].name;
    return NULL;
}

static float number(replay *r, const json_t *v) {
    if (json_is_number(v)) return (float)json_number_value(v);
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        if (strcmp(s, "nan") == 0) return NAN;
        if (strcmp(s, "inf") == 0) return INFINITY;
        if (strcmp(s, "-inf") == 0) return -INFINITY;
    }
    malformed(r, "not a number");
    return 0;
}

static qt_rect rect_of(replay *r, const json_t *v) {
    qt_rect q = {0, 0, 0, 0};
    if (!json_is_array(v) || json_array_size(v) != 4) {
        malformed(r, "a rectangle is not [x1, y1, x2, y2]");
        return q;
    }
    q.x1 = number(r, json_array_get(v, 0));
    q.y1 = number(r, json_array_get(v, 1));
    q.x2 = number(r, json_array_get(v, 2));
    q.y2 = number(r, json_array_get(v, 3));
    return q;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_pair(const void *a, const void *b) {
    const char *const *p = (const char *const *)a, *const *q = (const char *const *)b;
    int c = strcmp(p[0], q[0]);
    return c ? c : strcmp(p[1], q[1]);
}

/* Checks found handles against `expect`, a sorted list of names. */
static void check_names(replay *r, const qt_handle_t *found, size_t total, const json_t *expect) {
    const char **names = (const char **)malloc((total + 1) * sizeof *names);
    size_t i;
    int ok = json_is_array(expect) && json_array_size(expect) == total;
    if (!names) abort();
    for (i = 0; i < total; i++) {
        names[i] = name_of(r, found[i]);
        if (!names[i]) {
            names[i] = "?";
            ok = 0;
        }
    }
    qsort(names, total, sizeof *names, cmp_str);
    for (i = 0; ok && i < total; i++) {
        const json_t *want = json_array_get(expect, i);
        ok = json_is_string(want) && strcmp(json_string_value(want), names[i]) == 0;
    }
    if (!ok) {
        fprintf(stderr, "%sfound %zu:", context, total);
        for (i = 0; i < total; i++) fprintf(stderr, " %s", names[i]);
        fprintf(stderr, "; expected %zu\n", json_is_array(expect) ? json_array_size(expect) : 0);
    }
    CHECK(ok);
    free(names);
}

static void check_pairs(replay *r, const qt_pair *pairs, size_t total, const json_t *expect) {
    const char **names = (const char **)malloc((2 * total + 1) * sizeof *names);
    size_t i;
    int ok = json_is_array(expect) && json_array_size(expect) == total;
    if (!names) abort();
    for (i = 0; i < total; i++) {
        const char *a = name_of(r, pairs[i].a), *b = name_of(r, pairs[i].b);
        if (!a || !b) {
            a = b = "?";
            ok = 0;
        }
        names[2 * i] = strcmp(a, b) < 0 ? a : b;
        names[2 * i + 1] = strcmp(a, b) < 0 ? b : a;
    }
    qsort(names, total, 2 * sizeof *names, cmp_pair);
    for (i = 0; ok && i < total; i++) {
        const json_t *want = json_array_get(expect, i);
        ok = json_is_array(want) && json_array_size(want) == 2 &&
             json_is_string(json_array_get(want, 0)) && json_is_string(json_array_get(want, 1)) &&
             strcmp(json_string_value(json_array_get(want, 0)), names[2 * i]) == 0 &&
             strcmp(json_string_value(json_array_get(want, 1)), names[2 * i + 1]) == 0;
    }
    if (!ok) fprintf(stderr, "%sfound %zu pairs, not the expected ones\n", context, total);
    CHECK(ok);
    free(names);
}

/* The status an operation must return: QT_OK, or its error kind's number. */
static int expected_status(replay *r, const json_t *op) {
    const json_t *error = json_object_get(op, "error");
    size_t i;
    if (!error) return QT_OK;
    for (i = 0; i < sizeof ERROR_KINDS / sizeof ERROR_KINDS[0]; i++)
        if (json_is_string(error) && strcmp(json_string_value(error), ERROR_KINDS[i].name) == 0)
            return ERROR_KINDS[i].number;
    malformed(r, "unknown error kind");
    return -1;
}

static void check_status(qt_status got, int expected) {
    if ((int)got == expected) {
        check_passed++;
    } else {
        check_failed++;
        fprintf(stderr, "%sreturned %d (%s), expected %d (%s)\n", context, (int)got,
                qt_status_str(got), expected, qt_status_str(expected));
    }
}

/* A batch call's refused item: `index` of the vector. */
static void check_index(replay *r, const json_t *op, qt_status got, size_t bad_index) {
    const json_t *index = json_object_get(op, "index");
    if (got == QT_OK || !index) return;
    if (!json_is_integer(index)) {
        malformed(r, "index is not an integer");
        return;
    }
    if (bad_index != (size_t)json_integer_value(index))
        fprintf(stderr, "%srefused item %zu, expected %lld\n", context, bad_index,
                (long long)json_integer_value(index));
    CHECK(bad_index == (size_t)json_integer_value(index));
}

/* Handles of a JSON list of names, into a new array. */
static qt_handle_t *handles_of(replay *r, const json_t *names) {
    size_t i, n = json_is_array(names) ? json_array_size(names) : 0;
    qt_handle_t *out = (qt_handle_t *)malloc((n + 1) * sizeof *out);
    if (!out) abort();
    if (!json_is_array(names)) malformed(r, "handles is not a list");
    for (i = 0; i < n; i++) out[i] = handle_of(r, json_array_get(names, i), 0);
    return out;
}

static qt_rect *rects_of(replay *r, const json_t *list) {
    size_t i, n = json_is_array(list) ? json_array_size(list) : 0;
    qt_rect *out = (qt_rect *)malloc((n + 1) * sizeof *out);
    if (!out) abort();
    if (!json_is_array(list)) malformed(r, "rects is not a list");
    for (i = 0; i < n; i++) out[i] = rect_of(r, json_array_get(list, i));
    return out;
}

/* A query's results: counted, then fetched into a buffer of that size. */
typedef qt_status (*fetch_fn)(replay *r, const json_t *op, qt_handle_t *out, size_t cap,
                              size_t *total);

static qt_status fetch_query(replay *r, const json_t *op, qt_handle_t *out, size_t cap,
                             size_t *total) {
    return qt_query(r->tree, QRECT(rect_of(r, json_object_get(op, "rect")), handle_of(r, json_object_get(op, "omit"), 1), QT_MASK_ALL), out, cap, total);
}

static qt_status fetch_point(replay *r, const json_t *op, qt_handle_t *out, size_t cap,
                             size_t *total) {
    const json_t *p = json_object_get(op, "point");
    if (!json_is_array(p) || json_array_size(p) != 2) {
        malformed(r, "point is not [x, y]");
        return QT_INTERNAL_ERROR;
    }
    return qt_query(r->tree, QPOINT(number(r, json_array_get(p, 0)), number(r, json_array_get(p, 1)), handle_of(r, json_object_get(op, "omit"), 1), QT_MASK_ALL), out, cap, total);
}

static qt_status fetch_overlapping(replay *r, const json_t *op, qt_handle_t *out, size_t cap,
                                   size_t *total) {
    return qt_query(r->tree, QELEM(handle_of(r, json_object_get(op, "handle"), 0)), out, cap, total);
}

static void run_query(replay *r, const json_t *op, int expected, fetch_fn fetch) {
    size_t total = 0, again = 0;
    qt_handle_t *found;
    qt_status s = fetch(r, op, NULL, 0, &total);
    check_status(s, expected);
    if (s != QT_OK || expected != QT_OK) return;
    found = (qt_handle_t *)malloc((total + 1) * sizeof *found);
    if (!found) abort();
    CHECK_OK(fetch(r, op, found, total, &again));
    CHECK(again == total);
    check_names(r, found, total, json_object_get(op, "expect"));
    free(found);
}

/* One of the tracker's lists, counted by the update, fetched into a buffer of
 * that size and checked against the names of `expect`. */
static void check_events(replay *r, size_t count, const json_t *expect,
                         qt_status (*list)(const qt_tracker *, qt_pair *, size_t, size_t *)) {
    size_t total = 0;
    qt_pair *pairs = (qt_pair *)malloc((count + 1) * sizeof *pairs);
    if (!pairs) abort();
    CHECK_OK(list(r->tracker, pairs, count, &total));
    CHECK(total == count);
    check_pairs(r, pairs, total, expect);
    free(pairs);
}

/* `events`: the pairs that began and ended since the previous one. */
static void run_events(replay *r, const json_t *op) {
    size_t began = 0, ended = 0;
    if (!json_is_array(json_object_get(op, "began")) || !json_is_array(json_object_get(op, "ended"))) {
        malformed(r, "events without began and ended lists");
        return;
    }
    CHECK_OK(qt_tracker_update(r->tracker, &began, &ended));
    check_events(r, began, json_object_get(op, "began"), qt_tracker_began);
    check_events(r, ended, json_object_get(op, "ended"), qt_tracker_ended);
}

static void run_op(replay *r, const json_t *op) {
    const char *name = json_string_value(json_object_get(op, "op"));
    const json_t *expect = json_object_get(op, "expect");
    int expected = expected_status(r, op);
    qt_status s;
    if (!name) {
        malformed(r, "an operation has no op");
        return;
    }
    if (strcmp(name, "insert") == 0) {
        qt_handle_t h = QT_NO_HANDLE;
        const json_t *id = json_object_get(op, "id");
        s = qt_insert(r->tree, rect_of(r, json_object_get(op, "rect")),
                      (uint32_t)json_integer_value(id), &h);
        check_status(s, expected);
        if (s == QT_OK) bind(r, json_string_value(json_object_get(op, "as")), h);
    } else if (strcmp(name, "insert_many") == 0) {
        const json_t *rects = json_object_get(op, "rects"), *ids = json_object_get(op, "ids");
        const json_t *as = json_object_get(op, "as");
        size_t i, n = json_array_size(rects), bad = (size_t)-1;
        qt_rect *rs;
        uint32_t *is;
        qt_handle_t *hs;
        if (json_array_size(ids) != n) {
            CHECK(expected == LENGTH_MISMATCH);
            r->skipped++;
            return;
        }
        rs = rects_of(r, rects);
        is = (uint32_t *)malloc((n + 1) * sizeof *is);
        hs = (qt_handle_t *)malloc((n + 1) * sizeof *hs);
        if (!is || !hs) abort();
        for (i = 0; i < n; i++) is[i] = (uint32_t)json_integer_value(json_array_get(ids, i));
        s = qt_insert_many(r->tree, rs, is, n, hs, &bad);
        check_status(s, expected);
        check_index(r, op, s, bad);
        if (s == QT_OK) {
            if (json_array_size(as) != n) malformed(r, "as is not one name per item");
            for (i = 0; i < n && i < json_array_size(as); i++)
                bind(r, json_string_value(json_array_get(as, i)), hs[i]);
        }
        free(rs);
        free(is);
        free(hs);
    } else if (strcmp(name, "remove") == 0) {
        check_status(qt_remove(r->tree, handle_of(r, json_object_get(op, "handle"), 0)), expected);
    } else if (strcmp(name, "remove_many") == 0) {
        const json_t *names = json_object_get(op, "handles");
        qt_handle_t *hs = handles_of(r, names);
        size_t bad = (size_t)-1;
        s = qt_remove_many(r->tree, hs, json_array_size(names), &bad);
        check_status(s, expected);
        check_index(r, op, s, bad);
        free(hs);
    } else if (strcmp(name, "move") == 0) {
        check_status(qt_move(r->tree, handle_of(r, json_object_get(op, "handle"), 0),
                             rect_of(r, json_object_get(op, "rect"))),
                     expected);
    } else if (strcmp(name, "move_many") == 0) {
        const json_t *names = json_object_get(op, "handles"), *list = json_object_get(op, "rects");
        qt_handle_t *hs;
        qt_rect *rs;
        size_t bad = (size_t)-1;
        if (json_array_size(names) != json_array_size(list)) {
            CHECK(expected == LENGTH_MISMATCH);
            r->skipped++;
            return;
        }
        hs = handles_of(r, names);
        rs = rects_of(r, list);
        s = qt_move_many(r->tree, hs, rs, json_array_size(names), &bad);
        check_status(s, expected);
        check_index(r, op, s, bad);
        free(hs);
        free(rs);
    } else if (strcmp(name, "cleanup") == 0) {
        check_status(qt_cleanup(r->tree), expected);
    } else if (strcmp(name, "clear") == 0) {
        check_status(qt_clear(r->tree), expected);
    } else if (strcmp(name, "query") == 0) {
        run_query(r, op, expected, fetch_query);
    } else if (strcmp(name, "query_point") == 0) {
        run_query(r, op, expected, fetch_point);
    } else if (strcmp(name, "overlapping") == 0) {
        run_query(r, op, expected, fetch_overlapping);
    } else if (strcmp(name, "pairs") == 0) {
        size_t total = 0, again = 0;
        qt_pair *pairs;
        CHECK_OK(qt_query_pairs(r->tree, NULL, 0, &total));
        pairs = (qt_pair *)malloc((total + 1) * sizeof *pairs);
        if (!pairs) abort();
        CHECK_OK(qt_query_pairs(r->tree, pairs, total, &again));
        CHECK(again == total);
        check_pairs(r, pairs, total, expect);
        free(pairs);
    } else if (strcmp(name, "events") == 0) {
        run_events(r, op);
    } else if (strcmp(name, "len") == 0) {
        size_t len = qt_len(r->tree);
        if (!json_is_integer(expect) || len != (size_t)json_integer_value(expect))
            fprintf(stderr, "%slen %zu, expected %lld\n", context, len,
                    (long long)json_integer_value(expect));
        CHECK(json_is_integer(expect) && len == (size_t)json_integer_value(expect));
    } else if (strcmp(name, "contains") == 0) {
        int has = qt_contains(r->tree, handle_of(r, json_object_get(op, "handle"), 0));
        CHECK(json_is_boolean(expect) && has == json_is_true(expect));
    } else if (strcmp(name, "id") == 0) {
        uint32_t id = 0;
        s = qt_element_id(r->tree, handle_of(r, json_object_get(op, "handle"), 0), &id);
        check_status(s, expected);
        if (s == QT_OK && expected == QT_OK)
            CHECK(json_is_integer(expect) && id == (uint32_t)json_integer_value(expect));
    } else if (strcmp(name, "rect") == 0) {
        qt_rect got;
        s = qt_element_rect(r->tree, handle_of(r, json_object_get(op, "handle"), 0), &got);
        check_status(s, expected);
        if (s == QT_OK && expected == QT_OK) {
            qt_rect want = rect_of(r, expect);
            CHECK(got.x1 == want.x1 && got.y1 == want.y1 && got.x2 == want.x2 &&
                  got.y2 == want.y2);
        }
    } else {
        malformed(r, "unknown op");
    }
}

/* The tree's whole state, to show that a refused call changed nothing. */
static unsigned char *state(const qt_tree *tree, size_t *n) {
    size_t total = 0;
    unsigned char *bytes;
    REQUIRE_OK(qt_to_bytes(tree, NULL, 0, n));
    bytes = (unsigned char *)malloc(*n + 1);
    if (!bytes) abort();
    REQUIRE_OK(qt_to_bytes(tree, bytes, *n, &total));
    return bytes;
}

/* ---------------------------------------------------------------- structures */

static const struct {
    const char *name;
    qt_kind kind;
} KINDS[] = {
    {"Quadtree", QT_KIND_QUADTREE},
    {"Grid", QT_KIND_GRID},
    {"LooseGrid", QT_KIND_LOOSE_GRID},
    {"LooseQuadtree", QT_KIND_LOOSE_QUADTREE},
};

static uint32_t param(replay *r, const json_t *params, const char *key) {
    const json_t *v = json_object_get(params, key);
    if (!json_is_integer(v)) {
        malformed(r, "a structure parameter is missing or not an integer");
        return 0;
    }
    return (uint32_t)json_integer_value(v);
}

/* A fresh tree of the structure `s` over `world`, or NULL. */
static qt_tree *make(replay *r, const json_t *s, qt_rect world) {
    const char *kind = json_string_value(json_object_get(s, "kind"));
    const json_t *params = json_object_get(s, "params");
    qt_tree *tree = NULL;
    qt_status status = QT_INTERNAL_ERROR;
    size_t i;
    for (i = 0; kind && i < sizeof KINDS / sizeof KINDS[0]; i++) {
        if (strcmp(kind, KINDS[i].name) != 0) continue;
        if (json_is_null(params)) {
            status = qt_create_default(KINDS[i].kind, world, &tree);
        } else if (KINDS[i].kind == QT_KIND_QUADTREE) {
            status = qt_create(world, param(r, params, "max_elements"),
                               param(r, params, "max_depth"), &tree);
        } else if (KINDS[i].kind == QT_KIND_LOOSE_QUADTREE) {
            status = qt_create_loose_quadtree(world, param(r, params, "max_elements"),
                                              param(r, params, "max_depth"), &tree);
        } else if (KINDS[i].kind == QT_KIND_GRID) {
            status = qt_create_grid(world, param(r, params, "columns"), param(r, params, "rows"),
                                    &tree);
        } else {
            status = qt_create_loose_grid(world, param(r, params, "columns"),
                                          param(r, params, "rows"),
                                          param(r, params, "tight_columns"),
                                          param(r, params, "tight_rows"), &tree);
        }
        if (status != QT_OK) {
            check_failed++;
            fprintf(stderr, "%scannot make the structure: %s\n", context, qt_status_str(status));
            return NULL;
        }
        CHECK(qt_kind_of(tree) == KINDS[i].kind);
        return tree;
    }
    malformed(r, "unknown structure kind");
    return NULL;
}

static void replay_file(const char *path) {
    json_error_t error;
    json_t *root = json_load_file(path, 0, &error);
    const json_t *structures, *ops, *s;
    const char *file = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t k, i, skipped = 0;
    qt_rect world;
    replay r;

    memset(&r, 0, sizeof r);
    snprintf(context, sizeof context, "%s: ", file);
    if (!root) {
        check_failed++;
        fprintf(stderr, "%s:%d: %s\n", path, error.line, error.text);
        return;
    }
    structures = json_object_get(root, "structures");
    ops = json_object_get(root, "ops");
    world = rect_of(&r, json_object_get(root, "world"));
    if (!json_is_array(structures) || json_array_size(structures) == 0 || !json_is_array(ops))
        malformed(&r, "no structures or no ops");
    json_array_foreach(structures, k, s) {
        char label[96];
        memset(&r, 0, sizeof r);
        snprintf(label, sizeof label, "%s #%zu (%s%s)", file, k,
                 json_string_value(json_object_get(s, "kind")),
                 json_is_null(json_object_get(s, "params")) ? ", defaults" : "");
        snprintf(context, sizeof context, "%s: ", label);
        r.tree = make(&r, s, world);
        if (r.tree) REQUIRE_OK(qt_tracker_create(r.tree, &r.tracker));
        for (i = 0; r.tree && !r.broken && i < json_array_size(ops); i++) {
            const json_t *op = json_array_get(ops, i);
            size_t nbefore = 0, nafter = 0;
            unsigned char *before = NULL, *after;
            snprintf(context, sizeof context, "%s: op %zu (%s): ", label, i,
                     json_string_value(json_object_get(op, "op")));
            if (json_object_get(op, "error")) before = state(r.tree, &nbefore);
            run_op(&r, op);
            if (before) { /* refused: the tree is exactly as it was */
                after = state(r.tree, &nafter);
                CHECK(nbefore == nafter && memcmp(before, after, nbefore) == 0);
                free(before);
                free(after);
            }
            CHECK_OK(qt_validate(r.tree));
        }
        skipped = r.skipped;
        qt_tracker_destroy(r.tracker);
        qt_destroy(r.tree);
        for (i = 0; i < r.nvars; i++) free(r.vars[i].name);
        free(r.vars);
    }
    printf("%s: %zu ops on %zu structures", file, json_array_size(ops),
           json_array_size(structures));
    if (skipped) printf(" (%zu not expressible in C: arrays of different lengths)", skipped);
    printf("\n");
    json_decref(root);
}

int main(int argc, char **argv) {
    int i;
    if (argc < 2) {
        fprintf(stderr, "test_vectors: no vector files given (the JSON files of tests/vectors)\n");
        printf("test_vectors: 0 passed, 1 failed\n");
        return 1;
    }
    check_context = context;
    for (i = 1; i < argc; i++) replay_file(argv[i]);
    context[0] = '\0';
    return check_summary("test_vectors");
}
