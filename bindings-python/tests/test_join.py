"""Bulk queries and joins (``query_bulk``, ``join``, ``BoxIndex``,
``join_bounds``) against brute force and shapely's STRtree; the float64
guarantee (no pair whose boxes meet in float64 is ever missed, at world scales
up to ±1e7 with sub-metre boxes); float64 arrays in every batch call; pickling
with out-of-band buffers."""

import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import flatquad
from conftest import STRUCTURES

KINDS = ["grid", "quadtree", "loose_grid", "loose_quadtree"]


def pairs_of(result):
    assert result.dtype == np.int64 and result.ndim == 2 and result.shape[0] == 2
    got = list(zip(result[0].tolist(), result[1].tolist()))
    assert len(set(got)) == len(got), "a pair twice"
    return set(got)


def meets(a, b):
    """Every (i, j) whose closed boxes meet, in the arrays' own precision."""
    i, j = np.nonzero(
        (a[:, None, 0] <= b[None, :, 2])
        & (b[None, :, 0] <= a[:, None, 2])
        & (a[:, None, 1] <= b[None, :, 3])
        & (b[None, :, 1] <= a[:, None, 3])
    )
    return set(zip(i.tolist(), j.tolist()))


@st.composite
def f64_boxes(draw):
    """Two arrays of float64 boxes near a world scale up to ±1e7, sub-metre
    sides, some of them touching exactly in float64."""
    scale = draw(st.sampled_from([0.0, 1e3, 1e5, 1e7, -1e7]))
    spread = draw(st.sampled_from([2.0, 50.0]))

    def side(n):
        xy = np.array(draw(st.lists(st.tuples(*[st.floats(-1, 1)] * 2), min_size=n, max_size=n)))
        wh = np.array(draw(st.lists(st.tuples(*[st.floats(0, 0.9)] * 2), min_size=n, max_size=n)))
        xy = xy.reshape(n, 2) * spread + [scale, -scale]
        wh = wh.reshape(n, 2)
        boxes = np.hstack([xy, xy + wh])
        if n > 1:  # one box starts exactly where another ends (touching in f64)
            boxes[1, 0] = boxes[0, 2]
            boxes[1, 2] = max(boxes[1, 2], boxes[1, 0])
        return boxes

    return side(draw(st.integers(0, 40))), side(draw(st.integers(0, 40)))


@given(f64_boxes(), st.sampled_from(KINDS), st.booleans())
def test_float64_pairs_are_never_lost(boxes, kind, sort):
    left, right = boxes
    truth = meets(left, right)
    want = meets(left.astype(np.float32), right.astype(np.float32))  # numpy rounds to nearest too
    assert truth <= want
    got = flatquad.join_bounds(left, right, sort=sort, index=kind)
    assert pairs_of(got) == want
    if sort:
        assert list(zip(*got.tolist())) == sorted(want)
    # The same through BoxIndex and through a live structure's query_bulk.
    assert pairs_of(flatquad.BoxIndex(right, index=kind).query_bulk(left)) == want
    if len(right):
        grid = flatquad.Quadtree((scale_of(right), -1e7, scale_of(right) + 1, -1e7 + 1))
        handles = grid.insert_many(right)
        where = {h: j for j, h in enumerate(handles.tolist())}
        bulk = grid.query_bulk(left, sort=sort)
        assert {(i, where[h]) for i, h in pairs_of(bulk)} == want


def scale_of(boxes):
    return float(boxes[0, 0])


@pytest.mark.parametrize("make_index", STRUCTURES, ids=lambda c: c.__name__)
def test_query_bulk_and_join_match_brute_force(make_index):
    rng = np.random.default_rng(3)
    world = (0, 0, 100, 100)
    xy = rng.uniform(0, 100, (400, 2))
    rects = np.hstack([xy, xy + rng.uniform(0, 6, (400, 2))])  # float64
    a, b = make_index(world), flatquad.Grid(world, columns=9, rows=4)
    ha, hb = a.insert_many(rects[:200]), b.insert_many(rects[200:])
    a.remove_many(ha[::7])  # stale slots must be skipped
    live = np.setdiff1d(np.arange(200), np.arange(200)[::7])
    f32 = rects.astype(np.float32)
    want = {(int(ha[i]), int(hb[j])) for i, j in meets(f32[:200][live], f32[200:])
            for i in [live[i]]}
    assert pairs_of(a.join(b)) == want
    joined = a.join(b, sort=True)
    assert list(zip(*joined.tolist())) == sorted(want)
    assert pairs_of(b.join(a)) == {(y, x) for x, y in want}
    bulk = b.query_bulk(rects[:200], "intersects", sort=True)
    assert pairs_of(bulk) == {(i, int(hb[j])) for i, j in meets(f32[:200], f32[200:])}
    assert np.all(np.diff(bulk[0]) >= 0)


