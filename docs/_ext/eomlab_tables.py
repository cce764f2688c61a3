"""Reference tables read from the program's own tables, so a new field, preset, formulation or shortcut cannot be
left out of the site: each directive warns (an error under `-W`) when the page and the program disagree.

- ``eomlab-fields SECTION``: the fields the model-file reader allows in SECTION (`engine.modelfile.schema`), one
  line of the directive's content per field (``name: what it means``); a field the reader allows and the page does
  not describe, or one the page describes and the reader refuses, is a warning. A field the reader requires is
  marked so.
- ``eomlab-gallery``: one section per built-in model (`engine.presets.PRESETS`), its picture made by the program
  and the paragraph given in the content (``name: paragraph``).
- ``eomlab-methods``: the formulations' table (`engine.methods.REGISTRY`): key, label, what each integrates and
  why its constraint drift looks as it does.
- ``eomlab-shortcuts``: the window's keyboard table (`gui.actions.shortcuts.BINDINGS`).
"""
from __future__ import annotations

from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive, directives
from sphinx.util import logging

from eomlab.engine.modelfile import schema

logger = logging.getLogger(__name__)

SECTIONS = {
    "file": schema._TOP_FIELDS, "body": schema._BODY_FIELDS, "joint": schema._JOINT_FIELDS,
    "shape": schema._SHAPE_FIELDS, "settings": schema._SETTINGS_FIELDS,
    "stabilization": schema._STABILIZATION_FIELDS,
    **{f"constraint:{kind}": ("type", "name", *fields) for kind, fields in schema._CONSTRAINT_FIELDS.items()},
    **{f"force:{kind}": ("type", "name", *fields) for kind, fields in schema._FORCE_FIELDS.items()},
}
# the joint types the model file accepts (`engine.joints.registry`), described like fields
SECTIONS["joint-types"] = tuple(__import__("eomlab.engine.joints.registry", fromlist=["REGISTRY"]).REGISTRY)
SECTION_REQUIRED = {"body": ("name", "parent", "joint"), "joint": ("type",), "shape": ("kind",)}


def _pairs(directive: Directive) -> dict[str, str]:
    """`name: text` lines of the content (a line starting with a space continues the one before)."""
    pairs: dict[str, str] = {}
    last = None
    for line in directive.content:
        if line.startswith((" ", "\t")) and last:
            pairs[last] += " " + line.strip()
        elif line.strip():
            name, _, text = line.partition(":")
            last = name.strip()
            pairs[last] = text.strip()
    return pairs


def _table(directive: Directive, header: tuple[str, ...], rows: list[tuple[str, ...]], literal_first=True):
    table = nodes.table()
    group = nodes.tgroup(cols=len(header))
    table += group
    for _ in header:
        group += nodes.colspec(colwidth=1)
    head = nodes.thead()
    group += head
    row = nodes.row()
    for text in header:
        row += nodes.entry("", nodes.paragraph(text=text))
    head += row
    body = nodes.tbody()
    group += body
    for values in rows:
        row = nodes.row()
        for i, text in enumerate(values):
            entry = nodes.entry()
            if i == 0 and literal_first:
                entry += nodes.paragraph("", "", nodes.literal(text=text))
            else:
                inline, _ = directive.state.inline_text(text, directive.lineno)
                entry += nodes.paragraph("", "", *inline)
            row += entry
        body += row
    return table


class FieldsDirective(Directive):
    required_arguments = 1
    has_content = True

    def run(self):
        section = self.arguments[0]
        if section not in SECTIONS:
            raise self.error(f"no section {section!r}; the schema has {', '.join(SECTIONS)}")
        allowed = SECTIONS[section]
        described = _pairs(self)
        location = (self.state.document.settings.env.docname, self.lineno)
        for name in allowed:
            if name not in described:
                logger.warning("model-file field %s.%s is not described", section, name, location=location)
        for name in described:
            if name not in allowed:
                logger.warning("%s.%s is described but the reader does not allow it", section, name,
                               location=location)
        kind = section.partition(":")[2]
        required = schema._REQUIRED.get(kind, SECTION_REQUIRED.get(section, ()))
        if kind:
            required = ("type", *required)
        if section == "joint-types":
            rows = [(name, described.get(name, "")) for name in allowed]
            return [_table(self, ("type", "coordinates, speeds and fields"), rows)]
        rows = [(name, "yes" if name in required else "", described.get(name, "")) for name in allowed]
        return [_table(self, ("field", "required", "meaning"), rows)]


