"""Generalized active forces and potential energy, symbolically (virtual power).

F_r = Σ F·v_P^(r) + Σ L·ω^(r) over the force elements and gravity, with v_P^(r) = ∂v_P/∂u_r
the partial velocities. Joint-coordinate efforts τ enter as Wᵀτ since q̇ = W u.
With `speeds=False` the velocity variables are the rates q̇, and F is Lagrange's Q of (2.3)–(2.4).
"""
from __future__ import annotations

import sympy as sp

from eomlab.engine.model import BodyTorque, JointEffort, JointSpring, PointForce, Spring

from eomlab.engine.symbolic.tree_kinematics import SymbolicTree
from eomlab.engine.symbolic.parameters import exact


def partial(vector: sp.Matrix, velocities) -> sp.Matrix:
    """The 3×n matrix of partials ∂vector/∂velocity (columns: partial velocities)."""
    return vector.jacobian(sp.Matrix(velocities))


def parse_values(tree: SymbolicTree, texts, path: str) -> list[sp.Expr]:
    """User expressions (engine.expressions), parsed against the model's names."""
    from eomlab.engine.expressions import expression_names, parse_expression

    allowed = expression_names(tree.coordinate_names) | set(tree.speed_names)
    return [parse_expression(text, allowed, f"{path}[{i}]").sympy for i, text in enumerate(texts)]


def in_velocities(tree: SymbolicTree, expr, speeds: bool):
    """User expressions use q̇; in speeds they become W(q) u."""
    return tree.rates_to_speeds(expr) if speeds else expr


def gravity_forces(tree: SymbolicTree, speeds: bool) -> sp.Matrix:
    velocities = tree.velocities(speeds)
    F = sp.zeros(len(velocities), 1)
    for name, frame in tree.bodies.items():
        if frame.mass == 0:
            continue
        gravity_body = tree.to_body(name, tree.gravity)
        F += partial(tree.com_velocity_body(name, speeds), velocities).T * (frame.mass * gravity_body)
    return F


def joint_slice(tree: SymbolicTree, body: str) -> slice:
    start = 0
    for b in tree.model.bodies:
        if b.name == body:
            return slice(start, start + b.joint.n_coordinates)
        start += b.joint.n_coordinates
    raise KeyError(body)


def joint_effort_in_velocities(tree: SymbolicTree, body: str, tau, speeds: bool) -> sp.Matrix:
    """τ on a joint's coordinates as generalized force in q̇ (τ itself) or in u (Wᵀ τ)."""
    velocities = tree.velocities(speeds)
    window = joint_slice(tree, body)
    rates = tree.qd[window]
    if not speeds:
        W_rows = sp.Matrix([[1 if v == r else 0 for v in velocities] for r in rates])
    else:
        W_rows = sp.Matrix([tree.qdot_in_speeds[r] for r in rates]).jacobian(sp.Matrix(velocities))
    return W_rows.T * sp.Matrix(tau)


def spring_forces(tree: SymbolicTree, spring: Spring, speeds: bool) -> sp.Matrix:
    """Equal and opposite forces along the line of the points: tension k(ℓ − ℓ0) + c ℓ̇."""
    velocities = tree.velocities(speeds)
    r_a = tree.point_position(spring.a.body, spring.a.point)
    r_b = tree.point_position(spring.b.body, spring.b.point)
    d = r_b - r_a
    length = sp.sqrt(d.dot(d))
    v_rel = tree.point_velocity(spring.b.body, spring.b.point, speeds) - \
        tree.point_velocity(spring.a.body, spring.a.point, speeds)
    rate = d.dot(v_rel) / length
    tension = exact(spring.stiffness) * (length - exact(spring.rest_length)) + exact(spring.damping) * rate
    force_on_b = -tension * d / length
    return partial(v_rel, velocities).T * force_on_b


def joint_spring_rest(spring: JointSpring, k: int) -> list[sp.Expr]:
    rest = tuple(spring.rest)
    if len(rest) == 1:
        rest = rest * k
    if len(rest) != k:
        rest = (0.0,) * k
    return [exact(r) for r in rest]