def test_matches_shapely_strtree():
    import shapely
    rng = np.random.default_rng(5)
    # Over 4096 query rows: the core queries them in spatial order and puts the rows back
    # (the grid only over far more elements than these: in the order given).
    xy = rng.uniform(-1e6, 1e6, (12000, 2)).astype(np.float32)
    boxes = np.hstack([xy, xy + rng.uniform(0, 3e4, (12000, 2)).astype(np.float32)])
    left, right = boxes[:6000].astype(np.float64), boxes[6000:].astype(np.float64)
    tree = shapely.STRtree(shapely.box(*right.T))
    theirs = tree.query(shapely.box(*left.T), predicate="intersects")
    for kind in KINDS:
        ours = flatquad.join_bounds(left, right, sort=True, index=kind)
        assert pairs_of(ours) == pairs_of(theirs.astype(np.int64))
        assert list(zip(*ours.tolist())) == sorted(pairs_of(ours))


def test_float64_is_accepted_by_every_batch_call(make_index):
    index = make_index((0, 0, 10, 10))
    rects64 = np.array([[1.1, 1.1, 2.2, 2.2], [3.3, 3.3, 4.4, 4.4]])
    handles = index.insert_many(rects64)
    assert index.rect_of(int(handles[0])) == tuple(np.float32(rects64[0]).tolist())
    index.move_many(handles, rects64 + 0.5)
    offsets, hits = index.query_many(np.asfortranarray(rects64 + 0.5))  # not C-ordered
    assert offsets.tolist() == [0, 1, 2]
    assert pairs_of(index.query_bulk(rects64 + 0.5)) == {(0, int(handles[0])), (1, int(handles[1]))}
    big_endian = (rects64 + 0.5).astype(">f8")
    assert pairs_of(index.query_bulk(big_endian)) == {(0, int(handles[0])), (1, int(handles[1]))}


def test_bad_input_is_refused():
    good = np.array([[0.0, 0.0, 1.0, 1.0]])
    with pytest.raises(ValueError, match=r"right\[1\]") as err:
        flatquad.join_bounds(good, np.array([[0, 0, 1, 1], [np.nan, 0, 1, 1]]))
    assert err.value.index == 1 and err.value.kind == "InvalidRect"
    with pytest.raises(ValueError, match=r"left\[0\]"):
        flatquad.join_bounds(np.array([[2, 0, 1, 1.0]]), good)
    with pytest.raises(ValueError, match="shape"):
        flatquad.BoxIndex(np.zeros((3, 3)))
    with pytest.raises(TypeError):
        flatquad.BoxIndex(np.array([["a", "b", "c", "d"]]))
    with pytest.raises(ValueError, match="boxes only"):
        flatquad.BoxIndex(good).query_bulk(good, predicate="contains")
    with pytest.raises(ValueError, match="index"):
        flatquad.BoxIndex(good, index="rtree")
    with pytest.raises(TypeError):
        flatquad.Grid((0, 0, 1, 1)).join(good)
    with pytest.raises(ValueError):
        flatquad.BoxIndex.from_bytes(b"not a snapshot")


def test_empty_inputs():
    empty = np.empty((0, 4))
    one = np.array([[0.0, 0.0, 1.0, 1.0]])
    for left, right in [(empty, empty), (empty, one), (one, empty), ([], one)]:
        out = flatquad.join_bounds(left, right, sort=True)
        assert out.shape == (2, 0) and out.dtype == np.int64
    assert len(flatquad.BoxIndex(empty)) == 0


@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_pickle_out_of_band(make_index, protocol):
    index = make_index((0, 0, 10, 10))
    handles = index.insert_many(np.array([[1, 1, 2, 2], [1.5, 1.5, 3, 3]]), ids=[7, 8])
    index.remove(int(handles[0]))
    for obj in [index, flatquad.BoxIndex(np.array([[1, 1, 2, 2], [5, 5, 6, 6.0]]))]:
        buffers = []
        data = pickle.dumps(obj, protocol=protocol, buffer_callback=buffers.append if protocol >= 5 else None)
        assert len(buffers) == (1 if protocol >= 5 else 0)
        copy = pickle.loads(data, buffers=buffers)
        assert type(copy) is type(obj)
        assert copy.to_bytes() == obj.to_bytes()
    copy = pickle.loads(pickle.dumps(index, protocol=5))  # in band too
    assert copy.id_of(int(handles[1])) == 8 and int(handles[0]) not in copy
