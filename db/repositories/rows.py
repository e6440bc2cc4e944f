"""Rows → records (and statement dicts → rows), shared by the repositories.

Statements travel as ``cinecap.statements.Statement.to_dict()`` dicts: the library's statement
contract (aspect, value, text, t_start, t_end, evidence, subject, confidence, measurements), not
rows of a table.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session

from db import models as m
from db.records import CaptionRecord, ClipRecord, GoldPairRecord, UserRecord

STATEMENT_FIELDS = ("aspect", "value", "text", "t_start", "t_end", "evidence", "subject",
                    "confidence", "measurements")


def jsonable(v: Any) -> bool:
    return isinstance(v, (str, int, float, bool, type(None), list, dict))


def user_record(u: m.User) -> UserRecord:
    return UserRecord(u.id, u.name, u.role, u.provider)


def clip_record(c: m.Clip, data_dir: Path) -> ClipRecord:
    return ClipRecord(c.id, c.sha256, c.filename, str(data_dir / c.path), c.size_bytes,
                      c.duration, c.fps, c.width, c.height, c.version, dict(c.meta or {}))


def statement_values(st: dict[str, Any]) -> dict[str, Any]:
    """A statement's fields as they are stored (no evidence is "", measurements JSON only)."""
    d = {k: st.get(k) for k in STATEMENT_FIELDS}
    d["evidence"] = d["evidence"] or ""
    d["measurements"] = {k: v for k, v in (d["measurements"] or {}).items() if jsonable(v)}
    return d


def statement_row(st: dict[str, Any], position: int, uid: str | None = None) -> m.StatementRow:
    return m.StatementRow(position=position, uid=uid, **statement_values(st))


def statement_dict(r: Any) -> dict[str, Any]:
    """A statement row's fields (an ORM row or a table row)."""
    return {k: getattr(r, k) for k in STATEMENT_FIELDS}


def statement_uid(r: Any) -> str:
    """The statement's identity across versions: its stored uid, else ``r<row id>`` (a model
    caption's statements, and gold pairs stored before uids existed)."""
    return r.uid or f"r{r.id}"


def caption_record(s: Session, cap: m.Caption) -> CaptionRecord:
    mv = s.get(m.ModelVersion, cap.model_version_id)
    return CaptionRecord(cap.id, cap.clip_id, cap.caption, cap.reasoning, cap.seconds,
                         cap.certainty, list(cap.warnings or []), mv.captioner, mv.version,
                         [statement_dict(r) for r in cap.statements])


def gold_record(s: Session, g: m.GoldPair, annotator: str | None = None) -> GoldPairRecord:
    """``annotator``: their name when the caller has it, so it is not looked up."""
    reviewer = s.get(m.User, g.reviewer_id).name if g.reviewer_id else None
    if annotator is None:
        annotator = s.get(m.User, g.annotator_id).name
    return gold_pair_record(g, annotator, reviewer, g.statements)


def gold_pair_record(g: Any, annotator: str, reviewer: str | None,
                     statements: Any) -> GoldPairRecord:
    """A gold pair's record from its row (an ORM object or a table row: the same attributes),
    its users' names and its statement rows in order."""
    return GoldPairRecord(g.id, g.clip_id, annotator, g.caption, g.status, g.version,
                          [statement_dict(r) for r in statements], g.created_at, reviewer,
                          g.review_note or "", g.source_caption_id, g.clip_version,
                          [statement_uid(r) for r in statements], dict(g.notes or {}),
                          g.reviewed_at)
