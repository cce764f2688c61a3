"""The model: immutable plain data, as `shared/MODEL_FORMAT.md` describes it.

Nothing here computes mechanics. `engine.modelfile` turns JSON into these objects (and validates
them); `engine.mechanics.system` turns a Model into numeric callables.

Vectors are tuples of floats, matrices tuples of row tuples, so models compare equal by value and
can be hashed, copied and shared between threads freely. Edits make new objects with
`dataclasses.replace`.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Optional, Union

from eomlab.engine.joints.registry import JOINT_TYPES, joint_type  # noqa: F401  (the joint types; their registry owns them)
from eomlab.engine.methods import METHODS  # noqa: F401  (the formulations' keys; the registry owns them)

Vec3 = tuple[float, float, float]
Mat3 = tuple[Vec3, Vec3, Vec3]

def as_mat3(matrix) -> Mat3:
    """A 3x3 matrix (nested sequences or an array) as the model's tuple of row tuples of floats."""
    return tuple(tuple(float(x) for x in row) for row in matrix)  # type: ignore[return-value]


IDENTITY3: Mat3 = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
GROUND = "ground"

SHAPE_KINDS = ("rod", "disk", "box", "sphere", "point")
COORDINATES = ("joint", "absolute")
INTEGRATORS = ("DOP853", "RK45", "Radau", "BDF", "LSODA", "RK4")
STABILIZATIONS = ("none", "baumgarte", "projection")
MAGGI_BASES = ("orthonormal", "partitioning")


class ModelError(ValueError):
    """A problem with a model a person can act on.

    `path` is the field's path in the model file (``bodies[1].mass``), `message` says what is
    wrong. ``str(error)`` is one line: ``bodies[1].mass: must be >= 0, got -1``. `source` is the
    file name when the model came from a file.
    """

    def __init__(self, path: str, message: str, source: str | None = None):
        self.path = path
        self.message = message
        self.source = source
        super().__init__(self.one_line())

    def one_line(self) -> str:
        where = f"{self.path}: " if self.path else ""
        text = f"{where}{self.message}"
        return f"{self.source}: {text}" if self.source else text

    def with_source(self, source: str) -> "ModelError":
        return ModelError(self.path, self.message, source)


# --- joints -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Joint:
    """How a body's frame moves relative to its joint frame.

    The joint frame sits at `at` in the parent's frame, turned by `rotation`; the body frame's
    origin is the hinge (THEORY.md §4, Roberson–Wittenburg). `axis` is used by revolute and prismatic joints (unit length
    after validation). `sequence` and `speeds` are used by spherical and free joints, whose
    `orientation` is either three Euler angles ("angles") or the four Euler parameters
    ("quaternion": e0 scalar part, e1..e3 vector part, with body-rate speeds and the
    normalisation constraint e·e = 1, so 4 coordinates for 3 speeds).
    `names` are the coordinate names (defaults ``<body>_<dof>`` are filled in by the loader).
    """

    type: str
    axis: Vec3 = (0.0, 0.0, 1.0)
    at: Vec3 = (0.0, 0.0, 0.0)
    rotation: Mat3 = IDENTITY3
    q0: tuple[float, ...] = ()
    u0: tuple[float, ...] = ()
    sequence: str = "zxz"
    speeds: str = "body"  # "body" (body-axis ω components) or "euler" (angle rates)
    names: tuple[str, ...] = ()
    orientation: str = "angles"  # spherical/free: "angles" (Euler angles) or "quaternion"
    limits: tuple[float, ...] = ()  # (lower, upper) per speed, enforced (engine.unilateral); ±inf: no limit
    restitution: float = 0.0  # Newton's coefficient e at the limits, 0 … 1
    axis2: Vec3 = (1.0, 0.0, 0.0)  # the second axis of a type that has one (its module says how it is used)
    armature: float = 0.0  # rotor inertia on each of its speeds: T += ½ a Σ u² (engine/mechanics/armature.py)

    @property
    def dof(self) -> int:
        """Degrees of freedom = number of speeds."""
        return joint_type(self.type).dof

    @property
    def quaternion(self) -> bool:
        return self.orientation == "quaternion" and joint_type(self.type).orientation

    @property
    def n_coordinates(self) -> int:
        """Number of coordinates: one more than the speeds for Euler parameters."""
        return self.dof + 1 if self.quaternion else self.dof


