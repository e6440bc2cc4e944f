"""``cinecap bench BENCH.json --captioner NAME --judge NAME [--protocol NAME] --out RESULTS.json``.

The results file names every protocol choice in its top-level "protocol" object (docs/protocol.md).
With the llm judge the judge protocol defaults to the released benchmark protocol
(``released-benchmark``: prompt benchmark-7, released counting, the raw output judged).

The bench options are declared once here (:func:`add_bench_arguments`, read back by
:func:`bench_choices`): the app's ``python -m ui bench run`` takes the same ones, with the same
defaults, and adds only what recording a run needs.
"""
from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cinecap import taxonomy as tx
from cinecap.cli.options import (add_captioner_options, add_judge_options, captioner_options,
                                 judge_options)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="caption a bench file's clips and score them against gold",
                       description="Run a captioner and a judge over a bench file (a JSON list of "
                                   "{video_path, gt_caption}, paths relative to the file).")
    add_bench_arguments(p)
    p.add_argument("--out", required=True, help="where to write the results JSON")
    p.set_defaults(func=run)


def add_bench_arguments(p: argparse.ArgumentParser) -> None:
    """The options of a bench run, for every command line that runs one (not ``--out``: this
    command needs it, the app's makes it optional)."""
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


@dataclass(frozen=True)
class BenchChoices:
    """What parsed bench options ask for: the names, the options (the llm judge's protocol
    applied), the aspects, how many items."""

    captioner: str
    captioner_options: dict[str, Any]
    judge: str
    judge_options: dict[str, Any]
    aspects: tuple[str, ...]
    limit: int | None


def bench_choices(args: argparse.Namespace) -> BenchChoices:
    return BenchChoices(args.captioner, captioner_options(args), args.judge,
                        bench_judge_options(args.judge, args.protocol, judge_options(args)),
                        tuple(tx.ASPECTS if args.aspects == "seven" else tx.TRAINING_ASPECTS),
                        args.limit)


def run(args: argparse.Namespace) -> int:
    from cinecap.bench import load_bench, run_bench, run_meta
    from cinecap.captioners import get_captioner
    from cinecap.cli import progress_printer
    from cinecap.judge import get_judge, judge_limits

    chosen = bench_choices(args)
    items = load_bench(args.bench)
    if chosen.limit:
        items = items[: chosen.limit]
    captioner = get_captioner(chosen.captioner, **chosen.captioner_options)
    judge = get_judge(chosen.judge, **chosen.judge_options)
    results = run_bench(items, captioner, judge, chosen.aspects, progress_printer(),
                        meta=run_meta(args.bench, chosen.captioner_options,
                                      chosen.judge_options))
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
