"""engine.compiled.compiled_step: the compiled DOP853 step takes the same steps as scipy's Python step (the
runs agree to 1e-12 of each column's scale after 1 s at rtol = atol = 1e-10, with the same step and
right-hand-side counts), hands a step to scipy's step while a push acts (and takes over again after
it) and when its kernel meets a NaN (which the checked right-hand side then names, as without it), and without numba the run is
scipy's as before. Skipped without pinocchio; the compiled cases without numba."""
import os
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from eomlab.engine.compiled import compiled_step
from eomlab.engine.compiled.constrained_rhs import ConstrainedStep
from eomlab.engine.compiled.compiled_step import COMPILED_STEP_PATH, CompiledDOP853
from eomlab.engine.formulations import make_formulation
from eomlab.engine.model import JointEffort
from eomlab.engine.presets import preset
from eomlab.engine.simulation import Simulation
from eomlab.engine.mechanics.system import build_system
from eomlab.engine.compiled.tree_backend import FAST_PATH_VARIABLE

pytest.importorskip("pinocchio")

AGREE = 1e-12  # of max(1, the column's largest magnitude), after 1 s
TOL = 1e-10


@pytest.fixture
def kernels(monkeypatch):
    """The compiled kernels, the fast path on whatever the environment says (the numpy path has none)."""
    pytest.importorskip("numba")
    monkeypatch.setenv(FAST_PATH_VARIABLE, "1")
    # a cold cache compiles every kernel family (free, constrained, sweep, floating) under one lock shared
    # by the suite's processes: minutes on two loaded cores
    loaded = compiled_step.wait_until_compiled(timeout=280)  # (pytest-timeout: 300 s)
    assert loaded is not None, compiled_step._loading["error"]
    return loaded


def _chain():
    return preset("planar_chain", n=5, angles=[0.5] * 5).with_settings(t_end=1.0, dt_out=0.01)


def _pair(model, method="kane", **settings):
    """(with the compiled step, with scipy's step alone) on the same model and settings."""
    fast = Simulation(model, method=method, rtol=TOL, atol=TOL, **settings)
    plain = Simulation(model, method=method, rtol=TOL, atol=TOL, **settings)
    plain.formulation.compiled_step = None
    return fast, plain


def _agree(a, b):
    assert a.shape == b.shape
    scale = np.maximum(1.0, np.max(np.abs(b), axis=0))
    assert np.max(np.abs(a - b) / scale) < AGREE


def test_free_tree_formulations_offer_the_step(kernels, method):
    """Every formulation whose free-tree equations are the tree's (ABA) offers the compiled step."""
    system = build_system(_chain())
    formulation = make_formulation(method, system, _chain().settings)
    assert (formulation.compiled_step is not None) == formulation.tree_equations_when_free
    constrained = build_system(preset("four_bar"))  # loop closures: the constrained kernel's step (constrained_rhs)
    assert isinstance(make_formulation(method, constrained, preset("four_bar").settings).compiled_step, ConstrainedStep)


def test_a_run_with_the_compiled_step_takes_scipys_steps(kernels, method):
    fast, plain = _pair(_chain(), method)
    rows, reference = fast.run(), plain.run()
    assert fast.failure is None and plain.failure is None
    _agree(rows, reference)
    if fast.formulation.compiled_step is not None:
        assert isinstance(fast.stepper.solver, CompiledDOP853)
        assert fast.formulation.compiled_step.steps == fast.stats["steps"]  # every step compiled
        assert fast.stats["dynamics_path"] == f"pinocchio + {COMPILED_STEP_PATH}"
    for key in ("steps", "rhs_evals", "sample_evals"):
        assert fast.stats[key] == plain.stats[key], key
    assert plain.stats["dynamics_path"] == "pinocchio"


