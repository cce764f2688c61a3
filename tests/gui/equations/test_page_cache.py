"""Derived pages kept on disk (gui/equations/page_cache.py): the same page back, a later deriver
answering without sympy, a changed model derived afresh, and a cache that cannot be used ignored."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace

from eomlab.engine.modelfile.reading import load_model
from eomlab.gui.equations import equations_render, page_cache
from project_paths import ROOT

FOUR_BAR = ROOT / "assets" / "models" / "four_bar.eom.json"


class Results(list):
    def put(self, message):
        self.append(message)


def _derived(model, method="lagrange") -> Results:
    results = Results()
    equations_render.derive_answer((1, model, method), results)
    return results


def test_a_page_comes_back_as_it_was_derived():
    model = load_model(FOUR_BAR)
    first = _derived(model)
    assert [kind for kind, _g, _v in first] == ["top", "page", "html"]
    again = _derived(model)
    assert [kind for kind, _g, _v in again] == ["page", "html"]  # no top: the page is at hand
    assert again[0][2] == first[1][2] and again[1][2] == first[2][2]


def test_another_method_or_an_edited_model_is_derived_afresh():
    model = load_model(FOUR_BAR)
    _derived(model)
    assert page_cache.load(model, "kane") is None
    heavier = replace(model, bodies=(replace(model.bodies[0], mass=model.bodies[0].mass * 2), *model.bodies[1:]))
    assert page_cache.load(heavier, "lagrange") is None
    assert [kind for kind, _g, _v in _derived(heavier)] == ["top", "page", "html"]


def test_a_later_deriver_answers_from_the_cache_without_sympy(tmp_path):
    probe = ("import sys; from eomlab.engine.modelfile.reading import load_model; "
             "from eomlab.gui.equations.equations_render import derive_answer\n"
             "class R(list):\n    put = list.append\n"
             f"r = R(); derive_answer((1, load_model({str(FOUR_BAR)!r}), 'kane'), r)\n"
             "print([k for k, _g, _v in r], 'sympy.core' in sys.modules)")  # sympy itself may be a lazy module
    env = dict(os.environ, EOMLAB_CACHE_DIR=str(tmp_path))
    runs = [subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, env=env,
                           timeout=300) for _ in range(2)]
    assert runs[0].stdout.split("\n")[0] == "['top', 'page', 'html'] True", runs[0].stderr
    assert runs[1].stdout.split("\n")[0] == "['page', 'html'] False", runs[1].stderr


def test_a_damaged_file_or_an_unwritable_folder_is_no_cache(tmp_path, monkeypatch):
    model = load_model(FOUR_BAR)
    _derived(model)
    for stored in page_cache.cache_dir().glob("*.json"):
        stored.write_text(json.dumps({"blocks": 3}))  # a file cut short or written by something else
    assert [kind for kind, _g, _v in _derived(model)] == ["top", "page", "html"]
    blocked = tmp_path / "file"
    blocked.write_text("")
    monkeypatch.setenv(page_cache.CACHE_ENV, str(blocked / "pages"))  # a folder that cannot be made
    assert [kind for kind, _g, _v in _derived(model)] == ["top", "page", "html"]
    assert not list(tmp_path.glob("**/*.part"))


def test_the_oldest_pages_beyond_the_limit_are_removed(monkeypatch):
    monkeypatch.setattr(page_cache, "PAGES_KEPT", 2)
    model = load_model(FOUR_BAR)
    for method in ("lagrange", "maggi", "kane"):
        _derived(model, method)
    assert len(list(page_cache.cache_dir().glob("*.json"))) == 2
    assert page_cache.load(model, "lagrange") is None and page_cache.load(model, "kane") is not None
