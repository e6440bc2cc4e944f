"""Store fixtures for the db/ui tests: a real SQLite file, and a real PostgreSQL server when
``CINECAP_TEST_POSTGRES_URL`` is set (``.ci/run`` starts one with ``.ci/postgres.sh``)."""
from __future__ import annotations

import functools
import os
from pathlib import Path

import pytest

from benchmarks.support import reset_postgres  # noqa: F401 - one place
from tests.support.require import missing

POSTGRES_ENV = "CINECAP_TEST_POSTGRES_URL"
ROOT = Path(__file__).resolve().parents[2]
BACKENDS = [pytest.param("sqlite", id="sqlite"),
            pytest.param("postgresql", id="postgresql", marks=pytest.mark.postgres)]


def database_url(backend: str, tmp_path) -> str:
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'cinecap.sqlite3'}"
    url = os.environ.get(POSTGRES_ENV)
    if not url:
        missing(f"{POSTGRES_ENV} is not set (bash .ci/postgres.sh starts a server and "
                    "prints the URL)")
    url = worker_database(url)
    reset_postgres(url)
    return url


@functools.cache
def worker_database(url: str) -> str:
    """The database of this checkout and pytest-xdist worker on the server of ``url``
    (``<name>_<checkout>_gw0``, …, created on first use): workers running at once, and suites run
    at once from two checkouts (two engineers, or `-n 0` beside a full run), each reset their own
    schema. ``<checkout>`` is a short hash of the checkout's path; outside xdist the worker is
    ``main``."""
    import hashlib

    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    worker = os.environ.get("PYTEST_XDIST_WORKER") or "main"
    checkout = hashlib.sha256(str(ROOT).encode()).hexdigest()[:8]
    base = make_url(url)
    name = f"{base.database}_{checkout}_{worker}"
    eng = create_engine(base, isolation_level="AUTOCOMMIT")  # CREATE DATABASE: no transaction
    try:
        with eng.connect() as conn:
            if conn.execute(text("SELECT 1 FROM pg_database WHERE datname = :n"),
                            {"n": name}).first() is None:
                conn.execute(text(f'CREATE DATABASE "{name}"'))
    finally:
        eng.dispose()
    return base.set(database=name).render_as_string(hide_password=False)


@pytest.fixture(params=BACKENDS)
def store(request, tmp_path):
    from db.store import Store

    s = Store(database_url(request.param, tmp_path), tmp_path / "data")
    yield s
    s.close()
