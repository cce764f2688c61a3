"""The rows every constraint kind gives at one state (RowBlock), all rows stacked (ConstraintRows),
and the interface of a kind (ConstraintKind)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from eomlab.engine.forcing.action import Action
from eomlab.engine.kinematics import TreeKinematics
from eomlab.engine.model import GROUND, ModelError
from eomlab.engine.mechanics.state import StateContext

HOLONOMIC, VELOCITY, ACCELERATION = 0, 1, 2
AXES = {"x": 0, "y": 1, "z": 2}


@dataclass
class RowBlock:
    """One constraint's rows at one state.

    `A`, `b`: acceleration level. `position`: Φ for holonomic rows (else None). `velocity`: the
    velocity-level residual (Φ_dot or ψ; None for second-order rows). `c`: for rows linear in u,
    velocity = A u + c (None when not linear).
    """

    A: np.ndarray
    b: np.ndarray
    position: np.ndarray | None
    velocity: np.ndarray | None
    c: np.ndarray | None


@dataclass
class ConstraintRows:
    """All rows stacked; `level[i]` is 0, 1 or 2 and `owner[i]` the constraint's index."""

    A: np.ndarray
    b: np.ndarray
    level: np.ndarray
    owner: np.ndarray
    position: np.ndarray  # Φ of the holonomic rows
    velocity: np.ndarray  # residuals of holonomic and first-order rows
    velocity_rows: np.ndarray  # indices of rows that have a velocity residual
    c: np.ndarray  # velocity = A u + c for rows in `linear_rows`
    linear_rows: np.ndarray  # rows whose velocity residual is linear in u

    @property
    def drift_position(self) -> float:
        return float(np.max(np.abs(self.position))) if self.position.size else 0.0

    @property
    def drift_velocity(self) -> float:
        return float(np.max(np.abs(self.velocity))) if self.velocity.size else 0.0


class ConstraintKind:
    name: str = ""
    row_names: list[str] | None = None  # per-row names (multiplier columns); default <name>_<row>
    rows: int = 0
    level: tuple[int, ...] = ()
    rheonomic: bool = False
    labels: tuple[str, ...] = ()

    def evaluate(self, ctx: StateContext) -> RowBlock:
        raise NotImplementedError

    # --- rows at u from the rows at u = 0 (ConstraintSet.evaluate_split / rows_at) -------------
    #
    # A kind whose A, c and Φ depend on (t, q) only — every row linear in u — may set
    # `u_independent_matrix = True` and implement `bias_at(cache, ctx)`: b at the full state
    # from what `evaluate_at_zero` kept. The velocity residual then is A u + c. Any other kind
    # is simply evaluated afresh at the full state (exact, the general path).

    u_independent_matrix = False

    def evaluate_at_zero(self, ctx: StateContext) -> tuple[RowBlock, object]:
        """The rows at ctx (u = 0, the kinematics' positions stage) and what `bias_at` reuses."""
        return self.evaluate(ctx), None

    def bias_at(self, cache, ctx: StateContext) -> np.ndarray:
        raise NotImplementedError

    # --- where its force acts -------------------------------------------------------------------

    def actions(self, ks, lam: np.ndarray) -> list[Action]:
        """The forces and couples its multipliers λ (its rows of M u̇ = f + Aᵀλ) exert, at the
        points where it acts: `engine.forcing.action.generalized_force` of them is A_kindᵀ λ."""
        raise ModelError("constraints", f"constraint {self.name!r} is an equation in the coordinates: its force "
                         "has no point of action to show")


def between(source: str, kind: str, b: int, Pb, force, a: int, Pa, torque=None) -> Action:
    """`force` (and `torque`) on body b at Pb, the reaction on body a at Pa; the sides swapped when
    b is the ground, so that the action is on a body."""
    torque = np.zeros(3) if torque is None else torque
    if b < 0:
        return Action(source, kind, a, Pa, -force, -torque, b, Pb)
    return Action(source, kind, b, Pb, force, torque, a, Pa)


def body_index(kin: TreeKinematics, name: str) -> int:
    return -1 if name == GROUND else kin.body_names.index(name)


def world_point(kin, ks, body, local):
    return local.copy() if body < 0 else ks.origin[body] + ks.R[body] @ local


class LinearKind(ConstraintKind):
    """A kind whose A, c and Φ depend on (t, q) only (every row linear in u): its rows at any state
    are those `evaluate_at_zero` gives, with the velocity residual and b taken at ctx.u."""

    u_independent_matrix = True

    def evaluate(self, ctx: StateContext) -> RowBlock:
        return self.evaluate_at_zero(ctx)[0]
