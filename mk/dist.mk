# Release artefacts, all into target/dist/, and the check that each installs the
# way the README says (tests/dist/check.sh).
#
#   make dist         the Python sdist and abi3 manylinux wheel (twine-checked), the npm
#                     main package and this platform's package (napi-rs layout), and the
#                     C tarball flatquad-VERSION-linux-x86_64.tar.gz (relocatable)
#   make dist-check   make dist, then install each into a fresh folder and use it; part of
#                     `make test` (it reuses the release builds the other targets made)
#
# Tools: maturin and twine pinned in the venv of mk/python.mk
# (requirements-dev.txt, requirements-dist.txt), the napi-rs CLI from
# bindings-node's lockfile (npm ci), and the C library of mk/c.mk.

DIST_DIR := $(TARGET_DIR)/dist
DIST_VERSION = $(C_VERSION)
DIST_MACHINE := $(shell uname -m)
DIST_C_NAME = flatquad-$(DIST_VERSION)-linux-$(DIST_MACHINE)
# The oldest manylinux policy this machine's glibc allows (Rust's std links
# symbols of glibc 2.34 here); maturin refuses to tag a wheel that needs more.
DIST_MANYLINUX ?= manylinux_2_34

.PHONY: dist dist-python dist-node dist-c dist-check

TEST_TARGETS += dist-check

dist: dist-python dist-node dist-c
	@echo "make dist: in $(DIST_DIR):"; ls -1 $(DIST_DIR) | grep -v -e '^npm-stage$$' -e '^c-stage$$'

# (mk/*.mk are read in name order, so this file names the other files' variables
# only in recipes, where they are expanded late.)
dist-python: python-venv
	$(REGISTRY_STEP) 600 $(PY_PIP) install -r $(PY_DIR)/requirements-dist.txt
	mkdir -p $(DIST_DIR)
	rm -f $(DIST_DIR)/flatquad-*.whl $(DIST_DIR)/flatquad-$(DIST_VERSION).tar.gz
	cd $(PY_DIR) && $(PY_BIN)/maturin sdist --out $(DIST_DIR)
	cd $(PY_DIR) && $(PY_BIN)/maturin build --release --compatibility $(DIST_MANYLINUX) \
		--interpreter $(PY_BIN)/python --out $(DIST_DIR)
	$(PY_BIN)/twine check --strict $(DIST_DIR)/flatquad-$(DIST_VERSION).tar.gz $(DIST_DIR)/flatquad-*.whl

# The addon from napi build (as test-node builds it), packed by scripts/pack.mjs.
dist-node:
	mkdir -p $(DIST_DIR)
	rm -f $(DIST_DIR)/flatquad-*.tgz
	cd bindings-node && $(REGISTRY_STEP) 300 $(NPM) ci --no-audit --no-fund
	cd bindings-node && $(NPM) run build
	cd bindings-node && $(NODE) scripts/pack.mjs $(DIST_DIR) flatquad.$$($(NODE) -p "require('./scripts/install.js').platformKey()").node

# `make install` into a stage with relocatable pkg-config and CMake files.
dist-c: c-lib
	rm -rf $(DIST_DIR)/c-stage $(DIST_DIR)/$(DIST_C_NAME).tar.gz
	$(MAKE) --no-print-directory install PREFIX=$(DIST_DIR)/c-stage/$(DIST_C_NAME) C_RELOCATABLE=1
	install -m 644 LICENSE-MIT LICENSE-APACHE $(DIST_DIR)/c-stage/$(DIST_C_NAME)/
	tar -C $(DIST_DIR)/c-stage --owner=0 --group=0 --numeric-owner -czf $(DIST_DIR)/$(DIST_C_NAME).tar.gz $(DIST_C_NAME)
	rm -rf $(DIST_DIR)/c-stage

dist-check: dist
	DIST_DIR="$(DIST_DIR)" DIST_VERSION="$(DIST_VERSION)" DIST_C_NAME="$(DIST_C_NAME)" \
		PYTHON="$(PYTHON)" NPM="$(NPM)" NODE="$(NODE)" CARGO="$(CARGO)" TWINE="$(PY_BIN)/twine" \
		bash tests/dist/check.sh
