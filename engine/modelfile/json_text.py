"""JSON text to Python data, refusing what JSON allows but a model file must not: NaN and
infinities, and a key given twice."""
from __future__ import annotations

import json
import math
from typing import Any

from eomlab.engine.expressions import excerpt
from eomlab.engine.model import ModelError


class _NonFinite:
    """Stands in for a JSON NaN/Infinity or an overflowing number until its field is checked,
    so that the error can name the field's path."""

    def __init__(self, text: str):
        self.text = text


class _DuplicateKey:
    """Stands in for the second occurrence of a key in a JSON object."""

    def __init__(self, key: str):
        self.key = key


def _parse_float(text: str) -> float | _NonFinite:
    value = float(text)
    return value if math.isfinite(value) else _NonFinite(text)


def _parse_pairs(pairs: list[tuple[str, Any]]) -> dict:
    result: dict = {}
    for key, value in pairs:
        result[_DuplicateKey(key) if key in result else key] = value
    return result


def _decode_json(text: str) -> Any:
    """``json.loads`` that keeps non-finite numbers and duplicate keys as markers."""
    try:
        return json.loads(
            text, parse_constant=_NonFinite, parse_float=_parse_float, object_pairs_hook=_parse_pairs
        )
    except json.JSONDecodeError as exc:
        raise ModelError("", f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise ModelError("", "invalid JSON: nested too deeply") from None
    except ValueError as exc:  # e.g. an integer with too many digits
        raise ModelError("", f"invalid JSON: {excerpt(str(exc), 100)}") from None
