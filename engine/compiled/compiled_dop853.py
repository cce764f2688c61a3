"""The DOP853 solver whose step attempts run compiled (engine.compiled.compiled_step explains when):
scipy's DOP853 subclassed. Its own module so that scipy.integrate loads when a stepper is built, not
when a formulation is (`eomlab linearize`, the window's first frame).
"""
from __future__ import annotations

import time

import numpy as np
from scipy.integrate import DOP853
from scipy.integrate._ivp import dop853_coefficients
from scipy.integrate._ivp.rk import Dop853DenseOutput

from eomlab.engine.compiled.compiled_step import call_kernel, share_with_loading, start_compiling


class CompiledDOP853(DOP853):
    """scipy's DOP853 (same tableau, error norm and step-size control; its dense output, which
    evaluates the three extra stages through `fun`) whose step attempts run in one compiled call
    when `kernel()` (the current formulation's StepKernel, or None) allows."""

    def __init__(self, kernel, fun, t0, y0, t_bound, **options):
        super().__init__(fun, t0, y0, t_bound, **options)
        self._kernel = kernel
        self._atol = np.broadcast_to(np.asarray(self.atol, dtype=float), self.y.shape).copy()

    def _step_impl(self):
        step = self._kernel()
        kernels = step.kernels() if step is not None else None
        if kernels is None:
            begin = time.perf_counter()
            taken = super()._step_impl()
            if step is not None:  # compile after the first step, which then shares the core with nothing
                start_compiling()
                share_with_loading(time.perf_counter() - begin)
            return taken
        outcome, evaluations = self._attempt(kernels, step.arrays)
        step.formulation.rhs_evals += evaluations
        if outcome == kernels.NONFINITE:  # scipy's step again: the checked right-hand side names it
            return super()._step_impl()
        if outcome == kernels.TOO_SMALL:
            return False, self.TOO_SMALL_STEP
        step.steps += 1
        return True, None

    def _dense_output_impl(self):
        """scipy's DOP853 interpolant; its three extra stages compiled too when the step was."""
        step = self._kernel()
        kernels = step.kernels() if step is not None else None
        if kernels is None or not call_kernel(kernels.dop853_extra_stages, step.arrays, self.y_old,
                                              float(self.h_previous), self.A_EXTRA, self.K_extended):
            return super()._dense_output_impl()
        extra = len(self.A_EXTRA)
        self.nfev += extra
        step.formulation.rhs_evals += extra
        # DOP853's interpolant (Hairer, Nørsett & Wanner, §II.6), as scipy forms it from the stages
        K, h = self.K_extended, self.h_previous
        delta_y, f_old = self.y - self.y_old, K[0]
        F = np.empty((dop853_coefficients.INTERPOLATOR_POWER, self.n))
        F[0] = delta_y
        F[1] = h * f_old - delta_y
        F[2] = 2 * delta_y - h * (self.f + f_old)
        F[3:] = h * np.dot(self.D, K)
        return Dop853DenseOutput(self.t_old, self.t, self.y_old, F)

    def _attempt(self, kernels, tree) -> tuple[int, int]:
        """One compiled call on `tree` (a FlatTree as a plain tuple); on acceptance the solver's state
        moves on as scipy's step moves it. (outcome, right-hand sides evaluated)."""
        t, y = self.t, self.y
        min_step = 10 * np.abs(np.nextafter(t, self.direction * np.inf) - t)
        outcome, t_new, h, h_abs, y_new, f_new, evaluations = call_kernel(
            kernels.dop853_attempt, tree, float(t), y, self.f, float(self.h_abs), float(min_step), float(self.max_step), float(self.t_bound),
            float(self.direction), float(self.rtol), self._atol, self.A, self.B, self.E3, self.E5,
            float(self.error_exponent), self.K)
        self.nfev += evaluations
        if outcome == kernels.ACCEPTED:
            self.h_previous, self.y_old = h, y
            self.t, self.y, self.h_abs, self.f = t_new, y_new, h_abs, f_new
        return outcome, evaluations
