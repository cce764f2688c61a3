"""A batched explicit Runge–Kutta integrator: B members, each with its own step size and error control.

Each member follows exactly what scipy's ``DOP853`` / ``RK45`` would do for it alone (the same
tableaux, taken from scipy; the same initial step choice, error norm and step-size factors), so a
member reproduces a single run of the engine to rounding. Members advance together: one call of
the right-hand side evaluates every member still running. A member that finishes or fails drops
out of the arrays; the others go on.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy.integrate import DOP853, RK45

SAFETY, MIN_FACTOR, MAX_FACTOR = 0.9, 0.2, 10.0  # scipy's step-size controller
BLOW_UP = 1e12  # a state component beyond this is a blow-up (as in a single run)
MAX_NONFINITE_TRIALS = 200  # rejected trial steps with NaN derivatives before a member is given up
TINY_STEP, TINY_STEPS_IN_A_ROW = 1e-12, 10  # step-size collapse, as in a single run
BATCHED_INTEGRATORS = ("DOP853", "RK45")


@dataclass(frozen=True)
class Tableau:
    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    n_stages: int
    error_order: int
    E: np.ndarray | None = None  # RK45: one error estimate
    E3: np.ndarray | None = None  # DOP853: the 3rd- and 5th-order estimates
    E5: np.ndarray | None = None


def tableau(integrator: str) -> Tableau:
    if integrator == "DOP853":
        return Tableau(A=DOP853.A, B=DOP853.B, C=DOP853.C, n_stages=DOP853.n_stages,
                       error_order=DOP853.error_estimator_order, E3=DOP853.E3, E5=DOP853.E5)
    if integrator == "RK45":
        return Tableau(A=RK45.A, B=RK45.B, C=RK45.C, n_stages=RK45.n_stages,
                       error_order=RK45.error_estimator_order, E=RK45.E)
    raise ValueError(f"no batched integrator {integrator!r}")


def _rms(x: np.ndarray) -> np.ndarray:
    """scipy's norm per row: ‖x‖₂ / √n."""
    return np.sqrt(np.mean(x * x, axis=1))


# fun(members, t, y) -> ẏ: members are indices into the batch (each may have its own parameters)
RHS = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
# observer(members, t_old, y_old, f_old, t_new, y_new, f_new) after each accepted step
Observer = Callable[..., None]


