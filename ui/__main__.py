"""``python -m ui``: the app's own command line (see :mod:`ui.cli`)."""
import sys

from ui.cli import main

sys.exit(main())
