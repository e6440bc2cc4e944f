"""Judge results: one judgement of a stored caption against a gold caption."""
from __future__ import annotations

from typing import Any

from sqlalchemy import select

from db import models as m
from db.limits import MAX_CAPTION_CHARS, check_text
from db.records import JudgeResultRecord
from db.repositories.base import Repository


class JudgeResultRepository(Repository):
    def add(self, caption_id: int, gold_caption: str, result: dict[str, Any],
            gold_pair_id: int | None = None) -> JudgeResultRecord:
        """Store ``result`` (the judge JSON, ``JudgeResult.to_dict()``) for the caption.
        InputError when the gold caption is over :data:`db.limits.MAX_CAPTION_CHARS`: the store
        keeps the limit for every path (the Caption tab's typed gold caption stored 30 MB)."""
        check_text("gold caption", gold_caption, MAX_CAPTION_CHARS)
        with self.sessions.writing() as s:
            jr = m.JudgeResult(caption_id=caption_id, gold_pair_id=gold_pair_id,
                               gold_caption=gold_caption, judge=result.get("judge") or "",
                               judge_version=result.get("judge_version") or "",
                               f1=result.get("f1"), result=result)
            s.add(jr)
            s.flush()
            return _record(jr)

    def for_caption(self, caption_id: int) -> list[JudgeResultRecord]:
        """The caption's judgements, oldest first."""
        with self.sessions.reading() as s:
            return [_record(r) for r in s.scalars(
                select(m.JudgeResult).where(m.JudgeResult.caption_id == caption_id)
                .order_by(m.JudgeResult.id))]


def _record(r: m.JudgeResult) -> JudgeResultRecord:
    return JudgeResultRecord(r.id, r.caption_id, r.judge, r.judge_version, r.f1, r.gold_caption,
                             r.gold_pair_id, dict(r.result or {}))
