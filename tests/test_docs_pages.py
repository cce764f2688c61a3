"""The documentation site's pages (docs/): their Python examples run as doctests, the API reference names every
public name of `eomlab`, and the gallery has a paragraph for every built-in model.

The site itself is built by `make docs` (Sphinx, warnings as errors: its extensions check the command pages, the
model-file fields and the gallery against the program); `.ci/run` builds it after the suite. This file checks what
needs no Sphinx, in a few seconds.
"""
from __future__ import annotations

import doctest
import re

import pytest

import eomlab
from eomlab.engine.presets import PRESETS
from project_paths import ROOT

DOCS = ROOT / "docs"
PAGES_WITH_EXAMPLES = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")
                             if "_build" not in p.parts and ">>> " in p.read_text(encoding="utf-8"))


def test_the_site_has_pages_with_examples():
    assert {"reference/api.md", "tutorials/why-methods-differ.md", "tutorials/robot-to-plot.md"} <= set(PAGES_WITH_EXAMPLES)


@pytest.mark.parametrize("page", PAGES_WITH_EXAMPLES)
def test_page_examples(page, monkeypatch):
    """Each page's `>>>` examples, run from the top of the checkout (the pages' paths are relative to it)."""
    pytest.importorskip("pandas")
    monkeypatch.chdir(ROOT)
    text = (DOCS / page).read_text(encoding="utf-8")
    test = doctest.DocTestParser().get_doctest(text, {}, page, str(DOCS / page), 0)
    assert test.examples
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0, f"{runner.failures} of {len(test.examples)} examples of {page} failed"


def test_api_reference_names_every_public_name():
    text = (DOCS / "reference" / "api.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\.\. auto(?:function|class|exception):: eomlab\.(\w+)", text, re.M))
    assert set(eomlab.__all__) - documented == set()


def _gallery_names() -> list[str]:
    text = (DOCS / "gallery.md").read_text(encoding="utf-8")
    block = re.search(r"```\{eomlab-gallery\}\n(.*?)```", text, re.S).group(1)
    return re.findall(r"^([a-z_0-9]+):", block, re.M)


def test_gallery_has_every_preset_once():
    names = _gallery_names()
    assert sorted(names) == sorted(PRESETS)
    assert len(names) == len(set(names))


def test_gallery_check_notices_a_missing_preset():
    """The parse above really reads the block: a preset left out shows."""
    names = _gallery_names()
    assert "four_bar" in names and set(names[1:]) != set(PRESETS)


def _site_checker():
    import importlib.util

    spec = importlib.util.spec_from_file_location("check_site", DOCS / "_check" / "check_site.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_site_check_finds_missing_files_and_anchors(tmp_path):
    """The link half of docs/_check/check_site.py (the browser half runs in .ci/run): a link to a missing page or a
    missing anchor is named, and good links are not."""
    (tmp_path / "a.html").write_text('<p id="top"><a href="b.html#here">b</a> <a href="#top">up</a> '
                                     '<a href="https://example.org">out</a></p>', encoding="utf-8")
    (tmp_path / "b.html").write_text('<h1 id="here">b</h1><a href="c.html">c</a> <a href="a.html#gone">a</a>',
                                     encoding="utf-8")
    assert _site_checker().link_problems(tmp_path) == [
        "b.html: link to a missing file c.html", "b.html: link to a missing anchor a.html#gone"]


def test_raw_latex_is_recognised():
    pattern = _site_checker().RAW_LATEX
    assert pattern.search(r"see \frac{a}{b}") and pattern.search("$$x$$")
    assert not pattern.search("drift E − E₀ at 1e-9, cost $ per run")
