"""How records and use-case results read on the page: table headers and rows, times, scores, the
review's HTML views (a gold pair against the model caption, conflicts side by side, the banner),
and messages made safe for HTML. Shared by every tab (Gradio-free: plain lists and strings).

Every piece of text that reaches HTML here goes through :func:`escaped` or a template's autoescaping
(``ui.tabs.markup``; the review's views are ``ui/templates/review_*.html``): statements are typed by
people and written by models."""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

import markupsafe

from cinecap import taxonomy as tx
from ui.tabs.markup import Markup, render

STATEMENT_HEADERS = ["aspect", "value", "start (s)", "end (s)", "statement", "evidence"]
SCORE_HEADERS = ["aspect", "gold", "predicted", "matched"]
QUEUE_HEADERS = ["clip", "file", "certainty", "gold pairs", "status", "captioner"]
DRAFT_HEADERS = ["#", "status", "aspect", "value", "start", "end", "statement", "pixels",
                 "evidence", "note"]
#: The review table's columns: one or two lines a row (ui/static/review.css), so four statements
#: fit beside the player at 1366x900; a cell's full text opens on hover or keyboard focus, and is
#: in the form once a row is clicked. At 1366 px the table is ~718 px wide, its cells 12 px Mono
#: (7.2 px a character) with 4 px of padding a side (review.css): the short columns hold their
#: longest word whole — "#" "100", status "conflict:" / "evidence," (9 characters), aspect
#: "Orientation" / "Composition" and value "symmetrical" (11), start and end "123.45", pixels
#: "was ✓ yes" — and the statement column keeps its 17 %.
DRAFT_WIDTHS = ["4.5%", "10.5%", "12.5%", "12.5%", "7.5%", "7.5%", "17%", "10.5%", "11.5%", "6%"]
#: The "pixels" column is HTML (a verdict with what was measured a click away, escaped).
DRAFT_TYPES = ["str"] * 7 + ["html"] + ["str"] * 2
HISTORY_HEADERS = ["at", "user", "action", "gold pair", "statement", "change"]
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
    a file name or a statement someone typed. The templates' own escaping (``ui/tabs/markup.py``),
    so a text reads the same in a toast as in a template."""
    return str(markupsafe.escape(text))


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


def draft_rows(draft: Any, pixels: Sequence[str] = ()) -> list[list[Any]]:
    """A review draft's statements, numbered from 1, with each one's status (and what a fix
    changed, or that a conflict waits for a decision) and its ``pixels`` cell (one per item,
    :func:`pixels_cell`; "—" when the clip was not verified)."""
    if draft is None:
        return []
    from ui.usecases.edits import FIELD_LABELS, SHOWN_FIELDS, changed_fields

    rows = []
    saved = str(getattr(draft, "source", "")).startswith("gold pair")
    for i, it in enumerate(draft.items()):
        status = it.status
        if status == "pending" and saved:  # untouched since the save: it is in the gold pair
            status = "saved"
        if it.conflict:
            status = "conflict: decide below"
        elif it.status == "fixed":
            fields = [FIELD_LABELS[f] for f in changed_fields(it.original, it.current)
                      if f in SHOWN_FIELDS]
            status = f"fixed: {', '.join(fields)}" if fields else "fixed"
        cells = statement_rows([it.shown])[0]
        rows.append([i + 1, status, *cells[:5], pixels[i] if i < len(pixels) else "—",
                     cells[5], it.note])
    return rows


#: A gold pair's status as the page says it ("accept" is the statement action's word).
GOLD_STATUS = {"submitted": "submitted", "accepted": "approved", "sent_back": "sent back"}


def gold_rows(golds: Iterable[Any]) -> list[list[Any]]:
    """Rows of gold pairs (``db.records.GoldPairRecord``)."""
    return [[g.id, g.annotator, GOLD_STATUS.get(g.status, g.status), g.version, g.reviewer or "",
             g.review_note, g.caption] for g in golds]


def history_rows(history: Sequence[Mapping[str, Any]]) -> list[list[Any]]:
    """Rows of the edit history (``ui.usecases.review.history``), as text."""
    return [[h["at"], h["user"], h["action"], h["gold_pair"], h["statement"], h["change"]]
            for h in history]


def agreement_rows(agreement: Mapping[str, float | None]) -> list[list[Any]]:
    return [[aspect, fraction(v)] for aspect, v in agreement.items()]


# --- HTML views of the review (templates ui/templates/review_*.html, autoescaped) -------------
_FIELDS_SHOWN = (("aspect", "aspect"), ("value", "value"), ("t_start", "interval"), ("t_end", "end"),
                 ("text", "statement"), ("evidence", "evidence"))


def statement_view(st: Mapping[str, Any] | None, marked: Sequence[str] = (),
                   note: str = "") -> dict[str, Any] | None:
    """One statement for ``review_macros.html``'s ``statement``: (label, text, highlighted) per
    field shown, and the note; None for a statement that is gone."""
    if st is None:
        return None
    parts = []
    for f, label in _FIELDS_SHOWN:
        if f == "t_end":
            continue
        if f == "t_start":
            if st.get("t_start") is None and not ({"t_start", "t_end"} & set(marked)):
                continue
            text = f"{seconds(st.get('t_start')) or '–'}–{seconds(st.get('t_end')) or '–'} s"
            mark = bool({"t_start", "t_end"} & set(marked))
        else:
            v = st.get(f)
            text, mark = str(v or "") or "—", f in marked
        if f == "evidence" and not st.get("evidence") and f not in marked:
            continue
        parts.append((label, text, mark))
    return {"parts": parts, "note": note}


def _diff(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> list[str]:
    if a is None or b is None:
        return [f for f, _ in _FIELDS_SHOWN] if a is not b else []
    return [f for f, _ in _FIELDS_SHOWN if a.get(f) != b.get(f)]


def compare_html(yours: Sequence[tuple[str, Mapping[str, Any], str]],
                 theirs: Sequence[tuple[str, Mapping[str, Any], str]], their_name: str) -> str:
    """Your unsaved version beside the saved one, statement by statement (matched by id; each
    ``(id, statement, note)``), the differences highlighted."""
    mine = {i: (st, n) for i, st, n in yours}
    saved = {i: (st, n) for i, st, n in theirs}
    order = [i for i, _, _ in theirs] + [i for i, _, _ in yours if i not in saved]
    rows = []
    for i in order:
        (a, na), (b, nb) = mine.get(i, (None, "")), saved.get(i, (None, ""))
        diff = _diff(a, b)
        if not diff and na == nb:
            continue
        rows.append((statement_view(a, diff, na), statement_view(b, diff, nb)))
    return render("review_compare.html", rows=rows, same=len(order) - len(rows),
                  their_name=their_name)


def conflicts_html(draft: Any) -> str:
    """The conflicts left by re-applying, numbered: what you started from, theirs, yours, with the
    fields that differ from the start highlighted, and the decision taken so far."""
    if draft is None or not draft.conflicts:
        return ""
    rows = [{"original": statement_view(c.original, (), c.original_note),
             "theirs": statement_view(c.theirs, _diff(c.original, c.theirs), c.their_note),
             "yours": statement_view(c.yours, _diff(c.original, c.yours), c.your_note),
             "decided": draft.decision(c.id)} for c in draft.conflicts]
    return render("review_conflicts.html", rows=rows)


def verdict_count_line(contradicted: int, statements: int) -> str:
    """"2 of 9 statements contradicted by the pixels"."""
    return f"{contradicted} of {plural(statements, 'statement')} contradicted by the pixels"


def gold_view_html(view: Any, checked: Any = None) -> str:
    """Exactly the statements of the gold pair a reviewer decides on, each against the model
    caption it corrects (changed fields highlighted, additions and removals marked), with the
    annotator's notes inline. ``checked`` (``ui.usecases.verification.CheckedRows``): the same
    rows with the pixels' verdicts, the contradicted ones first, and their count."""
    from ui.tabs.results import verdict_html  # results imports this module

    if view is None:
        return render("review_gold.html", gold=None)
    verified = checked is not None and any(v is not None for v in checked.verdicts)
    rows, verdicts = ((checked.rows, checked.verdicts) if verified
                      else (view.rows, [None] * len(view.rows)))
    was_word = "model" if "model" in view.compared_with else "was"
    shown = [{"change": r.change, "statement": statement_view(r.statement, r.fields, r.note),
              "was": statement_view(r.model, r.fields) if r.change == "changed" else None,
              "was_word": was_word,
              "verdict": Markup(verdict_html(v)) if v is not None else "—"}
             for r, v in zip(rows, verdicts)]
    return render("review_gold.html", gold=view.gold,
                  status=GOLD_STATUS.get(view.gold.status, view.gold.status),
                  compared_with=view.compared_with, rows=shown, checked=verified,
                  contradicted=checked.contradicted if verified else 0,
                  count_line=(verdict_count_line(checked.contradicted, checked.statements)
                              if verified else ""))


