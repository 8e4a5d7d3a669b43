"""flatquad.PairTracker: random sequences of every change an index takes
(moves, batch moves, inserts, removals whose slots are reused, filter changes,
cleanup, clear, reset), each update checked against the brute-force set
difference of the pair sets, on every structure and the Octree; then the
refusals, the reference the tracker keeps, and threads."""

import gc
import pickle
import threading
import weakref

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import flatquad
from conftest import PARAMS, STRUCTURES

WORLD2 = (0.0, 0.0, 64.0, 64.0)
WORLD3 = (0.0, 0.0, 0.0, 64.0, 64.0, 64.0)

#: (class, world, parameters, axes): every 2D structure with each parameter
#: set worth testing, and the octree (small leaves, so it splits).
SUBJECTS = [(cls, WORLD2, params, 2) for cls in STRUCTURES for params in PARAMS[cls]] + [
    (flatquad.Octree, WORLD3, {"max_elements": 2, "max_depth": 5}, 3),
    (flatquad.Octree, WORLD3, {}, 3),
    # Fat bounds: the events stay those of the own boxes.
    (flatquad.Quadtree, WORLD2, {"max_elements": 2, "max_depth": 5, "margin": 1.5}, 2),
    (flatquad.Grid, WORLD2, {"columns": 8, "rows": 8, "margin": 1.5}, 2),
    (flatquad.Octree, WORLD3, {"max_elements": 2, "margin": 1.5}, 3),
]


def subject_id(subject):
    cls, _, params, _ = subject
    return cls.__name__ + "".join(f"-{k}={v}" for k, v in params.items())


# Corners on a coarse grid (edges touch often) or anywhere, in and around the world.
coordinate = st.one_of(st.integers(-4, 68).map(float), st.floats(-10, 74, allow_nan=False, width=32))


@st.composite
def boxes(draw, axes):
    lo = [draw(coordinate) for _ in range(axes)]
    size = [draw(st.sampled_from([0.0, 1.0, 3.0, 8.0]) | st.floats(0, 20, width=32)) for _ in range(axes)]
    return tuple(lo) + tuple(a + s for a, s in zip(lo, size))


def ops(axes):
    """One change to the index, or an update of the tracker."""
    box = boxes(axes)
    # Few filter bits, so that pairs start and stop colliding often.
    bits = st.integers(0, 3)
    return st.one_of(
        st.tuples(st.just("insert"), box),
        st.tuples(st.just("insert_many"), st.lists(box, max_size=6)),
        st.tuples(st.just("remove"), st.integers(0, 10**6)),
        st.tuples(st.just("remove_many"), st.lists(st.integers(0, 10**6), max_size=4)),
        st.tuples(st.just("move"), st.integers(0, 10**6), box),
        st.tuples(st.just("move_many"), st.lists(st.tuples(st.integers(0, 10**6), box), max_size=8)),
        st.tuples(st.just("set_filter"), st.integers(0, 10**6), bits, bits),
        st.tuples(st.just("set_filters"), st.lists(st.tuples(st.integers(0, 10**6), bits, bits), max_size=4)),
        st.tuples(st.just("cleanup")),
        st.tuples(st.just("clear")),
        st.tuples(st.just("reset")),
        # Updates often, so that most updates see a few changes.
        st.tuples(st.just("update")),
        st.tuples(st.just("update")),
        st.tuples(st.just("update")),
    )


def f32(box):
    return tuple(float(np.float32(v)) for v in box)


class Model:
    """What the index holds, by handle: the box as float32 and the filter."""

    def __init__(self, axes):
        self.axes = axes
        self.boxes = {}
        self.filters = {}

    def add(self, handle, box):
        assert handle not in self.boxes
        self.boxes[handle] = f32(box)
        self.filters[handle] = (0xFFFFFFFF, 0xFFFFFFFF)

    def drop(self, handle):
        del self.boxes[handle], self.filters[handle]

    def pick(self, i):
        """The live handle number ``i`` (modulo the count), or None."""
        live = sorted(self.boxes)
        return live[i % len(live)] if live else None

    def pairs(self):
        """Every overlapping pair whose filters collide, as (lower, higher)."""
        handles = sorted(self.boxes)
        if not handles:
            return set()
        b = np.array([self.boxes[h] for h in handles], dtype=np.float32)
        lo, hi = b[:, : self.axes], b[:, self.axes :]
        meet = np.all((lo[:, None, :] <= hi[None, :, :]) & (lo[None, :, :] <= hi[:, None, :]), axis=2)
        f = np.array([self.filters[h] for h in handles], dtype=np.uint64)
        cat, mask = f[:, 0], f[:, 1]
        collide = ((cat[:, None] & mask[None, :]) != 0) & ((cat[None, :] & mask[:, None]) != 0)
        i, j = np.nonzero(np.triu(meet & collide, k=1))
        # Rows come sorted by handle, so handles[i] < handles[j].
        return {(handles[a], handles[b]) for a, b in zip(i, j)}


