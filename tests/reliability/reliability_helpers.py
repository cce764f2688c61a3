"""Helpers of the reliability suite: valid model files to break, and a way to tell that
nothing was lost (the bytes on disk, the samples kept, the model still loaded)."""
from __future__ import annotations

import copy
import hashlib
import json
import pathlib


from project_paths import ROOT
ASSETS = ROOT / "assets" / "models"
ASSET_FILES = sorted(ASSETS.glob("*.eom.json"))


def asset_dict(name: str) -> dict:
    """A fresh, mutable copy of an asset model's JSON."""
    return copy.deepcopy(json.loads((ASSETS / f"{name}.eom.json").read_text()))


def fingerprint(path) -> tuple[str, float]:
    """The file's content hash and modification time: equal fingerprints mean untouched."""
    path = pathlib.Path(path)
    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns


def write_model_text(directory, text: str, name: str = "bad.eom.json") -> pathlib.Path:
    path = pathlib.Path(directory) / name
    path.write_text(text, encoding="utf-8")
    return path


def write_model(directory, data: dict, name: str = "bad.eom.json") -> pathlib.Path:
    return write_model_text(directory, json.dumps(data, indent=1), name)
