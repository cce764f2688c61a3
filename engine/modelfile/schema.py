"""The file format's constants: the version, the size limits and the fields each section allows."""
from __future__ import annotations

import keyword
import re

from eomlab.engine.expressions import FUNCTIONS

FORMAT_VERSION = 1
MAX_FILE_BYTES = 10 * 1024 * 1024
MAX_BODIES = 1000
MAX_CONSTRAINTS = 1000
MAX_FORCES = 1000

ROTATION_TOLERANCE = 1e-9  # |R^T R - I| and symmetric-inertia tolerance
UNIT_TOLERANCE = 1e-12  # vectors this close to unit length are kept as they are (stable round trip)

_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
# Coordinates appear in expressions, so they may not shadow what expressions already mean.
_RESERVED_COORDINATES = frozenset({"t", "pi"} | set(FUNCTIONS) | set(keyword.kwlist))

_TOP_FIELDS = ("eomlab", "name", "gravity", "bodies", "constraints", "forces", "settings")
_BODY_FIELDS = ("name", "parent", "joint", "mass", "com", "inertia", "shape")
_JOINT_FIELDS = ("type", "axis", "at", "rotation", "q0", "u0", "sequence", "speeds", "names", "orientation", "limits", "axis2",
                 "restitution", "armature")
_SHAPE_FIELDS = ("kind", "length", "radius", "size")
_SHAPE_DIMENSION = {"rod": "length", "disk": "radius", "sphere": "radius", "box": "size", "point": None}
_SETTINGS_FIELDS = ("method", "coordinates", "integrator", "rtol", "atol", "t_end", "dt_out", "dt", "stabilization", "maggi_basis")
_STABILIZATION_FIELDS = ("kind", "alpha", "beta", "tolerance")

_CONSTRAINT_FIELDS = {
    "coincident": ("a", "b", "dims"),
    "distance": ("a", "b", "length"),
    "prescribed": ("coordinate", "motion"),
    "knife_edge": ("body", "point", "direction"),
    "rolling_disk": ("body", "radius", "axis"),
    "expression": ("equation", "order"),
    "contact": ("a", "b", "restitution"),
}
_FORCE_FIELDS = {
    "spring": ("a", "b", "stiffness", "rest_length", "damping"),
    "joint_spring": ("body", "stiffness", "rest", "damping"),
    "joint_effort": ("body", "value"),
    "point_force": ("body", "point", "value", "frame"),
    "body_torque": ("body", "value", "frame"),
}
_REQUIRED = {
    "coincident": ("a", "b"),
    "distance": ("a", "b", "length"),
    "prescribed": ("coordinate", "motion"),
    "knife_edge": ("body", "direction"),
    "rolling_disk": ("body", "radius"),
    "expression": ("equation",),
    "contact": ("a", "b"),
    "spring": ("a", "b", "stiffness"),
    "joint_spring": ("body", "stiffness"),
    "joint_effort": ("body", "value"),
    "point_force": ("body", "value"),
    "body_torque": ("body", "value"),
}
_FRAMES = ("world", "body")
_AXES = ("x", "y", "z")
