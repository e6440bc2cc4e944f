"""Model versions and training rounds (``store.versions``, ``store.rounds``).

A *managed* model version is a ``vlm`` checkpoint the app knows the life of: a base, or what a
round trained (``training`` → ``ready`` or ``failed``); an admin promotes a ready version
(``serving``; the one serving before becomes ``retired`` and is remembered as its
``previous``), discards it (``retired``), or rolls back (the serving one retired, its previous
one serving again). At most one version serves (a partial unique index backs the rule).

A round is a background job: ``queued`` when launched, ``running`` once a worker claimed it,
``benchmarking`` while the new version is scored on the held-out clips, then ``done``, or
``failed`` / ``cancelled``. Its progress lines are ``round_events`` rows; its row keeps the
latest step, a heartbeat, the tail of its log and the comparison with the serving version.
"""
from __future__ import annotations

import secrets
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Sequence

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from cinecap.errors import InputError
from db import models as m
from db.errors import NotFound
from db.records import ModelVersionRecord, RoundEventRecord, RoundRecord, UserRecord
from db.repositories.base import Repository
from db.repositories.rows import jsonable
from db.roles import require_role

CAPTIONER = "vlm"
ACTIVE = m.ACTIVE_ROUND_STATUSES
#: The most characters of a round's log the store keeps (its tail).
LOG_TAIL_CHARS = 20_000


def utc(dt: datetime | None) -> datetime | None:
    """A stored time as an aware UTC datetime (SQLite hands them back naive)."""
    if dt is None:
        return None
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)


def tail(text: str, limit: int = LOG_TAIL_CHARS) -> str:
    return text if len(text) <= limit else "…" + text[-limit:]


