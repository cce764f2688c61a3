"""engine.linearize against closed forms and the published benchmark bicycle, in every formulation and
both coordinate choices (the linearization is the mechanism's, not the method's)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from eomlab.engine.linearize import linearize
from eomlab.engine.linearize.vary import vary
from eomlab.engine.methods import METHODS
from eomlab.engine.model import ModelError
from eomlab.engine.presets import preset

COORDINATES = ("joint", "absolute")
G = 9.81

# Meijaard, Papadopoulos, Ruina, Schwab, Proc. R. Soc. A 463 (2007), Table 2: the benchmark's
# M δq̈ + v C1 δq̇ + (g K0 + v² K2) δq = 0 in q = (φ, δ), eq. (5.4)
PAPER_M = np.array([[80.81722, 2.31941332208709], [2.31941332208709, 0.29784188199686]])
PAPER_C1 = np.array([[0.0, 33.86641391492494], [-0.85035641456978, 1.68540397397560]])
PAPER_K0 = np.array([[-80.95, -2.59951685249872], [-2.59951685249872, -0.80329488458618]])
PAPER_K2 = np.array([[0.0, 76.59734589573222], [0.0, 2.65431523794604]])
WEAVE, CAPSIZE = 4.2923825, 6.0242620  # the paper's self-stable range, m/s (Table 3)


def paper_A(v: float) -> np.ndarray:
    Mi = np.linalg.inv(PAPER_M)
    return np.block([[np.zeros((2, 2)), np.eye(2)], [-Mi @ (G * PAPER_K0 + v * v * PAPER_K2), -Mi @ (v * PAPER_C1)]])


@pytest.mark.parametrize("coordinates", COORDINATES)
@pytest.mark.parametrize("method", METHODS)
def test_double_pendulum_normal_modes(method, coordinates):
    """±i √((2 ∓ √2) g / l) to 1e-10; M and K of the point masses (m = l = 1) to 1e-9."""
    lin = linearize(preset("double_pendulum_points"), method=method, coordinates=coordinates)
    expected = sorted([math.sqrt((2 - math.sqrt(2)) * G), math.sqrt((2 + math.sqrt(2)) * G)])
    assert lin.eigenvalues.size == 4
    assert np.max(np.abs(lin.eigenvalues.real)) < 1e-10
    got = sorted(np.abs(lin.eigenvalues.imag))
    np.testing.assert_allclose(got, [expected[0]] * 2 + [expected[1]] * 2, rtol=0, atol=1e-10)
    assert lin.second_order == ["upper_theta", "lower_theta"]
    np.testing.assert_allclose(lin.M, [[5.0, 2.0], [2.0, 1.0]], atol=1e-9)
    np.testing.assert_allclose(lin.K, [[3 * G, G], [G, G]], atol=1e-9)
    np.testing.assert_allclose(lin.C, 0.0, atol=1e-9)
    # absolute angles (1, ±√2): the slow mode swings both links one way, the fast one in opposition;
    # in the relative second angle the shapes are (1, √2 − 1) and (−(√2 − 1), 1), largest entry 1
    slow, fast = (next(m for m in lin.modes if abs(abs(m.eigenvalue.imag) - w) < 1e-8) for w in expected)
    assert abs(slow.shape["upper_theta"] - 1) < 1e-9 and abs(slow.shape["lower_theta"] - (math.sqrt(2) - 1)) < 1e-9
    assert abs(fast.shape["lower_theta"] - 1) < 1e-9 and abs(fast.shape["upper_theta"] + (math.sqrt(2) - 1)) < 1e-9
    assert slow.frequency_hz == pytest.approx(expected[0] / (2 * math.pi), rel=1e-12)
    assert slow.damping_ratio == pytest.approx(0.0, abs=1e-10)


def _top_frequencies(mass=0.5, height=0.05, radius=0.04, spin=150.0):
    I1 = 0.25 * mass * radius ** 2 + mass * height ** 2  # transverse, about the tip
    I3 = 0.5 * mass * radius ** 2
    a, b, c = I1, -I3 * spin, mass * G * height  # I1 ω² − I3 Ω ω + m g l = 0
    root = math.sqrt(b * b - 4 * a * c)
    return sorted([(-b - root) / (2 * a), (-b + root) / (2 * a)]), math.sqrt(4 * mass * G * height * I1 / I3 ** 2)


@pytest.mark.parametrize("coordinates", COORDINATES)
@pytest.mark.parametrize("method", METHODS)
def test_sleeping_top_is_a_steady_motion_with_the_spin_cyclic(method, coordinates):
    """Upright spinning: the spin angle cyclic, its rate conserved; nutation frequencies from
    I₁ω² − I₃Ωω + mgl = 0 to 1e-9 relative."""
    lin = linearize(preset("sleeping_top"), method=method, coordinates=coordinates)
    assert lin.cyclic == ["top_phi"] and lin.conserved == ["top_phi_dot"]
    freqs, _ = _top_frequencies()
    got = np.sort(np.abs(lin.eigenvalues.imag))
    np.testing.assert_allclose(got, np.repeat(freqs, 2), rtol=1e-9)
    assert lin.stable
    assert np.allclose(lin.C, -lin.C.T, atol=1e-9)  # gyroscopic: skew


@pytest.mark.parametrize("method", METHODS)
def test_sleeping_top_critical_spin_by_vary(method):
    """The critical spin ω² = 4 m g l I₁ / I₃² located by the sweep to 1e-6 relative."""
    _, critical = _top_frequencies()
    result = vary(preset("sleeping_top"), "top_wz", np.linspace(60.0, 140.0, 3), method=method)
    assert len(result.crossings) == 1
    crossing = result.crossings[0]
    assert crossing.becomes == "stable"
    assert crossing.value == pytest.approx(critical, rel=1e-6)


def _bicycle_A_matches_the_paper(method, coordinates):
    for v in np.linspace(0.0, 10.0, 11):
        lin = linearize(preset("benchmark_bicycle", speed=v), method=method, coordinates=coordinates)
        assert lin.names == ["roll", "steer", "roll_dot", "steer_dot"]
        np.testing.assert_allclose(lin.A, paper_A(v), rtol=0, atol=1e-8, err_msg=f"v = {v}")
        np.testing.assert_allclose(lin.M, PAPER_M, rtol=0, atol=1e-8)
        np.testing.assert_allclose(lin.C, v * PAPER_C1, rtol=0, atol=1e-8 * max(1.0, v))
        np.testing.assert_allclose(lin.K, G * PAPER_K0 + v * v * PAPER_K2, rtol=0, atol=1e-8 * max(1.0, v * v))
    assert set(lin.cyclic) == {"x", "y", "yaw", "rear_wheel_theta", "front_wheel_theta"}


def _bicycle_self_stable_range(method, coordinates):
    result = vary(preset("benchmark_bicycle"), "speed", np.linspace(4.0, 6.5, 3), method=method,
                  coordinates=coordinates)
    assert [(c.becomes, c.kind) for c in result.crossings] == [("stable", "oscillatory"), ("unstable", "real")]
    assert abs(result.crossings[0].value - WEAVE) < 1e-6
    assert abs(result.crossings[1].value - CAPSIZE) < 1e-6


@pytest.mark.parametrize("method", METHODS)
def test_bicycle_state_matrix_equals_the_benchmark(method):
    """A(v), M, C = v C₁ and K = g K₀ + v² K₂ equal the paper's to 1e-8 at v = 0, 1, …, 10 m/s."""
    _bicycle_A_matches_the_paper(method, "joint")


