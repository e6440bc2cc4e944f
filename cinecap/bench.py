"""Run a captioner and a judge over a bench file and aggregate the scores.

A bench file is CineCap-Bench's format: a JSON list of ``{"video_path", "gt_caption"}``, paths
relative to the file. Results carry everything the scores depend on: a top-level ``"protocol"``
object naming every choice of the protocol (:func:`protocol_of`, keys
``cinecap.judge.protocol.PROTOCOL_KEYS``, all values strings: docs/protocol.md), so that rows whose
protocols differ are never ranked together, and ``"meta"`` (captioner, judge and its version,
bench file hash, cinecap version).

What the judge reads of each clip is the captioner's whole output (``meta["raw_output"]``, else
the caption): the judge's protocol decides what of it counts (``judged_text``). An output cut at
the token limit is scored, as released, and flagged ``"truncated": true`` in its item.
"""
from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from cinecap import __version__, taxonomy as tx
from cinecap.captioners.base import Captioner
from cinecap.progress import Progress, no_progress
from cinecap.errors import CinecapError, InputError
from cinecap.judge.base import Judge, Judgement
from cinecap.judge.protocol import AGGREGATION, F1_DEFINITION, PROTOCOL_KEYS
from cinecap.judge.scores import BenchmarkScores, aggregate

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BenchItem:
    video_path: Path
    gt_caption: str


def load_bench(path: str | Path) -> list[BenchItem]:
    """Read a bench file; every problem is an InputError naming the file and the item."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"bench file not found: {path}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InputError(f"{path} is not a JSON bench file: {e}") from None
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON list of {{video_path, gt_caption}} items")
    items = []
    for i, raw in enumerate(data):
        if not isinstance(raw, dict) or not isinstance(raw.get("video_path"), str) \
                or not isinstance(raw.get("gt_caption"), str):
            raise InputError(f"{path}: item {i} needs string fields video_path and gt_caption")
        video = Path(raw["video_path"])
        items.append(BenchItem(video if video.is_absolute() else path.parent / video,
                               raw["gt_caption"]))
    if not items:
        raise InputError(f"{path}: the bench file has no items")
    return items


def public_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Options as recorded with a run: an API key is recorded as set, never written."""
    return {k: ("set" if k == "api_key" and v else v) for k, v in options.items()}


def run_meta(bench_path: str | Path, captioner_options: Mapping[str, Any],
             judge_options: Mapping[str, Any]) -> dict[str, Any]:
    """The ``meta`` a bench run starts from: the bench file and its hash, the options (public)."""
    from cinecap.files import sha256_file

    return {"bench_file": str(bench_path), "bench_sha256": sha256_file(bench_path),
            "options": public_options(captioner_options),
            "judge_options": public_options(judge_options)}


def _aspects_name(aspects: Sequence[str]) -> str:
    aspects = tuple(aspects)
    if aspects == tuple(tx.ASPECTS):
        return "seven"
    if aspects == tuple(tx.TRAINING_ASPECTS):
        return "six"
    return ",".join(aspects)


def protocol_of(judge: Judge, captioner: Captioner | None,
                aspects: Sequence[str] = tx.ASPECTS) -> dict[str, str]:
    """The "protocol" object of a bench result: every choice a score depends on, as strings
    (docs/protocol.md lists the keys and values). Two results are comparable when their objects
    are equal (``cinecap.judge.protocol.differences``)."""
    jp = judge.protocol()
    cp = captioner.protocol() if captioner is not None else {"sampling": "none",
                                                             "decoding": "none"}
    out = {
        "judge": str(judge.name),
        "judge_version": str(judge.version),
        "judge_model": str(getattr(judge, "model", "") or "none"),
        "prompt": jp["prompt"],
        "counting": jp["counting"],
        "judged_text": jp["judged_text"],
        "answer_block": "first",
        "f1": F1_DEFINITION,
        "aggregation": AGGREGATION,
        "aspects": _aspects_name(aspects),
        "sampling": str(cp.get("sampling", "none")),
        "decoding": str(cp.get("decoding", "none")),
        "truncated": "scored",
    }
    assert tuple(out) == PROTOCOL_KEYS
    return out


@dataclass
class BenchResults:
    items: list[dict[str, Any]]
    scores: BenchmarkScores
    meta: dict[str, Any] = field(default_factory=dict)
    protocol: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"protocol": dict(self.protocol), "meta": self.meta,
                "scores": self.scores.to_dict(), "items": self.items}


