"""What each body does at a stored sample: its constraint and applied forces where they act,
mass-centre velocity, angular velocity and angular momentum — for scripts and the window's
arrows. `Simulation` delegates to its `SampleQuantities` (the latest sample by default); a window
whose run lives in a worker reads rows with `RunQuantities` of the run's model and settings (through
the engine's `RunView`).

    sim.advance(0.5)
    sim.constraint_forces()          # [Action(source="joint crank", force=..., at=...), ...]
    sim.angular_momenta(about=[0, 0, 0])
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from eomlab.engine.forcing.action import Action, ActionArrays
from eomlab.engine.forcing.applied_forces import applied_force_arrays
from eomlab.engine.formulations import make_formulation
from eomlab.engine.forcing.joint_forces import constraint_force_arrays, joint_forces_by_body
from eomlab.engine.mechanics.momenta import angular_momenta, angular_velocities, mass_centre_velocities
from eomlab.engine.mechanics.system import build_system


def csv_columns(system, formulation) -> list[str]:
    """t, the joint coordinates and speeds; in absolute coordinates then the poses
    (`<body>.pose_x`…, engine.mechanics.absolute) and their speeds; mass centres, energies, drifts and
    multipliers."""
    cols = ["t"]
    joint = system.joint_coordinates
    if joint is not None:  # absolute coordinates: the joint coordinates, recovered from the poses
        cols += [*joint.coordinate_names, *joint.speed_names]
    cols += [*system.coordinate_names, *system.speed_names]
    for name in system.body_names:
        cols += [f"{name}.x", f"{name}.y", f"{name}.z"]
    cols += ["T", "V", "E", "drift_pos", "drift_vel"]
    return cols + list(formulation.multiplier_names)


def state_columns(system) -> tuple[slice, slice]:
    """The columns of a sample row (`csv_columns`) that hold the integrated coordinates
    and the model's speeds: after t, and in absolute coordinates after the joint columns."""
    joint = system.joint_coordinates
    first = 1 + (len(joint.coordinate_names) + len(joint.speed_names) if joint else 0)
    n_q, n_u = system.n_q, len(system.speed_names)
    return slice(first, first + n_q), slice(first + n_q, first + n_q + n_u)


class SampleQuantities:
    """The quantities at a run's sample rows. `formulation_at(t)`: the formulation of the
    parameters in force at time t (a run whose parameters changed keeps each stretch's);
    `state_columns`: where a row holds q and u; `pushes`: the run's pushes and pulls (a list kept
    by the run), acting at a row's time as they did; `time_eps`: instants that close are one;
    `latest()`: the row read when none is given (None: a row must be given)."""

    def __init__(self, formulation_at, state_columns, pushes=(), time_eps: float = 0.0, latest=None):
        self._formulation_at, self.state_columns = formulation_at, state_columns
        self._pushes, self._time_eps, self._latest = pushes, float(time_eps), latest
        self._cached: tuple | None = None

    def constraint_forces(self, row=None) -> list[Action]:
        """Reactions at the joints and the forces of every constraint, where they act (N, N·m)."""
        arrays = self.constraint_force_arrays(row)
        return list(self._derived("constraint actions", arrays.actions))

    def applied_forces(self, row=None) -> list[Action]:
        """Gravity, springs and dampers, efforts, loads and active pushes, where they act."""
        arrays = self.applied_force_arrays(row)
        return list(self._derived("applied actions", arrays.actions))

    def constraint_force_arrays(self, row=None) -> ActionArrays:
        """`constraint_forces` as rows of arrays (what a picture of all of them reads)."""
        t, evaluation = self._evaluated(row)
        return self._derived("constraint", lambda: constraint_force_arrays(
            evaluation.dynamics.system, evaluation, t, self._time_eps, self.applied_force_arrays(row)))

    def applied_force_arrays(self, row=None) -> ActionArrays:
        """`applied_forces` as rows of arrays."""
        t, evaluation = self._evaluated(row)
        return self._derived("applied", lambda: applied_force_arrays(evaluation.dynamics.system, evaluation, t,
                                                                     self._time_eps))

    def joint_forces(self, row=None) -> np.ndarray:
        """(n_bodies, 3) world forces (N) on each body from its parent through its joint, e.g. a
        pendulum's rod tension (zero for a free joint):

            sim.advance(0.5)
            sim.joint_forces()[0]   # the pivot's pull on the first body
        """
        return joint_forces_by_body(self._evaluated(row)[1].dynamics.system, self.constraint_forces(row))

    def mass_centre_velocities(self, row=None) -> np.ndarray:
        """(n_bodies, 3) world mass-centre velocities (m/s)."""
        return mass_centre_velocities(self._evaluated(row)[1].dynamics.ks)

    def angular_velocities(self, row=None) -> np.ndarray:
        """(n_bodies, 3) world angular velocities (rad/s)."""
        return angular_velocities(self._evaluated(row)[1].dynamics.ks)

    def angular_momenta(self, row=None, about=None) -> np.ndarray:
        """(n_bodies, 3) world angular momenta (kg·m²/s) about the mass centres, or about `about`."""
        evaluation = self._evaluated(row)[1]
        return angular_momenta(evaluation.dynamics.system.kin, evaluation.dynamics.ks, about)

    def _derived(self, name: str, compute):
        """`compute()` once per evaluated sample (a window asks for several arrow kinds per frame)."""
        store = self._cached[3]
        if name not in store:
            store[name] = compute()
        return store[name]

    def _evaluated(self, row):
        """(t, the evaluation of the formulation in force at the sample's time) at a sample row,
        the latest by default; the pushes acting at t act (and are put back as they were)."""
        if row is None and self._latest is None:
            raise ValueError("a sample row is needed: this reader holds none")
        row = np.asarray(self._latest() if row is None else row, float)
        f, t = self._formulation_at(float(row[0])), float(row[0])
        key = (row.tobytes(), len(self._pushes))
        if self._cached is not None and self._cached[0] == key and self._cached[1] is f:
            return self._cached[2]
        q, u = row[self.state_columns[0]], row[self.state_columns[1]]
        eps = self._time_eps
        was = [push.active for push in self._pushes]
        try:
            for push in self._pushes:
                push.active = push.acts_at(t, eps)
            with np.errstate(all="ignore"):
                evaluation = f.evaluate(t, f.initial_state(q, f.model_to_own(q, u)))
        finally:
            for push, active in zip(self._pushes, was):
                push.active = active
        self._cached = (key, f, (t, evaluation), {})
        return t, evaluation


