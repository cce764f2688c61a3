"""python -m eomlab.engine.presets [--write DIRECTORY]"""
from . import main

raise SystemExit(main())
