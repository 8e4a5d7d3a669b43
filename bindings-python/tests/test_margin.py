"""Fat bounds (``margin=``): every structure and the Octree, given a margin,
answer exactly as brute force on the elements' own boxes, and as a twin
without a margin, through random sequences of small moves (inside the fat
boxes), far moves, batch moves with a handle twice, inserts, removals,
filters, cleanup and margin changes; then the property, pickling and the
refusals."""

import math
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import flatquad
from conftest import PARAMS, STRUCTURES

WORLD2 = (0.0, 0.0, 64.0, 64.0)
WORLD3 = (0.0, 0.0, 0.0, 64.0, 64.0, 64.0)

SUBJECTS = [(cls, WORLD2, params, 2) for cls in STRUCTURES for params in PARAMS[cls]] + [
    (flatquad.Octree, WORLD3, {"max_elements": 2, "max_depth": 5}, 3),
]


def subject_id(subject):
    cls, _, params, _ = subject
    return cls.__name__ + "".join(f"-{k}={v}" for k, v in params.items())


def f32(values):
    return tuple(float(v) for v in np.asarray(values, dtype=np.float32))


def meets(a, b, axes):
    return all(a[i] <= b[i + axes] and b[i] <= a[i + axes] for i in range(axes))


coordinate = st.one_of(st.integers(-4, 68).map(float), st.floats(-10, 74, allow_nan=False, width=32))


@st.composite
def boxes(draw, axes):
    lo = [draw(coordinate) for _ in range(axes)]
    size = [draw(st.sampled_from([0.0, 1.0, 3.0]) | st.floats(0, 10, width=32)) for _ in range(axes)]
    return tuple(lo) + tuple(a + s for a, s in zip(lo, size))


def nudge(box, axes, step):
    return tuple(v + step for v in box)


def ops(axes):
    box = boxes(axes)
    step = st.sampled_from([0.25, -0.5, 1.0, -3.0, 20.0])
    pick = st.integers(0, 10**6)
    return st.one_of(
        st.tuples(st.just("insert"), box),
        st.tuples(st.just("insert_many"), st.lists(box, max_size=6)),
        st.tuples(st.just("remove"), pick),
        st.tuples(st.just("nudge"), pick, step),
        st.tuples(st.just("nudge_many"), st.lists(st.tuples(pick, step), max_size=8)),
        st.tuples(st.just("move"), pick, box),
        st.tuples(st.just("set_filter"), pick, st.integers(0, 3), st.integers(0, 3)),
        st.tuples(st.just("cleanup")),
        st.tuples(st.just("margin"), st.sampled_from([0.0, 0.5, 2.0, 9.0])),
    )


