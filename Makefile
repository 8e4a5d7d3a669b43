# The two commands of the README: `make demo` runs the agents demo, `make test`
# runs every check CI runs. Both set up what they need from the registries.

CARGO ?= cargo
SCENARIO ?= uniform-100k

# Registry clients give up on a silent server instead of waiting for ever, and
# every step that downloads runs under mk/registry-step: a time limit per
# attempt and one retry (npm ci once hung for 20 minutes on a fresh clone).
export npm_config_fetch_timeout := 60000
export npm_config_fetch_retries := 3
export npm_config_fetch_retry_maxtimeout := 30000
export PIP_DEFAULT_TIMEOUT := 60
export PIP_RETRIES := 3
export CARGO_NET_RETRY := 3
export CARGO_HTTP_TIMEOUT := 60
REGISTRY_STEP := $(CURDIR)/mk/registry-step

.PHONY: demo test fetch lint fmt-check rust-test agents-check bench bench-events figures doc

INDEX ?= all

demo:
	$(CARGO) run --release -p flatquad-bench --bin agents -- $(SCENARIO) --index $(INDEX)

# Each binding adds its own test target to TEST_TARGETS from mk/*.mk.
TEST_TARGETS :=
# Where cargo builds, for the recipes that read its output (mk/*.mk).
TARGET_DIR := $(or $(CARGO_TARGET_DIR),$(CURDIR)/target)
-include mk/*.mk

test: fetch fmt-check lint rust-test agents-check $(TEST_TARGETS)
	@echo "make test: all checks passed"

# Every crate the workspace locks, downloaded once, bounded and retried; the
# builds after it need no registry.
fetch:
	$(REGISTRY_STEP) 600 $(CARGO) fetch --locked

fmt-check:
	$(CARGO) fmt --all -- --check

lint:
	$(CARGO) clippy --workspace --all-targets --features flatquad/rayon -- -D warnings

# Release mode: one optimised build serves the tests and the demo, and the
# property tests run many more cases in the same time. flatquad-testkit: the
# harness's own test, and its examples (soak, churn, fuzz_seeds) built.
rust-test:
	PROPTEST_CASES=$${PROPTEST_CASES:-1024} $(CARGO) test --release -p flatquad -p flatquad-testkit -p flatquad-bench --features flatquad/rayon

# The demo must reproduce the workload's checksums in both modes, with every
# structure, and the octree the 3D scenario's (exits non-zero otherwise).
agents-check:
	$(CARGO) run --release -p flatquad-bench --bin agents -- uniform-20k --index all
	$(CARGO) run --release -p flatquad-bench --bin agents -- uniform-100k --index all
	$(CARGO) run --release -p flatquad-bench --bin agents -- uniform3d-100k --index octree

# The table, then the README's figures generated from it (`make figures` alone
# regenerates them from the committed table).
bench:
	$(CARGO) run --release -p flatquad-bench --features peers --bin peers -- all --threads 2 --markdown docs/benchmarks.md
	$(CARGO) run --release -p flatquad-bench --features peers --bin searches -- --markdown docs/benchmarks.md
	$(MAKE) figures

# Contact events when only a share of the agents moves: the tracker beside all
# pairs plus a HashSet difference (docs/design.md, "Contact events"). INDEX=grid etc.
bench-events:
	$(CARGO) run --release -p flatquad-bench --bin events -- $(SCENARIO) --index $(if $(filter all,$(INDEX)),grid,$(INDEX))

figures:
	$(CARGO) run --release -p flatquad-bench --bin figures

doc:
	$(CARGO) doc --no-deps -p flatquad