def test_a_push_takes_scipys_step_while_it_acts_and_the_compiled_one_after(kernels):
    fast, plain = _pair(_chain())
    for sim in (fast, plain):
        sim.advance(0.3)
        sim.push("link3", [1.0, 0.0, 0.0], [0.0, 20.0, 0.0], 0.2)
    step = fast.formulation.compiled_step
    before = step.steps
    during_push = fast.advance(0.5)
    assert step.steps == before  # no compiled step while the push acts (0.3 to 0.5 s) ...
    after_push = fast.advance(1.0)
    assert step.steps > before  # ... and compiled steps again once it ended
    _agree(np.vstack([during_push, after_push]), np.vstack([plain.advance(0.5), plain.advance(1.0)]))
    assert fast.stats["rhs_evals"] == plain.stats["rhs_evals"]


def test_a_model_with_a_force_element_keeps_scipys_step(kernels):
    model = _chain()
    model = replace(model, forces=model.forces + (JointEffort("drive", "link1", ("0.5*sin(t)",)),))
    fast, plain = _pair(model)
    _agree(fast.run(), plain.run())
    assert fast.formulation.compiled_step.steps == 0
    assert fast.stats["dynamics_path"] == "pinocchio"


def test_a_nan_from_the_kernel_is_taken_again_by_scipys_step(kernels):
    fast, plain = _pair(_chain())
    fast.formulation.compiled_step.tree.gravity[:] = np.nan  # the kernel alone meets a NaN at every step
    _agree(fast.run(), plain.run())
    assert fast.formulation.compiled_step.steps == 0
    assert fast.stats["steps"] == plain.stats["steps"]
    assert fast.stats["rhs_evals"] > plain.stats["rhs_evals"]  # the kernel's evaluations count too
    assert fast._nonfinite_at is None  # scipy's step found nothing wrong


def test_a_nan_of_the_equations_is_named_as_without_the_kernel(kernels):
    fast, plain = _pair(_chain())
    for sim in (fast, plain):  # both paths meet the NaN now
        sim.formulation.system.tree_backend.model.gravity.linear = np.array([0.0, np.nan, 0.0])
        if sim.formulation.compiled_step is not None:
            sim.formulation.compiled_step.tree.gravity[:] = np.nan
        sim.run()
    assert fast.failure is not None and fast.failure == plain.failure
    assert "NaN or infinite" in fast.failure


def test_without_numba_scipys_step_runs(monkeypatch):
    monkeypatch.setenv(FAST_PATH_VARIABLE, "1")
    monkeypatch.setitem(sys.modules, "numba", None)  # `import numba` raises ImportError
    monkeypatch.setattr(compiled_step, "_loading", {"pid": None, "kernels": None, "error": None})
    sim = Simulation(_chain(), rtol=TOL, atol=TOL)
    assert sim.formulation.compiled_step is None
    sim.advance(0.2)
    assert sim.failure is None and sim.stats["dynamics_path"] == "pinocchio"
    assert type(sim.stepper.solver).__name__ == "DOP853"


def test_the_environment_switch_turns_the_compiled_step_off(monkeypatch):
    monkeypatch.setenv(FAST_PATH_VARIABLE, "0")
    sim = Simulation(_chain())
    assert sim.formulation.compiled_step is None
    assert sim.stats["dynamics_path"].startswith("numpy")


def test_a_run_compiles_nothing_the_background_warm_up_did_not(kernels):
    """The warm-up passes the argument types a run passes: no kernel compiles on the stepping thread."""
    entry_points = (kernels.dop853_attempt, kernels.dop853_extra_stages, kernels.energies_and_centres)
    compiled = [len(f.signatures) for f in entry_points]
    assert all(compiled)
    fast, _ = _pair(_chain())
    fast.advance(0.3)  # samples every 10 ms: the dense output and the energies of each
    assert fast.formulation.compiled_step.steps > 0
    assert [len(f.signatures) for f in entry_points] == compiled


