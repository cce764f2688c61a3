"""Presets with constraints: a four-bar, Cartesian pendulums, knife edges, rolling disks, an
acceleration constraint and a driven crank."""
from __future__ import annotations

import math

import numpy as np

from eomlab.engine.model import (
    GROUND, Coincident, Distance, ExpressionConstraint, KnifeEdge, Model, PointRef, Prescribed, RollingDisk, Shape,
)
from eomlab.engine.presets.parts import (
    PLANAR_GRAVITY, SPATIAL_GRAVITY, X_AXIS, Y_AXIS, Z_AXIS, _body, _box, _joint, _point, _rod, euler_matrix,
)


def four_bar(ground: float = 4.0, crank: float = 1.5, coupler: float = 4.0, rocker: float = 3.0,
             crank_angle: float = math.pi / 2) -> Model:
    """A four-bar linkage (Grashof crank-rocker by default) under gravity.

    Three links hang in series from the ground pivot at the origin; the rocker's tip is tied to
    the second ground pivot ``(ground, 0)`` by a ``coincident`` constraint in x and y. Initial
    angles close the loop (upper assembly), link masses are 1 kg per metre.
    """
    angles = _four_bar_angles(ground, crank, coupler, rocker, crank_angle)
    lengths = (crank, coupler, rocker)
    names = ("crank", "coupler", "rocker")
    bodies = []
    for i, (name, length, angle) in enumerate(zip(names, lengths, angles)):
        at = (0.0, 0.0, 0.0) if i == 0 else (float(lengths[i - 1]), 0.0, 0.0)
        joint = _joint(name, "revolute", q0=(angle,), axis=Z_AXIS, at=at)
        parent = GROUND if i == 0 else names[i - 1]
        bodies.append(_body(name, parent, joint, length, com=(length / 2, 0.0, 0.0), shape=_rod(length)))
    closure = Coincident("closure", PointRef("rocker", (float(rocker), 0.0, 0.0)),
                         PointRef(GROUND, (float(ground), 0.0, 0.0)), dims=("x", "y"))
    return Model(name="four-bar linkage", gravity=PLANAR_GRAVITY, bodies=tuple(bodies), constraints=(closure,))


def _four_bar_angles(ground, crank, coupler, rocker, crank_angle) -> tuple[float, float, float]:
    """Relative joint angles that close the loop: the coupler/rocker joint above the line B-D."""
    b = np.array([crank * math.cos(crank_angle), crank * math.sin(crank_angle)])
    d = np.array([float(ground), 0.0])
    span = float(np.linalg.norm(d - b))
    if not abs(coupler - rocker) <= span <= coupler + rocker:
        raise ValueError("the links cannot close the loop at this crank angle")
    along = (coupler**2 - rocker**2 + span**2) / (2 * span)
    across = math.sqrt(max(coupler**2 - along**2, 0.0))
    unit = (d - b) / span
    normal = np.array([-unit[1], unit[0]])
    c = b + along * unit + across * normal
    coupler_abs = math.atan2(c[1] - b[1], c[0] - b[0])
    rocker_abs = math.atan2(d[1] - c[1], d[0] - c[0])
    return crank_angle, coupler_abs - crank_angle, rocker_abs - coupler_abs


def cartesian_pendulum(length: float = 1.0, mass: float = 1.0, theta0: float = 2.5) -> Model:
    """A pendulum in Cartesian coordinates: a particle on two slides (``x``, ``y``) held at
    `length` from the origin by a ``distance`` constraint.

    The intermediate body ``slider_x`` is massless (a mere frame). The particle starts at rest
    at `theta0` from the downward vertical, on the circle.
    """
    slider = _body("slider_x", GROUND, _joint("slider_x", "prismatic", q0=(length * math.sin(theta0),),
                                              axis=X_AXIS, names=("x",)), 0.0)
    bob_joint = _joint("bob", "prismatic", q0=(-length * math.cos(theta0),), axis=Y_AXIS, names=("y",))
    bob = _body("bob", "slider_x", bob_joint, mass, shape=_point())
    rod = Distance("rod", PointRef(GROUND), PointRef("bob"), float(length))
    return Model(name="pendulum in Cartesian coordinates", gravity=PLANAR_GRAVITY, bodies=(slider, bob),
                 constraints=(rod,))


