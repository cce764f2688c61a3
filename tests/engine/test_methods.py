"""The method registry (engine.methods): every formulation named once, and everything that lists
formulations reads it."""
from __future__ import annotations

import importlib
import inspect
import subprocess
import sys

import pytest

from eomlab.engine import methods
from eomlab.engine.formulations import FORMULATIONS, make_formulation
from eomlab.engine.formulations.formulation import Formulation
from eomlab.engine.methods import METHODS, REGISTRY
from eomlab.engine.presets import preset
from eomlab.engine.mechanics.system import build_system

from project_paths import ROOT


def test_the_keys_are_the_registry_in_order_and_the_labels_distinct():
    assert METHODS == tuple(REGISTRY)
    labels = [entry.label for entry in REGISTRY.values()]
    assert all(labels) and len(set(labels)) == len(labels)
    assert all(entry.integrates for entry in REGISTRY.values())
    # the symbolic-only views (no formulation of their own) have labels of their own, distinct from the formulations'
    assert [methods.label(key) for key in methods.SYMBOLIC_VIEWS] == list(methods.SYMBOLIC_VIEWS.values())
    assert not set(methods.SYMBOLIC_VIEWS.values()) & set(labels) and not set(methods.SYMBOLIC_VIEWS) & set(METHODS)
    assert methods.SYMBOLIC_METHODS == (*METHODS, *methods.SYMBOLIC_VIEWS)
    assert methods.label("no_such_method") == "no_such_method"


@pytest.mark.parametrize("key", METHODS)
def test_each_entry_names_a_concrete_formulation_whose_docstring_names_its_equation(key):
    cls = REGISTRY[key].formulation_class()
    assert issubclass(cls, Formulation) and not inspect.isabstract(cls)
    assert cls.name == key and FORMULATIONS[key] is cls
    doc = inspect.getmodule(cls).__doc__
    assert doc and "=" in doc  # an equation, written out
    for variant, path in REGISTRY[key].variants.items():
        assert issubclass(REGISTRY[key].formulation_class(variant), cls), path


@pytest.mark.parametrize("key", METHODS)
def test_each_entry_names_a_symbolic_derivation(key):
    derivation = REGISTRY[key].derivation()
    assert callable(derivation)
    assert inspect.getmodule(derivation).__name__.startswith("eomlab.engine.symbolic.")


def test_a_formulation_must_provide_its_abstract_methods():
    with pytest.raises(TypeError):
        Formulation(build_system(preset("simple_pendulum")), preset("simple_pendulum").settings)
    assert Formulation.__abstractmethods__ == {"accelerations", "integrates", "impulse_response"}


def test_an_unknown_method_names_the_known_ones():
    with pytest.raises(KeyError, match="kane"):
        make_formulation("hamilton", None, None)


def test_the_registry_imports_no_formulation_and_no_sympy():
    """Reading the keys (engine.model does, at import) must not pull in the formulations or sympy."""
    probe = ("import sys, eomlab.engine.model, eomlab.engine.methods; "
             "print(sorted(m for m in sys.modules if m.startswith('sympy') or 'formulations' in m))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_no_list_of_formulations_outside_the_registry():
    """The keys appear together nowhere else: a new formulation is one registry line."""
    keys = [f'"{k}"' for k in METHODS[:4]]
    for path in [*ROOT.glob("engine/**/*.py"), *ROOT.glob("gui/*.py"), *ROOT.glob("eomlab/**/*.py"),
                 *ROOT.glob("bench/*.py")]:
        if path.name == "methods.py":
            continue
        text = path.read_text(encoding="utf-8")
        assert not all(k in text for k in keys), f"{path.relative_to(ROOT)} lists the formulations itself"


def test_every_importer_reads_the_registry():
    for module in ("eomlab.commands.run_model", "eomlab.engine.modelfile.settings"):
        assert importlib.import_module(module).METHODS is METHODS
    for module in ("eomlab.commands.show_equations", "eomlab.engine.symbolic.derive", "eomlab.gui.equations.equations_panel"):
        assert importlib.import_module(module).SYMBOLIC_METHODS is methods.SYMBOLIC_METHODS
