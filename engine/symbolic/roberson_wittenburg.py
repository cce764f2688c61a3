"""The Roberson–Wittenburg view of the tree (seed 004; THEORY.md §4)."""
from __future__ import annotations

import sympy as sp

from eomlab.engine.model import GROUND

from .base import Equations
from .kinematics import SymbolicTree
from .lagrange import lagrange_core


def path_matrix(tree: SymbolicTree) -> sp.Matrix:
    """T_ij = 1 when hinge i lies on the path from ground to body j."""
    names = list(tree.bodies)
    T = sp.zeros(len(names), len(names))
    for j, name in enumerate(names):
        current = name
        while current != GROUND:
            T[names.index(current), j] = 1
            current = tree.bodies[current].parent
    return T


def hinge_vectors(tree: SymbolicTree) -> dict[tuple[int, int], sp.Matrix]:
    """d_ij (world axes, 1-based keys): from hinge i to the next hinge on the path to body j,
    or to the mass centre of j when i = j; r_j = Σ_i T_ij d_ij (seed 004 (33)–(35))."""
    names = list(tree.bodies)
    d = {}
    for j, name in enumerate(names):
        target = tree.com_position(name)
        current = name
        while current != GROUND:
            i = names.index(current)
            origin = tree.bodies[current].origin
            d[(i + 1, j + 1)] = tree.simplify(target - origin)
            target = origin
            current = tree.bodies[current].parent
    return d


def tree_view(tree: SymbolicTree) -> Equations:
    """Roberson–Wittenburg (seed 004 (33)–(54)): r_j = Σ_i T_ij d_ij, ṙ = α q̇ + s (45),
    r̈ = α q̈ + u (46) with the Jacobian α (47) and the velocity-product terms u (52)–(54).
    Its mass matrix and forcing are Lagrange's (2.6), built from the same kinematics."""
    names = list(tree.bodies)
    T = path_matrix(tree)
    d = hinge_vectors(tree)
    r = sp.Matrix.vstack(*[tree.com_position(n) for n in names])
    tree.progress.checkpoint("Jacobian α")
    alpha = tree.simplify(r.jacobian(sp.Matrix(tree.q)))
    velocity = alpha * sp.Matrix(tree.qd)
    u = tree.simplify(tree.time_derivative(velocity, speeds=False).subs({a: 0 for a in tree.qdd}))
    _T, _V, M, _gamma, h, Q = lagrange_core(tree)
    eq = Equations(
        method="roberson_wittenburg", title="Roberson–Wittenburg tree kinematics",
        reference="seed 004 (33)–(54); THEORY.md §4", coordinates=list(tree.coordinate_names),
        speeds=[str(s) for s in tree.qd], accelerations=list(tree.qdd), mass_matrix=M,
        forcing=tree.simplify(Q - h), parameters=dict(tree.params.values))
    topology = eq.section("Path matrix T (T_ij = 1: hinge i on the path from B_0 to B_j)")
    topology.add("bodies", ", ".join(names)).add("T", T, "T")
    vectors = eq.section("Body-fixed vectors d_ij (hinge i → next hinge / mass centre of B_j), world axes")
    for (i, j), value in d.items():
        vectors.add(f"d_{i}{j}", value, f"d_{i}{j}")
    positions = eq.section("Mass-centre positions r_j = Σ_i T_ij d_ij (33)–(35)")
    for j, name in enumerate(names):
        positions.add(f"r_{j + 1} ({name})", tree.com_position(name), f"r_{j + 1}")
    jac = eq.section("ṙ = α q̇ + s (45), r̈ = α q̈ + u (46); α (47)–(51), u (52)–(54)")
    jac.add("α (rows: bodies' x, y, z; columns: coordinates)", alpha, "alpha")
    jac.add("s (fixed base)", sp.zeros(r.rows, 1), "s")
    jac.add("u", u, "u")
    eq.section("Equations of motion from the tree (2.6): M q̈ = Q − h").add("M", M, "M").add(
        "Q − h", eq.forcing, "Y")
    return eq


def alpha_block(eq: Equations, tree: SymbolicTree, hinge: int, body: int) -> sp.Matrix:
    """α_ij of seed 004 (1-based): the columns of hinge i's coordinates in body j's rows."""
    alpha = eq.item("alpha")
    start = sum(b.joint.dof for b in tree.model.bodies[:hinge - 1])
    k = tree.model.bodies[hinge - 1].joint.dof
    return alpha[3 * (body - 1):3 * body, start:start + k]
