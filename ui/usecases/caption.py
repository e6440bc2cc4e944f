"""Captioning a clip: check the upload, run a captioner, store the clip and the caption (annotators
and up), judge it against a gold caption, read the judgement as people read it (matched / missed /
extra statements per aspect, the scores, the GRPO reward with both coverage modes), export it,
draw its evidence overlays."""
from __future__ import annotations

import json
import logging
import re
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cinecap.captioners.base import CaptionResult
from cinecap.errors import CaptionerError, CinecapError, VideoError
from cinecap.files import sha256_file
from cinecap.progress import Progress, no_progress
from db.limits import MAX_CAPTION_CHARS, check_storable, check_storable_all, check_text
from db.records import UserRecord
from db.roles import has_role, require_role
from db.store import Store
from ui import zerogpu
from ui.backends import Backends
from ui.settings import VIDEO_EXTENSIONS, Settings
from ui.usecases import preview, verification
from ui.usecases.accounts import stored_user
from ui.usecases.limits import CaptionQuota, decode_cost
from ui.usecases.versions import SERVED_CAPTIONER, captioner_for, sync_serving

log = logging.getLogger(__name__)


def check_upload(path: str | Path | None, settings: Settings):
    """Type and size first (from the name and ``stat``, reading nothing), then the header: the
    duration and the decoding cost (pixels per second and in total, from the header alone).

    Returns the ``cinecap.video.VideoInfo``; raises VideoError naming the problem (and the clip by
    its file name only: no server path reaches the page).
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

    costs = {k: v for k, v in (("max_pixel_rate", settings.max_pixel_rate),
                               ("max_total_pixels", settings.max_total_pixels)) if v is not None}
    with _paths_hidden(p):
        return probe(p, VideoLimits(max_bytes=settings.max_upload_bytes,
                                    max_duration_s=settings.max_duration_s, **costs))


def describe_upload(user: UserRecord, path: str | Path | None, settings: Settings) -> str:
    """The upload checked as :func:`check_upload` checks it, in one line for the status line
    ("bikes.mp4: 640×272, 25 fps, 10.0 s"); VideoError (path-free) when it will be refused."""
    require_role(user.role, "viewer", "uploading a clip")
    info = check_upload(path, settings)
    return (f"{Path(path).name}: {info.width}×{info.height}, {info.fps:.3g} fps, "
            f"{info.duration:.1f} s")


@dataclass(frozen=True)
class CaptionerChoices:
    """The captioners the Caption tab offers now: those that run here, the reasons of those that
    do not, and the one selected by default."""

    names: list[str]
    missing: dict[str, str]
    default: str | None


def captioner_choices(store: Store, backends: Backends, settings: Settings) -> CaptionerChoices:
    """What runs here now: ``vlm`` runs once a model version serves (a promotion needs no
    restart), or with ``CINECAP_MODEL``. Once an admin has promoted a version a round trained,
    ``vlm`` is the default: the promotion is the team's choice of captioner."""
    serving = sync_serving(store, backends)
    names = backends.available_captioners()
    missing = {n: backends.check_captioner(n).reason for n in backends.captioner_names()
               if n not in names}
    default = settings.default_captioner if settings.default_captioner in names else (
        names[0] if names else None)
    if serving is not None and serving.round_id and SERVED_CAPTIONER in names:
        default = SERVED_CAPTIONER
    return CaptionerChoices(names, missing, default)


def caption_limiter(settings: Settings) -> CaptionQuota:
    """The caption quota of ``settings``: ``captions_per_hour`` runs and
    ``caption_pixels_per_hour`` pixels decoded, per account, client address and clip."""
    return CaptionQuota(settings.captions_per_hour, settings.caption_pixels_per_hour)


def quota_keys(user: UserRecord, address: str | None) -> list[tuple[str, str]]:
    """Whom a run is charged to, as the server knows them: a signed-in account by its id, an
    anonymous visitor by the client address (all visitors without one together: fail closed),
    never by a cookie the client picks."""
    if user.id:
        return [(f"account:{user.id}", "you")]
    return [(f"address:{address or 'unknown'}", "this address")]


