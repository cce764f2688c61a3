"""Safe user expressions: whitelisted syntax in, sympy objects and numeric callables out.

User text is parsed with :mod:`ast` (``mode="eval"``) and the tree is walked against a
whitelist; the sympy expression is built node by node from that walk. The text itself is never
handed to ``eval``, ``exec``, ``sympify``, ``parse_expr`` or ``lambdify``.

Allowed: numbers (int, float), the names the caller allows plus ``t`` and ``pi``, unary ``+ -``,
binary ``+ - * / **`` and calls by plain name of the functions in :data:`FUNCTIONS`.

Example
-------
>>> e = parse_expression("2*sin(x) + x_dot**2", allowed={"x", "x_dot"})
>>> sorted(e.names)
['x', 'x_dot']
>>> f = compile_expressions([e.sympy], ["x", "x_dot"])
>>> float(f(0.0, 3.0)[0])
9.0
"""
from __future__ import annotations

import ast
import math
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import numpy as np
from eomlab.engine.lazy_imports import sympy as sp

from eomlab.engine.model import ModelError

MAX_TEXT_LENGTH = 2000
MAX_DEPTH = 50
MAX_NODES = 1000
MAX_EXPONENT = 100  # |constant exponent|
MAX_INTEGER = 10**15  # integer literals larger than this are rejected
MAX_CONSTANT_LOG10 = 300  # constant powers must stay within float range

TIME = "t"

#: function name -> (sympy constructor's name, number of arguments); names, so that importing
#: this module does not load sympy
FUNCTIONS: dict[str, tuple[str, int]] = {
    "sin": ("sin", 1), "cos": ("cos", 1), "tan": ("tan", 1), "exp": ("exp", 1),
    "log": ("log", 1), "sqrt": ("sqrt", 1), "abs": ("Abs", 1), "sign": ("sign", 1),
    "atan2": ("atan2", 2), "sinh": ("sinh", 1), "cosh": ("cosh", 1), "tanh": ("tanh", 1),
}
CONSTANTS = {"pi": "pi"}  # name -> sympy constant's name

_BINARY = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}
_CALLS_ALLOWED = "calls are allowed only to " + ", ".join(FUNCTIONS)

# Messages for syntax outside the whitelist, by node class.
_FORBIDDEN = {
    ast.Attribute: "attribute access is not allowed",
    ast.Subscript: "subscripts (indexing) are not allowed",
    ast.Slice: "subscripts (indexing) are not allowed",
    ast.List: "lists are not allowed",
    ast.Tuple: "tuples are not allowed",
    ast.Set: "sets are not allowed",
    ast.Dict: "dicts are not allowed",
    ast.Lambda: "lambda is not allowed",
    ast.IfExp: "conditional expressions (if/else) are not allowed",
    ast.Compare: "comparisons are not allowed",
    ast.BoolOp: "'and'/'or' are not allowed",
    ast.ListComp: "comprehensions are not allowed",
    ast.SetComp: "comprehensions are not allowed",
    ast.DictComp: "comprehensions are not allowed",
    ast.GeneratorExp: "comprehensions are not allowed",
    ast.NamedExpr: "assignment expressions (:=) are not allowed",
    ast.JoinedStr: "strings are not allowed",
    ast.FormattedValue: "strings are not allowed",
    ast.Starred: "starred arguments are not allowed",
    ast.Await: "await is not allowed",
    ast.Yield: "yield is not allowed",
    ast.YieldFrom: "yield is not allowed",
}


@dataclass(frozen=True)
class Expression:
    """A validated user expression.

    Attributes
    ----------
    text : str
        The text as the user wrote it.
    sympy : sympy.Expr
        The expression; each name is ``symbol(name)`` (real), ``pi`` is ``sympy.pi``.
    names : frozenset of str
        The free names used (``pi`` excluded, ``t`` included when used).
    """

    text: str
    sympy: sp.Expr
    names: frozenset[str]


def symbol(name: str) -> sp.Symbol:
    """The sympy symbol the parser makes for `name` (real-valued)."""
    return sp.Symbol(name, real=True)


def expression_names(coordinate_names: Iterable[str]) -> set[str]:
    """Names an expression may use: each coordinate, ``<c>_dot``, ``<c>_ddot`` and ``t``."""
    names = {TIME}
    for c in coordinate_names:
        names.update((c, f"{c}_dot", f"{c}_ddot"))
    return names


