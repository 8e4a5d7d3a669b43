"""Every query form and batch call of every structure against the brute-force
oracle, on random data at several world scales and shapes."""

import numpy as np
import pytest

import flatquad
import oracle
from conftest import PARAMS, STRUCTURES

WORLDS = [
    (0.0, 0.0, 100.0, 100.0),
    (0.0, 0.0, 1.0, 1.0),
    (-1e6, -1e6, 1e6, 1e6),
    (-50.0, 20.0, 250.0, 60.0),  # not square, not at the origin
]

#: (class, parameters) of every structure, each with its parameter sets.
CONFIGS = [(cls, params) for cls in STRUCTURES for params in PARAMS[cls]]


def config_id(config):
    cls, params = config
    return cls.__name__ + "-" + ("-".join(str(v) for v in params.values()) or "defaults")


def build(world, config, n, seed):
    cls, params = config
    rng = np.random.default_rng(seed)
    tree = cls(world, **params)
    rects = oracle.random_rects(rng, n, world)
    ids = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    handles = tree.insert_many(rects, ids=ids)
    return rng, tree, rects, handles, ids


def queries(rng, world, m):
    return oracle.random_rects(rng, m, world)


@pytest.mark.parametrize("world", WORLDS)
@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_queries_and_pairs(world, config):
    rng, tree, rects, handles, ids = build(world, config, 600, seed=WORLDS.index(world) + CONFIGS.index(config))
    tree._validate()
    assert len(tree) == len(rects)
    assert handles.dtype == np.int64 and handles.shape == (600,)
    assert len(set(handles.tolist())) == 600

    for q in queries(rng, world, 60):
        assert set(tree.query(q)) == oracle.query(rects, handles, q)
        omit = int(handles[rng.integers(len(handles))])
        assert set(tree.query(q, omit=omit)) == oracle.query(rects, handles, q, omit)
    for x, y in queries(rng, world, 60)[:, :2]:
        assert set(tree.query_point(x, y)) == oracle.query_point(rects, handles, x, y)
    # Points on element corners: the closed edges must count.
    for x1, y1, x2, y2 in rects[:40]:
        assert set(tree.query_point(x2, y2)) == oracle.query_point(rects, handles, x2, y2)

    assert oracle.pair_set(tree.pairs()) == oracle.pairs(rects, handles)

    qs = queries(rng, world, 200)
    offsets, hits = tree.query_many(qs)
    assert offsets.dtype == np.int64 and hits.dtype == np.int64
    assert offsets.shape == (201,) and offsets[0] == 0 and offsets[-1] == len(hits)
    for i, q in enumerate(qs):
        got = hits[offsets[i] : offsets[i + 1]].tolist()
        assert len(got) == len(set(got))
        assert set(got) == oracle.query(rects, handles, q)

    # Each element querying its own rectangle, leaving itself out.
    offsets, hits = tree.query_many(rects, omit=handles)
    for i in range(0, len(rects), 7):
        got = set(hits[offsets[i] : offsets[i + 1]].tolist())
        assert got == oracle.query(rects, handles, rects[i], int(handles[i]))

    for h, r, i in zip(handles[:50], rects[:50], ids[:50]):
        assert tree.rect_of(h) == tuple(float(v) for v in r)
        assert tree.id_of(h) == int(i)


@pytest.mark.parametrize("world", WORLDS[:3])
@pytest.mark.parametrize("config", [(cls, PARAMS[cls][1]) for cls in STRUCTURES], ids=config_id)
def test_batches_over_frames(world, config):
    rng, tree, rects, handles, ids = build(world, config, 800, seed=7)
    size = max(world[2] - world[0], world[3] - world[1])
    for frame in range(6):
        # Move everything a little (and some a lot), as a frame of agents does.
        step = rng.normal(0, 0.01 * size, (len(rects), 2)).astype(np.float32)
        jump = rng.random(len(rects)) < 0.05
        step[jump] *= 30
        moved = rects.copy()
        moved[:, [0, 2]] += step[:, :1]
        moved[:, [1, 3]] += step[:, 1:]
        # Alternate dtypes: float32 in place, float64 converted.
        tree.move_many(handles, moved if frame % 2 else moved.astype(np.float64))
        rects = moved
        tree.cleanup()
        tree._validate()
        assert oracle.pair_set(tree.pairs()) == oracle.pairs(rects, handles)

        # Remove a random subset, insert as many new ones.
        gone = rng.choice(len(handles), 40, replace=False)
        tree.remove_many(handles[gone])
        keep = np.setdiff1d(np.arange(len(handles)), gone)
        fresh = oracle.random_rects(rng, 40, world)
        new_handles = tree.insert_many(fresh, ids=7)
        assert not set(new_handles.tolist()) & set(handles.tolist()), "a handle was reused"
        handles = np.concatenate([handles[keep], new_handles])
        rects = np.concatenate([rects[keep], fresh])
        assert all(tree.id_of(h) == 7 for h in new_handles[:5])
        assert len(tree) == len(handles)

        qs = oracle.random_rects(rng, 50, world)
        offsets, hits = tree.query_many(qs)
        for i, q in enumerate(qs):
            assert set(hits[offsets[i] : offsets[i + 1]].tolist()) == oracle.query(rects, handles, q)
    tree._validate()
    e = tree.elements()
    assert sorted(e.handles.tolist()) == sorted(handles.tolist())
    order = np.argsort(handles)
    eorder = np.argsort(e.handles)
    np.testing.assert_array_equal(e.rects[eorder], rects[order])


