"""Derived equations pages kept on disk between sessions: the panel shows a page it has derived before
(in any earlier session) without loading sympy or deriving again.

A page is stored under the hash of what it was derived from: the model (every field, as a model file
writes it), the formulation, and the code that derives and lays it out (every module of the engine, and
the sympy version), so that an edited model, another method or a new version derives afresh. Files are
JSON (never code: a planted file can at most show a wrong page of its own), written whole or not at all
(a temporary file renamed), in `$EOMLAB_CACHE_DIR`, else `$XDG_CACHE_HOME/eomlab/equations`, else
`~/.cache/eomlab/equations`; the oldest beyond PAGES_KEPT are removed. A cache that cannot be read or
written is no cache: the page is derived as before.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from importlib import metadata
from pathlib import Path

from eomlab.engine.model import Model

CACHE_ENV = "EOMLAB_CACHE_DIR"
#: at most this many pages are kept (a four-bar's page with its HTML is about 150 kB)
PAGES_KEPT = 200
ENGINE = Path(__file__).resolve().parents[2] / "engine"


def cache_dir() -> Path:
    own = os.environ.get(CACHE_ENV)
    if own:
        return Path(own)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "eomlab" / "equations"


@functools.lru_cache(maxsize=1)
def _code_digest() -> str:
    """The engine's sources and sympy's version: a page derived by other code is another page."""
    digest = hashlib.sha256()
    try:
        digest.update(metadata.version("sympy").encode())
    except metadata.PackageNotFoundError:
        pass
    for source in sorted(ENGINE.rglob("*.py")):
        digest.update(str(source.relative_to(ENGINE)).encode())
        digest.update(source.read_bytes())
    return digest.hexdigest()


def page_key(model: Model, method: str) -> str:
    from eomlab.engine.modelfile.writing import model_to_dict

    text = json.dumps([method, model_to_dict(model)], sort_keys=True)
    return hashlib.sha256((_code_digest() + text).encode()).hexdigest()[:32]


def _as_page(stored: dict) -> dict:
    """The page as `page_data` made it (JSON turned its tuples into lists)."""
    page = dict(stored)
    page["blocks"] = [tuple(block) for block in stored["blocks"]]
    page["roles"] = [(role, label, colour, list(shown), [tuple(long) for long in too_long])
                     for role, label, colour, shown, too_long in stored["roles"]]
    return page


def load(model: Model, method: str) -> dict | None:
    """The page (`page_data`, its HTML included) derived before for this model and method, or None."""
    try:
        path = cache_dir() / f"{page_key(model, method)}.json"
        with open(path, encoding="utf-8") as stored:
            page = _as_page(json.load(stored))
        os.utime(path)  # recently used: kept longest
        return page
    except (OSError, ValueError, KeyError, TypeError):
        return None


def store(model: Model, method: str, page: dict) -> None:
    """Keep `page` (with its HTML) for the next time; silently nothing where the cache cannot be written."""
    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, suffix=".part")
    except OSError:
        return
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(page, out)
        os.replace(temporary, folder / f"{page_key(model, method)}.json")
        _prune(folder)
    except (OSError, TypeError, ValueError):
        Path(temporary).unlink(missing_ok=True)


def _prune(folder: Path) -> None:
    pages = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime)
    for old in pages[:-PAGES_KEPT]:
        old.unlink(missing_ok=True)
