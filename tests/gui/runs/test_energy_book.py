"""The energy book (gui/runs/energy_book.py): whether a run's model is conservative, asked once per
model, without holding every model a long session ever ran (issue 31's soak)."""
from __future__ import annotations

import gc
import weakref

from eomlab.engine.presets import preset
from eomlab.gui.runs import energy_book
from eomlab.gui.runs.energy_book import KEPT_MODELS, EnergyBook
from eomlab.gui.runs.session import Session


def test_the_book_keeps_its_word_for_the_models_in_use_only(qtbot, monkeypatch):
    asked = []  # the models' names only: the test must not hold the models itself
    monkeypatch.setattr(energy_book, "conservative", lambda m: asked.append(m.name) or True)
    model = preset("simple_pendulum")
    book = EnergyBook(Session(model))
    assert book.conservative(model) and book.conservative(model) and len(asked) == 1  # asked once
    gone = []
    for k in range(3 * KEPT_MODELS):  # as compare toggles and edits bring new model objects
        other = model.with_settings(t_end=1.0 + k)
        gone.append(weakref.ref(other))
        assert book.conservative(other)
        del other
    gc.collect()
    assert sum(ref() is not None for ref in gone) <= KEPT_MODELS and len(book._conservative) <= KEPT_MODELS
    asked.clear()
    latest = model.with_settings(t_end=99.0)
    assert book.conservative(latest) and book.conservative(latest) and len(asked) == 1
