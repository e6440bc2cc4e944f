"""Which of a caption's claims the picture contradicts (``cinecap.verify``), for the app.

One anchors analysis per clip serves every caption of it — a model's, a gold pair, an annotator's
draft: it is kept as JSON in the data dir (``analysis/<clip sha256>-<analysis version>.json``),
where the version hashes the anchors captioner's code and settings, so a new analysis never
reads an old file. With the analysis at hand a caption's verdicts cost well under a millisecond.

A stored caption keeps its verdict counts in its meta (``verification``: supported /
contradicted / not measurable, and ``verdicts``: one per statement), which is what the review
queue orders by when asked for disagreement first (the acquisition row of active learning).
The Review tab checks a draft as it is edited (:func:`draft_verdicts`: its statements now and as
its source had them) and a gold pair as a reviewer reads it (:func:`gold_verdicts`: the
contradicted statements first), annotators and up.
"""
from __future__ import annotations

import functools
import json
import logging
import os
import stat
import tempfile
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

from cinecap.errors import CinecapError
from cinecap.files import sha256_file
from cinecap.statements import Statement
from cinecap.verify import CONTRADICTED, Verdict, statements_of, summary, verify
from db.roles import require_role
from ui.settings import Settings

log = logging.getLogger(__name__)

#: The last analyses made or read in this process, by (clip sha256, analysis version): a clip
#: captioned again, reviewed or verified again costs no disk read either.
_RECENT: "OrderedDict[tuple[str, str], dict]" = OrderedDict()
_RECENT_MAX = 32
_LOCK = threading.Lock()  # concurrent handlers share the memo
#: One lock per analysis being made (by the same key): a second open of a clip, a click on its
#: row meanwhile, waits for the first analysis and reads it instead of analysing again.
_IN_FLIGHT: dict[tuple[str, str], threading.Lock] = {}
#: Analyses made (not read) by this process: how a test sees that two opens analysed once.
ANALYSES = 0


def analysis_version() -> str:
    """The anchors analysis's version: its captioner's code and settings, hashed.

    Hashed once per state of the detector files: the code and the captioner's config are fixed
    for the process, and no app setting changes them, but the files do change under a running
    app (``CINECAP_FETCH_MODELS=auto`` fetches the missing ones in the background after the
    start), and an analysis made with the detectors must not be filed under one made without.
    Finding the files costs a few stat calls; the hash (the library's code) is made once each."""
    return _version_for(_model_files())


def _model_files() -> tuple:
    """Where each detector file is found (the first candidate that exists, as
    ``cinecap.pretrained.resolve`` picks it) with its size, mtime and inode; () parts for none."""
    from cinecap import pretrained

    out = []
    for name in pretrained.DEFAULT_NAMES:
        for p in pretrained.search_path(name):
            try:
                st = p.stat()
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                out.append((name, str(p), st.st_size, st.st_mtime_ns, st.st_ino))
                break
    return tuple(out)


@functools.lru_cache(maxsize=8)
def _version_for(model_files: tuple) -> str:
    # ``model_files`` is only the memo's key: the captioner finds the same files itself.
    from cinecap.captioners.anchors import AnchorsCaptioner
    from ui.usecases.examples import captioner_version

    return captioner_version("anchors", AnchorsCaptioner())


def _cache_file(settings: Settings, sha256: str) -> Path:
    return Path(settings.data_dir) / "analysis" / f"{sha256}-{analysis_version()}.json"


def analysis_cached(settings: Settings, path: str | Path, sha256: str | None = None) -> bool:
    """Whether the clip's analysis is at hand (in this process's memo or the data dir's cache):
    :func:`clip_analysis` then costs no analysis. Runs nothing."""
    digest = sha256 or sha256_file(path)
    with _LOCK:
        if (digest, analysis_version()) in _RECENT:
            return True
    return _cache_file(settings, digest).is_file()


