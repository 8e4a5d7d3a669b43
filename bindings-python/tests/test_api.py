"""The Python surface: types returned, inputs accepted, the container protocol."""

import re
import weakref

import numpy as np
import pytest

import flatquad


def test_basics():
    tree = flatquad.Quadtree((0, 0, 100, 50))
    assert (tree.bounds, tree.max_elements, tree.max_depth) == ((0.0, 0.0, 100.0, 50.0), 8, 8)
    assert repr(tree) == "<flatquad.Quadtree bounds=(0.0, 0.0, 100.0, 50.0) max_elements=8 max_depth=8 len=0>"
    a = tree.insert((10, 10, 20, 20))
    b = tree.insert([20, 20, 30, 30], id=7)
    c = tree.insert(np.array([50, 5, 50, 5], dtype=np.float64))  # a point
    assert all(type(h) is int and 0 < h < 2**53 for h in (a, b, c))
    assert len({a, b, c}) == 3
    assert len(tree) == 3 and bool(tree)
    assert a in tree and 12345 not in tree and "x" not in tree and -1 not in tree and None not in tree
    assert sorted(tree) == sorted([a, b, c])
    assert (tree.id_of(a), tree.id_of(b)) == (0, 7)
    assert tree.rect_of(c) == (50.0, 5.0, 50.0, 5.0)
    assert tree.query((0, 0, 15, 15)) == [a]
    assert sorted(tree.query((20, 20, 20, 20))) == sorted([a, b])  # touching counts
    assert tree.query((20, 20, 20, 20), omit=a) == [b]
    assert tree.query_point(50, 5) == [c]
    assert tree.query_point(np.float32(20), 20, omit=b) == [a]
    assert tree.query((0.5, 0.5, 1, 1)) == []
    pairs = tree.pairs()
    assert pairs.dtype == np.int64 and pairs.shape == (1, 2) and sorted(pairs[0].tolist()) == [a, b]
    tree.move(b, (40, 40, 45, 45))
    assert tree.pairs().shape == (0, 2)
    tree.remove(a)
    assert a not in tree and len(tree) == 2
    tree.cleanup()
    tree.clear()
    assert len(tree) == 0 and not tree and list(tree) == []
    assert "len=0" in repr(tree)
    assert weakref.ref(tree)() is tree


def test_version():
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", flatquad.__version__)


def test_float32_bounds_and_storage():
    tree = flatquad.Quadtree((0.1, 0.2, 10, 10))
    assert tree.bounds[0] == float(np.float32(0.1))
    h = tree.insert((0.1, 0.2, 0.3, 0.4))
    assert tree.rect_of(h) == tuple(float(np.float32(v)) for v in (0.1, 0.2, 0.3, 0.4))


def test_handles_and_ids_are_exact_in_float64_and_int64():
    tree = flatquad.Quadtree((0, 0, 10, 10))
    handles = tree.insert_many(np.zeros((1000, 4), np.float32))
    assert (handles.astype(np.float64).astype(np.int64) == handles).all()


@pytest.mark.parametrize(
    "rects",
    [
        [(0, 0, 1, 1), (2, 2, 3, 3)],
        ((0, 0, 1, 1), (2, 2, 3, 3)),
        np.array([[0, 0, 1, 1], [2, 2, 3, 3]], dtype=np.float32),
        np.array([[0, 0, 1, 1], [2, 2, 3, 3]], dtype=np.float64),
        np.array([[0, 0, 1, 1], [2, 2, 3, 3]], dtype=np.int32),
        np.array([[0, 0, 1, 1], [2, 2, 3, 3]], dtype=np.float16),
        np.array([[0, 0, 1, 1], [2, 2, 3, 3]], dtype=">f4"),  # big-endian
        np.asfortranarray(np.array([[0, 0, 1, 1], [2, 2, 3, 3]], dtype=np.float32)),
        np.array([[0, 0, 1, 1, 9], [2, 2, 3, 3, 9]], dtype=np.float32)[:, :4],  # strided
        np.array([[0, 0, 1, 1], [9, 9, 9, 9], [2, 2, 3, 3]], dtype=np.float32)[::2],
    ],
    ids=["list", "tuple", "f32", "f64", "i32", "f16", "big-endian", "fortran", "strided-cols", "strided-rows"],
)
def test_rect_array_forms(rects):
    tree = flatquad.Quadtree((0, 0, 10, 10))
    handles = tree.insert_many(rects)
    assert handles.dtype == np.int64 and handles.shape == (2,)
    assert [tree.rect_of(h) for h in handles] == [(0.0, 0.0, 1.0, 1.0), (2.0, 2.0, 3.0, 3.0)]
    tree.move_many(handles, rects)
    offsets, hits = tree.query_many(rects)
    assert offsets.tolist() == [0, 1, 2] and hits.tolist() == handles.tolist()


def test_float32_input_is_not_modified_or_kept():
    rects = np.array([[0, 0, 1, 1], [2, 2, 3, 3]], dtype=np.float32)
    before = rects.copy()
    tree = flatquad.Quadtree((0, 0, 10, 10))
    handles = tree.insert_many(rects)
    rects[:] = 5  # the tree copied the values in: changing the array later is fine
    assert tree.rect_of(handles[0]) == (0.0, 0.0, 1.0, 1.0)
    assert before.flags.writeable
    readonly = before.copy()
    readonly.flags.writeable = False
    tree.move_many(handles, readonly)  # read-only arrays are accepted


