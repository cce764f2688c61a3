"""The fast paths of the right-hand side against the general ones, at random states.

- ConstraintSet.rows_at (rows at u from the rows at u = 0, each kind evaluated once per state)
  against ConstraintSet.evaluate at the full state;
- ReducedFormulation.evaluate (Maggi, Kane: one constraint pass and the LU factor of A_d reused)
  and the LAPACK-level linear algebra of every formulation against Formulation.evaluate, the
  general path, and against a plain numpy solve of the same equations.

Tolerance: 1e-12 relative to the size of the quantity (max(1, max |x|)), stated per assertion.
"""
import numpy as np
import pytest

from eomlab.engine.constraints import StateContext
from eomlab.engine.formulations.formulation import Formulation
from eomlab.engine.model import Stabilization
from eomlab.engine.presets import preset
from eomlab.engine.simulation import Simulation

from engine_helpers import FORMULATIONS

REL = 1e-12

CASES = [
    ("four_bar", {}, None),
    ("cartesian_pendulum", {}, None),
    ("spherical_pendulum_cartesian", {}, None),
    ("knife_edge", {}, None),
    ("chaplygin_sleigh", {}, None),
    ("rolling_disk_vertical", {}, None),
    ("rolling_disk_leaning", {}, None),
    ("acceleration_constraint_particle", {}, None),
    ("driven_crank", {}, None),
    ("double_pendulum_absolute", {}, None),
    ("planar_chain", dict(n=6, kind="rod", angles=[0.5] * 6), "absolute"),
    ("spatial_chain", {}, "absolute"),
    ("cart_pendulum", {}, "absolute"),
]
IDS = [c[0] + ("_" + c[2] if c[2] else "") for c in CASES]


def _sim(case, method, **kw):
    name, params, coords = case
    return Simulation(preset(name, **params), method=method, coordinates=coords, t_end=1.0, **kw)


def _close(a, b, what):
    a, b = np.asarray(a, float), np.asarray(b, float)
    assert a.shape == b.shape, what
    scale = max(1.0, float(np.max(np.abs(b), initial=0.0)))
    assert np.max(np.abs(a - b), initial=0.0) <= REL * scale, what


def _random_states(sim, rng, count=4):
    """States near the initial one: q perturbed by 0.05, speeds random in [-1, 1]."""
    y0 = np.array(sim.stepper.y, copy=True)
    n_q = sim.system.n_q
    for _ in range(count):
        y = y0.copy()
        y[:n_q] += 0.05 * rng.standard_normal(n_q)
        y[n_q:] = rng.uniform(-1.0, 1.0, y.size - n_q)
        yield y


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_rows_at_u_from_rows_at_zero_equal_the_full_evaluation(case):
    """rows_at(evaluate_split(u = 0), full state) == evaluate(full state), every field, 1e-12 relative."""
    rng = np.random.default_rng(7)
    for method in ("lagrange", "kane"):  # model speeds and (for body rates) Lagrange's rate speeds
        sim = _sim(case, method)
        f = sim.formulation
        system, cs = f.system, f.constraints
        for _ in range(4):
            t = float(rng.uniform(0.0, 2.0))
            q = sim.system.q0 + 0.05 * rng.standard_normal(system.n_q)
            u = rng.uniform(-1.0, 1.0, system.n_u)
            dyn = system.dynamics(t, q, u)
            full = cs.evaluate(f.context(t, q, u, dyn))
            u0 = np.zeros(system.n_u)
            split = cs.evaluate_split(StateContext(t=t, q=q, u=u0, qd=u0, W=dyn.W, ks=system.kin.positions(q)))
            fast = cs.rows_at(split, f.context(t, q, u, dyn))
            for field in ("A", "b", "position", "velocity", "c"):
                _close(getattr(fast, field), getattr(full, field), f"{case[0]} {method} {field}")
            for field in ("velocity_rows", "linear_rows", "level", "owner"):
                assert np.array_equal(getattr(fast, field), getattr(full, field)), field
            # the rows at u = 0 themselves are the full evaluation at u = 0
            zero = cs.evaluate(StateContext(t=t, q=q, u=u0, qd=u0, W=dyn.W, ks=system.kin.positions(q)))
            for field in ("A", "b", "position", "velocity", "c"):
                _close(getattr(split.rows, field), getattr(zero, field), f"{case[0]} {method} {field} at u = 0")


