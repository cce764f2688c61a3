"""Names claimed across sections (bodies, coordinates, constraints, forces), and what constraints and
forces may refer to."""
from __future__ import annotations

from dataclasses import dataclass, field

from eomlab.engine.model import GROUND, Body, ModelError, PointRef, speed_names
from eomlab.engine.modelfile.fields import _array, _choice, _fields, _identifier, _kind, _vec3
from eomlab.engine.modelfile.schema import _AXES, _REQUIRED, _RESERVED_COORDINATES


@dataclass
class _Names:
    """Names claimed so far (bodies, coordinates, constraints, forces) and where."""

    where: dict[str, str] = field(default_factory=dict)
    bodies: set[str] = field(default_factory=set)
    beside_bodies: set[str] = field(default_factory=set)  # coordinates named as a body (README: names)

    def claim(self, name: str, path: str, beside_body: bool = False) -> None:
        """Claim `name` for the item at `path`; a coordinate (`beside_body`) may share a body's name,
        as URDF and MJCF files often name a joint after its link: columns and expressions never
        mix the two (a body's columns are `<body>.x`, never a bare name)."""
        if name == GROUND:
            raise ModelError(path, "'ground' is reserved for the world")
        if beside_body and name in self.bodies and name not in self.beside_bodies:
            self.beside_bodies.add(name)
            return
        if name in self.where:
            raise ModelError(path, f"duplicate name '{name}' (already used at {self.where[name]})")
        self.where[name] = path


def _claim_body_names(bodies: list[Body], names: _Names) -> None:
    for i, b in enumerate(bodies):
        names.claim(b.name, f"bodies[{i}].name")
        names.bodies.add(b.name)


def _claim_coordinates(bodies: list[Body], data: list, names: _Names) -> None:
    """Coordinates are unique, not reserved words, and collide with no rate or speed name."""
    coordinates: dict[str, str] = {}
    derived: dict[str, str] = {}  # rate, acceleration and body-rate names -> where they come from
    for i, b in enumerate(bodies):
        given = "names" in data[i]["joint"]
        for k, name in enumerate(b.joint.names):
            path = f"bodies[{i}].joint.names[{k}]" if given else f"bodies[{i}].joint"
            if name in _RESERVED_COORDINATES:
                raise ModelError(path, f"coordinate name '{name}' is reserved (expressions use it)")
            if name in derived:
                raise ModelError(path, f"coordinate name '{name}' is also the rate/speed name of {derived[name]}")
            names.claim(name, path, beside_body=True)
            coordinates[name] = path
            for rate in (f"{name}_dot", f"{name}_ddot"):
                if rate in coordinates:
                    raise ModelError(path, f"rate name '{rate}' is also the coordinate at {coordinates[rate]}")
                derived[rate] = path
        for speed in speed_names(b.name, b.joint):
            if speed in coordinates and speed not in derived:
                raise ModelError(f"bodies[{i}].joint", f"speed name '{speed}' is also the coordinate at {coordinates[speed]}")
            derived.setdefault(speed, f"bodies[{i}].joint")


# --- constraints and forces ----------------------------------------------------------------


@dataclass
class _Context:
    """What constraints and forces may refer to."""

    dofs: dict[str, int]  # body name -> number of joint coordinates
    coordinates: tuple[str, ...]
    names: _Names

    def body(self, value: object, path: str, allow_ground: bool = False) -> str:
        name = _identifier(value, path)
        if name == GROUND and allow_ground:
            return name
        if name not in self.dofs:
            extra = " ('ground' is not allowed here)" if name == GROUND else ""
            raise ModelError(path, f"unknown body '{name}'{extra}")
        return name

    def point_ref(self, value: object, path: str) -> PointRef:
        data = _fields(value, path, ("body", "point"), ("body",))
        body = self.body(data["body"], f"{path}.body", allow_ground=True)
        point = _vec3(data["point"], f"{path}.point") if "point" in data else (0.0, 0.0, 0.0)
        return PointRef(body=body, point=point)

    def coordinate(self, value: object, path: str) -> str:
        name = _identifier(value, path)
        if name not in self.coordinates:
            shown = ", ".join(self.coordinates[:8]) + (", ..." if len(self.coordinates) > 8 else "")
            raise ModelError(path, f"unknown coordinate '{name}' (coordinates: {shown or 'none'})")
        return name

    def joint_dof(self, body: str, path: str) -> int:
        dof = self.dofs[body]
        if dof == 0:
            raise ModelError(path, f"body '{body}' has a fixed joint: no coordinates to act on")
        return dof


def _typed_item(data: object, path: str, index: int, types: dict[str, tuple[str, ...]], names: _Names):
    """Common part of constraints and forces: the type, the allowed fields and the name."""
    if not isinstance(data, dict):
        raise ModelError(path, f"expected an object, got {_kind(data)}")
    if "type" not in data:
        raise ModelError(f"{path}.type", "required field is missing")
    kind = _choice(data["type"], f"{path}.type", tuple(types))
    _fields(data, path, ("type", "name") + types[kind], _REQUIRED[kind])
    name = _identifier(data["name"], f"{path}.name") if "name" in data else f"{kind}{index}"
    names.claim(name, f"{path}.name")
    return kind, name


def _dims(value: object, path: str) -> tuple[str, ...]:
    items = _array(value, path, "an array of axis names")
    dims = tuple(_choice(v, f"{path}[{i}]", _AXES) for i, v in enumerate(items))
    if not dims:
        raise ModelError(path, "must list at least one of x, y, z")
    if len(set(dims)) != len(dims):
        raise ModelError(path, "lists an axis twice")
    return dims
