"""MechanicalSystem: the numeric pieces of a model for one choice of coordinates and speeds.

Unconstrained tree dynamics in the speeds u (q_dot = W(q) u):

    M(q) u_dot = forcing(t, q, u),   forcing = Q − C

M = Σ_B m_B J_vᵀ J_v + J_ωᵀ I_B J_ω (the generalized inertia of Kane's method, equal to the
kinetic-energy metric of THEORY.md (2.2) when u = q_dot), Q the generalized active forces and
C = Σ_B m_B J_vᵀ a_bias + J_ωᵀ (I_B α_bias + ω × I_B ω) the velocity-product terms, which for
u = q_dot are the Christoffel terms h of (2.6)–(2.7). Constraint rows come from
`engine.constraints` and are carried here in the same speeds.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import scipy.linalg

from .absolute import AbsoluteParts, to_absolute
from .constraints import ConstraintSet, build_constraint_kinds
from .forces import build_force_elements
from .kinematics import KinematicState, TreeKinematics
from .model import Model, initial_coordinates, initial_speeds, speed_names
from .rotations import cross
from .state import StateContext


_POTRF, _POTRS = scipy.linalg.get_lapack_funcs(("potrf", "potrs"), dtype=np.float64)


class SingularMassMatrix(ArithmeticError):
    """M(q) is not positive definite: some coordinate carries no inertia."""


@dataclass
class Dynamics:
    M: np.ndarray
    forcing: np.ndarray
    qd: np.ndarray
    ks: KinematicState
    W: np.ndarray | None = None  # q_dot = W u (None: the speeds are the rates)


class MechanicalSystem:
    """Numeric callables of a tree model (its bodies in joint coordinates) and its constraint rows.

    `absolute`, when given, holds what a model taken to absolute coordinates (`engine.absolute`)
    brings: the joints' rows, the model's constraints and forces (through the joint coordinates
    where they are written in them) and the joint coordinates as functions of the poses
    (`joint_coordinates`; None in joint coordinates).

    Example
    -------
    >>> from eomlab.engine.presets import preset
    >>> s = MechanicalSystem(preset("simple_pendulum"))
    >>> s.mass_matrix(s.q0).shape
    (1, 1)
    """

    def __init__(self, model: Model, absolute: AbsoluteParts | None = None):
        self.model = model
        self.kin = TreeKinematics(model)
        self.body_names = list(self.kin.body_names)
        self.coordinate_names = list(self.kin.coordinate_names)
        self.speed_names = (absolute.speed_names(model) if absolute
                            else [n for b in model.bodies for n in speed_names(b.name, b.joint)])
        self.joint_coordinates = absolute.joint_coordinates if absolute else None
        self.n_q, self.n_u = self.kin.n_q, self.kin.n_u
        self.q0 = np.array(initial_coordinates(model), dtype=float)
        self.u0 = np.array(initial_speeds(model), dtype=float)
        self.gravity = np.array(model.gravity, dtype=float)
        self.forces = absolute.force_elements(self.kin) if absolute else build_force_elements(model, self.kin)
        self.has_body_rates = any(jl.turns_with_body_rates for jl in self.kin.joints)
        self._m3 = np.repeat(self.kin.mass, 3)
        self._gravity_stack = np.tile(self.gravity, self.kin.n_bodies) * self._m3
        self._m2 = np.repeat(self.kin.mass, 2)
        self._izz = self.kin.inertia_body[:, 2, 2].copy()
        self._gravity_planar = np.tile(self.gravity[:2], self.kin.n_bodies) * self._m2
        # M, C and Q the way the kinematics run: the planar strategy's fields have only x, y and z-turns
        self._terms = self._planar_terms if self.kin.planar else self._spatial_terms
        self._absolute = absolute
        kinds = absolute.constraint_kinds(self.kin) if absolute else build_constraint_kinds(model, self.kin)
        self.constraints = ConstraintSet(kinds) if kinds else None

    def with_rate_speeds(self) -> "MechanicalSystem":
        """The same system with Euler-angle rates as the speeds of every spherical and free joint
        in Euler angles (Euler-parameter joints keep their body rates: four rates for three
        degrees of freedom would make M singular). Lagrange's equations work in these."""
        bodies = []
        for b, jl in zip(self.model.bodies, self.kin.joints):
            j = b.joint
            if jl.euler is not None and jl.body_rates:
                u = self.u0[jl.u_slice]
                rates = self.kin.qdot(self.q0, self.u0)[jl.q_slice] if len(u) else u
                j = replace(j, speeds="euler", u0=tuple(float(x) for x in rates))
            bodies.append(replace(b, joint=j))
        return MechanicalSystem(replace(self.model, bodies=tuple(bodies)), self._absolute)

    # --- kinematics --------------------------------------------------------------------------

    def qdot(self, q, u) -> np.ndarray:
        return self.kin.qdot(q, u) if self.has_body_rates else np.array(u, dtype=float, copy=True)

    def poses(self, q):
        return self.kin.poses(q)

    def com_positions(self, q) -> np.ndarray:
        return self.kin.com_positions(q)

    # --- dynamics ----------------------------------------------------------------------------

    def dynamics(self, t: float, q: np.ndarray, u: np.ndarray, positions: KinematicState | None = None) -> Dynamics:
        """M, forcing and the kinematic state at (t, q, u); `positions` (the kinematics' first
        stage at q) saves recomputing the poses when the caller has them."""
        ks = self.kin.evaluate(q, u) if positions is None else self.kin.with_velocities(positions, u)
        W = self.kin.rate_matrix(q) if self.has_body_rates else None
        qd = W @ u if W is not None else u
        M, velocity_products, Q = self._terms(ks)
        if self.forces:
            ctx = StateContext(t=t, q=q, u=u, qd=qd, W=W, ks=ks)
            for f in self.forces:
                Q = Q + f.generalized(ctx)
        return Dynamics(M=M, forcing=Q - velocity_products, qd=qd, ks=ks, W=W)

    def _spatial_terms(self, ks: KinematicState):
        """M, the velocity-product terms C and the gravity forces Q of a 3-D tree."""
        nb, nu = self.kin.n_bodies, self.n_u
        Jv = ks.J_v.reshape(3 * nb, nu)
        Jw = ks.J_w.reshape(3 * nb, nu)
        I_w = self._inertia_world(ks)
        IJ = (I_w @ ks.J_w).reshape(3 * nb, nu)
        M = Jv.T @ (self._m3[:, None] * Jv) + Jw.T @ IJ
        Iw_omega = (I_w @ ks.omega[:, :, None])[:, :, 0]
        gyro = (I_w @ ks.alpha_bias[:, :, None])[:, :, 0] + cross(ks.omega, Iw_omega)
        C = Jv.T @ (self._m3 * ks.a_bias.ravel()) + Jw.T @ gyro.ravel()
        return M, C, Jv.T @ self._gravity_stack

    def _planar_terms(self, ks: KinematicState):
        """The same for a planar tree: only x, y of J_v and z of J_ω count; ω × Iω has no z part."""
        nb, nu = self.kin.n_bodies, self.n_u
        Jv = ks.J_v[:, :2, :].reshape(2 * nb, nu)
        Jw = ks.J_w[:, 2, :]
        m2 = self._m2
        M = Jv.T @ (m2[:, None] * Jv) + Jw.T @ (self._izz[:, None] * Jw)
        C = Jv.T @ (m2 * ks.a_bias[:, :2].ravel())
        return M, C, Jv.T @ self._gravity_planar

    def _inertia_world(self, ks: KinematicState) -> np.ndarray:
        return ks.R @ self.kin.inertia_body @ ks.R.transpose(0, 2, 1)

    def _mass_matrix(self, ks: KinematicState) -> np.ndarray:
        return self._terms(ks)[0]

    def mass_matrix(self, q) -> np.ndarray:
        return self._mass_matrix(self.kin.evaluate(q, np.zeros(self.n_u)))

    def forcing(self, t, q, u) -> np.ndarray:
        return self.dynamics(t, q, u).forcing

    def solve_mass(self, M: np.ndarray, rhs: np.ndarray) -> np.ndarray:
        """M⁻¹ rhs by Cholesky (LAPACK potrf/potrs); a clear error when M is not positive definite."""
        factor, info = _POTRF(M, lower=True, clean=False)
        if info != 0:
            raise SingularMassMatrix(self.describe_singular_mass(M))
        x, info = _POTRS(factor, rhs, lower=True)
        return x

    def describe_singular_mass(self, M: np.ndarray) -> str:
        w, V = np.linalg.eigh(M)
        k = int(np.argmin(w))
        names = [self.speed_names[i] for i in np.argsort(-np.abs(V[:, k]))[:2] if abs(V[i, k]) > 0.3]
        return (
            "the mass matrix is singular (smallest eigenvalue "
            f"{w[k]:.3g}): {', '.join(names) or 'a speed'} moves no mass or inertia"
        )

    # --- energy ------------------------------------------------------------------------------

    def kinetic_energy(self, q, u) -> float:
        ks = self.kin.evaluate(q, u)
        return self._kinetic(ks)

    def _kinetic(self, ks: KinematicState) -> float:
        I_w = self._inertia_world(ks)
        rot = np.einsum("bi,bij,bj->b", ks.omega, I_w, ks.omega)
        trans = self.kin.mass * np.einsum("bi,bi->b", ks.v_com, ks.v_com)
        return 0.5 * float(np.sum(trans + rot))

    def energy(self, t, q, u) -> tuple[float, float]:
        """Kinetic and potential energy (gravity, springs, joint springs)."""
        return self.energy_at(self.kin.evaluate(q, u), q)

    def energy_at(self, ks: KinematicState, q) -> tuple[float, float]:
        """T and V from an already evaluated kinematic state."""
        V = -float(np.sum(self.kin.mass * (ks.com @ self.gravity)))
        for f in self.forces:
            V += f.potential(ks, q)
        return self._kinetic(ks), V

    @property
    def conservative(self) -> bool:
        """True when energy must be conserved (no damping, no efforts, no rheonomic terms)."""
        if not all(f.conservative for f in self.forces):
            return False
        return self.constraints is None or self.constraints.conservative


def build_system(model: Model, coordinates: str | None = None) -> MechanicalSystem:
    """The MechanicalSystem of a model in "joint" or "absolute" coordinates, constraints attached."""
    coordinates = coordinates or model.settings.coordinates
    if coordinates == "absolute":
        return MechanicalSystem(*to_absolute(model))
    return MechanicalSystem(model)