def as_pairs(array):
    """An update's array as a list of (a, b), after checking its form: int64,
    shape (k, 2), each row ascending, rows sorted and distinct."""
    assert isinstance(array, np.ndarray) and array.dtype == np.int64, array
    assert array.ndim == 2 and array.shape[1] == 2, array.shape
    rows = [tuple(r) for r in array.tolist()]
    assert all(a < b for a, b in rows), "a pair not in ascending order"
    assert rows == sorted(set(rows)), "rows not sorted, or one twice"
    return rows


def apply(index, model, op):
    """Makes the change on the index and in the model."""
    kind = op[0]
    if kind == "insert":
        model.add(index.insert(op[1]), op[1])
    elif kind == "insert_many":
        if op[1]:
            for handle, box in zip(index.insert_many(np.array(op[1], dtype=np.float64)).tolist(), op[1]):
                model.add(handle, box)
    elif kind == "remove":
        handle = model.pick(op[1])
        if handle is not None:
            index.remove(handle)
            model.drop(handle)
    elif kind == "remove_many":
        handles = sorted({model.pick(i) for i in op[1]} - {None})
        index.remove_many(np.array(handles, dtype=np.int64))
        for handle in handles:
            model.drop(handle)
    elif kind == "move":
        handle = model.pick(op[1])
        if handle is not None:
            index.move(handle, op[2])
            model.boxes[handle] = f32(op[2])
    elif kind == "move_many":
        moves = {}  # one move per handle: the last drawn
        for i, box in op[1]:
            handle = model.pick(i)
            if handle is not None:
                moves[handle] = box
        if moves:
            index.move_many(np.array(list(moves), dtype=np.int64), np.array(list(moves.values())))
            for handle, box in moves.items():
                model.boxes[handle] = f32(box)
    elif kind == "set_filter":
        handle = model.pick(op[1])
        if handle is not None:
            index.set_filter(handle, op[2], op[3])
            model.filters[handle] = (op[2], op[3])
    elif kind == "set_filters":
        filters = {}
        for i, category, mask in op[1]:
            handle = model.pick(i)
            if handle is not None:
                filters[handle] = (category, mask)
        if filters:
            handles = np.array(list(filters), dtype=np.int64)
            categories = np.array([c for c, _ in filters.values()], dtype=np.uint32)
            masks = np.array([m for _, m in filters.values()], dtype=np.uint32)
            index.set_filters(handles, categories, masks)
            model.filters.update(filters)
    elif kind == "cleanup":
        index.cleanup()
    elif kind == "clear":
        index.clear()
        model.boxes.clear()
        model.filters.clear()
    else:
        raise AssertionError(op)


@pytest.mark.parametrize("subject", SUBJECTS, ids=subject_id)
@given(data=st.data())
def test_updates_are_the_set_difference_of_the_pair_sets(subject, data):
    cls, world, params, axes = subject
    index = cls(world, **params)
    model = Model(axes)
    # Some elements before the tracker exists: its first update reports their pairs.
    for box in data.draw(st.lists(boxes(axes), max_size=12), label="initial"):
        model.add(index.insert(box), box)
    tracker = flatquad.PairTracker(index)
    assert tracker.pair_count == 0
    seen = set()  # the pairs as of the last update
    updates = 0
    for op in data.draw(st.lists(ops(axes), min_size=1, max_size=40), label="ops") + [("update",)]:
        if op[0] == "reset":
            tracker.reset()
            seen = set()
        elif op[0] == "update":
            began, ended = (as_pairs(a) for a in tracker.update())
            now = model.pairs()
            assert set(began) == now - seen, f"update {updates}: began"
            assert set(ended) == seen - now, f"update {updates}: ended"
            assert tracker.pair_count == len(now)
            seen = now
            updates += 1
        else:
            apply(index, model, op)
    # The index agrees with the model too: the tracker was checked against
    # the right pairs.
    assert {tuple(sorted(p)) for p in index.pairs().tolist()} == model.pairs()


