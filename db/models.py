"""Tables. Clips, gold pairs and review drafts carry a version column (optimistic locking); the
edit history is append-only (the ORM refuses updates and deletes of its rows)."""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from sqlalchemy import (JSON, BigInteger, Boolean, CheckConstraint, DateTime, Float, ForeignKey,
                        Index, Integer, String, Text, UniqueConstraint, event, text)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class Base(DeclarativeBase):
    pass


class User(Base):
    __tablename__ = "users"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    role: Mapped[str] = mapped_column(String(20))
    password_hash: Mapped[str | None] = mapped_column(String(300))  # None: OAuth-only account
    provider: Mapped[str] = mapped_column(String(20), default="local")  # local | huggingface
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    __table_args__ = (CheckConstraint("role IN ('viewer','annotator','reviewer','admin')",
                                      name="ck_users_role"),)


class Clip(Base):
    __tablename__ = "clips"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    sha256: Mapped[str] = mapped_column(String(64), unique=True)
    filename: Mapped[str] = mapped_column(String(300))  # as uploaded
    path: Mapped[str] = mapped_column(String(500))  # relative to the data directory
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    duration: Mapped[float | None] = mapped_column(Float)
    fps: Mapped[float | None] = mapped_column(Float)
    width: Mapped[int | None] = mapped_column(Integer)
    height: Mapped[int | None] = mapped_column(Integer)
    meta: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    uploaded_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    version: Mapped[int] = mapped_column(Integer, nullable=False)
    __mapper_args__ = {"version_id_col": version}


#: A managed model version's life: a round trains it (training → ready, or failed), an admin
#: promotes it (serving; the one serving before becomes retired) or discards it (retired); rolling
#: back retires the serving one and serves the one before it again.
VERSION_STATUSES = ("training", "failed", "ready", "serving", "retired")
#: A round's life: queued → running → benchmarking → done, or failed / cancelled on the way.
ROUND_STATUSES = ("queued", "running", "benchmarking", "done", "failed", "cancelled")
ACTIVE_ROUND_STATUSES = ("queued", "running", "benchmarking")


class ModelVersion(Base):
    """A captioner at one version (backend name + model id/adapter/code version).

    Rows with a ``status`` are *managed* ``vlm`` model versions: a base checkpoint or the
    output of a training round, with its directory, its parent and its held-out scores. At most
    one is ``serving`` (a partial unique index). Rows without a status are the other captioners'
    versions, recorded with the captions they made."""

    __tablename__ = "model_versions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    captioner: Mapped[str] = mapped_column(String(100))
    version: Mapped[str] = mapped_column(String(200))
    meta: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    status: Mapped[str | None] = mapped_column(String(20))  # None: not a managed version
    base: Mapped[str | None] = mapped_column(String(500))  # the checkpoint the lineage starts from
    #: The model directory: relative to the data directory when inside it, else absolute. None:
    #: a hub id (``base``) loaded by name.
    path: Mapped[str | None] = mapped_column(String(1000))
    parent_id: Mapped[int | None] = mapped_column(
        ForeignKey("model_versions.id", ondelete="SET NULL", name="fk_model_versions_parent"))
    round_id: Mapped[int | None] = mapped_column(
        ForeignKey("rounds.id", ondelete="SET NULL", name="fk_model_versions_round"))
    #: The version that was serving when this one was promoted (rolling back serves it again).
    previous_id: Mapped[int | None] = mapped_column(
        ForeignKey("model_versions.id", ondelete="SET NULL", name="fk_model_versions_previous"))
    scores: Mapped[dict[str, Any] | None] = mapped_column(JSON)  # held-out benchmark scores
    promoted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    __table_args__ = (
        UniqueConstraint("captioner", "version", name="uq_model_versions"),
        CheckConstraint("status IS NULL OR status IN "
                        "('training','failed','ready','serving','retired')",
                        name="ck_model_versions_status"),
        Index("uq_model_versions_one_serving", "status", unique=True,
              sqlite_where=text("status = 'serving'"),
              postgresql_where=text("status = 'serving'")),
    )


