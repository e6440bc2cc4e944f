"""Choose the held-out clips of the licensed footage set (seeded, so the choice is reproducible).

Six clips are held out: nobody looks at the captioner's output on them, or at their gold, until the
final measurement (``benchmarks/real_quality.py --split heldout``). The rest are the development
clips. Writes ``split.json`` beside this file.

    .venv/bin/python benchmarks/footage/split.py
"""
from __future__ import annotations

import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = 20261130
N_HELDOUT = 6


def main() -> int:
    import sys

    sys.path.insert(0, str(HERE))
    from make_footage import CLIPS

    stems = sorted(c["stem"] for c in CLIPS)
    held = sorted(random.Random(SEED).sample(stems, N_HELDOUT))
    out = {"seed": SEED, "heldout": held, "dev": [s for s in stems if s not in held]}
    (HERE / "split.json").write_text(json.dumps(out, indent=1) + "\n")
    print(f"{len(out['dev'])} dev clips, {len(held)} held out → {HERE / 'split.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