class VersionRepository(Repository):
    # --- reading --------------------------------------------------------------------------------
    def get(self, version_id: int) -> ModelVersionRecord:
        with self.sessions.reading() as s:
            v = s.get(m.ModelVersion, version_id)
            if v is None or v.status is None:
                raise NotFound(f"no model version #{version_id}")
            return self._record(s, v)

    def find_serving(self) -> ModelVersionRecord | None:
        """The version the app serves, or None when no managed version serves yet."""
        with self.sessions.reading() as s:
            v = s.scalar(select(m.ModelVersion).where(m.ModelVersion.status == "serving"))
            return self._record(s, v) if v else None

    def list(self) -> list[ModelVersionRecord]:
        """Every managed version, newest first."""
        with self.sessions.reading() as s:
            return [self._record(s, v) for v in s.scalars(
                select(m.ModelVersion).where(m.ModelVersion.status.is_not(None))
                .order_by(m.ModelVersion.id.desc()))]

    def for_round(self, round_id: int) -> ModelVersionRecord | None:
        with self.sessions.reading() as s:
            v = s.scalar(select(m.ModelVersion).where(m.ModelVersion.round_id == round_id))
            return self._record(s, v) if v else None

    # --- writing --------------------------------------------------------------------------------
    def ensure_base(self, base: str, path: str | Path | None = None,
                    options: dict[str, Any] | None = None) -> ModelVersionRecord:
        """The managed version of the base checkpoint ``base`` (a hub id, or the name of the
        directory ``path``), made on first use: ``serving`` when no version serves yet, else
        ``ready``. A row the captions of that checkpoint already made is adopted. ``options``:
        the ``vlm`` captioner options it runs with."""
        label = base[:200]
        stored = self._stored_path(path) if path is not None else None
        with self.sessions.writing() as s:
            v = s.scalar(select(m.ModelVersion).where(m.ModelVersion.captioner == CAPTIONER,
                                                      m.ModelVersion.version == label))
            if v is not None and v.status is not None:
                return self._record(s, v)
            serving = s.scalar(select(m.ModelVersion.id).where(
                m.ModelVersion.status == "serving"))
            if v is None:
                v = m.ModelVersion(captioner=CAPTIONER, version=label, meta={})
                s.add(v)
            v.base, v.path = base, stored
            v.meta = {**(v.meta or {}), "captioner_options": _json(options or {})}
            v.status = "ready" if serving else "serving"
            if v.status == "serving":
                v.promoted_at = m.utcnow()
            s.flush()
            return self._record(s, v)

    def promote(self, version_id: int, user: UserRecord) -> ModelVersionRecord:
        """Serve ``version_id`` (ready or retired); the one serving now is retired and
        remembered, so rolling back serves it again."""
        require_role(user.role, "admin", "promoting a model version")
        with self.sessions.writing() as s:
            v = self._managed(s, version_id)
            if v.status == "serving":
                raise InputError(f"model version #{v.id} is already serving")
            if v.status not in ("ready", "retired"):
                raise InputError(f"model version #{v.id} is {v.status}: only a ready (or "
                                 f"retired) version can be promoted")
            current = s.scalar(select(m.ModelVersion).where(m.ModelVersion.status == "serving"))
            if current is not None:
                current.status = "retired"
                s.flush()  # before the new one serves: the one-serving index holds at every step
            v.status, v.previous_id, v.promoted_at = "serving", current.id if current else None, \
                m.utcnow()
            s.flush()
            return self._record(s, v)

    def rollback(self, user: UserRecord) -> ModelVersionRecord:
        """Retire the serving version and serve the one that served before it; returns it."""
        require_role(user.role, "admin", "rolling back the model version")
        with self.sessions.writing() as s:
            current = s.scalar(select(m.ModelVersion).where(m.ModelVersion.status == "serving"))
            if current is None:
                raise InputError("no model version is serving: nothing to roll back")
            previous = s.get(m.ModelVersion, current.previous_id) if current.previous_id else None
            if previous is None or previous.status is None:
                raise InputError(f"model version #{current.id} has no earlier version to roll "
                                 f"back to")
            if previous.status not in ("ready", "retired"):
                raise InputError(f"the earlier version #{previous.id} is {previous.status}; it "
                                 f"cannot serve")
            current.status = "retired"
            s.flush()
            previous.status, previous.promoted_at = "serving", m.utcnow()
            s.flush()
            return self._record(s, previous)

    def discard(self, version_id: int, user: UserRecord) -> ModelVersionRecord:
        """A ready version that will not serve: retired (its files are kept)."""
        require_role(user.role, "admin", "discarding a model version")
        with self.sessions.writing() as s:
            v = self._managed(s, version_id)
            if v.status != "ready":
                raise InputError(f"model version #{v.id} is {v.status}: only a ready version "
                                 f"can be discarded")
            v.status = "retired"
            s.flush()
            return self._record(s, v)

    # --- helpers --------------------------------------------------------------------------------
    def _managed(self, s: Session, version_id: int) -> m.ModelVersion:
        v = s.get(m.ModelVersion, version_id)
        if v is None or v.status is None:
            raise NotFound(f"no model version #{version_id}")
        return v

    def _stored_path(self, path: str | Path) -> str:
        p = Path(path).expanduser().resolve()
        try:
            return p.relative_to(self.data_dir.resolve()).as_posix()
        except ValueError:
            return str(p)

    def _model(self, v: m.ModelVersion) -> str:
        if v.path:
            p = Path(v.path)
            return str(p if p.is_absolute() else self.data_dir.resolve() / p)
        return v.base or v.version

    def _record(self, s: Session, v: m.ModelVersion) -> ModelVersionRecord:
        stage = s.scalar(select(m.Round.stage).where(m.Round.id == v.round_id)) \
            if v.round_id else ""
        return ModelVersionRecord(v.id, v.captioner, v.version, v.status, v.base or v.version,
                                  self._model(v), v.parent_id, v.round_id, v.previous_id,
                                  dict(v.scores) if v.scores is not None else None,
                                  utc(v.created_at), utc(v.promoted_at), stage or "",
                                  dict((v.meta or {}).get("captioner_options") or {}))


