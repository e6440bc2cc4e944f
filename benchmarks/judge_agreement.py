"""Agreement between two judges, or between a judge and labelled pairs.

    # a judge against the labelled pairs (expected per-aspect counts)
    .venv/bin/python benchmarks/judge_agreement.py --a rules --labels tests/data/judge_pairs.jsonl
    # two judges on the same pairs (e.g. rules vs an LLM judge configured by environment)
    CINECAP_JUDGE_BASE_URL=http://localhost:8000/v1 CINECAP_JUDGE_MODEL=Qwen/Qwen3-8B \\
        .venv/bin/python benchmarks/judge_agreement.py --a rules --b llm --pairs pairs.jsonl

Input: JSONL, one ``{"gt", "pred", "id"?, "hard"?, "expected"?}`` per line. ``expected`` maps an
aspect to its ``[gt_count, pred_count, matched_count]`` (or an object with those keys); aspects
not listed expect zero statements. With ``--labels`` the file's ``expected`` is judge B.

Reported, over pairs that neither side failed (failed judgements are counted and excluded):
exact per-aspect count agreement (all three counts equal), the share of pairs that agree on every
aspect, and the mean absolute difference of comprehensiveness and accuracy (benchmark convention:
comprehensiveness 1.0 when a caption pair has no GT statement); then the headline table, over all
pairs and over the ``hard`` ones: pairs with all aspects exact, cells (pair-aspects) exact,
comprehensiveness MAE and accuracy MAE (the figures docs/judge.md records for each blind batch). The baseline for ratios is judge
A's own time per pair, measured in the same run.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Sequence

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from cinecap import taxonomy as tx  # noqa: E402
from cinecap.errors import CinecapError, InputError  # noqa: E402
from cinecap.config import parse_key_values  # noqa: E402
from cinecap.judge import get_judge  # noqa: E402
from cinecap.judge.base import AspectCounts, Judgement  # noqa: E402

_COUNT_KEYS = ("gt_count", "pred_count", "matched_count")


def load_pairs(path: str | Path) -> list[dict[str, Any]]:
    """The pairs of a JSONL file; a malformed line is an InputError naming its number."""
    rows = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"cannot read pairs file {path}: {e}") from None
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as e:
            raise InputError(f"{path}:{n}: not JSON ({e})") from None
        if not isinstance(row, dict) or not all(isinstance(row.get(k), str) for k in ("gt", "pred")):
            raise InputError(f'{path}:{n}: expected an object with string "gt" and "pred"')
        row.setdefault("id", f"line {n}")
        rows.append(row)
    if not rows:
        raise InputError(f"{path} holds no pairs")
    return rows


def labelled_judgement(row: dict[str, Any], aspects: Sequence[str]) -> Judgement:
    """The judgement a labelled row expects (``expected``: aspect → [gt, pred, matched])."""
    expected = row.get("expected")
    if not isinstance(expected, dict):
        raise InputError(f"pair {row.get('id')!r} has no \"expected\" counts")
    dims = {}
    for a in aspects:
        value = expected.get(a, [0, 0, 0])
        if isinstance(value, dict):
            value = [value.get(k, 0) for k in _COUNT_KEYS]
        if not (isinstance(value, list) and len(value) == 3
                and all(isinstance(v, int) and v >= 0 for v in value)):
            raise InputError(f"pair {row.get('id')!r}: expected[{a!r}] must be "
                             f"[gt_count, pred_count, matched_count], got {value!r}")
        dims[a] = AspectCounts(gt_count=value[0], pred_count=value[1], matched_count=value[2])
    unknown = set(expected) - set(tx.ASPECTS)
    if unknown:
        raise InputError(f"pair {row.get('id')!r}: unknown aspect(s) {sorted(unknown)}")
    return Judgement(dims, "labels", "", aspects=tuple(aspects)).sanitized()


def _triple(j: Judgement, aspect: str) -> tuple[int, int, int]:
    c = j.by_dim[aspect]
    return c.gt_count, c.pred_count, c.matched_count


def compare(a: list[Judgement], b: list[Judgement], aspects: Sequence[str],
            rows: Sequence[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Agreement of two lists of judgements of the same pairs (failed ones excluded)."""
    both = [i for i, (x, y) in enumerate(zip(a, b)) if not x.failed and not y.failed]
    n = len(both)
    per_aspect = {asp: (sum(_triple(a[i], asp) == _triple(b[i], asp) for i in both) / n
                        if n else float("nan")) for asp in aspects}
    matched_only = {asp: (sum(a[i].by_dim[asp].matched_count == b[i].by_dim[asp].matched_count
                              for i in both) / n if n else float("nan")) for asp in aspects}
    all_agree = [i for i in both if all(_triple(a[i], s) == _triple(b[i], s) for s in aspects)]
    mad = {name: (sum(abs(f(a[i]) - f(b[i])) for i in both) / n if n else float("nan"))
           for name, f in (("comprehensiveness", lambda j: j.comprehensiveness()),
                           ("accuracy", lambda j: j.accuracy()))}
    out = {
        "pairs": len(a), "compared": n,
        "failed_a": sum(x.failed for x in a), "failed_b": sum(y.failed for y in b),
        "exact_by_aspect": per_aspect, "matched_by_aspect": matched_only,
        "all_aspects_exact": len(all_agree) / n if n else float("nan"),
        "mad": mad,
        "disagreements": [i for i in both if i not in set(all_agree)],
    }
    if rows is not None and any("hard" in r for r in rows):
        for label, flag in (("easy", False), ("hard", True)):
            subset = [i for i in both if bool(rows[i].get("hard")) is flag]
            agree = sum(i in set(all_agree) for i in subset)
            out[f"all_aspects_exact_{label}"] = (agree / len(subset)) if subset else float("nan")
            out[f"compared_{label}"] = len(subset)
    hard = [i for i in both if rows is not None and rows[i].get("hard")]
    out["summary"] = {"all": _summary(a, b, both, aspects), "hard": _summary(a, b, hard, aspects)}
    return out


