"""A model to a dict, JSON text or a file: the shortest round-trip repr of every number, saved
atomically (a temporary file beside the target, flushed, then renamed)."""
from __future__ import annotations

import json
import os
import stat
import tempfile
from typing import Any, Iterable

from eomlab.engine.model import (
    IDENTITY3, Body, BodyTorque, Coincident, Distance, ExpressionConstraint, Joint, JointEffort, JointSpring,
    KnifeEdge, Mat3, Model, ModelError, PointForce, PointRef, Prescribed, RollingDisk, Settings, Shape, Spring,
    joint_type,
)
from eomlab.engine.modelfile.reading import model_from_dict
from eomlab.engine.modelfile.schema import _SHAPE_DIMENSION
from eomlab.engine.modelfile.unilateral_fields import contact_out, limits_out


def _floats(values: Iterable[float]) -> list[float]:
    return [float(v) for v in values]


def _matrix_out(matrix: Mat3) -> list[list[float]]:
    return [_floats(row) for row in matrix]


def _inertia_out(matrix: Mat3) -> list:
    off_diagonal = [matrix[i][j] for i in range(3) for j in range(3) if i != j]
    if all(v == 0 for v in off_diagonal):
        return _floats(matrix[i][i] for i in range(3))
    return _matrix_out(matrix)


def _joint_out(joint: Joint) -> dict:
    out: dict[str, Any] = {"type": joint.type}
    defaults = Joint(type=joint.type)
    kind = joint_type(joint.type)
    if kind.uses_axis or joint.axis != defaults.axis:
        out["axis"] = _floats(joint.axis)
    if kind.uses_axis2 or joint.axis2 != defaults.axis2:
        out["axis2"] = _floats(joint.axis2)
    out["at"] = _floats(joint.at)
    if joint.rotation != IDENTITY3:
        out["rotation"] = _matrix_out(joint.rotation)
    if joint.q0 or not joint.dof:  # empty in a joint built in code: the loader's defaults
        out["q0"] = _floats(joint.q0)
    if joint.u0 or not joint.dof:
        out["u0"] = _floats(joint.u0)
    angular = kind.orientation
    if joint.quaternion:
        out["orientation"] = joint.orientation
    elif angular or joint.sequence != defaults.sequence:
        out["sequence"] = joint.sequence
    if (angular and not joint.quaternion) or joint.speeds != defaults.speeds:
        out["speeds"] = joint.speeds
    if joint.names:  # a joint built in code may leave them to the loader's defaults
        out["names"] = list(joint.names)
    if joint.limits:
        out["limits"] = limits_out(joint)
    if joint.restitution:
        out["restitution"] = float(joint.restitution)
    if joint.armature:
        out["armature"] = float(joint.armature)
    return out


def _shape_out(shape: Shape) -> dict:
    out: dict[str, Any] = {"kind": shape.kind}
    needed = _SHAPE_DIMENSION[shape.kind]
    if needed == "length" or shape.length:
        out["length"] = float(shape.length)
    if needed == "radius" or shape.radius:
        out["radius"] = float(shape.radius)
    if needed == "size" or any(shape.size):
        out["size"] = _floats(shape.size)
    return out


def _body_out(body: Body) -> dict:
    out = {
        "name": body.name,
        "parent": body.parent,
        "joint": _joint_out(body.joint),
        "mass": float(body.mass),
        "com": _floats(body.com),
        "inertia": _inertia_out(body.inertia),
    }
    if body.shape is not None:
        out["shape"] = _shape_out(body.shape)
    return out


def _point_out(ref: PointRef) -> dict:
    return {"body": ref.body, "point": _floats(ref.point)}


def _constraint_out(c) -> dict:
    out: dict[str, Any] = {"type": c.type, "name": c.name}
    if isinstance(c, Coincident):
        out.update(a=_point_out(c.a), b=_point_out(c.b), dims=list(c.dims))
    elif isinstance(c, Distance):
        out.update(a=_point_out(c.a), b=_point_out(c.b), length=float(c.length))
    elif isinstance(c, Prescribed):
        out.update(coordinate=c.coordinate, motion=c.motion)
    elif isinstance(c, KnifeEdge):
        out.update(body=c.body, point=_floats(c.point), direction=_floats(c.direction))
    elif isinstance(c, RollingDisk):
        out.update(body=c.body, radius=float(c.radius), axis=_floats(c.axis))
    elif isinstance(c, ExpressionConstraint):
        out.update(equation=c.equation, order=int(c.order))
    else:
        raise ModelError("constraints", f"cannot save a constraint of type {type(c).__name__}")
    return out


