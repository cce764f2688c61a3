"""A humanoid-size free-floating tree against MuJoCo (measurement, never a test): dm_control's suite humanoid.xml
(a free root in Euler parameters and 21 hinges, armature 0.01 on each hinge; 27 speeds), imported with
`eomlab import`, contacts off.

    .venv/bin/python bench/bench_freefloating.py            # every section (a few minutes on a free machine)
    .venv/bin/python bench/bench_freefloating.py --quick    # fewer rounds
    .venv/bin/python bench/bench_freefloating.py --write    # also replace its section in bench/README.md

The same physics on both sides. Turned off in eomlab's model: the joint limits (enforced by eomlab), the
joint_spring force elements the importer writes for MJCF stiffness and damping; the model has no actuators.
Turned off in MuJoCo (opt.disableflags): contact, limit, spring and damper (joint stiffness and
damping), actuation, frictionloss, equality; no control. Kept on both: gravity, the bodies' masses and inertias, the hinges' armature.
The start: the file's pose (root at 1.5 m), hinge speeds drawn once (seed 1, uniform in ±2 rad/s), the root's
body-axis angular velocity (0.5, −0.3, 0.8) rad/s, linear velocity 0: the body falls and tumbles.

1. agreement: eomlab (kane, DOP853, rtol = atol = 1e-12) and MuJoCo RK4 (0.1 ms) from the same state, the largest
   coordinate difference after 0.5 s (quaternions compared up to sign);
2. one right-hand side: eomlab's inside the compiled DOP853 step (attempts' time over their right-hand sides), the
   kernel called alone from Python, the Python path (the formulation's `derivative` before numba loads) beside
   pinocchio's `aba` and MuJoCo's `mj_forward`, interleaved rounds, medians;
3. equal accuracy: simulated seconds per wall second at max |E − E₀| / max(|E₀|, T₀ + |V₀|) ≤ 1e-8 over 10 s,
   eomlab DOP853 (kane; loosest rtol = atol in 1e-7 … 1e-13 meeting it; samples every 10 ms, their cost included)
   against MuJoCo RK4 (largest step 10 ms / 2^k meeting it; energy by mjENBL_ENERGY every 10 ms), both in one run.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import replace

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from bench_common import one_thread, fmt_time, table  # noqa: E402
from eomlab.engine.modelfile import load_model  # noqa: E402
from eomlab.engine.simulation import Simulation  # noqa: E402

MARK_BEGIN, MARK_END = "<!-- bench_freefloating: begin -->", "<!-- bench_freefloating: end -->"
DRIFT_BOUND = 1e-8
T_END = 10.0
WALL_BUDGET = 120.0  # s per eomlab run in the equal-accuracy search
ROOT_SPIN = (0.5, -0.3, 0.8)  # rad/s, body axes
HINGE_SPEED = 2.0  # rad/s, the bound of the drawn hinge speeds


def humanoid_file() -> str:
    import dm_control

    return os.path.join(os.path.dirname(dm_control.__file__), "suite", "humanoid.xml")


def eomlab_humanoid():
    """The model `eomlab import` writes, without limits and force elements, started as the docstring says."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "humanoid.eom.json")
        subprocess.run([os.path.join(os.path.dirname(sys.executable), "eomlab"), "import", humanoid_file(), "-o", path],
                       check=True, capture_output=True)
        model = load_model(path)
    rng = np.random.default_rng(1)
    bodies = []
    for body in model.bodies:
        joint = replace(body.joint, limits=())
        if joint.type == "free":
            joint = replace(joint, u0=(0.0, 0.0, 0.0, *ROOT_SPIN))
        elif joint.type != "fixed":
            joint = replace(joint, u0=tuple(float(x) for x in rng.uniform(-HINGE_SPEED, HINGE_SPEED, len(joint.u0))))
        bodies.append(replace(body, joint=joint))
    return replace(model, bodies=tuple(bodies), forces=())


def mujoco_humanoid(model, step: float):
    """MuJoCo's humanoid with what the docstring lists switched off, RK4 at `step`, at the eomlab model's start."""
    import mujoco

    m = mujoco.MjModel.from_xml_path(humanoid_file())
    off = mujoco.mjtDisableBit
    m.opt.disableflags |= (off.mjDSBL_CONTACT | off.mjDSBL_LIMIT | off.mjDSBL_SPRING | off.mjDSBL_DAMPER
                           | off.mjDSBL_ACTUATION | off.mjDSBL_FRICTIONLOSS | off.mjDSBL_EQUALITY)
    m.opt.enableflags |= mujoco.mjtEnableBit.mjENBL_ENERGY
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    m.opt.timestep = step
    d = mujoco.MjData(m)
    d.qpos[:], d.qvel[:] = to_mujoco(mujoco, m, model)
    d.ctrl[:] = 0.0
    mujoco.mj_forward(m, d)
    return mujoco, m, d


