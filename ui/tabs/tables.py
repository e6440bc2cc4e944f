"""How records and use-case results read on the page: table headers and rows, times, scores, and
messages made safe for HTML. Shared by every tab (Gradio-free: plain lists and strings)."""
from __future__ import annotations

import html
from typing import Any, Iterable, Mapping, Sequence

from cinecap import taxonomy as tx

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


# --- the Train tab: gold pairs, rounds, versions, comparisons ------------------------------------
PAIR_HEADERS = ["aspect", "gold statements", "new since the last round"]
VERSION_HEADERS = ["version", "status", "trained from", "round", "stage", "held-out F1",
                   "created", "promoted"]
ROUND_HEADERS = ["round", "stage", "status", "step", "version", "gold pairs", "held-out clips",
                 "started", "finished", "by", "error"]
USER_HEADERS = ["name", "role", "sign-in"]


def when(dt: Any) -> str:
    """A stored time as the tables show it (UTC, to the second; "" when unset)."""
    return dt.strftime("%Y-%m-%d %H:%M:%S") if dt is not None else ""


def pair_rows(per_aspect: Mapping[str, tuple[int, int]]) -> list[list[Any]]:
    """Gold statements per aspect, and how many of them are new since the last round."""
    rows = [[a, n, new] for a, (n, new) in per_aspect.items()]
    rows.append(["total", sum(n for n, _ in per_aspect.values()),
                 sum(new for _, new in per_aspect.values())])
    return rows


def version_rows(versions: Iterable[Any]) -> list[list[Any]]:
    """Rows of managed model versions (``db.records.ModelVersionRecord``)."""
    return [[v.id, v.status, f"#{v.parent_id}" if v.parent_id else "(base)",
             v.round_id or "", v.stage, fraction((v.scores or {}).get("f1")), when(v.created_at),
             when(v.promoted_at)] for v in versions]


def round_rows(rounds: Iterable[Any]) -> list[list[Any]]:
    """Rows of training rounds (``db.records.RoundRecord``)."""
    return [[r.id, r.stage, r.status, f"{r.step}/{r.max_steps or '?'}", r.version_id or "",
             r.data.get("pairs", ""), r.data.get("heldout_clips", ""), when(r.started_at),
             when(r.finished_at), r.created_by or "", r.error] for r in rounds]


def user_rows(users: Iterable[Any]) -> list[list[Any]]:
    return [[u.name, u.role, u.provider] for u in users]


def round_summary(view: Any) -> str:
    """One Markdown paragraph: which round, its state, its step and latest figures."""
    r = view.round
    if r is None:
        return "No round yet: launch one below."
    base = f" from version #{r.base_version_id}" if r.base_version_id else ""
    parts = [f"**Round #{r.id}** · {r.stage.upper()}{base} · **{r.status}**"]
    if r.status in ("running", "benchmarking", "done") or r.step:
        parts.append(f"step {r.step} of {r.max_steps or '?'}")
    last = view.last or {}
    for key in ("loss", "reward"):
        if isinstance(last.get(key), (int, float)):
            parts.append(f"{key} {last[key]:.3f}")
    if r.status == "running" and isinstance(last.get("eta_s"), (int, float)):
        parts.append(f"about {last['eta_s']:.0f} s left")
    if r.status == "benchmarking":
        parts.append("scoring the new version and the serving one on the held-out clips")
    if r.cancel_requested and r.active:
        parts.append("cancelling…")
    text = " · ".join(parts)
    if r.error:
        text += f"\n\n{escaped(r.error)}"
    return text


def _aspect_score(scores: Mapping[str, Any] | None, aspect: str) -> float | None:
    if not scores:
        return None
    agg = (scores.get("by_aspect") or {}).get(aspect)
    return None if agg is None else agg.get("mean_all_clips")


#: The overall rows of a comparison: (label, key in the scores).
OVERALL = (("F1 (overall)", "f1"), ("comprehensiveness", "comprehensiveness"),
           ("accuracy", "accuracy"))


def compare_table(comparison: Mapping[str, Any]) -> tuple[list[str], list[list[Any]]]:
    """(headers, rows): per aspect the held-out score (mean of comprehensiveness and accuracy
    over the clips, the paper's per-aspect figure) of the serving version beside the new one,
    and the change; then F1, comprehensiveness and accuracy overall."""
    new = (comparison.get("new") or {})
    old = (comparison.get("serving") or {})
    headers = ["aspect", f"serving {old.get('label', '(none)')}",
               f"new {new.get('label', '')}".strip(), "change"]
    if not new.get("scores"):
        return headers, []
    rows = []
    for aspect in (new["scores"].get("by_aspect") or {}):
        a, b = _aspect_score(old.get("scores"), aspect), _aspect_score(new["scores"], aspect)
        rows.append([aspect, fraction(a), fraction(b), _change(a, b)])
    for label, key in OVERALL:
        a = (old.get("scores") or {}).get(key)
        b = new["scores"].get(key)
        rows.append([label, fraction(a), fraction(b), _change(a, b)])
    return headers, rows


#: The bars of the comparison chart, in order: each aspect (then F1) for the serving version,
#: then for the new one, side by side.
BAR_SIDES = ("serving", "new")
BAR_ORDER = [f"{a} · {side}" for a in (*tx.ASPECTS, "F1 (overall)") for side in BAR_SIDES]


def compare_bars(comparison: Mapping[str, Any]) -> list[tuple[str, str, float]]:
    """(bar, side, score) for the bar chart: the serving and the new version side by side on
    every aspect (the per-aspect figure of :func:`compare_table`) and on F1; ``bar`` is one of
    :data:`BAR_ORDER`, ``side`` serving or new."""
    out = []
    for side in BAR_SIDES:
        part = comparison.get(side) or {}
        scores = part.get("scores")
        if not scores:
            continue
        name = side
        for aspect in scores.get("by_aspect") or {}:
            out.append((f"{aspect} · {side}", name, float(_aspect_score(scores, aspect) or 0.0)))
        out.append((f"F1 (overall) · {side}", name, float(scores.get("f1") or 0.0)))
    return sorted(out, key=lambda bar: BAR_ORDER.index(bar[0]))


def _change(a: float | None, b: float | None) -> str:
    return "" if a is None or b is None else f"{b - a:+.2f}"
