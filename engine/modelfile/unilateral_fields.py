"""The file fields of unilateral constraints: a joint's `limits` and `restitution`, the `contact` item.

    "limits": [lower, upper]                      a one-speed joint
    "limits": [lo1, hi1, lo2, hi2, ...]           (lower, upper) per speed, flat (what the importers write)
    "limits": [[lo1, hi1], null, ...]             a pair or null (no limit) per speed
    "restitution": e                              0 … 1 (default 0: the joint stops at its limit)

    {"type": "contact", "name": ..., "a": {"body": B, "point": [...], "radius": r},
     "b": "ground" | {"body": B2, "point": [...], "radius": r2}, "restitution": e}

In the model a speed without a limit is (−inf, inf); the writer writes such a joint's limits as pairs
with null, any other as the flat list (so files the importers wrote round-trip unchanged).
"""
from __future__ import annotations

import math

from eomlab.engine.model import GROUND, Contact, Joint, ModelError, Sphere
from eomlab.engine.modelfile.fields import _array, _fields, _number, _vec3

CONTACT_FIELDS = ("a", "b", "restitution")
CONTACT_REQUIRED = ("a", "b")


def read_limits(value: object, path: str, dof: int) -> tuple[float, ...]:
    """(lower, upper) per speed, flat; ±inf where a speed has none. lower > upper is refused."""
    items = _array(value, path, f"an array of (lower, upper) per speed ({2 * dof} numbers, or {dof} pairs or nulls)")
    pairs: list[tuple[float, float]] = []
    if len(items) == 2 * dof and all(not isinstance(v, (list, type(None))) for v in items):
        pairs = [(_number(items[2 * k], f"{path}[{2 * k}]"), _number(items[2 * k + 1], f"{path}[{2 * k + 1}]"))
                 for k in range(dof)]
    elif len(items) == dof and all(isinstance(v, (list, type(None))) for v in items):
        for k, item in enumerate(items):
            if item is None:
                pairs.append((-math.inf, math.inf))
                continue
            pair = _array(item, f"{path}[{k}]", "[lower, upper] or null")
            if len(pair) != 2:
                raise ModelError(f"{path}[{k}]", f"expected [lower, upper] or null, got {len(pair)} numbers")
            pairs.append((_number(pair[0], f"{path}[{k}][0]"), _number(pair[1], f"{path}[{k}][1]")))
    else:
        raise ModelError(path, f"expected {2 * dof} numbers (lower, upper per speed) or {dof} pairs or nulls, "
                         f"got {len(items)} items")
    for k, (low, high) in enumerate(pairs):
        if low > high:
            where = path if dof == 1 else f"{path}[{k}]"
            raise ModelError(where, f"lower limit {low:g} is above the upper limit {high:g}")
    return tuple(v for pair in pairs for v in pair)


def read_restitution(value: object, path: str) -> float:
    e = _number(value, path)
    if not 0.0 <= e <= 1.0:
        raise ModelError(path, f"the coefficient of restitution must be in [0, 1], got {e:g}")
    return e


def read_contact(data: dict, path: str, name: str, body_names) -> Contact:
    """A `contact` item (its type, name and fields already checked by the constraint reader)."""
    a = _sphere(data["a"], f"{path}.a", body_names)
    b_data = data["b"]
    b = None if b_data == GROUND else _sphere(b_data, f"{path}.b", body_names)
    if b is not None and b.body == a.body:
        raise ModelError(f"{path}.b.body", f"a contact between two spheres of one body ('{a.body}') never closes")
    e = read_restitution(data["restitution"], f"{path}.restitution") if "restitution" in data else 0.0
    return Contact(name, a, b, e)


def _sphere(value: object, path: str, body_names) -> Sphere:
    if isinstance(value, str):
        raise ModelError(path, f"expected \"ground\" or {{\"body\", \"point\", \"radius\"}}, got '{value}'")
    data = _fields(value, path, ("body", "point", "radius"), ("body", "radius"))
    body = data["body"]
    if not isinstance(body, str) or body not in body_names:
        raise ModelError(f"{path}.body", f"unknown body {body!r} (bodies: {', '.join(body_names) or 'none'})")
    point = _vec3(data["point"], f"{path}.point") if "point" in data else (0.0, 0.0, 0.0)
    return Sphere(body, point, _number(data["radius"], f"{path}.radius", positive=True))


def limits_out(joint: Joint) -> list:
    if all(math.isfinite(v) for v in joint.limits):
        return [float(v) for v in joint.limits]
    pairs = zip(joint.limits[0::2], joint.limits[1::2])
    return [None if math.isinf(lo) and math.isinf(hi) else [float(lo), float(hi)] for lo, hi in pairs]


def contact_out(c: Contact) -> dict:
    out: dict = {"type": c.type, "name": c.name, "a": _sphere_out(c.a)}
    out["b"] = GROUND if c.b is None else _sphere_out(c.b)
    out["restitution"] = float(c.restitution)
    return out


def _sphere_out(s: Sphere) -> dict:
    return {"body": s.body, "point": [float(v) for v in s.point], "radius": float(s.radius)}
