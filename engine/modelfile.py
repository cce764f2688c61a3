"""Load and save ``*.eom.json`` model files (shared/MODEL_FORMAT.md, version 1).

Every field is validated with its path (``bodies[1].mass``); an unknown field is an error.
Problems raise :class:`engine.model.ModelError` with a one-line message; when the model came
from a file, ``error.source`` is the file name.

What the loader fills in or changes
-----------------------------------
- Defaults: gravity, ``at``/``com`` at the origin, zero ``q0``/``u0``, coordinate names
  ``<body>_<dof>``, constraint and force names ``<type><index>`` (``distance0``), inertia
  from ``shape`` (zero without a shape: a point mass), settings.
- Joint axes, knife-edge directions and disk axes are scaled to unit length.
- A ``rotation`` given as ``{"axis": [...], "angle": a}`` becomes its 3x3 matrix.
- Inertia given as three principal moments becomes the diagonal 3x3 matrix.
- Bodies are reordered, stably, so that each parent comes before its children: the rest of
  the engine walks the tree from the ground outwards. A file already in that order (the
  usual case) keeps its order.

Example
-------
>>> m = loads_model('{"bodies": [{"name": "p", "parent": "ground", '
...                 '"joint": {"type": "revolute"}, "mass": 1, "com": [1, 0, 0]}]}')
>>> m.coordinate_names
('p_theta',)
"""
from __future__ import annotations

import json
import keyword
import math
import os
import re
import stat
import tempfile
from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np
from eomlab.engine.lazy_imports import sympy as sp

from eomlab.engine.rotations import axis_angle_matrix
from eomlab.engine.expressions import FUNCTIONS, excerpt, expression_names, parse_expression, symbol
from eomlab.engine.methods import METHODS
from eomlab.engine.model import (
    as_mat3,
    COORDINATES,
    MAGGI_BASES,
    GROUND,
    IDENTITY3,
    INTEGRATORS,
    JOINT_DOFS,
    JOINT_TYPES,
    SHAPE_KINDS,
    STABILIZATIONS,
    Body,
    BodyTorque,
    Coincident,
    Distance,
    ExpressionConstraint,
    Joint,
    JointEffort,
    JointSpring,
    KnifeEdge,
    Mat3,
    Model,
    ModelError,
    PointForce,
    PointRef,
    Prescribed,
    RollingDisk,
    Settings,
    Shape,
    Spring,
    Stabilization,
    Vec3,
    default_coordinate_names,
    shape_inertia,
    speed_names,
)

FORMAT_VERSION = 1
MAX_FILE_BYTES = 10 * 1024 * 1024
MAX_BODIES = 1000
MAX_CONSTRAINTS = 1000
MAX_FORCES = 1000

ROTATION_TOLERANCE = 1e-9  # |R^T R - I| and symmetric-inertia tolerance
UNIT_TOLERANCE = 1e-12  # vectors this close to unit length are kept as they are (stable round trip)

_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
# Coordinates appear in expressions, so they may not shadow what expressions already mean.
_RESERVED_COORDINATES = frozenset({"t", "pi"} | set(FUNCTIONS) | set(keyword.kwlist))

_TOP_FIELDS = ("eomlab", "name", "gravity", "bodies", "constraints", "forces", "settings")
_BODY_FIELDS = ("name", "parent", "joint", "mass", "com", "inertia", "shape")
_JOINT_FIELDS = ("type", "axis", "at", "rotation", "q0", "u0", "sequence", "speeds", "names", "orientation")
_SHAPE_FIELDS = ("kind", "length", "radius", "size")
_SHAPE_DIMENSION = {"rod": "length", "disk": "radius", "sphere": "radius", "box": "size", "point": None}
_SETTINGS_FIELDS = ("method", "coordinates", "integrator", "rtol", "atol", "t_end", "dt_out", "dt", "stabilization", "maggi_basis")
_STABILIZATION_FIELDS = ("kind", "alpha", "beta", "tolerance")

_CONSTRAINT_FIELDS = {
    "coincident": ("a", "b", "dims"),
    "distance": ("a", "b", "length"),
    "prescribed": ("coordinate", "motion"),
    "knife_edge": ("body", "point", "direction"),
    "rolling_disk": ("body", "radius", "axis"),
    "expression": ("equation", "order"),
}
_FORCE_FIELDS = {
    "spring": ("a", "b", "stiffness", "rest_length", "damping"),
    "joint_spring": ("body", "stiffness", "rest", "damping"),
    "joint_effort": ("body", "value"),
    "point_force": ("body", "point", "value", "frame"),
    "body_torque": ("body", "value", "frame"),
}
_REQUIRED = {
    "coincident": ("a", "b"),
    "distance": ("a", "b", "length"),
    "prescribed": ("coordinate", "motion"),
    "knife_edge": ("body", "direction"),
    "rolling_disk": ("body", "radius"),
    "expression": ("equation",),
    "spring": ("a", "b", "stiffness"),
    "joint_spring": ("body", "stiffness"),
    "joint_effort": ("body", "value"),
    "point_force": ("body", "value"),
    "body_torque": ("body", "value"),
}
_FRAMES = ("world", "body")
_AXES = ("x", "y", "z")


