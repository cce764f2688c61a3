"""The cardan shaft: two shafts at an angle joined by a universal (Hooke) joint, the input turned at
constant speed, the output's speed fluctuating twice a turn.

The closed form the preset shows (and its test checks): with the input's yoke pin measured from the
plane of the two shafts by θ_in, the pins of the cross stay perpendicular, which gives
tan θ_out = tan θ_in / cos β and, differentiated,

    ω_out / ω_in = cos β / (1 − sin²β cos²θ_in)

(Hooke's joint, e.g. Wittenburg, *Dynamics of Multibody Systems*, 2nd ed. 2008, §2.2 on the Cardan
joint; Mabie & Reinholtz, *Mechanisms and Dynamics of Machinery*, 4th ed. 1987, §11). It swings
between ω_in cos β and ω_in / cos β.
"""
from __future__ import annotations

import math

import numpy as np

from eomlab.engine.model import GROUND, Coincident, Distance, Model, PointRef, Prescribed, Settings, as_mat3
from eomlab.engine.presets.parts import NO_GRAVITY, X_AXIS, Z_AXIS, _body, _joint, _rod
from eomlab.engine.rotations import axis_angle_matrix

#: the yoke's length along the output axis, and the radius of the key that ties it to the output shaft
YOKE = 0.2
KEY_RADIUS = 0.1
#: the shafts' radius: their inertia is a solid cylinder's, so they have a moment about their own axis
SHAFT_RADIUS = 0.05


def cardan_shaft(beta: float = math.radians(30.0), rate: float = 3.0, length: float = 1.0) -> Model:
    """A shaft along x turned at `rate` (rad/s, a ``prescribed`` motion ``input_theta = rate*t``) drives,
    through a universal joint at the origin, an output shaft in a bearing along a₂ = (cos β, sin β, 0).

    Bodies: ``input`` (revolute about x; its yoke pin, the universal joint's first axis, lies in the
    shafts' plane at θ_in = 0), ``yoke`` (the output's yoke on the cross: a ``universal`` joint on the
    input, ``yoke_theta1`` about the input's pin, ``yoke_theta2`` about the output's pin) and ``output``
    (revolute about a₂ in its bearing). The yoke is fastened to the output shaft: a ``coincident`` in y
    and z keeps its axis on a₂, a ``distance`` (a key at a quarter turn) keeps its turn the output's.
    No degree of freedom is left, so ``output_theta_dot`` follows the closed form above whatever the
    masses; the drive's multiplier is the torque that keeps the input's speed constant. No gravity.
    """
    if not 0.0 <= beta < math.pi / 2:
        raise ValueError("beta must be in [0, pi/2)")
    c, s = math.cos(beta), math.sin(beta)
    tilt = as_mat3(axis_angle_matrix(Z_AXIS, beta))  # joint frames whose x is a₂
    half = length / 2
    input_shaft = _body("input", GROUND, _joint("input", "revolute", u0=(rate,), axis=X_AXIS, at=(0.0, 0.0, 0.0)),
                        1.0, com=(-half, 0.0, 0.0), shape=_rod(length), inertia=_shaft_inertia(1.0, length))
    # the input's pin (its y) in the tilted frame, then the output's pin (z); at θ_in = 0 the yoke turns
    # with ω_out a₂, ω_out = rate / cos β: ω = rate x + θ̇₁ y ⇒ θ̇₁ = rate tan β, θ̇₂ = 0
    yoke = _body("yoke", "input",
                 _joint("yoke", "universal", u0=(rate * s / c, 0.0), axis=(s, c, 0.0), axis2=Z_AXIS, rotation=tilt),
                 0.2, com=(YOKE / 2, 0.0, 0.0), shape=_rod(YOKE), inertia=_shaft_inertia(0.2, YOKE))
    output = _body("output", GROUND, _joint("output", "revolute", u0=(rate / c,), axis=X_AXIS, rotation=tilt),
                   1.0, com=(YOKE + half, 0.0, 0.0), shape=_rod(length), inertia=_shaft_inertia(1.0, length))
    on_axis = Coincident("yoke_on_axis", PointRef("yoke", (YOKE, 0.0, 0.0)), PointRef(GROUND, (YOKE * c, YOKE * s, 0.0)),
                         dims=("y", "z"))
    key = Distance("key", PointRef("yoke", (YOKE, KEY_RADIUS, 0.0)), PointRef("output", (YOKE, 0.0, KEY_RADIUS)),
                   KEY_RADIUS * math.sqrt(2.0))
    drive = Prescribed("drive", "input_theta", f"{_text(rate)}*t")
    return Model(name="cardan shaft", gravity=NO_GRAVITY, bodies=(input_shaft, yoke, output),
                 constraints=(on_axis, key, drive), settings=Settings(t_end=4.0, rtol=1e-10, atol=1e-10))


def output_speed_ratio(beta: float, theta_in):
    """ω_out / ω_in of a Hooke joint at input angle θ_in (from the shafts' plane): cos β / (1 − sin²β cos²θ_in)."""
    return math.cos(beta) / (1.0 - math.sin(beta) ** 2 * np.cos(theta_in) ** 2)


def _shaft_inertia(mass: float, length: float) -> tuple[float, float, float]:
    """A solid cylinder of radius SHAFT_RADIUS along x, about its mass centre."""
    r2 = SHAFT_RADIUS ** 2
    return (mass * r2 / 2, mass * (3 * r2 + length ** 2) / 12, mass * (3 * r2 + length ** 2) / 12)


def _text(value: float) -> str:
    return repr(float(value)) if value != int(value) else str(int(value))

