"""`eomlab linearize MODEL`: the linearized equations about an equilibrium or a steady motion.

Eigenvalues, frequencies, damping ratios and mode shapes, the state matrix A and, where the
speeds are coordinate rates, M, C and K of M δq̈ + C δq̇ + K δq = 0 (engine.linearize).
`--vary NAME=A:B:N` follows the eigenvalues over a parameter and names where a real part
crosses zero (the benchmark bicycle's weave and capsize speeds).
"""
from __future__ import annotations

import csv
import io
import json
import sys

from eomlab.engine.methods import METHODS
from eomlab.engine.model import ModelError

from eomlab.commands.arguments import load, with_source

FORMATS = ("text", "json", "csv")


def add_parser(sub) -> None:
    p = sub.add_parser("linearize", help="linearize about an equilibrium or a steady motion: eigenvalues and modes")
    p.add_argument("model", help="a model file (*.eom.json)")
    p.add_argument("--about", choices=("initial", "equilibrium"), default="initial",
                   help="the initial state (an equilibrium or a steady motion), or an equilibrium found near "
                        "the initial pose")
    p.add_argument("--method", choices=METHODS, help="formulation (default: the model's settings.method)")
    p.add_argument("--coordinates", choices=("joint", "absolute"), help="default: the model's settings")
    p.add_argument("--vary", metavar="NAME=A:B:N",
                   help="follow the eigenvalues over a parameter (a sweep name, or speed: the forward speed)")
    p.add_argument("--format", choices=FORMATS, default="text")
    p.add_argument("--plot", metavar="PICTURE.png", help="the eigenvalues (against the parameter with --vary)")


def main(args) -> int:
    from eomlab.engine.linearize import linearize

    model = load(args.model)
    options = {"about": args.about, "method": args.method, "coordinates": args.coordinates}
    try:
        if args.plot:
            from eomlab.linearize_plot import check_picture

            check_picture(args.plot)
        if args.vary:
            from eomlab.engine.linearize.vary import parse_range, vary

            name, values = parse_range(args.vary)
            result = vary(model, name, values, **options)
            text = _variation(result, args.format)
        else:
            result = linearize(model, **options)
            text = _linearization(result, args.format)
        if args.plot:
            from eomlab.linearize_plot import plot

            plot(result, args.plot)
    except ModelError as err:
        raise with_source(err, args.model) from None
    except (ArithmeticError, ValueError) as err:  # a singular M, a gimbal lock, rows that cannot be solved
        raise ModelError("linearize", str(err).splitlines()[0] if str(err) else type(err).__name__,
                         args.model) from None
    sys.stdout.write(text)
    return 0


def _complex(z: complex) -> str:
    return f"{z.real:+.10g} {'+' if z.imag >= 0 else '-'} {abs(z.imag):.10g}i"


def _matrix(name, names, m) -> list[str]:
    lines = [f"{name} ({', '.join(names)}):"]
    lines += ["  " + "  ".join(f"{v:+.10g}" for v in row) for row in m]
    return lines


def _json_by_key(document: dict) -> str:
    """One line per key, each value compact: json's C encoder (an `indent` falls back to its Python
    encoder, which took longer than the 50-link chain's whole linearization)."""
    return "{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in document.items()) + "\n}\n"


def _linearization(lin, fmt: str) -> str:
    if fmt == "json":
        return _json_by_key(lin.to_dict())
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["re", "im", "frequency_hz", "damped_frequency_hz", "damping_ratio", "stable"])
        for m in lin.modes:
            writer.writerow([repr(float(m.eigenvalue.real)), repr(float(m.eigenvalue.imag)), repr(float(m.frequency_hz)),
                             repr(float(m.damped_frequency_hz)), repr(float(m.damping_ratio)), m.stable])
        return out.getvalue()
    lines = [f"linearized about the {'initial state' if lin.about == 'initial' else 'equilibrium'} "
             f"({lin.method}, {lin.coordinates} coordinates): {'stable' if lin.stable else 'unstable'}"]
    if lin.cyclic:
        lines.append(f"cyclic coordinates (nothing depends on them): {', '.join(lin.cyclic)}")
    if lin.conserved:
        lines.append(f"speeds constant to first order: {', '.join(lin.conserved)}")
    lines.append(f"state: {', '.join(lin.names)}")
    lines.append(f"{'eigenvalue':>34}  {'f [Hz]':>12}  {'zeta':>10}  stable")
    for m in lin.modes:
        zeta = "-" if m.damping_ratio != m.damping_ratio else f"{m.damping_ratio:.4g}"
        lines.append(f"{_complex(m.eigenvalue):>34}  {m.frequency_hz:12.6g}  {zeta:>10}  {'yes' if m.stable else 'no'}")
    if lin.M is not None:
        for name, mat in (("M", lin.M), ("C", lin.C), ("K", lin.K)):
            lines += _matrix(name, lin.second_order, mat)
    else:
        lines += _matrix("A", lin.names, lin.A)
    return "\n".join(lines) + "\n"


def _variation(var, fmt: str) -> str:
    if fmt == "json":
        return json.dumps({
            "name": var.name, "values": [float(v) for v in var.values],
            "eigenvalues": [[{"re": float(z.real), "im": float(z.imag)} for z in e] for e in var.eigenvalues],
            "crossings": [{"value": c.value, "becomes": c.becomes, "kind": c.kind} for c in var.crossings],
        }, indent=1) + "\n"
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow([var.name, "k", "re", "im"])
        for v, e in zip(var.values, var.eigenvalues):
            for k, z in enumerate(e):
                writer.writerow([repr(float(v)), k, repr(z.real), repr(z.imag)])
        return out.getvalue()
    lines = []
    for v, e in zip(var.values, var.eigenvalues):
        top = max((z.real for z in e), default=float("nan"))
        lines.append(f"{var.name} = {v:.6g}: largest real part {top:+.6g}; " + ", ".join(_complex(z) for z in e))
    for c in var.crossings:
        lines.append(f"a real part crosses zero at {var.name} = {c.value:.10g} ({c.kind}): "
                     f"{'stable' if c.becomes == 'stable' else 'unstable'} above")
    if not var.crossings:
        lines.append("no real part crosses zero in the range")
    return "\n".join(lines) + "\n"