# --- JSON text -----------------------------------------------------------------------------


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


# --- field readers -------------------------------------------------------------------------


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
    norm = math.sqrt(sum(c * c for c in vector))
    if norm == 0.0:
        raise ModelError(path, "must be a nonzero vector")
    if abs(norm - 1.0) <= UNIT_TOLERANCE:
        return vector
    return tuple(c / norm for c in vector)  # type: ignore[return-value]


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


# --- bodies and joints ---------------------------------------------------------------------


def _joint(data: object, path: str, body_name: str) -> Joint:
    data = _fields(data, path, _JOINT_FIELDS, ("type",))
    kind = _choice(data["type"], f"{path}.type", JOINT_TYPES)
    dof = JOINT_DOFS[kind]
    orientation = _orientation(data, path, kind)
    defaults = Joint(type=kind, orientation=orientation)
    n_q = defaults.n_coordinates
    why = f" (one per coordinate of a {kind} joint)"
    why_u = f" (one per speed of a {kind} joint)" if n_q != dof else why

    def read(key: str, reader, *args):
        return reader(data[key], f"{path}.{key}", *args) if key in data else getattr(defaults, key)

    names = (
        _coordinate_names(data["names"], f"{path}.names", n_q, kind)
        if "names" in data
        else default_coordinate_names(body_name, defaults)
    )
    speeds = read("speeds", _choice, ("body", "euler"))
    if defaults.quaternion and speeds != "body":
        raise ModelError(f"{path}.speeds", "Euler parameters (orientation \"quaternion\") take body-rate speeds only: use \"body\"")
    if "q0" in data:
        q0 = _numbers(data["q0"], f"{path}.q0", n_q, why)
    else:
        q0 = (0.0,) * (n_q - 4) + (1.0, 0.0, 0.0, 0.0) if defaults.quaternion else (0.0,) * dof
    if defaults.quaternion and not sum(v * v for v in q0[-4:]) > 1e-24:
        raise ModelError(f"{path}.q0", "the four Euler parameters are all zero (the identity is [1, 0, 0, 0])")
    return Joint(
        type=kind,
        axis=read("axis", _unit_vec3),
        at=read("at", _vec3),
        rotation=read("rotation", _rotation),
        q0=q0,
        u0=_numbers(data["u0"], f"{path}.u0", dof, why_u) if "u0" in data else (0.0,) * dof,
        sequence=read("sequence", _sequence),
        speeds=speeds,
        names=names,
        orientation=orientation,
    )


def _orientation(data: dict, path: str, kind: str) -> str:
    if "orientation" not in data:
        return "angles"
    value = _choice(data["orientation"], f"{path}.orientation", ("angles", "quaternion"))
    if value == "quaternion" and kind not in ("spherical", "free"):
        raise ModelError(f"{path}.orientation", f"\"quaternion\" applies to spherical and free joints, not {kind}")
    return value


def _coordinate_names(value: object, path: str, dof: int, kind: str) -> tuple[str, ...]:
    items = _array(value, path, f"an array of {dof} names")
    if len(items) != dof:
        raise ModelError(path, f"expected {dof} names (one per coordinate of a {kind} joint), got {len(items)}")
    return tuple(_identifier(v, f"{path}[{i}]") for i, v in enumerate(items))


def _sequence(value: object, path: str) -> str:
    text = _string(value, path)
    valid = len(text) == 3 and all(c in "xyz" for c in text) and text[0] != text[1] and text[1] != text[2]
    if not valid:
        raise ModelError(
            path, f"Euler sequence must be 3 letters from x, y, z with no two neighbours equal "
            f"(e.g. 'zxz', 'xyz'), got {_show(text)}"
        )
    return text


