"""Speed of the ``rules`` judge: caption pairs judged per second on one core.

Judges N pairs (default 1,000) built from the hand-labelled pairs in
``tests/data/judge_pairs.jsonl`` plus longer captions rendered from random statements (a clip
number is appended to every caption so no two pairs are the same text). The baseline, measured in
the same run on the same pairs, is a plain keyword matcher (every taxonomy term found by regex, as
sets per aspect; the matcher the labelled hard cases defeat). One process, one thread: the rules
judge is pure Python and uses one core. Target: ≥ 1,000 pairs/s (the reward judge is on the
GRPO hot path). Both wall-clock and CPU-time rates are printed: on a shared machine the CPU
time of this process is the steadier one.

    .venv/bin/python benchmarks/judge_speed.py [--pairs 1000] [--repeat 3] [--labels FILE]
"""
from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from cinecap import taxonomy as tx  # noqa: E402
from cinecap.language import parse, phrases  # noqa: E402
from cinecap.language.decompose import decompose  # noqa: E402
from cinecap.judge.rules import RulesJudge  # noqa: E402
from cinecap.statements import Statement, render_caption  # noqa: E402

TARGET = 1000.0


LABELS = ROOT / "tests" / "data" / "judge_pairs.jsonl"


def make_pairs(n: int, seed: int = 0, labels: Path = LABELS) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    labelled = [json.loads(x) for x in Path(labels).read_text().splitlines() if x]
    pairs = []
    for i in range(n):
        if i % 2 == 0:
            p = labelled[(i // 2) % len(labelled)]
            gt, pred = p["gt"], p["pred"]
        else:  # a longer, fuller caption: 5–9 statements over several aspects
            gt, pred = (render_caption(_random_statements(rng)) for _ in range(2))
        pairs.append((f"{gt} Clip {i}.", f"{pred} Clip {i}."))
    return pairs


def _random_statements(rng: random.Random) -> list[Statement]:
    out, t = [], 0.0
    for _ in range(rng.randint(5, 9)):
        v = rng.choice(tx.VALUES)
        if v.dynamic:
            d = rng.choice((1.0, 2.0, 3.0))
            out.append(Statement(v.aspect, v.canonical, t_start=t, t_end=t + d))
            t += d
        else:
            out.append(Statement(v.aspect, v.canonical))
    return out


def keyword_judge(gt: str, pred: str) -> tuple[int, int, int]:
    def found(text: str) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {a: set() for a in tx.ASPECTS}
        low = text.lower()
        for v, rx in _KEYWORDS:
            if rx.search(low):
                out[v.aspect].add(v.judge_class)
        return out
    g, p = found(gt), found(pred)
    return (sum(map(len, g.values())), sum(map(len, p.values())),
            sum(len(g[a] & p[a]) for a in tx.ASPECTS))


_KEYWORDS = [(v, re.compile(rf"(?<![\w-]){re.escape(t)}(?![\w-])")) for v in tx.VALUES
             for t in v.terms]


def _rate(make, pairs: list[tuple[str, str]], repeat: int) -> tuple[float, float]:
    """(pairs per second of wall-clock time, pairs per second of this process's CPU time), best
    of ``repeat``; ``make()`` gives a fresh judging function for each run (a new judge: nothing
    remembered from the run before). On a shared machine the CPU-time rate is the steadier."""
    best, best_cpu = float("inf"), float("inf")
    for _ in range(repeat):
        _forget()
        fn = make()
        t0, c0 = time.perf_counter(), time.process_time()
        for gt, pred in pairs:
            fn(gt, pred)
        best = min(best, time.perf_counter() - t0)
        best_cpu = min(best_cpu, time.process_time() - c0)
    return len(pairs) / best, len(pairs) / best_cpu


def _forget() -> None:
    """Empty what the language code remembers of texts already read (the tokens of a sentence,
    the key of a span), so that every run starts with no caption seen: only the compiled
    patterns are warm, as in a fresh process after its first caption."""
    parse._TOKENS_OF.clear()
    phrases.term_key.cache_clear()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3, help="best of N runs")
    ap.add_argument("--labels", type=Path, default=LABELS,
                    help="labelled pairs the caption pairs are drawn from (pin one file to compare "
                         "two versions of the judge on the same captions)")
    args = ap.parse_args(argv)
    pairs = make_pairs(args.pairs, labels=args.labels)
    decompose("warm up the compiled patterns")
    chars = sum(len(g) + len(p) for g, p in pairs) / len(pairs)
    base = _rate(lambda: keyword_judge, pairs, args.repeat)
    rules = _rate(lambda: RulesJudge().judge, pairs, args.repeat)
    dec = _rate(lambda: lambda g, p: (decompose(g), decompose(p)), pairs, args.repeat)
    # The GRPO reward's shape: G = 8 sampled captions judged against each gold caption.
    groups = [(pairs[i][0], pairs[i + k][1]) for i in range(0, len(pairs) - 7, 8)
              for k in range(8)]
    grpo = _rate(lambda: RulesJudge().judge, groups, args.repeat)
    grpo_base = _rate(lambda: keyword_judge, groups, args.repeat)
    print(f"{len(pairs)} pairs, {chars:.0f} characters per pair on average, one core, "
          f"best of {args.repeat}")
    print(f"{'judge':<34}{'pairs/s':>10}{'vs keyword':>12}{'CPU pairs/s':>13}")
    for name, (wall, cpu) in (("keyword matcher (baseline)", base),
                              ("rules: decompose both sides only", dec),
                              ("rules judge (decompose + match)", rules)):
        print(f"{name:<34}{wall:>10.0f}{wall / base[0]:>11.2f}x{cpu:>13.0f}")
    print(f"{'GRPO groups (1 gold, 8 samples):':<34}")
    for name, (wall, cpu) in (("keyword matcher (baseline)", grpo_base),
                              ("rules judge (gold decomposed once)", grpo)):
        print(f"{name:<34}{wall:>10.0f}{wall / grpo_base[0]:>11.2f}x{cpu:>13.0f}")
    print(f"target ≥ {TARGET:.0f} pairs/s, distinct pairs: "
          f"{'met' if rules[0] >= TARGET else 'NOT met'}"
          f"{'' if rules[1] >= TARGET else ' (CPU time: NOT met)'}; GRPO groups: "
          f"{'met' if grpo[0] >= TARGET else 'NOT met'}"
          f"{'' if grpo[1] >= TARGET else ' (CPU time: NOT met)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
