"""Collision filters (category, mask per element; Box2D's rule): pairs,
overlapping and masked queries against brute force on every structure and the
octree; filters kept by moves, snapshots, pickling and copies; bad input
refused with the structure unchanged."""

import copy
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import flatquad
import oracle
from conftest import PARAMS, STRUCTURES

ALL = 0xFFFFFFFF
WORLD2 = (0.0, 0.0, 100.0, 100.0)
WORLD3 = (0.0, 0.0, 0.0, 100.0, 100.0, 100.0)


def random_boxes(rng, n, axes):
    if axes == 2:
        return oracle.random_rects(rng, n, WORLD2)
    lo = rng.uniform(-10, 110, (n, 3))
    size = rng.uniform(0, 20, (n, 3))
    size[rng.random(n) < 0.1] = 0  # points
    return np.concatenate([lo, lo + size], axis=1).astype(np.float32)


def meets(boxes, q):
    """Rows of ``boxes`` (float32, width 4 or 6) meeting the closed box ``q``."""
    axes = boxes.shape[1] // 2
    q = np.asarray(q, dtype=np.float32)
    hit = np.ones(len(boxes), dtype=bool)
    for a in range(axes):
        hit &= (boxes[:, a] <= q[a + axes]) & (q[a] <= boxes[:, a + axes])
    return hit


def collides(f, g):
    return bool(f[0] & g[1]) and bool(g[0] & f[1])


def passes(f, mask):
    return mask == ALL or bool(f[0] & mask)


#: Every structure, 2D and 3D, with parameters that split or spread a lot.
CASES = [(cls, PARAMS[cls][0]) for cls in STRUCTURES] + [(flatquad.Octree, {"max_elements": 2, "max_depth": 5})]
CASE_IDS = [cls.__name__ for cls, _ in CASES]


