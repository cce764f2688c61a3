"""A run's unilateral constraints: what `Simulation` asks at its start, after each step and in the
integrator's right-hand side (engine.simulation hooks in here; a model without limits or contacts
makes none of this: `Unilateral.of(model)` is None and the run is exactly as before).

- `clamped_start(model)`: a joint that starts outside its limits starts at the limit (as MuJoCo
  pushes it back), said once in the run's notes; the jump of its speed is the impact at t = 0.
- `start`: impacts at t = 0 (rows touching and closing), spheres that start interpenetrating
  (said once), the resting rows.
- `event_in_step` / `after_event`: the earliest event in an accepted step (engine.unilateral.events),
  then the impact or the release there and the new resting rows.
- `classify`: the resting rows; while rows rest the formulation's `derivative` holds them
  (engine.unilateral.impacts), and is its own again when they let go.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from eomlab.engine.model import Model
from eomlab.engine.unilateral import events, impacts
from eomlab.engine.unilateral.gap_rows import UnilateralRows

#: reports of impacts kept for the window (the latest ones)
MAX_REPORTS = 1000


def clamped_start(model: Model) -> tuple[Model, list[str]]:
    """The model with every joint coordinate brought into its limits, and a note per joint moved."""
    notes: list[str] = []
    bodies = list(model.bodies)
    for i, body in enumerate(bodies):
        joint = body.joint
        if not joint.limits or len(joint.q0) != joint.dof:
            continue
        q0 = list(joint.q0)
        for k in range(joint.dof):
            low, high = joint.limits[2 * k], joint.limits[2 * k + 1]
            value = min(max(q0[k], low), high)
            if value != q0[k]:
                name = joint.names[k] if k < len(joint.names) else f"{body.name}[{k}]"
                notes.append(f"{name} starts at {q0[k]:.6g}, outside its limits [{low:.6g}, {high:.6g}]: "
                             f"it starts at {value:.6g} (the limit acts from t = 0)")
                q0[k] = value
        if q0 != list(joint.q0):
            bodies[i] = replace(body, joint=replace(joint, q0=tuple(q0)))
    return (replace(model, bodies=tuple(bodies)) if notes else model), notes


class Unilateral:
    """Joint limits and contacts of one run (rows per formulation system, the resting rows)."""

    def __init__(self, model: Model):
        self.model = model
        self._rows: dict[int, tuple[object, UnilateralRows, impacts.Tolerances]] = {}
        self.resting = np.zeros(0, int)
        self.reports: list[impacts.ImpactReport] = []
        self.notes: list[str] = []

    @classmethod
    def of(cls, model: Model) -> "Unilateral | None":
        if model.contacts or any(b.joint.limits for b in model.bodies):
            return cls(model)
        return None

    def rows(self, f) -> tuple[UnilateralRows, impacts.Tolerances]:
        """The rows of formulation f's system (built once per system)."""
        key = id(f.system)
        entry = self._rows.get(key)
        if entry is None or entry[0] is not f.system:
            entry = (f.system, UnilateralRows(self.model, f.system), impacts.Tolerances.of(f.system))
            self._rows[key] = entry
        return entry[1], entry[2]

    @property
    def holding(self) -> bool:
        """Rows rest now (the right-hand side holds them)."""
        return self.resting.size > 0

    def start(self, f, y: np.ndarray) -> np.ndarray:
        """The state at t = 0 after the impacts there; notes for spheres that start interpenetrating."""
        rows, tol = self.rows(f)
        q, u = f.state_to_qu(0.0, y)
        values = rows.evaluate(f.system.dynamics(0.0, q, u), bias=False)
        for i in np.flatnonzero(values.g < -impacts.TOUCHING_GAP):
            row = rows.rows[i]
            self.notes.append(f"{row.name} starts interpenetrating by {-values.g[i]:.3g}: "
                              "the spheres separate as they move apart (an impact at t = 0 if they close)")
        y = self._impact(f, 0.0, y)
        self.classify(f, 0.0, y)
        return y

    def classify(self, f, t: float, y: np.ndarray, model: Model | None = None) -> None:
        """The resting rows at (t, y) (the run restarts there); `model`: the run's model now (an edit)."""
        if model is not None and model is not self.model:
            self.model, self._rows = model, {}
        rows, tol = self.rows(f)
        self.resting = impacts.resting_rows(f, rows, tol, t, y)
        self._hold(f)

    def _hold(self, f) -> None:
        """While rows rest, f's right-hand side holds them: its `derivative` is ours until they let go
        (so a run with nothing resting calls the formulation's own, as without unilateral rows)."""
        held = f.__dict__.get("derivative")
        wrapped = getattr(held, "unilateral", None) is not None  # ours, or a reset run's
        own = held.own if wrapped else held
        if self.holding:
            if wrapped and held.unilateral is self:
                return

            def derivative(t: float, y: np.ndarray) -> np.ndarray:
                return impacts.derivative(f, self.rows(f)[0], self.resting, t, y)

            derivative.unilateral, derivative.own = self, own
            f.derivative = derivative
        elif wrapped:
            if own is None:
                del f.derivative  # the class's checked_derivative again
            else:
                f.derivative = own

    def event_in_step(self, f, st) -> events.Event | None:
        rows, tol = self.rows(f)
        return events.first_event(f, rows, self.resting, tol, st)

    def after_event(self, f, event: events.Event) -> np.ndarray:
        """The state after the event (an impact's jump; a release leaves it as it is); the run restarts
        there and `classify` finds the resting rows."""
        return self._impact(f, event.t, event.y) if event.kind == "impact" else event.y

    def _impact(self, f, t: float, y: np.ndarray) -> np.ndarray:
        rows, tol = self.rows(f)
        y_new, report = impacts.impact(f, rows, tol, t, y)
        if report.rounds:
            self.reports.append(report)
            del self.reports[:-MAX_REPORTS]
        return y_new

    def impulses_until(self, t: float) -> list[impacts.ImpactReport]:
        """The impacts up to time t (for the window's arrows)."""
        return [r for r in self.reports if r.t <= t + 1e-12 * max(1.0, abs(t))]

