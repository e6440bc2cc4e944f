"""``cinecap caption CLIP [--captioner NAME] [--json]``: caption a clip in film language.

Generic over the captioner registry (``cinecap captioners`` lists them). ``--model``,
``--adapter`` and ``--base-url`` are passed to the captioner only when given. ``--json`` prints
``{"caption", "reasoning", "statements": [{"aspect", "value", "text", "t_start", "t_end",
"evidence", …}], "captioner", "seconds", "warnings", "meta"}`` (ARCHITECTURE.md), with the anchors'
analysis under ``"evidence"`` when ``--evidence`` is given.
"""
from __future__ import annotations

import argparse
import inspect
import sys


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("caption", help="caption a clip in film language",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("clip", help="video file")
    p.add_argument("--captioner", default="anchors", help="captioner name (default: anchors)")
    p.add_argument("--model", help="model (vlm: checkpoint dir or hub id; openai: served name)")
    p.add_argument("--adapter", help="LoRA adapter directory (vlm)")
    p.add_argument("--base-url", help="OpenAI-compatible server URL (openai)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--evidence", action="store_true",
                   help="with --json: include the captioner's evidence (the anchors' analysis)")
    p.set_defaults(func=run)


def _options(args: argparse.Namespace) -> dict:
    return {k: v for k, v in (("model", args.model), ("adapter", args.adapter),
                              ("base_url", args.base_url)) if v}


def _check_options(name: str, options: dict) -> None:
    """A clear error for an option the chosen captioner does not take (not a TypeError)."""
    from cinecap.captioners import CAPTIONERS
    from cinecap.errors import InputError

    if not options:
        return
    try:
        cls = CAPTIONERS.load(name)
    except ImportError:
        return  # availability() reports the missing package
    params = inspect.signature(cls.__init__).parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return
    names = {p.name for p in params}
    extra = [k for k in options if k not in names]
    if extra:
        flags = ", ".join("--" + k.replace("_", "-") for k in extra)
        raise InputError(f"the {name} captioner does not take {flags}")


def run(args: argparse.Namespace) -> int:
    from cinecap.captioners import CAPTIONERS, get_captioner
    from cinecap.cli import print_json

    name = CAPTIONERS.check(args.captioner)
    options = _options(args)
    _check_options(name, options)
    captioner = get_captioner(name, **options)
    progress = None
    if getattr(args, "verbose", False):
        progress = lambda frac, msg: print(f"[{100 * frac:5.1f}%] {msg}", file=sys.stderr)  # noqa: E731
    result = captioner.caption(args.clip, progress)
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
    print(f"\n{result.captioner}, {result.seconds:.2f} s", file=sys.stderr)
    return 0
