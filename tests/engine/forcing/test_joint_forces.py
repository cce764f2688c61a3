"""Constraint forces where they act (engine.forcing.joint_forces), for every formulation and in joint and
absolute coordinates.

Tolerances: Newton–Euler per body (Σ F = m a_G, Σ M_G = I α + ω × I ω) with the computed forces
to 1e-9; each constraint kind's actions give back its Aᵀλ to 1e-12 (relative to |λ|); a joint's
reaction does no work along the motions it allows (1e-9); joint and absolute coordinates give the
same joint forces at the same state (1e-9); the pendulum's rod force m (g cos θ + l θ̇²) to 1e-9.
"""
import math
from dataclasses import replace

import numpy as np
import pytest

from eomlab.engine.forcing.action import generalized_force, joint_motion
from eomlab.engine.model import (
    Body, ExpressionConstraint, Joint, JointEffort, JointSpring, Model, ModelError, Settings,
)
from eomlab.engine.presets import (
    double_compound_pendulum, driven_crank, four_bar, heavy_top, knife_edge, rolling_disk_leaning, simple_pendulum,
    spatial_chain,
)
from eomlab.engine.simulation import Simulation

TIGHT = dict(rtol=1e-12, atol=1e-12)
COORDINATES = ("joint", "absolute")
BALANCED = {"four_bar": four_bar, "rolling_disk": rolling_disk_leaning, "heavy_top": heavy_top}


def hinged_arm():
    """A 3-D arm on revolute joints about x then y, and a slider: reaction couples across the axes."""
    def body(name, parent, joint, com):
        return Body(name, parent, joint, 1.0, com, ((0.02, 0, 0), (0, 0.03, 0), (0, 0, 0.04)))
    return Model(name="arm", gravity=(0.0, 0.0, -9.81), settings=Settings(t_end=1.0), bodies=(
        body("shoulder", "ground", Joint("revolute", axis=(1.0, 0.0, 0.0), q0=(0.4,), u0=(1.0,),
                                         names=("shoulder_q",)), (0.0, 0.3, 0.1)),
        body("elbow", "shoulder", Joint("revolute", axis=(0.0, 1.0, 0.0), at=(0.0, 0.6, 0.0), q0=(0.7,),
                                        u0=(-2.0,), names=("elbow_q",)), (0.3, 0.0, 0.0)),
        body("hand", "elbow", Joint("prismatic", axis=(1.0, 0.0, 0.0), at=(0.6, 0.0, 0.0), q0=(0.1,), u0=(0.5,),
                                    names=("hand_s",)), (0.05, 0.0, 0.0)),
    ))


def evaluation_of(sim):
    return sim._evaluated(None)[1]


def body_balance(sim):
    """(largest |Σ F − m a_G|, largest |Σ M_G − Ḣ_G|) over the bodies, with every constraint and
    applied force the engine reports acting where it says."""
    ev = evaluation_of(sim)
    kin, ks = sim.formulation.system.kin, ev.dynamics.ks
    net, moment = np.zeros((kin.n_bodies, 3)), np.zeros((kin.n_bodies, 3))
    for action in sim.constraint_forces() + sim.applied_forces():
        for body, point, force, torque in action.on_bodies():
            net[body] += force
            moment[body] += np.cross(point - ks.com[body], force) + torque
    a_com = np.einsum("bij,j->bi", ks.J_v, ev.u_dot) + ks.a_bias
    alpha = np.einsum("bij,j->bi", ks.J_w, ev.u_dot) + ks.alpha_bias
    worst_f = worst_m = 0.0
    for b in range(kin.n_bodies):
        inertia = ks.R[b] @ kin.inertia_body[b] @ ks.R[b].T
        H_dot = inertia @ alpha[b] + np.cross(ks.omega[b], inertia @ ks.omega[b])
        if kin.planar:  # the planar equations carry the in-plane force and the moment about z
            worst_f = max(worst_f, np.max(np.abs(kin.mass[b] * a_com[b, :2] - net[b, :2])))
            worst_m = max(worst_m, abs(H_dot[2] - moment[b, 2]))
        else:
            worst_f = max(worst_f, np.max(np.abs(kin.mass[b] * a_com[b] - net[b])))
            worst_m = max(worst_m, np.max(np.abs(H_dot - moment[b])))
    return worst_f, worst_m


@pytest.mark.parametrize("coordinates", COORDINATES)
@pytest.mark.parametrize("name", BALANCED)
def test_every_body_obeys_newton_and_euler(name, coordinates, method):
    sim = Simulation(BALANCED[name](), method=method, coordinates=coordinates, t_end=0.3)
    sim.advance(0.3)
    assert sim.failure is None, sim.failure
    worst_f, worst_m = body_balance(sim)
    assert worst_f < 1e-9 and worst_m < 1e-9
    kinds = {a.kind for a in sim.constraint_forces()}
    assert kinds == {"four_bar": {"joint", "closure"}, "rolling_disk": {"contact"}, "heavy_top": {"joint"}}[name]


