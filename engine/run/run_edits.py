"""Edits of a running Simulation: go back to a sample, set the state, change a parameter, push.

Every edit acts at the time of the latest stored sample (the instant the window shows): the
integrator's progress beyond it is dropped, the integrator restarts there, and the next samples
continue on the same time axis (k·dt_out). `Simulation` delegates these methods to `RunEdits`.

    sim.advance(1.0)
    sim.set_parameter("bodies[0].mass", 2.0)   # the run goes on from t = 1 s with the new mass
    sim.advance(2.0)
"""
from __future__ import annotations

import io
import math
import re
import tokenize

import numpy as np

from eomlab.engine.forcing.generalized_forces import PushElement
from eomlab.engine.formulations import make_formulation
from eomlab.engine.model import ModelError
from eomlab.engine.run.run_course import RunCourse, Stretch
from eomlab.engine.modelfile import model_from_dict, model_to_dict
from eomlab.engine.modelfile.edit_rules import follow_edit
from eomlab.engine.mechanics.projection import ProjectionFailure, project_positions, project_velocities
from eomlab.engine.mechanics.system import SingularMassMatrix, build_system

#: the parts of a model a parameter path may name (settings change the run, not the motion)
PARAMETER_ROOTS = ("gravity", "bodies", "forces", "constraints")
_PATH_PART = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\.")
_EDIT_ERRORS = (SingularMassMatrix, ProjectionFailure, ArithmeticError, np.linalg.LinAlgError, ValueError)


def parse_path(path: str) -> list:
    """"bodies[1].shape.length" → ["bodies", 1, "shape", "length"]; ModelError when malformed."""
    parts: list = []
    pos = 0
    while pos < len(path):
        m = _PATH_PART.match(path, pos)
        if m is None:
            raise ModelError(path, "not a parameter path (write it as in the error messages: bodies[1].mass)")
        if m.group(1):
            parts.append(m.group(1))
        elif m.group(2):
            parts.append(int(m.group(2)))
        pos = m.end()
    if not parts or not isinstance(parts[0], str):
        raise ModelError(path, "not a parameter path (write it as in the error messages: bodies[1].mass)")
    return parts


def _numeric(value, path: str):
    """A number or a (nested) list of numbers, as plain floats; ModelError otherwise."""
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_numeric(v, path) for v in value]
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ModelError(path, f"must be a number or a list of numbers, got {value!r}")
    if not math.isfinite(float(value)):
        raise ModelError(path, f"must be finite, got {value!r}")
    return float(value)


def _vector(value, path: str, size: int) -> np.ndarray:
    try:
        v = np.array(value, dtype=float).ravel()
    except (TypeError, ValueError):
        raise ModelError(path, f"must be {size} numbers, got {value!r}") from None
    if v.size != size:
        raise ModelError(path, f"must be {size} numbers, got {v.size}")
    if not np.all(np.isfinite(v)):
        raise ModelError(path, "must be finite")
    return v