def _shape(data: object, path: str) -> Shape:
    data = _fields(data, path, _SHAPE_FIELDS, ("kind",))
    kind = _choice(data["kind"], f"{path}.kind", SHAPE_KINDS)
    needed = _SHAPE_DIMENSION[kind]
    if needed and needed not in data:
        raise ModelError(f"{path}.{needed}", f"required for a {kind} shape")
    positive = {k: k == needed for k in ("length", "radius", "size")}
    length = _number(data["length"], f"{path}.length", 0.0, positive["length"]) if "length" in data else 0.0
    radius = _number(data["radius"], f"{path}.radius", 0.0, positive["radius"]) if "radius" in data else 0.0
    size = _vec3(data["size"], f"{path}.size", minimum=0.0, positive=positive["size"]) if "size" in data else (0.0,) * 3
    return Shape(kind=kind, length=length, radius=radius, size=size)


def _body(data: object, path: str) -> Body:
    data = _fields(data, path, _BODY_FIELDS, ("name", "parent", "joint"))
    name = _identifier(data["name"], f"{path}.name")
    parent = _identifier(data["parent"], f"{path}.parent")
    joint = _joint(data["joint"], f"{path}.joint", name)
    mass = _number(data["mass"], f"{path}.mass", minimum=0.0) if "mass" in data else 0.0
    com = _vec3(data["com"], f"{path}.com") if "com" in data else (0.0, 0.0, 0.0)
    shape = _shape(data["shape"], f"{path}.shape") if "shape" in data else None
    if "inertia" in data:
        inertia = _inertia(data["inertia"], f"{path}.inertia")
    else:
        inertia = shape_inertia(shape, mass) if shape else _diagonal((0.0, 0.0, 0.0))
    return Body(name=name, parent=parent, joint=joint, mass=mass, com=com, inertia=inertia, shape=shape)


def _tree_order(bodies: list[Body]) -> tuple[Body, ...]:
    """Check that the bodies form a tree on the ground and order parents before children.

    The order is stable: a body keeps its place unless its parent comes later in the file.
    """
    index = {b.name: i for i, b in enumerate(bodies)}
    for i, b in enumerate(bodies):
        if b.parent == b.name:
            raise ModelError(f"bodies[{i}].parent", f"body '{b.name}' cannot be its own parent")
        if b.parent != GROUND and b.parent not in index:
            raise ModelError(f"bodies[{i}].parent", f"unknown parent '{b.parent}' (must be 'ground' or a body's name)")
    placed: set[str] = set()
    order: list[Body] = []
    for b in bodies:
        chain = _unplaced_ancestry(b, bodies, index, placed)
        for member in reversed(chain):
            placed.add(member.name)
            order.append(member)
    return tuple(order)


def _unplaced_ancestry(body: Body, bodies: list[Body], index: dict[str, int], placed: set[str]) -> list[Body]:
    """`body` and its ancestors up to the first placed one (or ground), child first."""
    chain: list[Body] = []
    seen: dict[str, int] = {}
    current = body
    while current.name not in placed:
        if current.name in seen:
            cycle = [b.name for b in chain[seen[current.name]:]] + [current.name]
            path = f"bodies[{index[current.name]}].parent"
            raise ModelError(path, f"cycle {' -> '.join(cycle)}: every body must hang from ground")
        seen[current.name] = len(chain)
        chain.append(current)
        if current.parent == GROUND:
            break
        current = bodies[index[current.parent]]
    return chain


# --- names ---------------------------------------------------------------------------------


@dataclass
class _Names:
    """Names claimed so far (bodies, coordinates, constraints, forces) and where."""

    where: dict[str, str] = field(default_factory=dict)

    def claim(self, name: str, path: str) -> None:
        if name == GROUND:
            raise ModelError(path, "'ground' is reserved for the world")
        if name in self.where:
            raise ModelError(path, f"duplicate name '{name}' (already used at {self.where[name]})")
        self.where[name] = path


def _claim_body_names(bodies: list[Body], names: _Names) -> None:
    for i, b in enumerate(bodies):
        names.claim(b.name, f"bodies[{i}].name")


def _claim_coordinates(bodies: list[Body], data: list, names: _Names) -> None:
    """Coordinates are unique, not reserved words, and collide with no rate or speed name."""
    coordinates: dict[str, str] = {}
    derived: dict[str, str] = {}  # rate, acceleration and body-rate names -> where they come from
    for i, b in enumerate(bodies):
        given = "names" in data[i]["joint"]
        for k, name in enumerate(b.joint.names):
            path = f"bodies[{i}].joint.names[{k}]" if given else f"bodies[{i}].joint"
            if name in _RESERVED_COORDINATES:
                raise ModelError(path, f"coordinate name '{name}' is reserved (expressions use it)")
            if name in derived:
                raise ModelError(path, f"coordinate name '{name}' is also the rate/speed name of {derived[name]}")
            names.claim(name, path)
            coordinates[name] = path
            for rate in (f"{name}_dot", f"{name}_ddot"):
                if rate in coordinates:
                    raise ModelError(path, f"rate name '{rate}' is also the coordinate at {coordinates[rate]}")
                derived[rate] = path
        for speed in speed_names(b.name, b.joint):
            if speed in coordinates and speed not in derived:
                raise ModelError(f"bodies[{i}].joint", f"speed name '{speed}' is also the coordinate at {coordinates[speed]}")
            derived.setdefault(speed, f"bodies[{i}].joint")


