"""docs/cli.md is generated from the parsers of both command lines; this fails when they drift.

Regenerate: ``.venv/bin/python -m ui.cli_reference > docs/cli.md``.
"""
from pathlib import Path

from cinecap.cli import COMMANDS as LIBRARY_COMMANDS
from ui.cli import COMMANDS as APP_COMMANDS
from ui.cli_reference import render

DOC = Path(__file__).resolve().parent.parent / "docs" / "cli.md"


def test_cli_reference_is_current():
    assert DOC.read_text(encoding="utf-8") == render(), \
        "docs/cli.md is stale: python -m ui.cli_reference > docs/cli.md"


def test_every_command_is_documented_under_its_command_line():
    text = DOC.read_text(encoding="utf-8")
    library, _, app = text.partition("## The app: `python -m ui`")
    assert app, "docs/cli.md has no section for the app's command line"
    for name in LIBRARY_COMMANDS:
        assert f"### `{name}`" in library, f"cinecap {name} is missing from docs/cli.md"
    for name in APP_COMMANDS:
        assert f"### `{name}`" in app, f"python -m ui {name} is missing from docs/cli.md"
    assert "### `users`" not in library  # the library has no account command
