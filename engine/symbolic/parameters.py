"""The model's numbers as sympy numbers, or as named symbols.

`parameters="numbers"` (default) turns every float of the model into an exact rational when it
is one to 15 digits (0.08333333333333333 -> 1/12, 9.81 -> 981/100), so trigsimp and
cancellation work exactly. `parameters="symbols"` names masses `m_<body>`, gravity `g`,
mass-centre offsets `l_<body>` (when the offset lies along one body axis), hinge offsets
`a_<body>` (likewise) and inertias `J_<body>_xx`...; everything else stays a number.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import sympy as sp

from eomlab.engine.model import Body, Model, ModelError

PARAMETER_MODES = ("numbers", "symbols")
AXES = "xyz"


def exact(value: float) -> sp.Expr:
    """A float as a rational when a small denominator reproduces it, else a sympy Float."""
    value = float(value)
    if value == 0.0:
        return sp.Integer(0)
    fraction = Fraction(value).limit_denominator(10**6)
    if abs(float(fraction) - value) <= 1e-15 * max(1.0, abs(value)):
        return sp.Rational(fraction.numerator, fraction.denominator)
    return sp.Float(value, 17)


def exact_vector(values) -> sp.Matrix:
    return sp.Matrix([exact(v) for v in values])


def exact_matrix(rows) -> sp.Matrix:
    return sp.Matrix([[exact(v) for v in row] for row in rows])


@dataclass
class Parameters:
    """The model's physical numbers in the chosen mode, and which symbols stand for what."""

    mode: str = "numbers"
    values: dict[sp.Symbol, float] = field(default_factory=dict)  # symbol -> the file's number

    def __post_init__(self):
        if self.mode not in PARAMETER_MODES:
            raise ModelError("", f"parameters must be one of {', '.join(PARAMETER_MODES)}, got {self.mode!r}")

    @property
    def symbolic(self) -> bool:
        return self.mode == "symbols"

    def _named(self, name: str, value: float) -> sp.Expr:
        symbol = sp.Symbol(name, positive=True)
        self.values[symbol] = float(value)
        return symbol

    def mass(self, body: Body) -> sp.Expr:
        if self.symbolic and body.mass != 0.0:
            return self._named(f"m_{body.name}", body.mass)
        return exact(body.mass)

    def gravity(self, model: Model) -> sp.Matrix:
        vector = exact_vector(model.gravity)
        if not self.symbolic:
            return vector
        size = sum(float(v) ** 2 for v in model.gravity) ** 0.5
        if size == 0.0:
            return vector
        direction = exact_vector([v / size for v in model.gravity])
        return self._named("g", size) * direction

    def _along_one_axis(self, name: str, vector) -> sp.Matrix:
        """A vector with one nonzero component as ±symbol along that axis."""
        nonzero = [i for i, v in enumerate(vector) if v != 0.0]
        if not self.symbolic or len(nonzero) != 1:
            return exact_vector(vector)
        i = nonzero[0]
        value = float(vector[i])
        result = sp.zeros(3, 1)
        result[i] = sp.sign(value) * self._named(name, abs(value))
        return result

    def com(self, body: Body) -> sp.Matrix:
        return self._along_one_axis(f"l_{body.name}", body.com)

    def hinge(self, body: Body) -> sp.Matrix:
        return self._along_one_axis(f"a_{body.name}", body.joint.at)

    def inertia(self, body: Body) -> sp.Matrix:
        if not self.symbolic:
            return exact_matrix(body.inertia)
        matrix = sp.zeros(3, 3)
        for i in range(3):
            for j in range(i, 3):
                value = float(body.inertia[i][j])
                if value != 0.0:
                    entry = self._named(f"J_{body.name}_{AXES[i]}{AXES[j]}", value) if i == j else \
                        sp.Symbol(f"J_{body.name}_{AXES[i]}{AXES[j]}", real=True)
                    if i != j:
                        self.values[entry] = value
                    matrix[i, j] = matrix[j, i] = entry
        return matrix

    def substitution(self) -> dict[sp.Symbol, sp.Expr]:
        """Symbol -> the file's number (exact), to go from a symbolic result back to numbers."""
        return {s: exact(v) for s, v in self.values.items()}
