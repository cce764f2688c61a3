"""Coordinate (speed) partitioning of constraint rows: independent and dependent variables.

Which variables become dependent is decided numerically at one state (the model's initial
state, or a fixed pseudo-random one when that is singular) by QR with column pivoting: the
best-conditioned k columns of A are solved for, the other l = n − k stay independent (`pivoted_columns`:
LAPACK's xGEQP3 rule in numpy, so that the deriver does not load scipy for it). Then

    v̇_d = −A_d⁻¹ A_i v̇_i + A_d⁻¹ b,   C = [I; −A_d⁻¹ A_i] (in the variables' order),  A C = 0

(Maggi's coordinate partitioning; the same split gives Kane's u_d = A_d u_i + B_d).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sp

from eomlab.engine.model import ModelError

from eomlab.engine.symbolic.tree_kinematics import SymbolicTree
from eomlab.engine.symbolic.matrix_product import product


@dataclass
class Partition:
    independent: list[int]
    dependent: list[int]
    C: sp.Matrix  # n × l, A C = 0
    D: sp.Matrix  # n × k, A D = I (the second group's columns)
    particular: sp.Matrix  # n × 1, A v̇_p = b with v̇_p,i = 0
    A_d_inv: sp.Matrix  # k × k


def sample_state(tree: SymbolicTree, random_state: int = 7) -> list[dict]:
    """Substitutions at which to judge the rank: the initial state first, then random ones."""
    q0 = [v for b in tree.model.bodies for v in (b.joint.q0 or (0.0,) * b.joint.n_coordinates)]
    u0 = [v for b in tree.model.bodies for v in (b.joint.u0 or (0.0,) * b.joint.dof)]
    initial = dict(zip(tree.q, q0)) | dict(zip(tree.u, u0)) | dict(zip(tree.qd, u0)) | {tree.t: 0.0}
    rng = np.random.default_rng(random_state)
    states = [initial]
    for _ in range(3):
        values = rng.uniform(0.2, 1.2, size=3 * len(tree.q))
        n = len(tree.q)
        states.append(dict(zip(tree.q, values[:n])) | dict(zip(tree.u, values[n:2 * n]))
                      | dict(zip(tree.qd, values[2 * n:])) | {tree.t: 0.3})
    return states


def numeric(matrix: sp.Matrix, state: dict, parameters: dict) -> np.ndarray | None:
    try:
        values = np.array(matrix.subs(parameters).subs(state).evalf(), dtype=float)
    except (TypeError, ValueError):
        return None
    return values if np.all(np.isfinite(values)) else None


#: norms this close count as equal: a column and its negative can differ in the last bits after projections
TIE = 1e-12


def pivoted_columns(values: np.ndarray, count: int) -> tuple[list[int], list[float]]:
    """The first `count` column pivots of QR with column pivoting, and |R|'s diagonal there: each
    step takes the column of largest norm left, the first of equals in LAPACK's order (a pivot
    swaps places with the column at its step), and removes its direction from the others."""
    rest = np.array(values, dtype=float)
    order = list(range(rest.shape[1]))  # the columns' places after the swaps
    diagonal: list[float] = []
    for step in range(min(count, *rest.shape)):
        norms = np.linalg.norm(rest[:, order[step:]], axis=0)
        place = step + int(np.argmax(norms >= norms.max() * (1.0 - TIE)))
        order[step], order[place] = order[place], order[step]
        column = order[step]
        diagonal.append(float(norms[place - step]))
        if diagonal[-1] == 0.0:
            break
        direction = rest[:, column] / diagonal[-1]
        rest -= np.outer(direction, direction @ rest)
    return order[:len(diagonal)], diagonal


def choose_dependent(tree: SymbolicTree, A: sp.Matrix) -> list[int]:
    k = A.rows
    for state in sample_state(tree):
        values = numeric(A, state, tree.params.substitution())
        if values is None:
            continue
        pivots, diagonal = pivoted_columns(values, k)
        if len(diagonal) >= k and diagonal[k - 1] > 1e-9 * max(1.0, diagonal[0]):
            return sorted(pivots)
    raise ModelError("constraints", f"the {k} constraint rows are dependent (A has no full row rank); "
                     "remove redundant constraints for the symbolic view")


def small_inverse(A: sp.Matrix) -> sp.Matrix:
    """A⁻¹ without zero tests: adjugate over determinant (Berkowitz) up to 3 × 3, LU beyond.
    sympy's default (Gauss–Jordan) calls simplify to judge each pivot: tens of seconds on a
    closed loop's rows, and the partition has already chosen a regular block numerically."""
    if A.rows <= 3:
        return A.adjugate(method="berkowitz") / A.det(method="berkowitz")
    return A.inv(method="LU", iszerofunc=lambda e: e == 0)


def partition(tree: SymbolicTree, A: sp.Matrix, b: sp.Matrix) -> Partition:
    n, k = A.cols, A.rows
    if k == 0:
        return Partition(list(range(n)), [], sp.eye(n), sp.zeros(n, 0), sp.zeros(n, 1), sp.zeros(0, 0))
    dependent = choose_dependent(tree, A)
    independent = [c for c in range(n) if c not in dependent]
    A_d = A.extract(list(range(k)), dependent)
    A_i = A.extract(list(range(k)), independent)
    A_d_inv = tree.simplify(small_inverse(A_d))
    C = sp.zeros(n, len(independent))
    D = sp.zeros(n, k)
    particular = sp.zeros(n, 1)
    solved = tree.simplify(product(-A_d_inv, A_i))
    for column, row in enumerate(independent):
        C[row, column] = 1
    for position, row in enumerate(dependent):
        C[row, :] = solved[position, :]
        D[row, :] = A_d_inv[position, :]
    particular_d = tree.simplify(product(A_d_inv, b))
    for position, row in enumerate(dependent):
        particular[row] = particular_d[position]
    return Partition(independent, dependent, C, D, particular, A_d_inv)