def excerpt(text: str, limit: int = 60) -> str:
    """`text` on one line, shortened, for error messages."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def parse_expression(text: str, allowed: Iterable[str], path: str = "") -> Expression:
    """Parse a user expression against the whitelist.

    Parameters
    ----------
    text : str
        The user's expression.
    allowed : iterable of str
        Names the expression may use besides ``t`` and ``pi``.
    path : str
        The model-file path reported in errors.

    Raises
    ------
    ModelError
        With `path` and a one-line message naming the problem.
    """
    if not isinstance(text, str):
        raise ModelError(path, f"expected an expression string, got {type(text).__name__}")
    if len(text) > MAX_TEXT_LENGTH:
        raise ModelError(path, f"expression is too long ({len(text)} characters, at most {MAX_TEXT_LENGTH})")
    if not text.strip():
        raise ModelError(path, "empty expression")
    if _bracket_depth(text) > MAX_DEPTH:
        # parentheses leave no node in the tree, so count them in the text
        raise ModelError(path, f"expression is nested too deeply (more than {MAX_DEPTH} levels)")
    tree = _parse_tree(text, path)
    walker = _Walker(text, frozenset(allowed) | {TIME}, path)
    value = walker.build(tree.body, depth=1)
    if value.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        raise ModelError(path, f"expression is undefined (division by zero?) in '{excerpt(text)}'")
    return Expression(text=text, sympy=value, names=frozenset(walker.used))


def _bracket_depth(text: str) -> int:
    """Deepest nesting of brackets of any kind in `text`."""
    depth = deepest = 0
    for char in text:
        if char in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in ")]}":
            depth -= 1
    return deepest


def _parse_tree(text: str, path: str) -> ast.Expression:
    """``ast.parse`` with its failures turned into ModelError."""
    try:
        return ast.parse(text, mode="eval")
    except SyntaxError as exc:
        reason = exc.msg or "invalid syntax"
        raise ModelError(path, f"syntax error in expression '{excerpt(text)}': {reason}") from None
    except (RecursionError, MemoryError):
        raise ModelError(path, "expression is nested too deeply") from None
    except ValueError as exc:  # e.g. null bytes
        raise ModelError(path, f"invalid expression text: {excerpt(str(exc))}") from None


class _Walker:
    """Builds a sympy expression from a whitelisted AST, recording the names used."""

    def __init__(self, text: str, allowed: frozenset[str], path: str):
        self.text = text
        self.allowed = allowed
        self.path = path
        self.used: set[str] = set()
        self.nodes = 0

    def fail(self, problem: str) -> ModelError:
        return ModelError(self.path, f"{problem} in expression '{excerpt(self.text)}'")

    def build(self, node: ast.AST, depth: int) -> sp.Expr:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise self.fail(f"expression is too large (more than {MAX_NODES} parts)")
        if depth > MAX_DEPTH:
            raise self.fail(f"expression is nested too deeply (more than {MAX_DEPTH} levels)")
        if isinstance(node, ast.Constant):
            return self.constant(node.value)
        if isinstance(node, ast.Name):
            return self.name(node.id)
        if isinstance(node, ast.UnaryOp):
            return self.unary(node, depth)
        if isinstance(node, ast.BinOp):
            return self.binary(node, depth)
        if isinstance(node, ast.Call):
            return self.call(node, depth)
        message = _FORBIDDEN.get(type(node), f"'{type(node).__name__}' is not allowed")
        raise self.fail(message)

    def constant(self, value: object) -> sp.Expr:
        # bool is a subclass of int: test it first
        if isinstance(value, bool) or value is None or value is Ellipsis:
            raise self.fail(f"{value!r} is not allowed (numbers only)")
        if isinstance(value, (str, bytes)):
            raise self.fail("strings are not allowed")
        if isinstance(value, complex):
            raise self.fail("complex numbers are not allowed")
        if isinstance(value, int):
            if abs(value) > MAX_INTEGER:
                raise self.fail(f"integer literal is too large (at most {MAX_INTEGER:.0e})")
            return sp.Integer(value)
        if isinstance(value, float):
            if not math.isfinite(value):
                raise self.fail("number is not finite")
            return sp.Float(value)
        raise self.fail(f"constant of type {type(value).__name__} is not allowed")

    def name(self, name: str) -> sp.Expr:
        if name in CONSTANTS:
            return getattr(sp, CONSTANTS[name])
        if name in FUNCTIONS:
            raise self.fail(f"function '{name}' must be called, e.g. {name}(x)")
        if name not in self.allowed:
            raise self.fail(f"unknown name '{name}'")
        self.used.add(name)
        return symbol(name)

    def unary(self, node: ast.UnaryOp, depth: int) -> sp.Expr:
        if isinstance(node.op, ast.UAdd):
            return self.build(node.operand, depth + 1)
        if isinstance(node.op, ast.USub):
            return -self.build(node.operand, depth + 1)
        symbol_text = {ast.Not: "not", ast.Invert: "~"}.get(type(node.op), type(node.op).__name__)
        raise self.fail(f"operator '{symbol_text}' is not allowed; use + - * / **")

    def binary(self, node: ast.BinOp, depth: int) -> sp.Expr:
        if type(node.op) not in _BINARY:
            raise self.fail(f"operator {type(node.op).__name__} is not allowed; use + - * / **")
        left = self.build(node.left, depth + 1)
        right = self.build(node.right, depth + 1)
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right
        if isinstance(node.op, ast.Div):
            if right == 0:
                raise self.fail("division by zero")
            return left / right
        self.check_power(left, right)
        return left**right

    def check_power(self, base: sp.Expr, exponent: sp.Expr) -> None:
        """Refuse powers that would take sympy long to build or leave float range."""
        if exponent.free_symbols:
            return
        size = _constant_magnitude(exponent)
        if size is None or size > MAX_EXPONENT:
            raise self.fail(f"constant exponent is too large (|exponent| at most {MAX_EXPONENT})")
        if base.free_symbols:
            return
        base_size = _constant_magnitude(base)
        if base_size is None:
            raise self.fail("constant power cannot be evaluated")
        if base_size > 1 and size * math.log10(base_size) > MAX_CONSTANT_LOG10:
            raise self.fail("constant power is too large")

    def call(self, node: ast.Call, depth: int) -> sp.Expr:
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            if isinstance(node.func, ast.Attribute):
                raise self.fail("attribute access is not allowed")
            raise self.fail(_CALLS_ALLOWED)
        name = node.func.id
        if node.keywords:
            raise self.fail("keyword arguments are not allowed")
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise self.fail("starred arguments are not allowed")
        constructor, arity = FUNCTIONS[name]
        if len(node.args) != arity:
            plural = "s" if arity != 1 else ""
            raise self.fail(f"{name} takes {arity} argument{plural}, got {len(node.args)}")
        args = [self.build(a, depth + 1) for a in node.args]
        return getattr(sp, constructor)(*args)


def _constant_magnitude(value: sp.Expr) -> float | None:
    """|value| of a constant sympy expression as a float, None when it is not a finite number."""
    try:
        number = complex(value.evalf(30))
    except (TypeError, ValueError, OverflowError):
        return None
    size = abs(number)
    return size if math.isfinite(size) else None


def compile_expressions(exprs: Sequence[sp.Expr], args: Sequence[str]) -> Callable[..., np.ndarray]:
    """Compile sympy expressions into one numeric function.

    Parameters
    ----------
    exprs : sequence of sympy.Expr (or numbers)
        Expressions whose free symbols are all named in `args` (matched by name).
    args : sequence of str
        The argument names, in call order.

    Returns
    -------
    callable
        ``f(*values) -> numpy.ndarray`` of shape ``(len(exprs),)`` for scalar values, or
        ``(len(exprs), *shape)`` when the values are arrays (constants are broadcast).

    Notes
    -----
    Only sympy objects reach ``lambdify``; the arguments are replaced by dummies first so
    that a coordinate called e.g. ``numpy`` cannot clash with the generated code.
    """
    objects = [_as_sympy(e) for e in exprs]
    args = list(args)
    dummies = [sp.Dummy(f"a{i}") for i in range(len(args))]
    by_name = dict(zip(args, dummies))
    replaced = [_replace_symbols(e, by_name) for e in objects]
    if not replaced:
        return lambda *values: np.zeros(0)
    raw = sp.lambdify(dummies, replaced, modules="numpy", cse=True)

    def evaluate(*values: object) -> np.ndarray:
        results = [np.asarray(r, dtype=float) for r in raw(*values)]
        if all(r.ndim == 0 for r in results):
            return np.array(results, dtype=float)
        return np.stack(np.broadcast_arrays(*results))

    return evaluate


def _as_sympy(value: object) -> sp.Expr:
    if isinstance(value, sp.Basic):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return sp.Float(value) if isinstance(value, float) else sp.Integer(value)
    raise TypeError(f"compile_expressions takes sympy expressions or numbers, got {type(value).__name__}")


def _replace_symbols(expr: sp.Expr, by_name: dict[str, sp.Dummy]) -> sp.Expr:
    mapping = {}
    for s in expr.free_symbols:
        if s.name not in by_name:
            raise ValueError(f"expression uses '{s.name}', which is not among the arguments")
        mapping[s] = by_name[s.name]
    return expr.xreplace(mapping)