# --- constraints and forces ----------------------------------------------------------------


@dataclass
class _Context:
    """What constraints and forces may refer to."""

    dofs: dict[str, int]  # body name -> number of joint coordinates
    coordinates: tuple[str, ...]
    names: _Names

    def body(self, value: object, path: str, allow_ground: bool = False) -> str:
        name = _identifier(value, path)
        if name == GROUND and allow_ground:
            return name
        if name not in self.dofs:
            extra = " ('ground' is not allowed here)" if name == GROUND else ""
            raise ModelError(path, f"unknown body '{name}'{extra}")
        return name

    def point_ref(self, value: object, path: str) -> PointRef:
        data = _fields(value, path, ("body", "point"), ("body",))
        body = self.body(data["body"], f"{path}.body", allow_ground=True)
        point = _vec3(data["point"], f"{path}.point") if "point" in data else (0.0, 0.0, 0.0)
        return PointRef(body=body, point=point)

    def coordinate(self, value: object, path: str) -> str:
        name = _identifier(value, path)
        if name not in self.coordinates:
            shown = ", ".join(self.coordinates[:8]) + (", ..." if len(self.coordinates) > 8 else "")
            raise ModelError(path, f"unknown coordinate '{name}' (coordinates: {shown or 'none'})")
        return name

    def joint_dof(self, body: str, path: str) -> int:
        dof = self.dofs[body]
        if dof == 0:
            raise ModelError(path, f"body '{body}' has a fixed joint: no coordinates to act on")
        return dof


def _typed_item(data: object, path: str, index: int, types: dict[str, tuple[str, ...]], names: _Names):
    """Common part of constraints and forces: the type, the allowed fields and the name."""
    if not isinstance(data, dict):
        raise ModelError(path, f"expected an object, got {_kind(data)}")
    if "type" not in data:
        raise ModelError(f"{path}.type", "required field is missing")
    kind = _choice(data["type"], f"{path}.type", tuple(types))
    _fields(data, path, ("type", "name") + types[kind], _REQUIRED[kind])
    name = _identifier(data["name"], f"{path}.name") if "name" in data else f"{kind}{index}"
    names.claim(name, f"{path}.name")
    return kind, name


def _dims(value: object, path: str) -> tuple[str, ...]:
    items = _array(value, path, "an array of axis names")
    dims = tuple(_choice(v, f"{path}[{i}]", _AXES) for i, v in enumerate(items))
    if not dims:
        raise ModelError(path, "must list at least one of x, y, z")
    if len(set(dims)) != len(dims):
        raise ModelError(path, "lists an axis twice")
    return dims


def _constraint(data: object, path: str, index: int, ctx: _Context):
    kind, name = _typed_item(data, path, index, _CONSTRAINT_FIELDS, ctx.names)
    at = lambda key: f"{path}.{key}"  # noqa: E731
    if kind == "coincident":
        dims = _dims(data["dims"], at("dims")) if "dims" in data else _AXES
        return Coincident(name, ctx.point_ref(data["a"], at("a")), ctx.point_ref(data["b"], at("b")), dims)
    if kind == "distance":
        a, b = ctx.point_ref(data["a"], at("a")), ctx.point_ref(data["b"], at("b"))
        return Distance(name, a, b, _number(data["length"], at("length"), positive=True))
    if kind == "prescribed":
        coordinate = ctx.coordinate(data["coordinate"], at("coordinate"))
        return Prescribed(name, coordinate, _expression_text(data["motion"], at("motion"), ()))
    if kind == "knife_edge":
        body = ctx.body(data["body"], at("body"))
        point = _vec3(data["point"], at("point")) if "point" in data else (0.0, 0.0, 0.0)
        return KnifeEdge(name, body, point, _unit_vec3(data["direction"], at("direction")))
    if kind == "rolling_disk":
        body = ctx.body(data["body"], at("body"))
        axis = _unit_vec3(data["axis"], at("axis")) if "axis" in data else (0.0, 0.0, 1.0)
        return RollingDisk(name, body, _number(data["radius"], at("radius"), positive=True), axis)
    order = _integer(data["order"], at("order")) if "order" in data else 0
    if order not in (0, 1, 2):
        raise ModelError(at("order"), f"must be 0, 1 or 2, got {order}")
    equation = _equation(data["equation"], at("equation"), order, ctx.coordinates)
    return ExpressionConstraint(name, equation, order)