def _joint_map(mujoco, m, model):
    """(eomlab coordinate slice, eomlab speed slice, MuJoCo qpos address, dof address, kind) per moving joint."""
    out, q, u = [], 0, 0
    for body in model.bodies:
        joint = body.joint
        nq, nu = len(joint.q0), len(joint.u0)
        if nq:
            name = "root" if joint.type == "free" else joint.names[0]
            j = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, name)
            if j < 0:
                raise SystemExit(f"no MuJoCo joint named {name!r}")
            out.append((slice(q, q + nq), slice(u, u + nu), int(m.jnt_qposadr[j]), int(m.jnt_dofadr[j]), joint.type))
        q, u = q + nq, u + nu
    return out


def to_mujoco(mujoco, m, model):
    """(qpos, qvel) of the eomlab model's start. Both free joints: position, then (w, x, y, z); linear velocity in
    the world, angular velocity in body axes."""
    from eomlab.engine.model import initial_coordinates, initial_speeds

    q, u = np.array(initial_coordinates(model)), np.array(initial_speeds(model))
    qpos, qvel = np.zeros(m.nq), np.zeros(m.nv)
    for qs, us, qa, da, _ in _joint_map(mujoco, m, model):
        qpos[qa : qa + qs.stop - qs.start] = q[qs]
        qvel[da : da + us.stop - us.start] = u[us]
    return qpos, qvel


def agreement(model) -> tuple[float, float]:
    """(max |Δq| over the hinges and the root's position, max |Δp| of the root's Euler parameters up to sign)
    after 0.5 s: eomlab at rtol 1e-12 against MuJoCo RK4 at 0.1 ms."""
    sim = Simulation(model, method="kane", integrator="DOP853", rtol=1e-12, atol=1e-12, t_end=0.5, dt_out=0.5)
    sim.advance(0.5)
    q = sim.samples()[-1, [sim.column_index(n) for n in sim.formulation.system.coordinate_names]]
    mujoco, m, d = mujoco_humanoid(model, 1e-4)
    for _ in range(5000):
        mujoco.mj_step(m, d)
    plain, quat = 0.0, 0.0
    for qs, _, qa, _, kind in _joint_map(mujoco, m, model):
        ours, theirs = q[qs], d.qpos[qa : qa + qs.stop - qs.start]
        if kind == "free":
            plain = max(plain, float(np.max(np.abs(ours[:3] - theirs[:3]))))
            e, f = ours[3:] / np.linalg.norm(ours[3:]), theirs[3:]
            quat = max(quat, float(min(np.max(np.abs(e - f)), np.max(np.abs(e + f)))))
        else:
            plain = max(plain, float(np.max(np.abs(ours - theirs))))
    return plain, quat


def rhs_section(model, rounds: int) -> list[list[str]]:
    """Per-call times of one right-hand side at the start, interleaved rounds, medians."""
    from eomlab.engine.compiled.compiled_step import wait_until_compiled

    sim = Simulation(model, method="kane", integrator="DOP853", rtol=1e-9, atol=1e-9, t_end=1.0)
    f = sim.formulation
    y = f.initial_state(f.system.q0, f.system.u0)
    backend = f.system.tree_backend
    q_pin = backend.configuration(f.system.q0)
    tau = np.zeros(f.system.n_u)
    mujoco, m, d = mujoco_humanoid(model, 0.01)
    fns = {"eomlab, Python path (pinocchio aba per call)": lambda: f.derivative(0.0, y),
           "pinocchio aba": lambda: backend.pin.aba(backend.model, backend.data, q_pin, f.system.u0, tau),
           "mj_forward": lambda: mujoco.mj_forward(m, d)}
    step = f.compiled_step
    kernels = wait_until_compiled(floating=True) if step is not None else None
    if kernels is not None:
        from eomlab.engine.compiled.compiled_dop853 import CompiledDOP853

        out, work = np.empty(y.size), kernels.floating_workspace(step.arrays)
        solver = CompiledDOP853(lambda: None, f.derivative, 0.0, y, 1e9, rtol=1e-9, atol=1e-9)

        def in_the_step():  # one DOP853 step attempt (twelve right-hand sides and the error estimate), per RHS
            return solver._attempt(kernels, step.arrays)[1]

        fns = {"eomlab, in the compiled DOP853 step": in_the_step,
               "eomlab, the kernel called from Python": lambda: kernels.state_derivative(step.arrays, y, out, work), **fns}
    times = {k: [] for k in fns}
    with one_thread():
        for _ in range(rounds):
            for k, fn in fns.items():
                calls, evaluations = 2000, 0
                t0 = time.perf_counter()
                for _ in range(calls):
                    evaluated = fn()
                    evaluations += evaluated if k.endswith("step") else 1
                times[k].append((time.perf_counter() - t0) / evaluations)
    med = {k: float(np.median(v)) for k, v in times.items()}
    return [[k, fmt_time(med[k]), f"{med[k] / med['mj_forward']:.2f}×"] for k in fns]


