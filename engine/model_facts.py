"""Facts about a model that the window puts into words (compare mode, the energy read-outs):
its sizes, its constraint rows per level, its independent speeds and whether its energy is
conserved. The window asks here rather than counting anything itself.

    facts = model_facts(preset("four_bar"))
    facts.independent_speeds, facts.holonomic_rows     # 1, 2
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from eomlab.engine.constraints import ACCELERATION, HOLONOMIC, VELOCITY
from eomlab.engine.formulations import make_formulation
from eomlab.engine.model import Model
from eomlab.engine.mechanics.system import build_system


@dataclass(frozen=True)
class ModelFacts:
    coordinates: int  # n_q, of the coordinates integrated
    speeds: int  # n_u
    holonomic_rows: int
    velocity_rows: int  # first-order (nonholonomic) rows
    acceleration_rows: int  # second-order rows
    #: speeds left free by the holonomic and first-order rows at the initial state (rank-revealing)
    independent_speeds: int
    #: no damping, efforts, loads or rheonomic rows: E = T + V is a constant of the motion
    conservative: bool

    @property
    def constrained(self) -> bool:
        return bool(self.holonomic_rows or self.velocity_rows or self.acceleration_rows)


def model_facts(model: Model, coordinates: str | None = None) -> ModelFacts:
    """The facts of `model` in `coordinates` (default: its settings')."""
    system = build_system(model, coordinates)
    stack = system.constraints
    level = stack.level if stack is not None else np.zeros(0, int)
    kane = make_formulation("kane", system, model.settings)  # its partition is the rank-revealing one
    kane.choose_partition(0.0, system.q0)
    return ModelFacts(coordinates=system.n_q, speeds=system.n_u,
                      holonomic_rows=int(np.sum(level == HOLONOMIC)), velocity_rows=int(np.sum(level == VELOCITY)),
                      acceleration_rows=int(np.sum(level == ACCELERATION)), independent_speeds=len(kane.indep),
                      conservative=bool(system.conservative))


def conservative(model: Model, coordinates: str | None = None) -> bool:
    """Whether E = T + V is a constant of the motion of `model` (no damping, efforts, loads or
    rheonomic rows): the system alone, no formulation built."""
    return bool(build_system(model, coordinates).conservative)