@pytest.mark.parametrize(
    "make",
    [
        lambda h: h,
        lambda h: h.tolist(),
        lambda h: h.astype(np.uint64),
        lambda h: h.astype(">i8"),
        lambda h: np.repeat(h, 2)[::2],
        lambda h: tuple(h.tolist()),
    ],
    ids=["int64", "list", "uint64", "big-endian", "strided", "tuple"],
)
def test_handle_array_forms(make):
    tree = flatquad.Quadtree((0, 0, 10, 10))
    handles = tree.insert_many([(0, 0, 1, 1), (2, 2, 3, 3)])
    tree.move_many(make(handles), [(5, 5, 6, 6), (7, 7, 8, 8)])
    assert tree.rect_of(handles[1]) == (7.0, 7.0, 8.0, 8.0)
    offsets, hits = tree.query_many([(5, 5, 6, 6), (7, 7, 8, 8)], omit=make(handles))
    assert hits.tolist() == []
    tree.remove_many(make(handles))
    assert len(tree) == 0


@pytest.mark.parametrize(
    "ids,expect",
    [
        (None, [0, 0, 0]),
        (5, [5, 5, 5]),
        (np.uint8(3), [3, 3, 3]),
        ([1, 2, 3], [1, 2, 3]),
        (np.array([1, 2, 2**32 - 1], dtype=np.uint32), [1, 2, 2**32 - 1]),
        (np.array([1, 2, 3], dtype=np.int8), [1, 2, 3]),
        (np.array([4, 0, 5, 0, 6], dtype=np.uint32)[::2], [4, 5, 6]),
        (np.array([1, 2, 2**32 - 1], dtype=np.uint64), [1, 2, 2**32 - 1]),
    ],
)
def test_id_forms(ids, expect):
    tree = flatquad.Quadtree((0, 0, 10, 10))
    handles = tree.insert_many(np.zeros((3, 4)), ids=ids)
    assert [tree.id_of(h) for h in handles] == expect
    elements = tree.elements()
    assert sorted(elements.ids.tolist()) == sorted(expect)


def test_empty_batches():
    tree = flatquad.Quadtree((0, 0, 10, 10))
    for empty in ([], np.zeros((0, 4), np.float32), np.zeros((0, 4)), np.array([])):
        handles = tree.insert_many(empty)
        assert handles.dtype == np.int64 and handles.shape == (0,)
        tree.move_many([], empty)
        tree.remove_many([])
        offsets, hits = tree.query_many(empty)
        assert offsets.tolist() == [0] and hits.shape == (0,)
    assert tree.pairs().shape == (0, 2)
    e = tree.elements()
    assert e.handles.shape == (0,) and e.rects.shape == (0, 4) and e.ids.shape == (0,)
    assert len(tree) == 0


def test_nodes_and_stats_of_an_empty_tree():
    tree = flatquad.Quadtree((0, 0, 10, 20))
    nodes = tree.nodes()
    assert nodes.rects.tolist() == [[0.0, 0.0, 10.0, 20.0]]
    assert nodes.is_leaf.tolist() == [True] and nodes.counts.tolist() == [0]
    indices, rects, depths, is_leaf, counts = nodes  # a plain tuple too
    assert set(tree.stats()) == {
        "elements",
        "nodes",
        "leaves",
        "empty_leaves",
        "max_depth_reached",
        "element_links",
        "bytes",
    }


def test_keyword_arguments():
    tree = flatquad.Quadtree(bounds=(0, 0, 10, 10), max_elements=2, max_depth=3)
    h = tree.insert(rect=(1, 1, 2, 2), id=3)
    assert tree.query(rect=(0, 0, 5, 5), omit=None) == [h]
    assert tree.query_point(x=1, y=1, omit=h) == []
    handles = tree.insert_many(rects=[(3, 3, 4, 4)], ids=[9])
    tree.move_many(handles=handles, rects=[(4, 4, 5, 5)])
    tree.query_many(rects=[(0, 0, 9, 9)], omit=[h])
    tree.remove_many(handles=handles)
    tree.traverse(branch=None, leaf=None)


def test_docstrings():
    assert "bounds" in flatquad.Quadtree.__doc__
    for name in ["insert", "insert_many", "move_many", "remove_many", "query", "query_point",
                 "query_many", "pairs", "traverse", "nodes", "stats", "to_bytes", "from_bytes"]:
        assert getattr(flatquad.Quadtree, name).__doc__, name
    assert "rects, ids=None)" in flatquad.Quadtree.insert_many.__text_signature__


def test_float32_and_int64_inputs_are_read_in_place():
    # numpy reports its allocations to tracemalloc: a batch call on arrays in the
    # core's layout allocates no copy of them; a float64 array is converted once.
    import tracemalloc

    n = 200_000
    xy = np.random.default_rng(0).uniform(0, 1000, (n, 2)).astype(np.float32)
    rects32 = np.hstack([xy, xy + 1])
    tree = flatquad.Quadtree((0, 0, 1000, 1000))
    handles = tree.insert_many(rects32)
    ids = np.zeros(n, np.uint32)

    def peak(call):
        tracemalloc.start()
        try:
            call()
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    copy_size = rects32.nbytes
    assert peak(lambda: tree.move_many(handles, rects32)) < copy_size // 10
    assert peak(lambda: tree.remove_many(handles)) < copy_size // 10
    assert peak(lambda: tree.insert_many(rects32, ids=ids)) < copy_size // 10 + 8 * n + 4096
    live, rects64 = tree.elements().handles, rects32.astype(np.float64)
    assert peak(lambda: tree.move_many(live, rects64)) >= copy_size  # converted to float32 once


def test_docstring_examples():
    import doctest

    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    tests = finder.find(flatquad.Quadtree, "Quadtree", globs={"flatquad": flatquad, "np": np})
    assert sum(len(t.examples) for t in tests) > 0
    for test in tests:
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
