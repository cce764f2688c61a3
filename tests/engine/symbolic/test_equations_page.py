"""The equations page of every preset in every formulation, as `eomlab equations --format latex|html`
prints it and as the panel lays it out: every formula parses with KaTeX (throwOnError, strict) and
uses no character the panel's math font lacks, the MathML is well-formed XML, the text outside the
mathematics (printed or on screen) holds no markup, and nothing points to a file the user lacks.
One derivation and one page_data (its LaTeX and HTML documents) per (preset, formulation), cached for
the whole module; a formula shared by several pages (the general forms) is checked once."""
from __future__ import annotations

import functools
import os
import json
import re
import shutil
import subprocess
import sys
from xml.etree import ElementTree

import pytest

from eomlab.engine.model import ModelError
from eomlab.engine.modelfile import load_model
from eomlab.engine.symbolic import SYMBOLIC_METHODS, derive, page_data
from eomlab.engine.symbolic.page import Definition, Formula, Heading, Prose, build_page, latex_document

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from project_paths import ROOT
PRESETS = sorted((ROOT / "assets" / "models").glob("*.eom.json"))
KATEX = ROOT / "tests" / "katex"
#: The two largest presets take about half of this module's derivations: `make test` shows them in the
#: formulations whose pages take a path of their own there (the "too long to print" notes, Udwadia–Kalaba's
#: "solved numerically", the partition's "too long to reduce" of Maggi and Gibbs–Appell) and every other
#: preset in every formulation (each formulation, joint type, constraint kind and coordinate choice);
#: `make test-all` shows every preset in every formulation (scope "every", marked slow).
LARGE = {"spatial_chain.eom.json": ("maggi", "udwadia_kalaba"),
         "rolling_disk_leaning.eom.json": ("maggi", "udwadia_kalaba", "gibbs_appell", "roberson_wittenburg")}
SCOPES = ["representative", pytest.param("every", marks=pytest.mark.slow)]


@functools.lru_cache(maxsize=None)
def page(preset: str, method: str):
    model = load_model(str(ROOT / "assets" / "models" / preset))
    try:
        return build_page(derive(model, method), model.name)
    except ModelError as error:  # the size guard or Euler parameters outside Kane: said plainly
        return str(error)


@functools.lru_cache(maxsize=None)
def data(preset: str, method: str) -> dict:
    """What the panel gets (engine.symbolic.page_data): the blocks and the page's `latex_document`
    and `html_document`, each written once for the three tests that read them."""
    return page_data(page(preset, method))


def all_pages(scope: str):
    for path in PRESETS:
        for method in SYMBOLIC_METHODS:
            if scope == "every" or method in LARGE.get(path.name, SYMBOLIC_METHODS):
                yield path.name, method, page(path.name, method)


def formulas_of(latex: str) -> list[str]:
    displays = re.findall(r"\\\[(.*?)\\\]", latex, re.S)
    inline = re.findall(r"(?<!\\)\$(.+?)(?<!\\)\$", latex)
    environments = re.findall(r"\\begin\{align\*\}(.*?)\\end\{align\*\}", latex, re.S)
    return displays + inline + environments


def katex_failures(formulas: list[str]) -> list:
    if shutil.which("node") is None:
        pytest.skip("node is not installed (CI installs it: .ci/run)")
    if not (KATEX / "node_modules" / "katex").is_dir():
        if shutil.which("npm") is None:
            pytest.skip("katex is not installed and npm is missing (npm install in tests/katex)")
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--silent"], cwd=KATEX, check=True,
                       capture_output=True, timeout=300)
    result = subprocess.run(["node", str(KATEX / "check.js")], input=json.dumps(formulas), capture_output=True,
                            text=True, timeout=300, check=True)
    return json.loads(result.stdout)


@pytest.mark.parametrize("scope", SCOPES)
def test_every_formula_of_every_preset_parses_with_katex(scope):
    formulas, where = [], []
    for preset, method, shown in all_pages(scope):
        if isinstance(shown, str):
            continue
        found = formulas_of(latex_document(shown))
        assert len(found) >= len(shown.formulas()), (preset, method)
        formulas += found
        where += [(preset, method)] * len(found)
    first = {}  # a formula on several pages (the general forms) is parsed once: where it first appears
    for i, formula in enumerate(formulas):
        first.setdefault(formula, i)
    unique = list(first)
    failures = katex_failures(unique)
    assert not failures, [(where[first[unique[i]]], message, unique[i][:200]) for i, message in failures[:5]]


