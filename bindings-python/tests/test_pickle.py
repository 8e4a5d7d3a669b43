"""Pickling, copying and snapshots round-trip every structure exactly, handles
included; ``from_bytes`` gives back the structure a snapshot holds."""

import concurrent.futures
import copy
import multiprocessing
import pickle

import numpy as np
import pytest

import flatquad
import oracle
from conftest import PARAMS, STRUCTURES

WORLD = (-50, -50, 150, 50)

#: Each class's parameter properties.
PARAMETERS = {
    flatquad.Quadtree: ["max_elements", "max_depth"],
    flatquad.LooseQuadtree: ["max_elements", "max_depth", "max_extent"],
    flatquad.Grid: ["columns", "rows", "cell_width", "cell_height"],
    flatquad.LooseGrid: ["columns", "rows", "tight_columns", "tight_rows"],
}


def populated(cls, seed=0, n=500):
    rng = np.random.default_rng(seed)
    tree = cls(WORLD, **PARAMS[cls][1])
    rects = oracle.random_rects(rng, n, WORLD)
    handles = tree.insert_many(rects, ids=np.arange(n, dtype=np.uint32))
    tree.remove_many(handles[::5])  # stale handles must stay stale
    tree.move_many(handles[1::5], rects[1::5] + np.float32(3))
    tree.cleanup()
    return tree, handles


def assert_same(a, b, handles):
    assert type(a) is type(b)
    assert a.to_bytes() == b.to_bytes()
    assert len(a) == len(b)
    assert a.bounds == b.bounds and a.kind == b.kind and repr(a) == repr(b)
    for name in PARAMETERS[type(a)]:
        assert getattr(a, name) == getattr(b, name), name
    for h in handles.tolist():
        assert (h in a) == (h in b)
        if h in a:
            assert a.rect_of(h) == b.rect_of(h) and a.id_of(h) == b.id_of(h)
    assert oracle.pair_set(a.pairs()) == oracle.pair_set(b.pairs())
    b._validate()


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_pickle_round_trip(make_index, protocol):
    tree, handles = populated(make_index)
    copy_ = pickle.loads(pickle.dumps(tree, protocol=protocol))
    assert type(copy_) is make_index
    assert_same(tree, copy_, handles)
    with pytest.raises(KeyError):
        copy_.remove(int(handles[0]))  # was removed before pickling
    # New handles after the round trip are those the original would issue.
    assert copy_.insert((0, 0, 1, 1)) == tree.insert((0, 0, 1, 1))


def test_copy_and_deepcopy_are_independent(make_index):
    tree, handles = populated(make_index, 1)
    for dup in (copy.copy(tree), copy.deepcopy(tree), copy.deepcopy([tree])[0]):
        assert_same(tree, dup, handles)
        before = tree.to_bytes()
        dup.clear()
        assert len(dup) == 0 and tree.to_bytes() == before


def test_deepcopy_keeps_shared_references(make_index):
    tree, _ = populated(make_index, 2, 50)
    a, b = copy.deepcopy([tree, tree])
    assert a is b


def test_bytes_round_trip(make_index):
    tree, handles = populated(make_index, 3)
    data = tree.to_bytes()
    assert isinstance(data, bytes)
    assert_same(tree, make_index.from_bytes(data), handles)
    assert_same(tree, make_index.from_bytes(bytearray(data)), handles)
    empty = make_index((0, 0, 1, 1))
    empty.__setstate__(data)
    assert_same(tree, empty, handles)


def test_from_bytes_gives_the_snapshots_structure():
    snapshots = {cls: populated(cls, 5, 100)[0].to_bytes() for cls in STRUCTURES}
    for cls, data in snapshots.items():
        # The base class reads any snapshot and gives back its structure.
        index = flatquad.SpatialIndex.from_bytes(data)
        assert type(index) is cls and index.to_bytes() == data
        for other in STRUCTURES:
            if other is cls:
                assert type(other.from_bytes(data)) is cls
                continue
            # A subclass refuses another kind's snapshot, and so does an
            # instance's __setstate__ (its class would lie otherwise).
            with pytest.raises(ValueError, match=f"invalid snapshot bytes: .*{cls.__name__}") as info:
                other.from_bytes(data)
            assert info.value.kind == "InvalidBytes"
            target = other((0, 0, 1, 1))
            with pytest.raises(ValueError, match="invalid snapshot bytes"):
                target.__setstate__(data)
            assert type(target) is other and len(target) == 0


def worker_query(tree, rect):
    return sorted(tree.query(rect))


@pytest.mark.parametrize("cls", STRUCTURES, ids=lambda cls: cls.__name__)
def test_send_to_a_worker_process(cls):
    tree, _ = populated(cls, 4, 200)
    expect = sorted(tree.query((0, 0, 50, 50)))
    ctx = multiprocessing.get_context("fork")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=ctx) as pool:
        assert pool.submit(worker_query, tree, (0, 0, 50, 50)).result(timeout=60) == expect
