"""Linearization of a model's equations of motion about an equilibrium or a steady motion
(`linearize`), and eigenvalues against a parameter (`vary`)."""
from __future__ import annotations

from .analysis import Linearization, Mode, linearize
from .motion import ModeMotion

__all__ = ["Linearization", "Mode", "ModeMotion", "linearize"]
