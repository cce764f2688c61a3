"""The Gibbs–Appell equations (Gibbs 1879; Appell 1900): ∂S/∂u̇_r = F_r over the independent speeds.

The Gibbs function ("energy of the accelerations") of the tree is

    S = ½ Σ_B (m_B a_B·a_B + α_B·I_B α_B + 2 α_B·(ω_B × I_B ω_B))

with a_B the mass-centre acceleration, α_B the angular acceleration and I_B the central inertia in
world axes (terms free of accelerations are dropped: they do not change ∂S/∂u̇). The body
accelerations are affine in the generalized accelerations, a_B = J_v u̇ + a_bias,
α_B = J_ω u̇ + α_bias (tree kinematics), so S is quadratic in u̇. The speeds may be quasi-velocities
(body rates of spherical and free joints): S is written in their derivatives, the
quasi-accelerations.

Constraints are handled as in the other reduced formulations (engine.formulations.reduced): the
velocity-level rows are eliminated by partitioning and the acceleration-level rows by a null-space
basis, so the admissible accelerations are u̇ = C N w + u_p with w the independent
quasi-accelerations. S(w) is then a quadratic in w; its Hessian is the reduced mass matrix and its
gradient at w = 0 the velocity-product (bias) terms, and Appell's equations

    ∂S/∂w_r = F_r,   F_r = Σ_B (R_B·∂a_B/∂w_r + L_B·∂α_B/∂w_r)   (the generalized active forces)

are linear in w. The reactions follow from the unreduced equations: Aᵀλ = ∂S/∂u̇ − F at the
solution, λ by the second group as for Maggi and Kane.

Expanded in u̇, S = ½ u̇ᵀ M u̇ + Cᵀ u̇ + (terms free of u̇): its Hessian is the tree's mass matrix
M = Σ_B m_B J_vᵀ J_v + J_ωᵀ I_B J_ω and its gradient at u̇ = 0 the velocity-product terms
C = Σ_B m_B J_vᵀ a_bias + J_ωᵀ (I_B α_bias + ω_B × I_B ω_B). On the compiled path (engine.compiled.tree_backend)
S is taken in that form (`TreeGibbsFunction`): M by the composite-rigid-body recursion, C by the
recursive Newton–Euler one on the tree without gravity, F's gravity part by pinocchio's generalized
gravity; without constraints ∂S/∂u̇ = F is solved by the articulated-body recursion, which solves
M u̇ = F − C without forming M. The numpy path forms S from the bodies' accelerations (`GibbsFunction`).

Impulsive form (Appell's equations for impulsive motion; Appell, Traité de mécanique rationnelle II,
§ on percussions): over an impact the "Gibbs function of the velocity jumps"
S* = ½ Σ_B (m_B Δv_B·Δv_B + Δω_B·I_B Δω_B) takes the place of S, and ∂S*/∂Δw_r = I_r, the generalized
impulse. S* is S's quadratic part with Δw for w, so its Hessian is the one of S above
(`impulse_matrix`): (Hessian of S) Δw = (CN)ᵀ Q̂.
"""
from __future__ import annotations

import numpy as np

from eomlab.engine.constraints import HOLONOMIC, VELOCITY
from eomlab.engine.rotations import cross
from eomlab.engine.formulations.reduced import ReducedFormulation