def _force_out(f) -> dict:
    out: dict[str, Any] = {"type": f.type, "name": f.name}
    if isinstance(f, Spring):
        out.update(a=_point_out(f.a), b=_point_out(f.b), stiffness=float(f.stiffness),
                   rest_length=float(f.rest_length), damping=float(f.damping))
    elif isinstance(f, JointSpring):
        out.update(body=f.body, stiffness=float(f.stiffness), rest=_floats(f.rest), damping=float(f.damping))
    elif isinstance(f, JointEffort):
        out.update(body=f.body, value=list(f.value))
    elif isinstance(f, PointForce):
        out.update(body=f.body, point=_floats(f.point), value=list(f.value), frame=f.frame)
    elif isinstance(f, BodyTorque):
        out.update(body=f.body, value=list(f.value), frame=f.frame)
    else:
        raise ModelError("forces", f"cannot save a force of type {type(f).__name__}")
    return out


def _settings_out(s: Settings) -> dict:
    stabilization = {"kind": s.stabilization.kind}
    if s.stabilization.kind == "baumgarte" or s.stabilization.alpha or s.stabilization.beta:
        stabilization.update(alpha=float(s.stabilization.alpha), beta=float(s.stabilization.beta))
    stabilization["tolerance"] = float(s.stabilization.tolerance)
    out = {
        "method": s.method, "coordinates": s.coordinates, "integrator": s.integrator,
        "rtol": float(s.rtol), "atol": float(s.atol), "t_end": float(s.t_end),
        "dt_out": float(s.dt_out), "dt": float(s.dt), "stabilization": stabilization,
    }
    if s.maggi_basis != Settings().maggi_basis:
        out["maggi_basis"] = s.maggi_basis
    return out


def model_to_dict(model: Model) -> dict:
    """The model as a JSON-ready dict, every value explicit so that loading it gives `model` back."""
    return {
        "eomlab": int(model.eomlab),
        "name": model.name,
        "gravity": _floats(model.gravity),
        "bodies": [_body_out(b) for b in model.bodies],
        "constraints": [_constraint_out(c) for c in model.constraints] + [contact_out(c) for c in model.contacts],
        "forces": [_force_out(f) for f in model.forces],
        "settings": _settings_out(model.settings),
    }


def dumps_model(model: Model) -> str:
    """The model file's text: JSON with short arrays and objects kept on one line."""
    return _format_json(model_to_dict(model), 0) + "\n"


def _format_json(value: Any, indent: int, width: int = 100) -> str:
    flat = json.dumps(value, allow_nan=False, ensure_ascii=False, separators=(", ", ": "))
    if len(flat) + indent <= width or not isinstance(value, (dict, list)) or not value:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, list):
        items = [pad + _format_json(v, indent + 2, width) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
    items = [f"{pad}{json.dumps(k, ensure_ascii=False)}: {_format_json(v, indent + 2, width).lstrip()}"
             for k, v in value.items()]
    return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"


def save_model(model: Model, path: str | os.PathLike) -> None:
    """Write `model` to `path` atomically.

    The model is validated (a saved file always loads) and serialised first, then written to
    a temporary file in the same directory, flushed, fsync'ed and moved over `path` with
    ``os.replace``. On any failure the old file is left untouched and no temporary file stays.

    Raises
    ------
    ModelError
        The model does not validate (with the field path).
    OSError
        The file cannot be written (e.g. a read-only directory).
    """
    target = os.fspath(path)
    data = model_to_dict(model)
    model_from_dict(data, target)
    text = _format_json(data, 0) + "\n"
    _write_atomic(target, text)


def _write_atomic(target: str, text: str) -> None:
    directory = os.path.dirname(os.path.abspath(target))
    mode = _file_mode(target)
    handle, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise
    _fsync_directory(directory)


def _file_mode(target: str) -> int:
    """Keep an existing file's permissions; new files get rw-r--r--."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        return 0o644


def _fsync_directory(directory: str) -> None:
    """Make the rename itself durable where the platform allows it."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
