"""The built-in models, as functions returning :class:`engine.model.Model`.

Each preset fills in what the loader would (coordinate names, inertia from the shape), so a
preset equals the model loaded back from its file in ``assets/models``. Write those files with

    python -m engine.presets --write assets/models

Conventions: SI units; planar models move in the x-y plane with gravity [0, -9.81, 0] and
revolute axes along z; spatial models have gravity along -z.

Example
-------
>>> model = preset("planar_chain", n=2, kind="point")
>>> model.coordinate_names
('link1_theta', 'link2_theta')
"""
from __future__ import annotations

import argparse
import math
import os
from typing import Callable, Sequence

import numpy as np

from eomlab.engine.model import (
    as_mat3,
    GROUND,
    Body,
    Coincident,
    Distance,
    ExpressionConstraint,
    Joint,
    KnifeEdge,
    Model,
    PointRef,
    Prescribed,
    RollingDisk,
    Settings,
    Shape,
    default_coordinate_names,
    shape_inertia,
)
from eomlab.engine.modelfile import MAX_BODIES, save_model
from eomlab.engine.rotations import EulerSequence, axis_angle_matrix

PLANAR_GRAVITY = (0.0, -9.81, 0.0)
SPATIAL_GRAVITY = (0.0, 0.0, -9.81)
NO_GRAVITY = (0.0, 0.0, 0.0)
ZERO_INERTIA = ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
Z_AXIS = (0.0, 0.0, 1.0)
X_AXIS = (1.0, 0.0, 0.0)
Y_AXIS = (0.0, 1.0, 0.0)
#: joint frame turned so that a revolute angle is measured from the downward vertical (-y)
HANG_DOWN = as_mat3(axis_angle_matrix(Z_AXIS, -math.pi / 2))


# --- building blocks -----------------------------------------------------------------------


def _joint(body: str, type: str, q0: Sequence[float] = (), u0: Sequence[float] = (),
           names: Sequence[str] | None = None, **fields) -> Joint:
    """A joint with the loader's defaults: zero q0/u0 and ``<body>_<dof>`` names."""
    draft = Joint(type=type, **fields)
    dof = draft.dof
    q0 = tuple(float(v) for v in q0) or (0.0,) * draft.n_coordinates
    u0 = tuple(float(v) for v in u0) or (0.0,) * dof
    names = tuple(names) if names is not None else default_coordinate_names(body, draft)
    return Joint(type=type, q0=q0, u0=u0, names=names, **fields)


def _body(name: str, parent: str, joint: Joint, mass: float, com=(0.0, 0.0, 0.0),
          shape: Shape | None = None, inertia=None) -> Body:
    """A body whose inertia defaults, as in a file, to the shape's (zero without a shape)."""
    if inertia is None:
        inertia = shape_inertia(shape, mass) if shape else ZERO_INERTIA
    elif len(inertia) == 3 and not isinstance(inertia[0], (tuple, list)):
        inertia = _diagonal(inertia)
    return Body(name=name, parent=parent, joint=joint, mass=float(mass),
                com=tuple(float(c) for c in com), inertia=inertia, shape=shape)


def _diagonal(moments) -> tuple:
    a, b, c = (float(m) for m in moments)
    return ((a, 0.0, 0.0), (0.0, b, 0.0), (0.0, 0.0, c))


def _rod(length: float) -> Shape:
    return Shape(kind="rod", length=float(length))


def _point() -> Shape:
    return Shape(kind="point")


def _box(a: float, b: float, c: float) -> Shape:
    return Shape(kind="box", size=(float(a), float(b), float(c)))


def euler_matrix(sequence: str, angles: Sequence[float]) -> np.ndarray:
    """R = R_a(psi) R_b(theta) R_c(phi) for the sequence "abc" (MODEL_FORMAT.md)."""
    return EulerSequence(sequence).matrix(angles)


# --- planar pendulums and chains -----------------------------------------------------------