class Round(Base):
    """One training round (SFT or GRPO) run as a background job: its settings, the data it was
    given, its state, its latest progress, its log, and its comparison with the serving version.
    The version it makes is the ``model_versions`` row whose ``round_id`` is this round."""

    __tablename__ = "rounds"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    stage: Mapped[str] = mapped_column(String(10))
    status: Mapped[str] = mapped_column(String(20), default="queued")
    config: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)  # the round's settings
    data: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)  # pairs, clips, per aspect
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    heartbeat_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    cancel_requested: Mapped[bool] = mapped_column(Boolean, default=False)
    worker: Mapped[str] = mapped_column(String(200), default="")  # host:pid of its process
    step: Mapped[int] = mapped_column(Integer, default=0)
    max_steps: Mapped[int | None] = mapped_column(Integer)
    error: Mapped[str] = mapped_column(Text, default="")
    log: Mapped[str] = mapped_column(Text, default="")  # the tail of the training log
    comparison: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    __table_args__ = (
        CheckConstraint("status IN ('queued','running','benchmarking','done','failed',"
                        "'cancelled')", name="ck_rounds_status"),
        CheckConstraint("stage IN ('sft','grpo')", name="ck_rounds_stage"),
    )


class RoundEvent(Base):
    """One progress line of a round (``cinecap train``'s JSON events, and the app's own)."""

    __tablename__ = "round_events"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id", ondelete="CASCADE"), index=True)
    event: Mapped[dict[str, Any]] = mapped_column(JSON)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Caption(Base):
    """One captioner run on one clip."""

    __tablename__ = "captions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    clip_id: Mapped[int] = mapped_column(ForeignKey("clips.id", ondelete="CASCADE"), index=True)
    model_version_id: Mapped[int] = mapped_column(ForeignKey("model_versions.id"))
    caption: Mapped[str] = mapped_column(Text)
    reasoning: Mapped[str] = mapped_column(Text, default="")
    seconds: Mapped[float] = mapped_column(Float, default=0.0)
    certainty: Mapped[float | None] = mapped_column(Float)  # mean statement confidence
    warnings: Mapped[list[str]] = mapped_column(JSON, default=list)
    meta: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    statements: Mapped[list["StatementRow"]] = relationship(
        primaryjoin="Caption.id == StatementRow.caption_id", order_by="StatementRow.position",
        cascade="all, delete-orphan")


class GoldPair(Base):
    """A clip with its corrected (gold) caption: the training pair an annotator's review makes."""

    __tablename__ = "gold_pairs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    clip_id: Mapped[int] = mapped_column(ForeignKey("clips.id", ondelete="CASCADE"), index=True)
    source_caption_id: Mapped[int | None] = mapped_column(
        ForeignKey("captions.id", ondelete="SET NULL"))
    annotator_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    caption: Mapped[str] = mapped_column(Text)
    reasoning: Mapped[str] = mapped_column(Text, default="")
    status: Mapped[str] = mapped_column(String(20), default="submitted")
    clip_version: Mapped[int] = mapped_column(Integer)  # the clip version this save produced
    reviewer_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    review_note: Mapped[str] = mapped_column(Text, default="")
    # The annotator's notes to the reviewer, by statement id (``StatementRow.uid``).
    notes: Mapped[dict[str, str] | None] = mapped_column(JSON)
    reviewed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    version: Mapped[int] = mapped_column(Integer, nullable=False)
    statements: Mapped[list["StatementRow"]] = relationship(
        primaryjoin="GoldPair.id == StatementRow.gold_pair_id", order_by="StatementRow.position",
        cascade="all, delete-orphan")
    __mapper_args__ = {"version_id_col": version}
    __table_args__ = (CheckConstraint("status IN ('submitted','accepted','sent_back')",
                                      name="ck_gold_pairs_status"),)


