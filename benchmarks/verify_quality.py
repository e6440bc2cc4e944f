"""The anchors as a verifier (``cinecap.verify``): how often the pixels contradict a true gold
statement, how often they catch a wrong one, and what a verification costs once the clip is analysed.

For each clip of the licensed set (``--footage``, gold in ``benchmarks/footage/gold.jsonl``), the
clip is analysed once (as the anchors captioner does, detectors included where their files are
found) and then:

1. every gold statement is verified as written: the share marked *contradicted* should be small
   (each one is listed, for a person to check: some may be label errors);
2. every gold statement is verified again with its value replaced by each wrong value of the same
   aspect (another judge class): the share *contradicted* is the verifier's catch rate;
3. the time to verify one clip's gold caption from the cached analysis (median over repeats).

``--each-bound`` adds a row per bound of ``cinecap.verify.BOUNDS`` (the labels alone, then the
labels with that one bound): what each rule catches and what true statements it costs.
``--misses`` lists the wrong camera-movement values left uncontradicted, grouped by the true
label, why (supported, abstained, measured too weakly or briefly) and what was measured: the
largest groups are where a new bound would pay.

    .venv/bin/python benchmarks/verify_quality.py --footage ../shared/footage            # dev clips
    .venv/bin/python benchmarks/verify_quality.py --footage ../shared/footage --split all
    .venv/bin/python benchmarks/verify_quality.py --footage ../shared/footage --each-bound

Targets (issue 25): at most 5 % of true gold statements contradicted; wrong values contradicted on
≥ 60 % of camera-movement statements and ≥ 40 % of shot-size and orientation statements; under
50 ms per caption with the analysis cached.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from cinecap import taxonomy as tx  # noqa: E402
from cinecap.verify import (BOUNDS, CONTRADICTED, NOT_MEASURABLE, SUPPORTED,  # noqa: E402
                            VerifyConfig, analysis_of, verify)
from real_quality import FOOTAGE, SPLITS, load_gold, select  # noqa: E402


def wrong_values(aspect: str, value: str) -> list[str]:
    """The values of ``aspect`` the judge would not count as ``value``."""
    cls = tx.get(aspect, value).judge_class
    return [v.canonical for v in tx.values_for(aspect) if v.judge_class != cls]


def score(analyses: dict[str, dict], gold: dict, cfg: VerifyConfig | None = None
          ) -> tuple[dict, dict, list[str]]:
    """Verdict counts by aspect for the true and the wrong-valued gold statements, and the true
    ones contradicted (as lines to list)."""
    true = {a: {SUPPORTED: 0, CONTRADICTED: 0, NOT_MEASURABLE: 0} for a in tx.ASPECTS}
    wrong = {a: {SUPPORTED: 0, CONTRADICTED: 0, NOT_MEASURABLE: 0} for a in tx.ASPECTS}
    flagged = []
    for c, an in analyses.items():
        sts = gold[c]
        for v in verify(an, sts, cfg):
            true[v.statement.aspect][v.verdict] += 1
            if v.verdict == CONTRADICTED:
                st = v.statement
                when = f" {st.t_start:.1f}–{st.t_end:.1f} s" if st.has_interval else ""
                flagged.append(f"- `{c}`: {st.aspect} **{st.value}**{when} — {v.reason}")
        swapped = [replace(st, value=w) for st in sts for w in wrong_values(st.aspect, st.value)]
        for v in verify(an, swapped, cfg):
            wrong[v.statement.aspect][v.verdict] += 1
    return true, wrong, flagged


def misses(analyses: dict[str, dict], gold: dict, cfg: VerifyConfig | None = None) -> str:
    """The wrong camera-movement values not contradicted, grouped (largest group first)."""
    groups: dict[tuple[str, str, str], list[str]] = {}
    for c, an in analyses.items():
        for st in gold[c]:
            if st.aspect != tx.CAMERA_MOVEMENT:
                continue
            swapped = [replace(st, value=w) for w in wrong_values(st.aspect, st.value)]
            for v in verify(an, swapped, cfg):
                if v.verdict == CONTRADICTED:
                    continue
                why = (v.verdict if v.verdict == SUPPORTED else "abstained" if "abstained" in
                       v.reason else "measured nothing" if not v.measured else "too weak or brief")
                when = f" {st.t_start:.1f}–{st.t_end:.1f} s" if st.has_interval else ""
                groups.setdefault((st.value, why, ", ".join(v.measured) or "–"), []).append(
                    f"{c}{when}")
    out = ["| wrong values | true label | why not contradicted | measured | statements |",
           "|---:|---|---|---|---|"]
    for (true, why, measured), where in sorted(groups.items(), key=lambda g: -len(g[1])):
        out.append(f"| {len(where)} | {true} | {why} | {measured} | "
                   f"{', '.join(dict.fromkeys(where))} |")
    return "\n".join(out)


def _share(counts: dict[str, int]) -> str:
    n = sum(counts.values())
    return f"{counts[CONTRADICTED]}/{n} = {counts[CONTRADICTED] / n:.1%}" if n else "–"


def each_bound(analyses: dict[str, dict], gold: dict) -> str:
    """One row per bound: the labels alone, each bound alone on top of them, all of them."""
    out = ["| bounds | true contradicted (all) | true camera movement | wrong camera movement | "
           "wrong shot size | wrong orientation |", "|---|---:|---:|---:|---:|---:|"]
    for name, bounds in ([("labels only", ())] + [(f"+ {b}", (b,)) for b in BOUNDS]
                         + [("all bounds", BOUNDS)]):
        true, wrong, _ = score(analyses, gold, VerifyConfig(bounds=bounds))
        total = {k: sum(true[a][k] for a in tx.ASPECTS) for k in (SUPPORTED, CONTRADICTED,
                                                                  NOT_MEASURABLE)}
        out.append(f"| {name} | {_share(total)} | {_share(true[tx.CAMERA_MOVEMENT])} | "
                   f"{_share(wrong[tx.CAMERA_MOVEMENT])} | {_share(wrong[tx.SHOT_SIZE])} | "
                   f"{_share(wrong[tx.SUBJECT_ORIENTATION])} |")
    return "\n".join(out)


def _row(name: str, counts: dict[str, int]) -> str:
    n = sum(counts.values())
    share = counts[CONTRADICTED] / n if n else 0.0
    return (f"| {name} | {n} | {counts[SUPPORTED]} | {counts[CONTRADICTED]} | "
            f"{counts[NOT_MEASURABLE]} | {share:.1%} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--footage", type=Path, default=FOOTAGE, help="folder of <clip>.mp4 files")
    ap.add_argument("--gold", type=Path, help="gold JSONL (default: FOOTAGE/gold.jsonl, else "
                                              "benchmarks/footage/gold.jsonl)")
    ap.add_argument("--split", choices=SPLITS, default="dev",
                    help="which clips of benchmarks/footage/split.json ('all': the 24, dev + heldout)")
    ap.add_argument("--cache", type=Path, help="keep each clip's analysis JSON here (reruns skip "
                                               "the analysis)")
    ap.add_argument("--repeats", type=int, default=20, help="timing repeats per clip")
    ap.add_argument("--each-bound", action="store_true",
                    help="also a row per bound of cinecap.verify.BOUNDS (what each one catches)")
    ap.add_argument("--misses", action="store_true",
                    help="also the wrong camera-movement values not contradicted, grouped")
    args = ap.parse_args(argv)

    gold_path = args.gold or next((p for p in (args.footage / "gold.jsonl",
                                               FOOTAGE / "gold.jsonl") if p.is_file()), None)
    if gold_path is None:
        print("error: no gold file (--gold)", file=sys.stderr)
        return 2
    gold = load_gold(gold_path)
    clips = sorted(gold)
    clips = select(json.loads((FOOTAGE / "split.json").read_text()), args.split, clips)
    if not clips:
        print(f"error: {gold_path} has no gold for a clip of --split {args.split}", file=sys.stderr)
        return 2
    missing = [c for c in clips if not (args.footage / f"{c}.mp4").is_file()]
    if missing:
        print(f"error: {len(missing)} clip(s) missing in {args.footage}: {', '.join(missing[:5])}",
              file=sys.stderr)
        return 2

    analyses, timings = {}, []
    for c in clips:
        cached = args.cache / f"{c}.json" if args.cache else None
        if cached is not None and cached.is_file():
            an = json.loads(cached.read_text())
        else:
            an = analysis_of(args.footage / f"{c}.mp4")
            if cached is not None:
                cached.parent.mkdir(parents=True, exist_ok=True)
                cached.write_text(json.dumps(an))
        analyses[c] = an
        verify(an, gold[c])  # the first call imports the anchor phrasing: not a verification's cost
        for _ in range(args.repeats):
            t = time.perf_counter()
            verify(an, gold[c])
            timings.append((time.perf_counter() - t) * 1000)
    true, wrong, flagged = score(analyses, gold)

    head = ("| aspect | statements | supported | contradicted | not measurable | contradicted "
            "share |\n|---|---:|---:|---:|---:|---:|")
    for title, table in (("True gold statements (should rarely be contradicted)", true),
                         ("Gold statements with a wrong value (should be contradicted)", wrong)):
        print(f"\n{title} — {len(clips)} clips ({args.split})\n\n{head}")
        for a in tx.ASPECTS:
            if sum(table[a].values()):
                print(_row(a, table[a]))
        total = {k: sum(table[a][k] for a in tx.ASPECTS) for k in (SUPPORTED, CONTRADICTED,
                                                                   NOT_MEASURABLE)}
        print(_row("all", total))
    print("\nTrue gold statements marked contradicted:\n")
    print("\n".join(flagged) if flagged else "(none)")
    if args.each_bound:
        print(f"\nEach bound on its own — {len(clips)} clips ({args.split})\n")
        print(each_bound(analyses, gold))
    if args.misses:
        print(f"\nWrong camera-movement values not contradicted — {len(clips)} clips "
              f"({args.split})\n")
        print(misses(analyses, gold))
    print(f"\nVerifying one clip's gold caption from its cached analysis: median "
          f"{statistics.median(timings):.2f} ms, max {max(timings):.2f} ms "
          f"({len(timings)} runs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
