"""Every bad input raises the documented exception with a message naming the bad
value, and leaves the structure exactly as it was (compared byte for byte), for
every structure."""

import math
import re

import numpy as np
import pytest

import flatquad
from conftest import PARAMS, STRUCTURES

NAN, INF = math.nan, math.inf


class Populated:
    """A structure with 190 live elements, plus handles to use in bad calls."""

    def __init__(self, cls):
        self.tree = cls((0, 0, 100, 100), **PARAMS[cls][0])
        rng = np.random.default_rng(0)
        xy = rng.uniform(0, 96, (200, 2)).astype(np.float32)
        handles = self.tree.insert_many(np.hstack([xy, xy + 4]), ids=np.arange(200))
        self.tree.remove_many(handles[:10])
        self.stale = int(handles[0])
        self.live = int(handles[10])
        self.live2 = int(handles[11])

    def __getattr__(self, name):
        return getattr(self.tree, name)


@pytest.fixture
def tree(make_index):
    return Populated(make_index)


def check(tree, call, exception, pattern):
    before = tree.to_bytes()
    with pytest.raises(exception, match=pattern) as info:
        call(tree)
    assert tree.to_bytes() == before, "a call that raised changed the structure"
    tree._validate()
    return info.value


ROWS = np.array([[0, 0, 1, 1], [2, 2, 3, 3], [4, 4, 5, 5]], dtype=np.float32)