class _paths_hidden:
    """Domain errors raised inside name the clip by its file name, never by its server path."""

    def __init__(self, path: str | Path):
        p = Path(path)
        self.name = p.name
        self.paths = sorted({str(p), str(p.absolute()), str(p.resolve())}, key=len, reverse=True)

    def __enter__(self):
        return self

    def __exit__(self, kind, err, tb):
        if isinstance(err, CinecapError):
            for full in self.paths:
                err.message = err.message.replace(full, self.name)
            err.args = (err.message,)
        return False


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
    analysis: Any = None  # the run's anchors Analysis (CaptionResult.analysis), where it made one
    source_path: str = ""  # the file the captioner read
    #: Overlays already drawn, as (file, title): an example's cached run (``ui.usecases.examples``)
    overlay_files: list[tuple[str, str]] | None = None
    example: str | None = None  # the example clip's key, for an example run
    filename: str = ""  # the clip's own file name (a stored clip's path is named by its hash)

    def shots(self) -> list[dict[str, float]]:
        """The clip's shots (``t_start``, ``t_end``) where the captioner found them."""
        return [s for s in (self.evidence or {}).get("shots") or []
                if s.get("t_start") is not None and s.get("t_end") is not None]
    model_version_id: int | None = None  # the managed model version that captioned (vlm)
    #: One ``cinecap.verify.Verdict`` per statement (ui.usecases.verification); [] when none.
    verdicts: list = field(default_factory=list)
    failure: str = ""  # why the run failed although it returned (an output cut off too early)


