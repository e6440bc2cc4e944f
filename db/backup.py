"""A consistent copy of a SQLite store, taken with SQLite's online backup API.

This is the one safe way to copy the database while the app may be running (``python -m ui db
backup DEST``). Copying ``cinecap.sqlite3`` with ``cp`` misses what is still in its ``-wal`` file
and can catch a half-written page; copying it from inside the app's own process drops the app's
locks on it (``db.engine``'s module doc). The backup API reads one consistent snapshot through
SQLite, with SQLite's own locking, and never touches the app's files any other way.

PostgreSQL is backed up with its own tool, ``pg_dump``.
"""
from __future__ import annotations

import os
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path

from cinecap.errors import InputError
from db.engine import SQLITE_BUSY_TIMEOUT_MS, is_sqlite, redact_url, sqlite_file

PG_DUMP_HINT = ("back it up with PostgreSQL's own tool: pg_dump --format=custom "
                "--file=cinecap.dump \"$DATABASE_URL\" (restore with pg_restore)")


@dataclass(frozen=True)
class BackupReport:
    source: Path
    dest: Path
    pages: int
    bytes: int
    rows: dict[str, int]


def backup(url: str, dest: str | Path, overwrite: bool = False) -> BackupReport:
    """Copy the SQLite database of ``url`` to ``dest`` (a single self-contained file, checked
    with ``PRAGMA integrity_check``). InputError for PostgreSQL (use pg_dump), a missing
    database, or a ``dest`` that exists (unless ``overwrite``)."""
    if not is_sqlite(url):
        raise InputError(f"the database {redact_url(url)} is not SQLite: {PG_DUMP_HINT}")
    src = sqlite_file(url)
    if src is None:
        raise InputError("an in-memory database cannot be backed up")
    if not src.is_file():
        raise InputError(f"there is no database at {src}: check --database-url / --data-dir")
    dest = Path(dest).expanduser().resolve()
    if dest == src or str(dest).startswith(f"{src}-"):
        raise InputError("the backup must go to another file than the database itself")
    if dest.exists() and not overwrite:
        raise InputError(f"{dest} exists: choose a new file name, or pass --force to replace it")
    if not dest.parent.is_dir():
        raise InputError(f"the folder {dest.parent} does not exist")
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".part")
    os.close(fd)
    try:
        source = sqlite3.connect(str(src), timeout=SQLITE_BUSY_TIMEOUT_MS / 1000)
        try:
            target = sqlite3.connect(tmp)
            try:
                source.backup(target)  # all pages in one step: one consistent snapshot
                target.execute("PRAGMA journal_mode=DELETE")  # one file, no -wal beside it
                check = target.execute("PRAGMA integrity_check").fetchone()[0]
                if check != "ok":
                    raise InputError(f"the copy failed its integrity check ({check}); the "
                                     "database itself may be damaged")
                pages = target.execute("PRAGMA page_count").fetchone()[0]
                tables = [r[0] for r in target.execute(
                    "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE "
                    "'sqlite_%' ORDER BY name")]
                rows = {t: target.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0]
                        for t in tables}
            finally:
                target.close()
        finally:
            source.close()
        os.replace(tmp, dest)
    except sqlite3.Error as e:
        raise InputError(f"the backup of {src.name} failed: {e}") from None
    finally:
        Path(tmp).unlink(missing_ok=True)
    return BackupReport(src, dest, pages, dest.stat().st_size, rows)
