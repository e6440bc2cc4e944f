"""Real clips for tests (one place for tests and benchmarks: :mod:`cinecap.testing.clips`)."""
from cinecap.testing.clips import *  # noqa: F401,F403
