"""Choose the held-out clips of the licensed footage sets (seeded, so the choice is reproducible).

Six of the 24 clips of ``make_footage.CLIPS`` are held out: nobody looks at the captioner's output
on them, or at their gold, until the final measurement (``benchmarks/real_quality.py --split
heldout``). The rest are the development clips. Each later set of ``make_footage.SETS`` named in
``LATER`` (``HELDOUT2`` ... ``HELDOUT5``) is held out whole under its own name
("heldout2" ... "heldout5"): its gold is written blind from contact sheets before any
captioner runs on it. "all" means the 24 (dev + heldout): a later held-out set is measured on its
own, never mixed in.
Writes ``split.json`` beside this file.

    .venv/bin/python benchmarks/footage/split.py
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = 20261130
N_HELDOUT = 6
#: held-out sets added after the first split: each is a whole set of make_footage.SETS
LATER = ("heldout2", "heldout3", "heldout4", "heldout5")
NAMES = ("dev", "heldout", *LATER, "all")


def build() -> dict:
    """The split as split.json holds it (dev and heldout drawn exactly as when it was first made)."""
    sys.path.insert(0, str(HERE))
    from make_footage import CLIPS, SETS

    stems = sorted(c["stem"] for c in CLIPS)
    held = sorted(random.Random(SEED).sample(stems, N_HELDOUT))
    out = {"seed": SEED, "heldout": held, "dev": [s for s in stems if s not in held]}
    for name in LATER:
        out[name] = sorted(c["stem"] for c in SETS[name])
    return out


def select(split: dict, name: str, clips: list[str]) -> list[str]:
    """The clips of ``clips`` that the split ``name`` (one of ``NAMES``) takes, in their order.

    "all" keeps every clip except those of the later held-out sets, so with the project's gold it
    is the 24 (dev + heldout) whatever other sets' gold is appended, and with a gold file of other
    clips it is all of them."""
    if name == "all":
        later = {c for n in LATER for c in split.get(n, ())}
        return [c for c in clips if c not in later]
    chosen = set(split[name])
    return [c for c in clips if c in chosen]


def main() -> int:
    out = build()
    (HERE / "split.json").write_text(json.dumps(out, indent=1) + "\n")
    print(f"{len(out['dev'])} dev clips, {len(out['heldout'])} held out, "
          + ", ".join(f"{len(out[n])} in {n}" for n in LATER) + f" → {HERE / 'split.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
