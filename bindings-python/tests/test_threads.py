"""Several Python threads on one structure: concurrent queries agree with a
single-threaded run, batch writes are atomic for readers, waiting writers do
not deadlock against callbacks, and the GIL is released around long calls.
The lock is the same for every structure; the long-call tests use the
quadtree, whose walks are known to be long enough to measure."""

import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import flatquad
import oracle

TIMEOUT = 60  # seconds; a deadlock fails the test instead of hanging it


def build(n=20_000, seed=0, cls=flatquad.Quadtree):
    rng = np.random.default_rng(seed)
    xy = rng.uniform(0, 1020, (n, 2)).astype(np.float32)
    rects = np.hstack([xy, xy + 4])
    tree = cls((0, 0, 1024, 1024))
    return rng, tree, rects, tree.insert_many(rects)


def test_concurrent_readers_agree():
    rng, tree, rects, handles = build()
    qs = oracle.random_rects(rng, 300, (0, 0, 1024, 1024))
    expect_many = tree.query_many(qs)
    expect_single = [sorted(tree.query(q)) for q in qs[:50]]
    expect_points = [sorted(tree.query_point(x, y)) for x, y in qs[:50, :2]]
    expect_pairs = oracle.pair_set(tree.pairs())

    def reader(k):
        for round_ in range(4):
            off, hits = tree.query_many(qs)
            np.testing.assert_array_equal(off, expect_many[0])
            np.testing.assert_array_equal(hits, expect_many[1])
            assert [sorted(tree.query(q)) for q in qs[:50]] == expect_single
            assert [sorted(tree.query_point(x, y)) for x, y in qs[:50, :2]] == expect_points
            if (k + round_) % 2 == 0:
                assert oracle.pair_set(tree.pairs()) == expect_pairs
            assert len(tree) == len(rects)
        return k

    with ThreadPoolExecutor(4) as pool:
        assert sorted(f.result(timeout=TIMEOUT) for f in [pool.submit(reader, k) for k in range(4)]) == [0, 1, 2, 3]
    tree._validate()


def test_batch_writes_are_atomic_for_readers(make_index):
    rng, tree, rects, handles = build(5_000, 1, make_index)
    shifted = rects + np.float32(7.5)
    qs = oracle.random_rects(rng, 100, (0, 0, 1024, 1024))

    def answers():
        offsets, hits = tree.query_many(qs)
        return [sorted(hits[offsets[i] : offsets[i + 1]].tolist()) for i in range(len(qs))]

    tree.move_many(handles, shifted)
    expect_b = answers()
    tree.move_many(handles, rects)
    expect_a = answers()
    assert expect_a != expect_b
    stop = threading.Event()

    def writer():
        frames = 0
        while not stop.is_set() and frames < 400:
            tree.move_many(handles, shifted if frames % 2 == 0 else rects)
            tree.cleanup()
            frames += 1
        return frames

    def reader():
        seen = set()
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and len(seen) < 2:
            hits = answers()
            assert hits in (expect_a, expect_b), "a reader saw a half-applied batch"
            seen.add(hits == expect_a)
        return seen

    with ThreadPoolExecutor(3) as pool:
        w = pool.submit(writer)
        readers = [pool.submit(reader) for _ in range(2)]
        seen = [r.result(timeout=TIMEOUT) for r in readers]
        stop.set()
        assert w.result(timeout=TIMEOUT) > 0
    tree._validate()
    assert all(seen)


def test_writer_waits_for_a_traversal_without_deadlock():
    # Thread A walks the tree and, in its callback, queries it again while thread
    # B is already waiting to write: A's nested read must not queue behind B.
    _, tree, _, _ = build(2_000, 2)
    started, b_waiting = threading.Event(), threading.Event()
    order = []

    def walker():
        def leaf(*args):
            if not started.is_set():
                started.set()
                b_waiting.wait(TIMEOUT)
                time.sleep(0.05)  # let B block on the lock
                order.append(("A query", len(tree.query((0, 0, 100, 100)))))
            return False  # stop after the first leaf

        tree.traverse(leaf=leaf)
        order.append("A done")

    def inserter():
        started.wait(TIMEOUT)
        b_waiting.set()
        tree.insert((1, 1, 2, 2))
        order.append("B inserted")

    with ThreadPoolExecutor(2) as pool:
        futures = [pool.submit(walker), pool.submit(inserter)]
        for f in futures:
            f.result(timeout=TIMEOUT)
    assert order.index("A done") < order.index("B inserted")
    assert len(tree) == 2_001
    tree._validate()