class StatementRow(Base):
    """An atomic statement, owned by a model caption or by a gold pair (exactly one).

    ``uid`` names the statement across versions: a gold pair's statement kept or fixed from an
    earlier version carries that version's uid, so a review can tell "the same statement,
    changed" from "another statement". NULL on a model caption's rows (their uid is ``r<id>``).
    """

    __tablename__ = "statements"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uid: Mapped[str | None] = mapped_column(String(32))
    caption_id: Mapped[int | None] = mapped_column(ForeignKey("captions.id", ondelete="CASCADE"),
                                                   index=True)
    gold_pair_id: Mapped[int | None] = mapped_column(
        ForeignKey("gold_pairs.id", ondelete="CASCADE"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    aspect: Mapped[str] = mapped_column(String(40))
    value: Mapped[str] = mapped_column(String(60))
    text: Mapped[str] = mapped_column(Text)
    t_start: Mapped[float | None] = mapped_column(Float)
    t_end: Mapped[float | None] = mapped_column(Float)
    evidence: Mapped[str] = mapped_column(Text, default="")
    subject: Mapped[str | None] = mapped_column(String(200))
    confidence: Mapped[float | None] = mapped_column(Float)
    measurements: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    __table_args__ = (CheckConstraint("(caption_id IS NULL) <> (gold_pair_id IS NULL)",
                                      name="ck_statements_one_owner"),)


class StatementEdit(Base):
    """Append-only history: every statement edit, who made it, when, before and after."""

    __tablename__ = "statement_edits"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    clip_id: Mapped[int] = mapped_column(ForeignKey("clips.id", ondelete="CASCADE"), index=True)
    gold_pair_id: Mapped[int] = mapped_column(ForeignKey("gold_pairs.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    action: Mapped[str] = mapped_column(String(20))  # accept | fix | reject | add | delete
    before: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    after: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    __table_args__ = (CheckConstraint(
        "action IN ('accept','fix','reject','add','delete','review')",
        name="ck_statement_edits_action"),)


class ReviewDraft(Base):
    """An annotator's unsaved review of one clip (server-side, so it survives a page reload):
    the statements it started from and the actions taken since (``data``, JSON). One per user and
    clip; deleted by the save that turns it into a gold pair."""

    __tablename__ = "review_drafts"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    clip_id: Mapped[int] = mapped_column(ForeignKey("clips.id", ondelete="CASCADE"), index=True)
    clip_version: Mapped[int] = mapped_column(Integer)  # the clip version the draft started from
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    version: Mapped[int] = mapped_column(Integer, nullable=False)
    __mapper_args__ = {"version_id_col": version}
    # Ids are never reused (SQLite AUTOINCREMENT; PostgreSQL sequences never are): a page that
    # still holds a saved draft's id must not reach the next draft.
    __table_args__ = (UniqueConstraint("user_id", "clip_id", name="uq_review_drafts_user_clip"),
                      {"sqlite_autoincrement": True})


class JudgeResult(Base):
    __tablename__ = "judge_results"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    caption_id: Mapped[int] = mapped_column(ForeignKey("captions.id", ondelete="CASCADE"),
                                            index=True)
    gold_pair_id: Mapped[int | None] = mapped_column(
        ForeignKey("gold_pairs.id", ondelete="SET NULL"))
    gold_caption: Mapped[str] = mapped_column(Text)
    judge: Mapped[str] = mapped_column(String(50))
    judge_version: Mapped[str] = mapped_column(String(50), default="")
    f1: Mapped[float | None] = mapped_column(Float)
    result: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Bench(Base):
    """A bench file the store knows by its content hash: one a run used, one imported or exported
    here, or one an uploader declared. Results on an unknown hash are refused."""

    __tablename__ = "benches"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    sha256: Mapped[str] = mapped_column(String(64), unique=True)
    name: Mapped[str] = mapped_column(String(300))
    items: Mapped[int | None] = mapped_column(Integer)  # None: declared without its file
    source: Mapped[str] = mapped_column(String(20))
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    __table_args__ = (CheckConstraint("source IN ('run','import','export','declared')",
                                      name="ck_benches_source"),)


class BenchRun(Base):
    """One benchmark run: a captioner and a judge (with its protocol) over a bench file, its
    scores in both averaging conventions (``scores``: ``BenchmarkScores.to_dict()``) and, in
    ``bench_items``, its per-clip results. ``running`` until every clip is captioned and judged
    (an interrupted run stays ``running`` and can be resumed)."""

    __tablename__ = "bench_runs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    status: Mapped[str] = mapped_column(String(20), default="running")
    source: Mapped[str] = mapped_column(String(20))  # run | upload | cli
    bench_sha256: Mapped[str] = mapped_column(String(64), index=True)
    bench_name: Mapped[str] = mapped_column(String(300))
    items: Mapped[int] = mapped_column(Integer)
    model: Mapped[str] = mapped_column(String(200))
    model_family: Mapped[str] = mapped_column(String(100))
    model_version: Mapped[str] = mapped_column(String(200), default="")
    round: Mapped[int | None] = mapped_column(Integer)  # the training round that made the model
    captioner: Mapped[str] = mapped_column(String(100))
    options: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    judge: Mapped[str] = mapped_column(String(100))
    judge_version: Mapped[str] = mapped_column(String(100), default="")
    protocol: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    protocol_key: Mapped[str] = mapped_column(String(64), index=True)
    aspects: Mapped[list[str]] = mapped_column(JSON, default=list)
    scores: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    f1: Mapped[float | None] = mapped_column(Float)
    comprehensiveness: Mapped[float | None] = mapped_column(Float)
    accuracy: Mapped[float | None] = mapped_column(Float)
    judged: Mapped[int] = mapped_column(Integer, default=0)
    failed: Mapped[int] = mapped_column(Integer, default=0)
    failed_captions: Mapped[int] = mapped_column(Integer, default=0)
    meta: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    results_sha256: Mapped[str | None] = mapped_column(String(64), unique=True)
    run_date: Mapped[str] = mapped_column(String(40), default="")  # when the run says it ran
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    __table_args__ = (CheckConstraint("status IN ('running','done')", name="ck_bench_runs_status"),
                      CheckConstraint("source IN ('run','upload','cli')",
                                      name="ck_bench_runs_source"))


class BenchItem(Base):
    """One clip of a bench run: the gold caption, the model's caption (or its error), its F1, and
    the results file's row whole (with the judgement)."""

    __tablename__ = "bench_items"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("bench_runs.id", ondelete="CASCADE"),
                                        index=True)
    position: Mapped[int] = mapped_column(Integer)
    video: Mapped[str] = mapped_column(String(1000))
    gt_caption: Mapped[str] = mapped_column(Text)
    caption: Mapped[str | None] = mapped_column(Text)
    error: Mapped[str | None] = mapped_column(Text)
    f1: Mapped[float | None] = mapped_column(Float)  # None: not captioned, or judging failed
    # The results file's row as it is (seconds, warnings, the judgement: the judge JSON, …).
    row: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    __table_args__ = (UniqueConstraint("run_id", "position", name="uq_bench_items_position"),)


def _refuse(mapper, connection, target) -> None:  # noqa: ARG001 - SQLAlchemy event signature
    raise RuntimeError("the statement edit history is append-only")


event.listen(StatementEdit, "before_update", _refuse)
event.listen(StatementEdit, "before_delete", _refuse)


class SignInSession(Base):
    """A browser signed in to a local account: the SHA-256 of its cookie's token (the token
    itself is never stored), bound to the account's id, not its name, so a deleted account's
    sessions go with it and a later account of the same name starts with none."""

    __tablename__ = "sign_in_sessions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class SignInFailure(Base):
    """One failed sign-in: the name typed (an account or not) and the client's address. Kept in
    the store so every app process and the admin's CLI see the same throttle."""

    __tablename__ = "sign_in_failures"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account: Mapped[str] = mapped_column(String(100), index=True)
    address: Mapped[str | None] = mapped_column(String(64), index=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)
