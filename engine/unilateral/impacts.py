"""Impacts and resting contacts, solved with the formulation's own impulsive form.

Impact (Newton's law of restitution, Pfeiffer & Glocker 1996, ch. 6): at the instant rows close, the
speeds jump by Δu = X Λ, X = the formulation's response to unit impulses along the closing rows
(`Formulation.impulse_response`: its own matrices, every bilateral velocity row kept), and the
normal speeds v = G u satisfy the complementarity problem

    Λ ≥ 0,   v⁺ + e v⁻ = W Λ + (1 + e) v⁻ ≥ 0,   Λᵀ (v⁺ + e v⁻) = 0,   W = G X

(several rows closing at once: one LCP; a row never pulls). Rows that touch without closing take
no part until the jump makes them close: the impact is resolved in rounds, each an LCP over the
rows closing then, until none closes — so the struck ball of Newton's cradle passes the whole
momentum on, as the physical cradle does, instead of the cluster moving off together.

A row whose rebound speed e |v⁻| would be below the rest speed (`Tolerances.rest_speed`) takes
e = 0: the shrinking bounces of a Zeno sequence end in finitely many impacts, in resting contact.

Resting contact: a touching row with zero normal speed is held as a bilateral row g̈ = 0 while its
force pushes — λ from the acceleration-level LCP W λ + (G u̇ + γ) ≥ 0 over the touching rows
(u̇ the accelerations without them), the rows with λ > 0 resting; while they rest
u̇ = u̇_free + X λ with W λ = −(G u̇_free + γ) (`resting_forces`, `derivative`), released
(`engine.unilateral.events`) when λ would turn negative (pull).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from eomlab.engine.unilateral.lcp import solve_lcp
from eomlab.engine.unilateral.gap_rows import UnilateralRows

#: rows within this gap (m, or rad for an angle) touch
TOUCHING_GAP = 1e-9
#: a bounce at most this high (m or rad) is plastic: the rest speed is √(2 |g| h) (h / s without gravity)
REST_HEIGHT = 1e-9
#: normal speeds within this (m/s, rad/s) are zero
SPEED_TOL = 1e-10
#: a touching row this slow (m/s, rad/s) may rest
RESTING_SPEED = 1e-8
#: impact rounds at one instant before the run stops (e ≤ 1: every round loses or keeps energy)
MAX_ROUNDS = 10_000


@dataclass
class Tolerances:
    rest_speed: float
    force: float  # resting forces within this (N, N·m) are zero

    @classmethod
    def of(cls, system) -> "Tolerances":
        g = float(np.linalg.norm(system.gravity))
        rest = math.sqrt(2.0 * g * REST_HEIGHT) if g > 0 else REST_HEIGHT
        weight = float(np.sum(system.kin.mass)) * max(g, 1.0)
        return cls(rest_speed=rest, force=1e-9 * weight)


@dataclass
class ImpactReport:
    """What one instant's impact did: the impulse per row (0 for rows it did not touch)."""

    t: float
    impulses: np.ndarray
    rounds: int = 0
    closing_speeds: dict = field(default_factory=dict)  # row index -> its first v⁻


def _evaluate(f, t, y):
    """The formulation's evaluation without multipliers (u̇ and the matrices at the state)."""
    f.multipliers_wanted = False
    try:
        return f.evaluate(t, y)
    finally:
        f.multipliers_wanted = True


def impact(f, rows: UnilateralRows, tol: Tolerances, t: float, y: np.ndarray) -> tuple[np.ndarray, ImpactReport]:
    """The state after the impact at (t, y) and what the impact did."""
    report = ImpactReport(t=t, impulses=np.zeros(len(rows)))
    for rounds in range(MAX_ROUNDS):
        ev = _evaluate(f, t, y)
        values = rows.evaluate(ev.dynamics, bias=False)
        v = values.normal_speed
        closing = np.flatnonzero((values.g <= TOUCHING_GAP) & (v < -SPEED_TOL))
        if closing.size == 0:
            report.rounds = rounds
            return y, report
        G = values.G[closing]
        X = f.impulse_response(ev, G.T)
        W = G @ X
        v_minus = v[closing]
        e = rows.restitution[closing]
        e = np.where(-e * v_minus < tol.rest_speed, 0.0, e)  # a rebound too slow to leave: plastic
        lam = solve_lcp(0.5 * (W + W.T), (1.0 + e) * v_minus, SPEED_TOL)
        lam = np.maximum(lam, 0.0)
        for i, vi in zip(closing, v_minus):
            report.closing_speeds.setdefault(int(i), float(vi))
        report.impulses[closing] += lam
        y = f.qu_to_state(ev.q, ev.u + X @ lam)
    raise ArithmeticError(f"an impact did not end after {MAX_ROUNDS} rounds at t = {t:.6g} s")


def resting_rows(f, rows: UnilateralRows, tol: Tolerances, t: float, y: np.ndarray) -> np.ndarray:
    """The touching rows at rest that must push (λ > 0 in the acceleration-level LCP): they rest."""
    ev = _evaluate(f, t, y)
    values = rows.evaluate(ev.dynamics, bias=True)
    candidates = np.flatnonzero((values.g <= TOUCHING_GAP) & (np.abs(values.normal_speed) <= RESTING_SPEED))
    if candidates.size == 0:
        return candidates
    G = values.G[candidates]
    X = f.impulse_response(ev, G.T)
    W = G @ X
    a_free = G @ ev.u_dot + values.gamma[candidates]
    scale = max(1.0, float(np.max(np.abs(np.diag(W)), initial=0.0)))
    lam = solve_lcp(0.5 * (W + W.T), a_free, 1e-12 * scale * max(1.0, float(np.max(np.abs(a_free)))))
    # a row on the fence (λ ≈ 0 and no acceleration away: a force of tol.force would move it faster) rests too:
    # left open it creeps below its limit by rounding and closes again within microseconds, without end
    # (humanoid_CMU's clavicle: an impact every 2.6 µs)
    grazing = W @ lam + a_free <= tol.force * np.diag(W)
    return candidates[(lam > tol.force) | grazing]


def _held(f, rows: UnilateralRows, resting: np.ndarray, t: float, y: np.ndarray):
    """(evaluation, X, λ) with the resting rows held: W λ = −(G u̇_free + γ)."""
    ev = _evaluate(f, t, y)
    values = rows.evaluate(ev.dynamics, bias=True)
    G = values.G[resting]
    X = f.impulse_response(ev, G.T)
    W = G @ X
    rhs = -(G @ ev.u_dot + values.gamma[resting])
    lam = np.linalg.lstsq(W, rhs, rcond=1e-12)[0]
    return ev, X, lam


def resting_forces(f, rows: UnilateralRows, resting: np.ndarray, t: float, y: np.ndarray) -> np.ndarray:
    """The resting rows' forces λ (positive: pushing) at (t, y)."""
    return _held(f, rows, resting, t, y)[2]


def derivative(f, rows: UnilateralRows, resting: np.ndarray, t: float, y: np.ndarray) -> np.ndarray:
    """The integrator's right-hand side with the resting rows held as bilateral rows."""
    f.rhs_evals += 1
    ev, X, lam = _held(f, rows, resting, t, y)
    ev.u_dot = ev.u_dot + X @ lam
    return f.state_derivative(ev)
