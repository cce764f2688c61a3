"""Eigenvalues against a parameter, and where a real part crosses zero (`eomlab linearize --vary`).

The parameter is any name a sweep varies (an initial coordinate or speed, a model field such
as ``bodies[1].mass``), or ``speed``: the speed of the first body's origin in a steady motion,
every initial speed scaled with it (the forward speed of the benchmark bicycle). Between two
values where the largest real part of the eigenvalues changes sign it is located by Brent's
method on that largest real part (continuous in the parameter).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from eomlab.engine.model import Model, ModelError
from eomlab.engine.mechanics.system import build_system
from eomlab.engine.linearize.linearization import linearize

SPEED = "speed"


@dataclass
class Crossing:
    value: float  # the parameter where the largest real part is zero
    becomes: str  # "stable" or "unstable" as the parameter grows
    kind: str  # "oscillatory" (a complex pair) or "real"


@dataclass
class Variation:
    name: str
    values: np.ndarray
    eigenvalues: list[np.ndarray]  # one array per value
    crossings: list[Crossing]


def parse_range(text: str) -> tuple[str, np.ndarray]:
    """NAME=A:B:N → (NAME, N values from A to B)."""
    name, eq, spec = text.partition("=")
    where = f"--vary {name or text}"
    parts = spec.split(":")
    if not eq or not name or len(parts) != 3:
        raise ModelError(where, f"expected NAME=A:B:N, got {text!r}")
    try:
        a, b, n = float(parts[0]), float(parts[1]), int(parts[2])
    except ValueError:
        raise ModelError(where, f"A and B must be numbers and N a whole number, got {spec!r}") from None
    if not (np.isfinite(a) and np.isfinite(b)) or n < 2 or a == b:
        raise ModelError(where, f"need finite A ≠ B and N ≥ 2, got {spec!r}")
    if n > 10000:
        raise ModelError(where, f"{n} values is too many (at most 10000)")
    return name.strip(), np.linspace(a, b, n)


def with_value(model: Model, name: str, value: float) -> Model:
    """`model` with the parameter `name` set to `value`."""
    if name == SPEED:
        return _with_speed(model, value)
    from eomlab.engine.sweep.members import set_field
    from eomlab.engine.sweep.spec import classify

    kind, index = classify(model, name)
    if kind == "setting":
        raise ModelError(f"--vary {name}", "a setting has no eigenvalues to follow: vary a parameter or the speed")
    if kind in ("q", "u"):
        bodies, k = [], 0
        for b in model.bodies:
            n = b.joint.n_coordinates if kind == "q" else b.joint.dof
            values = list(b.joint.q0 if kind == "q" else b.joint.u0)
            if k <= index < k + n:
                values[index - k] = float(value)
                b = replace(b, joint=replace(b.joint, **{("q0" if kind == "q" else "u0"): tuple(values)}))
            bodies.append(b)
            k += n
        return replace(model, bodies=tuple(bodies))
    from eomlab.engine.modelfile import model_from_dict, model_to_dict

    data = model_to_dict(model)
    set_field(data, name, value)
    return model_from_dict(data)


def _with_speed(model: Model, value: float) -> Model:
    """Every initial speed scaled so that the first body's origin moves at `value`."""
    system = build_system(model, "joint")
    ks = system.kin.evaluate(system.q0, system.u0)
    v0 = float(np.linalg.norm(system.kin.point_velocity(ks, 0, ks.origin[0])))
    if not v0 > 0:
        raise ModelError("--vary speed", "the model has no forward speed: its first body's origin does not move "
                         "at the start (vary an initial speed by its name)")
    k = value / v0
    bodies = tuple(replace(b, joint=replace(b.joint, u0=tuple(k * x for x in b.joint.u0))) for b in model.bodies)
    return replace(model, bodies=bodies)


def _largest_real(model, name, value, **options) -> float:
    values = linearize(with_value(model, name, value), **options).eigenvalues
    return float(np.max(values.real)) if values.size else -1.0


def vary(model: Model, name: str, values, xtol: float = 1e-12, **options) -> Variation:
    """Eigenvalues at each value of `name`, and the zero crossings of the largest real part
    (to `xtol` relative to the range). `options` go to `linearize`."""
    values = np.asarray(values, float)
    eigen = [linearize(with_value(model, name, v), **options).eigenvalues for v in values]
    top = np.array([float(np.max(e.real)) if e.size else -1.0 for e in eigen])
    scale = max(1.0, max(float(np.max(np.abs(e), initial=0.0)) for e in eigen))
    # real parts within rounding of zero count as zero (undamped modes): the stable side
    threshold = 1e-9 * scale
    sign = np.where(top > threshold, 1, -1)
    crossings = []
    span = float(np.ptp(values))
    for k in np.flatnonzero(sign[:-1] != sign[1:]):
        a, b = values[k], values[k + 1]
        from scipy.optimize import brentq  # loads when a crossing is sought, not with the window

        root = brentq(lambda p: _largest_real(model, name, p, **options) - threshold, a, b, xtol=xtol * span, rtol=1e-15)
        at = linearize(with_value(model, name, root), **options).eigenvalues
        nearest = at[np.argmin(np.abs(at.real))]
        crossings.append(Crossing(float(root), "unstable" if sign[k + 1] > 0 else "stable",
                                  "oscillatory" if abs(nearest.imag) > 1e-6 * scale else "real"))
    return Variation(name, values, eigen, crossings)