def planar_chain(n: int = 3, kind: str = "rod", length: float = 1.0, mass: float = 1.0,
                 angles: float | Sequence[float] = 0.5) -> Model:
    """A chain of `n` links hanging from the ground on revolute joints about z.

    Parameters
    ----------
    n : int
        Number of links, 1 to 1000.
    kind : {"rod", "point"}
        Uniform rods (mass centre mid-link, inertia of a rod) or point masses at the link ends
        on massless links.
    length, mass : float
        Of every link.
    angles : float or sequence of float
        Initial joint angles. As in seed 004 each angle is relative to the previous link and
        0 means the link points along +x (hanging straight down is -pi/2 for the first link).
        A single number turns the first joint only: a straight chain released at that angle.
    """
    if not 1 <= n <= MAX_BODIES:
        raise ValueError(f"a chain has 1 to {MAX_BODIES} links, got {n}")
    if kind not in ("rod", "point"):
        raise ValueError(f"kind must be 'rod' or 'point', got {kind!r}")
    q0 = _chain_angles(angles, n)
    bodies = []
    for i in range(n):
        name = f"link{i + 1}"
        parent = GROUND if i == 0 else f"link{i}"
        at = (0.0, 0.0, 0.0) if i == 0 else (float(length), 0.0, 0.0)
        joint = _joint(name, "revolute", q0=(q0[i],), axis=Z_AXIS, at=at)
        if kind == "rod":
            body = _body(name, parent, joint, mass, com=(length / 2, 0.0, 0.0), shape=_rod(length))
        else:
            body = _body(name, parent, joint, mass, com=(length, 0.0, 0.0), shape=_point())
        bodies.append(body)
    return Model(name=f"planar chain of {n} {kind}{'s' if n > 1 else ''}", gravity=PLANAR_GRAVITY,
                 bodies=tuple(bodies))


def _chain_angles(angles: float | Sequence[float], n: int) -> tuple[float, ...]:
    if isinstance(angles, (int, float)):
        return (float(angles),) + (0.0,) * (n - 1)
    values = tuple(float(a) for a in angles)
    if len(values) != n:
        raise ValueError(f"expected {n} angles, got {len(values)}")
    return values


def simple_pendulum(length: float = 1.0, mass: float = 1.0, theta0: float = 2.5) -> Model:
    """A point mass on a massless rod.

    The joint frame is turned by -pi/2 about z, so ``bob_theta`` is measured from the downward
    vertical: 0 hangs straight down, pi stands upright (unlike the chains, which measure from +x).
    """
    joint = _joint("bob", "revolute", q0=(theta0,), axis=Z_AXIS, rotation=HANG_DOWN)
    bob = _body("bob", GROUND, joint, mass, com=(length, 0.0, 0.0), shape=_point())
    return Model(name="simple pendulum", gravity=PLANAR_GRAVITY, bodies=(bob,))


def double_compound_pendulum() -> Model:
    """The example file of MODEL_FORMAT.md: two uniform rods (seed 004), angles from +x."""
    rod_inertia = (0.0, 1.0 / 12.0, 1.0 / 12.0)
    upper = _body("upper", GROUND, _joint("upper", "revolute", q0=(2.0,), axis=Z_AXIS),
                  1.0, com=(0.5, 0.0, 0.0), inertia=rod_inertia, shape=_rod(1.0))
    lower = _body("lower", "upper", _joint("lower", "revolute", q0=(0.5,), axis=Z_AXIS, at=(1.0, 0.0, 0.0)),
                  1.0, com=(0.5, 0.0, 0.0), inertia=rod_inertia)
    settings = Settings(method="kane", coordinates="joint", t_end=10.0, dt_out=0.01)
    return Model(name="double compound pendulum", gravity=PLANAR_GRAVITY, bodies=(upper, lower),
                 settings=settings)


def double_pendulum_absolute() -> Model:
    """The double compound pendulum in absolute coordinates (joints become constraints)."""
    model = double_compound_pendulum()
    model = model.with_settings(coordinates="absolute")
    return Model(name="double compound pendulum, absolute coordinates", gravity=model.gravity,
                 bodies=model.bodies, settings=model.settings)