def _constant_tokens(text: str) -> list[tokenize.TokenInfo]:
    """The numeric literals of an expression (Python's tokenizer: nothing is evaluated), but not
    exponents (the 2 of x**2 is the form, not a constant)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return []
    return [tok for prev, tok in zip([None, *tokens], tokens)
            if tok.type == tokenize.NUMBER and not (prev is not None and prev.string == "**")
            and not tok.string.lower().endswith("j")]


def expression_constants(text: str) -> list[float]:
    """The constants written in an effort expression, in order ("-0.5*theta_dot + 2*sin(t)" →
    [0.5, 2.0]): what `set_parameter("forces[0].value.constants[k]", v)` changes."""
    return [float(tok.string) for tok in _constant_tokens(text)]


def _with_constant(text: str, k: int, value: float, path: str) -> str:
    tokens = _constant_tokens(text)
    if not 0 <= k < len(tokens):
        raise ModelError(path, f"the expression {text!r} has {len(tokens)} constant(s)")
    if value < 0:
        raise ModelError(path, "a constant is the number as written in the expression (no sign): must be ≥ 0")
    lines = text.split("\n")
    (row, start), (_, end) = tokens[k].start, tokens[k].end
    lines[row - 1] = lines[row - 1][:start] + repr(float(value)) + lines[row - 1][end:]
    return "\n".join(lines)


def _parent_of(data: dict, parts: list, path: str, missing: str):
    """(the container holding the field `parts` names, its value there), or a ModelError saying `missing`."""
    node = data
    try:
        for part in parts[:-1]:
            node = node[part]
        return node, node[parts[-1]]
    except (KeyError, IndexError, TypeError):
        raise ModelError(path, missing) from None


def _set_expression_constant(data: dict, parts: list, path: str, value) -> None:
    """`parts` = [..., "constants", k]: the k-th constant of the expression at parts[:-2]."""
    node, text = _parent_of(data, parts[:-2], path, "no such expression in this model")
    if not isinstance(text, str) or isinstance(value, list):
        raise ModelError(path, "constants are numbers of an expression: give one number")
    node[parts[-3]] = _with_constant(text, parts[-1], value, path)


def model_with_parameter(model, path: str, value):
    """The model with the numeric field at `path` (``bodies[1].mass``, ``gravity``, or the k-th
    constant of an expression, ``forces[0].value.constants[k]``) set to `value`, validated as a
    model file is. What the edit carries follows it, as in the window (`modelfile.edit_rules`:
    a shape's inertia, a rod's mass centre and its children's joints)."""
    parts = parse_path(path)
    if parts[0] not in PARAMETER_ROOTS:
        raise ModelError(path, f"not a parameter of the motion (parameters are under {', '.join(PARAMETER_ROOTS)})")
    value = _numeric(value, path)
    data = model_to_dict(model)
    follow_edit(model, data, parts, value)
    if len(parts) >= 4 and parts[-2] == "constants" and isinstance(parts[-1], int):
        _set_expression_constant(data, parts, path, value)
        return model_from_dict(data)
    node, old = _parent_of(data, parts, path, "no such parameter in this model")
    if isinstance(old, (str, bool, dict)) or old is None:
        raise ModelError(path, "not a numeric parameter")
    node[parts[-1]] = value
    return model_from_dict(data)


class RunEdits:
    """The edits a window or a script makes to a run (`Simulation` delegates to it). It works on
    the run's `RunCourse`, which keeps the parameters of each stretch between edits (model,
    system, formulation from each edit's time on): a sample is evaluated with its own, and going
    back to it brings them back. `sample(t, y)` makes a sample row, `restart(t, y)` starts the
    integrator afresh there (the Simulation's)."""

    def __init__(self, course: RunCourse, sample, restart):
        self.course, self._sample, self._restart = course, sample, restart

    def restore(self, t: float) -> None:
        """Go back to the stored sample at time t: later samples are dropped (and so are pushes
        made after it), a stopped run may go on, and the integrator restarts from that sample
        with the parameters in force there (a later `set_parameter` is undone).

            sim.advance(2.0)
            sim.restore(1.0)         # sim.samples()[-1, 0] == 1.0
            sim.advance(2.0)         # the same motion again (to the integration tolerance)
        """
        c = self.course
        times = np.array([row[0] for row in c.samples])
        k = int(np.argmin(np.abs(times - t))) if times.size else -1
        if k < 0 or not abs(times[k] - t) <= 0.5 * c.settings.dt_out + 1e-12:
            kept = f"{times[0]:.6g} … {times[-1]:.6g} s" if times.size else "none"
            raise ModelError("t", f"no stored sample at t = {t:.6g} s (samples kept: {kept})")
        del c.samples[k + 1:]
        t_k = float(times[k])
        c.back_to(t_k)
        c.failure = None
        self.restart_here()

    def set_state(self, q, u) -> None:
        """Continue from coordinates q and model speeds u (the CSV columns' order) at the current
        time, after projecting them onto the constraints (the pose nearest in the mass metric).

            q = sim.samples()[-1, sim.state_columns[0]].copy()
            q[0] += 0.1
            sim.set_state(q, np.zeros(sim.system.n_u))   # from rest, with the loop closed again
        """
        c = self.course
        system = c.system
        q = _vector(q, "q", system.n_q)
        u = _vector(u, "u", len(system.speed_names))
        t = c.current_time()
        try:
            if system.kin.quaternion_joints:
                q = system.kin.normalised(q)
            if system.constraints is not None:
                q, _ = project_positions(system, t, q, tol=1e-13)
                u, _ = project_velocities(system, t, q, u, tol=1e-13)
            f = c.formulation
            y = f.initial_state(q, f.model_to_own(q, u))
            row = self._sample(t, y)
        except _EDIT_ERRORS as err:
            raise ModelError("q", f"this state cannot be put on the constraints: {err}") from None
        c.failure = None
        c.samples[-1] = row
        self._restart(t, y)

    def set_parameter(self, path: str, value) -> None:
        """Set a numeric parameter of the model (``bodies[1].mass``, ``gravity``,
        ``forces[0].stiffness``, ``bodies[0].shape.length``) and continue from the current state
        and time; a shape-derived inertia follows its mass and size. Refused (ModelError naming
        the path) when the value is invalid or would change the coordinates or constraints.

            sim.advance(1.0)
            sim.set_parameter("gravity", [0.0, -1.62, 0.0])   # on to the Moon at t = 1 s
        """
        self.continue_with(model_with_parameter(self.course.model, path, value), path)

    def built(self, model) -> tuple:
        """(system, formulation) of `model` in this run's coordinates, method and variant."""
        s = self.course.settings
        system = build_system(model, s.coordinates)
        return system, make_formulation(s.method, system, s, self.course.variant)

    def continue_with(self, model, path: str) -> None:
        """Go on from the current state and time with `model` (the same coordinates and
        constraints, other parameters); refusals name `path`."""
        c = self.course
        t = c.current_time()
        q, u = c.sample_state(c.samples[-1])
        try:
            system, formulation = self.built(model)
        except _EDIT_ERRORS as err:
            raise ModelError(path, str(err)) from None
        if (system.coordinate_names != c.system.coordinate_names or system.speed_names != c.system.speed_names
                or formulation.multiplier_names != c.formulation.multiplier_names):
            raise ModelError(path, "changes the model's coordinates or constraints; edit the model and start a new run")
        old = (c.model, c.system, c.formulation)
        c.switch_to(model, system, formulation)
        try:
            y = formulation.initial_state(q, formulation.model_to_own(q, u))
            row = self._sample(t, y)
        except _EDIT_ERRORS as err:
            c.switch_to(*old)
            raise ModelError(path, f"the run cannot go on with this value: {err}") from None
        c.history.add(t, Stretch(model, system, formulation))
        c.failure = None
        c.samples[-1] = row
        self._restart(t, y)

    def push(self, body: str, point, force, duration: float) -> None:
        """Apply a constant world-frame force (N) at a body-fixed point (body frame, m, from the
        body's origin, as in model files) for `duration` seconds from the current time; its
        work shows in E.

            sim.push("bob", [1.0, 0.0, 0.0], [0.0, 5.0, 0.0], 0.2)   # 5 N up for 0.2 s
        """
        c = self.course
        if body not in c.system.body_names:
            raise ModelError("body", f"no body named {body!r} (bodies: {', '.join(c.system.body_names)})")
        point = _vector(point, "point", 3)
        force = _vector(force, "force", 3)
        if isinstance(duration, bool) or not isinstance(duration, (int, float)) or not (
                math.isfinite(duration) and duration > 0):
            raise ModelError("duration", f"must be a positive number of seconds, got {duration!r}")
        t = c.current_time()
        self.add_push(PushElement(c.formulation.system.kin, body, point, force, t, t + float(duration)))

    def add_push(self, element: PushElement) -> None:
        """A push or pull acts from now on: the integrator restarts here with it."""
        self.course.pushes.append(element)
        self.course.formulation.system.forces.append(element)
        self.restart_here()

    def restart_here(self) -> None:
        """Restart the integrator at the latest sample (a force changed there)."""
        c = self.course
        q, u = c.sample_state(c.samples[-1])
        f = c.formulation
        self._restart(c.current_time(), f.initial_state(q, f.model_to_own(q, u)))