def joint_spring_forces(tree: SymbolicTree, spring: JointSpring, speeds: bool) -> sp.Matrix:
    window = joint_slice(tree, spring.body)
    q, rates = tree.q[window], tree.qd[window]
    rest = joint_spring_rest(spring, len(q))
    tau = [-exact(spring.stiffness) * (qi - ri) - exact(spring.damping) * qdi
           for qi, ri, qdi in zip(q, rest, rates)]
    tau = [in_velocities(tree, t, speeds) for t in tau]
    return joint_effort_in_velocities(tree, spring.body, tau, speeds)


def point_force(tree: SymbolicTree, force: PointForce, path: str, speeds: bool) -> sp.Matrix:
    F = sp.Matrix([in_velocities(tree, v, speeds) for v in parse_values(tree, force.value, f"{path}.value")])
    F_body = F if force.frame == "body" else tree.to_body(force.body, F)
    v = tree.point_velocity_body(force.body, force.point, speeds)
    return partial(v, tree.velocities(speeds)).T * F_body


def body_torque(tree: SymbolicTree, torque: BodyTorque, path: str, speeds: bool) -> sp.Matrix:
    L = sp.Matrix([in_velocities(tree, v, speeds) for v in parse_values(tree, torque.value, f"{path}.value")])
    L_body = L if torque.frame == "body" else tree.rotation(torque.body).T * L
    return partial(tree.omega_body(torque.body, speeds), tree.velocities(speeds)).T * L_body


def generalized_active_forces(tree: SymbolicTree, speeds: bool = True) -> sp.Matrix:
    """F_r (Kane) or Q (Lagrange): gravity plus every force element of the model."""
    F = gravity_forces(tree, speeds)
    for i, force in enumerate(tree.model.forces):
        path = f"forces[{i}]"
        tree.progress.checkpoint(f"generalized force of {force.name}")
        if isinstance(force, Spring):
            F += spring_forces(tree, force, speeds)
        elif isinstance(force, JointSpring):
            F += joint_spring_forces(tree, force, speeds)
        elif isinstance(force, JointEffort):
            tau = [in_velocities(tree, v, speeds) for v in parse_values(tree, force.value, f"{path}.value")]
            F += joint_effort_in_velocities(tree, force.body, tau, speeds)
        elif isinstance(force, PointForce):
            F += point_force(tree, force, path, speeds)
        elif isinstance(force, BodyTorque):
            F += body_torque(tree, force, path, speeds)
    return tree.simplify(F)


def potential_energy(tree: SymbolicTree) -> sp.Expr:
    """V: gravity, springs ½k(ℓ − ℓ0)² and joint springs ½k(q − rest)² (the conservative part)."""
    V = sp.Integer(0)
    for name, frame in tree.bodies.items():
        V -= frame.mass * tree.gravity.dot(tree.com_position(name))
    for force in tree.model.forces:
        if isinstance(force, Spring):
            d = tree.point_position(force.b.body, force.b.point) - tree.point_position(force.a.body, force.a.point)
            V += exact(force.stiffness) / 2 * (sp.sqrt(d.dot(d)) - exact(force.rest_length)) ** 2
        elif isinstance(force, JointSpring):
            q = tree.q[joint_slice(tree, force.body)]
            for qi, ri in zip(q, joint_spring_rest(force, len(q))):
                V += exact(force.stiffness) / 2 * (qi - ri) ** 2
    return tree.simplify(V)


def kinetic_energy(tree: SymbolicTree, speeds: bool = False) -> sp.Expr:
    """T = ½ Σ (m v_c·v_c + ω·I ω) (body axes for the rotation)."""
    T = sp.Integer(0)
    for name, frame in tree.bodies.items():
        v = tree.com_velocity_body(name, speeds)
        w = tree.omega_body(name, speeds)
        T += (frame.mass * v.dot(v) + w.dot(frame.inertia * w)) / 2
    return tree.simplify(T)
