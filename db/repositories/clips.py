"""Clips (copied once per content under the data directory) and the captioner runs on them."""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from cinecap.files import sha256_file
from db import models as m
from db.errors import NotFound
from db.records import CaptionRecord, ClipRecord, UserRecord
from db.repositories.base import Repository
from db.repositories.rows import caption_record, clip_record, jsonable, statement_row


class ClipRepository(Repository):
    def add(self, src: str | Path, filename: str, info: dict[str, Any],
            user: UserRecord | None, sha256: str | None = None) -> ClipRecord:
        """Copy a validated clip under the data directory, once per content (``sha256``, computed
        here unless given)."""
        src = Path(src)
        digest = sha256 or sha256_file(src)
        with self.sessions.reading() as s:
            found = s.scalar(select(m.Clip).where(m.Clip.sha256 == digest))
            if found is not None:
                return clip_record(found, self.data_dir)
        rel = Path("clips") / digest[:2] / f"{digest}{src.suffix.lower() or '.mp4'}"
        dest = self.data_dir / rel
        if not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            # A temp name of its own per copy: concurrent adds of one new clip never share one.
            fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".part")
            os.close(fd)
            try:
                shutil.copyfile(src, tmp)
                os.replace(tmp, dest)  # atomic: a reader never sees half a clip
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        try:
            with self.sessions.writing() as s:
                c = m.Clip(sha256=digest, filename=Path(filename).name[:300], path=rel.as_posix(),
                           size_bytes=src.stat().st_size, duration=info.get("duration"),
                           fps=info.get("fps"), width=info.get("width"), height=info.get("height"),
                           meta={k: v for k, v in info.items() if jsonable(v)},
                           uploaded_by=user.id if user else None)
                s.add(c)
                s.flush()
                return clip_record(c, self.data_dir)
        except IntegrityError:  # the same clip uploaded concurrently
            with self.sessions.reading() as s:
                return clip_record(s.scalar(select(m.Clip).where(m.Clip.sha256 == digest)),
                                   self.data_dir)

    def find_by_sha256(self, digest: str) -> ClipRecord | None:
        """The clip with this content, or None when it was never stored."""
        with self.sessions.reading() as s:
            c = s.scalar(select(m.Clip).where(m.Clip.sha256 == digest))
            return clip_record(c, self.data_dir) if c else None

    def get(self, clip_id: int) -> ClipRecord:
        with self.sessions.reading() as s:
            c = s.get(m.Clip, clip_id)
            if c is None:
                raise NotFound(f"no clip #{clip_id}")
            return clip_record(c, self.data_dir)

    def list(self) -> list[ClipRecord]:
        """Every clip, oldest first."""
        with self.sessions.reading() as s:
            return [clip_record(c, self.data_dir)
                    for c in s.scalars(select(m.Clip).order_by(m.Clip.id))]

    def add_caption(self, clip_id: int, result: dict[str, Any], captioner: str,
                    model_version: str, user: UserRecord | None,
                    model_meta: dict[str, Any] | None = None) -> CaptionRecord:
        """Store one captioner run (``CaptionResult.to_dict()``) with its statements."""
        sts = list(result.get("statements") or [])
        confs = [st["confidence"] for st in sts if st.get("confidence") is not None]
        with self.sessions.writing() as s:
            if s.get(m.Clip, clip_id) is None:
                raise NotFound(f"no clip #{clip_id}")
            mv = _model_version(s, captioner, model_version, model_meta or {})
            cap = m.Caption(clip_id=clip_id, model_version_id=mv.id,
                            caption=result.get("caption") or "",
                            reasoning=result.get("reasoning") or "",
                            seconds=float(result.get("seconds") or 0.0),
                            certainty=sum(confs) / len(confs) if confs else None,
                            warnings=list(result.get("warnings") or []),
                            meta={k: v for k, v in (result.get("meta") or {}).items()
                                  if jsonable(v)},
                            created_by=user.id if user else None)
            cap.statements = [statement_row(st, i) for i, st in enumerate(sts)]
            s.add(cap)
            s.flush()
            return caption_record(s, cap)

    def get_caption(self, caption_id: int) -> CaptionRecord:
        """One captioner run by its id (``NotFound`` when there is none)."""
        with self.sessions.reading() as s:
            cap = s.get(m.Caption, caption_id)
            if cap is None:
                raise NotFound(f"model caption #{caption_id} not found")
            return caption_record(s, cap)

    def latest_caption(self, clip_id: int) -> CaptionRecord | None:
        """The clip's newest captioner run, or None when it has none."""
        with self.sessions.reading() as s:
            cap = s.scalar(select(m.Caption).where(m.Caption.clip_id == clip_id)
                           .order_by(m.Caption.id.desc()).limit(1))
            return caption_record(s, cap) if cap else None


def _model_version(s: Session, captioner: str, version: str,
                   meta: dict[str, Any]) -> m.ModelVersion:
    mv = s.scalar(select(m.ModelVersion).where(m.ModelVersion.captioner == captioner,
                                               m.ModelVersion.version == version))
    if mv is None:
        # A savepoint, so a concurrent insert of the same version does not undo the caller.
        try:
            with s.begin_nested():
                mv = m.ModelVersion(captioner=captioner, version=version, meta=meta)
                s.add(mv)
        except IntegrityError:
            mv = s.scalar(select(m.ModelVersion).where(
                m.ModelVersion.captioner == captioner, m.ModelVersion.version == version))
    return mv