def caption_clip(store: Store, backends: Backends, settings: Settings, user: UserRecord,
                 path: str | Path | None, captioner: str, gold_caption: str = "",
                 filename: str | None = None, progress: Progress | None = None,
                 limiter: CaptionQuota | None = None,
                 address: str | None = None) -> CaptionOutcome:
    """Validate, caption, and (for annotators and up) store the clip, the caption and the score.

    Everything that could be refused is checked before the first write (the typed gold caption,
    the upload, the captioner's output, the judgement), so a bad input, a bad clip or a crashed
    captioner leaves the store as it was. A viewer's run is never stored (the public demo).
    ``limiter`` (:func:`caption_limiter`) charges the run, before the captioner starts, to the
    account (or, for an anonymous visitor, the client ``address``) and to the clip's content
    (an upload reused from any session is one clip), weighted by its decoding cost.
    """
    require_role(user.role, "viewer", "captioning a clip")
    gold_caption = check_storable(gold_caption, "gold caption").strip()
    check_text("gold caption", gold_caption, MAX_CAPTION_CHARS)  # before the captioner runs
    progress = progress or no_progress
    progress(0.0, "checking the clip")
    info = check_upload(path, settings)
    # vlm: the model version the store marks serving (swapped in here if it changed).
    cap, served = captioner_for(store, backends, captioner)
    digest = sha256_file(path)
    if limiter is not None:
        frames = max(info.frame_count, info.fps * info.duration)
        limiter.charge([*quota_keys(user, address), (f"file:{digest}", "this clip")],
                       decode_cost(info.width, info.height, frames))
    progress(0.05, f"captioning with {captioner}")
    t0 = time.perf_counter()
    name = Path(path).name
    try:
        with _paths_hidden(path):
            result: CaptionResult = zerogpu.caption(captioner, cap, path,
                                                    scaled(progress, 0.05, 0.9))
    except CinecapError:
        raise
    except Exception as e:  # a backend bug must reach the user as a message, not a traceback
        log.exception("captioner %s crashed on %s", captioner, path)
        raise CaptionerError(f"the {captioner} captioner failed on {name!r} "
                             f"({type(e).__name__}); nothing was saved") from e
    result.seconds = result.seconds or time.perf_counter() - t0
    out = CaptionOutcome(result.to_dict(), str(path), info.to_dict(), evidence=result.evidence,
                         gold_caption=gold_caption, analysis=result.analysis,
                         source_path=str(path), model_version_id=served.id if served else None)
    if served is not None:
        out.notes.append(f"model version {served.label}")
    if result.meta.get("truncated") and not result.statements:
        # Kept and scored as released, but cut off before its first statement it is a failed
        # run, not a clip with nothing to say: the page marks it so.
        said = "; ".join(w for w in result.warnings if "truncated" in w) or "it was truncated"
        out.failure = (f"the {captioner} captioner failed on {name!r}: its output was cut off "
                       f"before any statement ({said})")
    try:
        check_storable_all(out.result, "captioner's output")
    except CinecapError as e:
        raise CaptionerError(f"the {captioner} captioner's output cannot be stored ({e.message}); "
                             f"nothing was saved") from None
    filename = check_storable(filename or Path(path).name, "clip's file name")
    out.filename = filename
    store_it = has_role(user.role, "annotator")
    if store_it and not out.gold_caption:
        known = store.clips.find_by_sha256(digest)
        if known is not None:
            accepted = (store.review.gold_pairs(known.id, status="accepted")
                        or store.review.gold_pairs(known.id))
            if accepted:
                out.gold_caption = accepted[-1].caption
                out.notes.append(f"scored against gold pair #{accepted[-1].id}")
    out.verdicts = _verdicts(settings, path, result, digest)
    if out.verdicts:  # kept with the stored caption: the review queue orders by it
        out.result["meta"] = {**(out.result.get("meta") or {}),
                              **verification.caption_meta(out.verdicts)}
    if out.gold_caption:  # judged before anything is written: a judge error writes nothing
        progress(0.95, "judging against the gold caption")
        out.judge = judge_caption(backends, settings, out.gold_caption, result.caption)
    if store_it:
        writer = stored_user(user, store)
        clip = store.clips.add(path, filename, info.to_dict(), writer, sha256=digest)
        out.clip_id, out.video_path = clip.id, clip.path
        out.caption_id = store.clips.add_caption(clip.id, out.result, captioner,
                                                 served.version if served else
                                                 _model_version(result), writer,
                                                 dict(result.meta)).id
        if out.judge is not None:
            store.judge_results.add(out.caption_id, out.gold_caption, out.judge)
    else:
        out.notes.append("not stored: sign in as an annotator to keep clips and captions")
    progress(1.0, "done")
    return out


def _verdicts(settings: Settings, path: str | Path, result: CaptionResult,
              digest: str | None) -> list:
    """The caption's statements checked against the clip's pixels (one analysis per clip: the
    anchors captioner's own, else made once and cached). A failure here costs the verdicts only."""
    try:
        return verification.verdicts_for(settings, path, result.statements, digest,
                                         result.analysis)
    except CinecapError as e:
        log.warning("no verdicts for %s: %s", Path(path).name, e.message)
    except Exception:  # a bug in the analysis must not cost the caption itself: logged in full
        log.exception("verifying the caption of %s failed", Path(path).name)
    return []


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


def scaled(progress: Progress, lo: float, hi: float) -> Progress:
    """``progress`` for a part of the work that runs from ``lo`` to ``hi`` of the whole."""
    def inner(fraction: float, message: str) -> None:
        progress(lo + (hi - lo) * max(0.0, min(1.0, fraction)), message)
    return inner


#: The GRPO reward's two coverage terms, as the page's help text explains them.
COVERAGE_HELP = {
    "symmetric": "symmetric (the method's default): coverage = −min(1, |N_gold − N_said| / "
                 "N_gold): saying too few or too many statements both cost",
    "under": "under (the released training script): coverage = −max(0, (N_gold − N_said) / "
             "N_gold): only saying too few costs",
}