def test_four_bar_closure_carries_load(method):
    sim = Simulation(four_bar(), method=method, t_end=0.4)
    sim.advance(0.4)
    closure = [a for a in sim.constraint_forces() if a.kind == "closure"]
    assert len(closure) == 1 and np.linalg.norm(closure[0].force) > 1.0


def test_rolling_disk_contact_holds_gravity_and_turns_the_centre(method):
    """Σ F = m a_G on the disk: the contact force is m a_G − m g; steady rolling keeps G at one
    height, so its vertical part is m g."""
    model = rolling_disk_leaning()
    sim = Simulation(model, method=method, t_end=0.5, **TIGHT)
    sim.advance(0.5)
    ev = evaluation_of(sim)
    ks, m = ev.dynamics.ks, model.bodies[0].mass
    (contact,) = sim.constraint_forces()
    a_com = ks.J_v[0] @ ev.u_dot + ks.a_bias[0]
    assert np.max(np.abs(contact.force + m * np.array(model.gravity) - m * a_com)) < 1e-9
    assert contact.force[2] == pytest.approx(m * 9.81, abs=1e-9)
    assert abs(contact.at[2]) < 1e-9  # at the ground, a radius below the rim's centre line
    assert np.linalg.norm(contact.at - ks.com[0]) == pytest.approx(0.5, abs=1e-9)


@pytest.mark.parametrize("build, coordinates", [
    (four_bar, "joint"), (rolling_disk_leaning, "joint"), (knife_edge, "joint"), (driven_crank, "joint"),
    (four_bar, "absolute"), (heavy_top, "absolute"), (spatial_chain, "absolute"), (rolling_disk_leaning, "absolute"),
    (knife_edge, "absolute"), (double_compound_pendulum, "absolute"),
], ids=lambda x: getattr(x, "__name__", x))
def test_each_constraint_acts_where_its_rows_say(build, coordinates):
    """generalized_force(kind.actions(λ)) = A_kindᵀ λ: the forces sit at the points the rows use
    (coincident, distance, knife edge, rolling disk, servo; joints as rows in absolute coordinates)."""
    sim = Simulation(build(), coordinates=coordinates, t_end=0.2)
    sim.advance(0.2)
    f = sim.formulation
    ev = evaluation_of(sim)
    ks, kin = ev.dynamics.ks, f.system.kin
    row = 0
    for kind in f.system.constraints.kinds:
        lam = ev.multipliers[row:row + kind.rows]
        A = ev.rows.A[row:row + kind.rows]
        row += kind.rows
        Q = generalized_force(kin, ks, kind.actions(ks, lam))
        assert np.max(np.abs(Q - A.T @ lam)) < 1e-12 * max(1.0, np.max(np.abs(lam)))


@pytest.mark.parametrize("build", [four_bar, heavy_top, spatial_chain, driven_crank, hinged_arm],
                         ids=lambda b: b.__name__)
def test_joint_reactions_do_no_work_along_the_joint(build, method):
    """S_jᵀ (F, M) = 0: a revolute's couple has no axial part, a spherical joint's none at all."""
    sim = Simulation(build(), method=method, t_end=0.2)
    sim.advance(0.2)
    ks = evaluation_of(sim).dynamics.ks
    kin = sim.formulation.system.kin
    joints = [a for a in sim.constraint_forces() if a.kind == "joint"]
    assert len(joints) == sum(jl.type != "free" for jl in kin.joints)
    for action in joints:
        work = joint_motion(kin, ks, action.on).T @ np.concatenate((action.force, action.torque))
        assert np.max(np.abs(work)) < 1e-9


def sprung_pendulum():
    """A joint spring and a motor: forces written in joint coordinates."""
    return replace(double_compound_pendulum(), forces=(JointSpring("s", "lower", 6.0, rest=(0.3,), damping=0.2),
                                                       JointEffort("motor", "upper", ("2*sin(3*t)",))))


@pytest.mark.parametrize("build", [double_compound_pendulum, four_bar, heavy_top, spatial_chain, hinged_arm,
                                   sprung_pendulum, driven_crank], ids=lambda b: b.__name__)
def test_joint_and_absolute_coordinates_give_the_same_joint_forces(build):
    """Two independent ways at the same initial state: Newton–Euler over subtrees from u̇, and
    the multipliers of the joints' rows (with forces or a servo written in joint coordinates, which
    act on the poses through a pseudo-inverse, Newton–Euler again, from the absolute run's u̇)."""
    by_joint = Simulation(build(), coordinates="joint", t_end=0.1)
    absolute = Simulation(build(), coordinates="absolute", t_end=0.1)
    joint_actions = {a.source: a for a in by_joint.constraint_forces() if a.kind == "joint"}
    absolute_actions = {a.source: a for a in absolute.constraint_forces() if a.kind == "joint"}
    assert set(joint_actions) == set(absolute_actions) and joint_actions
    for source, a in joint_actions.items():
        b = absolute_actions[source]
        assert np.max(np.abs(a.force - b.force)) < 1e-9, source
        assert np.max(np.abs(a.torque - b.torque)) < 1e-9, source
        assert np.max(np.abs(a.at - b.at)) < 1e-12
    assert np.max(np.abs(by_joint.joint_forces() - absolute.joint_forces())) < 1e-9


