"""``cinecap caption CLIP [--captioner NAME] [--json]``: caption a clip in film language.

Generic over the captioner registry (``cinecap captioners`` lists them). ``--model``,
``--adapter`` and ``--base-url`` are fields of the captioners' configs and are passed only when
given; ``--captioner-option KEY=VALUE`` sets any other field (``max_frames=16``). An option the
chosen captioner does not take is an error naming the ones it does. ``--json`` prints
``{"caption", "reasoning", "statements": [{"aspect", "value", "text", "t_start", "t_end",
"evidence", …}], "captioner", "seconds", "warnings", "meta"}`` (docs/architecture.md), with the
anchors' analysis under ``"evidence"`` when ``--evidence`` is given.
"""
from __future__ import annotations

import argparse
import sys

from cinecap.cli.options import add_captioner_options, captioner_options


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("caption", help="caption a clip in film language",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("clip", help="video file")
    p.add_argument("--captioner", default="anchors", help="captioner name (default: anchors)")
    add_captioner_options(p)
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--evidence", action="store_true",
                   help="with --json: include the captioner's evidence (the anchors' analysis)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from cinecap.captioners import get_captioner
    from cinecap.cli import print_json, progress_printer

    captioner = get_captioner(args.captioner, **captioner_options(args))
    result = captioner.caption(args.clip, progress_printer(args.verbose))
    if args.json:
        d = result.to_dict()
        if args.evidence:
            d["evidence"] = result.evidence
        print_json(d)
        return 0
    print(result.caption or "(nothing stated)")
    if result.reasoning:
        print("\nreasoning:")
        print(result.reasoning)
    for w in result.warnings:
        print(f"warning: {w}", file=sys.stderr)
    if result.meta.get("limits"):  # what such a caption is worth (the anchors' measured figures)
        print(f"note: {result.meta['limits']}", file=sys.stderr)
    print(f"\n{result.captioner}, {result.seconds:.2f} s", file=sys.stderr)
    return 0