class RoundRepository(Repository):
    def __init__(self, sessions, data_dir: Path, versions: VersionRepository):
        super().__init__(sessions, data_dir)
        self.versions = versions

    # --- reading --------------------------------------------------------------------------------
    def get(self, round_id: int) -> RoundRecord:
        with self.sessions.reading() as s:
            r = s.get(m.Round, round_id)
            if r is None:
                raise NotFound(f"no round #{round_id}")
            return _round_record(s, r)

    def list(self, limit: int = 50) -> list[RoundRecord]:
        """The newest rounds first."""
        with self.sessions.reading() as s:
            return [_round_record(s, r) for r in s.scalars(
                select(m.Round).order_by(m.Round.id.desc()).limit(limit))]

    def active(self) -> list[RoundRecord]:
        """Rounds queued or under way, oldest first."""
        with self.sessions.reading() as s:
            return [_round_record(s, r) for r in s.scalars(
                select(m.Round).where(m.Round.status.in_(ACTIVE)).order_by(m.Round.id))]

    def events(self, round_id: int, after_id: int = 0) -> list[RoundEventRecord]:
        """The round's progress lines after ``after_id``, oldest first."""
        with self.sessions.reading() as s:
            return [RoundEventRecord(e.id, e.round_id, dict(e.event), utc(e.at))
                    for e in s.scalars(select(m.RoundEvent).where(
                        m.RoundEvent.round_id == round_id, m.RoundEvent.id > after_id)
                        .order_by(m.RoundEvent.id))]

    # --- launching and cancelling (an admin) ----------------------------------------------------
    def add(self, stage: str, config: dict[str, Any], data: dict[str, Any], user: UserRecord,
            base_version_id: int | None, folder: str,
            captioner_options: dict[str, Any] | None = None) -> RoundRecord:
        """A queued round and the model version it will make (``training``, its directory
        ``versions/<folder>`` in the data directory, its parent ``base_version_id``, the
        ``vlm`` options it will caption with)."""
        require_role(user.role, "admin", "launching a training round")
        if stage not in ("sft", "grpo"):
            raise InputError(f"unknown stage {stage!r}; use sft or grpo")
        with self.sessions.writing() as s:
            base = s.get(m.ModelVersion, base_version_id) if base_version_id else None
            if base_version_id and (base is None or base.status is None):
                raise NotFound(f"no model version #{base_version_id}")
            r = m.Round(stage=stage, status="queued", config=_json(config), data=_json(data),
                        created_by=user.id or None, cancel_requested=False, worker="", step=0,
                        error="", log="", comparison={})
            s.add(r)
            s.flush()
            s.add(m.ModelVersion(captioner=CAPTIONER, version=f"round-{r.id}",
                                 meta={"stage": stage,
                                       "captioner_options": _json(captioner_options or {})},
                                 status="training",
                                 base=(base.base or base.version) if base else None,
                                 path=f"versions/{folder}", parent_id=base.id if base else None,
                                 round_id=r.id))
            s.flush()
            return _round_record(s, r)

    def set_base(self, round_id: int, base_version_id: int) -> RoundRecord:
        """The version round ``round_id`` starts from, once known: a round launched before its
        base existed (the tiny model its job builds) gets it here, before it trains."""
        with self.sessions.writing() as s:
            r = s.get(m.Round, round_id)
            base = s.get(m.ModelVersion, base_version_id)
            if r is None:
                raise NotFound(f"no round #{round_id}")
            if base is None or base.status is None:
                raise NotFound(f"no model version #{base_version_id}")
            v = s.scalar(select(m.ModelVersion).where(m.ModelVersion.round_id == r.id))
            if v is not None:
                v.parent_id, v.base = base.id, base.base or base.version
            s.flush()
            return _round_record(s, r)

    def request_cancel(self, round_id: int, user: UserRecord) -> RoundRecord:
        """Cancel a round: a queued one at once, one under way as soon as its worker sees it."""
        require_role(user.role, "admin", "cancelling a training round")
        with self.sessions.writing() as s:
            r = s.get(m.Round, round_id)
            if r is None:
                raise NotFound(f"no round #{round_id}")
            if r.status not in ACTIVE:
                raise InputError(f"round #{r.id} is {r.status} already; nothing to cancel")
            if r.status == "queued":
                _finish(s, r, "cancelled", "cancelled before it started")
            else:
                r.cancel_requested = True
            s.flush()
            return _round_record(s, r)

    # --- the worker's side ----------------------------------------------------------------------
    def claim(self, round_id: int, worker: str) -> RoundRecord | None:
        """Start a queued round for ``worker`` (host:pid); None when it is not queued (already
        run, cancelled meanwhile, or claimed by another message for the same round)."""
        now = m.utcnow()
        with self.sessions.writing() as s:
            done = s.execute(update(m.Round).where(m.Round.id == round_id,
                                                   m.Round.status == "queued")
                             .values(status="running", started_at=now, heartbeat_at=now,
                                     worker=worker[:200])).rowcount
            if not done:
                return None
            return _round_record(s, s.get(m.Round, round_id))

    def report(self, round_id: int, events: Sequence[dict[str, Any]] = (),
               log: str | None = None, worker: str | None = None) -> bool:
        """Progress of a running round: its new progress lines, the latest step, the tail of
        its log, a heartbeat. Returns whether an admin asked to cancel it."""
        with self.sessions.writing() as s:
            r = s.get(m.Round, round_id)
            if r is None:
                raise NotFound(f"no round #{round_id}")
            for e in events:
                s.add(m.RoundEvent(round_id=round_id, event=_json(e)))
                if isinstance(e.get("step"), int) and e.get("event") in ("start", "step", "done"):
                    r.step = max(r.step or 0, e["step"])
                if isinstance(e.get("max_steps"), int) and e["max_steps"] > 0:
                    r.max_steps = e["max_steps"]
            if log is not None:
                r.log = tail(log)
            if worker is not None:
                r.worker = worker[:200]
            r.heartbeat_at = m.utcnow()
            return bool(r.cancel_requested)

    def set_status(self, round_id: int, status: str) -> None:
        """Move a round under way to another active status (``benchmarking``)."""
        if status not in ACTIVE:
            raise ValueError(f"{status!r} is not an active round status")
        with self.sessions.writing() as s:
            s.execute(update(m.Round).where(m.Round.id == round_id,
                                            m.Round.status.in_(ACTIVE))
                      .values(status=status, heartbeat_at=m.utcnow()))

    def finish(self, round_id: int, status: str, error: str = "", log: str | None = None,
               scores: dict[str, Any] | None = None,
               comparison: dict[str, Any] | None = None) -> RoundRecord:
        """End a round: ``done`` (its version becomes ``ready`` with ``scores``), ``failed`` or
        ``cancelled`` (its version ``failed``; the serving version is never touched). A round
        that ended already (cancelled while queued, failed as stale) is left as it is."""
        if status not in ("done", "failed", "cancelled"):
            raise ValueError(f"{status!r} does not end a round")
        with self.sessions.writing() as s:
            r = s.get(m.Round, round_id)
            if r is None:
                raise NotFound(f"no round #{round_id}")
            if r.status in ACTIVE:
                _finish(s, r, status, error, log, scores, comparison)
            s.flush()
            return _round_record(s, r)

    def fail_active(self, message: str, stale_before: datetime | None = None,
                    statuses: Iterable[str] = ("running", "benchmarking")) -> list[int]:
        """Mark failed the rounds under way whose worker is gone: all of them (a worker starting
        up: no other worker ran them), or those whose last heartbeat is before
        ``stale_before``. Returns their ids."""
        failed = []
        with self.sessions.writing() as s:
            for r in s.scalars(select(m.Round).where(m.Round.status.in_(list(statuses)))):
                beat = utc(r.heartbeat_at or r.started_at or r.created_at)
                if stale_before is None or beat < stale_before:
                    _finish(s, r, "failed", message)
                    failed.append(r.id)
        return failed

    def trained_mark(self) -> int:
        """The newest gold pair id the last finished round trained on (0: none yet): what
        "new since the last round" counts from."""
        with self.sessions.reading() as s:
            for data in s.scalars(select(m.Round.data).where(m.Round.status == "done")
                                  .order_by(m.Round.id.desc())):
                return int((data or {}).get("max_gold_pair_id") or 0)
        return 0


