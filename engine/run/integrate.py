"""Stepping: scipy's OdeSolver classes (DOP853, RK45, Radau, BDF, LSODA) and a fixed-step RK4.

A Stepper takes one step at a time, samples the last step's dense output, and can be handed a
new state (after a projection or a change of independent speeds): the explicit Runge–Kutta
solvers take it in place (state and its derivative replaced), the implicit ones restart. DOP853
on a free tree takes its steps compiled when numba is there (engine.compiled.compiled_step).
scipy.integrate is imported when a stepper is built, not with this module.
"""
from __future__ import annotations

import numpy as np

IN_PLACE = ("DOP853", "RK45")


def scipy_solvers() -> dict:
    """scipy's solver classes by name (imported on the first call)."""
    from scipy.integrate import BDF, DOP853, LSODA, RK45, Radau

    return {"DOP853": DOP853, "RK45": RK45, "Radau": Radau, "BDF": BDF, "LSODA": LSODA}


class RK4:
    """Classical fixed-step Runge–Kutta with cubic Hermite dense output."""

    def __init__(self, fun, t0, y0, t_bound, dt):
        self.fun, self.t, self.y, self.t_bound, self.dt = fun, t0, np.array(y0, float), t_bound, dt
        self.f = fun(t0, self.y)
        self.t_old = self.y_old = self.f_old = None
        self.status = "running"
        self.message = None

    def step(self):
        h = min(self.dt, self.t_bound - self.t)
        t, y, f = self.t, self.y, self.f
        k2 = self.fun(t + h / 2, y + h / 2 * f)
        k3 = self.fun(t + h / 2, y + h / 2 * k2)
        k4 = self.fun(t + h, y + h * k3)
        self.t_old, self.y_old, self.f_old = t, y, f
        self.y = y + h / 6 * (f + 2 * k2 + 2 * k3 + k4)
        self.t = t + h if self.t_bound - (t + h) > 1e-12 * max(1.0, abs(self.t_bound)) else self.t_bound
        self.f = self.fun(self.t, self.y)
        if self.t >= self.t_bound:
            self.status = "finished"

    def dense_output(self):
        t0, t1, y0, y1, f0, f1 = self.t_old, self.t, self.y_old, self.y, self.f_old, self.f
        h = t1 - t0

        def at(t):
            s = (t - t0) / h
            h00, h10 = 2 * s**3 - 3 * s**2 + 1, s**3 - 2 * s**2 + s
            h01, h11 = -2 * s**3 + 3 * s**2, s**3 - s**2
            return h00 * y0 + h10 * h * f0 + h01 * y1 + h11 * h * f1

        return at


class Stepper:
    """`kernel`: a function giving the formulation's compiled step (engine.compiled.compiled_step.StepKernel)
    or None; when it gives one at the start DOP853 takes its steps in one compiled call each when it
    can, asking again at every step (a parameter change swaps the formulation mid-run)."""

    def __init__(self, integrator: str, fun, t0: float, y0: np.ndarray, t_bound: float,
                 rtol: float, atol: float, dt: float, kernel=None):
        self.integrator, self.fun, self.t_bound, self.kernel = integrator, fun, t_bound, kernel
        self.rtol, self.atol, self.dt = rtol, atol, dt
        self.steps = 0
        self._start(t0, y0)

    def _start(self, t0, y0):
        if self.integrator == "RK4":
            self.solver = RK4(self.fun, t0, y0, self.t_bound, self.dt)
        elif self.integrator == "DOP853" and self.kernel is not None and self.kernel() is not None:
            from eomlab.engine.compiled.compiled_dop853 import CompiledDOP853

            self.solver = CompiledDOP853(self.kernel, self.fun, t0, np.array(y0, float), self.t_bound, rtol=self.rtol,
                                         atol=self.atol)
        else:
            cls = scipy_solvers()[self.integrator]
            self.solver = cls(self.fun, t0, np.array(y0, float), self.t_bound, rtol=self.rtol, atol=self.atol)
        self._dense = None

    @property
    def t(self) -> float:
        return self.solver.t

    @property
    def y(self) -> np.ndarray:
        return self.solver.y

    @property
    def finished(self) -> bool:
        return self.solver.status == "finished"

    def step(self) -> str | None:
        """One step; returns None, or the solver's message when it failed."""
        message = self.solver.step()
        self.steps += 1
        self._dense = None
        if self.solver.status == "failed":
            return str(message or self.solver.message or "step failed")
        return None

    @property
    def t_old(self) -> float:
        return self.solver.t_old

    def sample(self, t: float) -> np.ndarray:
        if self._dense is None:
            self._dense = self.solver.dense_output()
        return np.asarray(self._dense(t), float)

    def replace_state(self, y: np.ndarray):
        """Continue from a new state at the current time."""
        t = self.solver.t
        if self.integrator in IN_PLACE or self.integrator == "RK4":
            self.solver.y = np.array(y, float)
            self.solver.f = self.solver.fun(t, self.solver.y) if self.integrator != "RK4" else self.fun(t, self.solver.y)
        else:
            self._start(t, y)
        self._dense = None