class BatchedRungeKutta:
    """Integrate ẏ = fun(t, y) from t = 0 to `t_end` for every row of `y0`.

    After `run()`: `t`, `y` (where each member stopped), `rhs_evals` and `steps` per member,
    `failure` (None or a message per member).
    """

    def __init__(self, integrator: str, fun: RHS, y0: np.ndarray, t_end: float, rtol, atol,
                 observer: Observer | None = None, dt_out: float = 0.01):
        self.tab = tableau(integrator)
        self.fun, self.observer, self.t_end, self.dt_out = fun, observer, float(t_end), dt_out
        self.y = np.array(y0, dtype=float)
        B, n = self.y.shape
        self.rtol = np.broadcast_to(np.asarray(rtol, float), (B,)).copy()
        self.atol = np.broadcast_to(np.asarray(atol, float), (B,)).copy()
        self.t = np.zeros(B)
        self.rhs_evals = np.zeros(B, dtype=np.int64)
        self.steps = np.zeros(B, dtype=np.int64)
        self.failure: list[str | None] = [None] * B
        self.exponent = -1.0 / (self.tab.error_order + 1)

    # --- the start: f(y0) and scipy's initial step ------------------------------------------

    def _evaluate(self, members, t, y) -> np.ndarray:
        self.rhs_evals[members] += 1
        return self.fun(members, t, y)

    def _initial_step(self, members, y0, f0) -> np.ndarray:
        """Hairer–Nørsett–Wanner II.4's starting step, member by member (scipy's select_initial_step)."""
        rtol, atol = self.rtol[members, None], self.atol[members, None]
        scale = atol + np.abs(y0) * rtol
        d0, d1 = _rms(y0 / scale), _rms(f0 / scale)
        h0 = np.where((d0 < 1e-5) | (d1 < 1e-5), 1e-6, 0.01 * d0 / np.where(d1 > 0, d1, 1.0))
        h0 = np.minimum(h0, self.t_end)
        f1 = self._evaluate(members, h0, y0 + h0[:, None] * f0)
        d2 = _rms((f1 - f0) / scale) / h0
        both_small = (d1 <= 1e-15) & (d2 <= 1e-15)
        with np.errstate(divide="ignore"):
            h1 = np.where(both_small, np.maximum(1e-6, h0 * 1e-3),
                          (0.01 / np.maximum(d1, d2)) ** (1.0 / (self.tab.error_order + 1)))
        return np.minimum(np.minimum(100 * h0, h1), self.t_end)

    # --- stepping ------------------------------------------------------------------------------

    def _error_norm(self, K, h, scale) -> np.ndarray:
        tab = self.tab
        if tab.E is not None:  # RK45: ‖h K E / scale‖
            return _rms(h[:, None] * np.einsum("sbn,s->bn", K, tab.E) / scale)
        err5 = np.einsum("sbn,s->bn", K, tab.E5) / scale
        err3 = np.einsum("sbn,s->bn", K, tab.E3) / scale
        e5, e3 = np.sum(err5 * err5, axis=1), np.sum(err3 * err3, axis=1)
        denominator = e5 + 0.01 * e3
        with np.errstate(invalid="ignore", divide="ignore"):
            norm = np.abs(h) * e5 / np.sqrt(denominator * scale.shape[1])
        return np.where((e5 == 0) & (e3 == 0), 0.0, norm)

    def _attempt(self, members, t, y, f, h):
        """One Runge–Kutta step of size h for each member: y_new, f_new and the stages K."""
        tab = self.tab
        K = np.empty((tab.n_stages + 1, *y.shape))
        K[0] = f
        for s in range(1, tab.n_stages):
            dy = np.einsum("sbn,s->bn", K[:s], tab.A[s, :s]) * h[:, None]
            K[s] = self._evaluate(members, t + tab.C[s] * h, y + dy)
        y_new = y + h[:, None] * np.einsum("sbn,s->bn", K[:-1], tab.B)
        f_new = self._evaluate(members, t + h, y_new)
        K[-1] = f_new
        return y_new, f_new, K

    def run(self) -> None:
        B = self.y.shape[0]
        members = np.arange(B)
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            f = self._evaluate(members, self.t, self.y)
            bad = ~np.all(np.isfinite(f), axis=1)
            if np.any(bad):  # e.g. a singular mass matrix: nothing to integrate
                self._fail(members[bad], "the equations of motion are NaN or infinite at the start (singular mass matrix?)")
                members, f = members[~bad], f[~bad]
            if members.size:
                h_abs = self._initial_step(members, self.y[members], f)
                self._loop(members, f, h_abs)

    def _fail(self, members, why: str) -> None:
        for m in members:
            self.failure[m] = f"run stopped at t = {self.t[m]:.6g} s: {why}"

    def _loop(self, members, f, h_abs) -> None:
        t_end = self.t_end
        y = self.y[members]
        t = self.t[members]
        retrying = np.zeros(len(members), bool)  # rejected within the current step (scipy's step_rejected)
        nonfinite = np.zeros(len(members), np.int64)
        tiny = np.zeros(len(members), np.int64)
        while members.size:
            min_step = 10 * np.abs(np.nextafter(t, np.inf) - t)
            h_abs = np.where(~retrying & (h_abs < min_step), min_step, h_abs)
            too_small = retrying & (h_abs < min_step)
            t_new = np.minimum(t + h_abs, t_end)
            h = t_new - t
            y_new, f_new, K = self._attempt(members, t, y, f, h)
            scale = self.atol[members, None] + np.maximum(np.abs(y), np.abs(y_new)) * self.rtol[members, None]
            err = self._error_norm(K, h, scale)
            finite = np.isfinite(err)
            accepted = finite & (err < 1) & ~too_small
            with np.errstate(divide="ignore"):
                grow = np.where(err == 0, MAX_FACTOR, np.minimum(MAX_FACTOR, SAFETY * err ** self.exponent))
                shrink = np.where(finite, np.maximum(MIN_FACTOR, SAFETY * err ** self.exponent), MIN_FACTOR)
            grow = np.where(retrying, np.minimum(1.0, grow), grow)
            h_abs = np.where(accepted, np.abs(h) * grow, np.abs(h) * shrink)
            nonfinite = np.where(finite, nonfinite, nonfinite + 1)

            done = np.zeros(len(members), bool)
            failed = {}
            if np.any(too_small):
                failed["the step size collapsed (required step size is less than spacing between numbers)"] = too_small
            if np.any(nonfinite > MAX_NONFINITE_TRIALS):
                failed["the equations of motion stay NaN or infinite however short the step"] = nonfinite > MAX_NONFINITE_TRIALS
            a = np.flatnonzero(accepted)
            if a.size:
                if self.observer is not None:
                    self.observer(members[a], t[a], y[a], f[a], t_new[a], y_new[a], f_new[a])
                t[a], y[a], f[a] = t_new[a], y_new[a], f_new[a]
                self.steps[members[a]] += 1
                tiny[a] = np.where(np.abs(h[a]) < TINY_STEP * np.maximum(np.abs(t[a]), self.dt_out), tiny[a] + 1, 0)
                nonfinite[a] = 0
                state_bad = ~np.all(np.isfinite(y[a]), axis=1)
                blown = ~state_bad & (np.max(np.abs(np.where(np.isfinite(y[a]), y[a], 0)), axis=1) > BLOW_UP)
                for mask, why in ((state_bad, "the state became NaN or infinite"),
                                  (blown, f"the state exceeds {BLOW_UP:.0e} (the motion blew up)"),
                                  (tiny[a] >= TINY_STEPS_IN_A_ROW, f"the step size collapsed ({TINY_STEPS_IN_A_ROW} "
                                   "steps in a row shorter than 1e-12 s)")):
                    if np.any(mask):
                        m = np.zeros(len(members), bool)
                        m[a[mask]] = True
                        failed[why] = failed[why] | m if why in failed else m
                done[a] = t[a] >= t_end
            retrying = ~accepted
            out = done.copy()
            for why, mask in failed.items():
                mask = mask & ~done
                self.t[members[mask]] = t[mask]
                self._fail(members[mask], why)
                out |= mask
            if np.any(out):
                self.t[members[out]], self.y[members[out]] = t[out], y[out]
                keep = ~out
                members, t, y, f, h_abs = members[keep], t[keep], y[keep], f[keep], h_abs[keep]
                retrying, nonfinite, tiny = retrying[keep], nonfinite[keep], tiny[keep]
