"""``cinecap tiny-model OUT_DIR [--family qwen3_vl|qwen2_5_vl]``: build a tiny random checkpoint offline."""
from __future__ import annotations

import argparse


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "tiny-model", help="build a tiny random Qwen-VL checkpoint offline (tests, demos)",
        description="Build a real Qwen3-VL or Qwen2.5-VL checkpoint with random weights and a "
                    "locally trained tokenizer (well under a few MB), fully offline. Load it with "
                    "--captioner vlm --model OUT_DIR.")
    p.add_argument("out_dir", metavar="OUT_DIR", help="directory to write (created; must be empty "
                                                      "or hold a previous tiny build)")
    p.add_argument("--family", choices=["qwen3_vl", "qwen2_5_vl"], default="qwen3_vl",
                   help="model family (default: qwen3_vl, the released model's)")
    p.add_argument("--seed", type=int, default=0, help="random seed for the weights (default 0)")
    p.add_argument("--force", action="store_true",
                   help="write into OUT_DIR even when it holds something else (files of the same "
                        "name are replaced)")
    p.add_argument("--json", action="store_true", help="print a JSON summary")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from cinecap.cli import print_json
    from cinecap.testing.tiny import build_tiny_model, checkpoint_summary

    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # keep stderr for errors; the summary says what was written
    out = build_tiny_model(args.out_dir, family=args.family, seed=args.seed,
                           force=args.force)
    summary = checkpoint_summary(out)
    if args.json:
        print_json(summary)
    else:
        print(f"{summary['family']} checkpoint with {summary['parameters']:,} parameters "
              f"({summary['bytes'] / 1e6:.2f} MB) in {out}")
    return 0