#: times at which two motions prescribed for one coordinate are compared
_MOTION_CHECK_TIMES = (0.0, 0.37, 1.3, 2.9)


def _check_prescribed_once(constraints: tuple) -> None:
    """Two `prescribed` constraints on one coordinate must prescribe the same motion: the same
    one twice is merely redundant (the formulations that handle redundancy run it), different
    ones cannot both hold."""
    first: dict[str, tuple[int, sp.Expr]] = {}
    for i, c in enumerate(constraints):
        if not isinstance(c, Prescribed):
            continue
        motion = parse_expression(c.motion, (), f"constraints[{i}].motion").sympy
        if c.coordinate not in first:
            first[c.coordinate] = (i, motion)
            continue
        j, earlier = first[c.coordinate]
        if _motions_differ(earlier, motion):
            raise ModelError(
                f"constraints[{i}].motion", f"inconsistent constraints: '{c.coordinate}' is already prescribed by "
                f"constraints[{j}] ('{constraints[j].name}') with a different motion; both cannot hold"
            )


def _motions_differ(a: sp.Expr, b: sp.Expr) -> bool:
    """True when two motions in t differ at one of a few times (False when they cannot be told apart)."""
    if a == b:
        return False
    t = symbol("t")
    for value in _MOTION_CHECK_TIMES:
        try:
            x, y = complex(a.subs(t, value).evalf()), complex(b.subs(t, value).evalf())
        except (TypeError, ValueError, OverflowError, ZeroDivisionError):
            return False
        if not (math.isfinite(abs(x)) and math.isfinite(abs(y))):
            return False
        if abs(x - y) > 1e-9 * (1.0 + abs(x)):
            return True
    return False


def _expression_text(value: object, path: str, allowed: Iterable[str]) -> str:
    """A validated expression, kept as text; a plain number is accepted and kept as its text."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = repr(_number(value, path))
    if isinstance(value, _NonFinite):
        _number(value, path)
    text = _string(value, path)
    parse_expression(text, allowed, path)
    return text


def _equation(value: object, path: str, order: int, coordinates: tuple[str, ...]) -> str:
    """An expression constraint's equation, checked against its order."""
    text = _string(value, path)
    parsed = parse_expression(text, expression_names(coordinates), path)
    rates = {f"{c}_dot" for c in coordinates} & parsed.names
    accelerations = {f"{c}_ddot" for c in coordinates} & parsed.names
    if order == 0 and (rates or accelerations):
        used = sorted(rates | accelerations)[0]
        raise ModelError(path, f"an order-0 (position) equation may not use rates or accelerations, got '{used}'")
    if order == 1 and accelerations:
        raise ModelError(path, f"an order-1 (velocity) equation may not use accelerations, got '{sorted(accelerations)[0]}'")
    if order == 1 and not rates:
        raise ModelError(path, "an order-1 (velocity) equation must use at least one rate (_dot)")
    if order == 2:
        _check_linear_in(parsed.sympy, sorted(accelerations), path)
    if order == 0 and not (parsed.names & set(coordinates)):
        raise ModelError(path, "an order-0 (position) equation must use at least one coordinate")
    return text


def _check_linear_in(expr: sp.Expr, accelerations: list[str], path: str) -> None:
    if not accelerations:
        raise ModelError(path, "an order-2 equation must use at least one acceleration (_ddot)")
    symbols = {symbol(a) for a in accelerations}
    for a in accelerations:
        if sp.diff(expr, symbol(a)).free_symbols & symbols:
            raise ModelError(path, f"an order-2 equation must be linear in the accelerations; it is not linear in '{a}'")


def _force_values(value: object, path: str, count: int, allowed: set[str]) -> tuple[str, ...]:
    if count == 1 and not isinstance(value, (list, tuple)):
        value = [value]
    items = _array(value, path, f"an array of {count} expressions")
    if len(items) != count:
        raise ModelError(path, f"expected {count} expressions, got {len(items)}")
    return tuple(_expression_text(v, f"{path}[{i}]", allowed) for i, v in enumerate(items))


