"""Benchmark runs: the benches the store knows, runs with their scores, and their per-clip rows.

A run made here (``start``) is ``running`` while its clips are captioned: each captioned clip is
kept at once (``put_item``), so an interrupted run can be resumed from its rows (``rows``);
``finish`` stores the judged rows and the scores. A results file made elsewhere is recorded whole
in one transaction (``add``), once per file content (``results_sha256``).
"""
from __future__ import annotations

from pathlib import PurePath
from typing import Any, Sequence

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from db import models as m
from db.errors import NotFound, StoreConflict
from db.records import BenchItemRecord, BenchRecord, BenchRunRecord, UserRecord
from db.repositories.base import Repository

#: What a new run is made of (``start`` and ``add`` take these keys, nothing else).
RUN_FIELDS = ("source", "bench_sha256", "bench_name", "items", "model", "model_family",
              "model_version", "round", "captioner", "options", "judge", "judge_version",
              "protocol", "protocol_key", "aspects", "meta", "results_sha256", "run_date")
BENCH_SOURCES = ("run", "import", "export", "declared")


class BenchRunRepository(Repository):
    # --- benches ------------------------------------------------------------------------------
    def add_bench(self, sha256: str, name: str, items: int | None, source: str,
                  user: UserRecord | None = None) -> BenchRecord:
        """Know a bench file by its hash (the existing record when it is known already; a bench
        first declared without its file learns its item count)."""
        if source not in BENCH_SOURCES:
            raise ValueError(f"unknown bench source {source!r}; known: {BENCH_SOURCES}")
        try:
            with self.sessions.writing() as s:
                b = s.scalar(select(m.Bench).where(m.Bench.sha256 == sha256))
                if b is None:
                    b = m.Bench(sha256=sha256, name=name[:300], items=items, source=source,
                                created_by=user.id if user and user.id else None)
                    s.add(b)
                elif b.items is None and items is not None:
                    b.items = items
                s.flush()
                return _bench(b)
        except IntegrityError:  # added concurrently
            return self.find_bench(sha256)

    def find_bench(self, sha256: str) -> BenchRecord | None:
        with self.sessions.reading() as s:
            b = s.scalar(select(m.Bench).where(m.Bench.sha256 == sha256))
            return _bench(b) if b else None

    def benches(self) -> list[BenchRecord]:
        """Every known bench, by name."""
        with self.sessions.reading() as s:
            return [_bench(b) for b in s.scalars(select(m.Bench).order_by(m.Bench.name,
                                                                          m.Bench.id))]

    # --- runs ---------------------------------------------------------------------------------
    def start(self, run: dict[str, Any], user: UserRecord | None) -> BenchRunRecord:
        """A new run, ``running``, with no rows yet."""
        with self.sessions.writing() as s:
            r = _new_run(run, user)
            s.add(r)
            s.flush()
            return _run(s, r)

    def put_item(self, run_id: int, position: int, row: dict[str, Any]) -> None:
        """Keep one captioned clip of a running run (replacing what that position held)."""
        with self.sessions.writing() as s:
            r = s.get(m.BenchRun, run_id)
            if r is None:
                raise NotFound(f"no bench run #{run_id}")
            if r.status != "running":
                raise StoreConflict(f"bench run #{run_id} is finished; start a new run")
            s.execute(delete(m.BenchItem).where(m.BenchItem.run_id == run_id,
                                                m.BenchItem.position == position))
            s.add(_item(run_id, position, row))

    def rows(self, run_id: int) -> dict[int, dict[str, Any]]:
        """The rows kept so far, by position (what a resumed run starts from)."""
        with self.sessions.reading() as s:
            return {i.position: dict(i.row or {}) for i in s.scalars(
                select(m.BenchItem).where(m.BenchItem.run_id == run_id))}

    def finish(self, run_id: int, rows: Sequence[dict[str, Any]], scores: dict[str, Any],
               meta: dict[str, Any] | None = None,
               protocol: tuple[dict[str, Any], str] | None = None,
               results_sha256: str | None = None) -> BenchRunRecord:
        """Store every row (judged) and the scores; the run is ``done``. ``protocol``: the
        protocol object and its key, when the finished results name them; ``results_sha256``:
        the results file written for the run (recording that file again is then refused)."""
        with self.sessions.writing() as s:
            r = s.get(m.BenchRun, run_id)
            if r is None:
                raise NotFound(f"no bench run #{run_id}")
            if r.status != "running":
                raise StoreConflict(f"bench run #{run_id} is finished already")
            s.execute(delete(m.BenchItem).where(m.BenchItem.run_id == run_id))
            s.add_all(_item(run_id, i, row) for i, row in enumerate(rows))
            if meta is not None:
                r.meta = meta
                r.run_date = str(meta.get("date") or r.run_date)[:40]
            _set_scores(r, scores)
            if protocol is not None:
                r.protocol, r.protocol_key = protocol
            if results_sha256:
                _refuse_known_results(s, results_sha256)
                r.results_sha256 = results_sha256
            r.status, r.finished_at = "done", m.utcnow()
            s.flush()
            return _run(s, r)

    def add(self, run: dict[str, Any], rows: Sequence[dict[str, Any]], scores: dict[str, Any],
            user: UserRecord | None) -> BenchRunRecord:
        """Record a finished results file in one transaction. The same file content twice is a
        :class:`StoreConflict` naming the entry it already is."""
        digest = run.get("results_sha256")
        try:
            with self.sessions.writing() as s:
                if digest:
                    _refuse_known_results(s, digest)
                r = _new_run(run, user)
                _set_scores(r, scores)
                r.status, r.finished_at = "done", m.utcnow()
                s.add(r)
                s.flush()
                s.add_all(_item(r.id, i, row) for i, row in enumerate(rows))
                s.flush()
                return _run(s, r)
        except IntegrityError:  # the same file recorded concurrently
            with self.sessions.reading() as s:
                _refuse_known_results(s, digest)
            raise

    def get(self, run_id: int) -> BenchRunRecord:
        with self.sessions.reading() as s:
            r = s.get(m.BenchRun, run_id)
            if r is None:
                raise NotFound(f"no bench run #{run_id}")
            return _run(s, r)

    def list(self, status: str | None = "done") -> list[BenchRunRecord]:
        """Runs (the finished ones by default), oldest first: one query, no per-clip rows."""
        with self.sessions.reading() as s:
            q = (select(m.BenchRun, m.User.name)
                 .outerjoin(m.User, m.User.id == m.BenchRun.created_by).order_by(m.BenchRun.id))
            if status is not None:
                q = q.where(m.BenchRun.status == status)
            return [_run_record(r, name) for r, name in s.execute(q)]

    def items(self, run_id: int) -> list[BenchItemRecord]:
        """A run's per-clip results, in bench order."""
        with self.sessions.reading() as s:
            if s.get(m.BenchRun, run_id) is None:
                raise NotFound(f"no bench run #{run_id}")
            return [BenchItemRecord(i.id, i.run_id, i.position, i.video, i.gt_caption, i.caption,
                                    i.error, i.f1, dict(i.row or {}))
                    for i in s.scalars(select(m.BenchItem).where(m.BenchItem.run_id == run_id)
                                       .order_by(m.BenchItem.position))]


