"""How the window draws and names each formulation: colour, dash pattern, a readable ink for its
name; what it integrates and why its drift differs come from the registry.

The formulations themselves, their order and labels are the registry's (`eomlab.engine.methods`):
a formulation this table does not know still gets a colour and dash of its own.
"""
from __future__ import annotations

from PySide6.QtCore import Qt

from eomlab.engine import methods as registry

#: the Okabe–Ito palette: distinguishable with every common colour-vision deficiency
OKABE_ITO = {"orange": "#E69F00", "sky_blue": "#56B4E9", "green": "#009E73", "blue": "#0072B2",
             "vermillion": "#D55E00", "purple": "#CC79A7", "yellow": "#F0E442"}
#: colours of curves in one run's plots (coordinates, multipliers)
PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
           "#7f7f7f", "#bcbd22"]
#: colour and dash pattern of the formulations in the registry's order (cycled past the end), so
#: each keeps its look whatever subset runs
STYLES = ((OKABE_ITO["orange"], Qt.SolidLine), (OKABE_ITO["blue"], Qt.DashLine), (OKABE_ITO["green"], Qt.DotLine),
          (OKABE_ITO["vermillion"], Qt.DashDotLine), (OKABE_ITO["purple"], Qt.DashDotDotLine),
          (OKABE_ITO["sky_blue"], Qt.DashLine), (OKABE_ITO["yellow"], Qt.DotLine))
#: text on white needs more contrast than a curve: each style's hue darkened (contrast ≥ 5:1)
INKS = {OKABE_ITO["orange"]: "#8A5A00", OKABE_ITO["blue"]: "#0072B2", OKABE_ITO["green"]: "#00694D",
        OKABE_ITO["vermillion"]: "#A04000", OKABE_ITO["purple"]: "#8E3B6F", OKABE_ITO["sky_blue"]: "#1A5F8A",
        OKABE_ITO["yellow"]: "#6B6300"}
METHOD_STYLES = {key: STYLES[i % len(STYLES)] for i, key in enumerate(registry.METHODS)}
METHOD_LABELS = {key: registry.label(key) for key in registry.METHODS}


def available_methods() -> tuple[str, ...]:
    """Every formulation the engine offers, in the registry's order."""
    return tuple(registry.METHODS)


def method_style(method: str) -> tuple[str, Qt.PenStyle]:
    return METHOD_STYLES.get(method) or STYLES[len(METHOD_STYLES) % len(STYLES)]


def method_label(method: str) -> str:
    return registry.label(method)


def method_ink(method: str) -> str:
    """A readable text colour for the method on a light background."""
    return INKS.get(method_style(method)[0], "#000000")


def method_note(method: str) -> str:
    """What it integrates and why its drift differs, in words (from the registry), after its label."""
    entry = registry.REGISTRY.get(method)
    if entry is None:
        return ""
    return f"integrates {entry.integrates}" + (f"; {entry.drift}" if entry.drift else "")
