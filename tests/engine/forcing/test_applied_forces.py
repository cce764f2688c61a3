"""Applied forces where they act (engine.forcing.applied_forces, engine.forcing.action): their generalized force
is the model's Q (gravity plus every force element and push) to 1e-12, in every formulation."""
from dataclasses import replace

import numpy as np
import pytest

from eomlab.engine.forcing.action import generalized_force
from eomlab.engine.model import BodyTorque, JointEffort, JointSpring, PointForce, PointRef, Spring
from eomlab.engine.presets import double_compound_pendulum, heavy_top, simple_pendulum
from eomlab.engine.simulation import RunQuantities, Simulation
from eomlab.engine.mechanics.state import StateContext


def loaded_pendulum():
    """Every kind of force element on the double compound pendulum."""
    forces = (
        Spring("s", PointRef("ground", (0.5, 1.0, 0.0)), PointRef("lower", (1.0, 0.0, 0.0)), 8.0, 0.3, 0.4),
        JointSpring("js", "lower", 3.0, rest=(0.2,), damping=0.1),
        JointEffort("motor", "upper", ("0.5*sin(t)",)),
        PointForce("wind", "lower", (0.5, 0.0, 0.0), ("1.5", "0", "0")),
        BodyTorque("twist", "upper", ("0", "0", "0.7"), frame="body"),
    )
    return replace(double_compound_pendulum(), forces=forces)


def q_of_everything(sim):
    """Gravity's Q plus each element's own generalized force at the latest sample."""
    t, ev = sim._evaluated(None)
    system, dyn = sim.formulation.system, ev.dynamics
    ks = dyn.ks
    Q = np.einsum("bij,bi->j", ks.J_v, system.kin.mass[:, None] * system.gravity[None, :])
    ctx = StateContext(t=t, q=ev.q, u=ev.u, qd=dyn.qd, W=dyn.W, ks=ks)
    for element in system.forces:
        Q = Q + element.generalized(ctx)
    return Q, system.kin, ks


def test_actions_give_back_the_generalized_forces(method):
    sim = Simulation(loaded_pendulum(), method=method, t_end=0.5)
    sim.advance(0.5)
    actions = sim.applied_forces()
    assert [a.kind for a in actions] == ["gravity", "gravity", "spring", "spring", "effort", "load", "load"]
    Q, kin, ks = q_of_everything(sim)
    assert np.max(np.abs(generalized_force(kin, ks, actions) - Q)) < 1e-12 * max(1.0, np.max(np.abs(Q)))
    gravity = [a for a in actions if a.kind == "gravity"]
    assert np.allclose([a.at for a in gravity], ks.com) and np.allclose(gravity[0].force, [0.0, -9.81, 0.0])
    (spring,) = [a for a in actions if a.source == "spring s"]
    assert np.allclose(spring.at, ks.origin[1] + ks.R[1] @ [1.0, 0.0, 0.0]) and spring.other == -1


def test_absolute_coordinates_report_the_same_applied_forces():
    """In absolute coordinates the joint spring and the effort act through the joint coordinates
    read from the poses (on the poses by a pseudo-inverse, equal on the constraints): they are
    reported as the same forces and couples at the same points as in joint coordinates."""
    by_joint = Simulation(loaded_pendulum(), coordinates="joint", t_end=0.1).applied_forces()
    absolute = Simulation(loaded_pendulum(), coordinates="absolute", t_end=0.1).applied_forces()
    assert [a.source for a in by_joint] == [a.source for a in absolute]
    for a, b in zip(by_joint, absolute):
        for field in ("at", "force", "torque"):
            assert np.max(np.abs(getattr(a, field) - getattr(b, field))) < 1e-9, (a.source, field)
        assert (a.on, a.other) == (b.on, b.other)


def test_a_spatial_effort_is_a_couple_at_its_joint():
    model = replace(heavy_top(), forces=(JointEffort("m", "top", ("0.2", "0", "0.1")),))
    sim = Simulation(model, t_end=0.2)
    sim.advance(0.2)
    Q, kin, ks = q_of_everything(sim)
    actions = sim.applied_forces()
    assert np.max(np.abs(generalized_force(kin, ks, actions) - Q)) < 1e-12
    (effort,) = [a for a in actions if a.kind == "effort"]
    assert np.allclose(effort.force, 0.0, atol=1e-12) and np.linalg.norm(effort.torque) > 0.1


def test_a_push_shows_while_it_acts():
    sim = Simulation(simple_pendulum(), t_end=1.0)
    sim.advance(0.2)
    sim.push("bob", [0.0, 0.0, 0.0], [0.0, 4.0, 0.0], 0.3)
    sim.advance(1.0)
    rows = sim.samples()
    during, after = rows[np.argmin(np.abs(rows[:, 0] - 0.35))], rows[np.argmin(np.abs(rows[:, 0] - 0.8))]
    pushes = [a for a in sim.applied_forces(during) if a.kind == "push"]
    assert len(pushes) == 1 and np.allclose(pushes[0].force, [0.0, 4.0, 0.0])
    assert not [a for a in sim.applied_forces(after) if a.kind == "push"]


@pytest.mark.parametrize("coordinates", ["joint", "absolute"])
def test_rows_of_a_run_held_elsewhere_give_the_same_quantities(coordinates, method):
    """A window holds only the rows: RunQuantities of the model reads them as the run itself does."""
    model = double_compound_pendulum()
    sim = Simulation(model, method=method, coordinates=coordinates, t_end=0.3)
    sim.advance(0.3)
    row = sim.samples()[-1]
    held = RunQuantities(model, method=method, coordinates=coordinates)
    for name in ("joint_forces", "mass_centre_velocities", "angular_velocities", "angular_momenta"):
        assert np.max(np.abs(getattr(held, name)(row) - getattr(sim, name)(row))) < 1e-12, name
    ours, theirs = sim.constraint_forces(row), held.constraint_forces(row)
    assert [a.source for a in ours] == [a.source for a in theirs]
    assert max(np.max(np.abs(a.force - b.force)) for a, b in zip(ours, theirs)) < 1e-12
