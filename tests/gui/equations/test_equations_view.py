"""The equations panel: numbers first, then the typeset page; every preset and formulation shows
no markup and no missing glyph; the side-by-side view marks corresponding terms; the cache, the
cancellation on change, the size guard, Copy as LaTeX and the export."""
from __future__ import annotations

import re
from xml.etree import ElementTree

import pytest
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QLabel, QPushButton

from eomlab.engine.presets import planar_chain, preset
from eomlab.gui.equations import equations_page, equations_render

MARKUP = re.compile(r"\\|\*\*|Matrix\(|\ufffd")


def settled(qtbot, view, timeout=120000):
    qtbot.waitUntil(lambda: not view.pending, timeout=timeout)
    return view


def shown_text(widget) -> list[str]:
    return [label.text() for label in widget.findChildren(QLabel) if label.isVisibleTo(widget)] + \
        [button.text() for button in widget.findChildren(QPushButton)]


def test_numbers_first_then_the_typeset_page(qtbot, make_window):
    window = make_window(preset("simple_pendulum").with_settings(method="lagrange"))
    view = window.equations_view
    assert not view.dock.isVisible() and not view.pending  # nothing derived while hidden
    view.show()
    assert view.pending and view.panel.busy.isVisible()
    qtbot.waitUntil(lambda: view.numbers is not None or view.shown is not None, timeout=60000)
    settled(qtbot, view)
    slots = view.panel.page.slots["page"]
    assert slots and all(slot.formula is not None for slot in slots)
    assert all(slot.formula.renderer.isValid() for slot in slots)
    texts = shown_text(view.panel.page)
    assert any(t.startswith("Lagrange") for t in texts) and any("1788" in t for t in texts)
    assert not [t for t in texts if MARKUP.search(t)]
    view.panel.copy_button.click()
    copied = QGuiApplication.clipboard().text()
    assert copied.startswith("% ") and "\\begin{document}" in copied and "\\[" in copied


def test_the_top_of_the_page_first_then_the_whole_page_that_begins_with_it(qtbot, make_window):
    """The deriver sends the top of the page (general form, the model's coordinates) before sympy
    loads; the panel shows it above the numbers while the rest is derived. The page that replaces
    it begins with the same blocks and shows the same typeset formulas there."""
    window = make_window(preset("simple_pendulum").with_settings(method="maggi"))
    view = window.equations_view
    view.show()
    qtbot.waitUntil(lambda: "top" in view.panel.scratch.slots or view.shown is not None, timeout=60000)
    if view.shown is None:  # the page has not come yet (it comes seconds later): the top is shown alone
        shown_top = shown_text(view.panel.scratch)
        assert any(t.startswith("Maggi") for t in shown_top) and any("Coordinates" in t for t in shown_top)
    top = view.top[1]
    settled(qtbot, view)
    page = view.current_page()
    n = len(top["formulas"])
    assert n >= 5 and page["blocks"][:len(top["blocks"])] == top["blocks"] and page["formulas"][:n] == top["formulas"]
    slots = view.panel.page.slots["page"]
    assert all(slots[i].formula is not None and slots[i].formula.svg == view.svg_cache[top["formulas"][i]]
               for i in range(n))
    assert not [t for t in shown_text(view.panel.page) if MARKUP.search(t)]


def test_side_by_side_marks_corresponding_terms(qtbot, make_window):
    window = make_window(preset("four_bar").with_settings(method="lagrange"))
    view = window.equations_view
    view.show()
    view.panel.tabs.setCurrentIndex(1)
    view.panel.right_box.setCurrentText("maggi")
    settled(qtbot, view, timeout=180000)
    qtbot.waitUntil(lambda: bool(view.panel.compare.slots), timeout=60000)
    roles = {tag.property("role") for tag in view.panel.compare.findChildren(QLabel) if tag.property("role")}
    assert {"mass", "constraints"} <= roles
    sides = {(side, row) for side, _index, row, _slot in view.panel.compare.slots}
    mass_rows = {row for side, row in sides}
    assert any(("left", row) in sides and ("right", row) in sides for row in mass_rows)  # aligned in one row
    assert not [t for t in shown_text(view.panel.compare) if MARKUP.search(t)]


def test_cache_and_cancel_on_change(qtbot, make_window):
    window = make_window(preset("cartesian_pendulum").with_settings(method="kane"))
    view = window.equations_view
    view.show()
    first = dict(view.pending)
    assert first
    window.settings_bar.set_setting("method", "lagrange")  # before the worker answered: cancelled
    assert list(first.values())[0] in view.cancelled
    settled(qtbot, view)
    key = (window.model, "lagrange")
    assert view.cache[key].done
    window.settings_bar.set_setting("method", "kane")
    settled(qtbot, view)
    window.settings_bar.set_setting("method", "lagrange")  # shown again: from the cache, no request
    assert not view.pending and view.shown[0] == key


