"""A pytest plugin that runs GeoPandas' own spatial-join tests on flatquad.

Loaded with ``-p route_to_flatquad`` (this directory on ``PYTHONPATH``) before
``--pyargs geopandas.tools.tests.test_sjoin`` is collected, it replaces every
name the tests reach geopandas' joins through with flatquad's:

- ``geopandas.sjoin`` and ``geopandas.sjoin_nearest`` (what ``test_sjoin.py``
  imports with ``from geopandas import sjoin, sjoin_nearest``, and what the
  ``GeoDataFrame.sjoin``/``GeoDataFrame.sjoin_nearest`` methods call);
- ``geopandas.tools.sjoin`` and ``geopandas.tools.sjoin_nearest`` (the package
  re-exports);
- ``sjoin`` and ``sjoin_nearest`` in the module ``geopandas.tools.sjoin``.

The session fails unless flatquad's functions were called; the summary shows
how often each was.

The tests that read geopandas' test data (``geopandas/tests/data``: the NYBB
boroughs and Natural Earth, which the wheel does not ship: a download) are
deselected, by name, when those files are absent: :data:`NEEDS_DATA`.

The module is not named ``conftest.py`` so that the ordinary suite
(``pytest`` in bindings-python) never loads it: it changes geopandas globally.
"""

import collections
import functools
import importlib
import os

import geopandas
import geopandas.tools

import flatquad.geopandas as fqg

_sjoin_module = importlib.import_module("geopandas.tools.sjoin")

#: Calls of flatquad's functions, by name.
CALLS = collections.Counter()


def _counted(name, function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        CALLS[name] += 1
        return function(*args, **kwargs)

    return wrapper


ROUTES = {"sjoin": _counted("sjoin", fqg.sjoin), "sjoin_nearest": _counted("sjoin_nearest", fqg.sjoin_nearest)}

for _name, _ours in ROUTES.items():
    setattr(geopandas, _name, _ours)
    setattr(geopandas.tools, _name, _ours)
    setattr(_sjoin_module, _name, _ours)


#: Tests of test_sjoin.py that read data files geopandas' wheel leaves out:
#: ``(name as it appears in the tests' node ids, files under tests/data)``.
NATURALEARTH = ("naturalearth_lowres/naturalearth_lowres.shp", "naturalearth_cities/naturalearth_cities.shp")
NEEDS_DATA = [
    ("TestSpatialJoinNYBB::", ("nybb_16a.zip",)),  # the whole class (its setup reads it)
    ("TestSpatialJoin::test_sjoin_shared_attribute", NATURALEARTH),
    ("test_sjoin.py::test_sjoin_inner", NATURALEARTH),
    ("TestNearest::test_sjoin_nearest_inner", NATURALEARTH),
]
DATA_DIR = os.path.join(os.path.dirname(geopandas.__file__), "tests", "data")


def pytest_collection_modifyitems(config, items):
    missing = [name for name, files in NEEDS_DATA
               if not all(os.path.exists(os.path.join(DATA_DIR, f)) for f in files)]
    deselected = [item for item in items if any(name in item.nodeid for name in missing)]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = [item for item in items if not any(name in item.nodeid for name in missing)]


def pytest_terminal_summary(terminalreporter):
    calls = ", ".join(f"{name} {CALLS[name]}" for name in ROUTES)
    terminalreporter.write_line(f"flatquad.geopandas calls (routed from geopandas): {calls}")


def pytest_sessionfinish(session, exitstatus):
    if session.testscollected and not sum(CALLS.values()):
        terminalreporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if terminalreporter is not None:
            terminalreporter.write_line("no test reached flatquad.geopandas: the routing failed")
        session.exitstatus = 1
