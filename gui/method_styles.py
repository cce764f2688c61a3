"""How the window names and draws each formulation: label, colour, dash pattern, and one line on
what it integrates (the cost table's teaching note).

The list of formulations itself is the engine's (`eomlab.engine.methods`, the registry, when it
exists; `eomlab.engine.model.METHODS` before it): a formulation this table does not know still
runs, labelled by its key and drawn in a spare colour.
"""
from __future__ import annotations

from PySide6.QtCore import Qt

#: the Okabe–Ito palette: distinguishable with every common colour-vision deficiency
OKABE_ITO = {"orange": "#E69F00", "sky_blue": "#56B4E9", "green": "#009E73", "blue": "#0072B2",
             "vermillion": "#D55E00", "purple": "#CC79A7", "yellow": "#F0E442"}
#: colours of curves in one run's plots (coordinates, multipliers)
PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
           "#7f7f7f", "#bcbd22"]
#: each formulation keeps its colour and dash pattern whatever subset runs, so a picture reads alike
METHOD_STYLES = {
    "lagrange": (OKABE_ITO["orange"], Qt.SolidLine),
    "maggi": (OKABE_ITO["blue"], Qt.DashLine),
    "udwadia_kalaba": (OKABE_ITO["green"], Qt.DotLine),
    "kane": (OKABE_ITO["vermillion"], Qt.DashDotLine),
    "gibbs_appell": (OKABE_ITO["purple"], Qt.DashDotDotLine),
}
#: text on white needs more contrast than a curve: the same hues, darkened (WCAG contrast ≥ 4.5)
METHOD_INK = {"lagrange": "#8A5A00", "maggi": "#0072B2", "udwadia_kalaba": "#00694D", "kane": "#A04000",
              "gibbs_appell": "#8E3B6F"}
METHOD_LABELS = {"lagrange": "Lagrange multipliers", "maggi": "Maggi", "udwadia_kalaba": "Udwadia–Kalaba",
                 "kane": "Kane", "gibbs_appell": "Gibbs–Appell"}
#: what each integrates, and so why its constraint drift looks as it does
METHOD_NOTES = {
    "lagrange": "integrates all coordinates and speeds with the multipliers λ; the constraints hold only at the "
                "acceleration level, so position and velocity drift grow unless stabilised",
    "maggi": "integrates all coordinates but only the independent speeds (projected onto the constraint null "
             "space); velocity rows hold by construction, positions drift slowly",
    "udwadia_kalaba": "integrates all coordinates and speeds; the constraint force comes from a pseudo-inverse "
                      "(no λ solve), so like Lagrange it drifts at position and velocity level",
    "kane": "integrates the independent speeds (generalised speeds): velocity-level rows hold by construction, "
            "only the position level drifts",
    "gibbs_appell": "integrates the independent speeds from ∂S/∂u̇ = F: velocity-level rows hold by construction, "
                    "as in Kane's equations; only the position level drifts",
}
_SPARE = (OKABE_ITO["sky_blue"], Qt.SolidLine)


def available_methods() -> tuple[str, ...]:
    """Every formulation the engine offers, in its order."""
    try:
        from eomlab.engine import methods as registry  # the method registry, once it exists
    except ImportError:
        from eomlab.engine.model import METHODS

        return tuple(METHODS)
    for name in ("METHODS", "KEYS", "keys"):
        value = getattr(registry, name, None)
        if value is not None:
            return tuple(value() if callable(value) else value)
    from eomlab.engine.model import METHODS

    return tuple(METHODS)


def method_style(method: str) -> tuple[str, Qt.PenStyle]:
    return METHOD_STYLES.get(method, _SPARE)


def method_label(method: str) -> str:
    return METHOD_LABELS.get(method, method.replace("_", " ").capitalize())


def method_ink(method: str) -> str:
    """A readable text colour for the method on a light background."""
    return METHOD_INK.get(method, "#000000")


def method_note(method: str) -> str:
    return METHOD_NOTES.get(method, "")
