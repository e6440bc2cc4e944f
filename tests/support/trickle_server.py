"""A trickling HTTP server (one place for tests and benchmarks:
:mod:`cinecap.testing.trickle_server`)."""
from cinecap.testing.trickle_server import *  # noqa: F401,F403