@pytest.mark.parametrize("method", METHODS)
def test_bicycle_weave_and_capsize_speeds(method):
    _bicycle_self_stable_range(method, "joint")


@pytest.mark.slow
@pytest.mark.parametrize("method", METHODS)
def test_bicycle_in_absolute_coordinates(method):
    _bicycle_A_matches_the_paper(method, "absolute")
    _bicycle_self_stable_range(method, "absolute")


def test_bicycle_in_absolute_coordinates_at_one_speed():
    """The fast check of the slow one: Kane's equations on the poses at 5 m/s."""
    lin = linearize(preset("benchmark_bicycle", speed=5.0), method="kane", coordinates="absolute")
    np.testing.assert_allclose(lin.A, paper_A(5.0), rtol=0, atol=1e-8)


def test_a_state_that_is_no_equilibrium_is_refused_naming_the_residual():
    """The released double pendulum: one line naming the larger of its two angular accelerations."""
    from eomlab.engine.mechanics.system import MechanicalSystem

    model = preset("double_compound_pendulum")
    system = MechanicalSystem(model, compiled=False)
    dyn = system.dynamics(0.0, system.q0, system.u0)
    u_dot = np.linalg.solve(dyn.M, dyn.forcing)
    k = int(np.argmax(np.abs(u_dot)))
    with pytest.raises(ModelError) as err:
        linearize(model)
    message = str(err.value)
    assert "\n" not in message
    assert "not an equilibrium or a steady motion" in message
    assert f"d({system.speed_names[k]})/dt = {u_dot[k]:.3g}" in message


