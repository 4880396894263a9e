# Set-up is part of every target: `make demo` and `make test` work on a fresh clone.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: venv demo test test-nightly test-pre-commit test-compat test-compat-latest bench clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python testdata/demo/run_demo.py

# The suite runs in TEST_JOBS processes (pytest-xdist): CI has 2 cores; TEST_JOBS=0
# runs it in this process alone (what a debugger or `pytest -x` wants).
TEST_JOBS ?= 2
test: $(STAMP)
	$(BIN)/python -m pytest -q -n $(TEST_JOBS)

# End-to-end check of .pre-commit-hooks.yaml: pre-commit builds the hook's own
# environment (jax, jaxlib from the package index), so it takes minutes.
test-pre-commit: $(STAMP)
	CCMIGRATE_TEST_PRE_COMMIT=1 $(BIN)/python -m pytest -q tests/test_precommit.py

# Differential lowering across jax releases (not part of `make test`: it creates
# .compat/jax-<version> environments on first use, about 1.5 minutes once they exist).
test-compat: $(STAMP)
	$(BIN)/python tests/compat/run_compat.py

# The same comparison with the rewrites made and lowered under the newest jax, in
# .compat/latest: jax 0.11 and newer need Python 3.12 or newer (PY_LATEST names one).
PY_LATEST ?= python3.12
LATEST := .compat/latest
test-compat-latest: $(STAMP)
	test -x $(LATEST)/bin/python || $(PY_LATEST) -m venv $(LATEST)
	$(LATEST)/bin/python -m pip install -q --upgrade -e '.[dev]' jax jaxlib
	$(LATEST)/bin/python tests/compat/run_compat.py

# Thousands of generated sites instead of a couple of hundred (property tests), then
# every rule fixture under every mutation kind plus stacked random kinds, the compat
# cases' mutants lowered (benchmarks/fuzz.py; about an hour on 2 cores; FUZZ_ARGS="--every 4"
# for a quarter of the pairs in about 10 minutes).
FUZZ_ARGS ?=
test-nightly: $(STAMP)
	HYPOTHESIS_PROFILE=nightly $(BIN)/python -m pytest -q tests/test_properties.py
	$(BIN)/python benchmarks/fuzz.py -j 2 --stack 3 --rounds 2 --lower $(FUZZ_ARGS)

# Side by side with LibCST's runner and Bowler on a synthetic 1M-line repository
# (about 25 minutes on 2 cores, most of it the peers); BENCH_ARGS="--files 500
# --lines 100000" for a quick look. Writes benchmarks/results.md.
BENCH_STAMP := $(VENV)/.bench-installed
$(BENCH_STAMP): $(STAMP) pyproject.toml
	$(BIN)/python -m pip install -q -e '.[dev,bench]'
	touch $(BENCH_STAMP)

bench: $(BENCH_STAMP)
	$(BIN)/python benchmarks/bench.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) build *.egg-info
