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

import math
from dataclasses import replace

import numpy as np

from eomlab.engine.mechanics.absolute import AbsoluteParts, to_absolute
from eomlab.engine.mechanics.armature import Armature
from eomlab.engine.constraints import ConstraintSet, build_constraint_kinds
from eomlab.engine.forcing.generalized_forces import build_force_elements
from eomlab.engine.kinematics import KinematicState, TreeKinematics
from eomlab.engine.lazy_imports import lapack_routines
from eomlab.engine.model import Model, initial_coordinates, initial_speeds, speed_names
from eomlab.engine.rotations import cross
from eomlab.engine.mechanics.state import StateContext
from eomlab.engine.compiled.point_rows import compiled_point_rows
from eomlab.engine.compiled.tree_backend import NUMPY_PATH, PINOCCHIO_PATH, build_tree_backend


_POTRF, _POTRS = lapack_routines("potrf", "potrs")


class SingularMassMatrix(ArithmeticError):
    """M(q) is not positive definite: some coordinate carries no inertia."""


class Dynamics:
    """The tree's dynamics at one state: M u_dot = forcing, q_dot = W u (W None: the speeds are
    the rates) and the kinematic state ks. M, forcing and ks are formed on first use: the compiled
    path's unconstrained step (`MechanicalSystem.free_accelerations`) needs none of them."""

    def __init__(self, system: "MechanicalSystem", t: float, q: np.ndarray, u: np.ndarray, qd: np.ndarray,
                 W: np.ndarray | None, positions: KinematicState | None = None):
        self.system, self.t, self.q, self.u, self.qd, self.W = system, t, q, u, qd, W
        self._positions = positions
        self._ks = self._M = self._forcing = self._applied = None

    @property
    def ks(self) -> KinematicState:
        if self._ks is None:
            self._ks = self.system.kinematic_state(self.q, self.u, self._positions)
        return self._ks

    @property
    def M(self) -> np.ndarray:
        if self._M is None:
            self._M, self._forcing = self.system.mass_and_forcing(self)
        return self._M

    @property
    def forcing(self) -> np.ndarray:
        if self._forcing is None:
            self._M, self._forcing = self.system.mass_and_forcing(self)
        return self._forcing

    @M.setter
    def M(self, value: np.ndarray):
        self.forcing  # noqa: B018  (formed first, so a set M is not overwritten)
        self._M = value

    @forcing.setter
    def forcing(self, value: np.ndarray):
        self.M  # noqa: B018
        self._forcing = value

    @property
    def applied(self) -> np.ndarray | None:
        """Σ of the force elements' generalized forces (None: the model has none)."""
        if self._applied is None and self.system.forces:
            ctx = StateContext(t=self.t, q=self.q, u=self.u, qd=self.qd, W=self.W, ks=self.ks)
            self._applied = sum(f.generalized(ctx) for f in self.system.forces)
        return self._applied


