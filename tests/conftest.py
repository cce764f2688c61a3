"""Hypothesis runs derandomized by default, so that a test run (and CI) is reproducible; set
HYPOTHESIS_PROFILE=explore for a fresh random search (what it finds goes into the code, and its
example into a test).

Each test process (a pytest-xdist worker, or the one process without -n) and the windows it starts
in child processes keep their settings (QSettings' default store, recovery files) in a folder of
their own, not in the user's ~/.config: two workers never write one settings file, and no run of
the suite reads what an earlier one or the user left there. Each test gets an equations page cache
of its own (EOMLAB_CACHE_DIR, gui/equations/page_cache.py), empty: a page another test derived is
derived again, as the test expects; the cache's own tests fill theirs."""
import atexit
import os
import shutil
import tempfile

import pytest
from hypothesis import settings

settings.register_profile("repeatable", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

_CONFIG = tempfile.mkdtemp(prefix=f"eomlab-config-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}-")
os.environ["XDG_CONFIG_HOME"] = _CONFIG
atexit.register(shutil.rmtree, _CONFIG, True)
_PAGE_CACHES = tempfile.mkdtemp(prefix=f"eomlab-pages-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}-")
atexit.register(shutil.rmtree, _PAGE_CACHES, True)
os.environ["EOMLAB_CACHE_DIR"] = os.path.join(_PAGE_CACHES, "outside-tests")  # never the user's cache


@pytest.fixture(autouse=True)
def own_page_cache(request, monkeypatch):
    """An empty equations page cache for this test (a folder made only when a page is stored)."""
    monkeypatch.setenv("EOMLAB_CACHE_DIR", os.path.join(_PAGE_CACHES, str(id(request.node))))

#: The longest test files (18–61 s each: the sums of `pytest --durations=0` per file, 2026-12-04, the
#: kernels compiled beforehand as `make test` does), by file name so that a file keeps its place wherever it moves.
#: pytest-xdist's --dist loadfile hands out whole files in collection order; started last, one of these would run
#: on one worker while the others idle.
LONGEST_FILES = ("test_equations_page.py", "test_gui_monkey.py", "test_layout_report.py", "test_tree_backend_runs.py",
                 "test_arrows.py", "test_shipped_mjcf.py", "test_symbolic.py", "test_recording.py",
                 "test_equations_view.py", "test_direct_manipulation.py", "test_robot_data_urdf.py", "test_edit.py",
                 "test_screenshots.py", "test_compare.py")


#: why a test marked `compiled_path` is skipped in a run on the numpy reference path (`make test-reference`)
COMPILED_PATH_OFF = "its subject is the compiled path, which EOMLAB_FAST_PATH=0 switches off"


def pytest_collection_modifyitems(config, items):
    """With the compiled path switched off for the run, the tests marked `compiled_path` are skipped (those
    comparing both paths set the variable per case and run). Under pytest-xdist only (a worker's collection; a
    run in one process keeps pytest's order): the longest files first, every file's own tests in their order."""
    from eomlab.engine.compiled.tree_backend import fast_path_wanted

    if not fast_path_wanted():
        for item in items:
            if item.get_closest_marker("compiled_path"):
                item.add_marker(pytest.mark.skip(reason=COMPILED_PATH_OFF))
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    rank = {name: i for i, name in enumerate(LONGEST_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONGEST_FILES)))  # stable: the rest keep their order
