"""Store fixtures for the db/ui tests: a real SQLite file, and a real PostgreSQL server when
``CINECAP_TEST_POSTGRES_URL`` is set (``.ci/run`` starts one with ``.ci/postgres.sh``)."""
from __future__ import annotations

import os

import pytest

from benchmarks.support import reset_postgres  # noqa: F401 - one place
from tests.support.require import missing

POSTGRES_ENV = "CINECAP_TEST_POSTGRES_URL"
BACKENDS = [pytest.param("sqlite", id="sqlite"),
            pytest.param("postgresql", id="postgresql", marks=pytest.mark.postgres)]


def database_url(backend: str, tmp_path) -> str:
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'cinecap.sqlite3'}"
    url = os.environ.get(POSTGRES_ENV)
    if not url:
        missing(f"{POSTGRES_ENV} is not set (bash .ci/postgres.sh starts a server and "
                    "prints the URL)")
    reset_postgres(url)
    return url


@pytest.fixture(params=BACKENDS)
def store(request, tmp_path):
    from db.store import Store

    s = Store(database_url(request.param, tmp_path), tmp_path / "data")
    yield s
    s.close()
