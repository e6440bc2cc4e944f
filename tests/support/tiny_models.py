"""Tiny random Qwen-VL checkpoints built offline once per test session (cinecap.testing.tiny)."""
from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path


@functools.cache
def tiny_checkpoint(family: str = "qwen3_vl") -> Path:
    """A checkpoint directory shared by every test of the session; removed at exit."""
    from cinecap.testing.tiny import build_tiny_model

    root = Path(tempfile.mkdtemp(prefix=f"cinecap-tiny-{family}-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    return build_tiny_model(root / family, family=family)
