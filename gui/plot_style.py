"""How plots look and read: pyqtgraph's colours, axes without misleading SI prefixes, and the
unit of a coordinate."""
from __future__ import annotations

import pyqtgraph as pg


def configure_pyqtgraph() -> None:
    """White plots with dark ink read well in screenshots and print."""
    pg.setConfigOptions(background="w", foreground="k", antialias=True)


def coordinate_unit(name: str, model=None) -> str:
    """The unit of a coordinate: from its joint in the model when known, else from its name."""
    if model is not None:
        for body in model.bodies:
            if name in body.joint.names:
                i = body.joint.names.index(name)
                kind = body.joint.type
                if body.joint.quaternion and i >= len(body.joint.names) - 4:
                    return "1"  # Euler parameters are pure numbers
                if kind == "prismatic" or (kind == "planar" and i < 2) or (kind == "free" and i < 3):
                    return "m"
                return "rad"
    tail = name.rsplit("_", 1)[-1]
    if tail in ("e0", "e1", "e2", "e3"):
        return "1"  # Euler parameters (absolute coordinates in 3-D)
    return "m" if tail in ("x", "y", "z", "s") else "rad"


def without_si_prefix(axis: pg.AxisItem) -> None:
    """Turn the SI prefix off for good: pyqtgraph 0.14's `enableAutoSIPrefix(False)` still
    computes a scale from the current range (a log axis over 1e-16…1e-6 then reads 10⁶ too high)."""
    axis.enableAutoSIPrefix(False)
    axis.autoSIPrefixScale = 1.0
    axis.labelUnitPrefix = ""
    axis._updateLabel()


def label_axes(plots: dict, time_plots, log_plots, q_unit: str, phase, phase_units) -> None:
    """The axis labels of the panel's plots (and log axes, without SI prefixes)."""
    for key in time_plots:
        plots[key].setLabel("bottom", "t", units="s")
    plots["motion"].setLabel("left", "coordinate", units=q_unit)
    plots["phase"].setLabel("bottom", phase[0], units=phase_units[0])
    plots["phase"].setLabel("left", phase[1], units=phase_units[1])
    plots["energy"].setLabel("left", "energy", units="J")
    plots["energy_bars"].setLabel("left", "energy", units="J")
    plots["energy_drift"].setLabel("left", "|E − E₀| / |E₀|")
    plots["constraint_drift"].setLabel("left", "max |residual|")
    plots["multipliers"].setLabel("left", "λ (N, N·m)")
    for key in log_plots:
        plots[key].getPlotItem().setLogMode(x=False, y=True)
    for plot in plots.values():  # SI prefixes on a log axis or on mixed units would mislead
        for side in ("left", "bottom"):
            without_si_prefix(plot.getAxis(side))
