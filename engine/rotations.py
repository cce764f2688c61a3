"""Rotation matrices, Euler-angle sequences and their rate matrices (numeric, numpy only)."""
from __future__ import annotations

import math

import numpy as np

_EYE3 = np.eye(3)
_EYE3.flags.writeable = False
UNIT = {"x": np.array([1.0, 0.0, 0.0]), "y": np.array([0.0, 1.0, 0.0]), "z": np.array([0.0, 0.0, 1.0])}


def skew(v: np.ndarray) -> np.ndarray:
    """The matrix [v]x with [v]x w = v x w."""
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def perpendiculars(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unit n1 ⟂ a and n2 = a × n1: with a (unit) a right-handed frame (a, n1, n2)."""
    helper = np.array([1.0, 0.0, 0.0]) if abs(a[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    n1 = np.cross(a, helper)
    n1 /= np.linalg.norm(n1)
    return n1, np.cross(a, n1)


class AxisRotation:
    """Rotations about one fixed axis (Rodrigues): R(angle) = a aᵀ + cos(angle) (I − a aᵀ) + sin(angle) [a]×
    for the unit axis a. a aᵀ, I − a aᵀ and [a]× are made once, so a revolute joint pays two scalings
    per pose; about a coordinate axis the entries are exact (1, 0, cos, ±sin)."""

    def __init__(self, axis):
        a = np.asarray(axis, dtype=float)
        a = a / np.linalg.norm(a)
        self.along = np.outer(a, a)
        self.across = _EYE3 - self.along
        self.K = skew(a)

    def __call__(self, angle: float) -> np.ndarray:
        return self.along + math.cos(angle) * self.across + math.sin(angle) * self.K


def axis_angle_matrix(axis, angle: float) -> np.ndarray:
    """The rotation by `angle` about `axis` (any length but zero).

    >>> round(float(axis_angle_matrix((0, 0, 2), math.pi / 2)[0, 1]), 12)
    -1.0
    """
    return AxisRotation(axis)(angle)


def elementary(letter: str, angle: float) -> np.ndarray:
    """Rotation about the x, y or z axis: the plane of the two other axes (j, k, cyclic) turns."""
    i = "xyz".index(letter)
    j, k = (i + 1) % 3, (i + 2) % 3
    c, s = math.cos(angle), math.sin(angle)
    R = np.eye(3)
    R[j, j] = R[k, k] = c
    R[k, j], R[j, k] = s, -s
    return R


class EulerSequence:
    """R = R_a(psi) R_b(theta) R_c(phi) for the sequence "abc" (turns about moving axes)."""

    def __init__(self, sequence: str):
        self.sequence = sequence
        self.e_a, self.e_b, self.e_c = (UNIT[ch] for ch in sequence)

    def parts(self, angles):
        psi, theta, phi = angles
        a, b, c = self.sequence
        return elementary(a, psi), elementary(b, theta), elementary(c, phi)

    def matrix(self, angles) -> np.ndarray:
        ra, rb, rc = self.parts(angles)
        return ra @ rb @ rc

    def angles(self, R: np.ndarray) -> np.ndarray:
        """(psi, theta, phi) with R = R_a(psi) R_b(theta) R_c(phi): psi, phi in (−π, π], theta in
        [0, π] (symmetric sequences) or [−π/2, π/2] (the others). The other solution is
        (psi + π, −theta or π − theta, phi + π)."""
        i, j = "xyz".index(self.sequence[0]), "xyz".index(self.sequence[1])
        sign = 1.0 if (j - i) % 3 == 1 else -1.0  # +1 when (a, b) is a cyclic pair of axes
        if self.sequence[0] == self.sequence[2]:
            k = 3 - i - j
            theta = math.atan2(math.hypot(R[i, j], R[i, k]), R[i, i])
            return np.array([math.atan2(R[j, i], -sign * R[k, i]), theta, math.atan2(R[i, j], sign * R[i, k])])
        k = "xyz".index(self.sequence[2])
        theta = math.atan2(sign * R[i, k], math.hypot(R[i, i], R[i, j]))
        return np.array([math.atan2(-sign * R[j, k], R[k, k]), theta, math.atan2(-sign * R[i, j], R[i, i])])

    def rate_matrix_parent(self, ra: np.ndarray, rb: np.ndarray) -> np.ndarray:
        """Columns map (psi_dot, theta_dot, phi_dot) to omega in the joint (parent) frame."""
        return np.column_stack((self.e_a, ra @ self.e_b, ra @ (rb @ self.e_c)))

    def rate_matrix_body(self, rb: np.ndarray, rc: np.ndarray) -> np.ndarray:
        """Columns map the angle rates to omega in body axes: omega_body = E_b @ rates."""
        rct = rc.T
        return np.column_stack((rct @ (rb.T @ self.e_a), rct @ self.e_b, self.e_c))

    def rate_bias_parent(self, ra, rb, rates) -> np.ndarray:
        """d/dt(E(q)) q_dot in the joint frame: the angular-acceleration bias of Euler-rate speeds."""
        psi_d, theta_d, phi_d = rates
        b_axis = ra @ self.e_b
        c_axis = ra @ (rb @ self.e_c)
        w_ab = self.e_a * psi_d + b_axis * theta_d
        return psi_d * theta_d * np.cross(self.e_a, b_axis) + phi_d * np.cross(w_ab, c_axis)


def gimbal_margin(sequence: str, theta: float) -> float:
    """|det| of the rate matrix's angle dependence: 0 at gimbal lock.

    Symmetric sequences (zxz, ...) lock at theta = 0, pi; asymmetric ones (xyz, ...) at +-pi/2.
    """
    if sequence[0] == sequence[2]:
        return abs(math.sin(theta))
    return abs(math.cos(theta))


_LEVI_CIVITA = np.zeros((3, 3, 3))
_LEVI_CIVITA[0, 1, 2] = _LEVI_CIVITA[1, 2, 0] = _LEVI_CIVITA[2, 0, 1] = 1.0
_LEVI_CIVITA[0, 2, 1] = _LEVI_CIVITA[2, 1, 0] = _LEVI_CIVITA[1, 0, 2] = -1.0


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a × b over the last axis (length 3), broadcasting; several times faster than np.cross.

    Small operands go through one einsum with the Levi-Civita symbol (least call overhead),
    large ones component by component.
    """
    a = np.asarray(a)
    b = np.asarray(b)
    if a.size + b.size <= 120:
        return np.einsum("ijk,...j,...k->...i", _LEVI_CIVITA, a, b)
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    out = np.empty(np.broadcast_shapes(a.shape, b.shape))
    out[..., 0] = a1 * b2 - a2 * b1
    out[..., 1] = a2 * b0 - a0 * b2
    out[..., 2] = a0 * b1 - a1 * b0
    return out


# --- Euler parameters (unit quaternions, scalar first: p = (e0, e1, e2, e3)) ---------------


def quaternion_matrix(p) -> np.ndarray:
    """R(p/|p|) = ((e0² − e·e) I + 2 e eᵀ + 2 e0 [e]×) / |p|²: the normalisation is built in, so
    a drifted |p| changes no pose (the normalisation constraint only fixes the gauge)."""
    e0, e1, e2, e3 = p
    n2 = e0 * e0 + e1 * e1 + e2 * e2 + e3 * e3
    return np.array([
        [e0 * e0 + e1 * e1 - e2 * e2 - e3 * e3, 2.0 * (e1 * e2 - e0 * e3), 2.0 * (e1 * e3 + e0 * e2)],
        [2.0 * (e1 * e2 + e0 * e3), e0 * e0 - e1 * e1 + e2 * e2 - e3 * e3, 2.0 * (e2 * e3 - e0 * e1)],
        [2.0 * (e1 * e3 - e0 * e2), 2.0 * (e2 * e3 + e0 * e1), e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3],
    ]) / n2


def quaternion_rate_matrix(p) -> np.ndarray:
    """(4, 3) matrix with ṗ = ½ p ⊗ (0, ω_body): the kinematic equations of Euler parameters.
    They keep |p| constant exactly (pᵀ ṗ = 0 for every ω)."""
    e0, e1, e2, e3 = p
    return 0.5 * np.array([[-e1, -e2, -e3], [e0, -e3, e2], [e3, e0, -e1], [-e2, e1, e0]])


def quaternion_body_rates(p, p_dot) -> np.ndarray:
    """ω_body = 2 G(p) ṗ / |p|², G(p) = [−e, e0 I − [e]×]: the inverse of the kinematic equations."""
    e0, e1, e2, e3 = p
    G = np.array([[-e1, e0, e3, -e2], [-e2, -e3, e0, e1], [-e3, e2, -e1, e0]])
    return 2.0 * (G @ np.asarray(p_dot, float)) / (e0 * e0 + e1 * e1 + e2 * e2 + e3 * e3)


def quaternion_from_matrix(R: np.ndarray) -> np.ndarray:
    """Euler parameters (e0 ≥ 0) of a rotation matrix, by Shepperd's method: from the largest of
    4e0², 4e1², 4e2², 4e3² (the trace and the diagonal), so nothing is divided by a small number."""
    R = np.asarray(R, dtype=float)
    diagonal = (R[0, 0] + R[1, 1] + R[2, 2], R[0, 0], R[1, 1], R[2, 2])
    k = int(np.argmax(diagonal))
    if k == 0:
        s = 2.0 * math.sqrt(max(1.0 + diagonal[0], 0.0))
        p = (0.25 * s, (R[2, 1] - R[1, 2]) / s, (R[0, 2] - R[2, 0]) / s, (R[1, 0] - R[0, 1]) / s)
    else:
        i, j = k - 1, k % 3
        m = (j + 1) % 3
        s = 2.0 * math.sqrt(max(1.0 + R[i, i] - R[j, j] - R[m, m], 0.0))
        e = [0.0, 0.0, 0.0]
        e[i], e[j], e[m] = 0.25 * s, (R[i, j] + R[j, i]) / s, (R[i, m] + R[m, i]) / s
        p = ((R[m, j] - R[j, m]) / s, *e)
    p = np.array(p) / math.sqrt(sum(x * x for x in p))
    return -p if p[0] < 0 else p
