"""The app's use cases as plain functions: the tabs call these, tests call them without a browser.

Each takes the user (checked here, whatever the page showed), the store and the backends, does one
thing, and raises domain errors (``cinecap.errors``, ``db.errors``) that the tabs translate once.
"""
from __future__ import annotations

import json
import logging
import tempfile
import time
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

from cinecap import taxonomy as tx
from cinecap.captioners.base import CaptionResult
from cinecap.progress import Progress, no_progress
from cinecap.errors import CaptionerError, CinecapError, InputError, VideoError
from cinecap.statements import Statement, format_reasoning, render_caption
from db.records import GoldPairRecord, ReviewSnapshot, UserRecord
from db.roles import has_role, require_role
from db.store import Store
from ui.backends import Backends
from ui.settings import VIDEO_EXTENSIONS, Settings

log = logging.getLogger(__name__)


# --- upload and caption ----------------------------------------------------------------------
def check_upload(path: str | Path | None, settings: Settings):
    """Type and size first (from the name and ``stat``, reading nothing), then the header.

    Returns the ``cinecap.video.VideoInfo``; raises VideoError naming the problem.
    """
    if not path:
        raise VideoError("no clip was uploaded: choose a video file first")
    p = Path(path)
    if not p.is_file():
        raise VideoError(f"the upload {p.name!r} did not arrive (no such file); try again")
    if p.suffix.lower() not in VIDEO_EXTENSIONS:
        raise VideoError(f"{p.name!r} is not a video file this app takes "
                         f"({', '.join(VIDEO_EXTENSIONS)})")
    size = p.stat().st_size
    if size > settings.max_upload_bytes:
        raise VideoError(f"{p.name!r} is {size / 2**20:,.0f} MB, over the upload limit of "
                         f"{settings.max_upload_mb} MB; trim or re-encode the clip")
    from cinecap.video import VideoLimits, probe

    return probe(p, VideoLimits(max_bytes=settings.max_upload_bytes,
                                max_duration_s=settings.max_duration_s))


@dataclass
class CaptionOutcome:
    """What the Caption tab shows after a run."""

    result: dict[str, Any]  # CaptionResult.to_dict()
    video_path: str
    info: dict[str, Any]
    clip_id: int | None = None  # None when not stored (a viewer's demo run)
    caption_id: int | None = None
    judge: dict[str, Any] | None = None  # judge JSON against the gold caption, when there is one
    gold_caption: str = ""
    evidence: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    analysis: Any = None  # the anchors Analysis object, where the captioner kept one
    source_path: str = ""  # the file the captioner read


def caption_clip(store: Store, backends: Backends, settings: Settings, user: UserRecord,
                 path: str | Path | None, captioner: str, gold_caption: str = "",
                 filename: str | None = None, progress: Progress | None = None) -> CaptionOutcome:
    """Validate, caption, and (for annotators and up) store the clip, the caption and the score.

    Nothing is written before the captioner succeeded, so a bad clip or a crashed captioner
    leaves the store as it was. A viewer's run is never stored (the public demo).
    """
    require_role(user.role, "viewer", "captioning a clip")
    progress = progress or no_progress
    progress(0.0, "checking the clip")
    info = check_upload(path, settings)
    cap = backends.captioner(captioner)
    progress(0.05, f"captioning with {captioner}")
    t0 = time.perf_counter()
    try:
        result: CaptionResult = cap.caption(path, progress=_scaled(progress, 0.05, 0.9))
    except CinecapError:
        raise
    except Exception as e:  # a backend bug must reach the user as a message, not a traceback
        log.exception("captioner %s crashed on %s", captioner, path)
        raise CaptionerError(f"the {captioner} captioner failed on this clip "
                             f"({type(e).__name__}: {e}); nothing was saved") from e
    result.seconds = result.seconds or time.perf_counter() - t0
    analysis = getattr(cap, "last_analysis", None)
    if analysis is not None and str(getattr(analysis.info, "path", "")) != str(info.path):
        analysis = None  # another request's analysis (concurrent runs share the captioner)
    out = CaptionOutcome(result.to_dict(), str(path), info.to_dict(), evidence=result.evidence,
                         gold_caption=(gold_caption or "").strip(), analysis=analysis,
                         source_path=str(path))
    if has_role(user.role, "annotator"):
        from ui.auth import stored_user

        writer = stored_user(user, store)
        clip = store.add_clip(path, filename or Path(path).name, info.to_dict(), writer)
        out.clip_id, out.video_path = clip.id, clip.path
        out.caption_id = store.add_caption(clip.id, out.result, captioner,
                                           _model_version(result), writer, dict(result.meta))
        if not out.gold_caption:
            accepted = store.gold_pairs(clip.id, status="accepted") or store.gold_pairs(clip.id)
            if accepted:
                out.gold_caption = accepted[-1].caption
                out.notes.append(f"scored against gold pair #{accepted[-1].id}")
    else:
        out.notes.append("not stored: sign in as an annotator to keep clips and captions")
    if out.gold_caption:
        progress(0.95, "judging against the gold caption")
        out.judge = judge_caption(backends, settings, out.gold_caption, result.caption)
        if out.caption_id is not None and out.judge is not None:
            store.add_judge_result(out.caption_id, out.gold_caption, out.judge)
    progress(1.0, "done")
    return out


