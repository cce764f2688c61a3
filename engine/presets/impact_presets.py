"""Presets with unilateral constraints (engine.unilateral): a pendulum striking a stop, a bouncing ball,
Newton's cradle and a double pendulum with joint limits (gravity −y, revolute axes along z)."""
from __future__ import annotations

import math
from dataclasses import replace

from eomlab.engine.model import GROUND, Contact, Model, Settings, Shape, Sphere
from eomlab.engine.presets.parts import HANG_DOWN, PLANAR_GRAVITY, Z_AXIS, _body, _joint, _point
from eomlab.engine.presets.planar_presets import double_compound_pendulum


def pendulum_stop(length: float = 1.0, mass: float = 1.0, restitution: float = 0.8,
                  theta0: float = math.pi / 2) -> Model:
    """A point mass on a massless rod released from the horizontal onto a stop at the vertical.

    ``bob_theta`` is measured from the downward vertical; its limits [0, π] put the stop at the
    vertical: with e = 1 the bob comes back to the horizontal at t = 2 √(l/g) K(1/2).
    """
    joint = replace(_joint("bob", "revolute", q0=(theta0,), axis=Z_AXIS, rotation=HANG_DOWN),
                    limits=(0.0, math.pi), restitution=float(restitution))
    bob = _body("bob", GROUND, joint, mass, com=(length, 0.0, 0.0), shape=_point())
    return Model(name="pendulum striking a stop", gravity=PLANAR_GRAVITY, bodies=(bob,),
                 settings=Settings(t_end=6.0))


def bouncing_ball(radius: float = 0.1, mass: float = 1.0, height: float = 1.0, restitution: float = 0.8,
                  speed: float = 0.4) -> Model:
    """A ball (a sphere of `radius`, a planar joint: x, y, θ) dropped with its lowest point `height`
    above the ground and a horizontal `speed`; frictionless, so it bounces to e² times each height."""
    shape = Shape(kind="sphere", radius=float(radius))
    joint = _joint("ball", "planar", q0=(0.0, height + radius, 0.0), u0=(speed, 0.0, 0.0))
    ball = _body("ball", GROUND, joint, mass, shape=shape)
    floor = Contact("floor", Sphere("ball", (0.0, 0.0, 0.0), float(radius)), None, float(restitution))
    return Model(name="bouncing ball", gravity=PLANAR_GRAVITY, bodies=(ball,), contacts=(floor,),
                 settings=Settings(t_end=6.0))


def newtons_cradle(n: int = 5, radius: float = 0.1, length: float = 1.0, mass: float = 0.2,
                   restitution: float = 1.0, theta0: float = 0.6) -> Model:
    """`n` balls on strings (pendulums 2·radius apart, touching at rest); the first is pulled out to
    −`theta0` and released. Each neighbouring pair is a sphere–sphere contact."""
    if not 2 <= n <= 20:
        raise ValueError(f"a cradle has 2 to 20 balls, got {n}")
    shape = Shape(kind="sphere", radius=float(radius))
    bodies, contacts = [], []
    for i in range(n):
        name = f"ball{i + 1}"
        q0 = (-theta0,) if i == 0 else (0.0,)
        joint = _joint(name, "revolute", q0=q0, axis=Z_AXIS, rotation=HANG_DOWN, at=(2.0 * radius * i, 0.0, 0.0))
        bodies.append(_body(name, GROUND, joint, mass, com=(length, 0.0, 0.0), shape=shape))
        if i:
            contacts.append(Contact(f"touch{i}", Sphere(f"ball{i}", (length, 0.0, 0.0), float(radius)),
                                    Sphere(name, (length, 0.0, 0.0), float(radius)), float(restitution)))
    return Model(name=f"Newton's cradle, {n} balls", gravity=PLANAR_GRAVITY, bodies=tuple(bodies),
                 contacts=tuple(contacts), settings=Settings(t_end=10.0))


def newtons_cradle_2() -> Model:
    """The two-ball cradle: the struck ball swings out to the release height, the striker stops."""
    return newtons_cradle(n=2)


def double_pendulum_limits(lower: float = -1.0, upper: float = 1.0, restitution: float = 0.5) -> Model:
    """The double compound pendulum with its elbow (``lower_theta``) limited to [lower, upper]."""
    model = double_compound_pendulum()
    elbow = model.bodies[1]
    joint = replace(elbow.joint, limits=(float(lower), float(upper)), restitution=float(restitution))
    bodies = (model.bodies[0], replace(elbow, joint=joint))
    return replace(model, name="double pendulum with joint limits", bodies=bodies)
