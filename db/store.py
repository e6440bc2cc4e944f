"""The store: one engine, its migrations, and one repository per area as attributes.

    store = Store(url, data_dir)
    store.users.add("ann", "annotator", "a long secret")
    clip = store.clips.add(path, "bikes.mp4", info, user)
    store.review.save(clip.id, version, user, statements, edits, caption)

Each repository call is one short transaction that returns records (``db.records``); domain errors
(``db.errors``) for what a user can act on. The repositories live in ``db/repositories/``.
"""
from __future__ import annotations

import logging
from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, OperationalError

from cinecap.errors import InputError, UnavailableError
from db import models as m
from db.engine import SqliteFiles, is_sqlite, make_engine, redact_url, sqlite_file
from db.repositories.bench_runs import BenchRunRepository
from db.repositories.clips import ClipRepository
from db.repositories.drafts import DraftRepository
from db.repositories.judge_results import JudgeResultRepository
from db.repositories.review import ReviewRepository
from db.repositories.sign_ins import SignInRepository
from db.repositories.users import UserRepository
from db.repositories.versions import RoundRepository, VersionRepository
from db.sessions import Sessions

log = logging.getLogger(__name__)


class Store:
    """All persistence the app needs. ``data_dir`` keeps the uploaded clips (``clips/``).

    Attributes: ``users``, ``clips`` (clips and captions), ``review`` (queue, gold pairs,
    decisions, history), ``drafts`` (annotators' unsaved reviews), ``judge_results``,
    ``versions`` (managed model versions: promote, roll back), ``rounds`` (training rounds and
    their progress), ``bench_runs`` (benches, benchmark runs and their per-clip results),
    ``sign_ins`` (sign-in sessions and failed sign-ins);
    ``sessions`` for a transaction of your own.
    """

    def __init__(self, url: str, data_dir: str | Path, migrate: bool = True, echo: bool = False):
        self.url = url
        # Absolute, so the paths the repositories hand out mean the same file in any folder.
        self.data_dir = Path(data_dir).expanduser().resolve()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        try:
            path = sqlite_file(url)
            self.files = SqliteFiles(path) if path is not None else None
            self.engine = make_engine(url, echo=echo, files=self.files)
        except (ArgumentError, NoSuchModuleError, ImportError) as e:  # ImportError: no driver
            raise InputError(f"the database URL {redact_url(url)!r} is not usable: {e}. Use "
                             "sqlite:///PATH or postgresql+psycopg://USER@HOST/DB") from None
        self.sessions = Sessions(self.engine, self.files)
        if migrate:
            from db.migrate import upgrade

            try:
                upgrade(self.engine)
            except OperationalError as e:
                self.engine.dispose()
                raise UnavailableError(f"cannot open the database {redact_url(url)}: "
                                       f"{str(e.orig or e).strip().splitlines()[0]}") from None
        self.users = UserRepository(self.sessions, self.data_dir)
        self.clips = ClipRepository(self.sessions, self.data_dir)
        self.review = ReviewRepository(self.sessions, self.data_dir)
        self.drafts = DraftRepository(self.sessions, self.data_dir)
        self.judge_results = JudgeResultRepository(self.sessions, self.data_dir)
        self.versions = VersionRepository(self.sessions, self.data_dir)
        self.rounds = RoundRepository(self.sessions, self.data_dir, self.versions)
        self.bench_runs = BenchRunRepository(self.sessions, self.data_dir)
        self.sign_ins = SignInRepository(self.sessions, self.data_dir)

    @property
    def backend(self) -> str:
        return "sqlite" if is_sqlite(self.url) else self.engine.dialect.name

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.engine.dispose()

    def counts(self) -> dict[str, int]:
        """Rows per table of the work kept (for tests and the admin's overview); not the sign-in
        tables, which every sign-in writes (``store.sign_ins``)."""
        tables = {"users": m.User, "clips": m.Clip, "captions": m.Caption,
                  "model_versions": m.ModelVersion, "statements": m.StatementRow,
                  "gold_pairs": m.GoldPair, "statement_edits": m.StatementEdit,
                  "judge_results": m.JudgeResult, "review_drafts": m.ReviewDraft,
                  "rounds": m.Round, "round_events": m.RoundEvent,
                  "benches": m.Bench, "bench_runs": m.BenchRun, "bench_items": m.BenchItem}
        counted = select(*(select(func.count()).select_from(t).scalar_subquery().label(k)
                           for k, t in tables.items()))
        with self.sessions.reading() as s:  # one query, not one per table
            return dict(s.execute(counted).one()._mapping)