def _force(data: object, path: str, index: int, ctx: _Context):
    kind, name = _typed_item(data, path, index, _FORCE_FIELDS, ctx.names)
    at = lambda key: f"{path}.{key}"  # noqa: E731
    damping = _number(data["damping"], at("damping"), minimum=0.0) if "damping" in data else 0.0
    # forces may depend on the state and time, not on accelerations
    state_names = {n for n in expression_names(ctx.coordinates) if not n.endswith("_ddot")}
    if kind == "spring":
        a, b = ctx.point_ref(data["a"], at("a")), ctx.point_ref(data["b"], at("b"))
        stiffness = _number(data["stiffness"], at("stiffness"), minimum=0.0)
        rest = _number(data["rest_length"], at("rest_length"), minimum=0.0) if "rest_length" in data else 0.0
        return Spring(name, a, b, stiffness, rest, damping)
    body = ctx.body(data["body"], at("body"))
    if kind == "joint_spring":
        dof = ctx.joint_dof(body, at("body"))
        stiffness = _number(data["stiffness"], at("stiffness"), minimum=0.0)
        return JointSpring(name, body, stiffness, _rest(data.get("rest", 0.0), at("rest"), dof), damping)
    if kind == "joint_effort":
        dof = ctx.joint_dof(body, at("body"))
        return JointEffort(name, body, _force_values(data["value"], at("value"), dof, state_names))
    frame = _choice(data["frame"], at("frame"), _FRAMES) if "frame" in data else "world"
    value = _force_values(data["value"], at("value"), 3, state_names)
    if kind == "point_force":
        point = _vec3(data["point"], at("point")) if "point" in data else (0.0, 0.0, 0.0)
        return PointForce(name, body, point, value, frame)
    return BodyTorque(name, body, value, frame)


def _rest(value: object, path: str, dof: int) -> tuple[float, ...]:
    if isinstance(value, (list, tuple)):
        return _numbers(value, path, dof, " (one per joint coordinate)")
    return (_number(value, path),) * dof


# --- settings ------------------------------------------------------------------------------


def _settings(data: object, path: str) -> Settings:
    data = _fields(data, path, _SETTINGS_FIELDS)
    defaults = Settings()
    values = {}
    for key, options in (("method", METHODS), ("coordinates", COORDINATES), ("integrator", INTEGRATORS)):
        values[key] = _choice(data[key], f"{path}.{key}", options) if key in data else getattr(defaults, key)
    for key in ("rtol", "atol", "t_end", "dt_out", "dt"):
        values[key] = _number(data[key], f"{path}.{key}", positive=True) if key in data else getattr(defaults, key)
    if "stabilization" in data:
        values["stabilization"] = _stabilization(data["stabilization"], f"{path}.stabilization")
    if "maggi_basis" in data:
        values["maggi_basis"] = _choice(data["maggi_basis"], f"{path}.maggi_basis", MAGGI_BASES)
    return Settings(**values)


def _stabilization(data: object, path: str) -> Stabilization:
    data = _fields(data, path, _STABILIZATION_FIELDS, ("kind",))
    kind = _choice(data["kind"], f"{path}.kind", STABILIZATIONS)
    if kind == "baumgarte":
        _fields(data, path, _STABILIZATION_FIELDS, ("alpha", "beta"))
    defaults = Stabilization()
    alpha = _number(data["alpha"], f"{path}.alpha", minimum=0.0) if "alpha" in data else defaults.alpha
    beta = _number(data["beta"], f"{path}.beta", minimum=0.0) if "beta" in data else defaults.beta
    tolerance = _number(data["tolerance"], f"{path}.tolerance", positive=True) if "tolerance" in data else defaults.tolerance
    return Stabilization(kind=kind, alpha=alpha, beta=beta, tolerance=tolerance)


# --- the model -----------------------------------------------------------------------------


def model_from_dict(data: dict, source: str | None = None) -> Model:
    """Validate a decoded model file and build the Model.

    Parameters
    ----------
    data : dict
        The decoded JSON object.
    source : str, optional
        File name reported in errors.

    Raises
    ------
    ModelError
        The first problem found, with its field path.
    """
    try:
        return _build_model(data)
    except ModelError as error:
        if source is None:
            raise
        raise error.with_source(str(source)) from None


