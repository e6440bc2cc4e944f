"""Engines: SQLite with WAL, a busy timeout and foreign keys on every connection; PostgreSQL as is.

SQLite trap: a deferred transaction that reads and later writes fails with SQLITE_BUSY (not
retried by busy_timeout) when another writer committed in between. Write transactions therefore
start with ``BEGIN IMMEDIATE`` (``write_engine``), so they queue behind the busy timeout instead.

SQLite's second trap (issue 10): its locks are POSIX advisory locks, which a process loses on a
file as soon as it closes *any* descriptor of that file. When the app's own process opened and
closed the database file (a download of it), another process closing its connection next believed
it was the last one, checkpointed, and deleted the ``-wal``/``-shm`` files; the app kept writing
into the deleted log and acknowledged saves nobody would ever see. The cause is fixed where it was
(nothing of the store is served, docs/security.md); :class:`SqliteFiles` is the safety net: each
connection remembers the device and inode of the database, its ``-wal`` and its ``-shm`` when it
opens, and a write refuses to start, or to be acknowledged, once they are no longer the files on
disk (:class:`db.errors.StoreFilesChanged`).
"""
from __future__ import annotations

import logging
import os
from pathlib import Path

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url

from db.errors import StoreFilesChanged

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


def sqlite_file(url: str) -> Path | None:
    """The database file of a SQLite URL (None for an in-memory database or another backend)."""
    u = make_url(url)
    if u.get_backend_name() != "sqlite" or not u.database or u.database == ":memory:" or (
            u.query.get("mode") == "memory"):
        return None
    return Path(u.database).expanduser().resolve()


class SqliteFiles:
    """Which files a SQLite database is, as its connections opened them (see the module doc).

    ``remember(info)`` records the (device, inode) of the database, ``-wal`` and ``-shm`` files in
    a connection's info when it connects; ``check(info)`` raises StoreFilesChanged when they
    changed since, and from then on refuses every write of this engine until the app restarts.
    While one connection is open SQLite never removes those files itself, so a change means
    someone else did (or the lock loss above made SQLite do it)."""

    KEY = "cinecap_sqlite_files"

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.broken: str | None = None

    def identity(self) -> tuple:
        out = []
        for suffix in ("", "-wal", "-shm"):
            try:
                st = os.stat(f"{self.path}{suffix}")  # stat, never open: opening drops our locks
                out.append((st.st_dev, st.st_ino))
            except FileNotFoundError:
                out.append(None)
        return tuple(out)

    def remember(self, info: dict) -> None:
        info[self.KEY] = self.identity()

    def check(self, info: dict, committed: bool = False) -> None:
        if self.broken is None:
            seen = info.get(self.KEY)
            now = self.identity()
            if seen is None or now == seen:
                return
            if all(a is None or a == b for a, b in zip(seen, now)):
                # A new database gets its -wal and -shm on the first write, not on connect.
                info[self.KEY] = now
                return
            gone = [name for name, a, b in zip(("database", "-wal", "-shm"), seen, now) if a != b]
            self.broken = (f"the database file {self.path.name} was removed or replaced while the "
                           f"app was running ({', '.join(gone)} changed on disk): saves now could "
                           f"be lost, so none is accepted. Restart the app, and copy the database "
                           f"only with `python -m ui db backup` (docs/security.md)")
            log.error("%s [%s]", self.broken, self.path)
        if committed:
            raise StoreFilesChanged(f"this save may not have been kept: {self.broken}")
        raise StoreFilesChanged(self.broken)


def make_engine(url: str, echo: bool = False, files: SqliteFiles | None = None) -> Engine:
    """An engine for ``url``; on SQLite, ``files`` (for a file database) watches its files."""
    if not is_sqlite(url):
        return create_engine(url, echo=echo, pool_pre_ping=True, pool_size=10, max_overflow=20)
    engine = create_engine(url, echo=echo, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000,
                                                         "check_same_thread": False})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn, record) -> None:
        # Let SQLAlchemy's "begin" event emit BEGIN itself (the pysqlite driver's own is deferred).
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.close()
        if files is not None:  # after journal_mode=WAL: the -wal and -shm files exist now
            files.remember(record.info)

    @event.listens_for(engine, "begin")
    def _on_begin(conn) -> None:
        immediate = conn.get_execution_options().get("sqlite_immediate", False)
        if immediate and files is not None:
            files.check(conn.connection.info)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


def write_engine(engine: Engine) -> Engine:
    """The same pool, with write transactions that take SQLite's write lock up front."""
    return engine.execution_options(sqlite_immediate=True)
