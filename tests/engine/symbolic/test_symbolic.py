"""The symbolic equations (engine.symbolic): seed examples, cross-checks between formulations and
against the numeric engine, output formats, size guard and cancellation."""
from __future__ import annotations

import functools
import json
import threading
import time

import numpy as np
import pytest
import sympy as sp

from eomlab.engine.methods import METHODS, REGISTRY
from eomlab.engine.model import (
    Body,
    BodyTorque,
    Coincident,
    Joint,
    JointEffort,
    JointSpring,
    KnifeEdge,
    Model,
    ModelError,
    PointForce,
    PointRef,
    Prescribed,
    Spring,
)
from eomlab.engine.symbolic import (
    DerivationCancelled,
    SymbolicTooLarge,
    SymbolicTree,
    derive,
    equations_text,
)
from eomlab.engine.symbolic.roberson_wittenburg import alpha_block

FORMULATIONS = (*METHODS, "roberson_wittenburg")
#: written in the rates q̇ (the others in the model's speeds, as Kane)
RATE_FORMULATIONS = (*(k for k in METHODS if not REGISTRY[k].symbolic_in_speeds), "roberson_wittenburg")
SPEED_FORMULATIONS = tuple(k for k in METHODS if REGISTRY[k].symbolic_in_speeds)
S = lambda name: sp.Symbol(name, real=True)


# --- hand-built models (the presets are checked further down once they exist) ----------------

def rod_inertia(m, length):
    i = m * length ** 2 / 12
    return ((0.0, 0.0, 0.0), (0.0, i, 0.0), (0.0, 0.0, i))


def cart_pendulum(m_cart=2.0, m_bob=0.5, length=1.5):
    """Kane's cart–pendulum example: θ from the downward vertical, gravity −y."""
    cart = Body("A", "ground", Joint("prismatic", axis=(1.0, 0.0, 0.0), names=("x",)), mass=m_cart)
    bob = Body("B", "A", Joint("revolute", names=("theta",)), mass=m_bob, com=(0.0, -length, 0.0))
    return Model(name="cart-pendulum", bodies=(cart, bob))


def double_compound_pendulum(rho1=0.5, rho2=0.4, length=1.0):
    """MODEL_FORMAT.md's example (THEORY.md §4): θ2 relative to link 1."""
    upper = Body("upper", "ground", Joint("revolute", names=("theta1",)), mass=1.0, com=(rho1, 0, 0),
                 inertia=rod_inertia(1.0, 1.0))
    lower = Body("lower", "upper", Joint("revolute", at=(length, 0, 0), names=("theta2",)), mass=1.5,
                 com=(rho2, 0, 0), inertia=rod_inertia(1.5, 0.8))
    return Model(name="double compound pendulum", bodies=(upper, lower))


def rigid_body(torque=("0", "0", "0"), com=(0.0, 0.0, 0.0), gravity=(0.0, 0.0, 0.0), speeds="body"):
    """Kane's fixed-point body example: a body about a fixed point, body-axis ω components as speeds."""
    joint = Joint("spherical", names=("psi", "theta", "phi"), speeds=speeds, q0=(0.3, 0.7, 0.2))
    body = Body("C", "ground", joint, mass=2.0, com=com,
                inertia=((1.0, 0.0, 0.0), (0.0, 2.0, 0.0), (0.0, 0.0, 3.5)))
    forces = (BodyTorque("L", "C", torque, frame="body"),)
    return Model(name="rigid body", gravity=gravity, bodies=(body,), forces=forces)


def four_bar():
    crank = Body("crank", "ground", Joint("revolute", names=("a",), q0=(1.2,)), mass=1.0, com=(0.5, 0, 0),
                 inertia=rod_inertia(1.0, 1.0))
    coupler = Body("coupler", "crank", Joint("revolute", at=(1.0, 0, 0), names=("b",), q0=(-0.9,)), mass=1.0,
                   com=(1.0, 0, 0), inertia=rod_inertia(1.0, 2.0))
    rocker = Body("rocker", "ground", Joint("revolute", at=(2.0, 0, 0), names=("c",), q0=(1.9,)), mass=1.0,
                  com=(0.75, 0, 0), inertia=rod_inertia(1.0, 1.5))
    closure = Coincident("closure", PointRef("coupler", (2.0, 0, 0)), PointRef("rocker", (1.5, 0, 0)), ("x", "y"))
    return Model(name="four bar", bodies=(crank, coupler, rocker), constraints=(closure,))


