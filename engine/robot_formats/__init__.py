"""Robot model formats: URDF and MJCF read into an eomlab Model, MJCF written from one.

    model, warnings = import_model("arm.urdf")   # or "arm.xml" (MJCF)
    text, notes = export_mjcf(model)

Import refuses what it cannot read safely or sensibly (entities, files outside the model's folder,
negative masses, inertia that is not positive semi-definite, zero axes, cycles, numbers beyond the
model's limit ±1e12) with a ModelError naming the element; what it reads but cannot map comes back
as one warning per kind of element, and a model a run would refuse as massless gets one more.
Every refusal and warning is one line: control characters in the file's names are shown escaped.
"""
from __future__ import annotations

import os
from dataclasses import replace

from eomlab.engine.model import Model, ModelError

#: how the warning for a model a run would refuse begins (`eomlab import` refuses to write it unless told)
RUN_REFUSAL = "a run will refuse this model"


def import_model(path: str | os.PathLike) -> tuple[Model, list[str]]:
    """The Model in a URDF (``<robot>``) or MJCF (``<mujoco>``) file, checked as a model file is (the
    loader's limits, default coordinate names filled in), and the warnings: each one line, as is a
    refusal's text (a file's name holding a line break, ``&#10;``, is shown escaped)."""
    from eomlab.engine.modelfile import model_from_dict, model_to_dict

    try:
        model, warnings = _read(path)
        model = replace(model, name=one_line(model.name))
        # the model file's own checks (its limits: at most MAX_BODIES bodies) before the massless check,
        # whose formulation costs n² time and memory: 3001 nested bodies took 11 s and 1.4 GB to be refused
        model = model_from_dict(model_to_dict(model))
    except ModelError as err:
        raise ModelError(one_line(err.path), one_line(err.message)) from None
    refusal = massless_refusal(model)
    return model, [one_line(w) for w in warnings] + ([refusal] if refusal else [])


def massless_refusal(model: Model) -> str | None:
    """The words a run would refuse the model with at t = 0 because its mass matrix is singular (a
    speed that moves no mass: links without <inertial>), or None: the model's formulation evaluated
    once at its start, on the numpy path (pinocchio's Data would cost nv³ memory for one check)."""
    import numpy as np

    from eomlab.engine.formulations import make_formulation
    from eomlab.engine.mechanics.system import MechanicalSystem, SingularMassMatrix

    try:
        with np.errstate(all="ignore"):
            system = MechanicalSystem(model, compiled=False)
            formulation = make_formulation(model.settings.method, system, model.settings)
            formulation.evaluate(0.0, formulation.initial_state(system.kin.normalised(system.q0), system.u0))
    except SingularMassMatrix as err:
        return f"{RUN_REFUSAL}: {err} (give those bodies an <inertial> with mass and inertia)"
    except Exception:  # noqa: BLE001 - advisory: any other problem is the run's to name, never the import's
        return None
    return None


def one_line(text: str) -> str:
    """`text` with line breaks and other control characters written as escapes (\\n, \\x85, \\u2028)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def _read(path: str | os.PathLike) -> tuple[Model, list[str]]:
    from eomlab.engine.robot_formats.xml_files import parse_xml

    root = parse_xml(path)
    if root.tag == "robot":
        from eomlab.engine.robot_formats.urdf import model_from_urdf

        return model_from_urdf(root, path)
    if root.tag == "mujoco":
        from eomlab.engine.robot_formats.mjcf import model_from_mjcf

        return model_from_mjcf(root, path)
    raise ModelError(f"<{root.tag}>", "not a robot model: expected URDF <robot> or MJCF <mujoco> as the root element")


def export_mjcf(model: Model) -> tuple[str, list[str]]:
    """MJCF text for `model` and notes on what MuJoCo cannot express."""
    from eomlab.engine.robot_formats.mjcf_export import mjcf_text

    return mjcf_text(model)
