"""A tree of revolute and prismatic joints as flat arrays, read from its pinocchio model: what the compiled
kernels (engine.compiled.numba_kernels and those built on them) take."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np


class FlatTree(NamedTuple):
    """A tree of revolute and prismatic joints as engine.compiled.numba_kernels takes it (pinocchio's
    joint order, parents −1 at the ground; joint frames' placements in their parents', motion
    subspaces (linear, angular) in the joint frame; each joint's bodies' mass, mass centre
    (lever) and rotational inertia about it, in the joint frame; gravity)."""

    parents: np.ndarray
    kinds: np.ndarray
    place_R: np.ndarray
    place_p: np.ndarray
    S: np.ndarray
    mass: np.ndarray
    lever: np.ndarray
    rot_inertia: np.ndarray
    gravity: np.ndarray


#: pinocchio's one-speed joints the compiled step takes: 0 revolute, 1 prismatic (numba_kernels)
FLAT_KINDS = {**dict.fromkeys(("JointModelRX", "JointModelRY", "JointModelRZ", "JointModelRevoluteUnaligned"), 0),
              **dict.fromkeys(("JointModelPX", "JointModelPY", "JointModelPZ", "JointModelPrismaticUnaligned"), 1)}


def flat_tree(model) -> FlatTree | None:
    """A pinocchio Model whose joints are all one-speed revolute or prismatic ones as a FlatTree, else None.
    Read from the pinocchio model, so the joint mapping stays in one place (engine.compiled.tree_backend)."""
    kinds = []
    for joint in model.joints[1:]:
        kind = FLAT_KINDS.get(joint.shortname())
        if kind is None:  # planar and Euler-rate joints map onto these too; nothing else does
            return None
        kinds.append(kind)
    n = len(kinds)
    S = np.empty((n, 6))
    for i, joint in enumerate(model.joints[1:]):  # motion subspace: pinocchio's, at q = 0
        joint_data = joint.createData()
        joint.calc(joint_data, np.zeros(1))
        S[i] = np.asarray(joint_data.S).ravel()
    placements, inertias = list(model.jointPlacements)[1:], list(model.inertias)[1:]
    return FlatTree(
        parents=np.array(model.parents[1:], dtype=np.int64) - 1,
        kinds=np.array(kinds, dtype=np.int64),
        place_R=np.ascontiguousarray([M.rotation for M in placements], dtype=float).reshape(n, 3, 3),
        place_p=np.ascontiguousarray([M.translation for M in placements], dtype=float).reshape(n, 3),
        S=S,
        mass=np.array([I.mass for I in inertias], dtype=float),
        lever=np.ascontiguousarray([I.lever for I in inertias], dtype=float).reshape(n, 3),
        rot_inertia=np.ascontiguousarray([I.inertia for I in inertias], dtype=float).reshape(n, 3, 3),
        gravity=np.array(model.gravity.linear, dtype=float))
