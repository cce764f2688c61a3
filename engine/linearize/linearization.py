"""Linearize a model about its initial state or a nearby equilibrium: A, M, C, K, eigenvalues and modes.

About a state x* = (q_i*, u_i*) of the independent coordinates and speeds (engine.linearize.chart)
that is an equilibrium or a steady motion, δẋ = A δx with A = ∂ẋ/∂x. State variables that no
other depends on (a zero column of A: cyclic coordinates such as a position on the ground, a
yaw, a wheel's angle) and speeds that stay constant to first order (a zero row: a conserved
spin, a forward speed) only add zero eigenvalues; they are named and set aside, and `A` is the
rest. Where its speeds are the rates of its coordinates the rest is mechanical,
M δq̈ + C δq̇ + K δq = 0, with M the reduced mass matrix Cᵀ M C of the independent speeds
(THEORY.md §3, Maggi's and Kane's l equations) and C = −M A_uu̇, K = −M A_uq from the rows of A.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from eomlab.engine.blas_threads import one_blas_thread
from eomlab.engine.methods import METHODS
from eomlab.engine.model import Model, ModelError
from eomlab.engine.linearize.chart import Chart, Systems, with_rate_speeds
from eomlab.engine.linearize.derivatives import jacobian

ZERO_RTOL = 1e-9  # entries of A below this times its largest are zero (structure: cyclic, conserved)
STEADY_RTOL = 1e-7  # residual accelerations below this times the acceleration scale: steady
EQUILIBRIUM_STEPS = 60
MAX_NEWTON_STEP = 0.5  # rad or m: the largest change of an independent coordinate in one Newton step


@dataclass
class Mode:
    eigenvalue: complex
    frequency_hz: float  # undamped natural frequency |λ| / 2π
    damped_frequency_hz: float  # |Im λ| / 2π
    damping_ratio: float  # −Re λ / |λ| (nan for λ = 0)
    stable: bool
    shape: dict[str, complex]  # δq of every coordinate, largest entry 1


@dataclass
class Linearization:
    """The linearized equations about `q`, `u` (the model's coordinates and speeds)."""

    method: str
    coordinates: str
    about: str
    names: list[str]  # the state of A: coordinates then speeds
    A: np.ndarray
    eigenvalues: np.ndarray
    modes: list[Mode]
    cyclic: list[str]  # coordinates set aside (nothing depends on them)
    conserved: list[str]  # speeds set aside (constant to first order)
    M: np.ndarray | None = None
    C: np.ndarray | None = None
    K: np.ndarray | None = None
    second_order: list[str] = field(default_factory=list)  # the coordinates of M, C, K
    q: dict[str, float] = field(default_factory=dict)
    u: dict[str, float] = field(default_factory=dict)
    A_full: np.ndarray | None = None  # over every independent coordinate and speed
    names_full: list[str] = field(default_factory=list)

    @property
    def stable(self) -> bool:
        scale = max(1.0, float(np.max(np.abs(self.A), initial=0.0)))
        return bool(np.all(self.eigenvalues.real <= 1e-9 * scale))

    def to_dict(self) -> dict:
        """The JSON form `eomlab linearize --format json` prints."""
        def matrix(m):
            return None if m is None else [[float(v) for v in row] for row in m]
        return {
            "method": self.method, "coordinates_choice": self.coordinates, "about": self.about,
            "eigenvalues": [{"re": float(v.real), "im": float(v.imag)} for v in self.eigenvalues],
            "coordinates": list(self.second_order) if self.M is not None else [],
            "state": list(self.names),
            "A": matrix(self.A), "M": matrix(self.M), "C": matrix(self.C), "K": matrix(self.K),
            "modes": [{"eigenvalue": {"re": float(m.eigenvalue.real), "im": float(m.eigenvalue.imag)},
                       "frequency_hz": m.frequency_hz, "damped_frequency_hz": m.damped_frequency_hz,
                       "damping_ratio": None if math.isnan(m.damping_ratio) else m.damping_ratio,
                       "stable": m.stable,
                       "shape": {k: {"re": float(v.real), "im": float(v.imag)} for k, v in m.shape.items()}}
                      for m in self.modes],
            "cyclic": list(self.cyclic), "conserved": list(self.conserved),
            "q": self.q, "u": self.u,
        }

    def to_pandas(self):
        """One row per eigenvalue: re, im, frequency_hz, damped_frequency_hz, damping_ratio, stable."""
        import pandas as pd

        return pd.DataFrame({
            "re": [m.eigenvalue.real for m in self.modes], "im": [m.eigenvalue.imag for m in self.modes],
            "frequency_hz": [m.frequency_hz for m in self.modes],
            "damped_frequency_hz": [m.damped_frequency_hz for m in self.modes],
            "damping_ratio": [m.damping_ratio for m in self.modes], "stable": [m.stable for m in self.modes],
        })


def linearize(model: Model, about: str = "initial", method: str | None = None, coordinates: str | None = None,
              independent=None) -> Linearization:
    """Linearize `model` about its initial state ("initial": an equilibrium or a steady motion,
    refused otherwise naming the largest residual) or about an equilibrium found near its
    initial pose ("equilibrium": Newton on the accelerations at rest over the constraint
    manifold). `independent` names coordinates (or speeds) to keep independent."""
    method = method or model.settings.method
    coordinates = coordinates or model.settings.coordinates
    if method not in METHODS:
        raise ModelError("--method", f"unknown method {method!r}; expected one of {', '.join(METHODS)}")
    if coordinates not in ("joint", "absolute"):
        raise ModelError("--coordinates", f"expected joint or absolute, got {coordinates!r}")
    if about not in ("initial", "equilibrium"):
        raise ModelError("--about", f"expected initial or equilibrium, got {about!r}")
    rheonomic = [c.name for c in model.constraints if c.type == "prescribed"]
    if rheonomic:
        raise ModelError("constraints", f"{rheonomic[0]} prescribes a motion in time: linearize needs a model whose "
                         "equations do not depend on time")
    systems = Systems()
    model = with_rate_speeds(model, systems)
    with one_blas_thread():  # small matrices: BLAS threads only wait for each other (as in a run)
        chart = Chart(model, method, coordinates, systems, independent=independent)
        if about == "equilibrium":
            chart = _equilibrium(model, method, coordinates, chart, independent, systems)
        return _analyse(chart, about)


def _scales(chart: Chart) -> np.ndarray:
    nq = len(chart.iq)
    return np.concatenate((np.ones(nq), np.maximum(1.0, np.abs(chart.x_star[nq:]))))


def _equilibrium(model, method, coordinates, chart: Chart, independent, systems: Systems) -> Chart:
    """Damped Newton on u̇_i(q_i, u = 0) = 0 over the constraint manifold, from the initial pose:
    the independent coordinates are chosen again at each iterate, and a step that leaves the
    region they describe (or grows the accelerations) is halved."""
    zero = np.zeros(chart.system.n_u)
    g = max(1.0, float(np.linalg.norm(chart.system.gravity)))
    q = chart.q_star
    left = np.inf
    for _ in range(EQUILIBRIUM_STEPS):
        rest = Chart(model, method, coordinates, systems, q=q, u=zero, independent=independent)
        nq = len(rest.iq)
        x = rest.x_star
        F = rest.rhs(x)[nq:]
        left = float(np.max(np.abs(F), initial=0.0))
        if left < 1e-12 * g:
            return rest
        J = _exact(rest, x)
        J = J[nq:, :nq] if J is not None else jacobian(_accelerations_at_rest(rest), x[:nq])
        step = -np.linalg.lstsq(J, F, rcond=1e-8)[0]  # neutral directions (a free twist) stay put
        step *= min(1.0, MAX_NEWTON_STEP / max(float(np.max(np.abs(step), initial=0.0)), 1e-300))
        for _ in range(30):
            try:
                trial = np.concatenate((x[:nq] + step, x[nq:]))
                if float(np.max(np.abs(rest.rhs(trial)[nq:]), initial=0.0)) < left or \
                        float(np.max(np.abs(step), initial=0.0)) < 1e-12:
                    q = rest.state(trial)[0]
                    break
            except ArithmeticError:
                pass
            step = step / 2
        else:
            break
    raise ModelError("--about equilibrium", "Newton found no equilibrium near the initial pose "
                     f"(largest acceleration left {left:.3g})")


def _exact(chart: Chart, x) -> np.ndarray | None:
    """∂ẋ/∂x by pinocchio's derivatives of ABA for a free tree on the compiled path, None elsewhere or
    where they are not finite (M singular at the point: Euler angles at their gimbal lock, where the
    differences, taken about it, still see the finite limit)."""
    exact = chart.exact_jacobian()
    if exact is None:
        return None
    J = exact(x)
    return J if np.all(np.isfinite(J)) else None


def _accelerations_at_rest(chart: Chart):
    """q_i ↦ u̇_i at u = 0 in `chart`."""
    nq = len(chart.iq)
    rest = np.zeros(len(chart.iu))
    return lambda qi: chart.rhs(np.concatenate((qi, rest)))[nq:]


def _set_aside(A: np.ndarray, nq: int) -> tuple[list[int], list[int]]:
    """Indices kept, and those set aside: zero columns (nothing depends on them) and zero rows
    (constant to first order), repeatedly, within the kept block."""
    tol = ZERO_RTOL * max(1.0, float(np.max(np.abs(A), initial=0.0)))
    keep = list(range(A.shape[0]))
    aside: list[int] = []
    changed = True
    while changed:
        changed = False
        for v in list(keep):
            others = [k for k in keep if k != v]
            column_zero = not others or float(np.max(np.abs(A[others, v]))) <= tol
            row_zero = float(np.max(np.abs(A[v, keep]))) <= tol
            if (v < nq and column_zero) or (v >= nq and (row_zero or column_zero)):
                keep.remove(v)
                aside.append(v)
                changed = True
    return keep, aside


def _analyse(chart: Chart, about: str) -> Linearization:
    s = chart.system
    nq = len(chart.iq)
    xdot = chart.rhs(chart.x_star)
    A = _exact(chart, chart.x_star)
    if A is None:
        A = jacobian(chart.rhs, chart.x_star, _scales(chart))
    keep, aside = _set_aside(A, nq)
    cyclic = [chart.names[v] for v in aside if v < nq]
    conserved = [chart.names[v] for v in aside if v >= nq]
    # steady: every independent speed constant, every coordinate but the cyclic ones at rest
    check = [v for v in range(chart.n_x) if v >= nq or v not in aside]
    accel = max(1.0, float(np.linalg.norm(s.gravity)), float(np.max(np.abs(A), initial=0.0)))
    if check:
        worst = max(check, key=lambda v: abs(xdot[v]))
        if abs(xdot[worst]) > STEADY_RTOL * accel:
            what = f"d({chart.names[worst]})/dt" if worst >= nq else f"the rate of {chart.names[worst]}"
            hint = " (try --about equilibrium)" if about == "initial" else ""
            raise ModelError("--about " + about, f"not an equilibrium or a steady motion: the largest residual is "
                             f"{what} = {xdot[worst]:.3g}{hint}")
    Ar = A[np.ix_(keep, keep)]
    names = [chart.names[v] for v in keep]
    values, vectors = np.linalg.eig(Ar) if Ar.size else (np.zeros(0, complex), np.zeros((0, 0), complex))
    order = sorted(range(len(values)), key=lambda k: (abs(values[k]), values[k].imag))
    values, vectors = values[order], vectors[:, order]
    M = C = K = None
    second = []
    kq = [v for v in keep if v < nq]
    ku = [v for v in keep if v >= nq]
    rates = [chart.rate_of_speed[v - nq] for v in ku]
    coord_of = {int(chart.iq[v]): v for v in kq}
    if kq and all(r in coord_of for r in rates) and len(set(rates)) == len(kq):
        S = [coord_of[r] for r in rates]
        Cm = chart.speed_map(chart.q_star)
        Mfull = s.mass_matrix(chart.q_star)
        r_idx = [v - nq for v in ku]
        M = (Cm.T @ Mfull @ Cm)[np.ix_(r_idx, r_idx)]
        K = -M @ A[np.ix_(ku, S)]
        C = -M @ A[np.ix_(ku, ku)]
        second = [chart.names[v] for v in S]
    modes = _modes(chart, A, keep, aside, values, vectors, nq)
    return Linearization(
        method=chart.formulation.name, coordinates="joint" if chart.dynamics_system is chart.system else "absolute",
        about=about, names=names, A=Ar, eigenvalues=values, modes=modes, cyclic=cyclic, conserved=conserved,
        M=M, C=C, K=K, second_order=second,
        q=dict(zip(s.coordinate_names, map(float, chart.q_star))),
        u=dict(zip(s.speed_names, map(float, chart.u_star))), A_full=A, names_full=list(chart.names))


def _modes(chart, A, keep, aside, values, vectors, nq) -> list[Mode]:
    """Each eigenvector extended to the set-aside variables ((λ − A_RR) v_R = A_RK v_K) and its
    coordinates completed over the constraint manifold (δq = Z δq_i)."""
    Z = chart.coordinate_map(chart.q_star)
    names = chart.system.coordinate_names
    scale = max(1.0, float(np.max(np.abs(A), initial=0.0)))
    modes = []
    for lam, vk in zip(values, vectors.T):
        full = np.zeros(A.shape[0], complex)
        full[keep] = vk
        if aside:
            lhs = lam * np.eye(len(aside)) - A[np.ix_(aside, aside)]
            full[aside] = np.linalg.lstsq(lhs, A[np.ix_(aside, keep)] @ vk, rcond=None)[0]
        dq = Z @ full[:nq]
        big = int(np.argmax(np.abs(dq))) if dq.size else 0
        if dq.size and abs(dq[big]) > 0:
            dq = dq / dq[big]
        mag = abs(lam)
        modes.append(Mode(
            eigenvalue=complex(lam), frequency_hz=mag / (2 * math.pi), damped_frequency_hz=abs(lam.imag) / (2 * math.pi),
            damping_ratio=(-lam.real / mag) if mag > 0 else float("nan"),
            stable=bool(lam.real <= 1e-9 * scale),
            shape={n: complex(v) for n, v in zip(names, dq)}))
    return modes
