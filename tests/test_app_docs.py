"""docs/app.md stays true to the code: every setting and role is documented."""
from __future__ import annotations

import dataclasses
import inspect
import re
from pathlib import Path

from db.roles import ROLES
from ui.settings import Settings

DOC = (Path(__file__).resolve().parent.parent / "docs" / "app.md").read_text()


def test_every_environment_variable_is_documented():
    source = inspect.getsource(Settings.from_env) + inspect.getsource(Settings)
    names = set(re.findall(r"\"(CINECAP_[A-Z_]+|DATABASE_URL)\"", source))
    names |= set(re.findall(r"\b(CINECAP_[A-Z_]+)\b", inspect.getsource(
        __import__("db.location", fromlist=["x"]))))
    assert names, "no variables found: the pattern is stale"
    missing = sorted(n for n in names if f"`{n}`" not in DOC)
    assert not missing, f"undocumented in docs/app.md: {missing}"


def test_every_role_is_documented_and_every_setting_read_from_the_environment():
    for role in ROLES:
        assert f"| {role} |" in DOC
    set_by_the_app = ("judge", "page_dir")
    for f in dataclasses.fields(Settings):
        assert f.name in inspect.getsource(Settings.from_env) or f.name in set_by_the_app, f.name


def test_the_review_keyboard_map_and_length_limits_are_documented():
    from db import limits
    from ui.tabs.review import SHORTCUTS

    keymap = DOC.split("### Keyboard map (Review tab)")[1]
    arrows = {"ArrowDown": "↓", "ArrowUp": "↑"}
    for key in SHORTCUTS:
        assert f"`{arrows.get(key, key)}`" in keymap, key
    for key in ("`1`–`9`", "`Ctrl+Z`", "`Ctrl+Shift+Z`"):
        assert key in keymap
    for value in (limits.MAX_FIELD_CHARS, limits.MAX_SUBJECT_CHARS, limits.MAX_STATEMENTS,
                  limits.MAX_CAPTION_CHARS, limits.MAX_REASONING_CHARS, limits.MAX_DRAFT_ACTIONS,
                  limits.MAX_DRAFT_BYTES):
        assert f"{value:,}" in DOC, value