BAD_VALUES = [
    # Coordinates: NaN, infinite, inverted; the message shows the rectangle.
    (lambda t: t.insert((NAN, 0, 1, 1)), ValueError, r"invalid rectangle \(NaN, 0, 1, 1\)"),
    (lambda t: t.insert((0, 0, INF, 1)), ValueError, r"invalid rectangle \(0, 0, inf, 1\)"),
    (lambda t: t.insert((5, 0, 1, 1)), ValueError, r"invalid rectangle \(5, 0, 1, 1\).*x1 <= x2"),
    (lambda t: t.insert((0, 5, 1, 1)), ValueError, r"y1 <= y2"),
    (lambda t: t.insert((0, 0, 1e300, 1)), ValueError, r"invalid rectangle \(0, 0, inf, 1\)"),
    (lambda t: t.move(t.live, (1, 1, 0, 0)), ValueError, r"invalid rectangle \(1, 1, 0, 0\)"),
    (lambda t: t.query((0, 0, NAN, 1)), ValueError, r"invalid rectangle"),
    (lambda t: t.query_point(NAN, 1), ValueError, r"invalid point \(NaN, 1\)"),
    (lambda t: t.query_point(1, -INF), ValueError, r"invalid point \(1, -inf\)"),
    # Ids.
    (lambda t: t.insert((0, 0, 1, 1), id=-1), ValueError, r"id -1 is out of range"),
    (lambda t: t.insert((0, 0, 1, 1), id=2**32), ValueError, r"id 4294967296 is out of range"),
    (lambda t: t.insert((0, 0, 1, 1), id="7"), TypeError, r"id"),
    # Handles: stale, never issued, not a handle at all.
    (lambda t: t.remove(t.stale), KeyError, r"handle \d+ names no element"),
    (lambda t: t.remove(12345), KeyError, r"handle 12345 names no element"),
    (lambda t: t.remove(0), KeyError, r"handle 0 names no element"),
    (lambda t: t.remove(-3), KeyError, r"handle -3 names no element"),
    (lambda t: t.remove(2**70), KeyError, r"handle 1180591620717411303424 names no element"),
    (lambda t: t.move(t.stale, (0, 0, 1, 1)), KeyError, r"names no element"),
    (lambda t: t.id_of(t.stale), KeyError, r"names no element"),
    (lambda t: t.rect_of(t.stale), KeyError, r"names no element"),
    (lambda t: t.query((0, 0, 1, 1), omit=t.stale), KeyError, r"names no element"),
    (lambda t: t.query_point(1, 1, omit=t.stale), KeyError, r"names no element"),
    (lambda t: t.remove(1.0), TypeError, r"handle must be an int.*float"),
    (lambda t: t.remove("1"), TypeError, r"handle must be an int.*str"),
    (lambda t: t.remove(None), TypeError, r"handle must be an int.*NoneType"),
    # Rectangles that are not 4 numbers.
    (lambda t: t.insert((0, 0, 1)), ValueError, r"rect must have 4 numbers.*got 3"),
    (lambda t: t.insert((0, 0, 1, 1, 1)), ValueError, r"got 5"),
    (lambda t: t.insert("abcd"), TypeError, r"rect must be a sequence of 4 numbers.*str"),
    (lambda t: t.insert(5), TypeError, r"rect must be a sequence of 4 numbers.*int"),
    (lambda t: t.insert((0, 0, "1", 1)), TypeError, r"rect\[2\] must be a real number, got str"),
    # A tuple is read in place, anything else by iterating: the same messages.
    (lambda t: t.insert([0, 0, 1, None]), TypeError, r"rect\[3\] must be a real number, got NoneType"),
    (lambda t: t.query((0, "0", 1, 1)), TypeError, r"rect\[1\] must be a real number, got str"),
    (lambda t: t.query(iter((0, 0, 1))), ValueError, r"rect must have 4 numbers.*got 3"),
    (lambda t: t.query_point("x", 1), TypeError, r"x"),
    # Batches: the message names the argument and the position; `.index` is set.
    (lambda t: t.insert_many(np.array([[0, 0, 1, 1], [0, 0, NAN, 1]])), ValueError, r"rects\[1\]: invalid rectangle"),
    (lambda t: t.insert_many(ROWS[::-1, ::-1].copy()), ValueError, r"rects\[0\]: invalid rectangle \(5, 5, 4, 4\)"),
    (lambda t: t.insert_many(ROWS, ids=[1, 2]), ValueError, r"ids has 2 items but rects has 3"),
    (lambda t: t.insert_many(ROWS, ids=[1, -2, 3]), ValueError, r"ids\[1\]: id -2 is out of range"),
    (lambda t: t.insert_many(ROWS, ids=np.array([1, 2**32, 3], dtype=np.uint64)), ValueError, r"ids\[1\]: id 4294967296"),
    (lambda t: t.insert_many(ROWS, ids=-1), ValueError, r"id -1 is out of range"),
    (lambda t: t.insert_many(ROWS, ids=[1.0, 2.0, 3.0]), TypeError, r"ids must be .*got an array of dtype float64"),
    (lambda t: t.insert_many(ROWS, ids=[[1, 2, 3]]), ValueError, r"ids must be .*shape \(1, 3\)"),
    (lambda t: t.move_many([t.live, t.stale], ROWS[:2]), KeyError, r"handles\[1\]: handle \d+ names no element"),
    (lambda t: t.move_many(np.array([t.live, -7]), ROWS[:2]), KeyError, r"handles\[1\]: handle -7 names no element"),
    (lambda t: t.move_many([t.live], ROWS[:2]), ValueError, r"rects has 2 items but handles has 1"),
    (lambda t: t.move_many([t.live, t.live2], [[0, 0, 1, 1], [1, 1, 0, 0]]), ValueError, r"rects\[1\]: invalid rectangle"),
    (lambda t: t.remove_many([t.live, t.stale]), KeyError, r"handles\[1\]: handle \d+ names no element"),
    (lambda t: t.remove_many([t.live, t.live2, t.live]), KeyError, r"handles\[2\]: handle \d+ appears twice"),
    (lambda t: t.query_many(ROWS, omit=[t.live, t.live, t.stale]), KeyError, r"omit\[2\]: handle \d+ names no element"),
    (lambda t: t.query_many(ROWS, omit=[t.live]), ValueError, r"omit has 1 items but rects has 3"),
    # Wrong dtypes and shapes say what was expected.
    (lambda t: t.insert_many(np.zeros((3, 3))), ValueError, r"rects must be an array of shape \(n, 4\).*got an array of shape \(3, 3\)"),
    (lambda t: t.insert_many(np.zeros(4)), ValueError, r"shape \(4,\) \(for one rectangle, pass \[rect\]\)"),
    (lambda t: t.insert_many(np.zeros((2, 2, 4))), ValueError, r"shape \(2, 2, 4\)"),
    (lambda t: t.insert_many(np.zeros((3, 4), dtype=complex)), TypeError, r"float32.*float64.*dtype complex128"),
    (lambda t: t.insert_many(np.zeros((3, 4), dtype=bool)), TypeError, r"dtype bool"),
    (lambda t: t.insert_many([["a", "b", "c", "d"]]), TypeError, r"dtype <U1"),
    (lambda t: t.insert_many([[0, 0, 1, 1], [0, 0, 1]]), TypeError, r"rects must be .*(numpy cannot make an array|dtype object)"),
    (lambda t: t.insert_many(None), TypeError, r"dtype object"),
    (lambda t: t.query_many(np.zeros((3, 5), dtype=np.float32)), ValueError, r"shape \(3, 5\)"),
    (lambda t: t.move_many(np.array([1.0, 2.0]), ROWS[:2]), TypeError, r"handles must be a 1-D array of handles.*dtype float64"),
    (lambda t: t.move_many(np.array([[t.live]]), ROWS[:1]), ValueError, r"handles must be a 1-D array.*shape \(1, 1\)"),
    (lambda t: t.remove_many(t.live), ValueError, r"handles must be a 1-D array.*shape \(\)"),
    (lambda t: t.traverse(leaf=3), TypeError, r"leaf must be callable or None, got int"),
]


