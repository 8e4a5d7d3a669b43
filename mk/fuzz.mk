# Coverage-guided fuzzing on stable Rust (fuzz/): libFuzzer, built from source
# by the libfuzzer-sys crate (pinned by fuzz/Cargo.lock, needs only g++), and
# SanitizerCoverage instrumentation through rustc's stable -C flags (the flags
# cargo-fuzz passes with `--sanitizer none`, without its -Z ones, so no nightly
# and no extra tool). The targets: one differential target per structure (the
# fuzzer's bytes as the choices of flatquad-testkit (testkit/), checked against
# its brute-force model), the snapshot reader, the C ABI's argument checking.
#
#   make fuzz            every target FUZZ_SECONDS (300) each, corpus kept in fuzz/target/corpus
#   make fuzz-ci         every target FUZZ_CI_SECONDS (12) each from the committed seeds; part of `make test`
#   make fuzz-regressions  replay the committed failing inputs fuzz/regressions/<target>-*
#   make fuzz-lint       rustfmt and clippy over fuzz/; part of `make test`
#   make fuzz-build      build the instrumented targets only
#   make fuzz-seeds      rewrite the committed seed corpus fuzz/corpus/ (testkit/examples/fuzz_seeds.rs)
#   make fuzz-run FUZZ_TARGET=ops_grid FUZZ_SECONDS=60   one target
#   make soak            >= 10^8 random operations against brute force (docs/soak.md)
#   make churn           10^7 mixed operations per structure: bytes and RSS stay flat (docs/soak.md)
#
# A crash leaves its input in fuzz/artifacts/<target>/; replay it with
# `fuzz/target/$(FUZZ_TRIPLE)/release/<target> <file>`, then commit it as
# fuzz/regressions/<target>-<what it shows>: fuzz-ci replays every one, and the
# core's tests (core/tests/fuzz_regressions.rs) replay those of the ops and
# snapshot targets without the fuzz build.

FUZZ_TARGETS := ops_quadtree ops_grid ops_loose_grid ops_loose_quadtree \
	ops_loose_quadtree_max_extent ops_octree snapshot c_abi
FUZZ_SECONDS ?= 300
FUZZ_CI_SECONDS ?= 12
FUZZ_TARGET ?= ops_quadtree
FUZZ_DIR := $(CURDIR)/fuzz
FUZZ_TARGET_DIR := $(FUZZ_DIR)/target
# An explicit --target keeps the instrumentation flags off build scripts.
FUZZ_TRIPLE := $(shell rustc -vV | sed -n 's/^host: //p')
FUZZ_BIN := $(FUZZ_TARGET_DIR)/$(FUZZ_TRIPLE)/release
FUZZ_RUSTFLAGS := -Cpasses=sancov-module \
	-Cllvm-args=-sanitizer-coverage-level=4 \
	-Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
	-Cllvm-args=-sanitizer-coverage-pc-table \
	-Cllvm-args=-sanitizer-coverage-trace-compares \
	-Cdebug-assertions -Coverflow-checks --cfg fuzzing
# -max_len: inputs up to 4 KiB; -timeout: a slow input is a finding too.
FUZZ_FLAGS := -max_len=4096 -timeout=20 -rss_limit_mb=2048 -print_final_stats=1

.PHONY: fuzz fuzz-ci fuzz-lint fuzz-regressions fuzz-build fuzz-run fuzz-seeds soak churn

TEST_TARGETS += fuzz-lint fuzz-ci

# fuzz/ is a workspace of its own, out of reach of the root's fmt and clippy;
# linted unflagged, in a target directory of its own.
fuzz-lint:
	$(CARGO) fmt --manifest-path fuzz/Cargo.toml --all -- --check
	cd fuzz && $(CARGO) clippy --locked --all-targets --target-dir "$(CURDIR)/target/fuzz-clippy" -- -D warnings

fuzz-build:
	cd fuzz && RUSTFLAGS="$(FUZZ_RUSTFLAGS)" $(CARGO) build --release --locked \
		--target $(FUZZ_TRIPLE) --target-dir "$(FUZZ_TARGET_DIR)" --bins

# $(1): target, $(2): seconds. New inputs go to fuzz/target/corpus/<target>
# (the first directory); the committed seeds in fuzz/corpus/<target> are read.
define fuzz_one
	mkdir -p "$(FUZZ_TARGET_DIR)/corpus/$(1)" "$(FUZZ_DIR)/artifacts/$(1)"
	"$(FUZZ_BIN)/$(1)" "$(FUZZ_TARGET_DIR)/corpus/$(1)" "$(FUZZ_DIR)/corpus/$(1)" \
		$(FUZZ_FLAGS) -max_total_time=$(2) -artifact_prefix="$(FUZZ_DIR)/artifacts/$(1)/"

endef

# Given files, a libFuzzer binary runs each once. $(1): target, $(2): files.
define replay_one
	"$(FUZZ_BIN)/$(1)" $(2)

endef

fuzz-regressions: fuzz-build
	$(foreach t,$(FUZZ_TARGETS),$(if $(wildcard $(FUZZ_DIR)/regressions/$(t)-*),\
		$(call replay_one,$(t),$(wildcard $(FUZZ_DIR)/regressions/$(t)-*))))

fuzz-ci: fuzz-regressions
	$(foreach t,$(FUZZ_TARGETS),$(call fuzz_one,$(t),$(FUZZ_CI_SECONDS)))

fuzz: fuzz-build
	$(foreach t,$(FUZZ_TARGETS),$(call fuzz_one,$(t),$(FUZZ_SECONDS)))

fuzz-run: fuzz-build
	$(call fuzz_one,$(FUZZ_TARGET),$(FUZZ_SECONDS))

fuzz-seeds:
	rm -rf "$(FUZZ_DIR)/corpus"
	$(CARGO) run --release -p flatquad-testkit --example fuzz_seeds -- "$(FUZZ_DIR)/corpus"

SOAK_OPS ?= 100000000
SOAK_FLAGS ?= --cap 100 --validate-every 8 --compare-every 16 --snapshot-every 512 --threads-every 512
soak:
	$(CARGO) run --release -p flatquad-testkit --features rayon --example soak -- --ops $(SOAK_OPS) $(SOAK_FLAGS)

CHURN_OPS ?= 10000000
churn:
	$(CARGO) run --release -p flatquad-testkit --example churn -- --ops $(CHURN_OPS)
