"""Pickling, copying and snapshots round-trip a tree exactly, handles included."""

import concurrent.futures
import copy
import multiprocessing
import pickle

import numpy as np
import pytest

import flatquad
import oracle


def populated(seed=0, n=500):
    rng = np.random.default_rng(seed)
    tree = flatquad.Quadtree((-50, -50, 200, 100), 3, 7)
    rects = oracle.random_rects(rng, n, (-50, -50, 200, 100))
    handles = tree.insert_many(rects, ids=np.arange(n, dtype=np.uint32))
    tree.remove_many(handles[::5])  # stale handles must stay stale
    tree.move_many(handles[1::5], rects[1::5] + np.float32(3))
    tree.cleanup()
    return tree, handles


def assert_same(a, b, handles):
    assert a.to_bytes() == b.to_bytes()
    assert len(a) == len(b)
    assert a.bounds == b.bounds
    assert (a.max_elements, a.max_depth) == (b.max_elements, b.max_depth)
    for h in handles.tolist():
        assert (h in a) == (h in b)
        if h in a:
            assert a.rect_of(h) == b.rect_of(h) and a.id_of(h) == b.id_of(h)
    assert oracle.pair_set(a.pairs()) == oracle.pair_set(b.pairs())
    b._validate()


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_pickle_round_trip(protocol):
    tree, handles = populated()
    copy_ = pickle.loads(pickle.dumps(tree, protocol=protocol))
    assert type(copy_) is flatquad.Quadtree
    assert_same(tree, copy_, handles)
    with pytest.raises(KeyError):
        copy_.remove(int(handles[0]))  # was removed before pickling
    # New handles after the round trip are those the original would issue.
    assert copy_.insert((0, 0, 1, 1)) == tree.insert((0, 0, 1, 1))


def test_copy_and_deepcopy_are_independent():
    tree, handles = populated(1)
    for dup in (copy.copy(tree), copy.deepcopy(tree), copy.deepcopy([tree])[0]):
        assert_same(tree, dup, handles)
        before = tree.to_bytes()
        dup.clear()
        assert len(dup) == 0 and tree.to_bytes() == before


def test_deepcopy_keeps_shared_references():
    tree, _ = populated(2, 50)
    a, b = copy.deepcopy([tree, tree])
    assert a is b


def test_bytes_round_trip():
    tree, handles = populated(3)
    data = tree.to_bytes()
    assert isinstance(data, bytes)
    assert_same(tree, flatquad.Quadtree.from_bytes(data), handles)
    assert_same(tree, flatquad.Quadtree.from_bytes(bytearray(data)), handles)
    empty = flatquad.Quadtree((0, 0, 1, 1))
    empty.__setstate__(data)
    assert_same(tree, empty, handles)


def worker_query(tree, rect):
    return sorted(tree.query(rect))


def test_send_to_a_worker_process():
    tree, _ = populated(4, 200)
    expect = sorted(tree.query((0, 0, 50, 50)))
    ctx = multiprocessing.get_context("fork")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=ctx) as pool:
        assert pool.submit(worker_query, tree, (0, 0, 50, 50)).result(timeout=60) == expect
