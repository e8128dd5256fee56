# Everything runs from a local virtual environment that `make` builds on first use.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
JOBS   ?= 2

.PHONY: venv reproduce reproduce-full publish test test-report test-floors docs lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

venv: $(STAMP)

## Quick reproduction of every figure, then the HTML report (its path is printed).
reproduce: $(STAMP)
	$(BIN)/statmechlearn reproduce all --quick --n-jobs $(JOBS) --out results

## The paper's N and number of runs.
reproduce-full: $(STAMP)
	$(BIN)/statmechlearn reproduce all --full --n-jobs $(JOBS) --out results

## The full runs' figures and checks as the bundle `make docs` publishes (docs/paper_scale/).
publish: $(STAMP)
	$(BIN)/statmechlearn publish --out results --to docs/paper_scale

## Whole test suite (installs headless Chromium for the report test where it can).
# Bytecode caches on even where the environment turns them off (PYTHONDONTWRITEBYTECODE):
# without them every worker rewrites every test module's asserts again (3-4 s each) and
# every subprocess the suite starts compiles the package again.
test: $(STAMP)
	bash scripts/ensure-chromium.sh
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest

## The report tests over every experiment, on the store `make reproduce` wrote in results/
## (make test runs them on a reproduction of a few experiments of its own).
test-report: $(STAMP)
	$(BIN)/python -m pytest -m reproduction --quick-results=results

## The fast part of the suite on the lowest dependency versions pyproject.toml declares.
test-floors: $(STAMP)
	bash scripts/test-floors.sh

## Every benchmark, on one thread and on all; writes docs/benchmarks.md from their output.
# gap-stat's sdist pins an old wheel in its build requirements: it installs only without
# build isolation, so it is a benchmark peer, not an extra (its rows say when it is missing).
bench: $(STAMP)
	-$(BIN)/python -m pip install --quiet wheel && $(BIN)/python -m pip install --quiet --no-build-isolation gap-stat
	$(BIN)/python benchmarks/run.py

## The documentation site (Sphinx): API reference, derivations, gallery; warnings are errors.
docs: $(STAMP)
	$(BIN)/sphinx-build -W --keep-going -b html docs docs/_build/html
	@echo "docs: $(CURDIR)/docs/_build/html/index.html"

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

clean:
	rm -rf $(VENV) .venv-floors results .pytest_cache .ruff_cache docs/_build docs/generated docs/auto_examples