@pytest.mark.parametrize("subject", SUBJECTS, ids=subject_id)
@given(data=st.data(), margin=st.sampled_from([0.125, 1.0, 4.0]))
def test_answers_match_brute_force_and_a_twin_without_a_margin(subject, data, margin):
    cls, world, params, axes = subject
    fat = cls(world, **params, margin=margin)
    plain = cls(world, **params)
    assert fat.margin == margin and plain.margin == 0.0
    fat_events, plain_events = flatquad.PairTracker(fat), flatquad.PairTracker(plain)
    model = {}  # id -> (box as float32, filter)
    handles = {}  # id -> (fat handle, plain handle)
    next_id = 0

    def ids(index, found):
        return sorted(index.id_of(int(h)) for h in found)

    def insert(box):
        nonlocal next_id
        handles[next_id] = (fat.insert(box, next_id), plain.insert(box, next_id))
        model[next_id] = (f32(box), (0xFFFFFFFF, 0xFFFFFFFF))
        next_id += 1

    def pick(k):
        return sorted(model)[k % len(model)] if model else None

    for op in data.draw(st.lists(ops(axes), min_size=1, max_size=25)):
        kind = op[0]
        if kind == "insert":
            insert(op[1])
        elif kind == "insert_many" and op[1]:
            new_ids = list(range(next_id, next_id + len(op[1])))
            f = fat.insert_many(np.array(op[1]), ids=new_ids)
            p = plain.insert_many(np.array(op[1]), ids=new_ids)
            for i, box in enumerate(op[1]):
                handles[next_id + i] = (int(f[i]), int(p[i]))
                model[next_id + i] = (f32(box), (0xFFFFFFFF, 0xFFFFFFFF))
            next_id += len(op[1])
        elif kind == "remove" and model:
            i = pick(op[1])
            fat.remove(handles[i][0])
            plain.remove(handles[i][1])
            del model[i], handles[i]
        elif kind in ("nudge", "move") and model:
            i = pick(op[1])
            box = nudge(model[i][0], axes, op[2]) if kind == "nudge" else op[2]
            fat.move(handles[i][0], box)
            plain.move(handles[i][1], box)
            model[i] = (f32(box), model[i][1])
        elif kind == "nudge_many" and model:
            # A handle may come twice: the batch ends at its last box.
            chosen = [(pick(k), step) for k, step in op[1]]
            moved = {}
            rows = []
            for i, step in chosen:
                box = nudge(moved.get(i, model[i][0]), axes, step)
                moved[i] = f32(box)
                rows.append(box)
            if rows:
                fat.move_many([handles[i][0] for i, _ in chosen], np.array(rows))
                plain.move_many([handles[i][1] for i, _ in chosen], np.array(rows))
                for i, box in moved.items():
                    model[i] = (box, model[i][1])
        elif kind == "set_filter" and model:
            i = pick(op[1])
            category, mask = 1 << op[2], 1 << op[3]
            fat.set_filter(handles[i][0], category, mask)
            plain.set_filter(handles[i][1], category, mask)
            model[i] = (model[i][0], (category, mask))
        elif kind == "cleanup":
            fat.cleanup()
            plain.cleanup()
        elif kind == "margin":
            fat.margin = op[1]
            assert fat.margin == op[1]
        fat._validate()
        # Pairs against brute force (filters: Box2D's rule) and the twin.
        want = set()
        for a in model:
            for b in model:
                (ra, (ca, ma)), (rb, (cb, mb)) = model[a], model[b]
                if a < b and meets(ra, rb, axes) and (ca & mb) and (cb & ma):
                    want.add((a, b))
        got = {tuple(sorted((fat.id_of(int(x)), fat.id_of(int(y))))) for x, y in fat.pairs()}
        assert got == want
        # Element boxes are the own boxes, not the fat ones.
        for i, (box, _) in model.items():
            assert f32(fat.rect_of(handles[i][0])) == box
        # A query and a point query: brute force on the own boxes.
        q = data.draw(boxes(axes))
        assert ids(fat, fat.query(q)) == sorted(i for i, (box, _) in model.items() if meets(box, f32(q), axes))
        point = q[:axes]
        assert ids(fat, fat.query_point(*point)) == ids(plain, plain.query_point(*point))
        # The nearest: the same ids and distances as the twin.
        f_near, f_dist = fat.nearest(*point, k=3, return_distance=True)
        p_near, p_dist = plain.nearest(*point, k=3, return_distance=True)
        assert [fat.id_of(h) for h in f_near] == [plain.id_of(h) for h in p_near]
        assert list(f_dist) == list(p_dist)
        # Contact events: the same id pairs as the twin's.
        fb, fe = fat_events.update()
        pb, pe = plain_events.update()
        assert sorted(tuple(sorted((fat.id_of(int(x)), fat.id_of(int(y))))) for x, y in fb) == sorted(
            tuple(sorted((plain.id_of(int(x)), plain.id_of(int(y))))) for x, y in pb
        )
        assert len(fe) == len(pe)


@pytest.mark.parametrize("cls", STRUCTURES + [flatquad.Octree], ids=lambda c: c.__name__)
def test_margin_property_pickling_and_refusals(cls):
    axes = 3 if cls is flatquad.Octree else 2
    world = WORLD3 if axes == 3 else WORLD2
    index = cls(world, margin=2.5)
    assert index.margin == 2.5
    a = index.insert((10.0,) * axes + (11.0,) * axes, 1)
    b = index.insert((12.5,) * axes + (13.5,) * axes, 2)
    assert len(index.pairs()) == 0  # the fat boxes meet, the boxes do not
    index.move(a, (11.5,) * axes + (12.5,) * axes)  # inside its fat box
    assert len(index.pairs()) == 1
    copy = pickle.loads(pickle.dumps(index))
    assert copy.margin == 2.5 and copy.rect_of(a) == index.rect_of(a) and len(copy.pairs()) == 1
    state = index.to_bytes()
    for bad in (math.nan, -1.0, math.inf, -math.inf, 1e300):
        with pytest.raises(ValueError, match="margin"):
            index.margin = bad
        with pytest.raises(ValueError, match="margin"):
            cls(world, margin=bad)
    with pytest.raises(TypeError):
        index.margin = "wide"
    with pytest.raises(TypeError):
        cls(world, 8, 6, 2.0) if cls is flatquad.Octree else cls(world, margin="wide")
    assert index.to_bytes() == state and index.margin == 2.5
    index.margin = 0
    assert index.margin == 0.0 and len(index.pairs()) == 1 and b in index
    index._validate()
