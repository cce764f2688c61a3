"""Range checks of a loaded model: every magnitude within what double precision computes safely.

A number may be finite and still break the run: a mass of 1e308 overflows as soon as it meets
gravity, a joint at 1e308 m makes the constraint rows infinite, a gravity of -9.81e12 m/s² (a slip
of units) makes a 0.05 s run take hours. So every length, position, mass, inertia, acceleration,
stiffness, damping and initial value is refused beyond MAX_MAGNITUDE (1e12 in SI units), naming the
field's path and the limit:

- with every input at most 1e12, the products the equations of motion form (m·g·l, ½·m·u²,
  m·l², k·x², Jᵀ·M·J) stay below about 1e60, far from overflow (1.8e308), and 1e12 next to a part
  of size 1 still leaves four significant digits of that part (double precision keeps about 16);
- a tolerance the integrator cannot honour (rtol under 100 machine epsilons, which scipy would
  raise to that floor, printing a warning) is refused too;
- directions and axes: each component within the same limit, checked by the loader before it
  scales the vector to unit length (by its largest component first, so that a tiny but nonzero
  direction keeps its precision); the model holds unit vectors, checked here.

`check_limits(model, data)` is called by the loader once the model is built; `data` (the decoded
file, optional) gives each body's index in the file, which the model's tree order may differ from.
"""
from __future__ import annotations

import math
from typing import Iterable

import numpy as np

from eomlab.engine.model import (Body, Coincident, Distance, JointSpring, KnifeEdge, Model, ModelError, PointForce, PointRef,
                    RollingDisk, Settings, Shape, Spring, shape_inertia)

MAX_MAGNITUDE = 1e12  # SI units: m, kg, kg·m², m/s², N/m, rad, m/s, rad/s, ...
MIN_RTOL = 100 * np.finfo(float).eps  # scipy's solvers raise a smaller rtol to this, with a warning
UNIT_TOLERANCE = 1e-9


def check_limits(model: Model, data: dict | None = None) -> Model:
    """Raise ModelError for the first value out of range (path as in the file); returns `model`."""
    file_index = _file_indices(model, data)
    _magnitudes(model.gravity, "gravity", "m/s²")
    for body in model.bodies:
        _body(body, f"bodies[{file_index[body.name]}]")
    for i, constraint in enumerate(model.constraints):
        _constraint(constraint, f"constraints[{i}]")
    for i, force in enumerate(model.forces):
        _force(force, f"forces[{i}]")
    _settings(model.settings, "settings")
    return model


def check_settings(settings: Settings) -> None:
    """The settings' limits alone (for settings overridden after loading, e.g. on the command line)."""
    _settings(settings, "settings")


def check_direction(vector: Iterable[float], path: str) -> None:
    """A direction or axis as given in the file, before it is scaled to unit length: each
    component within the same limit as a length (its norm then cannot overflow)."""
    _magnitudes(vector, path, "")


def check_mass_and_shape(mass: float, shape: Shape | None, path: str) -> None:
    """A body's mass and shape size, checked before the loader derives an inertia from them (m·l²/12
    of a rod 1e200 long would overflow before its length was named)."""
    _magnitude(mass, f"{path}.mass", "kg")
    if shape is not None:
        _magnitude(shape.length, f"{path}.shape.length", "m")
        _magnitude(shape.radius, f"{path}.shape.radius", "m")
        _magnitudes(shape.size, f"{path}.shape.size", "m")


def _file_indices(model: Model, data: dict | None) -> dict[str, int]:
    order = [b.name for b in model.bodies]
    if isinstance(data, dict) and isinstance(data.get("bodies"), list):
        named = [b.get("name") if isinstance(b, dict) else None for b in data["bodies"]]
        if sorted(map(str, named)) == sorted(order):
            order = named
    return {name: i for i, name in enumerate(order)}


def _limit_text(unit: str) -> str:
    return f"{MAX_MAGNITUDE:.0e}".replace("+", "") + (f" {unit}" if unit else "")


