# Two entry points for a fresh machine: `make run` (the window) and `make test` (the suite).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-all test-reference prepare bench docs docs-check clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

# what an installed eomlab has before its first use: its byte code, and numba's compiled kernels in their on-disk
# cache (engine/compiled/prepare_kernels.py: about 45 s on 2 cores the first time, after a change to a kernel's
# source again; 0.4 s when the cache holds them all). Without them the first runs take scipy's slower step while a
# core compiles, and a sweep or a test that needs the kernels waits for them.
prepare: $(STAMP)
	@env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m compileall -q -j 0 eomlab engine gui
	@env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m eomlab.engine.compiled.prepare_kernels

# the window, its runs' and its equations panel's processes read byte code written once (see PYTEST below)
EOMLAB := env -u PYTHONDONTWRITEBYTECODE $(BIN)/eomlab

run: prepare
	@if [ -z "$$DISPLAY" ] && [ -z "$$WAYLAND_DISPLAY" ] && command -v xvfb-run >/dev/null; then \
		echo "no display: running under xvfb-run"; xvfb-run -a $(EOMLAB); \
	else $(EOMLAB); fi

# -n auto: one worker per core (pytest-xdist); --dist loadfile keeps each test file on one worker, so a
# module's cached derivations and windows are built once; --no-loadscope-reorder keeps the order of
# tests/conftest.py (the longest files first) instead of xdist's (the files with most tests first)
# env -u PYTHONDONTWRITEBYTECODE: where the variable is set (this kind of machine sets it), every process the
# suite starts (each run's process, the equations panel's, each CLI call) would compile eomlab's sources again,
# and pytest would rewrite every test file's assertions again in each worker
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -q -n auto --dist loadfile --no-loadscope-reorder

test: prepare
	@if [ -z "$$DISPLAY" ] && command -v xvfb-run >/dev/null; then \
		xvfb-run -a -s "-screen 0 1600x1000x24" $(PYTEST); \
	else $(PYTEST); fi

# the suite on the numpy reference path (EOMLAB_FAST_PATH=0: no pinocchio, no numba kernels); the tests whose
# subject is the compiled path set the variable per case or skip, saying why
test-reference: prepare
	@if [ -z "$$DISPLAY" ] && command -v xvfb-run >/dev/null; then \
		EOMLAB_FAST_PATH=0 xvfb-run -a -s "-screen 0 1600x1000x24" $(PYTEST); \
	else EOMLAB_FAST_PATH=0 $(PYTEST); fi

# everything, the slow checks too (10^6 integrator steps with a memory bound: several minutes)
test-all: prepare
	@if [ -z "$$DISPLAY" ] && command -v xvfb-run >/dev/null; then \
		xvfb-run -a -s "-screen 0 1600x1000x24" $(PYTEST) -m "slow or not slow"; \
	else $(PYTEST) -m "slow or not slow"; fi

bench: $(STAMP)
	$(BIN)/python bench/bench_chains.py
	$(BIN)/python bench/bench_gui.py

# the documentation site (docs/, Sphinx): warnings are errors; its pictures are made by the program, so the
# window's screenshots need a display (xvfb-run when there is none)
DOCS_STAMP := $(VENV)/.docs-installed
SPHINX := $(BIN)/python -m sphinx -b html -W --keep-going -q docs docs/_build/html

$(DOCS_STAMP): $(STAMP)
	$(BIN)/pip install --quiet -e '.[docs]'
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	@if [ -z "$$DISPLAY" ] && command -v xvfb-run >/dev/null; then \
		xvfb-run -a -s "-screen 0 1920x1200x24" $(SPHINX); \
	else $(SPHINX); fi
	@echo "the site: docs/_build/html/index.html"

# the built site in headless Chromium (Debian's `chromium`): console errors, images, MathML, links; screenshots
docs-check: $(DOCS_STAMP)
	$(BIN)/python docs/_check/check_site.py

clean:
	rm -rf $(VENV) .pytest_cache docs/_build docs/_generated docs/reference/commands