def clip_analysis(settings: Settings, path: str | Path, sha256: str | None = None,
                  analysis: Any = None) -> dict:
    """The clip's analysis as a dict (``Analysis.to_dict``): from the cache, from ``analysis``
    (a run's own ``Analysis``, which is then cached), or made now (seconds of CPU; a call for
    the same clip meanwhile waits for it rather than analysing too)."""
    digest = sha256 or sha256_file(path)
    key = (digest, analysis_version())
    if analysis is not None:
        return _remember(key, _cached_or_made(settings, digest, path, analysis))
    with _LOCK:
        if key in _RECENT:
            _RECENT.move_to_end(key)
            return _RECENT[key]
        flight = _IN_FLIGHT.setdefault(key, threading.Lock())
    try:
        with flight:
            with _LOCK:  # made by the call this one waited for
                if key in _RECENT:
                    _RECENT.move_to_end(key)
                    return _RECENT[key]
            return _remember(key, _cached_or_made(settings, digest, path, None))
    finally:
        with _LOCK:
            if _IN_FLIGHT.get(key) is flight and not flight.locked():
                del _IN_FLIGHT[key]


def _cached_or_made(settings: Settings, digest: str, path: str | Path, analysis: Any) -> dict:
    global ANALYSES
    cached = _cache_file(settings, digest)
    data = None
    if analysis is None and cached.is_file():
        try:
            data = json.loads(cached.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            log.warning("unreadable analysis cache %s: analysing again", cached.name)
    if data is None:
        if analysis is None:
            from cinecap.verify import analysis_of

            with _LOCK:
                ANALYSES += 1
            data = analysis_of(path)
        else:
            data = analysis if isinstance(analysis, dict) else analysis.to_dict()
        _write(cached, data, path)
    return data


def _remember(key: tuple[str, str], data: dict) -> dict:
    with _LOCK:
        _RECENT[key] = data
        while len(_RECENT) > _RECENT_MAX:
            _RECENT.popitem(last=False)
    return data


def _write(cached: Path, data: dict, path: str | Path) -> None:
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cached.parent, suffix=".part")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f)
        os.replace(tmp, cached)
    except OSError as e:  # a full or read-only disk costs a re-analysis next time, nothing more
        log.warning("could not cache the analysis of %s: %s", Path(path).name, e)


def verdicts_for(settings: Settings, path: str | Path, statements: Iterable[dict | Statement],
                 sha256: str | None = None, analysis: Any = None) -> list[Verdict]:
    """Each statement's verdict against the clip's pixels."""
    sts = statements_of(statements=list(statements))
    if not sts:
        return []
    return verify(clip_analysis(settings, path, sha256, analysis), sts)


def caption_meta(verdicts: Sequence[Verdict]) -> dict[str, Any]:
    """What a stored caption keeps of its verdicts (its meta's ``verification``/``verdicts``)."""
    return {"verification": summary(verdicts),
            "verdicts": [{"verdict": v.verdict, "reason": v.reason} for v in verdicts]}


def contradicted_first(items: Sequence[Any], verdicts: Sequence[Verdict]) -> list[int]:
    """Positions of ``items`` (one per verdict) with the contradicted ones first, otherwise in
    their order: what a reviewer reads first."""
    return sorted(range(len(items)), key=lambda i: (verdicts[i].verdict != CONTRADICTED, i))


# --- the Review tab: a clip's statements as stored or being edited -------------------------------
def clip_verdicts(store: Any, settings: Settings, user: Any, clip_id: int,
                  statements: Sequence[dict | Statement]) -> list[Verdict]:
    """Each statement's verdict against stored clip ``clip_id``'s pixels (the Review tab: a model
    caption, a draft being edited, a gold pair). [] when the clip cannot be verified (its file
    gone, an analysis that fails): the review goes on without verdicts, the reason logged."""
    require_role(user.role, "annotator", "checking statements against the pixels")
    if not statements:
        return []
    clip = store.clips.get(int(clip_id))
    try:
        return verdicts_for(settings, clip.path, statements, clip.sha256)
    except CinecapError as e:
        log.warning("no verdicts for clip #%s: %s", clip.id, e.message)
    except Exception:  # a bug in the analysis must not cost the review: logged in full
        log.exception("verifying the statements of clip #%s failed", clip.id)
    return []