@pytest.mark.parametrize("call,exception,pattern", BAD_VALUES, ids=[str(i) for i in range(len(BAD_VALUES))])
def test_bad_input_raises_and_changes_nothing(tree, call, exception, pattern):
    check(tree, call, exception, pattern)


def test_batch_errors_carry_the_index(tree):
    err = check(
        tree,
        lambda t: t.insert_many(np.array([[0, 0, 1, 1]] * 5 + [[1, 0, 0, 0]], np.float32)),
        ValueError,
        r"rects\[5\]",
    )
    assert (err.index, err.kind) == (5, "InvalidRect")
    err = check(tree, lambda t: t.remove_many([t.live, t.stale]), KeyError, "handles")
    assert (err.index, err.kind) == (1, "InvalidHandle")


@pytest.mark.parametrize(
    "call,kind",
    [
        (lambda t: t.insert((NAN, 0, 1, 1)), "InvalidRect"),
        (lambda t: t.query_point(NAN, 1), "InvalidPoint"),
        (lambda t: t.remove(t.stale), "InvalidHandle"),
        (lambda t: t.remove(-3), "InvalidHandle"),
        (lambda t: t.query((0, 0, 1, 1), omit=t.stale), "InvalidHandle"),
        (lambda t: t.remove_many([t.live, t.live]), "DuplicateHandle"),
        (lambda t: t.move_many([t.live], ROWS), "LengthMismatch"),
        (lambda t: t.query_many(ROWS, omit=[t.live]), "LengthMismatch"),
        (lambda t: t.insert_many(ROWS, ids=[1, 2]), "LengthMismatch"),
        (lambda t: t.__setstate__(b"junk"), "InvalidBytes"),
    ],
)
def test_errors_name_the_core_kind(tree, call, kind):
    # err.kind is the core's ErrorKind name, as the shared vectors and the
    # other bindings name it; the class follows from it (one table).
    err = check(tree, call, (ValueError, KeyError), None)
    assert err.kind == kind
    assert isinstance(err, KeyError if kind in ("InvalidHandle", "DuplicateHandle") else ValueError)


@pytest.mark.parametrize("cls", STRUCTURES, ids=lambda cls: cls.__name__)
@pytest.mark.parametrize(
    "bounds,pattern",
    [
        ((0, 0, 0, 10), r"invalid world \(0, 0, 0, 10\): it must be finite with x1 < x2 and y1 < y2"),
        ((0, 0, -1, 10), r"invalid world \(0, 0, -1, 10\)"),
        ((5, 0, 1, 10), r"invalid world"),  # corners, not (x, y, width, height)
        ((NAN, 0, 1, 10), r"invalid world \(NaN, 0, 1, 10\)"),
        ((0, 0, INF, 10), r"invalid world"),
        ((0, 0, 1e39, 1), r"invalid world \(0, 0, inf, 1\)"),  # too wide for float32
        ((-3e38, 0, 3e38, 1), r"invalid world"),  # its width is not finite
    ],
)
def test_bad_world(cls, bounds, pattern):
    with pytest.raises(ValueError, match=pattern) as info:
        cls(bounds)
    assert info.value.kind == "InvalidWorld"


@pytest.mark.parametrize("cls", STRUCTURES, ids=lambda cls: cls.__name__)
def test_bounds_that_are_not_four_numbers(cls):
    with pytest.raises(ValueError, match=r"bounds must have 4 numbers \(x1, y1, x2, y2\), got 3"):
        cls((0, 0, 1))
    with pytest.raises(TypeError, match="bounds must be a sequence of 4 numbers"):
        cls(None)


@pytest.mark.parametrize(
    "args,pattern",
    [
        (((0, 0, 1, 1), 0), r"invalid parameter max_elements = 0: expected at least 1"),
        (((0, 0, 1, 1), -1), r"invalid parameter max_elements = -1: expected an unsigned 32-bit integer"),
        (((0, 0, 1, 1), 8, 31), r"invalid parameter max_depth = 31: expected at most 30"),
        (((0, 0, 1, 1), 8, -1), r"invalid parameter max_depth = -1"),
    ],
)
def test_bad_quadtree_parameters(args, pattern):
    with pytest.raises(ValueError, match=pattern) as info:
        flatquad.Quadtree(*args)
    assert info.value.kind == "InvalidParameter"