def judge_caption(backends: Backends, settings: Settings, gold: str, pred: str
                  ) -> dict[str, Any] | None:
    if not gold.strip():
        return None
    return backends.judge(settings.judge).judge(gold, pred).to_dict()


def _model_version(result: CaptionResult) -> str:
    meta = result.meta or {}
    parts = [str(meta[k]) for k in ("model", "model_id", "adapter", "version") if meta.get(k)]
    if not parts:
        from cinecap import __version__

        parts = [f"cinecap {__version__}"]
    return " ".join(parts)[:200]


def _scaled(progress: Progress, lo: float, hi: float) -> Progress:
    def inner(fraction: float, message: str) -> None:
        progress(lo + (hi - lo) * max(0.0, min(1.0, fraction)), message)
    return inner


def export_json(outcome: CaptionOutcome, directory: str | Path | None = None) -> str:
    """The caption as a JSON file to download (the ``caption --json`` contract, plus the score)."""
    data = dict(outcome.result)
    data["video"] = Path(outcome.video_path).name
    if outcome.judge is not None:
        data["judge"] = outcome.judge
        data["gold_caption"] = outcome.gold_caption
    directory = Path(directory or tempfile.mkdtemp(prefix="cinecap-export-"))
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{Path(outcome.video_path).stem}.caption.json"
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2))
    return str(path)


def video_for_page(settings: Settings, path: str | Path, codec: str | None,
                   stored: bool) -> str:
    """A file the browser can play: the clip, or its H.264 preview (kept beside stored clips,
    in a temp dir for a viewer's unstored run)."""
    from ui.preview import playable

    cache = settings.data_dir / "previews" if stored else Path(tempfile.mkdtemp(prefix="prev-"))
    return playable(path, codec, cache)


def overlays(outcome: CaptionOutcome, max_images: int = 24) -> list[tuple[Any, str]]:
    """Evidence overlays (RGB image, title) from the anchors analysis behind this caption.

    Only where the captioner kept its analysis (the anchors captioner does): drawing them costs one
    frame per shot, not a second analysis. Other captioners have no pixel evidence to draw.
    """
    if outcome.analysis is None:
        return []
    from cinecap.captioners.anchors import evidence_overlays

    return [(img, title) for title, img in
            evidence_overlays(outcome.source_path, outcome.analysis)[:max_images]]


# --- review ------------------------------------------------------------------------------------
STATUSES = ("pending", "accepted", "fixed", "rejected", "added", "deleted")


@dataclass
class DraftItem:
    """One statement in review: what the model (or the last gold pair) said, and what it is now."""

    original: dict[str, Any] | None  # None for a statement the annotator added
    current: dict[str, Any] | None
    status: str = "pending"

    @property
    def kept(self) -> bool:
        return self.status not in ("rejected", "deleted")


@dataclass
class ReviewDraft:
    """An annotator's work on one clip, and the clip version it started from (optimistic lock)."""

    clip_id: int
    version: int
    items: list[DraftItem]
    source: str = ""
    caption_id: int | None = None
    duration: float | None = None

    def item(self, index: int) -> DraftItem:
        if not 0 <= index < len(self.items):
            raise InputError(f"there is no statement #{index + 1} (the table has "
                             f"{len(self.items)}); pick a row first")
        return self.items[index]

    def statements(self) -> list[dict[str, Any]]:
        return [it.current for it in self.items if it.kept and it.current is not None]