def cart_pendulum(m_cart: float = 1.0, m_bob: float = 0.5, l: float = 1.0, theta0: float = 0.5) -> Model:  # noqa: E741
    """Seed 003's cart with a pendulum: coordinates ``x`` (cart slide) and ``theta``.

    ``theta`` is measured from the downward vertical (joint frame turned -pi/2 about z).
    """
    cart = _body("cart", GROUND, _joint("cart", "prismatic", axis=X_AXIS, names=("x",)),
                 m_cart, shape=_box(0.4, 0.2, 0.2))
    bob_joint = _joint("bob", "revolute", q0=(theta0,), axis=Z_AXIS, rotation=HANG_DOWN, names=("theta",))
    bob = _body("bob", "cart", bob_joint, m_bob, com=(l, 0.0, 0.0), shape=_point())
    return Model(name="cart with pendulum", gravity=PLANAR_GRAVITY, bodies=(cart, bob))


# --- spatial bodies ------------------------------------------------------------------------


def spatial_chain(n: int = 3, length: float = 1.0, mass: float = 1.0) -> Model:
    """A 3-D chain of thin bars on spherical joints, hanging along -z, released tilted and turning.

    Each bar lies along its body x axis. The first joint frame is turned +pi/2 about y so that
    body x points down at zero angles. The Euler sequence is ``zyx`` (azimuth, elevation, twist
    about the bar) rather than ``zxz``: a straight chain is then at zero relative angles, far
    from the sequence's singularity (a 90 degree bend), whereas ``zxz`` is singular exactly at
    zero relative rotation. Speeds are body rates.
    """
    if not 1 <= n <= MAX_BODIES:
        raise ValueError(f"a chain has 1 to {MAX_BODIES} links, got {n}")
    hang = as_mat3(axis_angle_matrix(Y_AXIS, math.pi / 2))
    bodies = []
    for i in range(n):
        name = f"link{i + 1}"
        first = i == 0
        joint = _joint(
            name, "spherical", sequence="zyx", speeds="body",
            q0=(0.5, 0.3, 0.0) if first else (0.2, -0.2, 0.0),
            u0=(0.5, 0.0, 1.0) if first else (0.0, 0.0, 0.0),
            at=(0.0, 0.0, 0.0) if first else (float(length), 0.0, 0.0),
            **({"rotation": hang} if first else {}),
        )
        shape = _box(length, 0.1 * length, 0.1 * length)
        bodies.append(_body(name, GROUND if first else f"link{i}", joint, mass,
                            com=(length / 2, 0.0, 0.0), shape=shape))
    return Model(name=f"spatial chain of {n} bars", gravity=SPATIAL_GRAVITY, bodies=tuple(bodies))


def rigid_body_fixed_point(inertia: Sequence[float] = (1.0, 2.0, 2.5),
                           w0: Sequence[float] = (1.0, 0.1, 0.5), mass: float = 1.0) -> Model:
    """Seed 003's body turning about a fixed point, torque-free: Euler's equations J w' + w x J w = 0.

    The mass centre is at the fixed point and gravity is off. Speeds are the body rates. The
    initial attitude (zxz) puts the angular momentum along the joint frame's z axis, so the
    nutation angle stays away from the sequence's singularity at 0.
    """
    inertia = tuple(float(v) for v in inertia)
    w0 = tuple(float(v) for v in w0)
    momentum = np.array(inertia) * np.array(w0)
    direction = momentum / np.linalg.norm(momentum)
    # zxz: the body components of the joint z axis are (sin th sin ph, sin th cos ph, cos th)
    theta = math.acos(float(np.clip(direction[2], -1.0, 1.0)))
    phi = math.atan2(float(direction[0]), float(direction[1]))
    joint = _joint("body", "spherical", q0=(0.0, theta, phi), u0=w0, sequence="zxz", speeds="body")
    body = _body("body", GROUND, joint, mass, inertia=inertia, shape=_inertia_box(inertia, mass))
    return Model(name="rigid body about a fixed point", gravity=NO_GRAVITY, bodies=(body,))


