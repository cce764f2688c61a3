"""Rotations read back from matrices (engine/rotations.py): Euler angles of every sequence and
Euler parameters, against the matrices they give (1e-15) and scipy's Rotation."""
import itertools
import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from eomlab.engine.rotations import EulerSequence, quaternion_from_matrix, quaternion_matrix

SEQUENCES = ["".join(s) for s in itertools.product("xyz", repeat=3) if s[0] != s[1] and s[1] != s[2]]


@pytest.mark.parametrize("sequence", SEQUENCES)
def test_euler_angles_of_a_matrix_give_it_back(sequence):
    """All twelve sequences: R(angles(R)) = R to 1e-15, the middle angle in its range, and the
    angles equal scipy's intrinsic ones (upper-case sequence) away from the lock."""
    euler = EulerSequence(sequence)
    rng = np.random.default_rng(7)
    for _ in range(50):
        R = euler.matrix(rng.uniform(-3.1, 3.1, 3))
        angles = euler.angles(R)
        assert np.max(np.abs(euler.matrix(angles) - R)) < 1e-15 * 4
        lo, hi = (0.0, math.pi) if sequence[0] == sequence[2] else (-math.pi / 2, math.pi / 2)
        assert lo <= angles[1] <= hi
        assert np.allclose(angles, Rotation.from_matrix(R).as_euler(sequence.upper()), atol=1e-12)


def test_euler_parameters_of_a_matrix_every_branch_of_shepperds_method():
    """Rotations by up to π about random axes, and the half turns about x, y, z (each branch of
    Shepperd's method): R(p) = R to 1e-15, |p| = 1, e0 ≥ 0, = scipy's (sign fixed) to 1e-15."""
    rng = np.random.default_rng(8)
    matrices = [Rotation.random(random_state=rng).as_matrix() for _ in range(200)]
    matrices += [np.diag(d) for d in ([1.0, -1, -1], [-1, 1, -1], [-1, -1, 1], [1, 1, 1])]
    for R in matrices:
        p = quaternion_from_matrix(R)
        assert np.max(np.abs(quaternion_matrix(p) - R)) < 1e-15 * 4 and abs(p @ p - 1) < 1e-15 and p[0] >= 0
        x, y, z, w = Rotation.from_matrix(R).as_quat()
        if w > 1e-9:
            assert np.allclose(p, [w, x, y, z], atol=1e-15 * 4)