class GibbsFunction:
    """S(u̇) of the tree at one state (the kinematic state `ks` of engine.kinematics)."""

    def __init__(self, mass: np.ndarray, inertia_body: np.ndarray, ks):
        self.ks = ks
        self.mass = mass
        self.inertia = ks.R @ inertia_body @ ks.R.transpose(0, 2, 1)  # central inertia, world axes
        I_omega = (self.inertia @ ks.omega[:, :, None])[:, :, 0]
        self.gyroscopic = cross(ks.omega, I_omega)  # ω × I ω, the term linear in α

    def body_accelerations(self, u_dot: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(a_B, α_B) of every body at the generalized accelerations u_dot."""
        ks = self.ks
        return ks.J_v @ u_dot + ks.a_bias, ks.J_w @ u_dot + ks.alpha_bias

    def value(self, u_dot: np.ndarray) -> float:
        a, alpha = self.body_accelerations(u_dot)
        I_alpha = (self.inertia @ alpha[:, :, None])[:, :, 0]
        per_body = self.mass * np.einsum("bi,bi->b", a, a) + np.einsum("bi,bi->b", alpha, I_alpha + 2.0 * self.gyroscopic)
        return 0.5 * float(np.sum(per_body))

    def gradient(self, u_dot: np.ndarray) -> np.ndarray:
        """∂S/∂u̇ = Σ_B (m_B J_vᵀ a_B + J_ωᵀ (I_B α_B + ω_B × I_B ω_B))."""
        a, alpha = self.body_accelerations(u_dot)
        return self._pulled_back(self.ks.J_v, self.ks.J_w, a, alpha)

    def in_quasi_accelerations(self, CN: np.ndarray | None, u_p: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """Hessian and gradient at w = 0 of S(w) = S(CN w + u_p): with a_B = (J_v CN) w + a_B(u_p)
        and α_B likewise, ∂²S/∂w² = Σ m (J_v CN)ᵀ (J_v CN) + (J_ω CN)ᵀ I (J_ω CN).
        CN, u_p None: w = u̇."""
        if CN is None:
            Jv, Jw, u_p = self.ks.J_v, self.ks.J_w, np.zeros(self.ks.J_v.shape[2])
        else:
            Jv, Jw = self.ks.J_v @ CN, self.ks.J_w @ CN  # (nb, 3, l): partial accelerations in w
        nb, l = Jv.shape[0], Jv.shape[2]
        Jv_flat = Jv.reshape(3 * nb, l)
        hessian = Jv_flat.T @ (np.repeat(self.mass, 3)[:, None] * Jv_flat)
        hessian += Jw.reshape(3 * nb, l).T @ (self.inertia @ Jw).reshape(3 * nb, l)
        a0, alpha0 = self.body_accelerations(u_p)
        return hessian, self._pulled_back(Jv, Jw, a0, alpha0)

    def _pulled_back(self, Jv, Jw, a, alpha) -> np.ndarray:
        """Σ_B m_B Jvᵀ a_B + Jwᵀ (I_B α_B + ω_B × I_B ω_B): the gradient of S along the columns."""
        nb, n = Jv.shape[0], Jv.shape[2]
        inertial = (self.inertia @ alpha[:, :, None])[:, :, 0] + self.gyroscopic
        return (Jv.reshape(3 * nb, n).T @ (self.mass[:, None] * a).ravel()
                + Jw.reshape(3 * nb, n).T @ inertial.ravel())


class TreeGibbsFunction:
    """S(u̇) = ½ u̇ᵀ M u̇ + Cᵀ u̇ of the tree at one state, M and C from the compiled recursions (the
    same S as GibbsFunction's up to terms free of u̇)."""

    def __init__(self, M: np.ndarray, velocity_products: np.ndarray):
        self.M, self.C = M, velocity_products

    def value(self, u_dot: np.ndarray) -> float:
        return float(u_dot @ (0.5 * (self.M @ u_dot) + self.C))

    def gradient(self, u_dot: np.ndarray) -> np.ndarray:
        """∂S/∂u̇ = M u̇ + C."""
        return self.M @ u_dot + self.C

    def in_quasi_accelerations(self, CN: np.ndarray | None, u_p: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """Hessian (CN)ᵀ M (CN) and gradient (CN)ᵀ (M u_p + C) at w = 0 of S(CN w + u_p); CN None: w = u̇."""
        if CN is None:
            return self.M, self.C
        return CN.T @ (self.M @ CN), CN.T @ self.gradient(u_p)


class WithArmature:
    """S + ½ u̇ᵀ ΔM u̇ − Δfᵀ u̇: a Gibbs function with the joints' armature (engine.mechanics.armature: ΔM = PᵀAP,
    Δf = −PᵀAβ), which is ½ (P u̇ + β)ᵀ A (P u̇ + β) up to terms free of u̇."""

    def __init__(self, inner, dM: np.ndarray, df: np.ndarray):
        self.inner, self.dM, self.df = inner, dM, df

    def value(self, u_dot: np.ndarray) -> float:
        return self.inner.value(u_dot) + float(u_dot @ (0.5 * (self.dM @ u_dot) - self.df))

    def gradient(self, u_dot: np.ndarray) -> np.ndarray:
        return self.inner.gradient(u_dot) + self.dM @ u_dot - self.df

    def in_quasi_accelerations(self, CN, u_p):
        hessian, gradient = self.inner.in_quasi_accelerations(CN, u_p)
        if CN is None:
            return hessian + self.dM, gradient - self.df
        return hessian + CN.T @ (self.dM @ CN), gradient + CN.T @ (self.dM @ u_p - self.df)


class GibbsAppell(ReducedFormulation):
    name = "gibbs_appell"
    tree_equations_when_free = False
    acceleration_basis = "orthonormal"

    def velocity_rows(self, level, linear_rows):
        """Every linear velocity-level row (holonomic rows differentiated once and first-order
        rows) is eliminated: the independent speeds are integrated."""
        lv = level[linear_rows]
        return linear_rows[(lv == HOLONOMIC) | (lv == VELOCITY)]

    def gibbs_function(self, state) -> GibbsFunction | TreeGibbsFunction:
        """S at the state: from M and C by the compiled recursions, else from the bodies' accelerations."""
        backend = self.system.tree_backend
        if backend is None:
            S = GibbsFunction(self.system.kin.mass, self.system.kin.inertia_body, state.ks)
        else:
            q_pin = backend.configuration(state.q)
            S = TreeGibbsFunction(backend.mass_matrix(q_pin), backend.velocity_products(q_pin, state.u))
        armature = self.system.armature_terms(state)  # the rotors' ½ (P u̇ + β)ᵀ A (P u̇ + β)
        return S if armature is None else WithArmature(S, *armature)

    def active_forces(self, state) -> np.ndarray:
        """F in the speeds: gravity Σ_B J_vᵀ m_B g and every force element's virtual power."""
        backend = self.system.tree_backend
        if backend is not None:
            F = backend.gravity_forces(backend.configuration(state.q))
        else:
            ks, kin = state.ks, self.system.kin
            weights = kin.mass[:, None] * self.system.gravity[None, :]
            F = ks.J_v.reshape(3 * kin.n_bodies, -1).T @ weights.ravel()
        for element in self.system.forces:
            F = F + element.generalized(state)
        return F

    def reduced_equations(self, dyn, state, CN, u_p):
        """∂S/∂w = Hessian w + ∂S/∂w|₀ = CNᵀ F: (Hessian, CNᵀ F − ∂S/∂w|₀)."""
        S = self.gibbs_function(state)
        F = self.active_forces(state)
        hessian, gradient_at_zero = S.in_quasi_accelerations(CN, u_p)
        return hessian, (F if CN is None else CN.T @ F) - gradient_at_zero

    def impulse_matrix(self, dyn, state, CN):
        """∂²S*/∂Δw² = the Hessian of the Gibbs function in the quasi-accelerations (module docstring)."""
        return self.gibbs_function(state).in_quasi_accelerations(CN, np.zeros(CN.shape[0]))[0]

    def unconstrained_accelerations(self, dyn, state):
        """Its own equations ∂S/∂u̇ = F even without constraints (the Gibbs function is the method):
        M u̇ = F − C, by the articulated-body recursion on the compiled path."""
        if self.system.tree_backend is not None:
            return self.system.free_accelerations(dyn)
        return self.system.solve_mass(*self.reduced_equations(dyn, state, None, None))

    def constraint_force(self, dyn, state, u_dot):
        """Aᵀλ = ∂S/∂u̇ − F: what the tree's Appell equations lack at the constrained u̇."""
        return self.gibbs_function(state).gradient(u_dot) - self.active_forces(state)

    @property
    def integrates(self):
        nq, l = self.system.n_q, len(self.indep)
        return f"q ({nq}), independent speeds ({l}); ∂S/∂u̇ = F; {self.n_rows} reactions"