def _build_model(data: object) -> Model:
    data = _fields(data, "", _TOP_FIELDS)
    version = _integer(data["eomlab"], "eomlab") if "eomlab" in data else FORMAT_VERSION
    if version != FORMAT_VERSION:
        raise ModelError("eomlab", f"unsupported format version {version} (this eomlab reads version {FORMAT_VERSION})")
    name = _string(data["name"], "name") if "name" in data else Model().name
    gravity = _vec3(data["gravity"], "gravity") if "gravity" in data else Model().gravity

    body_data = _limited_list(data.get("bodies", []), "bodies", MAX_BODIES, "bodies")
    bodies = [_body(b, f"bodies[{i}]") for i, b in enumerate(body_data)]
    names = _Names()
    _claim_body_names(bodies, names)
    _claim_coordinates(bodies, body_data, names)
    ordered = _tree_order(bodies)

    ctx = _Context({b.name: b.joint.n_coordinates for b in ordered}, tuple(n for b in ordered for n in b.joint.names), names)
    constraint_data = _limited_list(data.get("constraints", []), "constraints", MAX_CONSTRAINTS, "constraints")
    constraints = tuple(_constraint(c, f"constraints[{i}]", i, ctx) for i, c in enumerate(constraint_data))
    _check_prescribed_once(constraints)
    force_data = _limited_list(data.get("forces", []), "forces", MAX_FORCES, "forces")
    forces = tuple(_force(f, f"forces[{i}]", i, ctx) for i, f in enumerate(force_data))
    settings = _settings(data["settings"], "settings") if "settings" in data else Settings()
    return Model(name=name, gravity=gravity, bodies=ordered, constraints=constraints, forces=forces,
                 settings=settings, eomlab=version)


def loads_model(text: str, source: str | None = None) -> Model:
    """Load a model from JSON text. See :func:`model_from_dict` for errors."""
    try:
        if len(text) > MAX_FILE_BYTES:
            raise ModelError("", f"model text is too large ({len(text)} characters; at most {MAX_FILE_BYTES})")
        data = _decode_json(text)
    except ModelError as error:
        raise (error.with_source(str(source)) if source is not None else error) from None
    return model_from_dict(data, source)


