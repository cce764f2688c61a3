"""A hand on a running mechanism: pose it by a point, pull a point with a spring, go on from any
stored sample. `Simulation` delegates these methods to `Manipulation` (the window's mouse and timeline use them).

    sim.drag_to("bob", [0, 0, 0], [0.5, -0.8, 0])   # paused: the pose nearest the mouse, at rest
    sim.pull("bob", [0, 0, 0], [1.0, 0.0, 0.0])     # running: a spring from the mouse point
    sim.move_pull([1.2, 0.1, 0.0]); sim.advance(t + 0.5); sim.release()
    sim.continue_from(row)                           # a kept sample row: later samples dropped

The spring of `pull` is MuJoCo's perturbation: a force k (anchor − P) − c v_P at the body point P,
its stiffness scaled by the mechanism's mass so every model follows the mouse alike. Its work
enters E (its potential is not counted), as a push's does.
"""
from __future__ import annotations

import math

import numpy as np

from eomlab.engine.forcing.generalized_forces import PushElement, _world_point
from eomlab.engine.model import ModelError
from eomlab.engine.run.model_history import ModelHistory
from eomlab.engine.run.run_course import RunCourse, Stretch
from eomlab.engine.run.run_edits import RunEdits
from eomlab.engine.mechanics.posing import pose_reaching
from eomlab.engine.mechanics.projection import ProjectionFailure
from eomlab.engine.mechanics.system import SingularMassMatrix

#: the pulling spring's natural frequency with the whole mechanism's mass on it (Hz)
PULL_FREQUENCY = 1.0
#: its damping ratio (light: the pull adds energy, as a hand does)
PULL_DAMPING_RATIO = 0.1
_POSE_ERRORS = (SingularMassMatrix, ProjectionFailure, ArithmeticError, np.linalg.LinAlgError, ValueError)


class PullElement(PushElement):
    """A spring from a world anchor to a body-fixed point, with a damper on the point's velocity:
    F = k (anchor − P) − c v_P, Q_u = J_Pᵀ F. Active from t_start until `release` sets t_stop."""

    def __init__(self, kin, body: str, point, anchor, stiffness: float, damping: float, t_start: float):
        super().__init__(kin, body, point, np.zeros(3), t_start, math.inf)
        self.anchor = np.array(anchor, float)
        self.stiffness, self.damping = float(stiffness), float(damping)

    def generalized(self, ctx):
        if not self.active:
            return np.zeros(self.kin.n_u)
        P = _world_point(self.kin, ctx.ks, self.body, self.point)
        force = self.stiffness * (self.anchor - P) - self.damping * self.kin.point_velocity(ctx.ks, self.body, P)
        return self.kin.point_jacobian(ctx.ks, self.body, P).T @ force


