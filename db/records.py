"""Plain records the store's repositories return: frozen dataclasses, detached from any session,
safe to hand to the use cases and the page. Statements inside them are ``Statement.to_dict()``
dicts (the library's statement contract); a judge result keeps the judge's JSON as is."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class UserRecord:
    id: int
    name: str
    role: str
    provider: str = "local"


@dataclass(frozen=True)
class ClipRecord:
    id: int
    sha256: str
    filename: str
    path: str  # absolute path of the stored file
    size_bytes: int
    duration: float | None
    fps: float | None
    width: int | None
    height: int | None
    version: int
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class CaptionRecord:
    """One captioner run on one clip, with its statements."""

    id: int
    clip_id: int
    caption: str
    reasoning: str
    seconds: float
    certainty: float | None  # mean statement confidence, None when unknown
    warnings: list[str]
    captioner: str
    model_version: str
    statements: list[dict[str, Any]]


@dataclass(frozen=True)
class JudgeResultRecord:
    id: int
    caption_id: int
    judge: str
    judge_version: str
    f1: float | None
    gold_caption: str
    gold_pair_id: int | None
    result: dict[str, Any]  # the judge JSON (JudgeResult.to_dict())


@dataclass(frozen=True)
class QueueItem:
    clip_id: int
    filename: str
    certainty: float | None  # of the newest model caption; None when unknown
    gold_pairs: int
    status: str  # "to review" | "submitted" | "sent back"
    captioner: str
    #: Statements of the newest model caption the pixels contradict (cinecap.verify); None when
    #: it was not verified.
    contradicted: int | None = None


@dataclass(frozen=True)
class ReviewSnapshot:
    """What an annotator edits: the clip's current statements and the version they came from."""

    clip: ClipRecord
    version: int
    statements: list[dict[str, Any]]
    source: str  # "model caption #3 (anchors)" or "gold pair #7 by alice"
    caption_id: int | None
    gold_pair_id: int | None
    model_caption: str
    statement_ids: list[str] = field(default_factory=list)  # one per statement (its uid)
    notes: dict[str, str] = field(default_factory=dict)  # the annotator's notes, by statement id
    gold: "GoldPairRecord | None" = None  # the newest gold pair (its status, reviewer's note)


@dataclass(frozen=True)
class GoldPairRecord:
    id: int
    clip_id: int
    annotator: str
    caption: str
    status: str
    version: int
    statements: list[dict[str, Any]]
    created_at: datetime
    reviewer: str | None = None
    review_note: str = ""
    source_caption_id: int | None = None
    clip_version: int = 0  # the clip version this save produced
    statement_ids: list[str] = field(default_factory=list)  # one per statement (its uid)
    notes: dict[str, str] = field(default_factory=dict)  # the annotator's notes, by statement id
    reviewed_at: datetime | None = None


@dataclass(frozen=True)
class EditRecord:
    id: int
    clip_id: int
    gold_pair_id: int
    user: str
    action: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    at: datetime


@dataclass(frozen=True)
class DraftRecord:
    """An annotator's unsaved review of one clip; ``data`` is the draft as the review use case
    keeps it (JSON)."""

    id: int
    user_id: int
    clip_id: int
    clip_version: int
    data: dict[str, Any]
    version: int  # bumped by every write (optimistic lock)
    updated_at: datetime


@dataclass(frozen=True)
class ModelVersionRecord:
    """A managed ``vlm`` model version: a base checkpoint or what a training round made."""

    id: int
    captioner: str
    version: str  # its label: the base's name, or "round-<id>"
    status: str  # training | failed | ready | serving | retired
    base: str  # the checkpoint the lineage starts from (hub id or directory)
    model: str  # what the captioner loads: the version's directory (absolute), or a hub id
    parent_id: int | None  # the version it was trained from (None: a base)
    round_id: int | None  # the round that made it (None: a base)
    previous_id: int | None  # the version serving before this one was promoted
    scores: dict[str, Any] | None  # held-out benchmark scores (cinecap.bench), with their meta
    created_at: datetime
    promoted_at: datetime | None = None
    stage: str = ""  # sft | grpo (from its round; "" for a base)
    #: ``vlm`` captioner options it runs with (the video settings it was trained with).
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """How the page and the CLI name it: ``#3 (round 2, grpo)`` or ``#1 (base)``."""
        what = f"round {self.round_id}, {self.stage}" if self.round_id else "base"
        return f"#{self.id} ({what})"


@dataclass(frozen=True)
class RoundRecord:
    """A training round as the store keeps it (its progress lines: ``store.rounds.events``)."""

    id: int
    stage: str
    status: str  # queued | running | benchmarking | done | failed | cancelled
    config: dict[str, Any]
    data: dict[str, Any]
    created_by: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    heartbeat_at: datetime | None
    cancel_requested: bool
    worker: str
    step: int
    max_steps: int | None
    error: str
    log: str
    comparison: dict[str, Any]
    version_id: int | None  # the model version it makes
    base_version_id: int | None  # the version it starts from

    @property
    def active(self) -> bool:
        return self.status in ("queued", "running", "benchmarking")


@dataclass(frozen=True)
class RoundEventRecord:
    id: int
    round_id: int
    event: dict[str, Any]
    at: datetime


@dataclass(frozen=True)
class BenchRecord:
    """A bench file the store knows by its content hash."""

    id: int
    sha256: str
    name: str
    items: int | None  # None: declared by an uploader without the file
    source: str  # run | import | export | declared
    created_at: datetime


@dataclass(frozen=True)
class BenchRunRecord:
    """One benchmark run (or a recorded results file), without its per-clip rows.

    ``protocol`` is the judge protocol object whole (strings by key; ``"unknown"`` where an older
    results file does not say); ``protocol_key`` hashes it. ``scores`` is
    ``BenchmarkScores.to_dict()``: overall s_cmp/s_acc/F1 and, per aspect, both averaging
    conventions (``*_all_clips``, released; ``*_present_only``), each labelled."""

    id: int
    status: str  # running | done
    source: str  # run | upload | cli
    bench_sha256: str
    bench_name: str
    items: int
    model: str
    model_family: str
    model_version: str
    round: int | None
    captioner: str
    options: dict[str, Any]
    judge: str
    judge_version: str
    protocol: dict[str, Any]
    protocol_key: str
    aspects: list[str]
    scores: dict[str, Any] | None
    f1: float | None
    comprehensiveness: float | None
    accuracy: float | None
    judged: int
    failed: int
    failed_captions: int
    meta: dict[str, Any]
    results_sha256: str | None
    run_date: str
    created_by: str | None
    created_at: datetime
    finished_at: datetime | None


@dataclass(frozen=True)
class BenchItemRecord:
    """One clip of a bench run; ``row`` is the results file's row whole (with the judgement)."""

    id: int
    run_id: int
    position: int
    video: str
    gt_caption: str
    caption: str | None
    error: str | None
    f1: float | None
    row: dict[str, Any]
