"""``cinecap verify CLIP (--caption TEXT | --statements FILE) [--analysis FILE] [--json]``: each
statement of a caption checked against the clip's pixels.

Every statement of a measurable aspect gets a verdict from the anchors' evidence over its interval:
``supported`` (the measurement agrees), ``contradicted`` (it measured something else: what, with
the evidence) or ``not measurable`` (abstained, no subject, an aspect it does not measure).
``--caption`` is read as the rules judge reads free text; ``--statements`` is a JSON list of
``{"aspect", "value", "t_start"?, "t_end"?, "text"?, "subject"?}`` (a gold pair's statements, a
caption's ``--json`` statements). ``--analysis`` reuses a saved ``cinecap analyze --json`` output
(one analysis serves every caption of a clip). ``--json`` prints
``{"clip", "verdicts": [{"aspect", "value", "text", "t_start", "t_end", "subject", "verdict",
"reason", "measured", "evidence"}], "summary": {verdict: count}}``.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("verify", help="check each statement of a caption against the clip's pixels",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("clip", help="video file")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--caption", metavar="TEXT", help="a caption in free text")
    what.add_argument("--statements", metavar="FILE",
                      help="a JSON list of statements ({aspect, value, t_start, t_end, ...}), or "
                           "an object with a 'statements' list ('-': standard input)")
    p.add_argument("--analysis", metavar="FILE",
                   help="the clip's saved `cinecap analyze --json` output (skips the analysis)")
    p.add_argument("--json", action="store_true", help="print the verdicts as JSON")
    p.set_defaults(func=run)


def _read_json(path: str, what: str):
    import sys

    from cinecap.errors import InputError

    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise InputError(f"cannot read the {what} file {path!r}: {e.strerror}") from None
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError) as e:
        raise InputError(f"the {what} file {path!r} is not valid JSON: {e}") from None


def run(args: argparse.Namespace) -> int:
    from cinecap.cli import print_json, progress_printer
    from cinecap.errors import InputError
    from cinecap.verify import statements_of, summary, verify_clip

    if args.statements is not None:
        data = _read_json(args.statements, "statements")
        if isinstance(data, dict):
            data = data.get("statements")
        if not isinstance(data, list):
            raise InputError("the statements file must hold a JSON list of statements (or an "
                             "object with a 'statements' list)")
        sts = statements_of(statements=data)
    else:
        sts = statements_of(caption=args.caption)
    analysis = None
    if args.analysis:
        analysis = _read_json(args.analysis, "analysis")
        if not isinstance(analysis, dict) or "camera_motion" not in analysis:
            raise InputError(f"{args.analysis!r} is not a `cinecap analyze --json` output")
    else:
        from cinecap.video import probe

        probe(args.clip)  # a bad clip fails here with its VideoError before any statement work
    _, verdicts = verify_clip(args.clip, sts, analysis, progress=progress_printer(args.verbose))
    counts = summary(verdicts)
    if args.json:
        print_json({"clip": str(args.clip), "verdicts": [v.to_dict() for v in verdicts],
                    "summary": counts})
        return 0
    if not verdicts:
        print("the caption states nothing the judge can read as a film-language fact")
        return 0
    mark = {"supported": "✓", "contradicted": "✗", "not measurable": "·"}
    for v in verdicts:
        st = v.statement
        when = f" [{st.t_start:.1f}–{st.t_end:.1f} s]" if st.has_interval else ""
        print(f"{mark[v.verdict]} {v.verdict:<14} {st.aspect}: {st.value}{when} — {v.reason}")
    print(", ".join(f"{n} {k}" for k, n in counts.items()))
    return 0