#: the readers a run computes for a window by name (`read_quantity`): each a reader of `SampleQuantities`
READERS = {reader.__name__: reader for reader in (
    SampleQuantities.constraint_forces, SampleQuantities.applied_forces, SampleQuantities.constraint_force_arrays,
    SampleQuantities.applied_force_arrays, SampleQuantities.joint_forces, SampleQuantities.mass_centre_velocities,
    SampleQuantities.angular_velocities, SampleQuantities.angular_momenta)}


def read_quantity(quantities, reader: str, row):
    """`quantities`' reader named `reader` (a key of `READERS`) at a sample row; ValueError for a
    name that is not one."""
    try:
        method = READERS[reader]
    except KeyError:
        raise ValueError(f"no quantity named {reader!r} (readers: {', '.join(READERS)})") from None
    return method(quantities, row)


class RunQuantities(SampleQuantities):
    """`SampleQuantities` of a run held elsewhere (a worker): the same system and formulation,
    read from its sample rows (the columns of `Simulation.columns`). `models`: the run's
    `ModelHistory` of models when its parameters change while it goes (each sample is evaluated
    with the model in force at its time).

        quantities = RunQuantities(model)                 # settings from the model
        quantities.constraint_forces(rows[-1])
    """

    def __init__(self, model, method: str | None = None, coordinates: str | None = None,
                 variant: str | None = None, models=None):
        settings = replace(model.settings, **{k: v for k, v in (("method", method), ("coordinates", coordinates))
                                              if v is not None})
        self.model = model
        self.settings, self._variant = settings, variant or settings.maggi_basis
        self.system = build_system(model, settings.coordinates)
        self.formulation = make_formulation(settings.method, self.system, settings, self._variant)
        self._models = models
        self._formulations = {id(model): (model, self.formulation)}  # per model of the run (kept alive)
        super().__init__(self._formulation_for, state_columns(self.system))

    def _formulation_for(self, t: float):
        model = self._models.at(t) if self._models is not None else self.model
        known = self._formulations.get(id(model))
        if known is None or known[0] is not model:
            system = build_system(model, self.settings.coordinates)
            known = self._formulations[id(model)] = (model, make_formulation(self.settings.method, system,
                                                                               self.settings, self._variant))
        return known[1]
