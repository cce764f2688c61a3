"""The model's names as LaTeX (θ_crank, θ̇_crank), without sympy: the top of an equations page
(`page_blocks.page_top`) is written before sympy has loaded."""
from __future__ import annotations

GREEK = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda",
         "mu", "nu", "xi", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega")


def text_latex(text: str) -> str:
    """Plain text for \\mathrm{…}: LaTeX's special characters escaped."""
    for char, escaped in (("\\", ""), ("_", r"\_"), ("&", r"\&"), ("%", r"\%"), ("#", r"\#"),
                          ("{", ""), ("}", ""), ("^", ""), ("$", "")):
        text = text.replace(char, escaped)
    return text


def _head_and_tags(name: str) -> tuple[str, list[str]]:
    """'upper_theta' -> (r'\\theta', ['upper']); 'top_wx' -> (r'\\omega', ['x', 'top'])."""
    parts = name.split("_")
    for i, part in enumerate(parts):
        if part in GREEK:
            return "\\" + part, parts[:i] + parts[i + 1:]
    if len(parts) >= 2 and parts[-1] in ("wx", "wy", "wz"):
        return r"\omega", [parts[-1][1], "_".join(parts[:-1])]
    if len(parts[-1]) == 1:
        return parts[-1], parts[:-1]
    return rf"\mathrm{{{text_latex(parts[-1])}}}", parts[:-1]


def subscript(tags: list[str]) -> str:
    if not tags:
        return ""
    return "_{" + ",".join(rf"\mathrm{{{text_latex(t)}}}" for t in tags) + "}"


def symbol_latex(base: str, order: int = 0) -> str:
    """A coordinate or speed name as LaTeX, dotted `order` times: θ̇_crank = \\dot{\\theta}_{\\mathrm{crank}}."""
    head, tags = _head_and_tags(base)
    accent = ("", r"\dot", r"\ddot")[order]
    return (rf"{accent}{{{head}}}" if accent else head) + subscript(tags)


def row_latex(entries: list[str]) -> str:
    """A row of entries as sympy's printer writes a 1 × n matrix with the page's settings
    (`latex.expression_latex`: mat_delim "[", mat_str "matrix")."""
    return r"\left[\begin{matrix}" + " & ".join(entries) + r"\end{matrix}\right]"


def coordinates_latex(coordinates) -> str:
    """The page's first formula of the model: its coordinates as a row."""
    return f"q = {row_latex([symbol_latex(c) for c in coordinates])}"