def _refuse_known_results(s: Session, digest: str | None) -> None:
    known = s.scalar(select(m.BenchRun.id).where(m.BenchRun.results_sha256 == digest))
    if known is not None:
        raise StoreConflict(f"this results file is on the leaderboard already (entry #{known}); "
                            "nothing was added")


def _new_run(run: dict[str, Any], user: UserRecord | None) -> m.BenchRun:
    unknown = set(run) - set(RUN_FIELDS)
    if unknown:
        raise ValueError(f"unknown bench run fields: {sorted(unknown)}")
    values = dict(run)
    for key, size in (("bench_name", 300), ("model", 200), ("model_family", 100),
                      ("model_version", 200), ("captioner", 100), ("judge", 100),
                      ("judge_version", 100), ("run_date", 40)):
        values[key] = str(values.get(key) or "")[:size]
    return m.BenchRun(status="running", created_by=user.id if user and user.id else None,
                      **values)


def _set_scores(r: m.BenchRun, scores: dict[str, Any]) -> None:
    r.scores = scores
    r.f1, r.comprehensiveness, r.accuracy = (scores.get("f1"), scores.get("comprehensiveness"),
                                             scores.get("accuracy"))
    r.judged, r.failed = int(scores.get("judged") or 0), int(scores.get("failed") or 0)
    r.failed_captions = int((r.meta or {}).get("failed_captions") or 0)


def _item(run_id: int, position: int, row: dict[str, Any]) -> m.BenchItem:
    judgement = row.get("judgement") if isinstance(row.get("judgement"), dict) else None
    f1 = judgement.get("f1") if judgement and not judgement.get("failed") else None
    return m.BenchItem(run_id=run_id, position=position,
                       video=PurePath(str(row.get("video_path") or "")).name[:1000],
                       gt_caption=str(row.get("gt_caption") or ""), caption=row.get("caption"),
                       error=row.get("error") or (judgement or {}).get("error"),
                       f1=f1 if isinstance(f1, (int, float)) else None, row=row)


def _bench(b: m.Bench) -> BenchRecord:
    return BenchRecord(b.id, b.sha256, b.name, b.items, b.source, b.created_at)


def _run(s: Session, r: m.BenchRun) -> BenchRunRecord:
    user = s.get(m.User, r.created_by) if r.created_by else None
    return _run_record(r, user.name if user else None)


def _run_record(r: m.BenchRun, created_by: str | None) -> BenchRunRecord:
    return BenchRunRecord(
        r.id, r.status, r.source, r.bench_sha256, r.bench_name, r.items, r.model, r.model_family,
        r.model_version, r.round, r.captioner, dict(r.options or {}), r.judge, r.judge_version,
        dict(r.protocol or {}), r.protocol_key, list(r.aspects or []),
        dict(r.scores) if r.scores is not None else None, r.f1, r.comprehensiveness, r.accuracy,
        r.judged, r.failed, r.failed_captions, dict(r.meta or {}), r.results_sha256, r.run_date,
        created_by, r.created_at, r.finished_at)