def run_bench(items: Sequence[BenchItem], captioner: Captioner, judge: Judge,
              aspects: Sequence[str] = tx.ASPECTS, progress: Progress | None = None,
              meta: dict[str, Any] | None = None, done: Mapping[int, dict[str, Any]] | None = None,
              on_row: Callable[[int, dict[str, Any]], None] | None = None) -> BenchResults:
    """Caption every clip, judge each caption against its gold one, aggregate.

    A clip that cannot be captioned (bad file, model failure) is recorded with its error and left
    out of the scores, like a failed judgement; the run goes on.

    Resuming: ``done`` holds rows of an earlier, interrupted run of the same items (by position);
    a row whose clip and gold caption match is kept as it is, not captioned again (its judgement
    too, when the same judge at the same version made it). ``on_row(i, row)`` is called after each
    clip is captioned, so a caller can keep the rows as they come.
    """
    progress = progress or no_progress
    check = getattr(judge, "check_aspects", None)
    if callable(check):  # an aspect the judge's prompt cannot judge fails before any captioning
        check(aspects)
    done = done or {}
    rows, judgements = [], []
    preds: list[tuple[int, str]] = []
    for i, item in enumerate(items):
        kept = done.get(i)
        if kept and kept.get("video_path") == str(item.video_path) \
                and kept.get("gt_caption") == item.gt_caption:
            rows.append(dict(kept))
            if kept.get("caption") is not None:
                preds.append((i, kept["caption"]))
            continue
        progress(i / max(1, len(items)), f"captioning {item.video_path.name} ({i + 1}/{len(items)})")
        row: dict[str, Any] = {"video_path": str(item.video_path), "gt_caption": item.gt_caption}
        t0 = time.perf_counter()
        try:
            result = captioner.caption(item.video_path)
            truncated = bool(result.meta.get("truncated"))
            row.update(caption=result.caption, seconds=time.perf_counter() - t0,
                       warnings=result.warnings, truncated=truncated)
            if result.meta.get("sampling"):
                row["sampling"] = str(result.meta["sampling"])
            raw = result.meta.get("raw_output")
            if isinstance(raw, str) and raw != result.caption:
                row["raw_output"] = raw
            preds.append((i, raw if isinstance(raw, str) else result.caption))
        except CinecapError as e:
            log.warning("bench: %s: %s", item.video_path, e.message)
            row.update(caption=None, error=e.message, seconds=time.perf_counter() - t0)
        rows.append(row)
        if on_row is not None:
            on_row(i, row)
    fresh = [(i, pred) for i, pred in preds if not _judged_by(rows[i].get("judgement"), judge)]
    progress(0.95, f"judging {len(fresh)} captions")
    judged = dict(zip((i for i, _ in fresh), judge.judge_many(
        [(items[i].gt_caption, pred) for i, pred in fresh], aspects)))
    for i, _ in preds:
        j = judged.get(i) or Judgement.from_dict(rows[i]["judgement"], aspects=aspects)
        rows[i]["judgement"] = j.to_dict()
        judgements.append(j)
    failed_captions = len(items) - len(preds)
    scores = aggregate(judgements, aspects)
    protocol = protocol_of(judge, captioner, aspects)
    used = {r["sampling"] for r in rows if r.get("sampling")}
    if used and used != {protocol["sampling"]}:  # e.g. a server that refused video: frames sent
        protocol["sampling"] = "mixed:" + "+".join(sorted(used))
    meta = {
        "cinecap_version": __version__,
        "captioner": getattr(captioner, "name", type(captioner).__name__),
        "judge": judge.name,
        "judge_version": judge.version,
        "aspects": list(aspects),
        "items": len(items),
        "failed_captions": failed_captions,
        "truncated_outputs": sum(1 for r in rows if r.get("truncated")),
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        **(meta or {}),
    }
    progress(1.0, "done")
    return BenchResults(rows, scores, meta, protocol)


def _judged_by(judgement: dict[str, Any] | None, judge: Judge) -> bool:
    """Whether a kept row's judgement was made by this judge at this version (and not failed)."""
    return bool(judgement) and not judgement.get("failed") \
        and judgement.get("judge") == judge.name and judgement.get("judge_version") == judge.version


def judgements_of(results: dict[str, Any]) -> list[Judgement]:
    """The judgements stored in a results file (for re-aggregation and comparisons)."""
    return [Judgement.from_dict(r["judgement"]) for r in results.get("items", [])
            if r.get("judgement")]