def spherical_pendulum_cartesian(length: float = 1.0, mass: float = 1.0, polar0: float = 0.8,
                                 speed0: float = 1.5) -> Model:
    """A spherical pendulum as a particle on three slides (``x``, ``y``, ``z``) with a
    ``distance`` constraint to the origin; gravity -z.

    It starts at `polar0` from the downward vertical in the x-z plane, moving along y
    (tangent to the sphere) at `speed0`.
    """
    x0, z0 = length * math.sin(polar0), -length * math.cos(polar0)
    slide_x = _body("slider_x", GROUND, _joint("slider_x", "prismatic", q0=(x0,), axis=X_AXIS, names=("x",)), 0.0)
    slide_y = _body("slider_y", "slider_x",
                    _joint("slider_y", "prismatic", u0=(speed0,), axis=Y_AXIS, names=("y",)), 0.0)
    bob = _body("bob", "slider_y", _joint("bob", "prismatic", q0=(z0,), axis=Z_AXIS, names=("z",)),
                mass, shape=_point())
    rod = Distance("rod", PointRef(GROUND), PointRef("bob"), float(length))
    return Model(name="spherical pendulum in Cartesian coordinates", gravity=SPATIAL_GRAVITY,
                 bodies=(slide_x, slide_y, bob), constraints=(rod,))


def knife_edge(mass: float = 1.0, speed: float = 1.0, turn_rate: float = 0.5,
               offset: float = 0.0, name: str = "knife edge") -> Model:
    """A sled on a plane (``planar`` joint) whose knife edge at the body origin cannot slip
    sideways (``knife_edge`` along body y). Gravity is along -z, normal to the plane, so it does
    no work in-plane. `offset` puts the mass centre ahead of the edge (the Chaplygin sleigh).
    """
    joint = _joint("sled", "planar", u0=(speed, 0.0, turn_rate))
    sled = _body("sled", GROUND, joint, mass, com=(offset, 0.0, 0.0), shape=_box(0.6, 0.3, 0.05))
    edge = KnifeEdge("edge", "sled", (0.0, 0.0, 0.0), Y_AXIS)
    return Model(name=name, gravity=SPATIAL_GRAVITY, bodies=(sled,), constraints=(edge,))


def chaplygin_sleigh(mass: float = 1.0, speed: float = 1.0, turn_rate: float = 0.5, offset: float = 0.5) -> Model:
    """The Chaplygin sleigh: the knife edge at the body origin, the mass centre `offset` ahead."""
    return knife_edge(mass, speed, turn_rate, offset, name="Chaplygin sleigh")


def _rolling_disk_state(radius: float, theta: float, heading_rate: float, spin: float):
    """q0 and body-rate u0 of a free-joint disk (zxz, symmetry axis body z) rolling on z = 0
    with its contact point at the origin, nutation `theta` (pi/2 is upright), heading rate
    `heading_rate` and spin rate `spin` about its axis."""
    rotation = euler_matrix("zxz", (0.0, theta, 0.0))
    axis = rotation[:, 2]
    omega = heading_rate * np.array(Z_AXIS) + spin * axis
    # the centre lies in the disk plane, straight "up" from the contact point
    up = np.array(Z_AXIS) - axis[2] * axis
    centre = radius * up / np.linalg.norm(up)
    velocity = np.cross(omega, centre)  # rolling: the contact point is at rest
    body_rates = rotation.T @ omega
    q0 = (*centre, 0.0, theta, 0.0)
    u0 = (*velocity, *body_rates)
    return tuple(float(v) for v in q0), tuple(float(v) for v in u0)


def _disk_model(name: str, radius: float, mass: float, q0, u0) -> Model:
    joint = _joint("disk", "free", q0=q0, u0=u0, sequence="zxz", speeds="body")
    disk = _body("disk", GROUND, joint, mass, shape=Shape(kind="disk", radius=float(radius)))
    rolling = RollingDisk("rolling", "disk", float(radius), Z_AXIS)
    return Model(name=name, gravity=SPATIAL_GRAVITY, bodies=(disk,), constraints=(rolling,))


