"""Datasets from the store: one function per format.

- :func:`export_gold_pairs` — the store's gold pairs as ``cinecap-gold-pairs/1`` JSONL
  (``cinecap.training.data``, docs/training.md): the data a training round trains on, and what
  ``python -m ui export gold-pairs`` writes.

Which gold pairs (:func:`gold_pairs`): a clip may have several (each save of a review makes one).
By default each clip gives its newest **accepted** pair: what a reviewer approved, and nothing
that is still being argued about. ``include_submitted`` also takes pairs not reviewed yet (a team
without reviewers): each clip then gives its newest pair that was not sent back. A pair whose
caption is empty (every statement rejected) is skipped and counted.
"""
from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from cinecap import taxonomy as tx
from db.records import GoldPairRecord, UserRecord
from db.roles import require_role
from db.store import Store

#: The statement fields the contract carries (the store's confidence and measurements are a
#: captioner's, not gold).
STATEMENT_FIELDS = ("aspect", "value", "text", "t_start", "t_end", "evidence", "subject")


@dataclass(frozen=True)
class GoldPairsExport:
    """What an export wrote."""

    path: Path
    pairs: int
    clips: int
    gold_pair_ids: list[int]
    per_aspect: dict[str, int]  # gold statements per aspect (every aspect, 0 where none)
    skipped: list[str] = field(default_factory=list)  # "gold pair #7: empty caption"

    @property
    def max_gold_pair_id(self) -> int:
        return max(self.gold_pair_ids, default=0)

    def to_dict(self) -> dict:
        return {"format": "cinecap-gold-pairs/1", "file": str(self.path), "pairs": self.pairs,
                "clips": self.clips, "gold_pair_ids": self.gold_pair_ids,
                "max_gold_pair_id": self.max_gold_pair_id, "per_aspect": self.per_aspect,
                "skipped": self.skipped}


def gold_pairs(store: Store, include_submitted: bool = False) -> list[GoldPairRecord]:
    """One gold pair per clip, oldest clip first: its newest accepted pair (or, with
    ``include_submitted``, its newest pair that was not sent back)."""
    wanted = ("accepted", "submitted") if include_submitted else ("accepted",)
    newest: dict[int, GoldPairRecord] = {}
    for g in store.review.gold_pairs():  # oldest first: later ones replace earlier ones
        if g.status in wanted:
            newest[g.clip_id] = g
    return [newest[c] for c in sorted(newest)]


def statements_per_aspect(pairs: list[GoldPairRecord]) -> dict[str, int]:
    counts = Counter(st["aspect"] for g in pairs for st in g.statements)
    return {a: counts.get(a, 0) for a in tx.ASPECTS}


def export_gold_pairs(store: Store, user: UserRecord, dest: str | Path,
                      include_submitted: bool = False) -> GoldPairsExport:
    """Write the gold pairs (:func:`gold_pairs`) to ``dest`` as ``cinecap-gold-pairs/1`` JSONL:
    ``{"id": "gold-pair-<id>", "video_path": <the stored clip>, "gt_caption", "statements"}``,
    one per line. The file is written under a temporary name and renamed, then read back with
    the training code's own reader (``cinecap.training.data.load_pairs``), so a round never
    starts on data it would refuse. Needs the admin role (it reads every annotator's work)."""
    require_role(user.role, "admin", "exporting the gold pairs")
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    chosen, skipped, lines = [], [], []
    for g in gold_pairs(store, include_submitted):
        if not g.caption.strip():
            skipped.append(f"gold pair #{g.id}: empty caption (every statement rejected)")
            continue
        clip = store.clips.get(g.clip_id)
        sts = [{k: st.get(k) for k in STATEMENT_FIELDS if st.get(k) not in (None, "")}
               for st in g.statements]
        lines.append(json.dumps({"id": f"gold-pair-{g.id}", "video_path": clip.path,
                                 "gt_caption": g.caption, "statements": sts},
                                ensure_ascii=False))
        chosen.append(g)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in lines))
        os.replace(tmp, dest)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    if lines:
        from cinecap.training.data import load_pairs

        load_pairs(dest)  # InputError naming the line, should a stored pair break the contract
    return GoldPairsExport(dest, len(chosen), len({g.clip_id for g in chosen}),
                           [g.id for g in chosen], statements_per_aspect(chosen), skipped)