def test_float64_input_is_rounded_to_float32_like_the_oracle(make_index):
    rng = np.random.default_rng(3)
    low = rng.uniform(0, 1, (500, 2))
    r64 = np.hstack([low, low + rng.uniform(0, 0.05, (500, 2))])
    tree = make_index((0, 0, 1, 1))
    handles = tree.insert_many(r64)
    r32 = r64.astype(np.float32)
    assert oracle.pair_set(tree.pairs()) == oracle.pairs(r32, handles)
    for q in rng.uniform(0, 1, (30, 4)):
        q = np.array([min(q[0], q[2]), min(q[1], q[3]), max(q[0], q[2]), max(q[1], q[3])])
        assert set(tree.query(q)) == oracle.query(r32, handles, q.astype(np.float32))


@pytest.mark.parametrize("config", [(cls, PARAMS[cls][1]) for cls in STRUCTURES], ids=config_id)
def test_clustered_elements_outside_the_world(config):
    # Most elements piled in one small spot beyond the world's corner, the rest
    # spread: results stay exact.
    rng = np.random.default_rng(11)
    world = (0.0, 0.0, 64.0, 64.0)
    pile = np.tile(np.array([[70.0, 70.0, 71.0, 71.0]], dtype=np.float32), (200, 1))
    spread = oracle.random_rects(rng, 200, world)
    rects = np.concatenate([pile, spread])
    cls, params = config
    tree = cls(world, **params)
    handles = tree.insert_many(rects)
    tree._validate()
    assert oracle.pair_set(tree.pairs()) == oracle.pairs(rects, handles)
    assert set(tree.query_point(70.5, 70.5)) == oracle.query_point(rects, handles, 70.5, 70.5)
    assert set(handles[:200].tolist()) <= set(tree.query_point(70.5, 70.5))


def test_single_calls_match_batches(make_index):
    rng = np.random.default_rng(5)
    rects = oracle.random_rects(rng, 300)
    one = make_index((0, 0, 100, 100))
    many = make_index((0, 0, 100, 100))
    h1 = [one.insert(r, id=i) for i, r in enumerate(rects)]
    h2 = many.insert_many(rects, ids=np.arange(300))
    # Same elements; a big batch may hand out its handles in another order
    # (it lays elements out in memory by position).
    assert len(set(h2.tolist())) == 300
    for i, (a, b) in enumerate(zip(h1, h2.tolist())):
        assert one.rect_of(a) == many.rect_of(b)
        assert one.id_of(a) == many.id_of(b) == i
    moved = oracle.random_rects(rng, 300)
    for h, r in zip(h1, moved):
        one.move(h, r)
    many.move_many(h2, moved)
    for h in h1[::3]:
        one.remove(h)
    many.remove_many(h2[::3])
    one.cleanup()
    many.cleanup()
    # The same elements, handles and answers; the internal layout may differ
    # (a big remove_many sweeps the leaves instead of unlinking one by one).
    one._validate()
    many._validate()
    assert len(one) == len(many)
    # Translate `many`'s handles into `one`'s, element by element.
    to_one = dict(zip(h2.tolist(), h1))
    assert sorted(one) == sorted(to_one[h] for h in many)
    for a, b in zip(h1, h2.tolist()):
        if a in one:
            assert one.rect_of(a) == many.rect_of(b)
            assert one.id_of(a) == many.id_of(b)

    def pair_set(tree, translate=lambda h: h):
        return {tuple(sorted(map(translate, p))) for p in tree.pairs().tolist()}

    assert pair_set(one) == pair_set(many, to_one.__getitem__)
    for q in oracle.random_rects(rng, 50):
        assert sorted(one.query(q)) == sorted(to_one[h] for h in many.query(q))


def test_overlapping_matches_queries_with_own_rectangles(make_index):
    rng = np.random.default_rng(23)
    rects = oracle.random_rects(rng, 400)
    tree = make_index((0, 0, 100, 100))
    handles = tree.insert_many(rects)
    for h in handles[::3].tolist():
        tree.remove(h)
    live = np.array([h for h in handles.tolist() if h in tree], dtype=np.int64)
    own = np.array([tree.rect_of(h) for h in live.tolist()], dtype=np.float32)
    offsets, hits = tree.query_many(own, omit=live)
    got_offsets, got_hits = tree.overlapping_many(live)
    assert got_offsets.tolist() == offsets.tolist()
    for i, h in enumerate(live.tolist()):
        row = sorted(hits[offsets[i] : offsets[i + 1]].tolist())
        assert sorted(got_hits[got_offsets[i] : got_offsets[i + 1]].tolist()) == row
        assert sorted(tree.overlapping(h)) == row
        assert h not in row


def test_overlapping_refuses_stale_handles(make_index):
    tree = make_index((0, 0, 10, 10))
    a = tree.insert((1, 1, 2, 2))
    b = tree.insert((2, 2, 3, 3))
    assert tree.overlapping(a) == [b]
    tree.remove(a)
    with pytest.raises(KeyError):
        tree.overlapping(a)
    with pytest.raises(KeyError) as err:
        tree.overlapping_many(np.array([b, a], dtype=np.int64))
    assert err.value.index == 1
