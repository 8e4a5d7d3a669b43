# The documentation site: the guide (docs/), the API of each language generated
# from the code (rustdoc; the Python package's stubs and docstrings through
# mkdocstrings; TypeDoc over bindings-node/index.d.ts; the C header), and the
# benchmark tables, built into target/docs-site.
#
#   make docs        build the site; warnings (rustdoc, mkdocs --strict) and broken
#                    links fail it; part of `make test`
#
# Needs python3 (with venv), Node/npm and cargo: MkDocs and its plugins come from
# PyPI into .tools/docs-venv, TypeDoc from npm into docs/site/node_modules, both
# pinned (docs/site/requirements.txt, docs/site/package-lock.json).

DOCS_PYTHON ?= python3
NPM ?= npm
DOCS_VENV := $(CURDIR)/.tools/docs-venv
DOCS_BIN := $(DOCS_VENV)/bin
DOCS_STAMP := $(DOCS_VENV)/.requirements.stamp
DOCS_SRC := $(CURDIR)/target/docs-src
DOCS_SITE := $(CURDIR)/target/docs-site

.PHONY: docs docs-tools docs-rust docs-node

TEST_TARGETS += docs

$(DOCS_STAMP): docs/site/requirements.txt
	$(DOCS_PYTHON) -m venv $(DOCS_VENV)
	$(REGISTRY_STEP) 600 $(DOCS_BIN)/python -m pip install --disable-pip-version-check --quiet -r docs/site/requirements.txt
	touch $@

docs/site/node_modules/.package-lock.json: docs/site/package-lock.json
	cd docs/site && $(REGISTRY_STEP) 300 $(NPM) ci --no-audit --no-fund

docs-tools: $(DOCS_STAMP) docs/site/node_modules/.package-lock.json

# Every public item documented and every intra-doc link resolved (-D warnings).
docs-rust:
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps -p flatquad --features rayon

# TypeDoc reads the committed index.d.ts (what `npm run build` generates and
# make test-node checks), so no addon is built for the docs.
docs-node: docs-tools
	cd docs/site && ./node_modules/.bin/typedoc --options typedoc.json

# Not --quiet: it hides the warnings --strict counts.
docs: docs-tools docs-rust
	$(DOCS_BIN)/python docs/site/assemble.py $(CURDIR) $(DOCS_SRC)
	cp -r $(TARGET_DIR)/doc $(DOCS_SRC)/api/rust
	$(MAKE) --no-print-directory docs-node
	NO_MKDOCS_2_WARNING=1 $(DOCS_BIN)/mkdocs build --strict --config-file docs/site/mkdocs.yml
	$(DOCS_BIN)/python docs/site/check_links.py $(DOCS_SITE) docs/site/linkcheckerrc
	@echo "make docs: $(DOCS_SITE)/index.html"