def banner_html(gold: Any, resumed: bool, stale: bool, draft: Any) -> str:
    """What the annotator must know on opening a clip: a sent-back pair with the reviewer's
    note, an unsaved draft picked up, conflicts waiting."""
    sent_back = gold is not None and gold.status == "sent_back"
    return render(
        "review_banner.html", gold=gold, sent_back=sent_back,
        approved=gold is not None and gold.status == "accepted",
        when=(f" on {gold.reviewed_at:%Y-%m-%d %H:%M}" if sent_back and gold.reviewed_at
              else ""),
        # how many edits it holds is the edit count's (it changes with every edit)
        resumed=resumed, version=draft.version if draft is not None else None, stale=stale,
        conflicts=len(draft.open_conflicts()) if draft is not None else 0)


#: The review table's pixels column is narrow: a mark and a short word (the full verdict on
#: hover, focus and under the table).
VERDICT_SHORT = {"supported": "yes", "contradicted": "no", "not measurable": "n/a"}
#: Where the whole word may break in that column (a soft hyphen: "contra-" / "dicted").
_VERDICT_BREAKS = {"contradicted": "contra\u00addicted", "not measurable": "not measur\u00adable",
                   "supported": "sup\u00adported"}


def pixels_cell(now: str, was: str = "", reason: str = "") -> str:
    """A review row's "pixels" cell (HTML): ``now`` the verdict of the statement as it is
    ("contradicted"), ``was`` the source's verdict when an edit changed it, ``reason`` what was
    measured (in the title; a click on the row shows it under the table, as the table takes
    the click). "—" for no verdict."""
    from ui.tabs.results import VERDICT_MARKS  # results imports this module

    if now not in VERDICT_MARKS:
        return "—"
    title = f"{now}: {reason}" + (f" (was {was})" if was else "")
    return render("review_pixels.html", kind=now, full=_VERDICT_BREAKS[now],
                  mark=VERDICT_MARKS[now], short=VERDICT_SHORT[now], reason=reason, title=title,
                  was=was,
                  was_mark=VERDICT_MARKS.get(was, ""), was_short=VERDICT_SHORT.get(was, ""))


