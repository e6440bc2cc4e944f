"""docs/app.md stays true to the code: every setting and role is documented."""
from __future__ import annotations

import dataclasses
from pathlib import Path

from db.roles import ROLES
from ui.settings import Settings, markdown_table

DOC = (Path(__file__).resolve().parent.parent / "docs" / "app.md").read_text()


def test_the_settings_table_is_the_one_made_from_the_declarations():
    lines = DOC.split("\n")
    start = lines.index("| variable | default | meaning |")
    end = next(i for i in range(start, len(lines)) if not lines[i].startswith("|"))
    assert "\n".join(lines[start:end]) + "\n" == markdown_table(), \
        "docs/app.md's settings table is stale: python -m ui.settings prints the current one"


def test_every_role_is_documented_and_every_setting_declared():
    for role in ROLES:
        assert f"| {role} |" in DOC
    set_by_the_app = ("judge", "page_dir")
    for f in dataclasses.fields(Settings):
        assert f.metadata.get("help"), f"{f.name}: declare it with ui.settings.setting(…, help)"
        assert f.metadata.get("env") or f.name in set_by_the_app, \
            f"{f.name} names no environment variable"


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


#: The keys and values the Spaces configuration reference accepts (huggingface/hub-docs,
#: huggingface/hub-docs, spaces-config-reference, August 2026).
SPACE_KEYS = {"title", "emoji", "colorFrom", "colorTo", "sdk", "python_version", "sdk_version",
              "suggested_hardware", "suggested_storage", "app_file", "app_build_command",
              "app_port", "base_path", "fullWidth", "header", "short_description", "models",
              "datasets", "tags", "thumbnail", "pinned", "hf_oauth", "hf_oauth_scopes",
              "hf_oauth_expiration_minutes", "hf_oauth_authorized_org", "disable_embedding",
              "startup_duration_timeout", "custom_headers", "preload_from_hub", "license"}
SPACE_COLORS = {"red", "yellow", "green", "blue", "indigo", "purple", "pink", "gray"}
SPACE_HARDWARE = {"cpu-basic", "cpu-upgrade", "t4-small", "t4-medium", "l4x1", "l4x4", "l40sx1",
                  "l40sx4", "l40sx8", "a10g-small", "a10g-large", "a10g-largex2", "a10g-largex4",
                  "a100-large", "a100x4", "a100x8"}


def _front_matter(text: str) -> dict[str, str]:
    block = text.split("---\n")[1]
    return {k.strip(): v.strip().strip('"') for k, _, v in
            (line.partition(":") for line in block.strip().splitlines())}


def test_the_space_front_matter_is_the_documented_one_and_valid():
    import sys

    import gradio

    root = Path(__file__).resolve().parent.parent
    readme = _front_matter((root / "README.md").read_text())
    documented = _front_matter((root / "docs" / "space_front_matter.md").read_text().split(
        "```yaml\n", 1)[1])
    assert readme == documented
    assert set(readme) <= SPACE_KEYS, set(readme) - SPACE_KEYS
    assert readme["sdk"] == "gradio" and readme["app_file"] == "app.py"
    assert readme["sdk_version"] == gradio.__version__  # the Gradio the tests run
    assert readme["python_version"] == f"{sys.version_info[0]}.{sys.version_info[1]}"
    assert {readme["colorFrom"], readme["colorTo"]} <= SPACE_COLORS
    assert readme["suggested_hardware"] in SPACE_HARDWARE
    assert 0 < int(readme["hf_oauth_expiration_minutes"]) <= 43200
