"""Mathematics as MathML, through the program's own LaTeX -> MathML path (the equations page's HTML export,
`eomlab.engine.symbolic.page.mathml`): the built site needs no script and no network to show a formula.

A formula the converter cannot read is a build warning (so an error under `-W`), never raw LaTeX on a page.
"""
from __future__ import annotations

from docutils import nodes
from sphinx.util import logging

from eomlab.engine.symbolic.page import mathml

logger = logging.getLogger(__name__)


def _convert(node, latex: str, display: str) -> str:
    try:
        return mathml(latex, display)
    except Exception as err:  # noqa: BLE001 - any failure of the converter is the page's error
        logger.warning("formula not converted to MathML (%s): %s", err, latex, location=node)
        return f"<code>{latex}</code>"


def visit_math(self, node):
    self.body.append(_convert(node, node.astext(), "inline"))
    raise nodes.SkipNode


def visit_displaymath(self, node):
    latex = node.astext()
    number = ""
    if node.get("number"):
        number = f'<span class="eqno">({node["number"]})</span>'
    anchor = f'<span id="{node["ids"][0]}"></span>' if node.get("ids") else ""
    self.body.append(f'<div class="math-block">{anchor}{_convert(node, latex, "block")}{number}</div>')
    raise nodes.SkipNode


def setup(app):
    app.add_html_math_renderer("eomlab_mathml", (visit_math, None), (visit_displaymath, None))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
