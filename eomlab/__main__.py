"""`python -m eomlab`: the same command line as the `eomlab` script."""
from eomlab.cli import main

raise SystemExit(main())
