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
| 0 | success |
| 2 | bad input or usage (an empty caption, a malformed file, an unknown option or name) |
| 3 | a clip that cannot be used (not a video, truncated, over the limits) |
| 4 | a backend that cannot run here (missing package, no GPU, no server configured) |
| 5 | a judge or captioner that failed on this input |
| 6 | a training round that could not start or failed |
"""


def render() -> str:
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"  # argparse wraps to the terminal: fix it for a stable page
    try:
        parser = build_parser()
        sub = next(a for a in parser._actions if a.dest == "command")
        parts = [_HEADER]
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