#: One subject per class.
FIRSTS = [next(s for s in SUBJECTS if s[0] is cls) for cls in STRUCTURES + [flatquad.Octree]]


@pytest.mark.parametrize("subject", FIRSTS, ids=subject_id)
def test_a_reused_slot_ends_the_old_pairs_and_begins_the_new(subject):
    cls, world, params, axes = subject
    index = cls(world, **params)
    box = (0.0,) * axes + (4.0,) * axes
    a, b = index.insert(box), index.insert(box)
    tracker = flatquad.PairTracker(index)
    (began, ended) = tracker.update()
    assert began.tolist() == [[a, b]] and ended.tolist() == []
    index.remove(b)
    c = index.insert(box)  # most likely b's slot, under a new handle
    assert c != b
    began, ended = tracker.update()
    assert began.tolist() == [sorted([a, c])]
    assert ended.tolist() == [[a, b]]  # under the handle b had
    assert tracker.pair_count == 1


def test_filters_and_touching():
    index = flatquad.Quadtree(WORLD2)
    a = index.insert((0, 0, 1, 1))
    b = index.insert((1, 1, 2, 2))  # touches a at a corner: a pair
    tracker = flatquad.PairTracker(index)
    assert tracker.update()[0].tolist() == [[a, b]]
    index.set_filter(a, 1, 2)  # a collides only with category 2; b is every category
    began, ended = tracker.update()
    assert began.tolist() == [] and ended.tolist() == []  # b's category has bit 2: still a pair
    index.set_filter(b, 4, 0xFFFFFFFF)
    began, ended = tracker.update()
    assert began.tolist() == [] and ended.tolist() == [[a, b]]
    assert tracker.pair_count == 0
    index.set_filter(b, 2, 1)
    assert tracker.update()[0].tolist() == [[a, b]]


def test_reset_reports_every_pair_again():
    index = flatquad.Grid(WORLD2)
    handles = index.insert_many(np.array([[0, 0, 5, 5], [4, 4, 9, 9], [8, 8, 12, 12]], dtype=np.float32))
    tracker = flatquad.PairTracker(index)
    first, _ = tracker.update()
    assert first.tolist() == [[handles[0], handles[1]], [handles[1], handles[2]]]
    assert [len(a) for a in tracker.update()] == [0, 0]
    tracker.reset()
    assert tracker.pair_count == 0
    began, ended = tracker.update()
    assert began.tolist() == first.tolist() and ended.tolist() == []


@pytest.mark.parametrize(
    "bad", [1, None, "grid", flatquad.Grid, np.zeros((2, 4)), flatquad.BoxIndex(np.zeros((1, 4)))], ids=repr
)
def test_anything_but_an_index_is_a_type_error(bad):
    with pytest.raises(TypeError, match="index must be a flatquad Quadtree, Grid, LooseGrid, LooseQuadtree or Octree"):
        flatquad.PairTracker(bad)


def test_a_tracker_is_not_an_index_and_takes_one_argument():
    tracker = flatquad.PairTracker(flatquad.Grid(WORLD2))
    with pytest.raises(TypeError, match="not PairTracker"):
        flatquad.PairTracker(tracker)
    with pytest.raises(TypeError):
        flatquad.PairTracker()
    with pytest.raises(TypeError):
        flatquad.PairTracker(flatquad.Grid(WORLD2), flatquad.Grid(WORLD2))


def test_a_tracker_cannot_be_pickled_or_copied():
    # It follows one live index: a copy of it would follow nothing.
    tracker = flatquad.PairTracker(flatquad.Grid(WORLD2))
    with pytest.raises(TypeError):
        pickle.dumps(tracker)


def test_the_tracker_keeps_its_index_alive():
    index = flatquad.Quadtree(WORLD2)
    a, b = index.insert((0, 0, 2, 2)), index.insert((1, 1, 3, 3))
    alive = weakref.ref(index)
    tracker = flatquad.PairTracker(index)
    assert tracker.index is index
    del index
    gc.collect()
    assert alive() is not None
    assert tracker.update()[0].tolist() == [[a, b]]
    del tracker
    gc.collect()
    assert alive() is None


