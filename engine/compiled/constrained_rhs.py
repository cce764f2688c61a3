"""The constrained right-hand side on the compiled path: a formulation's `derivative` as one numba call
(engine.compiled.constrained_kernels) for the models that kernel holds, the numpy path for everything else.

Held: joint coordinates on a FlatTree (one revolute or prismatic joint per speed, a free joint's translation
as three slides, no armature; engine.compiled.kernel_model), and planar models in absolute coordinates (each
body's planar joint to the ground is two slides and a turn, its revolute joints coincident rows), every
constraint a coincident or distance closure, a rolling disk, a knife edge or a planar pin (kernel_model's rows), no force element acting, Lagrange,
Udwadia–Kalaba, Kane, Gibbs–Appell and Maggi with its orthonormal basis, the reduced ones on the partition
their numpy path chose (Kane's and Gibbs–Appell's with at least one row eliminated). Anything else (body-rate
speeds, among them 3-D absolute coordinates; a joint other than a planar revolute in absolute coordinates;
expression rows), a call before numba's kernels are compiled (in the background
thread of engine.compiled.compiled_step) and any state where the kernel
reports a branch it does not take (engine.compiled.constrained_solves) goes through the formulation's own
`checked_derivative`, so the compiled path gives what the numpy one gives and is never worse.

The DOP853 step attempts take the same kernel (`ConstrainedStep`, the formulation's `compiled_step`, as the
free tree's StepKernel): a run of such a model does not return to Python per stage. The reduced formulations'
change of partition and the projection stabilization act after each accepted step, as on scipy's step.
"""
from __future__ import annotations

import numpy as np

from eomlab.engine.compiled.compiled_step import call_kernel, compiled_constrained, numba_installed, start_compiling
from eomlab.engine.compiled.kernel_model import kernel_rows, kernel_tree
from eomlab.engine.methods import METHODS

#: the kernel's code of a formulation is its place in the registry (engine.compiled.constrained_kernels' codes)
CODES = {name: code for code, name in enumerate(METHODS)}
_REDUCED = (CODES["kane"], CODES["gibbs_appell"])


def constrained_kernel(formulation) -> "ConstrainedKernel | None":
    """The compiled right-hand side of `formulation` when the kernel holds its model (module docstring),
    else None."""
    code = CODES.get(formulation.name)
    system = formulation.system
    if code is None or getattr(formulation, "acceleration_basis", "orthonormal") != "orthonormal":
        return None
    rows, backend = system.constraints, system.tree_backend
    if backend is None or rows is None or system.has_body_rates or rows.rheonomic or not numba_installed():
        return None
    flat = kernel_tree(backend)
    if flat is None:
        return None
    arrays = kernel_rows(rows.kinds, backend, flat[1])
    if arrays is None:
        return None
    return ConstrainedKernel(formulation, tuple(flat[0]), arrays, code)


class ConstrainedKernel:
    """One formulation's model as the kernel takes it (made once), and its bound right-hand side."""

    def __init__(self, formulation, tree, closures, code):
        from eomlab.engine.formulations.rank import RANK_RTOL
        from eomlab.engine.formulations.udwadia_kalaba import AUGMENTED_RTOL, SINGULAR_RTOL

        self.formulation, self.tree, self.closures, self.code = formulation, tree, closures, code
        stab = formulation.settings.stabilization
        self.gains = np.array([stab.alpha, stab.beta] if stab.kind == "baumgarte" else [0.0, 0.0], dtype=float)
        self.tolerances = np.array([SINGULAR_RTOL, AUGMENTED_RTOL, RANK_RTOL], dtype=float)
        self._no_partition = np.zeros(0, dtype=np.int64)
        self._partition = (None, None)  # (the formulation's dep array it was made from, (sel, dep, indep) int64)

    def partition(self):
        """(sel, dep, indep) as int64 arrays, or None where the kernel does not take this partition:
        Kane's or Gibbs–Appell's with no row eliminated."""
        f = self.formulation
        dep = getattr(f, "dep", self._no_partition)
        if dep.size == 0:  # (Maggi without first-order rows eliminates none: every speed is integrated)
            return None if self.code in _REDUCED else (self._no_partition,) * 3
        source, arrays = self._partition
        if source is not dep:
            arrays = tuple(np.ascontiguousarray(x, dtype=np.int64) for x in (f.partition_rows, dep, f.indep))
            self._partition = (dep, arrays)
        return arrays

    def arrays(self):
        """What the kernel takes (engine.compiled.constrained_kernels._derivative's data), or None where it
        does not take the formulation's partition."""
        parts = self.partition()
        if parts is None:
            return None
        return (self.tree, *self.closures, self.code, *parts, self.gains, self.tolerances)

    def bind(self, general):
        """`derivative(t, y)`: the kernel's, or `general`'s where the kernel does not hold the call."""
        f = self.formulation
        forces = f.system.forces
        tree, code, gains, tolerances = self.tree, self.code, self.gains, self.tolerances
        joints, local, table, lengths = self.closures
        partition = self.partition
        n = tree[0].size
        started = []

        def derivative(t: float, y: np.ndarray) -> np.ndarray:
            kernels = compiled_constrained()
            if kernels is None:
                if not started:
                    started.append(True)
                    start_compiling()
                return general(t, y)
            if forces and any(getattr(force, "active", True) for force in forces):
                return general(t, y)
            parts = partition()
            if parts is None or y.shape != (n + (parts[2].size if parts[1].size else n),):  # (the kernel checks no bounds)
                return general(t, y)
            y = np.ascontiguousarray(y, dtype=float)
            out = np.empty(y.size)
            if not call_kernel(kernels.constrained_derivative, tree, joints, local, table, lengths, code, *parts,
                               gains, tolerances, y, out):
                return general(t, y)
            f.rhs_evals += 1
            return out

        return derivative


class ConstrainedStep:
    """The compiled DOP853 step on a ConstrainedKernel, as engine.compiled.compiled_dop853 takes a StepKernel:
    counts its steps (stats); `kernels()` None where the Python step must be taken."""

    def __init__(self, kernel: ConstrainedKernel):
        self.formulation, self._kernel = kernel.formulation, kernel
        self._forces = kernel.formulation.system.forces
        self.steps = 0
        self.arrays = None

    def kernels(self):
        if any(getattr(force, "active", True) for force in self._forces):
            return None
        kernels = compiled_constrained()
        if kernels is None:
            return None
        self.arrays = self._kernel.arrays()  # (the partition may have changed since the last step)
        return kernels if self.arrays is not None else None
