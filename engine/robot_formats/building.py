"""What the URDF and MJCF readers share: checked masses, inertias and axes, identifiers, shapes,
and eomlab bodies made from numpy frames."""
from __future__ import annotations

import re

import numpy as np

from eomlab.engine.limits import MAX_MAGNITUDE
from eomlab.engine.model import GROUND, Body, Joint, ModelError, Shape

_NOT_IDENTIFIER = re.compile(r"[^A-Za-z0-9_]")


def numbers(text: str | None, count: int, where: str, default=None) -> np.ndarray:
    """`count` numbers from a space-separated attribute (or the default), each within ±MAX_MAGNITUDE
    (1e12, the model's own limit, engine.limits): the reader's sums, products and eigenvalues then
    cannot overflow (diaginertia="1 1 1e308" printed numpy's overflow warning, "0.1 1e308 1" ended
    in LinAlgError)."""
    if text is None:
        if default is None:
            raise ModelError(where, "missing")
        return np.array(default, dtype=float)
    try:
        values = np.array([float(v) for v in text.split()], dtype=float)
    except ValueError:
        raise ModelError(where, f"expected {count} number(s), got {text!r}") from None
    if len(values) != count or not np.all(np.isfinite(values)):
        raise ModelError(where, f"expected {count} finite number(s), got {text!r}")
    if np.any(np.abs(values) > MAX_MAGNITUDE):
        raise ModelError(where, f"{text!r} is beyond eomlab's limit: every number must be within ±{MAX_MAGNITUDE:g}")
    return values


class Identifiers:
    """eomlab names (``[A-Za-z][A-Za-z0-9_]*``, unique, not ``ground``) for the file's names. A body
    and a coordinate may share one (the model file allows it), so a joint named like its link keeps
    its name; any other pair of names differs."""

    def __init__(self):
        self.used = {GROUND, "t", "pi"}
        self.kinds: dict[str, set[str]] = {}

    def claim(self, name: str, kind: str = "other") -> str:
        """A free name for `name`; `kind` "body" or "coordinate" may take a name the other holds."""
        base = _NOT_IDENTIFIER.sub("_", name or "unnamed")
        base = base if base[:1].isalpha() else f"n_{base}"
        candidate, k = base, 2
        while not self._free(candidate, kind):
            candidate, k = f"{base}_{k}", k + 1
        self.used.add(candidate)
        self.kinds.setdefault(candidate, set()).add(kind)
        return candidate

    def _free(self, name: str, kind: str) -> bool:
        if name not in self.used:
            return True
        held = self.kinds.get(name)
        return held is not None and kind in ("body", "coordinate") and held == {"body", "coordinate"} - {kind}


def checked_mass(mass: float, where: str) -> float:
    if not mass >= 0:
        raise ModelError(where, f"mass must be >= 0, got {mass:g}")
    return float(mass)


def balanced_moments(moments: np.ndarray) -> np.ndarray:
    """MuJoCo's ``<compiler balanceinertia="true">`` (MuJoCo's XML reference, compiler/balanceinertia):
    principal moments (each >= 0) that break the triangle inequality, A + B < C in some order, are all set
    to their mean; moments that obey it are kept."""
    a, b, c = moments
    if a + b < c or a + c < b or b + c < a:
        return np.full(3, (a + b + c) / 3.0)
    return moments