class GalleryDirective(Directive):
    has_content = True
    option_spec = {"size": directives.unchanged, "run-for": directives.unchanged}

    def run(self):
        from eomlab.engine.presets import PRESETS
        from eomlab_pictures import PictureDirective

        env = self.state.document.settings.env
        paragraphs = _pairs(self)
        for name in PRESETS:
            if name not in paragraphs:
                logger.warning("preset %s has no gallery paragraph", name, location=(env.docname, self.lineno))
        for name in paragraphs:
            if name not in PRESETS:
                logger.warning("gallery paragraph for %s, which is no preset", name, location=(env.docname, self.lineno))
        size, run_for = self.options.get("size", "1100x700"), self.options.get("run-for", "3")
        out = []
        for name in PRESETS:
            model = f"assets/models/{name}.eom.json"
            section = nodes.section(ids=[nodes.make_id(f"preset-{name}")], names=[nodes.fully_normalize_name(name)])
            section += nodes.title(text=name)
            text, _ = self.state.inline_text(paragraphs.get(name, ""), self.lineno)
            section += nodes.paragraph("", "", *text)
            picture = PictureDirective(
                "eomlab-picture", [f"gallery_{name}.png"],
                {"command": f"gui {model} --run-for {run_for} --size {size} --screenshot {{out}}",
                 "alt": f"the window running {name}"},
                [], self.lineno, self.content_offset, "", self.state, self.state_machine)
            for node in picture.run():
                section += node
            env.note_dependency(str(Path(__file__).resolve().parents[2] / model))
            out.append(section)
        return out


class MethodsDirective(Directive):
    def run(self):
        from eomlab.engine.methods import REGISTRY

        rows = [(m.key, m.label, m.integrates, m.drift) for m in REGISTRY.values()]
        return [_table(self, ("--method", "name", "integrates", "its constraint drift"), rows)]


class ShortcutsDirective(Directive):
    def run(self):
        from eomlab.gui.actions.shortcuts import BINDINGS

        rows = [(" or ".join(b.keys), b.text, b.scope, b.menu or "") for b in BINDINGS]
        return [_table(self, ("keys", "what it does", "where it works", "menu"), rows)]


class EquationsDirective(Directive):
    """``eomlab-equations MODEL METHOD``: the model's equations from `eomlab.equations` (sympy), as MathML:
    M(q) q̈ = F and, where the model has constraints, their rows at the acceleration level A q̈ = b."""

    required_arguments = 2

    def run(self):
        import sympy

        import eomlab
        from eomlab.engine.symbolic.page import mathml

        root = Path(__file__).resolve().parents[2]
        equations = eomlab.equations(eomlab.load(root / self.arguments[0]), self.arguments[1])
        names = {}
        for name in equations.coordinates:
            base = sympy.latex(sympy.Symbol(name))
            names[sympy.Symbol(f"{name}_dot")] = rf"\dot{{{base}}}"
            names[sympy.Symbol(f"{name}_ddot")] = rf"\ddot{{{base}}}"

        def latex(expr):
            return sympy.latex(expr, symbol_names=names)

        accelerations = sympy.Matrix(equations.accelerations)
        formulas = [f"{latex(equations.mass_matrix)} {latex(accelerations)} = {latex(equations.forcing)}"]
        if equations.constraint_matrix is not None and equations.constraint_matrix.shape[0]:
            formulas.append(f"{latex(equations.constraint_matrix)} {latex(accelerations)} = "
                            f"{latex(equations.constraint_rhs)}")
        return [nodes.raw("", f'<div class="math-block">{mathml(f)}</div>', format="html") for f in formulas]


def setup(app):
    app.add_directive("eomlab-equations", EquationsDirective)
    app.add_directive("eomlab-fields", FieldsDirective)
    app.add_directive("eomlab-gallery", GalleryDirective)
    app.add_directive("eomlab-methods", MethodsDirective)
    app.add_directive("eomlab-shortcuts", ShortcutsDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
