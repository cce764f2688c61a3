"""Constraint rows, symbolically, brought to the acceleration level.

- holonomic Φ(q, t) = 0:  A = Φ_q,  b = −(Φ_q q̇)_q q̇ − 2 Φ_qt q̇ − Φ_tt
- first order ψ(q, q̇, t) = 0:  A = ∂ψ/∂q̇,  b = −ψ_q q̇ − ψ_t
- second order a·q̈ + a₀ = 0:  A = a,  b = −a₀

Both b's are d/dt of the velocity-level form with the accelerations set to zero, which is how
they are computed here; in Kane's speeds the same is done with q̇ = W(q) u.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from eomlab.engine.model import (
    Coincident,
    Distance,
    ExpressionConstraint,
    KnifeEdge,
    ModelError,
    Prescribed,
    RollingDisk,
)

from eomlab.engine.symbolic.derived_equations import Tex
from eomlab.engine.symbolic.errors import check_constraint_row, constraints_too_long, operation_count
from eomlab.engine.symbolic.tree_kinematics import SymbolicTree
from eomlab.engine.symbolic.partition import Partition, partition
from eomlab.engine.symbolic.parameters import exact, exact_vector

AXIS_INDEX = {"x": 0, "y": 1, "z": 2}
LEVELS = ("holonomic", "velocity", "acceleration")


@dataclass
class ConstraintRow:
    """One scalar constraint as the model gives it (rates q̇, accelerations q̈)."""

    name: str  # constraint name, with the row number for multi-row constraints
    level: str  # holonomic | velocity | acceleration
    equation: sp.Expr  # Φ(q, t), ψ(q, q̇, t) or a·q̈ + a₀, each = 0


@dataclass
class AccelerationRows:
    """A v̇ = b in one choice of velocity variables v (q̇ or u)."""

    A: sp.Matrix
    b: sp.Matrix
    velocity_A: sp.Matrix  # velocity-level rows J v + j = 0 (holonomic and first order only)
    velocity_bias: sp.Matrix
    names: list[str]
    levels: list[str]


def constraint_rows(tree: SymbolicTree) -> list[ConstraintRow]:
    """Every scalar constraint of the model, identically-zero rows dropped (they carry nothing)."""
    rows: list[ConstraintRow] = []
    for i, constraint in enumerate(tree.model.constraints):
        tree.progress.checkpoint(f"constraint {constraint.name}")
        found = _rows_of(tree, constraint, f"constraints[{i}]")
        labels = _row_labels(constraint, len(found))
        for label, (level, equation) in zip(labels, found):
            equation = tree.simplify(equation)
            if equation == 0:
                continue
            rows.append(ConstraintRow(f"{constraint.name}_{label}" if label else constraint.name, level, equation))
    return rows


def _row_labels(constraint, count: int) -> list[str]:
    """Row names as the multiplier columns lambda_<constraint>_<i> of the CSV."""
    return [str(k) for k in range(count)]


def _rows_of(tree: SymbolicTree, c, path: str) -> list[tuple[str, sp.Expr]]:
    if isinstance(c, Coincident):
        gap = tree.point_position(c.b.body, c.b.point) - tree.point_position(c.a.body, c.a.point)
        return [("holonomic", gap[AXIS_INDEX[d]]) for d in c.dims]
    if isinstance(c, Distance):
        # (|d|² − L²)/(2L): smooth, equal to |d| − L to first order (as the numeric engine)
        d = tree.point_position(c.b.body, c.b.point) - tree.point_position(c.a.body, c.a.point)
        L = exact(c.length)
        return [("holonomic", (d.dot(d) - L ** 2) / (2 * L))]
    if isinstance(c, Prescribed):
        if c.coordinate not in tree.coordinate_names:
            raise ModelError(f"{path}.coordinate", f"unknown coordinate {c.coordinate!r}")
        motion = _parse(tree, c.motion, f"{path}.motion")
        return [("holonomic", tree.q[tree.coordinate_names.index(c.coordinate)] - motion)]
    if isinstance(c, KnifeEdge):
        v = tree.point_velocity(c.body, c.point, speeds=False)
        n = exact_vector(c.direction)
        n = n / sp.sqrt(n.dot(n))
        return [("velocity", v.dot(tree.rotation(c.body) * n))]
    if isinstance(c, RollingDisk):
        return _rolling_disk(tree, c)
    if isinstance(c, ExpressionConstraint):
        level = LEVELS[c.order]
        equation = _parse(tree, c.equation, f"{path}.equation")
        if c.order == 2 and any(sp.diff(equation, a, 2) != 0 for a in tree.qdd):
            raise ModelError(f"{path}.equation", "an order-2 constraint must be linear in the accelerations")
        return [(level, equation)]
    raise ModelError(path, f"constraint type {getattr(c, 'type', '?')!r} has no symbolic form")


def _parse(tree: SymbolicTree, text: str, path: str) -> sp.Expr:
    from eomlab.engine.expressions import expression_names, parse_expression

    return parse_expression(text, expression_names(tree.coordinate_names), path).sympy


def _rolling_disk(tree: SymbolicTree, c: RollingDisk) -> list[tuple[str, sp.Expr]]:
    """Disk (centre at the body's mass centre, radius r, axis n) on the plane z = 0.

    Contact point from the centre: ρ = −r (e_z − n_z n)/√(1 − n_z²); holonomic: its height is
    zero; first order: the material point there has no horizontal velocity."""
    frame = tree.frame(c.body)
    radius = exact(c.radius)
    axis = exact_vector(c.axis)
    n = tree.rotation(c.body) * (axis / sp.sqrt(axis.dot(axis)))
    e_z = sp.Matrix([0, 0, 1])
    tilt = sp.sqrt(1 - n[2] ** 2)
    centre = tree.com_position(c.body)
    rho_world = -radius * (e_z - n[2] * n) / tilt
    rho_body = tree.simplify(tree.rotation(c.body).T * rho_world)
    v_contact = tree.point_velocity(c.body, frame.com + rho_body, speeds=False)
    return [("holonomic", centre[2] - radius * tilt),
            ("velocity", v_contact[0]), ("velocity", v_contact[1])]


def velocity_form(tree: SymbolicTree, row: ConstraintRow) -> sp.Expr | None:
    """The row's velocity-level form in q̇: Φ̇ for holonomic rows, ψ itself for first order."""
    if row.level == "holonomic":
        return tree.time_derivative(row.equation, speeds=False)
    if row.level == "velocity":
        return row.equation
    return None


def acceleration_rows(tree: SymbolicTree, rows: list[ConstraintRow], speeds: bool) -> AccelerationRows:
    """A v̇ = b for all rows, in q̈ (speeds=False) or in u̇ (speeds=True)."""
    velocities = sp.Matrix(tree.velocities(speeds))
    accelerations = sp.Matrix(tree.accelerations(speeds))
    A_rows, b_rows, J_rows, j_rows = [], [], [], []
    forms = [velocity_form(tree, row) for row in rows]
    for row, psi in zip(rows, forms):  # every row measured before any is differentiated
        check_constraint_row(row.name, operation_count(psi if psi is not None else row.equation))
    for row, psi in zip(rows, forms):
        tree.progress.checkpoint(f"acceleration form of {row.name}")
        if psi is not None:
            psi = tree.rates_to_speeds(psi) if speeds else psi
            J = sp.Matrix([psi]).jacobian(velocities)
            J_rows.append(J)
            j_rows.append(tree.simplify(sp.expand(psi - (J * velocities)[0])))
            second = tree.time_derivative(psi, speeds)
        else:
            second = _second_order_in(tree, row.equation, speeds)
        A = sp.Matrix([second]).jacobian(accelerations)
        A_rows.append(tree.simplify(A))
        rest = sp.expand(second - (A * accelerations)[0])
        b_rows.append(tree.simplify(-rest))
    n = len(velocities)
    return AccelerationRows(
        A=sp.Matrix.vstack(*A_rows) if A_rows else sp.zeros(0, n),
        b=sp.Matrix(b_rows) if b_rows else sp.zeros(0, 1),
        velocity_A=sp.Matrix.vstack(*J_rows) if J_rows else sp.zeros(0, n),
        velocity_bias=sp.Matrix(j_rows) if j_rows else sp.zeros(0, 1),
        names=[r.name for r in rows], levels=[r.level for r in rows])


def _second_order_in(tree: SymbolicTree, equation: sp.Expr, speeds: bool) -> sp.Expr:
    """a·q̈ + a₀ with q̈ = d/dt(W u) and q̇ = W u when in speeds."""
    if not speeds:
        return equation
    qdd_of_u = {}
    for rate, acc in zip(tree.qd, tree.qdd):
        qdd_of_u[acc] = tree.time_derivative(tree.qdot_in_speeds[rate], speeds=True)
    return tree.rates_to_speeds(equation.subs(qdd_of_u))


def partitioned_rows(eq, tree: SymbolicTree, rows: AccelerationRows, heading: str, reduced_title: str,
                     numeric_way: str) -> Partition | None:
    """Record A u̇ = b on the Equations `eq`, show them under `heading` and split the speeds into
    independent and dependent ones (engine.symbolic.partition). None when the rows are too long
    to reduce symbolically: a note under `reduced_title` then says the numeric engine does it
    (`numeric_way`: how)."""
    eq.constraint_matrix, eq.constraint_rhs, eq.constraint_names = rows.A, rows.b, list(rows.names)
    section = eq.section(heading)
    section.add("", Tex(r"A\,\dot u = b"), role="constraints")
    section.add("constraint matrix", rows.A, "A", tex="A", role="constraints")
    section.add("constraint right-hand side", rows.b, "b", tex="b", role="constraints")
    if constraints_too_long(rows.A, rows.b):
        eq.section(reduced_title).add("reduction", "The constraint rows are too long to reduce symbolically; "
                                      f"the program {numeric_way} numerically at each step.")
        return None
    tree.progress.checkpoint("independent speeds")
    return partition(tree, rows.A, rows.b)
