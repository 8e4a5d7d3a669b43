"""Shared settings: hypothesis profiles sized so the whole suite stays well under
two minutes on two cores (`HYPOTHESIS_PROFILE=thorough` for a longer run), and
the structures every test of the shared API runs on."""

import importlib.util
import os
import pathlib

import pytest
from hypothesis import HealthCheck, settings

import flatquad

settings.register_profile(
    "default",
    deadline=None,
    max_examples=100,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "thorough",
    deadline=None,
    max_examples=1000,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

#: Every structure: they share one API (``flatquad.SpatialIndex``) and give the
#: same answers, so a test of that API runs on each.
STRUCTURES = [flatquad.Quadtree, flatquad.Grid, flatquad.LooseGrid, flatquad.LooseQuadtree]

#: Parameters worth testing per structure: the defaults (``{}``), small cells
#: that split or spread elements a lot, uneven ones.
PARAMS = {
    flatquad.Quadtree: [
        {"max_elements": 1, "max_depth": 6},
        {"max_elements": 4, "max_depth": 8},
        {"max_elements": 8, "max_depth": 10},
    ],
    flatquad.LooseQuadtree: [
        {"max_elements": 1, "max_depth": 6},
        {"max_elements": 4, "max_depth": 8, "max_extent": 8},
        {},
    ],
    flatquad.Grid: [{}, {"columns": 7, "rows": 3}, {"columns": 64, "rows": 64}],
    flatquad.LooseGrid: [
        {},
        {"columns": 8, "rows": 8, "tight_columns": 4, "tight_rows": 4},
        {"columns": 33, "rows": 5, "tight_columns": 1, "tight_rows": 5},
    ],
}


@pytest.fixture(params=STRUCTURES, ids=lambda cls: cls.__name__)
def make_index(request):
    """``make_index(bounds, **params)``: each structure's class in turn."""
    return request.param


def placeholder(cls):
    """Whether the core's `cls` is still the brute-force placeholder, which
    takes any parameters and shows 1 for each (until the real structure is
    merged): tests of parameter values and of long workloads wait for it."""
    if cls is flatquad.Grid:
        return flatquad.Grid((0, 0, 8, 8), columns=4, rows=2).columns != 4
    if cls is flatquad.LooseGrid:
        return flatquad.LooseGrid((0, 0, 8, 8), 4, 2, 2, 1).columns != 4
    return False


def load_example(name):
    """``examples/<name>.py`` as a module, loaded as a user would run it."""
    path = pathlib.Path(__file__).resolve().parents[1] / "examples" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"{name}_example", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
