"""What the window and a run say to each other: one frozen dataclass per message.

Controls go from the window to the run (`RunThread`'s methods make them; in a child process they
travel through the pipe): `SetRunning`, `StepBy`, `SetSpeed`, `Stop`, `WantQuantities`, `Record`,
and the edits. Each edit names its fields and says which `EditKind` it is; `apply_edit` makes it
on the Simulation (one handler per edit type). Replies go from the run to the window: `Ready`,
`Batch`, `Failed`, `Crashed`, `Done`, `Edited`, `EditRefused`, `Quantities`, `Stats` and, from a
child process, `End`. `RunThread` applies a control by its type (`RunThread._take`) and turns each
reply into its Qt signal through one table (gui/runs/run_thread.py), so nothing is looked up by a
name carried in a message.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum, auto
from functools import singledispatch
from typing import Any, ClassVar

import numpy as np


# --- edits: what the window changes in a run, at the instant it shows ---------------------------

class EditKind(StrEnum):
    """Which edit a run made (`Session.edited` says it; ``EditKind.DRAG_TO == "drag_to"``)."""

    SET_PARAMETER = auto()
    DRAG_TO = auto()
    PULL = auto()
    MOVE_PULL = auto()
    RELEASE = auto()
    CONTINUE_FROM = auto()


class Edit:
    """An edit of a run (the base of the edit dataclasses below)."""

    kind: ClassVar[EditKind]


@dataclass(frozen=True)
class SetParameter(Edit):
    """A numeric parameter of the model (``bodies[1].mass``) set to `value` from now on."""

    kind: ClassVar[EditKind] = EditKind.SET_PARAMETER
    path: str
    value: Any


@dataclass(frozen=True, eq=False)
class DragTo(Edit):
    """Pose the mechanism so that `point` of `body` (body frame) comes near the world point
    `target`; the run goes on from there at rest."""

    kind: ClassVar[EditKind] = EditKind.DRAG_TO
    body: str
    point: Any
    target: Any


@dataclass(frozen=True, eq=False)
class Pull(Edit):
    """Start pulling `point` of `body` towards the world point `anchor` with a spring."""

    kind: ClassVar[EditKind] = EditKind.PULL
    body: str
    point: Any
    anchor: Any


@dataclass(frozen=True, eq=False)
class MovePull(Edit):
    """The pulling spring's anchor moved (the mouse moved)."""

    kind: ClassVar[EditKind] = EditKind.MOVE_PULL
    anchor: Any


@dataclass(frozen=True)
class Release(Edit):
    """Let go of the pulling spring."""

    kind: ClassVar[EditKind] = EditKind.RELEASE


@dataclass(frozen=True, eq=False)
class ContinueFrom(Edit):
    """Go on from a kept sample `row` (later samples dropped). `models`: the run's parameter history
    to take back (`(start, model)` pairs, `Simulation.model_history()`), its latest in force from
    the row on — an undone "continue from here"; None: those in force at the row's time.
    `put_back`: rows the window drops and keeps again before the row (they left the run's memory;
    the run hands them back in its answer)."""

    kind: ClassVar[EditKind] = EditKind.CONTINUE_FROM
    row: np.ndarray
    models: tuple | None = None
    put_back: np.ndarray | None = None


@singledispatch
def apply_edit(edit: Edit, sim) -> None:
    """Make `edit` on the Simulation `sim` (ModelError when it is refused)."""
    raise TypeError(f"not an edit of a run: {edit!r}")


@apply_edit.register
def _(edit: SetParameter, sim) -> None:
    sim.set_parameter(edit.path, edit.value)


@apply_edit.register
def _(edit: DragTo, sim) -> None:
    sim.drag_to(edit.body, edit.point, edit.target)


@apply_edit.register
def _(edit: Pull, sim) -> None:
    sim.pull(edit.body, edit.point, edit.anchor)


@apply_edit.register
def _(edit: MovePull, sim) -> None:
    sim.move_pull(edit.anchor)


@apply_edit.register
def _(edit: Release, sim) -> None:
    sim.release()


@apply_edit.register
def _(edit: ContinueFrom, sim) -> None:
    sim.continue_from(edit.row, models=edit.models)


# --- controls: the window to the run ------------------------------------------------------------

@dataclass(frozen=True)
class SetRunning:
    running: bool


@dataclass(frozen=True)
class StepBy:
    """Advance by this many output intervals while paused."""

    samples: int


@dataclass(frozen=True)
class SetSpeed:
    speed: float


@dataclass(frozen=True)
class Stop:
    pass


@dataclass(frozen=True)
class WantQuantities:
    """The `SampleQuantities` readers to compute at each batch's last row (the arrows)."""

    readers: tuple[str, ...]


@dataclass(frozen=True)
class Record:
    """A pose at every instant first + k / fps from now on; `grid` None: the recording stopped."""

    grid: tuple[float, float] | None


# --- replies: the run to the window -----------------------------------------------------------

@dataclass(frozen=True)
class Ready:
    """The Simulation exists: what the window needs to know of it, and its first pose."""

    info: Any  # RunInfo (gui/runs/run_thread.py)
    frame: Any


@dataclass(frozen=True, eq=False)
class Batch:
    """Sample rows (k, n_columns; k may be 0) and poses (may be empty), each due now."""

    rows: np.ndarray
    frames: tuple


@dataclass(frozen=True)
class Failed:
    """The integration stopped (its samples are kept) or the model cannot run: why."""

    message: str


@dataclass(frozen=True)
class Crashed:
    """An exception escaped the engine: its message and traceback."""

    message: str


@dataclass(frozen=True)
class Done:
    """t_end reached."""


@dataclass(frozen=True, eq=False)
class Edited:
    """An edit took: which, the run's new latest sample row and its pose, and the run's parameter
    history after it (`(start, model)` pairs: the run owns it, the window reads it). `edit`: the
    edit answered, for what it carries back (`ContinueFrom.put_back`)."""

    edit: Edit
    row: np.ndarray
    frame: Any
    models: tuple


@dataclass(frozen=True)
class EditRefused:
    """An edit could not be made (the run goes on unchanged): why."""

    message: str


@dataclass(frozen=True)
class Quantities:
    """{reader: value} at the sample of time t (what `WantQuantities` asked for)."""

    t: float
    values: dict


@dataclass(frozen=True)
class Stats:
    """The Simulation's cost counters (compare mode)."""

    stats: dict


@dataclass(frozen=True)
class End:
    """A child process's last message: it ended normally."""
