/* Trigger zones with contact events: a few moving sensor boxes and many
 * wandering agents in one tree, and a qt_tracker that says, each frame, which
 * agent entered or left which sensor. Collision filters keep the tracker to
 * sensor-agent pairs (agents do not trigger each other, nor sensors), and the
 * program's own handle tables tell a sensor from an agent, even after an agent
 * is removed (its exits come with its old handle).
 *
 *   cc trigger_zones.c $(pkg-config --cflags --libs flatquad) -lm -o trigger_zones
 *   ./trigger_zones [frames]
 *
 * Each frame it also counts the sensor-agent overlaps by brute force and
 * checks that the enters minus the exits so far equal that count (exit status
 * 1 otherwise): tests/c/run.sh runs it so. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "flatquad.h"

#define TRY(call)                                                                   \
    do {                                                                            \
        qt_status s_ = (call);                                                      \
        if (s_ != QT_OK) {                                                          \
            fprintf(stderr, "%s: %s\n", #call, qt_status_str(s_));                  \
            exit(2);                                                                \
        }                                                                           \
    } while (0)

enum { SENSORS = 4, AGENTS = 150, SENSOR = 1 << 0, AGENT = 1 << 1 };
static const float SIDE = 200, SENSOR_SIDE = 30, AGENT_SIDE = 2, SPEED = 1.5f;

static uint64_t rng = 0x2545f4914f6cdd1dull;
static float uniform(float lo, float hi) { /* xorshift64: the same run every time */
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return lo + (hi - lo) * (float)(rng >> 40) / 16777216.0f;
}

static qt_rect square(float x, float y, float side) {
    qt_rect r = {x, y, x + side, y + side};
    return r;
}

static qt_handle_t sensor[SENSORS], agent[AGENTS];
static qt_rect sensor_box[SENSORS], agent_box[AGENTS];
static float vx[AGENTS], vy[AGENTS];
static int gone[AGENTS]; /* removed from the tree */

/* Sensor i circles the middle of the world, each on its own radius and speed. */
static qt_rect sensor_at(int i, int frame) {
    float angle = 0.05f * (float)frame * (float)(i + 1) + 1.5f * (float)i;
    float radius = 25.0f + 15.0f * (float)i;
    return square(SIDE / 2 + radius * cosf(angle) - SENSOR_SIDE / 2,
                  SIDE / 2 + radius * sinf(angle) - SENSOR_SIDE / 2, SENSOR_SIDE);
}

/* Which sensor and which agent a pair names (a pair holds one of each: the
 * filters allow no other). */
static void who(qt_pair p, int *s, int *a) {
    int i;
    *s = *a = -1;
    for (i = 0; i < SENSORS; i++)
        if (sensor[i] == p.a || sensor[i] == p.b) *s = i;
    for (i = 0; i < AGENTS; i++)
        if (agent[i] == p.a || agent[i] == p.b) *a = i;
}

/* Closed boxes, as the tree has them: touching counts. */
static int meets(qt_rect a, qt_rect b) {
    return a.x1 <= b.x2 && b.x1 <= a.x2 && a.y1 <= b.y2 && b.y1 <= a.y2;
}

/* Prints one list of events: count first, then a buffer that holds them all. */
static size_t report(const qt_tracker *tracker, int frame, const char *verb,
                     qt_status (*list)(const qt_tracker *, qt_pair *, size_t, size_t *)) {
    size_t n = 0, i;
    qt_pair *pairs;
    TRY(list(tracker, NULL, 0, &n));
    pairs = (qt_pair *)malloc((n + 1) * sizeof *pairs);
    if (!pairs) exit(2);
    TRY(list(tracker, pairs, n, &n));
    for (i = 0; i < n; i++) {
        int s, a;
        who(pairs[i], &s, &a);
        if (s < 0 || a < 0) {
            fprintf(stderr, "frame %d: a pair that is not one sensor and one agent\n", frame);
            exit(1);
        }
        printf("frame %d: agent %d %s sensor %d%s\n", frame, a, verb, s,
               gone[a] ? " (removed)" : "");
    }
    free(pairs);
    return n;
}

int main(int argc, char **argv) {
    int frames = argc > 1 ? atoi(argv[1]) : 60, frame, i, j;
    size_t enters = 0, exits = 0, began, ended, pairs;
    qt_rect world = {0, 0, SIDE, SIDE};
    qt_tree *tree;
    qt_tracker *tracker;

    TRY(qt_create_default(QT_KIND_LOOSE_GRID, world, &tree));
    for (i = 0; i < SENSORS; i++) {
        sensor_box[i] = sensor_at(i, 0);
        TRY(qt_insert(tree, sensor_box[i], (uint32_t)i, &sensor[i]));
        TRY(qt_set_filter(tree, sensor[i], SENSOR, AGENT)); /* sees agents only */
    }
    for (i = 0; i < AGENTS; i++) {
        float angle = uniform(0, 6.2831853f);
        agent_box[i] = square(uniform(0, SIDE - AGENT_SIDE), uniform(0, SIDE - AGENT_SIDE), AGENT_SIDE);
        vx[i] = SPEED * cosf(angle);
        vy[i] = SPEED * sinf(angle);
        TRY(qt_insert(tree, agent_box[i], (uint32_t)(SENSORS + i), &agent[i]));
        TRY(qt_set_filter(tree, agent[i], AGENT, SENSOR)); /* sees sensors only */
    }
    TRY(qt_tracker_create(tree, &tracker));

    for (frame = 0; frame < frames; frame++) {
        size_t inside = 0;
        if (frame > 0) {
            for (i = 0; i < SENSORS; i++) {
                sensor_box[i] = sensor_at(i, frame);
                TRY(qt_move(tree, sensor[i], sensor_box[i]));
            }
            for (i = 0; i < AGENTS; i++) {
                qt_rect *b = &agent_box[i];
                if (gone[i]) continue;
                if (b->x1 + vx[i] < 0 || b->x2 + vx[i] > SIDE) vx[i] = -vx[i]; /* bounce */
                if (b->y1 + vy[i] < 0 || b->y2 + vy[i] > SIDE) vy[i] = -vy[i];
                *b = square(b->x1 + vx[i], b->y1 + vy[i], AGENT_SIDE);
                TRY(qt_move(tree, agent[i], *b));
            }
            /* Now and then an agent leaves the level: its contacts end with it. */
            if (frame % 10 == 0) {
                i = (frame * 7) % AGENTS;
                if (!gone[i]) {
                    TRY(qt_remove(tree, agent[i]));
                    gone[i] = 1;
                }
            }
            TRY(qt_cleanup(tree));
        }
        TRY(qt_tracker_update(tracker, &began, &ended));
        enters += report(tracker, frame, "enters", qt_tracker_began);
        exits += report(tracker, frame, "exits", qt_tracker_ended);

        /* The check: every agent inside a sensor entered it and has not left. */
        for (i = 0; i < SENSORS; i++)
            for (j = 0; j < AGENTS; j++)
                if (!gone[j] && meets(sensor_box[i], agent_box[j])) inside++;
        TRY(qt_tracker_pair_count(tracker, &pairs));
        if (enters - exits != inside || pairs != inside) {
            fprintf(stderr, "frame %d: %zu enters - %zu exits, %zu pairs, but %zu inside\n", frame,
                    enters, exits, pairs, inside);
            return 1;
        }
    }
    printf("total: %zu enters, %zu exits, %zu inside (the brute-force count at every frame)\n",
           enters, exits, enters - exits);
    qt_tracker_destroy(tracker);
    qt_destroy(tree);
    return 0;
}
