"""Force elements and expression constraints: energy bookkeeping and closed forms, every formulation."""
from dataclasses import replace

import numpy as np

from eomlab.engine.model import ExpressionConstraint, JointSpring, PointForce, PointRef, Spring
from eomlab.engine.presets import preset

from engine_helpers import FORMULATIONS, column, run

TIGHT = dict(rtol=1e-11, atol=1e-11)


def _chain_with_springs(damping=0.0):
    model = preset("planar_chain", n=3, angles=[0.4, 0.3, -0.2])
    forces = (
        Spring("tip_spring", PointRef("ground", (2.0, -1.0, 0.0)), PointRef("link3", (1.0, 0.0, 0.0)),
               stiffness=15.0, rest_length=0.5, damping=damping),
        JointSpring("knee", "link2", stiffness=4.0, rest=(0.2,), damping=damping),
    )
    return replace(model, forces=forces)


def test_springs_conserve_energy(method):
    """Springs and joint springs are conservative: E = T + V (their V included) drifts < 1e-9."""
    sim, rows = run(_chain_with_springs(), method, t_end=3.0, **TIGHT)
    assert np.max(sim.relative_energy_drift(column(sim, rows, "E"))) < 1e-9


def test_damping_only_removes_energy(method):
    sim, rows = run(_chain_with_springs(damping=0.5), method, t_end=3.0, **TIGHT)
    E = column(sim, rows, "E")
    assert np.all(np.diff(E) <= 1e-10) and E[-1] < E[0] - 0.1


def test_body_frame_point_force_spins_a_rotor_at_a_constant_rate():
    """A tangential force F in body axes at radius r on a free rotor: θ = ½ (F r / I) t² (1e-9)."""
    model = preset("simple_pendulum")  # point mass 1 at radius 1 on a massless rod
    force = PointForce("push", "bob", (1.0, 0.0, 0.0), ("0", "2.0", "0"), frame="body")
    model = replace(model, gravity=(0.0, 0.0, 0.0), forces=(force,))
    for method in ("kane", "lagrange"):
        sim, rows = run(model, method, t_end=1.0, **TIGHT)
        t = rows[:, 0]
        assert np.max(np.abs(column(sim, rows, "bob_theta") - (2.5 + t * t))) < 1e-9


def _constant_speed_particle():
    """ẋ² + ẏ² = v² (nonlinear first order): gravity can only turn the velocity (ideal, Chetaev)."""
    model = preset("acceleration_constraint_particle")
    slider, bob = model.bodies
    v = 1.5
    slider = replace(slider, joint=replace(slider.joint, u0=(v,)))
    bob = replace(bob, joint=replace(bob.joint, u0=(0.0,)))
    rule = ExpressionConstraint("speed", f"x_dot**2 + y_dot**2 - {v}**2", 1)
    return replace(model, bodies=(slider, bob), constraints=(rule,)), v


def test_nonlinear_velocity_constraint_keeps_the_speed(method):
    """The speed stays v (to 1e-8: held at the acceleration level by lagrange and UK, as a
    quasi-acceleration by maggi and kane) and the heading turns as θ̇ = −(g/v) cos θ."""
    model, v = _constant_speed_particle()
    sim, rows = run(model, method, t_end=2.0, **TIGHT)
    speed = np.hypot(column(sim, rows, "x_dot"), column(sim, rows, "y_dot"))
    assert np.max(np.abs(speed - v)) < 1e-8
    # heading θ obeys θ̇ = −(g/v) cos θ, θ(0) = 0: θ = −gd(g t / v), gd(x) = 2 atan(tanh(x/2))
    th = np.arctan2(column(sim, rows, "y_dot"), column(sim, rows, "x_dot"))
    exact = -2.0 * np.arctan(np.tanh(9.81 * rows[:, 0] / v / 2.0))
    assert np.max(np.abs(th - exact)) < 1e-8


def test_nonlinear_velocity_constraint_formulations_agree():
    model, _ = _constant_speed_particle()
    finals = [run(model, m, t_end=2.0, **TIGHT)[1][-1, 1:5] for m in FORMULATIONS]
    for f in finals[1:]:
        assert np.max(np.abs(f - finals[0])) < 1e-7
