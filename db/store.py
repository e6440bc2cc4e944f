"""The store's use-case persistence: one short transaction per call, records out, domain errors.

Optimistic locking: a clip's ``version`` goes up with every saved review. A save names the version
its editor loaded; when someone saved in between, :class:`StoreConflict` carries both versions.
"""
from __future__ import annotations

import logging
import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Sequence

from sqlalchemy import func, select
from sqlalchemy.exc import (ArgumentError, IntegrityError, NoSuchModuleError,
                            OperationalError)
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.orm.exc import StaleDataError

from cinecap.errors import InputError, UnavailableError
from db import models as m
from cinecap.files import sha256_file
from db.engine import is_sqlite, make_engine, redact_url, write_engine
from db.errors import NotFound, StoreConflict
from db.passwords import hash_password, verify_password
from db.records import (ClipRecord, EditRecord, GoldPairRecord, QueueItem, ReviewSnapshot,
                        UserRecord)
from db.roles import check_role, require_role

log = logging.getLogger(__name__)

EDIT_ACTIONS = ("accept", "fix", "reject", "add", "delete")
_STATEMENT_FIELDS = ("aspect", "value", "text", "t_start", "t_end", "evidence", "subject",
                     "confidence", "measurements")


class Store:
    """All persistence the app needs. ``data_dir`` keeps the uploaded clips (``clips/``)."""

    def __init__(self, url: str, data_dir: str | Path, migrate: bool = True, echo: bool = False):
        self.url = url
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        try:
            self.engine = make_engine(url, echo=echo)
        except (ArgumentError, NoSuchModuleError, ImportError) as e:  # ImportError: no driver
            raise InputError(f"the database URL {redact_url(url)!r} is not usable: {e}. Use "
                             "sqlite:///PATH or postgresql+psycopg://USER@HOST/DB") from None
        self._read = sessionmaker(self.engine, expire_on_commit=False)
        self._write = sessionmaker(write_engine(self.engine), expire_on_commit=False)
        if migrate:
            from db.migrate import upgrade

            try:
                upgrade(self.engine)
            except OperationalError as e:
                self.engine.dispose()
                raise UnavailableError(f"cannot open the database {redact_url(url)}: "
                                       f"{str(e.orig or e).strip().splitlines()[0]}") from None

    @property
    def backend(self) -> str:
        return "sqlite" if is_sqlite(self.url) else self.engine.dialect.name

    def close(self) -> None:
        self.engine.dispose()

    @contextmanager
    def writing(self) -> Iterator[Session]:
        with self._write.begin() as s:
            yield s

    @contextmanager
    def reading(self) -> Iterator[Session]:
        with self._read() as s:
            yield s

    # --- users ---------------------------------------------------------------------------------
    def add_user(self, name: str, role: str, password: str | None,
                 provider: str = "local") -> UserRecord:
        name = (name or "").strip()
        if not name:
            raise ValueError("the user name is empty")
        check_role(role)
        if provider == "local" and not password:
            raise ValueError("a local account needs a password")
        try:
            with self.writing() as s:
                u = m.User(name=name, role=role, provider=provider,
                           password_hash=hash_password(password) if password else None)
                s.add(u)
                s.flush()
                return _user(u)
        except IntegrityError:
            raise StoreConflict(f"a user named {name!r} already exists") from None

    def set_role(self, name: str, role: str) -> UserRecord:
        check_role(role)
        with self.writing() as s:
            u = s.scalar(select(m.User).where(m.User.name == name))
            if u is None:
                raise NotFound(f"no user named {name!r}")
            u.role = role
            return _user(u)

    def ensure_user(self, name: str, role: str, provider: str) -> UserRecord:
        """An OAuth user's account, made on first sight with ``role``; an existing one is kept."""
        existing = self.get_user(name)
        if existing is not None:
            return existing
        try:
            return self.add_user(name, role, None, provider=provider)
        except StoreConflict:  # made by a concurrent first request
            return self.get_user(name)

    def get_user(self, name: str) -> UserRecord | None:
        with self.reading() as s:
            u = s.scalar(select(m.User).where(m.User.name == name))
            return _user(u) if u else None

    def users(self) -> list[UserRecord]:
        with self.reading() as s:
            return [_user(u) for u in s.scalars(select(m.User).order_by(m.User.name))]

    def has_local_users(self) -> bool:
        with self.reading() as s:
            return bool(s.scalar(select(func.count()).select_from(m.User)
                                 .where(m.User.password_hash.is_not(None))))

    def check_password(self, name: str, password: str) -> UserRecord | None:
        with self.reading() as s:
            u = s.scalar(select(m.User).where(m.User.name == name))
            if u is None or not verify_password(password, u.password_hash):
                return None
            return _user(u)

    # --- clips and captions ---------------------------------------------------------------------
    def add_clip(self, src: str | Path, filename: str, info: dict[str, Any],
                 user: UserRecord | None) -> ClipRecord:
        """Copy a validated clip under the data directory, once per content (sha256)."""
        src = Path(src)
        digest = sha256_file(src)
        with self.reading() as s:
            found = s.scalar(select(m.Clip).where(m.Clip.sha256 == digest))
            if found is not None:
                return self._clip(found)
        rel = Path("clips") / digest[:2] / f"{digest}{src.suffix.lower() or '.mp4'}"
        dest = self.data_dir / rel
        if not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            tmp = dest.with_suffix(dest.suffix + ".part")
            shutil.copyfile(src, tmp)
            tmp.replace(dest)  # atomic: a reader never sees half a clip
        try:
            with self.writing() as s:
                c = m.Clip(sha256=digest, filename=Path(filename).name[:300], path=rel.as_posix(),
                           size_bytes=src.stat().st_size, duration=info.get("duration"),
                           fps=info.get("fps"), width=info.get("width"), height=info.get("height"),
                           meta={k: v for k, v in info.items() if _jsonable(v)},
                           uploaded_by=user.id if user else None)
                s.add(c)
                s.flush()
                return self._clip(c)
        except IntegrityError:  # the same clip uploaded concurrently
            with self.reading() as s:
                return self._clip(s.scalar(select(m.Clip).where(m.Clip.sha256 == digest)))

    def get_clip(self, clip_id: int) -> ClipRecord:
        with self.reading() as s:
            c = s.get(m.Clip, clip_id)
            if c is None:
                raise NotFound(f"no clip #{clip_id}")
            return self._clip(c)

    def clips(self) -> list[ClipRecord]:
        with self.reading() as s:
            return [self._clip(c) for c in s.scalars(select(m.Clip).order_by(m.Clip.id))]

    def add_caption(self, clip_id: int, result: dict[str, Any], captioner: str,
                    model_version: str, user: UserRecord | None,
                    model_meta: dict[str, Any] | None = None) -> int:
        """Store one captioner run (``CaptionResult.to_dict()``) with its statements."""
        sts = list(result.get("statements") or [])
        confs = [st["confidence"] for st in sts if st.get("confidence") is not None]
        with self.writing() as s:
            if s.get(m.Clip, clip_id) is None:
                raise NotFound(f"no clip #{clip_id}")
            mv = self._model_version(s, captioner, model_version, model_meta or {})
            cap = m.Caption(clip_id=clip_id, model_version_id=mv.id,
                            caption=result.get("caption") or "",
                            reasoning=result.get("reasoning") or "",
                            seconds=float(result.get("seconds") or 0.0),
                            certainty=sum(confs) / len(confs) if confs else None,
                            warnings=list(result.get("warnings") or []),
                            meta={k: v for k, v in (result.get("meta") or {}).items()
                                  if _jsonable(v)},
                            created_by=user.id if user else None)
            cap.statements = [_statement_row(st, i) for i, st in enumerate(sts)]
            s.add(cap)
            s.flush()
            return cap.id

    def _model_version(self, s: Session, captioner: str, version: str,
                       meta: dict[str, Any]) -> m.ModelVersion:
        mv = s.scalar(select(m.ModelVersion).where(m.ModelVersion.captioner == captioner,
                                                   m.ModelVersion.version == version))
        if mv is None:
            # A savepoint, so a concurrent insert of the same version does not undo the caller.
            try:
                with s.begin_nested():
                    mv = m.ModelVersion(captioner=captioner, version=version, meta=meta)
                    s.add(mv)
            except IntegrityError:
                mv = s.scalar(select(m.ModelVersion).where(
                    m.ModelVersion.captioner == captioner, m.ModelVersion.version == version))
        return mv

    def latest_caption(self, clip_id: int) -> dict[str, Any] | None:
        with self.reading() as s:
            cap = s.scalar(select(m.Caption).where(m.Caption.clip_id == clip_id)
                           .order_by(m.Caption.id.desc()).limit(1))
            return _caption(s, cap) if cap else None

    def add_judge_result(self, caption_id: int, gold_caption: str, result: dict[str, Any],
                         gold_pair_id: int | None = None) -> int:
        with self.writing() as s:
            jr = m.JudgeResult(caption_id=caption_id, gold_pair_id=gold_pair_id,
                               gold_caption=gold_caption, judge=result.get("judge") or "",
                               judge_version=result.get("judge_version") or "",
                               f1=result.get("f1"), result=result)
            s.add(jr)
            s.flush()
            return jr.id

    def judge_results(self, caption_id: int) -> list[dict[str, Any]]:
        with self.reading() as s:
            rows = s.scalars(select(m.JudgeResult).where(m.JudgeResult.caption_id == caption_id)
                             .order_by(m.JudgeResult.id))
            return [{"id": r.id, "judge": r.judge, "f1": r.f1, "gold_caption": r.gold_caption,
                     "gold_pair_id": r.gold_pair_id, "result": r.result} for r in rows]

    # --- review ---------------------------------------------------------------------------------
    def review_queue(self, limit: int = 100) -> list[QueueItem]:
        """Clips still needing work, least certain model caption first.

        Clips whose newest gold pair is accepted are done; the rest are ordered by the newest
        caption's certainty (unknown counts as least certain), then oldest first. Four queries,
        however many clips there are.
        """
        with self.reading() as s:
            newest_cap = dict(s.execute(select(m.Caption.clip_id, func.max(m.Caption.id))
                                        .group_by(m.Caption.clip_id)).all())
            gold_stats = {cid: (n, last) for cid, n, last in s.execute(
                select(m.GoldPair.clip_id, func.count(), func.max(m.GoldPair.id))
                .group_by(m.GoldPair.clip_id)).all()}
            last_status = dict(s.execute(select(m.GoldPair.id, m.GoldPair.status).where(
                m.GoldPair.id.in_([last for _, last in gold_stats.values()] or [-1]))).all())
            rows = s.execute(
                select(m.Clip.id, m.Clip.filename, m.Caption.certainty, m.ModelVersion.captioner)
                .join(m.Caption, m.Caption.clip_id == m.Clip.id)
                .join(m.ModelVersion, m.ModelVersion.id == m.Caption.model_version_id)
                .where(m.Caption.id.in_(list(newest_cap.values()) or [-1]))).all()
        items = []
        for clip_id, filename, certainty, captioner in rows:
            n, last = gold_stats.get(clip_id, (0, None))
            status = last_status.get(last, "to review")
            if status != "accepted":
                items.append(QueueItem(clip_id, filename, certainty, n, status.replace("_", " "),
                                       captioner))
        items.sort(key=lambda q: (-1.0 if q.certainty is None else q.certainty, q.clip_id))
        return items[:limit]

    def load_review(self, clip_id: int) -> ReviewSnapshot:
        """The statements to edit: the newest gold pair's, else the newest model caption's."""
        with self.reading() as s:
            clip = s.get(m.Clip, clip_id)
            if clip is None:
                raise NotFound(f"no clip #{clip_id}")
            cap = s.scalar(select(m.Caption).where(m.Caption.clip_id == clip_id)
                           .order_by(m.Caption.id.desc()).limit(1))
            gold = s.scalar(select(m.GoldPair).where(m.GoldPair.clip_id == clip_id)
                            .order_by(m.GoldPair.id.desc()).limit(1))
            if gold is not None:
                sts = [_statement_dict(r) for r in gold.statements]
                source = f"gold pair #{gold.id} by {s.get(m.User, gold.annotator_id).name}"
            elif cap is not None:
                sts = [_statement_dict(r) for r in cap.statements]
                mv = s.get(m.ModelVersion, cap.model_version_id)
                source = f"model caption #{cap.id} ({mv.captioner})"
            else:
                sts, source = [], "no caption yet"
            return ReviewSnapshot(self._clip(clip), clip.version, sts, source,
                                  cap.id if cap else None, gold.id if gold else None,
                                  cap.caption if cap else "")

    def save_review(self, clip_id: int, expected_version: int, user: UserRecord,
                    statements: Sequence[dict[str, Any]], edits: Sequence[dict[str, Any]],
                    caption: str, reasoning: str = "",
                    source_caption_id: int | None = None) -> GoldPairRecord:
        """Store a gold pair and its edit history in one transaction, if nobody saved meanwhile.

        ``edits`` are ``{"action", "before", "after"}`` (before/after: statement dicts or None).
        Raises StoreConflict with your statements and the stored ones when the clip moved on.
        """
        require_role(user.role, "annotator", "saving a review")
        for e in edits:
            if e.get("action") not in EDIT_ACTIONS:
                raise ValueError(f"unknown edit action {e.get('action')!r}; known: {EDIT_ACTIONS}")
        try:
            with self.writing() as s:
                clip = s.get(m.Clip, clip_id)
                if clip is None:
                    raise NotFound(f"no clip #{clip_id}")
                if clip.version != expected_version:
                    raise self._conflict(s, clip, expected_version, statements)
                clip.updated_at = m.utcnow()  # bumps clip.version (UPDATE … WHERE version = ?)
                s.flush()
                gold = m.GoldPair(clip_id=clip_id, annotator_id=user.id, caption=caption,
                                  reasoning=reasoning, clip_version=clip.version,
                                  source_caption_id=source_caption_id)
                gold.statements = [_statement_row(st, i) for i, st in enumerate(statements)]
                s.add(gold)
                s.flush()
                for e in edits:
                    s.add(m.StatementEdit(clip_id=clip_id, gold_pair_id=gold.id, user_id=user.id,
                                          action=e["action"], before=e.get("before"),
                                          after=e.get("after")))
                s.flush()
                return _gold(s, gold)
        except StaleDataError:
            # PostgreSQL: a concurrent save committed between our read and our UPDATE.
            with self.reading() as s:
                clip = s.get(m.Clip, clip_id)
                raise self._conflict(s, clip, expected_version, statements) from None

    def _conflict(self, s: Session, clip: m.Clip, expected: int,
                  yours: Sequence[dict[str, Any]]) -> StoreConflict:
        gold = s.scalar(select(m.GoldPair).where(m.GoldPair.clip_id == clip.id)
                        .order_by(m.GoldPair.id.desc()).limit(1))
        theirs = _gold(s, gold) if gold else None
        who = f" by {theirs.annotator} at {theirs.created_at:%H:%M:%S}" if theirs else ""
        return StoreConflict(
            f"clip #{clip.id} was saved{who} after you opened it (you had version {expected}, "
            f"it is now {clip.version}). Nothing was overwritten: both versions are shown; "
            "reload, merge your changes and save again.",
            yours=list(yours), theirs=theirs, expected_version=expected,
            current_version=clip.version)

    def gold_pairs(self, clip_id: int | None = None,
                   status: str | None = None) -> list[GoldPairRecord]:
        with self.reading() as s:
            q = select(m.GoldPair).order_by(m.GoldPair.id)
            if clip_id is not None:
                q = q.where(m.GoldPair.clip_id == clip_id)
            if status is not None:
                q = q.where(m.GoldPair.status == status)
            return [_gold(s, g) for g in s.scalars(q)]

    def get_gold_pair(self, gold_id: int) -> GoldPairRecord:
        with self.reading() as s:
            g = s.get(m.GoldPair, gold_id)
            if g is None:
                raise NotFound(f"no gold pair #{gold_id}")
            return _gold(s, g)

    def decide_gold(self, gold_id: int, reviewer: UserRecord, decision: str,
                    expected_version: int, note: str = "") -> GoldPairRecord:
        """A reviewer accepts or sends back a gold pair (``decision``: accepted | sent_back)."""
        require_role(reviewer.role, "reviewer", "accepting or sending back a gold pair")
        if decision not in ("accepted", "sent_back"):
            raise ValueError(f"unknown decision {decision!r}; use 'accepted' or 'sent_back'")
        try:
            with self.writing() as s:
                g = s.get(m.GoldPair, gold_id)
                if g is None:
                    raise NotFound(f"no gold pair #{gold_id}")
                if g.version != expected_version:
                    raise StoreConflict(
                        f"gold pair #{gold_id} was decided by someone else meanwhile "
                        f"(now {g.status}); reload it.", theirs=_gold(s, g),
                        expected_version=expected_version, current_version=g.version)
                before = {"status": g.status}
                g.status, g.reviewer_id, g.review_note = decision, reviewer.id, note
                g.reviewed_at = m.utcnow()
                s.flush()
                s.add(m.StatementEdit(clip_id=g.clip_id, gold_pair_id=g.id, user_id=reviewer.id,
                                      action="review", before=before,
                                      after={"status": decision, "note": note}))
                s.flush()
                return _gold(s, g)
        except StaleDataError:
            with self.reading() as s:
                g = s.get(m.GoldPair, gold_id)
                raise StoreConflict(f"gold pair #{gold_id} was decided by someone else meanwhile "
                                    f"(now {g.status}); reload it.", theirs=_gold(s, g),
                                    expected_version=expected_version,
                                    current_version=g.version) from None

    def history(self, clip_id: int | None = None) -> list[EditRecord]:
        with self.reading() as s:
            q = select(m.StatementEdit, m.User.name).join(m.User,
                                                           m.User.id == m.StatementEdit.user_id)
            if clip_id is not None:
                q = q.where(m.StatementEdit.clip_id == clip_id)
            return [EditRecord(e.id, e.clip_id, e.gold_pair_id, name, e.action, e.before, e.after,
                               e.at) for e, name in s.execute(q.order_by(m.StatementEdit.id))]

    def counts(self) -> dict[str, int]:
        """Rows per table (for tests and the admin's overview)."""
        tables = {"users": m.User, "clips": m.Clip, "captions": m.Caption,
                  "model_versions": m.ModelVersion, "statements": m.StatementRow,
                  "gold_pairs": m.GoldPair, "statement_edits": m.StatementEdit,
                  "judge_results": m.JudgeResult}
        with self.reading() as s:
            return {k: s.scalar(select(func.count()).select_from(t)) for k, t in tables.items()}

    def _clip(self, c: m.Clip) -> ClipRecord:
        return ClipRecord(c.id, c.sha256, c.filename, str(self.data_dir / c.path), c.size_bytes,
                          c.duration, c.fps, c.width, c.height, c.version, dict(c.meta or {}))


