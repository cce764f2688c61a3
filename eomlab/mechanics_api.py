"""Mechanics at one state, for scripts: poses, Jacobians, the mass matrix, inverse and forward dynamics.

Every function takes the model (a Model or a model file's path) and its joint coordinates q (a vector in
`model.coordinate_names`' order, or a dict by name; names left out keep the model's q0), speeds u likewise
(`model.speed_names`). Vectors over the speeds come back in `model.speed_names`' order. They run on the
compiled tree path (pinocchio) where it is installed, as a run does, else on numpy: the same numbers to
rounding.

>>> import eomlab
>>> model = eomlab.preset("double_compound_pendulum")
>>> M = eomlab.mass_matrix(model, {"upper_theta": 0.3, "lower_theta": 0.0})
>>> M.shape, bool(abs(M - M.T).max() < 1e-15)
((2, 2), True)
>>> u_dot = eomlab.forward_dynamics(model, [0.3, 0.0], [0.0, 0.0])
>>> tau = eomlab.inverse_dynamics(model, [0.3, 0.0], [0.0, 0.0], u_dot)
>>> bool(abs(tau).max() < 1e-12)    # no joint force gives those accelerations
True
>>> poses = eomlab.kinematics(model, [0.0, 0.0])
>>> poses.point("lower", [1.0, 0.0, 0.0]).round(12).tolist()      # the lower rod's end
[2.0, 0.0, 0.0]
>>> eomlab.jacobian(model, [0.0, 0.0], "lower", [1.0, 0.0, 0.0]).round(12)[:3].tolist()  # its velocity per speed
[[0.0, 0.0], [2.0, 1.0], [0.0, 0.0]]
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from eomlab.engine.model import Model, ModelError, initial_coordinates, initial_speeds


def _checked(model) -> Model:
    from eomlab.api import checked

    return checked(model)


@lru_cache(maxsize=8)
def _system(model: Model):
    """The model's MechanicalSystem in joint coordinates (the compiled path where it runs); models are
    frozen dataclasses, so a model asked again reuses its system."""
    from eomlab.engine.mechanics.system import MechanicalSystem

    return MechanicalSystem(model)


def _vector(values, names: tuple[str, ...], defaults: tuple[float, ...], what: str) -> np.ndarray:
    """A vector over `names` from a sequence of len(names) numbers or a dict by name (others: defaults)."""
    if isinstance(values, dict):
        out = np.array(defaults, dtype=float)
        index = {n: k for k, n in enumerate(names)}
        for name, value in values.items():
            if name not in index:
                shown = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
                raise ModelError(what, f"unknown name {name!r} (expected one of: {shown or 'none'})")
            out[index[name]] = float(value)
        return out
    out = np.array(values, dtype=float).ravel()
    if out.shape != (len(names),):
        raise ModelError(what, f"expected {len(names)} numbers ({', '.join(names[:8])}{', ...' if len(names) > 8 else ''}), "
                         f"got {out.size}")
    if not np.all(np.isfinite(out)):
        raise ModelError(what, "numbers must be finite")
    return out


def _state(model: Model, q, u=None):
    """(system, q, u) with q's Euler parameters as given (the kinematics read p/|p|)."""
    q = _vector(q, model.coordinate_names, initial_coordinates(model), "q")
    u = (np.zeros(len(model.speed_names)) if u is None
         else _vector(u, model.speed_names, (0.0,) * len(model.speed_names), "u"))
    return _system(model), q, u


def with_initial_state(model, q0=None, u0=None) -> Model:
    """`model` starting from q0 and u0 (vectors or dicts by name, as above; None keeps the model's).

    >>> import eomlab
    >>> m = eomlab.with_initial_state(eomlab.preset("simple_pendulum"), q0={"bob_theta": 0.2})
    >>> m.bodies[0].joint.q0
    (0.2,)
    """
    model = _checked(model)
    q = None if q0 is None else _vector(q0, model.coordinate_names, initial_coordinates(model), "q0")
    u = None if u0 is None else _vector(u0, model.speed_names, initial_speeds(model), "u0")
    bodies, iq, iu = [], 0, 0
    for body in model.bodies:
        joint = body.joint
        nq, nu = joint.n_coordinates, joint.dof
        changes = {}
        if q is not None:
            changes["q0"] = tuple(float(v) for v in q[iq:iq + nq])
        if u is not None:
            changes["u0"] = tuple(float(v) for v in u[iu:iu + nu])
        bodies.append(replace(body, joint=replace(joint, **changes)) if changes else body)
        iq, iu = iq + nq, iu + nu
    return _checked(replace(model, bodies=tuple(bodies)))


