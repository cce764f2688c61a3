"""Gibbs–Appell (engine.formulations.gibbs_appell, engine.symbolic.gibbs_appell_equations): the equations
come from the Gibbs function S — its gradient, its Hessian, the minimum principle — and give
Kane's motion and reactions. (Motion against closed forms and the other formulations: the
tests parametrised over every registered formulation.)"""
from __future__ import annotations

import numpy as np
import pytest

from eomlab.engine.formulations.gibbs_appell import GibbsAppell, GibbsFunction, TreeGibbsFunction
from eomlab.engine.presets import preset
from eomlab.engine.simulation import Simulation

from engine_helpers import run
from representatives import without_same_path

TIGHT = dict(rtol=1e-11, atol=1e-11)
SPATIAL = ["heavy_top", "spatial_chain", "rolling_disk_leaning", "tumbling_box", "four_bar"]
CONSTRAINED = ["four_bar", "cartesian_pendulum", "spherical_pendulum_cartesian", "knife_edge", "chaplygin_sleigh",
               "rolling_disk_vertical", "rolling_disk_leaning", "acceleration_constraint_particle", "driven_crank"]
#: (preset, coordinates) with constraint rows: in absolute coordinates the joints are rows too
# (the acceleration constraint is written in joint-coordinate accelerations: joint only)
REACTION_CASES = ([(name, "joint") for name in CONSTRAINED]
                  + [(name, "absolute") for name in CONSTRAINED if name != "acceleration_constraint_particle"]
                  + [("double_pendulum_absolute", "absolute"), ("heavy_top", "absolute")])


def _random_state(sim, rng):
    """A state off the initial one: q perturbed (normalised where needed), u random."""
    f = sim.formulation
    q, u = f.state_to_qu(0.0, sim.stepper.y)
    q = f.system.kin.normalised(q + 0.1 * rng.standard_normal(q.size))
    return q, rng.standard_normal(u.size)


def _gibbs_at(sim, q, u, t=0.3):
    f = sim.formulation
    dyn = f.system.dynamics(t, q, u)
    return f, dyn, f.context(t, q, u, dyn)


@pytest.mark.parametrize("name", SPATIAL)
def test_the_gradient_is_the_gradient_of_S(name):
    """∂S/∂u̇ against central differences of S itself (S is quadratic: 1e-7 of the scale)."""
    rng = np.random.default_rng(3)
    sim = Simulation(preset(name), method="gibbs_appell", coordinates="joint")
    f, dyn, state = _gibbs_at(sim, *_random_state(sim, rng))
    S = f.gibbs_function(state)
    u_dot = rng.standard_normal(f.system.n_u)
    h = 1e-3
    numeric = np.array([(S.value(u_dot + h * e) - S.value(u_dot - h * e)) / (2 * h) for e in np.eye(u_dot.size)])
    exact = S.gradient(u_dot)
    assert np.max(np.abs(numeric - exact)) < 1e-7 * (1.0 + np.max(np.abs(exact)))


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
@pytest.mark.parametrize("name", SPATIAL)
def test_the_hessian_in_quasi_accelerations_is_the_reduced_kinetic_metric(name, coordinates):
    """For u̇ = CN w + u_p: ∂²S/∂w² = (CN)ᵀ M (CN) with M the tree's mass matrix (built apart, by
    engine.mechanics.system), and ∂S/∂w at w = 0 = (CN)ᵀ ∂S/∂u̇(u_p) (chain rule) — to 1e-10 of the scale."""
    rng = np.random.default_rng(5)
    sim = Simulation(preset(name), method="gibbs_appell", coordinates=coordinates)
    f, dyn, state = _gibbs_at(sim, *_random_state(sim, rng))
    S = f.gibbs_function(state)
    n = f.system.n_u
    CN = rng.standard_normal((n, max(1, n - 2)))
    u_p = rng.standard_normal(n)
    hessian, at_zero = S.in_quasi_accelerations(CN, u_p)
    scale = 1.0 + np.max(np.abs(dyn.M)) * np.max(np.abs(CN)) ** 2
    assert np.max(np.abs(hessian - CN.T @ dyn.M @ CN)) < 1e-10 * scale
    assert np.max(np.abs(at_zero - CN.T @ S.gradient(u_p))) < 1e-10 * (1.0 + np.max(np.abs(at_zero)))


@pytest.mark.parametrize("name", CONSTRAINED)
def test_the_accelerations_minimise_S_minus_the_active_power_among_admissible_ones(name):
    """Appell's equations are the stationarity of S − F·u̇ over A u̇ = b (Gauss's principle):
    moving along any admissible direction δ (A δ = 0) raises it by ½ δᵀ M δ, with no first-order
    change (1e-9 of the scale)."""
    sim = Simulation(preset(name), method="gibbs_appell", coordinates="joint")
    f = sim.formulation
    ev = f.evaluate(0.2, sim.stepper.y)
    state = f.context(0.2, ev.q, ev.u, ev.dynamics)
    S, F = f.gibbs_function(state), f.active_forces(state)

    def gauss(u_dot):
        return S.value(u_dot) - F @ u_dot

    A = ev.rows.A
    _, s, Vt = np.linalg.svd(A)
    admissible = Vt[int(np.sum(s > 1e-10 * s[0])):].T
    base = gauss(ev.u_dot)
    scale = 1.0 + abs(base)
    for column in admissible.T:
        delta = 1e-2 * column
        rise = 0.5 * delta @ ev.dynamics.M @ delta
        assert abs(gauss(ev.u_dot + delta) - base - rise) < 1e-9 * scale
        assert abs(gauss(ev.u_dot - delta) - base - rise) < 1e-9 * scale
        assert rise > 0


