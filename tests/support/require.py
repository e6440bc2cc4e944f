"""Tests that need a service (PostgreSQL, Chromium) skip where it is missing on a developer's
machine, but FAIL under CI (``CI`` set), where `.ci/run` must have provided it: a skipped test in
CI would pass without testing anything."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

#: The team's licensed clips beside the checkout (``../shared/footage/``), as CI provides them.
LICENSED_FOOTAGE = Path(__file__).resolve().parents[3] / "shared" / "footage"


def missing(reason: str) -> None:
    if os.environ.get("CI", "").lower() not in ("", "0", "false"):
        pytest.fail(f"{reason} — CI must provide it (.ci/run)", pytrace=False)
    pytest.skip(reason)


def licensed_clip(name: str) -> Path:
    """``../shared/footage/NAME.mp4``, one of the 24 licensed clips."""
    path = LICENSED_FOOTAGE / f"{name}.mp4"
    if not path.is_file():
        missing(f"licensed clip {path.name} is not in ../shared/footage/")
    return path


def model_files() -> None:
    """The detector files (``../shared/models/`` beside the checkout, or a configured copy)."""
    from cinecap.anchors.detectors import MODEL_FILES, find_model

    for name, filename in MODEL_FILES.items():
        if find_model(name) is None:
            missing(f"model file {filename} is not in ../shared/models/")