def _summary(a: list[Judgement], b: list[Judgement], idx: Sequence[int],
             aspects: Sequence[str]) -> dict[str, Any]:
    """The headline figures over the pairs ``idx``: pairs with every aspect exact, cells
    (pair-aspects) exact, and the mean absolute error of comprehensiveness and accuracy."""
    n = len(idx)
    cells = sum(_triple(a[i], s) == _triple(b[i], s) for i in idx for s in aspects)
    pairs = sum(all(_triple(a[i], s) == _triple(b[i], s) for s in aspects) for i in idx)
    mae = {name: (sum(abs(f(a[i]) - f(b[i])) for i in idx) / n if n else float("nan"))
           for name, f in (("comprehensiveness", lambda j: j.comprehensiveness()),
                           ("accuracy", lambda j: j.accuracy()))}
    return {"pairs": n, "pairs_exact": pairs, "cells": n * len(aspects), "cells_exact": cells,
            "cmp_mae": mae["comprehensiveness"], "acc_mae": mae["accuracy"]}


def _run(name: str, options: dict[str, str], pairs: list[tuple[str, str]],
         aspects: Sequence[str]) -> tuple[list[Judgement], float, str]:
    judge = get_judge(name, **options)
    t0 = time.perf_counter()
    results = judge.judge_many(pairs, aspects)
    label = f"{name} {getattr(judge, 'version', '')}".strip()
    if getattr(judge, "model", None):
        label += f" ({judge.model})"
    return results, time.perf_counter() - t0, label


