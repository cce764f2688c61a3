"""RunCourse: the state a Simulation shares with its collaborators (engine/run/run_edits.py,
manipulation.py, quantities.py, frames.py), passed to each in its constructor.

It holds what is in force now (model, system, formulation), the stretches of time each set of
parameters was in force over (`history`), the kept sample rows, the pushes and pulls acting, and
the run's failure; and answers what they all ask of it: the current time, a sample's state, the
parameters in force at a time, and going back to a time.
"""
from __future__ import annotations

import numpy as np

from eomlab.engine.forcing.generalized_forces import PushElement
from eomlab.engine.run.model_history import ModelHistory


class Stretch:
    """What a run integrates with over a stretch of its time: a model, and its system and
    formulation, built on first use for a stretch handed back (`Manipulation.continue_from`)."""

    def __init__(self, model, system=None, formulation=None, build=None):
        self.model, self.system, self.formulation, self._build = model, system, formulation, build

    def parts(self) -> tuple:
        """(model, system, formulation)."""
        if self.formulation is None:
            self.system, self.formulation = self._build(self.model)
        return self.model, self.system, self.formulation


class RunCourse:
    """The shared state of one run: `settings` (the run's), `variant` (the Maggi basis), the
    sample layout (`columns`, `state_columns`) and, from `start`, what is in force and kept."""

    def __init__(self, settings, variant: str, model, system, formulation, columns, state_columns):
        self.settings, self.variant = settings, variant
        self.columns, self.state_columns = columns, state_columns
        self.model, self.system, self.formulation = model, system, formulation
        self.samples: list[np.ndarray] = []
        self.pushes: list[PushElement] = []  # pushes and pulls, in the order made (one list, kept)
        self.failure: str | None = None
        self.history = ModelHistory(Stretch(model, system, formulation))

    def start(self) -> None:
        """Back to t = 0 with the parameters in force now: no samples, pushes, stretches or failure."""
        for push in self.pushes:
            if push in self.formulation.system.forces:
                self.formulation.system.forces.remove(push)
        self.pushes.clear()
        self.history = ModelHistory(Stretch(self.model, self.system, self.formulation))
        self.samples = []
        self.failure = None

    # --- what the collaborators ask -------------------------------------------------------------

    def time_eps(self) -> float:
        """Two instants closer than this are one (a push starting at a sample's time acts there)."""
        return 1e-9 * self.settings.dt_out

    def current_time(self) -> float:
        """The time of the latest sample (where every edit acts)."""
        return float(self.samples[-1][0])

    def sample_state(self, row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(q, model speeds u) of a stored sample row."""
        q_columns, u_columns = self.state_columns
        return row[q_columns].copy(), row[u_columns].copy()

    def formulation_at(self, t: float):
        """The formulation of the parameters in force at time t."""
        return self.history.at(t).parts()[2]

    def model_history(self) -> tuple:
        """((start, model), ...), the first from −inf: the parameters in force over the run's time."""
        return tuple((start, stretch.model) for start, stretch in self.history.items())

    def switch_to(self, model, system, formulation) -> None:
        """Integrate with `formulation` (of `model`) from now on; the pushes move to its system."""
        if formulation is not self.formulation:
            formulation.rhs_evals = self.formulation.rhs_evals
        forces = formulation.system.forces
        forces[:] = [f for f in forces if not isinstance(f, PushElement) or any(f is p for p in self.pushes)]
        forces.extend(p for p in self.pushes if not any(f is p for f in forces))
        for push in self.pushes:
            push.kin = system.kin
        self.model, self.system, self.formulation = model, system, formulation
        self.sync_joint_reference()

    def back_to(self, t: float) -> None:
        """Back at time t: the pushes started after it are dropped and the parameters in force at
        t are the run's again (the stretches after it are forgotten)."""
        for push in [p for p in self.pushes if p.t_start > t + self.time_eps()]:
            self.pushes.remove(push)
        self.switch_to(*self.history.keep_until(t).parts())

    def sync_joint_reference(self) -> None:
        """In absolute coordinates: the joint angles' branch near the latest sample's (q0 before the first)."""
        joint = self.formulation.system.joint_coordinates
        if joint is not None:
            joint.reference = self.samples[-1][1:1 + joint.n_q] if self.samples else joint.q0
