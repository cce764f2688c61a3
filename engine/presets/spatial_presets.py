"""Spatial presets: a 3-D chain, free rigid bodies and the heavy top (gravity −z)."""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from eomlab.engine.model import GROUND, Model, Settings, Shape, as_mat3
from eomlab.engine.modelfile import MAX_BODIES
from eomlab.engine.rotations import axis_angle_matrix
from eomlab.engine.presets.parts import NO_GRAVITY, SPATIAL_GRAVITY, Y_AXIS, _body, _box, _joint


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
    """Kane's classic body turning about a fixed point (Kane & Levinson 1985), torque-free: Euler's equations J w' + w x J w = 0.

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
