"""The CLI reference (docs/cli.md), generated from the parsers so it cannot drift from the code.

Regenerate with ``python -m cinecap.cli.reference > docs/cli.md``; tests/test_cli_reference.py
fails when the committed page differs from what this prints.
"""
from __future__ import annotations

import os

from cinecap.cli import COMMANDS, build_parser

_HEADER = """# Command-line reference

`python -m cinecap COMMAND …` (or `cinecap COMMAND …` once installed with `pip install -e .`).
Generated from the parsers by `python -m cinecap.cli.reference > docs/cli.md`; a test keeps it
in step with the code.

Errors print one line, `error: …`, on stderr and exit with a code that says what went wrong:

| exit code | meaning |
|---|---|
"""


def _header() -> str:
    from cinecap.cli import EXIT_CODES

    return _HEADER + "".join(f"| {code} | {meaning} |\n" for code, meaning in EXIT_CODES)


def render() -> str:
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"  # argparse wraps to the terminal: fix it for a stable page
    try:
        parser = build_parser()
        sub = next(a for a in parser._actions if a.dest == "command")
        parts = [_header()]
        for name in COMMANDS:
            if name not in sub.choices:
                continue
            parts.append(f"\n## `{name}`\n\n```text\n{sub.choices[name].format_help().rstrip()}\n```\n")
        return "".join(parts)
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old


if __name__ == "__main__":
    print(render(), end="")
