import sys

from cinecap.cli import main

sys.exit(main())