# --- row ↔ dict -------------------------------------------------------------------------------
def _jsonable(v: Any) -> bool:
    return isinstance(v, (str, int, float, bool, type(None), list, dict))


def _user(u: m.User) -> UserRecord:
    return UserRecord(u.id, u.name, u.role, u.provider)


def _statement_row(st: dict[str, Any], position: int) -> m.StatementRow:
    d = {k: st.get(k) for k in _STATEMENT_FIELDS}
    d["evidence"] = d["evidence"] or ""
    d["measurements"] = {k: v for k, v in (d["measurements"] or {}).items() if _jsonable(v)}
    return m.StatementRow(position=position, **d)


def _statement_dict(r: m.StatementRow) -> dict[str, Any]:
    return {k: getattr(r, k) for k in _STATEMENT_FIELDS}


def _caption(s: Session, cap: m.Caption) -> dict[str, Any]:
    mv = s.get(m.ModelVersion, cap.model_version_id)
    return {"id": cap.id, "clip_id": cap.clip_id, "caption": cap.caption,
            "reasoning": cap.reasoning, "seconds": cap.seconds, "certainty": cap.certainty,
            "warnings": list(cap.warnings or []), "captioner": mv.captioner,
            "model_version": mv.version, "statements": [_statement_dict(r) for r in cap.statements]}


def _gold(s: Session, g: m.GoldPair) -> GoldPairRecord:
    reviewer = s.get(m.User, g.reviewer_id).name if g.reviewer_id else None
    return GoldPairRecord(g.id, g.clip_id, s.get(m.User, g.annotator_id).name, g.caption, g.status,
                          g.version, [_statement_dict(r) for r in g.statements], g.created_at,
                          reviewer, g.review_note or "", g.source_caption_id,
                          g.clip_version)
