"""A hypothesis state machine per structure: random sequences of every call,
checked after each step against a pure-Python model (a dict of handle ->
(rect, id))."""

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    initialize,
    invariant,
    multiple,
    precondition,
    rule,
)

import flatquad

WORLD = (0.0, 0.0, 64.0, 64.0)

# Coordinates on a coarse grid (so edges touch often) plus arbitrary floats, in
# and around the world.
coordinate = st.one_of(
    st.integers(-8, 72).map(lambda v: v / 2),
    st.floats(-20, 90, allow_nan=False, width=32),
)


@st.composite
def rects(draw):
    x1, x2 = sorted((draw(coordinate), draw(coordinate)))
    y1, y2 = sorted((draw(coordinate), draw(coordinate)))
    if draw(st.booleans()):  # small ones, the common case
        x2 = min(x2, x1 + draw(st.integers(0, 6)))
        y2 = min(y2, y1 + draw(st.integers(0, 6)))
    return (x1, y1, x2, y2)


ids = st.integers(0, 2**32 - 1)


def f32(rect):
    return tuple(float(np.float32(v)) for v in rect)


def meets(r, q):
    return r[0] <= q[2] and q[0] <= r[2] and r[1] <= q[3] and q[1] <= r[3]


cell_size = st.floats(0.5, 80)
counts = st.integers(1, 20)


@st.composite
def loose_counts(draw):
    columns, rows = draw(counts), draw(counts)
    return dict(
        columns=columns,
        rows=rows,
        tight_columns=draw(st.integers(1, columns)),
        tight_rows=draw(st.integers(1, rows)),
    )


#: Strategies for each structure's constructor parameters: small ones, so that
#: trees split and elements straddle cells; the defaults too.
PARAMETERS = {
    flatquad.Quadtree: st.fixed_dictionaries(
        {"max_elements": st.integers(1, 4), "max_depth": st.integers(0, 6)}
    ),
    flatquad.Grid: st.one_of(
        st.just({}),
        st.fixed_dictionaries({"columns": counts, "rows": counts}),
        st.fixed_dictionaries({"cell_size": st.one_of(cell_size, st.tuples(cell_size, cell_size))}),
    ),
    flatquad.LooseGrid: st.one_of(
        st.just({}),
        loose_counts(),
        st.fixed_dictionaries({"cell_size": cell_size}),
    ),
}