@pytest.mark.parametrize("extent", [0, -1.0, float("nan"), float("inf"), -float("inf")])
def test_bad_max_extent(extent):
    with pytest.raises(ValueError, match="invalid parameter max_extent") as info:
        flatquad.LooseQuadtree((0, 0, 1, 1), 8, 8, max_extent=extent)
    assert info.value.kind == "InvalidParameter"
    with pytest.raises(TypeError):
        flatquad.LooseQuadtree((0, 0, 1, 1), max_extent="big")


def test_max_extent_keeps_large_elements_apart_and_answers_alike():
    plain = flatquad.LooseQuadtree((0, 0, 100, 100))
    bounded = flatquad.LooseQuadtree((0, 0, 100, 100), max_extent=2)
    assert (plain.max_extent, bounded.max_extent) == (None, 2.0)
    assert "max_extent=2" in repr(bounded)
    rects = [(1, 1, 2, 2), (0, 0, 60, 3), (1.5, 1.5, 1.5, 1.5), (50, 2, 90, 90)]
    for tree in (plain, bounded):
        tree.insert_many(rects)
    assert sorted(map(sorted, plain.pairs().tolist())) == sorted(map(sorted, bounded.pairs().tolist()))
    assert flatquad.LooseQuadtree.from_bytes(bounded.to_bytes()).max_extent == 2.0


def test_bad_construction_types():
    with pytest.raises(TypeError):
        flatquad.Quadtree((0, 0, 1, 1), max_elements=2.5)


def test_bad_snapshots(make_index):
    good = make_index((0, 0, 10, 10))
    good.insert((1, 1, 2, 2))
    data = good.to_bytes()
    for bad in [b"", b"nonsense", data[:-1], data[:10], data + b"\0"]:
        with pytest.raises(ValueError, match="invalid snapshot bytes"):
            make_index.from_bytes(bad)
        with pytest.raises(ValueError, match="invalid snapshot bytes"):
            flatquad.SpatialIndex.from_bytes(bad)
    before = good.to_bytes()
    with pytest.raises(ValueError, match="invalid snapshot bytes"):
        good.__setstate__(b"junk")
    assert good.to_bytes() == before
    with pytest.raises(TypeError):
        make_index.from_bytes("text")


def test_stale_after_clear(make_index):
    tree = make_index((0, 0, 10, 10))
    h = tree.insert((1, 1, 2, 2))
    tree.clear()
    assert h not in tree and len(tree) == 0
    with pytest.raises(KeyError, match=re.escape(f"handle {h} names no element")):
        tree.remove(h)
    # New elements never get an old handle back.
    assert tree.insert((1, 1, 2, 2)) != h


def test_a_panic_on_a_worker_thread_is_the_same_exception_as_on_this_one():
    """A panic inside flatquad (a bug, never bad input) comes back as PyO3's
    PanicException wherever it happened: on this thread, or on a worker thread
    of the batch calls' pool, whose panic rayon hands back to this one; Python
    is not aborted."""
    with pytest.raises(BaseException) as here:
        flatquad._native._panic_for_tests(False)
    with pytest.raises(BaseException) as there:
        flatquad._native._panic_for_tests(True)
    assert type(here.value).__name__ == "PanicException"
    assert type(there.value) is type(here.value)
    assert str(here.value) == "deliberate test panic"
    # The hook says where its panic ran: on a worker, not on this thread.
    assert str(there.value) == "deliberate test panic on a worker thread"


