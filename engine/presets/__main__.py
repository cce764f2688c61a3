"""python -m eomlab.engine.presets [--write DIRECTORY]"""
from eomlab.engine.presets import main

raise SystemExit(main())
