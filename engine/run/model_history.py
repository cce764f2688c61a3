"""Which parameters were in force when: a run whose parameters change while it goes
(`Simulation.set_parameter` at t = 1 s) keeps, for each stretch of time, what it integrated with,
so a sample of the stretch before the edit is evaluated with the parameters it was computed with
(its constraint forces, momenta, pose), and going back to it brings them back.

    history = ModelHistory(model)
    history.add(1.0, heavier)     # from t = 1 s on
    history.at(0.5) is model, history.at(1.0) is heavier
    history.keep_until(0.5)       # back before the edit: the later stretch is dropped
"""
from __future__ import annotations

import bisect
import math

#: a sample at an edit's time, to round-off, is the edit's (its row was recomputed with the new values)
TIME_EPS = 1e-9


class ModelHistory:
    """Stretches of a run's time axis, each with what is in force from its start on (a model, or
    a model with its system and formulation: any object). The first stretch has no start."""

    def __init__(self, first):
        self._starts: list[float] = [-math.inf]
        self._parts: list = [first]

    def __len__(self) -> int:
        return len(self._parts)

    @property
    def latest(self):
        return self._parts[-1]

    def add(self, t: float, part) -> None:
        """`part` is in force from t on (a stretch starting at t or later is replaced)."""
        k = bisect.bisect_left(self._starts, float(t) - TIME_EPS, lo=1)
        del self._starts[k:], self._parts[k:]
        self._starts.append(float(t))
        self._parts.append(part)

    def at(self, t: float):
        """What was in force at time t (an edit at t counts from t on)."""
        return self._parts[bisect.bisect_right(self._starts, float(t) + TIME_EPS) - 1]

    def keep_until(self, t: float):
        """Forget the stretches that start after t (the run goes back to t); what is in force at t."""
        k = bisect.bisect_right(self._starts, float(t) + TIME_EPS)
        del self._starts[k:], self._parts[k:]
        return self._parts[-1]

    def items(self) -> list[tuple[float, object]]:
        """(start, part) of each stretch, the first starting at −inf."""
        return list(zip(self._starts, self._parts))

    @classmethod
    def of(cls, items) -> "ModelHistory":
        """The history with `items()` `items` (a copy kept to go back to)."""
        items = list(items)
        history = cls(items[0][1])
        history._starts, history._parts = [s for s, _ in items], [p for _, p in items]
        return history