@pytest.mark.parametrize("case", CASES, ids=IDS)
@pytest.mark.parametrize("method", FORMULATIONS)
def test_formulation_fast_path_equals_the_general_path(case, method):
    """f.evaluate == Formulation.evaluate (general rows, no reused factor): u, u_dot and the
    multipliers, 1e-12 relative; and the derivative is finite."""
    rng = np.random.default_rng(11)
    sim = _sim(case, method)
    f = sim.formulation
    for y in _random_states(sim, rng):
        fast = f.evaluate(0.3, y)
        general = Formulation.evaluate(f, 0.3, y)
        for field in ("q", "u", "u_dot", "multipliers"):
            _close(getattr(fast, field), getattr(general, field), f"{case[0]} {method} {field}")
        _close(fast.rows.b, general.rows.b, "b")
        assert np.all(np.isfinite(f.derivative(0.3, y)))


@pytest.mark.parametrize("case", CASES, ids=IDS)
@pytest.mark.parametrize("method", ["maggi", "kane"])
def test_reduced_accelerations_satisfy_the_rows_and_the_reduced_equations(case, method):
    """The reduced formulations' u_dot against numpy: A u_dot = b (1e-10 relative to |A| |u_dot|
    + |b|) and, with D the orthonormal null space of A (by SVD), Dᵀ (M u_dot − f) = 0 — the
    equations of motion projected on the admissible accelerations (1e-10 relative)."""
    rng = np.random.default_rng(5)
    sim = _sim(case, method)
    f = sim.formulation
    for y in _random_states(sim, rng, 3):
        ev = f.evaluate(0.3, y)
        A, b, M, force = ev.rows.A, ev.rows.b, ev.dynamics.M, ev.dynamics.forcing
        ud = ev.u_dot
        scale = np.max(np.abs(A)) * np.max(np.abs(ud)) + np.max(np.abs(b)) + 1.0
        assert np.max(np.abs(A @ ud - b)) < 1e-10 * scale
        _, s, Vt = np.linalg.svd(A)
        r = int(np.sum(s > 1e-10 * s[0]))
        D = Vt[r:].T
        resid = D.T @ (M @ ud - force)
        assert np.max(np.abs(resid), initial=0.0) < 1e-10 * (np.max(np.abs(M)) * np.max(np.abs(ud)) + np.max(np.abs(force)) + 1.0)


@pytest.mark.parametrize("method", ["maggi", "kane"])
def test_fast_path_with_baumgarte(method):
    """Baumgarte terms enter the fast path exactly as the general one (1e-12 relative)."""
    rng = np.random.default_rng(3)
    sim = _sim(("double_pendulum_absolute", {}, None), method,
               stabilization=Stabilization("baumgarte", alpha=5.0, beta=5.0))
    f = sim.formulation
    for y in _random_states(sim, rng):
        fast, general = f.evaluate(0.0, y), Formulation.evaluate(f, 0.0, y)
        _close(fast.u_dot, general.u_dot, "u_dot")
        _close(fast.rows.b, general.rows.b, "b")


@pytest.mark.parametrize("case", CASES, ids=IDS)
@pytest.mark.parametrize("method", ["maggi", "kane"])
def test_reduced_multipliers_equal_the_pseudo_inverse_form(case, method):
    """λ = (A⁺)ᵀ (M u_dot − f): the QR form of the second group against scipy's pinv (1e-10 relative)."""
    import scipy.linalg

    rng = np.random.default_rng(13)
    sim = _sim(case, method)
    f = sim.formulation
    for y in _random_states(sim, rng, 3):
        ev = f.evaluate(0.3, y)
        r = ev.dynamics.M @ ev.u_dot - ev.dynamics.forcing
        ref = scipy.linalg.pinv(ev.rows.A, rtol=1e-10).T @ r
        scale = max(1.0, float(np.max(np.abs(ref))))
        assert np.max(np.abs(ev.multipliers - ref)) < 1e-10 * scale


@pytest.mark.parametrize("method", ["maggi", "kane"])
def test_reduced_multipliers_with_redundant_rows(method):
    """A duplicated closure row: the pseudo-inverse path shares the reaction between the copies (1e-10)."""
    from dataclasses import replace

    from eomlab.engine.model import Coincident

    model = preset("four_bar")
    dup = next(c for c in model.constraints if isinstance(c, Coincident))
    model = replace(model, constraints=model.constraints + (replace(dup, name="closure_copy"),))
    sim = Simulation(model, method=method, t_end=0.1)
    lam = sim.samples()[0]
    plain_sim = Simulation(preset("four_bar"), method=method, t_end=0.1)
    plain = plain_sim.samples()[0]
    a = [sim.column_index(f"lambda_closure_{i}") for i in range(2)]
    b = [sim.column_index(f"lambda_closure_copy_{i}") for i in range(2)]
    c = [plain_sim.column_index(f"lambda_closure_{i}") for i in range(2)]
    assert np.max(np.abs(lam[a] - lam[b])) < 1e-10
    assert np.max(np.abs(lam[a] + lam[b] - plain[c])) < 1e-10 * max(1.0, np.max(np.abs(plain[c])))
