# The Python package (bindings-python/): a virtual environment with the pinned
# tools, the abi3 wheel built by maturin from the workspace's release build, and
# its pytest suite.
#
#   make test-python     venv + wheel + pytest; part of `make test`
#   make test-geopandas-suite  GeoPandas' own spatial-join tests run on flatquad.geopandas;
#                        part of `make test`
#   make test-geopandas-oldest  the GeoPandas tests (ours and GeoPandas' own) on the oldest
#                        stack we support (requirements-oldest.txt), in a second venv;
#                        part of `make test` (35-40 s warm)
#   make python-wheel    build target/python-wheels/flatquad-*.whl and install it in the venv
#   make bench-python    the agents workload from Python, beside the Rust demo and shapely (SCENARIO=...)
#   make bench-join      bulk box joins (1M x 1M) beside shapely's STRtree and geoindex-rs, and the
#                        GeoPandas and Dask joins beside geopandas.sjoin and dask-geopandas (not in make test)
#   make bench-dask-join 10,000,000 points x 1,000,000 polygons from GeoParquet on a LocalCluster of
#                        1 and 2 workers, flatquad.dask.sjoin beside dask-geopandas (not in make test)
#   make bench-dask-box-join  the largest box join that fits memory: flatquad.dask.join_bounds
#                        from 2M (beside dask-geopandas) to 100M boxes a side (not in make test)
#   make bench-nearest   1,000,000 nearest queries (k=1, k=10) over the static 100k agents beside
#                        shapely's STRtree.query_nearest, answers checked (not in make test)
#
# Needs only python3 (>= 3.9, with venv and pip) and cargo; everything else
# comes from PyPI into bindings-python/.venv (gitignored). PYTHON=... picks the
# interpreter the venv is made from.

PYTHON ?= python3
PY_DIR := $(CURDIR)/bindings-python
PY_VENV := $(PY_DIR)/.venv
PY_BIN := $(PY_VENV)/bin
PY_WHEELS := $(TARGET_DIR)/python-wheels
PY_PIP := $(PY_BIN)/python -m pip --disable-pip-version-check --quiet
# Rebuilt when the pinned requirements change.
PY_STAMP := $(PY_VENV)/.requirements-dev.stamp

.PHONY: test-python test-geopandas-suite test-geopandas-oldest python-venv python-wheel bench-python bench-static-python bench-join \
	bench-nearest bench-dask-join bench-dask-box-join

TEST_TARGETS += test-python test-geopandas-suite test-geopandas-oldest

$(PY_STAMP): $(PY_DIR)/requirements-dev.txt
	$(PYTHON) -m venv $(PY_VENV)
	$(REGISTRY_STEP) 600 $(PY_PIP) install -r $(PY_DIR)/requirements-dev.txt
	touch $@

python-venv: $(PY_STAMP)

# One release build in the workspace's target dir; the wheel is installed the way
# a user installs it, so the tests exercise what ships.
python-wheel: $(PY_STAMP)
	rm -rf $(PY_WHEELS)
	cd $(PY_DIR) && $(PY_BIN)/maturin build --release --interpreter $(PY_BIN)/python --out $(PY_WHEELS)
	$(PY_PIP) install --force-reinstall --no-deps $(PY_WHEELS)/flatquad-*.whl

# pytest exits non-zero on any failure, and with 5 when it collects no test.
test-python: python-wheel
	cd $(PY_DIR) && $(PY_BIN)/python -m pytest

# GeoPandas' own spatial-join tests (geopandas.tools.tests.test_sjoin, as its wheel
# ships it) with geopandas.sjoin and geopandas.sjoin_nearest routed to flatquad.geopandas
# by our pytest plugin (bindings-python/tests/geopandas_suite/route_to_flatquad.py),
# which also deselects, by name, the tests that read data files the wheel leaves out
# (a download; docs/geopandas.md lists them). A few seconds.
test-geopandas-suite: python-wheel
	cd $(PY_DIR) && PYTHONPATH=$(PY_DIR)/tests/geopandas_suite $(PY_BIN)/python -m pytest \
		-p route_to_flatquad --pyargs geopandas.tools.tests.test_sjoin

