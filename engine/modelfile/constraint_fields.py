"""The constraints section, with the checks on prescribed motions and equations."""
from __future__ import annotations

import math
from typing import Iterable

from eomlab.engine.expressions import expression_names, parse_expression, symbol
from eomlab.engine.lazy_imports import sympy as sp
from eomlab.engine.model import Coincident, Distance, ExpressionConstraint, KnifeEdge, ModelError, Prescribed, RollingDisk
from eomlab.engine.modelfile.fields import _integer, _number, _string, _unit_vec3, _vec3
from eomlab.engine.modelfile.json_text import _NonFinite
from eomlab.engine.modelfile.names import _Context, _dims, _typed_item
from eomlab.engine.modelfile.schema import _AXES, _CONSTRAINT_FIELDS
from eomlab.engine.modelfile.unilateral_fields import read_contact


def _constraint(data: object, path: str, index: int, ctx: _Context):
    kind, name = _typed_item(data, path, index, _CONSTRAINT_FIELDS, ctx.names)
    at = lambda key: f"{path}.{key}"  # noqa: E731
    if kind == "contact":  # unilateral: kept in Model.contacts (engine.unilateral)
        return read_contact(data, path, name, tuple(ctx.dofs))
    if kind == "coincident":
        dims = _dims(data["dims"], at("dims")) if "dims" in data else _AXES
        return Coincident(name, ctx.point_ref(data["a"], at("a")), ctx.point_ref(data["b"], at("b")), dims)
    if kind == "distance":
        a, b = ctx.point_ref(data["a"], at("a")), ctx.point_ref(data["b"], at("b"))
        return Distance(name, a, b, _number(data["length"], at("length"), positive=True))
    if kind == "prescribed":
        coordinate = ctx.coordinate(data["coordinate"], at("coordinate"))
        return Prescribed(name, coordinate, _expression_text(data["motion"], at("motion"), ()))
    if kind == "knife_edge":
        body = ctx.body(data["body"], at("body"))
        point = _vec3(data["point"], at("point")) if "point" in data else (0.0, 0.0, 0.0)
        return KnifeEdge(name, body, point, _unit_vec3(data["direction"], at("direction")))
    if kind == "rolling_disk":
        body = ctx.body(data["body"], at("body"))
        axis = _unit_vec3(data["axis"], at("axis")) if "axis" in data else (0.0, 0.0, 1.0)
        return RollingDisk(name, body, _number(data["radius"], at("radius"), positive=True), axis)
    order = _integer(data["order"], at("order")) if "order" in data else 0
    if order not in (0, 1, 2):
        raise ModelError(at("order"), f"must be 0, 1 or 2, got {order}")
    equation = _equation(data["equation"], at("equation"), order, ctx.coordinates)
    return ExpressionConstraint(name, equation, order)


#: times at which two motions prescribed for one coordinate are compared
_MOTION_CHECK_TIMES = (0.0, 0.37, 1.3, 2.9)


def _check_prescribed_once(constraints: tuple) -> None:
    """Two `prescribed` constraints on one coordinate must prescribe the same motion: the same
    one twice is merely redundant (the formulations that handle redundancy run it), different
    ones cannot both hold."""
    first: dict[str, tuple[int, sp.Expr]] = {}
    for i, c in enumerate(constraints):
        if not isinstance(c, Prescribed):
            continue
        motion = parse_expression(c.motion, (), f"constraints[{i}].motion").sympy
        if c.coordinate not in first:
            first[c.coordinate] = (i, motion)
            continue
        j, earlier = first[c.coordinate]
        if _motions_differ(earlier, motion):
            raise ModelError(
                f"constraints[{i}].motion", f"inconsistent constraints: '{c.coordinate}' is already prescribed by "
                f"constraints[{j}] ('{constraints[j].name}') with a different motion; both cannot hold"
            )


def _motions_differ(a: sp.Expr, b: sp.Expr) -> bool:
    """True when two motions in t differ at one of a few times (False when they cannot be told apart)."""
    if a == b:
        return False
    t = symbol("t")
    for value in _MOTION_CHECK_TIMES:
        try:
            x, y = complex(a.subs(t, value).evalf()), complex(b.subs(t, value).evalf())
        except (TypeError, ValueError, OverflowError, ZeroDivisionError):
            return False
        if not (math.isfinite(abs(x)) and math.isfinite(abs(y))):
            return False
        if abs(x - y) > 1e-9 * (1.0 + abs(x)):
            return True
    return False


def _expression_text(value: object, path: str, allowed: Iterable[str]) -> str:
    """A validated expression, kept as text; a plain number is accepted and kept as its text."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = repr(_number(value, path))
    if isinstance(value, _NonFinite):
        _number(value, path)
    text = _string(value, path)
    parse_expression(text, allowed, path)
    return text


def _equation(value: object, path: str, order: int, coordinates: tuple[str, ...]) -> str:
    """An expression constraint's equation, checked against its order."""
    text = _string(value, path)
    parsed = parse_expression(text, expression_names(coordinates), path)
    rates = {f"{c}_dot" for c in coordinates} & parsed.names
    accelerations = {f"{c}_ddot" for c in coordinates} & parsed.names
    if order == 0 and (rates or accelerations):
        used = sorted(rates | accelerations)[0]
        raise ModelError(path, f"an order-0 (position) equation may not use rates or accelerations, got '{used}'")
    if order == 1 and accelerations:
        raise ModelError(path, f"an order-1 (velocity) equation may not use accelerations, got '{sorted(accelerations)[0]}'")
    if order == 1 and not rates:
        raise ModelError(path, "an order-1 (velocity) equation must use at least one rate (_dot)")
    if order == 2:
        _check_linear_in(parsed.sympy, sorted(accelerations), path)
    if order == 0 and not (parsed.names & set(coordinates)):
        raise ModelError(path, "an order-0 (position) equation must use at least one coordinate")
    return text


def _check_linear_in(expr: sp.Expr, accelerations: list[str], path: str) -> None:
    if not accelerations:
        raise ModelError(path, "an order-2 equation must use at least one acceleration (_ddot)")
    symbols = {symbol(a) for a in accelerations}
    for a in accelerations:
        if sp.diff(expr, symbol(a)).free_symbols & symbols:
            raise ModelError(path, f"an order-2 equation must be linear in the accelerations; it is not linear in '{a}'")
