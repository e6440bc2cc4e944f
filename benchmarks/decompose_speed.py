"""Decomposition speed of one version of the rules judge, in one process: every GT and predicted
caption of a pinned labelled-pairs file decomposed ``--passes`` times, best pass, CPU time
(``time.process_time``). Run two versions alternately, each extracted with ``git archive``, on
the same file; on a shared machine compare medians of several alternations (docs/judge.md, round 7).

    git archive 27ed45c | tar -x -C /tmp/old
    .venv/bin/python benchmarks/decompose_speed.py --src /tmp/old --labels FILE
    .venv/bin/python benchmarks/decompose_speed.py --src . --labels FILE
"""
from __future__ import annotations

import argparse
import json
import sys
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", default=".", help="the tree whose cinecap/ is timed")
    ap.add_argument("--labels", default="tests/data/judge_pairs.jsonl")
    ap.add_argument("--passes", type=int, default=7)
    args = ap.parse_args()
    sys.path.insert(0, args.src)
    from cinecap.language import parse, phrases
    from cinecap.language.decompose import decompose
    captions = []
    with open(args.labels) as f:
        for line in f:
            if line.strip():
                pair = json.loads(line)
                captions += [pair["gt"], pair["pred"]]
    best = float("inf")
    for _ in range(args.passes):
        # Each pass starts with no caption seen: what a tree remembers of texts (where it does)
        # is emptied, so later passes do not gain from the first one.
        getattr(parse, "_TOKENS_OF", {}).clear()
        getattr(phrases.term_key, "cache_clear", lambda: None)()
        t = time.process_time()
        for c in captions:
            decompose(c)
        best = min(best, time.process_time() - t)
    print(f"{args.src}: {len(captions)} captions, {len(captions) / best:,.0f} captions/s "
          f"(best of {args.passes}, CPU)")


if __name__ == "__main__":
    main()
