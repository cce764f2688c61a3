"""Joint types: `registry` holds the table, one module per type holds what that type means."""
from eomlab.engine.joints.registry import JOINT_TYPES, REGISTRY, UnknownJointType, joint_type, symbolic_joint  # noqa: F401