def checked_inertia(inertia: np.ndarray, where: str, mass: float = 0.0, size: float = 0.0, clipped=None,
                    balanced=None, balance=None) -> np.ndarray:
    """A symmetric inertia tensor whose principal moments are >= 0 and obey the triangle inequality, to
    1e-9 of the larger of its largest moment and the body's mass × size² (its mass centre's distance from
    the body frame, say): a point-like mass at the end of a link may carry rounding far above its own
    tiny tensor. Negative moments within that are clipped to 0, and `clipped(where)` is called; a triangle
    inequality broken within it is met by raising the two smaller moments (the model file checks it
    relative to the tensor's own size), and `balanced(where)` is called. One broken beyond it is refused,
    or, given `balance`, evened out as MuJoCo's balanceinertia does (`balanced_moments`) and
    `balance(where, moments before, moments after)` is called."""
    inertia = 0.5 * (inertia + inertia.T)
    moments, axes = np.linalg.eigh(inertia)
    scale = max(float(np.max(np.abs(moments))), mass * size * size, 1e-300)
    if -1e-9 * scale <= moments[0] < 0:
        moments = np.maximum(moments, 0.0)
        inertia = axes @ np.diag(moments) @ axes.T
        if clipped is not None:
            clipped(where)
    if moments[0] < -1e-9 * scale:
        raise ModelError(where, f"inertia is not positive definite (principal moments {', '.join(f'{m:.6g}' for m in moments)})")
    if moments[0] + moments[1] < moments[2] - 1e-9 * scale and balance is not None:
        evened = balanced_moments(moments)
        balance(where, moments, evened)
        return evened[0] * np.eye(3)  # three equal moments: the same tensor in every frame
    if moments[0] + moments[1] < moments[2] - 1e-9 * scale:
        raise ModelError(where, f"principal moments {', '.join(f'{m:.6g}' for m in moments)} violate the "
                         "triangle inequality (no rigid body has them)")
    if moments[0] + moments[1] < moments[2]:
        deficit = moments[2] - moments[0] - moments[1]
        moments = np.array([moments[0] + deficit, moments[1] + deficit, moments[2]])  # now A + B > C
        inertia = axes @ np.diag(moments) @ axes.T
        if balanced is not None:
            balanced(where)
    return inertia


def unit_axis(axis: np.ndarray, where: str) -> np.ndarray:
    norm = float(np.linalg.norm(axis))
    if not norm > 1e-12:
        raise ModelError(where, "joint axis has zero length")
    return axis / norm


def rpy_matrix(rpy: np.ndarray) -> np.ndarray:
    """URDF's roll-pitch-yaw: R = Rz(yaw) Ry(pitch) Rx(roll) (fixed axes x, y, z)."""
    from eomlab.engine.rotations import elementary

    return elementary("z", rpy[2]) @ elementary("y", rpy[1]) @ elementary("x", rpy[0])


def shape_for(kind: str, size: np.ndarray) -> Shape | None:
    """The nearest eomlab shape: `size` is a sphere's radius, a box's full edges, a cylinder's
    (radius, length); None for a degenerate one (a zero edge or radius: the body is drawn by its
    inertia instead), which the model file would refuse."""
    if not np.all(np.isfinite(size)) or (kind != "cylinder" and np.any(np.asarray(size) <= 0)) or \
            (kind == "cylinder" and max(size[0], size[1]) <= 0):
        return None
    if kind == "sphere":
        return Shape("sphere", radius=float(size[0]))
    if kind == "box":
        return Shape("box", size=tuple(float(v) for v in size))
    radius, length = float(size[0]), float(size[1])
    if length > 4 * radius:  # long and thin: a rod (drawn along body x, so this is approximate)
        return Shape("rod", length=length)
    return Shape("disk", radius=radius) if radius > 0 else None


class Unmapped:
    """What a file holds that the model cannot: one warning per kind, naming the elements."""

    def __init__(self):
        self.kinds: dict[str, tuple[str, list[str]]] = {}

    def add(self, kind: str, name: str, why: str) -> None:
        self.kinds.setdefault(kind, (why, []))[1].append(name)

    def warnings(self) -> list[str]:
        out = []
        for kind, (why, names) in self.kinds.items():
            shown = ", ".join(names[:6]) + (f", … ({len(names)} in all)" if len(names) > 6 else "")
            out.append(f"{kind} not imported ({why}): {shown}")
        return out


def _tuple3(v) -> tuple:
    return tuple(float(x) for x in v)


def body(name: str, parent: str, joint: Joint, at: np.ndarray, rotation: np.ndarray, mass: float,
         com: np.ndarray, inertia: np.ndarray, shape: Shape | None) -> Body:
    """An eomlab body whose joint frame sits at `at`, turned by `rotation`, in the parent's frame."""
    from dataclasses import replace

    joint = replace(joint, at=_tuple3(at), rotation=tuple(_tuple3(row) for row in rotation))
    return Body(name=name, parent=parent, joint=joint, mass=mass, com=_tuple3(com),
                inertia=tuple(_tuple3(row) for row in inertia), shape=shape)
