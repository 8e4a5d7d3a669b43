"""Brute force: the answers every structure must give, computed over numpy
arrays with the core's own float32 comparisons (closed rectangles: touching
counts)."""

import numpy as np


def f32_rects(rects):
    """Rectangles as the structures store them: float32, shape (n, 4)."""
    return np.asarray(rects, dtype=np.float32).reshape(-1, 4)


def query(rects, handles, q, omit=None):
    """Set of handles whose rectangle meets the closed rectangle q."""
    r = f32_rects(rects)
    q = np.asarray(q, dtype=np.float32)
    hit = (r[:, 0] <= q[2]) & (q[0] <= r[:, 2]) & (r[:, 1] <= q[3]) & (q[1] <= r[:, 3])
    out = {int(h) for h in np.asarray(handles)[hit]}
    out.discard(omit)
    return out


def query_point(rects, handles, x, y, omit=None):
    x, y = np.float32(x), np.float32(y)
    return query(rects, handles, (x, y, x, y), omit)


def pairs(rects, handles):
    """Set of frozenset({a, b}) for every overlapping pair (a != b)."""
    r = f32_rects(rects)
    handles = np.asarray(handles)
    hit = (
        (r[:, None, 0] <= r[None, :, 2])
        & (r[None, :, 0] <= r[:, None, 2])
        & (r[:, None, 1] <= r[None, :, 3])
        & (r[None, :, 1] <= r[:, None, 3])
    )
    i, j = np.nonzero(np.triu(hit, k=1))
    return {frozenset((int(handles[a]), int(handles[b]))) for a, b in zip(i, j)}


def pair_set(array):
    """A structure's pairs() as a set of frozensets, checking each is reported once."""
    array = np.asarray(array)
    assert array.ndim == 2 and array.shape[1] == 2, array.shape
    out = {frozenset((int(a), int(b))) for a, b in array}
    assert len(out) == len(array), "a pair was reported twice"
    assert all(len(p) == 2 for p in out), "an element paired with itself"
    return out


def random_rects(rng, n, world=(0.0, 0.0, 100.0, 100.0)):
    """n rectangles in and around the world (x1, y1, x2, y2): small and
    large ones, points, segments, exact duplicates, some wholly outside the
    world, and many edges on a coarse grid so that touching is common."""
    x, y = world[0], world[1]
    w, h = world[2] - world[0], world[3] - world[1]
    size = max(w, h)
    cx = rng.uniform(x - 0.1 * w, x + 1.1 * w, n)
    cy = rng.uniform(y - 0.1 * h, y + 1.1 * h, n)
    grid = rng.random(n) < 0.3
    step = size / 64
    cx[grid] = np.round(cx[grid] / step) * step
    cy[grid] = np.round(cy[grid] / step) * step
    kind = rng.integers(0, 10, n)
    ww = np.where(kind < 6, rng.uniform(0, 0.03 * size, n), rng.uniform(0, 0.3 * size, n))
    hh = np.where(kind < 6, rng.uniform(0, 0.03 * size, n), rng.uniform(0, 0.3 * size, n))
    ww[kind == 8] = 0  # vertical segments / points
    hh[kind == 9] = 0  # horizontal segments
    ww[grid] = np.round(ww[grid] / step) * step
    hh[grid] = np.round(hh[grid] / step) * step
    r = np.stack([cx, cy, cx + ww, cy + hh], axis=1).astype(np.float32)
    # A few exact duplicates, stacked on one spot.
    dup = rng.random(n) < 0.05
    if dup.any() and n > 0:
        r[dup] = r[0]
    return r
