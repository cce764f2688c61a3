"""One interface for every formulation (the registry engine.methods lists them).

A Formulation takes a MechanicalSystem (unconstrained dynamics M u_dot = f and the constraint
rows A u_dot = b) and turns it into the derivative of the state it integrates. Each one chooses
its own state — Lagrange and Udwadia–Kalaba integrate (q, u), Maggi and Kane integrate
independent (quasi-)velocities — and maps it back to the model's coordinates and speeds.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field

import numpy as np

from eomlab.engine.compiled.compiled_step import COMPILED_STEP_PATH, step_kernel
from eomlab.engine.compiled.constrained_rhs import ConstrainedStep, constrained_kernel
from eomlab.engine.constraints import HOLONOMIC, VELOCITY, ConstraintRows, StateContext
from eomlab.engine.model import Settings
from eomlab.engine.mechanics.system import Dynamics, MechanicalSystem, SingularMassMatrix


class ConstraintFailure(ArithmeticError):
    """The constraint rows cannot be solved at this state (singular or inconsistent)."""


@dataclass
class Evaluation:
    """Everything a formulation knows at one state."""

    q: np.ndarray
    u: np.ndarray
    u_dot: np.ndarray
    multipliers: np.ndarray
    rows: ConstraintRows | None
    dynamics: Dynamics
    diagnostics: dict = field(default_factory=dict)


class Formulation(ABC):
    """A formulation must say what it integrates and give the accelerations (and multipliers) at
    a state; by default it integrates (q, u), which it may change (the reduced formulations
    integrate independent speeds). Its module docstring names the equation it implements."""

    name = ""  # its key in engine.methods.REGISTRY
    handles_redundant = True  # redundant (dependent, consistent) constraint rows are harmless
    multipliers_wanted = True  # False inside the integrator's right-hand side
    #: without constraint rows its equations are the tree's M u_dot = f (Gibbs–Appell keeps its own)
    tree_equations_when_free = True

    def __init__(self, system: MechanicalSystem, settings: Settings):
        self.system = system
        self.settings = settings
        self.constraints = system.constraints
        self.n_rows = len(self.constraints) if self.constraints is not None else 0
        self.multiplier_names = [f"lambda_{n}" for n in self.constraints.row_names] if self.n_rows else []
        self.rhs_evals = 0
        stab = settings.stabilization
        self.baumgarte = (stab.alpha, stab.beta) if stab.kind == "baumgarte" else None
        # no rows on the compiled path: the right-hand side is (q̇, ABA), nothing else to form
        self._free_tree = self.n_rows == 0 and system.compiled and self.tree_equations_when_free
        tree_derivative = system.free_state_derivative() if self._free_tree else None
        if tree_derivative is not None:
            self.derivative = self._bound_tree_derivative(tree_derivative)
        #: the compiled DOP853 step's view of this tree (engine.compiled.compiled_step) or None
        self.compiled_step = step_kernel(self, system.tree_backend) if tree_derivative is not None else None
        # loop closures on the compiled path: the whole right-hand side in one numba call where it holds the
        # model (engine.compiled.constrained_rhs), this class's own `checked_derivative` elsewhere
        kernel = constrained_kernel(self) if self.n_rows and system.compiled else None
        if kernel is not None:
            self.derivative = kernel.bind(self.checked_derivative)
            self.compiled_step = ConstrainedStep(kernel)

    @property
    def dynamics_path(self) -> str:
        """The tree-dynamics path in words (engine.compiled.tree_backend), and the compiled step once it ran."""
        step = self.compiled_step
        path = self.system.dynamics_path
        return f"{path} + {COMPILED_STEP_PATH}" if step is not None and step.steps else path

    # --- the state it integrates ----------------------------------------------------------

    @property
    @abstractmethod
    def integrates(self) -> str:
        """What it integrates, with sizes (shown in compare mode's cost table)."""

    def initial_state(self, q: np.ndarray, u: np.ndarray) -> np.ndarray:
        return np.concatenate((q, u))

    def qu_to_state(self, q: np.ndarray, u: np.ndarray) -> np.ndarray:
        return np.concatenate((q, u))

    def state_to_qu(self, t: float, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = self.system.n_q
        return y[:n], y[n:]

    def model_speeds(self, q: np.ndarray, u: np.ndarray) -> np.ndarray:
        """The model's speeds (CSV columns) from this formulation's speeds."""
        return u

    def model_to_own(self, q: np.ndarray, u_model: np.ndarray) -> np.ndarray:
        return u_model

    def state_changed(self, t: float, y: np.ndarray) -> np.ndarray | None:
        """Called after each accepted step; a new state means the integrator must restart."""
        return None

    # --- evaluation -----------------------------------------------------------------------

    def checked_derivative(self, t: float, y: np.ndarray) -> np.ndarray:
        """The integrator's right-hand side: no multipliers (they are needed at samples only); a
        singular M raises SingularMassMatrix naming the speed that moves no mass."""
        self.rhs_evals += 1
        if self._free_tree:  # (q, u) is the whole state when there are no rows
            n = self.system.n_q
            return self.system.free_derivative(t, y[:n], y[n:])
        self.multipliers_wanted = False
        try:
            ev = self.evaluate(t, y)
        finally:
            self.multipliers_wanted = True
        return self.state_derivative(ev)

    #: the integrator's right-hand side; on the compiled path without rows an instance binds its
    #: own (`_bound_tree_derivative`), which may give NaN where `checked_derivative` would raise
    derivative = checked_derivative

    def _bound_tree_derivative(self, tree_derivative):
        """(q̇, ABA) straight from y, with no per-call branching but for force elements a pull or
        push appends during a run (those take the general path)."""
        forces, general = self.system.forces, self.checked_derivative

        def derivative(t: float, y: np.ndarray) -> np.ndarray:
            if forces:
                return general(t, y)
            self.rhs_evals += 1
            return tree_derivative(y)

        return derivative

    def state_derivative(self, ev: Evaluation) -> np.ndarray:
        return np.concatenate((ev.dynamics.qd, ev.u_dot))

    def state_to_qu_positions(self, t: float, y: np.ndarray):
        """(q, u, positions stage of the kinematics at q or None)."""
        q, u = self.state_to_qu(t, y)
        return q, u, None

    def evaluate(self, t: float, y: np.ndarray) -> Evaluation:
        q, u, positions = self.state_to_qu_positions(t, y)
        dyn = self.system.dynamics(t, q, u, positions)
        state = self.context(t, q, u, dyn)
        rows = self.rows_at(state)
        try:
            u_dot, lam, diag = self.accelerations(dyn, rows, state)
        except SingularMassMatrix:
            self.system.kin.gimbal_checks(q, 1e-3)  # name a gimbal lock rather than its symptom
            raise
        return Evaluation(q=q, u=u, u_dot=u_dot, multipliers=lam, rows=rows, dynamics=dyn, diagnostics=diag)

    @abstractmethod
    def impulse_response(self, ev: Evaluation, Q: np.ndarray) -> np.ndarray:
        """The jumps Δu (n_u × k) of this formulation's speeds under the generalized impulses Q
        (n_u × k columns) at the state of `ev`, every velocity-level constraint row kept (A Δu = 0):
        the formulation's impulsive form (engine.unilateral; its module docstring names it)."""

    @abstractmethod
    def accelerations(self, dyn: Dynamics, rows: ConstraintRows | None, state: StateContext):
        """u_dot, the multipliers and a dict of diagnostics at `state` (t, q, u and the kinematics),
        where the tree's dynamics are `dyn` and the constraint rows `rows` (None: no constraints)."""

    # --- constraint rows shared by all formulations -----------------------------------------

    def context(self, t, q, u, dyn: Dynamics) -> StateContext:
        """The state the constraint rows and force elements read: the Dynamics itself carries
        t, q, u, qd, W and the kinematic state (formed only if a reader asks for it)."""
        return dyn

    def constraint_rows(self, t, q, u, dyn: Dynamics) -> ConstraintRows | None:
        return self.rows_at(self.context(t, q, u, dyn))

    def rows_at(self, state: StateContext) -> ConstraintRows | None:
        if not self.n_rows:
            return None
        rows = self.constraints.evaluate(state)
        if self.baumgarte is not None:
            rows.b = rows.b - self.baumgarte_terms(rows)
        return rows

    @staticmethod
    def impulse_rows(rows: ConstraintRows | None) -> np.ndarray | None:
        """The rows an impulse must keep: holonomic rows (at the velocity level) and first-order rows."""
        if rows is None:
            return None
        keep = (rows.level == HOLONOMIC) | (rows.level == VELOCITY)
        return rows.A[keep] if np.any(keep) else None

    def baumgarte_terms(self, rows: ConstraintRows) -> np.ndarray:
        """2α Φ_dot + β² Φ for holonomic rows, α ψ for first-order rows (THEORY.md §3)."""
        alpha, beta = self.baumgarte
        k = rows.A.shape[0]
        pos = np.zeros(k)
        vel = np.zeros(k)
        holo = np.flatnonzero(rows.level == HOLONOMIC)
        pos[holo] = rows.position
        vel[rows.velocity_rows] = rows.velocity
        gain = np.where(rows.level == HOLONOMIC, 2.0 * alpha, np.where(rows.level == VELOCITY, alpha, 0.0))
        return gain * vel + beta * beta * pos
