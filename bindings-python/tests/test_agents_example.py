"""examples/agents.py reproduces the docs/workload.md checksums (the small scenario
here; `make bench-python` runs uniform-100k)."""

import numpy as np
import pytest

import flatquad
from conftest import load_example, placeholder

@pytest.fixture(scope="module")
def agents():
    return load_example("agents")


def test_rng_matches_the_spec(agents):
    # A plain sequential LCG, as docs/workload.md writes it.
    state, expect = 12345, []
    for _ in range(10_000):
        state = (state * 1664525 + 1013904223) % 2**32
        expect.append(np.float32(state >> 8) * np.float32(1.0 / 16777216.0))
    np.testing.assert_array_equal(agents.lcg_draws(10_000), np.array(expect, dtype=np.float32))
    assert agents.lcg_draws(1)[0] == np.float32((87_628_868 >> 8) / 16_777_216)


def test_step_matches_sequential_float32(agents):
    a = agents.Agents(500, 64.0, 4.0)
    x, y, vx, vy = (list(v) for v in (a.x, a.y, a.vx, a.vy))
    limit = np.float32(60.0)
    for _ in range(200):
        a.step()
        for i in range(500):
            for p, v in ((x, vx), (y, vy)):
                p[i] = np.float32(p[i] + v[i])
                if p[i] < 0:
                    p[i], v[i] = np.float32(0), -v[i]
                if p[i] > limit:
                    p[i], v[i] = limit, -v[i]
    np.testing.assert_array_equal(a.x, np.array(x, np.float32))
    np.testing.assert_array_equal(a.vy, np.array(vy, np.float32))
    np.testing.assert_array_equal(a.rects[:, 2], np.array(x, np.float32) + np.float32(4))


@pytest.mark.parametrize("mode", ["all-pairs", "per-agent"])
@pytest.mark.parametrize(
    "index",
    [
        "quadtree",
        pytest.param("grid", marks=pytest.mark.skipif(placeholder(flatquad.Grid), reason="placeholder Grid")),
        pytest.param(
            "loose-grid", marks=pytest.mark.skipif(placeholder(flatquad.LooseGrid), reason="placeholder LooseGrid")
        ),
    ],
)
def test_checksum_uniform_20k(agents, index, mode):
    _, _, pairs_per_frame, _ = agents.run_flatquad("uniform-20k", mode, index)
    assert pairs_per_frame == 6257


def test_every_index_is_built_as_the_rust_demo_builds_it(agents):
    assert agents.INDEXES == ("quadtree", "grid", "loose-grid")
    assert type(agents.make_index("quadtree", 2048.0, 4.0)) is flatquad.Quadtree
    assert type(agents.make_index("grid", 2048.0, 4.0)) is flatquad.Grid
    assert type(agents.make_index("loose-grid", 2048.0, 4.0)) is flatquad.LooseGrid
