"""Velocities and momenta of the bodies at one kinematic state, in world axes.

    v_G = J_v u,   ω = J_ω u,   H_G = R I Rᵀ ω   (about the mass centre)
    H_O = H_G + m (G − O) × v_G                  (about a world point O)

For a heavy top H_O about its fixed point has a conserved vertical component (gravity's moment
about O is horizontal); about the mass centre it has not (the pivot's force has a moment there).
"""
from __future__ import annotations

import numpy as np

from eomlab.engine.rotations import cross


def mass_centre_velocities(ks) -> np.ndarray:
    """(n_bodies, 3) world velocities of the mass centres (m/s)."""
    return ks.v_com.copy()


def angular_velocities(ks) -> np.ndarray:
    """(n_bodies, 3) world angular velocities (rad/s)."""
    return ks.omega.copy()


def angular_momenta(kin, ks, about=None) -> np.ndarray:
    """(n_bodies, 3) world angular momenta (kg·m²/s) about each mass centre, or about the world
    point `about` when given."""
    inertia = ks.R @ kin.inertia_body @ ks.R.transpose(0, 2, 1)
    H = (inertia @ ks.omega[:, :, None])[:, :, 0]
    if about is not None:
        H = H + kin.mass[:, None] * cross(ks.com - np.asarray(about, float)[None, :], ks.v_com)
    return H