def plural(n: int, word: str, words: str | None = None) -> str:
    """"1 edit", "2 edits" (``words``: an irregular plural)."""
    return f"{n} {word if n == 1 else words or word + 's'}"


def edits_line(draft: Any) -> str:
    """The draft's unsaved edits, counted after every action (Markdown)."""
    if draft is None:
        return ""
    n = len(draft.actions)
    if not n:
        return f"No unsaved edits (version {draft.version})."
    return (f"**{plural(n, 'unsaved edit')}** since version {draft.version}: "
            f"Save gold pair [s] keeps them.")


def progress_line(clip_id: int, position: tuple[int, int] | None, progress: Any) -> str:
    """Where this clip is and how far the team is: "3 of 7 clips approved" (Markdown)."""
    here = (f"{position[0]} of {position[1]} in the queue" if position
            else "not in the queue (approved)")
    done = (f"{len(progress.approved)} of {plural(progress.total, 'clip')} approved · "
            f"{progress.to_decide} waiting for a reviewer · {progress.to_annotate} to annotate")
    return f"**Clip #{clip_id}** · {here} · {done}"


APPROVED_HEADERS = ["clip", "file", "gold pair", "annotator", "reviewer", "approved"]


def approved_rows(progress: Any) -> list[list[Any]]:
    return [[c.id, c.filename, g.id, g.annotator, g.reviewer or "",
             f"{g.reviewed_at:%Y-%m-%d %H:%M}" if g.reviewed_at else ""]
            for c, g in progress.approved]


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
        return "No round yet: launch one with the form above."
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
# --- the leaderboard ---------------------------------------------------------------------------
#: Short names of the aspects for the leaderboard's columns (the order of the taxonomy).
ASPECT_SHORT = {"Camera Movement": "movement", "Shot Size": "shot size",
                "Camera Angle": "angle", "Depth of Field": "depth of field",
                "Composition": "composition", "Subject Orientation": "orientation",
                "Special Shots": "special"}
