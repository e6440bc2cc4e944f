"""Engines: SQLite with WAL, a busy timeout and foreign keys on every connection; PostgreSQL as is.

SQLite trap: a deferred transaction that reads and later writes fails with SQLITE_BUSY (not
retried by busy_timeout) when another writer committed in between. Write transactions therefore
start with ``BEGIN IMMEDIATE`` (``write_engine``), so they queue behind the busy timeout instead.
"""
from __future__ import annotations

import logging

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url

log = logging.getLogger(__name__)

SQLITE_BUSY_TIMEOUT_MS = 30_000


def redact_url(url: str) -> str:
    """The URL with its password hidden, for messages and logs."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # an unparsable URL: say nothing of it that could hold a secret
        return "<unparsable database URL>"


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def make_engine(url: str, echo: bool = False) -> Engine:
    if not is_sqlite(url):
        return create_engine(url, echo=echo, pool_pre_ping=True, pool_size=10, max_overflow=20)
    engine = create_engine(url, echo=echo, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000,
                                                         "check_same_thread": False})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn, _record) -> None:
        # Let SQLAlchemy's "begin" event emit BEGIN itself (the pysqlite driver's own is deferred).
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn) -> None:
        immediate = conn.get_execution_options().get("sqlite_immediate", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


def write_engine(engine: Engine) -> Engine:
    """The same pool, with write transactions that take SQLite's write lock up front."""
    return engine.execution_options(sqlite_immediate=True)