def new_folder() -> str:
    """A folder name for a round's files and its version: sortable and unique."""
    return f"{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}-{secrets.token_hex(3)}"


def _finish(s: Session, r: m.Round, status: str, error: str = "", log: str | None = None,
            scores: dict[str, Any] | None = None,
            comparison: dict[str, Any] | None = None) -> None:
    r.status, r.error, r.finished_at = status, (error or "")[:2000], m.utcnow()
    if log is not None:
        r.log = tail(log)
    if comparison is not None:
        r.comparison = _json(comparison)
    v = s.scalar(select(m.ModelVersion).where(m.ModelVersion.round_id == r.id))
    if v is not None and v.status == "training":
        v.status = "ready" if status == "done" else "failed"
        if scores is not None:
            v.scores = _json(scores)


def _json(d: dict[str, Any]) -> dict[str, Any]:
    """Only what JSON columns hold (the events come from another process's output)."""
    return {str(k): v for k, v in (d or {}).items() if jsonable(v)}


def _round_record(s: Session, r: m.Round) -> RoundRecord:
    v = s.scalar(select(m.ModelVersion).where(m.ModelVersion.round_id == r.id))
    who = s.get(m.User, r.created_by).name if r.created_by else None
    return RoundRecord(r.id, r.stage, r.status, dict(r.config or {}), dict(r.data or {}), who,
                       utc(r.created_at), utc(r.started_at), utc(r.finished_at),
                       utc(r.heartbeat_at), bool(r.cancel_requested), r.worker or "",
                       r.step or 0, r.max_steps, r.error or "", r.log or "",
                       dict(r.comparison or {}), v.id if v else None,
                       v.parent_id if v else None)

