"""The layers, enforced: import-linter's contracts (pyproject.toml [tool.importlinter]) and ruff
(pyproject.toml [tool.ruff]) run here, and a planted violation shows the contracts bite."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from project_paths import ROOT
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
CONTRACTS = {c["id"]: c for c in CONFIG["tool"]["importlinter"]["contracts"]}
#: what the window may import from the engine (tests/test_layers checks the contract forbids the rest)
WINDOW_ENTRY_POINTS = {"model", "modelfile", "presets", "methods", "simulation", "sample_files", "symbolic", "sweep",
                       "robot_formats", "linearize", "blas_threads"}
#: the engine modules that may use sympy at import (everything else is the numeric path)
SYMBOLIC_SIDE = {"symbolic", "expressions"}


def _installed_layout(destination: Path) -> Path:
    """The tree as pip installs it (eomlab/engine, eomlab/gui): grimp reads packages from their folder."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "eomlab", destination / "eomlab", ignore=ignore)
    shutil.copytree(ROOT / "engine", destination / "eomlab" / "engine", ignore=ignore)
    shutil.copytree(ROOT / "gui", destination / "eomlab" / "gui", ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", destination / "pyproject.toml")
    return destination


def _lint_imports(tree: Path) -> subprocess.CompletedProcess:
    executable = Path(sys.executable).with_name("lint-imports")
    if not executable.exists():
        pytest.skip("import-linter is not installed (pip install -e '.[test]')")
    env = dict(os.environ, PYTHONPATH=str(tree))
    return subprocess.run([executable, "--no-cache"], capture_output=True, text=True, cwd=tree, env=env, timeout=300)


def _engine_modules() -> set[str]:
    modules = {p.stem for p in (ROOT / "engine").glob("*.py") if p.stem != "__init__"}
    return modules | {p.name for p in (ROOT / "engine").iterdir() if (p / "__init__.py").is_file()}


def test_the_import_contracts_hold(tmp_path):
    proc = _lint_imports(_installed_layout(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{len(CONTRACTS)} kept, 0 broken" in proc.stdout


def test_a_window_import_of_the_kinematics_breaks_a_contract(tmp_path):
    tree = _installed_layout(tmp_path)
    scene = tree / "eomlab" / "gui" / "scene" / "scene2d.py"
    scene.write_text(scene.read_text(encoding="utf-8") + "\nfrom eomlab.engine import kinematics  # noqa\n",
                     encoding="utf-8")
    proc = _lint_imports(tree)
    assert proc.returncode != 0
    assert "eomlab.gui.scene.scene2d -> eomlab.engine.kinematics" in proc.stdout


def test_the_contracts_name_every_engine_module():
    """A new engine module must be placed: on the numeric path or not, behind the window's door or not."""
    engine = _engine_modules()
    numeric = {m.split(".")[2] for m in CONTRACTS["numeric-path-without-sympy"]["source_modules"]}
    assert numeric == engine - SYMBOLIC_SIDE, "classify the new module in [tool.importlinter] numeric-path-without-sympy"
    hidden = {m.split(".")[2] for m in CONTRACTS["window-through-the-front-door"]["forbidden_modules"]}
    assert hidden - {"symbolic"} == engine - WINDOW_ENTRY_POINTS, \
        "classify the new module in [tool.importlinter] window-through-the-front-door"


def test_ruff_finds_nothing():
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", str(ROOT)], capture_output=True,
                          text=True, cwd=ROOT, timeout=300)
    if proc.returncode != 0 and "No module named ruff" in proc.stderr:
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_run_module_importing_a_drawing_breaks_the_layers(tmp_path):
    tree = _installed_layout(tmp_path)
    session = tree / "eomlab" / "gui" / "runs" / "session.py"
    session.write_text(session.read_text(encoding="utf-8") + "\nfrom eomlab.gui.scene import scene2d  # noqa\n",
                       encoding="utf-8")
    proc = _lint_imports(tree)
    assert proc.returncode != 0
    assert "eomlab.gui.runs.session -> eomlab.gui.scene.scene2d" in proc.stdout


def _modules(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*.py") if "__pycache__" not in p.parts]


@pytest.mark.parametrize("folder, most", [("gui", 12), ("engine", 15)])
def test_few_modules_lie_loose(folder, most):
    """The packages show the architecture: a folder's own modules are its entry points, the rest live in rooms."""
    loose = sorted(p.stem for p in (ROOT / folder).glob("*.py") if p.stem != "__init__")
    assert len(loose) <= most, f"{folder}/ holds {len(loose)} loose modules: {loose}"


def test_no_module_name_is_used_twice():
    """One name, one module: a reader (and a traceback) never has to ask which `planar.py` is meant."""
    seen: dict[str, Path] = {}
    twice = []
    for folder in ("engine", "gui", "eomlab"):
        for path in _modules(ROOT / folder):
            if path.stem == "__main__" or (path.stem == "__init__" and path.parent == ROOT / folder):
                continue
            name = path.parent.name if path.stem == "__init__" else path.stem
            if name in seen:
                twice.append(f"{seen[name].relative_to(ROOT)} and {path.relative_to(ROOT)}")
            seen.setdefault(name, path)
    assert not twice, "module names used twice: " + "; ".join(twice)
