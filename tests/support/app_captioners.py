"""Scripted captioners for the app's tests (one place for tests and benchmarks:
:mod:`cinecap.testing.captioners`)."""
from cinecap.testing.captioners import *  # noqa: F401,F403
