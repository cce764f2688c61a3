"""The bodies section: joints, shapes and bodies, put in tree order (parents first)."""
from __future__ import annotations

from eomlab.engine.model import (
    GROUND, JOINT_TYPES, SHAPE_KINDS, Body, Joint, ModelError, Shape, default_coordinate_names,
    joint_type, shape_inertia,
)
from eomlab.engine.limits import check_mass_and_shape
from eomlab.engine.modelfile.unilateral_fields import read_limits, read_restitution
from eomlab.engine.modelfile.fields import (
    _array, _choice, _diagonal, _fields, _identifier, _inertia, _number, _numbers, _rotation, _show, _string,
    _unit_vec3, _vec3,
)
from eomlab.engine.modelfile.schema import _BODY_FIELDS, _JOINT_FIELDS, _SHAPE_DIMENSION, _SHAPE_FIELDS


def _joint(data: object, path: str, body_name: str) -> Joint:
    data = _fields(data, path, _JOINT_FIELDS, ("type",))
    kind = _choice(data["type"], f"{path}.type", JOINT_TYPES)
    dof = joint_type(kind).dof
    orientation = _orientation(data, path, kind)
    defaults = Joint(type=kind, orientation=orientation)
    n_q = defaults.n_coordinates
    why = f" (one per coordinate of a {kind} joint)"
    why_u = f" (one per speed of a {kind} joint)" if n_q != dof else why

    def read(key: str, reader, *args):
        return reader(data[key], f"{path}.{key}", *args) if key in data else getattr(defaults, key)

    names = (
        _coordinate_names(data["names"], f"{path}.names", n_q, kind)
        if "names" in data
        else default_coordinate_names(body_name, defaults)
    )
    speeds = read("speeds", _choice, ("body", "euler"))
    if defaults.quaternion and speeds != "body":
        raise ModelError(f"{path}.speeds", "Euler parameters (orientation \"quaternion\") take body-rate speeds only: use \"body\"")
    if "q0" in data:
        q0 = _numbers(data["q0"], f"{path}.q0", n_q, why)
    else:
        q0 = (0.0,) * (n_q - 4) + (1.0, 0.0, 0.0, 0.0) if defaults.quaternion else (0.0,) * dof
    if defaults.quaternion and not sum(v * v for v in q0[-4:]) > 1e-24:
        raise ModelError(f"{path}.q0", "the four Euler parameters are all zero (the identity is [1, 0, 0, 0])")
    joint = Joint(
        type=kind,
        axis=read("axis", _unit_vec3),
        axis2=read("axis2", _unit_vec3),
        at=read("at", _vec3),
        rotation=read("rotation", _rotation),
        q0=q0,
        u0=_numbers(data["u0"], f"{path}.u0", dof, why_u) if "u0" in data else (0.0,) * dof,
        sequence=read("sequence", _sequence),
        speeds=speeds,
        names=names,
        orientation=orientation,
        limits=read_limits(data["limits"], f"{path}.limits", dof) if "limits" in data else (),
        restitution=read_restitution(data["restitution"], f"{path}.restitution") if "restitution" in data else 0.0,
        armature=_number(data["armature"], f"{path}.armature", minimum=0.0) if "armature" in data else 0.0,
    )
    joint_type(kind).check(joint, path)
    return joint


def _orientation(data: dict, path: str, kind: str) -> str:
    if "orientation" not in data:
        return "angles"
    value = _choice(data["orientation"], f"{path}.orientation", ("angles", "quaternion"))
    if value == "quaternion" and not joint_type(kind).orientation:
        raise ModelError(f"{path}.orientation", f"\"quaternion\" applies to spherical and free joints, not {kind}")
    return value


def _coordinate_names(value: object, path: str, dof: int, kind: str) -> tuple[str, ...]:
    items = _array(value, path, f"an array of {dof} names")
    if len(items) != dof:
        raise ModelError(path, f"expected {dof} names (one per coordinate of a {kind} joint), got {len(items)}")
    return tuple(_identifier(v, f"{path}[{i}]") for i, v in enumerate(items))


