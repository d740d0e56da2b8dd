# `make plan` and `make test` are the two commands a newcomer needs; both set up first.
# The development environment is exactly uv.lock (every package pinned, with hashes), installed by
# uv, itself pinned with hashes in tools/uv-requirements.txt; docs/development.md says why.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
UV_HOME := .uv
UV := $(UV_HOME)/bin/uv
# uv never downloads a Python of its own: the one `python3` names (3.11+) is used.
export UV_PYTHON_DOWNLOADS := never
# pytest workers: one per core, whole files per worker so shared fixtures are built once
# (`make test PYTEST_WORKERS=0` runs in one process).
PYTEST_WORKERS ?= auto

.PHONY: setup lock plan test drift bench docs clean

setup: $(STAMP)

# uv itself, at the version and hashes tools/uv-requirements.txt pins (its own small virtualenv).
$(UV): tools/uv-requirements.txt
	test -x $(UV_HOME)/bin/python || $(PYTHON) -m venv $(UV_HOME)
	$(UV_HOME)/bin/python -m pip install --disable-pip-version-check --quiet --require-hashes -r tools/uv-requirements.txt
	touch $(UV)

# Exactly the lock: every extra (pulumi, aws, test, docs) and planner itself, editable, all compiled
# to bytecode once here (where PYTHONDONTWRITEBYTECODE is set, every process would compile pulumi,
# boto3 and moto again; the tests start hundreds). A lock that
# no longer matches pyproject.toml is refused, never silently re-resolved: `uv lock --check`
# offline passes on a matching lock (even with an empty cache) and fails on any other.
$(STAMP): pyproject.toml uv.lock $(UV)
	@$(UV) lock --check --offline --quiet 2>/dev/null || { \
	  echo "make setup: uv.lock does not match pyproject.toml; run 'make lock' and commit uv.lock" >&2; exit 2; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(UV) sync --locked --all-extras --compile-bytecode --python $(BIN)/python
	$(BIN)/python -m compileall -q -j 0 planner
	touch $(STAMP)

# Re-resolve uv.lock from pyproject.toml's ranges (newest versions that satisfy them), with hashes.
lock: $(UV)
	$(UV) lock --upgrade

plan: setup
	$(BIN)/planner plan stacks/

# The checks before the tests: lint and format (ruff), types (mypy, strict on all of planner/), layers
# (lint-imports); docs/development.md, "Checks you run", says what each one holds.
test: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadfile

# The shipped data (catalogue, regions) against the newest botocore and moto on PyPI, in a
# throw-away environment; `.venv/bin/python -m tools.drift` compares with the locked ones.
drift: $(UV)
	$(UV) run --isolated --no-project --python $(PYTHON) --refresh-package botocore --refresh-package moto \
	  --with-editable . --with boto3 --with 'moto[ec2]' python -m tools.drift

# Speed (bench/run.py), then the bounds the tests no longer time: hostile input, deadlines (bench/bounds.py)
bench: setup
	$(BIN)/python -m bench
	$(BIN)/python -m bench.bounds

# The documentation site (MkDocs + Material) into site/; `make test` builds it too, strictly.
docs: setup
	$(BIN)/python -m tools.gen_reference
	$(BIN)/mkdocs build --strict

clean:
	rm -rf $(VENV) $(UV_HOME) build dist site *.egg-info .pytest_cache
