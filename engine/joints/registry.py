"""The joint types: one table, read by everything that asks what a joint type means.

The model and its file, the kinematics (planar and spatial), joint and absolute coordinates, the
joint forces, the compiled path, the symbolic kinematics, URDF/MJCF import and export and the
window all ask `joint_type(name)`; none of them switches on a type's name. A new joint type is
one module here (a `JointType` subclass), one line in `REGISTRY` and, for the equations panel,
its sympy part under `engine.symbolic.joint_types`.

Both parts are named by "module:attribute" and imported on first use, as `engine.methods` does for
the formulations: this module imports nothing, so `engine.model` reads the names without a cycle
and the run path never imports sympy.
"""
from __future__ import annotations

import importlib
from functools import lru_cache

_J = "eomlab.engine.joints."
_S = "eomlab.engine.symbolic.joint_types:"

#: type name → ("module:Class" of its JointType, "module:attribute" of its sympy part)
REGISTRY: dict[str, tuple[str, str]] = {
    "revolute": (_J + "revolute:Revolute", _S + "REVOLUTE"),
    "prismatic": (_J + "prismatic:Prismatic", _S + "PRISMATIC"),
    "spherical": (_J + "spherical:Spherical", _S + "SPHERICAL"),
    "planar": (_J + "planar:Planar", _S + "PLANAR"),
    "free": (_J + "free:Free", _S + "FREE"),
    "fixed": (_J + "fixed:Fixed", _S + "FIXED"),
    "cylindrical": (_J + "cylindrical:Cylindrical", _S + "CYLINDRICAL"),
    "universal": (_J + "universal:Universal", _S + "UNIVERSAL"),
}

#: every joint type's name, in the order lists show them
JOINT_TYPES: tuple[str, ...] = tuple(REGISTRY)


class UnknownJointType(ValueError):
    """A joint type the table does not hold (named in the message)."""

    def __init__(self, name: object):
        self.name = name
        super().__init__(f"unknown joint type {name!r}; expected one of {', '.join(REGISTRY)}")


def joint_type(name: str):
    """The JointType of `name` (UnknownJointType naming it when the table has no such type)."""
    if name not in REGISTRY:
        raise UnknownJointType(name)
    return _load(REGISTRY[name][0])


def symbolic_joint(name: str):
    """The sympy part of `name` (imports sympy: the symbolic path only)."""
    if name not in REGISTRY:
        raise UnknownJointType(name)
    return _load(REGISTRY[name][1])


@lru_cache(maxsize=None)
def _load(path: str):
    module, _, attribute = path.partition(":")
    found = getattr(importlib.import_module(module), attribute)
    return found() if isinstance(found, type) else found