@pytest.mark.parametrize("on_worker", [False, True])
@pytest.mark.parametrize("make", [*STRUCTURES, flatquad.Octree], ids=lambda c: c.__name__)
def test_a_panic_while_changing_an_index_poisons_it(make, on_worker):
    """A panic inside flatquad under an index's lock: in a read-only call the
    index is left as it was and stays usable; in a call that was changing it
    the index may be half-changed, so every later call on it raises
    RuntimeError (kind "Poisoned"), as C's and Node's poisoned indexes refuse
    every call. Other indexes are not touched."""
    three_d = make is flatquad.Octree
    world = (0, 0, 0, 100, 100, 100) if three_d else (0, 0, 100, 100)
    box = (1, 1, 1, 4, 4, 4) if three_d else (1, 1, 4, 4)
    index, other = make(world), make(world)
    handle = index.insert(box)
    other.insert(box)
    before = index.to_bytes()
    with pytest.raises(BaseException) as reading:
        flatquad._native._panic_for_tests(on_worker, index)
    assert type(reading.value).__name__ == "PanicException"
    assert index.to_bytes() == before
    assert len(index) == 1 and handle in index

    with pytest.raises(BaseException) as writing:
        flatquad._native._panic_for_tests(on_worker, index, mutating=True)
    assert type(writing.value).__name__ == "PanicException"
    calls = [
        len,
        repr,
        lambda i: handle in i,
        lambda i: i.insert(box),
        lambda i: i.remove(handle),
        lambda i: i.move_many(np.array([handle]), np.array([box], dtype=np.float32)),
        lambda i: i.pairs(),
        lambda i: i.to_bytes(),
        lambda i: i.kind,
        lambda i: i.cleanup(),
        lambda i: flatquad.PairTracker(i).update(),
    ]
    for call in calls:
        with pytest.raises(RuntimeError, match="can no longer be used") as refused:
            call(index)
        assert refused.value.kind == "Poisoned"
    assert len(other) == 1 and other.pairs().shape == (0, 2)


@pytest.mark.parametrize("on_worker", [False, True])
@pytest.mark.parametrize("make", [*STRUCTURES, flatquad.Octree], ids=lambda c: c.__name__)
def test_a_panic_that_stops_moves_halfway_finishes_them(make, on_worker):
    """A panic inside flatquad (a bug) that stops a batch of moves halfway,
    on this thread or a worker: the moves are finished from the arguments, the
    call raises RuntimeError (kind "Panic"), and the index, whole and not
    poisoned, holds every element at its new box and goes on."""
    three_d = make is flatquad.Octree
    dims = 3 if three_d else 2
    index = make((0, 0, 0, 100, 100, 100) if three_d else (0, 0, 100, 100))
    rng = np.random.default_rng(11)
    n = 2000

    def boxes():
        lo = rng.uniform(-10, 105, size=(n, dims)).astype(np.float32)
        return np.hstack([lo, lo + rng.uniform(0, 3, size=(n, dims)).astype(np.float32)])

    handles = index.insert_many(boxes())
    moved = boxes()
    with pytest.raises(RuntimeError, match="the move was finished") as stopped:
        flatquad._native._panic_in_moves_for_tests(index, handles, moved, n // 2, on_worker)
    assert stopped.value.kind == "Panic"
    assert len(index) == n
    assert [index.rect_of(h) for h in handles] == [tuple(map(float, b)) for b in moved]
    index._validate()
    hits = index.query(tuple(map(float, moved[0])))
    assert handles[0] in hits
    again = boxes()
    index.move_many(handles, again)
    assert index.rect_of(handles[-1]) == tuple(map(float, again[-1]))


@pytest.mark.parametrize("on_worker", [False, True])
@pytest.mark.parametrize("make", [flatquad.Grid, flatquad.Octree], ids=lambda c: c.__name__)
def test_a_panic_while_updating_a_tracker_poisons_the_tracker(make, on_worker):
    """A panic inside flatquad while a PairTracker was being changed (as in
    update) may leave it half-updated: every later call on it raises
    RuntimeError (kind "Poisoned"), as C's poisoned tracker refuses. The index
    it follows, and another tracker of it, are untouched."""
    three_d = make is flatquad.Octree
    world = (0, 0, 0, 100, 100, 100) if three_d else (0, 0, 100, 100)
    index = make(world)
    a = index.insert((1, 1, 1, 4, 4, 4) if three_d else (1, 1, 4, 4))
    b = index.insert((2, 2, 2, 5, 5, 5) if three_d else (2, 2, 5, 5))
    tracker, other = flatquad.PairTracker(index), flatquad.PairTracker(index)
    assert tracker.update()[0].tolist() == [sorted([a, b])]
    with pytest.raises(BaseException) as panicked:
        flatquad._native._panic_for_tests(on_worker, tracker)
    assert type(panicked.value).__name__ == "PanicException"
    # The hook says where its panic ran.
    where = " on a worker thread" if on_worker else ""
    assert str(panicked.value) == "deliberate test panic" + where
    for call in [lambda t: t.update(), lambda t: t.reset(), lambda t: t.pair_count, repr]:
        with pytest.raises(RuntimeError, match="PairTracker can no longer be used") as refused:
            call(tracker)
        assert refused.value.kind == "Poisoned"
    assert other.update()[0].tolist() == [sorted([a, b])] and other.pair_count == 1
    assert len(index) == 2 and index.pairs().shape == (1, 2)