class IndexMachine(RuleBasedStateMachine):
    """The rules, for the structure `cls` (set by a subclass)."""

    cls = None
    handles = Bundle("handles")

    @initialize(data=st.data())
    def make(self, data):
        self.tree = self.cls(WORLD, **data.draw(PARAMETERS[self.cls]))
        self.model = {}  # handle -> (float32 rect as floats, id)
        self.issued = set()

    def expect_key_error(self, call, *args):
        before = self.tree.to_bytes()
        try:
            call(*args)
        except KeyError:
            assert self.tree.to_bytes() == before
        else:
            raise AssertionError(f"{call.__name__}{args} accepted a stale handle")

    @rule(target=handles, rect=rects(), id=ids)
    def insert(self, rect, id):
        h = self.tree.insert(rect, id=id)
        assert h not in self.issued, "a handle value was issued twice"
        self.issued.add(h)
        self.model[h] = (f32(rect), id)
        return h

    @rule(target=handles, rows=st.lists(rects(), max_size=12), id=st.one_of(st.none(), ids))
    def insert_many(self, rows, id):
        array = np.array(rows, dtype=np.float64).reshape(-1, 4)
        new = self.tree.insert_many(array, ids=id)
        assert len(new) == len(rows)
        for h, r in zip(new.tolist(), rows):
            assert h not in self.issued
            self.issued.add(h)
            self.model[h] = (f32(r), id or 0)
        return multiple(*new.tolist())

    @rule(h=consumes(handles))
    def remove(self, h):
        if h in self.model:
            self.tree.remove(h)
            del self.model[h]
        else:  # made stale by clear() or remove_many()
            self.expect_key_error(self.tree.remove, h)

    @rule(h=handles, rect=rects())
    def move(self, h, rect):
        if h in self.model:
            self.tree.move(h, rect)
            self.model[h] = (f32(rect), self.model[h][1])
        else:
            self.expect_key_error(self.tree.move, h, rect)

    @rule(data=st.data())
    def move_many(self, data):
        live = sorted(self.model)
        chosen = data.draw(st.lists(st.sampled_from(live), max_size=10)) if live else []
        rows = [data.draw(rects()) for _ in chosen]
        self.tree.move_many(np.array(chosen, dtype=np.int64), np.array(rows, np.float32).reshape(-1, 4))
        for h, r in zip(chosen, rows):  # a handle given twice ends at its last rectangle
            self.model[h] = (f32(r), self.model[h][1])

    @precondition(lambda self: len(self.model) > 0)
    @rule(data=st.data())
    def remove_many(self, data):
        chosen = data.draw(st.lists(st.sampled_from(sorted(self.model)), unique=True, max_size=6))
        self.tree.remove_many(np.array(chosen, dtype=np.uint64))
        for h in chosen:
            del self.model[h]

    @rule(h=handles)
    def stale_batches_change_nothing(self, h):
        if h not in self.model:
            live = sorted(self.model)[:3]
            self.expect_key_error(self.tree.remove_many, live + [h])
            self.expect_key_error(self.tree.move_many, live + [h], [(0, 0, 1, 1)] * (len(live) + 1))

    @rule()
    def cleanup(self):
        self.tree.cleanup()

    @rule()
    def clear(self):
        self.tree.clear()
        self.model.clear()

    @rule(q=rects(), data=st.data())
    def query(self, q, data):
        q32 = f32(q)
        expect = {h for h, (r, _) in self.model.items() if meets(r, q32)}
        assert set(self.tree.query(q)) == expect
        if self.model:
            omit = data.draw(st.sampled_from(sorted(self.model)))
            assert set(self.tree.query(q, omit=omit)) == expect - {omit}

    @rule(x=coordinate, y=coordinate)
    def query_point(self, x, y):
        p = f32((x, y, x, y))
        expect = {h for h, (r, _) in self.model.items() if meets(r, p)}
        assert set(self.tree.query_point(x, y)) == expect

    @rule(qs=st.lists(rects(), max_size=5))
    def query_many(self, qs):
        offsets, hits = self.tree.query_many(np.array(qs, dtype=np.float64).reshape(-1, 4))
        assert len(offsets) == len(qs) + 1
        for i, q in enumerate(qs):
            q32 = f32(q)
            expect = {h for h, (r, _) in self.model.items() if meets(r, q32)}
            assert sorted(hits[offsets[i] : offsets[i + 1]].tolist()) == sorted(expect)

    @rule()
    def pairs(self):
        items = sorted(self.model.items())
        expect = {
            frozenset((a, b))
            for i, (a, (ra, _)) in enumerate(items)
            for b, (rb, _) in items[i + 1 :]
            if meets(ra, rb)
        }
        got = self.tree.pairs().tolist()
        assert len(got) == len(expect)
        assert {frozenset(p) for p in got} == expect

    @invariant()
    def agrees_with_model(self):
        if not hasattr(self, "tree"):
            return
        assert len(self.tree) == len(self.model)
        for h, (r, i) in self.model.items():
            assert h in self.tree
            assert self.tree.rect_of(h) == r
            assert self.tree.id_of(h) == i
        for h in self.issued - self.model.keys():
            assert h not in self.tree
        self.tree._validate()


def machine_test(cls, scale):
    """The TestCase running IndexMachine on `cls`, for `scale` times the
    profile's examples."""
    machine = type(f"{cls.__name__}Machine", (IndexMachine,), {"cls": cls})
    machine.TestCase.settings = settings(
        max_examples=int(settings.default.max_examples * scale),
        stateful_step_count=50,
        deadline=None,
    )
    return machine.TestCase


# The quadtree has the most cases to reach (splits, merges, depths): it keeps
# the 300 runs of 50 steps it had alone; each grid gets half as many, which
# keeps the whole suite well under a minute.
TestQuadtreeMachine = machine_test(flatquad.Quadtree, 3)
TestGridMachine = machine_test(flatquad.Grid, 1.5)
TestLooseGridMachine = machine_test(flatquad.LooseGrid, 1.5)


@pytest.mark.parametrize("seed", range(3))
def test_machine_snapshot_round_trip(make_index, seed):
    # The state machine's structures also survive pickling mid-run: replay a
    # fixed random run and compare a pickled copy at the end.
    import pickle

    rng = np.random.default_rng(seed)
    tree = make_index(WORLD)
    live = []
    for _ in range(300):
        op = rng.integers(0, 4)
        if op == 0 or not live:
            x, y = rng.uniform(-10, 70, 2)
            live.append(tree.insert((x, y, x + rng.uniform(0, 5), y + rng.uniform(0, 5))))
        elif op == 1:
            tree.remove(live.pop(rng.integers(len(live))))
        elif op == 2:
            x, y = rng.uniform(-10, 70, 2)
            tree.move(live[rng.integers(len(live))], (x, y, x + 1, y + 1))
        else:
            tree.cleanup()
    copy = pickle.loads(pickle.dumps(tree))
    assert copy.to_bytes() == tree.to_bytes()
    copy._validate()
