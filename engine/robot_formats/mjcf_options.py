"""MJCF ``<option>``: gravity (``gravity``, and ``<flag gravity="disable"/>`` turning it off, as MuJoCo
does) and the fluid forces eomlab does not model (``density``, ``viscosity``: one warning)."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np

from eomlab.engine.model import ModelError
from eomlab.engine.robot_formats.building import Unmapped, numbers


def option_gravity(root: ET.Element, unmapped: Unmapped) -> np.ndarray:
    """The gravity vector the model runs with; fluid settings noted in `unmapped`."""
    option = root.find("option")
    if option is None:
        return np.array([0.0, 0.0, -9.81])
    gravity = numbers(option.get("gravity"), 3, "<option> gravity", (0.0, 0.0, -9.81))
    fluid = [f"{key}={option.get(key)}" for key in ("density", "viscosity")
             if float(numbers(option.get(key), 1, f"<option> {key}", (0.0,))[0]) != 0]
    if fluid:
        unmapped.add("fluid forces", f"<option> {' '.join(fluid)}", "eomlab has no fluid: bodies move as in vacuum")
    for flag in option.findall("flag"):
        value = flag.get("gravity", "enable")
        if value not in ("enable", "disable"):
            raise ModelError("<option>/<flag> gravity", f"expected enable or disable, got {value!r}")
        if value == "disable":
            gravity = np.zeros(3)
    return gravity
