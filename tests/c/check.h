/* The tiny check harness of the C tests: a failed check prints where and why
 * and the run goes on; check_summary() prints "N passed, N failed" and gives
 * the exit code. */
#ifndef FLATQUAD_TEST_CHECK_H
#define FLATQUAD_TEST_CHECK_H

#include <stdio.h>

#include "flatquad.h"

static int check_passed, check_failed;
/* Shown before each failure: what the checks are running on ("[grid] ", say). */
static const char *check_context = "";

#define CHECK(cond)                                                               \
    do {                                                                          \
        if (cond) {                                                               \
            check_passed++;                                                       \
        } else {                                                                  \
            check_failed++;                                                       \
            fprintf(stderr, "%s:%d: %scheck failed: %s\n", __FILE__, __LINE__,    \
                    check_context, #cond);                                        \
        }                                                                         \
    } while (0)

/* Runs `call` once and checks that it returned the status `expected`. */
#define CHECK_STATUS(call, expected)                                              \
    do {                                                                          \
        qt_status got_ = (call);                                                  \
        if (got_ == (expected)) {                                                 \
            check_passed++;                                                       \
        } else {                                                                  \
            check_failed++;                                                       \
            fprintf(stderr, "%s:%d: %s%s returned %d (%s), expected %s\n",        \
                    __FILE__, __LINE__, check_context, #call, (int)got_,          \
                    qt_status_str(got_), #expected);                              \
        }                                                                         \
    } while (0)

#define CHECK_OK(call) CHECK_STATUS(call, QT_OK)

/* Must succeed for the test to go on at all. */
#define REQUIRE_OK(call)                                                          \
    do {                                                                          \
        qt_status got_ = (call);                                                  \
        if (got_ != QT_OK) {                                                      \
            fprintf(stderr, "%s:%d: %s%s returned %d (%s); cannot go on\n",       \
                    __FILE__, __LINE__, check_context, #call, (int)got_,          \
                    qt_status_str(got_));                                         \
            exit(1);                                                              \
        }                                                                         \
    } while (0)

/* Query descriptions as C99 compound literals, for the many calls of the
 * tests: a pointer to a description living until the end of the block. */
#define QRECT(r, omit, mask) (&(qt_query_desc){QT_SHAPE_RECT, {.rect = (r)}, (mask), (omit)})
#define QRECT_D(r, omit) (&(qt_query_desc){QT_SHAPE_RECT_D, {.rect_d = (r)}, QT_MASK_ALL, (omit)})
#define QPOINT(x, y, omit, mask) \
    (&(qt_query_desc){QT_SHAPE_POINT, {.point = {(x), (y)}}, (mask), (omit)})
#define QCIRCLE(x, y, radius, mask) \
    (&(qt_query_desc){QT_SHAPE_CIRCLE, {.circle = {(x), (y), (radius)}}, (mask), QT_NO_HANDLE})
#define QELEM(h) (&(qt_query_desc){QT_SHAPE_ELEMENT, {.element = (h)}, QT_MASK_ALL, QT_NO_HANDLE})
#define QBOX(b, omit, mask) (&(qt_query3_desc){QT_SHAPE_BOX, {.box = (b)}, (mask), (omit)})
#define QPOINT3(x, y, z, omit, mask) \
    (&(qt_query3_desc){QT_SHAPE_POINT, {.point = {(x), (y), (z)}}, (mask), (omit)})
#define QSPHERE(x, y, z, radius, mask) \
    (&(qt_query3_desc){QT_SHAPE_SPHERE, {.sphere = {(x), (y), (z), (radius)}}, (mask), QT_NO_HANDLE})
#define QELEM3(h) \
    (&(qt_query3_desc){QT_SHAPE_ELEMENT, {.element = (h)}, QT_MASK_ALL, QT_NO_HANDLE})

static int check_summary(const char *name) {
    printf("%s: %d passed, %d failed\n", name, check_passed, check_failed);
    return check_failed == 0 ? 0 : 1;
}

#endif
