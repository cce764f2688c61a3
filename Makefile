# Two entry points for a fresh machine: `make run` (the window) and `make test` (the suite).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	@if [ -z "$$DISPLAY" ] && [ -z "$$WAYLAND_DISPLAY" ] && command -v xvfb-run >/dev/null; then \
		echo "no display: running under xvfb-run"; xvfb-run -a $(BIN)/eomlab; \
	else $(BIN)/eomlab; fi

test: $(STAMP)
	@if [ -z "$$DISPLAY" ] && command -v xvfb-run >/dev/null; then \
		xvfb-run -a -s "-screen 0 1600x1000x24" $(BIN)/python -m pytest -q; \
	else $(BIN)/python -m pytest -q; fi

bench: $(STAMP)
	$(BIN)/python bench/bench_chains.py

clean:
	rm -rf $(VENV) .pytest_cache
