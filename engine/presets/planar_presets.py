"""Planar presets: pendulums, chains and the cart pendulum (gravity −y, revolute axes along z)."""
from __future__ import annotations

from typing import Sequence

from eomlab.engine.model import GROUND, Model, Settings
from eomlab.engine.modelfile import MAX_BODIES
from eomlab.engine.presets.parts import HANG_DOWN, PLANAR_GRAVITY, X_AXIS, Z_AXIS, _body, _box, _joint, _point, _rod


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
        Initial joint angles. As in the Roberson–Wittenburg tree (THEORY.md §4) each angle is relative to the previous link and
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
    """The example file of MODEL_FORMAT.md: two uniform rods (THEORY.md §4), angles from +x."""
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
    """Kane's cart with a pendulum (Kane & Levinson 1985): coordinates ``x`` (cart slide) and ``theta``.

    ``theta`` is measured from the downward vertical (joint frame turned -pi/2 about z).
    """
    cart = _body("cart", GROUND, _joint("cart", "prismatic", axis=X_AXIS, names=("x",)),
                 m_cart, shape=_box(0.4, 0.2, 0.2))
    bob_joint = _joint("bob", "revolute", q0=(theta0,), axis=Z_AXIS, rotation=HANG_DOWN, names=("theta",))
    bob = _body("bob", "cart", bob_joint, m_bob, com=(l, 0.0, 0.0), shape=_point())
    return Model(name="cart with pendulum", gravity=PLANAR_GRAVITY, bodies=(cart, bob))
