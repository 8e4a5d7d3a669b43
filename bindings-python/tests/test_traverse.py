"""traverse() and nodes(): what the callbacks see, exceptions that propagate,
and mutation from inside a callback refused (the lock is the same for every
structure; the walks are the quadtree's, and nodes() agrees with traverse()
for every structure)."""

import numpy as np
import pytest

import flatquad


@pytest.fixture
def tree():
    t = flatquad.Quadtree((0, 0, 8, 8), 1, 3)
    t.insert((1, 1, 1, 1), id=0)
    t.insert((7, 7, 7, 7), id=1)
    return t


def test_callbacks_see_every_node(tree):
    branches, leaves = [], []
    tree.traverse(lambda *a: branches.append(a), lambda *a: leaves.append(a))
    assert branches == [(0, 0, 0.0, 0.0, 8.0, 8.0)]
    assert [leaf[1:6] for leaf in leaves] == [
        (1, 0.0, 0.0, 4.0, 4.0),
        (1, 4.0, 0.0, 8.0, 4.0),
        (1, 0.0, 4.0, 4.0, 8.0),
        (1, 4.0, 4.0, 8.0, 8.0),
    ]
    assert [leaf[6] for leaf in leaves] == [1, 0, 0, 1]
    tree.traverse()  # no callbacks: fine
    tree.traverse(leaf=None, branch=None)


def walk(tree):
    """What traverse() shows, one tuple per node."""
    seen = []
    tree.traverse(
        lambda i, d, x1, y1, x2, y2: seen.append((i, d, x1, y1, x2, y2, False, 0)),
        lambda i, d, x1, y1, x2, y2, c: seen.append((i, d, x1, y1, x2, y2, True, c)),
    )
    return seen


def test_nodes_match_traverse_for_every_structure(make_index):
    rng = np.random.default_rng(2)
    tree = make_index((-10, -10, 10, 10))
    xy = rng.uniform(-10, 10, (300, 2))
    tree.insert_many(np.hstack([xy, xy + 0.5]))
    seen = walk(tree)
    nodes = tree.nodes()
    assert isinstance(nodes, flatquad.Nodes)
    assert nodes.rects.shape == (len(seen), 4) and nodes.rects.dtype == np.float32
    assert [tuple(row) for row in zip(nodes.indices.tolist(), nodes.depths.tolist())] == [s[:2] for s in seen]
    assert nodes.rects.tolist() == [list(s[2:6]) for s in seen]
    assert nodes.is_leaf.tolist() == [s[6] for s in seen]
    assert nodes.counts.tolist() == [s[7] for s in seen]
    if make_index in (flatquad.Grid, flatquad.LooseGrid):
        assert all(s[1] == 0 and s[6] for s in seen), "a grid shows its cells as leaves of depth 0"


def test_nodes_match_traverse():
    rng = np.random.default_rng(2)
    tree = flatquad.Quadtree((-10, -10, 10, 10), 2, 6)
    xy = rng.uniform(-10, 10, (300, 2))
    tree.insert_many(np.hstack([xy, xy + 0.5]))
    seen = []
    tree.traverse(
        lambda i, d, x1, y1, x2, y2: seen.append((i, d, x1, y1, x2, y2, False, 0)),
        lambda i, d, x1, y1, x2, y2, c: seen.append((i, d, x1, y1, x2, y2, True, c)),
    )
    nodes = tree.nodes()
    assert isinstance(nodes, flatquad.Nodes)
    m = len(seen)
    assert nodes.rects.shape == (m, 4) and nodes.rects.dtype == np.float32
    assert nodes.depths.dtype == np.int64 and nodes.is_leaf.dtype == np.bool_
    assert nodes.counts.dtype == np.int64 and nodes.indices.dtype == np.int64
    assert nodes.indices.tolist() == [s[0] for s in seen]
    assert nodes.depths.tolist() == [s[1] for s in seen]
    assert nodes.rects.tolist() == [list(s[2:6]) for s in seen]
    assert nodes.is_leaf.tolist() == [s[6] for s in seen]
    assert nodes.counts.tolist() == [s[7] for s in seen]
    stats = tree.stats()
    assert stats["nodes"] == m
    assert stats["leaves"] == int(nodes.is_leaf.sum())
    assert stats["element_links"] == int(nodes.counts.sum())
    assert stats["max_depth_reached"] == int(nodes.depths.max())
    assert stats["elements"] == 300 and stats["bytes"] > 0
    # The leaves tile the world.
    leaf = nodes.rects[nodes.is_leaf].astype(np.float64)
    area = ((leaf[:, 2] - leaf[:, 0]) * (leaf[:, 3] - leaf[:, 1])).sum()
    assert area == pytest.approx(400.0)


