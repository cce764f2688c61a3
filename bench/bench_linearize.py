"""`eomlab linearize` beside sympy.physics.mechanics' Linearizer (KanesMethod.linearize) on the same
models: hanging planar chains of point masses (n links), the sleeping top. It measures; it never asserts.

    .venv/bin/python bench/bench_linearize.py [--sympy-limit 120] [--no-readme]
    .venv/bin/python bench/bench_linearize.py --accuracy      # the Jacobian's error, a section of its own

eomlab: `linearize(model)` in one process after the imports, best of 3 (kane, joint coordinates), and
`eomlab linearize FILE` as a command (wall and CPU time of the whole process, imports included).
sympy: KanesMethod derivation, then `linearize(A_and_B=True, op_point=...)` evaluated at the numbers,
in a child process stopped after --sympy-limit seconds. The maximum difference of the eigenvalues
(sorted) is in the last column.
"""
from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
G, SPIN = 9.81, 150.0


def chain(n: int):
    from eomlab.engine.presets import preset

    return preset("planar_chain", n=n, kind="point", angles=[-math.pi / 2] + [0.0] * (n - 1))


def eomlab_time(model) -> tuple[float, np.ndarray]:
    from eomlab.engine.linearize import linearize

    best = math.inf
    for _ in range(3):
        t = time.perf_counter()
        lin = linearize(model, method="kane", coordinates="joint")
        best = min(best, time.perf_counter() - t)
    return best, lin.eigenvalues


def command_time(model) -> tuple[float, float]:
    from eomlab.engine.modelfile import save_model

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "m.eom.json")
        save_model(model, path)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run([str(ROOT / ".venv" / "bin" / "eomlab"), "linearize", path, "--format", "csv"],
                       check=True, capture_output=True)
        wall = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def sympy_chain(n: int, out):
    """n point masses (1 kg) on massless links (1 m), angles relative to the previous link, hanging."""
    import sympy as sm
    import sympy.physics.mechanics as me

    t0 = time.perf_counter()
    q, u = me.dynamicsymbols(f"q1:{n + 1}"), me.dynamicsymbols(f"u1:{n + 1}")
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    frame, point, bodies, loads = N, O, [], []
    for i in range(n):
        frame = frame.orientnew(f"F{i}", "Axis", (q[i], frame.z))
        frame.set_ang_vel(N if i == 0 else bodies[-1].frame, u[i] * N.z)
        nxt = point.locatenew(f"P{i}", -frame.y)
        nxt.v2pt_theory(point, N, frame)
        particle = me.Particle(f"m{i}", nxt, 1)
        particle.frame = frame
        bodies.append(particle)
        loads.append((nxt, -G * N.y))
        point = nxt
    kane = me.KanesMethod(N, q_ind=q, u_ind=u, kd_eqs=[qi.diff() - ui for qi, ui in zip(q, u)])
    kane.kanes_equations(bodies, loads)
    op = {**{qi: 0 for qi in q}, **{ui: 0 for ui in u}}
    A, _, _ = kane.linearize(A_and_B=True, op_point=op)
    A = np.array(sm.Matrix(A).evalf(), dtype=float)
    out.put((time.perf_counter() - t0, np.linalg.eigvals(A).tolist()))


