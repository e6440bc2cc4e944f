"""Results files for the leaderboard tests (one place for tests and benchmarks:
:mod:`cinecap.testing.bench_results`)."""
from cinecap.testing.bench_results import *  # noqa: F401,F403
