"""eomlab — the Equations-of-Motion Lab.

The engine installs as ``eomlab.engine`` and the window as ``eomlab.gui`` (their folders are ``engine/`` and
``gui/`` at the top of the source tree; ``pyproject.toml`` maps them).
"""
from pathlib import Path as _Path

# A source checkout keeps engine/ and gui/ beside this folder, not inside it: let the package find them there
# too, so a checkout works the same installed (editable) or not.
_source_root = _Path(__file__).resolve().parent.parent
if not (_Path(__file__).resolve().parent / "engine").is_dir() and (_source_root / "engine" / "__init__.py").is_file():
    __path__.append(str(_source_root))  # noqa: F821 - a package's own __path__

__version__ = "0.1.0"
from eomlab.engine.sweep import sweep  # noqa: E402,F401 - the Python API of `eomlab sweep`