def open_review(store: Store, user: UserRecord, clip_id: int) -> tuple[ReviewDraft, ReviewSnapshot]:
    require_role(user.role, "annotator", "reviewing a clip")
    snap = store.load_review(int(clip_id))
    items = [DraftItem(dict(st), dict(st)) for st in snap.statements]
    return (ReviewDraft(snap.clip.id, snap.version, items, snap.source, snap.caption_id,
                        snap.clip.duration), snap)


def statement_from_form(aspect: str, value: str, t_start: Any, t_end: Any, text: str = "",
                        evidence: str = "", subject: str | None = None,
                        duration: float | None = None) -> dict[str, Any]:
    """A checked statement dict from the edit form; InputError naming what is wrong."""
    t0, t1 = _time(t_start, "start"), _time(t_end, "end")
    try:
        dynamic = tx.is_dynamic(aspect, value)
    except ValueError as e:
        raise InputError(str(e)) from None
    if t0 == t1 == 0.0:
        t0 = t1 = None  # the form's empty number fields read as 0: no interval was given
    if dynamic and (t0 is None or t1 is None or t1 <= t0):
        raise InputError(f"{aspect} '{value}' happens over time: give a start and an end (s), "
                         "the end after the start")
    if duration is not None and t1 is not None and t1 > duration + 0.05:
        raise InputError(f"the interval ends at {t1:g} s, after the clip's end ({duration:.2f} s)")
    try:
        st = Statement(aspect=aspect, value=value, text=(text or "").strip(), t_start=t0, t_end=t1,
                       evidence=(evidence or "").strip(), subject=(subject or None))
    except ValueError as e:
        raise InputError(f"this statement is not valid: {e}") from None
    return st.to_dict()


def _time(v: Any, which: str) -> float | None:
    if v is None or (isinstance(v, str) and not v.strip()):
        return None
    try:
        t = float(v)
    except (TypeError, ValueError):
        raise InputError(f"the {which} time {v!r} is not a number of seconds") from None
    if t != t or t < 0:
        raise InputError(f"the {which} time must be 0 s or later")
    return t


def review_action(draft: ReviewDraft, action: str, index: int | None = None,
                  statement: dict[str, Any] | None = None) -> ReviewDraft:
    """Apply accept / fix / reject / delete to row ``index``, or add ``statement``."""
    if action == "add":
        if statement is None:
            raise InputError("fill in the form to add a statement")
        draft.items.append(DraftItem(None, statement, "added"))
        return draft
    if index is None:
        raise InputError("select a statement in the table first")
    it = draft.item(index)
    if action == "accept":
        it.current = dict(it.original or it.current)
        it.status = "accepted" if it.original else "added"
    elif action == "fix":
        if statement is None:
            raise InputError("fill in the form with the corrected statement")
        base = it.original or it.current
        if (statement.get("text") == base.get("text")
                and (statement["aspect"], statement["value"]) != (base["aspect"], base["value"])):
            # The form still carried the old sentence: write one that says the new value.
            statement = Statement.from_dict({**statement, "text": ""}).to_dict()
        it.current = statement
        it.status = "fixed" if it.original is not None else "added"
    elif action == "reject":
        if it.original is None:
            raise InputError("only the model's statements can be rejected; delete an added one")
        it.status = "rejected"
    elif action == "delete":
        if it.original is None:
            draft.items.remove(it)
        else:
            it.status = "deleted"
    else:
        raise InputError(f"unknown review action {action!r}")
    return draft


def draft_edits(draft: ReviewDraft) -> list[dict[str, Any]]:
    """The history rows a save writes: one per statement the annotator acted on."""
    edits = []
    for it in draft.items:
        action = {"accepted": "accept", "fixed": "fix", "rejected": "reject", "added": "add",
                  "deleted": "delete"}.get(it.status)
        if action is None:
            continue
        before = it.original
        after = None if action in ("reject", "delete") else it.current
        edits.append({"action": action, "before": before, "after": after})
    return edits


def save_review(store: Store, user: UserRecord, draft: ReviewDraft) -> GoldPairRecord:
    """Save the draft as a gold pair with its history. StoreConflict if the clip moved on."""
    require_role(user.role, "annotator", "saving a review")
    sts = draft.statements()
    if not sts:
        raise InputError("the gold caption would be empty: keep or add at least one statement")
    objs = [Statement.from_dict(d) for d in sts]
    return store.save_review(draft.clip_id, draft.version, user, sts, draft_edits(draft),
                             caption=render_caption(objs), reasoning=format_reasoning(objs),
                             source_caption_id=draft.caption_id)


