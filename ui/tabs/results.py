"""How a caption result reads on the Caption tab, as HTML the page renders itself: the opening
explanation and the example cards, the statements (a table that stacks into cards on a phone), the
evidence of the shot at the player's current time and of every shot, and the scores in words.

Gradio-free: the markup is in ``ui/templates/results_*.html``, rendered autoescaped
(``ui/tabs/markup.py``): every piece of text from a caption, a judge, a file name or a person is
escaped where it is rendered; this module hands the templates numbers already written as the page
reads them. Page files are linked by their URL on Gradio's file route, which ``ui.serving`` guards
(docs/security.md): only files already in a page folder are linked here.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence
from urllib.parse import quote

from cinecap import taxonomy as tx
from cinecap.judge.limits import judge_limits
from ui.tabs.markup import Markup, render, static_text
from ui.tabs.tables import seconds

#: The Caption tab's results styles (``ui/static/results.css``).
RESULTS_CSS = static_text("results.css")


def file_url(path: str | Path) -> str:
    """The URL the page fetches a page file by (Gradio's file route, relative to the page)."""
    return "gradio_api/file=" + quote(str(path))


# --- the first visit ------------------------------------------------------------------------
def intro_html() -> str:
    """What the app does and how to read its results, in a few lines."""
    return render("results_intro.html", aspects=", ".join(a.lower() for a in tx.ASPECTS))


def examples_html(cards: Sequence[tuple[Any, str | None]]) -> str:
    """The example cards: (``ui.usecases.examples.Example``, thumbnail data URI or None). Each
    card's button carries ``data-example`` (the tab's script runs that example)."""
    if not cards:
        return ""
    return render("results_examples.html", cards=[
        {"key": ex.key, "title": ex.title, "about": ex.about, "credit": ex.credit,
         "link": ex.link or "",
         # Only an inline picture: a thumbnail never makes the page fetch another address.
         "poster": poster if poster and poster.startswith("data:image/") else ""}
        for ex, poster in cards])


# --- the result -----------------------------------------------------------------------------
def verdict_html(verdict: Any) -> str:
    """A statement's verdict against the pixels (``cinecap.verify.Verdict`` or its dict): a
    badge, and what was measured a click away."""
    d = verdict.to_dict() if hasattr(verdict, "to_dict") else dict(verdict or {})
    kind = str(d.get("verdict") or "")
    mark = VERDICT_MARKS.get(kind)
    if mark is None:
        return "—"
    return render("results_verdict.html", kind=kind, mark=mark, reason=str(d.get("reason") or ""))


#: The verdicts' marks (supported / contradicted / not measurable): not colour alone.
VERDICT_MARKS = {"supported": "✓", "contradicted": "✗", "not measurable": "·"}


def statements_html(statements: Sequence[Mapping[str, Any]], player: str,
                    review_clip: int | None = None, failure: str = "",
                    verdicts: Sequence[Any] = ()) -> str:
    """The statements as a table; a row with an interval plays it when clicked (or on Enter).
    ``review_clip``: the stored clip's id, for a "Review this clip" button (the Caption tab's
    page script opens it in the Review tab). ``verdicts``: one per statement, what the pixels
    say of it (``ui.usecases.verification``), shown in a "pixels" column. ``failure``: a run
    that returned but failed, said in place of "No statements yet"."""
    checked = bool(statements) and len(verdicts) == len(statements)
    rows = []
    for i, st in enumerate(statements):
        t0, t1 = st.get("t_start"), st.get("t_end")
        timed = t0 is not None and t1 is not None
        rows.append({"timed": timed, "t0": f"{t0:.3f}" if timed else "",
                     "t1": f"{t1:.3f}" if timed else "", "start": seconds(t0),
                     "end": seconds(t1), "aspect": str(st.get("aspect") or ""),
                     "value": str(st.get("value") or ""), "text": str(st.get("text") or ""),
                     "evidence": str(st.get("evidence") or ""),
                     "verdict": Markup(verdict_html(verdicts[i])) if checked else ""})
    return render("results_statements.html", rows=rows, player=player, checked=checked,
                  failure=failure or "",
                  review_clip=None if review_clip is None else int(review_clip))


def _by_shot(overlays: Sequence[tuple[str, str]], shots: Sequence[Mapping[str, float]]
             ) -> list[tuple[int, Mapping[str, float] | None, list[tuple[str, str]]]]:
    from ui.usecases.caption import overlay_shot

    groups: dict[int, list[tuple[str, str]]] = {}
    for path, title in overlays:
        shot, what = overlay_shot(title)
        groups.setdefault(-1 if shot is None else shot, []).append((path, what))
    return [(i, shots[i] if 0 <= i < len(shots) else None, items)
            for i, items in sorted(groups.items())]


def _figures(overlays: Sequence[tuple[str, str]], shots: Sequence[Mapping[str, float]],
             first_only: bool = False) -> list[dict[str, Any]]:
    """The figures of ``results_figure.html``, one per shot (``first_only``: the others hidden)."""
    return [{"index": i, "timed": shot is not None, "hidden": first_only and k > 0,
             "t0": f"{shot['t_start']:.3f}" if shot is not None else "",
             "t1": f"{shot['t_end']:.3f}" if shot is not None else "",
             "name": _shot_name(i, shot),
             "pictures": [{"url": file_url(p), "what": what} for p, what in items]}
            for k, (i, shot, items) in enumerate(_by_shot(overlays, shots))]


def _shot_name(i: int, shot: Mapping[str, float] | None) -> str:
    if shot is None:
        return "Evidence" if i < 0 else f"Shot {i + 1}"
    return f"Shot {i + 1} · {seconds(shot['t_start'])}–{seconds(shot['t_end'])} s"


def moment_html(overlays: Sequence[tuple[str, str]], shots: Sequence[Mapping[str, float]],
                duration: float | None, player: str, captioner: str = "") -> str:
    """Beside the player: the evidence overlays of the shot at the player's current time (the
    page's script shows the figure whose interval holds it; the first one at the start)."""
    return render("results_moment.html", figures=_figures(overlays, shots, first_only=True),
                  player=player, captioner=captioner,
                  span=f"{duration:.3f}" if duration else "")


def shots_html(overlays: Sequence[tuple[str, str]], shots: Sequence[Mapping[str, float]],
               player: str) -> str:
    """Every shot's evidence overlays in the page's flow (no inner scroll box); a shot's heading
    plays that shot."""
    return render("results_shots.html", figures=_figures(overlays, shots), player=player)


# --- scores in words ------------------------------------------------------------------------
def _aspect_rows(judge: Mapping[str, Any], views: Mapping[str, Any] | None
                 ) -> list[dict[str, Any]]:
    """Per aspect with anything said or missed: its counts and its statements in words."""
    rows = []
    for aspect, v in (views or {}).items():
        extra = bool(v["n_extra"]) if v["extra"] is None else bool(v["extra"])
        if not (v["matched"] or v["missed"] or extra):
            continue
        rows.append({"aspect": aspect, "counts": judge["by_dim"].get(aspect, {}),
                     "matched": v["matched"], "missed": v["missed"], "extra": v["extra"],
                     "n_extra": v["n_extra"]})
    return rows


def scores_html(judge: Mapping[str, Any] | None, views: Mapping[str, Any] | None,
                rewards: Mapping[str, Any] | None, coverage_help: Mapping[str, str],
                table_id: str = "cc-aspects") -> str:
    """The scores against the gold caption as people read them: comprehensiveness, accuracy and
    F1 with their counts, the GRPO reward with its coverage term (both modes explained), and per
    aspect the matched, missed and extra statements in words (the table's HTML id
    ``table_id``: one per tab that shows it)."""
    from cinecap.reward import RewardConfig

    scored = bool(judge) and not judge.get("failed")
    return render("results_scores.html", judge=judge or {}, rewards=rewards or {},
                  c=RewardConfig(), coverage_help=coverage_help, table_id=table_id,
                  limits=judge_limits(judge) if scored else "",
                  rows=_aspect_rows(judge, views) if scored else [])


def model_against_gold_html(view: Any) -> str:
    """The Review tab's reviewer panel, under the gold pair: the model caption it corrects judged
    against it, per aspect matched, missed and extra (``ui.usecases.gold.GoldView``)."""
    if view is None or view.judge is None:
        return ""
    return render("results_gold.html", scores=Markup(
        scores_html(view.judge, view.views, None, {}, table_id="gold-aspects")))
