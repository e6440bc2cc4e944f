"""Short transactions on one engine: ``reading()`` for queries, ``writing()`` for changes.

Every repository gets the same :class:`Sessions`; a call opens one transaction and closes it before
returning, so records never carry a live session. On SQLite a write transaction starts with
``BEGIN IMMEDIATE`` (see ``db.engine.write_engine``).

A use case that reads and then writes (a review action: load the draft, apply the action, store
it) opens ``writing()`` itself; the repository calls made inside it join that one transaction
instead of opening their own, so the action is one read-modify-write, atomic against every other
writer, with one session and one commit. A ``reading()`` inside a ``writing()`` joins it too; a
``writing()`` inside a ``reading()`` is a programming error (it would write outside the lock).
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from itertools import count
from typing import Iterator

from sqlalchemy import Connection, Engine
from sqlalchemy.orm import Session, sessionmaker

from db.engine import SqliteFiles, write_engine

_ids = count()


class Sessions:
    def __init__(self, engine: Engine, files: SqliteFiles | None = None):
        self._engine = engine
        self._read = sessionmaker(engine, expire_on_commit=False)
        self._write = sessionmaker(write_engine(engine), expire_on_commit=False)
        self.files = files
        # (session, writes?) of the transaction this thread or task has open on this store.
        self._open: ContextVar[tuple[Session, bool] | None] = ContextVar(
            f"cinecap_store_session_{next(_ids)}", default=None)

    def _joined(self, write: bool) -> Session | None:
        """The open transaction to join, or None. One that failed (a flush error) is not joined:
        what runs after it, such as building a conflict's message, needs a transaction of its
        own, and the failed one is rolled back by its owner."""
        current = self._open.get()
        if current is None or not current[0].is_active:
            return None
        if write and not current[1]:
            raise RuntimeError("a write inside a read-only store transaction")
        return current[0]

    @property
    def writing_now(self) -> bool:
        """Whether a write transaction of this store is open here (what a read in it may lock)."""
        current = self._open.get()
        return current is not None and current[1] and current[0].is_active

    @contextmanager
    def writing(self) -> Iterator[Session]:
        """One write transaction, committed on leaving (rolled back on an exception). On a SQLite
        file, checked before it starts and after it commits: a save is acknowledged only while
        the database's files are still the ones its connection writes to (``SqliteFiles``).
        Inside an open write transaction: that one (committed by its owner)."""
        joined = self._joined(write=True)
        if joined is not None:
            yield joined
            return
        with self._write.begin() as s:
            token = self._open.set((s, True))
            try:
                yield s
                info = s.connection().connection.info if self.files is not None else None
            finally:
                self._open.reset(token)
        if info is not None:
            self.files.check(info, committed=True)

    @contextmanager
    def reading(self) -> Iterator[Session]:
        joined = self._joined(write=False)
        if joined is not None:
            yield joined
            return
        with self._read() as s:
            token = self._open.set((s, False))
            try:
                yield s
            finally:
                self._open.reset(token)

    @contextmanager
    def rows(self) -> Iterator[Connection]:
        """A connection for statements on table rows, no ORM objects: the open transaction's,
        else a read transaction of its own on a plain connection (what a session would add is
        most of what a one-row read costs)."""
        joined = self._joined(write=False)
        if joined is not None:
            yield joined.connection()
            return
        with self._engine.connect() as c:
            yield c
