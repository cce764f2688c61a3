"""What a run's process sends for the arrows at its latest sample: the values the engine computed there, or
why it could not (`Refused`), read by the window as it reads a local run's quantities."""
from __future__ import annotations

from dataclasses import dataclass

from eomlab.engine.model import ModelError


@dataclass(frozen=True)
class Refused:
    """What a run's process sends for a reader the engine could not compute there: a ModelError's
    field and message (path None: a numeric failure), sent as plain data (ModelError does not
    pickle through its own constructor)."""

    path: str | None
    message: str

    @classmethod
    def of(cls, error: Exception) -> "Refused":
        return cls(error.path, error.message) if isinstance(error, ModelError) else cls(None, str(error))

    def error(self) -> Exception:
        return ValueError(self.message) if self.path is None else ModelError(self.path, self.message)


class SentQuantities:
    """The quantities a run's own process computed at its latest sample for the arrows (gui/runs/run_thread.py
    `quantities`), read as the engine's `RunView.quantities()` reads rows: the window then only draws them."""

    def __init__(self, values: dict):
        self.values = values

    def __getattr__(self, method: str):
        try:
            value = self.__dict__["values"][method]
        except KeyError:
            raise AttributeError(method) from None
        if isinstance(value, Refused):  # what the engine said there: arrow_sets names it

            def refused(_row):
                raise value.error()

            return refused
        return lambda _row: value