def _magnitude(value: float, path: str, unit: str) -> None:
    if not math.isfinite(value):
        raise ModelError(path, f"numbers must be finite, got {value}")
    if abs(value) > MAX_MAGNITUDE:
        raise ModelError(path, f"|value| must be at most {_limit_text(unit)}, got {value:.6g} "
                         "(larger numbers overflow or drown the rest of the model)")


def _magnitudes(values: Iterable[float], path: str, unit: str) -> None:
    if sum(map(abs, values)) <= MAX_MAGNITUDE:  # the usual case, fast; a NaN or inf sum is looked at below
        return
    for k, value in enumerate(values):
        _magnitude(value, f"{path}[{k}]", unit)


def _unit_vector(vector: Iterable[float], path: str) -> None:
    norm = math.sqrt(sum(c * c for c in vector))
    if not abs(norm - 1.0) <= UNIT_TOLERANCE:
        raise ModelError(path, f"must be a unit vector (a finite, nonzero direction scaled to length 1), "
                         f"got length {norm:.6g}")


def _body(body: Body, path: str) -> None:
    check_mass_and_shape(body.mass, body.shape, path)
    _magnitudes(body.com, f"{path}.com", "m")
    _inertia(body, f"{path}.inertia")
    joint, at = body.joint, f"{path}.joint"
    _magnitudes(joint.at, f"{at}.at", "m")
    _unit_vector(joint.axis, f"{at}.axis")
    _magnitudes(joint.q0, f"{at}.q0", "")
    _magnitudes(joint.u0, f"{at}.u0", "")
    _magnitude(joint.armature, f"{at}.armature", "kg·m² or kg")
    if not joint.armature >= 0:
        raise ModelError(f"{at}.armature", f"must be >= 0, got {joint.armature:g}")


def _inertia(body: Body, path: str) -> None:
    if sum(abs(v) for row in body.inertia for v in row) <= MAX_MAGNITUDE:
        return
    largest = max(abs(v) for row in body.inertia for v in row)
    if not all(math.isfinite(v) for row in body.inertia for v in row):
        raise ModelError(path, "numbers must be finite")
    if largest > MAX_MAGNITUDE:
        given = "" if body.shape is None or body.inertia != shape_inertia(body.shape, body.mass) else " (from the shape and the mass)"
        raise ModelError(path, f"inertia entries must be at most {_limit_text('kg·m²')}, got {largest:.6g}{given} "
                         "(larger numbers overflow or drown the rest of the model)")


def _point_refs(a: PointRef, b: PointRef, path: str) -> None:
    _magnitudes(a.point, f"{path}.a.point", "m")
    _magnitudes(b.point, f"{path}.b.point", "m")


def _constraint(c, path: str) -> None:
    if isinstance(c, (Coincident, Distance)):
        _point_refs(c.a, c.b, path)
    if isinstance(c, Distance):
        _magnitude(c.length, f"{path}.length", "m")
    elif isinstance(c, KnifeEdge):
        _magnitudes(c.point, f"{path}.point", "m")
        _unit_vector(c.direction, f"{path}.direction")
    elif isinstance(c, RollingDisk):
        _magnitude(c.radius, f"{path}.radius", "m")
        _unit_vector(c.axis, f"{path}.axis")


def _force(f, path: str) -> None:
    if isinstance(f, Spring):
        _point_refs(f.a, f.b, path)
        _magnitude(f.rest_length, f"{path}.rest_length", "m")
    if isinstance(f, (Spring, JointSpring)):
        _magnitude(f.stiffness, f"{path}.stiffness", "")
        _magnitude(f.damping, f"{path}.damping", "")
    if isinstance(f, JointSpring):
        _magnitudes(f.rest, f"{path}.rest", "")
    elif isinstance(f, PointForce):
        _magnitudes(f.point, f"{path}.point", "m")


def _settings(s: Settings, path: str) -> None:
    if s.integrator != "RK4" and s.rtol < MIN_RTOL:
        raise ModelError(f"{path}.rtol", f"must be at least {MIN_RTOL:.2g} (100 machine epsilons; the "
                         f"integrator cannot honour a smaller one), got {s.rtol:.3g}")
    _magnitude(s.stabilization.alpha, f"{path}.stabilization.alpha", "1/s")
    _magnitude(s.stabilization.beta, f"{path}.stabilization.beta", "1/s")
