"""A pinocchio tree as engine.compiled.floating_kernels takes it (FloatingTree): revolute, prismatic, translation
(as three prismatic joints) and spherical joints in Euler parameters, with armature, in any speed order. Read
from the pinocchio model of engine.compiled.tree_backend.PinocchioTree, so the joint mapping stays in one place.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from eomlab.engine.compiled.flat_tree import FlatTree

#: pinocchio's joints by kind in the floating kernels: 0 revolute, 1 prismatic, 2 spherical (their codes)
_ONE_SPEED = {**dict.fromkeys(("JointModelRX", "JointModelRY", "JointModelRZ", "JointModelRevoluteUnaligned"), 0),
              **dict.fromkeys(("JointModelPX", "JointModelPY", "JointModelPZ", "JointModelPrismaticUnaligned"), 1)}
PRISMATIC, SPHERICAL = 1, 2


#: engine.compiled.tree_backend.FlatTree's nine arrays per joint of the kernels (a free joint's translation counts
#: three), then where each joint's first coordinate and first speed sit in eomlab's q and u (a spherical joint's
#: first coordinate is its e0; its four and its three speeds are contiguous), and the armature of every eomlab speed
FloatingTree = NamedTuple("FloatingTree", [(name, np.ndarray) for name in (*FlatTree._fields, "q_at", "u_at", "armature")])


def floating_tree(model, q_gather: np.ndarray, v_gather: np.ndarray) -> FloatingTree | None:
    """The FloatingTree of a pinocchio `model` whose coordinate k is eomlab's q[q_gather[k]] (−1: made per
    state, as a spherical joint's quaternion from Euler angles: then None) and speed k eomlab's
    u[v_gather[k]]; None when a joint is of another kind."""
    rows: list[tuple] = []  # (parent, kind, R, p, S, mass, lever, inertia, q_at, u_at)
    last = {0: -1}  # each pinocchio joint's last kernel joint (the ground: −1)
    identity = np.eye(3)
    for j in range(1, model.njoints):
        joint, placement, inertia = model.joints[j], model.jointPlacements[j], model.inertias[j]
        parent, name = last[model.parents[j]], joint.shortname()
        iq, iv = joint.idx_q, joint.idx_v
        body = (float(inertia.mass), np.array(inertia.lever, dtype=float), np.array(inertia.inertia, dtype=float))
        massless = (0.0, np.zeros(3), np.zeros((3, 3)))
        if name in _ONE_SPEED:
            data = joint.createData()
            joint.calc(data, np.zeros(1))
            rows.append((parent, _ONE_SPEED[name], placement.rotation, placement.translation,
                         np.asarray(data.S).ravel(), *body, q_gather[iq], v_gather[iv]))
        elif name == "JointModelTranslation":  # along the placement's axes, one after another
            for k in range(3):
                R, p = (placement.rotation, placement.translation) if k == 0 else (identity, np.zeros(3))
                rows.append((parent if k == 0 else len(rows) - 1, PRISMATIC, R, p, np.eye(6)[k],
                             *(body if k == 2 else massless), q_gather[iq + k], v_gather[iv + k]))
        elif name == "JointModelSpherical":
            e = q_gather[iq + 3]  # pinocchio's (x, y, z, w) from eomlab's (e0, e1, e2, e3)
            if e < 0 or list(q_gather[iq : iq + 4]) != [e + 1, e + 2, e + 3, e] \
                    or list(v_gather[iv : iv + 3]) != [v_gather[iv] + k for k in range(3)]:
                return None
            rows.append((parent, SPHERICAL, placement.rotation, placement.translation, np.zeros(6), *body, e,
                         v_gather[iv]))
        else:
            return None
        last[j] = len(rows) - 1
    if not rows:
        return None
    n = len(rows)
    column = lambda k, dtype=float: np.ascontiguousarray([r[k] for r in rows], dtype=dtype)  # noqa: E731
    armature = np.zeros(model.nv)
    armature[np.asarray(v_gather, dtype=int)] = np.asarray(model.armature, dtype=float)
    return FloatingTree(parents=column(0, np.int64), kinds=column(1, np.int64), place_R=column(2).reshape(n, 3, 3),
                        place_p=column(3).reshape(n, 3), S=column(4).reshape(n, 6), mass=column(5),
                        lever=column(6).reshape(n, 3), rot_inertia=column(7).reshape(n, 3, 3),
                        gravity=np.array(model.gravity.linear, dtype=float), q_at=column(8, np.int64),
                        u_at=column(9, np.int64), armature=armature)


def kernel_joints(model) -> np.ndarray:
    """The last kernel joint of each of pinocchio's joints (−1: the universe), as `floating_tree` lays them out."""
    last = [-1]
    for j in range(1, model.njoints):
        last.append(last[-1] + (3 if model.joints[j].shortname() == "JointModelTranslation" else 1))
    return np.array(last, dtype=np.int64)


def rate_layout(kin):
    """(plain coordinates, their speeds, [(e0's index, ω's first index)]) of a tree whose joints with body rates
    are all in Euler parameters: q̇ = u on the first, ṗ = ½ p ⊗ (0, ω) per block."""
    plain_q, plain_u, blocks = [], [], []
    for jl in kin.joints:
        qs, us = jl.q_slice, jl.u_slice
        rotation = 4 if jl.quaternion else 0
        plain_q.extend(range(qs.start, qs.stop - rotation))
        plain_u.extend(range(us.start, us.stop - (3 if rotation else 0)))
        if rotation:
            blocks.append((qs.stop - 4, us.stop - 3))
    return np.array(plain_q, dtype=int), np.array(plain_u, dtype=int), blocks
