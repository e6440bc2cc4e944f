"""How records and use-case results read on the page: table headers and rows, times, scores, and
messages made safe for HTML. Shared by every tab (Gradio-free: plain lists and strings)."""
from __future__ import annotations

import html
from typing import Any, Iterable, Mapping, Sequence

STATEMENT_HEADERS = ["aspect", "value", "start (s)", "end (s)", "statement", "evidence"]
SCORE_HEADERS = ["aspect", "gold", "predicted", "matched"]
QUEUE_HEADERS = ["clip", "file", "certainty", "gold pairs", "status", "captioner"]
DRAFT_HEADERS = ["#", "status", *STATEMENT_HEADERS]
HISTORY_HEADERS = ["id", "at", "user", "action", "gold pair", "before", "after"]
GOLD_HEADERS = ["gold pair", "annotator", "status", "version", "reviewer", "note", "caption"]
AGREEMENT_HEADERS = ["aspect", "agreement"]


def seconds(v: float | None) -> str:
    """A time in seconds as the tables show it ("" for a statement without an interval)."""
    return "" if v is None else f"{v:.2f}"


def fraction(v: float | None) -> str:
    """A score or certainty in [0, 1] ("" when unknown)."""
    return "" if v is None else f"{v:.2f}"


def escaped(text: str) -> str:
    """``text`` safe inside HTML: Gradio renders error messages as HTML, and a message may quote
    a file name or a statement someone typed."""
    return html.escape(text)


def statement_rows(statements: Iterable[Mapping[str, Any]]) -> list[list[Any]]:
    return [[st["aspect"], st["value"], seconds(st.get("t_start")), seconds(st.get("t_end")),
             st.get("text") or "", st.get("evidence") or ""] for st in statements]


def score_rows(judge: Mapping[str, Any] | None) -> list[list[Any]]:
    """Judge counts per aspect (gold, predicted, matched), then the totals."""
    if not judge:
        return []
    rows = [[a, d["gt_count"], d["pred_count"], d["matched_count"]]
            for a, d in judge["by_dim"].items()]
    rows.append(["total", judge["total_gt_count"], judge["total_pred_count"],
                 judge["total_matched_count"]])
    return rows


def score_summary(judge: Mapping[str, Any] | None) -> str:
    if not judge:
        return "no gold caption: type one above (or save a review) to score this caption"
    if judge.get("failed"):
        return f"the judge failed: {judge.get('error')}"
    return (f"comprehensiveness {judge['comprehensiveness']:.2f} · accuracy "
            f"{judge['accuracy']:.2f} · F1 {judge['f1']:.2f} ({judge['judge']} judge)")


def queue_rows(items: Iterable[Any]) -> list[list[Any]]:
    """Rows of the review queue (``db.records.QueueItem``)."""
    return [[q.clip_id, q.filename, fraction(q.certainty), q.gold_pairs, q.status, q.captioner]
            for q in items]


def draft_rows(draft: Any) -> list[list[Any]]:
    """A review draft's statements, numbered from 1, with each one's status."""
    if draft is None:
        return []
    return [[i + 1, it.status, *statement_rows([it.current or it.original])[0]]
            for i, it in enumerate(draft.items)]


def gold_rows(golds: Iterable[Any]) -> list[list[Any]]:
    """Rows of gold pairs (``db.records.GoldPairRecord``)."""
    return [[g.id, g.annotator, g.status, g.version, g.reviewer or "", g.review_note, g.caption]
            for g in golds]


def history_rows(history: Sequence[Mapping[str, Any]]) -> list[list[Any]]:
    """Rows of the edit history (``ui.usecases.review.history``)."""
    return [[h["id"], h["at"], h["user"], h["action"], h["gold_pair"], h["before"], h["after"]]
            for h in history]


def agreement_rows(agreement: Mapping[str, float | None]) -> list[list[Any]]:
    return [[aspect, fraction(v)] for aspect, v in agreement.items()]
