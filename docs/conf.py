"""Sphinx configuration of eomlab's documentation site (built by `make docs`)."""
from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))

project = "eomlab"
author = "the eomlab authors"
copyright = "the eomlab authors"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "eomlab_mathml",
    "eomlab_cli",
    "eomlab_pictures",
    "eomlab_tables",
]

# command-line options stay as typed (`--method`, not an en dash)
smartquotes = False
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
exclude_patterns = ["_build", "_generated/*.md"]
myst_enable_extensions = ["dollarmath", "amsmath", "deflist", "colon_fence"]
myst_heading_anchors = 3

# the mathematics goes to MathML through the program's own LaTeX -> MathML path (no script, no CDN)
html_math_renderer = "eomlab_mathml"

html_theme = "furo"
html_title = "eomlab"
html_static_path: list[str] = []

autodoc_member_order = "bysource"
autodoc_typehints = "description"
napoleon_numpy_docstring = True
napoleon_google_docstring = False