def test_size_guard_message_is_shown(qtbot, make_window):
    window = make_window(planar_chain(30))
    view = window.equations_view
    view.show()
    settled(qtbot, view)
    texts = " ".join(shown_text(view.panel.page))
    assert "too large" in texts and "30" in texts
    assert not view.panel.copy_button.isEnabled()


def test_a_page_replaced_shows_only_the_new_blocks_at_once(qtbot):
    """The moment the panel replaces a page (numbers -> refusal) it shows the new blocks only, with
    no event processed in between: Qt shows a widget added to a visible parent by a queued call and
    deletes a removed one later, which let the size-guard test see the numbers page."""
    view = equations_page.PageView()
    qtbot.addWidget(view)
    view.show()
    numbers = {"blocks": [("heading", "The numbers", 1), ("prose", "being derived")], "formulas": []}
    view.add_page(numbers, "numbers")
    qtbot.wait(10)
    view.clear()
    view.add_message("model too large")
    assert shown_text(view) == ["model too large"]


def test_export_html_and_latex(qtbot, make_window, tmp_path):
    window = make_window(preset("simple_pendulum"))
    view = window.equations_view
    view.show()
    settled(qtbot, view)
    view.export(str(tmp_path / "eq.html"))
    view.export(str(tmp_path / "eq.tex"))
    html = (tmp_path / "eq.html").read_text(encoding="utf-8")
    for math in re.findall(r"<math.*?</math>", html, re.S):
        ElementTree.fromstring(math)
    assert (tmp_path / "eq.tex").read_text(encoding="utf-8").rstrip().endswith("\\end{document}")


def test_typesetter_refuses_missing_glyphs_and_keeps_output(qtbot):
    with pytest.raises(equations_render.TypesetError):
        equations_render.typeset("A\u1d40")  # the transpose sign the old panel drew as a box
    svg = equations_render.typeset(r"\left[\begin{matrix}\frac{1}{2} & \cos(\theta)\\ x & \left(y\right)\end{matrix}\right]")
    assert svg.startswith(b"<svg") and equations_render.INK.encode() in svg
    assert equations_page.FormulaView(svg).renderer.isValid()


def test_the_typesetting_speedup_changes_no_output(monkeypatch):
    """Skipping ziamath's measuring pass in rows without stretchy operators gives the same SVG."""
    from ziamath.nodes import mnode
    from ziamath.nodes.mrow import Mrow

    latex = r"\left(\frac{a}{b}\right) \cos(\theta) + \sum_{i=1}^n x_i^{2} \left[\begin{matrix}1 & \frac{\sqrt{2}}{3}\\ 2 & \left(x\right)\end{matrix}\right]"
    fast = equations_render.typeset(latex)
    assert mnode._node_classes["mrow"] is equations_render.fast_rows()  # registered through ziamath's hook
    monkeypatch.setitem(mnode._node_classes, "mrow", Mrow)  # ziamath's own rows
    assert equations_render.typeset(latex) == fast


def test_the_deriver_sends_the_page_then_its_unchanged_html_export(qtbot, make_window, tmp_path):
    """The HTML export (MathML of every formula: 0.2–0.4 s of the four-bar's Maggi and Gibbs–Appell
    pages) follows the page instead of holding it up; it is the same HTML, and the panel takes it
    in; an export asked for before it comes says so in one line."""
    from eomlab.engine import symbolic

    model = preset("simple_pendulum")
    sent = []

    class Results:
        def put(self, message):
            sent.append(message)

    equations_render.derive_answer((7, model, "lagrange"), Results())
    kinds = [kind for kind, _generation, _value in sent]
    assert kinds[-2:] == ["page", "html"] and all(generation == 7 for _k, generation, _v in sent), kinds
    page, html = sent[-2][2], sent[-1][2]
    whole = symbolic.page_data(symbolic.build_page(symbolic.derive(model, "lagrange"), model.name))
    assert page["html"] is None and html == whole["html"]
    assert {k: v for k, v in page.items() if k != "html"} == {k: v for k, v in whole.items() if k != "html"}
    # the panel: an export before the HTML has come is refused, not written empty
    window = make_window(model.with_settings(method="lagrange"))
    view = window.equations_view
    view.show()
    settled(qtbot, view)
    assert view.current_page()["html"] == html
    view.current_page()["html"] = None
    with pytest.raises(OSError, match="still being written"):
        view.export(str(tmp_path / "eq.html"))
    assert not (tmp_path / "eq.html").exists()