def rewards(judge: dict[str, Any] | None) -> dict[str, Any] | None:
    """The GRPO reward of a judgement (``cinecap.reward``, the paper's weights) under both
    coverage modes: ``{"symmetric": breakdown, "under": breakdown}`` (``RewardBreakdown`` as
    dicts); None without a judgement or for a failed one (it has no reward)."""
    if not judge or judge.get("failed"):
        return None
    from cinecap.reward import COVERAGE_MODES, RewardConfig, reward

    return {mode: reward(judge, RewardConfig(coverage=mode)).to_dict()
            for mode in COVERAGE_MODES}


def statement_views(judge: dict[str, Any] | None) -> dict[str, Any] | None:
    """Per aspect, the matched / missed / extra statements in words
    (``cinecap.judge.statement_view``, as dicts); None without a judgement."""
    if not judge or judge.get("failed"):
        return None
    from cinecap.judge import statement_view

    return {a: v.to_dict() for a, v in statement_view(judge).items()}


def export_data(outcome: CaptionOutcome) -> dict[str, Any]:
    """The result as the download holds it: the ``caption --json`` contract, then, with a gold
    caption, the judge JSON, the reward as ``judge --json`` gives it (``reward``,
    ``reward_breakdown``, ``reward_config``: the default, symmetric coverage), the reward under
    both coverage modes (``rewards``), the statement view per aspect (``statement_view``) and
    what the judge's scores are worth (``judge_limits``, null but for the rules judge)."""
    data = dict(outcome.result)
    data["video"] = outcome.filename or Path(outcome.video_path).name
    if outcome.example:
        data["example"] = outcome.example
    if outcome.judge is not None:
        from cinecap.judge.limits import judge_limits
        from cinecap.reward import RewardConfig

        both = rewards(outcome.judge)
        data["judge"] = outcome.judge
        data["gold_caption"] = outcome.gold_caption
        data["reward"] = both["symmetric"]["total"] if both else None
        data["reward_breakdown"] = both["symmetric"] if both else None
        data["reward_config"] = RewardConfig().to_dict()
        data["rewards"] = both
        data["statement_view"] = statement_views(outcome.judge)
        data["judge_limits"] = judge_limits(outcome.judge)
    return data


def export_json(outcome: CaptionOutcome, directory: str | Path | None = None) -> str:
    """:func:`export_data` as a JSON file to download (in ``directory``: a page folder)."""
    data = export_data(outcome)
    directory = Path(directory or tempfile.mkdtemp(prefix="cinecap-export-"))
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{Path(data['video']).stem}.caption.json"
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2))
    return str(path)


#: How an overlay's title names its shot ("shot 2 @ 2.2s: subject", cinecap.anchors.overlays).
_SHOT_TITLE = re.compile(r"^shot (\d+) @ [\d.]+s: (.+)$")


def overlay_shot(title: str) -> tuple[int | None, str]:
    """(shot index from 0, what the overlay shows) of an overlay title; (None, title) if it
    names no shot."""
    m = _SHOT_TITLE.match(title)
    return (int(m.group(1)) - 1, m.group(2)) if m else (None, title)


def overlays(outcome: CaptionOutcome, max_images: int = 24,
             directory: str | Path | None = None, settings: Settings | None = None
             ) -> list[tuple[Any, str]]:
    """Evidence overlays (RGB image, title) from the anchors analysis behind this caption; with
    ``directory``, (path of a WebP file written there, title) instead, for the page.

    Only where the captioner returned its analysis (the anchors captioner does): drawing them
    costs one frame per shot, not a second analysis. Other captioners have no pixel evidence. An
    example's cached run has its overlays drawn already: they are linked into a page folder that
    every visitor may fetch (``settings`` needed; public footage).
    """
    if outcome.overlay_files is not None:
        if settings is None:
            raise ValueError("overlays of a cached run need the settings (page folders)")
        return [(preview.shared_file(settings, "viewer", f), title)
                for f, title in outcome.overlay_files[:max_images]]
    if outcome.analysis is None:
        return []
    from cinecap.captioners.anchors import evidence_overlays

    shown = [(img, title) for title, img in
             evidence_overlays(outcome.source_path, outcome.analysis)[:max_images]]
    return shown if directory is None else preview.save_images(shown, directory)