def tumbling_box(inertia: Sequence[float] = (1.0, 2.0, 3.0), spin: float = 3.0, wobble: float = 0.01,
                 mass: float = 1.0) -> Model:
    """The tennis-racket (Dzhanibekov) flip: a box spun about its intermediate axis (body y) with
    a small wobble turns over and back again and again, torque-free, T and H conserved.

    The attitude is in Euler parameters (orientation "quaternion"): the flips sweep through
    every orientation, where any Euler-angle sequence would meet its gimbal lock.
    """
    inertia = tuple(float(v) for v in inertia)
    joint = _joint("box", "spherical", q0=(1.0, 0.0, 0.0, 0.0), u0=(wobble, spin, wobble), orientation="quaternion")
    body = _body("box", GROUND, joint, mass, inertia=inertia, shape=_inertia_box(inertia, mass))
    return Model(name="tumbling box (intermediate-axis flip)", gravity=NO_GRAVITY, bodies=(body,),
                 settings=Settings(t_end=20.0))


def _inertia_box(inertia: Sequence[float], mass: float) -> Shape:
    """A box with (about) the given principal moments, for drawing."""
    i1, i2, i3 = inertia
    squares = [6.0 * (i2 + i3 - i1), 6.0 * (i1 + i3 - i2), 6.0 * (i1 + i2 - i3)]
    sides = [math.sqrt(max(s, 0.0) / max(mass, 1e-12)) for s in squares]
    smallest = 0.05 * max(sides)
    return _box(*(max(s, smallest) for s in sides))


def heavy_top(mass: float = 1.0, radius: float = 0.5, height: float = 0.5, nutation: float = 0.3,
              spin: float = 40.0) -> Model:
    """A symmetric top: a disk on a massless stem, its tip fixed at the origin, under gravity -z.

    The mass centre sits on the body z (symmetry) axis at `height` from the tip. The joint is
    spherical with sequence zxz, so ``top_theta`` is the nutation angle; the top starts tilted
    by `nutation` and spins fast (`spin`, rad/s, body z rate) about its axis.
    """
    shape = Shape(kind="disk", radius=float(radius))
    joint = _joint("top", "spherical", q0=(0.0, nutation, 0.0), u0=(0.0, 0.0, spin), sequence="zxz", speeds="body")
    top = _body("top", GROUND, joint, mass, com=(0.0, 0.0, height), shape=shape)
    return Model(name="heavy symmetric top", gravity=SPATIAL_GRAVITY, bodies=(top,),
                 settings=Settings(t_end=5.0))


# --- constrained models --------------------------------------------------------------------


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


# --- registry ------------------------------------------------------------------------------

PRESETS: dict[str, Callable[..., Model]] = {
    "double_compound_pendulum": double_compound_pendulum,
    "planar_chain": planar_chain,
    "simple_pendulum": simple_pendulum,
    "cart_pendulum": cart_pendulum,
    "spatial_chain": spatial_chain,
    "rigid_body_fixed_point": rigid_body_fixed_point,
    "heavy_top": heavy_top,
    "tumbling_box": tumbling_box,
    "four_bar": four_bar,
    "cartesian_pendulum": cartesian_pendulum,
    "spherical_pendulum_cartesian": spherical_pendulum_cartesian,
    "knife_edge": knife_edge,
    "chaplygin_sleigh": chaplygin_sleigh,
    "rolling_disk_vertical": rolling_disk_vertical,
    "rolling_disk_leaning": rolling_disk_leaning,
    "acceleration_constraint_particle": acceleration_constraint_particle,
    "driven_crank": driven_crank,
    "double_pendulum_absolute": double_pendulum_absolute,
}
DEFAULT_PRESET = "double_compound_pendulum"


def preset(name: str, **params) -> Model:
    """Build the preset `name` with optional parameters (see each preset's function).

    Raises
    ------
    KeyError
        For an unknown preset name.
    """
    if name not in PRESETS:
        raise KeyError(f"unknown preset {name!r}; presets: {', '.join(PRESETS)}")
    return PRESETS[name](**params)


def write_presets(directory: str) -> list[str]:
    """Save every preset with its default parameters as ``<directory>/<name>.eom.json``."""
    os.makedirs(directory, exist_ok=True)
    written = []
    for name, build in PRESETS.items():
        path = os.path.join(directory, f"{name}.eom.json")
        save_model(build(), path)
        written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.presets", description=__doc__.split("\n")[0])
    parser.add_argument("--write", metavar="DIRECTORY", help="write every preset as DIRECTORY/<name>.eom.json")
    args = parser.parse_args(argv)
    if args.write:
        for path in write_presets(args.write):
            print(path)
    else:
        print("\n".join(PRESETS))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
