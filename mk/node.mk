# The Node package (bindings-node/): `make test-node` installs the npm tools the
# lockfile pins (`npm ci`), builds the addon once in release mode (napi build:
# cargo's release profile, the workspace's target/), checks that the committed
# generated files (native.js, index.d.ts) are what the build generates, and runs
# `node --test`. Needs only Node >= 20, npm and cargo.

NPM ?= npm
NODE ?= node

.PHONY: node-addon test-node bench-node bench-node-nearest bench-static-node

# The npm tools the lockfile pins, and the addon built in release mode: what
# the tests and the benchmarks below need on a fresh machine.
node-addon:
	cd bindings-node && $(REGISTRY_STEP) 300 $(NPM) ci --no-audit --no-fund
	cd bindings-node && $(NPM) run build

test-node: node-addon
	$(MAKE) --no-print-directory node-lockfile-check
	@if git -C bindings-node rev-parse --is-inside-work-tree >/dev/null 2>&1 && \
	    git -C bindings-node ls-files --error-unmatch index.d.ts native.js >/dev/null 2>&1 && \
	    ! git -C bindings-node diff --exit-code -- index.d.ts native.js; then \
	  echo "bindings-node: index.d.ts/native.js differ from what 'npm run build' generates: commit the regenerated files"; \
	  exit 1; \
	fi
	cd bindings-node && $(NODE) --test

# The agents workload from Node beside flatbush, rbush and the Rust demo (SCENARIO
# as for `make demo`).
bench-node: node-addon
	$(CARGO) build --release -p flatquad-bench --bin agents
	cd bindings-node && $(NPM) run bench -- $(SCENARIO) --runs 3 --rust $(TARGET_DIR)/release/agents

# docs/workload.md's static-1m-queries from Node beside flatbush and rbush,
# flatquad's batches on one thread, then on two. Not in `make test`.
bench-static-node: node-addon
	cd bindings-node && RAYON_NUM_THREADS=1 $(NPM) run bench:static
	cd bindings-node && RAYON_NUM_THREADS=2 $(NPM) run bench:static

# Nearest-neighbour queries (k = 1 and 10, 1M points) over a scenario's static
# agents, beside flatbush's neighbors(), answers checked equal. Not in `make test`.
bench-node-nearest: node-addon
	cd bindings-node && $(NPM) run bench:nearest -- $(SCENARIO)

TEST_TARGETS += test-node

# The committed lockfiles must be what npm itself writes for package.json (npm
# install rewrote bindings-node's once: `hasInstallScript`, `engines`): resolve
# them again offline-first, without scripts, and fail if a byte changed.
.PHONY: node-lockfile-check
node-lockfile-check:
	@for dir in bindings-node docs/site; do \
	  (cd $$dir && $(REGISTRY_STEP) 300 $(NPM) install --package-lock-only --ignore-scripts --no-audit --no-fund --prefer-offline >/dev/null) || exit 1; \
	  if ! git diff --exit-code --quiet -- $$dir/package-lock.json; then \
	    git --no-pager diff -- $$dir/package-lock.json; \
	    echo "$$dir/package-lock.json is not what npm writes for package.json: commit the lockfile npm install writes"; \
	    exit 1; \
	  fi; \
	done
