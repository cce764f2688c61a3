"""The numeric mass matrix and forcing equal sympy.physics.mechanics' KanesMethod (test only).

The reference is built here from the Model with sympy's own frames and points, independent of
engine.kinematics: revolute and prismatic joints and spherical joints with body-rate speeds.
"""
import numpy as np
import pytest
import sympy as sp
from sympy.physics import mechanics as me

from eomlab.engine.model import GROUND
from eomlab.engine.presets import preset
from eomlab.engine.mechanics.system import build_system

TOL = 1e-12


def _matrix_to_dcm(R):
    return sp.Matrix(3, 3, lambda i, j: sp.nsimplify(R[i][j]) if abs(R[i][j]) in (0, 1) else R[i][j])


def kanes_reference(model):
    """(mass_matrix, forcing, q symbols, u symbols) of a Model in sympy.physics.mechanics."""
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    frames, points = {GROUND: N}, {GROUND: O}
    qs, us, kd, bodies, loads = [], [], [], [], []
    g = sp.Matrix(model.gravity)
    for b in model.bodies:
        j = b.joint
        parent_frame, parent_point = frames[b.parent], points[b.parent]
        J = me.ReferenceFrame(f"J_{b.name}")
        J.orient_explicit(parent_frame, _matrix_to_dcm(j.rotation))  # J = parent · R (columns)
        hinge0 = parent_point.locatenew(f"H_{b.name}", sum((c * v for c, v in zip(j.at, parent_frame)), me.Vector(0)))
        q = list(me.dynamicsymbols(f"q_{b.name}_0:{j.dof}")) if j.dof else []
        u = list(me.dynamicsymbols(f"u_{b.name}_0:{j.dof}")) if j.dof else []
        B = me.ReferenceFrame(f"B_{b.name}")
        axis = sum((c * v for c, v in zip(j.axis, J)), me.Vector(0))
        if j.type == "revolute":
            B.orient_axis(J, axis, q[0])
            B.set_ang_vel(J, u[0] * axis)
            origin = hinge0.locatenew(f"P_{b.name}", 0)
            kd += [q[0].diff() - u[0]]
        elif j.type == "prismatic":
            B.orient_axis(J, J.z, 0)
            origin = hinge0.locatenew(f"P_{b.name}", q[0] * axis)
            kd += [q[0].diff() - u[0]]
        elif j.type == "spherical" and j.speeds == "body":
            B.orient_body_fixed(J, q, j.sequence)
            w = B.ang_vel_in(J)
            kd += [w.dot(B.x) - u[0], w.dot(B.y) - u[1], w.dot(B.z) - u[2]]
            B.set_ang_vel(J, u[0] * B.x + u[1] * B.y + u[2] * B.z)
            origin = hinge0.locatenew(f"P_{b.name}", 0)
        else:
            raise NotImplementedError(j.type)
        # velocities: the hinge is fixed in the parent, the origin moves relative to J
        origin.v2pt_theory(parent_point, N, parent_frame) if j.type != "prismatic" else None
        if j.type == "prismatic":
            hinge0.v2pt_theory(parent_point, N, parent_frame)
            origin.set_vel(N, hinge0.vel(N) + q[0].diff() * axis + parent_frame.ang_vel_in(N).cross(q[0] * axis))
        G = origin.locatenew(f"G_{b.name}", sum((c * v for c, v in zip(b.com, B)), me.Vector(0)))
        G.v2pt_theory(origin, N, B)
        I = me.inertia(B, *(b.inertia[i][i] for i in range(3)), b.inertia[0][1], b.inertia[1][2], b.inertia[0][2])
        body = me.RigidBody(b.name, G, B, b.mass, (I, G))
        bodies.append(body)
        loads.append((G, b.mass * (g[0] * N.x + g[1] * N.y + g[2] * N.z)))
        frames[b.name], points[b.name] = B, origin
        qs += q
        us += u
    km = me.KanesMethod(N, q_ind=qs, u_ind=us, kd_eqs=kd)
    km.kanes_equations(bodies, loads)
    return km.mass_matrix, km.forcing, qs, us


def _numeric(expr, qs, us, q, u):
    subs = {**dict(zip(qs, q)), **dict(zip(us, u))}
    return np.array(expr.subs(subs).evalf(), dtype=float)


@pytest.mark.parametrize(
    "model",
    [preset("planar_chain", n=3), preset("cart_pendulum"), preset("heavy_top")],
    ids=["chain3", "cart_pendulum", "heavy_top"],
)
def test_mass_matrix_and_forcing_equal_kanes_method(model):
    mass_matrix, forcing, qs, us = kanes_reference(model)
    system = build_system(model)
    rng = np.random.default_rng(7)
    for _ in range(3):
        q = rng.uniform(-1.2, 1.2, system.n_q)
        u = rng.uniform(-2.0, 2.0, system.n_u)
        if model.bodies[0].joint.type == "spherical":
            q[1] = rng.uniform(0.3, 2.8)  # away from the zxz gimbal lock
        dyn = system.dynamics(0.0, q, u)
        M_ref = _numeric(mass_matrix, qs, us, q, u)
        f_ref = _numeric(forcing, qs, us, q, u).ravel()
        scale = max(1.0, np.max(np.abs(M_ref)))
        assert np.max(np.abs(dyn.M - M_ref)) <= TOL * scale
        fscale = max(1.0, np.max(np.abs(f_ref)))
        assert np.max(np.abs(dyn.forcing - f_ref)) <= TOL * fscale
