"""From a sweep's run table to the runs themselves: each run's model, settings and initial state.

A varied model field is set in the model's file form (``model_to_dict``) and read back with the
loader, so it is validated exactly as a file would be and its errors carry the same paths.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

import numpy as np

from eomlab.engine.model import Model, ModelError

from eomlab.engine.sweep.measures import measure_columns

_TOKEN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)|\[([0-9]+)\]")
RUN_COLUMNS = ("engine", "failure")  # how each run was made, and why it stopped early ("" if it did not)


@dataclass
class Member:
    """One run: its model (settings included) and initial coordinates and speeds."""

    model: Model
    q0: np.ndarray
    u0: np.ndarray


def output_columns(sweep) -> list[str]:
    cols = ["run", *(v.name for v in sweep.varies)]
    for m in sweep.measures:
        cols += measure_columns(sweep.model, m)
    return cols + list(RUN_COLUMNS)


def _tokens(path: str) -> list:
    return [name if name else int(index) for name, index in _TOKEN.findall(path)]


def set_field(data: dict, path: str, value: float) -> None:
    """Set the numeric field at `path` (``bodies[1].mass``) in a model's file form."""
    where = f"--vary {path}"
    node = data
    tokens = _tokens(path)
    for depth, token in enumerate(tokens):
        last = depth == len(tokens) - 1
        try:
            child = node[token]
        except (KeyError, IndexError, TypeError):
            raise ModelError(where, f"the model has no field {path!r}") from None
        if last:
            if isinstance(child, bool) or not isinstance(child, (int, float, list)):
                raise ModelError(where, f"{path} is not a number")
            if isinstance(child, list):  # a vector given one number: its length, same direction
                if not all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in child):
                    raise ModelError(where, f"{path} is not a number or a vector of numbers")
                length = math.sqrt(sum(c * c for c in child))
                if length == 0:
                    raise ModelError(where, f"{path} is a zero vector: vary its components ({path}[0], …)")
                node[token] = [c * value / length for c in child]
            else:
                node[token] = float(value)
        node = child


def _with_fields(model: Model, values: dict[str, float]) -> Model:
    from eomlab.engine.modelfile import model_from_dict, model_to_dict

    data = model_to_dict(model)
    for path, value in values.items():
        set_field(data, path, value)
    try:
        return model_from_dict(data)
    except ModelError as err:
        shown = ", ".join(f"{k} = {v:g}" for k, v in values.items())
        raise ModelError(err.path, f"{err.message} (with {shown})") from None


def check_parameters(sweep) -> None:
    """Each varied model field exists, and its extreme values give a valid model."""
    for v in sweep.varies:
        if v.kind != "param":
            continue
        for value in (min(v.values), max(v.values)):
            try:
                _with_fields(sweep.model, {v.name: value})
            except ModelError as err:
                raise ModelError(f"--vary {v.name}", err.message if err.path.startswith("--vary") else
                                 f"{err.path}: {err.message}") from None


SETTING_FIELDS = {"method": "method", "coordinates": "coordinates", "integrator": "integrator", "rtol": "rtol", "atol": "atol"}


def members(sweep, table: dict[str, np.ndarray]) -> tuple[list[Member | None], list[str]]:
    """The runs of `table`; a run whose varied fields make no valid model is None, with its reason."""
    n = len(table["run"])
    params = [v for v in sweep.varies if v.kind == "param"]
    settings = [v for v in sweep.varies if v.kind == "setting"]
    base_q = np.array([v for b in sweep.model.bodies for v in b.joint.q0], float)
    base_u = np.array([v for b in sweep.model.bodies for v in b.joint.u0], float)
    models: dict[tuple, Model | ModelError] = {}
    out: list[Member | None] = []
    reasons = [""] * n
    for i in range(n):
        key = tuple(float(table[v.name][i]) for v in params)
        if key not in models:
            try:
                models[key] = _with_fields(sweep.model, dict(zip((v.name for v in params), key))) if params else sweep.model
            except ModelError as err:
                models[key] = err
        model = models[key]
        if isinstance(model, ModelError):
            out.append(None)
            reasons[i] = f"invalid model: {model.one_line()}"
            continue
        changes = {"t_end": sweep.t_end}
        for v in settings:
            value = table[v.name][i]
            if v.name == "tol":
                changes["rtol"] = changes["atol"] = float(value)
            else:
                changes[SETTING_FIELDS[v.name]] = float(value) if v.name in ("rtol", "atol") else str(value)
        model = model.with_settings(**changes)
        q0 = np.array([v for b in model.bodies for v in b.joint.q0], float) if params else base_q.copy()
        u0 = np.array([v for b in model.bodies for v in b.joint.u0], float) if params else base_u.copy()
        for v in sweep.varies:
            if v.kind == "q":
                q0[v.index] = table[v.name][i]
            elif v.kind == "u":
                u0[v.index] = table[v.name][i]
        out.append(Member(model, q0, u0))
    return out, reasons


def with_initial_state(model: Model, q0: np.ndarray, u0: np.ndarray) -> Model:
    """The model whose joints start at q0, u0 (a single run of one member)."""
    bodies, iq, iu = [], 0, 0
    for b in model.bodies:
        nq, nu = b.joint.n_coordinates, b.joint.dof
        joint = replace(b.joint, q0=tuple(float(x) for x in q0[iq:iq + nq]), u0=tuple(float(x) for x in u0[iu:iu + nu]))
        bodies.append(replace(b, joint=joint))
        iq, iu = iq + nq, iu + nu
    return replace(model, bodies=tuple(bodies))
