"""Tests that need a service (PostgreSQL, Chromium) skip where it is missing on a developer's
machine, but FAIL under CI (``CI`` set), where `.ci/run` must have provided it: a skipped test in
CI would pass without testing anything."""
from __future__ import annotations

import os

import pytest


def missing(reason: str) -> None:
    if os.environ.get("CI", "").lower() not in ("", "0", "false"):
        pytest.fail(f"{reason} — CI must provide it (.ci/run)", pytrace=False)
    pytest.skip(reason)


def model_files() -> None:
    """The detector files (``../shared/models/`` beside the checkout, or a configured copy)."""
    from cinecap.anchors.detectors import MODEL_FILES, find_model

    for name, filename in MODEL_FILES.items():
        if find_model(name) is None:
            missing(f"model file {filename} is not in ../shared/models/")