@pytest.mark.parametrize("name,coordinates", without_same_path(REACTION_CASES))
def test_reactions_equal_kanes(name, coordinates):
    """The multipliers (Aᵀλ = ∂S/∂u̇ − F, second group) equal Kane's at every sample to t = 1 s,
    1e-7 relative to their largest value (rtol = atol = 1e-11)."""
    model = preset(name)
    kane_sim, kane = run(model, "kane", coordinates=coordinates, t_end=1.0, **TIGHT)
    ga_sim, ga = run(model, "gibbs_appell", coordinates=coordinates, t_end=1.0, **TIGHT)
    names = [c for c in kane_sim.columns if c.startswith("lambda_")]
    assert names and names == [c for c in ga_sim.columns if c.startswith("lambda_")]
    k = kane[:, [kane_sim.column_index(c) for c in names]]
    g = ga[:, [ga_sim.column_index(c) for c in names]]
    assert k.shape == g.shape
    assert np.max(np.abs(k - g)) < 1e-7 * max(1.0, np.max(np.abs(k)))


def test_it_is_its_own_formulation():
    """Built on S, not on the system's M and forcing: the reduced equations ignore dyn.M."""
    sim = Simulation(preset("four_bar"), method="gibbs_appell")
    f = sim.formulation
    assert isinstance(f, GibbsAppell)
    q, u = f.state_to_qu(0.0, sim.stepper.y)
    dyn = f.system.dynamics(0.0, q, u)
    state = f.context(0.0, q, u, dyn)
    reference = f.reduced_equations(dyn, state, None, None)
    dyn.M = np.full_like(dyn.M, np.nan)
    dyn.forcing = np.full_like(dyn.forcing, np.nan)
    again = f.reduced_equations(dyn, state, None, None)
    assert all(np.array_equal(a, b) for a, b in zip(reference, again))
    assert isinstance(f.gibbs_function(state), TreeGibbsFunction if f.system.compiled else GibbsFunction)


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
@pytest.mark.parametrize("name", SPATIAL + ["knife_edge", "double_pendulum_absolute"])
def test_the_recursions_give_the_bodies_gibbs_function(monkeypatch, name, coordinates):
    """On the compiled path S is ½ u̇ᵀ M u̇ + Cᵀ u̇ with M (CRBA) and C (RNEA without gravity) from
    pinocchio: its Hessian, its gradient and its differences equal those of S formed from the bodies'
    accelerations, and F equals the bodies' Σ J_vᵀ m g (plus elements), to 1e-11 of the scale."""
    pytest.importorskip("pinocchio")
    from eomlab.engine.mechanics.system import build_system
    from eomlab.engine.compiled.tree_backend import FAST_PATH_VARIABLE

    monkeypatch.setenv(FAST_PATH_VARIABLE, "1")
    system = build_system(preset(name), coordinates)
    model = preset(name)
    f = GibbsAppell(system, model.settings)
    rng = np.random.default_rng(11)
    q = system.kin.normalised(system.q0 + 0.1 * rng.standard_normal(system.n_q))
    u = rng.standard_normal(system.n_u)
    state = system.dynamics(0.3, q, u)
    tree = f.gibbs_function(state)
    bodies = GibbsFunction(system.kin.mass, system.kin.inertia_body, system.kin.evaluate(q, u))
    assert isinstance(tree, TreeGibbsFunction)
    u_dot, CN = rng.standard_normal(system.n_u), rng.standard_normal((system.n_u, max(1, system.n_u - 2)))

    def close(a, b):
        assert np.max(np.abs(a - b)) <= 1e-11 * max(1.0, np.max(np.abs(b)))

    close(tree.in_quasi_accelerations(None, None)[0], bodies.in_quasi_accelerations(None, None)[0])
    close(tree.gradient(u_dot), bodies.gradient(u_dot))
    for a, b in zip(tree.in_quasi_accelerations(CN, u_dot), bodies.in_quasi_accelerations(CN, u_dot)):
        close(a, b)
    close(np.array(tree.value(u_dot) - tree.value(-u_dot)), np.array(bodies.value(u_dot) - bodies.value(-u_dot)))
    ks = system.kin.evaluate(q, u)
    close(f.active_forces(state), ks.J_v.reshape(-1, system.n_u).T @ (system.kin.mass[:, None] * system.gravity).ravel())


# --- the symbolic form ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["tumbling_box", "cart_pendulum", "knife_edge", "four_bar"])
def test_symbolic_gibbs_appell_equals_kane(name):
    """S differentiated by sympy: M and forcing equal Kane's symbolic ones (and, constrained, the
    reduced ones) at random states, 1e-9; S is shown."""
    sp = pytest.importorskip("sympy")
    from eomlab.engine.symbolic import SymbolicTree, derive

    model = preset(name)
    ga, kane = derive(model, "gibbs_appell"), derive(model, "kane")
    assert ga.item("S") != 0
    tree = SymbolicTree(model)
    rng = np.random.default_rng(1)
    symbols = [*tree.q, *tree.u, tree.t]
    pairs = [(ga.mass_matrix, kane.mass_matrix), (ga.forcing, kane.forcing)]
    if kane.constraint_matrix is not None:
        for symbol in ("reduced_mass_matrix", "reduced_forcing"):
            pairs.append((ga.item(symbol), kane.item(symbol)))
    for _ in range(2):
        values = dict(zip(symbols, rng.uniform(-1.0, 1.0, len(symbols)))) | ga.parameters
        for a, b in pairs:
            x = np.array(sp.Matrix(a).xreplace(values).evalf(), dtype=float)
            y = np.array(sp.Matrix(b).xreplace(values).evalf(), dtype=float)
            assert np.max(np.abs(x - y)) < 1e-9 * (1.0 + np.max(np.abs(y)))
