"""docs/cli.md is generated from the parsers; this fails when the two drift apart.

Regenerate: ``.venv/bin/python -m cinecap.cli.reference > docs/cli.md``.
"""
from pathlib import Path

from cinecap.cli import COMMANDS
from cinecap.cli.reference import render

DOC = Path(__file__).resolve().parent.parent / "docs" / "cli.md"


def test_cli_reference_is_current():
    assert DOC.read_text(encoding="utf-8") == render(), \
        "docs/cli.md is stale: python -m cinecap.cli.reference > docs/cli.md"


def test_every_command_is_documented():
    text = DOC.read_text(encoding="utf-8")
    for name in COMMANDS:
        assert f"## `{name}`" in text, f"command {name} is missing from docs/cli.md"
