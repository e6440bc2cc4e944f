"""Short transactions on one engine: ``reading()`` for queries, ``writing()`` for changes.

Every repository gets the same :class:`Sessions`; a call opens one transaction and closes it before
returning, so records never carry a live session. On SQLite a write transaction starts with
``BEGIN IMMEDIATE`` (see ``db.engine.write_engine``).
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from db.engine import SqliteFiles, write_engine


class Sessions:
    def __init__(self, engine: Engine, files: SqliteFiles | None = None):
        self._read = sessionmaker(engine, expire_on_commit=False)
        self._write = sessionmaker(write_engine(engine), expire_on_commit=False)
        self.files = files

    @contextmanager
    def writing(self) -> Iterator[Session]:
        """One write transaction, committed on leaving (rolled back on an exception). On a SQLite
        file, checked before it starts and after it commits: a save is acknowledged only while
        the database's files are still the ones its connection writes to (``SqliteFiles``)."""
        with self._write.begin() as s:
            yield s
            info = s.connection().connection.info if self.files is not None else None
        if info is not None:
            self.files.check(info, committed=True)

    @contextmanager
    def reading(self) -> Iterator[Session]:
        with self._read() as s:
            yield s