class MechanicalSystem:
    """Numeric callables of a tree model (its bodies in joint coordinates) and its constraint rows.

    `absolute`, when given, holds what a model taken to absolute coordinates (`engine.mechanics.absolute`)
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

    def __init__(self, model: Model, absolute: AbsoluteParts | None = None, compiled: bool = True):
        # compiled=False: the numpy path whatever the environment (the importer's check of M at q0)
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
        self._absolute, self._compiled_wanted = absolute, compiled
        kinds = absolute.constraint_kinds(self.kin) if absolute else build_constraint_kinds(model, self.kin)
        self.constraints = ConstraintSet(kinds) if kinds else None
        #: the compiled tree-dynamics backend (engine.compiled.tree_backend) or None, and the path in words
        #: joint armature (engine.mechanics.armature) or None; pinocchio carries its diagonal in joint coordinates
        self.armature = Armature.of(absolute.model if absolute else model, self.kin, self.joint_coordinates)
        rotor = self.armature.pinocchio_armature() if self.armature is not None else None
        self.tree_backend, self.dynamics_path = (build_tree_backend(self.kin, self.gravity, rotor) if compiled
                                                 else (None, f"{NUMPY_PATH} (asked for)"))
        # loop closures stacked on the compiled tree's Jacobians (engine.compiled.point_rows) where it runs
        self.constraints = compiled_point_rows(self.constraints, self.tree_backend)
        self._no_effort = np.zeros(self.n_u)
        # armature the tree's recursions do not hold: M and the forcing take it on (no bare ABA)
        self._armature_explicit = self.armature is not None and self.armature.explicit(self.tree_backend is not None)
        self._last_rates = None  # (the bytes of q, W(q)) of the last rate_matrix on the compiled path

    @property
    def compiled(self) -> bool:
        return self.dynamics_path == PINOCCHIO_PATH

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
        return MechanicalSystem(replace(self.model, bodies=tuple(bodies)), self._absolute, self._compiled_wanted)

    # --- kinematics --------------------------------------------------------------------------

    def kinematic_positions(self, q):
        """The kinematics' positions stage at q (poses and Jacobians; velocity fields those of u = 0):
        on the compiled path pinocchio's, formed as the rows read it (engine.compiled.compiled_kinematics)."""
        if self.tree_backend is not None:
            return self.tree_backend.kinematic_state(q)
        return self.kin.positions(q)

    def kinematic_state(self, q, u, positions=None):
        """The kinematic state at (q, u), from `positions` (this system's positions stage at q) if given."""
        if self.tree_backend is not None:
            return self.tree_backend.kinematic_state(q, u) if positions is None else positions.with_velocities(u)
        return self.kin.evaluate(q, u) if positions is None else self.kin.with_velocities(positions, u)

    def rate_matrix(self, q) -> np.ndarray:
        """W(q) with q̇ = W u: each block in closed form on the compiled path, the numpy reference otherwise."""
        if self.tree_backend is None:
            return self.kin.rate_matrix(q)
        # a reduced formulation asks twice at one q (its rows at u = 0, then the dynamics): the last is kept
        key = np.asarray(q, dtype=float).tobytes()  # (cheaper than comparing arrays)
        last = self._last_rates
        if last is not None and last[0] == key:
            return last[1]
        W = self.kin.rate_matrix_closed_form(q)
        self._last_rates = (key, W)
        return W

    def qdot(self, q, u) -> np.ndarray:
        return self.kin.qdot(q, u) if self.has_body_rates else np.array(u, dtype=float, copy=True)

    def poses(self, q):
        return self.kin.poses(q)

    def com_positions(self, q) -> np.ndarray:
        return self.kin.com_positions(q)

    # --- dynamics ----------------------------------------------------------------------------

    def dynamics(self, t: float, q: np.ndarray, u: np.ndarray, positions: KinematicState | None = None) -> Dynamics:
        """The dynamics at (t, q, u), formed on first use; `positions` (the kinematics' first
        stage at q) saves recomputing the poses when the caller has them."""
        W = self.rate_matrix(q) if self.has_body_rates else None
        qd = W @ u if W is not None else u
        return Dynamics(self, t, q, u, qd, W, positions)

    def mass_and_forcing(self, dyn: Dynamics) -> tuple[np.ndarray, np.ndarray]:
        """M and forcing = Q − C at dyn's state, by the compiled path when it runs."""
        if self.tree_backend is not None:
            q_pin = self.tree_backend.configuration(dyn.q)
            M = self.tree_backend.mass_matrix(q_pin)
            forcing = -self.tree_backend.bias_forces(q_pin, dyn.u)
        else:
            M, velocity_products, Q = self._terms(dyn.ks)
            forcing = Q - velocity_products
        terms = self.armature_terms(dyn)
        if terms is not None:
            M, forcing = M + terms[0], forcing + terms[1]
        return M, (forcing if dyn.applied is None else forcing + dyn.applied)

    def armature_terms(self, ctx) -> tuple[np.ndarray, np.ndarray] | None:
        """(ΔM, Δforcing) of the joints' armature beyond what this path's tree holds, or None."""
        if not self._armature_explicit:
            return None
        return self.armature.terms(ctx, self.tree_backend is not None)

    def free_derivative(self, t: float, q: np.ndarray, u: np.ndarray) -> np.ndarray:
        """(q̇, u̇) of the unconstrained tree: straight to ABA when nothing else acts (the fixed
        Python cost per right-hand side is then a few calls), else through `free_accelerations`."""
        if self.tree_backend is not None and not self.forces and not self.has_body_rates and not self._armature_explicit:
            u_dot = self.tree_backend.accelerations(self.tree_backend.configuration(q), u, self._no_effort)
            if math.isfinite(u_dot.sum()):
                return np.concatenate((u, u_dot))
        dyn = self.dynamics(t, q, u)
        return np.concatenate((dyn.qd, self.free_accelerations(dyn)))

    def free_state_derivative(self):
        """The compiled path's y = (q, u) ↦ (q̇, u̇) of the unconstrained tree without force
        elements, bound once (engine.compiled.tree_backend), or None (numpy path, or Euler angles with body rates,
        whose q̇ needs E⁻¹; Euler parameters' ṗ = ½ p ⊗ (0, ω) is in it)."""
        if self.tree_backend is None or self._armature_explicit or any(
                jl.turns_with_body_rates and not jl.quaternion for jl in self.kin.joints):
            return None
        return self.tree_backend.free_state_derivative()

    def free_state_jacobian(self):
        """y ↦ ∂(q̇, u̇)/∂y, exact, wherever `free_state_derivative` is bound, or None."""
        if self.free_state_derivative() is None:
            return None
        return self.tree_backend.free_state_jacobian()

    def free_accelerations(self, dyn: Dynamics) -> np.ndarray:
        """u_dot of the unconstrained tree, M⁻¹ forcing: by the articulated-body algorithm on the
        compiled path (M never formed), by Cholesky of M on the numpy path or when ABA fails."""
        if self.tree_backend is not None and dyn._M is None and not self._armature_explicit:
            tau = self._no_effort if dyn.applied is None else dyn.applied
            u_dot = self.tree_backend.accelerations(self.tree_backend.configuration(dyn.q), dyn.u, tau)
            if math.isfinite(u_dot.sum()):  # else M is singular: the Cholesky path names the speed
                return u_dot
        return self.solve_mass(dyn.M, dyn.forcing)

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

    def mass_matrix(self, q) -> np.ndarray:
        return self.dynamics(0.0, q, np.zeros(self.n_u)).M

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
        # rounding's ±1e-16 is shown as 0, so the words do not depend on the path that formed M
        smallest = 0.0 if abs(w[k]) <= 1e-12 * float(np.max(np.abs(w), initial=0.0)) else w[k]
        return (
            "the mass matrix is singular (smallest eigenvalue "
            f"{smallest:.3g}): {', '.join(names) or 'a speed'} moves no mass or inertia"
        )

    # --- energy ------------------------------------------------------------------------------

    def kinetic_energy(self, q, u) -> float:
        ks = self.kin.evaluate(q, u)
        return self._kinetic(ks) + self._armature_energy(0.0, q, u, ks)

    def _armature_energy(self, t, q, u, ks) -> float:
        return 0.0 if self.armature is None else self.armature.energy(t, q, u, ks)

    def _kinetic(self, ks: KinematicState) -> float:
        I_w = self._inertia_world(ks)
        rot = np.einsum("bi,bij,bj->b", ks.omega, I_w, ks.omega)
        trans = self.kin.mass * np.einsum("bi,bi->b", ks.v_com, ks.v_com)
        return 0.5 * float(np.sum(trans + rot))

    def energy_and_centres(self, q, u) -> tuple[float, float, np.ndarray]:
        """T, V and every body's mass centre (n_bodies, 3): in one pass of the compiled path when it
        runs and no force element adds a potential, else from the numpy kinematics."""
        if self.tree_backend is None or self.forces or self._armature_explicit:
            ks = self.kin.evaluate(q, u)
            return *self.energy_at(ks, q, u), ks.com
        return self.tree_backend.quantities(q, u)

    def energy(self, t, q, u) -> tuple[float, float]:
        """Kinetic and potential energy (gravity, springs, joint springs)."""
        return self.energy_at(self.kin.evaluate(q, u), q, u, t)

    def energy_at(self, ks: KinematicState, q, u=None, t: float = 0.0) -> tuple[float, float]:
        """T and V from an already evaluated kinematic state (u: the speeds there, for the armature)."""
        V = -float(np.sum(self.kin.mass * (ks.com @ self.gravity)))
        for f in self.forces:
            V += f.potential(ks, q)
        T = self._kinetic(ks)
        if self.armature is not None:
            if u is None:
                raise ValueError("energy_at needs the speeds u of a model with joint armature")
            T += self._armature_energy(t, q, u, ks)
        return T, V

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