def rolling_disk_vertical(radius: float = 0.5, mass: float = 1.0, speed: float = 1.0) -> Model:
    """An upright disk (free joint, zxz nutation pi/2) rolling straight along +x at `speed`.

    The symmetry axis is body z; the ``rolling_disk`` constraint keeps the contact point still.
    """
    q0, u0 = _rolling_disk_state(radius, math.pi / 2, 0.0, -speed / radius)
    return _disk_model("rolling disk, upright", radius, mass, q0, u0)


def rolling_disk_leaning(radius: float = 0.5, mass: float = 1.0, lean: float = 0.3,
                         heading_rate: float = 2.0, gravity: float = 9.81) -> Model:
    """A uniform disk leaning by `lean` from the vertical, rolling steadily round a circle.

    For steady motion (constant nutation theta, heading rate Omega, spin s) the Newton-Euler
    equations about the mass centre give, for a thin uniform disk,
    s = -(5/6) Omega cos(theta) - (2/3) g cos(theta) / (Omega r sin(theta)).
    """
    theta = math.pi / 2 - lean
    spin = -(5.0 / 6.0) * heading_rate * math.cos(theta) - (2.0 / 3.0) * gravity * math.cos(theta) / (
        heading_rate * radius * math.sin(theta))
    q0, u0 = _rolling_disk_state(radius, theta, heading_rate, spin)
    model = _disk_model("rolling disk, leaning on a steady circle", radius, mass, q0, u0)
    return Model(name=model.name, gravity=(0.0, 0.0, -float(gravity)), bodies=model.bodies,
                 constraints=model.constraints)


def acceleration_constraint_particle(mass: float = 1.0) -> Model:
    """A particle on two slides (``x``, ``y``) under gravity -y with the second-order
    (acceleration-level, linear) constraint ``x_ddot + y_ddot = 0``: as it falls it is pushed
    sideways at the same rate. The slide ``slider`` is massless."""
    slider = _body("slider", GROUND, _joint("slider", "prismatic", u0=(1.0,), axis=X_AXIS, names=("x",)), 0.0)
    bob = _body("bob", "slider", _joint("bob", "prismatic", axis=Y_AXIS, names=("y",)), mass, shape=_point())
    rule = ExpressionConstraint("acceleration", "x_ddot + y_ddot", 2)
    return Model(name="particle with an acceleration constraint", gravity=PLANAR_GRAVITY,
                 bodies=(slider, bob), constraints=(rule,))


def driven_crank(crank: float = 1.0, coupler: float = 2.0, rate: float = 2.0) -> Model:
    """A slider-crank driven at constant rate: the crank angle is ``prescribed`` as
    ``rate*t``, the coupler's end is pinned (``coincident`` in x, y) to a slider on a
    prismatic joint along x. Gravity loads crank, coupler and slider, so the drive torque
    (the prescribed constraint's multiplier) varies through the turn."""
    crank_body = _body("crank", GROUND, _joint("crank", "revolute", u0=(rate,), axis=Z_AXIS),
                       1.0, com=(crank / 2, 0.0, 0.0), shape=_rod(crank))
    # crank at 0 and coupler in line: the coupler's end moves straight up, the slider not at all
    coupler_rate = -rate * (crank + coupler) / coupler
    coupler_body = _body("coupler", "crank",
                         _joint("coupler", "revolute", u0=(coupler_rate,), axis=Z_AXIS, at=(float(crank), 0.0, 0.0)),
                         1.0, com=(coupler / 2, 0.0, 0.0), shape=_rod(coupler))
    slider = _body("slider", GROUND, _joint("slider", "prismatic", q0=(crank + coupler,), axis=X_AXIS),
                   0.5, shape=_box(0.3, 0.2, 0.2))
    pin = Coincident("pin", PointRef("coupler", (float(coupler), 0.0, 0.0)), PointRef("slider"), dims=("x", "y"))
    drive = Prescribed("drive", "crank_theta", f"{_number_text(rate)}*t")
    return Model(name="driven slider-crank", gravity=PLANAR_GRAVITY, bodies=(crank_body, coupler_body, slider),
                 constraints=(pin, drive))


def _number_text(value: float) -> str:
    return repr(float(value)) if value != int(value) else str(int(value))
