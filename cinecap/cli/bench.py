"""``cinecap bench BENCH.json --captioner NAME --judge NAME [--protocol NAME] --out RESULTS.json``.

The results file names every protocol choice in its top-level "protocol" object (docs/protocol.md).
With the llm judge the judge protocol defaults to the released benchmark protocol
(``released-benchmark``: prompt benchmark-7, released counting, the raw output judged).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from cinecap import taxonomy as tx
from cinecap.cli.options import (add_captioner_options, add_judge_options, captioner_options,
                                 judge_options)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="caption a bench file's clips and score them against gold",
                       description="Run a captioner and a judge over a bench file (a JSON list of "
                                   "{video_path, gt_caption}, paths relative to the file).")
    p.add_argument("bench", help="bench JSON file (CineCap-Bench format)")
    p.add_argument("--captioner", default="anchors", help="captioner name (default: anchors)")
    p.add_argument("--judge", default="rules", help="judge name (default: rules)")
    p.add_argument("--protocol", metavar="NAME",
                   help="the llm judge's protocol: a preset (released-benchmark, the default; "
                        "hardened-benchmark; app; …) or PROMPT/COUNTING[/JUDGED_TEXT], e.g. "
                        "benchmark-7/released/answer; --judge-option prompt=… counting=… "
                        "judged_text=… override it field by field (docs/protocol.md)")
    add_captioner_options(p)
    add_judge_options(p)
    p.add_argument("--aspects", choices=["seven", "six"], default="seven",
                   help="score all seven aspects (benchmark) or the six training aspects")
    p.add_argument("--limit", type=int, help="only the first N items")
    p.add_argument("--out", required=True, help="where to write the results JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from cinecap.bench import load_bench, run_bench
    from cinecap.captioners import get_captioner
    from cinecap.cli import progress_printer
    from cinecap.files import sha256_file
    from cinecap.judge import get_judge, judge_limits

    items = load_bench(args.bench)
    if args.limit:
        items = items[: args.limit]
    options = captioner_options(args)
    j_options = bench_judge_options(args.judge, args.protocol, judge_options(args))
    captioner = get_captioner(args.captioner, **options)
    judge = get_judge(args.judge, **j_options)
    aspects = tx.ASPECTS if args.aspects == "seven" else tx.TRAINING_ASPECTS
    results = run_bench(items, captioner, judge, aspects, progress_printer(),
                        meta={"bench_file": str(args.bench),
                              "bench_sha256": sha256_file(args.bench),
                              "options": _public(options), "judge_options": _public(j_options)})
    Path(args.out).write_text(json.dumps(results.to_dict(), indent=2, ensure_ascii=False),
                              encoding="utf-8")
    print("protocol: " + "  ".join(f"{k}={v}" for k, v in results.protocol.items()))
    print(results.scores.table())
    if judge_limits(judge):
        print(judge_limits(judge))
    print(f"results written to {args.out}")
    return 0


def bench_judge_options(judge: str, protocol_name: str | None, options: dict) -> dict:
    """The judge options of a bench run: for the llm judge the protocol (default: the released
    benchmark protocol), field by field, under any ``--judge-option`` given for the same field."""
    from cinecap.errors import InputError
    from cinecap.judge.protocol import protocol

    if judge != "llm":
        if protocol_name is not None:
            raise InputError(f"--protocol sets the llm judge's prompt and counting; the {judge} "
                             f"judge has none (it counts its own statement lists)")
        return options
    chosen = protocol(protocol_name or "released-benchmark")
    return {**chosen.to_dict(), **options}


def _public(options: dict) -> dict:
    """Options as stored with the results: an API key is recorded as set, never written."""
    return {k: ("set" if k == "api_key" and v else v) for k, v in options.items()}