@dataclass(frozen=True)
class Shape:
    """Drawing shape; also gives default inertia. Unused dimensions stay 0."""

    kind: str = "point"
    length: float = 0.0
    radius: float = 0.0
    size: Vec3 = (0.0, 0.0, 0.0)


@dataclass(frozen=True)
class Body:
    name: str
    parent: str
    joint: Joint
    mass: float = 0.0
    com: Vec3 = (0.0, 0.0, 0.0)
    inertia: Mat3 = ((0.0,) * 3,) * 3  # about the mass centre, body axes (resolved 3x3)
    shape: Optional[Shape] = None

    @property
    def inertia_from_shape(self) -> bool:
        """Whether the inertia is the shape's (`shape_inertia` of its shape and mass, to 1e-9
        relative; zero without a shape): a file that leaves `inertia` out, or writes the shape's
        own value (as saving does). Such an inertia follows edits of the mass and the shape; any
        other was set by hand."""
        derived = shape_inertia(self.shape or Shape(), self.mass)  # no shape: a point mass
        scale = max(abs(v) for row in derived for v in row)
        return all(abs(a - b) <= 1e-9 * scale + 1e-300 for row_a, row_b in zip(self.inertia, derived)
                   for a, b in zip(row_a, row_b))


# --- constraints --------------------------------------------------------------------------


@dataclass(frozen=True)
class _OnBody:
    """Fields of the items that act on one body."""

    name: str
    body: str


@dataclass(frozen=True)
class _BetweenPoints:
    """Fields of the items that join two points (coincident, distance, spring)."""

    name: str
    a: PointRef
    b: PointRef


@dataclass(frozen=True)
class PointRef:
    """A point fixed in a body (body coordinates). ``body == "ground"`` means a world point."""

    body: str
    point: Vec3 = (0.0, 0.0, 0.0)


@dataclass(frozen=True)
class Coincident(_BetweenPoints):
    dims: tuple[str, ...] = ("x", "y", "z")
    type: str = field(default="coincident", init=False)


@dataclass(frozen=True)
class Distance(_BetweenPoints):
    length: float
    type: str = field(default="distance", init=False)


@dataclass(frozen=True)
class Prescribed:
    name: str
    coordinate: str
    motion: str  # expression in t
    type: str = field(default="prescribed", init=False)


@dataclass(frozen=True)
class KnifeEdge(_OnBody):
    point: Vec3
    direction: Vec3  # body axes; the velocity of `point` along it is zero
    type: str = field(default="knife_edge", init=False)


@dataclass(frozen=True)
class RollingDisk(_OnBody):
    radius: float
    axis: Vec3 = (0.0, 0.0, 1.0)  # symmetry axis, body axes
    type: str = field(default="rolling_disk", init=False)


@dataclass(frozen=True)
class ExpressionConstraint:
    name: str
    equation: str  # = 0
    order: int = 0  # 0 holonomic, 1 velocity level, 2 acceleration level (linear in _ddot)
    type: str = field(default="expression", init=False)


@dataclass(frozen=True)
class Sphere:
    """A contact sphere: its centre `point` in `body`'s frame and its radius."""

    body: str
    point: Vec3 = (0.0, 0.0, 0.0)
    radius: float = 0.0


@dataclass(frozen=True)
class Contact:
    """A unilateral contact (engine.unilateral): sphere `a` against the ground plane (b None: the plane
    through the world origin normal to −gravity) or against sphere `b`; frictionless, Newton's
    coefficient of restitution e. Kept in `Model.contacts`, written among the file's constraints."""

    name: str
    a: Sphere
    b: Optional[Sphere] = None
    restitution: float = 0.0
    type: str = field(default="contact", init=False)


Constraint = Union[Coincident, Distance, Prescribed, KnifeEdge, RollingDisk, ExpressionConstraint]
CONSTRAINT_TYPES = ("coincident", "distance", "prescribed", "knife_edge", "rolling_disk", "expression")


# --- forces -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Spring(_BetweenPoints):
    stiffness: float
    rest_length: float = 0.0
    damping: float = 0.0
    type: str = field(default="spring", init=False)


