"""What each formulation's page says before the model's own equations: the equation's standard
name and source, its general form, what each symbol is, and what sets the method apart.

Keyed by method name, so a formulation added to the registry gets its page from its entry here
(and a plain title when it has none). Formulas are LaTeX; everything else is prose.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class About:
    name: str  # the equation's standard name
    source: str  # who published it, and when
    general: tuple[tuple[str, str], ...]  # (role, LaTeX) of the general form
    symbols: tuple[tuple[str, str], ...]  # (LaTeX symbol, what it is)
    difference: str  # two or three sentences: what sets this method apart
    roles: dict = field(default_factory=dict)


T = r"^{\mathsf T}"

LAGRANGE = About(
    name="Lagrange's equations of the second kind with multipliers",
    source="J.-L. Lagrange, Mécanique analytique (1788); multipliers for constraints in the accelerations",
    general=(
        ("general", rf"M(q)\,\ddot q + h(q,\dot q) = Q + A{T}\lambda"),
        ("constraints", r"A(q,\dot q,t)\,\ddot q = b(q,\dot q,t)"),
        ("constraint_force", rf"R = A{T}\lambda, \qquad \lambda = \big(A M^{{-1}} A{T}\big)^{{-1}}"
                             r"\big(b - A M^{-1}(Q - h)\big)"),
        ("", rf"\begin{{bmatrix}} M & A{T} \\ A & 0 \end{{bmatrix}}"
                   rf"\begin{{bmatrix}} \ddot q \\ -\lambda \end{{bmatrix}} = \begin{{bmatrix}} Q - h \\ b \end{{bmatrix}}"),
    ),
    symbols=(
        (r"q,\ \dot q,\ \ddot q", "the joint coordinates, their rates and accelerations"),
        (r"M(q)", "the mass matrix, the second derivative of the kinetic energy with respect to the rates"),
        (r"h_\sigma = \Gamma_{\sigma,\alpha\beta}\,\dot q^\alpha \dot q^\beta",
         "the velocity terms, from the Christoffel symbols of the first kind"),
        (r"Q", "the generalised applied forces (gravity, springs, dampers, loads) from virtual work"),
        (rf"A{T}\lambda", "the constraint forces: one multiplier per constraint row"),
    ),
    difference="Every coordinate keeps its own equation and every constraint brings an unknown multiplier, "
               "so the system grows by one row per constraint but stays simple to write down. "
               "The multipliers are the constraint forces themselves, obtained with the motion.",
)

MAGGI = About(
    name="Maggi's equations (generalised Maggi equations)",
    source="G. A. Maggi, Principii della teoria matematica del movimento dei corpi (1896) and "
           "Di alcune nuove forme delle equazioni della dinamica (1901)",
    general=(
        ("general", r"\ddot q = C\,w + \ddot q_p, \qquad A\,C = 0, \qquad A\,\ddot q_p = b"),
        ("reduced", rf"C{T}\big(M\,\ddot q + h - Q\big) = 0"),
        ("mass", rf"\big(C{T} M\,C\big)\,w = C{T}\big(Q - h - M\,\ddot q_p\big)"),
        ("multipliers", rf"\lambda = D{T}\big(M\,\ddot q + h - Q\big), \qquad A\,D = I"),
    ),
    symbols=(
        (r"C", "a basis of the motions the constraints allow: its columns span the null space of A"),
        (r"w", "the independent accelerations, one per degree of freedom left by the constraints"),
        (r"\ddot q_p", "a particular acceleration that satisfies the constraints"),
        (rf"C{T} M\,C", "the mass matrix seen in the allowed directions"),
        (r"D", "a right inverse of A; the second group gives the multipliers from it"),
    ),
    difference="Projecting the equations of motion onto the allowed directions removes the multipliers: "
               "the first group has exactly as many equations as degrees of freedom. "
               "The constraint forces, if wanted, follow afterwards from the second group.",
)

UDWADIA_KALABA = About(
    name="The Udwadia–Kalaba equation",
    source="F. E. Udwadia and R. E. Kalaba, Proc. R. Soc. Lond. A 439 (1992) 407–410; "
           "for a singular mass matrix F. E. Udwadia and P. Phohomsiri, Proc. R. Soc. A 462 (2006) 2097–2117",
    general=(
        ("general", r"\ddot q = a + M^{-1/2}\big(A\,M^{-1/2}\big)^{+}\,(b - A\,a)"),
        ("forcing", r"a = M^{-1}(Q - h)"),
        ("constraint_force", r"Q_c = M^{1/2}\big(A\,M^{-1/2}\big)^{+}\,(b - A\,a)"),
        ("", rf"\ddot q = a + M^{{-1}} A{T} \big(A\,M^{{-1}} A{T}\big)^{{-1}} (b - A\,a)"),
    ),
    symbols=(
        (r"a", "the acceleration the system would have without its constraints"),
        (r"M^{-1/2}", "the inverse square root of the mass matrix; any factor of the inverse mass matrix "
                     "times its own transpose serves as well"),
        (r"(\cdot)^{+}", "the Moore–Penrose pseudoinverse, so redundant constraint rows are allowed"),
        (r"b - A\,a", "by how much the unconstrained acceleration violates the constraints"),
    ),
    difference="The constrained acceleration is written in closed form: the free acceleration plus the "
               "smallest correction, in the kinetic-energy metric, that satisfies the constraints (Gauss's "
               "principle of least constraint). No multipliers and no choice of independent coordinates are needed.",
)

KANE = About(
    name="Kane's equations",
    source="T. R. Kane and D. A. Levinson, Dynamics: Theory and Applications (1985)",
    general=(
        ("reduced", r"F_r + F_r^{*} = 0, \qquad r = 1, \dots, p"),
        ("forcing", r"F_r = \sum_B \big(R_B \cdot v_B^{(r)} + L_B \cdot \omega_B^{(r)}\big)"),
        ("mass", r"F_r^{*} = -\sum_B \big(m_B\,a_B \cdot v_B^{(r)}"
                 r" + (I_B\,\alpha_B + \omega_B \times I_B\,\omega_B) \cdot \omega_B^{(r)}\big)"),
    ),
    symbols=(
        (r"u_r", "the generalised speeds, chosen freely (here the model's speeds)"),
        (r"v_B^{(r)},\ \omega_B^{(r)}", "the partial velocities: how the mass centre's velocity and the body's "
                                       "angular velocity depend on the r-th speed"),
        (r"F_r", "the generalised active forces: applied forces and torques projected on the partial velocities"),
        (r"F_r^{*}", "the generalised inertia forces, projected the same way"),
    ),
    difference="Forces that do no work in the allowed motions (ideal constraint forces) never appear, because "
               "everything is projected on the partial velocities. With velocity constraints the speeds split "
               "into independent and dependent ones and only the independent equations remain.",
)

ROBERSON_WITTENBURG = About(
    name="Roberson–Wittenburg tree kinematics",
    source="R. E. Roberson and J. Wittenburg (1966); J. Wittenburg, Dynamics of Multibody Systems (1977)",
    general=(
        ("general", r"r_j = \sum_i T_{ij}\,d_{ij}"),
        ("kinematics_rate", r"\dot r = \alpha\,\dot q + s, \qquad \ddot r = \alpha\,\ddot q + u"),
        ("mass", r"M\,\ddot q = Q - h"),
    ),
    symbols=(
        (r"T", "the path matrix: an entry is 1 when hinge i lies on the path from the ground to body j"),
        (r"d_{ij}", "body-fixed vectors from hinge i to the next hinge on the path to body j"),
        (r"\alpha", "the Jacobian of all mass-centre positions with respect to the coordinates"),
        (r"u", "the velocity-product terms of the mass-centre accelerations"),
    ),
    difference="The tree's topology is written as a matrix, so the positions, velocities and accelerations of "
               "every body come from sums along the paths of the tree. The equations of motion are Lagrange's, "
               "assembled from these pieces.",
)

GIBBS_APPELL = About(
    name="The Gibbs–Appell equations",
    source="J. W. Gibbs (1879); P. Appell, Sur une forme générale des équations de la dynamique (1900)",
    general=(
        ("energy", r"S = \tfrac12 \sum_B \big(m_B\,a_B \cdot a_B + \alpha_B \cdot I_B\,\alpha_B"
                   r" + 2\,\alpha_B \cdot (\omega_B \times I_B\,\omega_B)\big)"),
        ("reduced", r"\frac{\partial S}{\partial \dot u_r} = F_r, \qquad r = 1, \dots, p"),
    ),
    symbols=(
        (r"S", "the acceleration energy (the Gibbs function), up to terms free of the accelerations"),
        (r"\dot u_r", "the derivatives of the generalised speeds (quasi-accelerations)"),
        (r"F_r", "the generalised active forces belonging to the r-th speed"),
    ),
    difference="A single scalar, the acceleration energy, generates all the equations, much as the kinetic "
               "energy does for Lagrange; because it is written in quasi-accelerations, velocity constraints "
               "are built in by the choice of speeds and no multipliers appear.",
)

#: each page's explanation, found by the title its derivation gives (the list of formulations itself is
#: the registry's, engine.methods)
ABOUTS = {about.name: about for about in (LAGRANGE, MAGGI, UDWADIA_KALABA, KANE, ROBERSON_WITTENBURG, GIBBS_APPELL)}

#: what corresponds across formulations (side-by-side view): role -> (label, colour)
ROLES = {
    "general": ("the governing equation", "#555555"),
    "mass": ("mass matrix", "#0072B2"),
    "forcing": ("applied and velocity forces", "#009E73"),
    "constraint_force": ("constraint forces", "#D55E00"),
    "constraints": ("constraints", "#CC79A7"),
    "reduced": ("equations free of multipliers", "#E69F00"),
    "multipliers": ("multipliers", "#56B4E9"),
}