@dataclass(frozen=True)
class Pose:
    """A body frame's orientation (body-to-world rotation) and origin (its joint's point) in the world."""

    rotation: np.ndarray
    position: np.ndarray


class Poses:
    """Every body's pose at one q: ``poses["link1"]`` is a `Pose`; `point(body, p)` the world position
    of a point given in body coordinates, `com(body)` the mass centre's."""

    def __init__(self, names: list[str], R: np.ndarray, origin: np.ndarray, com: np.ndarray):
        self.bodies = list(names)
        self._index = {n: k for k, n in enumerate(names)}
        self._R, self._origin, self._com = R, origin, com

    def _k(self, body: str) -> int:
        if body not in self._index:
            raise KeyError(f"no body {body!r}; bodies: {', '.join(self.bodies)}")
        return self._index[body]

    def __getitem__(self, body: str) -> Pose:
        k = self._k(body)
        return Pose(self._R[k].copy(), self._origin[k].copy())

    def point(self, body: str, point=(0.0, 0.0, 0.0)) -> np.ndarray:
        k = self._k(body)
        return self._origin[k] + self._R[k] @ np.asarray(point, dtype=float)

    def com(self, body: str) -> np.ndarray:
        return self._com[self._k(body)].copy()


def kinematics(model, q) -> Poses:
    """The bodies' poses at q (forward kinematics)."""
    model = _checked(model)
    system, q, _ = _state(model, q)
    ks = system.kinematic_positions(q)
    return Poses(system.body_names, np.array(ks.R), np.array(ks.origin), np.array(ks.com))


def jacobian(model, q, body: str, point=(0.0, 0.0, 0.0)) -> np.ndarray:
    """(6, speeds): the world velocity of `point` (body coordinates) of `body`, then the body's world
    angular velocity, per unit of each speed: [v; ω] = J u."""
    model = _checked(model)
    system, q, _ = _state(model, q)
    ks = system.kinematic_positions(q)
    k = Poses(system.body_names, ks.R, ks.origin, ks.com)._k(body)
    world = ks.origin[k] + ks.R[k] @ np.asarray(point, dtype=float)
    return np.vstack((system.kin.point_jacobian(ks, k, world), ks.J_w[k]))


def mass_matrix(model, q) -> np.ndarray:
    """M(q) in the model's speeds (joint armature included): T = ½ uᵀ M u."""
    model = _checked(model)
    system, q, u = _state(model, q)
    return np.array(system.dynamics(0.0, q, u).M)


def inverse_dynamics(model, q, u, u_dot, t: float = 0.0) -> np.ndarray:
    """τ = M u̇ − (Q − C): the generalized forces the joints must add (beyond gravity and the model's
    forces, at time t) for the accelerations u̇ of the tree (constraints not imposed)."""
    model = _checked(model)
    system, q, u = _state(model, q, u)
    u_dot = _vector(u_dot, model.speed_names, (0.0,) * len(model.speed_names), "u_dot")
    dyn = system.dynamics(t, q, u)
    return dyn.M @ u_dot - dyn.forcing


def forward_dynamics(model, q, u, tau=None, t: float = 0.0) -> np.ndarray:
    """u̇ under gravity, the model's forces and generalized forces `tau` (default none): the tree's
    accelerations (the articulated-body algorithm on the compiled path), or with the model's
    constraints those that keep them (Udwadia–Kalaba, THEORY.md (5.3))."""
    model = _checked(model)
    system, q, u = _state(model, q, u)
    tau = None if tau is None else _vector(tau, model.speed_names, (0.0,) * len(model.speed_names), "tau")
    dyn = system.dynamics(t, q, u)
    if tau is not None:
        dyn.forcing = dyn.forcing + tau
    if system.constraints is None:
        return system.free_accelerations(dyn) if tau is None else system.solve_mass(dyn.M, dyn.forcing)
    from eomlab.engine.formulations import make_formulation

    formulation = make_formulation("udwadia_kalaba", system, model.settings)
    u_dot, _, _ = formulation.accelerations(dyn, formulation.rows_at(dyn), dyn)
    return u_dot


__all__ = ["kinematics", "jacobian", "mass_matrix", "inverse_dynamics", "forward_dynamics", "with_initial_state",
           "Pose", "Poses"]
