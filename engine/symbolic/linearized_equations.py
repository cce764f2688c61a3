"""The linearized equations M δq̈ + C δq̇ + K δq = 0 of a tree about the point `eomlab linearize` finds.

Lagrange's equations in the rates, M(q) q̈ = f(q, q̇) (f = Q − h), expanded to first order about (q*, q̇*)
where q̈* = 0 (an equilibrium, or a steady motion whose cyclic coordinates turn at constant rates):
M = M(q*), C = −∂f/∂q̇, K = −∂f/∂q at the point (the term ∂M/∂q q̈* vanishes there). The point itself is
the numeric linearization's (engine.linearize): about the model's initial state when it is such a point,
else about the equilibrium Newton finds near its initial pose. Trees only: a constrained model's reduced
M, C and K are the numeric linearization's (`eomlab linearize`, Analyze ▸ Modes).
"""
from __future__ import annotations

import sympy as sp

from eomlab.engine.model import ModelError

from eomlab.engine.symbolic.about import LINEARIZED
from eomlab.engine.symbolic.derived_equations import Equations, Tex
from eomlab.engine.symbolic.lagrange_equations import lagrange_core
from eomlab.engine.symbolic.tree_kinematics import SymbolicTree

#: significant digits of the point's numbers in the matrices
DIGITS = 6


def linearized_view(tree: SymbolicTree) -> Equations:
    """M, C and K of the tree about its linearization point, and the eigenvalues there."""
    point, about = _point(tree)
    tree.progress.checkpoint("the point")
    _T, _V, M, _gamma, h, Q = lagrange_core(tree)
    f = Q - h
    rates = list(point.u.values())  # in the coordinates' order: trees in rate speeds (with_rate_speeds)
    at = {s: point.q[name] for s, name in zip(tree.q, tree.coordinate_names)} | dict(zip(tree.qd, rates))
    tree.progress.checkpoint("linearized matrices")
    M0 = _numbers(M.subs(at))
    C = _numbers(-f.jacobian(sp.Matrix(tree.qd)).subs(at))
    K = _numbers(-f.jacobian(sp.Matrix(tree.q)).subs(at))
    eq = Equations(method="linearized", title=LINEARIZED.name, reference=LINEARIZED.source,
                   coordinates=list(tree.coordinate_names), speeds=[str(s) for s in tree.qd],
                   accelerations=list(tree.qdd), mass_matrix=M0,
                   forcing=-(C * sp.Matrix(tree.qd) + K * sp.Matrix(tree.q)), parameters=dict(tree.params.values))
    where = eq.section("The point")
    where.add("about", f"About {about}: the coordinates and rates below (δq is measured from them).")
    where.add("the coordinates there", sp.Matrix([_number(point.q[n]) for n in tree.coordinate_names]), "q_star",
              tex="q^*")
    where.add("the rates there", sp.Matrix([_number(v) for v in rates]), "qdot_star", tex=r"\dot q^*")
    if point.cyclic:
        where.add("cyclic", "Cyclic coordinates (nothing depends on them; they turn at constant rates): "
                  + ", ".join(point.cyclic) + ".")
    matrices = eq.section("The linearized equations")
    matrices.add("", Tex(r"M\,\delta\ddot q + C\,\delta\dot q + K\,\delta q = 0"), role="general")
    matrices.add("the mass matrix at the point", M0, "M", tex="M", role="mass")
    matrices.add("damping and gyroscopic terms", C, "C", tex="C")
    matrices.add("stiffness", K, "K", tex="K")
    modes = eq.section("Eigenvalues of the state matrix")
    modes.add("eigenvalues s (1/s): a positive real part grows", sp.Matrix([_complex(z, point.eigenvalues)
                                                                             for z in point.eigenvalues]), "s", tex="s")
    return eq


def _point(tree: SymbolicTree):
    """The numeric linearization at the model's point, and the words for it."""
    from eomlab.engine.linearize import linearize

    model = tree.model
    if model.constraints or model.contacts:
        raise ModelError("constraints", "the linearized equations are shown for trees without constraints; "
                         "`eomlab linearize` and Analyze ▸ Modes reduce a constrained model numerically")
    try:
        return linearize(model, about="initial", method="lagrange", coordinates="joint"), "the initial state"
    except ModelError:
        return (linearize(model, about="equilibrium", method="lagrange", coordinates="joint"),
                "the equilibrium nearest the initial pose")


def _complex(z: complex, all_of) -> sp.Expr:
    """An eigenvalue to DIGITS, its rounding-level parts (below 1e-12 of the largest) shown as 0."""
    scale = 1e-12 * max([abs(w) for w in all_of] + [1.0])
    re, im = (v if abs(v) > scale else 0.0 for v in (z.real, z.imag))
    return sp.Float(re, DIGITS) + sp.I * sp.Float(im, DIGITS)


def _number(value: float) -> sp.Float:
    return sp.Float(float(value), DIGITS)


def _numbers(matrix: sp.Matrix) -> sp.Matrix:
    return matrix.applyfunc(lambda v: sp.Float(float(v), DIGITS) if v.is_number else v)