def clip_analysed(store: Any, settings: Settings, user: Any, clip_id: int) -> bool:
    """Whether stored clip ``clip_id``'s analysis is at hand, so its verdicts cost no analysis
    (the Review tab opens an unanalysed clip first and measures it after). Runs nothing."""
    require_role(user.role, "annotator", "checking statements against the pixels")
    clip = store.clips.get(int(clip_id))
    try:
        return analysis_cached(settings, clip.path, clip.sha256)
    except (OSError, CinecapError):  # no file to hash: measuring it says why
        return False


def measure_clip(store: Any, settings: Settings, user: Any, clip_id: int) -> str:
    """Make stored clip ``clip_id``'s analysis (or wait for the one being made, or read it):
    "" when it is at hand after, else why it could not be made, as the page says it."""
    require_role(user.role, "annotator", "checking statements against the pixels")
    clip = store.clips.get(int(clip_id))
    try:
        clip_analysis(settings, clip.path, clip.sha256)
        return ""
    except CinecapError as e:
        log.warning("no analysis of clip #%s: %s", clip.id, e.message)
        return e.message
    except Exception:  # a bug in the analysis must not cost the review: logged in full
        log.exception("analysing clip #%s failed", clip.id)
        return "the analysis failed (see the server log)"


@dataclass(frozen=True)
class DraftVerdicts:
    """A review draft's statements against the pixels: ``current`` one verdict per item as it is
    now (``Draft.items()`` order), ``base`` one per item as the draft's source had it (None for
    an addition); both empty when the clip could not be verified."""

    current: list[Verdict]
    base: list[Verdict | None]

    def counts(self, items: Sequence[Any]) -> tuple[int, int, int, int]:
        """(contradicted, of) for the source's statements, then for the draft's kept ones."""
        if not self.current:
            return 0, 0, 0, 0
        base = [v for v in self.base if v is not None]
        now = [v for v, it in zip(self.current, items) if it.kept]
        return (sum(v.verdict == CONTRADICTED for v in base), len(base),
                sum(v.verdict == CONTRADICTED for v in now), len(now))


def draft_verdicts(store: Any, settings: Settings, user: Any, draft: Any) -> DraftVerdicts:
    """The verdicts of ``draft`` (``ui.usecases.edits.Draft``): its statements now and as its
    source had them, so an edit that the pixels contradict shows before it is saved. Cheap once
    the clip's analysis is cached (one verify of both lists)."""
    items = draft.items()
    originals = [it.original for it in items if it.original is not None]
    verdicts = clip_verdicts(store, settings, user, draft.clip_id,
                             [it.shown for it in items] + originals)
    if not verdicts:
        return DraftVerdicts([], [])
    current, rest = verdicts[:len(items)], iter(verdicts[len(items):])
    return DraftVerdicts(current, [next(rest) if it.original is not None else None
                                   for it in items])


@dataclass(frozen=True)
class CheckedRows:
    """A gold pair's rows as a reviewer reads them: contradicted statements first, each row with
    its verdict (None for a row not in the pair, a removed model statement), and the count."""

    rows: list[Any]
    verdicts: list[Verdict | None]
    contradicted: int
    statements: int  # the pair's statements (removed rows not counted)


def gold_verdicts(store: Any, settings: Settings, user: Any, view: Any) -> CheckedRows:
    """``view`` (``ui.usecases.gold.GoldView``) with its pair's statements checked against the
    clip's pixels, the contradicted ones first (:func:`contradicted_first`), otherwise in order."""
    rows = list(view.rows)
    mine = [i for i, r in enumerate(rows) if r.change != "removed"]
    checked = clip_verdicts(store, settings, user, view.gold.clip_id,
                            [rows[i].statement for i in mine])
    verdicts: list[Verdict | None] = [None] * len(rows)
    for i, v in zip(mine, checked):
        verdicts[i] = v
    if checked:
        first = [mine[k] for k in contradicted_first(mine, checked)]
        order = first + [i for i in range(len(rows)) if i not in mine]
    else:
        order = list(range(len(rows)))
    return CheckedRows([rows[i] for i in order], [verdicts[i] for i in order],
                       sum(v.verdict == CONTRADICTED for v in checked), len(mine))