@dataclass(frozen=True)
class JointSpring(_OnBody):
    stiffness: float
    rest: tuple[float, ...] = ()  # one per joint coordinate (loader fills zeros)
    damping: float = 0.0
    type: str = field(default="joint_spring", init=False)


@dataclass(frozen=True)
class JointEffort(_OnBody):
    value: tuple[str, ...]  # one expression per joint coordinate
    type: str = field(default="joint_effort", init=False)


@dataclass(frozen=True)
class PointForce(_OnBody):
    point: Vec3
    value: tuple[str, str, str]
    frame: str = "world"
    type: str = field(default="point_force", init=False)


@dataclass(frozen=True)
class BodyTorque(_OnBody):
    value: tuple[str, str, str]
    frame: str = "world"
    type: str = field(default="body_torque", init=False)


Force = Union[Spring, JointSpring, JointEffort, PointForce, BodyTorque]
FORCE_TYPES = ("spring", "joint_spring", "joint_effort", "point_force", "body_torque")


# --- settings and the model ----------------------------------------------------------------


@dataclass(frozen=True)
class Stabilization:
    kind: str = "none"
    alpha: float = 0.0
    beta: float = 0.0
    tolerance: float = 1e-12  # projection: target residual


@dataclass(frozen=True)
class Settings:
    method: str = "kane"
    coordinates: str = "joint"
    integrator: str = "DOP853"
    rtol: float = 1e-9
    atol: float = 1e-9
    t_end: float = 10.0
    dt_out: float = 0.01
    dt: float = 0.001  # RK4 fixed step
    stabilization: Stabilization = Stabilization()
    maggi_basis: str = "orthonormal"  # null-space basis C of the Maggi equations (an extension)


@dataclass(frozen=True)
class Model:
    name: str = "untitled"
    gravity: Vec3 = (0.0, -9.81, 0.0)
    bodies: tuple[Body, ...] = ()
    constraints: tuple[Constraint, ...] = ()
    forces: tuple[Force, ...] = ()
    settings: Settings = Settings()
    eomlab: int = 1
    contacts: tuple[Contact, ...] = ()  # unilateral contacts (the file lists them among the constraints)

    def body(self, name: str) -> Body:
        for b in self.bodies:
            if b.name == name:
                return b
        raise KeyError(name)

    def body_index(self, name: str) -> int:
        for i, b in enumerate(self.bodies):
            if b.name == name:
                return i
        raise KeyError(name)

    @property
    def coordinate_names(self) -> tuple[str, ...]:
        return tuple(n for b in self.bodies for n in b.joint.names)

    @property
    def speed_names(self) -> tuple[str, ...]:
        """The speeds' names in order (``<coordinate>_dot``, ``<body>_wx`` …: the run's columns)."""
        return tuple(n for b in self.bodies for n in speed_names(b.name, b.joint))

    def joint(self, name: str) -> Joint:
        """The joint that has the coordinate `name` (a URDF or MJCF joint's name), else the joint of the
        body `name`."""
        for b in self.bodies:
            if name in b.joint.names:
                return b.joint
        for b in self.bodies:
            if b.name == name:
                return b.joint
        raise KeyError(f"no joint coordinate or body {name!r}; coordinates: {', '.join(self.coordinate_names)}")

    def with_settings(self, **changes) -> "Model":
        return replace(self, settings=replace(self.settings, **changes))


QUATERNION_NAMES = ("e0", "e1", "e2", "e3")


def default_coordinate_names(body_name: str, joint: Joint) -> tuple[str, ...]:
    """``<body>_<dof>`` names per MODEL_FORMAT.md."""
    dofs = joint_type(joint.type).coordinate_suffixes(joint)
    return tuple(f"{body_name}_{d}" for d in dofs)


def speed_names(body_name: str, joint: Joint) -> tuple[str, ...]:
    """Speed names: ``<coordinate>_dot`` for rates, ``<body>_wx``… for body rates."""
    names = joint.names or default_coordinate_names(body_name, joint)
    return joint_type(joint.type).speed_names(body_name, joint, names)


