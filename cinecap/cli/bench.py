"""``cinecap bench BENCH.json --captioner NAME --judge NAME --out RESULTS.json``."""
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
    from cinecap.judge import get_judge

    items = load_bench(args.bench)
    if args.limit:
        items = items[: args.limit]
    options = captioner_options(args)
    j_options = judge_options(args)
    captioner = get_captioner(args.captioner, **options)
    judge = get_judge(args.judge, **j_options)
    aspects = tx.ASPECTS if args.aspects == "seven" else tx.TRAINING_ASPECTS
    results = run_bench(items, captioner, judge, aspects, progress_printer(),
                        meta={"bench_file": str(args.bench),
                              "bench_sha256": sha256_file(args.bench),
                              "options": _public(options), "judge_options": _public(j_options)})
    Path(args.out).write_text(json.dumps(results.to_dict(), indent=2, ensure_ascii=False),
                              encoding="utf-8")
    print(results.scores.table())
    print(f"results written to {args.out}")
    return 0


def _public(options: dict) -> dict:
    """Options as stored with the results: an API key is recorded as set, never written."""
    return {k: ("set" if k == "api_key" and v else v) for k, v in options.items()}
