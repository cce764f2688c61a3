"""A constrained system as engine.compiled.constrained_kernels takes it: the tree as a FlatTree of one-speed
joints and every constraint row as a line of an integer table over points fixed in the joints' frames.

The tree: pinocchio's model of the system (engine.compiled.tree_backend, which maps every eomlab joint),
one flat joint per revolute or prismatic pinocchio joint, and a free joint's translation (pinocchio's
JointModelTranslation, three slides along its frame's axes, velocity = q̇) as three prismatic joints along
x, y and z, the first at the translation's placement; with Euler-rate speeds the rotation is already three
revolutes, so a free joint in Euler angles with angle-rate speeds (the benchmark bicycle's rear frame)
becomes six joints with q̇ = u. Body-rate speeds (pinocchio's spherical joint) are not held.

The rows (their equations in engine.constraints.geometric, THEORY.md §2), each a line (kind, point b,
point a, axis) with a length:

- coincident (0): P_b − P_a along `axis`; distance (1): |P_b − P_a| = length;
- rolling disk (2): point b the disk's mass centre C, point a the point C + â (â its unit axis), so the
  world axis is P_a − P_b; `axis` 2 for the contact row (holonomic), 0 and 1 for the slip rows
  (first order, x and y); length = the radius;
- planar pins (a planar model's revolute joints in absolute coordinates, engine.constraints.joint_rows.PlanarPins):
  per pin two coincident rows, x and y, point b the child's origin and point a the pin in the parent's frame
  (on the ground: in the world);
- knife edge (3): point b the edge point, point a the edge point + n̂ (n̂ the unit edge normal), so the
  world normal is P_a − P_b; one first-order row; length unused.
"""
from __future__ import annotations

import numpy as np

from eomlab.engine.compiled.flat_tree import FLAT_KINDS, FlatTree
from eomlab.engine.constraints.geometric import CoincidentRows, DistanceRows, KnifeEdgeRows, RollingDiskRows
from eomlab.engine.constraints.joint_rows import PlanarPins

COINCIDENT, DISTANCE, ROLLING, KNIFE = range(4)
#: pinocchio's three-speed translation joint, which the kernel takes as three slides
_TRANSLATION = "JointModelTranslation"
_SLIDES = np.hstack((np.eye(3), np.zeros((3, 3))))  # (linear; angular) motion subspaces along x, y, z


def kernel_tree(backend):
    """(FlatTree, the flat index of each pinocchio joint's last speed (pinocchio's index; −1 at the
    universe)) of `backend` (a PinocchioTree), or None where a joint is not held (module docstring) or
    q, u do not map onto pinocchio's without a gather (the same conditions as tree_backend's flat_tree)."""
    model = backend.model
    if not (backend._same and not backend._permuted) or backend.has_armature:
        return None
    kinds, S, place_R, place_p, parents, mass, lever, inertia = [], [], [], [], [], [], [], []
    last = [-1]  # flat index of each pinocchio joint's last speed
    for jid in range(1, model.njoints):
        joint, placement, body = model.joints[jid], model.jointPlacements[jid], model.inertias[jid]
        name = joint.shortname()
        if name == _TRANSLATION:
            parts = [(1, _SLIDES[k]) for k in range(3)]
        elif name in FLAT_KINDS:
            data = joint.createData()
            joint.calc(data, np.zeros(1))
            parts = [(FLAT_KINDS[name], np.asarray(data.S).ravel())]
        else:
            return None
        parent = last[model.parents[jid]]
        for k, (kind, subspace) in enumerate(parts):
            first = k == 0
            kinds.append(kind)
            S.append(subspace)
            place_R.append(placement.rotation if first else np.eye(3))
            place_p.append(placement.translation if first else np.zeros(3))
            parents.append(parent)
            parent = len(kinds) - 1
            final = k == len(parts) - 1  # the joint's bodies ride on its last speed
            mass.append(body.mass if final else 0.0)
            lever.append(body.lever if final else np.zeros(3))
            inertia.append(body.inertia if final else np.zeros((3, 3)))
        last.append(parent)
    n = len(kinds)
    tree = FlatTree(parents=np.array(parents, dtype=np.int64), kinds=np.array(kinds, dtype=np.int64),
                    place_R=np.ascontiguousarray(place_R, dtype=float).reshape(n, 3, 3),
                    place_p=np.ascontiguousarray(place_p, dtype=float).reshape(n, 3),
                    S=np.ascontiguousarray(S, dtype=float).reshape(n, 6), mass=np.array(mass, dtype=float),
                    lever=np.ascontiguousarray(lever, dtype=float).reshape(n, 3),
                    rot_inertia=np.ascontiguousarray(inertia, dtype=float).reshape(n, 3, 3),
                    gravity=np.array(model.gravity.linear, dtype=float))
    return tree, np.array(last, dtype=np.int64)


def kernel_rows(kinds, backend, flat_index):
    """(each point's flat joint (−1: the ground), each point in its joint's frame, the rows' table
    (kind, point b, point a, axis), the rows' lengths) of the constraint `kinds` in their order (module
    docstring), or None when a kind is not one the kernel holds. `flat_index`: kernel_tree's second part."""
    points, slots = [], {}
    frames = backend._body_frames

    def slot(body: int, local) -> int:
        """The point `local` of `body` (body frame; the ground's: the world)."""
        joint = -1 if body < 0 else int(flat_index[backend._body_joint[body]])
        local = np.asarray(local, dtype=float)
        if body >= 0 and frames is not None:
            local = frames[body, :3, :3] @ local + frames[body, :3, 3]
        key = (joint, *map(float, local))
        if key not in slots:
            slots[key] = len(points)
            points.append(key)
        return slots[key]

    table, lengths = [], []
    for k in kinds:
        kind = type(k)
        if kind is CoincidentRows:
            b, a = slot(k.b, k.pb), slot(k.a, k.pa)
            table += [(COINCIDENT, b, a, axis) for axis in k.axes]
            lengths += [0.0] * len(k.axes)
        elif kind is DistanceRows:
            table.append((DISTANCE, slot(k.b, k.pb), slot(k.a, k.pa), 0))
            lengths.append(k.length)
        elif kind is RollingDiskRows:
            centre = backend.kin.com_body[k.body]
            b, a = slot(k.body, centre), slot(k.body, centre + k.axis)
            table += [(ROLLING, b, a, axis) for axis in (2, 0, 1)]  # the kind's row order: contact, slip x, slip y
            lengths += [k.radius] * 3
        elif kind is PlanarPins:  # pin k: the child's origin at the parent's point (the ground's: a world point)
            for child, parent, at in zip(k.child_body, k.parent_body, k.at):
                b, a = slot(child, np.zeros(3)), slot(parent, np.array([at[0], at[1], 0.0]))
                table += [(COINCIDENT, b, a, 0), (COINCIDENT, b, a, 1)]
                lengths += [0.0, 0.0]
        elif kind is KnifeEdgeRows:
            table.append((KNIFE, slot(k.body, k.point), slot(k.body, k.point + k.direction), 0))
            lengths.append(0.0)
        else:
            return None
    joints = np.array([p[0] for p in points], dtype=np.int64)
    local = np.ascontiguousarray([p[1:] for p in points], dtype=float).reshape(len(points), 3)
    return joints, local, np.array(table, dtype=np.int64).reshape(len(table), 4), np.array(lengths, dtype=float)
