"""flatquad.Octree: every method against a brute-force model of random 3D boxes
(hypothesis), the batch arrays (float32 and float64 of shape (n, 6), read in
place), pickling and copies, and every bad input refused with the 2D classes'
exceptions, the tree left as it was."""

import copy
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import flatquad

WORLD = (0.0, 0.0, 0.0, 100.0, 100.0, 100.0)

coord = st.floats(-20, 120, allow_nan=False, width=32)
side = st.floats(0, 15, allow_nan=False, width=32)


@st.composite
def boxes(draw):
    x, y, z = draw(coord), draw(coord), draw(coord)
    w, h, d = draw(side), draw(side), draw(side)
    # Coordinates exact in float32, so the model's test is the tree's.
    return tuple(float(np.float32(v)) for v in (x, y, z, x + w, y + h, z + d))


def meets(a, b):
    return all(a[i] <= b[i + 3] and b[i] <= a[i + 3] for i in range(3))


params = st.sampled_from([{}, {"max_elements": 1, "max_depth": 5}, {"max_elements": 3, "max_depth": 8}])


@given(params, st.lists(boxes(), max_size=60), st.lists(boxes(), max_size=30), st.data())
def test_matches_brute_force(kwargs, items, moves, data):
    tree = flatquad.Octree(WORLD, **kwargs)
    half = len(items) // 2
    model = {}
    for i, b in enumerate(items[:half]):
        model[tree.insert(b, id=i)] = b
    handles = tree.insert_many(np.array(items[half:], dtype=np.float64).reshape(-1, 6), ids=np.arange(half, len(items)))
    for h, b in zip(handles.tolist(), items[half:]):
        model[h] = b
    live = list(model)
    # Moves (one by one and in a batch) and removals.
    for b in moves[: len(moves) // 2]:
        if live:
            h = data.draw(st.sampled_from(live))
            tree.move(h, b)
            model[h] = b
    batch = [(data.draw(st.sampled_from(live)), b) for b in moves[len(moves) // 2 :]] if live else []
    if batch:
        # The last move of a handle given twice wins, as in the model.
        tree.move_many(np.array([h for h, _ in batch], dtype=np.int64), np.array([b for _, b in batch], dtype=np.float32))
        for h, b in batch:
            model[h] = b
    gone = data.draw(st.lists(st.sampled_from(live), unique=True, max_size=len(live))) if live else []
    tree.remove_many(gone[: len(gone) // 2])
    for h in gone[len(gone) // 2 :]:
        tree.remove(h)
    for h in gone:
        del model[h]
    tree.cleanup()
    tree._validate()

    assert len(tree) == len(model)
    assert all(h in tree for h in model)
    for h, b in model.items():
        assert tree.rect_of(h) == b
    queries = data.draw(st.lists(boxes(), min_size=1, max_size=8))
    for q in queries:
        assert sorted(tree.query(q)) == sorted(h for h, b in model.items() if meets(b, q))
        x, y, z = q[:3]
        assert sorted(tree.query_point(x, y, z)) == sorted(
            h for h, b in model.items() if meets(b, (x, y, z, x, y, z))
        )
    offsets, hits = tree.query_many(np.array(queries, dtype=np.float64))
    for i, q in enumerate(queries):
        assert sorted(hits[offsets[i] : offsets[i + 1]].tolist()) == sorted(h for h, b in model.items() if meets(b, q))
    for h, b in model.items():
        assert sorted(tree.overlapping(h)) == sorted(o for o, c in model.items() if o != h and meets(b, c))
    pairs = {frozenset(p) for p in tree.pairs().tolist()}
    items_ = list(model.items())
    assert pairs == {
        frozenset((a, b))
        for i, (a, ra) in enumerate(items_)
        for b, rb in items_[i + 1 :]
        if meets(ra, rb)
    }
    assert tree.pairs().shape[0] == len(pairs)
    # Snapshots, pickles and copies: equal trees, the same handles.
    for other in (
        flatquad.Octree.from_bytes(tree.to_bytes()),
        pickle.loads(pickle.dumps(tree, protocol=5)),
        pickle.loads(pickle.dumps(tree, protocol=2)),
        copy.copy(tree),
        copy.deepcopy(tree),
    ):
        assert isinstance(other, flatquad.Octree)
        assert other.to_bytes() == tree.to_bytes()
        assert {h: other.rect_of(h) for h in model} == {h: tree.rect_of(h) for h in model}


def test_constructor_and_parameters():
    tree = flatquad.Octree(WORLD)
    assert tree.bounds == WORLD
    assert tree.kind == "Octree"
    assert (tree.max_elements, tree.max_depth) == (8, 6)
    tree = flatquad.Octree(world=WORLD, max_elements=3, max_depth=9)
    assert (tree.max_elements, tree.max_depth) == (3, 9)
    assert "Octree" in repr(tree)
    assert tree.stats()["elements"] == 0
    for world in [(0, 0, 0, 0, 1, 1), (0, 0, 1, 1, 1, 1), (0, 0, 0, 1, 1, float("nan")), (0, 0, 2, 1, 1, 1)]:
        with pytest.raises(ValueError, match="world"):
            flatquad.Octree(world)
    with pytest.raises(ValueError):
        flatquad.Octree(WORLD, max_elements=0)
    with pytest.raises(ValueError):
        flatquad.Octree(WORLD, max_depth=31)
    with pytest.raises(ValueError):
        flatquad.Octree(WORLD, max_elements=-1)
    with pytest.raises(ValueError, match="6 numbers"):
        flatquad.Octree((0, 0, 1, 1))
    with pytest.raises(TypeError):
        flatquad.Octree("abcdef")


def test_bad_input_changes_nothing():
    tree = flatquad.Octree(WORLD)
    a = tree.insert((1, 1, 1, 2, 2, 2), id=5)
    b = tree.insert((3, 3, 3, 4, 4, 4))
    tree.remove(b)
    before = tree.to_bytes()
    for bad in [(0, 0, 0, 1, 1, float("nan")), (0, 0, 1, 1, 1, 0), (0, 0, 0, float("inf"), 1, 1)]:
        with pytest.raises(ValueError):
            tree.insert(bad)
        with pytest.raises(ValueError):
            tree.move(a, bad)
        with pytest.raises(ValueError):
            tree.query(bad)
    with pytest.raises(ValueError, match="6 numbers"):
        tree.insert((0, 0, 1, 1))
    with pytest.raises(ValueError):
        tree.query_point(0, 0, float("nan"))
    with pytest.raises(ValueError):
        tree.insert((0, 0, 0, 1, 1, 1), id=-1)
    for stale in (b, 0, 12345, 2**64):
        with pytest.raises(KeyError):
            tree.remove(stale)
        with pytest.raises(KeyError):
            tree.id_of(stale)
        with pytest.raises(KeyError):
            tree.overlapping(stale)
    with pytest.raises(KeyError):
        tree.move(b, (0, 0, 0, 1, 1, 1))
    with pytest.raises(KeyError):
        tree.query((0, 0, 0, 1, 1, 1), omit=b)
    with pytest.raises(TypeError):
        tree.remove("a")
    # Batches: all or nothing, err.index names the row.
    rows = np.zeros((3, 6), dtype=np.float32)
    rows[2] = (0, 0, 1, 1, 1, 0)
    with pytest.raises(ValueError) as err:
        tree.insert_many(rows)
    assert err.value.index == 2
    with pytest.raises(ValueError, match=r"\(n, 6\)"):
        tree.insert_many(np.zeros((3, 4), dtype=np.float32))
    with pytest.raises(ValueError, match=r"\(n, 6\)"):
        tree.insert_many(np.zeros(6))
    with pytest.raises(TypeError):
        tree.insert_many(np.array([["a"] * 6]))
    with pytest.raises(KeyError) as err:
        tree.move_many([a, b], np.zeros((2, 6)))
    assert err.value.index == 1
    with pytest.raises(KeyError) as err:
        tree.remove_many([a, a])
    assert err.value.index == 1
    with pytest.raises(ValueError):
        tree.move_many([a], np.zeros((2, 6)))
    with pytest.raises(ValueError):
        tree.from_bytes(b"not a snapshot")
    with pytest.raises(ValueError):
        flatquad.Octree.from_bytes(flatquad.Quadtree((0, 0, 1, 1)).to_bytes())
    with pytest.raises(ValueError):
        flatquad.Quadtree.from_bytes(tree.to_bytes())
    assert tree.to_bytes() == before
    assert len(tree) == 1 and tree.id_of(a) == 5
    assert tree.insert_many(np.zeros((0, 6))).shape == (0,)


def test_float64_rows_round_like_single_boxes():
    tree = flatquad.Octree(WORLD)
    rows = np.array([[0.1, 0.2, 0.3, 1.1, 1.2, 1.3], [50.123456789, 1, 2, 60, 3, 4]], dtype=np.float64)
    handles = tree.insert_many(rows)
    single = flatquad.Octree(WORLD)
    for h, row in zip(handles.tolist(), rows.tolist()):
        assert tree.rect_of(h) == single.rect_of(single.insert(row))
    # Non-contiguous and integer arrays are converted first.
    tree.insert_many(np.arange(12, dtype=np.int64).reshape(2, 6))
    tree.insert_many(np.asfortranarray(rows))
    assert len(tree) == 6


def test_touching_counts_and_the_clear():
    tree = flatquad.Octree(WORLD, max_elements=1)
    a = tree.insert((1, 1, 1, 2, 2, 2))
    b = tree.insert((2, 2, 2, 3, 3, 3))  # a corner
    c = tree.insert((1, 1, 2.5, 2, 2, 3))  # apart in z only
    assert sorted(tree.overlapping(a)) == [b]
    assert sorted(tree.query_point(2, 2, 2)) == sorted([a, b])
    assert tree.query_point(2, 2, 2, omit=a) == [b]
    assert sorted(tree.query((0, 0, 0, 10, 10, 10))) == sorted([a, b, c])
    tree.clear()
    assert len(tree) == 0 and a not in tree


def filled_tree():
    rng = np.random.default_rng(7)
    lo = rng.uniform(0, 90, size=(300, 3)).astype(np.float32)
    rects = np.hstack([lo, lo + rng.uniform(0, 10, size=(300, 3)).astype(np.float32)])
    tree = flatquad.Octree(WORLD, max_elements=4, max_depth=6)
    handles = tree.insert_many(rects, ids=np.arange(300, dtype=np.int64) + 1000)
    tree.remove_many(handles[::7])
    return tree


def test_iteration_and_elements_give_every_element_once():
    tree = filled_tree()
    handles = list(tree)
    assert len(handles) == len(tree) == len(set(handles))
    elements = tree.elements()
    assert elements.rects.shape == (len(tree), 6) and elements.rects.dtype == np.float32
    assert sorted(elements.handles.tolist()) == sorted(handles)
    for handle, rect, id_ in zip(elements.handles.tolist(), elements.rects.tolist(), elements.ids.tolist()):
        assert handle in tree
        assert tuple(rect) == tree.rect_of(handle)
        assert id_ == tree.id_of(handle)


def test_nodes_and_traverse_agree_and_hold_their_elements():
    tree = filled_tree()
    nodes = tree.nodes()
    assert nodes.rects.shape == (len(nodes.indices), 6)
    assert nodes.depths[0] == 0 and tuple(nodes.rects[0].tolist()) == tree.bounds
    assert nodes.depths.max() <= tree.max_depth
    assert nodes.counts[nodes.is_leaf].sum() == tree.stats()["element_links"]
    assert (nodes.counts[~nodes.is_leaf] == 0).all()
    walked = []
    tree.traverse(
        lambda i, d, *box: walked.append((i, d, box, False, 0)),
        lambda i, d, *rest: walked.append((i, d, tuple(rest[:6]), True, rest[6])),
    )
    assert [w[0] for w in walked] == nodes.indices.tolist()
    assert [w[1] for w in walked] == nodes.depths.tolist()
    assert [w[2] for w in walked] == [tuple(r) for r in nodes.rects.tolist()]
    assert [w[3] for w in walked] == nodes.is_leaf.tolist()
    assert [w[4] for w in walked] == nodes.counts.tolist()
    # Every element lies in a leaf whose box meets its own: the leaf's box
    # queried from the tree finds it.
    found = set()
    for box, leaf in zip(nodes.rects.tolist(), nodes.is_leaf.tolist()):
        if leaf:
            for h in tree.query(tuple(box)):
                if meets(tree.rect_of(h), box):
                    found.add(h)
    assert found == set(tree)
    # Children lie inside their parent's box, one level deeper.
    stack = []
    for box, depth in zip(nodes.rects.tolist(), nodes.depths.tolist()):
        del stack[depth:]
        if stack:
            parent = stack[-1]
            assert all(parent[i] <= box[i] and box[i + 3] <= parent[i + 3] for i in range(3))
        stack.append(box)
    # False stops; exceptions propagate; None callbacks are fine.
    seen = []
    tree.traverse(leaf=lambda *a: seen.append(a) or False)
    assert len(seen) == 1 and len(seen[0]) == 9
    tree.traverse(None, None)
    with pytest.raises(ZeroDivisionError):
        tree.traverse(lambda *a: 1 / 0)
    with pytest.raises(TypeError):
        tree.traverse(3)