def knife_edge_sled():
    sled = Body("sled", "ground", Joint("planar", names=("x", "y", "theta"), q0=(0, 0, 0.3), u0=(1, 0, 0.5)),
                mass=1.0, com=(0.2, 0, 0), inertia=((0.1, 0, 0), (0, 0.1, 0), (0, 0, 0.2)))
    edge = KnifeEdge("edge", "sled", (0.0, 0.0, 0.0), (0.0, 1.0, 0.0))
    return Model(name="knife edge", gravity=(0, 0, -9.81), bodies=(sled,), constraints=(edge,))


def forced_chain():
    """Springs, joint springs, efforts and point forces on a planar 2-link chain with a slider."""
    base = Body("base", "ground", Joint("prismatic", axis=(1.0, 0, 0), names=("s",)), mass=1.0)
    arm = Body("arm", "base", Joint("revolute", names=("q1",)), mass=0.7, com=(0.6, 0, 0), inertia=rod_inertia(0.7, 1.2))
    tip = Body("tip", "arm", Joint("revolute", at=(1.2, 0, 0), names=("q2",)), mass=0.3, com=(0.3, 0.1, 0),
               inertia=rod_inertia(0.3, 0.6))
    forces = (
        Spring("k1", PointRef("ground", (0.0, 1.0, 0.0)), PointRef("tip", (0.6, 0, 0)), 5.0, 0.5, 0.2),
        JointSpring("k2", "arm", 2.0, (0.3,), 0.1),
        JointEffort("drive", "tip", ("0.5*sin(t) - 0.1*q2_dot",)),
        PointForce("push", "arm", (1.0, 0, 0), ("0.2", "-0.3*q1", "0"), "body"),
    )
    return Model(name="forced chain", bodies=(base, arm, tip), forces=forces)


def spatial_pair(speeds="body"):
    """A spherical joint with a revolute child: body-rate speeds, gravity, an offset mass centre."""
    top = Body("top", "ground", Joint("spherical", names=("psi", "theta", "phi"), speeds=speeds, sequence="zxz"),
               mass=1.0, com=(0.1, 0.0, 0.5), inertia=((0.3, 0.01, 0), (0.01, 0.4, 0), (0, 0, 0.2)))
    wheel = Body("wheel", "top", Joint("revolute", axis=(0.0, 0.6, 0.8), at=(0, 0, 1.0), names=("spin",)),
                 mass=0.5, com=(0.0, 0.0, 0.1), inertia=((0.05, 0, 0), (0, 0.05, 0), (0, 0, 0.08)))
    return Model(name="spatial pair", gravity=(0, 0, -9.81), bodies=(top, wheel))


def planar_chain(n):
    bodies = []
    for i in range(n):
        parent = "ground" if i == 0 else f"link{i - 1}"
        at = (0.0, 0.0, 0.0) if i == 0 else (1.0, 0.0, 0.0)
        bodies.append(Body(f"link{i}", parent, Joint("revolute", at=at, names=(f"q{i}",)), mass=1.0,
                           com=(0.5, 0, 0), inertia=rod_inertia(1.0, 1.0)))
    return Model(name=f"{n}-link chain", bodies=tuple(bodies))


HAND_MODELS = {
    "cart_pendulum": cart_pendulum,
    "double_compound_pendulum": double_compound_pendulum,
    "rigid_body": lambda: rigid_body(torque=("0.1", "0.2*psi", "-0.3")),
    "heavy_top_euler": lambda: rigid_body(com=(0, 0, 0.3), gravity=(0, 0, -9.81), speeds="euler"),
    "forced_chain": forced_chain,
    "spatial_pair": spatial_pair,
    "four_bar": four_bar,
    "knife_edge": knife_edge_sled,
}


