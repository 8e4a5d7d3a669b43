"""Nearest neighbours, circle (sphere) queries and ray casts on every structure
and the octree, against a brute-force oracle computed here in float64 from the
stored float32 boxes (distance to a closed box, the slab method): the same
bits, the same order (ascending distance, then id, then handle). Bad input is
refused with the structure unchanged; callbacks that raise propagate."""

import math

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

#: Every structure with parameters that split or spread a lot, and the octree.
CASES = [(cls, p) for cls in STRUCTURES for p in PARAMS[cls][:2]] + [
    (flatquad.Octree, {"max_elements": 2, "max_depth": 5}),
    (flatquad.Octree, {}),
]
CASE_IDS = [f"{cls.__name__}-{i}" for i, (cls, _) in enumerate(CASES)]


def axes_of(cls):
    return 3 if cls is flatquad.Octree else 2


# The oracle.


def distances(boxes, point):
    """Distance from ``point`` to each closed box, in float64 as the core
    computes it (per-axis gap, squares summed axis by axis, square root)."""
    axes = boxes.shape[1] // 2
    b = boxes.astype(np.float64)
    p = np.asarray(point, dtype=np.float32).astype(np.float64)
    total = np.zeros(len(b))
    for a in range(axes):
        gap = np.maximum(np.maximum(b[:, a] - p[a], p[a] - b[:, a + axes]), 0.0)
        total = total + gap * gap
    return np.sqrt(total) + 0.0