def _sequence(value: object, path: str) -> str:
    text = _string(value, path)
    valid = len(text) == 3 and all(c in "xyz" for c in text) and text[0] != text[1] and text[1] != text[2]
    if not valid:
        raise ModelError(
            path, f"Euler sequence must be 3 letters from x, y, z with no two neighbours equal "
            f"(e.g. 'zxz', 'xyz'), got {_show(text)}"
        )
    return text


def _shape(data: object, path: str) -> Shape:
    data = _fields(data, path, _SHAPE_FIELDS, ("kind",))
    kind = _choice(data["kind"], f"{path}.kind", SHAPE_KINDS)
    needed = _SHAPE_DIMENSION[kind]
    if needed and needed not in data:
        raise ModelError(f"{path}.{needed}", f"required for a {kind} shape")
    positive = {k: k == needed for k in ("length", "radius", "size")}
    length = _number(data["length"], f"{path}.length", 0.0, positive["length"]) if "length" in data else 0.0
    radius = _number(data["radius"], f"{path}.radius", 0.0, positive["radius"]) if "radius" in data else 0.0
    size = _vec3(data["size"], f"{path}.size", minimum=0.0, positive=positive["size"]) if "size" in data else (0.0,) * 3
    return Shape(kind=kind, length=length, radius=radius, size=size)


def _body(data: object, path: str) -> Body:
    data = _fields(data, path, _BODY_FIELDS, ("name", "parent", "joint"))
    name = _identifier(data["name"], f"{path}.name")
    parent = _identifier(data["parent"], f"{path}.parent")
    joint = _joint(data["joint"], f"{path}.joint", name)
    mass = _number(data["mass"], f"{path}.mass", minimum=0.0) if "mass" in data else 0.0
    com = _vec3(data["com"], f"{path}.com") if "com" in data else (0.0, 0.0, 0.0)
    shape = _shape(data["shape"], f"{path}.shape") if "shape" in data else None
    check_mass_and_shape(mass, shape, path)  # named here, before an inertia is derived from them
    if "inertia" in data:
        inertia = _inertia(data["inertia"], f"{path}.inertia")
    else:
        inertia = shape_inertia(shape, mass) if shape else _diagonal((0.0, 0.0, 0.0))
    return Body(name=name, parent=parent, joint=joint, mass=mass, com=com, inertia=inertia, shape=shape)


def _tree_order(bodies: list[Body]) -> tuple[Body, ...]:
    """Check that the bodies form a tree on the ground and order parents before children.

    The order is stable: a body keeps its place unless its parent comes later in the file.
    """
    index = {b.name: i for i, b in enumerate(bodies)}
    for i, b in enumerate(bodies):
        if b.parent == b.name:
            raise ModelError(f"bodies[{i}].parent", f"body '{b.name}' cannot be its own parent")
        if b.parent != GROUND and b.parent not in index:
            raise ModelError(f"bodies[{i}].parent", f"unknown parent '{b.parent}' (must be 'ground' or a body's name)")
    placed: set[str] = set()
    order: list[Body] = []
    for b in bodies:
        chain = _unplaced_ancestry(b, bodies, index, placed)
        for member in reversed(chain):
            placed.add(member.name)
            order.append(member)
    return tuple(order)


def _unplaced_ancestry(body: Body, bodies: list[Body], index: dict[str, int], placed: set[str]) -> list[Body]:
    """`body` and its ancestors up to the first placed one (or ground), child first."""
    chain: list[Body] = []
    seen: dict[str, int] = {}
    current = body
    while current.name not in placed:
        if current.name in seen:
            cycle = [b.name for b in chain[seen[current.name]:]] + [current.name]
            path = f"bodies[{index[current.name]}].parent"
            raise ModelError(path, f"cycle {' -> '.join(cycle)}: every body must hang from ground")
        seen[current.name] = len(chain)
        chain.append(current)
        if current.parent == GROUND:
            break
        current = bodies[index[current.parent]]
    return chain
