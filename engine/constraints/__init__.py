"""Constraints: residual rows at the level they were given, and acceleration-level rows A u_dot = b.

THEORY.md §2 (Byachkov & Yushkov 2011, eqs. (3.1)–(3.3)):
- holonomic Φ(q, t) = 0            → Φ_dot = A u + c,     A u_dot = b
- first order ψ(q, u, t) = 0       → ψ itself,            A u_dot = b   (A = ∂ψ/∂u)
- second order a·q_ddot + a0 = 0   → A u_dot = b as it stands
Everything is in the system's speeds u (q_dot = W u). Geometric kinds take their exact
derivatives from the tree kinematics (Jacobians and bias accelerations); expression kinds are
differentiated by sympy once and compiled. No finite differences.
"""
from __future__ import annotations

from eomlab.engine.kinematics import TreeKinematics
from eomlab.engine.model import Coincident, Distance, ExpressionConstraint, KnifeEdge, Model, Prescribed, RollingDisk
from eomlab.engine.mechanics.state import StateContext
from eomlab.engine.constraints.expression import ExpressionRows, PrescribedRows
from eomlab.engine.constraints.geometric import CoincidentRows, DistanceRows, KnifeEdgeRows, RollingDiskRows
from eomlab.engine.constraints.joint_rows import JointRows, PlanarPins, SpatialPins
from eomlab.engine.constraints.rows import ACCELERATION, HOLONOMIC, VELOCITY, ConstraintKind, ConstraintRows, RowBlock
from eomlab.engine.constraints.stack import ConstraintSet, SplitRows

__all__ = ["ACCELERATION", "HOLONOMIC", "VELOCITY", "CoincidentRows", "ConstraintKind", "ConstraintRows",
           "ConstraintSet", "DistanceRows", "ExpressionRows", "JointRows", "KnifeEdgeRows", "PlanarPins",
           "PrescribedRows", "RollingDiskRows", "RowBlock", "SpatialPins", "SplitRows", "StateContext",
           "build_constraint_kinds"]


#: the constraint kind of each model constraint type
KINDS = {Coincident: CoincidentRows, Distance: DistanceRows, KnifeEdge: KnifeEdgeRows, RollingDisk: RollingDiskRows,
         Prescribed: PrescribedRows, ExpressionConstraint: ExpressionRows}


def build_constraint_kinds(model: Model, kin: TreeKinematics) -> list[ConstraintKind]:
    """The rows of every constraint of the model, on the tree kinematics `kin`."""
    return [KINDS[type(c)](kin, c, f"constraints[{i}]") for i, c in enumerate(model.constraints)]
