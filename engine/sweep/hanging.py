"""The hanging position of a model: its coordinates where the potential V (gravity and springs) is
least, each revolute angle wrapped into (−π, π]. `over_top:NAME` measures from it: a pendulum
goes over the top when its angle has turned π away from hanging, whatever its zero is (the double
compound pendulum's upper angle is 0 along +x and hangs at −π/2). A body's angle in its plane is the
sum of the revolute angles from the ground to it (`turning_chain`), so `over_top:lower_theta` is the
lower rod itself going over the top, not its fold against the upper one."""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy.optimize import minimize

from eomlab.engine.model import Model, initial_coordinates, joint_type
from eomlab.engine.mechanics.system import build_system

#: starts of the search besides q0: zero and quarter turns of every angle (one of them is downhill
#: from wherever a start at an unstable equilibrium would stall)
TURNS = (0.0, 0.5 * math.pi, -0.5 * math.pi, math.pi)


def _revolute(model: Model) -> list[bool]:
    return [joint_type(b.joint.type).single_turn for b in model.bodies for _ in b.joint.names]


def turning_chain(model: Model, name: str) -> tuple[int, ...]:
    """The indices (model.coordinate_names) of the revolute angles whose sum turns the body of the
    angle `name` in its plane: its own and its ancestors', every joint from the ground turning or
    sliding about one axis. ValueError, saying why, for anything else."""
    bodies = {b.name: b for b in model.bodies}
    body = next((b for b in model.bodies if name in b.joint.names), None)
    if body is None or not joint_type(body.joint.type).single_turn:
        raise ValueError(f"{name!r} is not the angle of a revolute joint")
    axis = np.asarray(body.joint.axis, float)
    chain = []
    while body is not None:
        joint = body.joint
        rotation = np.asarray(joint.rotation, float)
        kind = joint_type(joint.type)
        if not (kind.one_axis or not kind.dof) or not np.allclose(rotation @ axis, axis, atol=1e-12) \
                or (kind.single_turn and not np.allclose(joint.axis, axis, atol=1e-12)):
            raise ValueError(f"{name!r}: the joints from the ground to {body.name!r} do not all turn about one axis "
                             "(over_top measures a planar chain)")
        if kind.single_turn:
            chain.append(model.coordinate_names.index(joint.names[0]))
        body = bodies.get(body.parent)
    return tuple(sorted(chain))


@lru_cache(maxsize=16)
def hanging_position(model: Model) -> tuple[float, ...]:
    """The coordinates (model.coordinate_names' order) at the least V; angles wrapped."""
    system = build_system(model, "joint")

    def potential(q: np.ndarray) -> float:
        ks = system.kinematic_positions(q)
        return -float(np.sum(system.kin.mass * (ks.com @ system.gravity))) + sum(f.potential(ks, q) for f in system.forces)

    angles = np.array(_revolute(model))
    starts = [np.array(initial_coordinates(model), dtype=float)]
    starts += [np.where(angles, turn, 0.0) for turn in TURNS]
    best = min((minimize(potential, q, method="BFGS", options={"gtol": 1e-10}) for q in starts), key=lambda r: r.fun)
    q = np.where(angles, np.mod(best.x + math.pi, 2.0 * math.pi) - math.pi, best.x)
    return tuple(float(v) for v in q)
