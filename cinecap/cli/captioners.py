"""``cinecap captioners [--json]``: the captioner registry, and whether each backend can run here.

Availability is checked without loading anything heavy: a missing package, no model configured
(``CINECAP_MODEL`` / ``--model``), no server (``CINECAP_OPENAI_BASE_URL``) each say what to do.
The anchors captioner always runs; where its detector files are missing, its line says so and how
to fetch them (``cinecap models fetch``), and a third line says what its captions are worth
(``cinecap.captioners.limits``: its measured figures on footage it was not developed on).
Options given here (``--model``, ``--base-url``, ``--captioner-option``) count as configuration,
as in ``caption``, for the captioners that take them.
"""
from __future__ import annotations

import argparse

from cinecap.cli.options import add_captioner_options, captioner_options


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("captioners", help="list captioners and whether each can run here",
                              description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    add_captioner_options(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from cinecap.captioners import CAPTIONERS, availability
    from cinecap.captioners.limits import captioner_limits
    from cinecap.cli import print_json

    options = captioner_options(args)
    rows = []
    for name in CAPTIONERS.names():
        av = availability(name, **options)
        rows.append({"name": name, "available": av.ok, "reason": av.reason,
                     "help": CAPTIONERS.help(name), "limits": captioner_limits(name)})
    if args.json:
        print_json(rows)
        return 0
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        # An available backend's reason is a note (the anchors: detector files missing).
        state = (("available" + (f"; {r['reason']}" if r["reason"] else "")) if r["available"]
                 else f"unavailable: {r['reason']}")
        print(f"{r['name']:<{width}}  {r['help']}\n{'':<{width}}  {state}")
        if r["limits"]:
            print(f"{'':<{width}}  {r['limits']}")
    return 0