@pytest.mark.parametrize("scope", SCOPES)
def test_prose_is_plain_and_self_contained(scope):
    for preset, method, shown in all_pages(scope):
        if isinstance(shown, str):
            assert "THEORY" not in shown and "seed" not in shown.lower()
            continue
        document = data(preset, method)["latex"] + data(preset, method)["html"]
        assert "THEORY" not in document and not re.search(r"\bseeds?\b", document, re.I), (preset, method)
        for block in shown.blocks:
            text = block.text if isinstance(block, (Heading, Prose, Definition)) else getattr(block, "caption", "")
            assert not re.search(r"[\\$^]|\*\*|Matrix\(|\ufffd", text), (preset, method, text)


@pytest.mark.parametrize("scope", SCOPES)
def test_html_is_mathml_with_plain_text_around_it(scope):
    for preset, method, shown in all_pages(scope):
        if isinstance(shown, str):
            continue
        document = data(preset, method)["html"]
        maths = re.findall(r"<math.*?</math>", document, re.S)
        assert len(maths) == len(shown.formulas()), (preset, method)
        for math in maths:
            ElementTree.fromstring(math)  # our own output: well-formed XML
        outside = re.sub(r"<math.*?</math>", "", document, flags=re.S)
        outside = re.sub(r"<style>.*?</style>", "", outside, flags=re.S)
        assert not re.search(r"\\|\*\*|Matrix\(|\ufffd", outside), (preset, method)


def test_each_formulation_names_its_equation_and_source():
    expected = {"lagrange": ("Lagrange", "1788"), "maggi": ("Maggi", "1896"),
                "udwadia_kalaba": ("Udwadia", "1992"), "kane": ("Kane", "1985")}
    for method, (name, year) in expected.items():
        shown = page("four_bar.eom.json", method)
        text = " ".join(b.text for b in shown.blocks if isinstance(b, (Heading, Prose)))
        assert name in shown.title and year in text
        assert any(isinstance(b, Definition) for b in shown.blocks)
    assert "Phohomsiri" in " ".join(b.text for b in page("four_bar.eom.json", "udwadia_kalaba").blocks
                                    if isinstance(b, Prose))


def test_corresponding_terms_of_two_formulations():
    from eomlab.engine.symbolic.page import corresponding

    rows = dict((role, (mine, theirs)) for role, mine, theirs in
                corresponding(page("four_bar.eom.json", "lagrange"), page("four_bar.eom.json", "maggi")))
    assert rows["mass"][0] and any(r"C^{\mathsf T} M" in f.latex for f in rows["mass"][1])
    kane_vs_maggi = dict((role, (m, t)) for role, m, t in
                         corresponding(page("four_bar.eom.json", "kane"), page("four_bar.eom.json", "maggi")))
    assert any("F_r + F_r^{*} = 0" in f.latex for f in kane_vs_maggi["reduced"][0])
    assert any(r"C^{\mathsf T}\big(M" in f.latex for f in kane_vs_maggi["reduced"][1])
    uk = dict((role, (m, t)) for role, m, t in
              corresponding(page("four_bar.eom.json", "lagrange"), page("four_bar.eom.json", "udwadia_kalaba")))
    assert any(r"A^{\mathsf T}\lambda" in f.latex for f in uk["constraint_force"][0])
    assert any("(b - A\\,a)" in f.latex for f in uk["constraint_force"][1])
    assert all(isinstance(f, Formula) for _, (m, t) in uk.items() for f in m + t)


@pytest.mark.parametrize("scope", SCOPES)
def test_the_panel_lays_out_every_page_without_markup_or_missing_glyphs(qtbot, scope):
    """What the panel shows of every page: its labels (prose, captions, notes) hold no backslash,
    `**`, `Matrix(` or replacement character; every formula has a slot and a glyph for each character."""
    import latex2mathml.converter
    from PySide6.QtWidgets import QLabel

    from eomlab.gui.equations.equations_page import PageView
    from eomlab.gui.equations.equations_render import missing_glyphs

    glyphs_checked = set()  # a formula on several pages (the general forms) is looked up once
    for preset, method, shown in all_pages(scope):
        view = PageView()
        qtbot.addWidget(view)
        if isinstance(shown, str):
            view.add_message(shown)
        else:
            view.add_page(data(preset, method), "page")
            assert len(view.slots["page"]) == len(shown.formulas())
            for latex in set(shown.formulas()) - glyphs_checked:
                glyphs_checked.add(latex)
                assert not missing_glyphs(latex2mathml.converter.convert(latex)), (preset, method, latex)
        texts = [label.text() for label in view.findChildren(QLabel)]
        assert texts and not [t for t in texts if re.search(r"\\|\*\*|Matrix\(|\ufffd", t)], (preset, method)