def ray_entries(boxes, origin, direction, max_length):
    """Where the segment first touches each closed box (NaN for a miss): the
    slab method in float64 with the direction normalised in float64."""
    axes = boxes.shape[1] // 2
    b = boxes.astype(np.float64)
    o = np.asarray(origin, dtype=np.float32).astype(np.float64)
    d = np.asarray(direction, dtype=np.float32).astype(np.float64)
    length = 0.0
    for a in range(axes):
        length += d[a] * d[a]
    d = d / math.sqrt(length)
    enter = np.zeros(len(b))
    exit_ = np.full(len(b), float(max_length))
    hit = np.ones(len(b), dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        for a in range(axes):
            lo, hi = b[:, a], b[:, a + axes]
            if d[a] == 0.0:
                hit &= (lo <= o[a]) & (o[a] <= hi)
                continue
            t1, t2 = (lo - o[a]) / d[a], (hi - o[a]) / d[a]
            enter = np.maximum(enter, np.minimum(t1, t2))
            exit_ = np.minimum(exit_, np.maximum(t1, t2))
    hit &= enter <= exit_
    return np.where(hit, enter + 0.0, np.nan)


def sweep_entries(boxes, moving, motion):
    """The fraction ``t`` in [0, 1] at which ``moving`` moved by ``t * motion``
    first touches each closed box (NaN for a miss), in float64 from the
    float32 bounds as the core computes it: per axis ``t * d`` between
    ``b.lo - moving.hi`` and ``b.hi - moving.lo``."""
    axes = boxes.shape[1] // 2
    b = boxes.astype(np.float64)
    m = np.asarray(moving, dtype=np.float32).astype(np.float64)
    d = np.asarray(motion, dtype=np.float32).astype(np.float64)
    enter = np.zeros(len(b))
    exit_ = np.ones(len(b))
    hit = np.ones(len(b), dtype=bool)
    for a in range(axes):
        lo, hi = b[:, a] - m[a + axes], b[:, a + axes] - m[a]
        if d[a] == 0.0:
            hit &= (lo <= 0.0) & (0.0 <= hi)
            continue
        t1, t2 = lo / d[a], hi / d[a]
        enter = np.maximum(enter, np.minimum(t1, t2))
        exit_ = np.minimum(exit_, np.maximum(t1, t2))
    hit &= enter <= exit_
    return np.where(hit, enter + 0.0, np.nan)


class Model:
    """The elements as the structure stores them, and their filters."""

    def __init__(self, index):
        elements = index.elements()
        self.handles = elements.handles
        self.boxes = elements.rects
        self.ids = elements.ids
        self.categories = np.array([index.filter(h)[0] for h in self.handles.tolist()], dtype=np.int64)

    def passing(self, mask):
        return np.ones(len(self.handles), bool) if mask in (None, ALL) else (self.categories & mask) != 0

    def ordered(self, keys, keep):
        """Indices of the kept elements by ascending (key, id, handle)."""
        idx = np.nonzero(keep)[0]
        return idx[np.lexsort((self.handles[idx], self.ids[idx], keys[idx]))]

    def circle(self, center, radius, mask=None):
        d = distances(self.boxes, center)
        return set(self.handles[(d <= radius) & self.passing(mask)].tolist())

    def nearest(self, point, k, max_distance=None, mask=None, accept=None):
        d = distances(self.boxes, point)
        keep = self.passing(mask)
        if max_distance is not None:
            keep &= d <= max_distance
        if accept is not None:
            keep &= np.array([accept(h) for h in self.handles.tolist()], dtype=bool)
        order = self.ordered(d, keep)[:k]
        return self.handles[order].tolist(), d[order].tolist()

    def ray(self, origin, direction, max_length, mask=None):
        t = ray_entries(self.boxes, origin, direction, max_length)
        order = self.ordered(t, ~np.isnan(t) & self.passing(mask))
        return [
            flatquad.RayHit(int(self.handles[i]), int(self.ids[i]), float(t[i]), float(t[i] / max_length) if max_length > 0 else 0.0)
            for i in order
        ]

    def box_cast(self, moving, motion, mask=None, omit=None):
        t = sweep_entries(self.boxes, moving, motion)
        keep = ~np.isnan(t) & self.passing(mask) & (self.handles != (omit or 0))
        length = math.sqrt(sum(float(np.float32(v)) ** 2 for v in motion))
        return [
            flatquad.RayHit(int(self.handles[i]), int(self.ids[i]), float(t[i]) * length, float(t[i]))
            for i in self.ordered(t, keep)
        ]


def build(cls, params, seed, n=400):
    """A structure of random boxes (points, segments, duplicates, some outside
    the world), a few removed and moved, ids with ties, random filters on some."""
    rng = np.random.default_rng(seed)
    axes = axes_of(cls)
    if axes == 2:
        boxes = oracle.random_rects(rng, n, WORLD2)
        index = cls(WORLD2, **params)
    else:
        lo = rng.uniform(-15, 115, (n, 3))
        size = rng.uniform(0, 12, (n, 3))
        size[rng.random(n) < 0.1] = 0
        grid = rng.random(n) < 0.3  # corners on a coarse grid: ties and touching faces
        lo[grid] = np.round(lo[grid] / 10) * 10
        size[grid] = np.round(size[grid] / 5) * 5
        lo[rng.random(n) < 0.05] = lo[0]  # duplicates
        boxes = np.concatenate([lo, lo + size], axis=1).astype(np.float32)
        index = cls(WORLD3, **params)
    handles = index.insert_many(boxes, ids=rng.integers(0, n // 4, n).astype(np.uint32))
    index.remove_many(handles[::7])
    moved = handles[1::7]
    index.move_many(moved, boxes[1::7] + np.float32(2))
    index.cleanup()
    live = np.delete(handles, np.s_[::7])
    some = live[2::3]
    index.set_filters(some, (1 << rng.integers(0, 3, len(some))).astype(np.uint32), ALL)
    return index, rng


def random_points(rng, n, axes):
    p = rng.uniform(-20, 120, (n, axes))
    p[: n // 4] = np.round(p[: n // 4] / 5) * 5  # on box edges more often
    return p


def random_direction(rng, axes):
    d = rng.normal(size=axes)
    kind = rng.integers(0, 4)
    if kind == 0:  # parallel to an axis
        d = np.zeros(axes)
        d[rng.integers(0, axes)] = rng.choice([-1.0, 1.0]) * rng.uniform(0.5, 3)
    elif kind == 1:  # a diagonal
        d = rng.choice([-1.0, 1.0], axes)
    return d


# Against the oracle, on every structure.


@pytest.mark.parametrize("cls, params", CASES, ids=CASE_IDS)
def test_circles_match_brute_force(cls, params):
    index, rng = build(cls, params, seed=11)
    model = Model(index)
    axes = axes_of(cls)
    centers = random_points(rng, 60, axes)
    radii = rng.choice([0.0, 0.5, 4.0, 25.0, math.inf], 60)
    for mask in (None, 1, 0b110, 0):
        offsets, hits = index.query_circle_many(centers, radii, mask=mask)
        assert offsets.dtype == np.int64 and offsets.shape == (61,)
        for i, (c, r) in enumerate(zip(centers, radii)):
            want = model.circle(c, r, mask)
            got = index.query_circle(*c, r, mask=mask)
            assert len(got) == len(set(got)) and set(got) == want
            row = hits[offsets[i] : offsets[i + 1]].tolist()
            assert sorted(row) == sorted(got)
    # One radius for all.
    offsets, hits = index.query_circle_many(centers.astype(np.float32), 3.0)
    for i, c in enumerate(centers.astype(np.float32)):
        assert set(hits[offsets[i] : offsets[i + 1]].tolist()) == model.circle(c, 3.0)


@pytest.mark.parametrize("cls, params", CASES, ids=CASE_IDS)
def test_a_big_nearest_batch_matches_single_searches(cls, params):
    """From 1,000 points the batch runs on every core: the same rows, in order.
    (On one core, or with RAYON_NUM_THREADS=1, this checks the serial path.)"""
    index, rng = build(cls, params, seed=21)
    points = random_points(rng, 2500, axes_of(cls))
    offsets, handles, dists = index.nearest_many(points, k=3)
    assert offsets.shape == (len(points) + 1,)
    for i in range(0, len(points), 7):
        want = index.nearest(*points[i], k=3, return_distance=True)
        assert handles[offsets[i] : offsets[i + 1]].tolist() == want[0]
        assert dists[offsets[i] : offsets[i + 1]].tolist() == want[1]


@pytest.mark.parametrize("cls, params", CASES, ids=CASE_IDS)
def test_nearest_matches_brute_force_in_order(cls, params):
    index, rng = build(cls, params, seed=12)
    model = Model(index)
    axes = axes_of(cls)
    points = random_points(rng, 50, axes)
    for k, max_distance, mask in [(1, None, None), (7, None, None), (5, 6.0, None), (3, None, 0b10), (0, None, None),
                                  (len(index) + 5, None, None), (4, 0.0, None), (2, math.inf, ALL)]:
        # k past the element count walks every cell of a fine grid: a few points do.
        pts = points[:5] if k > 50 else points
        offsets, handles, dists = index.nearest_many(pts, k=k, max_distance=max_distance, mask=mask)
        assert handles.dtype == np.int64 and dists.dtype == np.float64 and offsets.shape == (len(pts) + 1,)
        for i, p in enumerate(pts):
            want = model.nearest(p, k, max_distance, mask)
            got = index.nearest(*p, k=k, max_distance=max_distance, return_distance=True, mask=mask)
            assert got == want  # handles in order, distances to the bit
            assert index.nearest(*p, k=k, max_distance=max_distance, mask=mask) == want[0]
            assert handles[offsets[i] : offsets[i + 1]].tolist() == want[0]
            assert dists[offsets[i] : offsets[i + 1]].tolist() == want[1]
    # The filter: rejected candidates do not count towards k, each is asked once.
    ids = dict(zip(model.handles.tolist(), model.ids.tolist()))
    for p in points[:15]:
        asked = []

        def odd_ids(h):
            asked.append(h)
            return ids[h] % 2 == 1

        got = index.nearest(*p, k=4, filter=odd_ids, return_distance=True)
        assert got == model.nearest(p, 4, accept=lambda h: ids[h] % 2 == 1)
        assert len(asked) == len(set(asked)) and set(got[0]) <= set(asked)
        assert index.nearest(*p, k=3, filter=lambda h: 1) == model.nearest(p, 3)[0]  # truthy values accept


@pytest.mark.parametrize("cls, params", CASES, ids=CASE_IDS)
def test_ray_cast_many_gives_each_rays_first_hit(cls, params):
    """Each ray's first hit, as ``ray_cast`` gives it (0 and inf for a miss),
    with one length for all rays or one each, and a mask; from 1,000 rays the
    batch runs on every core (on one core, or with RAYON_NUM_THREADS=1, this
    checks the serial path). A bad ray is refused at its row."""
    index, rng = build(cls, params, seed=31)
    axes = axes_of(cls)
    n = 2500
    origins = random_points(rng, n, axes)
    directions = np.array([random_direction(rng, axes) for _ in range(n)])
    lengths = rng.choice([0.0, 3.0, 40.0, 300.0], n)
    for max_length, mask in [(lengths, None), (25.0, 0b101)]:
        handles, dists = index.ray_cast_many(origins, directions, max_length, mask=mask)
        assert handles.dtype == np.int64 and dists.dtype == np.float64
        assert handles.shape == dists.shape == (n,)
        each = np.broadcast_to(max_length, (n,))
        for i in range(0, n, 5):
            want = index.ray_cast(*origins[i], *directions[i], float(each[i]), mask=mask)
            if want is None:
                assert (handles[i], dists[i]) == (0, math.inf)
            else:
                assert (handles[i], dists[i]) == (want.handle, want.distance)
        assert (handles != 0).any() and (handles == 0).any()
    bad = directions.copy()
    bad[1234] = 0.0
    with pytest.raises(ValueError, match=r"rays\[1234\]") as refused:
        index.ray_cast_many(origins, bad, 10.0)
    assert refused.value.index == 1234
    with pytest.raises(ValueError, match="directions has 3 items but origins has 2500"):
        index.ray_cast_many(origins, directions[:3], 10.0)
    with pytest.raises(ValueError, match="max_length has 3 items but origins has 2500"):
        index.ray_cast_many(origins, directions, lengths[:3])
    empty = index.ray_cast_many(np.empty((0, axes)), np.empty((0, axes)), 1.0)
    assert [a.shape for a in empty] == [(0,), (0,)]


@pytest.mark.parametrize("cls, params", CASES, ids=CASE_IDS)
def test_ray_casts_match_brute_force_in_order(cls, params):
    index, rng = build(cls, params, seed=13)
    model = Model(index)
    axes = axes_of(cls)
    for _ in range(60):
        origin = random_points(rng, 1, axes)[0]
        direction = random_direction(rng, axes)
        max_length = float(rng.choice([0.0, 3.0, 40.0, 300.0]))
        for mask in (0b101, None):  # unmasked last: `want` below
            want = model.ray(origin, direction, max_length, mask)
            got = index.ray_cast_all(*origin, *direction, max_length, mask=mask)
            assert got == want
            assert all(type(h) is flatquad.RayHit for h in got)
            assert index.ray_cast(*origin, *direction, max_length, mask=mask) == (want[0] if want else None)
            seen = []
            assert index.ray_cast_with(*origin, *direction, max_length, seen.append, mask=mask) is None
            assert seen == want
        if not want:
            continue
        # Clip at each hit's distance: only the hits as near as the first.
        seen = []

        def clip(hit):
            seen.append(hit)
            return hit.distance

        index.ray_cast_with(*origin, *direction, max_length, clip)
        assert seen == [h for h in want if h.distance == want[0].distance]
        # False stops after the first; True and None go on.
        seen = []
        index.ray_cast_with(*origin, *direction, max_length, lambda h: seen.append(h) or False)
        assert seen == want[:1]
        seen = []
        index.ray_cast_with(*origin, *direction, max_length, lambda h: seen.append(h) is None)
        assert seen == want
        # A clip to a length between two hits keeps the ones up to it.
        cut = want[len(want) // 2].distance
        seen = []
        index.ray_cast_with(*origin, *direction, max_length, lambda h: seen.append(h) or cut)
        assert seen == [h for h in want if h.distance <= cut]
        # A negative or NaN clip stops.
        for stop in (-1.0, math.nan):
            seen = []
            index.ray_cast_with(*origin, *direction, max_length, lambda h: seen.append(h) or stop)
            assert seen == want[:1]


@pytest.mark.parametrize("cls, params", CASES, ids=CASE_IDS)
def test_box_casts_match_brute_force_in_order(cls, params):
    index, rng = build(cls, params, seed=17)
    model = Model(index)
    axes = axes_of(cls)
    live = model.handles.tolist()
    for _ in range(60):
        lo = random_points(rng, 1, axes)[0]
        size = rng.choice([0.0, 0.5, 4.0, 20.0], axes)
        moving = [float(v) for v in lo] + [float(v + s) for v, s in zip(lo, size)]
        motion = [float(v) for v in rng.choice([0.0, 1.0, -7.5, 60.0, -300.0], axes) * rng.random(axes).round(1)]
        omit = int(rng.choice(live)) if rng.random() < 0.3 else None
        for mask in (0b101, None):
            want = model.box_cast(moving, motion, mask, omit)
            got = index.box_cast_all(moving, *motion, mask=mask, omit=omit)
            assert got == want
            assert all(type(h) is flatquad.RayHit for h in got)
            assert index.box_cast(moving, *motion, mask=mask, omit=omit) == (want[0] if want else None)


def test_box_cast_refuses_bad_input_and_changes_nothing():
    index = flatquad.Grid(WORLD2)
    a = index.insert((10, 10, 20, 20))
    wall = index.insert((50, 0, 55, 100))
    hit = index.box_cast((10, 10, 20, 20), 40, 0, omit=a)
    assert (hit.handle, hit.fraction, hit.distance) == (wall, 0.75, 30.0)
    assert index.box_cast((10, 10, 20, 20), 40, 0).handle == a  # touches itself at t = 0
    assert [h.handle for h in index.box_cast_all((10, 10, 20, 20), 40, 0)] == [a, wall]
    for rect, motion in [
        ((math.nan, 0, 1, 1), (1, 0)),
        ((5, 5, 1, 1), (1, 0)),  # inverted
        ((0, 0, 1, 1), (math.inf, 0)),
        ((0, 0, 1, 1), (0, math.nan)),
    ]:
        with pytest.raises(ValueError):
            index.box_cast(rect, *motion)
        with pytest.raises(ValueError):
            index.box_cast_all(rect, *motion)
    with pytest.raises(KeyError):
        index.box_cast((0, 0, 1, 1), 1, 0, omit=a + 12345)
    index.remove(a)
    with pytest.raises(KeyError):
        index.box_cast_all((0, 0, 1, 1), 1, 0, omit=a)  # stale
    assert len(index) == 1 and index.box_cast((0, 0, 1, 1), 100, 0).handle == wall
    space = flatquad.Octree(WORLD3)
    b = space.insert((50, 0, 0, 55, 100, 100))
    assert space.box_cast((10, 10, 10, 20, 20, 20), 40, 0, 0).fraction == 0.75
    assert space.box_cast_all((10, 10, 10, 20, 20, 20), 0, 40, 0) == []
    with pytest.raises(ValueError):
        space.box_cast((0, 0, 0, 1, 1, 1), 0, 0, math.inf)
    assert len(space) == 1 and b


coord = st.floats(-20, 120, allow_nan=False, width=32)
side = st.one_of(st.just(0.0), st.floats(0, 30, allow_nan=False, width=32))


@given(st.sampled_from(CASES), st.data())
def test_small_sets_match_brute_force(case, data):
    """Hypothesis: few boxes, exact in float32, many ties and touching edges."""
    cls, params = case
    axes = axes_of(cls)
    index = cls(WORLD3 if axes == 3 else WORLD2, **params)
    n = data.draw(st.integers(0, 30))
    for i in range(n):
        lo = [data.draw(coord) for _ in range(axes)]
        hi = [a + data.draw(side) for a in lo]
        index.insert(lo + hi, id=data.draw(st.integers(0, 3)))
    model = Model(index)
    p = [data.draw(coord) for _ in range(axes)]
    k = data.draw(st.integers(0, 6))
    assert index.nearest(*p, k=k, return_distance=True) == model.nearest(p, k)
    r = data.draw(st.floats(0, 50))
    assert set(index.query_circle(*p, r)) == model.circle(p, r)
    d = [data.draw(st.sampled_from([-2.0, -1.0, 0.0, 0.5, 1.0])) for _ in range(axes)]
    if not any(d):
        d[0] = 1.0
    length = data.draw(st.floats(0, 200))
    assert index.ray_cast_all(*p, *d, length) == model.ray(p, d, length)


def test_a_small_2d_example():
    grid = flatquad.Grid((0, 0, 100, 100))
    wall = grid.insert((40, 0, 45, 100), id=7)
    far = grid.insert((60, 0, 65, 100), id=8)
    hit = grid.ray_cast(10, 50, 2, 0, 80)
    assert hit == flatquad.RayHit(wall, 7, 30.0, 0.375)
    assert hit.handle == wall and hit.fraction == 0.375
    assert grid.ray_cast(10, 50, 2, 0, 20) is None
    assert grid.nearest(25, 15, k=2, return_distance=True) == ([wall, far], [15.0, 35.0])
    assert grid.nearest(25, 15, k=5, max_distance=20) == [wall]
    assert [h.handle for h in grid.ray_cast_all(0, 50, 1, 0, 100)] == [wall, far]


# Bad input and callbacks.


class Boom(Exception):
    pass


def bad_calls(index, axes):
    """(call, exception, message): each must change nothing."""
    p = [1.0] * axes
    d = [1.0] + [0.0] * (axes - 1)
    nan_p = [math.nan] + [1.0] * (axes - 1)
    return [
        (lambda: index.query_circle(*nan_p, 1.0), ValueError, "InvalidPoint"),
        (lambda: index.query_circle(*p, -1.0), ValueError, "InvalidParameter"),
        (lambda: index.query_circle(*p, math.nan), ValueError, "InvalidParameter"),
        (lambda: index.query_circle(*p, 1.0, mask=-1), ValueError, None),
        (lambda: index.query_circle_many([p, nan_p], 1.0), ValueError, "InvalidPoint"),
        (lambda: index.query_circle_many([p, p], [1.0, -2.0]), ValueError, "InvalidParameter"),
        (lambda: index.query_circle_many([p, p], [1.0]), ValueError, "LengthMismatch"),
        (lambda: index.query_circle_many(p, 1.0), ValueError, None),
        (lambda: index.query_circle_many([p], "x"), TypeError, None),
        (lambda: index.nearest(*nan_p), ValueError, "InvalidPoint"),
        (lambda: index.nearest(*p, k=-1), ValueError, "InvalidParameter"),
        (lambda: index.nearest(*p, max_distance=-0.5), ValueError, "InvalidParameter"),
        (lambda: index.nearest(*p, max_distance=math.nan), ValueError, "InvalidParameter"),
        (lambda: index.nearest(*p, filter=3), TypeError, None),
        (lambda: index.nearest_many([p, nan_p]), ValueError, "InvalidPoint"),
        (lambda: index.nearest_many([p], k=-2), ValueError, "InvalidParameter"),
        (lambda: index.nearest_many([p], max_distance=-1.0), ValueError, "InvalidParameter"),
        (lambda: index.ray_cast(*p, *([0.0] * axes), 10.0), ValueError, "InvalidParameter"),
        (lambda: index.ray_cast(*nan_p, *d, 10.0), ValueError, "InvalidPoint"),
        (lambda: index.ray_cast(*p, *([math.nan] + [1.0] * (axes - 1)), 10.0), ValueError, "InvalidParameter"),
        (lambda: index.ray_cast(*p, *d, -1.0), ValueError, "InvalidParameter"),
        (lambda: index.ray_cast(*p, *d, math.inf), ValueError, "InvalidParameter"),
        (lambda: index.ray_cast_all(*p, *([0.0] * axes), 10.0), ValueError, "InvalidParameter"),
        (lambda: index.ray_cast_with(*p, *([0.0] * axes), 10.0, print), ValueError, "InvalidParameter"),
        (lambda: index.ray_cast_with(*p, *d, 10.0, None), TypeError, None),
    ]


@pytest.mark.parametrize("cls, params", CASES[::2], ids=CASE_IDS[::2])
def test_bad_input_changes_nothing(cls, params):
    index, _ = build(cls, params, seed=14, n=60)
    axes = axes_of(cls)
    before = index.to_bytes()
    for call, exc, kind in bad_calls(index, axes):
        with pytest.raises(exc) as info:
            call()
        if kind is not None:
            assert info.value.kind == kind, (info.value, kind)
        assert index.to_bytes() == before
    with pytest.raises(ValueError) as info:
        index.nearest_many([[1.0] * axes, [1.0] * axes, [math.inf] * axes])
    assert info.value.index == 2


@pytest.mark.parametrize("cls, params", CASES[::2], ids=CASE_IDS[::2])
def test_callbacks_that_raise_propagate_and_change_nothing(cls, params):
    index, rng = build(cls, params, seed=15, n=200)
    axes = axes_of(cls)
    before = index.to_bytes()
    p = [50.0] * axes
    d = [1.0] * axes
    calls = []

    def raising(arg):
        calls.append(arg)
        raise Boom("from the callback")

    with pytest.raises(Boom, match="from the callback"):
        index.nearest(*p, k=5, filter=raising)
    assert len(calls) == 1  # nothing more is asked after the exception
    calls.clear()
    with pytest.raises(Boom):
        index.ray_cast_with(*[-20.0] * axes, *d, 500.0, raising)
    assert len(calls) == 1
    # The structure cannot be modified from a callback; it can be queried.
    victim = int(index.elements().handles[0])

    def mutate(arg):
        index.remove(victim)

    with pytest.raises(RuntimeError, match="cannot modify"):
        index.nearest(*p, filter=mutate)
    with pytest.raises(RuntimeError, match="cannot modify"):
        index.ray_cast_with(*[-20.0] * axes, *d, 500.0, mutate)
    with pytest.raises(TypeError, match="must return None, True, False or a number"):
        index.ray_cast_with(*[-20.0] * axes, *d, 500.0, lambda hit: "on")
    assert index.nearest(*p, k=2, filter=lambda h: len(index.query_circle(*p, 5.0)) >= 0) == index.nearest(*p, k=2)
    assert index.to_bytes() == before
    assert victim in index
