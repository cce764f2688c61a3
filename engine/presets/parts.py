"""Building blocks of the presets: gravity and axis constants, joints and bodies with the loader's
defaults, shapes."""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from eomlab.engine.model import Body, Joint, Shape, as_mat3, default_coordinate_names, shape_inertia
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