@pytest.mark.parametrize("left,right", [("kane", "maggi"), ("lagrange", "gibbs_appell")])
def test_side_by_side_never_calls_a_long_term_absent(qtbot, left, right):
    """Maggi's forcing on the four-bar (9 583 characters) is too long for its row: the row names
    it and says where it is written out, and says "no term of this kind" only of a page that has
    no formula of that role."""
    from PySide6.QtWidgets import QLabel

    from eomlab.engine.symbolic import page_data
    from eomlab.engine.symbolic.page import ROLE_CHARS
    from eomlab.gui.equations.equations_page import CompareView

    pages = {side: page("four_bar.eom.json", method) for side, method in (("left", left), ("right", right))}
    view = CompareView()
    qtbot.addWidget(view)
    view.show_rows(page_data(pages["left"]), page_data(pages["right"]))
    grid = view.grid
    for row in range(1, grid.rowCount()):
        tag = grid.itemAtPosition(row - 1, 0)
        if tag is None or not tag.widget().property("role"):
            continue
        role = tag.widget().property("role")
        for column, side in enumerate(("left", "right")):
            cell = grid.itemAtPosition(row, column).widget()
            texts = [label.text() for label in cell.findChildren(QLabel)]
            has = [b for b in pages[side].blocks if isinstance(b, Formula) and b.role == role]
            slots = [slot for s_side, _i, s_row, slot in view.slots if s_side == side and s_row == row]
            if "no term of this kind" in texts:
                assert not has, (side, role)
            if role == "general" and not has:  # Kane's, Gibbs–Appell's governing equation is their reduced one
                reduced = any(isinstance(b, Formula) and b.role == "reduced" for b in pages[side].blocks)
                assert reduced == any("governing equation is the one under" in t for t in texts), (side, texts)
            elif has and not slots:  # only long formulas: named, with where they are written out
                assert all(len(b.latex) > ROLE_CHARS for b in has), (side, role)
                assert any("too long" in t and "written out in full" in t for t in texts), (side, role, texts)
    if right == "maggi":  # the case the classroom saw: Maggi's forcing named, not denied
        notes = [label.text() for label in view.findChildren(QLabel) if "too long" in label.text()]
        assert any("forces in the allowed directions" in n.lower() for n in notes), notes


def test_each_page_begins_with_the_top_sent_before_the_derivation():
    """The panel's deriver sends `page_top` (the general form, the model's heading and its
    coordinates) before sympy loads, and the panel shows it until the derived page replaces it:
    every derived page (every preset the module derives, every formulation) begins with exactly
    those blocks, so what was shown stays, in place, with the formulas already typeset."""
    from eomlab.engine.symbolic import page_top

    checked = 0
    for name, method, whole in all_pages("representative"):
        if isinstance(whole, str):
            continue  # refused: the panel shows the refusal instead
        top = page_top(load_model(str(ROOT / "assets" / "models" / name)), method)
        assert top is not None and top.blocks, (name, method)
        assert whole.blocks[:len(top.blocks)] == top.blocks, (name, method)
        assert data(name, method)["formulas"][:len(top.formulas())] == page_data(top)["formulas"], (name, method)
        checked += 1
    assert checked >= 100


def test_the_top_of_a_page_loads_no_sympy():
    """page_top and page_data come before sympy in the deriver: importing the symbolic package
    and writing the top must not load it (sympy's own import costs 0.4–0.5 CPU s)."""
    code = ("import sys; from eomlab.engine import symbolic; from eomlab.engine.presets import preset; "
            "top = symbolic.page_data(symbolic.page_top(preset('four_bar'), 'kane'), html=False); "
            "print(len(top['formulas']), 'sympy.core' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert result.stdout.split() == ["8", "False"]
