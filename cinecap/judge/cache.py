"""A persistent cache of judgements in one SQLite file, shared by threads and processes.

A benchmark rerun or a GRPO epoch that meets a (GT, prediction) pair it has judged before reads the
answer back instead of paying for the call again. The key is the sha256 of model, prompt version,
aspects, GT and prediction, so a new prompt version or another judge model never reads old scores.
Only successful judgements are stored: a failure is retried on the next run.

Every operation opens its own short connection (WAL journal, busy timeout), which keeps the cache
safe to use from the judge's worker threads and from several processes on one machine. Not for
network file systems, where SQLite locking is unreliable.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
import time
from contextlib import closing
from pathlib import Path
from typing import Any, Sequence

from cinecap import taxonomy as tx
from cinecap.errors import InputError
from cinecap.judge.base import Judgement

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS judgements (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    judgement TEXT NOT NULL,
    created REAL NOT NULL
)"""


def default_path() -> Path:
    """``$CINECAP_CACHE_DIR/judge.sqlite``, else ``~/.cache/cinecap/judge.sqlite``."""
    root = os.environ.get("CINECAP_CACHE_DIR")
    base = Path(root).expanduser() if root else Path.home() / ".cache" / "cinecap"
    return base / "judge.sqlite"


def cache_key(model: str, prompt_version: str, aspects: Sequence[str], gt: str, pred: str) -> str:
    """sha256 over model ‖ prompt version ‖ aspects ‖ GT ‖ prediction (JSON-framed, unambiguous)."""
    payload = json.dumps([model, prompt_version, list(aspects), gt, pred], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class JudgeCache:
    """Judgements by key in a SQLite file; ``get`` returns None on a miss."""

    def __init__(self, path: str | os.PathLike | None = None, timeout: float = 30.0):
        self.path = Path(path).expanduser() if path else default_path()
        self.timeout = timeout
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with closing(self._connect()) as db, db:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute(_SCHEMA)
        except (OSError, sqlite3.Error) as e:
            raise InputError(f"cannot use judge cache file {self.path}: {e}. Point "
                             "CINECAP_CACHE_DIR at a writable local folder, or disable the "
                             "cache (cache=False).") from None

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None)
        db.execute(f"PRAGMA busy_timeout={int(self.timeout * 1000)}")
        return db

    def get(self, key: str) -> Judgement | None:
        try:
            with closing(self._connect()) as db:
                row = db.execute("SELECT judgement FROM judgements WHERE key = ?",
                                 (key,)).fetchone()
        except sqlite3.Error as e:  # a cache that cannot be read costs a call, not the run
            log.warning("judge cache read failed (%s): %s", self.path, e)
            return None
        if row is None:
            return None
        try:
            data = json.loads(row[0])
            return Judgement.from_dict(data, aspects=data.get("aspects") or tx.ASPECTS)
        except (ValueError, TypeError, AttributeError) as e:
            log.warning("judge cache entry %s unreadable, ignoring it: %s", key[:12], e)
            return None

    def put(self, key: str, model: str, judgement: Judgement) -> bool:
        """Store a successful judgement; failed ones are refused (returns False)."""
        if judgement.failed:
            return False
        data: dict[str, Any] = judgement.to_dict()
        data["aspects"] = list(judgement.aspects)
        try:
            with closing(self._connect()) as db:
                db.execute("INSERT OR REPLACE INTO judgements VALUES (?, ?, ?, ?, ?)",
                           (key, model, judgement.version, json.dumps(data, ensure_ascii=False),
                            time.time()))
        except sqlite3.Error as e:
            log.warning("judge cache write failed (%s): %s", self.path, e)
            return False
        return True

    def __len__(self) -> int:
        with closing(self._connect()) as db:
            return db.execute("SELECT COUNT(*) FROM judgements").fetchone()[0]

    def clear(self) -> int:
        """Forget every entry; returns how many there were."""
        with closing(self._connect()) as db:
            return db.execute("DELETE FROM judgements").rowcount