def test_returning_false_stops_the_walk(tree):
    calls = []
    tree.traverse(leaf=lambda *a: calls.append(a) or len(calls) < 2)
    assert len(calls) == 2
    calls.clear()
    tree.traverse(branch=lambda *a: calls.append(a) or False, leaf=lambda *a: calls.append(a))
    assert len(calls) == 1
    calls.clear()
    tree.traverse(leaf=lambda *a: calls.append(a) or 0)  # only False itself stops
    assert len(calls) == 4


def test_callback_exception_propagates_and_stops(tree):
    class Boom(Exception):
        pass

    calls = []

    def leaf(*args):
        calls.append(args)
        if len(calls) == 2:
            raise Boom("second leaf")

    with pytest.raises(Boom, match="second leaf") as info:
        tree.traverse(leaf=leaf)
    assert len(calls) == 2
    # The traceback reaches into the callback.
    assert info.traceback[-1].name == "leaf"
    with pytest.raises(ZeroDivisionError):
        tree.traverse(branch=lambda *a: 1 / 0)
    with pytest.raises(TypeError):  # a callback with the wrong arity
        tree.traverse(leaf=lambda a, b: None)
    # The tree is fine afterwards, and not left locked.
    tree.insert((2, 2, 3, 3))
    tree._validate()


MUTATIONS = {
    "insert": lambda t: t.insert((0, 0, 1, 1)),
    "insert_many": lambda t: t.insert_many([(0, 0, 1, 1)]),
    "remove": lambda t: t.remove(next(iter(t))),
    "remove_many": lambda t: t.remove_many(list(t)),
    "move": lambda t: t.move(next(iter(t)), (0, 0, 1, 1)),
    "move_many": lambda t: t.move_many(list(t), [(0, 0, 1, 1)] * len(t)),
    "cleanup": lambda t: t.cleanup(),
    "clear": lambda t: t.clear(),
    "setstate": lambda t: t.__setstate__(t.to_bytes()),
}


@pytest.mark.parametrize("name", MUTATIONS)
def test_mutation_from_a_callback_raises(tree, name):
    before = tree.to_bytes()
    mutate = MUTATIONS[name]
    with pytest.raises(RuntimeError, match="cannot modify a Quadtree from inside one of its own traverse"):
        tree.traverse(leaf=lambda *a: mutate(tree))
    assert tree.to_bytes() == before
    # Caught inside the callback, the walk goes on.
    caught = []

    def leaf(*args):
        try:
            mutate(tree)
        except RuntimeError as e:
            caught.append(e)

    tree.traverse(leaf=leaf)
    assert len(caught) == 4
    assert tree.to_bytes() == before
    # After the walk, the same call works.
    mutate(tree)
    tree._validate()


def test_reading_from_a_callback_works(tree):
    seen = []

    def leaf(i, d, x1, y1, x2, y2, count):
        seen.append((len(tree.query((x1, y1, x2, y2))), tree.stats()["elements"]))
        tree.traverse(leaf=lambda *a: None)  # nested walk
        tree.pairs()
        tree.query_many([(x1, y1, x2, y2)])
        tree.to_bytes()

    tree.traverse(leaf=leaf)
    assert seen == [(1, 2), (0, 2), (0, 2), (1, 2)]


def test_other_trees_can_be_modified_from_a_callback(tree):
    other = flatquad.Quadtree((0, 0, 8, 8))
    tree.traverse(leaf=lambda i, d, x1, y1, x2, y2, c: other.insert((x1, y1, x2, y2)))
    assert len(other) == 4
