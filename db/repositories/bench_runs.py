"""Benchmark runs: the benches the store knows, runs with their scores, and their per-clip rows.

A run made here (``start``) is ``running`` while its clips are captioned: each captioned clip is
kept at once (``put_item``), so an interrupted run can be resumed from its rows (``rows``);
``finish`` stores the judged rows and the scores. A results file made elsewhere is recorded whole
in one transaction (``add``), once per file content (``results_sha256``).

A bench learnt with its file (a run here, an import, an export) keeps a copy of that file,
content-addressed, in ``<data dir>/benches/<sha256>.json`` (``bench_gold``): the gold captions a
results file uploaded later is judged against here, whatever gold captions the file itself
carries. A bench only declared by name has none, so results on it stay self-reported.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path, PurePath
from typing import Any, Sequence

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from db import models as m
from db.errors import NotFound, StoreConflict
from db.limits import MAX_CAPTION_CHARS, check_text
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
                  user: UserRecord | None = None, file: str | Path | None = None
                  ) -> BenchRecord:
        """Know a bench file by its hash (the existing record when it is known already; a bench
        first declared without its file learns its item count). ``file``: the bench file itself,
        kept for :meth:`bench_gold` when its content has this hash."""
        if source not in BENCH_SOURCES:
            raise ValueError(f"unknown bench source {source!r}; known: {BENCH_SOURCES}")
        if file is not None:
            self._keep_bench_file(sha256, Path(file))
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

    def _bench_path(self, sha256: str) -> Path:
        if len(sha256) != 64 or any(c not in "0123456789abcdef" for c in sha256):
            raise ValueError("a bench is named by its sha256 (64 hex digits)")
        return Path(self.data_dir) / "benches" / f"{sha256}.json"

    def _keep_bench_file(self, sha256: str, file: Path) -> None:
        dest = self._bench_path(sha256)
        if dest.is_file():
            return
        raw = file.read_bytes()
        if hashlib.sha256(raw).hexdigest() != sha256:
            raise ValueError(f"the bench file {file.name} does not have the sha256 it is known by")
        dest.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{sha256[:12]}.")
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
        os.replace(tmp, dest)  # atomic: a reader sees the whole file or none

    def bench_gold(self, sha256: str) -> list[tuple[str, str]] | None:
        """The bench's clips as (file name, gold caption), in bench order, from the copy kept
        when the store learnt the bench with its file; None when it never saw the file (or the
        copy no longer has its hash)."""
        try:
            raw = self._bench_path(sha256).read_bytes()
        except (OSError, ValueError):
            return None
        if hashlib.sha256(raw).hexdigest() != sha256:
            return None
        try:
            items = json.loads(raw.decode("utf-8"))
            return [(PurePath(str(i["video_path"])).name, str(i["gt_caption"])) for i in items]
        except (ValueError, TypeError, KeyError):
            return None

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
    check_text(f"gold caption of clip {position + 1}", row.get("gt_caption"), MAX_CAPTION_CHARS)
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
