"""The command-line reference (docs/cli.md), generated from the parsers of both command lines so it
cannot drift from the code: the library's ``python -m cinecap`` and the app's ``python -m ui``.

Regenerate with ``python -m ui.cli_reference > docs/cli.md``; tests/test_cli_reference.py fails
when the committed page differs from what this prints. It lives in ``ui`` because only ``ui``
may import both (``cinecap`` never imports the app).
"""
from __future__ import annotations

import argparse
import os

_HEADER = """# Command-line reference

Two command lines, both generated here from their parsers by
`python -m ui.cli_reference > docs/cli.md` (a test keeps this page in step with the code):

- `python -m cinecap COMMAND …` (or `cinecap COMMAND …` once installed with `pip install -e .`):
  the library — analyse, caption, judge, benchmark. It knows nothing of the app or its store.
- `python -m ui COMMAND …`: the app's own commands, over the app's store (`DATABASE_URL` /
  `CINECAP_DATA_DIR`, as `python app.py` uses them) — the web app's accounts.

Errors print one line, `error: …`, on stderr and exit with a code that says what went wrong:

| exit code | meaning |
|---|---|
"""


def _header() -> str:
    """The header with the exit-code table of ``cinecap.cli.EXIT_CODES`` (one list for both)."""
    from cinecap.cli import EXIT_CODES

    return _HEADER + "".join(f"| {code} | {meaning} |\n" for code, meaning in EXIT_CODES)

_LIBRARY = """
## The library: `python -m cinecap`
"""

_APP = """
## The app: `python -m ui`
"""


def sections(parser: argparse.ArgumentParser, names) -> str:
    """One ``### `name``` section per sub-command, with its ``--help``."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return "".join(f"\n### `{name}`\n\n```text\n{sub.choices[name].format_help().rstrip()}\n```\n"
                   for name in names if name in sub.choices)


def render() -> str:
    from cinecap import cli as library
    from ui import cli as app

    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"  # argparse wraps to the terminal: fix it for a stable page
    try:
        return "".join([_header(), _LIBRARY, sections(library.build_parser(), library.COMMANDS),
                        _APP, sections(app.build_parser(), app.COMMANDS)])
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old


if __name__ == "__main__":
    print(render(), end="")