def _print(report: dict[str, Any], label_a: str, label_b: str, aspects: Sequence[str],
           timing: list[tuple[str, float]], rows: list[dict[str, Any]], show: int,
           details: tuple[list[Judgement], list[Judgement]] | None = None) -> None:
    print(f"judge agreement: A = {label_a}   B = {label_b}")
    print(f"pairs {report['pairs']}, compared {report['compared']} "
          f"(failed: A {report['failed_a']}, B {report['failed_b']})")
    print(f"{'aspect':<22}{'exact (gt,pred,matched)':>25}{'matched only':>14}")
    for asp in aspects:
        print(f"{asp:<22}{report['exact_by_aspect'][asp]:>25.3f}"
              f"{report['matched_by_aspect'][asp]:>14.3f}")
    print(f"{'all aspects':<22}{report['all_aspects_exact']:>25.3f}")
    for label in ("easy", "hard"):
        if f"all_aspects_exact_{label}" in report:
            print(f"{'  ' + label + ' pairs (' + str(report['compared_' + label]) + ')':<22}"
                  f"{report['all_aspects_exact_' + label]:>25.3f}")
    print(f"mean |Δ comprehensiveness| {report['mad']['comprehensiveness']:.3f}   "
          f"mean |Δ accuracy| {report['mad']['accuracy']:.3f}")
    print(f"{'':<10}{'pairs all 7 exact':>20}{'cells exact':>18}{'cmp MAE':>9}{'acc MAE':>9}")
    for label, sm in report["summary"].items():
        if not sm["pairs"]:
            continue
        print(f"{label + ' (' + str(sm['pairs']) + ')':<10}"
              f"{_frac(sm['pairs_exact'], sm['pairs']):>20}{_frac(sm['cells_exact'], sm['cells']):>18}"
              f"{sm['cmp_mae']:>9.3f}{sm['acc_mae']:>9.3f}")
    if timing:
        base = timing[0][1] / max(report["pairs"], 1)
        print(f"{'judge':<10}{'s/pair':>10}{'vs A':>8}")
        for name, seconds in timing:
            per = seconds / max(report["pairs"], 1)
            print(f"{name:<10}{per:>10.4f}{(per / base if base else float('nan')):>7.1f}x")
    for i in report["disagreements"][:show]:
        r = rows[i]
        print(f"- {r['id']}: {r['gt'][:70]!r} | {r['pred'][:70]!r}")
        if details is not None:
            for asp in aspects:
                ta, tb = _triple(details[0][i], asp), _triple(details[1][i], asp)
                if ta != tb:
                    c = details[0][i].by_dim[asp]
                    print(f"    {asp}: A {list(ta)}  B {list(tb)}  GT {c.gt_statements}  "
                          f"pred {c.pred_statements}")


def _frac(k: int, n: int) -> str:
    return f"{k}/{n} = {100 * k / n:.1f} %" if n else "-"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", default="rules", help="judge A by name (default rules)")
    ap.add_argument("--b", help="judge B by name (or use --labels)")
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--labels", help="JSONL with expected counts: judge A vs the labels")
    src.add_argument("--pairs", help="JSONL of pairs judged by both --a and --b")
    ap.add_argument("--a-option", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--b-option", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--aspects", choices=("all", "training"), default="all",
                    help="seven aspects (benchmark) or the six of the training reward")
    ap.add_argument("--show", type=int, default=10, help="list this many disagreeing pairs")
    ap.add_argument("--misses", action="store_true",
                    help="under each disagreeing pair, the aspects that differ with A's statements")
    ap.add_argument("--json", metavar="FILE", help="also write the report as JSON")
    args = ap.parse_args(argv)
    aspects = tx.ASPECTS if args.aspects == "all" else tx.TRAINING_ASPECTS
    try:
        if args.pairs and not args.b:
            raise InputError("--pairs compares two judges: give --b NAME (or use --labels)")
        rows = load_pairs(args.labels or args.pairs)
        pairs = [(r["gt"], r["pred"]) for r in rows]
        res_a, sec_a, label_a = _run(args.a, parse_key_values(args.a_option, "--a-option"), pairs,
                                        aspects)
        timing = [("A", sec_a)]
        if args.labels:
            res_b, label_b = [labelled_judgement(r, aspects) for r in rows], f"labels {args.labels}"
        else:
            res_b, sec_b, label_b = _run(args.b, parse_key_values(args.b_option, "--b-option"),
                                            pairs, aspects)
            timing.append(("B", sec_b))
    except CinecapError as e:
        print(f"error: {e.message}", file=sys.stderr)
        return e.exit_code
    report = compare(res_a, res_b, aspects, rows)
    _print(report, label_a, label_b, aspects, timing, rows, args.show,
           (res_a, res_b) if args.misses else None)
    if args.json:
        report["disagreements"] = [rows[i]["id"] for i in report["disagreements"]]
        Path(args.json).write_text(json.dumps({"a": label_a, "b": label_b, **report}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
