"""Readers of single fields (numbers, vectors, names, choices, rotations, inertia), each naming the
field's path in its error."""
from __future__ import annotations

import math
from typing import Iterable

import numpy as np

from eomlab.engine.expressions import excerpt
from eomlab.engine.limits import check_direction
from eomlab.engine.model import Mat3, ModelError, Vec3, as_mat3
from eomlab.engine.rotations import axis_angle_matrix
from eomlab.engine.modelfile.json_text import _DuplicateKey, _NonFinite
from eomlab.engine.modelfile.schema import _IDENTIFIER, ROTATION_TOLERANCE, UNIT_TOLERANCE


def _join(path: str, key: object) -> str:
    return f"{path}.{key}" if path else str(key)


def _show(value: object) -> str:
    """A value quoted on one line for messages."""
    return repr(excerpt(value, 40)) if isinstance(value, str) else excerpt(repr(value), 40)


def _kind(value: object) -> str:
    """JSON's name for the type of `value`."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, _NonFinite):
        return value.text
    return type(value).__name__


def _fields(data: object, path: str, allowed: Iterable[str], required: Iterable[str] = ()) -> dict:
    """Check that `data` is an object with only `allowed` keys and all `required` keys."""
    if not isinstance(data, dict):
        raise ModelError(path, f"expected an object, got {_kind(data)}")
    allowed = tuple(allowed)
    for key in data:
        if isinstance(key, _DuplicateKey):
            raise ModelError(_join(path, key.key), f"duplicate field '{key.key}'")
        if key not in allowed:
            shown = excerpt(key, 40) if isinstance(key, str) else repr(key)
            raise ModelError(_join(path, shown), f"unknown field '{shown}' (allowed: {', '.join(allowed)})")
    for key in required:
        if key not in data:
            raise ModelError(_join(path, key), "required field is missing")
    return data


def _number(value: object, path: str, minimum: float | None = None, positive: bool = False) -> float:
    """A finite number (not a boolean), optionally >= `minimum` or > 0."""
    if isinstance(value, _NonFinite):
        raise ModelError(path, f"{value.text} is not allowed: numbers must be finite")
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ModelError(path, f"expected a number, got {_kind(value)}")
    try:
        number = float(value)
    except OverflowError:
        raise ModelError(path, "number is too large") from None
    if not math.isfinite(number):
        raise ModelError(path, f"numbers must be finite, got {number}")
    if positive and not number > 0:
        raise ModelError(path, f"must be > 0, got {_fmt(number)}")
    if minimum is not None and number < minimum:
        raise ModelError(path, f"must be >= {_fmt(minimum)}, got {_fmt(number)}")
    return number


def _fmt(number: float) -> str:
    return f"{number:g}"


def _integer(value: object, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ModelError(path, f"expected an integer, got {_kind(value)}")
    return int(value)


def _array(value: object, path: str, what: str = "an array") -> list:
    if not isinstance(value, (list, tuple)):
        raise ModelError(path, f"expected {what}, got {_kind(value)}")
    return list(value)


def _numbers(value: object, path: str, count: int, why: str = "", **limits) -> tuple[float, ...]:
    items = _array(value, path, f"an array of {count} numbers")
    if len(items) != count:
        plural = "" if count == 1 else "s"
        raise ModelError(path, f"expected {count} number{plural}{why}, got {len(items)}")
    return tuple(_number(v, f"{path}[{i}]", **limits) for i, v in enumerate(items))


def _vec3(value: object, path: str, **limits) -> Vec3:
    return _numbers(value, path, 3, **limits)  # type: ignore[return-value]


def _unit_vec3(value: object, path: str) -> Vec3:
    """A nonzero 3-vector scaled to unit length (left alone when already unit to 1e-12)."""
    vector = _vec3(value, path)
    check_direction(vector, path)
    largest = max(abs(c) for c in vector)
    if largest == 0.0:
        raise ModelError(path, "must be a nonzero vector")
    norm = math.sqrt(sum(c * c for c in vector))
    if abs(norm - 1.0) <= UNIT_TOLERANCE:
        return vector
    scaled = [c / largest for c in vector]  # first by the largest component: the norm cannot overflow or vanish
    norm = math.sqrt(sum(c * c for c in scaled))
    return tuple(c / norm for c in scaled)  # type: ignore[return-value]


def _string(value: object, path: str) -> str:
    if not isinstance(value, str):
        raise ModelError(path, f"expected a string, got {_kind(value)}")
    return value


def _identifier(value: object, path: str) -> str:
    name = _string(value, path)
    if not _IDENTIFIER.match(name):
        raise ModelError(path, f"{_show(name)} is not a valid name (letters, digits and _, starting with a letter)")
    return name


def _choice(value: object, path: str, options: Iterable[str]) -> str:
    options = tuple(options)
    text = _string(value, path)
    if text not in options:
        raise ModelError(path, f"must be one of {', '.join(options)}; got {_show(text)}")
    return text


def _limited_list(value: object, path: str, limit: int, what: str) -> list:
    items = _array(value, path)
    if len(items) > limit:
        raise ModelError(path, f"too many {what} ({len(items)}; at most {limit})")
    return items


# --- rotations and inertia -----------------------------------------------------------------


def _matrix3(value: object, path: str) -> Mat3:
    rows = _array(value, path, "a 3x3 matrix")
    if len(rows) != 3:
        raise ModelError(path, f"expected a 3x3 matrix (3 rows), got {len(rows)} rows")
    return tuple(_vec3(row, f"{path}[{i}]") for i, row in enumerate(rows))  # type: ignore[return-value]


def _rotation(value: object, path: str) -> Mat3:
    """A proper rotation: a 3x3 orthonormal matrix with det +1, or {"axis", "angle"}."""
    if isinstance(value, dict):
        data = _fields(value, path, ("axis", "angle"), ("axis", "angle"))
        axis = _unit_vec3(data["axis"], f"{path}.axis")
        return as_mat3(axis_angle_matrix(axis, _number(data["angle"], f"{path}.angle")))
    if not isinstance(value, (list, tuple)):
        raise ModelError(path, f'expected a 3x3 matrix or {{"axis": [...], "angle": a}}, got {_kind(value)}')
    matrix = _matrix3(value, path)
    r = np.array(matrix)
    error = float(np.max(np.abs(r.T @ r - np.eye(3))))
    if error > ROTATION_TOLERANCE:
        raise ModelError(
            path, f'rotation matrix is not orthonormal (max |R^T R - I| = {error:.3g}); '
            f'give {{"axis": [...], "angle": a}} instead'
        )
    if np.linalg.det(r) < 0:
        raise ModelError(path, "rotation matrix has determinant -1 (a reflection); it must be a proper rotation")
    return matrix


def _diagonal(d: Iterable[float]) -> Mat3:
    a, b, c = d
    return ((a, 0.0, 0.0), (0.0, b, 0.0), (0.0, 0.0, c))


def _inertia(value: object, path: str) -> Mat3:
    """Inertia about the mass centre: 3 principal moments or a symmetric 3x3 matrix,
    positive semidefinite, principal moments obeying the triangle inequality."""
    items = _array(value, path, "3 principal moments or a symmetric 3x3 matrix")
    if len(items) == 3 and all(isinstance(v, (list, tuple)) for v in items):
        matrix = _symmetric(_matrix3(items, path), path)
        moments = tuple(float(m) for m in np.linalg.eigvalsh(np.array(matrix)))
    elif len(items) == 3 and not any(isinstance(v, (list, tuple)) for v in items):
        moments = _vec3(items, path, minimum=0.0)
        matrix = _diagonal(moments)
    else:
        raise ModelError(path, "expected 3 principal moments or a symmetric 3x3 matrix")
    _check_moments(moments, path)
    return matrix


def _symmetric(matrix: Mat3, path: str) -> Mat3:
    r = np.array(matrix)
    scale = max(float(np.max(np.abs(r))), 1e-300)
    if float(np.max(np.abs(r - r.T))) > ROTATION_TOLERANCE * scale:
        raise ModelError(path, "inertia matrix is not symmetric")
    # average the off-diagonal pairs; averaging an already symmetric matrix changes nothing
    return tuple(tuple(float((r[i, j] + r[j, i]) / 2) for j in range(3)) for i in range(3))  # type: ignore


def _check_moments(moments: tuple[float, ...], path: str) -> None:
    tolerance = 1e-9 * max(sum(abs(m) for m in moments), 1e-300)
    shown = ", ".join(_fmt(m) for m in moments)
    if min(moments) < -tolerance:
        raise ModelError(path, f"inertia must be positive semidefinite; principal moments are {shown}")
    for m in moments:
        others = sum(moments) - m
        if m > others + tolerance:
            raise ModelError(
                path, f"principal moments {shown} break the triangle inequality "
                f"({_fmt(m)} > {_fmt(others)}, the sum of the other two)"
            )
