"""Pictures of a linearization (matplotlib, no window): the eigenvalues in the complex plane, or
their real and imaginary parts against a varied parameter with the zero crossings marked."""
from __future__ import annotations

import os
import tempfile

import numpy as np

from eomlab.engine.model import ModelError

FORMATS = (".png", ".svg", ".pdf")


def check_picture(path: str) -> None:
    if not path.lower().endswith(FORMATS):
        raise ModelError("--plot", f"the picture's name must end in {', '.join(FORMATS)}, got {path!r}")


def plot(result, path: str) -> None:
    """Write the picture of a Linearization or a Variation (engine.linearize) to `path`."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if hasattr(result, "crossings"):
        fig = _variation(plt, result)
    else:
        fig = _plane(plt, result)
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(suffix=os.path.splitext(path)[1], dir=folder)
    os.close(handle)
    try:
        fig.savefig(temporary, dpi=150)
        os.replace(temporary, path)
    finally:
        plt.close(fig)
        if os.path.exists(temporary):
            os.remove(temporary)


def _plane(plt, lin):
    fig, ax = plt.subplots(figsize=(6, 5), layout="constrained")
    z = lin.eigenvalues
    ax.axvline(0.0, color="0.6", lw=0.8)
    ax.axhline(0.0, color="0.6", lw=0.8)
    ax.plot(z.real, z.imag, "o", color="#0072B2")
    ax.set_xlabel("Re λ [1/s]")
    ax.set_ylabel("Im λ [rad/s]")
    ax.set_title(f"eigenvalues ({lin.method}, {lin.coordinates} coordinates)")
    return fig


def _variation(plt, var):
    fig, ax = plt.subplots(figsize=(7, 5), layout="constrained")
    values = np.asarray(var.values)
    width = max(len(e) for e in var.eigenvalues) if var.eigenvalues else 0
    re = np.full((len(values), width), np.nan)
    im = np.full((len(values), width), np.nan)
    for k, e in enumerate(var.eigenvalues):
        re[k, :len(e)] = e.real
        im[k, :len(e)] = np.abs(e.imag)
    ax.axhline(0.0, color="0.6", lw=0.8)
    ax.plot(values, re, ".", color="#0072B2", ms=3)
    ax.plot(values, im, ".", color="#E69F00", ms=3)
    ax.plot([], [], ".", color="#0072B2", label="Re λ [1/s]")
    ax.plot([], [], ".", color="#E69F00", label="|Im λ| [rad/s]")
    for c in var.crossings:
        ax.axvline(c.value, color="#D55E00", ls="--", lw=1)
        ax.annotate(f"{c.value:.6g}", (c.value, 0.0), xytext=(4, 6), textcoords="offset points", color="#D55E00")
    finite = re[np.isfinite(re)]
    if finite.size:  # the stability question is near zero: keep the axis to the real parts' range
        low, high = float(finite.min()), float(max(finite.max(), np.nanmax(im) if np.isfinite(im).any() else 0))
        ax.set_ylim(max(low, -3 * high if high > 0 else low) * 1.05, high * 1.05 + 1e-12)
    ax.set_xlabel("forward speed [m/s]" if var.name == "speed" else var.name)
    ax.set_ylabel("eigenvalues")
    ax.legend(loc="lower left")
    ax.set_title(f"eigenvalues against {var.name}; real parts cross zero at the dashed lines")
    return fig