class Manipulation:
    """Posing, pulling and going back (`Simulation` delegates to it): on the run's `RunCourse`,
    through its `RunEdits`; `sample(t, y)` makes a sample row, `restart(t, y)` starts the
    integrator afresh there (the Simulation's)."""

    def __init__(self, course: RunCourse, edits: RunEdits, sample, restart):
        self.course, self.edits, self._sample, self._restart = course, edits, sample, restart

    def drag_to(self, body: str, point, target) -> None:
        """Pose the mechanism so that `point` of `body` (body frame) comes as near the world point
        `target` as the joints and constraints allow, and continue from that pose at rest. A pose
        that cannot be put on the constraints is refused (ModelError; the run is unchanged)."""
        c = self.course
        self._body_named(body)
        point, target = _three(point, "point"), _three(target, "target")
        q, _ = c.sample_state(c.samples[-1])
        try:
            q = pose_reaching(c.system, c.current_time(), q, body, point, target)
        except _POSE_ERRORS as err:
            raise ModelError("q", f"this pose cannot be reached: {err}") from None
        if not np.all(np.isfinite(q)):
            raise ModelError("q", "this pose cannot be reached")
        self.edits.set_state(q, np.zeros(len(c.system.speed_names)))

    def pull(self, body: str, point, anchor) -> None:
        """Start pulling `point` of `body` towards the world point `anchor` with a spring (one pull
        at a time: a new one replaces the last)."""
        c = self.course
        self._body_named(body)
        point, anchor = _three(point, "point"), _three(anchor, "anchor")
        self.release()
        mass = float(np.sum(c.system.kin.mass))
        stiffness = mass * (2 * math.pi * PULL_FREQUENCY) ** 2
        damping = 2 * PULL_DAMPING_RATIO * math.sqrt(stiffness * mass)
        self.edits.add_push(PullElement(c.formulation.system.kin, body, point, anchor, stiffness, damping,
                                        c.current_time()))

    def move_pull(self, anchor) -> None:
        """Move the pulling spring's anchor (the mouse moved); nothing when nothing pulls."""
        element = self._pulling()
        if element is not None:
            element.anchor = _three(anchor, "anchor")
            self.edits.restart_here()  # the force changes between integrator steps, never within one

    def release(self) -> None:
        """Let go: the pull ends at the current time."""
        element = self._pulling()
        if element is not None:
            element.t_stop = max(self.course.current_time(), element.t_start)
            self.edits.restart_here()

    def pull_anchor(self):
        """(world point of the pulled body point, anchor) of the current pull, or None."""
        element = self._pulling()
        if element is None:
            return None
        c = self.course
        q, _ = c.sample_state(c.samples[-1])
        P = _world_point(c.system.kin, c.system.kin.positions(q), element.body, element.point)
        return P, element.anchor.copy()

    def continue_from(self, row, model=None, models=None) -> None:
        """Go on from a sample row as `samples()` gives it (t, q, u, …) — one kept by the window,
        earlier or later than the current time: the samples after its time are dropped (so are
        pulls and pushes started after it, and parameters set after it: those in force at its
        time come back), it becomes the latest sample, the run goes on from it. `model`: go on
        with this model's parameters instead; `models`: the parameter history to take back
        (`model_history()` as it was: the window putting back a run it had dropped), its latest
        model in force from the row on."""
        c = self.course
        row = np.asarray(row, dtype=float).ravel()
        if row.size != len(c.columns) or not np.all(np.isfinite(row)):
            raise ModelError("row", f"must be a finite sample row of {len(c.columns)} columns")
        t = float(row[0])
        if not 0.0 <= t <= c.settings.t_end:
            raise ModelError("row", f"t = {t:.6g} s is outside the run (0 … {c.settings.t_end:g} s)")
        q, u = c.sample_state(row)
        eps = c.time_eps()
        before, history = c.samples, c.history.items()
        c.back_to(t)
        f = c.formulation
        # the row itself is the latest sample while it is evaluated (absolute coordinates take the
        # joint angles' branch from the latest sample)
        c.samples = [r for r in before if r[0] <= t - eps] + [row]
        try:
            y = f.initial_state(q, f.model_to_own(q, u))
            c.samples[-1] = self._sample(t, y)
        except _POSE_ERRORS as err:
            c.samples = before
            c.history = ModelHistory.of(history)
            c.switch_to(*c.history.latest.parts())
            raise ModelError("row", f"the run cannot go on from this sample: {err}") from None
        c.failure = None
        self._restart(t, y)
        if models is not None:
            self._take_history(list(models))
        elif model is not None and model != c.model:
            self.edits.continue_with(model, "model")

    def _take_history(self, items: list) -> None:
        """The parameter history `items` ((start, model), …) becomes the run's: its latest model is
        in force from now on; the earlier stretches are built when a sample of theirs is evaluated
        (those this run had are reused)."""
        if not items:
            raise ModelError("models", "an empty parameter history")
        c = self.course
        latest = items[-1][1]
        if latest != c.model:
            self.edits.continue_with(latest, "models")
        known = [stretch for _start, stretch in c.history.items()]
        stretches = []
        for start, model in items[:-1]:
            same = next((s for s in known if s.model == model), None)
            stretches.append((start, same if same is not None else Stretch(model, build=self.edits.built)))
        c.history = ModelHistory.of([*stretches, (items[-1][0], c.history.latest)])

    # --- helpers -----------------------------------------------------------------------------

    def _pulling(self) -> PullElement | None:
        c = self.course
        t = c.current_time()
        for element in reversed(c.pushes):
            if isinstance(element, PullElement) and element.t_stop > t + c.time_eps():
                return element
        return None

    def _body_named(self, body: str) -> None:
        names = self.course.system.body_names
        if body not in names:
            raise ModelError("body", f"no body named {body!r} (bodies: {', '.join(names)})")


def _three(value, name: str) -> np.ndarray:
    try:
        v = np.array(value, dtype=float).ravel()
    except (TypeError, ValueError):
        raise ModelError(name, f"must be 3 numbers, got {value!r}") from None
    if v.size != 3 or not np.all(np.isfinite(v)):
        raise ModelError(name, f"must be 3 finite numbers, got {value!r}")
    return v
