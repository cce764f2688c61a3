"""Packaging as `eomlab`: the folders engine/ and gui/ import only as eomlab.engine and eomlab.gui
(a half-migrated `import engine` would make a second ModelError class that `except` clauses miss),
`python -m eomlab` works, and the headless command line never loads the window."""
from __future__ import annotations

import os
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import pytest

from project_paths import ROOT
MODEL = ROOT / "assets" / "models" / "four_bar.eom.json"
#: the window's packages: none may be loaded by the headless command line
WINDOW = ("eomlab.gui", "PySide6", "pyqtgraph")


def _python(code: str, *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc


def test_importing_the_engine_loads_no_top_level_engine_or_gui():
    code = ("import sys, eomlab.engine, eomlab.engine.simulation, eomlab.engine.modelfile, eomlab.engine.presets; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('engine', 'gui')))")
    assert _python(code).stdout.strip() == "[]"


def test_the_window_package_imports_as_eomlab_gui_only():
    code = ("import sys, eomlab.gui.main_window; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('engine', 'gui')))")
    assert _python(code).stdout.strip() == "[]"


@pytest.mark.parametrize("command", [["run", str(MODEL), "--t-end", "0.05"],
                                     ["run", str(MODEL), "--t-end", "0.05", "--method", "all", "--out", "{tmp}/x.csv"],
                                     ["equations", str(MODEL), "--method", "kane"]])
def test_the_headless_command_line_never_loads_the_window(command, tmp_path):
    """cli.main in a fresh interpreter, then sys.modules: nothing of the window, Qt or pyqtgraph."""
    args = [a.replace("{tmp}", str(tmp_path)) for a in command]
    code = ("import sys, io, contextlib\n"
            "from eomlab.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    status = main(sys.argv[1:])\n"
            f"print(status, sorted(m for m in sys.modules if m.startswith({WINDOW!r})))")
    assert _python(code, *args, cwd=tmp_path).stdout.strip() == "0 []"


def test_python_dash_m_eomlab_runs(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "eomlab", "run", str(MODEL), "--t-end", "0.1"], capture_output=True,
                          text=True, cwd=tmp_path, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("t,") and len(lines) == 12  # header and t = 0, 0.01, …, 0.1


@pytest.mark.slow
def test_pip_install_into_a_fresh_venv_installs_eomlab_only(tmp_path):
    """`pip install .` (dependencies from the package index), then from outside the tree:
    `import engine` and `import gui` fail, eomlab run / equations and python -m eomlab run work."""
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    bin_dir = env_dir / "bin"
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run([bin_dir / "pip", "install", "--quiet", str(ROOT)], check=True, env=clean, timeout=1800)
    for name in ("engine", "gui"):
        proc = subprocess.run([bin_dir / "python", "-c", f"import {name}"], capture_output=True, text=True,
                              cwd=tmp_path, env=clean)
        assert proc.returncode == 1 and "ModuleNotFoundError" in proc.stderr
    for command in ([bin_dir / "eomlab", "run", str(MODEL), "--t-end", "0.1"],
                    [bin_dir / "eomlab", "equations", str(MODEL)],
                    [bin_dir / "python", "-m", "eomlab", "run", str(MODEL), "--t-end", "0.1"]):
        proc = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, env=clean, timeout=600)
        assert proc.returncode == 0, proc.stderr
    site = next((env_dir / "lib").glob("python*/site-packages"))
    assert not (site / "engine").exists() and not (site / "gui").exists()
    assert (site / "eomlab" / "engine" / "methods.py").is_file()


def test_setuptools_lists_every_package_and_only_packages():
    """pyproject names the packages by hand (engine/ and gui/ install under eomlab): a new package folder must be
    listed, or `pip install .` leaves it out, and a listed name must be a folder, or the install fails."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    folders = {"eomlab", "eomlab.commands"}
    for top in ("engine", "gui"):
        for init in (ROOT / top).rglob("__init__.py"):
            if "__pycache__" not in init.parts:
                folders.add(".".join(["eomlab", *init.parent.relative_to(ROOT).parts]))
    assert listed == folders, f"missing: {sorted(folders - listed)}, not folders: {sorted(listed - folders)}"