def sympy_top(body_rates: bool, out):
    """The sleeping top: a disk (0.5 kg, r 0.04 m) whose centre is 0.05 m up its axis from the tip,
    XYZ body angles, spinning at 150 rad/s; speeds the angle rates, or (body_rates) the body-axis
    components of ω, as a Kane user would often choose."""
    import sympy as sm
    import sympy.physics.mechanics as me

    t0 = time.perf_counter()
    q, u = me.dynamicsymbols("q1:4"), me.dynamicsymbols("u1:4")
    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Body", q, "XYZ")
    omega = B.ang_vel_in(N).to_matrix(B)  # in the angle rates, before the speeds replace them
    if body_rates:
        B.set_ang_vel(N, u[0] * B.x + u[1] * B.y + u[2] * B.z)
        kd = [omega[i] - u[i] for i in range(3)]
    else:
        kd = [qi.diff() - ui for qi, ui in zip(q, u)]
    O = me.Point("O")
    O.set_vel(N, 0)
    C = O.locatenew("C", 0.05 * B.z)
    C.v2pt_theory(O, N, B)
    m, r = 0.5, 0.04
    inertia = me.inertia(B, m * r * r / 4, m * r * r / 4, m * r * r / 2)
    body = me.RigidBody("top", C, B, m, (inertia, C))
    kane = me.KanesMethod(N, q_ind=q, u_ind=u, kd_eqs=kd)
    kane.kanes_equations([body], [(C, -m * G * N.z)])
    # at q = 0 the spin rate is ω_z either way
    op = {q[0]: 0, q[1]: 0, q[2]: 0, u[0]: 0, u[1]: 0, u[2]: SPIN,
          q[0].diff(): 0, q[1].diff(): 0, q[2].diff(): SPIN, **{ui.diff(): 0 for ui in u}}
    A, _, _ = kane.linearize(A_and_B=True, op_point=op)
    A = np.array(sm.Matrix(A).evalf(), dtype=float)
    out.put((time.perf_counter() - t0, np.linalg.eigvals(A).tolist()))


def in_child(target, args, limit):
    out = mp.Queue()
    proc = mp.Process(target=target, args=(*args, out))
    proc.start()
    proc.join(limit)
    if proc.is_alive():
        proc.terminate()
        proc.join()
        return None, None
    if proc.exitcode != 0:
        return "failed", None
    return out.get()


def difference(a, b) -> float | None:
    if b is None:
        return None
    a = np.array(sorted(np.asarray(a), key=lambda z: (round(z.imag, 6), round(z.real, 6))))
    b = np.array(sorted(np.asarray(b, complex), key=lambda z: (round(z.imag, 6), round(z.real, 6))))
    keep = np.abs(b) > 1e-9  # sympy's A keeps the cyclic spin and its rate: two zero eigenvalues
    b = b[keep]
    if a.shape != b.shape:
        return None
    return float(np.max(np.abs(a - b)))


def accuracy_rows() -> list[list[str]]:
    """The Jacobian's error: against the exact derivative of eomlab's symbolic equations, and the
    bicycle's A against the paper's (Meijaard et al. 2007, Table 2)."""
    from eomlab.engine.linearize import linearize
    from eomlab.engine.linearize.chart import with_rate_speeds
    from eomlab.engine.presets import preset
    from eomlab.engine.symbolic import derive
    from eomlab.engine.symbolic.state_jacobian import state_jacobian

    rows = []
    for name, about in (("double_compound_pendulum", "equilibrium"), ("sleeping_top", "initial")):
        model = with_rate_speeds(preset(name))
        lin = linearize(model, about=about, method="kane")
        exact = state_jacobian(derive(model, "kane"), lin.q, lin.u)
        error = np.abs(lin.A_full - exact).max() / np.abs(exact).max()
        rows.append([f"{name} ({about}), kane, joint", "exact Jacobian of the symbolic equations", f"{error:.1e}"])
    M = np.array([[80.81722, 2.31941332208709], [2.31941332208709, 0.29784188199686]])
    C1 = np.array([[0.0, 33.86641391492494], [-0.85035641456978, 1.68540397397560]])
    K0 = np.array([[-80.95, -2.59951685249872], [-2.59951685249872, -0.80329488458618]])
    K2 = np.array([[0.0, 76.59734589573222], [0.0, 2.65431523794604]])
    for coordinates in ("joint", "absolute"):
        worst = 0.0
        for v in np.linspace(0.0, 10.0, 11):
            Mi = np.linalg.inv(M)
            paper = np.block([[np.zeros((2, 2)), np.eye(2)], [-Mi @ (G * K0 + v * v * K2), -Mi @ (v * C1)]])
            lin = linearize(preset("benchmark_bicycle", speed=v), method="kane", coordinates=coordinates)
            worst = max(worst, float(np.abs(lin.A - paper).max()))
        rows.append([f"benchmark bicycle, v = 0…10 m/s, kane, {coordinates}", "the paper's A (Table 2)",
                     f"{worst:.1e} (absolute)"])
    return rows