def test_repr_names_the_index_and_the_count():
    index = flatquad.Octree(WORLD3)
    index.insert((0, 0, 0, 1, 1, 1))
    index.insert((1, 1, 1, 2, 2, 2))
    tracker = flatquad.PairTracker(index)
    assert repr(tracker) == "<flatquad.PairTracker index=Octree pair_count=0>"
    tracker.update()
    assert repr(tracker) == "<flatquad.PairTracker index=Octree pair_count=1>"


def test_update_inside_the_index_traverse_callback():
    # The traverse callback holds the index's read lock: update reads it again.
    index = flatquad.Quadtree(WORLD2)
    a, b = index.insert((0, 0, 2, 2)), index.insert((1, 1, 3, 3))
    tracker = flatquad.PairTracker(index)
    seen = []
    index.traverse(None, lambda *leaf: seen.append(tracker.update()[0].tolist()))
    assert seen == [[[a, b]]]  # one leaf: the root
    # ...but cannot change it from there.
    with pytest.raises(RuntimeError):
        index.traverse(None, lambda *leaf: index.move(a, (5, 5, 6, 6)))


def test_threads_updating_one_tracker_while_the_index_moves():
    # Updates are serialised: whatever order the threads got their events in,
    # each pair began once more than it ended if it overlaps at the end, as
    # often as it ended otherwise.
    rng = np.random.default_rng(7)
    index = flatquad.Grid(WORLD2, columns=8, rows=8)
    n = 300

    def rects():
        corner = rng.uniform(0, 60, (n, 2))
        return np.concatenate([corner, corner + 4], axis=1).astype(np.float32)

    handles = index.insert_many(rects())
    frames = [rects() for _ in range(40)]
    tracker = flatquad.PairTracker(index)
    events = []
    stop = threading.Event()

    def updater():
        while not stop.is_set():
            events.append(tracker.update())

    threads = [threading.Thread(target=updater) for _ in range(3)]
    for t in threads:
        t.start()
    for frame in frames:
        index.move_many(handles, frame)
    stop.set()
    for t in threads:
        t.join()
    events.append(tracker.update())
    net = {}
    for began, ended in events:
        for a, b in began.tolist():
            net[(a, b)] = net.get((a, b), 0) + 1
        for a, b in ended.tolist():
            net[(a, b)] = net.get((a, b), 0) - 1
    final = {tuple(sorted(p)) for p in index.pairs().tolist()}
    assert {p for p, k in net.items() if k == 1} == final
    assert all(k in (0, 1) for k in net.values())
    assert tracker.pair_count == len(final)


def test_docstring_example():
    import doctest

    tests = doctest.DocTestFinder().find(flatquad.PairTracker, "PairTracker", globs={"flatquad": flatquad})
    assert sum(len(t.examples) for t in tests) > 0
    runner = doctest.DocTestRunner()
    for test in tests:
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


@pytest.mark.parametrize("subject", FIRSTS, ids=subject_id)
def test_large_frames_with_none_a_few_or_all_moving(subject):
    # Thousands of elements: all moving takes the tracker's (parallel) pair
    # walk, a few moving its per-element queries; both are the difference of
    # consecutive pairs() (itself checked against brute force elsewhere).
    cls, world, params, axes = subject
    rng = np.random.default_rng(3)
    n, side = 3000, 1.5
    index = cls(world, **params)

    def frame(corners):
        return np.hstack([corners, corners + side]).astype(np.float32)

    corners = rng.uniform(0, 62, (n, axes))
    handles = index.insert_many(frame(corners))
    tracker = flatquad.PairTracker(index)
    before = set()
    for share in [1.0, 0.0, 0.02, 1.0, 0.3, 0.7, 0.001, 1.0]:
        moving = rng.random(n) < share
        corners[moving] = np.clip(corners[moving] + rng.uniform(-1, 1, (moving.sum(), axes)), 0, 62)
        index.move_many(handles[moving], frame(corners[moving]))
        index.cleanup()
        now = {tuple(sorted(p)) for p in index.pairs().tolist()}
        began, ended = (set(as_pairs(a)) for a in tracker.update())
        assert began == now - before and ended == before - now, share
        assert tracker.pair_count == len(now) > 0
        before = now
