"""Every module or file the words name exists: `engine/…py` and `gui/…py` paths, `engine/…/` folders and
dotted names (`eomlab.engine.model`, `engine.run.frames.Frame`, `gui.plots.plot_panel`) in README.md, in
the docstrings and in the comments of engine/, gui/ and eomlab/. A dotted name may end in a name the
module defines (a class, a function, a constant).

Run as a script to list what is stale: `python tests/test_docs_references.py`.
"""
from __future__ import annotations

import ast
import io
import re
import sys
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"engine": ROOT / "engine", "gui": ROOT / "gui", "eomlab": ROOT / "eomlab"}
SOURCES = ("engine", "gui", "eomlab")

#: a file or folder path under engine/ or gui/ (a trailing slash names a folder)
PATH = re.compile(r"(?<![\w./-])((?:engine|gui)/(?:[A-Za-z_]\w*/)*(?:[A-Za-z_]\w*\.py|))(?![\w/])")
#: any other file name ending in .py, bare or with folders (`posing.py`, `constraints/joints.py`)
PY_FILE = re.compile(r"(?<![\w./-])((?:[A-Za-z_]\w*/)*[A-Za-z_]\w*\.py)(?![\w/])")
#: a dotted name starting at the top package (eomlab.…) or at engine./gui. as the README writes them
DOTTED = re.compile(r"(?<![\w./-])((?:eomlab|engine|gui)(?:\.[A-Za-z_]\w*)+)")


def _module_file(parts: list[str]) -> Path | None:
    """The file of the dotted module `parts` (first part engine, gui or eomlab), or None."""
    if parts[0] == "eomlab" and len(parts) > 1 and parts[1] in ("engine", "gui"):
        parts = parts[1:]
    base = PACKAGES.get(parts[0])
    if base is None:
        return None
    path = base.joinpath(*parts[1:])
    if (path / "__init__.py").is_file():
        return path / "__init__.py"
    if path.with_suffix(".py").is_file():
        return path.with_suffix(".py")
    return None


def _defined_names(file: Path) -> set[str]:
    """Top-level names of a module: defs, classes, assignments, imports; and the methods and
    attributes of its classes (so `Module.Class.method` resolves too)."""
    tree = ast.parse(file.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                for leaf in ast.walk(target):
                    if isinstance(leaf, ast.Name):
                        names.add(leaf.id)
                    elif isinstance(leaf, ast.Attribute):
                        names.add(leaf.attr)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def dotted_exists(name: str) -> bool:
    """`name` is a module, or a module followed by names it defines."""
    parts = name.rstrip(".").split(".")
    for cut in range(len(parts), 0, -1):
        file = _module_file(parts[:cut])
        if file is None:
            continue
        rest = parts[cut:]
        return not rest or rest[0] in _defined_names(file)
    return False


def path_exists(text: str) -> bool:
    return (ROOT / text).exists()


def _all_python_files() -> list[str]:
    return [p.relative_to(ROOT).as_posix() for top in ("engine", "gui", "eomlab", "tests", "bench", "docs")
            for p in (ROOT / top).rglob("*.py")]


def relative_file_exists(text: str, files: list[str]) -> bool:
    """`text` (`posing.py`, `constraints/joints.py`) ends the path of some file of the checkout."""
    return any(f == text or f.endswith("/" + text) for f in files)


def _docstrings_and_comments(file: Path) -> list[tuple[int, str]]:
    source = file.read_text(encoding="utf-8")
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                line = node.body[0].lineno if node.body else 1
                found.append((line, doc))
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            found.append((token.start[0], token.string))
    return found


def texts() -> list[tuple[str, str]]:
    """(where, text) of README.md's lines and of every docstring and comment in the sources."""
    out = [(f"README.md:{i}", line) for i, line in enumerate((ROOT / "README.md").read_text(encoding="utf-8").splitlines(), 1)]
    for package in SOURCES:
        for file in sorted((ROOT / package).rglob("*.py")):
            rel = file.relative_to(ROOT)
            out += [(f"{rel}:{line}", text) for line, text in _docstrings_and_comments(file)]
    return out


def stale_references() -> list[str]:
    stale, files = [], _all_python_files()
    for where, text in texts():
        for match in PATH.finditer(text):
            if not path_exists(match.group(1)):
                stale.append(f"{where}: {match.group(1)}")
        for match in PY_FILE.finditer(text):
            if not match.group(1).startswith(("engine/", "gui/")) and not relative_file_exists(match.group(1), files):
                stale.append(f"{where}: {match.group(1)}")
        for match in DOTTED.finditer(text):
            name = match.group(1).rstrip(".")
            if name.count(".") and not dotted_exists(name):
                stale.append(f"{where}: {name}")
    return stale


def test_every_named_module_and_file_exists():
    assert stale_references() == []


@pytest.mark.parametrize("name, exists", [
    ("eomlab.engine.model", True), ("engine.run.frames.Frame", True), ("eomlab.engine.model.is_planar", True),
    ("gui.plots.plot_panel", True), ("eomlab.engine.no_such_module", False), ("engine.simulation.NoSuchThing", False),
    ("eomlab.gui.runs", True), ("eomlab.commands", True),
])
def test_the_check_tells_a_module_from_a_missing_one(name, exists):
    assert dotted_exists(name) is exists


@pytest.mark.parametrize("text, found", [
    ("see engine/joints/registry.py and gui/scene/", ["engine/joints/registry.py", "gui/scene/"]),
    ("constraints/joints.py alone is relative", []),
])
def test_paths_found_in_text(text, found):
    assert [m.group(1) for m in PATH.finditer(text)] == found
    assert all(path_exists(p) for p in found)


def test_relative_file_names():
    files = _all_python_files()
    assert relative_file_exists("registry.py", files) and relative_file_exists("joints/registry.py", files)
    assert relative_file_exists("posing.py", files) and not relative_file_exists("constraints/joints.py", files)
    assert [m.group(1) for m in PY_FILE.finditer("`posing.py`, constraints/joints.py")] == ["posing.py", "constraints/joints.py"]


if __name__ == "__main__":
    problems = stale_references()
    print("\n".join(problems) or "no stale references")
    sys.exit(1 if problems else 0)
