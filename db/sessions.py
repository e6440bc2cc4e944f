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

from db.engine import write_engine


class Sessions:
    def __init__(self, engine: Engine):
        self._read = sessionmaker(engine, expire_on_commit=False)
        self._write = sessionmaker(write_engine(engine), expire_on_commit=False)

    @contextmanager
    def writing(self) -> Iterator[Session]:
        """One write transaction, committed on leaving (rolled back on an exception)."""
        with self._write.begin() as s:
            yield s

    @contextmanager
    def reading(self) -> Iterator[Session]:
        with self._read() as s:
            yield s