def test_simple_pendulum_rod_force(method):
    """The pivot pulls the bob along the rod with m (g cos θ + l θ̇²) (θ from the downward vertical)."""
    m, length, g = 1.5, 0.8, 9.81
    sim = Simulation(simple_pendulum(length=length, mass=m, theta0=2.0), method=method, t_end=1.0)
    for t in (0.0, 0.37, 0.81):
        sim.advance(t)
        row = sim.samples()[-1]
        theta, omega = row[sim.column_index("bob_theta")], row[sim.column_index("bob_theta_dot")]
        bob = row[[sim.column_index(f"bob.{a}") for a in "xyz"]]
        F = sim.joint_forces()[0]
        towards_pivot = -bob / np.linalg.norm(bob)
        assert F @ towards_pivot == pytest.approx(m * (g * math.cos(theta) + length * omega**2), abs=1e-9)
        assert np.linalg.norm(np.cross(F, towards_pivot)) < 1e-9  # along the rod


def test_joint_forces_carry_the_subtree():
    sim = Simulation(double_compound_pendulum(), t_end=0.5)
    sim.set_state([-math.pi / 2, 0.0], [0.0, 0.0])  # hanging straight down, at rest
    F = sim.joint_forces()
    assert np.allclose(F, [[0.0, 2 * 9.81, 0.0], [0.0, 9.81, 0.0]], atol=1e-12)  # each pivot holds what hangs below


def test_a_joint_spring_is_applied_not_a_reaction():
    """Held at rest off the spring's rest angle: the spring's couple is k Δθ, the pin's reaction
    has no couple about its axis."""
    model = replace(double_compound_pendulum(), forces=(JointSpring("s", "upper", 20.0, rest=(0.0,)),))
    sim = Simulation(model, t_end=0.1)
    sim.set_state([-math.pi / 2, 0.0], [0.0, 0.0])
    (spring,) = [a for a in sim.applied_forces() if a.kind == "spring"]
    assert spring.torque[2] == pytest.approx(20.0 * math.pi / 2, abs=1e-12)
    (upper,) = [a for a in sim.constraint_forces() if a.source == "joint upper"]
    assert abs(upper.torque[2]) < 1e-12


def test_servo_force_is_the_drive_torque_at_its_joint(method):
    sim = Simulation(driven_crank(), method=method, t_end=0.3)
    sim.advance(0.3)
    (servo,) = [a for a in sim.constraint_forces() if a.kind == "actuator"]
    lam = sim.samples()[-1][[i for i, c in enumerate(sim.columns) if c.startswith("lambda_") and "drive" in c]]
    assert np.allclose(servo.force[:2], 0.0, atol=1e-12)
    assert abs(servo.torque[2]) == pytest.approx(abs(lam[0]), rel=1e-12)


def test_an_equation_constraint_is_named_not_drawn():
    model = replace(double_compound_pendulum(), constraints=(
        ExpressionConstraint("level", "upper_theta + lower_theta - 2.5", order=0),))
    sim = Simulation(model, t_end=0.1)
    with pytest.raises(ModelError, match="'level'"):
        sim.constraint_forces()
    assert len(sim.applied_forces()) == 2  # the rest of the arrows still work


@pytest.mark.parametrize("build", [four_bar, driven_crank, hinged_arm])
def test_the_arrays_of_the_actions_are_the_actions(build):
    """`constraint_force_arrays` / `applied_force_arrays` (what the window draws) hold row for row
    the Actions of `constraint_forces` / `applied_forces`; bodies, points and None kept exactly."""
    from eomlab.engine.forcing.action import ActionArrays

    sim = Simulation(build())
    sim.advance(0.2)
    for arrays, actions in ((sim.constraint_force_arrays(), sim.constraint_forces()),
                            (sim.applied_force_arrays(), sim.applied_forces())):
        assert len(arrays) == len(actions) > 0
        for row, action in zip(ActionArrays.of(actions).actions(), actions):
            assert (row.source, row.kind, row.on, row.other) == (action.source, action.kind, action.on, action.other)
            assert (row.other_at is None) == (action.other_at is None)
            for name in ("at", "force", "torque"):
                assert np.array_equal(getattr(row, name), getattr(action, name))
        bodies, points, forces, torques = arrays.on_bodies()
        sides = [side for action in actions for side in action.on_bodies()]
        assert sorted(bodies.tolist()) == sorted(side[0] for side in sides)
        assert np.allclose(forces.sum(axis=0), sum(side[2] for side in sides), **TIGHT)
