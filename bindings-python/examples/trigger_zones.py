"""Trigger zones: a few moving sensor boxes and many moving agents; every frame
prints which agents entered and which left each sensor, from the contact events
of ``flatquad.PairTracker``.

    python examples/trigger_zones.py [--frames 30] [--agents 2000] [--sensors 4]
                                     [--seed 1] [--index grid|quadtree|loose-grid|loose-quadtree]
                                     [--quiet]

Sensors and agents live in one index and are told apart by collision filters: a
sensor (category SENSOR) collides only with agents, an agent (category AGENT)
only with sensors. So agents never pair with each other, and every event the
tracker reports is an agent entering or leaving a sensor. Every few frames
sensor 0 collects the agent nearest its centre: it despawns, and a new one (a
new id) spawns elsewhere. The old one's contacts end under the handle it had,
and the index reuses its slot.

Output, one line per frame with events, then a total:

    frame 3: inside 41 | agent 812 entered sensor 2; agent 77 left sensor 0
    total: 1234 entered, 1193 left, 41 inside at the end
"""

import argparse

import numpy as np

import flatquad

#: Filter categories: each kind collides only with the other.
SENSOR, AGENT = 1, 2
WORLD = 512.0
AGENT_SIDE, SENSOR_SIDE = 3.0, 60.0
#: Every this many frames, one agent is collected and a new one spawns.
RESPAWN_EVERY = 3

INDEXES = {
    "grid": lambda: flatquad.Grid((0, 0, WORLD, WORLD), cell_size=8),
    "quadtree": lambda: flatquad.Quadtree((0, 0, WORLD, WORLD)),
    "loose-grid": lambda: flatquad.LooseGrid((0, 0, WORLD, WORLD)),
    "loose-quadtree": lambda: flatquad.LooseQuadtree((0, 0, WORLD, WORLD)),
}


def boxes(corners, side):
    """float32 rows (x1, y1, x2, y2) of squares with these lower corners."""
    return np.hstack([corners, corners + side]).astype(np.float32)


def frames(count, agents, sensors, seed):
    """The scene, frame by frame: yields ``(agent_ids, agent_rects,
    sensor_rects)``, frame 0 first. Agents move fast, sensors slowly; both
    bounce off the world's edges. ``agent_ids[i]`` is the id of the agent in
    row ``i``: a new id when one respawns there."""
    rng = np.random.default_rng(seed)
    pos = rng.uniform(0, WORLD - AGENT_SIDE, (agents, 2))
    vel = rng.uniform(-4, 4, (agents, 2))
    spos = rng.uniform(0, WORLD - SENSOR_SIDE, (sensors, 2))
    svel = rng.uniform(-1, 1, (sensors, 2))
    ids = np.arange(agents, dtype=np.int64)
    next_id = agents
    for frame in range(count):
        if frame and frame % RESPAWN_EVERY == 0:
            # Sensor 0 collects the agent nearest its centre (most often inside it).
            row = int(np.argmin(np.sum((pos + AGENT_SIDE / 2 - (spos[0] + SENSOR_SIDE / 2)) ** 2, axis=1)))
            ids[row], next_id = next_id, next_id + 1
            pos[row] = rng.uniform(0, WORLD - AGENT_SIDE, 2)
        yield ids.copy(), boxes(pos, AGENT_SIDE), boxes(spos, SENSOR_SIDE)
        for p, v, side in ((pos, vel, AGENT_SIDE), (spos, svel, SENSOR_SIDE)):
            p += v
            out = (p < 0) | (p > WORLD - side)
            v[out] = -v[out]
            np.clip(p, 0, WORLD - side, out=p)


def run(count, agents, sensors, seed, index="grid", quiet=False):
    """Runs the scene; returns per frame the lists of ``(agent_id, sensor)``
    that entered and that left, in the order printed."""
    grid = INDEXES[index]()
    who = {}  # handle -> ("agent", id) or ("sensor", number); kept after removal
    agent_handles = sensor_handles = None
    agent_ids = None
    tracker = flatquad.PairTracker(grid)
    log = []
    for frame, (ids, agent_rects, sensor_rects) in enumerate(frames(count, agents, sensors, seed)):
        if frame == 0:
            sensor_handles = grid.insert_many(sensor_rects, ids=np.arange(sensors))
            grid.set_filters(sensor_handles, SENSOR, AGENT)
            agent_handles = grid.insert_many(agent_rects, ids=ids)
            grid.set_filters(agent_handles, AGENT, SENSOR)
            who.update((int(h), ("sensor", s)) for s, h in enumerate(sensor_handles))
            who.update((int(h), ("agent", int(i))) for i, h in zip(ids, agent_handles))
        else:
            for row in np.nonzero(ids != agent_ids)[0]:  # respawns: remove, insert anew
                grid.remove(int(agent_handles[row]))
                handle = grid.insert(agent_rects[row], id=int(ids[row]))
                grid.set_filter(handle, AGENT, SENSOR)
                agent_handles[row] = handle
                who[handle] = ("agent", int(ids[row]))
            grid.move_many(agent_handles, agent_rects)
            grid.move_many(sensor_handles, sensor_rects)
        agent_ids = ids
        grid.cleanup()
        began, ended = tracker.update()
        events = ([contact(who, pair) for pair in began.tolist()], [contact(who, pair) for pair in ended.tolist()])
        log.append(events)
        if not quiet and (events[0] or events[1]):
            shown = [f"agent {a} entered sensor {s}" for a, s in events[0]]
            shown += [f"agent {a} left sensor {s}" for a, s in events[1]]
            print(f"frame {frame}: inside {tracker.pair_count} | " + "; ".join(shown))
    entered = sum(len(e) for e, _ in log)
    left = sum(len(e) for _, e in log)
    print(f"total: {entered} entered, {left} left, {tracker.pair_count} inside at the end")
    return log


def contact(who, pair):
    """A pair of handles as ``(agent_id, sensor)``: the filters admit no other pair."""
    (kind_a, a), (kind_b, b) = who[pair[0]], who[pair[1]]
    assert {kind_a, kind_b} == {"agent", "sensor"}, (kind_a, kind_b)
    return (a, b) if kind_a == "agent" else (b, a)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=30)
    parser.add_argument("--agents", type=int, default=2000)
    parser.add_argument("--sensors", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--index", choices=sorted(INDEXES), default="grid")
    parser.add_argument("--quiet", action="store_true", help="print only the total")
    args = parser.parse_args()
    run(args.frames, args.agents, args.sensors, args.seed, args.index, args.quiet)


if __name__ == "__main__":
    main()