@pytest.mark.parametrize("method", METHODS)
def test_equilibrium_near_the_initial_pose(method):
    """From the released double pendulum (upper at 2.0 rad from +x, gravity −y) Newton reaches
    the upright equilibrium nearest it, which is unstable (a real pair ±√)."""
    lin = linearize(preset("double_compound_pendulum"), about="equilibrium", method=method)
    assert lin.q["upper_theta"] == pytest.approx(math.pi / 2, abs=1e-10)
    assert lin.q["lower_theta"] == pytest.approx(0.0, abs=1e-10)
    assert not lin.stable
    real = np.sort(lin.eigenvalues.real)
    assert real[-1] > 1.0 and np.max(np.abs(lin.eigenvalues.imag)) < 1e-9


def test_to_pandas_has_a_row_per_eigenvalue():
    pd = pytest.importorskip("pandas")
    table = linearize(preset("double_pendulum_points")).to_pandas()
    assert isinstance(table, pd.DataFrame) and len(table) == 4
    assert list(table.columns) == ["re", "im", "frequency_hz", "damped_frequency_hz", "damping_ratio", "stable"]


def test_a_prescribed_motion_is_refused():
    with pytest.raises(ModelError, match="prescribes a motion in time"):
        linearize(preset("driven_crank"))


@pytest.mark.parametrize("coordinates", COORDINATES)
def test_the_four_bar_hangs_at_an_equilibrium_on_its_loop(coordinates):
    """Newton over the closed loop's manifold: at the equilibrium the accelerations vanish (checked
    by the analysis itself), the loop still closes, and every formulation agrees on the one mode."""
    first = None
    for method in METHODS:
        lin = linearize(preset("four_bar"), about="equilibrium", method=method, coordinates=coordinates)
        assert lin.eigenvalues.size == 2  # one degree of freedom
        if first is None:
            first = lin
        np.testing.assert_allclose(np.sort_complex(lin.eigenvalues), np.sort_complex(first.eigenvalues), atol=1e-8)
        np.testing.assert_allclose([lin.q[k] for k in first.q], list(first.q.values()), atol=1e-9)


@pytest.mark.parametrize("name, about", [("double_compound_pendulum", "equilibrium"), ("sleeping_top", "initial")])
def test_the_jacobian_equals_the_symbolic_one(name, about):
    """A against the exact derivative of eomlab's own symbolic equations (engine.symbolic, Kane's form
    M u̇ = forcing in the rate speeds) at the same state: 1e-9 of A's largest entry."""
    from eomlab.engine.linearize.chart import with_rate_speeds
    from eomlab.engine.symbolic import derive
    from eomlab.engine.symbolic.state_jacobian import state_jacobian

    model = with_rate_speeds(preset(name))
    lin = linearize(model, about=about, method="kane")
    eq = derive(model, "kane")
    exact = state_jacobian(eq, lin.q, lin.u)
    assert lin.names_full == eq.coordinates + eq.speeds  # no constraints: every coordinate and speed
    np.testing.assert_allclose(lin.A_full, exact, rtol=0, atol=1e-9 * np.max(np.abs(exact)))


@pytest.mark.compiled_path
@pytest.mark.parametrize("name", ["double_compound_pendulum", "spatial_chain", "sleeping_top"])
def test_a_free_tree_is_differentiated_exactly(name):
    """Free trees on the compiled path take pinocchio's analytic derivatives of ABA (every formulation whose
    right-hand side is the tree's ABA; Gibbs–Appell forms its own): equal to the Richardson-extrapolated
    central differences of the same right-hand side at a state away from rest to 1e-9 of the largest entry
    (the differences' own error)."""
    pytest.importorskip("pinocchio")
    from eomlab.engine.linearize.chart import Chart, Systems, with_rate_speeds
    from eomlab.engine.linearize.derivatives import jacobian

    model = with_rate_speeds(preset(name))
    rng = np.random.default_rng(3)
    for method in METHODS:
        chart = Chart(model, method, "joint", Systems())
        exact = chart.exact_jacobian()
        assert (exact is not None) == (method != "gibbs_appell"), method
        if exact is None:
            continue
        x = chart.x_star + rng.uniform(-0.4, 0.4, chart.n_x)
        by_differences = jacobian(chart.rhs, x)
        np.testing.assert_allclose(exact(x), by_differences, rtol=0, atol=1e-9 * np.max(np.abs(by_differences)))


def test_constrained_and_absolute_charts_are_differentiated_numerically():
    from eomlab.engine.linearize.chart import Chart, Systems

    assert Chart(preset("four_bar"), "kane", "joint", Systems()).exact_jacobian() is None
    assert Chart(preset("double_compound_pendulum"), "kane", "absolute", Systems()).exact_jacobian() is None
