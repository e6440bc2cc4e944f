"""The scripted OpenAI-compatible server on loopback (one place for tests and benchmarks:
:mod:`cinecap.testing.openai_server`)."""
from cinecap.testing.openai_server import *  # noqa: F401,F403