def _key(st: dict[str, Any]) -> tuple:
    return (st["aspect"], st["value"], st.get("t_start"), st.get("t_end"), st.get("text"))


def rebase_review(store: Store, user: UserRecord, draft: ReviewDraft) -> tuple[ReviewDraft, str]:
    """After a conflict: your edits re-applied on top of the version saved meanwhile.

    Each statement you accepted, fixed, rejected or deleted is found in the saved version by its
    original content and gets the same action; one the other person removed comes back as an
    addition when you had kept or fixed it; your additions are appended. Returns the new draft
    (at the current version, not saved yet) and a summary to show.
    """
    fresh, _ = open_review(store, user, draft.clip_id)
    by_key = {_key(it.original): it for it in fresh.items if it.original is not None}
    reapplied = readded = dropped = 0
    for old in draft.items:
        if old.status == "pending":
            continue
        if old.original is None:  # an addition of yours
            fresh.items.append(DraftItem(None, old.current, "added"))
            readded += 1
            continue
        target = by_key.get(_key(old.original))
        if target is not None:
            target.current, target.status = old.current, old.status
            reapplied += 1
        elif old.status in ("accepted", "fixed"):
            fresh.items.append(DraftItem(None, old.current, "added"))
            readded += 1
        else:  # you rejected or deleted what is already gone
            dropped += 1
    summary = (f"{reapplied} of your edits re-applied on version {fresh.version}, {readded} "
               f"added back, {dropped} already gone; check and save")
    return fresh, summary


def decide_gold(store: Store, user: UserRecord, gold_id: int, decision: str,
                expected_version: int, note: str = "") -> GoldPairRecord:
    """A reviewer accepts or sends back an annotator's gold pair."""
    require_role(user.role, "reviewer", "accepting or sending back a gold pair")
    g = store.get_gold_pair(int(gold_id))
    if g.annotator == user.name and user.role != "admin":
        raise InputError("a reviewer does not accept their own gold pair; ask another reviewer")
    return store.decide_gold(int(gold_id), user, decision, int(expected_version), note)


def agreement(store: Store, user: UserRecord, clip_id: int) -> dict[str, float | None]:
    """Per-aspect agreement between annotators of one clip (their newest gold pair each).

    For each pair of annotators and each aspect: the Jaccard overlap of the judge classes they
    stated (1.0 when both said nothing about it), averaged over pairs. Empty when fewer than two
    annotators saved the clip.
    """
    require_role(user.role, "annotator", "seeing annotator agreement")
    newest: dict[str, GoldPairRecord] = {}
    for g in store.gold_pairs(int(clip_id)):
        newest[g.annotator] = g  # ordered by id: the last one wins
    if len(newest) < 2:
        return {}
    out: dict[str, float | None] = {}
    for aspect in tx.ASPECTS:
        scores = []
        for a, b in combinations(newest.values(), 2):
            sa, sb = _classes(a.statements, aspect), _classes(b.statements, aspect)
            scores.append(1.0 if not (sa or sb) else len(sa & sb) / len(sa | sb))
        out[aspect] = sum(scores) / len(scores)
    return out


def _classes(statements: list[dict[str, Any]], aspect: str) -> set[str]:
    out = set()
    for st in statements:
        if st["aspect"] == aspect:
            try:
                out.add(tx.get(aspect, st["value"]).judge_class)
            except ValueError:
                out.add(st["value"])
    return out


def history(store: Store, user: UserRecord, clip_id: int | None = None) -> list[dict[str, Any]]:
    require_role(user.role, "annotator", "reading the edit history")
    return [{"id": e.id, "at": e.at.strftime("%Y-%m-%d %H:%M:%S"), "user": e.user,
             "action": e.action, "gold_pair": e.gold_pair_id, "before": _brief(e.before),
             "after": _brief(e.after)} for e in store.history(clip_id)]


def _brief(st: dict[str, Any] | None) -> str:
    if not st:
        return ""
    if "aspect" not in st:
        return json.dumps(st, ensure_ascii=False)
    t = (f" [{st['t_start']:.1f}–{st['t_end']:.1f}]" if st.get("t_start") is not None else "")
    return f"{st['aspect']}: {st['value']}{t}"