COLD_START = """
import time
from eomlab.engine.compiled import compiled_step
from eomlab.engine.presets import preset
from eomlab.engine.simulation import Simulation
sim = Simulation(preset("planar_chain", n=3).with_settings(t_end=10.0))
start = time.perf_counter()
sim.advance(0.05)
first = time.perf_counter() - start
assert compiled_step.wait_until_compiled(timeout=600) is not None, compiled_step._loading["error"]
sim.advance(1.0)
print(first, sim.stats["dynamics_path"])
"""


@pytest.mark.slow
def test_a_cold_numba_cache_compiles_in_the_background_and_fills_the_cache(tmp_path):
    """As the first run after an install: the run steps before the kernels are compiled (about 10 s
    of one core), then takes the compiled step, and numba's cache holds the kernels afterwards."""
    pytest.importorskip("numba")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), **{FAST_PATH_VARIABLE: "1"})
    out = subprocess.run([sys.executable, "-c", COLD_START], env=env, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    first, path = out.stdout.split(maxsplit=1)
    assert float(first) < 2.0  # 0.05 s simulated did not wait for the compiler
    assert path.strip() == f"pinocchio + {COMPILED_STEP_PATH}"
    assert any(p.suffix == ".nbc" for p in tmp_path.rglob("*"))


def test_with_numbas_jit_switched_off_the_kernels_are_not_taken(monkeypatch):
    """NUMBA_DISABLE_JIT would run the kernels as Python loops: scipy's step stays."""
    numba = pytest.importorskip("numba")
    # a compile of this process still under way (a cold cache) would meet the switch half-way and leave the
    # kernels after it unloaded for the tests that follow: let it end first
    compiled_step.wait_until_compiled(timeout=900, sweep=True)
    monkeypatch.setattr(numba.config, "DISABLE_JIT", True)
    monkeypatch.setattr(compiled_step, "_loading", {"pid": None, "kernels": None, "error": None})
    assert compiled_step.wait_until_compiled(timeout=60) is None
    assert "NUMBA_DISABLE_JIT" in compiled_step._loading["error"]


def test_a_ctrl_c_inside_a_compiled_call_is_raised_as_keyboard_interrupt():
    """numba runs some Python of its own in a compiled call; a SIGINT there came out as a SystemError
    caused by the KeyboardInterrupt, and `eomlab run` printed a traceback instead of stopping (exit 130)."""

    def interrupted_inside():
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as interrupt:
            raise SystemError("CPUDispatcher(...) returned a result with an exception set") from interrupt

    def broken():
        raise SystemError("another fault")

    with pytest.raises(KeyboardInterrupt):
        compiled_step.call_kernel(interrupted_inside)
    with pytest.raises(SystemError, match="another fault"):
        compiled_step.call_kernel(broken)
    assert compiled_step.call_kernel(lambda a, b: a + b, 2, 3) == 5


def test_a_step_shares_its_time_with_the_loading_thread_only_while_it_loads(monkeypatch):
    """Beside a 200-link chain's stepping thread (which holds the GIL through pinocchio's calls) the
    kernels took 8-15 s to load instead of 0.5; each step now waits for the loader as long as it took
    itself, and not at all while the loader waits for another process's lock or is done."""
    import threading
    import time

    release = threading.Event()
    loader = threading.Thread(target=release.wait, daemon=True)
    loader.start()
    monkeypatch.setitem(compiled_step._loading, "thread", loader)
    monkeypatch.setitem(compiled_step._loading, "busy", True)
    begin = time.perf_counter()
    compiled_step.share_with_loading(0.05)
    assert 0.045 <= time.perf_counter() - begin < 1.0  # waited its share, no longer
    monkeypatch.setitem(compiled_step._loading, "busy", False)  # waiting for another process's lock
    begin = time.perf_counter()
    compiled_step.share_with_loading(0.5)
    assert time.perf_counter() - begin < 0.05
    release.set()
    loader.join()
    monkeypatch.setitem(compiled_step._loading, "busy", True)
    begin = time.perf_counter()
    compiled_step.share_with_loading(0.5)  # the loader is gone
    assert time.perf_counter() - begin < 0.05
