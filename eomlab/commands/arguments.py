"""Argument types and model loading shared by the subcommands."""
from __future__ import annotations

import argparse

import numpy as np

from eomlab.engine.model import ModelError


def positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not np.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return value


def load(path: str):
    from eomlab.engine.modelfile import load_model

    return load_model(path)


def with_source(err: ModelError, path: str) -> ModelError:
    return err.with_source(path) if err.source is None else err