#: The scores first (rank, entry, model, F1 and every aspect fit 1366 px), then what the entry
#: is, reached by scrolling the table sideways.
LEADERBOARD_HEADERS = ["rank", "entry", "model", "F1", "cmp", "acc", *ASPECT_SHORT.values(),
                       "kind", "version", "judge", "bench", "clips", "round", "family", "date",
                       "note"]
LEADERBOARD_WIDTHS = ["52px", "56px", "150px", "70px", "70px", "70px", *["104px"] * 7,
                      "88px", "80px", "150px", "150px", "60px", "60px", "100px", "100px",
                      "240px"]
CLIP_RESULT_HEADERS = ["#", "clip", "gold caption", "caption", "F1", "matched/gold/pred",
                       "error"]


def percent(v: float | None) -> str:
    """A score in [0, 1] as the leaderboard shows it (73.57); "" when unknown."""
    return "" if v is None else f"{100 * v:.2f}"


def leaderboard_rows(entries: Iterable[Any], convention: str = "all") -> list[list[Any]]:
    """Rows of the leaderboard (``ui.usecases.leaderboard.Entry``). The rank names its group:
    ``A1`` is first of group A, ``R1`` first of the figures the paper reports; a row that is not
    ranked shows "—"."""
    rows = []
    for e in entries:
        group = "R" if e.kind == "reported" else e.group
        rank = f"{group}{e.rank}" if e.rank else "—"
        rows.append([rank, e.key, e.model, percent(e.f1), percent(e.comprehensiveness),
                     percent(e.accuracy), *[percent(e.aspect(a, convention)) for a in ASPECT_SHORT],
                     e.kind, e.version, e.judge, e.bench, e.items if e.items is not None else "",
                     e.round if e.round is not None else "", e.family, e.date, e.note])
    return rows


def clip_result_rows(items: Iterable[Any]) -> list[list[Any]]:
    """An entry's per-clip results (``db.records.BenchItemRecord``): its caption beside the gold
    one. Clips by file name only."""
    rows = []
    for i in items:
        j = i.row.get("judgement") if isinstance(i.row.get("judgement"), dict) else None
        counts = (f"{j.get('total_matched_count', '')}/{j.get('total_gt_count', '')}/"
                  f"{j.get('total_pred_count', '')}" if j and not j.get("failed") else "")
        rows.append([i.position + 1, i.video, i.gt_caption, i.caption or "", percent(i.f1),
                     counts, i.error or ""])
    return rows


def leaderboard_notice(board: Any, paper: str) -> str:
    """What the Leaderboard tab says above its table (``ui.usecases.leaderboard.Board``): which
    rows compare with which, which do not and why (``ui/templates/leaderboard_notice.md``)."""
    from ui.tabs.markup import render

    groups = [{"reported": g.letter == "reported", "letter": g.letter, "bench": g.bench,
               "protocol": ", ".join(f"{k}={v}" for k, v in g.protocol.items()),
               "clips": g.items, "sha": (g.bench_sha256 or "")[:12], "aspects": g.aspects,
               "size": g.size} for g in board.groups]
    unranked = []
    submitted = [e for e in board.unranked if e.kind == "submitted"]
    loose = [e for e in board.unranked if e.kind != "submitted"]
    for title, entries in (("submitted (self-reported), not ranked", submitted),
                           ("not ranked", loose)):
        if entries:
            unranked.append({
                "title": title, "entries": ", ".join(f"#{e.key}" for e in entries[:20]),
                "more": f" and {len(entries) - 20} more" if len(entries) > 20 else "",
                "why": entries[0].note.removeprefix("not ranked: ")})
    return render("leaderboard_notice.md", shown=len(board.entries), total=board.total,
                  measured=sum(1 for g in board.groups if g.letter != "reported"),
                  groups=groups, unranked=unranked, paper=paper).rstrip("\n")
