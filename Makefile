# `make plan` and `make test` are the two commands a newcomer needs; both set up first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup plan test bench docs clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --disable-pip-version-check --progress-bar on -e '.[all,test,docs]'
	touch $(STAMP)

plan: setup
	$(BIN)/planner plan stacks/

# The checks before the tests: lint and format (ruff), types (mypy, strict on all of planner/), layers
# (lint-imports); docs/development.md, "Checks you run", says what each one holds.
test: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/python -m pytest

# Speed (bench/run.py), then the bounds the tests no longer time: hostile input, deadlines (bench/bounds.py)
bench: setup
	$(BIN)/python -m bench
	$(BIN)/python -m bench.bounds

# The documentation site (MkDocs + Material) into site/; `make test` builds it too, strictly.
docs: setup
	$(BIN)/python -m tools.gen_reference
	$(BIN)/mkdocs build --strict

clean:
	rm -rf $(VENV) build dist site *.egg-info .pytest_cache