def build(cls, params, seed, n=300):
    """A populated structure with random filters from a few bits (many
    collide, many do not), and its model: handle -> (box, filter)."""
    rng = np.random.default_rng(seed)
    axes = 3 if cls is flatquad.Octree else 2
    index = cls(WORLD3 if axes == 3 else WORLD2, **params)
    boxes = random_boxes(rng, n, axes)
    handles = index.insert_many(boxes)
    categories = (1 << rng.integers(0, 4, n)).astype(np.uint32)
    masks = rng.integers(0, 16, n).astype(np.uint32)
    masks[rng.random(n) < 0.2] = ALL
    # A batch, then a few one at a time (the default stays on the rest).
    index.set_filters(handles[: n // 2], categories[: n // 2], masks[: n // 2])
    for i in range(n // 2, n - n // 4):
        index.set_filter(int(handles[i]), int(categories[i]), int(masks[i]))
    filters = [(int(c), int(m)) for c, m in zip(categories, masks)]
    filters[n - n // 4 :] = [(ALL, ALL)] * (n // 4)
    model = {int(h): (boxes[i], filters[i]) for i, h in enumerate(handles)}
    return index, model, rng


def model_pairs(model):
    hs = list(model)
    boxes = np.array([model[h][0] for h in hs])
    out = set()
    for i, h in enumerate(hs):
        for j in np.nonzero(meets(boxes, boxes[i]))[0]:
            g = hs[j]
            if g != h and collides(model[h][1], model[g][1]):
                out.add(frozenset((h, g)))
    return out


def model_query(model, q, mask=ALL, omit=None):
    return {h for h, (b, f) in model.items() if meets(b[None], q)[0] and passes(f, mask) and h != omit}


@pytest.mark.parametrize("cls, params", CASES, ids=CASE_IDS)
def test_pairs_and_overlapping_honour_filters(cls, params):
    index, model, _ = build(cls, params, seed=1)
    expected = model_pairs(model)
    assert oracle.pair_set(index.pairs()) == expected
    # Some meeting pairs were filtered out, so the check above could fail.
    unfiltered = cls(index.bounds, **params)
    unfiltered.insert_many(np.array([b for b, _ in model.values()]))
    assert len(unfiltered.pairs()) > len(expected)
    handles = np.array(list(model), dtype=np.int64)
    offsets, hits = index.overlapping_many(handles)
    for i, h in enumerate(handles.tolist()):
        want = {g for p in expected if h in p for g in p if g != h}
        assert set(index.overlapping(h)) == want
        assert set(hits[offsets[i] : offsets[i + 1]].tolist()) == want


@pytest.mark.parametrize("cls, params", CASES, ids=CASE_IDS)
def test_masked_queries(cls, params):
    index, model, rng = build(cls, params, seed=2)
    axes = 3 if cls is flatquad.Octree else 2
    some = list(model)[7]
    for _ in range(40):
        q = random_boxes(rng, 1, axes)[0]
        for mask in (None, ALL, 0, 1, 0b0110, int(rng.integers(0, 2**32))):
            want = model_query(model, q, ALL if mask is None else mask)
            assert set(index.query(q, mask=mask)) == want
            got = index.query(q, omit=some, mask=mask)
            assert set(got) == want - {some} and len(got) == len(set(got))
            p = q[:axes].tolist()
            assert set(index.query_point(*p, mask=mask)) == model_query(model, q[:axes].tolist() * 2, ALL if mask is None else mask)


@given(st.lists(st.tuples(st.integers(0, ALL), st.integers(0, ALL)), min_size=1, max_size=20), st.sampled_from(CASES))
def test_filters_read_back_and_survive_copies(filters, case):
    cls, params = case
    axes = 3 if cls is flatquad.Octree else 2
    index = cls(WORLD3 if axes == 3 else WORLD2, **params)
    handles = index.insert_many(random_boxes(np.random.default_rng(len(filters)), len(filters), axes))
    assert all(index.filter(h) == (ALL, ALL) for h in handles.tolist())
    index.set_filters(handles, [c for c, _ in filters], np.array([m for _, m in filters], dtype=np.uint64))
    index.move(int(handles[0]), index.rect_of(int(handles[0]))[axes:] * 2)
    copies = [
        copy.copy(index),
        copy.deepcopy(index),
        pickle.loads(pickle.dumps(index, protocol=2)),
        pickle.loads(pickle.dumps(index, protocol=5)),
        type(index).from_bytes(index.to_bytes()),
    ]
    for other in [index] + copies:
        assert [other.filter(h) for h in handles.tolist()] == [tuple(f) for f in filters]
        assert other.to_bytes() == index.to_bytes()


def test_set_filters_forms():
    index = flatquad.Grid(WORLD2)
    handles = index.insert_many(np.zeros((3, 4), dtype=np.float32))
    index.set_filters(handles, 2, 3)  # one int for all
    assert [index.filter(h) for h in handles.tolist()] == [(2, 3)] * 3
    index.set_filters(handles.tolist(), np.array([2, 4, 8], dtype=np.uint32), np.uint32(6))
    assert [index.filter(h) for h in handles.tolist()] == [(2, 6), (4, 6), (8, 6)]
    # 2 and 4 collide (each category in the other's mask); 8 is in no mask.
    assert oracle.pair_set(index.pairs()) == {frozenset(handles[:2].tolist())}
    assert index.overlapping(int(handles[2])) == []
    assert sorted(index.query((0, 0, 0, 0), mask=0b1100)) == sorted(handles[1:].tolist())
    index.set_filters([], [], [])
    assert index.filter(int(handles[0])) == (2, 6)


def bad_calls(index, live, stale):
    """Each call must raise the exception given and change nothing."""
    return [
        (lambda: index.set_filter(stale, 1, 1), KeyError, "names no element"),
        (lambda: index.set_filter(-1, 1, 1), KeyError, "names no element"),
        (lambda: index.set_filter(live, -1, 1), ValueError, "category -1 is out of range"),
        (lambda: index.set_filter(live, 1, 2**32), ValueError, "mask 4294967296 is out of range"),
        (lambda: index.set_filter(live, 1.5, 1), TypeError, "category must be an int"),
        (lambda: index.set_filter(live, True, 1), TypeError, "got bool"),
        (lambda: index.filter(stale), KeyError, "names no element"),
        (lambda: index.set_filters([live, stale], 1, 1), KeyError, r"handles\[1\]"),
        (lambda: index.set_filters([live, live], [1, -1], 1), ValueError, r"categories\[1\]: category -1"),
        (lambda: index.set_filters([live], 1, [1, 2]), ValueError, "masks has 2 items but handles has 1"),
        (lambda: index.set_filters([live, live], [1], 1), ValueError, "categories has 1 items but handles has 2"),
        (lambda: index.set_filters([live], "x", 1), TypeError, "category must be an int"),
        (lambda: index.query(index.bounds, mask=-1), ValueError, "mask -1 is out of range"),
        (lambda: index.query(index.bounds, mask=2**32), ValueError, "out of range"),
        (lambda: index.query_point(*index.bounds[: len(index.bounds) // 2], mask="1"), TypeError, "mask must be an int"),
        (lambda: index.query(index.bounds, omit=stale, mask=1), KeyError, "names no element"),
    ]


@pytest.mark.parametrize("cls, params", CASES, ids=CASE_IDS)
def test_bad_input_changes_nothing(cls, params):
    index, model, _ = build(cls, params, seed=3, n=50)
    live = next(iter(model))
    stale = list(model)[1]
    index.remove(stale)
    before = index.to_bytes()
    for call, exc, message in bad_calls(index, live, stale):
        with pytest.raises(exc, match=message) as info:
            call()
        if exc is KeyError:
            assert info.value.kind == "InvalidHandle"
        assert index.to_bytes() == before
    with pytest.raises(KeyError) as info:
        index.set_filters(np.array([live, live, stale]), 5, 5)
    assert info.value.index == 2 and info.value.kind == "InvalidHandle"
    assert index.to_bytes() == before