def test_gil_is_released_around_batch_calls():
    # While one thread runs a long query_many, another thread keeps running
    # Python code: it could not if the GIL were held for the whole call.
    _, tree, rects, handles = build(100_000, 3)
    big = np.tile(rects, (4, 1))
    t0 = time.perf_counter()
    tree.query_many(big)
    single = time.perf_counter() - t0
    window = {}

    def long_call():
        window["start"] = time.perf_counter()
        tree.query_many(big)
        window["end"] = time.perf_counter()

    ticks = []
    thread = threading.Thread(target=long_call)
    thread.start()
    while thread.is_alive():
        ticks.append(time.perf_counter())
    thread.join(TIMEOUT)
    start, end = window["start"], window["end"]
    inside = [t for t in ticks if start + 0.2 * (end - start) < t < end - 0.2 * (end - start)]
    assert single > 0.01, "the call is too short to tell"
    assert inside, "no Python code ran while query_many was working: the GIL was held"


@pytest.mark.parametrize("call", ["pairs", "move_many", "insert_many"])
def test_gil_released_for_other_long_calls(call):
    _, tree, rects, handles = build(100_000, 4)
    window = {}

    def long_call():
        window["start"] = time.perf_counter()
        for _ in range(3):
            if call == "pairs":
                tree.pairs()
            elif call == "move_many":
                tree.move_many(handles, rects + np.float32(1))
                tree.move_many(handles, rects)
            else:
                tree.remove_many(tree.insert_many(rects))
        window["end"] = time.perf_counter()

    ticks = []
    thread = threading.Thread(target=long_call)
    thread.start()
    while thread.is_alive():
        ticks.append(time.perf_counter())
    thread.join(TIMEOUT)
    start, end = window["start"], window["end"]
    assert any(start + 0.2 * (end - start) < t < end - 0.2 * (end - start) for t in ticks)



# Run in a process of its own, with two pool threads whatever the machine.
_THREAD_0_SCRIPT = """
import multiprocessing
import threading

import numpy as np

import flatquad


def answers(cls):
    rng = np.random.default_rng(5)
    xy = rng.uniform(0, 1020, (30_000, 2)).astype(np.float32)
    rects = np.hstack([xy, xy + 4])
    index = cls((0, 0, 1024, 1024))
    handles = index.insert_many(rects)
    pairs = index.pairs().tolist()
    offsets, hits = index.overlapping_many(handles)
    index.move_many(handles, rects + np.float32(1.5))
    return pairs, offsets.tolist(), hits.tolist(), index.pairs().tolist()


def both(_=None):
    return [answers(cls) for cls in (flatquad.Grid, flatquad.Quadtree)]


def on_a_thread(work):
    # work() on a second thread, or None if it has not returned in 30 s.
    got = []
    thread = threading.Thread(target=lambda: got.append(work()), daemon=True)
    thread.start()
    thread.join(30)
    return got[0] if got else None


def in_child(_):
    # The child's main thread first, then a second thread: had the parent's
    # import started the pool, the child would hold it without its workers,
    # and the second thread's batches would never be answered.
    return both(), on_a_thread(both)


if __name__ == "__main__":
    # Forked after the import, before any big call: the child makes a pool of
    # its own, as it would have without flatquad's join.
    forked = None
    if "fork" in multiprocessing.get_all_start_methods():
        with multiprocessing.get_context("fork").Pool(1) as pool:
            forked = pool.map(in_child, [0])[0]
    expected = both()  # the main thread's first big call joins the pool
    assert flatquad._native._join_thread_pool() is True
    assert forked is None or forked == (expected, expected), "the forked child"
    joined_elsewhere = on_a_thread(flatquad._native._join_thread_pool)
    assert joined_elsewhere is False
    assert on_a_thread(both) == expected
    print("ok")
"""


def test_the_main_thread_is_thread_0_of_the_batch_calls_pool(tmp_path):
    """Python's main thread becomes thread 0 of the pool the batch calls run
    on at its first big call (not at import, so that a process forked in
    between makes a pool of its own), so its calls start on it at once.
    Another thread cannot join; its big batches are answered by the pool's
    other thread, as the main thread's are, while the main thread waits
    outside the pool. In a process of its own with two pool threads."""
    script = tmp_path / "thread_0.py"
    script.write_text(_THREAD_0_SCRIPT)
    env = {**os.environ, "RAYON_NUM_THREADS": "2"}
    done = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=3 * TIMEOUT
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