def load_model(path: str | os.PathLike) -> Model:
    """Load a ``*.eom.json`` file; errors carry the file name as ``source``."""
    source = os.fspath(path)
    try:
        size = os.path.getsize(source)
        if size > MAX_FILE_BYTES:
            raise ModelError("", f"file is too large ({size / 2**20:.1f} MB; at most {MAX_FILE_BYTES // 2**20} MB)", source)
        with open(source, "rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ModelError("", f"cannot read the file: {exc.strerror or exc}", source) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ModelError("", "the file is not UTF-8 text", source) from None
    return loads_model(text, source)


# --- saving --------------------------------------------------------------------------------


def _floats(values: Iterable[float]) -> list[float]:
    return [float(v) for v in values]


def _matrix_out(matrix: Mat3) -> list[list[float]]:
    return [_floats(row) for row in matrix]


def _inertia_out(matrix: Mat3) -> list:
    off_diagonal = [matrix[i][j] for i in range(3) for j in range(3) if i != j]
    if all(v == 0 for v in off_diagonal):
        return _floats(matrix[i][i] for i in range(3))
    return _matrix_out(matrix)


def _joint_out(joint: Joint) -> dict:
    out: dict[str, Any] = {"type": joint.type}
    defaults = Joint(type=joint.type)
    if joint.type in ("revolute", "prismatic") or joint.axis != defaults.axis:
        out["axis"] = _floats(joint.axis)
    out["at"] = _floats(joint.at)
    if joint.rotation != IDENTITY3:
        out["rotation"] = _matrix_out(joint.rotation)
    out["q0"] = _floats(joint.q0)
    out["u0"] = _floats(joint.u0)
    angular = joint.type in ("spherical", "free")
    if joint.quaternion:
        out["orientation"] = joint.orientation
    elif angular or joint.sequence != defaults.sequence:
        out["sequence"] = joint.sequence
    if (angular and not joint.quaternion) or joint.speeds != defaults.speeds:
        out["speeds"] = joint.speeds
    out["names"] = list(joint.names)
    return out


def _shape_out(shape: Shape) -> dict:
    out: dict[str, Any] = {"kind": shape.kind}
    needed = _SHAPE_DIMENSION[shape.kind]
    if needed == "length" or shape.length:
        out["length"] = float(shape.length)
    if needed == "radius" or shape.radius:
        out["radius"] = float(shape.radius)
    if needed == "size" or any(shape.size):
        out["size"] = _floats(shape.size)
    return out


def _body_out(body: Body) -> dict:
    out = {
        "name": body.name,
        "parent": body.parent,
        "joint": _joint_out(body.joint),
        "mass": float(body.mass),
        "com": _floats(body.com),
        "inertia": _inertia_out(body.inertia),
    }
    if body.shape is not None:
        out["shape"] = _shape_out(body.shape)
    return out


def _point_out(ref: PointRef) -> dict:
    return {"body": ref.body, "point": _floats(ref.point)}


def _constraint_out(c) -> dict:
    out: dict[str, Any] = {"type": c.type, "name": c.name}
    if isinstance(c, Coincident):
        out.update(a=_point_out(c.a), b=_point_out(c.b), dims=list(c.dims))
    elif isinstance(c, Distance):
        out.update(a=_point_out(c.a), b=_point_out(c.b), length=float(c.length))
    elif isinstance(c, Prescribed):
        out.update(coordinate=c.coordinate, motion=c.motion)
    elif isinstance(c, KnifeEdge):
        out.update(body=c.body, point=_floats(c.point), direction=_floats(c.direction))
    elif isinstance(c, RollingDisk):
        out.update(body=c.body, radius=float(c.radius), axis=_floats(c.axis))
    elif isinstance(c, ExpressionConstraint):
        out.update(equation=c.equation, order=int(c.order))
    else:
        raise ModelError("constraints", f"cannot save a constraint of type {type(c).__name__}")
    return out


def _force_out(f) -> dict:
    out: dict[str, Any] = {"type": f.type, "name": f.name}
    if isinstance(f, Spring):
        out.update(a=_point_out(f.a), b=_point_out(f.b), stiffness=float(f.stiffness),
                   rest_length=float(f.rest_length), damping=float(f.damping))
    elif isinstance(f, JointSpring):
        out.update(body=f.body, stiffness=float(f.stiffness), rest=_floats(f.rest), damping=float(f.damping))
    elif isinstance(f, JointEffort):
        out.update(body=f.body, value=list(f.value))
    elif isinstance(f, PointForce):
        out.update(body=f.body, point=_floats(f.point), value=list(f.value), frame=f.frame)
    elif isinstance(f, BodyTorque):
        out.update(body=f.body, value=list(f.value), frame=f.frame)
    else:
        raise ModelError("forces", f"cannot save a force of type {type(f).__name__}")
    return out


def _settings_out(s: Settings) -> dict:
    stabilization = {"kind": s.stabilization.kind}
    if s.stabilization.kind == "baumgarte" or s.stabilization.alpha or s.stabilization.beta:
        stabilization.update(alpha=float(s.stabilization.alpha), beta=float(s.stabilization.beta))
    stabilization["tolerance"] = float(s.stabilization.tolerance)
    out = {
        "method": s.method, "coordinates": s.coordinates, "integrator": s.integrator,
        "rtol": float(s.rtol), "atol": float(s.atol), "t_end": float(s.t_end),
        "dt_out": float(s.dt_out), "dt": float(s.dt), "stabilization": stabilization,
    }
    if s.maggi_basis != Settings().maggi_basis:
        out["maggi_basis"] = s.maggi_basis
    return out


def model_to_dict(model: Model) -> dict:
    """The model as a JSON-ready dict, every value explicit so that loading it gives `model` back."""
    return {
        "eomlab": int(model.eomlab),
        "name": model.name,
        "gravity": _floats(model.gravity),
        "bodies": [_body_out(b) for b in model.bodies],
        "constraints": [_constraint_out(c) for c in model.constraints],
        "forces": [_force_out(f) for f in model.forces],
        "settings": _settings_out(model.settings),
    }


def dumps_model(model: Model) -> str:
    """The model file's text: JSON with short arrays and objects kept on one line."""
    return _format_json(model_to_dict(model), 0) + "\n"


def _format_json(value: Any, indent: int, width: int = 100) -> str:
    flat = json.dumps(value, allow_nan=False, ensure_ascii=False, separators=(", ", ": "))
    if len(flat) + indent <= width or not isinstance(value, (dict, list)) or not value:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, list):
        items = [pad + _format_json(v, indent + 2, width) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
    items = [f"{pad}{json.dumps(k, ensure_ascii=False)}: {_format_json(v, indent + 2, width).lstrip()}"
             for k, v in value.items()]
    return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"


def save_model(model: Model, path: str | os.PathLike) -> None:
    """Write `model` to `path` atomically.

    The model is validated (a saved file always loads) and serialised first, then written to
    a temporary file in the same directory, flushed, fsync'ed and moved over `path` with
    ``os.replace``. On any failure the old file is left untouched and no temporary file stays.

    Raises
    ------
    ModelError
        The model does not validate (with the field path).
    OSError
        The file cannot be written (e.g. a read-only directory).
    """
    target = os.fspath(path)
    data = model_to_dict(model)
    model_from_dict(data, target)
    text = _format_json(data, 0) + "\n"
    _write_atomic(target, text)


def _write_atomic(target: str, text: str) -> None:
    directory = os.path.dirname(os.path.abspath(target))
    mode = _file_mode(target)
    handle, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise
    _fsync_directory(directory)


def _file_mode(target: str) -> int:
    """Keep an existing file's permissions; new files get rw-r--r--."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        return 0o644


def _fsync_directory(directory: str) -> None:
    """Make the rename itself durable where the platform allows it."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