def eomlab_run(model, tol: float):
    """(wall s, drift, finished, steps, RHS, dynamics path, CPU s) of one kane DOP853 run to T_END, samples every
    10 ms."""
    sim = Simulation(model, method="kane", integrator="DOP853", rtol=tol, atol=tol, t_end=T_END, dt_out=0.01)
    with one_thread():
        cpu = time.process_time()
        sim.advance(T_END, wall_budget=WALL_BUDGET)
        cpu = time.process_time() - cpu
    drift = float(np.max(sim.relative_energy_drift(sim.samples()[:, sim.column_index("E")])))
    return (sim.wall_time, drift, sim.t >= T_END and sim.failure is None, sim.stats["steps"],
            sim.stats["rhs_evals"], sim.formulation.dynamics_path, cpu)


def mujoco_run(model, step: float):
    """(wall s, drift, CPU s) of MuJoCo RK4 at `step` to T_END, energy every 10 ms (mj_forward at the state: after mj_step
    d.energy is a stage's)."""
    mujoco, m, d = mujoco_humanoid(model, step)
    E0, scale = sum(d.energy), max(abs(sum(d.energy)), d.energy[1] + abs(d.energy[0]), 1e-12)
    steps, every = int(round(T_END / step)), max(1, int(round(0.01 / step)))
    drift = 0.0
    t0, cpu = time.perf_counter(), time.process_time()
    for i in range(steps):
        mujoco.mj_step(m, d)
        if i % every == every - 1:
            mujoco.mj_forward(m, d)
            drift = max(drift, abs(sum(d.energy) - E0) / scale)
        if not drift < 1.0:
            return time.perf_counter() - t0, float("inf"), time.process_time() - cpu
    return time.perf_counter() - t0, drift, time.process_time() - cpu


def accuracy_section(model, rounds: int) -> list[list[str]]:
    """The loosest tolerance / largest step meeting DRIFT_BOUND on each side, then `rounds` interleaved timed runs
    of each at that setting; medians."""
    from eomlab.engine.compiled.compiled_step import wait_until_compiled

    wait_until_compiled()
    found = None
    for k in range(7, 14):
        wall, drift, finished, steps, rhs, path, _ = eomlab_run(model, 10.0 ** -k)
        print(f"  eomlab rtol 1e-{k}: drift {drift:.2e}, {T_END / wall:.3g} sim s / wall s, {steps} steps, {rhs} RHS,"
              f" {path}", flush=True)
        if finished and drift <= DRIFT_BOUND:
            found = (10.0 ** -k, drift, steps, rhs, path)
            break
    dt = None
    for k in range(0, 12):
        wall, drift, _ = mujoco_run(model, 0.01 / 2**k)
        print(f"  MuJoCo RK4 {0.01 / 2**k * 1e3:.3g} ms: drift {drift:.2e}, {T_END / wall:.3g} sim s / wall s", flush=True)
        if drift <= DRIFT_BOUND:
            dt, drift_m = 0.01 / 2**k, drift
            break
    if found is None or dt is None:
        return [["not met", "", "", "", "", ""]]
    runs_e, runs_m = [], []
    for _ in range(rounds):
        run = eomlab_run(model, found[0])
        runs_e.append((run[0], run[6]))
        with one_thread():
            run = mujoco_run(model, dt)
        runs_m.append((run[0], run[2]))
    walls_e, walls_m = np.array(runs_e), np.array(runs_m)
    rate_e, rate_m = T_END / float(np.median(walls_e[:, 0])), T_END / float(np.median(walls_m[:, 0]))
    ratio = float(np.median(walls_m[:, 0] / walls_e[:, 0]))
    cpu_e, cpu_m = T_END / float(np.median(walls_e[:, 1])), T_END / float(np.median(walls_m[:, 1]))
    cpu_ratio = float(np.median(walls_m[:, 1] / walls_e[:, 1]))
    return [[f"{rate_e:.3g} (rtol {found[0]:g}, drift {found[1]:.1e}, {found[2]} steps, {found[3]} RHS)",
             f"{rate_m:.3g} (dt {dt * 1e3:.3g} ms, drift {drift_m:.1e}, {int(round(T_END / dt))} steps)",
             f"{ratio:.2f}×", f"{cpu_e:.3g} / {cpu_m:.3g} = {cpu_ratio:.2f}×", found[4]]]


