# The two commands of the README: `make serve` runs the server, `make test` runs every test.
# Each sets itself up on a fresh machine: a virtual environment in .venv with the project installed.

PYTHON ?= python3

# Where the environment says not to write bytecode (PYTHONDONTWRITEBYTECODE, as CI's machines do), every one of the
# hundreds of Python processes of a test run (pytest's workers, gunicorn's, the CLI's) would compile the project again,
# and pytest would rewrite every test module's asserts again in each worker: some 0.2 s a process, 6 s a worker.
unexport PYTHONDONTWRITEBYTECODE
VENV := .venv
BIN := $(VENV)/bin

.PHONY: serve play test check system-packages bench clean

# Serving needs the project alone; the test tools (pytest, linters, browser drivers, SDK generators) come
# with the first `make test`.
# A stamp rather than bin/osmosis itself: every later `pip install -e` of an extra writes that script again, which
# would make each extra's stamp out of date for the others.
$(VENV)/.project: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.test-tools: $(VENV)/.project
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

# The solver's search compiled with mypyc (server/solver/native.py), rebuilt when its sources change; without a
# C compiler the script says so and the solver runs as pure Python.
SEARCH_SOURCES := server/solver/plans.py server/solver/reach.py server/solver/search.py server/solver/depth_first.py
$(VENV)/.solver-accelerator: $(VENV)/.project $(SEARCH_SOURCES)
	$(BIN)/pip install --quiet -e '.[accelerator]'
	$(BIN)/python scripts/build-solver-accelerator
	touch $@

PORT ?= 8000

serve: $(VENV)/.project $(VENV)/.solver-accelerator
	$(BIN)/osmosis serve --port $(PORT)

# The terminal table (docs/clients.md): the project with its 'play' extra (Textual), then a new game; on the server
# `make serve` runs beside it if there is one, else on one of its own; `make play SERVER=URL` on any other.
$(VENV)/.play: $(VENV)/.project
	$(BIN)/pip install --quiet -e '.[play]'
	touch $@

play: $(VENV)/.play
	$(BIN)/osmosis play $(if $(SERVER),--server $(SERVER))

system-packages:
	scripts/install-system-packages

LINTED := .

# The tests run on this many pytest-xdist workers, handed out by tests/lanes.py: a module at a time, longest first,
# the timing-sensitive drills one after another in the first worker, the rest at a lower CPU priority
# (docs/testing.md).
TEST_WORKERS ?= 4

test: $(VENV)/.test-tools $(VENV)/.solver-accelerator system-packages
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)
	$(BIN)/mypy
	$(BIN)/pytest -n $(TEST_WORKERS)

# The fast tier, after every change: lint, layout, types, and the tests that need neither PostgreSQL nor Flask nor a
# browser, the slow ones left out (pytest -m slow: the solver's long checks). Under a minute. Its folders are every
# one but these; tests/conftest.py fails the run if one of its tests imports Flask, psycopg or Playwright.
NEEDS_SERVERS := tests/api tests/ops tests/store tests/browser tests/sdk tests/terminal tests/gym tests/contract

check: $(VENV)/.test-tools $(VENV)/.solver-accelerator
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)
	$(BIN)/mypy
	# The front end's modules parse (Node's syntax check; the browser tests run them).
	for module in server/api/web/*.js; do node --experimental-default-type=module --check $$module || exit 1; done
	OSMOSIS_FAST_TIER=1 $(BIN)/pytest -q -n 2 -m "not slow" tests $(addprefix --ignore=,$(NEEDS_SERVERS))

bench: $(VENV)/.project
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