def write_section(marker: str, table: str) -> None:
    readme = HERE / "README.md"
    old = readme.read_text(encoding="utf-8")
    if marker in old:
        start = old.index(marker)
        end = old.find("\n## ", start + len(marker))
        old = old[:start] + (old[end:] if end >= 0 else "\n")
    readme.write_text(old.rstrip("\n") + "\n" + table, encoding="utf-8")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sympy-limit", type=float, default=120.0)
    parser.add_argument("--no-readme", action="store_true")
    parser.add_argument("--accuracy", action="store_true", help="only the Jacobian's error (its own section)")
    args = parser.parse_args()
    from eomlab.engine.presets import preset

    if args.accuracy:
        rows = accuracy_rows()
        table = (f"\n## Linearization accuracy (`bench_linearize.py --accuracy`, {time.strftime('%Y-%m-%d %H:%M')})\n\n"
                 "The largest difference of A's entries, relative to its largest entry where it says so.\n\n"
                 "| model | against | difference |\n| --- | --- | --- |\n"
                 + "\n".join("| " + " | ".join(r) + " |" for r in rows) + "\n")
        print(table)
        if not args.no_readme:
            write_section("\n## Linearization accuracy", table)
        return

    rows = []
    cases = [(f"chain of {n} point masses", chain(n), (sympy_chain, (n,))) for n in (2, 5, 10, 20, 50)]
    cases += [("sleeping top (150 rad/s); sympy in the angle rates", preset("sleeping_top"), (sympy_top, (False,))),
              ("sleeping top (150 rad/s); sympy in the body rates", preset("sleeping_top"), (sympy_top, (True,))),
              ("benchmark bicycle (5 m/s)", preset("benchmark_bicycle"), None)]
    load0 = os.getloadavg()
    for name, model, peer in cases:
        t_e, eig = eomlab_time(model)
        wall, cpu = command_time(model)
        t_s, eig_s = in_child(peer[0], peer[1], args.sympy_limit) if peer else (None, None)
        d = difference(eig, eig_s)
        rows.append([name, f"{t_e * 1e3:.1f} ms", f"{wall:.2f} s / {cpu:.2f} s",
                     "not built (no sympy model)" if peer is None else "failed" if t_s == "failed" else
                     (f"{t_s:.2f} s" if t_s is not None else f"> {args.sympy_limit:.0f} s (stopped)"),
                     "–" if d is None else f"{d:.1e}"])
        print(rows[-1], flush=True)
    load1 = os.getloadavg()
    text = ["| model | eomlab linearize (in process, kane) | `eomlab linearize` command (wall / CPU) | "
            "sympy KanesMethod + Linearizer | max eigenvalue difference |",
            "| --- | --- | --- | --- | --- |"] + ["| " + " | ".join(r) + " |" for r in rows]
    head = (f"\n## Linearization beside sympy's Linearizer (`bench_linearize.py`, {time.strftime('%Y-%m-%d %H:%M')})\n\n"
            f"load average at start {load0[0]:.2f} / {load0[1]:.2f}, at end {load1[0]:.2f} / {load1[1]:.2f} (2 cores)\n\n"
            "eomlab: `linearize(model)` after the imports, best of 3 (kane, joint coordinates: the chart, four "
            "Richardson levels of central differences of the formulation's right-hand side, the eigenvalues and "
            "modes). The command's wall time is mostly waiting for a core on this shared machine; its CPU time is "
            "mostly the imports (numpy, scipy.integrate through the formulations, pinocchio), as for `eomlab run`. "
            "sympy: KanesMethod, then `linearize(A_and_B=True, op_point=...)` and the eigenvalues of A. For the "
            "top with body rates as speeds sympy's A (taken where the spin angle is 0) has the nutation "
            "frequencies of the body-fixed axes, not the upright top's: those speeds turn with the spin angle, "
            "so the equations are not time-invariant along the steady motion (eomlab takes angle rates, where "
            "the spin angle is cyclic, and reads absolute coordinates through the joint ones for the same "
            "reason). The bicycle has no sympy model here.\n\n")
    table = head + "\n".join(text) + "\n"
    print(table)
    if not args.no_readme:
        write_section("\n## Linearization beside sympy's Linearizer", table)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
