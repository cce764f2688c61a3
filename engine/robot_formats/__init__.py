"""Robot model formats: URDF and MJCF read into an eomlab Model, MJCF written from one.

    model, warnings = import_model("arm.urdf")   # or "arm.xml" (MJCF)
    text, notes = export_mjcf(model)

Import refuses what it cannot read safely or sensibly (entities, files outside the model's folder,
negative masses, inertia that is not positive semi-definite, zero axes, cycles) with a ModelError
naming the element; what it reads but cannot map comes back as one warning per kind of element.
"""
from __future__ import annotations

import os

from ..model import Model, ModelError


def import_model(path: str | os.PathLike) -> tuple[Model, list[str]]:
    """The Model in a URDF (``<robot>``) or MJCF (``<mujoco>``) file, and the warnings."""
    from .xml_files import parse_xml

    root = parse_xml(path)
    if root.tag == "robot":
        from .urdf import model_from_urdf

        return model_from_urdf(root, path)
    if root.tag == "mujoco":
        from .mjcf import model_from_mjcf

        return model_from_mjcf(root, path)
    raise ModelError(f"<{root.tag}>", "not a robot model: expected URDF <robot> or MJCF <mujoco> as the root element")


def export_mjcf(model: Model) -> tuple[str, list[str]]:
    """MJCF text for `model` and notes on what MuJoCo cannot express."""
    from .mjcf_export import mjcf_text

    return mjcf_text(model)