# One batch call in a process of its own (two pool threads), `where` the main
# thread or another; then prints whether the main thread can still join the
# pool. Every index is built first (so its insert_many is checked too).
_JOIN_SITE_SCRIPT = """
import sys
import threading

import numpy as np

import flatquad

call, where = sys.argv[1], sys.argv[2]
n = 30_000
rng = np.random.default_rng(7)
xy = rng.uniform(0, 1020, (n, 3)).astype(np.float32)
rects = np.hstack([xy[:, :2], xy[:, :2] + 4])
cubes = np.hstack([xy, xy + 4])
radii = np.full(n, 3.0)
lengths = np.full(n, 50.0)
one = np.ones((n, 3))
grid, octree = flatquad.Grid((0, 0, 1024, 1024)), flatquad.Octree((0, 0, 0, 1024, 1024, 1024))
on_grid, on_octree = grid.insert_many(rects), octree.insert_many(cubes)
CALLS = {}
for name, index, boxes, handles, axes in [
    ("", grid, rects, on_grid, 2),
    ("Octree.", octree, cubes, on_octree, 3),
]:
    points = xy[:, :axes]
    CALLS.update({
        name + "pairs": lambda index=index: index.pairs(),
        name + "move_many": lambda index=index, h=handles, b=boxes: index.move_many(h, b + 1),
        name + "query_many": lambda index=index, b=boxes: index.query_many(b),
        name + "overlapping_many": lambda index=index, h=handles: index.overlapping_many(h),
        name + "query_circle_many": lambda index=index, p=points: index.query_circle_many(p, radii),
        name + "nearest_many": lambda index=index, p=points: index.nearest_many(p),
        name + "ray_cast_many": lambda index=index, p=points, a=axes: index.ray_cast_many(p, one[:, :a], lengths),
        name + "PairTracker.update": lambda index=index: flatquad.PairTracker(index).update(),
    })
CALLS.update({
    "query_bulk": lambda: grid.query_bulk(rects),
    "join": lambda: grid.join(grid),
    "BoxIndex.query_bulk": lambda: flatquad.BoxIndex(rects).query_bulk(rects),
    "join_bounds": lambda: flatquad.join_bounds(rects, rects),
})
if where == "main":
    CALLS[call]()
else:
    thread = threading.Thread(target=CALLS[call])
    thread.start()
    thread.join()
print(flatquad._native._join_thread_pool())
"""

_JOIN_SITES = [
    *(prefix + call for prefix in ("", "Octree.") for call in (
        "pairs", "move_many", "query_many", "overlapping_many", "query_circle_many",
        "nearest_many", "ray_cast_many", "PairTracker.update",
    )),
    "query_bulk", "join", "BoxIndex.query_bulk", "join_bounds",
]


def test_every_batch_call_that_takes_the_threads_joins_the_pool_first(tmp_path):
    """Each batch call that runs on the threads, made first from the main
    thread, joins the pool before rayon starts it, so the main thread is then
    the pool's thread 0; made first from another thread, it starts the pool
    without the main thread, which then cannot join: so each call does reach
    the pool, and the first half is not true by default. Two pool threads, a
    process of its own per call and thread (run side by side)."""
    script = tmp_path / "join_site.py"
    script.write_text(_JOIN_SITE_SCRIPT)
    env = {**os.environ, "RAYON_NUM_THREADS": "2"}
    runs = {
        (call, where): subprocess.Popen(
            [sys.executable, str(script), call, where],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for call in _JOIN_SITES
        for where in ("main", "thread")
    }
    joined = {}
    try:
        for key, run in runs.items():
            out, err = run.communicate(timeout=3 * TIMEOUT)
            assert run.returncode == 0, (key, err)
            joined[key] = out.strip()
    finally:
        for run in runs.values():
            run.kill()
            run.wait()
    assert {call: joined[call, "main"] for call in _JOIN_SITES} == dict.fromkeys(_JOIN_SITES, "True")
    assert {call: joined[call, "thread"] for call in _JOIN_SITES} == dict.fromkeys(_JOIN_SITES, "False")
