"""Refusals and cancellation of a symbolic derivation.

A derivation is slow compared with the numeric engine, so it checks a size guard before it
starts and a cancel flag between its steps: the GUI's worker can stop it and a too large
model gets a clear message instead of a hang.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field

import sympy as sp

from eomlab.engine.model import ModelError

#: most degrees of freedom (joint coordinates) we derive symbolically
DOF_LIMIT = 12
#: most operations in the mass-centre positions before the derivation refuses
OPERATION_LIMIT = 4000
#: up to this many coordinates the expressions are simplified (trigsimp pays off)
SIMPLIFY_DOF_LIMIT = 4


class SymbolicTooLarge(ModelError):
    """The model is too large to derive its equations symbolically in reasonable time."""

    def __init__(self, message: str):
        super().__init__("", message)


class DerivationCancelled(Exception):
    """The caller set the cancel event while the derivation was running."""


@dataclass
class Progress:
    """Cancel flag plus the name of the current step (for messages and the GUI)."""

    cancel: threading.Event | None = None
    step: str = ""
    steps: list[str] = field(default_factory=list)

    def checkpoint(self, step: str) -> None:
        """Called between steps: record the step, stop if cancelled."""
        self.step = step
        self.steps.append(step)
        if self.cancel is not None and self.cancel.is_set():
            raise DerivationCancelled(f"symbolic derivation cancelled before {step!r}")


def check_dof(n_dof: int) -> None:
    if n_dof > DOF_LIMIT:
        raise SymbolicTooLarge(
            f"model too large for symbolic derivation: {n_dof} degrees of freedom "
            f"(limit {DOF_LIMIT}); the numeric engine runs it, only the printed equations are refused")


def check_operations(n_ops: int, n_dof: int) -> None:
    if n_ops > OPERATION_LIMIT:
        raise SymbolicTooLarge(
            f"model too large for symbolic derivation: {n_dof} degrees of freedom, the mass-centre "
            f"positions alone take {n_ops} operations (limit {OPERATION_LIMIT})")


#: most operations in one constraint row at velocity level: its time derivative, simplified, takes sympy
#: minutes beyond it (the benchmark bicycle's contact rows: 3438; a rolling disk's: 481)
CONSTRAINT_ROW_LIMIT = 1500


def check_constraint_row(name: str, n_ops: int) -> None:
    if n_ops > CONSTRAINT_ROW_LIMIT:
        raise SymbolicTooLarge(
            f"model too large for symbolic derivation: the constraint row {name!r} takes {n_ops} operations at "
            f"velocity level (limit {CONSTRAINT_ROW_LIMIT}); the numeric engine runs it, only the printed "
            "equations are refused")


#: constraint rows longer than this are shown, but not reduced symbolically (partition, C, reduced equations)
CONSTRAINT_OPERATION_LIMIT = 3000


#: a block of more than 3 constraint rows is inverted by LU, which grows fast: beyond this many operations in
#: A it is left to the numeric engine (the cardan shaft's 4 × 4 rows, 570 operations, took sympy minutes)
LU_OPERATION_LIMIT = 200


def constraints_too_long(A, b) -> bool:
    """True when the symbolic reduction would explode (a rolling disk in body rates; four loop rows or more)."""
    size = operation_count(A)
    return size + operation_count(b) > CONSTRAINT_OPERATION_LIMIT or (A.rows > 3 and size > LU_OPERATION_LIMIT)


def operation_count(value) -> int:
    """About sympy's count_ops (one per operator joining the terms of a sum or the factors of a
    product, one per power and per function), counted by walking the expression tree: count_ops
    applies visual rules (subtraction, division) that make it the slowest step of printing a
    6-link chain's page."""
    if isinstance(value, str):
        return 0
    stack = list(value) if isinstance(value, sp.MatrixBase) else [value]
    count = 0
    while stack:
        args = stack.pop().args
        if args:
            count += max(len(args) - 1, 1)
            stack.extend(args)
    return count
