"""The Roberson–Wittenburg view of the tree: path matrix, hinge vectors, r_j = Σ_i T_ij d_ij."""
from __future__ import annotations

import sympy as sp

from eomlab.engine.model import GROUND

from eomlab.engine.symbolic.about import ROBERSON_WITTENBURG
from eomlab.engine.symbolic.derived_equations import Equations, Tex
from eomlab.engine.symbolic.tree_kinematics import SymbolicTree
from eomlab.engine.symbolic.lagrange_equations import lagrange_core


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
    or to the mass centre of j when i = j; r_j = Σ_i T_ij d_ij."""
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
    """Roberson–Wittenburg: r_j = Σ_i T_ij d_ij, ṙ = α q̇ + s, r̈ = α q̈ + u with the Jacobian α
    and the velocity-product terms u. Its mass matrix and forcing are Lagrange's, built from
    the same kinematics."""
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
        method="roberson_wittenburg", title=ROBERSON_WITTENBURG.name, reference=ROBERSON_WITTENBURG.source,
        coordinates=list(tree.coordinate_names), speeds=[str(s) for s in tree.qd], accelerations=list(tree.qdd),
        mass_matrix=M, forcing=tree.simplify(Q - h), parameters=dict(tree.params.values))
    topology = eq.section("The path matrix: an entry is 1 when hinge i lies on the path from the ground to body j")
    topology.add("bodies", "Bodies, in order: " + ", ".join(names) + ".").add("", T, "T", tex="T")
    vectors = eq.section("Body-fixed vectors from each hinge to the next hinge or mass centre, in world axes")
    for (i, j), value in d.items():
        vectors.add("", value, f"d_{i}{j}", tex=f"d_{{{i}{j}}}")
    positions = eq.section("Mass-centre positions")
    positions.add("", Tex(r"r_j = \sum_i T_{ij}\,d_{ij}"), role="general")
    for j, name in enumerate(names):
        positions.add(f"body {name}", tree.com_position(name), f"r_{j + 1}", tex=f"r_{{{j + 1}}}")
    jac = eq.section("Velocities and accelerations of the mass centres")
    jac.add("", Tex(r"\dot r = \alpha\,\dot q + s, \qquad \ddot r = \alpha\,\ddot q + u"))
    jac.add("the Jacobian (rows: the bodies' x, y, z; columns: the coordinates)", alpha, "alpha", tex=r"\alpha")
    jac.add("the fixed base adds nothing", sp.zeros(r.rows, 1), "s", tex="s")
    jac.add("the velocity-product terms", u, "u", tex="u")
    motion = eq.section("Equations of motion from the tree")
    motion.add("", Tex(r"M\,\ddot q = Q - h"), role="general")
    motion.add("the mass matrix", M, "M", tex="M", role="mass")
    motion.add("applied and velocity forces", eq.forcing, "Y", tex="Q - h", role="forcing")
    return eq


def alpha_block(eq: Equations, tree: SymbolicTree, hinge: int, body: int) -> sp.Matrix:
    """The block α_ij (1-based): the columns of hinge i's coordinates in body j's rows."""
    alpha = eq.item("alpha")
    start = sum(b.joint.dof for b in tree.model.bodies[:hinge - 1])
    k = tree.model.bodies[hinge - 1].joint.dof
    return alpha[3 * (body - 1):3 * body, start:start + k]