# The oldest GeoPandas, pandas, shapely and numpy we support (requirements-oldest.txt)
# in a venv of their own, with the wheel test-python tests: our GeoPandas tests and
# that GeoPandas' own test_sjoin. --only-binary: an interpreter the old pins have no
# wheels for fails at once instead of building numpy from source.
PY_OLDEST_VENV := $(PY_DIR)/.venv-oldest
PY_OLDEST_BIN := $(PY_OLDEST_VENV)/bin
PY_OLDEST_PIP := $(PY_OLDEST_BIN)/python -m pip --disable-pip-version-check --quiet
PY_OLDEST_STAMP := $(PY_OLDEST_VENV)/.requirements-oldest.stamp

$(PY_OLDEST_STAMP): $(PY_DIR)/requirements-oldest.txt
	$(PYTHON) -m venv $(PY_OLDEST_VENV)
	$(REGISTRY_STEP) 600 $(PY_OLDEST_PIP) install --only-binary :all: -r $(PY_DIR)/requirements-oldest.txt
	touch $@

test-geopandas-oldest: python-wheel $(PY_OLDEST_STAMP)
	$(PY_OLDEST_PIP) install --force-reinstall --no-deps $(PY_WHEELS)/flatquad-*.whl
	cd $(PY_DIR) && $(PY_OLDEST_BIN)/python -m pytest tests/test_geopandas*.py
	cd $(PY_DIR) && PYTHONPATH=$(PY_DIR)/tests/geopandas_suite $(PY_OLDEST_BIN)/python -m pytest \
		-p route_to_flatquad --pyargs geopandas.tools.tests.test_sjoin

# flatquad from Python beside the Rust demo and shapely, runs interleaved.
bench-python: python-wheel
	$(CARGO) build --release -p flatquad-bench --bin agents
	$(REGISTRY_STEP) 600 $(PY_PIP) install -r $(PY_DIR)/requirements-bench.txt
	$(PY_BIN)/python $(PY_DIR)/examples/agents.py $(SCENARIO) --rust $(TARGET_DIR)/release/agents

# docs/workload.md's static-1m-queries from Python beside shapely and geoindex-rs,
# flatquad on one thread, then on two.
bench-static-python: python-wheel
	$(REGISTRY_STEP) 600 $(PY_PIP) install -r $(PY_DIR)/requirements-bench.txt
	RAYON_NUM_THREADS=1 $(PY_BIN)/python $(PY_DIR)/bench/static_queries.py
	RAYON_NUM_THREADS=2 $(PY_BIN)/python $(PY_DIR)/bench/static_queries.py

# Bulk joins beside shapely and geoindex-rs (JOIN_N boxes a side), then the
# GeoPandas and Dask joins beside their peers.
JOIN_N ?= 1000000
bench-join: python-wheel
	$(REGISTRY_STEP) 600 $(PY_PIP) install -r $(PY_DIR)/requirements-bench.txt
	$(PY_BIN)/python $(PY_DIR)/bench/join.py --n $(JOIN_N)

# Nearest-neighbour queries beside shapely's STRtree.query_nearest (k=1 answers compared).
bench-nearest: python-wheel
	$(REGISTRY_STEP) 600 $(PY_PIP) install -r $(PY_DIR)/requirements-bench.txt
	$(PY_BIN)/python $(PY_DIR)/bench/nearest.py

# The distributed join from GeoParquet partitions (written once under the target
# dir) beside dask-geopandas, with and without its spatial shuffle.
DASK_JOIN_ARGS ?=
bench-dask-join: python-wheel
	$(REGISTRY_STEP) 600 $(PY_PIP) install -r $(PY_DIR)/requirements-bench.txt
	CARGO_TARGET_DIR=$(TARGET_DIR) $(PY_BIN)/python $(PY_DIR)/bench/dask_join.py $(DASK_JOIN_ARGS)

# The largest box join that fits: flatquad.dask.join_bounds over boxes made on the
# workers, 2M (beside dask-geopandas, shuffle counted) up to 100M a side.
DASK_BOX_JOIN_ARGS ?=
bench-dask-box-join: python-wheel
	$(REGISTRY_STEP) 600 $(PY_PIP) install -r $(PY_DIR)/requirements-bench.txt
	$(PY_BIN)/python $(PY_DIR)/bench/dask_box_join.py $(DASK_BOX_JOIN_ARGS)
