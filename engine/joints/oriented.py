"""What spherical and free joints share: a rotation in Euler angles (angle rates or body rates as
speeds) or in Euler parameters (body rates), after `translations` slides along the joint frame's
axes."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from eomlab.engine.model import Joint
from eomlab.engine.rotations import quaternion_matrix
from eomlab.engine.joints.type_definition import QUATERNION_NAMES, JointType


class Oriented(JointType):
    orientation = True
    translations = 0  # slides before the rotation (x, y, z of the joint frame)

    def coordinate_suffixes(self, joint):
        return self.suffixes[:-3] + QUATERNION_NAMES if joint.quaternion else self.suffixes

    def speed_names(self, body_name, joint, names):
        if joint.speeds == "body" or joint.quaternion:
            n = self.translations
            return tuple(f"{name}_dot" for name in names[:n]) + tuple(f"{body_name}_{w}" for w in ("wx", "wy", "wz"))
        return super().speed_names(body_name, joint, names)

    def in_plane(self, joint, tolerance):
        return False

    def _rotation(self, jl, q):
        return quaternion_matrix(q[-4:]) if jl.quaternion else jl.euler.matrix(q[-3:])

    def _translation(self, q):
        return q[:3].copy() if self.translations else np.zeros(3)

    def pose(self, jl, q):
        return self._rotation(jl, q), self._translation(q)

    def motion(self, jl, q, u):
        zero3 = np.zeros(3)
        rates_or_w = u[-3:]
        if jl.quaternion:
            R = quaternion_matrix(q[-4:])
        else:
            ra, rb, rc = jl.euler.parts(q[-3:])
            R = ra @ rb @ rc
        if jl.body_rates:
            Hw_rot, bias = R, zero3  # d/dt(R w_body) = R w_body_dot: no bias
        else:
            Hw_rot = jl.euler.rate_matrix_parent(ra, rb)
            bias = jl.euler.rate_bias_parent(ra, rb, rates_or_w)
        if not self.translations:
            return R, zero3, Hw_rot, np.zeros((3, 3)), bias
        Hw = np.hstack((np.zeros((3, 3)), Hw_rot))
        Hv = np.hstack((np.eye(3), np.zeros((3, 3))))
        return R, q[:3].copy(), Hw, Hv, bias

    def place(self, jl, qj, prepared, Hw_cols, euler_parts):
        if jl.quaternion:
            R_rel = quaternion_matrix(qj[-4:])
        else:
            ra, rb, rc = jl.euler.parts(qj[-3:])
            R_rel = ra @ rb @ rc
        s = jl.u_slice
        if jl.body_rates:
            Hw_cols[s.stop - 3 : s.stop] = R_rel.T  # ω_rel = R_rel ω_body
        else:
            Hw_cols[s.stop - 3 : s.stop] = jl.euler.rate_matrix_parent(ra, rb).T
            euler_parts[jl.body] = (self.rate_bias, (jl, ra, rb))
        return R_rel, (qj[:3] if self.translations else None)

    def rate_bias(self, jl, ra, rb, u):
        s = jl.u_slice
        return jl.euler.rate_bias_parent(ra, rb, u[s.stop - 3 : s.stop])

    def joint_values(self, reader, jl, R, d, ref):
        n = self.translations
        return [*map(float, d[:n]), *reader.rotation(jl, R, ref[n:])]

    def pinocchio_chain(self, pin, jl, unit_axes):
        q0 = jl.q_slice.start
        chain = [(pin.JointModelTranslation(), [q0, q0 + 1, q0 + 2])] if self.translations else []
        if jl.quaternion:
            return chain + [(pin.JointModelSpherical(), "quaternion")]
        if jl.body_rates:
            return chain + [(pin.JointModelSpherical(), "euler")]
        angles = jl.q_slice.stop - 3
        return chain + [(pin.JointModelRevoluteUnaligned(np.array(e, dtype=float)), [angles + k])
                        for k, e in enumerate((jl.euler.e_a, jl.euler.e_b, jl.euler.e_c))]

    def mjcf_joint(self, importer, name, get, where):
        quaternion = Joint(self.name, orientation="quaternion")
        return replace(quaternion, names=tuple(f"{name}_{d}" for d in self.coordinate_suffixes(quaternion)))

    def dialog_start(self, quaternion):
        return ["0"] * self.translations + (["1", "0", "0", "0"] if quaternion else ["0"] * 3)