def shape_inertia(shape: Shape, mass: float) -> Mat3:
    """Default principal inertia about the mass centre for a shape, body axes.

    rod: along body x; disk: symmetry axis body z; box: edges along body axes.
    """
    m = mass  # products, not **: a size past the limits gives inf (refused by name), never OverflowError
    if shape.kind == "rod":
        i = m * (shape.length * shape.length) / 12.0
        d = (0.0, i, i)
    elif shape.kind == "disk":
        r2 = shape.radius * shape.radius
        d = (m * r2 / 4.0, m * r2 / 4.0, m * r2 / 2.0)
    elif shape.kind == "box":
        a, b, c = shape.size
        d = (m * (b * b + c * c) / 12.0, m * (a * a + c * c) / 12.0, m * (a * a + b * b) / 12.0)
    elif shape.kind == "sphere":
        i = 0.4 * m * (shape.radius * shape.radius)
        d = (i, i, i)
    else:
        d = (0.0, 0.0, 0.0)
    return ((d[0], 0.0, 0.0), (0.0, d[1], 0.0), (0.0, 0.0, d[2]))


def inertia_ellipsoid(mass: float, inertia: Mat3):
    """(semi-axes, axes) of the uniform solid ellipsoid with this mass and inertia about its mass centre
    (I_a = m (b² + c²)/5, so a² = 5 (I_b + I_c − I_a)/(2m)); the axes are the principal ones, columns in
    body axes. None without mass or inertia, or when its axes overflow. The picture of a body the model gives no shape."""
    import numpy as np

    tensor = np.asarray(inertia, dtype=float)
    if not mass > 0 or not np.all(np.isfinite(tensor)) or not np.abs(tensor).max() > 0:
        return None
    moments, axes = np.linalg.eigh(0.5 * tensor + 0.5 * tensor.T)  # (the sum first could overflow)
    with np.errstate(over="ignore", invalid="ignore"):  # a mass near the smallest float, moments near the largest
        squares = 2.5 * (moments.sum() - 2.0 * moments) / mass  # (I_b + I_c − I_a) · 5/(2m)
    if not np.all(np.isfinite(squares)):
        return None  # an ellipsoid too large for floats to hold: drawn as a point
    return np.sqrt(np.maximum(squares, 0.0)), axes


def initial_coordinates(model: Model) -> tuple[float, ...]:
    """q0 of every joint in body order (zeros by default; Euler parameters default to the identity
    (1, 0, 0, 0))."""
    values: list[float] = []
    for b in model.bodies:
        j = b.joint
        if j.q0:
            values.extend(j.q0)
        elif j.quaternion:
            values.extend((0.0,) * (j.n_coordinates - 4) + (1.0, 0.0, 0.0, 0.0))
        else:
            values.extend((0.0,) * j.dof)
    return tuple(float(v) for v in values)


def initial_speeds(model: Model) -> tuple[float, ...]:
    """u0 of every joint in body order (zeros by default)."""
    return tuple(float(v) for b in model.bodies for v in (b.joint.u0 or (0.0,) * b.joint.dof))


def inertia_follows_shape(model: "Model", path) -> bool:
    """Whether setting the field at `path` (["bodies", i, "mass" | "shape", …]) changes a body
    whose inertia is its shape's: the edited model derives the inertia again (the one place for
    this rule: the window's edits and `Simulation.set_parameter` both ask it)."""
    if len(path) < 3 or path[0] != "bodies" or path[2] not in ("mass", "shape"):
        return False
    index = path[1]
    return isinstance(index, int) and 0 <= index < len(model.bodies) and model.bodies[index].inertia_from_shape


PLANAR_TOL = 1e-12


def is_planar(model: Model) -> bool:
    """The one planarity test (the engine's kinematics and absolute coordinates, the window's 2-D
    drawing): every body moves in a plane z = const and turns about z. Every joint frame keeps
    the z axis as it is (neither tilted nor flipped: a flipped z reverses the sense of turning,
    which the planar kinematics do not carry, so such a model runs and is drawn in 3-D), revolute
    axes lie along ±z, prismatic axes in x–y, and no joint is spherical or free."""
    if not model.bodies:
        return False
    for b in model.bodies:
        j = b.joint
        R = j.rotation
        keeps_z = all(abs(R[2][k] - (k == 2)) <= PLANAR_TOL and abs(R[k][2] - (k == 2)) <= PLANAR_TOL
                      for k in range(3))
        if not keeps_z or not joint_type(j.type).in_plane(j, PLANAR_TOL):
            return False
    return True
