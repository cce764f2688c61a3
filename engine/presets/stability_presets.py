"""Presets for linearization (engine.linearize): the benchmark bicycle, the sleeping top and a
double pendulum of point masses, each at an equilibrium or a steady motion."""
from __future__ import annotations

import math

from eomlab.engine.model import GROUND, Model, RollingDisk, Settings, Shape, as_mat3
from eomlab.engine.rotations import axis_angle_matrix
from eomlab.engine.presets.parts import HANG_DOWN, PLANAR_GRAVITY, SPATIAL_GRAVITY, X_AXIS, Z_AXIS, _body, _joint, _point

#: Meijaard, Papadopoulos, Ruina and Schwab, Proc. R. Soc. A 463 (2007) 1955–1982, Table 1, in
#: the paper's axes (x forward, y right, z down; lengths in m, masses in kg, inertias in kg m²)
BENCHMARK = {
    "w": 1.02, "c": 0.08, "lam": math.pi / 10.0, "g": 9.81,
    "rR": 0.3, "mR": 2.0, "IRxx": 0.0603, "IRyy": 0.12,
    "xB": 0.3, "zB": -0.9, "mB": 85.0, "IBxx": 9.2, "IByy": 11.0, "IBzz": 2.8, "IBxz": 2.4,
    "xH": 0.9, "zH": -0.7, "mH": 4.0, "IHxx": 0.05892, "IHyy": 0.06, "IHzz": 0.00708, "IHxz": -0.00756,
    "rF": 0.35, "mF": 3.0, "IFxx": 0.1405, "IFyy": 0.28,
}

# a wheel's body z is its axle: the joint frame turns the parent's y onto it
_AXLE_ALONG_Y = as_mat3(axis_angle_matrix(X_AXIS, -math.pi / 2))


def _flip(ixx: float, iyy: float, izz: float, ixz: float) -> tuple:
    """An inertia of the paper's axes (x forward, y right, z down) in ours (x forward, y left,
    z up): the turn by π about x keeps Ixx, Iyy, Izz and changes the sign of Ixz."""
    return ((ixx, 0.0, -ixz), (0.0, iyy, 0.0), (-ixz, 0.0, izz))


def benchmark_bicycle(speed: float = 5.0) -> Model:
    """The Whipple bicycle of the benchmark (Meijaard et al. 2007, Table 1) running straight and
    upright at `speed` m/s: a rear frame on a free joint (x, y, z, yaw, roll, pitch: Euler
    sequence zxy as in the paper), the rear wheel, the front frame on the steer axis and the
    front wheel, each wheel a rolling disk on z = 0. Gravity −z, x forward, y left.

    `roll` is the paper's φ (a turn about the forward axis) and `steer` its δ (about the steer
    axis pointing down), so the linearized roll and steer equations are the paper's eq. (5.4).
    """
    p = BENCHMARK
    w, c, lam, rR, rF = p["w"], p["c"], p["lam"], p["rR"], p["rF"]
    v = float(speed)
    rear = _body("rear", GROUND,
                 _joint("rear", "free", q0=(0.0, 0.0, rR, 0.0, 0.0, 0.0), u0=(v, 0.0, 0.0, 0.0, 0.0, 0.0),
                        sequence="zxy", speeds="euler", names=("x", "y", "z", "yaw", "roll", "pitch")),
                 p["mB"], com=(p["xB"], 0.0, -p["zB"] - rR),
                 inertia=_flip(p["IBxx"], p["IByy"], p["IBzz"], p["IBxz"]), shape=Shape(kind="point"))
    rear_wheel = _body("rear_wheel", "rear",
                       _joint("rear_wheel", "revolute", u0=(v / rR,), axis=Z_AXIS, rotation=_AXLE_ALONG_Y),
                       p["mR"], inertia=(p["IRxx"], p["IRxx"], p["IRyy"]), shape=Shape(kind="disk", radius=rR))
    steer_axis = (math.sin(lam), 0.0, -math.cos(lam))  # pointing down, as the paper's δ turns
    front = _body("front", "rear",
                  _joint("front", "revolute", axis=steer_axis, at=(w + c, 0.0, -rR), names=("steer",)),
                  p["mH"], com=(p["xH"] - w - c, 0.0, -p["zH"]),
                  inertia=_flip(p["IHxx"], p["IHyy"], p["IHzz"], p["IHxz"]), shape=Shape(kind="point"))
    front_wheel = _body("front_wheel", "front",
                        _joint("front_wheel", "revolute", u0=(v / rF,), axis=Z_AXIS, at=(-c, 0.0, rF),
                               rotation=_AXLE_ALONG_Y),
                        p["mF"], inertia=(p["IFxx"], p["IFxx"], p["IFyy"]), shape=Shape(kind="disk", radius=rF))
    contacts = (RollingDisk("rear_contact", "rear_wheel", radius=rR, axis=Z_AXIS),
                RollingDisk("front_contact", "front_wheel", radius=rF, axis=Z_AXIS))
    return Model(name="benchmark bicycle (Meijaard et al. 2007)", gravity=(0.0, 0.0, -p["g"]),
                 bodies=(rear, rear_wheel, front, front_wheel), constraints=contacts,
                 settings=Settings(method="kane", t_end=5.0))


def sleeping_top(mass: float = 0.5, height: float = 0.05, radius: float = 0.04, spin: float = 150.0) -> Model:
    """A disk top spinning upright on its fixed tip (a steady motion): spherical joint, Euler
    sequence xyz (upright is far from its gimbal lock), body-rate speeds, the spin about body z.

    Upright spinning is stable above the critical spin ω² = 4 m g l I₁ / I₃² (I₁ the transverse
    moment about the tip, I₃ the axial one); with the defaults ω_c ≈ 94.3 rad/s.
    """
    shape = Shape(kind="disk", radius=float(radius))
    moments = (0.25 * mass * radius ** 2, 0.25 * mass * radius ** 2, 0.5 * mass * radius ** 2)
    joint = _joint("top", "spherical", u0=(0.0, 0.0, float(spin)), sequence="xyz", speeds="body")
    top = _body("top", GROUND, joint, mass, com=(0.0, 0.0, float(height)), inertia=moments, shape=shape)
    return Model(name="sleeping top", gravity=SPATIAL_GRAVITY, bodies=(top,), settings=Settings(t_end=5.0))


def double_pendulum_points(length: float = 1.0, mass: float = 1.0) -> Model:
    """Two equal point masses on massless links of equal length, hanging at rest: its normal
    modes are ω² = (2 ∓ √2) g / l (angles from the downward vertical)."""
    upper = _body("upper", GROUND, _joint("upper", "revolute", axis=Z_AXIS, rotation=HANG_DOWN), mass,
                  com=(float(length), 0.0, 0.0), shape=_point())
    lower = _body("lower", "upper", _joint("lower", "revolute", axis=Z_AXIS, at=(float(length), 0.0, 0.0)), mass,
                  com=(float(length), 0.0, 0.0), shape=_point())
    return Model(name="double pendulum of point masses", gravity=PLANAR_GRAVITY, bodies=(upper, lower))
