"""RunView: what a window asks the engine about a run it does not hold (the run lives in a worker).

The window keeps only the run's sample rows and the parameter history the run sends with each
edit's answer (`Simulation.model_history()`); this one object answers, for any of those rows, the
pose (`frame`) and the quantities the arrows read (`quantities()`: a `RunQuantities`), each with the
parameters in force at the row's time, and the pose of a model before any run (`initial_frame`).

    view = RunView(model, method="kane")
    view.take_history(sim.model_history())     # after an edit: the run's own history
    view.frame(row, pose_columns)               # the pose of a kept sample row
    view.quantities().constraint_forces(row)
"""
from __future__ import annotations

from eomlab.engine.model import Model
from eomlab.engine.run.frames import Frame, PoseMap, initial_frame as _initial_frame
from eomlab.engine.run.model_history import ModelHistory
from eomlab.engine.run.quantities import RunQuantities


class RunView:
    """The engine's answers about the rows of one run: `model` is the run's model (its first
    stretch until the run sends its history), `method` its formulation (None: the model's)."""

    def __init__(self, model: Model, method: str | None = None):
        self.method = method
        self.models = ModelHistory(model)
        self._poses: dict[int, tuple[Model, PoseMap]] = {}  # id(model) → (model, its pose map)
        self._quantities: RunQuantities | None = None

    @staticmethod
    def initial_frame(model: Model) -> Frame:
        """The model's pose at t = 0 with q0 as given, before any run (constraints not enforced)."""
        return _initial_frame(model)

    @property
    def latest(self) -> Model:
        """The model the run goes on with."""
        return self.models.latest

    def model_at(self, t: float) -> Model:
        """The model the run integrated with at time t."""
        return self.models.at(t)

    def take_history(self, items) -> bool:
        """The run's parameter history ((start, model), …, the first from −inf) as it sent it; a
        model equal to one known is kept as the object known (so what depends on it stays). True
        when the history changed."""
        known = [model for _start, model in self.models.items()]
        items = [(float(start), next((m for m in known if m == model), model)) for start, model in items]
        if items == self.models.items():
            return False
        self.models = ModelHistory.of(items)
        self._quantities = None
        return True

    def frame(self, row, pose_columns: tuple[int, int]) -> Frame:
        """The pose at a kept sample row (its integrated coordinates in `pose_columns`, (start,
        stop)), with the parameters in force at its time."""
        t = float(row[0])
        model = self.model_at(t)
        known = self._poses.get(id(model))
        if known is None or known[0] is not model:
            known = self._poses[id(model)] = (model, PoseMap(model))
        return known[1].frame(row[slice(*pose_columns)], t)

    def quantities(self) -> RunQuantities:
        """The reader of the run's rows (`SampleQuantities`: forces, velocities, momenta), each row
        evaluated with the parameters in force at its time; made on first use (ModelError,
        ArithmeticError or ValueError when the model cannot be evaluated)."""
        if self._quantities is None:
            first = self.models.items()[0][1]
            self._quantities = RunQuantities(first, method=self.method, models=self.models)
        return self._quantities
