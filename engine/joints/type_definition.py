"""What a joint type is: the facts and the hooks every consumer of the table calls.

A hook a type does not define refuses by the type's name (NotImplementedError), so a consumer
never falls through to another type's behaviour."""
from __future__ import annotations

import math

import numpy as np

from eomlab.engine.model import Joint

QUATERNION_NAMES = ("e0", "e1", "e2", "e3")
EX, EY, EZ = np.eye(3)


class JointType:
    """One joint type. Subclasses set the facts and define the hooks they support."""

    name: str = ""
    dof: int = 0  # speeds (coordinates too, but for Euler parameters: one more)
    suffixes: tuple[str, ...] = ()  # default coordinate names are <body>_<suffix>
    lengths: int = 0  # its first `lengths` coordinates are lengths (m); the rest angles (rad)
    uses_axis: bool = False  # reads joint.axis
    uses_axis2: bool = False  # reads joint.axis2
    orientation: bool = False  # turns in Euler angles or Euler parameters (sequence, speeds, orientation)
    constant_turning: bool = False  # its angular speed columns do not depend on q (spatial kinematics)
    label_units: tuple[str, str] = ("", "")  # what the inspector shows for q0 and u0
    one_axis: bool = False  # one turn about or one slide along its axis
    single_turn: bool = False  # one angle about its axis (the sweeps' hanging chains and batched path)
    travels: bool = False  # lets a root body wander off (the 3-D camera follows it)
    rail: bool = False  # drawn as a rail from its anchor when on the ground
    centred: bool = False  # the new-body dialog puts its mass centre at the body's origin

    def refuse(self, what: str):
        raise NotImplementedError(f"joint type {self.name!r} has no {what}")

    # --- the model ------------------------------------------------------------------------

    def coordinate_suffixes(self, joint) -> tuple[str, ...]:
        return self.suffixes

    def speed_names(self, body_name: str, joint, names: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(f"{n}_dot" for n in names)

    def check(self, joint, path: str) -> None:
        """Refuse (ModelError at `path`) what the model file's fields allow but this type does not."""

    def in_plane(self, joint, tolerance: float) -> bool:
        """Whether this joint keeps its body in the x–y plane turning about z (engine.model.is_planar)."""
        self.refuse("planar test")

    def length_coordinate(self, joint, index: int) -> bool:
        """Whether coordinate `index` of the joint is a length (m)."""
        return index < self.lengths

    # --- numeric kinematics -----------------------------------------------------------------

    def pose(self, jl, q: np.ndarray):
        """Relative rotation and translation (joint frame) at the joint's coordinates q."""
        self.refuse("pose")

    def motion(self, jl, q: np.ndarray, u: np.ndarray):
        """R_rel, d, Hw (3, k), Hv (3, k), bias_w (3,): ω_rel = Hw u, ḋ = Hv u, bias_w = Ḣw u."""
        self.refuse("motion subspace")

    def prepare(self, jl):
        """What the spatial kinematics keep per joint of this type (None: nothing)."""
        return None

    def place(self, jl, qj: np.ndarray, prepared, Hw_cols: np.ndarray, euler_parts: dict):
        """R_rel and d (None: no translation) in SpatialKinematics.positions, writing the q-dependent
        speed columns it owns into Hw_cols and, when those columns turn with q, (bias function, its
        arguments but u) into euler_parts: bias(*arguments, u) is Ḣw u (joint frame)."""
        R_rel, d = self.pose(jl, qj)
        return R_rel, d

    def planar_layout(self, jl, i: int, k: int, theta_map, dx_map, dy_map, rot_sign, slide) -> None:
        """Its rows of the planar kinematics' linear maps (body i, first coordinate k)."""
        self.refuse("planar kinematics")

    def joint_values(self, reader, jl, R: np.ndarray, d: np.ndarray, ref: np.ndarray) -> list[float]:
        """Its coordinates from its relative pose (R, d); `reader` is the JointCoordinates asking
        (its angle readers), `ref` the coordinates to stay near."""
        self.refuse("coordinates from a pose")

    # --- absolute coordinates and joint forces --------------------------------------------------

    def absolute_rows(self, joint, planar: bool):
        """Translation directions and rotation pairs it removes (joint frame / child frame), with labels."""
        self.refuse("rows in absolute coordinates")

    def absolute_pin(self, planar: bool) -> str | None:
        """"planar" or "spatial" when its rows are a pin's, else None."""
        return None

    def constrains_nothing(self, planar_model: bool) -> bool:
        """Whether it removes nothing the kinematics move (no joint force)."""
        return False

    # --- the compiled path and the formats -------------------------------------------------------

    def pinocchio_chain(self, pin, jl, unit_axes: dict):
        """[(pinocchio joint model, its coordinates' source)] (engine.compiled.tree_backend)."""
        raise ValueError(f"joint type {self.name!r} has no pinocchio counterpart")

    def urdf_joint(self, axis, coordinate: str, where: str, limits):
        """The Joint (no placement) of a URDF joint of this type: its unit axis, its coordinate's
        name, where it is (for errors) and a function reading its limits."""
        self.refuse("URDF import")

    def mjcf_joint(self, importer, name: str, get, where: str):
        """The Joint (no placement) of a MuJoCo joint of this type named `name` (engine.robot_formats.mjcf)."""
        self.refuse("MJCF import")

    def mjcf_joints(self, writer, element, body) -> None:
        """Write its MuJoCo joints into `element` and its qpos/qvel (engine.robot_formats.mjcf_export)."""
        self.refuse("MJCF export")

    # --- the window -------------------------------------------------------------------------------

    def q_unit(self, joint) -> str:
        return self.label_units[0]

    def dialog_start(self, quaternion: bool) -> list[str]:
        """The initial q the new-body dialog fills in."""
        return ["0"] * self.dof


class AxisJoint(JointType):
    """One coordinate about or along `axis` (revolute, prismatic): the file formats map it alike."""

    mjcf_kind = ""  # MuJoCo's name for it
    uses_axis = True
    constant_turning = True
    one_axis = True

    def urdf_joint(self, axis, coordinate, where, limits):
        return Joint(self.name, axis=tuple(float(a) for a in axis), names=(coordinate,), limits=limits())

    def mjcf_joint(self, importer, name, get, where):
        return importer.axis_joint(self.name, name, get, where)

    def mjcf_joints(self, writer, element, body):
        joint = body.joint
        written = writer.joint(element, self.mjcf_kind, joint.names[0], joint.axis)
        if joint.limits and all(math.isfinite(v) for v in joint.limits[:2]):  # MuJoCo's joint range (autolimits)
            written.set("range", f"{float(joint.limits[0])!r} {float(joint.limits[1])!r}")
        writer.spring(written, body)
        writer.qpos += joint.q0
        writer.qvel += joint.u0
