"""The formulations of the equations of motion: one table, read by everything that lists them.

The command line's choices, the model-file check, the window's method list, compare mode, the
equations panel and the benchmarks all read `REGISTRY`. A new formulation is one line here plus its
own numeric module (a `Formulation` subclass) and its own symbolic module (a function of a
`SymbolicTree` returning `Equations`).

The numeric class and the symbolic derivation are named by "module:attribute" and imported on
first use: this module imports nothing, so `engine.model` can read the keys without a cycle and
the run path never imports sympy.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field

#: Baumgarte gains set when a user switches stabilization on without choosing them (critically
#: damped: α = β; the window and compare mode both start from these)
BAUMGARTE_DEFAULT = {"alpha": 5.0, "beta": 5.0}


@dataclass(frozen=True)
class Method:
    """One formulation."""

    key: str  # model files, the command line and settings.method spell it so
    label: str  # what the window and the compare legend show
    numeric: str  # "module:Class" of its engine.formulations.formulation.Formulation
    symbolic: str  # "module:function" deriving its engine.symbolic.derived_equations.Equations (sympy)
    integrates: str  # what it integrates, in a few words
    #: why its constraint drift looks as it does (the window's compare table says it in words)
    drift: str = ""
    #: the constraint levels whose rows hold by construction (eliminated at the velocity level):
    #: "holonomic" (their time derivatives), "velocity" (first-order rows)
    eliminates: tuple[str, ...] = ()
    #: numeric variants chosen by settings.maggi_basis-like options: option value → "module:Class"
    variants: dict[str, str] = field(default_factory=dict)
    #: its symbolic equations are written in the model's speeds (so Euler-parameter joints work),
    #: not in the rates q̇
    symbolic_in_speeds: bool = False

    def formulation_class(self, variant: str | None = None):
        return _resolve(self.variants.get(variant, self.numeric) if variant else self.numeric)

    def derivation(self):
        return _resolve(self.symbolic)


_F = "eomlab.engine.formulations."
_S = "eomlab.engine.symbolic."

REGISTRY: dict[str, Method] = {m.key: m for m in (
    Method("lagrange", "Lagrange multipliers", _F + "lagrange:Lagrange", _S + "lagrange_equations:lagrange_equations",
           "q and the rates q̇; the multipliers λ from the saddle-point system",
           drift="the constraints hold only at the acceleration level, so position and velocity drift grow unless "
                 "stabilised"),
    Method("maggi", "Maggi", _F + "maggi:Maggi", _S + "maggi_equations:maggi_equations",
           "q and independent quasi-velocities; λ from the second group",
           drift="first-order rows hold by construction (independent quasi-velocities); holonomic rows hold at the "
                 "acceleration level, so they drift at the position and the velocity level as in Lagrange's",
           variants={"partitioning": _F + "maggi:MaggiPartitioned"}, eliminates=("velocity",)),
    Method("udwadia_kalaba", "Udwadia–Kalaba", _F + "udwadia_kalaba:UdwadiaKalaba",
           _S + "udwadia_kalaba_equations:udwadia_kalaba_equations",
           "q and u; the constraint force from a Moore–Penrose inverse",
           drift="like Lagrange it drifts at the position and the velocity level (acceleration rows only)"),
    Method("kane", "Kane", _F + "kane:Kane", _S + "kane_equations:kane_equations",
           "q and the independent speeds; F_r + F_r* = 0", symbolic_in_speeds=True,
           eliminates=("holonomic", "velocity"),
           drift="velocity-level rows hold by construction: only the position level drifts"),
    Method("gibbs_appell", "Gibbs–Appell", _F + "gibbs_appell:GibbsAppell", _S + "gibbs_appell_equations:gibbs_appell_equations",
           "q and the independent speeds; ∂S/∂u̇ = F from the Gibbs function S", symbolic_in_speeds=True,
           eliminates=("holonomic", "velocity"),
           drift="as in Kane's equations the velocity-level rows hold by construction: only the position level "
                 "drifts"),
)}

#: every formulation's key, in the order lists show them
METHODS: tuple[str, ...] = tuple(REGISTRY)
#: the equations panel's and `eomlab equations`' views that are no formulation of their own: the tree view
#: (its equations are Lagrange's) and the linearized equations about the model's equilibrium
SYMBOLIC_VIEWS: dict[str, str] = {"roberson_wittenburg": "Roberson–Wittenburg", "linearized": "Linearized (M, C, K)"}
#: what the equations panel and `eomlab equations --method` offer
SYMBOLIC_METHODS: tuple[str, ...] = (*METHODS, *SYMBOLIC_VIEWS)


def method(key: str) -> Method:
    """The registry entry of `key` (KeyError naming the known keys)."""
    try:
        return REGISTRY[key]
    except KeyError:
        raise KeyError(f"unknown method {key!r}; expected one of {', '.join(METHODS)}") from None


def label(key: str) -> str:
    """The human label of `key` (the key itself for anything unknown, e.g. a symbolic-only view)."""
    entry = REGISTRY.get(key)
    return entry.label if entry else SYMBOLIC_VIEWS.get(key, key)


def _resolve(path: str):
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)
