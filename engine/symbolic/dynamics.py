"""Pieces shared by the formulations: Kane's generalized inertia forces and M, forcing from them."""
from __future__ import annotations

import sympy as sp

from .forces import partial
from .kinematics import SymbolicTree


def partial_velocities(tree: SymbolicTree, speeds: bool) -> dict[str, tuple[sp.Matrix, sp.Matrix]]:
    """Per body: (3×n partial velocities of the mass centre, 3×n partial angular velocities),
    both in the body's own axes — the columns are v^(r) and ω^(r) of Kane and Levinson."""
    velocities = tree.velocities(speeds)
    table = {}
    for name in tree.bodies:
        v = partial(tree.com_velocity_body(name, speeds), velocities)
        w = partial(tree.omega_body(name, speeds), velocities)
        table[name] = (tree.simplify(v), tree.simplify(w))
    return table


def generalized_inertia_forces(tree: SymbolicTree, speeds: bool, table=None) -> sp.Matrix:
    """F_r* = −Σ_B (m_B a_B·v_B^(r) + (I_B α_B + ω_B × I_B ω_B)·ω_B^(r))   (Kane and Levinson)."""
    table = table or partial_velocities(tree, speeds)
    F_star = sp.zeros(len(tree.velocities(speeds)), 1)
    for name, frame in tree.bodies.items():
        tree.progress.checkpoint(f"inertia forces of {name}")
        v_r, w_r = table[name]
        a = tree.com_acceleration_body(name, speeds)
        w, alpha = tree.omega_body(name, speeds), tree.alpha_body(name, speeds)
        I = frame.inertia
        euler = I * alpha + w.cross(I * w)
        F_star -= v_r.T * (frame.mass * a) + w_r.T * euler
    return F_star


def split_linear(expressions: sp.Matrix, accelerations) -> tuple[sp.Matrix, sp.Matrix]:
    """expressions = M·accelerations + rest: return (M, rest). No expansion: on larger models the
    expanded form is exponentially longer than the nested one."""
    M = expressions.jacobian(sp.Matrix(accelerations))
    rest = expressions.xreplace({a: 0 for a in accelerations})
    return M, rest
