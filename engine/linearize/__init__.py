"""Linearization of a model's equations of motion about an equilibrium or a steady motion
(`linearize`), and eigenvalues against a parameter (`vary`)."""
from __future__ import annotations

from eomlab.engine.linearize.linearization import Linearization, Mode, linearize
from eomlab.engine.linearize.motion import ModeMotion

__all__ = ["Linearization", "Mode", "ModeMotion", "linearize"]
