"""The forces section."""
from __future__ import annotations

from eomlab.engine.expressions import expression_names
from eomlab.engine.model import BodyTorque, JointEffort, JointSpring, ModelError, PointForce, Spring
from eomlab.engine.modelfile.constraint_fields import _expression_text
from eomlab.engine.modelfile.fields import _array, _choice, _number, _numbers, _vec3
from eomlab.engine.modelfile.names import _Context, _typed_item
from eomlab.engine.modelfile.schema import _FORCE_FIELDS, _FRAMES


def _force_values(value: object, path: str, count: int, allowed: set[str]) -> tuple[str, ...]:
    if count == 1 and not isinstance(value, (list, tuple)):
        value = [value]
    items = _array(value, path, f"an array of {count} expressions")
    if len(items) != count:
        raise ModelError(path, f"expected {count} expressions, got {len(items)}")
    return tuple(_expression_text(v, f"{path}[{i}]", allowed) for i, v in enumerate(items))


def _force(data: object, path: str, index: int, ctx: _Context):
    kind, name = _typed_item(data, path, index, _FORCE_FIELDS, ctx.names)
    at = lambda key: f"{path}.{key}"  # noqa: E731
    damping = _number(data["damping"], at("damping"), minimum=0.0) if "damping" in data else 0.0
    # forces may depend on the state and time, not on accelerations
    state_names = {n for n in expression_names(ctx.coordinates) if not n.endswith("_ddot")}
    if kind == "spring":
        a, b = ctx.point_ref(data["a"], at("a")), ctx.point_ref(data["b"], at("b"))
        stiffness = _number(data["stiffness"], at("stiffness"), minimum=0.0)
        rest = _number(data["rest_length"], at("rest_length"), minimum=0.0) if "rest_length" in data else 0.0
        return Spring(name, a, b, stiffness, rest, damping)
    body = ctx.body(data["body"], at("body"))
    if kind == "joint_spring":
        dof = ctx.joint_dof(body, at("body"))
        stiffness = _number(data["stiffness"], at("stiffness"), minimum=0.0)
        return JointSpring(name, body, stiffness, _rest(data.get("rest", 0.0), at("rest"), dof), damping)
    if kind == "joint_effort":
        dof = ctx.joint_dof(body, at("body"))
        return JointEffort(name, body, _force_values(data["value"], at("value"), dof, state_names))
    frame = _choice(data["frame"], at("frame"), _FRAMES) if "frame" in data else "world"
    value = _force_values(data["value"], at("value"), 3, state_names)
    if kind == "point_force":
        point = _vec3(data["point"], at("point")) if "point" in data else (0.0, 0.0, 0.0)
        return PointForce(name, body, point, value, frame)
    return BodyTorque(name, body, value, frame)


def _rest(value: object, path: str, dof: int) -> tuple[float, ...]:
    if isinstance(value, (list, tuple)):
        return _numbers(value, path, dof, " (one per joint coordinate)")
    return (_number(value, path),) * dof
