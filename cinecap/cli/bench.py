"""``cinecap bench BENCH.json --captioner NAME --judge NAME --out RESULTS.json``."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cinecap import taxonomy as tx


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="caption a bench file's clips and score them against gold",
                       description="Run a captioner and a judge over a bench file (a JSON list of "
                                   "{video_path, gt_caption}, paths relative to the file).")
    p.add_argument("bench", help="bench JSON file (CineCap-Bench format)")
    p.add_argument("--captioner", default="anchors", help="captioner name (default: anchors)")
    p.add_argument("--judge", default="rules", help="judge name (default: rules)")
    p.add_argument("--model", help="model id or path for the vlm / openai captioners")
    p.add_argument("--adapter", help="LoRA adapter for the vlm captioner")
    p.add_argument("--base-url", help="server URL for the openai captioner")
    p.add_argument("--aspects", choices=["seven", "six"], default="seven",
                   help="score all seven aspects (benchmark) or the six training aspects")
    p.add_argument("--limit", type=int, help="only the first N items")
    p.add_argument("--out", required=True, help="where to write the results JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from cinecap.bench import load_bench, run_bench
    from cinecap.files import sha256_file
    from cinecap.captioners import get_captioner
    from cinecap.judge import get_judge

    items = load_bench(args.bench)
    if args.limit:
        items = items[: args.limit]
    options = {k: v for k, v in {"model": args.model, "adapter": args.adapter,
                                  "base_url": args.base_url}.items() if v}
    captioner = get_captioner(args.captioner, **options)
    judge = get_judge(args.judge)
    aspects = tx.ASPECTS if args.aspects == "seven" else tx.TRAINING_ASPECTS

    def progress(frac: float, msg: str) -> None:
        print(f"[{100 * frac:5.1f}%] {msg}", file=sys.stderr)

    results = run_bench(items, captioner, judge, aspects, progress,
                        meta={"bench_file": str(args.bench),
                              "bench_sha256": sha256_file(args.bench), "options": options})
    Path(args.out).write_text(json.dumps(results.to_dict(), indent=2, ensure_ascii=False),
                              encoding="utf-8")
    print(results.scores.table())
    print(f"results written to {args.out}")
    return 0
