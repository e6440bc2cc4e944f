"""A real CineCap Studio server on loopback for the client, browser and load tests (one place
for tests and benchmarks: benchmarks/support.py)."""
from benchmarks.support import ACCOUNTS, free_port, running_app  # noqa: F401
