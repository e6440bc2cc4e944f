"""The progress callback every long piece of work reports through."""
from __future__ import annotations

from typing import Callable

#: progress(fraction 0..1, message) — long work reports through this; may be None.
Progress = Callable[[float, str], None]


def no_progress(fraction: float, message: str) -> None:  # noqa: ARG001 - the null callback
    return None