@functools.lru_cache(maxsize=None)
def hand_derivation(name: str, method: str):
    """One derivation per hand model and formulation for the module: the tests read the equations, never
    change them (the cross-checks and the comparison with the engine derived the same ones again)."""
    return derive(HAND_MODELS[name](), method)


@functools.lru_cache(maxsize=None)
def hand_tree(name: str) -> SymbolicTree:
    return SymbolicTree(HAND_MODELS[name]())


# --- numeric evaluation of symbolic results --------------------------------------------------

def random_state(tree: SymbolicTree, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    n = len(tree.q)
    q = rng.uniform(0.3, 1.3, n)  # away from gimbal lock of zxz/xyz at 0 and ±π/2
    u = rng.uniform(-1.0, 1.0, n)
    state = dict(zip(tree.q, q)) | dict(zip(tree.u, u)) | {tree.t: float(rng.uniform(0, 2))}
    qd = value(sp.Matrix([tree.qdot_in_speeds[r] for r in tree.qd]), state).ravel()
    return state | dict(zip(tree.qd, qd))


def value(expr, state, parameters=None):
    """expr at a state, numerically (lambdify: subs is far too slow on 3–4 DOF expressions)."""
    expr = sp.sympify(expr).xreplace(parameters or {})
    if isinstance(expr, sp.MatrixBase):
        expr = sp.ImmutableMatrix(expr)  # hashable: a key of `compiled`
    symbols = tuple(state)
    return np.array(compiled(expr, symbols)(*[float(state[s]) for s in symbols]), dtype=float)


@functools.lru_cache(maxsize=None)
def compiled(expr, symbols: tuple):
    """expr as a numpy function of `symbols`, printed once for the module: most expressions are
    evaluated at two states and again by the comparison with the numeric engine (printing them
    is most of the time)."""
    return sp.lambdify(symbols, expr, "numpy")


def accelerations_of(eq, state):
    M = value(eq.mass_matrix, state, eq_parameters(eq))
    f = value(eq.forcing, state, eq_parameters(eq)).reshape(-1)
    return np.linalg.solve(M, f)


def eq_parameters(eq):
    from eomlab.engine.symbolic.parameters import exact
    return {s: exact(v) for s, v in eq.parameters.items()}


def rates_acceleration(tree, u_dot, state):
    """q̈ from u̇: d/dt(W(q) u) with the speeds' derivatives given."""
    values = dict(state) | dict(zip(tree.ud, u_dot))
    qdd = sp.Matrix([tree.time_derivative(tree.qdot_in_speeds[r], speeds=True) for r in tree.qd])
    return value(qdd, values).ravel()


# --- Kane & Levinson: the cart–pendulum in Kane form --------------------------------------------------

def test_cart_pendulum_kane_gives_the_seed_equations():
    eq = derive(cart_pendulum(), "kane", parameters="symbols")
    m_A, m_B, l, g = (sp.Symbol(n, positive=True) for n in ("m_A", "m_B", "l_B", "g"))
    x, th = S("x"), S("theta")
    thd, xdd, thdd = S("theta_dot"), S("x_ddot"), S("theta_ddot")
    seed = sp.Matrix([
        (m_A + m_B) * xdd + m_B * l * (thdd * sp.cos(th) - thd ** 2 * sp.sin(th)),
        m_B * l * xdd * sp.cos(th) + m_B * l ** 2 * thdd + m_B * g * l * sp.sin(th)])
    assert eq.speeds == ["x_dot", "theta_dot"]
    assert (eq.equations_of_motion() - seed).applyfunc(sp.simplify) == sp.zeros(2, 1)
    # partial velocities of the seed: v_A^(1) = i, v_B^(2) = l (cos θ i + sin θ j)
    assert eq.item("v_A_1") == sp.Matrix([1, 0, 0])
    assert eq.item("v_B_1") == sp.Matrix([1, 0, 0])
    assert eq.item("v_A_2") == sp.zeros(3, 1)
    assert (eq.item("v_B_2") - l * sp.Matrix([sp.cos(th), sp.sin(th), 0])).applyfunc(sp.simplify) == sp.zeros(3, 1)
    # F_2 = −m_B g l sin θ, the textbook's generalized active force
    assert sp.simplify(eq.item("F")[1] + m_B * g * l * sp.sin(th)) == 0
    assert x not in eq.mass_matrix.free_symbols


def test_cart_pendulum_in_under_two_seconds():
    start = time.perf_counter()
    for method in FORMULATIONS:
        equations_text(cart_pendulum(), method)
    assert (time.perf_counter() - start) / len(FORMULATIONS) < 2.0


# --- Kane & Levinson: Euler's equations -----------------------------------------------------------------

def test_rigid_body_about_fixed_point_gives_eulers_equations():
    model = rigid_body(torque=("0.1", "-0.2", "0.3"))
    eq = derive(model, "kane", parameters="symbols")
    w = sp.Matrix([S("C_wx"), S("C_wy"), S("C_wz")])
    w_dot = sp.Matrix([S("C_wx_dot"), S("C_wy_dot"), S("C_wz_dot")])
    J = sp.diag(*(sp.Symbol(f"J_C_{a}{a}", positive=True) for a in "xyz"))
    L = sp.Matrix([sp.Rational(1, 10), -sp.Rational(1, 5), sp.Rational(3, 10)])
    assert eq.speeds == ["C_wx", "C_wy", "C_wz"]
    assert list(eq.accelerations) == list(w_dot)
    assert (eq.mass_matrix - J).applyfunc(sp.simplify) == sp.zeros(3, 3)
    assert (eq.forcing - (L - w.cross(J * w))).applyfunc(sp.simplify) == sp.zeros(3, 1)
    # the partial angular velocities are the body axes: ω^(1) = i, ω^(2) = j, ω^(3) = k
    for r, axis in enumerate(sp.eye(3).columnspace()):
        assert eq.item(f"w_C_{r + 1}") == axis


# --- THEORY.md §4: the double compound pendulum -----------------------------------------------------

def test_double_compound_pendulum_positions_and_jacobian():
    from eomlab.engine.symbolic.roberson_wittenburg import path_matrix
    rho1, rho2, length = 0.5, 0.4, 1.0
    model = double_compound_pendulum(rho1, rho2, length)
    eq = derive(model, "roberson_wittenburg")
    tree = SymbolicTree(model)
    t1, t2 = S("theta1"), S("theta2")
    r1 = sp.Matrix([rho1 * sp.cos(t1), rho1 * sp.sin(t1), 0])
    r2 = sp.Matrix([length * sp.cos(t1) + rho2 * sp.cos(t1 + t2), length * sp.sin(t1) + rho2 * sp.sin(t1 + t2), 0])
    same = lambda a, b: (sp.nsimplify(a) - sp.nsimplify(b)).applyfunc(sp.simplify) == sp.zeros(*a.shape)
    assert same(eq.item("r_1"), r1)  # (33)
    assert same(eq.item("r_2"), r2)  # (34)
    assert path_matrix(tree) == sp.Matrix([[1, 1], [0, 1]])
    a11 = sp.Matrix([-rho1 * sp.sin(t1), rho1 * sp.cos(t1), 0])  # (48)
    a12 = sp.Matrix([-length * sp.sin(t1) - rho2 * sp.sin(t1 + t2), length * sp.cos(t1) + rho2 * sp.cos(t1 + t2), 0])
    a22 = sp.Matrix([-rho2 * sp.sin(t1 + t2), rho2 * sp.cos(t1 + t2), 0])  # (51)
    assert same(alpha_block(eq, tree, 1, 1), a11)
    assert same(alpha_block(eq, tree, 1, 2), a12)  # (49)
    assert alpha_block(eq, tree, 2, 1) == sp.zeros(3, 1)  # (50)
    assert same(alpha_block(eq, tree, 2, 2), a22)
    # (47): α_12 = p_1 × (d_12 + d_22) with the hinge axis p_1 = k
    k = sp.Matrix([0, 0, 1])
    assert same(k.cross(eq.item("d_12") + eq.item("d_22")), a12)
    # (53)–(54): u_1 = −ρ1 θ̇1² (cos θ1, sin θ1, 0)
    t1d, t2d = S("theta1_dot"), S("theta2_dot")
    u1 = -rho1 * t1d ** 2 * sp.Matrix([sp.cos(t1), sp.sin(t1), 0])
    u2 = -length * t1d ** 2 * sp.Matrix([sp.cos(t1), sp.sin(t1), 0]) - \
        rho2 * (t1d + t2d) ** 2 * sp.Matrix([sp.cos(t1 + t2), sp.sin(t1 + t2), 0])
    assert same(eq.item("u")[0:3, 0], u1)
    assert same(eq.item("u")[3:6, 0], u2)


def test_double_pendulum_closed_form_mass_matrix():
    """Textbook M for two rods: M11 = I1 + m1ρ1² + I2 + m2(l² + ρ2² + 2lρ2 cos θ2), …"""
    rho1, rho2, length = 0.5, 0.4, 1.0
    eq = derive(double_compound_pendulum(rho1, rho2, length), "lagrange")
    I1, I2, m1, m2 = 1 / 12, 1.5 * 0.64 / 12, 1.0, 1.5
    c2 = sp.cos(S("theta2"))
    M = sp.Matrix([[I1 + m1 * rho1 ** 2 + I2 + m2 * (length ** 2 + rho2 ** 2 + 2 * length * rho2 * c2),
                    I2 + m2 * (rho2 ** 2 + length * rho2 * c2)],
                   [I2 + m2 * (rho2 ** 2 + length * rho2 * c2), I2 + m2 * rho2 ** 2]])
    for theta2 in (0.3, 1.7, -2.4):
        state = {S("theta2"): theta2, S("theta1"): 0.9}
        np.testing.assert_allclose(value(eq.mass_matrix, state), value(M, state), atol=1e-12)


# --- every formulation agrees with the others --------------------------------------------------

@pytest.mark.parametrize("name", sorted(HAND_MODELS))
def test_formulations_agree_on_the_tree(name):
    tree = hand_tree(name)
    results = {method: hand_derivation(name, method) for method in FORMULATIONS}
    for seed in range(2):
        state = random_state(tree, seed)
        kane_udot = accelerations_of(results["kane"], state)
        reference = rates_acceleration(tree, kane_udot, state)
        for method in RATE_FORMULATIONS:
            np.testing.assert_allclose(accelerations_of(results[method], state), reference, rtol=1e-9, atol=1e-10)
        for method in SPEED_FORMULATIONS:
            np.testing.assert_allclose(accelerations_of(results[method], state), kane_udot, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("name", ["cart_pendulum", "double_compound_pendulum", "forced_chain", "four_bar"])
def test_christoffel_terms_equal_kane_velocity_products(name):
    """h of (2.6)–(2.7) from the derivatives of M equals −(F_r + F_r*)|_{u̇=0} + F_r for rate speeds."""
    lagrange, kane = hand_derivation(name, "lagrange"), hand_derivation(name, "kane")
    assert (lagrange.mass_matrix - kane.mass_matrix).applyfunc(sp.simplify) == sp.zeros(*kane.mass_matrix.shape)
    tree = hand_tree(name)
    state = random_state(tree, 11)
    np.testing.assert_allclose(value(lagrange.forcing, state).ravel(), value(kane.forcing, state).ravel(), atol=1e-10)


def test_potential_energy_gives_the_conservative_forces():
    eq = derive(double_compound_pendulum(), "lagrange")
    V, Q = eq.item("V"), eq.item("Q")
    q = [S("theta1"), S("theta2")]
    assert sp.simplify(sp.Matrix([-sp.diff(V, qi) for qi in q]) - Q) == sp.zeros(2, 1)


# --- constraints -----------------------------------------------------------------------------------

def test_maggi_null_space_and_reduced_equations_four_bar():
    model = four_bar()
    eq = derive(model, "maggi")
    A, C = eq.constraint_matrix, eq.item("C")
    tree = SymbolicTree(model)
    state = random_state(tree, 3)
    assert np.abs(value(A * C, state)).max() < 1e-12
    assert eq.item("reduced_mass_matrix").shape == (1, 1)
    # the saddle point of Lagrange and Maggi's reduced equations give the same q̈ (any state)
    lagrange = derive(model, "lagrange")
    K = value(lagrange.item("saddle_matrix"), state)
    rhs = value(lagrange.item("saddle_rhs"), state).ravel()
    qdd = np.linalg.solve(K, rhs)[:3]
    w = np.linalg.solve(value(eq.item("reduced_mass_matrix"), state), value(eq.item("reduced_forcing"), state).ravel())
    qdd_maggi = value(eq.item("qdd_p"), state).ravel() + value(C, state) @ w
    np.testing.assert_allclose(qdd_maggi, qdd, atol=1e-10)
    # Udwadia–Kalaba's constrained acceleration agrees too
    uk = derive(model, "udwadia_kalaba")
    Minv = np.linalg.inv(value(uk.mass_matrix, state))
    a = Minv @ value(uk.forcing, state).ravel()
    A_n, b_n = value(uk.constraint_matrix, state), value(uk.constraint_rhs, state).ravel()
    G = np.linalg.cholesky(Minv)
    np.testing.assert_allclose(a + G @ np.linalg.pinv(A_n @ G) @ (b_n - A_n @ a), qdd, atol=1e-10)


def test_knife_edge_kane_nonholonomic_partial_velocities():
    eq = derive(knife_edge_sled(), "kane")
    assert eq.constraint_matrix.shape == (1, 3)
    M_reduced = eq.item("reduced_mass_matrix")
    assert M_reduced.shape == (2, 2)
    text = equations_text(knife_edge_sled(), "kane")
    assert "Nonholonomic partial velocities" in text and "A_d" in text


def test_udwadia_kalaba_tensor_split_on_a_small_constrained_model():
    """A cart–pendulum whose cart is held by a prescribed motion: K/L split printed symbolically."""
    model = cart_pendulum()
    model = Model(name="servo", bodies=model.bodies, constraints=(Prescribed("servo", "x", "0.1*sin(t)"),))
    eq = derive(model, "udwadia_kalaba")
    tree = SymbolicTree(model)
    state = random_state(tree, 5)
    W = value(eq.item("W_K"), state).ravel() + value(eq.item("W_L"), state).ravel()
    np.testing.assert_allclose(W, value(eq.item("qdd"), state).ravel(), atol=1e-12)
    # the constraint holds: ẍ = −0.1 sin t
    assert abs(W[0] + 0.1 * np.sin(float(state[tree.t]))) < 1e-12
    # R = Aᵀλ has no component along the free coordinate θ (R_L = 0 here means R_θ = 0)
    assert abs(value(eq.item("R"), state).ravel()[1]) < 1e-12


def test_holonomic_rows_follow_the_theory_formula():
    """b = −(Φ_q q̇)_q q̇ − 2 Φ_qt q̇ − Φ_tt for a rheonomic holonomic constraint."""
    from eomlab.engine.symbolic.constraint_terms import acceleration_rows, constraint_rows
    model = Model(bodies=cart_pendulum().bodies, constraints=(Prescribed("servo", "theta", "0.5*t**2 + sin(t)"),))
    tree = SymbolicTree(model)
    rows = acceleration_rows(tree, constraint_rows(tree), speeds=False)
    q, qd, t = sp.Matrix(tree.q), sp.Matrix(tree.qd), tree.t
    phi = sp.Matrix([tree.q[1] - (t ** 2 / 2 + sp.sin(t))])
    Phi_q = phi.jacobian(q)
    b = -(Phi_q * qd).jacobian(q) * qd - 2 * Phi_q.diff(t) * qd - phi.diff(t, 2)
    assert rows.A == Phi_q
    assert sp.simplify(rows.b - b) == sp.zeros(1, 1)


# --- output formats --------------------------------------------------------------------------------

@pytest.mark.parametrize("method", FORMULATIONS)
def test_json_parses_back_with_sympy(method):
    model = four_bar() if method != "kane" else knife_edge_sled()
    document = json.loads(equations_text(model, method, "json"))
    assert set(document) >= {"coordinates", "speeds", "mass_matrix", "forcing", "latex"}
    n = len(document["speeds"])
    M = sp.Matrix([[sp.sympify(e) for e in row] for row in document["mass_matrix"]])
    f = sp.Matrix([sp.sympify(e) for e in document["forcing"]])
    assert M.shape == (n, n) and f.shape == (n, 1)
    eq = derive(model, method)
    tree = SymbolicTree(model)
    state = random_state(tree, 2)
    by_name = {sp.Symbol(str(s)): v for s, v in state.items()}
    np.testing.assert_allclose(value(M, by_name), value(eq.mass_matrix, state), atol=1e-12)
    np.testing.assert_allclose(value(f, by_name), value(eq.forcing, state), atol=1e-12)
    assert "\\" in document["latex"]


@pytest.mark.parametrize("method", FORMULATIONS)
def test_text_names_the_formulation_and_its_equation(method):
    text = equations_text(cart_pendulum(), method)
    first = text.splitlines()[0]
    assert {"lagrange": "Lagrange (1788)", "maggi": "Maggi", "udwadia_kalaba": "Kalaba", "kane": "Levinson",
            "gibbs_appell": "Appell", "roberson_wittenburg": "Wittenburg"}[method] in first.replace(
        ", Mécanique analytique", "")
    assert "θ" in text  # the pretty printer, unicode
    assert "\\" not in text, "raw LaTeX in the text output"
    assert not [line for line in text.splitlines() if line.strip() == ":"], "an item with no caption"


def test_text_writes_formulas_as_unicode():
    """The kinematic equation and Kane's partial velocities: q̇ = W(q) u, v_cart^(ẋ)-style captions."""
    text = equations_text(cart_pendulum(), "kane")
    assert "q̇ = W(q) u" in text
    assert "M u̇ = f" in text


def test_latex_uses_dots_for_rates():
    latex = equations_text(cart_pendulum(), "lagrange", "latex")
    assert r"\dot{\theta}" in latex and r"\ddot{x}" in latex


def test_symbols_mode_reports_the_file_numbers():
    document = json.loads(equations_text(cart_pendulum(), "kane", "json", parameters="symbols"))
    assert document["parameters"] == {"m_A": 2.0, "m_B": 0.5, "l_B": 1.5, "g": 9.81}


def test_bad_method_and_format_are_model_errors():
    with pytest.raises(ModelError):
        equations_text(cart_pendulum(), "hamilton")
    with pytest.raises(ModelError):
        equations_text(cart_pendulum(), "kane", "pdf")


# --- size guard and cancellation -----------------------------------------------------------------

@pytest.mark.parametrize("method", ["kane", "lagrange"])
def test_six_dof_model_is_derived_or_refused_clearly(method):
    """Derived (its speed is measured in bench/bench_equations.py) or refused in one clear line."""
    try:
        text = equations_text(planar_chain(6), method)
        assert "equations" in text.splitlines()[0]
    except SymbolicTooLarge as refusal:
        assert "degrees of freedom" in str(refusal)


def test_large_model_is_refused_with_a_clear_message():
    with pytest.raises(SymbolicTooLarge, match="14 degrees of freedom"):
        derive(planar_chain(14), "lagrange")
    assert issubclass(SymbolicTooLarge, ModelError)


@pytest.mark.parametrize("method", METHODS)
def test_long_constraint_rows_are_refused_before_sympy_differentiates_them(method):
    """The benchmark bicycle's contact rows (3438 operations at velocity level) took sympy minutes: refused, every
    row measured before the first is differentiated, naming the row and the limit."""
    from eomlab.engine.presets import preset

    started = time.perf_counter()
    with pytest.raises(SymbolicTooLarge, match=r"constraint row 'front_contact_1' takes 3438 operations .*limit 1500"):
        derive(preset("benchmark_bicycle"), method)
    assert time.perf_counter() - started < 30  # minutes before the guard; about 1 s with it


def test_four_loop_rows_are_shown_but_not_inverted_symbolically():
    """The cardan shaft's 4 × 4 constraint block (570 operations): sympy's LU took minutes; the page says the
    numeric engine reduces the rows instead."""
    from eomlab.engine.presets import preset

    text = equations_text(preset("cardan_shaft"), "maggi")
    assert "too long to reduce symbolically" in text


def test_cancel_stops_the_derivation():
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(DerivationCancelled):
        derive(double_compound_pendulum(), "lagrange", cancel=cancel)


def test_the_numeric_engine_does_not_import_the_symbolic_side():
    import subprocess
    import sys
    code = ("import sys, engine.mechanics.system, engine.simulation, engine.formulations; "
            "print(any(m.startswith('eomlab.engine.symbolic') for m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


# --- against the numeric engine ----------------------------------------------------------------------

def numeric_system(model):
    """The numeric engine in joint coordinates (the symbolic view always uses them)."""
    system = pytest.importorskip("eomlab.engine.mechanics.system")
    return system.build_system(model, coordinates="joint")


def compare_with_engine(model, results: dict, tree: SymbolicTree, seeds=(0, 1)):
    """`results`: the model's derivation in each formulation; `tree`: its SymbolicTree."""
    system = numeric_system(model)
    assert list(system.coordinate_names) == tree.coordinate_names
    assert list(system.speed_names) == tree.speed_names
    for seed in seeds:
        state = random_state(tree, seed)
        q = np.array([state[s] for s in tree.q])
        u = np.array([state[s] for s in tree.u])
        t = float(state[tree.t])
        M_num, f_num = system.mass_matrix(q), system.forcing(t, q, u)
        u_dot = np.linalg.solve(M_num, f_num)
        for eq in results.values():
            if eq.speeds == tree.speed_names:  # the formulation uses the model's own speeds
                np.testing.assert_allclose(value(eq.mass_matrix, state, eq_parameters(eq)), M_num, atol=1e-10)
                np.testing.assert_allclose(value(eq.forcing, state, eq_parameters(eq)).ravel(), f_num, atol=1e-10)
            else:  # rates: compare q̈
                np.testing.assert_allclose(accelerations_of(eq, state), rates_acceleration(tree, u_dot, state),
                                           rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("name", sorted(HAND_MODELS))
def test_hand_models_match_the_numeric_engine(name):
    compare_with_engine(HAND_MODELS[name](), {m: hand_derivation(name, m) for m in FORMULATIONS}, hand_tree(name))


def small_presets():
    try:
        from eomlab.engine.presets import PRESETS, preset
    except ImportError:
        return []
    names = []
    for name in sorted(PRESETS):
        try:
            model = preset(name)
        except Exception:  # noqa: BLE001, S112 - a preset needing arguments is skipped here
            continue
        quaternions = any(b.joint.quaternion for b in model.bodies)  # refused: test_quaternions.py
        if sum(b.joint.dof for b in model.bodies) <= 4 and not quaternions:
            names.append(name)
    return names


@pytest.mark.parametrize("name", small_presets() or ["(presets not available)"])
def test_small_presets_match_the_numeric_engine(name):
    presets = pytest.importorskip("eomlab.engine.presets")
    model = presets.preset(name)
    compare_with_engine(model, {m: derive(model, m) for m in FORMULATIONS}, SymbolicTree(model), seeds=(0,))


@pytest.mark.parametrize("name", ["four_bar", "knife_edge"])
def test_constraint_rows_match_the_numeric_engine(name):
    from eomlab.engine.symbolic.constraint_terms import acceleration_rows, constraint_rows
    constraints = pytest.importorskip("eomlab.engine.constraints")
    model = HAND_MODELS[name]()
    system = numeric_system(model)
    tree = hand_tree(name)
    rows = acceleration_rows(tree, constraint_rows(tree), speeds=True)
    state = random_state(tree, 4)
    q = np.array([state[s] for s in tree.q])
    u = np.array([state[s] for s in tree.u])
    ks = system.kin.evaluate(q, u)
    ctx = constraints.StateContext(t=float(state[tree.t]), q=q, u=u, qd=system.qdot(q, u), W=None, ks=ks)
    numeric_rows = system.constraints.evaluate(ctx)
    np.testing.assert_allclose(value(rows.A, state), numeric_rows.A, atol=1e-10)
    np.testing.assert_allclose(value(rows.b, state).ravel(), numeric_rows.b, atol=1e-10)