def render(agree, rhs_rows, acc_rows, rounds: int) -> str:
    load = os.getloadavg()
    return "\n".join([
        MARK_BEGIN, "## Free-floating humanoid against MuJoCo (bench_freefloating.py; issue 30 item 2, branch `freefly`)", "",
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average at the end: {load[0]:.2f}, {load[1]:.2f}, "
        f"{load[2]:.2f} (`uptime`, 2 cores shared). dm_control's "
        "humanoid.xml (27 speeds: free root in Euler parameters, 21 hinges with armature 0.01) imported with `eomlab "
        "import`; off in eomlab: joint limits and the joint_spring elements (stiffness, damping); off in MuJoCo "
        "(disableflags): contact, limit, spring, damper, actuation, frictionloss, equality. Root spinning at (0.5, −0.3, 0.8) "
        "rad/s in body axes, hinge speeds uniform in ±2 rad/s (seed 1), falling freely.", "",
        f"Agreement after 0.5 s from the same state (eomlab rtol 1e-12 against MuJoCo RK4 at 0.1 ms): max |Δq| "
        f"{agree[0]:.1e} (hinges, root position), max |Δp| {agree[1]:.1e} (root Euler parameters).", "",
        f"One right-hand side ({rounds} interleaved rounds of 2000 calls, medians; BLAS one thread): in the compiled "
        "step, 2000 successive DOP853 step attempts from the start at rtol 1e-9, their time over the right-hand sides "
        "they evaluated (numba's call overhead spread over twelve stages); the others at the start:", "",
        table(["", "per right-hand side", "/ mj_forward"], rhs_rows), "",
        f"Equal accuracy, max |E − E₀| / max(|E₀|, T₀ + |V₀|) ≤ {DRIFT_BOUND:g} over {T_END:g} s; simulated seconds per "
        f"wall second, medians of {rounds} interleaved runs at the setting found (eomlab: kane, DOP853, samples every "
        "10 ms included; MuJoCo: RK4, energy every 10 ms); the ratio is the median of the per-round ratios; beside it "
        "the same in simulated seconds per CPU second of the process (less sensitive to what else runs):", "",
        table(["eomlab", "MuJoCo RK4", "eomlab / MuJoCo", "per CPU second: eomlab / MuJoCo", "eomlab's path"],
              acc_rows), "", MARK_END])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--write", action="store_true", help="replace this section in bench/README.md")
    args = parser.parse_args()
    rounds = 3 if args.quick else 5
    model = eomlab_humanoid()
    agree = agreement(model)
    print(f"agreement after 0.5 s: |Δq| {agree[0]:.2e}, |Δp| {agree[1]:.2e}", flush=True)
    rhs_rows = rhs_section(model, rounds)
    for row in rhs_rows:
        print("  rhs", row, flush=True)
    acc_rows = accuracy_section(model, rounds)
    print("  equal accuracy", acc_rows, flush=True)
    text = render(agree, rhs_rows, acc_rows, rounds)
    print(text)
    if args.write:
        path = os.path.join(HERE, "README.md")
        with open(path, encoding="utf-8") as f:
            readme = f.read()
        if MARK_BEGIN in readme:
            head, rest = readme.split(MARK_BEGIN, 1)
            readme = head + text + rest.split(MARK_END, 1)[1]
        else:
            readme = readme.rstrip("\n") + "\n\n" + text + "\n"
        with open(path, "w", encoding="utf-8") as f:
            f.write(readme)


if __name__ == "__main__":
    main()
